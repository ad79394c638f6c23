// The Node Testcontainers module for the Cosmos DB emulator, used as its users use it, with only
// the image name changed to the locally built cosmos-emulator image (COSMOS_IMAGE).
//
// The module (@testcontainers/azure-cosmosdb-emulator) picks a free host port, publishes it on
// the same container port, sets PORT/PROTOCOL=http/ENABLE_EXPLORER=false/ENABLE_TELEMETRY=false
// and waits for the log line "Now listening on: ". The test then connects with @azure/cosmos to
// the module's getEndpoint()/getKey() and writes, reads and queries.
//
//   node --test module.test.mjs     (tests/docker/modules.sh runs it with the pinned Node 22)
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { CosmosClient } from "@azure/cosmos";
import { AzureCosmosDbEmulatorContainer } from "@testcontainers/azure-cosmosdb-emulator";

const IMAGE = process.env.COSMOS_IMAGE || "cosmos-emulator:test";
const moduleVersion = JSON.parse(
  readFileSync(new URL("./node_modules/@testcontainers/azure-cosmosdb-emulator/package.json", import.meta.url)),
).version;

test(`@testcontainers/azure-cosmosdb-emulator ${moduleVersion} starts ${IMAGE}; @azure/cosmos writes, reads and queries`, async (t) => {
  const started = Date.now();
  const container = await new AzureCosmosDbEmulatorContainer(IMAGE).start();
  t.after(() => container.stop());
  t.diagnostic(`started in ${Date.now() - started} ms; endpoint ${container.getEndpoint()}`);

  assert.match(container.getConnectionUri(), /^AccountEndpoint=http:\/\/[^;]+;AccountKey=[^;]+;$/);
  const client = new CosmosClient({ endpoint: container.getEndpoint(), key: container.getKey() });

  const { database, statusCode: dbStatus } = await client.databases.create({ id: "tcdb" });
  assert.equal(dbStatus, 201, "create database");
  const { container: coll, statusCode: collStatus } = await database.containers.create({
    id: "items",
    partitionKey: { paths: ["/pk"] },
  });
  assert.equal(collStatus, 201, "create container");

  const docs = [
    { id: "a", pk: "p1", n: 1 },
    { id: "b", pk: "p2", n: 2 },
    { id: "c", pk: "p3", n: 3 },
  ];
  for (const doc of docs) {
    const { statusCode, resource } = await coll.items.create(doc);
    assert.equal(statusCode, 201, `create item ${doc.id}`);
    assert.equal(resource.n, doc.n);
  }

  const { statusCode: readStatus, resource: read } = await coll.item("b", "p2").read();
  assert.equal(readStatus, 200, "read item");
  assert.deepEqual({ id: read.id, pk: read.pk, n: read.n }, docs[1]);

  // Cross-partition: no partition key given, the filter spans the three partition key values.
  const { resources: found } = await coll.items
    .query({ query: "SELECT c.id, c.n FROM c WHERE c.n >= @min", parameters: [{ name: "@min", value: 2 }] })
    .fetchAll();
  assert.deepEqual(found.map((d) => d.id).sort(), ["b", "c"], "cross-partition query");

  const { resources: ordered } = await coll.items.query("SELECT VALUE c.id FROM c ORDER BY c.n DESC").fetchAll();
  assert.deepEqual(ordered, ["c", "b", "a"], "cross-partition ORDER BY query");

  const { statusCode: delStatus } = await database.delete();
  assert.equal(delStatus, 204, "delete database");
});
