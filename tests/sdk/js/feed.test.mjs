// Read feed (GET .../docs) with paging, and the not-yet-implemented query path.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  LOCAL,
  assertCharge,
  assertSessionToken,
  docPath,
  expectError,
  feedCharge,
  pkHeader,
  rawRequest,
  useEmulatorWithDatabase,
} from "./harness.mjs";

let db;
let dbId;
let container;
const created = [];
const ctx = useEmulatorWithDatabase(
  async (f) => {
    ({ dbId, db, container } = f);
    for (let i = 0; i < 7; i++) {
      const res = await container.items.create({ id: `i${i}`, pk: i % 2 === 0 ? "even" : "odd", n: i });
      created.push(res.resource);
    }
  },
  { containerId: "feed" },
);

const feed = (headers = {}) => rawRequest(ctx.env, { method: "GET", path: docPath(dbId, "feed"), headers });

describe("read feed", () => {
  it("returns every item in creation order with _rid, Documents and _count", async () => {
    const res = await feed();
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.json), ["_rid", "Documents", "_count"]);
    assert.equal(res.json._rid, (await container.read()).resource._rid);
    assert.deepEqual(res.json.Documents, created);
    assert.equal(res.json._count, 7);
    assert.equal(res.headers["x-ms-item-count"], "7");
    assert.equal(res.headers["x-ms-continuation"], undefined);
    assertSessionToken(res.headers["x-ms-session-token"]);
    assertCharge(res.headers["x-ms-request-charge"], feedCharge(created));
  });

  it("pages with x-ms-max-item-count and x-ms-continuation; pages add up to the whole feed", async () => {
    const pages = [];
    let continuation;
    let total = 0;
    do {
      const res = await feed({ "x-ms-max-item-count": "3", "x-ms-continuation": continuation });
      assert.equal(res.status, 200);
      pages.push(res.json.Documents);
      assert.equal(res.json._count, res.json.Documents.length);
      assertCharge(res.headers["x-ms-request-charge"], feedCharge(res.json.Documents));
      total += Number(res.headers["x-ms-request-charge"]);
      continuation = res.headers["x-ms-continuation"];
      assert.ok(pages.length <= 3, "terminates");
    } while (continuation);
    assert.deepEqual(
      pages.map((p) => p.length),
      [3, 3, 1],
    );
    assert.deepEqual(pages.flat(), created);
    assert.ok(total > 0);
  });

  it("an exact multiple of the page size ends without an empty page", async () => {
    const first = await feed({ "x-ms-max-item-count": "7" });
    assert.equal(first.json._count, 7);
    assert.equal(first.headers["x-ms-continuation"], undefined);
  });

  it("the partition key header restricts the feed to one logical partition", async () => {
    const res = await feed({ "x-ms-documentdb-partitionkey": pkHeader("odd") });
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.json.Documents.map((d) => d.id),
      ["i1", "i3", "i5"],
    );
    const paged = await feed({ "x-ms-documentdb-partitionkey": pkHeader("even"), "x-ms-max-item-count": "2" });
    assert.deepEqual(
      paged.json.Documents.map((d) => d.id),
      ["i0", "i2"],
    );
    assert.ok(paged.headers["x-ms-continuation"]);
    const next = await feed({
      "x-ms-documentdb-partitionkey": pkHeader("even"),
      "x-ms-max-item-count": "2",
      "x-ms-continuation": paged.headers["x-ms-continuation"],
    });
    assert.deepEqual(
      next.json.Documents.map((d) => d.id),
      ["i4", "i6"],
    );
  });

  it("x-ms-max-item-count -1 means no limit, 0 the default page; garbage answers 400", async () => {
    const all = await feed({ "x-ms-max-item-count": "-1" });
    assert.equal(all.json._count, 7);
    // 0 is what the Java SDK sends for TOP 0, which the service answers
    assert.equal((await feed({ "x-ms-max-item-count": "0" })).json._count, 7);
    for (const v of ["abc", "-5"]) {
      const res = await feed({ "x-ms-max-item-count": v });
      assert.equal(res.status, 400, v);
      assert.equal(res.json.code, "BadRequest");
    }
  });

  it("an invalid continuation token answers 400", { skip: !LOCAL }, async () => {
    const res = await feed({ "x-ms-continuation": "garbage" });
    assert.equal(res.status, 400);
    assert.equal(res.json.code, "BadRequest");
    assert.match(res.json.message, /Invalid Continuation Token/);
  });

  it("an empty container has an empty feed", async () => {
    await db.containers.create({ id: "empty", partitionKey: { paths: ["/pk"] } });
    const res = await rawRequest(ctx.env, { method: "GET", path: docPath(dbId, "empty") });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json.Documents, []);
    assert.equal(res.json._count, 0);
    assertCharge(res.headers["x-ms-request-charge"], 2.7);
  });

  it("the feed of an unknown container answers 404", async () => {
    const res = await rawRequest(ctx.env, { method: "GET", path: docPath(dbId, "nope") });
    assert.equal(res.status, 404);
    assert.equal(res.json.code, "NotFound");
  });
});

