// Server-side JavaScript through @azure/cosmos (container.scripts), part 2 of 2: transactions (a
// throw rolls back every write; other partition keys refused; rethrown errors and
// `new Error(number, message)` give 400 + substatus); concurrent executions on one logical
// partition; the change feed of script writes; pre- and post-triggers on item writes; UDFs in
// queries; console.log and the script-log header.
// Part 1, scripts_sprocs.test.mjs, has the script resources and executing stored procedures; the
// shared setup and helpers are in scripts_fixture.mjs. The time and memory limits are in
// scripts_limits.test.mjs.
//
// Scripts are written here as real functions: the SDK sends `body.toString()`, so the emulator
// receives exactly the source text below.
/* global getContext, console */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ChangeFeedStartFrom } from "@azure/cosmos";
import {
  LOCAL,
  assertCharge,
  assertSessionToken,
  createCharge,
  expectError,
  replaceCharge,
  round2,
  uid,
} from "./harness.mjs";
import {
  EXEC,
  OTHER_PK,
  assertMissing,
  assertNoSubstatus,
  container,
  createSproc,
  createTrigger,
  createUdf,
  freshContainer,
  run,
  stored,
} from "./scripts_fixture.mjs";

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

  // The service keeps a transaction's writes together in the change feed (the .NET SDK's
  // PageSizeHint): one LSN for all of them, ordered as items are within an LSN (by creation).
  it("writes made by a sproc appear in the change feed with the sproc's one _lsn", async () => {
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
        ["x", 2],
        ["y", 1],
        ["z", 1],
      ],
    );
    for (const d of docs) assert.equal(d._lsn, sessionLsn);
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
