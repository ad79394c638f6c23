// Unique key policies through @azure/cosmos: the policy as created and read back, enforcement per
// logical partition on create, replace, upsert, patch, transactional batch, bulk and stored
// procedures (409 with the service's message), missing values counting as null, case-sensitive
// values, nested and composite paths, deletes freeing a value, and a container replace that would
// change the policy (403).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { REJECTED_WRITE, assertCharge, expectError, rawRequest, uid, useEmulatorWithDatabase } from "./harness.mjs";

let db;
let dbId;
const ctx = useEmulatorWithDatabase((f) => ({ db, dbId } = f));

const POLICY = { uniqueKeys: [{ paths: ["/email"] }, { paths: ["/first", "/last"] }] };
// Most tests use one key: with two, an item lacking /first and /last holds the composite value
// (null, null), so a second such item would conflict on that key too.
const EMAIL = { uniqueKeys: [{ paths: ["/email"] }] };
// The service answers a unique-key violation exactly as it answers an existing id.
const CONFLICT_TEXT = /^Entity with the specified id already exists in the system\./;

async function makeContainer(policy = EMAIL, extra = {}) {
  const id = uid("uk");
  const res = await db.containers.create({ id, partitionKey: { paths: ["/pk"] }, uniqueKeyPolicy: policy, ...extra });
  return { id, container: res.container, resource: res.resource };
}

async function expectUniqueConflict(fn) {
  const err = await expectError(fn, 409, "Conflict");
  assert.match(err.body.message, CONFLICT_TEXT);
  assert.equal(err.substatus, undefined);
  assertCharge(err.headers["x-ms-request-charge"], REJECTED_WRITE, "409 charge");
  return err;
}

describe("the policy", () => {
  it("is returned as created, by the create and by reads", async () => {
    const { id, container, resource } = await makeContainer(POLICY);
    assert.deepEqual(resource.uniqueKeyPolicy, POLICY);
    const keys = Object.keys(resource);
    assert.ok(keys.indexOf("uniqueKeyPolicy") > keys.indexOf("partitionKey"));
    assert.ok(keys.indexOf("uniqueKeyPolicy") < keys.indexOf("conflictResolutionPolicy"));
    assert.deepEqual((await container.read()).resource.uniqueKeyPolicy, POLICY);
    const all = (await db.containers.readAll().fetchAll()).resources.find((c) => c.id === id);
    assert.deepEqual(all.uniqueKeyPolicy, POLICY);
  });

  it("an empty list of unique keys is accepted", async () => {
    const { resource } = await makeContainer({ uniqueKeys: [] });
    assert.deepEqual(resource.uniqueKeyPolicy?.uniqueKeys ?? [], []);
  });

  it("a container replace that keeps the policy succeeds; one that changes or drops it answers 403", async () => {
    const { container, resource } = await makeContainer(POLICY);
    const kept = await container.replace({ id: resource.id, partitionKey: resource.partitionKey, uniqueKeyPolicy: POLICY, defaultTtl: 60 });
    assert.equal(kept.statusCode, 200);
    assert.deepEqual(kept.resource.uniqueKeyPolicy, POLICY);
    for (const body of [
      { id: resource.id, partitionKey: resource.partitionKey, uniqueKeyPolicy: { uniqueKeys: [{ paths: ["/email"] }] } },
      { id: resource.id, partitionKey: resource.partitionKey, uniqueKeyPolicy: { uniqueKeys: [{ paths: ["/phone"] }, ...POLICY.uniqueKeys] } },
      { id: resource.id, partitionKey: resource.partitionKey },
    ]) {
      const err = await expectError(() => container.replace(body), 403, "Forbidden");
      assert.match(
        err.body.message,
        /The unique index cannot be modified\. To change the unique index, remove the collection and re-create a new one\./,
      );
    }
    assert.deepEqual((await container.read()).resource.uniqueKeyPolicy, POLICY);
    // a container created without a policy cannot gain one either
    const plain = (await db.containers.create({ id: uid("plain"), partitionKey: { paths: ["/pk"] } })).container;
    await expectError(
      () => plain.replace({ id: plain.id, partitionKey: { paths: ["/pk"] }, uniqueKeyPolicy: POLICY }),
      403,
      "Forbidden",
    );
  });

  it("a path that is not rooted is refused with 400", async () => {
    await expectError(
      () => db.containers.create({ id: uid("bad"), partitionKey: { paths: ["/pk"] }, uniqueKeyPolicy: { uniqueKeys: [{ paths: ["email"] }] } }),
      400,
      "BadRequest",
    );
  });
});

describe("enforcement", () => {
  it("create: a second item with the same value in the logical partition answers 409; another partition may hold it", async () => {
    const { container } = await makeContainer();
    assert.equal((await container.items.create({ id: "1", pk: "p", email: "a@b" })).statusCode, 201);
    await expectUniqueConflict(() => container.items.create({ id: "2", pk: "p", email: "a@b" }));
    assert.equal((await container.item("2", "p").read()).statusCode, 404);
    assert.equal((await container.items.create({ id: "2", pk: "q", email: "a@b" })).statusCode, 201);
    // values are compared as JSON values: case matters, and 1 is not "1"
    assert.equal((await container.items.create({ id: "3", pk: "p", email: "A@b" })).statusCode, 201);
    assert.equal((await container.items.create({ id: "4", pk: "p", email: 1 })).statusCode, 201);
    assert.equal((await container.items.create({ id: "5", pk: "p", email: "1" })).statusCode, 201);
    await expectUniqueConflict(() => container.items.create({ id: "6", pk: "p", email: 1.0 }));
  });

  it("composite keys: the combination must be unique, not each value", async () => {
    const { container } = await makeContainer(POLICY);
    await container.items.create({ id: "1", pk: "p", email: "e1", first: "Gaby", last: "Duperre" });
    assert.equal((await container.items.create({ id: "2", pk: "p", email: "e2", first: "Gaby", last: "Other" })).statusCode, 201);
    assert.equal((await container.items.create({ id: "3", pk: "p", email: "e3", first: "Ivan", last: "Duperre" })).statusCode, 201);
    await expectUniqueConflict(() => container.items.create({ id: "4", pk: "p", email: "e4", first: "Gaby", last: "Duperre" }));
  });

  it("a missing value counts as null: only one item per logical partition may lack it", async () => {
    const { container } = await makeContainer(EMAIL);
    assert.equal((await container.items.create({ id: "1", pk: "p" })).statusCode, 201);
    await expectUniqueConflict(() => container.items.create({ id: "2", pk: "p" }));
    await expectUniqueConflict(() => container.items.create({ id: "3", pk: "p", email: null }));
    assert.equal((await container.items.create({ id: "2", pk: "q" })).statusCode, 201);
    assert.equal((await container.items.create({ id: "4", pk: "p", email: "x" })).statusCode, 201);
    // with two keys, items lacking both paths of the composite key collide on (null, null)
    const two = (await makeContainer(POLICY)).container;
    await two.items.create({ id: "1", pk: "p", email: "e1" });
    await expectUniqueConflict(() => two.items.create({ id: "2", pk: "p", email: "e2" }));
    assert.equal((await two.items.create({ id: "2", pk: "p", email: "e2", first: "f" })).statusCode, 201);
  });

  it("nested paths", async () => {
    const { container } = await makeContainer({ uniqueKeys: [{ paths: ["/address/zip", "/name/last"] }] });
    await container.items.create({ id: "1", pk: "p", address: { zip: "98052", city: "Redmond" }, name: { last: "Smith" } });
    assert.equal(
      (await container.items.create({ id: "2", pk: "p", address: { zip: "98052" }, name: { last: "Jones" } })).statusCode,
      201,
    );
    await expectUniqueConflict(() =>
      container.items.create({ id: "3", pk: "p", address: { zip: "98052", city: "Seattle" }, name: { last: "Smith", first: "J" } }),
    );
  });

  it("replace, upsert and patch are checked against the other items, never against the item itself", async () => {
    const { container } = await makeContainer();
    await container.items.create({ id: "a", pk: "p", email: "a@x" });
    await container.items.create({ id: "b", pk: "p", email: "b@x" });
    // the item keeps its own value
    assert.equal((await container.item("a", "p").replace({ id: "a", pk: "p", email: "a@x", v: 2 })).statusCode, 200);
    assert.equal((await container.items.upsert({ id: "a", pk: "p", email: "a@x", v: 3 })).statusCode, 200);
    await expectUniqueConflict(() => container.item("a", "p").replace({ id: "a", pk: "p", email: "b@x" }));
    await expectUniqueConflict(() => container.items.upsert({ id: "a", pk: "p", email: "b@x" }));
    await expectUniqueConflict(() => container.items.upsert({ id: "new", pk: "p", email: "b@x" }));
    await expectUniqueConflict(() => container.item("a", "p").patch([{ op: "set", path: "/email", value: "b@x" }]));
    const a = (await container.item("a", "p").read()).resource;
    assert.equal(a.email, "a@x");
    assert.equal(a.v, 3);
    // moving a value away frees it
    assert.equal((await container.item("b", "p").patch([{ op: "set", path: "/email", value: "c@x" }])).statusCode, 200);
    assert.equal((await container.items.create({ id: "d", pk: "p", email: "b@x" })).statusCode, 201);
  });

  it("a delete frees the value", async () => {
    const { container } = await makeContainer();
    await container.items.create({ id: "1", pk: "p", email: "gone@x" });
    await expectUniqueConflict(() => container.items.create({ id: "2", pk: "p", email: "gone@x" }));
    await container.item("1", "p").delete();
    assert.equal((await container.items.create({ id: "2", pk: "p", email: "gone@x" })).statusCode, 201);
  });

  it("transactional batch: a violation is a 409 for that operation and nothing is applied", async () => {
    const { container } = await makeContainer();
    await container.items.create({ id: "x", pk: "p", email: "taken" });
    const res = await container.items.batch(
      [
        { operationType: "Create", resourceBody: { id: "1", pk: "p", email: "free" } },
        { operationType: "Create", resourceBody: { id: "2", pk: "p", email: "taken" } },
      ],
      "p",
    );
    assert.equal(res.code, 207);
    assert.deepEqual(
      res.result.map((r) => r.statusCode),
      [424, 409],
    );
    assert.equal((await container.item("1", "p").read()).statusCode, 404);
    // two operations of one batch conflicting with each other
    const inner = await container.items.batch(
      [
        { operationType: "Create", resourceBody: { id: "3", pk: "p", email: "same" } },
        { operationType: "Upsert", resourceBody: { id: "4", pk: "p", email: "same" } },
      ],
      "p",
    );
    assert.equal(inner.code, 207);
    assert.deepEqual(
      inner.result.map((r) => r.statusCode),
      [424, 409],
    );
    // a delete earlier in the batch frees the value for a later create
    const swap = await container.items.batch(
      [
        { operationType: "Delete", id: "x" },
        { operationType: "Create", resourceBody: { id: "y", pk: "p", email: "taken" } },
      ],
      "p",
    );
    assert.equal(swap.code, 200);
    assert.deepEqual(
      swap.result.map((r) => r.statusCode),
      [204, 201],
    );
  });

  it("bulk: a violating operation answers 409, the others run", async () => {
    const { container } = await makeContainer();
    const results = await container.items.executeBulkOperations([
      { operationType: "Create", partitionKey: "p", resourceBody: { id: "1", pk: "p", email: "one" } },
      { operationType: "Create", partitionKey: "q", resourceBody: { id: "1", pk: "q", email: "one" } },
      { operationType: "Create", partitionKey: "p", resourceBody: { id: "2", pk: "p", email: "two" } },
    ]);
    assert.equal(results[0].response.statusCode, 201);
    assert.equal(results[1].response.statusCode, 201);
    assert.equal(results[2].response.statusCode, 201);
    const again = await container.items.executeBulkOperations([
      { operationType: "Create", partitionKey: "p", resourceBody: { id: "3", pk: "p", email: "one" } },
      { operationType: "Create", partitionKey: "p", resourceBody: { id: "4", pk: "p", email: "four" } },
    ]);
    assert.equal(again[0].error?.code, 409);
    assert.equal(again[1].response?.statusCode, 201);
  });

  it("stored procedures: a violating createDocument fails with 409; uncaught, the script's writes roll back", async () => {
    const { container } = await makeContainer();
    await container.items.create({ id: "x", pk: "p", email: "taken" });
    const caught = {
      id: uid("sp"),
      body: `function (email) {
        var c = getContext().getCollection();
        c.createDocument(c.getSelfLink(), { id: "s1", pk: "p", email: email }, function (err) {
          getContext().getResponse().setBody(err ? err.number : 0);
        });
      }`,
    };
    await container.scripts.storedProcedures.create(caught);
    const res = await container.scripts.storedProcedure(caught.id).execute("p", ["taken"]);
    assert.equal(res.resource, 409);

    const uncaught = {
      id: uid("sp"),
      body: `function () {
        var c = getContext().getCollection();
        c.createDocument(c.getSelfLink(), { id: "s2", pk: "p", email: "fresh" });
        c.createDocument(c.getSelfLink(), { id: "s3", pk: "p", email: "taken" });
      }`,
    };
    await container.scripts.storedProcedures.create(uncaught);
    const err = await expectError(() => container.scripts.storedProcedure(uncaught.id).execute("p", []), 400, "BadRequest");
    assert.equal(err.substatus, 409);
    assert.equal((await container.item("s2", "p").read()).statusCode, 404, "the first create rolled back");
  });

  it("the raw 409 is the service's: code Conflict, no substatus", async () => {
    const { id } = await makeContainer();
    const path = `/dbs/${dbId}/colls/${id}/docs`;
    const headers = { "x-ms-documentdb-partitionkey": '["p"]' };
    assert.equal((await rawRequest(ctx.env, { method: "POST", path, headers, body: { id: "1", pk: "p", email: "a@b" } })).status, 201);
    const res = await rawRequest(ctx.env, { method: "POST", path, headers, body: { id: "2", pk: "p", email: "a@b" } });
    assert.equal(res.status, 409);
    assert.deepEqual(Object.keys(res.json).sort(), ["code", "message"]);
    assert.equal(res.json.code, "Conflict");
    assert.match(res.json.message, CONFLICT_TEXT);
    assert.equal(res.headers["x-ms-substatus"], undefined);
  });
});
