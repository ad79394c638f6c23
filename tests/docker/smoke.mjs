// Smoke test of a running cosmos-emulator (normally the container image) with the
// official Azure Cosmos DB JavaScript SDK: account -> database -> container -> item -> query.
//
//   COSMOS_ENDPOINT  emulator endpoint (default http://127.0.0.1:8081/)
//   COSMOS_CA_FILE   PEM certificate to trust for an https:// endpoint (the one downloaded from
//                    /_explorer/emulator.pem); when set, the client trusts ONLY this certificate
//                    (an https.Agent with `ca`, no system roots, certificate checks on)
//   COSMOS_KEY       account key (default: the well-known emulator key)
//   COSMOS_SMOKE_LABEL  prefix of the check lines (default "sdk")
//   COSMOS_SMOKE_MARKER write:ID creates database ID, read:ID reads it (persistence checks); only that
//
// Prints one line per check, "PASS  <label>: <what>" or "FAIL  <label>: <what>: <why>",
// and exits 0 when every check passed, 1 otherwise.
import assert from 'node:assert/strict';
import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { CosmosClient } from '@azure/cosmos';

const WELL_KNOWN_KEY =
  'C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==';
const endpoint = process.env.COSMOS_ENDPOINT || 'http://127.0.0.1:8081/';
const key = process.env.COSMOS_KEY || WELL_KNOWN_KEY;
const caFile = process.env.COSMOS_CA_FILE || '';
const label = process.env.COSMOS_SMOKE_LABEL || 'sdk';
const OVERALL_TIMEOUT_MS = Number(process.env.COSMOS_SMOKE_TIMEOUT_MS || 60000);
const secure = new URL(endpoint).protocol === 'https:';

// The SDK retries unreachable endpoints for a long time; never hang the caller.
setTimeout(() => {
  console.log(`FAIL  ${label}: finished within ${OVERALL_TIMEOUT_MS} ms: it did not`);
  process.exit(1);
}, OVERALL_TIMEOUT_MS).unref();

let failures = 0;
function pass(what) {
  console.log(`PASS  ${label}: ${what}`);
}
function fail(what, err) {
  failures++;
  const why = (err?.message || String(err)).split('\n')[0];
  const code = err?.code !== undefined && err?.name !== 'AssertionError' ? ` (code ${err.code})` : '';
  console.log(`FAIL  ${label}: ${what}: ${why}${code}`);
  if (err?.body !== undefined) console.error(`  body: ${JSON.stringify(err.body)}`);
}
/** Runs one check; a failed check stops the checks that depend on it (returns undefined). */
async function check(what, fn) {
  try {
    const result = await fn();
    pass(typeof what === 'function' ? what(result) : what);
    return result ?? true;
  } catch (err) {
    fail(typeof what === 'function' ? what(undefined) : what, err);
    return undefined;
  }
}

const SYSTEM_PROPS = ['_rid', '_self', '_etag', '_attachments', '_ts'];
function withoutSystemProps(doc) {
  const copy = { ...doc };
  for (const p of SYSTEM_PROPS) delete copy[p];
  return copy;
}
const trimSlash = (u) => u.replace(/\/+$/, '');

let agent;
if (secure) {
  if (!caFile) {
    console.log(`FAIL  ${label}: ${endpoint} is https: set COSMOS_CA_FILE to the emulator's certificate`);
    process.exit(1);
  }
  if (process.env.NODE_TLS_REJECT_UNAUTHORIZED === '0' || process.env.NODE_EXTRA_CA_CERTS) {
    console.log(`FAIL  ${label}: NODE_TLS_REJECT_UNAUTHORIZED / NODE_EXTRA_CA_CERTS must be unset for this test`);
    process.exit(1);
  }
  // `ca` replaces Node's root certificates: this agent trusts the emulator's certificate only.
  agent = new https.Agent({ ca: readFileSync(caFile, 'utf8'), rejectUnauthorized: true, keepAlive: true });
}

/** GET over https with these TLS options; resolves to the status code. */
function httpsStatus(url, options) {
  return new Promise((resolve, reject) => {
    https.get(url, options, (res) => {
      res.resume();
      resolve(res.statusCode);
    }).on('error', reject);
  });
}

/** A GET signed with the account key (the SDK's account object leaves out `id`); resolves to the body. */
function signedGet(path) {
  const date = new Date().toUTCString();
  const text = `get\n\n\n${date.toLowerCase()}\n\n`;  // the account: no resource type, no link
  const sig = createHmac('sha256', Buffer.from(key, 'base64')).update(text).digest('base64');
  const headers = { 'x-ms-date': date, 'x-ms-version': '2020-07-15', authorization: encodeURIComponent(`type=master&ver=1.0&sig=${sig}`) };
  const url = `${trimSlash(endpoint)}${path}`;
  return new Promise((resolve, reject) => {
    (secure ? https : http).get(url, { headers, ...(agent ? { agent } : {}) }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`HTTP ${res.statusCode}: ${body}`))));
    }).on('error', reject);
  });
}

const client = new CosmosClient({
  endpoint,
  key,
  ...(agent ? { agent } : {}),
  connectionPolicy: { requestTimeout: 10000 },
});

async function main() {
  const marker = process.env.COSMOS_SMOKE_MARKER;
  if (marker) {
    const [mode, id] = marker.split(':');
    await check(`${mode} database ${id}`, async () => {
      const r = mode === 'write' ? await client.databases.create({ id }) : await client.database(id).read();
      assert.equal(r.statusCode, mode === 'write' ? 201 : 200, 'status');
      assert.equal(r.resource?.id, id, 'id');
    });
    return;
  }
  await check('account: id is cosmosdev (what the vNext image answers; the .NET Testcontainers module asserts it)', async () => {
    const account = JSON.parse(await signedGet('/'));
    assert.equal(account.id, 'cosmosdev');
  });
  if (secure) {
    await check('without the certificate, Node refuses the TLS connection (self-signed)', async () => {
      await assert.rejects(httpsStatus(`${trimSlash(endpoint)}/ready`, { agent: false }), (err) => {
        assert.match(String(err.code), /SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/);
        return true;
      });
    });
    await check('with only the downloaded certificate trusted, GET /ready is 200', async () => {
      assert.equal(await httpsStatus(`${trimSlash(endpoint)}/ready`, { agent }), 200);
    });
  }

  await check(
    (ep) => `account: writableLocations[0].databaseAccountEndpoint is ${ep ?? 'the endpoint connected to'}`,
    async () => {
      const { resource } = await client.getDatabaseAccount();
      const got = resource?.writableLocations?.[0]?.databaseAccountEndpoint;
      assert.equal(trimSlash(String(got)), trimSlash(endpoint), 'writableLocations[0].databaseAccountEndpoint');
      return got;
    },
  );

  const dbId = `smoke-db-${randomUUID()}`;
  const containerId = 'smoke-container';
  const database = await check(`create database ${dbId}`, async () => {
    const r = await client.databases.create({ id: dbId });
    assert.equal(r.statusCode, 201, 'status');
    assert.equal(r.resource?.id, dbId, 'id');
    return r.database;
  });
  if (!database) return;
  try {
    const container = await check(`create container ${containerId} (partition key /pk)`, async () => {
      const r = await database.containers.create({ id: containerId, partitionKey: { paths: ['/pk'] } });
      assert.equal(r.statusCode, 201, 'status');
      assert.deepEqual(r.resource?.partitionKey?.paths, ['/pk'], 'partition key paths');
      return r.container;
    });
    if (!container) return;

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
    const created = await check((r) => `create item${r ? ` (${r.requestCharge} RU)` : ''}`, async () => {
      const r = await container.items.create(item);
      assert.equal(r.statusCode, 201, 'status');
      assert.ok(r.requestCharge > 0, `requestCharge > 0 (got ${r.requestCharge})`);
      assert.deepEqual(withoutSystemProps(r.resource), item, 'body');
      return r;
    });
    if (!created) return;
    await container.items.create({ id: 'item-2', pk: 'tenant-b', name: 'other', count: 7 });

    await check('read item back (same body and etag)', async () => {
      const r = await container.item(item.id, item.pk).read();
      assert.equal(r.statusCode, 200, 'status');
      assert.deepEqual(withoutSystemProps(r.resource), item, 'body');
      assert.equal(r.resource._etag, created.resource._etag, 'etag');
    });

    await check('query with a parameter in one partition returns the item', async () => {
      const { resources } = await container.items
        .query(
          { query: 'SELECT * FROM c WHERE c.name = @name', parameters: [{ name: '@name', value: 'smoke' }] },
          { partitionKey: item.pk },
        )
        .fetchAll();
      assert.deepEqual(resources.map(withoutSystemProps), [item]);
    });

    await check('cross-partition query (ORDER BY) returns both items in order', async () => {
      const { resources } = await container.items
        .query('SELECT c.id, c.count FROM c ORDER BY c.count DESC')
        .fetchAll();
      assert.deepEqual(resources, [{ id: 'item-1', count: 42 }, { id: 'item-2', count: 7 }]);
    });
  } finally {
    await check(`delete database ${dbId}`, async () => {
      const r = await database.delete();
      assert.equal(r.statusCode, 204, 'status');
    });
  }
}

try {
  await main();
} catch (err) {
  fail('unexpected error', err);
  console.error(err?.stack || String(err));
}
client.dispose?.();
agent?.destroy();
process.exit(failures === 0 ? 0 : 1);
