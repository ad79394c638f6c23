// Server-side JavaScript through @azure/cosmos (container.scripts), part 1 of 2: stored procedure,
// trigger and UDF resources (CRUD, JSON shape, feeds, charges); executing stored procedures with
// parameters, in modern JS and in the classic callback style (readDocument/replaceDocument/
// createDocument/queryDocuments/upsertDocument/deleteDocument/readDocuments, options, links,
// automatic ids, the `__` query API); the response body; the partition key header.
// Part 2, scripts_transactions.test.mjs, has errors and transactions, concurrent executions, the
// change feed of script writes, triggers on item writes, UDFs in queries and script logging; the
// shared setup and helpers are in scripts_fixture.mjs. The time and memory limits are in
// scripts_limits.test.mjs.
//
// Scripts are written here as real functions: the SDK sends `body.toString()`, so the emulator
// receives exactly the source text below.
/* global getContext, __ */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
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
} from "./harness.mjs";
import {
  COLL,
  GUID,
  assertMissing,
  collRid,
  container,
  createSproc,
  ctx,
  db,
  dbId,
  dbRid,
  freshContainer,
  run,
  stored,
} from "./scripts_fixture.mjs";

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
  it("create returns triggerType and triggerOperation as sent, in the documented key order", async () => {
    // The service keeps them in the case they were sent in (Microsoft's Python SDK tests assert it).
    const { container: c, rid } = await freshContainer();
    const body = "function () { var x = 1; }";
    const cases = [
      ["pre", "create"],
      ["post", "all"],
      ["PRE", "UPDATE"],
      ["Post", "Delete"],
      ["pRe", "rePLACE"],
    ];
    for (const [type, op] of cases) {
      const [wantType, wantOp] = [type, op];
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
    assert.equal(replaced.resource.triggerType, "post");
    assert.equal(replaced.resource.triggerOperation, "all");
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

