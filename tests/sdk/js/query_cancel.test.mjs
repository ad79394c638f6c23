// A client that goes away cancels its query: the server sees the socket close and sets the
// request's cancel flag, which the executor checks every 256 rows. With one worker thread, a point
// read after the abandoned query answers at once instead of waiting for the query to finish.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { LOCAL, rawRequest, uid, useEmulatorWithDatabase } from "./harness.mjs";

let container, ctx;
ctx = useEmulatorWithDatabase(
  async (f) => {
    ({ container } = f);
    const arr = Array.from({ length: 60 }, (_, i) => i);
    await Promise.all(Array.from({ length: 40 }, (_, i) => container.items.create({ id: `d${i}`, pk: "p", arr })));
  },
  { containerId: "qcancel", args: ["--workers", "1", "--query-page-timeout-ms", "120000"] },
);

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
});
