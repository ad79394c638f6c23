// SQL queries through @azure/cosmos: paging (fetchNext / fetchAll), continuation tokens resumed in a
// new iterator, cross-partition ORDER BY / TOP / OFFSET LIMIT / aggregates / GROUP BY / DISTINCT /
// JOIN, parameters, partition-key scoped queries, readAll, forceQueryPlan, errors.
// Queries that need merging across partitions take the SDK's pipeline, as against the service: the
// gateway answers them 400/1004 with the plan and the SDK queries every range and merges. Its pages
// are then made from buffered range results (a page may cost nothing), carry no continuation token
// unless `enableQueryControl` is set, and its DISTINCT drops falsy values (0, "", false).
// Every expectation is computed in plain JS from the same deterministic data set.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { LOCAL, expectError, useEmulatorWithDatabase } from "./harness.mjs";

const PKS = ["alpha", "beta", "gamma", "delta", "epsilon"];
const CATS = ["red", "green", "blue"];
const N = 40;

/** The data set: 40 items over 5 partition key values, interleaved in creation order. */
function makeDocs() {
  const docs = [];
  for (let i = 0; i < N; i++) {
    docs.push({
      id: `item-${String(i).padStart(2, "0")}`,
      pk: PKS[(i * 3) % 5],
      n: i,
      x: (i * 7) % 11, // 0..10 with ties: two-key ORDER BY matters
      f: i / 4, // exact binary fractions
      cat: CATS[i % 3],
      tags: Array.from({ length: i % 4 }, (_, k) => `t${(i + k) % 5}`),
    });
  }
  return docs;
}

const DOCS = makeDocs();
const COMPOSITES = [
  [{ path: "/x", order: "descending" }, { path: "/n", order: "ascending" }],
  [{ path: "/x", order: "ascending" }, { path: "/n", order: "ascending" }],
  [{ path: "/x", order: "descending" }, { path: "/f", order: "ascending" }],
  [{ path: "/cat", order: "ascending" }, { path: "/n", order: "descending" }],
];
let db;
let container;
let stored = []; // the created resources (with system properties), in creation order
const ctx = useEmulatorWithDatabase(
  async (f) => {
    ({ db, container } = f);
    // Several ORDER BY items need a composite index (same paths, directions as indexed or all reversed).
    await container.replace({ id: "query", partitionKey: { paths: ["/pk"] }, indexingPolicy: { compositeIndexes: COMPOSITES } });
    for (const d of DOCS) stored.push((await container.items.create(d)).resource);
  },
  { containerId: "query" },
);

// ---------------------------------------------------------------------------------------------
// Helpers

const byId = (a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
const sortedBy = (arr, key) => [...arr].sort((a, b) => cmp(key(a), key(b)));
const sum = (arr) => arr.reduce((s, v) => s + v, 0);
const storedById = (id) => stored.find((d) => d.id === id);

/** Drains an iterator with fetchNext; checks every page's size and charge. Returns {pages, items}. */
async function drain(iter, maxItemCount, { exactPages = LOCAL, streaming = false } = {}) {
  const pages = [];
  let guard = 0;
  while (iter.hasMoreResults()) {
    const res = await iter.fetchNext();
    assert.ok(++guard <= N + 5, "the iterator terminates");
    // (the SDK's GROUP BY pipeline can answer a page without resources while it buffers)
    if (res.resources === undefined) res.resources = [];
    if (maxItemCount !== undefined) {
      assert.ok(
        res.resources.length <= maxItemCount,
        `page of ${res.resources.length} > maxItemCount ${maxItemCount}`,
      );
    }
    assert.ok(res.requestCharge >= 0, `page charge ${res.requestCharge} >= 0`);
    pages.push(res);
  }
  assert.equal(iter.hasMoreResults(), false);
  assert.ok(pages.reduce((t, p) => t + p.requestCharge, 0) > 0, "the pages cost something");
  const items = pages.flatMap((p) => p.resources);
  if (exactPages && maxItemCount !== undefined) {
    // the emulator fills every page but the last; an ordered (non-streaming) result does not end with
    // an empty page, while a streaming one whose last page is exactly full is followed by an empty
    // page, as the service's is (the page ends as soon as it is full, with a continuation)
    const sizes = pages.map((p) => p.resources.length);
    const expected = [];
    for (let left = items.length; left > 0; left -= maxItemCount) expected.push(Math.min(left, maxItemCount));
    if (expected.length === 0 || (streaming && expected.at(-1) === maxItemCount)) expected.push(0);
    assert.deepEqual(sizes, expected, "page sizes");
  }
  return { pages, items };
}

/** fetchAll with a charge check (a query the SDK can answer without asking, such as TOP 0, costs nothing). */
async function all(query, options = {}, { free = false } = {}) {
  const res = await container.items.query(query, options).fetchAll();
  if (!free) assert.ok(res.requestCharge > 0, `charge ${res.requestCharge} > 0`);
  return res.resources;
}

// Expected results computed from DOCS
const orderedByN = () => sortedBy(DOCS, (d) => d.n);
const strip = (doc) => {
  const { _rid, _self, _etag, _attachments, _ts, ...user } = doc;
  return user;
};
const ids = (docs) => docs.map((d) => d.id);

// ---------------------------------------------------------------------------------------------

describe("query paging", () => {
  for (const size of [1, 2, 7]) {
    it(`ORDER BY c.n pages with maxItemCount ${size} (fetchNext) add up to the ordered result`, async () => {
      const iter = container.items.query("SELECT * FROM c ORDER BY c.n", { maxItemCount: size });
      const { pages, items } = await drain(iter, size);
      assert.equal(pages.length, Math.ceil(N / size));
      assert.deepEqual(items, orderedByN().map((d) => storedById(d.id)));
      // the pipeline (no enableQueryControl) hands out no continuation tokens
      for (const p of pages) assert.equal(p.continuationToken, undefined);
    });

    it(`a streaming query pages with maxItemCount ${size} (fetchNext) and returns every match once`, async () => {
      const iter = container.items.query('SELECT c.id, c.n FROM c WHERE c.cat != "blue"', { maxItemCount: size });
      const { items } = await drain(iter, size, { streaming: true });
      const expected = DOCS.filter((d) => d.cat !== "blue").map((d) => ({ id: d.id, n: d.n }));
      assert.equal(items.length, expected.length);
      assert.deepEqual(sortedBy(items, (d) => d.n), expected);
    });

    it(`fetchAll with maxItemCount ${size} returns the whole ordered result`, async () => {
      const res = await container.items.query("SELECT VALUE c.id FROM c ORDER BY c.x DESC, c.n", { maxItemCount: size }).fetchAll();
      const expected = [...DOCS].sort((a, b) => cmp(b.x, a.x) || cmp(a.n, b.n)).map((d) => d.id);
      assert.deepEqual(res.resources, expected);
      assert.ok(res.requestCharge > 0);
      assert.equal(res.hasMoreResults, false);
    });
  }

  it("getAsyncIterator yields the same pages", async () => {
    const seen = [];
    for await (const page of container.items.query("SELECT VALUE c.n FROM c ORDER BY c.n DESC", { maxItemCount: 9 }).getAsyncIterator()) {
      assert.ok(page.resources.length <= 9);
      assert.ok(page.requestCharge > 0);
      seen.push(...page.resources);
    }
    assert.deepEqual(seen, orderedByN().map((d) => d.n).reverse());
  });

  it("maxItemCount -1 answers everything in one page", async () => {
    const iter = container.items.query("SELECT VALUE c.n FROM c WHERE c.n >= 0", { maxItemCount: -1 });
    const { pages, items } = await drain(iter);
    assert.equal(pages.length, 1);
    assert.deepEqual([...items].sort((a, b) => a - b), orderedByN().map((d) => d.n));
  });

  it("an empty result is one empty page without a continuation", async () => {
    const iter = container.items.query("SELECT * FROM c WHERE c.n > 1000", { maxItemCount: 5 });
    const res = await iter.fetchNext();
    assert.deepEqual(res.resources, []);
    assert.equal(res.continuationToken, undefined);
    assert.ok(res.requestCharge > 0);
    assert.equal(iter.hasMoreResults(), false);
  });
});

describe("continuation tokens", () => {
  /** First page from one iterator, the rest from a NEW iterator resumed with its token. */
  async function resume(query, pageSize, expected, options = {}) {
    // Across partitions, the SDK hands out tokens for ordered queries with enableQueryControl; it
    // resumes each range with the plan's filter bound to the last row's sort keys.
    if (options.partitionKey === undefined) options = { enableQueryControl: true, ...options };
    const first = await container.items.query(query, { ...options, maxItemCount: pageSize }).fetchNext();
    assert.ok(first.requestCharge > 0);
    assert.deepEqual(first.resources, expected.slice(0, pageSize), "first page");
    const token = first.continuationToken;
    assert.equal(typeof token, "string");
    assert.ok(token.length > 0);
    const iter = container.items.query(query, { ...options, maxItemCount: pageSize, continuationToken: token });
    const { items } = await drain(iter, pageSize);
    assert.deepEqual(items, expected.slice(pageSize), "the rest after resuming");
    // resuming the same token again gives the same rest (tokens are not consumed)
    const again = await container.items.query(query, { ...options, maxItemCount: 100, continuationToken: token }).fetchAll();
    assert.deepEqual(again.resources, expected.slice(pageSize));
  }

  it("ORDER BY: resuming after the first page gives exactly the rest", () =>
    resume("SELECT VALUE c.id FROM c ORDER BY c.n", 3, ids(orderedByN())));

  // Within one partition key the backend's own token resumes exactly. (Across partitions the SDK
  // resumes a two-key ORDER BY with the filter "x >= last.x AND n <= last.n", which drops rows
  // with a greater x and a greater n, whatever the service.)
  it("ORDER BY two keys (ties on c.x) resumes exactly (one partition key)", () =>
    resume(
      "SELECT c.id, c.x FROM c ORDER BY c.x ASC, c.n DESC",
      2,
      DOCS.filter((d) => d.pk === "beta").sort((a, b) => cmp(a.x, b.x) || cmp(b.n, a.n)).map((d) => ({ id: d.id, x: d.x })),
      { partitionKey: "beta" },
    ));

  it("ORDER BY a tied key alone resumes without losing or repeating rows", async () => {
    const query = "SELECT VALUE c.id FROM c ORDER BY c.cat";
    const options = { maxItemCount: 5, enableQueryControl: true };
    const first = await container.items.query(query, options).fetchNext();
    const rest = await container.items.query(query, { ...options, continuationToken: first.continuationToken }).fetchAll();
    const got = [...first.resources, ...rest.resources];
    assert.equal(got.length, N);
    assert.equal(new Set(got).size, N, "no row twice");
    const catOf = (id) => DOCS.find((d) => d.id === id).cat;
    assert.deepEqual(got.map(catOf), [...DOCS].map((d) => d.cat).sort());
  });

  it("a streaming query resumes exactly where the first page ended", async () => {
    const query = "SELECT * FROM c WHERE c.n % 2 = 0";
    const expected = DOCS.filter((d) => d.n % 2 === 0);
    const first = await container.items.query(query, { maxItemCount: 6 }).fetchNext();
    assert.ok(first.resources.length <= 6);
    if (LOCAL) assert.equal(first.resources.length, 6);
    const rest = await drain(container.items.query(query, { maxItemCount: 6, continuationToken: first.continuationToken }), 6, { streaming: true });
    const got = [...first.resources, ...rest.items];
    assert.equal(got.length, expected.length);
    assert.deepEqual([...got].sort(byId), expected.map((d) => storedById(d.id)).sort(byId));
  });

  it("TOP resumes with the remaining budget", () =>
    resume("SELECT TOP 11 VALUE c.n FROM c ORDER BY c.n DESC", 4, orderedByN().map((d) => d.n).reverse().slice(0, 11)));

  // (across partitions the SDK's query control answers OFFSET pages as they become ready, without
  // a token on the first; one partition key pages it in the backend)
  it("OFFSET LIMIT resumes with the remaining window (one partition key)", () =>
    resume(
      "SELECT VALUE c.n FROM c ORDER BY c.n OFFSET 2 LIMIT 5",
      2,
      orderedByN().filter((d) => d.pk === "alpha").map((d) => d.n).slice(2, 7),
      { partitionKey: "alpha" },
    ));

  // GROUP BY and unordered DISTINCT have no resumable tokens across partitions (the SDK refuses
  // them); within one partition key the backend pages them itself.
  const gamma = DOCS.filter((d) => d.pk === "gamma");

  it("GROUP BY resumes between groups (one partition key)", async () => {
    const query = "SELECT c.x, COUNT(1) AS n FROM c GROUP BY c.x";
    const options = { maxItemCount: 2, partitionKey: "gamma" };
    const first = await container.items.query(query, options).fetchNext();
    assert.equal(first.resources.length, 2);
    assert.equal(typeof first.continuationToken, "string");
    const rest = await container.items.query(query, { ...options, continuationToken: first.continuationToken }).fetchAll();
    const got = [...first.resources, ...rest.resources];
    const expected = [...new Set(gamma.map((d) => d.x))].map((x) => ({ x, n: gamma.filter((d) => d.x === x).length }));
    assert.deepEqual(sortedBy(got, (r) => r.x), sortedBy(expected, (r) => r.x));
  });

  it("DISTINCT VALUE resumes without repeating values (one partition key)", async () => {
    const query = "SELECT DISTINCT VALUE c.x FROM c";
    const options = { maxItemCount: 3, partitionKey: "gamma" };
    const first = await container.items.query(query, options).fetchNext();
    assert.equal(typeof first.continuationToken, "string");
    const rest = await container.items.query(query, { ...options, continuationToken: first.continuationToken }).fetchAll();
    const got = [...first.resources, ...rest.resources];
    assert.deepEqual([...got].sort((a, b) => a - b), [...new Set(gamma.map((d) => d.x))].sort((a, b) => a - b));
  });

  it("a partition-key scoped query resumes within the partition", () =>
    resume(
      "SELECT VALUE c.id FROM c ORDER BY c.n",
      2,
      ids(orderedByN().filter((d) => d.pk === "gamma")),
      { partitionKey: "gamma" },
    ));

  it("an invalid continuation token answers 400", { skip: !LOCAL }, async () => {
    const err = await expectError(
      () => container.items.query("SELECT * FROM c", { continuationToken: "garbage", maxItemCount: 2 }).fetchAll(),
      400,
      "BadRequest",
    );
    assert.match(err.body.message, /Invalid Continuation Token/);
  });

  it("a token of another query answers 400", { skip: !LOCAL }, async () => {
    const control = { maxItemCount: 2, enableQueryControl: true };
    const first = await container.items.query("SELECT * FROM c ORDER BY c.n", control).fetchNext();
    assert.equal(typeof first.continuationToken, "string");
    const err = await expectError(
      () =>
        container.items
          .query("SELECT * FROM c ORDER BY c.x", { ...control, continuationToken: first.continuationToken })
          .fetchAll(),
      400,
      "BadRequest",
    );
    assert.match(err.body.message, /Invalid Continuation Token/);
  });
});

describe("cross-partition ORDER BY, TOP, OFFSET LIMIT", () => {
  it("ORDER BY ASC returns the whole items in order", async () => {
    assert.deepEqual(await all("SELECT * FROM c ORDER BY c.n ASC"), orderedByN().map((d) => storedById(d.id)));
  });

  it("ORDER BY DESC", async () => {
    assert.deepEqual(await all("SELECT VALUE c.n FROM c ORDER BY c.n DESC"), orderedByN().map((d) => d.n).reverse());
  });

  it("ORDER BY a string key, then a number key", async () => {
    const expected = [...DOCS].sort((a, b) => cmp(a.cat, b.cat) || cmp(b.n, a.n)).map((d) => ({ id: d.id, cat: d.cat }));
    assert.deepEqual(await all("SELECT c.id, c.cat FROM c ORDER BY c.cat ASC, c.n DESC"), expected);
  });

  it("ORDER BY two number keys with a filter", async () => {
    const expected = DOCS.filter((d) => d.n >= 10)
      .sort((a, b) => cmp(b.x, a.x) || cmp(a.f, b.f))
      .map((d) => [d.x, d.n]);
    assert.deepEqual(await all("SELECT VALUE [c.x, c.n] FROM c WHERE c.n >= 10 ORDER BY c.x DESC, c.f ASC"), expected);
  });

  it("TOP with and without ORDER BY", async () => {
    assert.deepEqual(await all("SELECT TOP 5 VALUE c.n FROM c ORDER BY c.n DESC"), [39, 38, 37, 36, 35]);
    const top = await all("SELECT TOP 7 * FROM c");
    assert.equal(top.length, 7);
    assert.equal(new Set(ids(top)).size, 7);
    for (const d of top) assert.deepEqual(d, storedById(d.id));
    assert.deepEqual(await all("SELECT TOP 0 * FROM c", {}, { free: true }), []);
    assert.equal((await all("SELECT TOP 1000 VALUE c.id FROM c")).length, N);
  });

  it("TOP pages with maxItemCount and stops at TOP", async () => {
    const { pages, items } = await drain(container.items.query("SELECT TOP 5 VALUE c.n FROM c ORDER BY c.n", { maxItemCount: 2 }), 2);
    assert.deepEqual(items, [0, 1, 2, 3, 4]);
    if (LOCAL) assert.deepEqual(pages.map((p) => p.resources.length), [2, 2, 1]);
  });

  it("OFFSET LIMIT over an ordered result", async () => {
    const byX = [...DOCS].sort((a, b) => cmp(a.x, b.x) || cmp(a.n, b.n)).map((d) => d.id);
    assert.deepEqual(await all("SELECT VALUE c.id FROM c ORDER BY c.x, c.n OFFSET 10 LIMIT 8"), byX.slice(10, 18));
    assert.deepEqual(await all("SELECT VALUE c.id FROM c ORDER BY c.x, c.n OFFSET 35 LIMIT 10"), byX.slice(35));
    assert.deepEqual(await all("SELECT VALUE c.id FROM c ORDER BY c.x, c.n OFFSET 40 LIMIT 10"), []);
    assert.deepEqual(await all("SELECT VALUE c.id FROM c ORDER BY c.x, c.n OFFSET 0 LIMIT 0", {}, { free: true }), []);
  });

  it("OFFSET n LIMIT 2147483647 (LINQ Skip) runs the plan's own rewrite to LIMIT n+2147483647", async () => {
    // The service's plan sends every range `OFFSET 0 LIMIT n+m` (QueryPlanBaselineTests.OffsetLimit
    // "LIMIT value at upper range"), and the range runs it.
    assert.deepEqual(await all("SELECT VALUE c.id FROM c ORDER BY c.n OFFSET 37 LIMIT 2147483647"), ids(orderedByN().slice(37)));
    const rest = await all("SELECT VALUE c.id FROM c OFFSET 30 LIMIT 2147483647");
    assert.equal(rest.length, 10);
  });

  it("OFFSET LIMIT pages with maxItemCount", async () => {
    const { items } = await drain(container.items.query("SELECT VALUE c.n FROM c ORDER BY c.n DESC OFFSET 3 LIMIT 10", { maxItemCount: 4 }), 4);
    assert.deepEqual(items, orderedByN().map((d) => d.n).reverse().slice(3, 13));
  });
});

describe("aggregates", () => {
  const xs = DOCS.map((d) => d.x);
  const fs = DOCS.map((d) => d.f);

  it("SELECT VALUE COUNT(1)", async () => {
    assert.deepEqual(await all("SELECT VALUE COUNT(1) FROM c"), [N]);
    assert.deepEqual(await all("SELECT VALUE COUNT(c.id) FROM c WHERE c.cat = 'red'"), [DOCS.filter((d) => d.cat === "red").length]);
  });

  it("SELECT VALUE SUM, AVG, MIN, MAX", async () => {
    assert.deepEqual(await all("SELECT VALUE SUM(c.x) FROM c"), [sum(xs)]);
    assert.deepEqual(await all("SELECT VALUE SUM(c.f) FROM c"), [sum(fs)]);
    assert.deepEqual(await all("SELECT VALUE AVG(c.x) FROM c"), [sum(xs) / N]);
    assert.deepEqual(await all("SELECT VALUE AVG(c.n) FROM c"), [sum(DOCS.map((d) => d.n)) / N]);
    assert.deepEqual(await all("SELECT VALUE MIN(c.f) FROM c"), [Math.min(...fs)]);
    assert.deepEqual(await all("SELECT VALUE MAX(c.x) FROM c"), [Math.max(...xs)]);
    assert.deepEqual(await all("SELECT VALUE MIN(c.id) FROM c"), ["item-00"]);
    assert.deepEqual(await all("SELECT VALUE MAX(c.cat) FROM c"), ["red"]);
  });

  it("aggregates with a filter and over nothing", async () => {
    const big = DOCS.filter((d) => d.n >= 30);
    assert.deepEqual(await all("SELECT VALUE SUM(c.n) FROM c WHERE c.n >= 30"), [sum(big.map((d) => d.n))]);
    assert.deepEqual(await all("SELECT VALUE COUNT(1) FROM c WHERE c.n > 1000"), [0]);
    assert.deepEqual(await all("SELECT VALUE SUM(c.n) FROM c WHERE c.n > 1000"), [0]);
    assert.deepEqual(await all("SELECT VALUE MAX(c.n) FROM c WHERE c.n > 1000"), []);
    assert.deepEqual(await all("SELECT VALUE AVG(c.n) FROM c WHERE c.n > 1000"), []);
  });

  it("non-VALUE aggregates: SELECT COUNT(1) AS n, SUM(c.x) AS s", async () => {
    assert.deepEqual(await all("SELECT COUNT(1) AS n, SUM(c.x) AS s FROM c"), [{ n: N, s: sum(xs) }]);
    assert.deepEqual(await all("SELECT MIN(c.n) AS lo, MAX(c.n) AS hi, AVG(c.f) AS avg FROM c WHERE c.pk = 'beta'"), [
      (() => {
        const b = DOCS.filter((d) => d.pk === "beta");
        return { lo: Math.min(...b.map((d) => d.n)), hi: Math.max(...b.map((d) => d.n)), avg: sum(b.map((d) => d.f)) / b.length };
      })(),
    ]);
  });

  it("an aggregate query with a small maxItemCount answers its one row", async () => {
    const { items } = await drain(container.items.query("SELECT VALUE COUNT(1) FROM c", { maxItemCount: 1 }), 1);
    assert.deepEqual(items, [N]);
  });
});

describe("GROUP BY", () => {
  const groups = (key) => {
    const m = new Map();
    for (const d of DOCS) {
      const k = key(d);
      if (!m.has(k)) m.set(k, []);
      m.get(k).push(d);
    }
    return m;
  };

  it("GROUP BY with COUNT and SUM", async () => {
    const expected = [...groups((d) => d.cat)].map(([cat, ds]) => ({ cat, n: ds.length, s: sum(ds.map((d) => d.x)) }));
    const got = await all("SELECT c.cat, COUNT(1) AS n, SUM(c.x) AS s FROM c GROUP BY c.cat");
    assert.deepEqual(sortedBy(got, (r) => r.cat), sortedBy(expected, (r) => r.cat));
  });

  it("GROUP BY two keys with a filter", async () => {
    const rows = DOCS.filter((d) => d.n < 30);
    const m = new Map();
    for (const d of rows) {
      const k = `${d.pk}|${d.cat}`;
      m.set(k, { pk: d.pk, cat: d.cat, total: (m.get(k)?.total ?? 0) + d.n });
    }
    const key = (r) => `${r.pk}|${r.cat}`;
    const got = await all("SELECT c.pk, c.cat, SUM(c.n) AS total FROM c WHERE c.n < 30 GROUP BY c.pk, c.cat");
    assert.deepEqual(sortedBy(got, key), sortedBy([...m.values()], key));
  });

  it("SELECT VALUE of a group key", async () => {
    const got = await all("SELECT VALUE c.pk FROM c GROUP BY c.pk");
    assert.deepEqual([...got].sort(), [...PKS].sort());
  });

  it("GROUP BY pages with maxItemCount 1", async () => {
    // (the SDK's GROUP BY pipeline answers empty pages while it gathers every range's groups)
    const iter = container.items.query("SELECT c.pk, COUNT(1) AS n FROM c GROUP BY c.pk", { maxItemCount: 1 });
    const { items } = await drain(iter, 1, { exactPages: false });
    const expected = [...groups((d) => d.pk)].map(([pk, ds]) => ({ pk, n: ds.length }));
    assert.deepEqual(sortedBy(items, (r) => r.pk), sortedBy(expected, (r) => r.pk));
  });
});

describe("DISTINCT", () => {
  it("SELECT DISTINCT c.cat", async () => {
    const got = await all("SELECT DISTINCT c.cat FROM c");
    assert.deepEqual(sortedBy(got, (r) => r.cat), [...CATS].sort().map((cat) => ({ cat })));
  });

  // (the SDK's DISTINCT drops the value 0: x is 0..10)
  const xs = [...new Set(DOCS.map((d) => d.x))].filter((x) => x !== 0);

  it("SELECT DISTINCT VALUE", async () => {
    const got = await all("SELECT DISTINCT VALUE c.x FROM c");
    assert.deepEqual([...got].sort((a, b) => a - b), [...xs].sort((a, b) => a - b));
  });

  it("SELECT DISTINCT VALUE with ORDER BY on the same expression", async () => {
    const got = await all("SELECT DISTINCT VALUE c.x FROM c ORDER BY c.x DESC");
    assert.deepEqual(got, [...xs].sort((a, b) => b - a));
  });

  it("DISTINCT over two fields pages with maxItemCount 2", async () => {
    const { items } = await drain(container.items.query("SELECT DISTINCT c.pk, c.cat FROM c", { maxItemCount: 2 }), 2);
    const expected = [...new Set(DOCS.map((d) => `${d.pk}|${d.cat}`))].sort();
    assert.deepEqual(items.map((r) => `${r.pk}|${r.cat}`).sort(), expected);
  });
});

describe("JOIN", () => {
  const pairs = DOCS.flatMap((d) => d.tags.map((t) => ({ id: d.id, tag: t })));

  it("JOIN over an array", async () => {
    const got = await all("SELECT c.id, t AS tag FROM c JOIN t IN c.tags");
    assert.equal(got.length, pairs.length);
    const key = (r) => `${r.id}|${r.tag}`;
    assert.deepEqual(sortedBy(got, key), sortedBy(pairs, key));
  });

  it("JOIN with a filter on the joined value, ordered", async () => {
    const expected = pairs.filter((p) => p.tag === "t2").map((p) => p.id).sort();
    assert.deepEqual(await all("SELECT VALUE c.id FROM c JOIN t IN c.tags WHERE t = 't2' ORDER BY c.id"), expected);
  });

  it("COUNT over a JOIN", async () => {
    assert.deepEqual(await all("SELECT VALUE COUNT(1) FROM c JOIN t IN c.tags"), [pairs.length]);
  });
});

describe("parameters", () => {
  it("scalar parameters", async () => {
    const got = await all({
      query: "SELECT VALUE c.id FROM c WHERE c.n >= @lo AND c.cat = @cat ORDER BY c.n",
      parameters: [
        { name: "@lo", value: 20 },
        { name: "@cat", value: "green" },
      ],
    });
    assert.deepEqual(got, ids(orderedByN().filter((d) => d.n >= 20 && d.cat === "green")));
  });

  it("an array parameter with ARRAY_CONTAINS, and a parameter in TOP", async () => {
    const wanted = ["item-03", "item-17", "item-29", "nope"];
    const got = await all({
      query: "SELECT TOP @k c.id, c.pk FROM c WHERE ARRAY_CONTAINS(@ids, c.id) ORDER BY c.id DESC",
      parameters: [
        { name: "@ids", value: wanted },
        { name: "@k", value: 2 },
      ],
    });
    assert.deepEqual(got, [
      { id: "item-29", pk: DOCS[29].pk },
      { id: "item-17", pk: DOCS[17].pk },
    ]);
  });

  it("an object parameter and a parameter compared with a nested path", async () => {
    const got = await all({
      query: "SELECT VALUE c.n FROM c WHERE c.pk = @p.pk AND c.x > @p.minX ORDER BY c.n",
      parameters: [{ name: "@p", value: { pk: "delta", minX: 4 } }],
    });
    assert.deepEqual(got, orderedByN().filter((d) => d.pk === "delta" && d.x > 4).map((d) => d.n));
  });
});

describe("partition key scoped queries", () => {
  for (const pk of ["alpha", "epsilon"]) {
    it(`partitionKey "${pk}" restricts the query to that logical partition`, async () => {
      const expected = orderedByN().filter((d) => d.pk === pk);
      assert.deepEqual(await all("SELECT * FROM c ORDER BY c.n", { partitionKey: pk }), expected.map((d) => storedById(d.id)));
      assert.deepEqual(await all("SELECT VALUE COUNT(1) FROM c", { partitionKey: pk }), [expected.length]);
    });
  }

  it("a partition key scoped query pages with fetchNext", async () => {
    const expected = orderedByN().filter((d) => d.pk === "beta").map((d) => d.n);
    const { items } = await drain(container.items.query("SELECT VALUE c.n FROM c ORDER BY c.n", { partitionKey: "beta", maxItemCount: 3 }), 3);
    assert.deepEqual(items, expected);
  });

  it("a partition key with no items gives nothing", async () => {
    assert.deepEqual(await all("SELECT * FROM c", { partitionKey: "nobody" }), []);
  });
});

describe("readAll", () => {
  it("readAll() returns every stored item", async () => {
    const res = await container.items.readAll().fetchAll();
    assert.ok(res.requestCharge > 0);
    assert.deepEqual([...res.resources].sort(byId), [...stored].sort(byId));
  });

  it("readAll() pages with maxItemCount 7", async () => {
    const { items } = await drain(container.items.readAll({ maxItemCount: 7 }), 7, { streaming: true });
    assert.equal(items.length, N);
    assert.deepEqual([...items].sort(byId), [...stored].sort(byId));
  });

  it("readAll() with a partition key", async () => {
    const res = await container.items.readAll({ partitionKey: "delta" }).fetchAll();
    assert.deepEqual(
      [...res.resources].sort(byId),
      stored.filter((d) => d.pk === "delta").sort(byId),
    );
  });
});

describe("query options", () => {
  it("forceQueryPlan: a filter query", async () => {
    const got = await all("SELECT * FROM c WHERE c.cat = 'blue'", { forceQueryPlan: true });
    assert.deepEqual([...got].sort(byId), stored.filter((d) => d.cat === "blue").sort(byId));
  });

  it("forceQueryPlan: ORDER BY", async () => {
    const got = await all("SELECT c.id, c.n FROM c ORDER BY c.n DESC", { forceQueryPlan: true });
    assert.deepEqual(got, orderedByN().reverse().map((d) => ({ id: d.id, n: d.n })));
  });

  it("forceQueryPlan: VALUE COUNT", async () => {
    assert.deepEqual(await all("SELECT VALUE COUNT(1) FROM c", { forceQueryPlan: true }), [N]);
  });

  it("forceQueryPlan: TOP with ORDER BY", async () => {
    assert.deepEqual(await all("SELECT TOP 3 VALUE c.n FROM c ORDER BY c.n", { forceQueryPlan: true }), [0, 1, 2]);
  });

  it("forceQueryPlan: TOP without ORDER BY", async () => {
    const got = await all("SELECT TOP 6 VALUE c.id FROM c", { forceQueryPlan: true });
    assert.equal(got.length, 6);
    assert.equal(new Set(got).size, 6);
    for (const id of got) assert.ok(storedById(id), id);
  });

  it("forceQueryPlan: OFFSET LIMIT with ORDER BY", async () => {
    assert.deepEqual(
      await all("SELECT VALUE c.n FROM c ORDER BY c.n OFFSET 4 LIMIT 3", { forceQueryPlan: true }),
      [4, 5, 6],
    );
  });

  it("forceQueryPlan: DISTINCT VALUE", async () => {
    const got = await all("SELECT DISTINCT VALUE c.cat FROM c", { forceQueryPlan: true });
    assert.deepEqual([...got].sort(), [...CATS].sort());
  });

  it("forceQueryPlan: GROUP BY", async () => {
    const got = await all("SELECT c.cat, COUNT(1) AS n FROM c GROUP BY c.cat", { forceQueryPlan: true });
    const expected = CATS.map((cat) => ({ cat, n: DOCS.filter((d) => d.cat === cat).length }));
    assert.deepEqual(sortedBy(got, (r) => r.cat), sortedBy(expected, (r) => r.cat));
  });

  it("forceQueryPlan: non-VALUE aggregates", async () => {
    assert.deepEqual(await all("SELECT COUNT(1) AS n, SUM(c.x) AS s FROM c", { forceQueryPlan: true }), [
      { n: N, s: sum(DOCS.map((d) => d.x)) },
    ]);
  });

  it("populateQueryMetrics does not change the results", async () => {
    const res = await container.items.query("SELECT VALUE c.n FROM c ORDER BY c.n", { populateQueryMetrics: true }).fetchAll();
    assert.deepEqual(res.resources, orderedByN().map((d) => d.n));
    assert.ok(res.requestCharge > 0);
  });

  it("a query without FROM", async () => {
    assert.deepEqual(await all("SELECT VALUE 1 + 2"), [3]);
    assert.deepEqual(await all("SELECT 'a' AS s, [1, 2] AS arr"), [{ s: "a", arr: [1, 2] }]);
  });
});

describe("language fidelity (issue 39)", () => {
  it("= and != between different types are false and true: `x != null` keeps every non-null value", async () => {
    // The .NET SDK's LINQ baselines, recorded against the service, keep such rows.
    const notNull = await all("SELECT VALUE c.id FROM c WHERE c.pk != null AND c.n < 3 ORDER BY c.n");
    assert.deepEqual(notNull, ids(orderedByN().slice(0, 3)));
    assert.deepEqual(await all("SELECT VALUE [1 = '1', false = 0, {} = [], null != 0, null = null]"), [[false, false, false, true, true]]);
    assert.deepEqual(await all("SELECT VALUE COUNT(1) FROM c WHERE c.missing != null"), [0]);
  });

  it("GROUP BY accepts a select expression made only of group keys", async () => {
    const rows = await all('SELECT {"a": c.cat}["a"] AS x FROM c GROUP BY c.cat');
    assert.deepEqual(rows.map((r) => r.x).sort(), [...CATS].sort());
  });

  it("ORDER BY over a JOIN's collection is refused as the service refuses it", async () => {
    const err = await expectError(
      () => container.items.query("SELECT VALUE t FROM c JOIN t IN c.tags ORDER BY t", { partitionKey: "alpha" }).fetchAll(),
      400,
      "BadRequest",
    );
    assert.match(err.body.message, /Order-by over correlated collections is not supported\./);
    const computed = await expectError(
      () => container.items.query("SELECT VALUE x.id FROM (SELECT c.id AS id, c.n * 2 AS m FROM c) AS x ORDER BY x.m", { partitionKey: "alpha" }).fetchAll(),
      400,
      "BadRequest",
    );
    assert.match(computed.body.message, /ORDER BY item expression could not be mapped to a document path/);
  });

  it("a member indexer that reads the row is refused (SC2990)", async () => {
    const err = await expectError(
      () => container.items.query("SELECT VALUE [1, 2, 3][c.x] FROM c", { partitionKey: "alpha" }).fetchAll(),
      400,
      "BadRequest",
    );
    assert.match(err.body.message, /"code":"SC2990"/);
    assert.deepEqual(
      await all({ query: "SELECT VALUE [10, 20, 30][@i]", parameters: [{ name: "@i", value: 2 }] }),
      [30],
    );
  });

  it("DOCUMENTID(root) is the item's number within its partition (the item part of its _rid)", async () => {
    const rows = await all("SELECT c._rid, DOCUMENTID(c) AS d FROM c WHERE DOCUMENTID(c) > 0", { partitionKey: "alpha" });
    assert.equal(rows.length, DOCS.filter((d) => d.pk === "alpha").length);
    for (const { _rid, d } of rows) {
      const bytes = Buffer.from(_rid.replace(/-/g, "/"), "base64");
      assert.equal(d, Number(bytes.readBigUInt64LE(8)));
    }
  });

  it("an unknown udf.X fails only when a row calls it", async () => {
    assert.deepEqual(await all("SELECT VALUE udf.nope(c.n) FROM c WHERE c.n < 0", { partitionKey: "alpha" }), []);
    const err = await expectError(
      () => container.items.query("SELECT VALUE udf.nope(c.n) FROM c", { partitionKey: "alpha" }).fetchAll(),
      400,
      "BadRequest",
    );
    assert.match(err.body.message, /'udf\.nope' is not a recognized user-defined function name\./);
  });

  it("NaN and Infinity are literals", async () => {
    assert.deepEqual(await all("SELECT VALUE [TOSTRING(NaN), TOSTRING(Infinity)]"), [["NaN", "Infinity"]]);
  });

  it("an aggregate with a two-key ORDER BY answers its one value without a composite index", async () => {
    const numbers = DOCS.map((d) => d.n);
    assert.deepEqual(await all("SELECT VALUE AVG(c.n) FROM c WHERE IS_NUMBER(c.n) ORDER BY c.n, c.f"), [sum(numbers) / numbers.length]);
  });
});

describe("query errors", () => {
  it("a syntax error answers 400 with SC1001 and its location", async () => {
    const err = await expectError(() => container.items.query("SELECT FROM c").fetchAll(), 400, "BadRequest");
    assert.match(err.body.message, /"code":"SC1001"/);
    assert.match(err.body.message, /"location":\{"start":7,"end":11\}/);
    assert.match(err.body.message, /Syntax error, incorrect syntax near 'FROM'\./);
  });

  it("a syntax error with a partition key answers 400 too", async () => {
    const err = await expectError(() => container.items.query("SELECT * FROM c WHERE", { partitionKey: "alpha" }).fetchAll(), 400, "BadRequest");
    assert.match(err.body.message, /"code":"SC1002"/);
  });

  it("an unknown function answers 400 with SC2005", async () => {
    const err = await expectError(() => container.items.query("SELECT ABC(1) AS x FROM c").fetchAll(), 400, "BadRequest");
    assert.match(err.body.message, /"code":"SC2005"/);
    assert.match(err.body.message, /'ABC' is not a recognized built-in function name\./);
    assert.match(err.body.message, /"location":\{"start":7,"end":10\}/);
  });

  it("a query against a missing container answers 404", async () => {
    await expectError(() => db.container("no-such-container").items.query("SELECT * FROM c").fetchAll(), 404, "NotFound");
    await expectError(
      () => db.container("no-such-container").items.query("SELECT * FROM c", { partitionKey: "alpha" }).fetchAll(),
      404,
      "NotFound",
    );
  });

  it("a query against a missing database answers 404", async () => {
    await expectError(
      () => ctx.client.database("no-such-db").container("c").items.query("SELECT VALUE COUNT(1) FROM c").fetchAll(),
      404,
      "NotFound",
    );
  });
});
