// Databases: create, read, list, delete, createIfNotExists, validation.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  LOCAL,
  METADATA_READ,
  METADATA_WRITE,
  REJECTED_WRITE,
  assertCharge,
  expectError,
  rawRequest,
  uid,
  useEmulator,
} from "./harness.mjs";

const ctx = useEmulator();
const ETAG = /^"[^"]+"$/;

function assertDatabaseShape(db, id) {
  assert.deepEqual(Object.keys(db), ["id", "_rid", "_self", "_etag", "_colls", "_users", "_ts"]);
  assert.equal(db.id, id);
  assert.equal(Buffer.from(db._rid, "base64").length, 4, `_rid ${db._rid} is 4 bytes`);
  assert.equal(db._self, `dbs/${db._rid}/`);
  assert.match(db._etag, ETAG);
  assert.equal(db._colls, "colls/");
  assert.equal(db._users, "users/");
  assert.ok(Number.isInteger(db._ts));
  assert.ok(Math.abs(db._ts - Date.now() / 1000) < 120, "_ts is epoch seconds, now");
}

describe("databases", () => {
  it("create answers 201 with the system properties, etag header and charge", async () => {
    const id = uid("db");
    const res = await ctx.client.databases.create({ id });
    assert.equal(res.statusCode, 201);
    assertDatabaseShape(res.resource, id);
    assert.equal(res.headers.etag, res.resource._etag);
    assert.equal(res.etag, res.resource._etag);
    assertCharge(res.requestCharge, METADATA_WRITE);
    await res.database.delete();
  });

  it("create of an existing id answers 409 Conflict", async () => {
    const id = uid("db");
    await ctx.client.databases.create({ id });
    const err = await expectError(() => ctx.client.databases.create({ id }), 409, "Conflict");
    assert.match(err.body.message, /Resource with specified id, name, or unique index already exists\./);
    assertCharge(err.headers["x-ms-request-charge"], REJECTED_WRITE);
    await ctx.client.database(id).delete();
  });

  it("read answers 200 with the same resource", async () => {
    const id = uid("db");
    const created = await ctx.client.databases.create({ id });
    const res = await ctx.client.database(id).read();
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.resource, created.resource);
    assert.equal(res.headers.etag, created.resource._etag);
    assertCharge(res.requestCharge, METADATA_READ);
    await ctx.client.database(id).delete();
  });

  it("read of an unknown database answers 404 NotFound", async () => {
    const err = await expectError(() => ctx.client.database(uid("missing")).read(), 404, "NotFound");
    assert.match(err.body.message, /Resource Not Found/);
    assertCharge(err.headers["x-ms-request-charge"], METADATA_READ);
  });

  it("list returns every database (SDK readAll and the raw feed)", async () => {
    const ids = [uid("dba"), uid("dbb"), uid("dbc")];
    for (const id of ids) await ctx.client.databases.create({ id });
    const { resources, requestCharge } = await ctx.client.databases.readAll().fetchAll();
    const listed = resources.map((d) => d.id);
    for (const id of ids) assert.ok(listed.includes(id), `${id} listed`);
    assertCharge(requestCharge, METADATA_READ);

    const raw = await rawRequest(ctx.env, { method: "GET", path: "/dbs" });
    assert.equal(raw.status, 200);
    assert.deepEqual(Object.keys(raw.json), ["_rid", "Databases", "_count"]);
    assert.equal(raw.json._count, raw.json.Databases.length);
    assert.equal(raw.headers["x-ms-item-count"], String(raw.json._count));
    if (LOCAL) {
      assert.equal(raw.json._rid, "");
      // creation order
      const order = raw.json.Databases.map((d) => d.id).filter((x) => ids.includes(x));
      assert.deepEqual(order, ids);
    }
    for (const id of ids) await ctx.client.database(id).delete();
  });

  it("delete answers 204, then read and delete answer 404", async () => {
    const id = uid("db");
    await ctx.client.databases.create({ id });
    const res = await ctx.client.database(id).delete();
    assert.equal(res.statusCode, 204);
    assert.equal(res.resource, null);
    assertCharge(res.requestCharge, METADATA_WRITE);
    await expectError(() => ctx.client.database(id).read(), 404, "NotFound");
    await ctx.client.databases.create({ id });
    const raw = await rawRequest(ctx.env, { method: "DELETE", path: `/dbs/${id}` });
    assert.equal(raw.status, 204);
    assert.equal(raw.text, "");
    const err = await expectError(() => ctx.client.database(id).delete(), 404, "NotFound");
    assertCharge(err.headers["x-ms-request-charge"], METADATA_READ);
    const listed = (await ctx.client.databases.readAll().fetchAll()).resources.map((d) => d.id);
    assert.equal(listed.includes(id), false);
  });

  it("createIfNotExists creates (201) then returns the existing one (200)", async () => {
    const id = uid("db");
    const first = await ctx.client.databases.createIfNotExists({ id });
    assert.equal(first.statusCode, 201);
    const second = await ctx.client.databases.createIfNotExists({ id });
    assert.equal(second.statusCode, 200);
    assert.equal(second.resource._rid, first.resource._rid);
    assert.equal(second.resource._etag, first.resource._etag);
    await ctx.client.database(id).delete();
  });

  it("deleting a database deletes its containers and items; re-creating it gives an empty one", async () => {
    const id = uid("db");
    const { database } = await ctx.client.databases.create({ id });
    const { container } = await database.containers.create({ id: "c", partitionKey: { paths: ["/pk"] } });
    await container.items.create({ id: "i1", pk: "a" });
    await database.delete();

    const again = await ctx.client.databases.create({ id });
    assert.equal(again.statusCode, 201);
    const colls = await again.database.containers.readAll().fetchAll();
    assert.deepEqual(colls.resources, []);
    await expectError(() => again.database.container("c").read(), 404, "NotFound");
    const { container: c2 } = await again.database.containers.create({ id: "c", partitionKey: { paths: ["/pk"] } });
    const read = await c2.item("i1", "a").read();
    assert.equal(read.statusCode, 404);
    const feed = await rawRequest(ctx.env, { method: "GET", path: `/dbs/${id}/colls/c/docs` });
    assert.equal(feed.status, 200);
    assert.deepEqual(feed.json.Documents, []);
    assert.equal(feed.json._count, 0);
    await again.database.delete();
  });

  it("ids with spaces and non-ASCII characters work end to end", async () => {
    const id = `db ${uid("é")} 日本`;
    const res = await ctx.client.databases.create({ id });
    assert.equal(res.resource.id, id);
    const read = await ctx.client.database(id).read();
    assert.equal(read.resource.id, id);
    await ctx.client.database(id).delete();
  });

  it("throughput: 400 accepted, 300 refused", async () => {
    const id = uid("db");
    const ok = await ctx.client.databases.create({ id, throughput: 400 });
    assert.equal(ok.statusCode, 201);
    await ctx.client.database(id).delete();
    const res = await rawRequest(ctx.env, {
      method: "POST",
      path: "/dbs",
      body: { id: uid("db") },
      headers: { "x-ms-offer-throughput": "300" },
    });
    assert.equal(res.status, 400);
    assert.equal(res.json.code, "BadRequest");
  });
});

describe("database input validation (raw)", () => {
  const post = (body) => rawRequest(ctx.env, { method: "POST", path: "/dbs", body });

  it("malformed JSON answers 400", async () => {
    const res = await post('{"id": "x",');
    assert.equal(res.status, 400);
    assert.equal(res.json.code, "BadRequest");
    assert.match(res.json.message, /The request payload is invalid/);
  });

  it("a body that is not an object answers 400", async () => {
    for (const body of ["[]", '"db"', "42", "null"]) {
      const res = await post(body);
      assert.equal(res.status, 400, body);
      assert.equal(res.json.code, "BadRequest");
    }
  });

  it("a missing id answers 400", async () => {
    const res = await post({ name: "x" });
    assert.equal(res.status, 400);
    assert.match(res.json.message, /The input content is invalid because the required properties - 'id; ' - are missing\./);
  });

  it("an id longer than 255 characters answers 400; 255 is accepted", async () => {
    const tooLong = await post({ id: "d".repeat(256) });
    assert.equal(tooLong.status, 400);
    assert.equal(tooLong.json.code, "BadRequest");
    const id = "e".repeat(200) + uid("x").padEnd(55, "z");
    assert.equal(id.length, 255);
    const ok = await post({ id });
    assert.equal(ok.status, 201, ok.text);
    await ctx.client.database(id).delete();
  });

  it("ids containing / \\ ? # answer 400", async () => {
    for (const id of ["a/b", "a\\b", "a?b", "a#b"]) {
      const res = await post({ id });
      assert.equal(res.status, 400, id);
      assert.equal(res.json.code, "BadRequest");
      if (LOCAL) assert.match(res.json.message, /The input name '.*' is invalid\./);
    }
  });

  it("an empty id answers 400", async () => {
    const res = await post({ id: "" });
    assert.equal(res.status, 400);
  });
});
