// Seeding (docs/seeding.md) through the real binary and @azure/cosmos: --seed on a directory with a
// manifest, JSON lines and a JSON array; the data read back with the SDK (a point read, a
// cross-partition count, a hierarchical-key container); a bad line stopping the start with exit
// code 2 and its line number, skip mode loading the rest; POST /_emulator/import with and without
// the master key; and seeded data kept in a data directory across a restart without --seed.
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EMULATOR_BIN, LOCAL, newClient, rawRequest, startEmulator } from "./harness.mjs";

const ORDERS = 500;
const order = (i) => ({ id: `o${i}`, customerId: `c${i % 37}`, total: i, note: "x".repeat(i % 50) });
const EVENTS = [
  { id: "e1", tenant: "t1", user: "u1", kind: "click" },
  { id: "e2", tenant: "t1", user: "u2", kind: "view" },
  { id: "e1", tenant: "t2", user: "u1", kind: "click" },
];

// A seed directory: shop/orders (Hash v2, 12,000 RU/s: two physical partitions) from JSON lines
// and shop/events (hierarchical keys) from a JSON array. `extraLines` are appended to orders.jsonl.
function seedDir(extraLines = []) {
  const dir = mkdtempSync(join(tmpdir(), "cosmos-seed-"));
  const manifest = {
    containers: [
      {
        database: "shop",
        container: "orders",
        partitionKey: { paths: ["/customerId"], kind: "Hash", version: 2 },
        throughput: { manual: 12000 },
        data: "orders.jsonl",
      },
      {
        database: "shop",
        container: "events",
        partitionKey: { paths: ["/tenant", "/user"], kind: "MultiHash", version: 2 },
        data: "events/",
      },
    ],
  };
  writeFileSync(join(dir, "manifest.json"), JSON.stringify(manifest, null, 2));
  const lines = [];
  for (let i = 0; i < ORDERS; i++) {
    lines.push(JSON.stringify(order(i)));
    if (i === 10) lines.push(""); // blank lines are not items
  }
  writeFileSync(join(dir, "orders.jsonl"), [...lines, ...extraLines].join("\n") + "\n");
  mkdirSync(join(dir, "events"));
  writeFileSync(join(dir, "events", "part-1.json"), JSON.stringify(EVENTS, null, 2));
  return dir;
}

function run(args) {
  return spawnSync(EMULATOR_BIN, ["--host", "127.0.0.1", "--port", "0", "--protocol", "http", ...args], {
    encoding: "utf8",
    timeout: 20000,
  });
}

async function count(container, query = "SELECT VALUE COUNT(1) FROM c", options = {}) {
  const { resources } = await container.items.query(query, options).fetchAll();
  return resources.reduce((a, b) => a + b, 0);
}

describe("seeding", { skip: !LOCAL && "starts the emulator binary" }, () => {
  it("loads the seed before 'Started': a point read, a cross-partition count, hierarchical keys", async () => {
    const dir = seedDir();
    const env = await startEmulator(["--seed", dir, "--protocol", "http"]);
    const client = newClient(env);
    try {
      const out = env.log();
      const seeded = out.indexOf("cosmos-emulator: seeded 503 items (503 created, 0 replaced) into 2 containers from 2 files");
      assert.ok(seeded >= 0, out);
      assert.ok(seeded < out.indexOf("Now listening on: "), out);
      assert.match(out, /; created 1 database and 2 containers\n/);
      assert.match(out, /^Started\r$/m);

      const orders = client.database("shop").container("orders");
      const { resource, statusCode } = await orders.item("o7", "c7").read();
      assert.equal(statusCode, 200);
      assert.deepEqual(
        Object.keys(resource),
        ["id", "customerId", "total", "note", "_rid", "_self", "_etag", "_attachments", "_ts"],
      );
      assert.equal(resource.total, 7);
      assert.equal(resource.note, "x".repeat(7));
      assert.equal(await count(orders), ORDERS);
      assert.equal(await count(orders, "SELECT VALUE COUNT(1) FROM c WHERE c.total >= 100"), ORDERS - 100);
      assert.equal(await count(orders, "SELECT VALUE COUNT(1) FROM c", { partitionKey: "c3" }), 14); // 3, 40, ..., 484
      const { resource: def } = await orders.read();
      assert.deepEqual(def.partitionKey, { paths: ["/customerId"], kind: "Hash", version: 2 });
      const { resources: ranges } = await orders.readPartitionKeyRanges().fetchAll();
      assert.equal(ranges.length, 2);
      const { resource: offer } = await orders.readOffer();
      assert.equal(offer.content.offerThroughput, 12000);

      const events = client.database("shop").container("events");
      const e1 = await events.item("e1", ["t2", "u1"]).read();
      assert.equal(e1.statusCode, 200);
      assert.equal(e1.resource.tenant, "t2");
      assert.equal(await count(events), 3);
      assert.equal(await count(events, "SELECT VALUE COUNT(1) FROM c", { partitionKey: ["t1"] }), 2);
      const { resources: t1u2 } = await events.items
        .query("SELECT c.id, c.kind FROM c", { partitionKey: ["t1", "u2"] })
        .fetchAll();
      assert.deepEqual(t1u2, [{ id: "e2", kind: "view" }]);

      // Seeding charges nothing: the RU report lists only the requests above.
      const stats = await rawRequest(env, { path: "/_emulator/stats", auth: false });
      const ordersReport = stats.json.containers.find((c) => c.container === "orders");
      assert.equal(ordersReport.operations.find((o) => o.operation === "create"), undefined);
    } finally {
      client.dispose();
      await env.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a bad line stops the start with exit code 2, naming its file and line; nothing is served", () => {
    const dir = seedDir(['{"id":"bad1","customerId":"c1"', '{"id":"o3","customerId":"c3"}', '{"customerId":"c1"}']);
    try {
      const r = run(["--seed", dir]);
      assert.equal(r.status, 2, r.stderr);
      assert.equal(r.stdout, ""); // not even "Now listening"
      assert.equal(
        r.stderr,
        "cosmos-emulator: seed: orders.jsonl:502: not valid JSON\n" +
          'cosmos-emulator: seed: orders.jsonl:503: the id "o3" with partition key ["c3"] is already in this load, at orders.jsonl:4\n' +
          "cosmos-emulator: seed: orders.jsonl:504: The input content is invalid because the required properties - 'id; ' - are missing.\n" +
          "cosmos-emulator: seed: 3 items cannot be loaded; nothing was loaded (--seed-errors skip loads the others)\n",
      );
      const missing = run(["--seed", join(dir, "nope")]);
      assert.equal(missing.status, 2);
      assert.equal(missing.stderr, `cosmos-emulator: seed: ${join(dir, "nope")} does not exist\n`);
      const badFlag = run(["--seed", dir, "--seed-errors", "ignore"]);
      assert.equal(badFlag.status, 2);
      assert.equal(badFlag.stderr, "cosmos-emulator: --seed-errors: must be fail or skip (see --help)\n");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("--seed-errors skip loads the other lines and lists the skipped ones", async () => {
    const dir = seedDir(["not json at all", '{"id":"late","customerId":"c1"}']);
    const env = await startEmulator(["--seed", dir, "--seed-errors", "skip", "--protocol", "http"]);
    const client = newClient(env);
    try {
      const out = env.log();
      assert.match(out, /^cosmos-emulator: seed: skipped orders\.jsonl:502: not valid JSON$/m);
      assert.match(out, /^cosmos-emulator: seed: skipped 1 item \(--seed-errors skip\)$/m);
      assert.match(out, /^cosmos-emulator: seeded 504 items \(504 created, 0 replaced, 1 skipped\) into 2 containers/m);
      const orders = client.database("shop").container("orders");
      assert.equal(await count(orders), ORDERS + 1);
      assert.equal((await orders.item("late", "c1").read()).statusCode, 200);
    } finally {
      client.dispose();
      await env.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("COSMOS_EMULATOR_SEED names the seed too", async () => {
    const dir = seedDir();
    const env = await startEmulator(["--protocol", "http"], { env: { COSMOS_EMULATOR_SEED: dir } });
    const client = newClient(env);
    try {
      assert.equal(await count(client.database("shop").container("orders")), ORDERS);
    } finally {
      client.dispose();
      await env.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("seeded items are kept in the data directory: a restart without --seed (even after kill -9) has them", async () => {
    const dir = seedDir();
    const data = mkdtempSync(join(tmpdir(), "cosmos-seed-data-"));
    try {
      const first = await startEmulator(["--seed", dir, "--data-dir", data, "--protocol", "http"]);
      process.kill(first.pid, "SIGKILL"); // no checkpoint: the log alone
      await first.stop();
      const second = await startEmulator(["--data-dir", data, "--protocol", "http"]);
      const client = newClient(second);
      try {
        assert.match(second.log(), /recovered 1 databases, 2 containers, 503 items from 0 snapshot and \d+ log records/);
        const orders = client.database("shop").container("orders");
        assert.equal(await count(orders), ORDERS);
        assert.equal((await orders.item("o499", "c18").read()).resource.total, 499);
        assert.equal((await orders.readOffer()).resource.content.offerThroughput, 12000);
        assert.equal((await client.database("shop").container("events").item("e2", ["t1", "u2"]).read()).statusCode, 200);
      } finally {
        client.dispose();
        await second.stop();
      }
      // Seeding the same directory again replaces every item: nothing doubles.
      const third = await startEmulator(["--seed", dir, "--data-dir", data, "--protocol", "http"]);
      const client3 = newClient(third);
      try {
        assert.match(third.log(), /seeded 503 items \(0 created, 503 replaced\) into 2 containers/);
        assert.equal(await count(client3.database("shop").container("orders")), ORDERS);
      } finally {
        client3.dispose();
        await third.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(data, { recursive: true, force: true });
    }
  });
});

describe("POST /_emulator/import", { skip: !LOCAL && "starts the emulator binary" }, () => {
  const readonlyKey = randomBytes(64).toString("base64");
  let env;
  let client;
  let orders;
  before(async () => {
    env = await startEmulator(["--readonly-key", readonlyKey, "--max-body-bytes", "100000", "--protocol", "http"]);
    client = newClient(env);
    const { database } = await client.databases.create({ id: "shop" });
    ({ container: orders } = await database.containers.create({ id: "orders", partitionKey: { paths: ["/customerId"] } }));
  });
  after(async () => {
    client?.dispose();
    await env?.stop();
  });

  const path = "/_emulator/import?database=shop&container=orders";
  const lines = (from, to) =>
    Array.from({ length: to - from }, (_, k) => JSON.stringify(order(from + k))).join("\n") + "\n";

  it("needs the master key: 401 without one or with a read-only key, 403 with a resource token", async () => {
    const none = await rawRequest(env, { method: "POST", path, body: lines(0, 2), auth: false });
    assert.equal(none.status, 401);
    assert.equal(none.json.code, "Unauthorized");
    assert.deepEqual(Object.keys(none.json), ["code", "message"]);
    const readonly = await rawRequest({ ...env, key: readonlyKey }, { method: "POST", path, body: lines(0, 2) });
    assert.equal(readonly.status, 401);
    assert.ok(readonly.json.message.includes("'post\\n_emulator\\n_emulator/import\\n"), readonly.json.message);
    const user = (await client.database("shop").users.create({ id: "importer" })).user;
    const { resource: permission } = await user.permissions.create({
      id: "all",
      permissionMode: "All",
      resource: orders.url,
    });
    const token = await rawRequest(env, {
      method: "POST",
      path,
      body: lines(0, 2),
      auth: false,
      headers: { authorization: encodeURIComponent(permission._token) },
    });
    assert.equal(token.status, 403);
    assert.equal(token.json.code, "Forbidden");
    assert.equal(await count(orders), 0);
  });

  it("loads JSON lines and answers the counts; upserts what exists", async () => {
    await orders.items.create({ ...order(1), total: -1 });
    const r = await rawRequest(env, { method: "POST", path, body: lines(0, 100) });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers["x-ms-request-charge"], "0");
    assert.deepEqual(r.json, {
      database: "shop",
      container: "orders",
      items: 100,
      loaded: 100,
      created: 99,
      replaced: 1,
      skipped: 0,
      errors: [],
    });
    assert.equal(await count(orders), 100);
    assert.equal((await orders.item("o1", "c1").read()).resource.total, 1);
  });

  it("errors=fail (the default) answers 400 and loads nothing; errors=skip loads the rest", async () => {
    const body = JSON.stringify([order(200), { id: "no-key" }, order(201)], null, 1);
    const fail = await rawRequest(env, { method: "POST", path, body });
    assert.equal(fail.status, 400);
    assert.deepEqual(fail.json, {
      code: "BadRequest",
      message:
        "1 item of the body cannot be loaded, so nothing was loaded (errors=skip loads the others). " +
        "line 8 (item 2): the item has no value at the partition key path /customerId",
      database: "shop",
      container: "orders",
      items: 3,
      loaded: 0,
      errorCount: 1,
      errors: [{ line: 8, item: 2, message: "the item has no value at the partition key path /customerId" }],
    });
    assert.equal((await orders.item("o200", "c15").read()).statusCode, 404);
    const skip = await rawRequest(env, { method: "POST", path: path + "&errors=skip", body });
    assert.equal(skip.status, 200);
    assert.deepEqual(skip.json, {
      database: "shop",
      container: "orders",
      items: 3,
      loaded: 2,
      created: 2,
      replaced: 0,
      skipped: 1,
      errors: [{ line: 8, item: 2, message: "the item has no value at the partition key path /customerId" }],
    });
    assert.equal((await orders.item("o201", "c16").read()).resource.total, 201);
  });

  it("answers 404 for a container that does not exist and 413 above --max-body-bytes", async () => {
    const missing = await rawRequest(env, {
      method: "POST",
      path: "/_emulator/import?database=shop&container=nope",
      body: lines(0, 1),
    });
    assert.equal(missing.status, 404);
    assert.equal(missing.json.message.split("\r\n")[0], "The container 'shop/nope' does not exist.");
    const body = Array.from({ length: 1000 }, (_, k) => JSON.stringify({ id: `big${k}`, customerId: "c", pad: "y".repeat(120) }));
    const big = await rawRequest(env, { method: "POST", path, body: body.join("\n") }); // about 150 KB
    assert.equal(big.status, 413);
    assert.equal(big.json.code, "RequestEntityTooLarge");
    assert.equal((await orders.item("big0", "c").read()).statusCode, 404);
  });
});
