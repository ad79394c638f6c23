// Fault injection (/_emulator/faults, docs/faults.md) against the official SDK: each fault the
// emulator injects, and what @azure/cosmos does with it (retries it, refreshes its routing map, or
// gives the error to the application). Emulator-only: the real service has no such endpoint.
import { describe, test, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { useEmulator, newClient, rawRequest, uid, LOCAL, startEmulator } from "./harness.mjs";
import { writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const skip = !LOCAL && "the emulator's own endpoint";
const ctx = useEmulator();
let container;
let dbId;
let collId;

async function addRule(rule) {
  const res = await rawRequest(ctx.env, { method: "POST", path: "/_emulator/faults", body: rule });
  assert.equal(res.status, 201, res.text);
}
async function hits(id) {
  const res = await rawRequest(ctx.env, { path: "/_emulator/faults" });
  assert.equal(res.status, 200, res.text);
  return res.json.rules.find((r) => r.id === id).hits;
}
const path = () => `/dbs/${dbId}/colls/${collId}/**`;

describe("fault injection with the JavaScript SDK", { skip }, () => {
  beforeEach(async () => {
    await rawRequest(ctx.env, { method: "DELETE", path: "/_emulator/faults" });
    if (!container) {
      dbId = uid("db");
      collId = uid("c");
      const { database } = await ctx.client.databases.create({ id: dbId });
      const made = await rawRequest(ctx.env, {
        method: "POST",
        path: `/dbs/${dbId}/colls`,
        body: { id: collId, partitionKey: { paths: ["/pk"], kind: "Hash", version: 2 } },
        headers: { "x-cosmos-emulator-partition-count": "3" },
      });
      assert.equal(made.status, 201, made.text);
      container = database.container(collId);
      for (let i = 0; i < 12; i++) await container.items.create({ id: `i${i}`, pk: `k${i}`, n: i });
    }
  });

  test("429: the SDK waits the retry-after and retries; the application sees the read succeed", async () => {
    await addRule({ id: "busy", condition: { operationType: "ReadItem", path: path() }, result: { serverErrorType: "TooManyRequests", retryAfterMs: 150 }, hitLimit: 2 });
    const started = Date.now();
    const { resource, statusCode } = await container.item("i1", "k1").read();
    assert.equal(statusCode, 200);
    assert.equal(resource.n, 1);
    assert.ok(Date.now() - started >= 300, "waited twice the retry-after");
    assert.equal(await hits("busy"), 2);
  });

  test("429 beyond the SDK's nine retries reaches the application, with the service's body", async () => {
    await addRule({ id: "always", condition: { operationType: "ReadItem", path: path() }, result: { serverErrorType: "TooManyRequests", retryAfterMs: 1 } });
    await assert.rejects(container.item("i1", "k1").read(), (e) => {
      assert.equal(e.code, 429);
      assert.equal(e.substatus, 3200);
      assert.equal(e.headers["x-ms-retry-after-ms"], "1");
      assert.match(e.message, /Request rate is large/);
      return true;
    });
    assert.equal(await hits("always"), 10, "the first attempt and nine retries");
  });

  test("503 on a read: retried once; on a write: the application gets it and nothing is written", async () => {
    await addRule({ id: "read", condition: { operationType: "ReadItem", path: path() }, result: { serverErrorType: "ServiceUnavailable" }, hitLimit: 1 });
    assert.equal((await container.item("i2", "k2").read()).statusCode, 200);
    assert.equal(await hits("read"), 1);
    await addRule({ id: "write", condition: { operationType: "CreateItem", path: path() }, result: { serverErrorType: "ServiceUnavailable" }, hitLimit: 1 });
    await assert.rejects(container.items.create({ id: "w1", pk: "w" }), (e) => e.code === 503);
    assert.equal((await container.item("w1", "w").read()).statusCode, 404);
    assert.equal(await hits("write"), 1);
  });

  test("410/1002 on one range during bulk: the SDK reads the partition key ranges again and retries", async () => {
    // A zero delay on partition key range reads counts them.
    await addRule({ id: "ranges", condition: { operationType: "MetadataPartitionKeyRange", path: path() }, result: { serverErrorType: "ResponseDelay", delayMs: 0 } });
    await addRule({ id: "gone", condition: { operationType: "Batch", path: path(), partitionKeyRangeId: "1" }, result: { serverErrorType: "PartitionIsGone" }, hitLimit: 1 });
    const operations = Array.from({ length: 9 }, (_, i) => ({ operationType: "Create", resourceBody: { id: `b${i}`, pk: `b${i}` } }));
    const results = await container.items.bulk(operations);
    assert.deepEqual(results.map((r) => r.statusCode), Array(9).fill(201));
    assert.equal(await hits("gone"), 1);
    assert.ok(await hits("ranges") >= 1, "the ranges were read again");
    for (let i = 0; i < 9; i++) assert.equal((await container.item(`b${i}`, `b${i}`).read()).statusCode, 200);
  });

  test("408, 449 and 500: not retried by the SDK; each reaches the application with its status", async () => {
    for (const [type, status, substatus] of [["Timeout", 408, undefined], ["RetryWith", 449, undefined], ["InternalServerError", 500, undefined]]) {
      await addRule({ id: type, condition: { operationType: "ReplaceItem", path: path() }, result: { serverErrorType: type }, hitLimit: 1 });
      await assert.rejects(container.item("i3", "k3").replace({ id: "i3", pk: "k3", n: 3 }), (e) => {
        assert.equal(e.code, status, type);
        assert.equal(e.substatus, substatus);
        assert.match(e.message, new RegExp(`Fault injected by the emulator: rule '${type}', ${type}`));
        return true;
      });
      assert.equal(await hits(type), 1, type);
    }
    assert.equal((await container.item("i3", "k3").replace({ id: "i3", pk: "k3", n: 3 })).statusCode, 200);
  });

  test("a delayed answer: within the SDK's timeout it arrives late; beyond it the SDK times out", async () => {
    await addRule({ id: "slow", condition: { operationType: "ReadItem", path: path() }, result: { serverErrorType: "ResponseDelay", delayMs: 400 }, hitLimit: 1 });
    let started = Date.now();
    assert.equal((await container.item("i4", "k4").read()).statusCode, 200);
    assert.ok(Date.now() - started >= 400);
    const impatient = ctx.track(newClient(ctx.env, { connectionPolicy: { requestTimeout: 200 } }));
    await addRule({ id: "slower", condition: { operationType: "ReplaceItem", path: path() }, result: { serverErrorType: "ResponseDelay", delayMs: 1500 }, hitLimit: 1 });
    started = Date.now();
    await assert.rejects(impatient.database(dbId).container(collId).item("i4", "k4").replace({ id: "i4", pk: "k4", n: 40 }), (e) => {
      assert.equal(e.code, "TimeoutError", String(e));
      assert.equal(e.message, "Timeout Error! Request took more than 200 ms");
      return true;
    });
    assert.ok(Date.now() - started < 1500, "the SDK gave up before the answer");
    // The delayed replace still ran: the answer was late, not lost.
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal((await container.item("i4", "k4").read()).resource.n, 40);
  });

  test("a dropped connection on a read: the SDK retries it on a new connection", async () => {
    await addRule({ id: "drop", condition: { operationType: "ReadItem", path: path() }, result: { serverErrorType: "ConnectionClose" }, hitLimit: 1 });
    const res = await container.item("i5", "k5").read();
    assert.equal(res.statusCode, 200);
    assert.equal(await hits("drop"), 1);
  });

  test("injected faults are counted in the RU report", async () => {
    const before = (await rawRequest(ctx.env, { path: "/_emulator/stats" })).json.containers.find((c) => c.container === collId);
    await addRule({ id: "count", condition: { operationType: "DeleteItem", path: path() }, result: { status: 503, substatus: 21008 }, hitLimit: 2 });
    for (let i = 0; i < 2; i++) await assert.rejects(container.item("i6", "k6").delete(), (e) => e.code === 503 && e.substatus === 21008);
    const after = (await rawRequest(ctx.env, { path: "/_emulator/stats" })).json.containers.find((c) => c.container === collId);
    assert.equal(after.total.injectedFaults - (before.total.injectedFaults ?? 0), 2);
    assert.equal(after.operations.find((o) => o.operation === "delete").injectedFaults, 2);
  });
});

describe("fault rules from a file at start-up", { skip }, () => {
  test("--faults FILE: the rules apply from the first request; a bad file stops the start", async (t) => {
    const dir = mkdtempSync(join(tmpdir(), "faults-"));
    const file = join(dir, "faults.json");
    writeFileSync(file, JSON.stringify([{ id: "boot", condition: { operationType: "MetadataDatabaseAccount" }, result: { serverErrorType: "ServiceUnavailable" }, hitLimit: 1 }]));
    const env = await startEmulator(["--faults", file]);
    t.after(() => env.stop());
    const first = await rawRequest(env, { path: "/" });
    assert.equal(first.status, 503);
    assert.equal((await rawRequest(env, { path: "/" })).status, 200);
    writeFileSync(file, JSON.stringify([{ id: "bad", result: { serverErrorType: "Sometimes" } }]));
    await assert.rejects(startEmulator(["--faults", file]), /--faults: .*Fault rule 'bad': unknown serverErrorType 'Sometimes'/);
  });
});
