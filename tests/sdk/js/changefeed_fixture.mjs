// The shared setup and the model of the change-feed tests, changefeed_modes.test.mjs and
// changefeed_ttl.test.mjs (node runs each test file in its own process, so each file that imports
// this module gets its own emulator): importing it registers the before/after hooks of
// useEmulatorWithDatabase() (one database; db and dbId are exported as live bindings); the
// emulator clock; and the expected feed.
//
// The expected feed is computed here: every write to a physical partition takes its next LSN (the
// Tracker counts them and checks the write's session token), a change-feed document is the stored
// item with "_lsn" appended (in place of any stored "_lsn"), latest-version pages list each live
// item once ordered by its latest LSN, an all-versions-and-deletes delete is an empty current image and its metadata
// (naming the id and partition key; no image), and a page costs 2 + one point read per returned
// document (as returned, in KB).
import assert from "node:assert/strict";
import { ChangeFeedMode, ChangeFeedPolicy, ChangeFeedRetentionTimeSpan } from "@azure/cosmos";
import { LOCAL, assertCharge, newClient, round2, uid, useEmulatorWithDatabase, emulatorClock } from "./harness.mjs";

export let db;
export let dbId;
export const ctx = useEmulatorWithDatabase((d) => ({ db, dbId } = d));

export const V2 = { paths: ["/pk"], version: 2 };
export const HIERARCHICAL = { paths: ["/tenant", "/user"], kind: "MultiHash", version: 2 };
export const AVAD = ChangeFeedMode.AllVersionsAndDeletes;
export const retention = () => new ChangeFeedPolicy(ChangeFeedRetentionTimeSpan.fromMinutes(10));

// The published V2 boundaries of 4 ranges (partitions.test.mjs checks them).
export const FOUR_RANGES = [
  ["", "0FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF"],
  ["0FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF", "1FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFE"],
  ["1FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFE", "2FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFD"],
  ["2FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFD", "FF"],
];

/** A container with a fresh id: {container, id, rid}. `partitions` sets the physical partition count. */
export async function createContainer({ partitions, partitionKey = V2, ...body } = {}) {
  const id = uid("cf");
  const options = partitions ? { initialHeaders: { "x-cosmos-emulator-partition-count": String(partitions) } } : {};
  const res = await db.containers.create({ id, partitionKey, ...body }, options);
  return { container: res.container, id, rid: res.resource._rid, resource: res.resource };
}

/** container.items.getChangeFeedIterator in latest-version mode, and in all-versions-and-deletes mode. */
export const latestFeed = (container, start, options = {}) =>
  container.items.getChangeFeedIterator({ changeFeedStartFrom: start, ...options });
export const avadFeed = (container, start, options = {}) =>
  container.items.getChangeFeedIterator({ changeFeedStartFrom: start, changeFeedMode: AVAD, ...options });

/** The same container through a brand-new CosmosClient (nothing cached from the first one). */
export function viaNewClient(id) {
  return ctx.track(newClient(ctx.env)).database(dbId).container(id);
}

// ---------------------------------------------------------------------------------------------
// The emulator clock (read openly, moved with the master key; only against the local binary)

async function clock(body) {
  const res = await emulatorClock(ctx.env, body);
  assert.equal(res.status, 200, `clock: ${res.status} ${res.text}`);
  const json = res.json;
  assert.deepEqual(Object.keys(json), ["unixMs", "offsetMs"]);
  return json;
}
export const advanceClock = (seconds) => clock({ advanceSeconds: seconds });
const clockSeconds = async () => (LOCAL ? Math.floor((await clock()).unixMs / 1000) : Math.floor(Date.now() / 1000));
/** The emulator's "now" as a Date, at the start of its current second. */
export const clockDate = async () => new Date((await clockSeconds()) * 1000);

/** Runs fn and returns {result, min, max}: the clock seconds before and after it. */
export async function timed(fn) {
  const min = await clockSeconds();
  const result = await fn();
  const max = await clockSeconds();
  return { result, min, max: LOCAL ? max : max + 5 };
}

// ---------------------------------------------------------------------------------------------
// The expected feed

/** Writes items and keeps what the change feed must show: per range, the LSN each write took
 *  (counted here), every live item's latest version (with "_lsn"), and every change in the
 *  all-versions-and-deletes wire format (a delete: {current: {}, metadata}). Ids are unique per tracker. */
export class Tracker {
  constructor(container, paths = ["/pk"]) {
    this.container = container;
    this.paths = paths;
    this.lsns = new Map(); // range id -> last LSN
    this.latest = new Map(); // id -> {doc, range}
    this.changes = []; // {range, entry}
  }

  nextLsn(range) {
    const lsn = (this.lsns.get(range) ?? 0) + 1;
    this.lsns.set(range, lsn);
    return lsn;
  }

  lsn(range = "0") {
    return this.lsns.get(range) ?? 0;
  }

  took(res, what) {
    const range = res.headers["x-ms-documentdb-partitionkeyrangeid"];
    assert.ok(range !== undefined, `${what}: the response names its range`);
    const lsn = this.nextLsn(range);
    const token = res.headers["x-ms-session-token"];
    assert.equal(token, `${range}:-1#${lsn}`, `${what} takes the next LSN of range ${range}`);
    return { range, lsn };
  }

  wrote(res, id) {
    const { range, lsn } = this.took(res, `write of ${id}`);
    const prev = this.latest.get(id);
    // the feed's "_lsn" replaces any stored "_lsn" property and comes last
    const { _lsn: _ignored, ...stored } = res.resource;
    const doc = { ...stored, _lsn: lsn };
    const metadata = { lsn, crts: res.resource._ts, operationType: prev ? "replace" : "create" };
    if (prev) metadata.previousImageLSN = prev.doc._lsn;
    this.latest.set(id, { doc, range });
    this.changes.push({ range, entry: { current: doc, metadata } });
    return doc;
  }

  async create(item) {
    return this.wrote(await this.container.items.create(item), item.id);
  }
  async replace(item, pk) {
    return this.wrote(await this.container.item(item.id, pk).replace(item), item.id);
  }
  async upsert(item) {
    return this.wrote(await this.container.items.upsert(item), item.id);
  }
  async patch(id, pk, operations) {
    return this.wrote(await this.container.item(id, pk).patch(operations), id);
  }

  gone(id, lsn, crts, ttlExpired) {
    const prev = this.latest.get(id);
    this.latest.delete(id);
    const partitionKey = {};
    for (const p of this.paths) partitionKey[p.slice(1)] = prev.doc[p.slice(1)];
    // a delete carries an empty current image and its metadata, which names the item and its
    // partition key (the Python SDK's all-versions tests expect "current": {})
    this.changes.push({
      range: prev.range,
      entry: {
        current: {},
        metadata: {
          lsn,
          crts,
          operationType: "delete",
          previousImageLSN: prev.doc._lsn,
          timeToLiveExpired: ttlExpired,
          id,
          partitionKey,
        },
      },
    });
  }

  async delete(id, pk) {
    const { result: res, min, max } = await timed(() => this.container.item(id, pk).delete());
    assert.equal(res.statusCode, 204);
    const { lsn } = this.took(res, `delete of ${id}`);
    this.gone(id, lsn, { min, max }, false);
  }

  /** A TTL expiry swept at `crts` (a number or {min, max}): it takes the next LSN of the item's range. */
  expired(id, crts) {
    const { range } = this.latest.get(id);
    this.gone(id, this.nextLsn(range), crts, true);
  }

  /** Latest-version documents of a range after an LSN, in LSN order (`where` filters the items). */
  feed(range = "0", after = 0, where = () => true) {
    return [...this.latest.values()]
      .filter((x) => x.range === range && x.doc._lsn > after && where(x.doc))
      .map((x) => x.doc)
      .sort((a, b) => a._lsn - b._lsn);
  }

  /** All-versions-and-deletes entries of a range after an LSN, in LSN order. */
  allChanges(range = "0", after = 0) {
    return this.changes.filter((c) => c.range === range && c.entry.metadata.lsn > after).map((c) => c.entry);
  }

  rangeOf(id) {
    return this.latest.get(id).range;
  }
}

/** Charge of a change-feed response: 2 + a point read per returned document (factor 2: Strong). */
export function cfCharge(docs, factor = 1) {
  let ru = 2;
  for (const d of docs) {
    const kb = Buffer.byteLength(JSON.stringify(d), "utf8") / 1024;
    ru += round2(factor * Math.max(1, 1 + 0.1 * (kb - 1)));
  }
  return round2(ru);
}

export function assertCfCharge(res, docs, factor = 1) {
  const expected = cfCharge(docs, factor);
  assertCharge(res.headers["x-ms-request-charge"], expected, "change feed charge");
  // ChangeFeedIteratorResponse.requestCharge is parseInt() of the header (@azure/cosmos 4.9.3).
  if (LOCAL) assert.equal(res.requestCharge, Math.trunc(expected), "response.requestCharge");
}

/** Deep and key-order equality; an expected crts of {min, max} accepts any second in between. */
export function assertExactly(actual, expected, what = "documents") {
  assert.equal(actual.length, expected.length, `${what}: ${JSON.stringify(actual.map((d) => d.id ?? d.metadata))}`);
  const resolved = expected.map((e, i) => {
    const crts = e.metadata?.crts;
    if (crts === null || typeof crts !== "object") return e;
    const got = actual[i].metadata?.crts;
    assert.ok(got >= crts.min && got <= crts.max, `${what}[${i}]: crts ${got} within [${crts.min}, ${crts.max}]`);
    return { ...e, metadata: { ...e.metadata, crts: got } };
  });
  assert.deepEqual(actual, resolved, what);
  assert.equal(JSON.stringify(actual), JSON.stringify(resolved), `${what}: key order`);
  return resolved;
}

/** The service message of an error: the SDK wraps it as 'Message: {"Errors":[...]}\r\nActivityId: ...'. */
export function messageOf(errOrText) {
  const text = typeof errOrText === "string" ? errOrText : errOrText.body?.message ?? errOrText.message;
  const m = /^Message: (\{.*\})\r?\n/s.exec(text);
  return m ? JSON.parse(m[1]).Errors.join(" ") : text;
}

/** A 200 page: exactly these documents, the etag naming `etag`, and the charge of the model. */
export function assertPage(res, expected, etag, what = "page") {
  assert.equal(res.statusCode, 200, `${what}: status`);
  const resolved = assertExactly(res.result, expected, what);
  assert.equal(res.count, expected.length);
  assert.equal(res.headers["x-ms-item-count"], String(expected.length));
  if (etag !== undefined) assert.equal(res.headers.etag, `"${etag}"`, `${what}: etag`);
  assertCfCharge(res, resolved);
}

/** A 304: nothing new, an empty result, charge 2. */
export function assertNotModified(res, etag, what = "304") {
  assert.equal(res.statusCode, 304, `${what}: status (got ${res.result?.length} documents)`);
  assert.deepEqual(res.result, []);
  assert.equal(res.count, 0);
  assert.equal(res.headers["x-ms-item-count"], "0");
  if (etag !== undefined) assert.equal(res.headers.etag, `"${etag}"`, `${what}: etag`);
  assertCfCharge(res, []);
}

/** The SDK's continuation token of a feed-range (EPK) iterator: the queue of [min, max, lsn]. */
export const epkToken = (rid, ranges) =>
  JSON.stringify({
    rid,
    Continuation: ranges.map(([minInclusive, maxExclusive, lsn]) => ({
      minInclusive,
      maxExclusive,
      continuationToken: lsn === "" ? "" : `"${lsn}"`,
    })),
  });
/** The SDK's continuation token of a partition-key iterator. */
export const pkToken = (rid, partitionKey, lsn) => JSON.stringify({ rid, partitionKey, Continuation: `"${lsn}"` });

/** readNext until a 304; returns the 200 pages and the 304. */
export async function drain(iterator, limit = 20) {
  const pages = [];
  while (iterator.hasMoreResults) {
    const res = await iterator.readNext();
    if (res.statusCode === 304) return { pages, notModified: res };
    pages.push(res);
    assert.ok(pages.length <= limit, "the feed ends in a 304");
  }
  assert.fail("hasMoreResults turned false");
}
