// Full-text and hybrid search through @azure/cosmos: the full-text policy and indexes are kept as
// sent and checked with the service's messages; FullTextContains/All/Any and COUNTIF filter and
// count; ORDER BY RANK FullTextScore and RRF run as the SDK drives them against the service (the
// gateway answers 400/1004 with the hybrid plan, the SDK sums the global statistics over every
// range, runs the component queries and fuses their ranks), on one partition and across four,
// with the optimised plan and without it (disableHybridSearchQueryPlanOptimization).
import { readFileSync } from "node:fs";
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

// The 100 documents of the SDKs' own full-text tests (tests/data/azure-sdk-for-python: the Python
// SDK's hybrid_search_data.py, whose get_full_text_items() returns them as a JSON literal; the JS and
// .NET SDKs ship the same documents as text-3properties-1536dimensions-100documents.json). The
// expectations are those the SDKs' tests assert against the service (azure-cosmos 4.17.1's
// test_query_hybrid_search.py, the .NET SDK's HybridSearchQueryTests): 'United States' is a phrase,
// so the 13 documents are the 10 that hold it and the 3 that hold "John"; documents with only
// "United" (25, 66) or only "state", "states", "stated" (23, 42, 44, 88) are not among them.
function sdkDocuments() {
  const text = readFileSync(new URL("../../data/azure-sdk-for-python/hybrid_search_data.py", import.meta.url), "utf8");
  const start = text.indexOf("return ", text.indexOf("def get_full_text_items():")) + "return ".length;
  return JSON.parse(text.slice(start)).items;
}

describe("the SDKs' 100-document full-text test", () => {
  it("matches phrases and ranks as the SDKs' tests expect of the service", async () => {
    const items = sdkDocuments();
    assert.equal(items.length, 100);
    const { container } = await db.containers.create(
      {
        id: uid("fts100"),
        partitionKey: { paths: ["/id"] },
        fullTextPolicy: { defaultLanguage: "en-US", fullTextPaths: [{ path: "/text", language: "en-US" }] },
        indexingPolicy: { fullTextIndexes: [{ path: "/text" }] },
      },
      LOCAL ? { initialHeaders: { "x-cosmos-emulator-partition-count": "4" } } : {},
    );
    for (const [i, item] of items.entries()) await container.items.create({ ...item, id: String(i) });
    // (ORDER BY RANK without TOP or LIMIT needs the SDK's consent, as in the SDK's own test.)
    const unbounded = { allowUnboundedNonStreamingQueries: true };
    const indexes = async (query) => (await container.items.query(query, unbounded).fetchAll()).resources.map((r) => r.index);
    const either = (got, a, b) => assert.ok(JSON.stringify(got) === JSON.stringify(a) || JSON.stringify(got) === JSON.stringify(b), JSON.stringify(got));

    // Filters alone: the phrase, never its words apart.
    assert.deepEqual(await indexes("SELECT c.index FROM c WHERE FullTextContains(c.text, 'United States') ORDER BY c.index"),
      [22, 24, 49, 51, 54, 61, 75, 76, 77, 80]);
    assert.deepEqual(await indexes("SELECT c.index FROM c WHERE FullTextContains(c.text, 'united') ORDER BY c.index"),
      [22, 24, 25, 49, 51, 54, 61, 66, 75, 76, 77, 80]);
    assert.deepEqual(await indexes("SELECT c.index FROM c WHERE FullTextContains(c.text, 'states') ORDER BY c.index"),
      [22, 23, 24, 42, 44, 49, 51, 54, 61, 75, 76, 77, 80, 88]);
    assert.deepEqual(await indexes("SELECT c.index FROM c WHERE FullTextContains(c.text, 'United Kingdom') ORDER BY c.index"), [25, 66]);

    const john = "WHERE FullTextContains(c.title, 'John') OR FullTextContains(c.text, 'John')";
    either(await indexes(`SELECT c.index FROM c ${john} ORDER BY RANK FullTextScore(c.title, 'John')`), [2, 57, 85], [2, 85, 57]);
    either(await indexes(`SELECT TOP 10 c.index FROM c ${john} ORDER BY RANK FullTextScore(c.title, ['John'])`), [2, 57, 85], [2, 85, 57]);
    either(await indexes(`SELECT c.index FROM c ${john} ORDER BY RANK FullTextScore(c.title, 'John') OFFSET 1 LIMIT 5`), [57, 85], [85, 57]);

    const filter = `${john} OR FullTextContains(c.text, 'United States')`;
    const rrf = "RRF(FullTextScore(c.title, 'John'), FullTextScore(c.text, 'United States'))";
    const all = await indexes(`SELECT c.index FROM c ${filter} ORDER BY RANK ${rrf}`);
    assert.deepEqual([...all].sort((a, b) => a - b), [2, 22, 24, 49, 51, 54, 57, 61, 75, 76, 77, 80, 85]);
    // 61 holds the phrase twice; 2 (John in its title, no phrase) comes after every document
    // with the phrase but the lowest-ranked, 22; 57 and 85 score in neither and tie.
    assert.equal(all[0], 61);
    assert.deepEqual(all.slice(9, 11), [2, 22]);
    assert.deepEqual([...all.slice(11)].sort((a, b) => a - b), [57, 85]);
    assert.deepEqual(await indexes(`SELECT TOP 10 c.index FROM c ${filter} ORDER BY RANK ${rrf}`), all.slice(0, 10));
    assert.deepEqual(await indexes(`SELECT c.index FROM c ${filter} ORDER BY RANK ${rrf} OFFSET 5 LIMIT 10`), all.slice(5));
    const ranked = await indexes(`SELECT TOP 10 c.index FROM c ORDER BY RANK ${rrf}`);
    assert.deepEqual(ranked, all.slice(0, 10));
    const limited = await indexes(`SELECT c.index FROM c ORDER BY RANK ${rrf} OFFSET 0 LIMIT 13`);
    assert.equal(limited.length, 13);
    assert.deepEqual(limited.slice(0, 11), all.slice(0, 11));
    const weighted = `RRF(FullTextScore(c.title, 'John'), FullTextScore(c.text, 'United States'), [10, 10])`;
    assert.deepEqual(await indexes(`SELECT c.index FROM c ${filter} ORDER BY RANK ${weighted}`), all);
    const negative = `RRF(FullTextScore(c.title, 'John'), FullTextScore(c.text, 'United States'), [-1, -1])`;
    const reversed = await indexes(`SELECT c.index FROM c ${filter} ORDER BY RANK ${negative}`);
    assert.deepEqual([...reversed].sort((a, b) => a - b), [2, 22, 24, 49, 51, 54, 57, 61, 75, 76, 77, 80, 85]);
    assert.equal(reversed.at(-1), 61);

    // Hybrid: the phrase's ranking fused with the vector of the item the Python SDK's test reads as
    // id "50" (the 51st document, index 51).
    const vector = items[50].vector;
    const { resources: hybrid } = await container.items
      .query({ query: "SELECT c.index FROM c ORDER BY RANK RRF(FullTextScore(c.text, 'United States'), VectorDistance(c.vector, @v)) OFFSET 0 LIMIT 10", parameters: [{ name: "@v", value: vector }] })
      .fetchAll();
    assert.equal(hybrid.length, 10);
    for (const r of hybrid) assert.ok([51, 54, 28, 70, 24, 61, 56, 26, 58, 77, 2, 68].includes(r.index), JSON.stringify(hybrid));
    await container.delete();
  });
});
