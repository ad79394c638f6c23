// Vector search through @azure/cosmos: a container with a vector embedding policy and vector indexes
// is created and read back exactly; the service's errors for an index without an embedding, as the
// SDK's own tests look for them; VectorDistance in SELECT and WHERE with the policy's distance
// function, and ORDER BY VectorDistance with TOP or LIMIT, on one partition and across four (the SDK
// asks for a query plan first and merges the ranges' top rows).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { expectError, LOCAL, rawRequest, uid, useEmulatorWithDatabase } from "./harness.mjs";

let db;
let dbId;
const ctx = useEmulatorWithDatabase((d) => ({ db, dbId } = d));

const embeddings = {
  vectorEmbeddings: [
    { path: "/vector1", dataType: "float32", dimensions: 2, distanceFunction: "euclidean" },
    { path: "/vector2", dataType: "float32", dimensions: 2, distanceFunction: "dotproduct" },
  ],
};
const indexes = [
  { path: "/vector1", type: "flat" },
  { path: "/vector2", type: "quantizedFlat", quantizationByteSize: 1 },
];
// The three documents of the SDK's own vector tests: the first equals the query vector.
const docs = [
  { id: "1", pk: "a", vector1: [0.056419, -0.021141], vector2: [0.056419, -0.021141] },
  { id: "2", pk: "b", vector1: [0.066419, -0.031141], vector2: [0.066419, -0.031141] },
  { id: "3", pk: "c", vector1: [0.076419, -0.041141], vector2: [0.076419, -0.041141] },
];
const query = [0.056419, -0.021141];
const euclidean = (v) => Math.sqrt((v[0] - query[0]) ** 2 + (v[1] - query[1]) ** 2);
const dot = (v) => v[0] * query[0] + v[1] * query[1];

async function vectorContainer(partitions) {
  const def = {
    id: uid("vec"),
    partitionKey: { paths: ["/pk"] },
    vectorEmbeddingPolicy: embeddings,
    indexingPolicy: { vectorIndexes: indexes, excludedPaths: [{ path: "/vector1/*" }, { path: "/vector2/*" }] },
  };
  const options = partitions && LOCAL ? { initialHeaders: { "x-cosmos-emulator-partition-count": String(partitions) } } : {};
  const { container, resource, statusCode } = await db.containers.create(def, options);
  assert.equal(statusCode, 201);
  for (const d of docs) await container.items.create(d);
  return { container, resource };
}

describe("vector embedding policy and VectorDistance", () => {
  it("keeps the policy and the vector indexes exactly as sent", async () => {
    const { container, resource } = await vectorContainer();
    assert.deepEqual(resource.vectorEmbeddingPolicy, embeddings);
    assert.deepEqual(resource.indexingPolicy.vectorIndexes, indexes);
    const { resource: read } = await container.read();
    assert.deepEqual(read.vectorEmbeddingPolicy, embeddings);
    assert.deepEqual(read.indexingPolicy.vectorIndexes, indexes);
    await container.delete();
  });

  it("refuses a vector index whose path has no embedding, with the service's message", async () => {
    const err = await expectError(
      () =>
        db.containers.create({
          id: uid("vec"),
          partitionKey: { paths: ["/pk"] },
          indexingPolicy: { vectorIndexes: [{ path: "/vector1", type: "flat" }] },
        }),
      400,
      "BadRequest",
    );
    assert.ok(err.body.message.includes("Vector Indexing Policy's path::\\/vector1 not matching in Embedding's path"), err.body.message);
  });

  for (const partitions of [1, 4]) {
    it(`scores with each path's distance function (${partitions} partition${partitions > 1 ? "s" : ""})`, async () => {
      const { container } = await vectorContainer(partitions);
      const sql = {
        query:
          "SELECT c.id, VectorDistance(c.vector1, @q) AS e, VectorDistance(c.vector2, @q) AS d, " +
          "VectorDistance(c.vector1, @q, true, {'distanceFunction': 'DotProduct'}) AS o FROM c",
        parameters: [{ name: "@q", value: query }],
      };
      const { resources } = await container.items.query(sql).fetchAll();
      const byId = Object.fromEntries(resources.map((r) => [r.id, r]));
      assert.deepEqual(Object.keys(byId).sort(), ["1", "2", "3"]);
      for (const d of docs) {
        assert.ok(Math.abs(byId[d.id].e - euclidean(d.vector1)) < 1e-15, JSON.stringify(byId[d.id]));
        assert.ok(Math.abs(byId[d.id].d - dot(d.vector2)) < 1e-15, JSON.stringify(byId[d.id]));
        assert.ok(Math.abs(byId[d.id].o - dot(d.vector1)) < 1e-15, JSON.stringify(byId[d.id]));
      }
      assert.equal(byId["1"].e, 0);
      const near = await container.items
        .query({ query: "SELECT VALUE c.id FROM c WHERE VectorDistance(c.vector1, @q) < 0.02", parameters: sql.parameters })
        .fetchAll();
      assert.deepEqual(near.resources.sort(), ["1", "2"]);
      // Ordered by score with TOP: the SDK asks for the plan, reads each range's top rows and merges
      // them; the closest first (Euclidean ascending, dot product descending).
      const ordered = async (text) =>
        (await container.items.query({ query: text, parameters: sql.parameters }).fetchAll()).resources.map((r) => r.id);
      assert.deepEqual(await ordered("SELECT TOP 2 c.id FROM c ORDER BY VectorDistance(c.vector1, @q)"), ["1", "2"]);
      assert.deepEqual(await ordered("SELECT TOP 2 c.id FROM c ORDER BY VectorDistance(c.vector2, @q)"), ["3", "2"]);
      assert.deepEqual(
        await ordered("SELECT c.id FROM c ORDER BY VectorDistance(c.vector1, @q, false, {distanceFunction: 'dotproduct'}) OFFSET 1 LIMIT 2"),
        ["2", "1"],
      );
      await container.delete();
    });
  }
});

// A search over many vectors reads only what each partition's vector index leaves (docs/vector-search.md):
// the results must be exactly those of computing every distance, ties in the order of the items.
describe("vector search over many vectors", () => {
  // A deterministic generator (mulberry32): numbers with up to 6 decimals, so JSON keeps them exactly.
  function generator(seed) {
    let a = seed >>> 0;
    return () => {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  const dims = 24;
  const random = generator(42);
  const vec = (scale = 1) => Array.from({ length: dims }, () => Math.round((random() * 2 - 1) * scale * 1e6) / 1e6);
  const items = [];
  for (let i = 0; i < 700; i++) {
    const item = { id: `v${i}`, pk: `p${i % 7}` };
    if (i % 50 === 3) item.embedding = [1, 2, 3];  // another length: undefined distance
    else if (i % 50 === 4) item.embedding = "none";
    else if (i % 50 !== 5) item.embedding = i % 100 === 7 ? items[6].embedding : vec(i % 3 === 0 ? 0.01 : i % 3 === 1 ? 1 : 300);
    items.push(item);
  }
  const q = vec();
  // VectorDistance in JavaScript: the same double arithmetic, in the same order.
  function distance(v, fn) {
    if (!Array.isArray(v) || v.length !== q.length || !v.every((x) => typeof x === "number")) return undefined;
    let dot = 0, aa = 0, bb = 0, sq = 0;
    for (let i = 0; i < v.length; i++) {
      dot += v[i] * q[i];
      aa += v[i] * v[i];
      bb += q[i] * q[i];
      sq += (v[i] - q[i]) * (v[i] - q[i]);
    }
    if (fn === "cosine") return aa === 0 || bb === 0 ? undefined : dot / Math.sqrt(aa * bb);
    return fn === "dotproduct" ? dot : Math.sqrt(sq);
  }
  // The scores of the first k rows; an undefined distance orders below every number (first in
  // ascending order, last in descending), as an undefined sort key does.
  const expected = (fn, descending, k, pk) => {
    const rows = items.filter((d) => pk === undefined || d.pk === pk).map((d) => ({ id: d.id, s: distance(d.embedding, fn) }));
    const low = (r) => (r.s === undefined ? -Infinity : r.s);
    rows.sort((a, b) => (low(a) === low(b) ? 0 : descending ? low(b) - low(a) : low(a) - low(b)));
    return rows.slice(0, k).map((r) => r.s);
  };

  for (const partitions of [1, 3]) {
    it(`TOP k by each distance function equals computing every distance (${partitions} partition${partitions > 1 ? "s" : ""})`, async () => {
      const def = {
        id: uid("vec"),
        partitionKey: { paths: ["/pk"] },
        vectorEmbeddingPolicy: {
          vectorEmbeddings: [{ path: "/embedding", dataType: "float32", dimensions: dims, distanceFunction: "cosine" }],
        },
        indexingPolicy: { vectorIndexes: [{ path: "/embedding", type: "quantizedFlat" }], excludedPaths: [{ path: "/embedding/*" }] },
      };
      const options = LOCAL ? { initialHeaders: { "x-cosmos-emulator-partition-count": String(partitions) } } : {};
      const { container } = await db.containers.create(def, options);
      for (let i = 0; i < items.length; i += 100)
        await Promise.all(items.slice(i, i + 100).map((d) => container.items.create(d)));
      const run = async (text, options = {}) =>
        (await container.items.query({ query: text, parameters: [{ name: "@q", value: q }] }, options).fetchAll()).resources;
      for (const [fn, options] of [["cosine", ""], ["dotproduct", ", false, {distanceFunction: 'dotproduct'}"], ["euclidean", ", true, {distanceFunction: 'euclidean'}"]]) {
        const call = `VectorDistance(c.embedding, @q${options})`;
        const closest = fn !== "euclidean";
        for (const k of [1, 10, 25]) {
          const got = await run(`SELECT TOP ${k} c.id, ${call} AS s FROM c ORDER BY ${call}`);
          assert.deepEqual(got.map((r) => r.s), expected(fn, closest, k), `${fn} TOP ${k}`);
        }
        // The other way round: the items without a vector of this length first when ascending.
        const far = await run(`SELECT TOP 50 c.id, ${call} AS s FROM c ORDER BY ${call} ${closest ? "ASC" : "DESC"}`);
        assert.deepEqual(far.map((r) => r.s), expected(fn, !closest, 50), `${fn} the farthest`);
        const page = await run(`SELECT c.id, ${call} AS s FROM c ORDER BY ${call} OFFSET 3 LIMIT 4`);
        assert.deepEqual(page.map((r) => r.s), expected(fn, closest, 7).slice(3), `${fn} OFFSET 3 LIMIT 4`);
        const one = await run(`SELECT TOP 3 c.id, ${call} AS s FROM c ORDER BY ${call}`, { partitionKey: "p3" });
        assert.deepEqual(one.map((r) => r.s), expected(fn, closest, 3, "p3"), `${fn} in one logical partition`);
        // With a filter: the best among the items it accepts.
        const filtered = await run(`SELECT TOP 6 c.id, ${call} AS s FROM c WHERE c.pk IN ('p1', 'p5') AND STARTSWITH(c.id, 'v1') ORDER BY ${call}`);
        const accepted = (d) => (d.pk === "p1" || d.pk === "p5") && d.id.startsWith("v1");
        const rows = items.filter(accepted).map((d) => ({ s: distance(d.embedding, fn) }));
        const low = (r) => (r.s === undefined ? -Infinity : r.s);
        rows.sort((a, b) => (low(a) === low(b) ? 0 : closest ? low(b) - low(a) : low(a) - low(b)));
        assert.deepEqual(filtered.map((r) => r.s), rows.slice(0, 6).map((r) => r.s), `${fn} with a filter`);
      }
      // Vectors equal to another tie: both come, in the order of the items.
      const tied = await run("SELECT TOP 40 c.id, VectorDistance(c.embedding, @q) AS s FROM c ORDER BY VectorDistance(c.embedding, @q)");
      assert.deepEqual(tied.map((r) => r.s), expected("cosine", true, 40));
      await container.delete();
    });
  }
});

// Charges (docs/request-units.md, "Vector search"): a write adds the cost of each vector index its
// vectors enter, a search the cost of its index kind; both only against the local binary.
describe("vector search charges", () => {
  it("writes and searches cost what their vector index adds", { skip: !LOCAL }, async () => {
    const dims = 8;
    const make = async (type) => {
      const def = { id: uid("vec"), partitionKey: { paths: ["/pk"] }, indexingPolicy: { excludedPaths: [{ path: "/v/*" }] } };
      if (type) {
        def.vectorEmbeddingPolicy = { vectorEmbeddings: [{ path: "/v", dataType: "float32", dimensions: dims, distanceFunction: "cosine" }] };
        def.indexingPolicy.vectorIndexes = [{ path: "/v", type }];
      }
      return (await db.containers.create(def)).container;
    };
    const containers = { none: await make(), flat: await make("flat"), quantizedFlat: await make("quantizedFlat"), diskANN: await make("diskANN") };
    const writes = {};
    const searches = {};
    const q = [1, 0, 0, 0, 0, 0, 0, 1];
    for (const [type, container] of Object.entries(containers)) {
      for (let i = 0; i < 20; i++) {
        const { requestCharge } = await container.items.create({ id: `i${i}`, pk: "a", v: Array.from({ length: dims }, (_, j) => (i + j) % 5) });
        if (i === 0) writes[type] = requestCharge;
      }
      const text = { query: "SELECT TOP 3 c.id FROM c ORDER BY VectorDistance(c.v, @q)", parameters: [{ name: "@q", value: q }] };
      searches[type] = (await container.items.query(text, { partitionKey: "a" }).fetchAll()).requestCharge;
      const brute = { query: "SELECT TOP 3 c.id FROM c ORDER BY VectorDistance(c.v, @q, true)", parameters: text.parameters };
      searches[`${type} bruteForce`] = (await container.items.query(brute, { partitionKey: "a" }).fetchAll()).requestCharge;
    }
    const near = (a, b) => assert.ok(Math.abs(a - b) < 0.015, `${a} != ${b}`);
    near(writes.flat - writes.none, 10 + 0.0063 * dims);
    near(writes.quantizedFlat - writes.none, 10 + 0.0063 * dims);
    near(writes.diskANN - writes.none, 40 + 0.0063 * dims);
    // Per partition: 10 + the vectors compared (20 items of 8 of 1,536 dimensions), or 30 for diskANN.
    const compared = (20 * dims) / 1536;
    near(searches.none - searches["none bruteForce"], 0);
    near(searches.quantizedFlat - searches.none, 0.0003 * compared - 0.0006 * compared);
    near(searches.diskANN - searches.none, 30 - 10 - 0.0006 * compared);
    near(searches["diskANN bruteForce"], searches.none);
    near(searches.flat, searches.none);
    // The RU report shows each search by its shape, with the charges the SDK saw.
    const stats = (await rawRequest(ctx.env, { path: "/_emulator/stats", auth: false })).json;
    const entry = stats.containers.find((c) => c.database === dbId && c.container === containers.diskANN.id);
    const shapes = entry.queries.filter((q) => q.query.includes("VectorDistance")).map((q) => [q.query, q.executions, q.totalRU]);
    assert.deepEqual(shapes.sort(), [
      ["SELECT TOP 3 c.id FROM c ORDER BY VectorDistance(c.v, @q) ASC", 1, searches.diskANN],
      ["SELECT TOP 3 c.id FROM c ORDER BY VectorDistance(c.v, @q, true) ASC", 1, searches["diskANN bruteForce"]],
    ]);
    for (const container of Object.values(containers)) await container.delete();
  });
});
