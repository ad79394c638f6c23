// Small conformance causes (A-G), through the SDK's public API (raw signed requests where the SDK
// has none): legacy indexing policies, a "/_partitionKey" key, null time to live, invalid key
// paths, quota headers on a container read, the all-versions change feed's refusals, offers.
import { describe, it, before } from "node:test";
import assert from "node:assert/strict";
import {
  ChangeFeedMode,
  ChangeFeedPolicy,
  ChangeFeedRetentionTimeSpan,
  ChangeFeedStartFrom,
  Constants,
} from "@azure/cosmos";
import { expectError, rawRequest, uid, useEmulator } from "./harness.mjs";

let db;
const ctx = useEmulator({
  setup: async ({ client }) => {
    db = (await client.databases.create({ id: uid("small") })).database;
  },
  teardown: () => db.delete(),
});

const TTL_TAIL =
  "' is invalid. Ensure to provide a nonzero positive integer less than or equal to '2147483647', or '-1' which " +
  "means never expire.";
const RETENTION = "You must read the change feed from within the retention period.";

describe("A: legacy indexing policies", () => {
  it("the root path '/' with Range/Hash indexes is accepted and reads back as '/*'", async () => {
    const { resource } = await db.containers.create({
      id: uid("legacy"),
      partitionKey: { paths: ["/pk"] },
      indexingPolicy: {
        indexingMode: "consistent",
        automatic: true,
        includedPaths: [
          {
            path: "/",
            indexes: [
              { kind: "Range", dataType: "Number", precision: -1 },
              { kind: "Hash", dataType: "String", precision: 3 },
            ],
          },
        ],
      },
    });
    assert.deepEqual(resource.indexingPolicy, {
      indexingMode: "consistent",
      automatic: true,
      includedPaths: [{ path: "/*" }],
      excludedPaths: [{ path: '/"_etag"/?' }],
    });
  });

  it("lazy mode, automatic false and Spatial indexes round-trip without the legacy indexes", async () => {
    const { resource } = await db.containers.create({
      id: uid("kinds"),
      partitionKey: { paths: ["/pk"] },
      indexingPolicy: {
        indexingMode: "lazy",
        automatic: false,
        includedPaths: [
          { path: "/a/?", indexes: [{ kind: "Hash", dataType: "String", precision: 3 }] },
          { path: "/loc/*", indexes: [{ kind: "Spatial", dataType: "Point" }] },
          { path: "/*" },
        ],
      },
    });
    assert.equal(resource.indexingPolicy.indexingMode, "consistent");
    assert.equal(resource.indexingPolicy.automatic, false);
    assert.deepEqual(resource.indexingPolicy.includedPaths, [{ path: "/a/?" }, { path: "/loc/*" }, { path: "/*" }]);
  });
});

describe("B: a container the SDK creates without a key", () => {
  it("has the normal key /_partitionKey, not the system key", async () => {
    const { resource, container } = await db.containers.create({ id: uid("nokey") });
    assert.deepEqual(resource.partitionKey.paths, ["/_partitionKey"]);
    assert.equal(resource.partitionKey.systemKey, undefined);
    await container.items.create({ id: "a", v: 1 });
    const { resource: read } = await container.item("a", undefined).read();
    assert.equal(read.v, 1);
    // the raw read without a key header: 400/1001, as for any keyed container
    const raw = await rawRequest(ctx.env, { path: `/dbs/${db.id}/colls/${container.id}/docs/a` });
    assert.equal(raw.status, 400);
    assert.equal(raw.headers["x-ms-substatus"], "1001");
  });
});

describe("C: null time to live", () => {
  it("an item's ttl null is 400 with the service's message", async () => {
    const { container } = await db.containers.create({ id: uid("ttl"), partitionKey: { paths: ["/pk"] }, defaultTtl: -1 });
    const err = await expectError(() => container.items.create({ id: "a", pk: "p", ttl: null }), 400, "BadRequest");
    assert.ok(err.message.includes("The input ttl 'null" + TTL_TAIL), err.message);
    await expectError(() => container.items.create({ id: "b", pk: "p", ttl: 0 }), 400, "BadRequest");
  });

  it("a container's defaultTtl null is 400 with the service's message", async () => {
    const err = await expectError(
      () => db.containers.create({ id: uid("dttl"), partitionKey: { paths: ["/pk"] }, defaultTtl: null }),
      400,
      "BadRequest",
    );
    assert.ok(err.message.includes("The input ttl 'null" + TTL_TAIL), err.message);
  });
});

describe("D: invalid partition key paths", () => {
  for (const [path, pos] of [
    ["/id ds", 4],
    ["/a//b", 3],
    ["/a/", 3],
    ["/a/*", 3],
  ]) {
    it(`'${path}' is 400, failed near position ${pos}`, async () => {
      const err = await expectError(
        () => db.containers.create({ id: uid("badpk"), partitionKey: { paths: [path] } }),
        400,
        "BadRequest",
      );
      assert.ok(
        err.message.includes(
          `The partition key component definition path '${path}' could not be accepted, failed near position ` +
            `'${pos}'. Partition key paths must contain only valid characters and not contain a trailing slash or ` +
            "wildcard character.",
        ),
        err.message,
      );
    });
  }
});

describe("E: container read with populateQuotaInfo", () => {
  it("carries the index transformation progress and the quota/usage headers", async () => {
    const { container } = await db.containers.create({ id: uid("quota"), partitionKey: { paths: ["/pk"] } });
    const plain = await container.read();
    assert.equal(plain.headers[Constants.HttpHeaders.IndexTransformationProgress], undefined);
    await container.items.create({ id: "a", pk: "p" });
    await container.items.create({ id: "b", pk: "p" });
    await container.scripts.userDefinedFunctions.create({ id: "f", body: "function (x) { return x; }" });
    const { headers } = await container.read({ populateQuotaInfo: true });
    assert.equal(headers[Constants.HttpHeaders.IndexTransformationProgress], "100");
    assert.equal(headers[Constants.HttpHeaders.LazyIndexingProgress], undefined);
    assert.equal(
      headers["x-ms-resource-quota"],
      "functions=25;storedProcedures=100;triggers=25;documentSize=10240;documentsSize=10485760;documentsCount=-1;" +
        "collectionSize=10485760;",
    );
    assert.equal(
      headers["x-ms-resource-usage"],
      "functions=1;storedProcedures=0;triggers=0;documentSize=0;documentsSize=1;documentsCount=2;collectionSize=1;",
    );
  });
});

describe("F: the all-versions change feed's refusals", () => {
  it("from the beginning, and from before a policy-less container's log: 400 with the retention sentence", async () => {
    const { container } = await db.containers.create({
      id: uid("avad"),
      partitionKey: { paths: ["/pk"] },
      changeFeedPolicy: new ChangeFeedPolicy(ChangeFeedRetentionTimeSpan.fromMinutes(5)),
    });
    await container.items.create({ id: "a", pk: "p" });
    const beginning = container.items.getChangeFeedIterator({
      changeFeedStartFrom: ChangeFeedStartFrom.Beginning(),
      changeFeedMode: ChangeFeedMode.AllVersionsAndDeletes,
    });
    const e1 = await expectError(() => beginning.readNext(), 400);
    assert.ok(e1.message.includes(RETENTION), e1.message);

    // Without a policy the account keeps the feed; here the container's log starts at its first
    // all-versions read, so a point in time before it is outside the retention window.
    const { container: plain } = await db.containers.create({ id: uid("plain"), partitionKey: { paths: ["/pk"] } });
    await plain.items.create({ id: "a", pk: "p" });
    const before = new Date(Date.now() - 60_000);
    const early = plain.items.getChangeFeedIterator({
      changeFeedStartFrom: ChangeFeedStartFrom.Time(before),
      changeFeedMode: ChangeFeedMode.AllVersionsAndDeletes,
    });
    const e2 = await expectError(() => early.readNext(), 400);
    assert.ok(e2.message.includes(RETENTION), e2.message);
    const now = plain.items.getChangeFeedIterator({
      changeFeedStartFrom: ChangeFeedStartFrom.Now(),
      changeFeedMode: ChangeFeedMode.AllVersionsAndDeletes,
    });
    assert.equal((await now.readNext()).statusCode, 304);
  });
});

describe("G: offers", () => {
  let offer;
  before(async () => {
    const { container } = await db.containers.create({
      id: uid("offer"),
      partitionKey: { paths: ["/pk"] },
      throughput: 400,
    });
    const { resource: coll } = await container.read();
    const { resources } = await ctx.client.offers.readAll().fetchAll();
    offer = resources.find((o) => o.offerResourceId === coll._rid);
    assert.ok(offer);
  });

  it("a malformed offer id is 400, a well-formed unknown one 404", async () => {
    await expectError(() => ctx.client.offer(offer.id + "x").read(), 400, "BadRequest");
    await expectError(() => ctx.client.offer("undefined").read(), 400, "BadRequest");
    await expectError(() => ctx.client.offer("zzzz").read(), 404);
  });

  it("a replace whose _rid is not the offer's is 400; with its own _rid it succeeds", async () => {
    for (const rid of ["NotAllowed", "InvalidRid"]) {
      const body = { ...offer, _rid: rid, content: { ...offer.content, offerThroughput: 500 } };
      await expectError(() => ctx.client.offer(offer.id).replace(body), 400, "BadRequest");
    }
    const { resource } = await ctx.client.offer(offer.id).read();
    assert.equal(resource.content.offerThroughput, 400);
    const ok = await ctx.client
      .offer(offer.id)
      .replace({ ...offer, content: { ...offer.content, offerThroughput: 500 } });
    assert.equal(ok.resource.content.offerThroughput, 500);
  });
});
