// Server-side JavaScript through @azure/cosmos (container.scripts): stored procedure, trigger and
// UDF resources (CRUD, JSON shape, feeds, charges); executing stored procedures with parameters, in
// modern JS and in the classic callback style (readDocument/replaceDocument/createDocument/
// queryDocuments/upsertDocument/deleteDocument/readDocuments, options, links, automatic ids, the
// `__` query API); the response body; transactions (a throw rolls back every write; other
// partition keys refused; rethrown errors and `new Error(number, message)` give 400 + substatus);
// concurrent executions on one logical partition; the change feed of script writes; pre- and
// post-triggers on item writes; UDFs in queries; console.log and the script-log header.
// The time and memory limits are in scripts_limits.test.mjs.
//
// Scripts are written here as real functions: the SDK sends `body.toString()`, so the emulator
// receives exactly the source text below.
/* global getContext, __, console */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ChangeFeedStartFrom } from "@azure/cosmos";
import {
  LOCAL,
  METADATA_READ,
  METADATA_WRITE,
  REJECTED_WRITE,
  assertCharge,
  assertSessionToken,
  createCharge,
  expectError,
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
let collRid;
const COLL = "scripts";
const ctx = useEmulatorWithDatabase(
  (f) => {
    ({ db, dbId, container } = f);
    collRid = f.containerResource._rid;
  },
  { containerId: COLL },
);

const EXEC = "Encountered exception while executing function. Exception = ";
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const OTHER_PK =
  "Requests originating from scripts cannot reference partition keys other than the one for which client request was submitted.";

/** A stored procedure (function or source text) with a fresh id in `c`; returns its client. */
async function createSproc(body, c = container) {
  const id = uid("sp");
  const res = await c.scripts.storedProcedures.create({ id, body });
  assert.equal(res.statusCode, 201);
  return c.scripts.storedProcedure(id);
}

/** Creates a stored procedure and executes it once. */
async function run(body, pk, params = [], options = undefined) {
  return (await createSproc(body)).execute(pk, params, options);
}

/** A trigger with a fresh id; returns the id. */
async function createTrigger(body, triggerType, triggerOperation, c = container) {
  const id = uid("tr");
  const res = await c.scripts.triggers.create({ id, body, triggerType, triggerOperation });
  assert.equal(res.statusCode, 201);
  return id;
}

/** A UDF with the given id; returns the id. */
async function createUdf(id, body, c = container) {
  const res = await c.scripts.userDefinedFunctions.create({ id, body });
  assert.equal(res.statusCode, 201);
  return id;
}

/** Asserts the item does not exist (point read answers 404; the SDK resolves it, no throw). */
async function assertMissing(id, pk, c = container) {
  const res = await c.item(id, pk).read();
  assert.equal(res.statusCode, 404, `${id} (pk ${pk}) should not exist`);
  assert.equal(res.resource, undefined);
}

/** The stored item as a point read returns it. */
async function stored(id, pk, c = container) {
  const res = await c.item(id, pk).read();
  assert.equal(res.statusCode, 200, `${id} exists`);
  return res.resource;
}

/** A plain Error (no number) gives no substatus, or 0. */
function assertNoSubstatus(err) {
  assert.ok(err.substatus === undefined || err.substatus === 0, `substatus: ${err.substatus}`);
}

/** A fresh container with the /pk key: {container, id, rid, self}. */
async function freshContainer(options = {}, partitionKey = { paths: ["/pk"] }) {
  const id = uid("sc");
  const res = await db.containers.create({ id, partitionKey }, options);
  return { container: res.container, id, rid: res.resource._rid, self: res.resource._self };
}

let dbRidCache;
async function dbRid() {
  dbRidCache ??= (await db.read()).resource._rid;
  return dbRidCache;
}

// ---------------------------------------------------------------------------------------------

describe("stored procedure resources", () => {
  it("create answers 201 with {body, id, _rid, _ts, _self, _etag} in that order", async () => {
    const { container: c, rid } = await freshContainer();
    const id = uid("sp");
    const body = "function () { getContext().getResponse().setBody('x'); }";
    const res = await c.scripts.storedProcedures.create({ id, body });
    assert.equal(res.statusCode, 201);
    const r = res.resource;
    assert.deepEqual(Object.keys(r), ["body", "id", "_rid", "_ts", "_self", "_etag"]);
    assert.equal(r.body, body);
    assert.equal(r.id, id);
    assert.equal(r._self, `dbs/${await dbRid()}/colls/${rid}/sprocs/${r._rid}/`);
    assert.match(r._etag, /^"[^"]+"$/);
    assert.ok(Number.isInteger(r._ts));
    assert.ok(Math.abs(r._ts - Date.now() / 1000) < 120);
    assertCharge(res.requestCharge, METADATA_WRITE);
  });

  it("read, replace, readAll, delete; 409 on a duplicate id; 404 when missing", async () => {
    const { container: c, id: collId, rid } = await freshContainer();
    const sprocs = c.scripts.storedProcedures;
    const id = uid("sp");
    const created = (await sprocs.create({ id, body: "function () {}" })).resource;

    const read = await c.scripts.storedProcedure(id).read();
    assert.equal(read.statusCode, 200);
    assert.deepEqual(read.resource, created);
    assertCharge(read.requestCharge, METADATA_READ);

    const dup = await expectError(() => sprocs.create({ id, body: "function () {}" }), 409, "Conflict");
    assertCharge(dup.headers["x-ms-request-charge"], REJECTED_WRITE);

    const newBody = "function (a) { getContext().getResponse().setBody(a + 1); }";
    const replaced = await c.scripts.storedProcedure(id).replace({ id, body: newBody });
    assert.equal(replaced.statusCode, 200);
    assert.deepEqual(Object.keys(replaced.resource), ["body", "id", "_rid", "_ts", "_self", "_etag"]);
    assert.equal(replaced.resource.body, newBody);
    assert.equal(replaced.resource._rid, created._rid);
    assert.equal(replaced.resource._self, created._self);
    assert.notEqual(replaced.resource._etag, created._etag);
    assertCharge(replaced.requestCharge, METADATA_WRITE);
    // the new body is what runs
    assert.equal((await c.scripts.storedProcedure(id).execute("p", [41])).resource, 42);

    const id2 = uid("sp");
    await sprocs.create({ id: id2, body: "function () {}" });
    const all = await sprocs.readAll().fetchAll();
    assert.deepEqual(all.resources.map((s) => s.id).sort(), [id, id2].sort());
    assertCharge(all.requestCharge, METADATA_READ);

    const raw = await rawRequest(ctx.env, { method: "GET", path: `/dbs/${dbId}/colls/${collId}/sprocs` });
    assert.equal(raw.status, 200, raw.text);
    assert.deepEqual(Object.keys(raw.json), ["_rid", "StoredProcedures", "_count"]);
    assert.equal(raw.json._rid, rid);
    assert.equal(raw.json._count, 2);
    assert.deepEqual(raw.json.StoredProcedures.find((s) => s.id === id), replaced.resource);

    const del = await c.scripts.storedProcedure(id).delete();
    assert.equal(del.statusCode, 204);
    assertCharge(del.requestCharge, METADATA_WRITE);
    const missing = await expectError(() => c.scripts.storedProcedure(id).read(), 404, "NotFound");
    assertCharge(missing.headers["x-ms-request-charge"], METADATA_READ);
    await expectError(() => c.scripts.storedProcedure(id).delete(), 404, "NotFound");
    await expectError(() => c.scripts.storedProcedure(id).replace({ id, body: "function () {}" }), 404, "NotFound");
    await expectError(() => c.scripts.storedProcedure(id).execute("p", []), 404, "NotFound");
    assert.deepEqual((await sprocs.readAll().fetchAll()).resources.map((s) => s.id), [id2]);
  });

  it("a missing body answers 400 naming 'body'", async () => {
    const err = await expectError(() => container.scripts.storedProcedures.create({ id: uid("sp") }), 400, "BadRequest");
    assert.ok(
      err.body.message.includes("The input content is invalid because the required properties - 'body; ' - are missing"),
      err.body.message,
    );
  });

  it("a sproc in a missing container answers 404", async () => {
    await expectError(
      () => db.container(uid("none")).scripts.storedProcedures.create({ id: uid("sp"), body: "function () {}" }),
      404,
      "NotFound",
    );
  });
});

describe("trigger resources", () => {
  it("create returns triggerType and triggerOperation capitalised, in the documented key order", async () => {
    const { container: c, rid } = await freshContainer();
    const body = "function () { var x = 1; }";
    const cases = [
      ["pre", "create", "Pre", "Create"],
      ["post", "all", "Post", "All"],
      ["PRE", "UPDATE", "Pre", "Update"],
      ["Post", "Delete", "Post", "Delete"],
      ["pRe", "rePLACE", "Pre", "Replace"],
    ];
    for (const [type, op, wantType, wantOp] of cases) {
      const id = uid("tr");
      const res = await c.scripts.triggers.create({ id, body, triggerType: type, triggerOperation: op });
      assert.equal(res.statusCode, 201);
      const r = res.resource;
      assert.deepEqual(Object.keys(r), ["body", "id", "triggerOperation", "triggerType", "_rid", "_ts", "_self", "_etag"]);
      assert.equal(r.body, body);
      assert.equal(r.triggerType, wantType, `${type}`);
      assert.equal(r.triggerOperation, wantOp, `${op}`);
      assert.equal(r._self, `dbs/${await dbRid()}/colls/${rid}/triggers/${r._rid}/`);
      assert.match(r._etag, /^"[^"]+"$/);
      assertCharge(res.requestCharge, METADATA_WRITE);
      const read = await c.scripts.trigger(id).read();
      assert.deepEqual(read.resource, r);
    }
  });

  it("an unknown triggerType or triggerOperation answers 400; missing fields answer 400 naming them", async () => {
    const t = container.scripts.triggers;
    for (const [type, op] of [
      ["pre", "Insert"],
      ["during", "Create"],
      ["pre", "Read"],
    ]) {
      await expectError(() => t.create({ id: uid("tr"), body: "function () {}", triggerType: type, triggerOperation: op }), 400, "BadRequest");
    }
    const noBody = await expectError(() => t.create({ id: uid("tr"), triggerType: "pre", triggerOperation: "all" }), 400, "BadRequest");
    assert.ok(
      noBody.body.message.includes("The input content is invalid because the required properties - 'body; ' - are missing"),
      noBody.body.message,
    );
    const noType = await expectError(() => t.create({ id: uid("tr"), body: "function () {}", triggerOperation: "all" }), 400, "BadRequest");
    assert.match(noType.body.message, /The input content is invalid because the required properties - '[^']*triggerType; [^']*' - are missing/);
    const noOp = await expectError(() => t.create({ id: uid("tr"), body: "function () {}", triggerType: "pre" }), 400, "BadRequest");
    assert.match(noOp.body.message, /The input content is invalid because the required properties - '[^']*triggerOperation; [^']*' - are missing/);
  });

  it("read, replace, readAll, delete; 409 on a duplicate id; 404 when missing", async () => {
    const { container: c, id: collId, rid } = await freshContainer();
    const triggers = c.scripts.triggers;
    const id = uid("tr");
    const def = { id, body: "function () {}", triggerType: "pre", triggerOperation: "create" };
    const created = (await triggers.create({ ...def })).resource;
    const dup = await expectError(() => triggers.create({ ...def }), 409, "Conflict");
    assertCharge(dup.headers["x-ms-request-charge"], REJECTED_WRITE);

    const replaced = await c.scripts.trigger(id).replace({ id, body: "function () { var y; }", triggerType: "post", triggerOperation: "all" });
    assert.equal(replaced.statusCode, 200);
    assert.equal(replaced.resource.triggerType, "Post");
    assert.equal(replaced.resource.triggerOperation, "All");
    assert.equal(replaced.resource.body, "function () { var y; }");
    assert.equal(replaced.resource._rid, created._rid);
    assert.notEqual(replaced.resource._etag, created._etag);
    assertCharge(replaced.requestCharge, METADATA_WRITE);
    assert.deepEqual((await c.scripts.trigger(id).read()).resource, replaced.resource);

    const all = await triggers.readAll().fetchAll();
    assert.deepEqual(all.resources.map((x) => x.id), [id]);
    const raw = await rawRequest(ctx.env, { method: "GET", path: `/dbs/${dbId}/colls/${collId}/triggers` });
    assert.equal(raw.status, 200, raw.text);
    assert.deepEqual(Object.keys(raw.json), ["_rid", "Triggers", "_count"]);
    assert.equal(raw.json._rid, rid);
    assert.equal(raw.json._count, 1);
    assert.deepEqual(raw.json.Triggers, [replaced.resource]);

    const del = await c.scripts.trigger(id).delete();
    assert.equal(del.statusCode, 204);
    assertCharge(del.requestCharge, METADATA_WRITE);
    await expectError(() => c.scripts.trigger(id).read(), 404, "NotFound");
    await expectError(() => c.scripts.trigger(id).delete(), 404, "NotFound");
    await expectError(() => c.scripts.trigger(id).replace({ ...def }), 404, "NotFound");
    assert.deepEqual((await triggers.readAll().fetchAll()).resources, []);
  });
});

describe("user-defined function resources", () => {
  it("create, read, replace, readAll, delete; 409; 404; missing body 400", async () => {
    const { container: c, id: collId, rid } = await freshContainer();
    const udfs = c.scripts.userDefinedFunctions;
    const id = uid("udf").replace(/-/g, "_"); // an identifier: udf.<id> in queries
    const res = await udfs.create({ id, body: "function (x) { return x * 2; }" });
    assert.equal(res.statusCode, 201);
    const r = res.resource;
    assert.deepEqual(Object.keys(r), ["body", "id", "_rid", "_ts", "_self", "_etag"]);
    assert.equal(r.body, "function (x) { return x * 2; }");
    assert.equal(r._self, `dbs/${await dbRid()}/colls/${rid}/udfs/${r._rid}/`);
    assertCharge(res.requestCharge, METADATA_WRITE);

    const read = await c.scripts.userDefinedFunction(id).read();
    assert.deepEqual(read.resource, r);
    assertCharge(read.requestCharge, METADATA_READ);
    const dup = await expectError(() => udfs.create({ id, body: "function () {}" }), 409, "Conflict");
    assertCharge(dup.headers["x-ms-request-charge"], REJECTED_WRITE);
    const noBody = await expectError(() => udfs.create({ id: uid("udf") }), 400, "BadRequest");
    assert.ok(
      noBody.body.message.includes("The input content is invalid because the required properties - 'body; ' - are missing"),
      noBody.body.message,
    );

    const replaced = await c.scripts.userDefinedFunction(id).replace({ id, body: "function (x) { return x * 3; }" });
    assert.equal(replaced.statusCode, 200);
    assert.equal(replaced.resource.body, "function (x) { return x * 3; }");
    assert.equal(replaced.resource._rid, r._rid);
    assert.notEqual(replaced.resource._etag, r._etag);
    await c.items.create({ id: "one", pk: "p", x: 5 });
    const q = await c.items.query(`SELECT VALUE udf.${id}(c.x) FROM c`).fetchAll();
    assert.deepEqual(q.resources, [15]);

    const raw = await rawRequest(ctx.env, { method: "GET", path: `/dbs/${dbId}/colls/${collId}/udfs` });
    assert.equal(raw.status, 200, raw.text);
    assert.deepEqual(Object.keys(raw.json), ["_rid", "UserDefinedFunctions", "_count"]);
    assert.equal(raw.json._rid, rid);
    assert.equal(raw.json._count, 1);
    assert.deepEqual(raw.json.UserDefinedFunctions, [replaced.resource]);
    assert.deepEqual((await udfs.readAll().fetchAll()).resources.map((u) => u.id), [id]);

    const del = await c.scripts.userDefinedFunction(id).delete();
    assert.equal(del.statusCode, 204);
    assertCharge(del.requestCharge, METADATA_WRITE);
    await expectError(() => c.scripts.userDefinedFunction(id).read(), 404, "NotFound");
    await expectError(() => c.scripts.userDefinedFunction(id).delete(), 404, "NotFound");
    assert.deepEqual((await udfs.readAll().fetchAll()).resources, []);
  });
});

// ---------------------------------------------------------------------------------------------

describe("executing stored procedures", () => {
  it("an empty sproc answers 200 with body \"\" and charge 5.2", async () => {
    const res = await run(function empty() {}, "p");
    assert.equal(res.statusCode, 200);
    assert.equal(res.resource, "");
    assertCharge(res.requestCharge, 5.2);
    assert.ok(res.headers["x-ms-request-charge"] !== undefined);
    assertSessionToken(res.headers["x-ms-session-token"]);
  });

  it("setBody with objects, arrays, strings, numbers, booleans and null; the last setBody wins", async () => {
    const sp = await createSproc(function echo(x) {
      getContext().getResponse().setBody("first");
      getContext().getResponse().setBody(x);
    });
    for (const v of [{ a: [1, { b: null }], s: "é\"\\" }, [1, "two", 3.5], "hello", "", 42, -3.25, 0, true, false]) {
      const res = await sp.execute("p", [v]);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.resource, v, JSON.stringify(v));
    }
    const res = await sp.execute("p", [null]);
    assert.equal(res.resource, null);
  });

  it("modern JS: template literals, const/let, arrow functions, default parameters, destructuring, spread, classes", async () => {
    const sp = await createSproc(function modern(a, { x, y = 2 } = {}, ...rest) {
      const sum = (...ns) => ns.reduce((s, n) => s + n, 0);
      let label = `a=${a} x=${x} y=${y}`;
      const [first = "none", ...others] = rest;
      const merged = { ...{ p: 1, q: 1 }, q: 2 };
      class Box {
        #v;
        constructor(v) {
          this.#v = v;
        }
        get doubled() {
          return this.#v * 2;
        }
      }
      const m = new Map([["k", 7]]);
      label += ` rest=${rest.length}`;
      getContext()
        .getResponse()
        .setBody({ label, total: sum(a, x ?? 0, y, ...rest), first, others, merged, boxed: new Box(a).doubled, k: m.get("k"), opt: rest?.[9]?.z ?? "dflt" });
    });
    const full = await sp.execute("p", [1, { x: 3 }, 4, 5]);
    assert.deepEqual(full.resource, {
      label: "a=1 x=3 y=2 rest=2",
      total: 15,
      first: 4,
      others: [5],
      merged: { p: 1, q: 2 },
      boxed: 2,
      k: 7,
      opt: "dflt",
    });
    const defaults = await sp.execute("p", [10]);
    assert.deepEqual(defaults.resource, {
      label: "a=10 x=undefined y=2 rest=0",
      total: 12,
      first: "none",
      others: [],
      merged: { p: 1, q: 2 },
      boxed: 20,
      k: 7,
      opt: "dflt",
    });
  });

  it("the collection links: getAltLink() is dbs/<db id>/colls/<coll id>, getSelfLink() the rid form", async () => {
    const res = await run(function links() {
      const coll = getContext().getCollection();
      getContext().getResponse().setBody({ self: coll.getSelfLink(), alt: coll.getAltLink() });
    }, "p");
    assert.equal(res.resource.alt, `dbs/${dbId}/colls/${COLL}`);
    assert.equal(res.resource.self.replace(/\/$/, ""), `dbs/${await dbRid()}/colls/${collRid}`);
  });

  it("the blog style: readDocument by alt link, replaceDocument by _self, createDocument, queryDocuments (text and parameterised)", async () => {
    const pk = uid("blog");
    const id = uid("post");
    await container.items.create({ id, pk, name: "old", n: 1 });
    await container.items.create({ id: uid("other"), pk: uid("elsewhere"), name: "new" }); // another partition
    const res = await run(
      function blog(id, newName) {
        var coll = getContext().getCollection();
        var accepted = coll.readDocument(`${coll.getAltLink()}/docs/${id}`, function (err, doc) {
          if (err) throw err;
          doc.name = newName;
          coll.replaceDocument(doc._self, doc, function (err2, replaced) {
            if (err2) throw err2;
            coll.createDocument(coll.getSelfLink(), { id: id + "-copy", pk: doc.pk, from: replaced._etag }, function (err3, created) {
              if (err3) throw err3;
              coll.queryDocuments(coll.getSelfLink(), `SELECT * FROM c WHERE c.id = '${id}'`, function (err4, docs) {
                if (err4) throw err4;
                var q = { query: "SELECT VALUE c.id FROM c WHERE c.name = @n", parameters: [{ name: "@n", value: newName }] };
                coll.queryDocuments(coll.getSelfLink(), q, function (err5, ids) {
                  if (err5) throw err5;
                  getContext()
                    .getResponse()
                    .setBody({ accepted: accepted, name: docs[0].name, n: docs[0].n, copy: created.id, from: created.from, etag: replaced._etag, ids: ids });
                });
              });
            });
          });
        });
      },
      pk,
      [id, "new"],
    );
    assert.equal(res.statusCode, 200);
    const item = await stored(id, pk);
    assert.equal(item.name, "new");
    assert.deepEqual(res.resource, {
      accepted: true,
      name: "new",
      n: 1,
      copy: `${id}-copy`,
      from: item._etag,
      etag: item._etag,
      ids: [id], // the other partition's "new" item is not visible
    });
    const copy = await stored(`${id}-copy`, pk);
    assert.equal(copy.from, item._etag);
  });

  it("createDocument without a callback writes; every call returns true", async () => {
    const pk = uid("nocb");
    const res = await run(
      function noCallback(pk) {
        const coll = getContext().getCollection();
        const a = coll.createDocument(coll.getSelfLink(), { id: "nc1", pk, v: 1 });
        const b = coll.createDocument(coll.getAltLink(), { id: "nc2", pk, v: 2 });
        getContext().getResponse().setBody([a, b]);
      },
      pk,
      [pk],
    );
    assert.deepEqual(res.resource, [true, true]);
    assert.equal((await stored("nc1", pk)).v, 1);
    assert.equal((await stored("nc2", pk)).v, 2);
  });

  it("the charge is 5.2 + 0.35 * the standalone charges of the script's operations", async () => {
    const pk = uid("charge");
    const id = uid("c");
    const res = await run(
      function createAndRead(id, pk) {
        const coll = getContext().getCollection();
        coll.createDocument(coll.getSelfLink(), { id, pk, name: "charged", tags: ["a", "b", "c"] }, (err) => {
          if (err) throw err;
          coll.readDocument(`${coll.getAltLink()}/docs/${id}`, (err2, doc) => {
            if (err2) throw err2;
            getContext().getResponse().setBody(doc.id);
          });
        });
      },
      pk,
      [id, pk],
    );
    assert.equal(res.resource, id);
    const doc = await stored(id, pk);
    assertCharge(res.requestCharge, round2(5.2 + 0.35 * (createCharge(doc) + readCharge(doc))));

    // a replace: 5.2 + 0.35 * (read + replace)
    const res2 = await run(
      function bump(id) {
        const coll = getContext().getCollection();
        coll.readDocument(`${coll.getAltLink()}/docs/${id}`, (err, doc) => {
          if (err) throw err;
          doc.name = "charged twice";
          coll.replaceDocument(doc._self, doc, (err2) => {
            if (err2) throw err2;
          });
        });
      },
      pk,
      [id],
    );
    const after = await stored(id, pk);
    assert.equal(after.name, "charged twice");
    assertCharge(res2.requestCharge, round2(5.2 + 0.35 * (readCharge(doc) + replaceCharge(after))));
  });

  it("upsertDocument inserts then replaces; deleteDocument's callback is (err, responseOptions)", async () => {
    const pk = uid("ups");
    const id = uid("u");
    const res = await run(
      function upsertThenDelete(pk, id) {
        const coll = getContext().getCollection();
        coll.upsertDocument(coll.getSelfLink(), { id, pk, v: 1 }, (e1, first) => {
          if (e1) throw e1;
          coll.upsertDocument(coll.getAltLink(), { ...first, v: 2 }, (e2, second) => {
            if (e2) throw e2;
            coll.upsertDocument(coll.getSelfLink(), { id: id + "-gone", pk }, (e3, gone) => {
              if (e3) throw e3;
              coll.deleteDocument(gone._self, (e4, opts, extra) => {
                coll.deleteDocument(`${coll.getAltLink()}/docs/${id}-never`, {}, (e5, opts5) => {
                  getContext()
                    .getResponse()
                    .setBody({
                      first: first.v,
                      second: second.v,
                      sameRid: first._rid === second._rid,
                      deleted: !e4,
                      opts: typeof opts,
                      extra: extra === undefined,
                      missing: e5 && e5.number,
                    });
                });
              });
            });
          });
        });
      },
      pk,
      [pk, id],
    );
    assert.deepEqual(res.resource, { first: 1, second: 2, sameRid: true, deleted: true, opts: "object", extra: true, missing: 404 });
    assert.equal((await stored(id, pk)).v, 2);
    await assertMissing(`${id}-gone`, pk);
  });

  it("readDocument of a missing item gives err.number 404 to the callback", async () => {
    const res = await run(function readMissing() {
      const coll = getContext().getCollection();
      coll.readDocument(`${coll.getAltLink()}/docs/nope`, (err, doc) => {
        getContext().getResponse().setBody({ number: err && err.number, doc: doc === undefined });
      });
    }, uid("rm"));
    assert.deepEqual(res.resource, { number: 404, doc: true });
  });

  it("readDocuments pages the logical partition with pageSize and continuation", async () => {
    const pk = uid("pages");
    const ids = ["r1", "r2", "r3", "r4", "r5"];
    for (const id of ids) await container.items.create({ id, pk });
    await container.items.create({ id: "r6", pk: uid("notme") });
    const res = await run(
      function pages(size) {
        const coll = getContext().getCollection();
        const seen = [];
        const next = (continuation) =>
          coll.readDocuments(coll.getSelfLink(), { pageSize: size, continuation }, (err, docs, opts) => {
            if (err) throw err;
            seen.push(docs.map((d) => d.id));
            if (opts.continuation) next(opts.continuation);
            else getContext().getResponse().setBody(seen);
          });
        next(undefined);
      },
      pk,
      [2],
    );
    const pagesSeen = res.resource;
    assert.deepEqual(pagesSeen.map((p) => p.length), [2, 2, 1]);
    assert.deepEqual(pagesSeen.flat().sort(), ids);

    // queryDocuments pages the same way
    const q = await run(
      function queryPages() {
        const coll = getContext().getCollection();
        const seen = [];
        const next = (continuation) =>
          coll.queryDocuments(coll.getSelfLink(), "SELECT VALUE c.id FROM c", { pageSize: 3, continuation }, (err, docs, opts) => {
            if (err) throw err;
            seen.push(docs);
            if (opts.continuation) next(opts.continuation);
            else getContext().getResponse().setBody(seen);
          });
        next(undefined);
      },
      pk,
    );
    assert.deepEqual(q.resource.map((p) => p.length), [3, 2]);
    assert.deepEqual(q.resource.flat().sort(), ids);
  });

  it("the etag option: a stale etag gives err.number 412 to replace, upsert and delete; ifNoneMatch on read", async () => {
    const pk = uid("etag");
    const id = uid("e");
    await container.items.create({ id, pk, v: 1 });
    const res = await run(
      function etags(id) {
        const coll = getContext().getCollection();
        const link = `${coll.getAltLink()}/docs/${id}`;
        coll.readDocument(link, (err, doc) => {
          if (err) throw err;
          coll.replaceDocument(doc._self, { ...doc, v: 2 }, { etag: '"stale"' }, (e1) => {
            coll.replaceDocument(doc._self, { ...doc, v: 3 }, { etag: doc._etag }, (e2, r2) => {
              if (e2) throw e2;
              coll.upsertDocument(coll.getSelfLink(), { ...doc, v: 4 }, { etag: doc._etag }, (e3) => {
                coll.deleteDocument(link, { etag: doc._etag }, (e4) => {
                  coll.readDocument(link, { ifNoneMatch: r2._etag }, (e5, notModified, opts5) => {
                    getContext()
                      .getResponse()
                      .setBody({
                        replaceStale: e1 && e1.number,
                        replaced: r2.v,
                        upsertStale: e3 && e3.number,
                        deleteStale: e4 && e4.number,
                        readErr: e5 ? e5.number : null,
                        notModifiedDoc: notModified === undefined,
                        notModifiedFlag: opts5 && opts5.notModified,
                      });
                  });
                });
              });
            });
          });
        });
      },
      pk,
      [id],
    );
    assert.deepEqual(res.resource, {
      replaceStale: 412,
      replaced: 3,
      upsertStale: 412,
      deleteStale: 412,
      readErr: null,
      notModifiedDoc: true,
      notModifiedFlag: true,
    });
    assert.equal((await stored(id, pk)).v, 3);
  });

  it("createDocument/upsertDocument without an id generate a GUID id unless disableAutomaticIdGeneration", async () => {
    const pk = uid("autoid");
    const res = await run(
      function autoId(pk) {
        const coll = getContext().getCollection();
        coll.createDocument(coll.getSelfLink(), { pk, v: 1 }, (e1, a) => {
          if (e1) throw e1;
          coll.upsertDocument(coll.getSelfLink(), { pk, v: 2 }, (e2, b) => {
            if (e2) throw e2;
            coll.createDocument(coll.getSelfLink(), { pk, v: 3 }, { disableAutomaticIdGeneration: true }, (e3) => {
              getContext()
                .getResponse()
                .setBody({ a: a.id, b: b.id, disabled: e3 && e3.number });
            });
          });
        });
      },
      pk,
      [pk],
    );
    const { a, b, disabled } = res.resource;
    assert.match(a, GUID);
    assert.match(b, GUID);
    assert.notEqual(a, b);
    assert.equal(disabled, 400);
    assert.equal((await stored(a, pk)).v, 1);
    assert.equal((await stored(b, pk)).v, 2);
    const all = await container.items.query("SELECT VALUE c.v FROM c", { partitionKey: pk }).fetchAll();
    assert.deepEqual(all.resources.sort(), [1, 2]);
  });

  it("the __ API: filter, map, pluck, sortBy, sortByDescending, unwind, chain().value(); returns {isAccepted}", async () => {
    const pk = uid("under");
    const docs = [
      { id: "u1", n: 3, kind: "fruit", name: "apple", tags: ["a", "b"] },
      { id: "u2", n: 1, kind: "veg", name: "carrot", tags: ["c"] },
      { id: "u3", n: 5, kind: "fruit", name: "banana", tags: [] },
      { id: "u4", n: 2, kind: "fruit", name: "cherry", tags: ["d"] },
      { id: "u5", n: 4, kind: "veg", name: "daikon", tags: ["e", "f"] },
    ];
    for (const d of docs) await container.items.create({ ...d, pk });
    await container.items.create({ id: "u6", pk: uid("notme"), n: 0, kind: "fruit", name: "zzz", tags: ["z"] });
    const res = await run(function underscore() {
      const out = {};
      const done = () => getContext().getResponse().setBody(out);
      const r = __.filter(
        (d) => d.kind === "fruit",
        (err, found) => {
          if (err) throw err;
          out.filter = found.map((d) => d.id).sort();
          done();
        },
      );
      out.accepted = r.isAccepted;
      __.map(
        (d) => ({ id: d.id, twice: d.n * 2 }),
        (err, mapped) => {
          if (err) throw err;
          out.map = mapped.map((m) => m.twice).sort((x, y) => x - y);
          done();
        },
      );
      __.pluck("name", (err, names) => {
        if (err) throw err;
        out.pluck = names.sort();
        done();
      });
      __.sortBy(
        (d) => d.n,
        (err, sorted) => {
          if (err) throw err;
          out.sortBy = sorted.map((d) => d.id);
          done();
        },
      );
      __.sortByDescending(
        (d) => d.n,
        (err, sorted) => {
          if (err) throw err;
          out.sortByDescending = sorted.map((d) => d.id);
          done();
        },
      );
      const c = __.chain()
        .filter((d) => d.kind === "fruit")
        .sortBy((d) => d.n)
        .pluck("name")
        .value((err, names) => {
          if (err) throw err;
          out.chain = names;
          done();
        });
      out.chainAccepted = c.isAccepted;
      __.chain()
        .filter((d) => d.kind === "veg")
        .unwind(
          (d) => d.tags,
          (d, t) => `${d.id}:${t}`,
        )
        .value((err, pairs) => {
          if (err) throw err;
          out.unwind = pairs.sort();
          done();
        });
    }, pk);
    assert.deepEqual(res.resource, {
      accepted: true,
      chainAccepted: true,
      filter: ["u1", "u3", "u4"],
      map: [2, 4, 6, 8, 10],
      pluck: ["apple", "banana", "carrot", "cherry", "daikon"],
      sortBy: ["u2", "u4", "u1", "u5", "u3"],
      sortByDescending: ["u3", "u5", "u1", "u4", "u2"],
      chain: ["cherry", "apple", "banana"],
      unwind: ["u2:c", "u5:e", "u5:f"],
    });

    // without a callback the results are appended to the response body (as JSON text)
    const appended = await run(function appendToBody() {
      __.chain()
        .filter((d) => d.n <= 2)
        .sortBy((d) => d.n)
        .pluck("id")
        .value();
    }, pk);
    assert.equal(typeof appended.resource, "string");
    assert.deepEqual(JSON.parse(appended.resource), ["u2", "u4"]);
  });

  it("the partition key header is required on a partitioned container", async () => {
    const sp = await createSproc(function () {});
    const path = `/dbs/${dbId}/colls/${COLL}/sprocs/${sp.id}`;
    const missing = await rawRequest(ctx.env, { method: "POST", path, body: "[]" });
    assert.equal(missing.status, 400, missing.text);
    assert.equal(missing.json.code, "BadRequest");
    const ok = await rawRequest(ctx.env, { method: "POST", path, body: "[]", headers: { "x-ms-documentdb-partitionkey": pkHeader("p") } });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.text, '""');
  });
});

// ---------------------------------------------------------------------------------------------

describe("sproc errors and transactions", () => {
  it("a script that creates 3 items then throws answers 400 and none of the 3 exist", async () => {
    const pk = uid("tx");
    const err = await expectError(
      () =>
        run(
          function threeThenThrow(pk) {
            const coll = getContext().getCollection();
            coll.createDocument(coll.getSelfLink(), { id: "t1", pk }, (e1) => {
              if (e1) throw e1;
              coll.createDocument(coll.getSelfLink(), { id: "t2", pk }, (e2) => {
                if (e2) throw e2;
                coll.createDocument(coll.getSelfLink(), { id: "t3", pk }, (e3) => {
                  if (e3) throw e3;
                  throw new Error("boom");
                });
              });
            });
          },
          pk,
          [pk],
        ),
      400,
      "BadRequest",
    );
    assert.ok(err.body.message.includes(`${EXEC}Error: boom`), err.body.message);
    assert.ok(err.body.message.includes("Stack trace: "), err.body.message);
    assertNoSubstatus(err);
    for (const id of ["t1", "t2", "t3"]) await assertMissing(id, pk);
  });

  it("a synchronous throw after queued writes rolls them back too", async () => {
    const pk = uid("tx");
    await expectError(
      () =>
        run(
          function queuedThenThrow(pk) {
            const coll = getContext().getCollection();
            for (const id of ["s1", "s2", "s3"]) coll.createDocument(coll.getSelfLink(), { id, pk });
            coll.upsertDocument(coll.getSelfLink(), { id: "s4", pk });
            throw new Error("after queueing");
          },
          pk,
          [pk],
        ),
      400,
      "BadRequest",
    );
    for (const id of ["s1", "s2", "s3", "s4"]) await assertMissing(id, pk);
  });

  it("a throw rolls back replaces and deletes of existing items", async () => {
    const pk = uid("tx");
    await container.items.create({ id: "keep", pk, v: 1 });
    await container.items.create({ id: "kept", pk, v: 1 });
    await expectError(
      () =>
        run(
          function mutateThenThrow() {
            const coll = getContext().getCollection();
            coll.readDocument(`${coll.getAltLink()}/docs/keep`, (err, doc) => {
              if (err) throw err;
              coll.replaceDocument(doc._self, { ...doc, v: 2 }, (e2) => {
                if (e2) throw e2;
                coll.deleteDocument(`${coll.getAltLink()}/docs/kept`, (e3) => {
                  if (e3) throw e3;
                  throw "str";
                });
              });
            });
          },
          pk,
        ),
      400,
      "BadRequest",
    );
    assert.equal((await stored("keep", pk)).v, 1);
    assert.equal((await stored("kept", pk)).v, 1);
  });

  it("throw \"str\" answers 400 with 'Exception = str'", async () => {
    const err = await expectError(
      () =>
        run(function throwString() {
          throw "plain string";
        }, "p"),
      400,
      "BadRequest",
    );
    assert.ok(err.body.message.includes(`${EXEC}plain string`), err.body.message);
    assertNoSubstatus(err);
  });

  it("new Error(1234, 'custom') answers 400 with substatus 1234", async () => {
    const err = await expectError(
      () =>
        run(function customNumber() {
          throw new Error(1234, "custom");
        }, "p"),
      400,
      "BadRequest",
      1234,
    );
    assert.ok(err.body.message.includes(`${EXEC}Error: custom`), err.body.message);
    assert.equal(err.headers["x-ms-substatus"], "1234");
  });

  it("new Error(409, msg) sets err.number inside the script", async () => {
    const res = await run(function errorNumber() {
      const e = new Error(409, "conflicting");
      const plain = new Error("plain");
      getContext().getResponse().setBody({ number: e.number, message: e.message, plain: plain.message });
    }, "p");
    assert.deepEqual(res.resource, { number: 409, message: "conflicting", plain: "plain" });
  });

  it("a rethrown 409 from createDocument answers 400 with substatus 409, and rolls back", async () => {
    const pk = uid("dup");
    await container.items.create({ id: "exists", pk });
    const err = await expectError(
      () =>
        run(
          function rethrow(pk) {
            const coll = getContext().getCollection();
            coll.createDocument(coll.getSelfLink(), { id: "fresh", pk }, (e1) => {
              if (e1) throw e1;
              coll.createDocument(coll.getSelfLink(), { id: "exists", pk }, (e2) => {
                if (e2) throw e2;
              });
            });
          },
          pk,
          [pk],
        ),
      400,
      "BadRequest",
      409,
    );
    assert.ok(err.body.message.includes(EXEC), err.body.message);
    await assertMissing("fresh", pk);
  });

  it("the callback's err for a conflict has number 409; handling it lets the script commit", async () => {
    const pk = uid("dup");
    await container.items.create({ id: "exists", pk });
    const res = await run(
      function handled(pk) {
        const coll = getContext().getCollection();
        coll.createDocument(coll.getSelfLink(), { id: "exists", pk }, (err) => {
          coll.createDocument(coll.getSelfLink(), { id: "after", pk }, (e2) => {
            if (e2) throw e2;
            getContext().getResponse().setBody({ number: err && err.number, hasMessage: typeof err.message === "string" });
          });
        });
      },
      pk,
      [pk],
    );
    assert.deepEqual(res.resource, { number: 409, hasMessage: true });
    await stored("after", pk);
  });

  it("a write to another partition key value gives the callback err.number 400 with the service message", async () => {
    const pk = uid("mine");
    const other = uid("theirs");
    const res = await run(
      function otherPartition(pk, other) {
        const coll = getContext().getCollection();
        coll.createDocument(coll.getSelfLink(), { id: "x", pk: other }, (err) => {
          coll.upsertDocument(coll.getSelfLink(), { id: "y", pk: other }, (err2) => {
            coll.createDocument(coll.getSelfLink(), { id: "z", pk }, (err3) => {
              if (err3) throw err3;
              getContext()
                .getResponse()
                .setBody({ n1: err && err.number, m1: err && err.message, n2: err2 && err2.number, m2: err2 && err2.message });
            });
          });
        });
      },
      pk,
      [pk, other],
    );
    assert.equal(res.resource.n1, 400);
    assert.equal(res.resource.n2, 400);
    assert.ok(String(res.resource.m1).includes(OTHER_PK), res.resource.m1);
    assert.ok(String(res.resource.m2).includes(OTHER_PK), res.resource.m2);
    await assertMissing("x", other);
    await assertMissing("y", other);
    await stored("z", pk);
  });

  it("a link to another collection throws at once: caught it carries number 400, uncaught the execution answers 400/400", async () => {
    const res = await run(function otherCollection() {
      const coll = getContext().getCollection();
      const db = coll.getAltLink().split("/")[1];
      let called = false;
      try {
        coll.readDocument(`dbs/${db}/colls/someOtherColl/docs/x`, () => { called = true; });
        getContext().getResponse().setBody("no throw");
      } catch (e) {
        getContext().getResponse().setBody({ number: e.number, message: e.message, called });
      }
    }, "p");
    assert.equal(res.resource.number, 400);
    assert.equal(res.resource.called, false);
    assert.ok(res.resource.message.includes("Function is not allowed to operate on resources outside current collection"), res.resource.message);
    const sp = await createSproc(function uncaught() {
      getContext().getCollection().createDocument("dbs/x/colls/y", { id: "a", pk: "p" });
    });
    const err = await expectError(() => sp.execute("p", []), 400, "BadRequest");
    assert.equal(err.substatus, 400);
    assert.ok(err.body.message.includes("Function is not allowed to operate on resources outside current collection"), err.body.message);
  });

  it("a body that does not compile answers 400 'Encountered exception while compiling Javascript'", async () => {
    const sp = await createSproc("function () { This is to create a Compile Error! }");
    const err = await expectError(() => sp.execute("p", []), 400, "BadRequest");
    assert.ok(err.body.message.includes("Encountered exception while compiling Javascript. Exception = SyntaxError"), err.body.message);
    // the server is fine afterwards
    assert.equal((await run(function ok() { getContext().getResponse().setBody(1); }, "p")).resource, 1);
  });

  it("50 concurrent executions of a read-modify-write counter on one item are serialised", async () => {
    const pk = uid("ctr");
    const id = uid("counter");
    await container.items.create({ id, pk, count: 0 });
    const sp = await createSproc(function increment(id) {
      const coll = getContext().getCollection();
      coll.readDocument(`${coll.getAltLink()}/docs/${id}`, (err, doc) => {
        if (err) throw err;
        doc.count += 1;
        coll.replaceDocument(doc._self, doc, { etag: doc._etag }, (err2) => {
          if (err2) throw err2;
          getContext().getResponse().setBody(doc.count);
        });
      });
    });
    const results = await Promise.all(Array.from({ length: 50 }, () => sp.execute(pk, [id])));
    for (const r of results) assert.equal(r.statusCode, 200);
    assert.deepEqual(
      results.map((r) => r.resource).sort((a, b) => a - b),
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
    assert.equal((await stored(id, pk)).count, 50);
  });

  it("writes made by a sproc appear in the change feed, each with its own _lsn, in order", async () => {
    const pk = uid("cf");
    const res = await run(
      function writes(pk) {
        const coll = getContext().getCollection();
        coll.createDocument(coll.getSelfLink(), { id: "x", pk, v: 1 }, (e1) => {
          if (e1) throw e1;
          coll.createDocument(coll.getSelfLink(), { id: "y", pk, v: 1 }, (e2) => {
            if (e2) throw e2;
            coll.createDocument(coll.getSelfLink(), { id: "z", pk, v: 1 }, (e3) => {
              if (e3) throw e3;
              coll.upsertDocument(coll.getSelfLink(), { id: "x", pk, v: 2 }, (e4) => {
                if (e4) throw e4;
              });
            });
          });
        });
      },
      pk,
      [pk],
    );
    const sessionLsn = assertSessionToken(res.headers["x-ms-session-token"]);
    const iterator = container.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning(pk) });
    const docs = [];
    for (let i = 0; i < 10 && iterator.hasMoreResults; i++) {
      const page = await iterator.readNext();
      if (page.statusCode === 304) break;
      docs.push(...page.result);
    }
    assert.deepEqual(
      docs.map((d) => [d.id, d.v]),
      [
        ["y", 1],
        ["z", 1],
        ["x", 2],
      ],
    );
    const [y, z, x] = docs;
    assert.equal(z._lsn, y._lsn + 1);
    assert.equal(x._lsn, z._lsn + 1);
    assert.equal(sessionLsn, x._lsn);
  });
});

// ---------------------------------------------------------------------------------------------

describe("triggers on item writes", () => {
  function stampPre() {
    const req = getContext().getRequest();
    const doc = req.getBody();
    doc.stamp = `pre-${req.getOperationType()}`;
    req.setBody(doc);
  }
  function noop() {}

  it("a pre-trigger adds a property on create, upsert and replace (getOperationType); charge = write + 5.2", async () => {
    const t = await createTrigger(stampPre, "pre", "all");
    const pk = uid("pre");
    const created = await container.items.create({ id: "a", pk, v: 1 }, { preTriggerInclude: [t] });
    assert.equal(created.statusCode, 201);
    assert.equal(created.resource.stamp, "pre-Create");
    assert.equal((await stored("a", pk)).stamp, "pre-Create");
    assertCharge(created.requestCharge, round2(createCharge(created.resource) + 5.2));

    const upserted = await container.items.upsert({ id: "b", pk, v: 1 }, { preTriggerInclude: [t] });
    assert.equal(upserted.statusCode, 201);
    assert.equal(upserted.resource.stamp, "pre-Upsert");
    const upserted2 = await container.items.upsert({ id: "b", pk, v: 2 }, { preTriggerInclude: t });
    assert.equal(upserted2.statusCode, 200);
    assert.equal(upserted2.resource.stamp, "pre-Upsert");
    assert.equal(upserted2.resource.v, 2);

    const replaced = await container.item("a", pk).replace({ id: "a", pk, v: 3 }, { preTriggerInclude: [t] });
    assert.equal(replaced.statusCode, 200);
    assert.equal(replaced.resource.stamp, "pre-Replace");
    const read = await stored("a", pk);
    assert.equal(read.stamp, "pre-Replace");
    assert.equal(read.v, 3);
    assertCharge(replaced.requestCharge, round2(replaceCharge(read) + 5.2));

    // without the header the trigger does not run
    const plain = await container.items.create({ id: "c", pk });
    assert.equal(plain.resource.stamp, undefined);
  });

  it("a pre-trigger sees Delete on delete; throwing there keeps the item", async () => {
    const guard = await createTrigger(
      function guardDelete() {
        if (getContext().getRequest().getOperationType() === "Delete") throw new Error(403, "no deletes");
      },
      "pre",
      "all",
    );
    const pk = uid("del");
    await container.items.create({ id: "d", pk }, { preTriggerInclude: [guard] });
    const err = await expectError(() => container.item("d", pk).delete({ preTriggerInclude: [guard] }), 400, "BadRequest", 403);
    assert.ok(err.body.message.includes(`${EXEC}Error: no deletes`), err.body.message);
    await stored("d", pk);
    const delTrigger = await createTrigger(noop, "pre", "delete");
    const del = await container.item("d", pk).delete({ preTriggerInclude: [delTrigger] });
    assert.equal(del.statusCode, 204);
    await assertMissing("d", pk);
  });

  it("a pre-trigger that throws answers 400 (substatus = err.number) and nothing is written", async () => {
    const t = await createTrigger(
      function reject() {
        throw new Error(409, "Error 409");
      },
      "pre",
      "all",
    );
    const pk = uid("prex");
    const err = await expectError(() => container.items.create({ id: "n", pk }, { preTriggerInclude: [t] }), 400, "BadRequest", 409);
    assert.ok(err.body.message.includes(`${EXEC}Error: Error 409`), err.body.message);
    await assertMissing("n", pk);
    await container.items.create({ id: "m", pk, v: 1 });
    await expectError(() => container.items.upsert({ id: "m", pk, v: 2 }, { preTriggerInclude: [t] }), 400, "BadRequest", 409);
    await expectError(() => container.item("m", pk).replace({ id: "m", pk, v: 3 }, { preTriggerInclude: [t] }), 400, "BadRequest", 409);
    assert.equal((await stored("m", pk)).v, 1);
  });

  it("a pre-trigger may not change the partition key, and has no getResponse()", async () => {
    const movePk = await createTrigger(
      function movePk() {
        const req = getContext().getRequest();
        const doc = req.getBody();
        doc.pk = doc.pk + "-moved";
        req.setBody(doc);
      },
      "pre",
      "create",
    );
    const pk = uid("mv");
    await expectError(() => container.items.create({ id: "k", pk }, { preTriggerInclude: [movePk] }), 400, "BadRequest");
    await assertMissing("k", pk);
    await assertMissing("k", `${pk}-moved`);

    const resp = await createTrigger(
      function usesResponse() {
        getContext().getResponse().setBody({});
      },
      "pre",
      "create",
    );
    await expectError(() => container.items.create({ id: "r", pk }, { preTriggerInclude: [resp] }), 400, "BadRequest");
    await assertMissing("r", pk);
  });

  it("a post-trigger writes a second item in the same partition; both exist; charge adds 5.2 + 0.35 * inner", async () => {
    const audit = await createTrigger(
      function audit() {
        const coll = getContext().getCollection();
        const doc = getContext().getResponse().getBody();
        coll.createDocument(coll.getSelfLink(), { id: `${doc.id}-audit`, pk: doc.pk, of: doc._rid, etag: doc._etag }, (err) => {
          if (err) throw err;
        });
      },
      "post",
      "create",
    );
    const pk = uid("post");
    const res = await container.items.create({ id: "main", pk, v: 1 }, { postTriggerInclude: [audit] });
    assert.equal(res.statusCode, 201);
    const main = await stored("main", pk);
    assert.deepEqual(res.resource, main);
    const log = await stored("main-audit", pk);
    assert.equal(log.of, main._rid);
    assert.equal(log.etag, main._etag);
    if (LOCAL) {
      const own = createCharge(main);
      const inner = createCharge(log);
      const charge = Number(res.requestCharge);
      // the trigger's share rounded on its own or not: both are the spec's formula
      const candidates = [round2(own + 5.2 + 0.35 * inner), round2(own + round2(5.2 + 0.35 * inner))];
      assert.ok(candidates.includes(charge), `charge ${charge}, expected ${candidates.join(" or ")}`);
    }

    // pre and post together
    const stamp = await createTrigger(stampPre, "pre", "all");
    const both = await container.items.create({ id: "both", pk }, { preTriggerInclude: [stamp], postTriggerInclude: [audit] });
    assert.equal(both.resource.stamp, "pre-Create");
    assert.equal((await stored("both-audit", pk)).of, both.resource._rid);
  });

  it("a post-trigger's getResponse().setBody changes the response, not the stored item", async () => {
    const t = await createTrigger(
      function decorate() {
        const res = getContext().getResponse();
        const body = res.getBody();
        body.decorated = true;
        res.setBody(body);
      },
      "post",
      "all",
    );
    const pk = uid("deco");
    const res = await container.items.create({ id: "d", pk }, { postTriggerInclude: [t] });
    assert.equal(res.resource.decorated, true);
    assert.equal(res.resource.id, "d");
    assert.equal((await stored("d", pk)).decorated, undefined);
  });

  it("a post-trigger that throws answers 400 and the write is rolled back (create, replace, delete)", async () => {
    const t = await createTrigger(
      function fail() {
        const coll = getContext().getCollection();
        const doc = getContext().getResponse().getBody();
        if (doc && doc.pk) coll.createDocument(coll.getSelfLink(), { id: `side-${Math.random()}`, pk: doc.pk }, () => {});
        throw new Error(4444, "Error 4444");
      },
      "post",
      "all",
    );
    const pk = uid("postx");
    const err = await expectError(() => container.items.create({ id: "o", pk }, { postTriggerInclude: [t] }), 400, "BadRequest", 4444);
    assert.ok(err.body.message.includes(`${EXEC}Error: Error 4444`), err.body.message);
    await assertMissing("o", pk);
    await container.items.create({ id: "p", pk, v: 1 });
    await expectError(() => container.item("p", pk).replace({ id: "p", pk, v: 2 }, { postTriggerInclude: [t] }), 400, "BadRequest", 4444);
    await expectError(() => container.items.upsert({ id: "p", pk, v: 3 }, { postTriggerInclude: [t] }), 400, "BadRequest", 4444);
    await expectError(() => container.item("p", pk).delete({ postTriggerInclude: [t] }), 400, "BadRequest", 4444);
    assert.equal((await stored("p", pk)).v, 1);
    const left = await container.items.query("SELECT VALUE c.id FROM c", { partitionKey: pk }).fetchAll();
    assert.deepEqual(left.resources, ["p"]); // the side writes were rolled back too
  });

  it("a trigger whose operation does not match answers 400 and nothing is written", async () => {
    const tCreate = await createTrigger(noop, "pre", "create");
    const tReplace = await createTrigger(noop, "pre", "replace");
    const tUpdate = await createTrigger(noop, "pre", "update");
    const tDelete = await createTrigger(noop, "pre", "delete");
    const postDelete = await createTrigger(noop, "post", "delete");
    const pk = uid("op");
    const pre = (t) => ({ preTriggerInclude: [t] });

    // create: Create (and All) only
    await expectError(() => container.items.create({ id: "c1", pk }, pre(tReplace)), 400);
    await expectError(() => container.items.create({ id: "c1", pk }, pre(tUpdate)), 400);
    await expectError(() => container.items.create({ id: "c1", pk }, pre(tDelete)), 400);
    await expectError(() => container.items.create({ id: "c1", pk }, { postTriggerInclude: [postDelete] }), 400);
    await assertMissing("c1", pk);
    assert.equal((await container.items.create({ id: "c1", pk, v: 1 }, pre(tCreate))).statusCode, 201);

    // upsert that inserts: Create
    await expectError(() => container.items.upsert({ id: "u1", pk }, pre(tReplace)), 400);
    await assertMissing("u1", pk);
    assert.equal((await container.items.upsert({ id: "u1", pk, v: 1 }, pre(tCreate))).statusCode, 201);
    // upsert that replaces: Replace / Update
    await expectError(() => container.items.upsert({ id: "u1", pk, v: 2 }, pre(tCreate)), 400);
    assert.equal((await stored("u1", pk)).v, 1);
    assert.equal((await container.items.upsert({ id: "u1", pk, v: 3 }, pre(tReplace))).statusCode, 200);
    assert.equal((await container.items.upsert({ id: "u1", pk, v: 4 }, pre(tUpdate))).statusCode, 200);

    // replace: Replace / Update
    await expectError(() => container.item("c1", pk).replace({ id: "c1", pk, v: 2 }, pre(tCreate)), 400);
    await expectError(() => container.item("c1", pk).replace({ id: "c1", pk, v: 2 }, pre(tDelete)), 400);
    assert.equal((await stored("c1", pk)).v, 1);
    assert.equal((await container.item("c1", pk).replace({ id: "c1", pk, v: 3 }, pre(tReplace))).statusCode, 200);
    assert.equal((await container.item("c1", pk).replace({ id: "c1", pk, v: 4 }, pre(tUpdate))).statusCode, 200);

    // delete: Delete
    await expectError(() => container.item("c1", pk).delete(pre(tCreate)), 400);
    await expectError(() => container.item("c1", pk).delete(pre(tReplace)), 400);
    await stored("c1", pk);
    assert.equal((await container.item("c1", pk).delete(pre(tDelete))).statusCode, 204);
    assert.equal((await container.item("u1", pk).delete({ postTriggerInclude: [postDelete] })).statusCode, 204);
  });

  it("a trigger of the wrong type answers 400; two pre (or post) triggers answer 400; an unknown trigger 404", async () => {
    const pre1 = await createTrigger(noop, "pre", "all");
    const pre2 = await createTrigger(noop, "pre", "all");
    const post1 = await createTrigger(noop, "post", "all");
    const post2 = await createTrigger(noop, "post", "all");
    const pk = uid("kind");
    await expectError(() => container.items.create({ id: "w", pk }, { preTriggerInclude: [post1] }), 400, "BadRequest");
    await expectError(() => container.items.create({ id: "w", pk }, { postTriggerInclude: [pre1] }), 400, "BadRequest");
    await expectError(() => container.items.create({ id: "w", pk }, { preTriggerInclude: [pre1, pre2] }), 400, "BadRequest");
    await expectError(() => container.items.create({ id: "w", pk }, { postTriggerInclude: [post1, post2] }), 400, "BadRequest");
    await expectError(() => container.items.create({ id: "w", pk }, { preTriggerInclude: [uid("nope")] }), 404, "NotFound");
    await expectError(() => container.items.create({ id: "w", pk }, { postTriggerInclude: [uid("nope")] }), 404, "NotFound");
    await assertMissing("w", pk);
    const ok = await container.items.create({ id: "w", pk }, { preTriggerInclude: [pre1], postTriggerInclude: [post1] });
    assert.equal(ok.statusCode, 201);
  });
});

// ---------------------------------------------------------------------------------------------

describe("UDFs in queries", () => {
  it("SELECT udf.f(c.x) and WHERE udf.g(c) = true, single-partition and cross-partition", async () => {
    const { container: c } = await freshContainer(
      { initialHeaders: { "x-cosmos-emulator-partition-count": "4" } },
      { paths: ["/pk"], version: 2 },
    );
    await createUdf(
      "tax",
      function tax(income) {
        return income * 0.1;
      },
      c,
    );
    await createUdf(
      "isEven",
      function isEven(doc) {
        return doc.n % 2 === 0;
      },
      c,
    );
    await createUdf(
      "label",
      function label({ id, n }, prefix = "#") {
        return `${prefix}${id}:${n}`;
      },
      c,
    );
    for (let i = 0; i < 8; i++) await c.items.create({ id: `i${i}`, pk: `p${i}`, n: i, income: i * 1000 });

    const single = await c.items.query("SELECT c.id, udf.tax(c.income) AS t FROM c", { partitionKey: "p3" }).fetchAll();
    assert.deepEqual(single.resources, [{ id: "i3", t: 300 }]);

    const cross = await c.items.query("SELECT VALUE udf.tax(c.income) FROM c").fetchAll();
    assert.deepEqual(cross.resources.sort((a, b) => a - b), [0, 100, 200, 300, 400, 500, 600, 700]);

    const evens = await c.items.query("SELECT VALUE c.id FROM c WHERE udf.isEven(c) = true").fetchAll();
    assert.deepEqual(evens.resources.sort(), ["i0", "i2", "i4", "i6"]);

    const labelled = await c.items
      .query({ query: "SELECT VALUE udf.label(c, @p) FROM c WHERE udf.isEven(c) = false AND c.n > @min", parameters: [{ name: "@p", value: ">" }, { name: "@min", value: 2 }] })
      .fetchAll();
    assert.deepEqual(labelled.resources.sort(), [">i3:3", ">i5:5", ">i7:7"]);
  });

  it("a UDF returning undefined drops the property", async () => {
    const id = await createUdf(uid("maybe").replace(/-/g, "_"), "function (n) { if (n > 2) return n * 10; }");
    const pk = uid("udfu");
    for (let n = 1; n <= 4; n++) await container.items.create({ id: `m${n}`, pk, n });
    const res = await container.items.query(`SELECT c.id, udf.${id}(c.n) AS m FROM c`, { partitionKey: pk }).fetchAll();
    const byId = Object.fromEntries(res.resources.map((r) => [r.id, r]));
    assert.deepEqual(byId, { m1: { id: "m1" }, m2: { id: "m2" }, m3: { id: "m3", m: 30 }, m4: { id: "m4", m: 40 } });
  });

  it("a UDF that throws answers 400 with substatus err.number; an unknown udf answers 400 SC2005", async () => {
    const id = uid("bad").replace(/-/g, "_");
    await createUdf(id, "function (x) { throw new Error(32766, 'bad udf'); }");
    const pk = uid("udfx");
    await container.items.create({ id: "x", pk, v: 1 });
    const err = await expectError(() => container.items.query(`SELECT VALUE udf.${id}(c.v) FROM c`, { partitionKey: pk }).fetchAll(), 400, "BadRequest", 32766);
    assert.ok(err.body.message.includes(`${EXEC}Error: bad udf`), err.body.message);
    // cross-partition too
    await expectError(() => container.items.query(`SELECT VALUE c.id FROM c WHERE udf.${id}(c.v) = 1`).fetchAll(), 400, "BadRequest", 32766);

    const unknown = await expectError(() => container.items.query("SELECT VALUE udf.noSuchUdf(c.v) FROM c", { partitionKey: pk }).fetchAll(), 400, "BadRequest");
    assert.match(unknown.body.message, /"code":"SC2005"/);
    await expectError(() => container.items.query("SELECT * FROM c WHERE udf.noSuchUdf(c) = true").fetchAll(), 400, "BadRequest");
  });
});

// ---------------------------------------------------------------------------------------------

describe("script logging", () => {
  it("enableScriptLogging returns the concatenated console.log output, URI-encoded; absent without it", async () => {
    const sp = await createSproc(function logs(x) {
      console.log("The value of x is %s.", x);
      console.log("second line; 100% done");
      getContext().getResponse().setBody("ok");
    });
    const res = await sp.execute("p", [1], { enableScriptLogging: true });
    assert.equal(res.resource, "ok");
    assert.equal(res.headers["x-ms-documentdb-script-log-results"], encodeURIComponent("The value of x is 1.second line; 100% done"));
    const quiet = await sp.execute("p", [1]);
    assert.equal(quiet.resource, "ok");
    assert.equal(quiet.headers["x-ms-documentdb-script-log-results"], undefined);

    const single = await run(function one() {
      console.log("The value of x is 1.");
    }, "p", [], { enableScriptLogging: true });
    assert.equal(single.headers["x-ms-documentdb-script-log-results"], encodeURIComponent("The value of x is 1."));
  });
});
