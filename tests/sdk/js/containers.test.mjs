// Containers: create/read/list/replace/delete, partition key definitions, indexing policy effects.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  LOCAL,
  METADATA_READ,
  METADATA_WRITE,
  REJECTED_WRITE,
  assertCharge,
  createCharge,
  expectError,
  rawRequest,
  round2,
  kbOf,
  uid,
  useEmulatorWithDatabase,
} from "./harness.mjs";

let db;
let dbId;
const ctx = useEmulatorWithDatabase((d) => ({ db, dbId } = d));

const DEFAULT_INDEXING = {
  indexingMode: "consistent",
  automatic: true,
  includedPaths: [{ path: "/*" }],
  excludedPaths: [{ path: '/"_etag"/?' }],
};

describe("containers", () => {
  it("create answers 201 with partitionKey, policies and system properties", async () => {
    const id = uid("c");
    const res = await db.containers.create({ id, partitionKey: { paths: ["/pk"] } });
    assert.equal(res.statusCode, 201);
    const c = res.resource;
    assert.equal(c.id, id);
    assert.deepEqual(c.partitionKey, { paths: ["/pk"], kind: "Hash", version: 1 });
    assert.deepEqual(c.indexingPolicy, DEFAULT_INDEXING);
    assert.deepEqual(c.conflictResolutionPolicy, {
      mode: "LastWriterWins",
      conflictResolutionPath: "/_ts",
      conflictResolutionProcedure: "",
    });
    assert.deepEqual(c.geospatialConfig, { type: "Geography" });
    const dbRid = (await db.read()).resource._rid;
    const ridBytes = Buffer.from(c._rid.replace(/-/g, "/"), "base64");
    assert.equal(ridBytes.length, 8);
    assert.deepEqual(ridBytes.subarray(0, 4), Buffer.from(dbRid.replace(/-/g, "/"), "base64"));
    assert.equal(c._self, `dbs/${dbRid}/colls/${c._rid}/`);
    assert.match(c._etag, /^"[^"]+"$/);
    assert.equal(res.headers.etag, c._etag);
    assert.ok(Number.isInteger(c._ts));
    assert.equal(c._docs, "docs/");
    assert.equal(c._sprocs, "sprocs/");
    assert.equal(c._triggers, "triggers/");
    assert.equal(c._udfs, "udfs/");
    assert.equal(c._conflicts, "conflicts/");
    assertCharge(res.requestCharge, METADATA_WRITE);
  });

  it("partition key version 2 is kept", async () => {
    const res = await db.containers.create({ id: uid("c"), partitionKey: { paths: ["/pk"], version: 2 } });
    assert.deepEqual(res.resource.partitionKey, { paths: ["/pk"], kind: "Hash", version: 2 });
  });

  it("a hierarchical partition key is stored as given, kind MultiHash", async () => {
    const def = { paths: ["/tenant", "/user", "/session"], kind: "MultiHash", version: 2 };
    const id = uid("h");
    const res = await db.containers.create({ id, partitionKey: def });
    assert.equal(res.statusCode, 201);
    assert.deepEqual(res.resource.partitionKey, def);
    const read = await db.container(id).read();
    assert.deepEqual(read.resource.partitionKey, def);
  });

  it("two paths without a kind become MultiHash version 2", async () => {
    const res = await db.containers.create({ id: uid("h"), partitionKey: { paths: ["/a", "/b"] } });
    assert.deepEqual(res.resource.partitionKey, { paths: ["/a", "/b"], kind: "MultiHash", version: 2 });
  });

  it("invalid partition key definitions answer 400", async () => {
    const bad = [
      { paths: ["/a", "/b"], kind: "Hash" },
      { paths: ["/a", "/b", "/c", "/d"], kind: "MultiHash", version: 2 },
      { paths: [] },
      { paths: ["a"] },
    ];
    for (const partitionKey of bad) {
      const res = await rawRequest(ctx.env, {
        method: "POST",
        path: `/dbs/${dbId}/colls`,
        body: { id: uid("bad"), partitionKey },
      });
      assert.equal(res.status, 400, JSON.stringify(partitionKey));
      assert.equal(res.json.code, "BadRequest");
    }
  });

  it("a container created without a partition key gets /_partitionKey and serves items", async () => {
    const id = uid("nopk");
    const res = await db.containers.create({ id });
    assert.deepEqual(res.resource.partitionKey.paths, ["/_partitionKey"]);
    assert.equal(res.resource.partitionKey.kind, "Hash");
    const container = res.container;
    const created = await container.items.create({ id: "x", v: 1 });
    assert.equal(created.statusCode, 201);
    const read = await container.item("x").read();
    assert.equal(read.statusCode, 200);
    assert.equal(read.resource.v, 1);
    const del = await container.item("x").delete();
    assert.equal(del.statusCode, 204);
  });

  it("create of an existing id answers 409", async () => {
    const id = uid("c");
    await db.containers.create({ id, partitionKey: { paths: ["/pk"] } });
    const err = await expectError(
      () => db.containers.create({ id, partitionKey: { paths: ["/pk"] } }),
      409,
      "Conflict",
    );
    assertCharge(err.headers["x-ms-request-charge"], REJECTED_WRITE);
  });

  it("create in an unknown database answers 404", async () => {
    await expectError(
      () => ctx.client.database(uid("nodb")).containers.create({ id: "c", partitionKey: { paths: ["/pk"] } }),
      404,
      "NotFound",
    );
  });

  it("read answers 200; unknown container answers 404", async () => {
    const id = uid("c");
    const created = await db.containers.create({ id, partitionKey: { paths: ["/pk"] } });
    const res = await db.container(id).read();
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.resource, created.resource);
    assert.equal(res.headers.etag, created.resource._etag);
    assertCharge(res.requestCharge, METADATA_READ);
    const err = await expectError(() => db.container(uid("none")).read(), 404, "NotFound");
    assertCharge(err.headers["x-ms-request-charge"], METADATA_READ);
  });

  it("list returns the containers (SDK readAll and the raw feed)", async () => {
    const dbid = uid("dbl");
    const { database } = await ctx.client.databases.create({ id: dbid });
    const ids = ["c1", "c2", "c3"];
    for (const id of ids) await database.containers.create({ id, partitionKey: { paths: ["/pk"] } });
    const all = await database.containers.readAll().fetchAll();
    assert.deepEqual(all.resources.map((c) => c.id).sort(), ids);
    for (const c of all.resources) assert.deepEqual(c.partitionKey, { paths: ["/pk"], kind: "Hash", version: 1 });
    assertCharge(all.requestCharge, METADATA_READ);
    const raw = await rawRequest(ctx.env, { method: "GET", path: `/dbs/${dbid}/colls` });
    assert.equal(raw.status, 200);
    assert.deepEqual(Object.keys(raw.json), ["_rid", "DocumentCollections", "_count"]);
    assert.equal(raw.json._rid, (await database.read()).resource._rid);
    assert.equal(raw.json._count, 3);
    assert.equal(raw.headers["x-ms-item-count"], "3");
    await database.delete();
  });

  it("list in an unknown database answers 404", async () => {
    await expectError(() => ctx.client.database(uid("nodb")).containers.readAll().fetchAll(), 404, "NotFound");
  });

  it("replace changes the indexing policy and TTL, keeps the key, and changes the etag", async () => {
    const id = uid("c");
    const { container, resource: before } = await db.containers.create({ id, partitionKey: { paths: ["/pk"] } });
    const indexingPolicy = {
      indexingMode: "consistent",
      automatic: true,
      includedPaths: [{ path: "/a/?" }],
      excludedPaths: [{ path: "/*" }],
    };
    const res = await container.replace({ id, partitionKey: { paths: ["/pk"] }, indexingPolicy, defaultTtl: 3600 });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.resource.indexingPolicy, {
      ...indexingPolicy,
      excludedPaths: [{ path: "/*" }, { path: '/"_etag"/?' }],
    });
    assert.equal(res.resource.defaultTtl, 3600);
    assert.deepEqual(res.resource.partitionKey, before.partitionKey);
    assert.equal(res.resource._rid, before._rid);
    assert.notEqual(res.resource._etag, before._etag);
    assert.equal(res.headers.etag, res.resource._etag);
    assertCharge(res.requestCharge, METADATA_WRITE);
    const read = await container.read();
    assert.deepEqual(read.resource, res.resource);

    // Only /a is indexed now: an item {id, pk, a, b} has one index term.
    const item = await container.items.create({ id: "x", pk: "p", a: 1, b: 2 });
    assertCharge(item.requestCharge, round2(4.6 + 0.6 * kbOf(item.resource) + 0.38 * 1));
  });

  it("replace cannot change the partition key, and the id must match", async () => {
    const id = uid("c");
    const { container } = await db.containers.create({ id, partitionKey: { paths: ["/pk"] } });
    await expectError(() => container.replace({ id, partitionKey: { paths: ["/other"] } }), 400, "BadRequest");
    const res = await rawRequest(ctx.env, {
      method: "PUT",
      path: `/dbs/${dbId}/colls/${id}`,
      body: { id: "different", partitionKey: { paths: ["/pk"] } },
    });
    assert.equal(res.status, 400);
  });

  it("replace with a stale If-Match answers 412", async () => {
    const id = uid("c");
    const { container } = await db.containers.create({ id, partitionKey: { paths: ["/pk"] } });
    await expectError(
      () =>
        container.replace(
          { id, partitionKey: { paths: ["/pk"] }, defaultTtl: 10 },
          { accessCondition: { type: "IfMatch", condition: '"stale"' } },
        ),
      412,
      "PreconditionFailed",
    );
  });

  it("replace of an unknown container answers 404", async () => {
    const id = uid("none");
    await expectError(() => db.container(id).replace({ id, partitionKey: { paths: ["/pk"] } }), 404, "NotFound");
  });

  it("indexing mode none: creates cost no index terms", async () => {
    const { container } = await db.containers.create({
      id: uid("c"),
      partitionKey: { paths: ["/pk"] },
      indexingPolicy: { indexingMode: "none", automatic: false },
    });
    const item = await container.items.create({ id: "x", pk: "p", a: [1, 2, 3] });
    assertCharge(item.requestCharge, round2(4.6 + 0.6 * kbOf(item.resource)));
  });

  it("index terms follow included/excluded paths and composite indexes", async () => {
    const { container } = await db.containers.create({
      id: uid("c"),
      partitionKey: { paths: ["/pk"] },
      indexingPolicy: {
        indexingMode: "consistent",
        automatic: true,
        includedPaths: [{ path: "/tags/[]/?" }, { path: "/nested/*" }, { path: "/a/?" }],
        excludedPaths: [{ path: "/*" }, { path: "/nested/skip/?" }],
        compositeIndexes: [
          [
            { path: "/a", order: "ascending" },
            { path: "/b", order: "descending" },
          ],
        ],
      },
    });
    // indexed: tags[0..2] (3) + nested.x, nested.y[0], nested.y[1] (3) + a (1) = 7; nested.skip, b, other, id, pk,
    // _ts are not; the composite (/a, /b) adds 1 because both are scalars.
    const res = await container.items.create({
      id: "x",
      pk: "p",
      tags: [1, 2, 3],
      nested: { x: "s", y: [true, null], skip: 9 },
      a: 1,
      b: "two",
      other: 5,
    });
    assertCharge(res.requestCharge, round2(4.6 + 0.6 * kbOf(res.resource) + 0.38 * 8));
    // without /b the composite index does not apply
    const res2 = await container.items.create({ id: "y", pk: "p", a: 1 });
    assertCharge(res2.requestCharge, round2(4.6 + 0.6 * kbOf(res2.resource) + 0.38 * 1));
  });

  it("throughput: manual 400 and autoscale 1000 accepted; 300 refused", async () => {
    const a = await db.containers.create({ id: uid("c"), partitionKey: { paths: ["/pk"] }, throughput: 400 });
    assert.equal(a.statusCode, 201);
    const b = await db.containers.create({ id: uid("c"), partitionKey: { paths: ["/pk"] }, maxThroughput: 1000 });
    assert.equal(b.statusCode, 201);
    const res = await rawRequest(ctx.env, {
      method: "POST",
      path: `/dbs/${dbId}/colls`,
      body: { id: uid("c"), partitionKey: { paths: ["/pk"] } },
      headers: { "x-ms-offer-throughput": "300" },
    });
    assert.equal(res.status, 400);
  });

  it("delete answers 204 and removes the items; re-creating gives an empty container", async () => {
    const id = uid("c");
    const { container } = await db.containers.create({ id, partitionKey: { paths: ["/pk"] } });
    const item = await container.items.create({ id: "i", pk: "p" });
    assertCharge(item.requestCharge, createCharge(item.resource));
    const res = await container.delete();
    assert.equal(res.statusCode, 204);
    assertCharge(res.requestCharge, METADATA_WRITE);
    await expectError(() => container.read(), 404, "NotFound");
    const err = await expectError(() => container.delete(), 404, "NotFound");
    assertCharge(err.headers["x-ms-request-charge"], METADATA_READ);
    const listed = (await db.containers.readAll().fetchAll()).resources.map((c) => c.id);
    assert.equal(listed.includes(id), false);

    const again = await db.containers.create({ id, partitionKey: { paths: ["/pk"] } });
    const read = await again.container.item("i", "p").read();
    assert.equal(read.statusCode, 404);
    const feed = await rawRequest(ctx.env, { method: "GET", path: `/dbs/${dbId}/colls/${id}/docs` });
    assert.deepEqual(feed.json.Documents, []);
  });

  it("createIfNotExists creates (201) then returns the existing one (200)", async () => {
    const id = uid("c");
    const first = await db.containers.createIfNotExists({ id, partitionKey: { paths: ["/pk"] } });
    assert.equal(first.statusCode, 201);
    const second = await db.containers.createIfNotExists({ id, partitionKey: { paths: ["/pk"] } });
    assert.equal(second.statusCode, 200);
    assert.equal(second.resource._rid, first.resource._rid);
  });

  it("container ids: > 255 characters and / \\ ? # answer 400", async () => {
    for (const id of ["c".repeat(256), "a/b", "a\\b", "a?b", "a#b"]) {
      const res = await rawRequest(ctx.env, {
        method: "POST",
        path: `/dbs/${dbId}/colls`,
        body: { id, partitionKey: { paths: ["/pk"] } },
      });
      assert.equal(res.status, 400, id);
      assert.equal(res.json.code, "BadRequest");
    }
  });

  it("pkranges: one range covering '' to 'FF'", { skip: !LOCAL }, async () => {
    const id = uid("c");
    const { resource } = await db.containers.create({ id, partitionKey: { paths: ["/pk"] } });
    const res = await rawRequest(ctx.env, { method: "GET", path: `/dbs/${dbId}/colls/${id}/pkranges` });
    assert.equal(res.status, 200);
    assert.equal(res.json._rid, resource._rid);
    assert.equal(res.json._count, 1);
    const [r] = res.json.PartitionKeyRanges;
    assert.equal(r.id, "0");
    assert.equal(r.minInclusive, "");
    assert.equal(r.maxExclusive, "FF");
    assert.equal(r.status, "online");
    assert.deepEqual(r.parents, []);
    const etag = res.headers.etag;
    const again = await rawRequest(ctx.env, {
      method: "GET",
      path: `/dbs/${dbId}/colls/${id}/pkranges`,
      headers: { "a-im": "Incremental Feed", "if-none-match": etag },
    });
    assert.equal(again.status, 304);
    assert.equal(again.text, "");
  });
});
