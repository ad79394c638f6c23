// Resources of the service beyond items and scripts, through @azure/cosmos: the conflicts feed
// (empty: one write region), deleteAllItemsForPartitionKey (and how it shows in both change feed
// modes), client encryption keys and client-side encryption end to end with an in-memory key
// resolver (the SDK does the cryptography; the emulator stores keys and the container policy).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  ChangeFeedMode,
  ChangeFeedPolicy,
  ChangeFeedRetentionTimeSpan,
  ChangeFeedStartFrom,
  CosmosClient,
  EncryptionAlgorithm,
  EncryptionQueryBuilder,
  EncryptionType,
} from "@azure/cosmos";
import {
  useEmulatorWithDatabase,
  uid,
  expectError,
  assertCharge,
  rawRequest,
  METADATA_READ,
  METADATA_WRITE,
  LOCAL,
} from "./harness.mjs";

let db;
let dbId;
let container;
const ctx = useEmulatorWithDatabase(
  async (f) => {
    db = f.db;
    dbId = f.dbId;
    container = f.container;
  },
  { containerId: "c" },
);

// A key store in memory: "wraps" a data encryption key by XOR with a pad derived from the key
// encryption key's id, so unwrapping with the same id gives the key back. Counts the calls.
class MemoryKeyResolver {
  encryptionKeyResolverName = "IN_MEMORY_TEST";
  calls = { wrap: 0, unwrap: 0 };
  pad(keyId, n) {
    const out = Buffer.alloc(n);
    let block = createHash("sha256").update(keyId).digest();
    for (let i = 0; i < n; i++) {
      if (i > 0 && i % block.length === 0) block = createHash("sha256").update(block).digest();
      out[i] = block[i % block.length];
    }
    return out;
  }
  async wrapKey(keyId, _algorithm, key) {
    this.calls.wrap++;
    const p = this.pad(keyId, key.length);
    return new Uint8Array(Buffer.from(key).map((b, i) => b ^ p[i]));
  }
  async unwrapKey(keyId, _algorithm, wrapped) {
    this.calls.unwrap++;
    const p = this.pad(keyId, wrapped.length);
    return new Uint8Array(Buffer.from(wrapped).map((b, i) => b ^ p[i]));
  }
}

function encryptionClient(resolver = new MemoryKeyResolver()) {
  return ctx.track(
    new CosmosClient({
      endpoint: ctx.env.endpoint,
      key: ctx.env.key,
      connectionPolicy: { enableBackgroundEndpointRefreshing: false },
      clientEncryptionOptions: { keyEncryptionKeyResolver: resolver },
    }),
  );
}

const kek = (name) => ({ type: "IN_MEMORY_TEST", name, value: `memory://${name}`, algorithm: "RSA-OAEP" });

function includedPath(path, key, type = EncryptionType.DETERMINISTIC) {
  return { path, clientEncryptionKeyId: key, encryptionType: type, encryptionAlgorithm: EncryptionAlgorithm.AEAD_AES_256_CBC_HMAC_SHA256 };
}

describe("conflicts", () => {
  it("the feed is empty and a query returns nothing", async () => {
    const res = await container.conflicts.readAll().fetchAll();
    assert.deepEqual(res.resources, []);
    const q = await container.conflicts.query("SELECT * FROM c").fetchAll();
    assert.deepEqual(q.resources, []);
    if (LOCAL) assertCharge(q.requestCharge, METADATA_READ);
    const raw = await rawRequest(ctx.env, { path: `/dbs/${dbId}/colls/c/conflicts` });
    assert.equal(raw.status, 200, raw.text);
    const { resource } = await container.read();
    assert.deepEqual(raw.json, { _rid: resource._rid, Conflicts: [], _count: 0 });
    assert.equal(raw.headers["x-ms-item-count"], "0");
    if (LOCAL) assertCharge(raw.headers["x-ms-request-charge"], METADATA_READ);
  });

  it("one conflict answers 404 to a read and a delete", async () => {
    const read = await rawRequest(ctx.env, { path: `/dbs/${dbId}/colls/c/conflicts/none` });
    assert.equal(read.status, 404, read.text);
    assert.equal(read.json.code, "NotFound");
    await expectError(() => container.conflict("none", "x").delete(), 404, "NotFound");
  });
});

describe("deleteAllItemsForPartitionKey", () => {
  it("deletes every item of the key, and only those", async () => {
    for (const [id, pk] of [["a1", "a"], ["a2", "a"], ["b1", "b"]]) await container.items.create({ id, pk });
    const res = await container.deleteAllItemsForPartitionKey("a");
    assert.equal(res.statusCode, 200);
    assert.equal(res.resource, null); // an empty body
    if (LOCAL) assertCharge(res.headers["x-ms-request-charge"], METADATA_WRITE);
    assert.equal((await container.item("a1", "a").read()).statusCode, 404);
    assert.equal((await container.item("a2", "a").read()).statusCode, 404);
    assert.equal((await container.item("b1", "b").read()).statusCode, 200);
    const left = await container.items.query("SELECT VALUE c.id FROM c").fetchAll();
    assert.deepEqual(left.resources, ["b1"]);
    // Writes after it are not affected, and the ids are free again.
    await container.items.create({ id: "a1", pk: "a" });
    assert.equal((await container.item("a1", "a").read()).statusCode, 200);
    await container.deleteAllItemsForPartitionKey("b");
    await container.deleteAllItemsForPartitionKey("a");
  });

  it("a hierarchical key must be given in full", async () => {
    const { container: h } = await db.containers.create({
      id: uid("h"),
      partitionKey: { paths: ["/t", "/u"], kind: "MultiHash", version: 2 },
    });
    await h.items.create({ id: "1", t: "x", u: "y" });
    await h.items.create({ id: "2", t: "x", u: "z" });
    await expectError(() => h.deleteAllItemsForPartitionKey(["x"]), 400);
    assert.equal((await h.deleteAllItemsForPartitionKey(["x", "y"])).statusCode, 200);
    const left = await h.items.query("SELECT VALUE c.id FROM c").fetchAll();
    assert.deepEqual(left.resources, ["2"]);
  });

  it("shows as one delete per item in all-versions-and-deletes mode, and not at all in latest-version mode", async () => {
    const { container: cf } = await db.containers.create({
      id: uid("cf"),
      partitionKey: { paths: ["/pk"] },
      changeFeedPolicy: new ChangeFeedPolicy(ChangeFeedRetentionTimeSpan.fromMinutes(10)),
    });
    const all = cf.items.getChangeFeedIterator({
      changeFeedStartFrom: ChangeFeedStartFrom.Now(),
      changeFeedMode: ChangeFeedMode.AllVersionsAndDeletes,
    });
    await all.readNext();
    const latest = cf.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning() });
    await cf.items.create({ id: "1", pk: "p" });
    await cf.items.create({ id: "2", pk: "p" });
    await cf.items.create({ id: "3", pk: "q" });
    await cf.deleteAllItemsForPartitionKey("p");
    const page = await all.readNext();
    const ops = page.result.map((e) => [e.metadata.operationType, e.metadata.id ?? e.current.id]);
    assert.deepEqual(ops, [
      ["create", "1"],
      ["create", "2"],
      ["create", "3"],
      ["delete", "1"],
      ["delete", "2"],
    ]);
    for (const e of page.result.slice(3)) {
      assert.deepEqual(e.current, {});
      assert.equal(e.metadata.timeToLiveExpired, false);
      assert.deepEqual(e.metadata.partitionKey, { pk: "p" });
    }
    const l = await latest.readNext();
    assert.deepEqual(
      l.result.map((d) => d.id),
      ["3"],
    );
  });
});

describe("client encryption keys", () => {
  it("create, read, rewrap, list and query through an encryption-enabled client", async () => {
    const resolver = new MemoryKeyResolver();
    const client = encryptionClient(resolver);
    const edb = client.database(dbId);
    const created = await edb.createClientEncryptionKey("cek1", EncryptionAlgorithm.AEAD_AES_256_CBC_HMAC_SHA256, kek("kek1"));
    assert.equal(created.statusCode, 201);
    if (LOCAL) assertCharge(created.headers["x-ms-request-charge"], METADATA_WRITE);
    const r = created.resource;
    assert.deepEqual(Object.keys(r), [
      "id",
      "encryptionAlgorithm",
      "wrappedDataEncryptionKey",
      "keyWrapMetadata",
      "_rid",
      "_self",
      "_etag",
      "_ts",
    ]);
    assert.equal(r.encryptionAlgorithm, "AEAD_AES_256_CBC_HMAC_SHA256");
    assert.deepEqual(r.keyWrapMetadata, kek("kek1"));
    assert.equal(Buffer.from(r.wrappedDataEncryptionKey, "base64").length, 32);
    assert.equal(resolver.calls.wrap, 1);
    assert.deepEqual(created.clientEncryptionKeyProperties.encryptionKeyWrapMetadata, kek("kek1"));

    const read = await edb.readClientEncryptionKey("cek1");
    assert.equal(read.statusCode, 200);
    assert.deepEqual(read.resource, r);
    await expectError(
      () => edb.createClientEncryptionKey("cek1", EncryptionAlgorithm.AEAD_AES_256_CBC_HMAC_SHA256, kek("kek1")),
      409,
    );

    const rewrapped = await edb.rewrapClientEncryptionKey("cek1", kek("kek2"));
    assert.equal(rewrapped.statusCode, 200);
    assert.deepEqual(rewrapped.resource.keyWrapMetadata, kek("kek2"));
    assert.equal(rewrapped.resource._rid, r._rid);
    assert.notEqual(rewrapped.resource._etag, r._etag);
    // The same data key, wrapped by the other key encryption key.
    const unwrap = async (res, name) =>
      Buffer.from(await resolver.unwrapKey(`memory://${name}`, "RSA-OAEP", Buffer.from(res.wrappedDataEncryptionKey, "base64")));
    assert.deepEqual(await unwrap(rewrapped.resource, "kek2"), await unwrap(r, "kek1"));

    // List and query have no SDK API: the REST feed.
    const list = await rawRequest(ctx.env, { path: `/dbs/${dbId}/clientencryptionkeys` });
    assert.equal(list.status, 200, list.text);
    const { resource: dbRes } = await db.read();
    assert.equal(list.json._rid, dbRes._rid);
    assert.deepEqual(list.json.ClientEncryptionKeys, [rewrapped.resource]);
    assert.equal(list.json._count, 1);
    const q = await rawRequest(ctx.env, {
      method: "POST",
      path: `/dbs/${dbId}/clientencryptionkeys`,
      headers: { "x-ms-documentdb-isquery": "true", "content-type": "application/query+json" },
      body: { query: "SELECT VALUE k.keyWrapMetadata.name FROM k WHERE k.id = @id", parameters: [{ name: "@id", value: "cek1" }] },
    });
    assert.equal(q.status, 200, q.text);
    assert.deepEqual(q.json.ClientEncryptionKeys, ["kek2"]);
    // A stale etag on replace: 412.
    const stale = await rawRequest(ctx.env, {
      method: "PUT",
      path: `/dbs/${dbId}/clientencryptionkeys/cek1`,
      headers: { "if-match": r._etag },
      body: { id: "cek1", encryptionAlgorithm: r.encryptionAlgorithm, wrappedDataEncryptionKey: r.wrappedDataEncryptionKey, keyWrapMetadata: r.keyWrapMetadata },
    });
    assert.equal(stale.status, 412, stale.text);
    await expectError(() => edb.readClientEncryptionKey("nope"), 404);
  });

  it("encrypts items end to end: stored ciphertext, plaintext back, equality queries, partition key delete", async () => {
    const client = encryptionClient();
    const edb = client.database(dbId);
    await edb.createClientEncryptionKey("cek-e2e", EncryptionAlgorithm.AEAD_AES_256_CBC_HMAC_SHA256, kek("kek-e2e"));
    const id = uid("enc");
    const policy = {
      includedPaths: [includedPath("/pk", "cek-e2e"), includedPath("/ssn", "cek-e2e"), includedPath("/notes", "cek-e2e", EncryptionType.RANDOMIZED)],
      policyFormatVersion: 2,
    };
    const { resource: def } = await edb.containers.create({ id, partitionKey: { paths: ["/pk"] }, clientEncryptionPolicy: policy });
    assert.deepEqual(def.clientEncryptionPolicy, policy);
    const ec = edb.container(id);
    await ec.initializeEncryption();
    const doc = { id: "p1", pk: "tenant", ssn: "123-45-6789", notes: "secret", age: 42 };
    const created = await ec.items.create(doc);
    assert.equal(created.statusCode, 201);
    assert.equal(created.resource.ssn, doc.ssn);
    const read = await ec.item("p1", "tenant").read();
    assert.equal(read.resource.ssn, doc.ssn);
    assert.equal(read.resource.notes, doc.notes);
    // What the emulator stores: ciphertext (base64), the rest as sent.
    const plain = container.database.container(id);
    const stored = (await plain.items.query("SELECT * FROM c").fetchAll()).resources;
    assert.equal(stored.length, 1);
    assert.notEqual(stored[0].ssn, doc.ssn);
    assert.notEqual(stored[0].pk, "tenant");
    assert.match(stored[0].ssn, /^[A-Za-z0-9+/]+=*$/);
    assert.equal(stored[0].age, 42);
    // An equality filter on a deterministic path.
    const qb = new EncryptionQueryBuilder("SELECT * FROM c WHERE c.ssn = @ssn");
    qb.addParameter("@ssn", doc.ssn, "/ssn");
    const found = await (await ec.items.getEncryptionQueryIterator(qb)).fetchAll();
    assert.deepEqual(
      found.resources.map((d) => [d.id, d.ssn]),
      [["p1", doc.ssn]],
    );
    // Delete by (encrypted) partition key.
    await ec.items.create({ id: "p2", pk: "tenant", ssn: "1", notes: "n", age: 1 });
    await ec.items.create({ id: "o1", pk: "other", ssn: "2", notes: "n", age: 2 });
    assert.equal((await ec.deleteAllItemsForPartitionKey("tenant")).statusCode, 200);
    assert.equal((await ec.item("p1", "tenant").read()).statusCode, 404);
    assert.equal((await ec.item("o1", "other").read()).statusCode, 200);
    // The policy is fixed: a replace that drops it is refused.
    const { resource: current } = await plain.read();
    delete current.clientEncryptionPolicy;
    const err = await expectError(() => plain.replace(current), 400);
    assert.match(err.message, /'clientEncryptionPolicy' cannot be changed as part of collection replace operation\./);
  });

  it("a container re-created under the same name is detected (400/1024) and the SDK refreshes its policy", async () => {
    const client1 = encryptionClient();
    const edb = client1.database(dbId);
    await edb.createClientEncryptionKey("cek-re", EncryptionAlgorithm.AEAD_AES_256_CBC_HMAC_SHA256, kek("kek-re"));
    const id = uid("re");
    const make = (path) =>
      db.containers.create({
        id,
        partitionKey: { paths: ["/pk"] },
        clientEncryptionPolicy: { includedPaths: [includedPath(path, "cek-re")], policyFormatVersion: 2 },
      });
    await make("/a");
    const ec = edb.container(id);
    await ec.items.create({ id: "1", pk: "p", a: "x", b: "y" });
    await db.container(id).delete();
    await make("/b");
    const err = await expectError(() => ec.items.create({ id: "2", pk: "p", a: "x", b: "y" }), undefined);
    assert.match(err.message, /mismatch in Client Encryption Policy/);
    // Retried with the refreshed policy: /b is now the encrypted property.
    await ec.items.create({ id: "2", pk: "p", a: "x", b: "y" });
    const raw = (await db.container(id).items.query("SELECT * FROM c").fetchAll()).resources;
    assert.equal(raw[0].a, "x");
    assert.notEqual(raw[0].b, "y");
    // The header itself: 400 with substatus 1024 for an old rid.
    const stale = await rawRequest(ctx.env, {
      path: `/dbs/${dbId}/colls/${id}/docs/2`,
      headers: { "x-ms-documentdb-partitionkey": '["p"]', "x-ms-cosmos-intended-collection-rid": "AAAAAAAAAAA=" },
    });
    assert.equal(stale.status, 400, stale.text);
    assert.equal(stale.headers["x-ms-substatus"], "1024");
  });

  it("a container policy must name existing keys and a supported format version", async () => {
    const bad = [
      { includedPaths: [includedPath("/s", "no-such-key")], policyFormatVersion: 2 },
      { includedPaths: [includedPath("/s", "cek1")], policyFormatVersion: 3 },
    ];
    for (const clientEncryptionPolicy of bad) {
      await expectError(
        () => db.containers.create({ id: uid("bad"), partitionKey: { paths: ["/pk"] }, clientEncryptionPolicy }),
        400,
        "BadRequest",
      );
    }
  });
});
