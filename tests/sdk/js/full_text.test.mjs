// Full-text and hybrid search through @azure/cosmos: the full-text policy and indexes are kept as
// sent and checked with the service's messages; FullTextContains/All/Any and COUNTIF filter and
// count; ORDER BY RANK FullTextScore and RRF run as the SDK drives them against the service (the
// gateway answers 400/1004 with the hybrid plan, the SDK sums the global statistics over every
// range, runs the component queries and fuses their ranks), on one partition and across four,
// with the optimised plan and without it (disableHybridSearchQueryPlanOptimization).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { expectError, LOCAL, uid, useEmulatorWithDatabase } from "./harness.mjs";

let db;
useEmulatorWithDatabase((d) => ({ db } = d));

const policy = { defaultLanguage: "en-US", fullTextPaths: [{ path: "/text", language: "en-US" }] };
// The documents of the SDK's own full-text test, and two more.
const docs = [
  { id: "1", pk: "a", text: "I like to swim", v: [1, 0] },
  { id: "2", pk: "b", text: "I like to run", v: [0, 1] },
  { id: "3", pk: "c", text: "I like to swim and run", v: [0.7, 0.7] },
  { id: "4", pk: "d", text: "Swimmers swim; swimming is what swimmers do", v: [0.9, 0.1] },
  { id: "5", pk: "e", text: "Nothing here", v: [-1, 0] },
];

async function textContainer(partitions) {
  const def = {
    id: uid("fts"),
    partitionKey: { paths: ["/pk"] },
    fullTextPolicy: policy,
    indexingPolicy: { fullTextIndexes: [{ path: "/text" }] },
    vectorEmbeddingPolicy: { vectorEmbeddings: [{ path: "/v", dataType: "float32", dimensions: 2, distanceFunction: "cosine" }] },
  };
  const options = partitions && LOCAL ? { initialHeaders: { "x-cosmos-emulator-partition-count": String(partitions) } } : {};
  const { container, resource } = await db.containers.create(def, options);
  for (const d of docs) await container.items.create(d);
  return { container, resource };
}

const ids = (rows) => rows.map((r) => r.id);

describe("full-text policy, full-text functions and hybrid search", () => {
  it("keeps the policy and the full-text indexes exactly as sent", async () => {
    const { container, resource } = await textContainer();
    assert.deepEqual(resource.fullTextPolicy, policy);
    assert.deepEqual(resource.indexingPolicy.fullTextIndexes, [{ path: "/text" }]);
    const { resource: read } = await container.read();
    assert.deepEqual(read.fullTextPolicy, policy);
    await container.delete();
  });

  it("refuses bad policies with the service's messages", async () => {
    const bad = async (def, text) => {
      const err = await expectError(() => db.containers.create({ id: uid("bad"), partitionKey: { paths: ["/pk"] }, ...def }), 400);
      assert.ok(err.message.includes(text), err.message);
    };
    await bad({ fullTextPolicy: { defaultLanguage: "en-US", fullTextPaths: [{ path: "abstract" }] } },
      "The Full Text Policy contains an invalid Path: abstract");
    await bad({ fullTextPolicy: { defaultLanguage: "spa-SPA" } },
      "The Full Text Policy contains an unsupported language spa-SPA. Supported languages are:");
    await bad({ indexingPolicy: { fullTextIndexes: [{ path: "/path" }] } },
      "The path of the Full Text Index /path does not match the path specified in the Full Text Policy");
    await bad({ fullTextPolicy: policy, indexingPolicy: { fullTextIndexes: [{ path: "abstract" }] } },
      "Full-text index specification at index (0) contains invalid path");
    await bad({ fullTextPolicy: policy, indexingPolicy: { fullTextIndexes: [{ not_path: "abstract" }] } },
      "Missing path in full-text index specification at index (0)");
  });

  it("filters with FullTextContains, All and Any (stems, case, punctuation) and counts with COUNTIF", async () => {
    const { container } = await textContainer();
    const q = async (query) => (await container.items.query(query).fetchAll()).resources;
    assert.deepEqual(ids(await q("SELECT c.id FROM c WHERE FullTextContains(c.text, 'SWIMMING') ORDER BY c.id")), ["1", "3", "4"]);
    assert.deepEqual(ids(await q("SELECT c.id FROM c WHERE FullTextContainsAll(c.text, 'swim', 'run') ORDER BY c.id")), ["3"]);
    assert.deepEqual(ids(await q("SELECT c.id FROM c WHERE FullTextContainsAny(c.text, 'runs', 'swimmer') ORDER BY c.id")), ["2", "3", "4"]);
    const { resources: counted } = await container.items
      .query("SELECT VALUE COUNTIF(FullTextContains(c.text, 'swim')) FROM c", { partitionKey: "a" })
      .fetchAll();
    assert.deepEqual(counted, [1]);
    await container.delete();
  });

  for (const partitions of [1, 4]) {
    for (const disableHybridSearchQueryPlanOptimization of [false, true]) {
      const label = `${partitions} partition(s), ${disableHybridSearchQueryPlanOptimization ? "rewritten" : "optimised"} plan`;
      it(`ranks by FullTextScore and by RRF with vectors: ${label}`, async () => {
        const { container } = await textContainer(partitions);
        const options = { disableHybridSearchQueryPlanOptimization };
        const { resources: ranked } = await container.items
          .query("SELECT TOP 10 c.id FROM c ORDER BY RANK FullTextScore(c.text, 'swim')", options)
          .fetchAll();
        // Doc 4 says swim three times; 1 is shorter than 3; 2 and 5 score 0 (their order is a tie).
        assert.deepEqual(ids(ranked).slice(0, 3), ["4", "1", "3"]);
        assert.deepEqual(ids(ranked).slice(3).sort(), ["2", "5"]);
        const { resources: fused } = await container.items
          .query(
            {
              query: "SELECT TOP 3 c.id FROM c WHERE FullTextContains(c.text, 'swim') ORDER BY RANK RRF(FullTextScore(c.text, 'swim'), VectorDistance(c.v, @v))",
              parameters: [{ name: "@v", value: [1, 0] }],
            },
            options,
          )
          .fetchAll();
        assert.deepEqual(ids(fused), ["4", "1", "3"]);
        const { resources: reversed } = await container.items
          .query("SELECT c.id FROM c WHERE FullTextContains(c.text, 'swim') ORDER BY RANK RRF(FullTextScore(c.text, 'swim'), FullTextScore(c.text, 'swim'), [-1, -1]) OFFSET 0 LIMIT 3", options)
          .fetchAll();
        assert.deepEqual(ids(reversed), ["3", "1", "4"]);
        await container.delete();
      });
    }
  }
});
