// Partial document update (PATCH): the six operations, errors, preconditions, charges.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  LOCAL,
  REJECTED_WRITE,
  assertCharge,
  assertSessionToken,
  docPath,
  expectError,
  pkHeader,
  rawRequest,
  replaceCharge,
  uid,
  useEmulatorWithDatabase,
} from "./harness.mjs";

let db;
let dbId;
let container;
const ctx = useEmulatorWithDatabase((f) => ({ dbId, db, container } = f), { containerId: "p" });

async function fresh(extra = {}) {
  const id = uid("doc");
  const res = await container.items.create({
    id,
    pk: "a",
    name: "old",
    n: 5,
    f: 1.5,
    arr: [1, 2, 3],
    obj: { x: 1, y: { z: "deep" } },
    gone: "bye",
    ...extra,
  });
  return { id, created: res.resource, item: container.item(id, "a") };
}

function userPart(doc) {
  const out = { ...doc };
  for (const k of ["_rid", "_self", "_etag", "_attachments", "_ts"]) delete out[k];
  return out;
}

describe("patch operations", () => {
  it("add: a new property, an array insert at an index, '-' appends, an existing property is replaced", async () => {
    const { item } = await fresh();
    const res = await item.patch([
      { op: "add", path: "/color", value: "red" },
      { op: "add", path: "/arr/1", value: 99 },
      { op: "add", path: "/arr/-", value: 100 },
      { op: "add", path: "/obj/y/w", value: [true] },
      { op: "add", path: "/name", value: "new" },
    ]);
    assert.equal(res.statusCode, 200);
    assert.equal(res.resource.color, "red");
    assert.deepEqual(res.resource.arr, [1, 99, 2, 3, 100]);
    assert.deepEqual(res.resource.obj, { x: 1, y: { z: "deep", w: [true] } });
    assert.equal(res.resource.name, "new");
  });

  it("set: creates or overwrites a property; on an array index it overwrites the element", async () => {
    const { item } = await fresh();
    const res = await item.patch([
      { op: "set", path: "/name", value: { a: 1 } },
      { op: "set", path: "/brand", value: null },
      { op: "set", path: "/arr/0", value: "first" },
    ]);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.resource.name, { a: 1 });
    assert.equal(res.resource.brand, null);
    assert.deepEqual(res.resource.arr, ["first", 2, 3]);
  });

  it("replace: overwrites an existing property or array element", async () => {
    const { item } = await fresh();
    const res = await item.patch([
      { op: "replace", path: "/name", value: "replaced" },
      { op: "replace", path: "/arr/2", value: 30 },
      { op: "replace", path: "/obj/y/z", value: 0 },
    ]);
    assert.equal(res.resource.name, "replaced");
    assert.deepEqual(res.resource.arr, [1, 2, 30]);
    assert.deepEqual(res.resource.obj, { x: 1, y: { z: 0 } });
  });

  it("remove: deletes a property or an array element", async () => {
    const { item } = await fresh();
    const res = await item.patch([
      { op: "remove", path: "/gone" },
      { op: "remove", path: "/arr/0" },
      { op: "remove", path: "/obj/y" },
    ]);
    assert.equal("gone" in res.resource, false);
    assert.deepEqual(res.resource.arr, [2, 3]);
    assert.deepEqual(res.resource.obj, { x: 1 });
  });

  it("incr: integers stay integers, floats add, a missing path is created", async () => {
    const { item } = await fresh();
    const res = await item.patch([
      { op: "incr", path: "/n", value: 3 },
      { op: "incr", path: "/f", value: 1 },
      { op: "incr", path: "/counter", value: -2 },
      { op: "incr", path: "/obj/x", value: 0.5 },
    ]);
    assert.equal(res.resource.n, 8);
    assert.equal(res.resource.f, 2.5);
    assert.equal(res.resource.counter, -2);
    assert.equal(res.resource.obj.x, 1.5);
  });

  it("move: removes the source and writes the target (overwriting it)", async () => {
    const { item } = await fresh();
    const res = await item.patch([
      { op: "move", from: "/gone", path: "/moved" },
      { op: "move", from: "/obj/y", path: "/name" },
    ]);
    assert.equal("gone" in res.resource, false);
    assert.equal(res.resource.moved, "bye");
    assert.deepEqual(res.resource.name, { z: "deep" });
    assert.deepEqual(res.resource.obj, { x: 1 });
  });

  it("all six operations in one request; the reply is the whole document, persisted", async () => {
    const { id, created, item } = await fresh();
    const res = await item.patch([
      { op: "add", path: "/added", value: 1 },
      { op: "set", path: "/name", value: "set" },
      { op: "replace", path: "/f", value: 2.25 },
      { op: "remove", path: "/gone" },
      { op: "incr", path: "/n", value: 1 },
      { op: "move", from: "/added", path: "/renamed" },
    ]);
    assert.equal(res.statusCode, 200);
    const expected = { ...userPart(created), name: "set", f: 2.25, n: 6, renamed: 1 };
    delete expected.gone;
    assert.deepEqual(userPart(res.resource), expected);
    assert.equal(res.resource.id, id);
    assert.equal(res.resource._rid, created._rid);
    assert.equal(res.resource._self, created._self);
    assert.notEqual(res.resource._etag, created._etag);
    assert.equal(res.headers.etag, res.resource._etag);
    assert.equal(Object.keys(res.resource).at(-1), "_ts");
    assertSessionToken(res.headers["x-ms-session-token"]);
    assertCharge(res.requestCharge, replaceCharge(res.resource));
    const read = await item.read();
    assert.deepEqual(read.resource, res.resource);
  });

  it("the documented example (learn.microsoft.com partial-document-update) gives the documented result", async () => {
    const { container: c } = await db.containers.create({ id: uid("doc"), partitionKey: { paths: ["/categoryId"] } });
    const id = "eeeeeeee-4444-5555-6666-ffffffffffff";
    await c.items.create({
      id,
      name: "R-410 Road Bicycle",
      price: 455.95,
      inventory: { quantity: 15 },
      used: false,
      categoryId: "road-bikes",
      tags: ["r-series"],
    });
    const res = await c.item(id, "road-bikes").patch([
      { op: "add", path: "/color", value: "silver" },
      { op: "remove", path: "/used" },
      { op: "set", path: "/price", value: 355.45 },
      { op: "incr", path: "/inventory/quantity", value: 10 },
      { op: "add", path: "/tags/-", value: "featured-bikes" },
      { op: "move", from: "/color", path: "/inventory/color" },
    ]);
    assert.equal(
      JSON.stringify(userPart(res.resource)),
      JSON.stringify({
        id,
        name: "R-410 Road Bicycle",
        price: 355.45,
        inventory: { quantity: 25, color: "silver" },
        categoryId: "road-bikes",
        tags: ["r-series", "featured-bikes"],
      }),
    );
  });

  it("paths escape ~ and / as ~0 and ~1 (JSON Pointer)", async () => {
    const { item } = await fresh({ "a/b": 1, "t~x": 2 });
    const res = await item.patch([
      { op: "incr", path: "/a~1b", value: 1 },
      { op: "set", path: "/t~0x", value: "tilde" },
      { op: "add", path: "/new~1key", value: true },
    ]);
    assert.equal(res.resource["a/b"], 2);
    assert.equal(res.resource["t~x"], "tilde");
    assert.equal(res.resource["new/key"], true);
  });

  it("the {operations:[...]} body form is accepted", async () => {
    const { item } = await fresh();
    const res = await item.patch({ operations: [{ op: "set", path: "/name", value: "via-object" }] });
    assert.equal(res.resource.name, "via-object");
  });

  it("a conditional patch applies when its condition holds", async () => {
    const { item } = await fresh();
    const res = await item.patch({
      condition: "FROM c WHERE c.n = 5 AND IS_DEFINED(c.name) AND NOT (c.n > 5)",
      operations: [{ op: "set", path: "/name", value: "cond" }],
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.resource.name, "cond");
  });

  it("a conditional patch whose condition is false answers 412 and changes nothing", async () => {
    const { created, item } = await fresh();
    const err = await expectError(
      () => item.patch({ condition: "from c where c.n = 6", operations: [{ op: "set", path: "/name", value: "x" }] }),
      412,
      "PreconditionFailed",
    );
    if (LOCAL) assert.equal(err.headers["x-ms-request-charge"], "1.24");
    const { resource } = await item.read();
    assert.equal(resource._etag, created._etag);
  });

  it("a conditional patch comparing mismatched types is undefined, hence false: 412", async () => {
    const { item } = await fresh();
    await expectError(
      () => item.patch({ condition: "FROM c WHERE c.n = '5'", operations: [{ op: "set", path: "/name", value: "x" }] }),
      412,
      "PreconditionFailed",
    );
  });

  it("a conditional patch with a malformed condition answers 400", { skip: !LOCAL }, async () => {
    const { item } = await fresh();
    const err = await expectError(
      () => item.patch({ condition: "FROM c WHERE c.n = = 5", operations: [{ op: "set", path: "/name", value: "x" }] }),
      400,
      "BadRequest",
    );
    assert.match(err.body.message, /The patch condition is invalid: unexpected '=' at position 19\./);
  });

  it("If-Match: stale etag answers 412, the current etag succeeds", async () => {
    const { created, item } = await fresh();
    await item.patch([{ op: "set", path: "/name", value: "v2" }]);
    const err = await expectError(
      () => item.patch([{ op: "set", path: "/name", value: "v3" }], { accessCondition: { type: "IfMatch", condition: created._etag } }),
      412,
      "PreconditionFailed",
    );
    assertCharge(err.headers["x-ms-request-charge"], REJECTED_WRITE);
    const current = (await item.read()).resource;
    assert.equal(current.name, "v2");
    const ok = await item.patch([{ op: "set", path: "/name", value: "v3" }], {
      accessCondition: { type: "IfMatch", condition: current._etag },
    });
    assert.equal(ok.resource.name, "v3");
  });
});

describe("patch errors", () => {
  async function expectBad(ops, pattern) {
    const { item, created } = await fresh();
    const err = await expectError(() => item.patch(ops), 400, "BadRequest");
    if (pattern && LOCAL) assert.match(err.body.message, pattern);
    // nothing was applied
    assert.deepEqual((await item.read()).resource, created);
    return err;
  }

  it("remove of a missing path answers 400", async () => {
    await expectBad([{ op: "remove", path: "/nope" }], /The patch path '\/nope' does not exist\./);
  });

  it("move from a missing path answers 400", async () => {
    await expectBad([{ op: "move", from: "/nope", path: "/x" }], /does not exist/);
  });

  it("replace of a missing path answers 400", async () => {
    await expectBad([{ op: "replace", path: "/nope", value: 1 }], /does not exist/);
  });

  it("incr of a non-number answers 400", async () => {
    await expectBad([{ op: "incr", path: "/name", value: 1 }], /is not a number/);
  });

  it("add beyond the end of an array answers 400", async () => {
    await expectBad([{ op: "add", path: "/arr/7", value: 1 }]);
  });

  it("a path through a missing parent answers 400", async () => {
    await expectBad([{ op: "set", path: "/missing/child", value: 1 }], /parent that does not exist/);
  });

  it("more than 10 operations answer 400; exactly 10 succeed", async () => {
    const ops = Array.from({ length: 11 }, (_, i) => ({ op: "set", path: `/p${i}`, value: i }));
    await expectBad(ops, /The number of patch operations can't exceed 10\./);
    const { item } = await fresh();
    const ok = await item.patch(ops.slice(0, 10));
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.resource.p9, 9);
  });

  it("the partition key and id cannot be patched", async () => {
    await expectBad([{ op: "set", path: "/pk", value: "b" }], /partition key/);
    await expectBad([{ op: "set", path: "/id", value: "other" }]);
  });

  it("an unknown operation or an empty list answers 400", async () => {
    const { id } = await fresh();
    for (const body of ['[{"op":"copy","from":"/n","path":"/m"}]', "[]", '{"operations":[]}', "{}", "[1]"]) {
      const res = await rawRequest(ctx.env, {
        method: "PATCH",
        path: docPath(dbId, "p", id),
        headers: { "x-ms-documentdb-partitionkey": pkHeader("a"), "content-type": undefined },
        body,
      });
      assert.equal(res.status, 400, body);
      assert.equal(res.json.code, "BadRequest");
    }
  });

  it("a failure in a later operation applies none of the earlier ones", async () => {
    await expectBad([
      { op: "set", path: "/name", value: "applied?" },
      { op: "remove", path: "/nope" },
    ]);
  });

  it("patch of an unknown item answers 404", async () => {
    await expectError(
      () => container.item(uid("none"), "a").patch([{ op: "set", path: "/x", value: 1 }]),
      404,
      "NotFound",
    );
  });
});

describe("patch concurrency", () => {
  it("50 concurrent incr operations are all applied (atomic read-modify-write)", async () => {
    const { item } = await fresh({ counter: 0 });
    const results = await Promise.all(
      Array.from({ length: 50 }, () => item.patch([{ op: "incr", path: "/counter", value: 1 }])),
    );
    assert.ok(results.every((r) => r.statusCode === 200));
    const seen = results.map((r) => r.resource.counter).sort((a, b) => a - b);
    assert.deepEqual(seen, Array.from({ length: 50 }, (_, i) => i + 1));
    assert.equal((await item.read()).resource.counter, 50);
    assert.equal(new Set(results.map((r) => r.etag)).size, 50);
  });
});
