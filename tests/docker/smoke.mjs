// Smoke test of a running cosmos-emulator (normally the container image) with the
// official Azure Cosmos DB JavaScript SDK: database -> container -> item round trip.
//
//   COSMOS_ENDPOINT  emulator endpoint (default http://127.0.0.1:8081/)
//   COSMOS_KEY       account key (default: the well-known emulator key)
//
// Exits 0 when every step passed, 1 otherwise.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { CosmosClient } from '@azure/cosmos';

const WELL_KNOWN_KEY =
  'C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==';
const endpoint = process.env.COSMOS_ENDPOINT || 'http://127.0.0.1:8081/';
const key = process.env.COSMOS_KEY || WELL_KNOWN_KEY;
const OVERALL_TIMEOUT_MS = Number(process.env.COSMOS_SMOKE_TIMEOUT_MS || 60000);

// The SDK retries unreachable endpoints for a long time; never hang the caller.
setTimeout(() => {
  console.error(`smoke: FAIL: no result after ${OVERALL_TIMEOUT_MS} ms`);
  process.exit(1);
}, OVERALL_TIMEOUT_MS).unref();

const client = new CosmosClient({
  endpoint,
  key,
  connectionPolicy: { requestTimeout: 10000 },
});

const SYSTEM_PROPS = ['_rid', '_self', '_etag', '_attachments', '_ts'];

function withoutSystemProps(doc) {
  const copy = { ...doc };
  for (const p of SYSTEM_PROPS) delete copy[p];
  return copy;
}

function step(name) {
  console.log(`smoke: ok - ${name}`);
}

async function main() {
  const dbId = `smoke-db-${randomUUID()}`;
  const containerId = 'smoke-container';
  let database;
  let failure;

  try {
    const dbResp = await client.databases.create({ id: dbId });
    assert.equal(dbResp.statusCode, 201, 'create database status');
    assert.equal(dbResp.resource?.id, dbId, 'created database id');
    database = dbResp.database;
    step(`create database ${dbId}`);

    const cResp = await database.containers.create({
      id: containerId,
      partitionKey: { paths: ['/pk'] },
    });
    assert.equal(cResp.statusCode, 201, 'create container status');
    assert.equal(cResp.resource?.id, containerId, 'created container id');
    assert.deepEqual(cResp.resource?.partitionKey?.paths, ['/pk'], 'container partition key paths');
    const container = cResp.container;
    step(`create container ${containerId} (partition key /pk)`);

    const item = {
      id: 'item-1',
      pk: 'tenant-a',
      name: 'smoke',
      count: 42,
      price: 9.5,
      active: true,
      missing: null,
      tags: ['a', 'b'],
      nested: { level: 2, text: 'héllo ✓' },
    };

    const createResp = await container.items.create(item);
    assert.equal(createResp.statusCode, 201, 'create item status');
    assert.ok(createResp.requestCharge > 0, `create item requestCharge > 0 (got ${createResp.requestCharge})`);
    assert.deepEqual(withoutSystemProps(createResp.resource), item, 'created item body');
    assert.ok(createResp.etag, 'create item returns an etag');
    step(`create item (requestCharge ${createResp.requestCharge})`);

    const readResp = await container.item(item.id, item.pk).read();
    assert.equal(readResp.statusCode, 200, 'read item status');
    assert.ok(readResp.requestCharge > 0, `read item requestCharge > 0 (got ${readResp.requestCharge})`);
    assert.ok(readResp.resource, 'read item returns a body');
    assert.deepEqual(withoutSystemProps(readResp.resource), item, 'read item body');
    for (const p of ['_rid', '_self', '_etag', '_ts']) {
      assert.ok(p in readResp.resource, `read item has system property ${p}`);
    }
    assert.equal(readResp.resource._etag, createResp.resource._etag, 'etag unchanged between create and read');
    step(`read item back (requestCharge ${readResp.requestCharge})`);
  } catch (err) {
    failure = err;
  } finally {
    if (database) {
      try {
        const delResp = await database.delete();
        assert.equal(delResp.statusCode, 204, 'delete database status');
        step(`delete database ${dbId}`);
      } catch (err) {
        failure ??= err;
      }
    }
  }

  if (failure) throw failure;
}

try {
  await main();
  console.log(`smoke: PASS (${endpoint})`);
  process.exit(0);
} catch (err) {
  console.error(`smoke: FAIL against ${endpoint}`);
  if (err?.code !== undefined && err?.name !== 'AssertionError') console.error(`  status/code: ${err.code}`);
  if (err?.body !== undefined) console.error(`  body: ${JSON.stringify(err.body)}`);
  console.error(err?.stack || String(err));
  process.exit(1);
}
