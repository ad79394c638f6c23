// A client that goes away cancels its query: the server sees the socket close and sets the
// request's cancel flag, which the executor checks every 256 rows, and which stops a user-defined
// function or a trigger that is running. With one worker thread, a point read after the abandoned
// request answers at once instead of waiting for it to finish; /_health answers meanwhile.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { LOCAL, rawRequest, uid, useEmulatorWithDatabase } from "./harness.mjs";

let container, ctx;
ctx = useEmulatorWithDatabase(
  async (f) => {
    ({ container } = f);
    const arr = Array.from({ length: 60 }, (_, i) => i);
    await Promise.all(Array.from({ length: 40 }, (_, i) => container.items.create({ id: `d${i}`, pk: "p", arr })));
    await container.scripts.userDefinedFunctions.create({ id: "forever", body: "function (x) { while (true) {} }" });
    await container.scripts.triggers.create({
      id: "forever",
      triggerType: "Pre",
      triggerOperation: "All",
      body: "function () { while (true) {} }",
    });
  },
  {
    containerId: "qcancel",
    args: ["--workers", "1", "--query-page-timeout-ms", "120000", "--script-timeout-ms", "120000"],
  },
);

// Sends a request that keeps the only worker busy, checks that /_health answers meanwhile, drops
// the connection, and checks that a point read then answers at once.
async function abandon(request) {
  const abort = new AbortController();
  const pending = rawRequest(ctx.env, { ...request, signal: abort.signal }).catch(() => "aborted");
  await new Promise((r) => setTimeout(r, 400));
  const health = await fetch(ctx.env.endpoint + "_health");
  assert.equal(health.status, 200);
  abort.abort();
  assert.equal(await pending, "aborted");
  const t0 = Date.now();
  const read = await container.item("d0", "p").read();
  assert.equal(read.statusCode, 200);
  assert.ok(Date.now() - t0 < 3000, `the point read waited ${Date.now() - t0} ms for the abandoned request`);
}

describe("a client that goes away cancels its query", { skip: !LOCAL && "emulator flags" }, () => {
  it("the only worker is free again at once", async () => {
    // 40 items x 60^4 rows of four JOINs, none matching: minutes of work if it ran to the end.
    const path = `/dbs/${container.database.id}/colls/qcancel/docs`;
    const abort = new AbortController();
    const query = rawRequest(ctx.env, {
      method: "POST",
      path,
      body: { query: "SELECT VALUE 1 FROM c JOIN a IN c.arr JOIN b IN c.arr JOIN d IN c.arr JOIN e IN c.arr WHERE a + b + d + e < 0" },
      headers: {
        "content-type": "application/query+json",
        "x-ms-documentdb-isquery": "true",
        "x-ms-documentdb-partitionkey": '["p"]',
      },
      signal: abort.signal,
    }).catch(() => "aborted");
    await new Promise((r) => setTimeout(r, 400));
    abort.abort();
    assert.equal(await query, "aborted");
    const t0 = Date.now();
    const read = await container.item("d0", "p").read();
    assert.equal(read.statusCode, 200);
    assert.ok(Date.now() - t0 < 3000, `the point read waited ${Date.now() - t0} ms for the abandoned query`);
  });

  it("a user-defined function that never returns stops with its query", async () => {
    await abandon({
      method: "POST",
      path: `/dbs/${container.database.id}/colls/qcancel/docs`,
      body: { query: "SELECT VALUE udf.forever(c.id) FROM c" },
      headers: {
        "content-type": "application/query+json",
        "x-ms-documentdb-isquery": "true",
        "x-ms-documentdb-partitionkey": '["p"]',
      },
    });
  });

  it("a pre-trigger that never returns stops with its write, which is not made", async () => {
    await abandon({
      method: "POST",
      path: `/dbs/${container.database.id}/colls/qcancel/docs`,
      body: { id: "never", pk: "p" },
      headers: { "x-ms-documentdb-partitionkey": '["p"]', "x-ms-documentdb-pre-trigger-include": "forever" },
    });
    const gone = await container.item("never", "p").read();
    assert.equal(gone.statusCode, 404);
  });
});
