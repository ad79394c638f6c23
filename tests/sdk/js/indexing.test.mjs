// The indexing policy through @azure/cosmos: created, read back and replaced exactly; composite ORDER BY
// served with the index and refused without it; ORDER BY on an excluded path refused; indexing mode
// none (filters need enableScanInQuery); spatial indexes in write and query charges; write charges
// follow the indexed paths; indexing directives (Microsoft's IndexManagement sample); geometry
// containers on the plane. Charges are the request-unit model of docs/request-units.md.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Constants } from "@azure/cosmos";
import {
  assertCharge,
  countTerms,
  createChargeWithTerms,
  expectError,
  kbOf,
  round2,
  uid,
  useEmulatorWithDatabase,
} from "./harness.mjs";

let db;
useEmulatorWithDatabase((d) => ({ db } = d));

const ETAG = { path: '/"_etag"/?' };
const NO_COMPOSITE = "The order by query does not have a corresponding composite index that it can be served from.";
const EXCLUDED = "The index path corresponding to the specified order-by item is excluded.";
const NEEDS_SCAN =
  "An invalid query has been specified with filters against path(s) excluded from indexing. Consider adding allow scan header in the request.";

/** One query page on one partition: 2.7 + 0.1/doc + 0.068/KB loaded, 0.02/doc + 0.0072/KB scanned. */
const queryCharge = (loaded, scanned = []) =>
  round2(2.7 + loaded.reduce((s, d) => s + 0.1 + 0.068 * kbOf(d), 0) + scanned.reduce((s, d) => s + 0.02 + 0.0072 * kbOf(d), 0));

async function newContainer(indexingPolicy) {
  const def = { id: uid("c"), partitionKey: { paths: ["/pk"] } };
  if (indexingPolicy) def.indexingPolicy = indexingPolicy;
  const res = await db.containers.create(def);
  assert.equal(res.statusCode, 201);
  return { container: res.container, resource: res.resource, id: def.id };
}

/** Runs a query to the end; rejects with the service's error. */
const run = (container, query, options = {}) => container.items.query(query, options).fetchAll();

/** Expects the query to fail as the service refuses it: 400 BadRequest, no substatus, the message. */
async function expectRefused(container, query, text, options = {}) {
  const err = await expectError(() => run(container, query, options), 400, "BadRequest");
  assert.equal(err.substatus, undefined);
  assert.ok(
    err.body.message.startsWith(`Message: {"Errors":["${text}"]}`),
    `${query}: ${err.body.message}`,
  );
}

describe("indexing policy", () => {
  it("is returned exactly on create, read and replace", async () => {
    const policy = {
      indexingMode: "consistent",
      automatic: true,
      includedPaths: [{ path: "/*" }],
      excludedPaths: [{ path: "/secret/?" }],
      compositeIndexes: [
        [
          { path: "/a", order: "ascending" },
          { path: "/b", order: "descending" },
        ],
      ],
      spatialIndexes: [{ path: "/loc/*", types: ["Point", "Polygon"] }],
    };
    const expected = { ...policy, excludedPaths: [{ path: "/secret/?" }, ETAG] };
    const { container, resource, id } = await newContainer(policy);
    assert.deepEqual(resource.indexingPolicy, expected);
    assert.deepEqual((await container.read()).resource.indexingPolicy, expected);

    const replaced = await container.replace({ id, partitionKey: { paths: ["/pk"] }, indexingPolicy: { indexingMode: "none" } });
    assert.equal(replaced.statusCode, 200);
    const none = { indexingMode: "none", automatic: false, includedPaths: [], excludedPaths: [] };
    assert.deepEqual(replaced.resource.indexingPolicy, none);
    assert.deepEqual((await container.read()).resource.indexingPolicy, none);
  });

  it("refuses invalid composite and spatial indexes with the service's text", async () => {
    const err = await expectError(
      () => db.containers.create({ id: uid("c"), partitionKey: { paths: ["/pk"] }, indexingPolicy: { compositeIndexes: [[{ path: "/a" }]] } }),
      400,
      "BadRequest",
    );
    assert.ok(
      err.body.message.startsWith(
        `Message: {"Errors":["The composite index at 'indexingPolicy.additionalIndexes.composite['0']' must have at least 2 paths."]}`,
      ),
      err.body.message,
    );
    const bad = await expectError(
      () =>
        db.containers.create({
          id: uid("c"),
          partitionKey: { paths: ["/pk"] },
          indexingPolicy: { spatialIndexes: [{ path: "/loc", types: ["Point"] }] },
        }),
      400,
      "BadRequest",
    );
    assert.ok(bad.body.message.includes("The indexing path '/loc' could not be accepted, failed near position '4'."), bad.body.message);
  });
});

describe("ORDER BY and the index", () => {
  const items = [
    { id: "1", pk: "p", a: 1, b: 1, secret: 3 },
    { id: "2", pk: "p", a: 1, b: 2, secret: 1 },
    { id: "3", pk: "p", a: 0, b: 5, secret: 2 },
  ];

  it("several items need a composite index; a replace that adds it serves them at once", async () => {
    const { container, id } = await newContainer();
    for (const d of items) await container.items.create(d);
    const q = "SELECT * FROM c ORDER BY c.a, c.b DESC";
    await expectRefused(container, q, NO_COMPOSITE);

    await container.replace({
      id,
      partitionKey: { paths: ["/pk"] },
      indexingPolicy: { compositeIndexes: [[{ path: "/a", order: "ascending" }, { path: "/b", order: "descending" }]] },
    });
    assert.deepEqual((await run(container, q)).resources.map((d) => d.id), ["3", "2", "1"]);
    // Every direction reversed is served; a mixed reversal or another sequence is not.
    assert.deepEqual((await run(container, "SELECT VALUE c.id FROM c ORDER BY c.a DESC, c.b")).resources, ["1", "2", "3"]);
    await expectRefused(container, "SELECT * FROM c ORDER BY c.a, c.b", NO_COMPOSITE);
    await expectRefused(container, "SELECT * FROM c ORDER BY c.b DESC, c.a", NO_COMPOSITE);
    // A filter changes nothing, and a partition-key scoped query is judged the same way.
    assert.deepEqual(
      (await run(container, "SELECT VALUE c.id FROM c WHERE c.a = 1 ORDER BY c.a, c.b DESC", { partitionKey: "p" })).resources,
      ["2", "1"],
    );
    await expectRefused(container, "SELECT * FROM c WHERE c.a = 1 ORDER BY c.a, c.b", NO_COMPOSITE, { partitionKey: "p" });
  });

  it("one item on an excluded path is refused; on an indexed one it is served", async () => {
    const { container, id } = await newContainer({ excludedPaths: [{ path: "/secret/?" }] });
    for (const d of items) await container.items.create(d);
    await expectRefused(container, "SELECT * FROM c ORDER BY c.secret", EXCLUDED);
    assert.deepEqual((await run(container, "SELECT VALUE c.id FROM c ORDER BY c.b DESC")).resources, ["3", "2", "1"]);
    // A filter on the excluded path is a scan, not a refusal.
    assert.deepEqual((await run(container, "SELECT VALUE c.id FROM c WHERE c.secret = 1")).resources, ["2"]);
    await container.replace({ id, partitionKey: { paths: ["/pk"] }, indexingPolicy: {} });
    assert.deepEqual((await run(container, "SELECT VALUE c.id FROM c ORDER BY c.secret")).resources, ["2", "3", "1"]);
  });
});

describe("index transformation after a policy replace", () => {
  // Issue 41. The SDK reads the progress from the container read's headers, asked for with
  // populateQuotaInfo (x-ms-documentdb-populatequotainfo: true), as Microsoft's how-to for indexing
  // policies does: an integer from 0 to 100, 100 once the new policy's indexes are built.
  const PROGRESS = Constants.HttpHeaders.IndexTransformationProgress;

  it("reports 0 to 100 while the new composite index is built in the background, then serves it", async () => {
    const { container, id } = await newContainer();
    const ops = [];
    for (let i = 0; i < 3000; i++) {
      const d = { id: `d${i}`, pk: `k${i % 10}`, city: `c${i % 20}`, n: i };
      ops.push({ operationType: "Create", partitionKey: d.pk, resourceBody: d });
    }
    const created = await container.items.executeBulkOperations(ops);
    assert.ok(created.every((r) => r.response?.statusCode === 201));
    assert.equal((await container.read({ populateQuotaInfo: true })).headers[PROGRESS], "100");
    assert.equal((await container.read()).headers[PROGRESS], undefined);

    const replaced = await container.replace({
      id,
      partitionKey: { paths: ["/pk"] },
      indexingPolicy: { compositeIndexes: [[{ path: "/city", order: "ascending" }, { path: "/n", order: "descending" }]] },
    });
    assert.equal(replaced.statusCode, 200);
    const seen = [];
    const deadline = Date.now() + 120000;
    for (;;) {
      const { headers } = await container.read({ populateQuotaInfo: true });
      const value = headers[PROGRESS];
      assert.match(String(value), /^\d+$/);
      seen.push(Number(value));
      if (Number(value) === 100 || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    assert.equal(seen.at(-1), 100, `progress read: ${seen.join(",")}`);
    assert.ok(seen.every((v, i) => v >= 0 && v <= 100 && (i === 0 || v >= seen[i - 1])), seen.join(","));
    assert.equal(headersLazy(await container.read({ populateQuotaInfo: true })), undefined);
    const top = (await run(container, "SELECT TOP 3 VALUE c.id FROM c ORDER BY c.city ASC, c.n DESC")).resources;
    assert.deepEqual(top, ["d2980", "d2960", "d2940"]);  // "c0" first, n from the highest
  });
});

/** The lazy indexing progress a container read carries (the service sends it for lazy indexing only). */
const headersLazy = (res) => res.headers[Constants.HttpHeaders.LazyIndexingProgress];

describe("indexing mode none", () => {
  it("writes no index terms; filters need enableScanInQuery and are charged as scans", async () => {
    const { container, resource } = await newContainer({ indexingMode: "none" });
    assert.deepEqual(resource.indexingPolicy, { indexingMode: "none", automatic: false, includedPaths: [], excludedPaths: [] });
    const stored = [];
    for (const d of [{ id: "1", pk: "p", n: 1 }, { id: "2", pk: "p", n: 2 }]) {
      const res = await container.items.create(d);
      assertCharge(res.requestCharge, createChargeWithTerms(res.resource, 0));
      stored.push(res.resource);
    }
    await expectRefused(container, "SELECT * FROM c WHERE c.id = '1'", NEEDS_SCAN);
    const scan = await run(container, "SELECT * FROM c WHERE c.id = '1'", { enableScanInQuery: true });
    assert.deepEqual(scan.resources.map((d) => d.id), ["1"]);
    assertCharge(scan.requestCharge, queryCharge([], stored));
    const all = await run(container, "SELECT * FROM c");
    assert.deepEqual(all.resources.map((d) => d.id), ["1", "2"]);
    assertCharge(all.requestCharge, queryCharge(stored));
    await expectRefused(container, "SELECT * FROM c ORDER BY c.n", EXCLUDED, { enableScanInQuery: true });
    await expectError(
      () => db.containers.create({ id: uid("c"), partitionKey: { paths: ["/pk"] }, indexingPolicy: { indexingMode: "none", automatic: true } }),
      400,
      "BadRequest",
    );
  });
});

describe("spatial indexes", () => {
  it("add a write term per point and serve ST_DISTANCE for less than a scan", async () => {
    const { container: geo } = await newContainer({ spatialIndexes: [{ path: "/loc/*", types: ["Point"] }] });
    const { container: plain } = await newContainer();
    const geoStored = [];
    const plainStored = [];
    for (let i = 0; i < 30; i++) {
      const doc = { id: `d${i}`, pk: "p", loc: { type: "Point", coordinates: [10.5 + i, 20.5] } };
      const g = await geo.items.create(doc);
      const p = await plain.items.create(doc);
      // id, pk, loc.type, two coordinates and _ts; the spatial index adds one term for the point.
      assert.equal(countTerms(doc) + 1, 6);
      assertCharge(p.requestCharge, createChargeWithTerms(p.resource, 6));
      assertCharge(g.requestCharge, createChargeWithTerms(g.resource, 7));
      geoStored.push(g.resource);
      plainStored.push(p.resource);
    }
    const q = "SELECT VALUE c.id FROM c WHERE ST_DISTANCE(c.loc, {'type': 'Point', 'coordinates': [10.5, 20.5]}) < 1000";
    const g = await run(geo, q);
    const p = await run(plain, q);
    assert.deepEqual(g.resources, ["d0"]);
    assert.deepEqual(p.resources, ["d0"]);
    assertCharge(g.requestCharge, queryCharge([geoStored[0]]));
    assertCharge(p.requestCharge, queryCharge([], plainStored));
    assert.ok(g.requestCharge < p.requestCharge, `${g.requestCharge} < ${p.requestCharge}`);
  });
});

describe("write charges follow the indexed paths", () => {
  it("fewer indexed paths, fewer terms", async () => {
    const doc = { id: "w", pk: "p", a: 1, b: "two", c: [1, 2, 3], d: { e: true } };
    const { container: all } = await newContainer();
    const { container: fewer } = await newContainer({ excludedPaths: [{ path: "/c/*" }, { path: "/d/*" }] });
    const r1 = await all.items.create(doc);
    const r2 = await fewer.items.create(doc);
    // id pk a b c[0..2] d.e _ts = 9; without /c and /d: 5.
    assert.equal(countTerms(doc) + 1, 9);
    assertCharge(r1.requestCharge, createChargeWithTerms(r1.resource, 9));
    assertCharge(r2.requestCharge, createChargeWithTerms(r2.resource, 5));
    assert.ok(r2.requestCharge < r1.requestCharge);
  });
});

describe("index metrics", () => {
  it("populateIndexMetrics: the service's second format, which the SDK decodes as indexMetrics", async () => {
    // @azure/cosmos 4.x asks with x-ms-cosmos-populateindexmetrics-V2 and decodes the answer with
    // decodeURIComponent and JSON.parse (FeedResponse.indexMetrics); "{}" means it got nothing.
    const { container } = await newContainer();
    await container.items.create({ id: "a", pk: "p", city: "c1" });
    const used = await run(container, "SELECT * FROM c WHERE c.city = 'c1'", { populateIndexMetrics: true });
    assert.equal(used.resources.length, 1);
    assert.deepEqual(JSON.parse(used.indexMetrics), {
      UtilizedIndexes: { SingleIndexes: [{ IndexSpec: "/city/?", IndexImpactScore: "High" }], CompositeIndexes: [] },
      PotentialIndexes: { SingleIndexes: [], CompositeIndexes: [] },
    });
    const none = await run(container, "SELECT * FROM c WHERE LOWER(c.city) = 'c1'", { populateIndexMetrics: true });
    assert.deepEqual(JSON.parse(none.indexMetrics), {
      UtilizedIndexes: { SingleIndexes: [], CompositeIndexes: [] },
      PotentialIndexes: { SingleIndexes: [], CompositeIndexes: [] },
    });
    const unasked = await run(container, "SELECT * FROM c WHERE c.city = 'c1'");
    assert.equal(unasked.indexMetrics, "{}");
  });
});

// Microsoft's IndexManagement sample (samples/v3/javascript/IndexManagement.js): an item created
// with indexingDirective "exclude" is not found by a query on its properties, yet item.read() finds
// it; with automatic indexing off, an item created with "include" is found.
describe("indexing directives", () => {
  it("exclude leaves an item out of queries, not out of reads; include opts in under automatic false", async () => {
    const { container, resource } = await newContainer();
    const { item } = await container.items.create({ id: "item1", pk: "p", foo: "bar" }, { indexingDirective: "exclude" });
    const querySpec = { query: "SELECT * FROM root r WHERE r.foo=@foo", parameters: [{ name: "@foo", value: "bar" }] };
    assert.deepEqual((await run(container, querySpec)).resources, []);
    assert.deepEqual((await run(container, "SELECT VALUE COUNT(1) FROM c")).resources, [0]);
    assert.equal((await item.read()).statusCode, 200);
    // Written again without the directive, it is indexed as the policy says.
    await item.replace({ id: "item1", pk: "p", foo: "bar" });
    assert.deepEqual((await run(container, querySpec)).resources.map((d) => d.id), ["item1"]);

    await container.replace({ id: resource.id, partitionKey: resource.partitionKey, indexingPolicy: { automatic: false } });
    await container.items.create({ id: "item2", pk: "p", foo: "bar" }, { indexingDirective: "include" });
    await container.items.create({ id: "item3", pk: "p", foo: "bar" });
    assert.deepEqual((await run(container, querySpec)).resources.map((d) => d.id), ["item1", "item2"]);
  });
});

describe("geometry containers", () => {
  it("ST_DISTANCE, ST_WITHIN and ST_ISVALID compute on the plane", async () => {
    const res = await db.containers.create({
      id: uid("g"),
      partitionKey: { paths: ["/pk"] },
      geospatialConfig: { type: "Geometry" },
      indexingPolicy: {
        spatialIndexes: [
          { path: "/loc/*", types: ["Point", "Polygon"], boundingBox: { xmin: -100, ymin: -100, xmax: 100, ymax: 5000 } },
        ],
      },
    });
    assert.equal(res.resource.geospatialConfig.type, "Geometry");
    const container = res.container;
    await container.items.create({ id: "o", pk: "p", loc: { type: "Point", coordinates: [0, 0] } });
    const value = async (q) => (await run(container, q)).resources[0];
    assert.equal(await value("SELECT VALUE ST_DISTANCE(c.loc, {'type': 'Point', 'coordinates': [3, 4]}) FROM c"), 5);
    assert.equal(
      await value(
        "SELECT VALUE ST_WITHIN({'type': 'Point', 'coordinates': [0, 40]}, {'type': 'Polygon', 'coordinates': " +
          "[[[-60, 20], [70, 20], [70, 70], [-60, 70], [-60, 20]]]}) FROM c",
      ),
      true,
    );
    assert.equal(
      await value("SELECT VALUE ST_ISVALID({'type': 'Point', 'coordinates': [20, 4000]}) FROM c"),
      true,
    );
    const near = await run(
      container,
      "SELECT VALUE c.id FROM c WHERE ST_DISTANCE(c.loc, {'type': 'Point', 'coordinates': [3, 4]}) <= 5",
    );
    assert.deepEqual(near.resources, ["o"]);
  });
});
