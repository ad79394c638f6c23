// Provisioned throughput through @azure/cosmos: rate limiting (--rate-limit on: 429 / substatus 3200 /
// x-ms-retry-after-ms, the SDK's retries, per-partition budgets, the stats report), no limiting by
// default, physical partitions derived from the provisioned RU/s, and offers (read / replace,
// shared database throughput, autoscale).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { LOCAL, createCharge, newClient, rawRequest, readCharge, round2, startEmulator, uid } from "./harness.mjs";

// Two emulators: one with rate limiting on, one as started by default.
let limited; // {env, client, noRetry, db}
let plain; // {env, client, noRetry, db}

async function start(args) {
  const env = await startEmulator(args);
  const client = newClient(env);
  // the SDK retries 429s 9 times by default; without retries the 429 reaches the caller
  const noRetry = newClient(env, { connectionPolicy: { retryOptions: { maxRetryAttemptCount: 0 } } });
  const db = (await client.databases.create({ id: uid("db") })).database;
  return { env, client, noRetry, db };
}

before(async () => {
  limited = await start(["--rate-limit", "on"]);
  plain = await start([]);
});

after(async () => {
  for (const e of [limited, plain]) {
    if (!e) continue;
    e.client.dispose();
    e.noRetry.dispose();
    await e.env.stop();
  }
});

/** A ~1 KB item with 100 indexed number properties: about 44 RU to create. */
function bigItem(id, pk) {
  const doc = { id, pk };
  for (let k = 0; k < 100; k++) doc[`f${k}`] = k;
  return doc;
}
// createCharge of the stored item (1105 bytes with its system properties, 104 index terms)
const BIG_CHARGE = 44.39;

const sum = (xs) => xs.reduce((s, x) => s + x, 0);

async function createContainer(e, { throughput, maxThroughput, partitions, id = uid("c") } = {}) {
  const body = { id, partitionKey: { paths: ["/pk"], version: 2 } };
  if (throughput !== undefined) body.throughput = throughput;
  if (maxThroughput !== undefined) body.maxThroughput = maxThroughput;
  const options = partitions === undefined ? {} : { initialHeaders: { "x-cosmos-emulator-partition-count": String(partitions) } };
  const res = await e.db.containers.create(body, options);
  return { id, container: res.container, resource: res.resource, viaNoRetry: e.noRetry.database(e.db.id).container(id) };
}

async function stats(e, collId) {
  const res = await rawRequest(e.env, { path: "/_emulator/stats", auth: false });
  assert.equal(res.status, 200);
  const hits = res.json.containers.filter((c) => c.database === e.db.id && c.container === collId);
  assert.equal(hits.length, 1);
  return hits[0];
}
const op = (entry, name) => entry.operations.find((o) => o.operation === name);

/** Creates big items without retries until one is throttled. Returns {charges, err, at}. */
async function burstUntil429(container, pk, prefix, limit = 40) {
  const charges = [];
  for (let i = 0; i < limit; i++) {
    try {
      const res = await container.items.create(bigItem(`${prefix}${i}`, pk));
      assert.equal(res.requestCharge, createCharge(res.resource));
      charges.push(res.requestCharge);
    } catch (err) {
      return { charges, err, at: Date.now(), id: `${prefix}${i}` };
    }
  }
  assert.fail(`no 429 within ${limit} creates of ${BIG_CHARGE} RU`);
}

function assertThrottled(err, maxCharge, budget) {
  assert.equal(err.code, 429, `status ${err.code} ${JSON.stringify(err.body)}`);
  assert.equal(err.substatus, 3200);
  assert.equal(err.body.code, "TooManyRequests");
  assert.match(err.body.message, /Request rate is large\. More Request Units may be needed, so no changes were made\./);
  assert.equal(Number(err.headers["x-ms-request-charge"]), 0, "a throttled request costs 0");
  const header = String(err.headers["x-ms-retry-after-ms"]);
  assert.match(header, /^\d+$/, "x-ms-retry-after-ms is an integer");
  assert.equal(err.retryAfterInMs, Number(header));
  assert.ok(err.retryAfterInMs > 0, `retry after ${err.retryAfterInMs} > 0`);
  // the bucket is at most one request's charge below zero: refilled within charge / budget seconds
  const bound = Math.ceil((maxCharge * 1000) / budget);
  assert.ok(err.retryAfterInMs <= bound, `retry after ${err.retryAfterInMs} <= ${bound} ms`);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------

describe("rate limiting (--rate-limit on)", () => {
  it("a burst of ~1 KB creates on a 400 RU/s container gets 429/3200, charge 0, when the SDK does not retry", async () => {
    const { id, viaNoRetry, container } = await createContainer(limited);
    const ranges = (await container.readPartitionKeyRanges().fetchAll()).resources;
    assert.equal(ranges.length, 1);
    const { charges, err, id: throttledId } = await burstUntil429(viaNoRetry, "p", "b");
    for (const c of charges) assert.equal(c, BIG_CHARGE);
    // a full bucket holds 400 RU: the first 9 creates (399.51 RU) are always admitted
    assert.ok(charges.length >= Math.floor(400 / BIG_CHARGE), `${charges.length} creates before the 429`);
    assertThrottled(err, BIG_CHARGE, 400);

    // once the bucket has refilled for retry-after ms, the item was not written and the create succeeds
    await sleep(err.retryAfterInMs);
    const missing = await viaNoRetry.item(throttledId, "p").read();
    assert.equal(missing.statusCode, 404, "no changes were made by the throttled create");
    await sleep(Math.ceil((1 * 1000) / 400)); // the 404 read spent 1 RU
    const retried = await viaNoRetry.items.create(bigItem(throttledId, "p"));
    assert.equal(retried.statusCode, 201);

    const entry = await stats(limited, id);
    const create = op(entry, "create");
    assert.equal(create.requests, charges.length + 2);
    assert.equal(create.throttled, 1);
    assert.equal(create.failed, 0);
    assert.equal(create.totalRU, round2(BIG_CHARGE * (charges.length + 1)));
    assert.equal(op(entry, "read").failed, 1);
  });

  it("with the SDK's default retries every write of a burst succeeds, and the stats count the 429s", async () => {
    const { id, container } = await createContainer(limited);
    const N = 20; // 888 RU: twice the budget
    let retries = 0;
    const charges = [];
    for (let i = 0; i < N; i++) {
      const res = await container.items.create(bigItem(`r${i}`, "p"));
      assert.equal(res.statusCode, 201);
      charges.push(res.requestCharge);
      retries += Number(res.headers["x-ms-throttle-retry-count"] ?? 0);
    }
    assert.ok(retries > 0, "the SDK had to retry");
    for (const c of charges) assert.equal(c, BIG_CHARGE);

    const entry = await stats(limited, id);
    const create = op(entry, "create");
    assert.equal(create.requests, N + retries);
    assert.equal(create.throttled, retries);
    assert.equal(create.failed, 0);
    assert.equal(create.totalRU, round2(sum(charges)));
    assert.equal(create.maxRU, BIG_CHARGE);

    for (let i = 0; i < N; i++) {
      const read = await container.item(`r${i}`, "p").read();
      assert.equal(read.statusCode, 200);
      assert.equal(read.resource.f99, 99);
      assert.equal(read.requestCharge, readCharge(read.resource));
    }
    const count = await container.items.query("SELECT VALUE COUNT(1) FROM c").fetchAll();
    assert.deepEqual(count.resources, [N]);
  });

  it("each physical partition spends its own share: 400 RU/s over 4 partitions is 100 RU/s each", async () => {
    // which range each key hashes to, found on the unlimited emulator (same hashing, same layout)
    const probe = await createContainer(plain, { partitions: 4 });
    const rangeOfKey = new Map();
    for (let i = 0; i < 16; i++) {
      const res = await probe.container.items.create({ id: "x", pk: `k${i}` });
      rangeOfKey.set(`k${i}`, res.headers["x-ms-documentdb-partitionkeyrangeid"]);
    }
    const keyA = "k0";
    const keyB = [...rangeOfKey.keys()].find((k) => rangeOfKey.get(k) !== rangeOfKey.get(keyA));
    assert.ok(keyB, "a key in another range");

    const { id, viaNoRetry } = await createContainer(limited, { partitions: 4 });
    const { charges, err, at } = await burstUntil429(viaNoRetry, keyA, "a", 10);
    // 100 RU: the first two creates (88.78 RU) are always admitted, the bucket empties long before 400 RU
    assert.ok(charges.length >= 2 && charges.length <= 4, `${charges.length} creates before the 429`);
    assertThrottled(err, BIG_CHARGE, 100);

    // the other partition still has its full share
    const other = await viaNoRetry.items.create(bigItem("b0", keyB));
    assert.equal(other.statusCode, 201);
    assert.equal(other.headers["x-ms-documentdb-partitionkeyrangeid"], rangeOfKey.get(keyB));
    const scoped = await viaNoRetry.items.query("SELECT * FROM c", { partitionKey: keyB }).fetchAll();
    assert.equal(scoped.resources.length, 1);
    // a query that fans out needs every partition it touches, the empty one included
    if (Date.now() - at < err.retryAfterInMs - 50) {
      let qerr;
      try {
        await viaNoRetry.items.query("SELECT * FROM c").fetchAll();
      } catch (e) {
        qerr = e;
      }
      assert.equal(qerr?.code, 429, "the fan-out query is throttled by the empty partition");
      assert.equal(qerr.substatus, 3200);
    }

    const entry = await stats(limited, id);
    const create = op(entry, "create");
    assert.equal(create.throttled, 1);
    assert.deepEqual(create.partitionsTouched, [rangeOfKey.get(keyA), rangeOfKey.get(keyB)].sort());
  });
});

describe("without --rate-limit", () => {
  it("the same burst, far over 400 RU/s, is never throttled", async () => {
    const { id, viaNoRetry } = await createContainer(plain);
    const started = Date.now();
    const charges = [];
    for (let i = 0; i < 60; i++) charges.push((await viaNoRetry.items.create(bigItem(`n${i}`, "p"))).requestCharge);
    const seconds = (Date.now() - started) / 1000;
    // more than a 400 RU/s budget (plus a full bucket) could have paid for in that time
    assert.ok(sum(charges) > 400 * (seconds + 1), `${sum(charges)} RU in ${seconds} s`);
    const create = op(await stats(plain, id), "create");
    assert.equal(create.requests, 60);
    assert.equal(create.throttled, 0);
  });
});

describe("physical partitions from the provisioned throughput", () => {
  const layout = async (opts) => {
    const { container } = await createContainer(plain, opts);
    return (await container.readPartitionKeyRanges().fetchAll()).resources.map((r) => [r.id, r.minInclusive, r.maxExclusive]);
  };
  const third = ((1n << 126n) - 1n) / 3n;
  const hex32 = (v) => v.toString(16).toUpperCase().padStart(32, "0");

  // The service starts a container with ceil(RU/s / 6,000) physical partitions (18,000 RU/s: three
  // of 6,000), manual or autoscale maximum alike.
  it("manual throughput: ceil(RU/s / 6,000) partitions", async () => {
    assert.equal((await layout({})).length, 1);
    assert.equal((await layout({ throughput: 400 })).length, 1);
    assert.equal((await layout({ throughput: 6000 })).length, 1);
    assert.equal((await layout({ throughput: 6100 })).length, 2);
    assert.deepEqual(await layout({ throughput: 18000 }), [
      ["0", "", hex32(third)],
      ["1", hex32(third), hex32(2n * third)],
      ["2", hex32(2n * third), "FF"],
    ]);
    assert.equal((await layout({ throughput: 21000 })).length, 4);
  });

  it("autoscale: from the maximum RU/s", async () => {
    assert.equal((await layout({ maxThroughput: 4000 })).length, 1);
    assert.equal((await layout({ maxThroughput: 11000 })).length, 2);
    assert.deepEqual((await layout({ maxThroughput: 24000 })).map((r) => r[0]), ["0", "1", "2", "3"]);
  });

  it("the per-container partition-count header wins over the throughput", async () => {
    assert.equal((await layout({ throughput: 18000, partitions: 1 })).length, 1);
    assert.equal((await layout({ throughput: 400, partitions: 3 })).length, 3);
  });
});

// ---------------------------------------------------------------------------------------------
// Offers: a container's or a database's throughput, read and replaced through the SDK.

describe("offers", () => {
  it("a container's offer defaults to 400 RU/s", async (t) => {
    const { container, resource } = await createContainer(plain);
    const res = await container.readOffer();
    assert.ok(res.resource, "the container has an offer");
    assert.equal(res.resource.content.offerThroughput, 400);
    assert.equal(res.resource.offerResourceId, resource._rid);
    assert.equal(res.resource.resource, resource._self);
    assert.equal(res.resource.offerVersion, "V2");
    assert.equal(res.resource.content.offerAutopilotSettings, undefined);
  });

  it("replacing the offer to 1000 RU/s reads back 1000", async (t) => {
    const { container } = await createContainer(plain);
    const { resource, offer } = await container.readOffer();
    const replaced = await offer.replace({ ...resource, content: { ...resource.content, offerThroughput: 1000 } });
    assert.equal(replaced.resource.content.offerThroughput, 1000);
    assert.equal(replaced.resource.id, resource.id);
    const again = await container.readOffer();
    assert.equal(again.resource.content.offerThroughput, 1000);
    assert.equal((await offer.read()).resource.content.offerThroughput, 1000);
  });

  it("a container with its own throughput of 1000 RU/s", async (t) => {
    const { container } = await createContainer(plain, { throughput: 1000 });
    assert.equal((await container.readOffer()).resource.content.offerThroughput, 1000);
  });

  it("shared database throughput: the database has the offer, its container none", async (t) => {
    const db = (await plain.client.databases.create({ id: uid("db"), throughput: 1000 })).database;
    try {
      const container = (await db.containers.create({ id: "shared", partitionKey: { paths: ["/pk"] } })).container;
      const own = await container.readOffer();
      assert.equal(own.resource, undefined);
      assert.equal(own.offer, undefined);
      const dbOffer = await db.readOffer();
      assert.equal(dbOffer.resource.content.offerThroughput, 1000);
      assert.equal(dbOffer.resource.offerResourceId, (await db.read()).resource._rid);
    } finally {
      await db.delete();
    }
  });

  it("autoscale: content.offerAutopilotSettings.maxThroughput", async (t) => {
    const { container } = await createContainer(plain, { maxThroughput: 4000 });
    const { resource } = await container.readOffer();
    assert.equal(resource.content.offerAutopilotSettings.maxThroughput, 4000);
    assert.equal(resource.content.offerThroughput, 400); // scaled to a tenth at idle
  });

  it("raising a rate-limited container's offer raises its budget", async (t) => {
    if (!LOCAL) return t.skip("needs --rate-limit on");
    const { container, viaNoRetry } = await createContainer(limited);
    const { resource, offer } = await container.readOffer();
    await offer.replace({ ...resource, content: { ...resource.content, offerThroughput: 10000 } });
    // 30 creates (1332 RU) fit in the 10,000 RU bucket
    for (let i = 0; i < 30; i++) assert.equal((await viaNoRetry.items.create(bigItem(`o${i}`, "p"))).statusCode, 201);
  });
});
