// Issue 19 through @azure/cosmos, against an emulator started with --query-page-timeout-ms 1 and
// --query-memory-mb 4: a query with 10,000 AND terms or 50,000 chained NOTs answers 400 (it used to
// crash the process, or take 15 s and keep 450 MB); pages cut short by the time budget resume
// exactly (fetchAll gives every row once); ORDER BY over a large JOIN answers 400 past the memory
// budget (it grew to 6.3 GB) when it must sort, and pages through its index when it orders by a
// path of the documents; the emulator keeps answering after each.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { LOCAL, expectError, uid, useEmulatorWithDatabase } from "./harness.mjs";

let container;
useEmulatorWithDatabase((f) => ({ container } = f), {
  containerId: "qlimits",
  args: ["--query-page-timeout-ms", "1", "--query-memory-mb", "4"],
});

async function assertHealthy() {
  const id = uid("h");
  assert.equal((await container.items.create({ id, pk: "h" })).statusCode, 201);
  assert.equal((await container.item(id, "h").read()).statusCode, 200);
}

const arr = Array.from({ length: 80 }, (_, i) => i);

describe("query limits", { skip: !LOCAL && "emulator flags" }, () => {
  it("10,000 AND terms answer 400, not a crash", async () => {
    let q = "SELECT * FROM c WHERE c.a = 0";
    for (let i = 1; i < 10000; i++) q += ` AND c.a = ${i}`;
    const err = await expectError(
      () => container.items.query(q, { partitionKey: "p" }).fetchAll(),
      400,
      "BadRequest",
    );
    assert.match(err.message, /maximum number of 'AND' operators/);
    await assertHealthy();
  });

  it("50,000 chained NOTs answer 400 in milliseconds", async () => {
    const q = "SELECT * FROM c WHERE " + "NOT ".repeat(50000) + "true";
    const t0 = Date.now();
    const err = await expectError(() => container.items.query(q, { partitionKey: "p" }).fetchAll(), 400, "BadRequest");
    assert.ok(Date.now() - t0 < 2000, `${Date.now() - t0} ms`);
    assert.match(err.message, /too complex/);
    await assertHealthy();
  });

  it("pages ended by the time budget resume exactly", async () => {
    for (let d = 0; d < 30; d++) await container.items.create({ id: `d${d}`, pk: "p", arr });
    const q = "SELECT c.id, a, b FROM c JOIN a IN c.arr JOIN b IN c.arr WHERE a = b AND a % 20 = 0";
    const iterator = container.items.query(q, { partitionKey: "p", maxItemCount: 1000 });
    let pages = 0;
    const rows = [];
    while (iterator.hasMoreResults()) {
      const page = await iterator.fetchNext();
      pages++;
      rows.push(...page.resources);
    }
    const expected = [];
    for (let d = 0; d < 30; d++) for (const a of [0, 20, 40, 60]) expected.push({ id: `d${d}`, a, b: a });
    assert.deepEqual(rows, expected);
    assert.ok(pages > 2, `${pages} pages`);
    const all = await container.items.query(q, { partitionKey: "p" }).fetchAll();
    assert.deepEqual(all.resources, expected);
  });

  it("ORDER BY over a large JOIN answers 400 past the memory budget", async () => {
    for (let d = 0; d < 5; d++) {
      await container.items.upsert({ id: `m${d}`, pk: "m", arr: Array.from({ length: 200 }, (_, i) => i) });
    }
    const err = await expectError(
      () =>
        container.items
          .query("SELECT x.id, x.a, x.b FROM (SELECT c.id, a, b FROM c JOIN a IN c.arr JOIN b IN c.arr) AS x ORDER BY x.id", {
            partitionKey: "m",
          })
          .fetchAll(),
      400,
      "BadRequest",
    );
    assert.match(err.message, /Query exceeded the maximum allowed memory usage of 4 MB/);
    // Ordered by a path of the documents, the same join walks the index: a first page of 100 rows.
    const page = await container.items
      .query("SELECT c.id, a, b FROM c JOIN a IN c.arr JOIN b IN c.arr ORDER BY c.id", {
        partitionKey: "m",
        maxItemCount: 100,
      })
      .fetchNext();
    assert.equal(page.resources.length, 100);
    assert.deepEqual(page.resources[0], { id: "m0", a: 0, b: 0 });
    assert.ok(page.continuationToken);
    await assertHealthy();
  });
});
