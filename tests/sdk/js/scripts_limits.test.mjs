// Server-side JavaScript limits through @azure/cosmos, against an emulator started with
// --script-timeout-ms 1000 and --script-memory-mb 128: a script running past its time budget
// answers 408 RequestTimeout and its writes are rolled back; "accepted" turns false near the end of
// the budget (the callback then never runs) and what was written until then commits; a huge
// allocation answers 400 "Out of memory"; deep recursion answers 400 "too much recursion"; the
// emulator keeps answering after each.
/* global getContext */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { LOCAL, expectError, uid, useEmulatorWithDatabase } from "./harness.mjs";

let container;
useEmulatorWithDatabase((f) => ({ container } = f), {
  containerId: "limits",
  args: ["--script-timeout-ms", "1000", "--script-memory-mb", "128"],
});

/** A stored procedure with a fresh id; returns its client. */
async function createSproc(body) {
  const id = uid("sp");
  await container.scripts.storedProcedures.create({ id, body });
  return container.scripts.storedProcedure(id);
}

/** Asserts the item does not exist (the SDK resolves a 404 point read, no throw). */
async function assertMissing(id, pk) {
  const res = await container.item(id, pk).read();
  assert.equal(res.statusCode, 404, `${id} should not exist`);
}

let okSproc;
/** The emulator still executes scripts and serves items. */
async function assertHealthy() {
  okSproc ??= await createSproc(function ok(x) {
    getContext().getResponse().setBody({ x });
  });
  const res = await okSproc.execute("p", [7]);
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.resource, { x: 7 });
  const id = uid("h");
  await container.items.create({ id, pk: "p" });
  assert.equal((await container.item(id, "p").read()).statusCode, 200);
}

describe("script limits", { skip: !LOCAL && "needs the emulator's --script-timeout-ms" }, () => {
  it("while(true){} answers 408 RequestTimeout within ~3 s; the next execute works", async () => {
    const sp = await createSproc(function spin() {
      while (true) {
        // spin
      }
    });
    const started = Date.now();
    const err = await expectError(() => sp.execute("p", []), 408, "RequestTimeout");
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 900, `answered after ${elapsed} ms, before the 1000 ms budget`);
    assert.ok(elapsed < 3000, `answered after ${elapsed} ms`);
    assert.ok(err.body.message.includes("The requested operation exceeded maximum alloted time."), err.body.message);
    await assertHealthy();
    // the same sproc again: still a 408, not a hang or a crash
    await expectError(() => sp.execute("p", []), 408, "RequestTimeout");
    await assertHealthy();
  });

  it("a script that creates an item and then loops forever answers 408 and the item does not exist", async () => {
    const pk = uid("loop");
    const id = uid("i");
    const sp = await createSproc(function createThenSpin(id, pk) {
      const coll = getContext().getCollection();
      coll.createDocument(coll.getSelfLink(), { id, pk }, (err) => {
        if (err) throw err;
        coll.createDocument(coll.getSelfLink(), { id: id + "-2", pk }, (err2) => {
          if (err2) throw err2;
          for (;;) {
            // spin
          }
        });
      });
    });
    const started = Date.now();
    await expectError(() => sp.execute(pk, [id, pk]), 408, "RequestTimeout");
    assert.ok(Date.now() - started < 3000);
    await assertMissing(id, pk);
    await assertMissing(`${id}-2`, pk);
    await assertHealthy();
  });

  it("accepted turns false near the time budget (a read loop); the callback then never runs", async () => {
    const pk = uid("reads");
    await container.items.create({ id: "r", pk });
    const sp = await createSproc(function readLoop() {
      const coll = getContext().getCollection();
      let n = 0;
      let refused = false;
      const next = () => {
        const accepted = coll.readDocument(`${coll.getAltLink()}/docs/r`, (err) => {
          if (err) throw err;
          if (refused) throw new Error("a callback ran after false");
          n++;
          next();
        });
        if (!accepted) {
          refused = true;
          getContext().getResponse().setBody(n);
        }
      };
      next();
    });
    const started = Date.now();
    const res = await sp.execute(pk, []);
    const elapsed = Date.now() - started;
    assert.equal(res.statusCode, 200);
    assert.ok(elapsed >= 700 && elapsed < 3000, `answered after ${elapsed} ms`);
    assert.ok(Number.isInteger(res.resource) && res.resource > 0, `read ${res.resource} times`);
  });

  it("accepted turns false near the time budget; the writes done until then commit", async () => {
    const pk = uid("bulk");
    const sp = await createSproc(function bulk(pk) {
      const coll = getContext().getCollection();
      let n = 0;
      let lateCallback = false;
      const next = () => {
        const accepted = coll.createDocument(coll.getSelfLink(), { id: `b${n}`, pk }, (err) => {
          if (err) throw err;
          if (lateCallback) throw new Error("a callback ran after false");
          n++;
          next();
        });
        if (!accepted) {
          lateCallback = true;
          getContext().getResponse().setBody(n);
        }
      };
      next();
    });
    const started = Date.now();
    const res = await sp.execute(pk, [pk]);
    const elapsed = Date.now() - started;
    assert.equal(res.statusCode, 200);
    assert.ok(elapsed < 3000, `answered after ${elapsed} ms`);
    const n = res.resource;
    assert.ok(Number.isInteger(n) && n > 0, `created ${n}`);
    const count = await container.items.query("SELECT VALUE COUNT(1) FROM c", { partitionKey: pk }).fetchAll();
    assert.deepEqual(count.resources, [n]);
    await assertHealthy();
  });

  it("a huge allocation answers 400 'Out of memory'; the emulator still answers", async () => {
    const pk = uid("oom");
    const sp = await createSproc(function hog(pk) {
      const coll = getContext().getCollection();
      coll.createDocument(coll.getSelfLink(), { id: "before-oom", pk }, (err) => {
        if (err) throw err;
        const keep = [];
        for (let i = 0; ; i++) keep.push(new Array(1 << 20).fill(i));
      });
    });
    const err = await expectError(() => sp.execute(pk, [pk]), 400, "BadRequest");
    assert.ok(err.body.message.includes("Exception = Error: Out of memory"), err.body.message);
    await assertMissing("before-oom", pk);
    await assertHealthy();
    // again: the memory was given back
    await expectError(() => sp.execute(pk, [pk]), 400, "BadRequest");
    await assertHealthy();
  });

  it("deep recursion answers 400 'too much recursion'; the emulator still answers", async () => {
    const sp = await createSproc(function recurse() {
      const down = (n) => down(n + 1) + 1;
      down(0);
    });
    const err = await expectError(() => sp.execute("p", []), 400, "BadRequest");
    assert.ok(err.body.message.includes("too much recursion"), err.body.message);
    await assertHealthy();
  });
});
