// Query conformance through @azure/cosmos 4.x, one section per fixed divergence from the service:
//  1. MAKELIST / MAKESET aggregates (the SDK merges them per range with its MakeList/MakeSet aggregators),
//  2. TOP and OFFSET LIMIT in subqueries are refused (SC2203, SC2204),
//  3. ORDER BY in a subquery is refused (SC2202), whatever the item expression,
//  4. a JOIN subquery without an alias is valid,
//  5. DISTINCT with ORDER BY and TOP or OFFSET/LIMIT across several physical partitions,
//  6. a streaming page that is exactly full carries a continuation; the next page is empty.
// The containers are spread over 4 physical partitions (x-cosmos-emulator-partition-count).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { LOCAL, expectError, uid, useEmulatorWithDatabase } from "./harness.mjs";

const PARTITIONS = 4;
// 30 items over 6 partition key values: v is 1 for the first 24 (4 per key), then 2..7; tags vary.
const DOCS = Array.from({ length: 30 }, (_, i) => ({
  id: `d${String(i).padStart(2, "0")}`,
  pk: `p${i % 6}`,
  v: i < 24 ? 1 : i - 22,
  tags: i % 5 === 0 ? [] : Array.from({ length: (i % 3) + 1 }, (_, k) => `t${(i + k) % 4}`),
}));

let db;
let container;
useEmulatorWithDatabase(async (f) => {
  db = f.db;
  container = (
    await db.containers.create(
      { id: "conformance", partitionKey: { paths: ["/pk"] } },
      LOCAL ? { initialHeaders: { "x-cosmos-emulator-partition-count": String(PARTITIONS) } } : {},
    )
  ).container;
  for (const d of DOCS) await container.items.create(d);
});

const num = (a, b) => a - b;
const all = async (query, options = {}) => (await container.items.query(query, options).fetchAll()).resources;
// The body's "message" must hold exactly this errors array.
const errorsOf = (err) => JSON.parse(err.body.message.match(/^Message: (\{.*\})/)[1]).errors;
const refusal = (start, end, code, message) => ({ severity: "Error", location: { start, end }, code, message });

describe("1. MAKELIST and MAKESET", () => {
  it("the container really spans several physical partitions", async () => {
    const { resources } = await container.readPartitionKeyRanges().fetchAll();
    if (LOCAL) assert.equal(resources.length, PARTITIONS);
  });

  for (const forceQueryPlan of [false, true]) {
    it(`SELECT VALUE MakeList / MakeSet across partitions (forceQueryPlan ${forceQueryPlan})`, async () => {
      const list = await all("SELECT VALUE MakeList(c.v) FROM c", { forceQueryPlan });
      assert.equal(list.length, 1);
      assert.deepEqual([...list[0]].sort(num), DOCS.map((d) => d.v).sort(num));
      const set = await all("SELECT VALUE MAKESET(c.v) FROM c", { forceQueryPlan });
      assert.equal(set.length, 1);
      assert.deepEqual([...set[0]].sort(num), [1, 2, 3, 4, 5, 6, 7]);
    });
  }

  it("MakeList and MakeSet with GROUP BY across partitions", async () => {
    const got = await all("SELECT c.pk, MakeList(c.v) AS l, MakeSet(c.v) AS s, COUNT(1) AS n FROM c GROUP BY c.pk");
    assert.equal(got.length, 6);
    for (const row of got) {
      const mine = DOCS.filter((d) => d.pk === row.pk).map((d) => d.v);
      assert.deepEqual([...row.l].sort(num), [...mine].sort(num), row.pk);
      assert.deepEqual([...row.s].sort(num), [...new Set(mine)].sort(num), row.pk);
      assert.equal(row.n, mine.length);
    }
  });

  it("in one logical partition the service returns the values in document order", async () => {
    const mine = DOCS.filter((d) => d.pk === "p1");
    assert.deepEqual(await all("SELECT VALUE MakeList(c.id) FROM c", { partitionKey: "p1" }), [mine.map((d) => d.id)]);
    assert.deepEqual(await all("SELECT VALUE MakeSet(c.v) FROM c", { partitionKey: "p1" }), [[1, 3]]);
    assert.deepEqual(await all("SELECT VALUE MakeList(c.nope) FROM c", { partitionKey: "p1" }), [[]]);
  });
});

describe("2. TOP and OFFSET LIMIT in subqueries", () => {
  it("TOP in a FROM subquery answers 400 SC2203 (plan and partition-key query)", async () => {
    const query = "SELECT VALUE COUNT(1) FROM (SELECT TOP 1 VALUE c.id FROM c) AS r";
    for (const options of [{}, { partitionKey: "p0" }]) {
      const err = await expectError(() => all(query, options), 400, "BadRequest");
      assert.deepEqual(errorsOf(err), [refusal(35, 40, "SC2203", "'TOP' is not supported in subqueries.")]);
    }
  });

  it("OFFSET LIMIT in a JOIN subquery answers 400 SC2204", async () => {
    const query = "SELECT VALUE t FROM c JOIN (SELECT VALUE x FROM x IN c.tags OFFSET 0 LIMIT 1) AS t";
    for (const options of [{}, { partitionKey: "p0" }]) {
      const err = await expectError(() => all(query, options), 400, "BadRequest");
      assert.deepEqual(errorsOf(err), [
        refusal(60, 76, "SC2204", "'OFFSET LIMIT' clause is not supported in subqueries."),
      ]);
    }
  });

  it("the outer query's TOP and OFFSET LIMIT still work", async () => {
    assert.deepEqual(await all("SELECT TOP 2 VALUE c.id FROM c WHERE c.pk = 'p2' ORDER BY c.id"), ["d02", "d08"]);
  });
});

describe("3. ORDER BY in subqueries", () => {
  it("ORDER BY a non-path expression in an ARRAY subquery answers 400 SC2202, with TOP's SC2203 too", async () => {
    const query = "SELECT VALUE ARRAY(SELECT TOP 2 VALUE t FROM t IN c.tags ORDER BY LOWER(t)) FROM c";
    for (const options of [{}, { partitionKey: "p3" }]) {
      const err = await expectError(() => all(query, options), 400, "BadRequest");
      assert.deepEqual(errorsOf(err), [
        refusal(26, 31, "SC2203", "'TOP' is not supported in subqueries."),
        refusal(57, 74, "SC2202", "'ORDER BY' is not supported in subqueries."),
      ]);
    }
  });

  it("ORDER BY a path in a FROM subquery answers 400 SC2202", async () => {
    const err = await expectError(() => all("SELECT VALUE r.id FROM (SELECT * FROM c ORDER BY c.id) AS r"), 400, "BadRequest");
    assert.deepEqual(errorsOf(err), [refusal(40, 53, "SC2202", "'ORDER BY' is not supported in subqueries.")]);
  });
});

describe("4. JOIN subquery without an alias", () => {
  for (const options of [{}, { forceQueryPlan: true }, { partitionKey: "p1" }]) {
    it(`SELECT VALUE c.id FROM c JOIN (SELECT VALUE t FROM t IN c.tags) (${JSON.stringify(options)})`, async () => {
      const docs = options.partitionKey ? DOCS.filter((d) => d.pk === options.partitionKey) : DOCS;
      const expected = docs.flatMap((d) => d.tags.map(() => d.id)).sort();
      assert.deepEqual((await all("SELECT VALUE c.id FROM c JOIN (SELECT VALUE t FROM t IN c.tags)", options)).sort(), expected);
    });
  }

  it("unaliased JOIN subqueries multiply and filter the rows (the documentation's COUNT form)", async () => {
    const expected = DOCS.reduce((n, d) => n + d.tags.filter((t) => t !== "t0").length * (d.v > 1 ? 1 : 0), 0);
    const got = await all(
      "SELECT VALUE COUNT(1) FROM c JOIN (SELECT VALUE t FROM t IN c.tags WHERE t != 't0') JOIN (SELECT VALUE 1 WHERE c.v > 1)",
    );
    assert.deepEqual(got, [expected]);
  });

  it("the unaliased subquery's rows cannot be named", async () => {
    const err = await expectError(() => all("SELECT VALUE t FROM c JOIN (SELECT VALUE t FROM t IN c.tags)"), 400, "BadRequest");
    assert.deepEqual(errorsOf(err), [refusal(13, 14, "SC2001", "Identifier 't' could not be resolved.")]);
  });
});

describe("5. DISTINCT with ORDER BY and TOP or OFFSET/LIMIT across partitions", () => {
  const values = [...new Set(DOCS.map((d) => d.v))].sort(num);
  for (const forceQueryPlan of [false, true]) {
    for (const maxItemCount of [undefined, 1]) {
      const opts = { forceQueryPlan, ...(maxItemCount ? { maxItemCount } : {}) };
      it(`OFFSET 1 LIMIT 3 ${JSON.stringify(opts)}`, async () => {
        assert.deepEqual(await all("SELECT DISTINCT VALUE c.v FROM c ORDER BY c.v OFFSET 1 LIMIT 3", opts), values.slice(1, 4));
      });
      it(`TOP 3 ${JSON.stringify(opts)}`, async () => {
        assert.deepEqual(await all("SELECT DISTINCT TOP 3 VALUE c.v FROM c ORDER BY c.v", opts), values.slice(0, 3));
      });
      it(`TOP 4 with a projection, descending ${JSON.stringify(opts)}`, async () => {
        assert.deepEqual(await all("SELECT DISTINCT TOP 4 c.v FROM c ORDER BY c.v DESC", opts), [7, 6, 5, 4].map((v) => ({ v })));
      });
    }
  }
});

describe("6. a page that is exactly full", () => {
  it("4 items, maxItemCount 2: pages of 2, 2 and then an empty one without continuation", async () => {
    const c = (await db.containers.create({ id: uid("page"), partitionKey: { paths: ["/pk"] } })).container;
    for (let i = 0; i < 4; i++) await c.items.create({ id: `i${i}`, pk: "a" });
    const iter = c.items.query("SELECT VALUE c.id FROM c", { partitionKey: "a", maxItemCount: 2 });
    const pages = [];
    while (iter.hasMoreResults()) {
      const res = await iter.fetchNext();
      pages.push({ items: res.resources, continuation: res.continuationToken });
      assert.ok(pages.length <= 4, "the iterator terminates");
    }
    assert.deepEqual(
      pages.map((p) => p.items),
      [["i0", "i1"], ["i2", "i3"], []],
    );
    assert.equal(typeof pages[0].continuation, "string");
    assert.equal(typeof pages[1].continuation, "string");
    assert.equal(pages[2].continuation, undefined);
    // 3 items: the last page is not full and ends the query.
    await c.item("i3", "a").delete();
    const iter3 = c.items.query("SELECT VALUE c.id FROM c", { partitionKey: "a", maxItemCount: 2 });
    const sizes = [];
    while (iter3.hasMoreResults()) sizes.push((await iter3.fetchNext()).resources.length);
    assert.deepEqual(sizes, [2, 1]);
  });
});
