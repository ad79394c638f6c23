// Transactional batch through @azure/cosmos (items.batch) and signed raw requests: one result per
// operation, 200 when all succeed, 207 with the failing operation's status and 424 for the others
// when one fails (nothing applied), per-operation charges and their sum, the limits (100
// operations, 2,202,010 bytes, no empty batch), conditions, patch, and the partition-key rules.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ChangeFeedStartFrom } from "@azure/cosmos";
import {
  LOCAL,
  REJECTED_WRITE,
  assertCharge,
  assertSessionToken,
  createCharge,
  deleteCharge,
  docPath,
  pkHeader,
  rawRequest,
  readCharge,
  replaceCharge,
  round2,
  uid,
  useEmulatorWithDatabase,
} from "./harness.mjs";

let db;
let dbId;
let container;
const COLL = "batch";
const ctx = useEmulatorWithDatabase((f) => ({ db, dbId, container } = f), { containerId: COLL });

const SYSTEM = ["_rid", "_self", "_etag", "_attachments", "_ts"];
const sum = (xs) => xs.reduce((s, x) => s + x, 0);

/** Sends a batch as the SDKs do (atomic, partition key header). `ops` is sent as given. */
function rawBatch(pk, ops, { coll = COLL, headers = {} } = {}) {
  return rawRequest(ctx.env, {
    method: "POST",
    path: docPath(dbId, coll),
    headers: {
      "x-ms-cosmos-is-batch-request": "True",
      "x-ms-cosmos-batch-atomic": "True",
      "x-ms-documentdb-partitionkey": pk === undefined ? undefined : pkHeader(pk),
      ...headers,
    },
    body: typeof ops === "string" ? ops : JSON.stringify(ops),
  });
}

async function seed(doc) {
  const res = await container.items.create(doc);
  assert.equal(res.statusCode, 201);
  return res.resource;
}

async function assertMissing(id, pk) {
  const res = await container.item(id, pk).read();
  assert.equal(res.statusCode, 404, `${id} must not exist`);
}

/** The header charge is the sum of the operations' charges. */
function assertHeaderIsSum(headers, results) {
  assertCharge(headers["x-ms-request-charge"], round2(sum(results.map((r) => r.requestCharge))), "batch charge");
}

describe("a batch that succeeds", () => {
  it("runs every operation type in order: 200, one result per operation, each with its own charge", async () => {
    const pk = uid("p");
    const readMe = await seed({ id: "read-me", pk, n: 1 });
    await seed({ id: "replace-me", pk, v: 1 });
    await seed({ id: "upsert-me", pk, v: 1 });
    const deleteMe = await seed({ id: "delete-me", pk, big: "x".repeat(300) });
    await seed({ id: "patch-me", pk, n: 1, s: "a" });

    const ops = [
      { operationType: "Create", resourceBody: { id: "created", pk, tags: ["a", "b"] } },
      { operationType: "Read", id: "read-me" },
      { operationType: "Replace", id: "replace-me", resourceBody: { id: "replace-me", pk, v: 2 } },
      { operationType: "Upsert", resourceBody: { id: "upserted-new", pk, v: 1 } },
      { operationType: "Upsert", resourceBody: { id: "upsert-me", pk, v: 2, extra: true } },
      { operationType: "Delete", id: "delete-me" },
      {
        operationType: "Patch",
        id: "patch-me",
        resourceBody: { operations: [{ op: "incr", path: "/n", value: 2 }, { op: "set", path: "/s", value: "b" }] },
      },
    ];
    const res = await container.items.batch(ops, pk);
    assert.equal(res.code, 200);
    const results = res.result;
    assert.equal(results.length, ops.length);
    assert.deepEqual(
      results.map((r) => r.statusCode),
      [201, 200, 200, 201, 200, 204, 200],
    );
    assert.equal(res.headers["x-ms-item-count"], String(ops.length));
    assert.equal(res.headers["x-ms-substatus"], undefined);

    const [created, read, replaced, upsertedNew, upsertedOld, deleted, patched] = results;
    assert.deepEqual(Object.keys(created.resourceBody), ["id", "pk", "tags", ...SYSTEM]);
    assert.deepEqual(created.resourceBody.tags, ["a", "b"]);
    assert.deepEqual(read.resourceBody, readMe);
    assert.equal(replaced.resourceBody.v, 2);
    assert.equal(upsertedNew.resourceBody.v, 1);
    assert.equal(upsertedOld.resourceBody.extra, true);
    assert.equal(patched.resourceBody.n, 3);
    assert.equal(patched.resourceBody.s, "b");
    for (const r of [created, read, replaced, upsertedNew, upsertedOld, patched]) {
      assert.equal(r.eTag, r.resourceBody._etag);
      assert.match(r.eTag, /^"[^"]+"$/);
    }
    assert.equal(deleted.resourceBody, undefined, "a delete returns no body");
    for (const r of results) assert.equal(r.subStatusCode, undefined);

    // each operation carries what it would cost on its own
    assertCharge(created.requestCharge, createCharge(created.resourceBody), "create");
    assertCharge(read.requestCharge, readCharge(read.resourceBody), "read");
    assertCharge(replaced.requestCharge, replaceCharge(replaced.resourceBody), "replace");
    assertCharge(upsertedNew.requestCharge, createCharge(upsertedNew.resourceBody), "upsert (new)");
    assertCharge(upsertedOld.requestCharge, replaceCharge(upsertedOld.resourceBody), "upsert (existing)");
    assertCharge(deleted.requestCharge, deleteCharge(deleteMe), "delete");
    assertCharge(patched.requestCharge, replaceCharge(patched.resourceBody), "patch");
    assertHeaderIsSum(res.headers, results);

    // the writes are there, in the state the results describe
    assert.deepEqual((await container.item("created", pk).read()).resource, created.resourceBody);
    assert.deepEqual((await container.item("replace-me", pk).read()).resource, replaced.resourceBody);
    assert.deepEqual((await container.item("upsert-me", pk).read()).resource, upsertedOld.resourceBody);
    assert.deepEqual((await container.item("patch-me", pk).read()).resource, patched.resourceBody);
    await assertMissing("delete-me", pk);
  });

  it("later operations see earlier ones: create, replace, patch and delete of one item", async () => {
    const pk = uid("p");
    const res = await container.items.batch(
      [
        { operationType: "Create", resourceBody: { id: "x", pk, n: 1 } },
        { operationType: "Replace", id: "x", resourceBody: { id: "x", pk, n: 10 } },
        { operationType: "Patch", id: "x", resourceBody: { operations: [{ op: "incr", path: "/n", value: 5 }] } },
        { operationType: "Read", id: "x" },
        { operationType: "Delete", id: "x" },
        { operationType: "Create", resourceBody: { id: "x", pk, n: 100 } },
      ],
      pk,
    );
    assert.equal(res.code, 200);
    assert.deepEqual(
      res.result.map((r) => r.statusCode),
      [201, 200, 200, 200, 204, 201],
    );
    assert.equal(res.result[3].resourceBody.n, 15);
    assert.equal((await container.item("x", pk).read()).resource.n, 100);
  });

  // The service gives a whole batch one LSN (Microsoft's Python SDK's test_batch_lsn; docs/batch.md).
  it("commits its writes together with one LSN: the session token's LSN advances by one", async () => {
    const pk = uid("p");
    const before = await container.items.create({ id: "lsn0", pk });
    const lsn = assertSessionToken(before.headers["x-ms-session-token"]);
    const res = await container.items.batch(
      [
        { operationType: "Create", resourceBody: { id: "lsn1", pk } },
        { operationType: "Upsert", resourceBody: { id: "lsn2", pk } },
        { operationType: "Replace", id: "lsn0", resourceBody: { id: "lsn0", pk, v: 1 } },
        { operationType: "Read", id: "lsn0" },
      ],
      pk,
    );
    assert.equal(res.code, 200);
    assert.equal(assertSessionToken(res.headers["x-ms-session-token"]), lsn + 1);
    // the change feed shows its items together, each with that LSN, even a page of one
    const iterator = container.items.getChangeFeedIterator({
      changeFeedStartFrom: ChangeFeedStartFrom.Beginning(pk),
      maxItemCount: 1,
    });
    const page = await iterator.readNext();
    assert.deepEqual(
      page.result.map((d) => [d.id, d._lsn]),
      [
        ["lsn0", lsn + 1],
        ["lsn1", lsn + 1],
        ["lsn2", lsn + 1],
      ],
    );
  });

  it("Prefer: return=minimal (contentResponseOnWriteEnabled: false) drops the bodies of writes, not of reads", async () => {
    const pk = uid("p");
    await seed({ id: "r", pk, v: 1 });
    const res = await container.items.batch(
      [
        { operationType: "Create", resourceBody: { id: "c", pk } },
        { operationType: "Read", id: "r" },
        { operationType: "Upsert", resourceBody: { id: "r", pk, v: 2 } },
      ],
      pk,
      { contentResponseOnWriteEnabled: false },
    );
    assert.equal(res.code, 200);
    assert.deepEqual(
      res.result.map((r) => r.statusCode),
      [201, 200, 200],
    );
    assert.equal(res.result[0].resourceBody, undefined);
    assert.equal(res.result[2].resourceBody, undefined);
    assert.equal(res.result[1].resourceBody.v, 1);
    const stored = (await container.item("c", pk).read()).resource;
    assert.equal(res.result[0].eTag, stored._etag, "the eTag is still returned");
  });

  it("a batch of exactly 100 operations is accepted", async () => {
    const pk = uid("p");
    const ops = [];
    for (let i = 0; i < 100; i++) ops.push({ operationType: "Create", resourceBody: { id: `h${i}`, pk, i } });
    const res = await container.items.batch(ops, pk);
    assert.equal(res.code, 200);
    assert.equal(res.result.length, 100);
    assert.ok(res.result.every((r) => r.statusCode === 201));
    const count = await container.items.query("SELECT VALUE COUNT(1) FROM c", { partitionKey: pk }).fetchAll();
    assert.deepEqual(count.resources, [100]);
  });

  it("works on a container with a hierarchical partition key", async () => {
    const id = uid("h");
    const hier = (
      await db.containers.create({ id, partitionKey: { paths: ["/state", "/city"], kind: "MultiHash", version: 2 } })
    ).container;
    await hier.items.create({ id: "a", state: "WA", city: "Redmond" });
    const res = await hier.items.batch(
      [
        { operationType: "Create", resourceBody: { id: "b", state: "WA", city: "Redmond" } },
        { operationType: "Read", id: "a" },
        { operationType: "Delete", id: "a" },
      ],
      ["WA", "Redmond"],
    );
    assert.equal(res.code, 200);
    assert.deepEqual(
      res.result.map((r) => r.statusCode),
      [201, 200, 204],
    );
    // a key with fewer components than the definition addresses no single logical partition
    const partial = await rawRequest(ctx.env, {
      method: "POST",
      path: docPath(dbId, id),
      headers: {
        "x-ms-cosmos-is-batch-request": "True",
        "x-ms-cosmos-batch-atomic": "True",
        "x-ms-documentdb-partitionkey": pkHeader("WA"),
      },
      body: [{ operationType: "Read", id: "b" }],
    });
    assert.equal(partial.status, 400, partial.text);
    assert.equal(partial.json.code, "BadRequest");
  });
});

describe("a batch that fails", () => {
  it("answers 207: the failing operation's status, 424 for the others, and nothing is applied", async () => {
    const pk = uid("p");
    await seed({ id: "dup", pk });
    const ops = [
      { operationType: "Create", resourceBody: { id: "before", pk, v: 1 } },
      { operationType: "Create", resourceBody: { id: "dup", pk } },
      { operationType: "Create", resourceBody: { id: "after", pk, v: 1 } },
    ];
    const res = await container.items.batch(ops, pk);
    assert.equal(res.code, 207);
    assert.deepEqual(
      res.result.map((r) => r.statusCode),
      [424, 409, 424],
    );
    // the failing operation and the dependent ones carry only their status and charge
    for (const r of res.result) assert.deepEqual(Object.keys(r).sort(), ["requestCharge", "statusCode"]);
    assert.equal(res.headers["x-ms-substatus"], undefined, "a conflict has no substatus");
    assert.equal(res.headers["x-ms-item-count"], "3");

    await assertMissing("before", pk);
    await assertMissing("after", pk);

    // an operation that ran before the failure keeps its charge; the one after it never ran
    const standalone = await container.items.create({ id: "before", pk, v: 1 });
    assertCharge(res.result[0].requestCharge, standalone.requestCharge, "424 before the failure");
    assertCharge(res.result[1].requestCharge, REJECTED_WRITE, "409");
    assertCharge(res.result[2].requestCharge, 0, "424 after the failure");
    assertHeaderIsSum(res.headers, res.result);
  });

  it("a document of another partition key is a 400 for that operation with x-ms-substatus 1001", async () => {
    const pk = uid("p");
    const res = await rawBatch(pk, [
      { operationType: "Create", resourceBody: { id: "ok", pk } },
      { operationType: "Create", resourceBody: { id: "other", pk: "zzz" } },
    ]);
    assert.equal(res.status, 207, res.text);
    assert.equal(res.headers["x-ms-substatus"], "1001");
    assert.deepEqual(
      res.json.map((r) => r.statusCode),
      [424, 400],
    );
    assert.deepEqual(Object.keys(res.json[1]).sort(), ["requestCharge", "statusCode"]);
    assertCharge(res.json[1].requestCharge, REJECTED_WRITE, "pk mismatch");
    assertHeaderIsSum(res.headers, res.json);
    await assertMissing("ok", pk);
    await assertMissing("other", "zzz");

    // a document without the partition key property is not in the header's logical partition either
    const none = await rawBatch(pk, [
      { operationType: "Create", resourceBody: { id: "ok2", pk } },
      { operationType: "Create", resourceBody: { id: "nokey" } },
    ]);
    assert.equal(none.status, 207, none.text);
    assert.deepEqual(
      none.json.map((r) => r.statusCode),
      [424, 400],
    );
    await assertMissing("ok2", pk);
  });

  it("an operation whose partitionKey differs from the header's is refused and fails the batch", async () => {
    const pk = uid("p");
    await seed({ id: "elsewhere", pk: "other-key" });
    const res = await rawBatch(pk, [
      { operationType: "Create", resourceBody: { id: "ok", pk } },
      { operationType: "Read", id: "elsewhere", partitionKey: pkHeader("other-key") },
    ]);
    assert.equal(res.status, 207, res.text);
    assert.equal(res.json.length, 2);
    assert.equal(res.json[0].statusCode, 424);
    assert.equal(res.json[1].statusCode, 400);
    await assertMissing("ok", pk);
  });

  it("a read of a missing item fails the batch (404); its position decides which side is 424", async () => {
    const pk = uid("p");
    await seed({ id: "there", pk });
    const first = await container.items.batch(
      [
        { operationType: "Read", id: "missing" },
        { operationType: "Create", resourceBody: { id: "n1", pk } },
      ],
      pk,
    );
    assert.equal(first.code, 207);
    assert.deepEqual(
      first.result.map((r) => r.statusCode),
      [404, 424],
    );
    assertCharge(first.result[0].requestCharge, 1, "404 read");
    assertCharge(first.result[1].requestCharge, 0, "never ran");
    await assertMissing("n1", pk);

    const second = await container.items.batch(
      [
        { operationType: "Read", id: "there" },
        { operationType: "Create", resourceBody: { id: "n2", pk } },
        { operationType: "Read", id: "missing" },
      ],
      pk,
    );
    assert.equal(second.code, 207);
    assert.deepEqual(
      second.result.map((r) => r.statusCode),
      [424, 424, 404],
    );
    assert.equal(second.result[0].resourceBody, undefined, "a 424 carries no body");
    await assertMissing("n2", pk);
  });

  it("replace and delete of a missing item answer 404; a wrong ifMatch answers 412", async () => {
    const pk = uid("p");
    const doc = await seed({ id: "cond", pk, v: 1 });
    const missing = await container.items.batch(
      [
        { operationType: "Delete", id: "nope" },
        { operationType: "Delete", id: "nope" },
      ],
      pk,
    );
    assert.equal(missing.code, 207);
    assert.deepEqual(
      missing.result.map((r) => r.statusCode),
      [404, 424],
    );
    const replaceMissing = await container.items.batch(
      [{ operationType: "Replace", id: "nope", resourceBody: { id: "nope", pk } }],
      pk,
    );
    assert.equal(replaceMissing.code, 207);
    assert.deepEqual(
      replaceMissing.result.map((r) => r.statusCode),
      [404],
    );

    const stale = await container.items.batch(
      [
        { operationType: "Create", resourceBody: { id: "c1", pk } },
        { operationType: "Replace", id: "cond", resourceBody: { id: "cond", pk, v: 2 }, ifMatch: '"not-the-etag"' },
        { operationType: "Replace", id: "cond", resourceBody: { id: "cond", pk, v: 3 } },
      ],
      pk,
    );
    assert.equal(stale.code, 207);
    assert.deepEqual(
      stale.result.map((r) => r.statusCode),
      [424, 412, 424],
    );
    assertCharge(stale.result[1].requestCharge, REJECTED_WRITE, "412");
    assert.equal((await container.item("cond", pk).read()).resource.v, 1);
    await assertMissing("c1", pk);

    const fresh = await container.items.batch(
      [
        { operationType: "Replace", id: "cond", resourceBody: { id: "cond", pk, v: 2 }, ifMatch: doc._etag },
        { operationType: "Delete", id: "cond", ifMatch: '"not-the-etag"' },
      ],
      pk,
    );
    assert.equal(fresh.code, 207);
    assert.deepEqual(
      fresh.result.map((r) => r.statusCode),
      [424, 412],
    );
    assert.equal((await container.item("cond", pk).read()).resource.v, 1);

    const ok = await container.items.batch(
      [{ operationType: "Replace", id: "cond", resourceBody: { id: "cond", pk, v: 2 }, ifMatch: doc._etag }],
      pk,
    );
    assert.equal(ok.code, 200);
    assert.equal(ok.result[0].statusCode, 200);
    assert.equal((await container.item("cond", pk).read()).resource.v, 2);
  });

  it("a read with ifNoneMatch equal to the item's etag answers 304 without failing the batch", async () => {
    const pk = uid("p");
    const doc = await seed({ id: "same", pk, v: 1 });
    const res = await container.items.batch(
      [
        { operationType: "Create", resourceBody: { id: "made", pk } },
        { operationType: "Read", id: "same", ifNoneMatch: doc._etag },
        { operationType: "Read", id: "same", ifNoneMatch: '"another-etag"' },
      ],
      pk,
    );
    assert.equal(res.code, 207);
    assert.deepEqual(
      res.result.map((r) => r.statusCode),
      [201, 304, 200],
    );
    assert.equal(res.result[1].resourceBody, undefined);
    assert.deepEqual(res.result[2].resourceBody, doc);
    assert.equal((await container.item("made", pk).read()).statusCode, 200, "the create was applied");
  });

  it("patch: a false condition answers 412; a true one applies", async () => {
    const pk = uid("p");
    await seed({ id: "pt", pk, set_path: 1, n: 0 });
    const fails = await container.items.batch(
      [
        { operationType: "Upsert", resourceBody: { id: "pt", pk, set_path: 1, n: 0, touched: true } },
        {
          operationType: "Patch",
          id: "pt",
          resourceBody: { operations: [{ op: "add", path: "/color", value: "red" }], condition: "from c where c.set_path = 0" },
        },
      ],
      pk,
    );
    assert.equal(fails.code, 207);
    assert.deepEqual(
      fails.result.map((r) => r.statusCode),
      [424, 412],
    );
    const unchanged = (await container.item("pt", pk).read()).resource;
    assert.equal(unchanged.touched, undefined);
    assert.equal(unchanged.color, undefined);

    const applies = await container.items.batch(
      [
        {
          operationType: "Patch",
          id: "pt",
          resourceBody: {
            operations: [
              { op: "add", path: "/color", value: "red" },
              { op: "incr", path: "/n", value: 5 },
              { op: "move", from: "/set_path", path: "/moved" },
            ],
            condition: "from c where c.set_path = 1",
          },
        },
      ],
      pk,
    );
    assert.equal(applies.code, 200);
    const body = applies.result[0].resourceBody;
    assert.equal(body.color, "red");
    assert.equal(body.n, 5);
    assert.equal(body.moved, 1);
    assert.equal(body.set_path, undefined);
    assertCharge(applies.result[0].requestCharge, replaceCharge(body), "patch");

    // a patch of a missing item is 404
    const missing = await container.items.batch(
      [{ operationType: "Patch", id: "nope", resourceBody: { operations: [{ op: "set", path: "/a", value: 1 }] } }],
      pk,
    );
    assert.equal(missing.code, 207);
    assert.equal(missing.result[0].statusCode, 404);
  });

  it("a create of an existing id: 409 in the batch, the earlier upsert is rolled back", async () => {
    const pk = uid("p");
    await seed({ id: "keep", pk, v: 1 });
    const res = await container.items.batch(
      [
        { operationType: "Upsert", resourceBody: { id: "keep", pk, v: 2 } },
        { operationType: "Delete", id: "keep" },
        { operationType: "Create", resourceBody: { id: "new1", pk } },
        { operationType: "Create", resourceBody: { id: "new1", pk } },
      ],
      pk,
    );
    assert.equal(res.code, 207);
    assert.deepEqual(
      res.result.map((r) => r.statusCode),
      [424, 424, 424, 409],
    );
    assert.equal((await container.item("keep", pk).read()).resource.v, 1, "upsert and delete rolled back");
    await assertMissing("new1", pk);
  });
});

describe("what the service refuses as a whole", () => {
  it("more than 100 operations: 400 'Batch request has more operations than what is supported.'", async () => {
    const pk = uid("p");
    const ops = [];
    for (let i = 0; i < 101; i++) ops.push({ operationType: "Create", resourceBody: { id: `o${i}`, pk } });
    const res = await rawBatch(pk, ops);
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json.code, "BadRequest");
    assert.match(res.json.message, /Batch request has more operations than what is supported\./);
    assert.equal(res.headers["x-ms-substatus"], undefined);
    await assertMissing("o0", pk);
    // the SDK refuses it before sending
    await assert.rejects(container.items.batch(ops, pk), /more than 100 operations/);
  });

  it("an empty batch: 400 'Batch request has no operations.'", async () => {
    const res = await rawBatch("p", []);
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json.code, "BadRequest");
    assert.match(res.json.message, /Batch request has no operations\./);
  });

  it("a body over 2,202,010 bytes: 413 RequestEntityTooLarge, nothing applied", async () => {
    const pk = uid("p");
    const ops = [];
    for (let i = 0; i < 20; i++) {
      ops.push({ operationType: "Create", resourceBody: { id: `big${i}`, pk, pad: "x".repeat(115 * 1024) } });
    }
    const body = JSON.stringify(ops);
    assert.ok(Buffer.byteLength(body) > 2202010);
    const res = await rawBatch(pk, body);
    assert.equal(res.status, 413, res.text.slice(0, 300));
    assert.equal(res.json.code, "RequestEntityTooLarge");
    await assertMissing("big0", pk);

    // 2,202,010 bytes exactly is within the limit
    const fit = JSON.parse(body).slice(0, 18);
    const base = Buffer.byteLength(JSON.stringify(fit));
    fit[17].resourceBody.pad += "y".repeat(2202010 - base);
    const exact = JSON.stringify(fit);
    assert.equal(Buffer.byteLength(exact), 2202010);
    const ok = await rawBatch(pk, exact);
    assert.equal(ok.status, 200, ok.text.slice(0, 300));
    assert.equal(ok.json.length, 18);
  });

  it("a body that is not an array of operations: 400", async () => {
    for (const body of ['{"operationType":"Create"}', "not json", '[{"operationType":"Create"}]x']) {
      const res = await rawBatch("p", body);
      assert.equal(res.status, 400, `${body}: ${res.text}`);
      assert.equal(res.json.code, "BadRequest");
    }
  });

  it("an unknown operation type is refused and nothing is applied", async () => {
    const pk = uid("p");
    const res = await rawBatch(pk, [
      { operationType: "Create", resourceBody: { id: "u1", pk } },
      { operationType: "Frobnicate", id: "u1" },
    ]);
    assert.ok(res.status === 400 || res.status === 207, `${res.status} ${res.text}`);
    if (res.status === 207) {
      assert.deepEqual(
        res.json.map((r) => r.statusCode),
        [424, 400],
      );
    } else {
      assert.equal(res.json.code, "BadRequest");
    }
    await assertMissing("u1", pk);
  });

  it("an atomic batch without a partition key header: 400", async () => {
    const res = await rawBatch(undefined, [{ operationType: "Create", resourceBody: { id: "nopk", pk: "p" } }]);
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json.code, "BadRequest");
    await assertMissing("nopk", "p");
  });

  it("a batch on a missing container: 404", async () => {
    const res = await rawBatch("p", [{ operationType: "Read", id: "x" }], { coll: "no-such-container" });
    assert.equal(res.status, 404, res.text);
    assert.equal(res.json.code, "NotFound");
  });
});

describe("non-atomic batches (continue on error)", () => {
  it("with the partition key header every operation runs: 207 with each status", async () => {
    const pk = uid("p");
    await seed({ id: "b1", pk });
    const res = await rawBatch(
      pk,
      [
        { operationType: "Create", resourceBody: { id: "b9", pk } },
        { operationType: "Create", resourceBody: { id: "b1", pk } },
        { operationType: "Create", resourceBody: { id: "b10", pk } },
      ],
      { headers: { "x-ms-cosmos-batch-atomic": "False", "x-ms-cosmos-batch-continue-on-error": "True" } },
    );
    assert.equal(res.status, 207, res.text);
    assert.deepEqual(
      res.json.map((r) => r.statusCode),
      [201, 409, 201],
    );
    assertCharge(res.json[0].requestCharge, createCharge(res.json[0].resourceBody));
    assertCharge(res.json[1].requestCharge, REJECTED_WRITE);
    assertHeaderIsSum(res.headers, res.json);
    assert.equal((await container.item("b9", pk).read()).statusCode, 200);
    assert.equal((await container.item("b10", pk).read()).statusCode, 200);
  });

  it("all succeeding answers 200", async () => {
    const pk = uid("p");
    const res = await rawBatch(
      pk,
      [
        { operationType: "Create", resourceBody: { id: "a", pk } },
        { operationType: "Read", id: "a" },
      ],
      { headers: { "x-ms-cosmos-batch-atomic": "False", "x-ms-cosmos-batch-continue-on-error": "True" } },
    );
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.json.map((r) => r.statusCode),
      [201, 200],
    );
  });
});

if (!LOCAL) {
  // charges are only checked against the local binary; everything else holds on the service too
  describe("note", () => it("request-charge assertions skipped against $COSMOS_ENDPOINT", () => {}));
}
