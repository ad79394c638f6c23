// Bulk through @azure/cosmos: items.executeBulkOperations and the older items.bulk, 10,000 mixed
// operations over many partition keys on a container with 4 physical partitions (one result per
// operation, in order, with the right status and charge, and the final state), the wire format
// (one POST per partition key range, not atomic, continue on error), and per-operation 429s under
// --rate-limit on that the SDK retries.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  REJECTED_WRITE,
  assertCharge,
  createCharge,
  deleteCharge,
  docPath,
  newClient,
  pkHeader,
  rawRequest,
  readCharge,
  replaceCharge,
  round2,
  startEmulator,
  uid,
  useEmulatorWithDatabase,
} from "./harness.mjs";

let db;
let dbId;
const ctx = useEmulatorWithDatabase((f) => ({ db, dbId } = f));

const PK = { paths: ["/pk"], version: 2 };
const sum = (xs) => xs.reduce((s, x) => s + x, 0);

async function createContainer(database, { partitions, throughput } = {}) {
  const id = uid("c");
  const body = { id, partitionKey: PK };
  if (throughput !== undefined) body.throughput = throughput;
  const options =
    partitions === undefined ? {} : { initialHeaders: { "x-cosmos-emulator-partition-count": String(partitions) } };
  const res = await database.containers.create(body, options);
  return { id, container: res.container };
}

// ---------------------------------------------------------------------------------------------
// A deterministic plan of mixed operations: every seeded item is touched by at most one
// operation, so the outcome does not depend on the order in which ranges run.

const KEYS = 97;
const pkOf = (i) => `k${i % KEYS}`;

function makePlan(total) {
  const seedCount = Math.ceil((total * 6) / 10);
  const seeds = [];
  for (let j = 0; j < seedCount; j++) seeds.push({ id: `s${j}`, pk: pkOf(j), v: 0, n: 0 });
  const ops = [];
  const expected = []; // {status, kind, seed?}
  const state = new Map(seeds.map((s) => [s.id, { ...s }]));
  let next = 0;
  const take = () => seeds[next++];
  for (let i = 0; i < total; i++) {
    const t = i % 10;
    if (t === 0) {
      const doc = { id: `n${i}`, pk: pkOf(i), v: 1, n: 0 };
      ops.push({ operationType: "Create", partitionKey: doc.pk, resourceBody: doc });
      expected.push({ status: 201, kind: "create" });
      state.set(doc.id, { ...doc });
    } else if (t === 1) {
      const doc = { id: `u${i}`, pk: pkOf(i + 1), v: 1, n: 0 };
      ops.push({ operationType: "Upsert", partitionKey: doc.pk, resourceBody: doc });
      expected.push({ status: 201, kind: "create" });
      state.set(doc.id, { ...doc });
    } else if (t === 2) {
      const s = take();
      const doc = { id: s.id, pk: s.pk, v: 2, n: 0 };
      ops.push({ operationType: "Upsert", partitionKey: s.pk, resourceBody: doc });
      expected.push({ status: 200, kind: "replace" });
      state.set(s.id, { ...doc });
    } else if (t === 3) {
      const s = take();
      ops.push({ operationType: "Read", id: s.id, partitionKey: s.pk });
      expected.push({ status: 200, kind: "read", seed: s.id });
    } else if (t === 4) {
      const s = take();
      const doc = { id: s.id, pk: s.pk, v: 3, n: 0 };
      ops.push({ operationType: "Replace", id: s.id, partitionKey: s.pk, resourceBody: doc });
      expected.push({ status: 200, kind: "replace" });
      state.set(s.id, { ...doc });
    } else if (t === 5) {
      const s = take();
      ops.push({ operationType: "Delete", id: s.id, partitionKey: s.pk });
      expected.push({ status: 204, kind: "delete", seed: s.id });
      state.delete(s.id);
    } else if (t === 6) {
      const s = take();
      ops.push({
        operationType: "Patch",
        id: s.id,
        partitionKey: s.pk,
        resourceBody: { operations: [{ op: "incr", path: "/n", value: 5 }, { op: "set", path: "/p", value: true }] },
      });
      expected.push({ status: 200, kind: "replace" });
      state.set(s.id, { ...state.get(s.id), n: 5, p: true });
    } else if (t === 7) {
      const s = take();
      ops.push({ operationType: "Create", partitionKey: s.pk, resourceBody: { id: s.id, pk: s.pk, v: 9 } });
      expected.push({ status: 409, kind: "rejected" });
    } else if (t === 8) {
      ops.push({ operationType: "Read", id: `missing${i}`, partitionKey: pkOf(i) });
      expected.push({ status: 404, kind: "read404" });
    } else {
      const sub = Math.floor(i / 10) % 3;
      const pk = pkOf(i);
      const id = `missing${i}`;
      if (sub === 0) ops.push({ operationType: "Replace", id, partitionKey: pk, resourceBody: { id, pk } });
      else if (sub === 1) ops.push({ operationType: "Delete", id, partitionKey: pk });
      else ops.push({ operationType: "Patch", id, partitionKey: pk, resourceBody: { operations: [{ op: "set", path: "/a", value: 1 }] } });
      expected.push({ status: 404, kind: "missing" });
    }
  }
  assert.equal(next, seedCount);
  return { seeds, ops, expected, state };
}

/** Reads every item of the container and compares it with the plan's final state. */
async function assertFinalState(container, state) {
  const { resources } = await container.items
    .query("SELECT c.id, c.pk, c.v, c.n, c.p FROM c", { maxItemCount: 5000 })
    .fetchAll();
  assert.equal(resources.length, state.size, "number of items after the bulk");
  for (const got of resources) {
    const want = state.get(got.id);
    assert.ok(want, `unexpected item ${got.id}`);
    assert.deepEqual(
      { pk: got.pk, v: got.v, n: got.n, p: got.p },
      { pk: want.pk, v: want.v, n: want.n, p: want.p },
      got.id,
    );
  }
}

/** Checks one success result's charge against the model (seedBodies: stored images of seeds). */
function checkCharge(exp, statusCode, requestCharge, resourceBody, seedBodies, where) {
  if (exp.kind === "create") assertCharge(requestCharge, createCharge(resourceBody), where);
  else if (exp.kind === "replace") assertCharge(requestCharge, replaceCharge(resourceBody), where);
  else if (exp.kind === "read") assertCharge(requestCharge, readCharge(resourceBody), where);
  else if (exp.kind === "delete") assertCharge(requestCharge, deleteCharge(seedBodies.get(exp.seed)), where);
  else if (exp.kind === "rejected") assertCharge(requestCharge, REJECTED_WRITE, where);
  else if (exp.kind === "read404") assertCharge(requestCharge, 1, where);
}

// ---------------------------------------------------------------------------------------------

describe("items.executeBulkOperations", () => {
  it("10,000 mixed operations over 97 keys and 4 physical partitions: one result per operation, in order", async () => {
    const { container } = await createContainer(db, { partitions: 4 });
    const ranges = (await container.readPartitionKeyRanges().fetchAll()).resources;
    assert.equal(ranges.length, 4);
    const plan = makePlan(10000);

    const seeded = await container.items.executeBulkOperations(
      plan.seeds.map((s) => ({ operationType: "Create", partitionKey: s.pk, resourceBody: s })),
    );
    assert.equal(seeded.length, plan.seeds.length);
    const seedBodies = new Map();
    seeded.forEach((r, i) => {
      assert.equal(r.error, undefined, `seed ${i}: ${r.error?.code} ${r.error?.message}`);
      assert.equal(r.response.statusCode, 201);
      assert.equal(r.response.resourceBody.id, plan.seeds[i].id, "results are in input order");
      assertCharge(r.response.requestCharge, createCharge(r.response.resourceBody), `seed ${i}`);
      seedBodies.set(r.response.resourceBody.id, r.response.resourceBody);
    });

    const results = await container.items.executeBulkOperations(plan.ops);
    assert.equal(results.length, plan.ops.length);
    results.forEach((r, i) => {
      const exp = plan.expected[i];
      const op = plan.ops[i];
      assert.equal(r.operationInput.operationType, op.operationType, `op ${i}`);
      assert.equal(r.operationInput.id ?? r.operationInput.resourceBody?.id, op.id ?? op.resourceBody.id, `op ${i}`);
      if (exp.status < 300) {
        assert.equal(r.error, undefined, `op ${i} ${op.operationType}: ${r.error?.code} ${r.error?.message}`);
        assert.equal(r.response.statusCode, exp.status, `op ${i} ${op.operationType}`);
        if (exp.kind === "read") assert.deepEqual(r.response.resourceBody, seedBodies.get(exp.seed));
        if (exp.kind !== "delete") assert.equal(r.response.eTag, r.response.resourceBody._etag, `op ${i}`);
        checkCharge(exp, r.response.statusCode, r.response.requestCharge, r.response.resourceBody, seedBodies, `op ${i}`);
      } else {
        assert.ok(r.error, `op ${i} ${op.operationType} should fail with ${exp.status}`);
        assert.equal(r.error.code, exp.status, `op ${i} ${op.operationType}`);
        checkCharge(exp, r.error.code, r.error.requestCharge, undefined, seedBodies, `op ${i}`);
      }
    });
    await assertFinalState(container, plan.state);
  });

  it("an operation without a partition key fails in the SDK; the others run", async () => {
    const { container } = await createContainer(db, { partitions: 2 });
    const results = await container.items.executeBulkOperations([
      { operationType: "Create", partitionKey: "a", resourceBody: { id: "x", pk: "a" } },
      { operationType: "Create", resourceBody: { id: "y", pk: "a" } },
    ]);
    assert.equal(results[0].response.statusCode, 201);
    assert.equal(results[1].error.code, 500);
    assert.equal((await container.item("x", "a").read()).statusCode, 200);
  });
});

describe("items.bulk (continue on error)", () => {
  it("10,000 mixed operations in calls of 100: one result per operation, in order, and the final state", async () => {
    const { container } = await createContainer(db, { partitions: 4 });
    const plan = makePlan(10000);
    const seedBodies = new Map();
    const chunks = (xs, n) => Array.from({ length: Math.ceil(xs.length / n) }, (_, k) => xs.slice(k * n, k * n + n));

    for (const chunk of chunks(plan.seeds, 100)) {
      const res = await container.items.bulk(
        chunk.map((s) => ({ operationType: "Create", partitionKey: s.pk, resourceBody: s })),
      );
      assert.equal(res.length, chunk.length);
      res.forEach((r, i) => {
        assert.equal(r.statusCode, 201);
        assert.equal(r.resourceBody.id, chunk[i].id);
        seedBodies.set(r.resourceBody.id, r.resourceBody);
      });
    }

    const opChunks = chunks(plan.ops, 100);
    const expChunks = chunks(plan.expected, 100);
    for (let c = 0; c < opChunks.length; c++) {
      const res = await container.items.bulk(opChunks[c]);
      assert.equal(res.length, opChunks[c].length);
      res.forEach((r, i) => {
        const exp = expChunks[c][i];
        const where = `chunk ${c} op ${i} ${opChunks[c][i].operationType}`;
        assert.equal(r.statusCode, exp.status, where);
        if (exp.status < 300 && exp.kind !== "delete") {
          assert.equal(r.eTag, r.resourceBody._etag, where);
          assert.equal(r.resourceBody.id, opChunks[c][i].id ?? opChunks[c][i].resourceBody.id, where);
        }
        if (exp.status >= 300) assert.equal(r.resourceBody, undefined, where);
        checkCharge(exp, r.statusCode, r.requestCharge, r.resourceBody, seedBodies, where);
      });
    }
    await assertFinalState(container, plan.state);
  });

  it("continueOnError: false stops at the first failure; the later operations answer 424 and do not run", async () => {
    const { container } = await createContainer(db, { partitions: 1 });
    await container.items.create({ id: "dup", pk: "a" });
    const res = await container.items.bulk(
      [
        { operationType: "Create", resourceBody: { id: "one", pk: "a" } },
        { operationType: "Create", resourceBody: { id: "dup", pk: "a" } },
        { operationType: "Create", resourceBody: { id: "three", pk: "b" } },
      ],
      { continueOnError: false },
    );
    assert.deepEqual(
      res.map((r) => r.statusCode),
      [201, 409, 424],
    );
    assert.equal((await container.item("one", "a").read()).statusCode, 200, "not atomic: the first create stays");
    assert.equal((await container.item("three", "b").read()).statusCode, 404);
  });
});

describe("the bulk wire format", () => {
  function rawBulk(coll, rangeId, ops, extra = {}) {
    return rawRequest(ctx.env, {
      method: "POST",
      path: docPath(dbId, coll),
      headers: {
        "x-ms-cosmos-is-batch-request": "True",
        "x-ms-cosmos-batch-atomic": "False",
        "x-ms-cosmos-batch-continue-on-error": "True",
        "x-ms-documentdb-partitionkeyrangeid": rangeId,
        ...extra,
      },
      body: ops,
    });
  }

  it("one POST per range, each operation with its own partition key: 200 when all succeed, else 207", async () => {
    const { id, container } = await createContainer(db, { partitions: 1 });
    await container.items.create({ id: "exists", pk: "b" });
    const ok = await rawBulk(id, "0", [
      { operationType: "Create", partitionKey: pkHeader("a"), resourceBody: { id: "1", pk: "a" } },
      { operationType: "Create", partitionKey: pkHeader("b"), resourceBody: { id: "1", pk: "b" } },
      { operationType: "Read", partitionKey: pkHeader("b"), id: "exists" },
    ]);
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(
      ok.json.map((r) => r.statusCode),
      [201, 201, 200],
    );
    assertCharge(ok.headers["x-ms-request-charge"], round2(sum(ok.json.map((r) => r.requestCharge))));

    const mixed = await rawBulk(id, "0", [
      { operationType: "Create", partitionKey: pkHeader("c"), resourceBody: { id: "1", pk: "c" } },
      { operationType: "Create", partitionKey: pkHeader("a"), resourceBody: { id: "1", pk: "a" } },
      { operationType: "Upsert", partitionKey: pkHeader("d"), resourceBody: { id: "1", pk: "d" } },
    ]);
    assert.equal(mixed.status, 207, mixed.text);
    assert.deepEqual(
      mixed.json.map((r) => r.statusCode),
      [201, 409, 201],
    );
    assert.equal((await container.item("1", "c").read()).statusCode, 200);
    assert.equal((await container.item("1", "d").read()).statusCode, 200);
  });

  it("more than 100 operations in one request: 400", async () => {
    const { id, container } = await createContainer(db, { partitions: 1 });
    const ops = [];
    for (let i = 0; i < 101; i++)
      ops.push({ operationType: "Create", partitionKey: pkHeader("a"), resourceBody: { id: `o${i}`, pk: "a" } });
    const res = await rawBulk(id, "0", ops);
    assert.equal(res.status, 400, res.text);
    assert.match(res.json.message, /Batch request has more operations than what is supported\./);
    assert.equal((await container.item("o0", "a").read()).statusCode, 404);
  });
});

// ---------------------------------------------------------------------------------------------

describe("bulk under --rate-limit on", () => {
  let env;
  let client;
  let noRetry;
  let limitedDb;
  before(async () => {
    env = await startEmulator(["--rate-limit", "on"]);
    client = newClient(env);
    noRetry = newClient(env, { connectionPolicy: { retryOptions: { maxRetryAttemptCount: 0 } } });
    limitedDb = (await client.databases.create({ id: uid("db") })).database;
  });
  after(async () => {
    client?.dispose();
    noRetry?.dispose();
    await env?.stop();
  });

  /** A ~1 KB item with 100 indexed number properties: 44.39 RU to create. */
  function bigItem(id, pk) {
    const doc = { id, pk };
    for (let k = 0; k < 100; k++) doc[`f${k}`] = k;
    return doc;
  }

  it("operations past the partition's budget answer 429 with retryAfterMilliseconds, charge 0, not applied", async () => {
    const { id, container } = await createContainer(limitedDb, { partitions: 1, throughput: 400 });
    const ops = [];
    for (let i = 0; i < 30; i++)
      ops.push({ operationType: "Create", partitionKey: pkHeader("p"), resourceBody: bigItem(`b${i}`, "p") });
    const res = await rawRequest(env, {
      method: "POST",
      path: docPath(limitedDb.id, id),
      headers: {
        "x-ms-cosmos-is-batch-request": "True",
        "x-ms-cosmos-batch-atomic": "False",
        "x-ms-cosmos-batch-continue-on-error": "True",
        "x-ms-documentdb-partitionkeyrangeid": "0",
      },
      body: ops,
    });
    assert.equal(res.status, 207, res.text.slice(0, 300));
    assert.equal(res.json.length, ops.length);
    const admitted = res.json.filter((r) => r.statusCode === 201).length;
    // a full bucket holds 400 RU: at least 9 creates of 44.39 RU fit
    assert.ok(admitted >= 9 && admitted < ops.length, `${admitted} admitted`);
    res.json.forEach((r, i) => {
      if (i < admitted) {
        assert.equal(r.statusCode, 201, `op ${i}`);
        assertCharge(r.requestCharge, createCharge(r.resourceBody), `op ${i}`);
      } else {
        assert.equal(r.statusCode, 429, `op ${i}`);
        assert.equal(r.requestCharge, 0, `op ${i}: a throttled operation costs 0`);
        assert.ok(Number.isInteger(r.retryAfterMilliseconds) && r.retryAfterMilliseconds > 0, `op ${i} retry after`);
        assert.equal(r.resourceBody, undefined);
      }
    });
    assertCharge(res.headers["x-ms-request-charge"], round2(sum(res.json.map((r) => r.requestCharge))));
    const count = await container.items.query("SELECT VALUE COUNT(1) FROM c").fetchAll();
    assert.deepEqual(count.resources, [admitted], "throttled operations were not applied");
  });

  it("executeBulkOperations retries the throttled operations until every one succeeds", async () => {
    const { container } = await createContainer(limitedDb, { partitions: 1, throughput: 400 });
    const N = 150; // ~880 RU of small creates: more than two seconds of budget
    const ops = [];
    for (let i = 0; i < N; i++) ops.push({ operationType: "Create", partitionKey: `k${i % 7}`, resourceBody: { id: `r${i}`, pk: `k${i % 7}` } });
    const results = await container.items.executeBulkOperations(ops);
    assert.equal(results.length, N);
    results.forEach((r, i) => {
      assert.equal(r.error, undefined, `op ${i}: ${r.error?.code}`);
      assert.equal(r.response.statusCode, 201, `op ${i}`);
    });
    const count = await container.items.query("SELECT VALUE COUNT(1) FROM c").fetchAll();
    assert.deepEqual(count.resources, [N]);
  });

  it("without retries the throttled operations come back as 429 errors with a retry-after", async () => {
    const created = await createContainer(limitedDb, { partitions: 1, throughput: 400 });
    const container = noRetry.database(limitedDb.id).container(created.id);
    const ops = [];
    for (let i = 0; i < 30; i++) ops.push({ operationType: "Create", partitionKey: "p", resourceBody: bigItem(`t${i}`, "p") });
    const results = await container.items.executeBulkOperations(ops);
    assert.equal(results.length, ops.length);
    const throttled = results.filter((r) => r.error);
    assert.ok(throttled.length > 0, "some operations were throttled");
    for (const r of throttled) {
      assert.equal(r.error.code, 429);
      assert.ok(r.error.retryAfterInMs > 0);
    }
    const ok = results.filter((r) => !r.error);
    assert.ok(ok.length >= 9);
    for (const r of ok) assert.equal(r.response.statusCode, 201);
  });
});
