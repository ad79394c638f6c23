// The JavaScript SDK over HTTPS: the emulator's made certificate is downloaded from
// /_explorer/emulator.pem (as the Java Testcontainers module does) and trusted, then every
// resource type, a query, the change feed, a batch and a stored procedure go over TLS; the
// certificate trusted through NODE_EXTRA_CA_CERTS (docs/https.md); an untrusted certificate is
// refused by the SDK; plain HTTP on the same port still works.
import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import https from "node:https";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ChangeFeedStartFrom, CosmosClient, PartitionKeyKind } from "@azure/cosmos";
import { startEmulator, uid, LOCAL } from "./harness.mjs";

/** GET over HTTPS without checking the certificate (how harnesses fetch it). */
export function insecureGet(url) {
  return new Promise((resolve, reject) => {
    https
      .get(url, { rejectUnauthorized: false }, (res) => {
        let body = "";
        res.on("data", (c) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body }));
      })
      .on("error", reject);
  });
}

describe("the JavaScript SDK over HTTPS", { skip: !LOCAL && "needs the local binary" }, () => {
  let env, httpEnv, pem, client, agent, db, dir;
  const clients = [];
  before(async () => {
    env = await startEmulator([], { scheme: "https" });
    const got = await insecureGet(env.endpoint + "_explorer/emulator.pem");
    assert.equal(got.status, 200);
    assert.equal(got.headers["content-type"], "application/x-pem-file");
    pem = got.body;
    assert.match(pem, /^-----BEGIN CERTIFICATE-----\n[A-Za-z0-9+/=\n]+-----END CERTIFICATE-----\n$/);
    agent = new https.Agent({ ca: pem, keepAlive: true });
    client = new CosmosClient({ endpoint: env.endpoint, key: env.key, agent });
    clients.push(client);
    db = (await client.databases.create({ id: uid("db") })).database;
    dir = mkdtempSync(join(tmpdir(), "https-test-"));
  });
  after(async () => {
    for (const c of clients) c.dispose();
    agent?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
    await env?.stop();
  });

  test("the endpoint is https and the account sends the SDK back to it", async () => {
    assert.match(env.endpoint, /^https:\/\/127\.0\.0\.1:\d+\/$/);
    const account = await client.getDatabaseAccount();
    assert.deepEqual(
      account.resource.writableLocations.map((l) => l.databaseAccountEndpoint),
      [env.endpoint],
    );
    assert.deepEqual(
      account.resource.readableLocations.map((l) => l.databaseAccountEndpoint),
      [env.endpoint],
    );
  });

  test("databases, containers, items, patch and the partition key ranges", async () => {
    const { container, resource } = await db.containers.create({
      id: "items",
      partitionKey: { paths: ["/pk"], kind: PartitionKeyKind.Hash },
      throughput: 12000,
    });
    assert.equal(resource.id, "items");
    const created = await container.items.create({ id: "a", pk: "p1", n: 1 });
    assert.equal(created.statusCode, 201);
    assert.ok(created.requestCharge > 0);
    const read = await container.item("a", "p1").read();
    assert.equal(read.resource.n, 1);
    await container.items.upsert({ id: "a", pk: "p1", n: 2 });
    const patched = await container.item("a", "p1").patch([{ op: "incr", path: "/n", value: 3 }]);
    assert.equal(patched.resource.n, 5);
    const ranges = await container.readPartitionKeyRanges().fetchAll();
    assert.equal(ranges.resources.length, 2);
    const replaced = await container.item("a", "p1").replace({ id: "a", pk: "p1", n: 7 });
    assert.equal(replaced.resource.n, 7);
    assert.equal((await container.item("a", "p1").delete()).statusCode, 204);
    const { resources: dbs } = await client.databases.readAll().fetchAll();
    assert.ok(dbs.some((d) => d.id === db.id));
  });

  test("a cross-partition query with the SDK's query plan", async () => {
    const { container } = await db.containers.create({ id: "query", partitionKey: { paths: ["/pk"] }, throughput: 12000 });
    for (let i = 0; i < 10; i++) await container.items.create({ id: `q${i}`, pk: `p${i % 3}`, n: i });
    const { resources } = await container.items
      .query("SELECT VALUE c.n FROM c WHERE c.n >= 3 ORDER BY c.n DESC", { maxItemCount: 2 })
      .fetchAll();
    assert.deepEqual(resources, [9, 8, 7, 6, 5, 4, 3]);
  });

  test("the change feed", async () => {
    const { container } = await db.containers.create({ id: "feed", partitionKey: { paths: ["/pk"] } });
    const it = container.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning() });
    await container.items.create({ id: "f1", pk: "x" });
    await container.items.create({ id: "f2", pk: "y" });
    const seen = [];
    for (let i = 0; i < 5 && seen.length < 2; i++) {
      const page = await it.readNext();
      seen.push(...page.result.map((d) => d.id));
    }
    assert.deepEqual(seen.sort(), ["f1", "f2"]);
  });

  test("a transactional batch", async () => {
    const { container } = await db.containers.create({ id: "batch", partitionKey: { paths: ["/pk"] } });
    const res = await container.items.batch(
      [
        { operationType: "Create", resourceBody: { id: "b1", pk: "k" } },
        { operationType: "Upsert", resourceBody: { id: "b2", pk: "k" } },
        { operationType: "Read", id: "b1" },
      ],
      "k",
    );
    assert.deepEqual(
      res.result.map((r) => r.statusCode),
      [201, 201, 200],
    );
  });

  test("a stored procedure, a trigger and a user-defined function", async () => {
    const { container } = await db.containers.create({ id: "scripts", partitionKey: { paths: ["/pk"] } });
    await container.scripts.storedProcedures.create({
      id: "make",
      body: "function make(id) { var c = getContext().getCollection(); c.createDocument(c.getSelfLink(), {id: id, pk: 'k'}, function (e, d) { if (e) throw e; getContext().getResponse().setBody(d.id); }); }",
    });
    const run = await container.scripts.storedProcedure("make").execute("k", ["s1"]);
    assert.equal(run.resource, "s1");
    await container.scripts.triggers.create({
      id: "stamp",
      triggerType: "Pre",
      triggerOperation: "Create",
      body: "function stamp() { var r = getContext().getRequest(); var d = r.getBody(); d.stamped = true; r.setBody(d); }",
    });
    const made = await container.items.create({ id: "t1", pk: "k" }, { preTriggerInclude: ["stamp"] });
    assert.equal(made.resource.stamped, true);
    await container.scripts.userDefinedFunctions.create({ id: "twice", body: "function twice(x) { return x * 2; }" });
    const { resources } = await container.items
      .query({ query: "SELECT VALUE udf.twice(21) FROM c WHERE c.id = 't1'" }, { partitionKey: "k" })
      .fetchAll();
    assert.deepEqual(resources, [42]);
  });

  test("users, permissions, offers and conflicts", async () => {
    const { container } = await db.containers.create({ id: "perm", partitionKey: { paths: ["/pk"] }, throughput: 400 });
    const { user } = await db.users.create({ id: "alice" });
    const { resource: perm } = await user.permissions.create({
      id: "read",
      permissionMode: "Read",
      resource: container.url,
    });
    assert.ok(perm._token);
    const scoped = new CosmosClient({ endpoint: env.endpoint, resourceTokens: { [container.url]: perm._token }, agent });
    clients.push(scoped);
    await container.items.create({ id: "r1", pk: "k" });
    const read = await scoped.database(db.id).container("perm").item("r1", "k").read();
    assert.equal(read.statusCode, 200);
    const offer = await container.readOffer();
    assert.equal(offer.resource.content.offerThroughput, 400);
    const { resources: conflicts } = await container.conflicts.readAll().fetchAll();
    assert.deepEqual(conflicts, []);
  });

  test("NODE_EXTRA_CA_CERTS trusts the downloaded certificate for a plain client", () => {
    const pemPath = join(dir, "emulator.pem");
    writeFileSync(pemPath, pem);
    const script = `
      import { CosmosClient } from "@azure/cosmos";
      const c = new CosmosClient({ endpoint: process.argv[1], key: process.argv[2] });
      const { resource } = await c.databases.createIfNotExists({ id: "extra-ca" });
      console.log(resource.id);
      c.dispose();`;
    const run = (extra) =>
      spawnSync(process.execPath, ["--input-type=module", "-e", script, env.endpoint, env.key], {
        cwd: process.cwd(),
        env: { ...process.env, ...extra },
        encoding: "utf8",
        timeout: 30000,
      });
    const trusted = run({ NODE_EXTRA_CA_CERTS: pemPath });
    assert.equal(trusted.status, 0, trusted.stderr);
    assert.equal(trusted.stdout.trim(), "extra-ca");
    const untrusted = run({ NODE_EXTRA_CA_CERTS: "" });
    assert.notEqual(untrusted.status, 0);
    assert.match(untrusted.stderr, /self[- ]signed certificate/);
  });

  test("the SDK refuses the certificate when it is not trusted", async () => {
    const plain = new CosmosClient({ endpoint: env.endpoint, key: env.key });
    clients.push(plain);
    await assert.rejects(plain.getDatabaseAccount(), (e) => {
      assert.match(String(e.code), /SELF_SIGNED/);
      return true;
    });
  });

  test("plain HTTP on the same port reaches the same account", async () => {
    const httpEndpoint = env.endpoint.replace("https://", "http://");
    const plain = new CosmosClient({ endpoint: httpEndpoint, key: env.key });
    clients.push(plain);
    const account = await plain.getDatabaseAccount();
    assert.deepEqual(
      account.resource.writableLocations.map((l) => l.databaseAccountEndpoint),
      [httpEndpoint],
    );
    const { resource } = await plain.database(db.id).read();
    assert.equal(resource.id, db.id);
  });
});
