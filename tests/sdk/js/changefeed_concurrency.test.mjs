// The change feed under concurrent writers, through @azure/cosmos: a container with 4 physical
// partitions and a change feed policy; 8 independent CosmosClient instances write 10,000 items
// (creates, upsert-creates, replaces, upserts of existing items, patches and deletes) while readers
// follow the feed at the same time:
//  - latest version, one iterator per feed range (container.getFeedRanges()), from the beginning;
//  - all versions and deletes, one iterator per feed range, from now (before the first write);
//  - latest version over the whole container, handed over to a new client from its composite
//    continuation token every few pages.
// Every write's LSN and range are taken from its response (x-ms-session-token "<range>:-1#<lsn>"),
// so the accounting is exact: per range the write LSNs are 1..N; the AVAD readers see each of them
// exactly once in LSN order with the right operation, current images (a delete: metadata only,
// naming the id and partition key) and previousImageLSN; the latest-version
// readers see strictly increasing _lsn per range, every item written once and never again exactly
// once, every other item at distinct versions ending at its final one, and no deleted item after its
// delete. The final etags and session tokens name each range's last LSN.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  ChangeFeedMode,
  ChangeFeedPolicy,
  ChangeFeedRetentionTimeSpan,
  ChangeFeedStartFrom,
} from "@azure/cosmos";
import { LOCAL, assertCharge, docPath, newClient, rawRequest, round2, uid, useEmulatorWithDatabase } from "./harness.mjs";

let db;
let dbId;
const ctx = useEmulatorWithDatabase((d) => ({ db, dbId } = d));

const N = 10000; // items
const WRITERS = 8; // independent CosmosClient instances
const IN_FLIGHT = 8; // concurrent operations per writer
const PKS = 499; // logical partitions
const RANGES = 4;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const etagLsn = (etag) => Number(String(etag).replace(/"/g, ""));

/** "<range>:-1#<lsn>" of a single-range response -> {range, lsn}. */
function sessionOf(headers) {
  const m = String(headers["x-ms-session-token"]).match(/^(\d+):-1#(\d+)$/);
  assert.ok(m, `session token ${headers["x-ms-session-token"]}`);
  return { range: m[1], lsn: Number(m[2]) };
}

/** The change feed charge: 2 + per document max(1, 1 + 0.1 (KB - 1)), each term to 2 decimals. */
function changeFeedCharge(docs) {
  let total = 2;
  for (const d of docs) total += round2(Math.max(1, 1 + 0.1 * (Buffer.byteLength(JSON.stringify(d), "utf8") / 1024 - 1)));
  return round2(total);
}

/** The operations on item n, in order (the first one creates it). */
function planOf(n) {
  if (n % 10 === 0) return ["create", "replace"];
  if (n % 10 === 1) return ["create", "upsert", "patch"];
  if (n % 10 === 2) return ["upsertCreate"];
  if (n % 20 === 3) return ["create", "delete"];
  if (n % 20 === 13) return ["create", "patch", "delete"];
  return ["create"];
}

describe("change feed under concurrent writers (4 partitions, 8 clients, 10,000 items)", () => {
  it("every write is seen exactly once, in LSN order per range", { timeout: 180000 }, async () => {
    const t0 = Date.now();
    const collId = uid("cf");
    const { container } = await db.containers.create(
      {
        id: collId,
        partitionKey: { paths: ["/pk"], version: 2 },
        changeFeedPolicy: new ChangeFeedPolicy(ChangeFeedRetentionTimeSpan.fromMinutes(60)),
      },
      { initialHeaders: { "x-cosmos-emulator-partition-count": String(RANGES) } },
    );
    const pkRanges = (await container.readPartitionKeyRanges().fetchAll()).resources;
    assert.equal(pkRanges.length, RANGES);
    const feedRanges = await container.getFeedRanges();
    assert.equal(feedRanges.length, RANGES);
    const rangeIdOf = (fr) => pkRanges.find((r) => r.minInclusive === fr.minInclusive && r.maxExclusive === fr.maxExclusive).id;
    const rangeIds = feedRanges.map(rangeIdOf);
    assert.deepEqual(rangeIds, ["0", "1", "2", "3"]);

    // ---- writers --------------------------------------------------------------------------
    const writes = new Map(); // "<range>/<lsn>" -> {id, pk, op, lsn, range, resource, prev}
    const history = new Map(); // id -> [write records in order]
    let writersDone = false;
    let aborted = false; // a writer or reader failed: everyone stops
    const finalLsn = {}; // range -> last LSN, known once the writers are done
    const startSeconds = Math.floor(Date.now() / 1000) - 1;

    const record = (id, pk, op, res) => {
      const { range, lsn } = sessionOf(res.headers);
      assert.equal(res.headers["x-ms-documentdb-partitionkeyrangeid"], range);
      assert.equal(res.headers["lsn"], String(lsn));
      const h = history.get(id) ?? [];
      const w = { id, pk, op, lsn, range, resource: res.resource, prev: h.at(-1) };
      if (op === "delete") assert.equal(res.resource ?? undefined, undefined);
      else assert.equal(res.resource.id, id);
      if (w.prev) assert.equal(w.prev.range, range, `${id} stays in its range`);
      const key = `${range}/${lsn}`;
      assert.equal(writes.has(key), false, `LSN ${key} handed out twice`);
      writes.set(key, w);
      h.push(w);
      history.set(id, h);
    };

    const writer = async (client, w) => {
      const c = client.database(dbId).container(collId);
      const mine = [];
      for (let n = w; n < N; n += WRITERS) mine.push(n);
      let next = 0;
      const worker = async () => {
        while (next < mine.length && !aborted) {
          const n = mine[next++];
          const id = `item-${n}`;
          const pk = `pk-${n % PKS}`;
          let v = 0;
          for (const op of planOf(n)) {
            let res;
            switch (op) {
              case "create":
                res = await c.items.create({ id, pk, v, writer: w, pad: "x".repeat(n % 50) });
                assert.equal(res.statusCode, 201);
                break;
              case "upsertCreate":
                res = await c.items.upsert({ id, pk, v, writer: w, kind: "upserted" });
                assert.equal(res.statusCode, 201);
                break;
              case "replace":
                res = await c.item(id, pk).replace({ id, pk, v: ++v, writer: w, replaced: true });
                assert.equal(res.statusCode, 200);
                break;
              case "upsert":
                res = await c.items.upsert({ id, pk, v: ++v, writer: w, upserted: true });
                assert.equal(res.statusCode, 200);
                break;
              case "patch":
                res = await c.item(id, pk).patch([{ op: "incr", path: "/v", value: 1 }]);
                assert.equal(res.statusCode, 200);
                assert.equal(res.resource.v, ++v);
                break;
              case "delete":
                res = await c.item(id, pk).delete();
                assert.equal(res.statusCode, 204);
                break;
            }
            record(id, pk, op, res);
          }
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    };

    // ---- readers ----------------------------------------------------------------------------
    const readerClient = ctx.track(newClient(ctx.env));
    const readerContainer = readerClient.database(dbId).container(collId);

    // AVAD iterators start from now: their first read (before any write) fixes the start at LSN 0.
    const avad = [];
    for (const [i, fr] of feedRanges.entries()) {
      const iterator = readerContainer.items.getChangeFeedIterator({
        changeFeedStartFrom: ChangeFeedStartFrom.Now(fr),
        changeFeedMode: ChangeFeedMode.AllVersionsAndDeletes,
        maxItemCount: 100,
      });
      const first = await iterator.readNext();
      assert.equal(first.statusCode, 304);
      assert.equal(first.headers.etag, '"0"');
      assert.equal(first.result.length, 0);
      avad.push({ range: rangeIds[i], iterator, entries: [], pages: 0, notModified: 1 });
    }
    const latest = feedRanges.map((fr, i) => ({
      range: rangeIds[i],
      iterator: readerContainer.items.getChangeFeedIterator({
        changeFeedStartFrom: ChangeFeedStartFrom.Beginning(fr),
        maxItemCount: 100,
      }),
      docs: [],
      pages: 0,
      notModified: 0,
    }));

    const chargeErrors = [];
    const follow = async (r, collect) => {
      let lastEtag;
      let lastSession;
      for (;;) {
        if (aborted) return;
        const done = writersDone;
        const res = await r.iterator.readNext();
        lastEtag = res.headers.etag;
        lastSession = res.headers["x-ms-session-token"];
        assert.equal(sessionOf(res.headers).range, r.range);
        if (LOCAL) {
          const expected = changeFeedCharge(res.result);
          if (res.requestCharge !== expected) chargeErrors.push(`${res.requestCharge} != ${expected}`);
        }
        if (res.statusCode === 200) {
          assert.ok(res.result.length > 0 && res.result.length <= 100);
          assert.equal(res.headers["x-ms-item-count"], String(res.result.length));
          collect(res.result, lastEtag);
          r.pages++;
          if (!done) r.pagesDuringWrites = (r.pagesDuringWrites ?? 0) + 1;
        } else {
          assert.equal(res.statusCode, 304);
          assert.equal(res.result.length, 0);
          r.notModified++;
          if (done && etagLsn(lastEtag) >= finalLsn[r.range]) break;
          await sleep(done ? 0 : 3);
        }
      }
      r.finalEtag = lastEtag;
      r.finalSession = lastSession;
    };

    // The whole container, latest version: a new client continues from the composite continuation
    // token every 10 pages.
    const whole = { docs: [], pages: 0, handovers: 0 };
    const followWhole = async () => {
      let client = ctx.track(newClient(ctx.env));
      let iterator = client.database(dbId).container(collId).items.getChangeFeedIterator({
        changeFeedStartFrom: ChangeFeedStartFrom.Beginning(),
        maxItemCount: 250,
      });
      for (;;) {
        if (aborted) return;
        const done = writersDone;
        const res = await iterator.readNext();
        if (res.statusCode === 200) {
          whole.docs.push(...res.result);
          whole.pages++;
        } else {
          assert.equal(res.statusCode, 304);
        }
        const token = JSON.parse(res.continuationToken);
        assert.equal(token.Continuation.length, RANGES);
        if (res.statusCode === 304 && done) {
          const caughtUp = token.Continuation.every((c) => {
            const range = pkRanges.find((r) => r.minInclusive === c.minInclusive).id;
            return c.continuationToken !== "" && etagLsn(c.continuationToken) >= finalLsn[range];
          });
          if (caughtUp) break;
        }
        if (res.statusCode === 304) await sleep(done ? 0 : 3);
        if (whole.pages > 0 && whole.pages % 10 === 0 && res.statusCode === 200) {
          client = ctx.track(newClient(ctx.env));
          iterator = client.database(dbId).container(collId).items.getChangeFeedIterator({
            changeFeedStartFrom: ChangeFeedStartFrom.Continuation(res.continuationToken),
            maxItemCount: 250,
          });
          whole.handovers++;
        }
      }
    };

    // Any failure stops every writer and reader before the test reports it.
    const stopOnFailure = (p) =>
      p.catch((e) => {
        aborted = true;
        throw e;
      });
    const readers = [
      ...latest.map((r) => follow(r, (docs) => r.docs.push(...docs))),
      ...avad.map((r) => follow(r, (entries) => r.entries.push(...entries))),
      followWhole(),
    ].map(stopOnFailure);
    const writerClients = Array.from({ length: WRITERS }, () => ctx.track(newClient(ctx.env)));
    const tWrites = Date.now();
    const writers = writerClients.map((c, w) => stopOnFailure(writer(c, w)));
    const settled = await Promise.allSettled(writers);
    const writeMs = Date.now() - tWrites;
    for (const r of rangeIds) finalLsn[r] = 0;
    for (const w of writes.values()) finalLsn[w.range] = Math.max(finalLsn[w.range], w.lsn);
    writersDone = true;
    settled.push(...(await Promise.allSettled(readers)));
    const failed = settled.find((s) => s.status === "rejected");
    if (failed) throw failed.reason;
    const endSeconds = Math.floor(Date.now() / 1000) + 1;

    // ---- the writes themselves ---------------------------------------------------------------
    const plans = Array.from({ length: N }, (_, n) => planOf(n));
    assert.equal(writes.size, plans.reduce((s, p) => s + p.length, 0));
    assert.equal(history.size, N);
    for (const r of rangeIds) {
      const lsns = [...writes.values()].filter((w) => w.range === r).map((w) => w.lsn).sort((a, b) => a - b);
      assert.ok(lsns.length > N / RANGES / 2, `range ${r} got a share of the writes`);
      assert.deepEqual(lsns, Array.from({ length: lsns.length }, (_, i) => i + 1), `range ${r}: LSNs 1..${lsns.length}`);
    }

    // ---- all versions and deletes: each write exactly once, in LSN order ----------------------
    for (const r of avad) {
      const lsns = r.entries.map((e) => e.metadata.lsn);
      assert.deepEqual(lsns, Array.from({ length: finalLsn[r.range] }, (_, i) => i + 1), `AVAD range ${r.range}`);
      for (const e of r.entries) {
        const w = writes.get(`${r.range}/${e.metadata.lsn}`);
        const m = e.metadata;
        assert.ok(m.crts >= startSeconds && m.crts <= endSeconds, `crts ${m.crts}`);
        const operationType = { create: "create", upsertCreate: "create", delete: "delete" }[w.op] ?? "replace";
        const expectedMeta = { lsn: w.lsn, crts: m.crts, operationType };
        if (w.prev) expectedMeta.previousImageLSN = w.prev.lsn;
        if (w.op === "delete") {
          Object.assign(expectedMeta, { timeToLiveExpired: false, id: w.id, partitionKey: { pk: w.pk } });
          // a delete carries an empty current image and no "previous"
          assert.deepEqual(Object.keys(e), ["current", "metadata"]);
          assert.deepEqual(e.current, {});
        } else {
          assert.deepEqual(Object.keys(e), ["current", "metadata"]);
          assert.equal(JSON.stringify(e.current), JSON.stringify({ ...w.resource, _lsn: w.lsn }));
        }
        assert.equal(JSON.stringify(m), JSON.stringify(expectedMeta), `metadata of ${w.id} at ${w.lsn}`);
      }
      assert.equal(r.finalEtag, `"${finalLsn[r.range]}"`);
      assert.equal(r.finalSession, `${r.range}:-1#${finalLsn[r.range]}`);
    }

    // ---- latest version: strictly increasing _lsn per range; exact version accounting --------
    const checkLatest = (docs, what, onlyRange) => {
      const lastLsn = {};
      const seen = new Map(); // id -> [_lsn...]
      for (const d of docs) {
        const w = history.get(d.id)?.find((x) => x.lsn === d._lsn && x.op !== "delete");
        assert.ok(w, `${what}: ${d.id} at _lsn ${d._lsn} is a version that was written`);
        assert.ok(d._lsn > (lastLsn[w.range] ?? 0), `${what}: _lsn ${d._lsn} after ${lastLsn[w.range]} in range ${w.range}`);
        lastLsn[w.range] = d._lsn;
        assert.equal(JSON.stringify(d), JSON.stringify({ ...w.resource, _lsn: w.lsn }));
        seen.set(d.id, [...(seen.get(d.id) ?? []), d._lsn]);
      }
      let survivors = 0;
      for (const [id, h] of history) {
        if (onlyRange !== undefined && h[0].range !== onlyRange) continue;
        const got = seen.get(id) ?? [];
        const last = h.at(-1);
        if (h.length === 1) {
          assert.deepEqual(got, [last.lsn], `${what}: ${id}, written once, is seen exactly once`);
        } else if (last.op !== "delete") {
          assert.equal(got.at(-1), last.lsn, `${what}: ${id} ends at its final version`);
        }
        if (last.op !== "delete") survivors++;
        // (distinct versions per id follow from the strictly increasing _lsn of its range)
      }
      return { survivors, seenIds: seen.size };
    };
    for (const r of latest) {
      const { survivors } = checkLatest(r.docs, `range ${r.range}`, r.range);
      assert.ok(survivors > 0);
      for (const d of r.docs) assert.equal(history.get(d.id)[0].range, r.range, `${d.id} read from its own range`);
      assert.equal(r.finalEtag, `"${finalLsn[r.range]}"`);
      assert.equal(r.finalSession, `${r.range}:-1#${finalLsn[r.range]}`);
    }
    const all = latest.flatMap((r) => r.docs);
    const { survivors } = checkLatest(all, "per-range readers");
    const wholeResult = checkLatest(whole.docs, "whole-container reader");
    assert.equal(survivors, N - plans.filter((p) => p.at(-1) === "delete").length);
    assert.equal(wholeResult.survivors, survivors);
    assert.ok(whole.handovers > 0);

    // ---- final state: counts, compound etag and session tokens -------------------------------
    const count = await container.items.query("SELECT VALUE COUNT(1) FROM c").fetchAll();
    assert.deepEqual(count.resources, [survivors]);
    const now = await rawRequest(ctx.env, {
      path: docPath(dbId, collId),
      headers: { "a-im": "Incremental Feed", "if-none-match": "*" },
    });
    assert.equal(now.status, 304);
    assert.equal(now.text, "");
    assert.equal(now.headers.etag, `"${rangeIds.map((r) => `${r}:${finalLsn[r]}`).join(",")}"`);
    assert.equal(now.headers["x-ms-session-token"], rangeIds.map((r) => `${r}:-1#${finalLsn[r]}`).join(","));
    assertCharge(now.headers["x-ms-request-charge"], 2);
    // from the beginning again, a page per range: every survivor once
    let again = 0;
    for (const r of rangeIds) {
      let etag;
      for (;;) {
        const res = await rawRequest(ctx.env, {
          path: docPath(dbId, collId),
          headers: {
            "a-im": "Incremental Feed",
            "x-ms-documentdb-partitionkeyrangeid": r,
            "x-ms-max-item-count": "-1",
            "if-none-match": etag,
          },
        });
        etag = res.headers.etag;
        if (res.status === 304) break;
        assert.equal(res.status, 200);
        again += res.json._count;
      }
      assert.equal(etag, `"${finalLsn[r]}"`);
    }
    assert.equal(again, survivors);

    assert.deepEqual(chargeErrors, [], "change feed charges");
    // the readers really followed the writers (not just read everything afterwards)
    for (const r of [...latest, ...avad]) {
      assert.ok(r.pagesDuringWrites > 10, `range ${r.range}: ${r.pagesDuringWrites} pages during the writes`);
    }
    const totalMs = Date.now() - t0;
    const stats = {
      writes: writes.size,
      writeMs,
      totalMs,
      finalLsn,
      latestPages: latest.map((r) => r.pages),
      latestDocs: latest.map((r) => r.docs.length),
      avadPages: avad.map((r) => r.pages),
      pagesDuringWrites: [...latest, ...avad].map((r) => r.pagesDuringWrites),
      wholePages: whole.pages,
      wholeDocs: whole.docs.length,
      handovers: whole.handovers,
    };
    console.log(`change feed concurrency: ${JSON.stringify(stats)}`);
  });
});
