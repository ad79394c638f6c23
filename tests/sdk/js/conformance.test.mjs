// Conformance: what the SDKs send and expect of the service, one group per cause (issue 17).
// Routing by operation (queries over every feed, upserts of scripts), addressing by resource id,
// the gateway's 400/1004 for queries that need merging across partitions, the partition layout.
import { describe, it, before } from "node:test";
import assert from "node:assert/strict";
import {
  LOCAL,
  METADATA_READ,
  METADATA_WRITE,
  assertCharge,
  rawRequest,
  uid,
  useEmulator,
} from "./harness.mjs";

const ctx = useEmulator();

const QUERY_HEADERS = {
  "x-ms-documentdb-isquery": "True",
  "content-type": "application/query+json",
};

describe("queries over every feed are queries, not creates", () => {
  let db;
  let container;
  before(async () => {
    const dbId = uid("qdb");
    db = (await ctx.client.databases.create({ id: dbId })).database;
    container = (await db.containers.create({ id: "c1", partitionKey: { paths: ["/pk"] } })).container;
    await db.containers.create({ id: "c2", partitionKey: { paths: ["/pk"] } });
    await container.scripts.storedProcedures.create({ id: "sp1", body: "function () { getContext().getResponse().setBody(1); }" });
    await container.scripts.storedProcedures.create({ id: "sp2", body: "function () { }" });
    await container.scripts.triggers.create({ id: "tr1", body: "function () { }", triggerType: "Pre", triggerOperation: "All" });
    await container.scripts.userDefinedFunctions.create({ id: "udf1", body: "function (x) { return x; }" });
    const user = (await db.users.create({ id: "u1" })).user;
    await db.users.create({ id: "u2" });
    await user.permissions.create({ id: "p1", permissionMode: "Read", resource: container.url });
  });

  it("databases.query finds the database by id", async () => {
    const res = await ctx.client.databases
      .query({ query: "SELECT * FROM r WHERE r.id = @id", parameters: [{ name: "@id", value: db.id }] })
      .fetchAll();
    assert.deepEqual(res.resources.map((r) => r.id), [db.id]);
    assert.ok(res.resources[0]._rid);
    if (LOCAL) assertCharge(res.requestCharge, METADATA_READ);
  });

  it("containers.query filters and projects", async () => {
    const res = await db.containers.query("SELECT VALUE r.id FROM r ORDER BY r.id DESC").fetchAll();
    assert.deepEqual(res.resources, ["c2", "c1"]);
  });

  it("stored procedures, triggers and UDFs can be queried", async () => {
    const sprocs = await container.scripts.storedProcedures.query("SELECT VALUE r.id FROM r WHERE r.id = 'sp2'").fetchAll();
    assert.deepEqual(sprocs.resources, ["sp2"]);
    const triggers = await container.scripts.triggers.query("SELECT r.id, r.triggerType FROM r").fetchAll();
    assert.deepEqual(triggers.resources, [{ id: "tr1", triggerType: "Pre" }]);
    const udfs = await container.scripts.userDefinedFunctions.query("SELECT VALUE COUNT(1) FROM r").fetchAll();
    assert.deepEqual(udfs.resources, [1]);
  });

  it("users and permissions can be queried", async () => {
    const users = await db.users.query("SELECT VALUE r.id FROM r WHERE r.id = 'u2'").fetchAll();
    assert.deepEqual(users.resources, ["u2"]);
    const perms = await db.user("u1").permissions.query("SELECT VALUE r.permissionMode FROM r").fetchAll();
    assert.deepEqual(perms.resources, ["Read"]);
  });

  it("a query that names no existing database is an empty result, not a create", async () => {
    const before = (await ctx.client.databases.readAll().fetchAll()).resources.length;
    const res = await ctx.client.databases.query("SELECT * FROM r WHERE r.id = 'nope'").fetchAll();
    assert.deepEqual(res.resources, []);
    assert.equal((await ctx.client.databases.readAll().fetchAll()).resources.length, before);
  });

  it("a query body without an id POSTed raw to /dbs answers a feed", async () => {
    const r = await rawRequest(ctx.env, {
      method: "POST",
      path: "/dbs",
      headers: QUERY_HEADERS,
      body: { query: "SELECT VALUE COUNT(1) FROM r WHERE r.id = @id", parameters: [{ name: "@id", value: db.id }] },
    });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.Databases, [1]);
    assert.equal(r.json._count, 1);
  });
});

describe("upsert of scripts replaces them", () => {
  it("stored procedure, trigger and UDF upserts create (201) then replace (200)", async () => {
    const db = (await ctx.client.databases.create({ id: uid("updb") })).database;
    const c = (await db.containers.create({ id: "c", partitionKey: { paths: ["/pk"] } })).container;
    // @azure/cosmos 4.x has no upsert for scripts (older SDKs and the Python SDK do): the
    // service's upsert is a POST with the upsert header.
    for (const [kind, body] of [
      ["sprocs", { id: "sp", body: "function () { getContext().getResponse().setBody('v2'); }" }],
      ["triggers", { id: "tr", body: "function () {}", triggerType: "Post", triggerOperation: "Create" }],
      ["udfs", { id: "f", body: "function (x) { return 1; }" }],
    ]) {
      const p = `/dbs/${db.id}/colls/c/${kind}`;
      const first = await rawRequest(ctx.env, { method: "POST", path: p, headers: { "x-ms-documentdb-is-upsert": "True" }, body });
      assert.equal(first.status, 201, first.text);
      const second = await rawRequest(ctx.env, {
        method: "POST",
        path: p,
        headers: { "x-ms-documentdb-is-upsert": "True" },
        body: { ...body, body: body.body.replace("1", "2") },
      });
      assert.equal(second.status, 200, second.text);
      assert.equal(second.json._rid, first.json._rid);
      assert.notEqual(second.json._etag, first.json._etag);
      if (LOCAL) assertCharge(second.headers["x-ms-request-charge"], METADATA_WRITE);
      const plain = await rawRequest(ctx.env, { method: "POST", path: p, body });
      assert.equal(plain.status, 409, "a create without the upsert header still conflicts");
    }
    const res = await c.scripts.storedProcedure("sp").execute(undefined);
    assert.equal(res.resource, "v2");
  });
});

describe("addressing by resource id (_self links)", () => {
  let db;
  let c;
  let item;
  before(async () => {
    db = (await ctx.client.databases.create({ id: uid("ridDb") })).resource;
    c = (await ctx.client.database(db.id).containers.create({ id: "c", partitionKey: { paths: ["/pk"] } })).resource;
    item = (await ctx.client.database(db.id).container("c").items.create({ id: "i1", pk: "a", n: 1 })).resource;
  });

  // The SDKs sign a rid link with the lower-cased rid of its last resource.
  const sign = (path) => {
    const segs = path.split("/").filter(Boolean);
    const last = segs.length % 2 === 0 ? segs[segs.length - 1] : segs[segs.length - 2];
    return { type: segs.length % 2 === 0 ? segs[segs.length - 2] : segs[segs.length - 1], link: last.toLowerCase() };
  };

  it("reads the database, the container and the item by their _self links", async () => {
    for (const [self, id] of [
      [db._self, db.id],
      [c._self, "c"],
    ]) {
      const path = "/" + self.replace(/\/$/, "");
      const r = await rawRequest(ctx.env, { path, sign: sign(path) });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.id, id);
    }
    const path = "/" + item._self.replace(/\/$/, "");
    const r = await rawRequest(ctx.env, { path, sign: sign(path), headers: { "x-ms-documentdb-partitionkey": '["a"]' } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual({ id: r.json.id, n: r.json.n, _rid: r.json._rid }, { id: "i1", n: 1, _rid: item._rid });
  });

  it("lists and queries a container's items through its rid link", async () => {
    const path = `/dbs/${db._rid}/colls/${c._rid}/docs`;
    const feed = await rawRequest(ctx.env, { path, sign: sign(path) });
    assert.equal(feed.status, 200, feed.text);
    assert.deepEqual(feed.json.Documents.map((d) => d.id), ["i1"]);
    const q = await rawRequest(ctx.env, {
      method: "POST",
      path,
      sign: sign(path),
      headers: { ...QUERY_HEADERS, "x-ms-documentdb-partitionkey": '["a"]' },
      body: { query: "SELECT VALUE c.n FROM c" },
    });
    assert.equal(q.status, 200, q.text);
    assert.deepEqual(q.json.Documents, [1]);
  });

  it("replaces and deletes an item by its rid link", async () => {
    const path = "/" + item._self.replace(/\/$/, "");
    const headers = { "x-ms-documentdb-partitionkey": '["a"]' };
    const put = await rawRequest(ctx.env, { method: "PUT", path, sign: sign(path), headers, body: { id: "i1", pk: "a", n: 2 } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.json._rid, item._rid);
    const read = await ctx.client.database(db.id).container("c").item("i1", "a").read();
    assert.equal(read.resource.n, 2);
    const del = await rawRequest(ctx.env, { method: "DELETE", path, sign: sign(path), headers });
    assert.equal(del.status, 204, del.text);
    const gone = await rawRequest(ctx.env, { path, sign: sign(path), headers });
    assert.equal(gone.status, 404);
  });

  it("a rid link signed with the name-based link is refused (401)", async () => {
    const path = "/" + db._self.replace(/\/$/, "");
    const r = await rawRequest(ctx.env, { path, sign: { type: "dbs", link: `dbs/${db._rid}` } });
    assert.equal(r.status, 401);
  });

  it("an unknown database rid is 404", async () => {
    const path = "/dbs/AAAAAA==";
    const r = await rawRequest(ctx.env, { path, sign: sign(path) });
    assert.equal(r.status, 404);
    assert.equal(r.json.code, "NotFound");
  });
});

describe("the gateway refuses queries that need merging across partitions (400/1004)", () => {
  let container;
  let path;
  before(async () => {
    const dbId = uid("gw");
    const db = (await ctx.client.databases.create({ id: dbId })).database;
    container = (
      await db.containers.create({ id: "c", partitionKey: { paths: ["/pk"] } }, LOCAL ? { offerThroughput: 18000 } : {})
    ).container;
    for (let i = 0; i < 30; i++) await container.items.create({ id: `i${i}`, pk: `p${i % 7}`, n: i % 10 });
    path = `/dbs/${dbId}/colls/c/docs`;
  });

  it("an ORDER BY query sent whole answers 400/1004 with the query plan in additionalErrorInfo", async () => {
    const r = await rawRequest(ctx.env, {
      method: "POST",
      path,
      headers: { ...QUERY_HEADERS, "x-ms-documentdb-query-enablecrosspartition": "True" },
      body: { query: "SELECT TOP 2 c.id FROM c ORDER BY c.id" },
    });
    assert.equal(r.status, 400, r.text);
    assert.equal(r.headers["x-ms-substatus"], "1004");
    assert.equal(r.json.code, "BadRequest");
    assert.match(r.json.message, /^The provided cross partition query can not be directly served by the gateway\./);
    const plan = JSON.parse(r.json.additionalErrorInfo);
    assert.equal(plan.partitionedQueryExecutionInfoVersion, 2);
    assert.equal(plan.queryInfo.top, 2);
    assert.deepEqual(plan.queryInfo.orderBy, ["Ascending"]);
    assert.deepEqual(plan.queryInfo.orderByExpressions, ["c.id"]);
    assert.deepEqual(plan.queryRanges, [{ min: "", max: "FF", isMinInclusive: true, isMaxInclusive: false }]);
  });

  it("DISTINCT, aggregates, GROUP BY and OFFSET/LIMIT are refused the same way; plain filters are served", async () => {
    for (const query of [
      "SELECT DISTINCT VALUE c.n FROM c",
      "SELECT VALUE COUNT(1) FROM c",
      "SELECT c.n, COUNT(1) AS k FROM c GROUP BY c.n",
      "SELECT * FROM c OFFSET 1 LIMIT 2",
      "SELECT COUNT(1) AS k FROM c",
    ]) {
      const r = await rawRequest(ctx.env, {
        method: "POST",
        path,
        headers: { ...QUERY_HEADERS, "x-ms-documentdb-query-enablecrosspartition": "True" },
        body: { query },
      });
      assert.equal(r.status, 400, `${query}: ${r.text}`);
      assert.equal(r.headers["x-ms-substatus"], "1004", query);
      assert.ok(JSON.parse(r.json.additionalErrorInfo).queryInfo, query);
    }
    // Served one partition per page (as the service's gateway does): follow the continuations.
    const ids = [];
    let continuation;
    do {
      const ok = await rawRequest(ctx.env, {
        method: "POST",
        path,
        headers: {
          ...QUERY_HEADERS,
          "x-ms-documentdb-query-enablecrosspartition": "True",
          "x-ms-max-item-count": "100",
          ...(continuation ? { "x-ms-continuation": continuation } : {}),
        },
        body: { query: "SELECT VALUE c.id FROM c WHERE c.n = 3" },
      });
      assert.equal(ok.status, 200, ok.text);
      ids.push(...ok.json.Documents);
      continuation = ok.headers["x-ms-continuation"];
    } while (continuation);
    assert.deepEqual(ids.sort(), ["i13", "i23", "i3"]);
  });

  it("the same queries scoped to one partition key are served", async () => {
    const r = await rawRequest(ctx.env, {
      method: "POST",
      path,
      headers: { ...QUERY_HEADERS, "x-ms-documentdb-partitionkey": '["p1"]' },
      body: { query: "SELECT VALUE c.id FROM c ORDER BY c.n DESC" },
    });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.Documents, ["i29", "i8", "i15", "i22", "i1"]);
  });

  it("the SDK takes its query-plan path and returns the merged results", async () => {
    const top = await container.items.query("SELECT TOP 3 VALUE c.id FROM c ORDER BY c.id DESC").fetchAll();
    assert.deepEqual(top.resources, ["i9", "i8", "i7"]);
    const count = await container.items.query("SELECT VALUE COUNT(1) FROM c").fetchAll();
    assert.deepEqual(count.resources, [30]);
    // (The SDK's DISTINCT drops falsy values such as 0 whatever the service answers.)
    const distinct = await container.items.query("SELECT DISTINCT VALUE c.n FROM c WHERE c.n > 0 ORDER BY c.n").fetchAll();
    assert.deepEqual(distinct.resources, [1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const grouped = await container.items.query("SELECT c.n, COUNT(1) AS k FROM c WHERE c.n < 2 GROUP BY c.n").fetchAll();
    assert.deepEqual(grouped.resources.sort((a, b) => a.n - b.n), [{ n: 0, k: 3 }, { n: 1, k: 3 }]);
    const page = await container.items.query("SELECT VALUE c.id FROM c ORDER BY c.id OFFSET 2 LIMIT 3").fetchAll();
    assert.deepEqual(page.resources, ["i10", "i11", "i12"]);
  });
});

describe("partition layout follows the service: ceil(RU/s / 6,000) physical partitions", { skip: !LOCAL }, () => {
  for (const [ru, ranges] of [
    [400, 1],
    [6000, 1],
    [6100, 2],
    [10000, 2],
    [18000, 3],
    [21000, 4],
  ]) {
    it(`${ru} RU/s -> ${ranges} partition key range(s)`, async () => {
      const db = (await ctx.client.databases.create({ id: uid("layout") })).database;
      const c = (await db.containers.create({ id: "c", partitionKey: { paths: ["/pk"] } }, { offerThroughput: ru })).container;
      const pkr = await c.readPartitionKeyRanges().fetchAll();
      assert.equal(pkr.resources.length, ranges);
      await db.delete();
    });
  }
});
