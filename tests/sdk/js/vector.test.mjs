// Vector search through @azure/cosmos: a container with a vector embedding policy and vector indexes
// is created and read back exactly; the service's errors for an index without an embedding, as the
// SDK's own tests look for them; VectorDistance in SELECT and WHERE with the policy's distance
// function, and ORDER BY VectorDistance with TOP or LIMIT, on one partition and across four (the SDK
// asks for a query plan first and merges the ranges' top rows).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { expectError, LOCAL, uid, useEmulatorWithDatabase } from "./harness.mjs";

let db;
useEmulatorWithDatabase((d) => ({ db } = d));

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
