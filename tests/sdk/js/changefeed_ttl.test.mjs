// The change feed through @azure/cosmos (container.items.getChangeFeedIterator), part 2 of 2: TTL
// expiry through the emulator clock (POST /_emulator/clock) in both feeds; the request charge of
// every page; GET /_emulator/stats; continuation errors; the wire protocol under the SDK (raw
// requests).
// Part 1, changefeed_modes.test.mjs, has every ChangeFeedStartFrom for the whole container, a
// partition key, a feed range and a hierarchical-key prefix, and the all-versions-and-deletes mode.
//
// The expected feed is computed by changefeed_fixture.mjs (the shared setup and helpers): the
// Tracker counts the LSN every write takes, pages list the documents with "_lsn" appended, and a
// page costs 2 + one point read per returned document; its comment has the whole model.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ChangeFeedStartFrom } from "@azure/cosmos";
import {
  LOCAL,
  assertCharge,
  docPath,
  expectError,
  newClient,
  pkHeader,
  rawRequest,
  round2,
  startEmulator,
  uid,
} from "./harness.mjs";
import {
  AVAD,
  Tracker,
  V2,
  advanceClock,
  assertCfCharge,
  assertExactly,
  assertNotModified,
  assertPage,
  avadFeed,
  cfCharge,
  createContainer,
  ctx,
  db,
  dbId,
  epkToken,
  latestFeed,
  messageOf,
  pkToken,
  retention,
  timed,
  viaNewClient,
} from "./changefeed_fixture.mjs";

describe("TTL", { skip: !LOCAL }, () => {
  it("expired items vanish from reads, queries and the latest-version feed; AVAD shows TTL deletes", async () => {
    const { container, id } = await createContainer({ defaultTtl: 10, changeFeedPolicy: retention() });
    const t = new Tracker(container);
    const avad = avadFeed(container, ChangeFeedStartFrom.Now());
    assertNotModified(await avad.readNext(), 0);
    await t.create({ id: "a", pk: "p" }); // 1: the default, 10 s
    await t.create({ id: "b", pk: "p", ttl: -1 }); // 2: never
    await t.create({ id: "c", pk: "p", ttl: 3 }); // 3
    await t.create({ id: "d", pk: "p", ttl: 30 }); // 4
    const ids = async () =>
      (await container.items.query("SELECT VALUE c.id FROM c", { partitionKey: "p" }).fetchAll()).resources.sort();
    const status = async (x) => (await container.item(x, "p").read()).statusCode;

    await advanceClock(5); // c expires
    assert.equal(await status("c"), 404);
    assert.equal(await status("a"), 200);
    assert.deepEqual(await ids(), ["a", "b", "d"]);
    const readFeed = await rawRequest(ctx.env, { path: docPath(dbId, id) });
    assert.deepEqual(
      readFeed.json.Documents.map((d) => d.id),
      ["a", "b", "d"],
    );
    const visible = (x) => ["a", "b", "d"].includes(x.id);
    const latest = latestFeed(container, ChangeFeedStartFrom.Beginning());
    assertPage(await latest.readNext(), t.feed("0", 0, visible), 4);
    // the AVAD read sweeps c: a delete at LSN 5 with the time of the read
    const { result: swept, min, max } = await timed(() => avad.readNext());
    t.expired("c", { min, max });
    const entries = t.allChanges();
    assert.deepEqual(entries.at(-1).metadata.timeToLiveExpired, true);
    assertPage(swept, entries, 5);
    assert.deepEqual(swept.result[4], { current: {}, metadata: swept.result[4].metadata }, "no image of c");
    assert.equal(swept.result[4].metadata.id, "c");
    assert.equal(swept.result[4].metadata.previousImageLSN, 3);
    assertNotModified(await latest.readNext(), 5);

    await advanceClock(6); // a expires (the container default)
    assert.equal(await status("a"), 404);
    assert.deepEqual(await ids(), ["b", "d"]);
    assertNotModified(await latest.readNext(), 5); // hidden, not yet swept: no LSN taken
    // the next write to the partition sweeps a first (LSN 6, crts = the write's time), then takes LSN 7
    const crtsA = {};
    t.expired("a", crtsA);
    const e = await t.create({ id: "e", pk: "p" }); // 7
    crtsA.min = crtsA.max = e._ts;
    assertPage(await latest.readNext(), [e], 7);
    const page = await avad.readNext();
    assertPage(page, t.allChanges("0", 5), 7);
    assert.deepEqual(
      page.result.map((x) => [x.metadata.operationType, x.metadata.timeToLiveExpired ?? null]),
      [
        ["delete", true],
        ["create", null],
      ],
    );

    await advanceClock(30); // d (30 s) and e (10 s) expire; b never does
    assert.deepEqual(await ids(), ["b"]);
    assert.equal(await status("d"), 404);
    assert.equal(await status("e"), 404);
    assert.equal(await status("b"), 200);
    const fresh = latestFeed(container, ChangeFeedStartFrom.Beginning());
    assertPage(await fresh.readNext(), [t.latest.get("b").doc], 7);
    // an AVAD read in a new client, from the last token, sweeps both in expiry order (e before d)
    const resumed = viaNewClient(id).items.getChangeFeedIterator({
      changeFeedStartFrom: ChangeFeedStartFrom.Continuation(page.continuationToken),
      changeFeedMode: AVAD,
    });
    const { result: last, min: min2, max: max2 } = await timed(() => resumed.readNext());
    t.expired("e", { min: min2, max: max2 });
    t.expired("d", { min: min2, max: max2 });
    assertPage(last, t.allChanges("0", 7), 9);
    assertNotModified(await latest.readNext(), 9);
  });

  it("defaultTtl -1: only items with their own ttl expire; a write restarts the item's ttl", async () => {
    const { container } = await createContainer({ defaultTtl: -1 });
    const t = new Tracker(container);
    await t.create({ id: "forever", pk: "p" }); // 1
    await t.create({ id: "short", pk: "p", ttl: 4 }); // 2
    await t.create({ id: "renewed", pk: "p", ttl: 6 }); // 3
    await advanceClock(3);
    await t.replace({ id: "renewed", pk: "p", ttl: 6, v: 1 }, "p"); // 4: _ts moves 3 s on
    await advanceClock(4); // short: 7 s > 4; renewed: 4 s since its replace < 6
    const status = async (x) => (await container.item(x, "p").read()).statusCode;
    assert.equal(await status("short"), 404);
    assert.equal(await status("renewed"), 200);
    assert.equal(await status("forever"), 200);
    const iterator = latestFeed(container, ChangeFeedStartFrom.Beginning());
    const live = (d) => d.id !== "short";
    assertPage(await iterator.readNext(), t.feed("0", 0, live), 4);
    await advanceClock(3); // renewed: 7 s since its replace
    assert.equal(await status("renewed"), 404);
    const ids = await container.items.query("SELECT VALUE c.id FROM c").fetchAll();
    assert.deepEqual(ids.resources, ["forever"]);
    const again = latestFeed(container, ChangeFeedStartFrom.Beginning());
    assertPage(await again.readNext(), [t.latest.get("forever").doc], 4);
  });

  it("writes to an expired id: create and upsert make a new item after the TTL delete; replace: 404", async () => {
    const { container } = await createContainer({ defaultTtl: 5, changeFeedPolicy: retention() });
    const t = new Tracker(container);
    const avad = avadFeed(container, ChangeFeedStartFrom.Now());
    assertNotModified(await avad.readNext(), 0);
    await t.create({ id: "a", pk: "p" }); // 1
    await t.create({ id: "b", pk: "p" }); // 2
    await t.create({ id: "c", pk: "p" }); // 3
    await advanceClock(6); // all three expire
    // the create sweeps a, b and c (LSNs 4-6, in expiry order: by _ts, then key) before taking LSN 7
    const sweep = {};
    for (const x of ["a", "b", "c"]) t.expired(x, sweep);
    const a2 = await t.create({ id: "a", pk: "p", v: 2 }); // 7: a create, not a conflict
    sweep.min = sweep.max = a2._ts;
    const b2 = await t.upsert({ id: "b", pk: "p", v: 2 }); // 8: a create
    await expectError(() => container.item("c", "p").replace({ id: "c", pk: "p", v: 2 }), 404);
    const page = await avad.readNext();
    assertPage(page, t.allChanges(), 8);
    assert.deepEqual(
      page.result.map((e) => [e.metadata.lsn, e.metadata.operationType, e.metadata.timeToLiveExpired ?? null]),
      [
        [1, "create", null],
        [2, "create", null],
        [3, "create", null],
        [4, "delete", true],
        [5, "delete", true],
        [6, "delete", true],
        [7, "create", null],
        [8, "create", null],
      ],
    );
    const latest = latestFeed(container, ChangeFeedStartFrom.Beginning());
    assertPage(await latest.readNext(), [a2, b2], 8);
  });

  it("changing the container's defaultTtl moves every expiry", async () => {
    const { container, id, resource } = await createContainer({ defaultTtl: -1 });
    const t = new Tracker(container);
    await t.create({ id: "a", pk: "p" });
    await t.create({ id: "b", pk: "p", ttl: 100 });
    await advanceClock(20);
    const status = async (x) => (await container.item(x, "p").read()).statusCode;
    assert.equal(await status("a"), 200);
    await container.replace({ id, partitionKey: resource.partitionKey, defaultTtl: 10 });
    assert.equal(await status("a"), 404, "a: 20 s old, the new default is 10 s");
    assert.equal(await status("b"), 200, "b keeps its own 100 s");
    const latest = latestFeed(container, ChangeFeedStartFrom.Beginning());
    assertPage(await latest.readNext(), [t.latest.get("b").doc], 2);
    // TTL off again: a was hidden, never swept (no write and no AVAD read since), so it is back
    await container.replace({ id, partitionKey: resource.partitionKey });
    assert.equal(await status("a"), 200);
    const again = latestFeed(container, ChangeFeedStartFrom.Beginning());
    assertPage(await again.readNext(), t.feed(), 2);
  });

  it("an item ttl without a container defaultTtl is ignored", async () => {
    const { container } = await createContainer();
    const t = new Tracker(container);
    await t.create({ id: "a", pk: "p", ttl: 1 });
    await advanceClock(5);
    assert.equal((await container.item("a", "p").read()).statusCode, 200);
    const iterator = latestFeed(container, ChangeFeedStartFrom.Beginning());
    assertPage(await iterator.readNext(), t.feed(), 1);
  });
});

describe("request charges", { skip: !LOCAL }, () => {
  it("2 + a point read per document by its returned size; a 304 costs 2", async () => {
    const { container } = await createContainer({ changeFeedPolicy: retention() });
    const t = new Tracker(container);
    const avad = avadFeed(container, ChangeFeedStartFrom.Now());
    const none = await avad.readNext();
    assert.equal(none.headers["x-ms-request-charge"], "2");
    assert.equal(none.requestCharge, 2);
    await t.create({ id: "small", pk: "p" });
    await t.create({ id: "big", pk: "p", pad: "x".repeat(5000) }); // ~5.2 KB: 1.42 RU as a point read
    await t.create({ id: "mid", pk: "p", pad: "y".repeat(1500) }); // ~1.7 KB
    await t.delete("big", "p");
    const docs = t.feed();
    const expected = cfCharge(docs);
    assert.equal(
      expected,
      round2(2 + 1 + round2(1 + 0.1 * (Buffer.byteLength(JSON.stringify(docs[1])) / 1024 - 1))),
    );
    assert.ok(expected % 1 !== 0, "a fractional charge");
    const latest = latestFeed(container, ChangeFeedStartFrom.Beginning());
    const page = await latest.readNext();
    assertPage(page, docs, 4);
    assert.equal(Number(page.headers["x-ms-request-charge"]), expected);

    // AVAD entries are charged by their whole JSON text; a delete carries no image, so the delete
    // of big is a small entry (under 1 KB: 1 RU) and big is charged once, by its create
    const entries = await avad.readNext();
    assertPage(entries, t.allChanges(), 4);
    const term = (e) => round2(Math.max(1, 1 + 0.1 * (Buffer.byteLength(JSON.stringify(e), "utf8") / 1024 - 1)));
    const [, bigCreate, midCreate, bigDelete] = entries.result;
    assert.deepEqual(Object.keys(bigDelete), ["current", "metadata"]);
    assert.deepEqual(bigDelete.current, {});
    assert.ok(Buffer.byteLength(JSON.stringify(bigDelete), "utf8") < 1024, "the delete entry is under 1 KB");
    assert.equal(term(bigDelete), 1);
    assert.equal(term(bigCreate), 1.42);
    assert.equal(
      Number(entries.headers["x-ms-request-charge"]),
      round2(2 + 1 + 1.42 + term(midCreate) + 1),
      "small, big, mid, then the delete of big at 1 RU",
    );
    assertNotModified(await avad.readNext(), 4);
  });

  it("under Strong consistency the per-document terms double", async () => {
    const env = await startEmulator(["--consistency", "Strong"]);
    const client = newClient(env, { consistencyLevel: "Strong" });
    try {
      const d = (await client.databases.create({ id: uid("db") })).database;
      const { container } = await d.containers.create({ id: "c", partitionKey: V2 });
      const t = new Tracker(container);
      await t.create({ id: "a", pk: "p" });
      await t.create({ id: "b", pk: "p", pad: "z".repeat(3000) });
      const iterator = latestFeed(container, ChangeFeedStartFrom.Beginning());
      const page = await iterator.readNext();
      assert.equal(page.statusCode, 200);
      assertExactly(page.result, t.feed());
      assertCfCharge(page, t.feed(), 2);
      assertNotModified(await iterator.readNext(), 2);
    } finally {
      client.dispose();
      await env.stop();
    }
  });
});

describe("GET /_emulator/stats", { skip: !LOCAL }, () => {
  it("counts change-feed requests under \"changeFeed\" with the charges the SDK saw", async () => {
    const { container, id } = await createContainer();
    await container.items.create({ id: "a", pk: "p" });
    await container.items.create({ id: "b", pk: "p" });
    const iterator = container.items.getChangeFeedIterator({
      changeFeedStartFrom: ChangeFeedStartFrom.Beginning(),
      maxItemCount: 1,
    });
    const charges = [];
    for (let i = 0; i < 3; i++) charges.push(Number((await iterator.readNext()).headers["x-ms-request-charge"]));
    assert.deepEqual(charges, [3, 3, 2]);
    const res = await rawRequest(ctx.env, { path: "/_emulator/stats", auth: false });
    assert.equal(res.status, 200);
    const entry = res.json.containers.find((c) => c.database === dbId && c.container === id);
    const ops = entry.operations.map((o) => o.operation).sort();
    assert.deepEqual(ops, ["changeFeed", "create"]);
    const cf = entry.operations.find((o) => o.operation === "changeFeed");
    assert.equal(cf.requests, 3);
    assert.equal(cf.totalRU, 8);
    assert.equal(cf.maxRU, 3);
    assert.deepEqual(cf.partitionsTouched, ["0"]);
  });
});

describe("continuation errors", () => {
  it("a token with an LSN the range never reached answers 400 with the token in the message", async () => {
    const { container, rid } = await createContainer();
    await container.items.create({ id: "a", pk: "p" });
    const forged = epkToken(rid, [["", "FF", 99]]);
    const iterator = latestFeed(container, ChangeFeedStartFrom.Continuation(forged));
    const err = await expectError(() => iterator.readNext(), 400);
    assert.match(messageOf(err), /The change feed continuation \(If-None-Match\) '"99"' is invalid\./);
    const pkIterator = container.items.getChangeFeedIterator({
      changeFeedStartFrom: ChangeFeedStartFrom.Continuation(pkToken(rid, "p", "x1")),
    });
    const err2 = await expectError(() => pkIterator.readNext(), 400);
    assert.match(messageOf(err2), /The change feed continuation \(If-None-Match\) '"x1"' is invalid\./);
  });

  it("a token of another container is refused by the SDK", async () => {
    const a = await createContainer();
    const b = await createContainer();
    await a.container.items.create({ id: "x", pk: "p" });
    const page = await a.container.items
      .getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning() })
      .readNext();
    const iterator = b.container.items.getChangeFeedIterator({
      changeFeedStartFrom: ChangeFeedStartFrom.Continuation(page.continuationToken),
    });
    const err = await expectError(() => iterator.readNext(), undefined);
    assert.match(messageOf(err), /not for the current container/);
  });
});

describe("the wire protocol under the SDK (raw requests)", () => {
  it("without a routing header every range is read: a composite etag, then 304 with it", async () => {
    const { container, id, rid } = await createContainer({ partitions: 4 });
    const t = new Tracker(container);
    for (let i = 0; i < 10; i++) await t.create({ id: `i${i}`, pk: `p${i}` });
    const path = docPath(dbId, id);
    const first = await rawRequest(ctx.env, { path, headers: { "a-im": "Incremental Feed" } });
    assert.equal(first.status, 200);
    const expected = ["0", "1", "2", "3"].flatMap((r) => t.feed(r));
    assertExactly(first.json.Documents, expected);
    assert.deepEqual(Object.keys(first.json), ["_rid", "Documents", "_count"]);
    assert.equal(first.json._count, 10);
    assert.equal(first.json._rid, rid);
    assert.equal(first.headers["x-ms-session-token"], ["0", "1", "2", "3"].map((r) => `${r}:-1#${t.lsn(r)}`).join(","));
    const etag = ["0", "1", "2", "3"].map((r) => `${r}:${t.lsn(r)}`).join(",");
    assert.equal(first.headers.etag, `"${etag}"`);
    assertCharge(first.headers["x-ms-request-charge"], cfCharge(expected));
    const again = await rawRequest(ctx.env, {
      path,
      headers: { "a-im": "incremental feed", "if-none-match": first.headers.etag },
    });
    assert.equal(again.status, 304);
    assert.equal(again.text, "");
    assert.equal(again.headers.etag, `"${etag}"`);
    assert.equal(again.headers["x-ms-item-count"], "0");
    assertCharge(again.headers["x-ms-request-charge"], 2);
    // a one-range etag for the whole container, and a bad A-IM, are refused
    const single = await rawRequest(ctx.env, { path, headers: { "a-im": "Incremental Feed", "if-none-match": '"3"' } });
    assert.equal(single.status, 400);
    assert.equal(single.json.code, "BadRequest");
    assert.match(messageOf(single.json.message), /The change feed continuation \(If-None-Match\) '"3"' is invalid\./);
    const bad = await rawRequest(ctx.env, { path, headers: { "a-im": "Everything" } });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.code, "BadRequest");
    const otherRanges = await rawRequest(ctx.env, {
      path,
      headers: { "a-im": "Incremental Feed", "if-none-match": '"0:1,1:1,2:1,9:1"' },
    });
    assert.equal(otherRanges.status, 400);
    assert.match(
      messageOf(otherRanges.json.message),
      /The change feed continuation \(If-None-Match\) '"0:1,1:1,2:1,9:1"' is invalid\./,
    );
    const wire = await rawRequest(ctx.env, {
      path,
      headers: {
        "a-im": "Full-Fidelity Feed",
        "x-ms-cosmos-changefeed-wire-format-version": "2020-01-01",
        "if-none-match": "*",
      },
    });
    assert.equal(wire.status, 400);
    for (const v of ["-2", "abc"]) {
      const r = await rawRequest(ctx.env, { path, headers: { "a-im": "Incremental Feed", "x-ms-max-item-count": v } });
      assert.equal(r.status, 400, `x-ms-max-item-count ${v}`);
    }
    const unbounded = await rawRequest(ctx.env, {
      path,
      headers: { "a-im": "Incremental Feed", "x-ms-max-item-count": "-1" },
    });
    assert.equal(unbounded.json._count, 10);
    const gone = await rawRequest(ctx.env, {
      path,
      headers: { "a-im": "Incremental Feed", "x-ms-documentdb-partitionkeyrangeid": "7" },
    });
    assert.equal(gone.status, 410);
    assert.equal(gone.headers["x-ms-substatus"], "1002");
    // paging the whole container: a range cut short resumes after its last entry, unreached ranges
    // stay where they were
    const seen = [];
    let position;
    for (let i = 0; i < 10; i++) {
      const r = await rawRequest(ctx.env, {
        path,
        headers: { "a-im": "Incremental Feed", "x-ms-max-item-count": "3", "if-none-match": position },
      });
      if (r.status === 304) break;
      assert.equal(r.status, 200);
      seen.push(r.json.Documents);
      position = r.headers.etag;
    }
    assert.deepEqual(seen.map((p) => p.length), [3, 3, 3, 1]);
    assertExactly(seen.flat(), expected);
    const after3 = [];
    let left = 3;
    for (const r of ["0", "1", "2", "3"]) {
      const take = Math.min(left, t.feed(r).length);
      const docs = t.feed(r).slice(0, take);
      after3.push(`${r}:${take === t.feed(r).length ? t.lsn(r) : take === 0 ? 0 : docs.at(-1)._lsn}`);
      left -= take;
    }
    const firstPage = await rawRequest(ctx.env, {
      path,
      headers: { "a-im": "Incremental Feed", "x-ms-max-item-count": "3" },
    });
    assert.equal(firstPage.headers.etag, `"${after3.join(",")}"`);
    // a range id header: that range's items, its LSN alone in the etag
    const one = await rawRequest(ctx.env, {
      path,
      headers: { "a-im": "Incremental Feed", "x-ms-documentdb-partitionkeyrangeid": "1", "x-ms-max-item-count": "2" },
    });
    assertExactly(one.json.Documents, t.feed("1").slice(0, 2));
    assert.equal(one.headers.etag, `"${t.feed("1")[1]._lsn}"`);
    // the partition key header: one logical partition, the etag of its range
    const pk = await rawRequest(ctx.env, {
      path,
      headers: { "a-im": "Incremental Feed", "x-ms-documentdb-partitionkey": pkHeader("p3") },
    });
    assert.equal(pk.status, 200);
    assertExactly(pk.json.Documents, [t.latest.get("i3").doc]);
    assert.equal(pk.headers.etag, `"${t.lsn(t.rangeOf("i3"))}"`);
  });
});
