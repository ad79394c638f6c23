// The change feed through @azure/cosmos (container.items.getChangeFeedIterator), part 1 of 2: every
// ChangeFeedStartFrom (Beginning, Now, Time, Continuation) for the whole container, a partition key,
// a feed range of a 4-partition container and a hierarchical-key prefix; readNext loops over pages
// and 304s; continuation tokens resumed in a new client; the all-versions-and-deletes mode.
// Part 2, changefeed_ttl.test.mjs, has TTL expiry through the emulator clock (POST /_emulator/clock),
// the request charge of every page, GET /_emulator/stats, continuation errors and the raw wire
// protocol.
//
// The expected feed is computed by changefeed_fixture.mjs (the shared setup and helpers): the
// Tracker counts the LSN every write takes, pages list the documents with "_lsn" appended, and a
// page costs 2 + one point read per returned document; its comment has the whole model.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ChangeFeedStartFrom } from "@azure/cosmos";
import { LOCAL, docPath, expectError, rawRequest } from "./harness.mjs";
import {
  AVAD,
  FOUR_RANGES,
  HIERARCHICAL,
  Tracker,
  advanceClock,
  assertNotModified,
  assertPage,
  avadFeed,
  clockDate,
  createContainer,
  ctx,
  dbId,
  drain,
  epkToken,
  latestFeed,
  messageOf,
  pkToken,
  retention,
  viaNewClient,
} from "./changefeed_fixture.mjs";

// ---------------------------------------------------------------------------------------------

describe("latest version: the whole container", () => {
  it("Beginning(): maxItemCount pages in LSN order, each item once at its latest version, then 304", async () => {
    const { container, rid } = await createContainer();
    const t = new Tracker(container);
    for (let i = 0; i < 5; i++) await t.create({ id: `i${i}`, pk: i % 2 ? "pk2" : "pk1", n: i });
    await t.replace({ id: "i1", pk: "pk2", n: 10 }, "pk2"); // LSN 6: i1 moves to the end
    const [i0, i2, i3, i4, i1] = t.feed();
    assert.deepEqual([i0._lsn, i2._lsn, i3._lsn, i4._lsn, i1._lsn], [1, 3, 4, 5, 6]);

    const iterator = container.items.getChangeFeedIterator({
      changeFeedStartFrom: ChangeFeedStartFrom.Beginning(),
      maxItemCount: 2,
    });
    assert.equal(iterator.hasMoreResults, true);
    const { pages, notModified } = await drain(iterator);
    assert.equal(pages.length, 3);
    // a full page continues after its last entry; a partial page after the range's current LSN
    assertPage(pages[0], [i0, i2], 3, "page 1");
    assertPage(pages[1], [i3, i4], 5, "page 2");
    assertPage(pages[2], [i1], 6, "page 3");
    assert.equal(pages[0].continuationToken, epkToken(rid, [["", "FF", 3]]));
    assert.equal(pages[1].continuationToken, epkToken(rid, [["", "FF", 5]]));
    assert.equal(pages[2].continuationToken, epkToken(rid, [["", "FF", 6]]));
    for (const p of pages) assert.equal(p.headers["x-ms-session-token"], "0:-1#6");
    assertNotModified(notModified, 6);
    assert.equal(notModified.continuationToken, epkToken(rid, [["", "FF", 6]]));
    assert.equal(iterator.hasMoreResults, true, "the change feed never ends");
    assertNotModified(await iterator.readNext(), 6, "again");
    // point reads and queries do not show _lsn
    const read = await container.item("i1", "pk2").read();
    assert.deepEqual({ ...read.resource, _lsn: 6 }, i1);
    assert.equal("_lsn" in read.resource, false);
    const queried = await container.items.query("SELECT * FROM c").fetchAll();
    assert.equal(queried.resources.length, 5);
    for (const d of queried.resources) assert.equal("_lsn" in d, false);
  });

  it("after draining: updates show once at their latest version, deletes never", async () => {
    const { container, rid } = await createContainer();
    const t = new Tracker(container);
    for (const id of ["a", "b", "c", "d"]) await t.create({ id, pk: "p", v: 0 });
    const iterator = latestFeed(container, ChangeFeedStartFrom.Beginning());
    assertPage(await iterator.readNext(), t.feed(), 4);
    assertNotModified(await iterator.readNext(), 4);

    await t.replace({ id: "b", pk: "p", v: 1 }, "p"); // 5
    await t.upsert({ id: "c", pk: "p", v: 1 }); // 6
    await t.patch("c", "p", [{ op: "set", path: "/v", value: 2 }]); // 7: c twice between reads
    await t.delete("d", "p"); // 8
    await t.create({ id: "e", pk: "p", v: 0 }); // 9
    const page = await iterator.readNext();
    assertPage(page, [t.latest.get("b").doc, t.latest.get("c").doc, t.latest.get("e").doc], 9);
    assert.deepEqual(
      page.result.map((d) => [d.id, d.v, d._lsn]),
      [
        ["b", 1, 5],
        ["c", 2, 7],
        ["e", 0, 9],
      ],
    );
    assertNotModified(await iterator.readNext(), 9);

    // a delete alone is nothing new, but the position moves past it
    await t.delete("a", "p"); // 10
    const afterDelete = await iterator.readNext();
    assertNotModified(afterDelete, 10);
    assert.equal(afterDelete.continuationToken, epkToken(rid, [["", "FF", 10]]));
    // an item created and deleted between two reads never shows
    await t.create({ id: "f", pk: "p" }); // 11
    await t.delete("f", "p"); // 12
    await t.upsert({ id: "g", pk: "p" }); // 13
    assertPage(await iterator.readNext(), [t.latest.get("g").doc], 13);
    // Beginning() again: the live items at their latest versions
    const fresh = latestFeed(container, ChangeFeedStartFrom.Beginning());
    const all = await fresh.readNext();
    assertPage(all, t.feed(), 13);
    assert.deepEqual(
      all.result.map((d) => d.id),
      ["b", "c", "e", "g"],
    );
  });

  it("getAsyncIterator yields the same pages as readNext", async () => {
    const { container } = await createContainer();
    const t = new Tracker(container);
    for (let i = 0; i < 3; i++) await t.create({ id: `x${i}`, pk: "p" });
    const seen = [];
    const iterator = container.items.getChangeFeedIterator({
      changeFeedStartFrom: ChangeFeedStartFrom.Beginning(),
      maxItemCount: 2,
    });
    for await (const res of iterator.getAsyncIterator()) {
      seen.push(res);
      if (res.statusCode === 304) break;
    }
    assert.equal(seen.length, 3);
    assertPage(seen[0], t.feed().slice(0, 2), 2);
    assertPage(seen[1], t.feed().slice(2), 3);
    assertNotModified(seen[2], 3);
  });

  it("Now() (also the default) starts at the first readNext, not at getChangeFeedIterator", async () => {
    const { container, rid } = await createContainer();
    const t = new Tracker(container);
    await t.create({ id: "old1", pk: "p" });
    const now = latestFeed(container, ChangeFeedStartFrom.Now());
    const byDefault = container.items.getChangeFeedIterator();
    const early = latestFeed(container, ChangeFeedStartFrom.Now());
    assertNotModified(await early.readNext(), 1); // starts here: after LSN 1
    await t.create({ id: "old2", pk: "p" }); // before the first readNext of `now` and `byDefault`
    const first = await now.readNext();
    assertNotModified(first, 2);
    assert.equal(first.continuationToken, epkToken(rid, [["", "FF", 2]]));
    assertNotModified(await byDefault.readNext(), 2);

    await t.create({ id: "new1", pk: "p" }); // 3
    await t.replace({ id: "old1", pk: "p", v: 1 }, "p"); // 4
    const expected = [t.latest.get("new1").doc, t.latest.get("old1").doc];
    assertPage(await now.readNext(), expected, 4);
    assertPage(await byDefault.readNext(), expected, 4);
    assertPage(await early.readNext(), [t.latest.get("old2").doc, ...expected], 4);
    assertNotModified(await now.readNext(), 4);
  });

  it("Time(date): items whose latest write is before the time are left out", { skip: !LOCAL }, async () => {
    const { container } = await createContainer();
    const t = new Tracker(container);
    await t.create({ id: "a", pk: "pk1" }); // 1
    await t.create({ id: "b", pk: "pk2" }); // 2
    await t.create({ id: "c", pk: "pk1" }); // 3
    await advanceClock(60);
    const since = await clockDate();
    assert.ok(t.latest.get("c").doc._ts < since.getTime() / 1000 - 59);
    await t.create({ id: "d", pk: "pk1" }); // 4
    await t.replace({ id: "a", pk: "pk1", v: 1 }, "pk1"); // 5: a's latest version is after the time
    await t.create({ id: "e", pk: "pk2" }); // 6
    for (const d of ["d", "a", "e"]) assert.ok(t.latest.get(d).doc._ts >= since.getTime() / 1000);

    const iterator = latestFeed(container, ChangeFeedStartFrom.Time(since));
    assertPage(await iterator.readNext(), t.feed("0", 3), 6);
    assertNotModified(await iterator.readNext(), 6);
    // with the continuation sent next to If-Modified-Since, the continuation wins
    await t.create({ id: "f", pk: "pk2" }); // 7
    assertPage(await iterator.readNext(), [t.latest.get("f").doc], 7);

    // scoped to a partition key
    const pk1 = latestFeed(container, ChangeFeedStartFrom.Time(since, "pk1"));
    const page = await pk1.readNext();
    assertPage(page, t.feed("0", 3, (d) => d.pk === "pk1"), 7);
    assert.deepEqual(
      page.result.map((d) => d.id),
      ["d", "a"],
    );
    // a time after every write: nothing; long before: everything
    const future = container.items.getChangeFeedIterator({
      changeFeedStartFrom: ChangeFeedStartFrom.Time(new Date(since.getTime() + 3600 * 1000)),
    });
    assertNotModified(await future.readNext(), 7);
    const past = container.items.getChangeFeedIterator({
      changeFeedStartFrom: ChangeFeedStartFrom.Time(new Date("2001-01-01T00:00:00Z")),
    });
    assertPage(await past.readNext(), t.feed(), 7);
  });

  it("rejected writes take no LSN and leave no trace in either feed", async () => {
    const { container } = await createContainer({ changeFeedPolicy: retention() });
    const t = new Tracker(container);
    const avad = avadFeed(container, ChangeFeedStartFrom.Now());
    assertNotModified(await avad.readNext(), 0);
    const a = await t.create({ id: "a", pk: "p" }); // 1
    await expectError(() => container.items.create({ id: "a", pk: "p" }), 409);
    await expectError(
      () =>
        container
          .item("a", "p")
          .replace({ id: "a", pk: "p", v: 1 }, { accessCondition: { type: "IfMatch", condition: '"stale"' } }),
      412,
    );
    await expectError(() => container.item("nope", "p").replace({ id: "nope", pk: "p" }), 404);
    await expectError(() => container.item("nope", "p").delete(), 404);
    await expectError(() => container.item("a", "p").patch([{ op: "replace", path: "/missing", value: 1 }]), 400);
    await t.upsert({ id: "b", pk: "p" }); // 2: the session token check proves nothing took an LSN
    const latest = latestFeed(container, ChangeFeedStartFrom.Beginning());
    assertPage(await latest.readNext(), [a, t.latest.get("b").doc], 2);
    assertPage(await avad.readNext(), t.allChanges(), 2);
  });

  it("a document's own _lsn property does not duplicate the feed's _lsn", async () => {
    const { container, id } = await createContainer();
    await container.items.create({ id: "a", pk: "p", _lsn: 42 });
    const raw = await rawRequest(ctx.env, { path: docPath(dbId, id), headers: { "a-im": "Incremental Feed" } });
    assert.equal(raw.status, 200);
    // one "_lsn" member per document (JSON.parse would hide a duplicate), holding the LSN, last
    assert.equal(raw.text.split('"_lsn":').length - 1, 1, raw.text);
    assert.equal(raw.json.Documents[0]._lsn, 1);
    assert.equal(Object.keys(raw.json.Documents[0]).at(-1), "_lsn");
  });

  it("Continuation(token) in a new client sees exactly the changes after the token", async () => {
    const { container, id, rid } = await createContainer();
    const t = new Tracker(container);
    for (let i = 0; i < 4; i++) await t.create({ id: `i${i}`, pk: `p${i % 2}` });
    const iterator = container.items.getChangeFeedIterator({
      changeFeedStartFrom: ChangeFeedStartFrom.Beginning(),
      maxItemCount: 3,
    });
    const first = await iterator.readNext();
    assertPage(first, t.feed().slice(0, 3), 3);
    const token = first.continuationToken;
    assert.equal(token, epkToken(rid, [["", "FF", 3]]));

    await t.replace({ id: "i0", pk: "p0", v: 1 }, "p0"); // 5: i0 was on the first page
    await t.delete("i1", "p1"); // 6
    await t.create({ id: "i4", pk: "p0" }); // 7

    const resumed = viaNewClient(id).items.getChangeFeedIterator({
      changeFeedStartFrom: ChangeFeedStartFrom.Continuation(token),
    });
    const page = await resumed.readNext();
    assertPage(page, t.feed("0", 3), 7);
    assert.deepEqual(
      page.result.map((d) => d.id),
      ["i3", "i0", "i4"],
    );
    assertNotModified(await resumed.readNext(), 7);
    // the original iterator continues alike
    assertPage(await iterator.readNext(), t.feed("0", 3), 7);
  });
});

describe("latest version: partition keys, feed ranges and prefixes on 4 physical partitions", () => {
  it("Beginning(pk) reads one logical partition; its token resumes in a new client", async () => {
    const { container, id, rid } = await createContainer({ partitions: 4 });
    const t = new Tracker(container);
    await t.create({ id: "a1", pk: "pk1" });
    for (let i = 0; i < 12; i++) await t.create({ id: `k${i}`, pk: `k${i}` });
    await t.create({ id: "a2", pk: "pk1" });
    const range = t.rangeOf("a1");
    const neighbour = [...Array(12).keys()].map((i) => `k${i}`).find((k) => t.rangeOf(k) === range);
    assert.ok(neighbour, "another key shares pk1's range");
    await t.replace({ id: "a1", pk: "pk1", v: 1 }, "pk1");
    await t.replace({ id: neighbour, pk: neighbour, v: 1 }, neighbour);
    const isPk1 = (d) => d.pk === "pk1";

    const iterator = container.items.getChangeFeedIterator({
      changeFeedStartFrom: ChangeFeedStartFrom.Beginning("pk1"),
      maxItemCount: 1,
    });
    const p1 = await iterator.readNext();
    const [a2, a1] = t.feed(range, 0, isPk1);
    assert.deepEqual([a2.id, a1.id], ["a2", "a1"]);
    assertPage(p1, [a2], a2._lsn);
    assert.equal(p1.continuationToken, pkToken(rid, "pk1", a2._lsn));
    assert.equal(p1.headers["x-ms-session-token"], `${range}:-1#${t.lsn(range)}`);
    const p2 = await iterator.readNext();
    assertPage(p2, [a1], a1._lsn); // a full page: its last entry
    // the next page is partial (the neighbour's write is filtered out): the range's current LSN
    const end = await iterator.readNext();
    assertNotModified(end, t.lsn(range));
    const token = end.continuationToken;
    assert.equal(token, pkToken(rid, "pk1", t.lsn(range)));

    // more writes, to pk1, its neighbour and elsewhere
    await t.create({ id: "a3", pk: "pk1" });
    await t.upsert({ id: neighbour, pk: neighbour, v: 2 });
    await t.patch("a2", "pk1", [{ op: "add", path: "/x", value: 1 }]);
    await t.create({ id: "z", pk: "zz" });
    const after = t.lsn(range); // a partial page: the range's current LSN

    const resumed = viaNewClient(id).items.getChangeFeedIterator({
      changeFeedStartFrom: ChangeFeedStartFrom.Continuation(token),
    });
    const page = await resumed.readNext();
    assertPage(page, [t.latest.get("a3").doc, t.latest.get("a2").doc], after);
    assert.equal(page.continuationToken, pkToken(rid, "pk1", after));
    assertNotModified(await resumed.readNext(), t.lsn(range));
    // Now(pk): only what follows
    const now = latestFeed(container, ChangeFeedStartFrom.Now("pk1"));
    assertNotModified(await now.readNext(), t.lsn(range));
    await t.create({ id: "a4", pk: "pk1" });
    assertPage(await now.readNext(), [t.latest.get("a4").doc], t.lsn(range));
  });

  it("a feed range of getFeedRanges() reads one physical partition; its token resumes in a new client", async () => {
    const { container, id, rid } = await createContainer({ partitions: 4 });
    const t = new Tracker(container);
    for (let i = 0; i < 16; i++) await t.create({ id: `i${i}`, pk: `key-${i}` });
    await t.replace({ id: "i0", pk: "key-0", v: 1 }, "key-0");
    const feedRanges = await container.getFeedRanges();
    assert.deepEqual(
      feedRanges.map((f) => [f.minInclusive, f.maxExclusive]),
      FOUR_RANGES,
    );
    const tokens = [];
    for (const [r, feedRange] of feedRanges.entries()) {
      const range = String(r);
      assert.ok(t.feed(range).length > 0, `range ${range} holds items`);
      const iterator = latestFeed(container, ChangeFeedStartFrom.Beginning(feedRange));
      const page = await iterator.readNext();
      assertPage(page, t.feed(range), t.lsn(range), `range ${range}`);
      assert.equal(page.headers["x-ms-documentdb-partitionkeyrangeid"], range);
      assert.equal(page.headers["x-ms-session-token"], `${range}:-1#${t.lsn(range)}`);
      assert.equal(page.continuationToken, epkToken(rid, [[...FOUR_RANGES[r], t.lsn(range)]]));
      const end = await iterator.readNext();
      assertNotModified(end, t.lsn(range));
      tokens.push({ range, token: end.continuationToken, lsn: t.lsn(range) });
    }

    // more writes everywhere, then each token in a new client
    for (let i = 0; i < 16; i += 3) await t.upsert({ id: `i${i}`, pk: `key-${i}`, v: 2 });
    await t.delete("i1", "key-1");
    await t.create({ id: "i16", pk: "key-16" });
    const other = viaNewClient(id);
    for (const { range, token, lsn } of tokens) {
      const resumed = latestFeed(other, ChangeFeedStartFrom.Continuation(token));
      const expected = t.feed(range, lsn);
      if (expected.length === 0) {
        assertNotModified(await resumed.readNext(), t.lsn(range), `range ${range}`);
        continue;
      }
      assertPage(await resumed.readNext(), expected, t.lsn(range), `resumed range ${range}`);
      assertNotModified(await resumed.readNext(), t.lsn(range));
    }

    // Now(feedRange)
    const now = latestFeed(container, ChangeFeedStartFrom.Now(feedRanges[2]));
    assertNotModified(await now.readNext(), t.lsn("2"));
    for (let i = 100; i < 110; i++) await t.create({ id: `n${i}`, pk: `key-${i}` });
    assertPage(await now.readNext(), t.feed("2", tokens[2].lsn).filter((d) => d.id.startsWith("n")), t.lsn("2"));
  });

  it("the whole container: a page per range in range order, then 304; a mid-way token resumes", async () => {
    const { container, id, rid } = await createContainer({ partitions: 4 });
    const t = new Tracker(container);
    for (let i = 0; i < 12; i++) await t.create({ id: `i${i}`, pk: `p${i}` });
    const ranges = ["0", "1", "2", "3"];
    for (const r of ranges) assert.ok(t.feed(r).length > 0, `range ${r} holds items`);

    const iterator = latestFeed(container, ChangeFeedStartFrom.Beginning());
    const pages = [];
    for (const r of ranges) {
      const page = await iterator.readNext();
      assertPage(page, t.feed(r), t.lsn(r), `range ${r}`);
      assert.equal(page.headers["x-ms-documentdb-partitionkeyrangeid"], r);
      pages.push(page);
    }
    // the SDK's token lists the ranges in its queue order: the one just read goes to the back
    assert.equal(
      pages[1].continuationToken,
      epkToken(rid, [
        [...FOUR_RANGES[2], ""],
        [...FOUR_RANGES[3], ""],
        [...FOUR_RANGES[0], t.lsn("0")],
        [...FOUR_RANGES[1], t.lsn("1")],
      ]),
    );
    const end = await iterator.readNext();
    assertNotModified(end, t.lsn("3")); // the last range asked
    assert.equal(end.continuationToken, epkToken(rid, ranges.map((r, i) => [...FOUR_RANGES[i], t.lsn(r)])));
    const drained = Object.fromEntries(ranges.map((r) => [r, t.lsn(r)]));

    // resume after the second page: ranges 2 and 3 from the beginning, 0 and 1 after their LSNs
    const at = { 0: t.lsn("0"), 1: t.lsn("1"), 2: 0, 3: 0 };
    await t.upsert({ id: "i0", pk: "p0", v: 1 });
    await t.create({ id: "i12", pk: "p12" });
    await t.create({ id: "i13", pk: "p13" });
    const resumed = viaNewClient(id).items.getChangeFeedIterator({
      changeFeedStartFrom: ChangeFeedStartFrom.Continuation(pages[1].continuationToken),
    });
    for (const r of ["2", "3", "0", "1"]) {
      const expected = t.feed(r, at[r]);
      if (expected.length === 0) continue; // the SDK skips a 304 range within one readNext
      assertPage(await resumed.readNext(), expected, t.lsn(r), `resumed range ${r}`);
    }
    assertNotModified(await resumed.readNext());
    // and the drained iterator sees just the new writes
    for (const r of ranges.filter((x) => t.feed(x, drained[x]).length > 0)) {
      assertPage(await iterator.readNext(), t.feed(r, drained[r]), t.lsn(r), `new in range ${r}`);
    }
    assertNotModified(await iterator.readNext());
  });

  it("the SDK's default (V1) definition, numeric keys: a key and each feed range read their own items", async () => {
    const { container, resource } = await createContainer({ partitions: 4, partitionKey: { paths: ["/pk"] } });
    assert.equal(resource.partitionKey.version ?? 1, 1);
    const t = new Tracker(container);
    for (let i = 0; i < 20; i++) await t.create({ id: `n${i}`, pk: i % 10 });
    const byKey = latestFeed(container, ChangeFeedStartFrom.Beginning(7));
    const range = t.rangeOf("n7");
    assertPage(await byKey.readNext(), t.feed(range, 0, (d) => d.pk === 7), t.lsn(range));
    const feedRanges = await container.getFeedRanges();
    assert.equal(feedRanges.length, 4);
    let total = 0;
    for (const [r, feedRange] of feedRanges.entries()) {
      const iterator = latestFeed(container, ChangeFeedStartFrom.Beginning(feedRange));
      const expected = t.feed(String(r));
      total += expected.length;
      if (expected.length === 0) assertNotModified(await iterator.readNext(), 0);
      else assertPage(await iterator.readNext(), expected, t.lsn(String(r)), `range ${r}`);
    }
    assert.equal(total, 20);
  });

  it("a hierarchical-key prefix reads the tenant's items only; its token resumes in a new client", async () => {
    const { container, id, rid } = await createContainer({ partitions: 4, partitionKey: HIERARCHICAL });
    const t = new Tracker(container, HIERARCHICAL.paths);
    const tenants = ["t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7"];
    for (const u of ["u0", "u1", "u2"]) {
      for (const tenant of tenants) await t.create({ id: `${tenant}-${u}`, tenant, user: u });
    }
    // a tenant whose range holds another tenant too (8 tenants, 4 ranges)
    const tenant = tenants.find((x) => tenants.some((y) => y !== x && t.rangeOf(`${y}-u0`) === t.rangeOf(`${x}-u0`)));
    assert.ok(tenant);
    const range = t.rangeOf(`${tenant}-u0`);
    for (const u of ["u0", "u1", "u2"]) assert.equal(t.rangeOf(`${tenant}-${u}`), range, "one range per tenant");
    await t.replace({ id: `${tenant}-u0`, tenant, user: "u0", v: 1 }, [tenant, "u0"]);
    const ofTenant = (d) => d.tenant === tenant;

    const iterator = container.items.getChangeFeedIterator({
      changeFeedStartFrom: ChangeFeedStartFrom.Beginning([tenant]),
    });
    const page = await iterator.readNext();
    assertPage(page, t.feed(range, 0, ofTenant), t.lsn(range));
    assert.deepEqual(
      page.result.map((d) => d.user),
      ["u1", "u2", "u0"],
    );
    const token = page.continuationToken;
    const parsed = JSON.parse(token);
    assert.equal(parsed.rid, rid);
    assert.equal(parsed.Continuation.length, 1);
    assert.equal(parsed.Continuation[0].continuationToken, `"${t.lsn(range)}"`);
    const tokenLsn = t.lsn(range);
    const [{ minInclusive, maxExclusive }] = parsed.Continuation;
    assert.equal(maxExclusive, minInclusive + "FF", "the prefix's EPK range");
    assertNotModified(await iterator.readNext(), t.lsn(range));

    // the full key: one item
    const one = container.items.getChangeFeedIterator({
      changeFeedStartFrom: ChangeFeedStartFrom.Beginning([tenant, "u1"]),
    });
    assertPage(await one.readNext(), [t.latest.get(`${tenant}-u1`).doc], t.lsn(range));

    for (const other of tenants) await t.upsert({ id: `${other}-u1`, tenant: other, user: "u1", v: 2 });
    await t.create({ id: `${tenant}-u9`, tenant, user: "u9" });
    await t.delete(`${tenant}-u2`, [tenant, "u2"]);
    const resumed = viaNewClient(id).items.getChangeFeedIterator({
      changeFeedStartFrom: ChangeFeedStartFrom.Continuation(token),
    });
    const next = await resumed.readNext();
    assertPage(next, t.feed(range, tokenLsn, ofTenant), t.lsn(range));
    assert.deepEqual(
      next.result.map((d) => d.user),
      ["u1", "u9"],
    );
    assertNotModified(await resumed.readNext(), t.lsn(range));
  });
});

describe("all versions and deletes", () => {
  it("Now(): create, replace, upsert, patch, delete in the 2021-09-15 shape; a token resumes elsewhere", async () => {
    const { container, id, rid, resource } = await createContainer({ changeFeedPolicy: retention() });
    assert.deepEqual(resource.changeFeedPolicy, { retentionDuration: 10 });
    const t = new Tracker(container);
    await t.create({ id: "before", pk: "p" }); // 1: before the iterator starts
    const iterator = container.items.getChangeFeedIterator({
      changeFeedStartFrom: ChangeFeedStartFrom.Now(),
      changeFeedMode: AVAD,
      maxItemCount: 3,
    });
    assertNotModified(await iterator.readNext(), 1);

    await t.create({ id: "a", pk: "p", v: 1 }); // 2 create
    await t.replace({ id: "a", pk: "p", v: 2 }, "p"); // 3 replace
    await t.upsert({ id: "a", pk: "p", v: 3 }); // 4 upsert of an existing item: replace
    await t.upsert({ id: "b", pk: "q", v: 1 }); // 5 upsert of a new item: create
    await t.patch("b", "q", [{ op: "incr", path: "/v", value: 5 }]); // 6 patch: replace
    await t.delete("a", "p"); // 7 delete
    await t.delete("before", "p"); // 8 delete of an item created before the start
    const entries = t.allChanges("0", 1);
    assert.deepEqual(
      entries.map((e) => [e.metadata.lsn, e.metadata.operationType]),
      [
        [2, "create"],
        [3, "replace"],
        [4, "replace"],
        [5, "create"],
        [6, "replace"],
        [7, "delete"],
        [8, "delete"],
      ],
    );
    const p1 = await iterator.readNext();
    assertPage(p1, entries.slice(0, 3), 4);
    assert.equal(p1.continuationToken, epkToken(rid, [["", "FF", 4]]));
    const p2 = await iterator.readNext();
    assertPage(p2, entries.slice(3, 6), 7);
    const p3 = await iterator.readNext();
    assertPage(p3, entries.slice(6), 8);
    assertNotModified(await iterator.readNext(), 8);

    // the shape, spelled out for one delete: an empty current image and metadata (no "previous")
    const del = p3.result[0];
    assert.deepEqual(Object.keys(del), ["current", "metadata"]);
    assert.deepEqual(del.current, {});
    assert.equal("previous" in del, false);
    assert.deepEqual(Object.keys(del.metadata), [
      "lsn",
      "crts",
      "operationType",
      "previousImageLSN",
      "timeToLiveExpired",
      "id",
      "partitionKey",
    ]);
    assert.deepEqual(del.metadata.partitionKey, { pk: "p" });
    assert.equal(del.metadata.id, "before");
    assert.equal(del.metadata.previousImageLSN, 1, "the LSN of the deleted version");
    assert.equal(del.metadata.timeToLiveExpired, false);
    assert.equal(Object.keys(p1.result[0].current).at(-1), "_lsn");
    assert.deepEqual(Object.keys(p1.result[0]), ["current", "metadata"]);
    assert.deepEqual(Object.keys(p1.result[0].metadata), ["lsn", "crts", "operationType"]);
    assert.deepEqual(Object.keys(p1.result[1].metadata), ["lsn", "crts", "operationType", "previousImageLSN"]);

    // resume after the first page in a new client
    const resumed = viaNewClient(id).items.getChangeFeedIterator({
      changeFeedStartFrom: ChangeFeedStartFrom.Continuation(p1.continuationToken),
      changeFeedMode: AVAD,
    });
    assertPage(await resumed.readNext(), entries.slice(3), 8);
    await t.create({ id: "a", pk: "p", v: 9 }); // 9: an id re-created after its delete is a create
    const recreated = t.allChanges("0", 8);
    assert.equal(recreated[0].metadata.operationType, "create");
    assertPage(await resumed.readNext(), recreated, 9);
    assertNotModified(await resumed.readNext(), 9);
  });

  it("deletes name every level of a hierarchical key; a prefix scopes the feed", async () => {
    const { container } = await createContainer({
      partitionKey: HIERARCHICAL,
      changeFeedPolicy: retention(),
      partitions: 2,
    });
    const t = new Tracker(container, HIERARCHICAL.paths);
    const iterator = container.items.getChangeFeedIterator({
      changeFeedStartFrom: ChangeFeedStartFrom.Now(["acme"]),
      changeFeedMode: AVAD,
    });
    assertNotModified(await iterator.readNext());
    await t.create({ id: "x", tenant: "acme", user: "ann" });
    await t.create({ id: "y", tenant: "other", user: "ann" });
    await t.create({ id: "z", tenant: "acme", user: "bob", nested: { deep: [1, 2] } });
    await t.delete("x", ["acme", "ann"]);
    await t.delete("y", ["other", "ann"]);
    const range = t.rangeOf("z");
    // a delete names its item's key in metadata.partitionKey only
    const tenantOf = (e) => (e.metadata.operationType === "delete" ? e.metadata.partitionKey.tenant : e.current.tenant);
    const expected = t.allChanges(range).filter((e) => tenantOf(e) === "acme");
    assert.equal(expected.length, 3);
    const page = await iterator.readNext();
    assertPage(page, expected, t.lsn(range));
    assert.deepEqual(page.result[2].metadata.partitionKey, { tenant: "acme", user: "ann" });
    assert.equal(page.result[2].metadata.id, "x");
  });

  it("4 partitions: the whole-container iterator pages range by range; a feed range reads its own", async () => {
    const { container, id } = await createContainer({ partitions: 4, changeFeedPolicy: retention() });
    const t = new Tracker(container);
    const iterator = avadFeed(container, ChangeFeedStartFrom.Now());
    assertNotModified(await iterator.readNext(), 0);
    const feedRanges = await container.getFeedRanges();
    const third = container.items.getChangeFeedIterator({
      changeFeedStartFrom: ChangeFeedStartFrom.Now(feedRanges[2]),
      changeFeedMode: AVAD,
    });
    assertNotModified(await third.readNext(), 0);
    for (let i = 0; i < 12; i++) await t.create({ id: `i${i}`, pk: `p${i}` });
    for (let i = 0; i < 12; i += 4) await t.replace({ id: `i${i}`, pk: `p${i}`, v: 1 }, `p${i}`);
    for (let i = 1; i < 12; i += 4) await t.delete(`i${i}`, `p${i}`);
    const ranges = ["0", "1", "2", "3"].filter((r) => t.allChanges(r).length > 0);
    assert.equal(ranges.length, 4, "every range changed");
    for (const r of ranges) {
      const page = await iterator.readNext();
      assertPage(page, t.allChanges(r), t.lsn(r), `range ${r}`);
      assert.equal(page.headers["x-ms-documentdb-partitionkeyrangeid"], r);
    }
    const end = await iterator.readNext();
    assertNotModified(end);
    assertPage(await third.readNext(), t.allChanges("2"), t.lsn("2"), "feed range 2");
    // the drained token in a new client: only what follows
    const at = Object.fromEntries(["0", "1", "2", "3"].map((r) => [r, t.lsn(r)]));
    await t.delete("i0", "p0");
    await t.upsert({ id: "i2", pk: "p2", v: 5 });
    const resumed = viaNewClient(id).items.getChangeFeedIterator({
      changeFeedStartFrom: ChangeFeedStartFrom.Continuation(end.continuationToken),
      changeFeedMode: AVAD,
    });
    const expected = ["0", "1", "2", "3"].map((r) => t.allChanges(r, at[r])).filter((e) => e.length > 0);
    for (const e of expected) assertPage(await resumed.readNext(), e);
    assertNotModified(await resumed.readNext());
  });

  it("without a changeFeedPolicy: from now, as Microsoft's newest sample reads it; from the beginning: 400", async () => {
    // The service keeps the all-versions feed for the account (continuous backup), not per container:
    // the sample creates no policy. Here the log of such a container starts at its first such read.
    const plain = (await createContainer()).container;
    await plain.items.create({ id: "a", pk: "p" });
    const noPolicy = avadFeed(plain, ChangeFeedStartFrom.Now());
    assertNotModified(await noPolicy.readNext());
    await plain.items.create({ id: "b", pk: "p" });
    await plain.item("a", "p").delete();
    const page = await noPolicy.readNext();
    assert.equal(page.statusCode, 200);
    assert.deepEqual(
      page.result.map((e) => [e.metadata.operationType, e.current?.id ?? e.metadata.id]),
      [["create", "b"], ["delete", "a"]],
    );
    // the latest-version feed of the same container works
    const latest = latestFeed(plain, ChangeFeedStartFrom.Beginning());
    assert.equal((await latest.readNext()).statusCode, 200);

    const { container } = await createContainer({ changeFeedPolicy: retention() });
    await container.items.create({ id: "a", pk: "p" });
    for (const start of [ChangeFeedStartFrom.Beginning(), ChangeFeedStartFrom.Beginning("p")]) {
      const iterator = avadFeed(container, start);
      const e = await expectError(() => iterator.readNext(), 400);
      assert.match(
        messageOf(e),
        new RegExp(
          "The change feed in all versions and deletes mode cannot start from the beginning: " +
            "start from now, a point in time or a continuation\\.",
        ),
      );
    }
  });

  it("Time(date) starts at the commit time; outside the retention window: 400", { skip: !LOCAL }, async () => {
    const { container } = await createContainer({ changeFeedPolicy: retention() });
    const t = new Tracker(container);
    const start = avadFeed(container, ChangeFeedStartFrom.Now());
    const origin = await start.readNext();
    assertNotModified(origin, 0);
    const t0 = await clockDate();
    await t.create({ id: "a", pk: "p" }); // 1
    await advanceClock(120);
    const t1 = await clockDate();
    await t.create({ id: "b", pk: "p" }); // 2
    await t.replace({ id: "a", pk: "p", v: 1 }, "p"); // 3
    await t.delete("b", "p"); // 4

    const since = container.items.getChangeFeedIterator({
      changeFeedStartFrom: ChangeFeedStartFrom.Time(t1),
      changeFeedMode: AVAD,
    });
    assertPage(await since.readNext(), t.allChanges("0", 1), 4);
    const all = container.items.getChangeFeedIterator({
      changeFeedStartFrom: ChangeFeedStartFrom.Time(new Date(t0.getTime() - 3600 * 1000)),
      changeFeedMode: AVAD,
    });
    assertPage(await all.readNext(), t.allChanges(), 4);

    // 9 more minutes: the create of "a" (t0, 11 minutes ago) leaves the 10-minute window, the rest
    // (9 minutes old) stays
    await advanceClock(540);
    await t.create({ id: "c", pk: "p" }); // 5
    const old = container.items.getChangeFeedIterator({
      changeFeedStartFrom: ChangeFeedStartFrom.Time(t0),
      changeFeedMode: AVAD,
    });
    const e1 = await expectError(() => old.readNext(), 400);
    assert.match(messageOf(e1), /lies outside the container's retention window\./);
    const resumed = container.items.getChangeFeedIterator({
      changeFeedStartFrom: ChangeFeedStartFrom.Continuation(origin.continuationToken),
      changeFeedMode: AVAD,
    });
    const e2 = await expectError(() => resumed.readNext(), 400);
    assert.match(messageOf(e2), /lies outside the container's retention window\./);
    const inside = container.items.getChangeFeedIterator({
      changeFeedStartFrom: ChangeFeedStartFrom.Time(t1),
      changeFeedMode: AVAD,
    });
    assertPage(await inside.readNext(), t.allChanges("0", 1), 5);
    // the latest-version feed is not bound by the window
    const latest = latestFeed(container, ChangeFeedStartFrom.Beginning());
    assertPage(await latest.readNext(), t.feed(), 5);
  });
});
