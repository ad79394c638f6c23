// Issue 41 item 3: GROUP BY and DISTINCT read in small pages cost one pass. A page that computes more
// groups than it may return keeps the rest in the emulator (under the number its continuation
// carries) and the next pages return them without reading the container again: @azure/cosmos reading
// a GROUP BY with maxItemCount 5 gets the same rows as with one page, and the summed requestCharge
// is the one page's charge plus the query base (2.7 RU) for each further page, not a full read per
// page. (Emulator charges: checked against the local binary only.)
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { LOCAL, useEmulatorWithDatabase } from "./harness.mjs";

const N = 200;
const GROUPS = 40;
const DOCS = Array.from({ length: N }, (_, i) => ({ id: `d${i}`, pk: "p", city: `c${String(i % GROUPS).padStart(2, "0")}`, n: i }));

let container;
useEmulatorWithDatabase(async ({ db }) => {
  container = (
    await db.containers.create(
      { id: "groups", partitionKey: { paths: ["/pk"] } },
      LOCAL ? { initialHeaders: { "x-cosmos-emulator-partition-count": "1" } } : {},
    )
  ).container;
  for (let i = 0; i < N; i += 50) await Promise.all(DOCS.slice(i, i + 50).map((d) => container.items.create(d)));
});

const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
const read = async (query, options) => {
  const r = await container.items.query(query, options).fetchAll();
  return { rows: r.resources, charge: r.requestCharge };
};

describe("GROUP BY and DISTINCT in small pages", () => {
  const expected = Array.from({ length: GROUPS }, (_, g) => {
    const members = DOCS.filter((d) => d.n % GROUPS === g);
    return { city: `c${String(g).padStart(2, "0")}`, n: members.length, s: members.reduce((t, d) => t + d.n, 0) };
  });
  const GROUPED = "SELECT c.city, COUNT(1) AS n, SUM(c.n) AS s FROM c GROUP BY c.city";
  const extraPages = Math.ceil(GROUPS / 5) - 1;

  for (const [label, scope] of [
    ["on the SDK's pipeline (one range)", {}],
    ["in one logical partition", { partitionKey: "p" }],
  ]) {
    it(`GROUP BY ${label}: the rows of one page, the charge of one pass`, async () => {
      const one = await read(GROUPED, { ...scope, maxItemCount: 100 });
      const paged = await read(GROUPED, { ...scope, maxItemCount: 5 });
      assert.deepEqual([...one.rows].sort((x, y) => cmp(x.city, y.city)), expected);
      assert.deepEqual([...paged.rows].sort((x, y) => cmp(x.city, y.city)), expected);
      if (LOCAL) {
        // 8 pages: the first reads the 200 items, the 7 others return kept groups (2.7 RU each).
        assert.ok(Math.abs(paged.charge - (one.charge + 2.7 * extraPages)) < 0.05, `${paged.charge} vs ${one.charge}`);
      }
    });
  }

  // GROUP BY one indexed path with COUNT: the groups are counted from the index of /city (its runs of
  // equal keys), no item is loaded: each page pays the 2.7 base alone (docs/indexing.md).
  it("GROUP BY an indexed path with COUNT on the SDK's pipeline: counted from the index", async () => {
    const query = "SELECT c.city, COUNT(1) AS n FROM c GROUP BY c.city";
    const want = expected.map(({ city, n }) => ({ city, n }));
    const one = await read(query, { maxItemCount: 100 });
    const paged = await read(query, { maxItemCount: 5 });
    assert.deepEqual([...one.rows].sort((x, y) => cmp(x.city, y.city)), want);
    assert.deepEqual([...paged.rows].sort((x, y) => cmp(x.city, y.city)), want);
    if (LOCAL) {
      assert.equal(one.charge, 2.7);
      assert.ok(Math.abs(paged.charge - 2.7 * (extraPages + 1)) < 0.05, `${paged.charge}`);
    }
  });

  it("DISTINCT in one logical partition: the values of one page, the charge of one pass", async () => {
    const query = "SELECT DISTINCT VALUE c.city FROM c";
    const one = await read(query, { partitionKey: "p", maxItemCount: 100 });
    const paged = await read(query, { partitionKey: "p", maxItemCount: 5 });
    const cities = expected.map((e) => e.city);
    assert.deepEqual([...one.rows].sort(), cities);
    assert.deepEqual([...paged.rows].sort(), cities);
    if (LOCAL) assert.ok(Math.abs(paged.charge - (one.charge + 2.7 * extraPages)) < 0.05, `${paged.charge} vs ${one.charge}`);
  });
});
