// The JavaScript SDK with a Microsoft Entra ID token credential (aadCredentials) over HTTPS (the SDK
// refuses bearer tokens over plain HTTP), as docs/entra-id.md shows it: the scope it requests, item
// CRUD and queries under the default roles, 403/5300 for creating a database or container with a
// token, 403/5301 for a Data Reader writing after /_emulator/rbac changed the roles, 401 for an
// expired token.
import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import https from "node:https";
import { generateKeyPairSync, sign as cryptoSign } from "node:crypto";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CosmosClient } from "@azure/cosmos";
import { spawnSync } from "node:child_process";
import { startEmulator, rawRequest, uid, LOCAL, EMULATOR_BIN } from "./harness.mjs";

/** GET over HTTPS without checking the certificate (to fetch it). */
function insecureGet(url) {
  return new Promise((resolve, reject) => {
    https
      .get(url, { rejectUnauthorized: false }, (res) => {
        let body = "";
        res.on("data", (c) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode, body }));
      })
      .on("error", reject);
  });
}

const b64url = (text) => Buffer.from(text).toString("base64url");

/** The SDK suites' fake token: header.claims.<the master key's text>. */
function makeToken(key, oid, { aud, expiresIn = 3600 } = {}) {
  const now = Math.floor(Date.now() / 1000);
  const header = { typ: "JWT", alg: "RS256", x5t: "CosmosEmulatorPrimaryMaster", kid: "CosmosEmulatorPrimaryMaster" };
  const claims = { aud, iss: "https://sts.fake-issuer.net/7b1999a1-dfd7-440e-8204-00170979b984", iat: now, nbf: now,
                   exp: now + expiresIn, oid, tid: "EmulatorFederation", scp: "user_impersonation" };
  return `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}.${b64url(key)}`;
}

describe("the JavaScript SDK with an Entra ID token", { skip: !LOCAL && "needs the local binary" }, () => {
  let env, httpEnv, agent, keyClient, db, container;
  const scopes = [];
  const tokenClient = (oid, options) => {
    const credential = {
      getToken: async (requested) => {
        const scope = Array.isArray(requested) ? requested[0] : requested;
        scopes.push(scope);
        const token = makeToken(env.key, oid, { aud: scope.replace(/\/\.default$/, ""), ...options });
        return { token, expiresOnTimestamp: Date.now() + 3600 * 1000 };
      },
    };
    return new CosmosClient({ endpoint: env.endpoint, aadCredentials: credential, agent,
                              connectionPolicy: { enableEndpointDiscovery: false } });
  };
  const putRoles = async (doc) => {
    const r = await rawRequest(httpEnv, { method: "PUT", path: "/_emulator/rbac", body: doc });
    assert.equal(r.status, 200, r.text);
  };

  before(async () => {
    env = await startEmulator([], { scheme: "https" });
    httpEnv = { ...env, endpoint: env.endpoint.replace(/^https:/, "http:") };  // one port serves both
    const pem = (await insecureGet(env.endpoint + "_explorer/emulator.pem")).body;
    agent = new https.Agent({ ca: pem, keepAlive: true });
    keyClient = new CosmosClient({ endpoint: env.endpoint, key: env.key, agent });
    ({ database: db } = await keyClient.databases.create({ id: uid("aad") }));
    ({ container } = await db.containers.create({ id: "c", partitionKey: { paths: ["/pk"] } }));
  });
  after(async () => {
    agent?.destroy();
    await env?.stop();
  });

  test("the start line says signatures are not checked and every principal is a Data Contributor", () => {
    assert.match(env.log(), /Entra ID tokens: any signature accepted \(no --aad-keys\); every Entra ID principal is a Cosmos DB Built-in Data Contributor/);
  });

  test("item CRUD and a query with a token (default roles); the scope keeps the port", async () => {
    const client = tokenClient("96313034-4739-43cb-93cd-74193adbe5b6");
    const c = client.database(db.id).container("c");
    const { resource: created, statusCode } = await c.items.create({ id: "1", pk: "a", n: 1 });
    assert.equal(statusCode, 201);
    assert.equal(created.n, 1);
    const { resource: read } = await c.item("1", "a").read();
    assert.equal(read.id, "1");
    await c.items.upsert({ id: "2", pk: "a", n: 2 });
    await c.item("1", "a").replace({ id: "1", pk: "a", n: 3 });
    const { resources } = await c.items.query("SELECT VALUE r.n FROM r ORDER BY r.n").fetchAll();
    assert.deepEqual(resources, [2, 3]);
    const { statusCode: deleted } = await c.item("2", "a").delete();
    assert.equal(deleted, 204);
    const { resource: containerDef } = await c.read();
    assert.equal(containerDef.id, "c");
    const port = new URL(env.endpoint).port;
    assert.ok(scopes.includes(`https://127.0.0.1:${port}/.default`), JSON.stringify(scopes));
  });

  test("creating a database or a container with a token answers 403/5300", async () => {
    const client = tokenClient("96313034-4739-43cb-93cd-74193adbe5b6");
    await assert.rejects(client.databases.create({ id: uid("nope") }), (e) => {
      assert.equal(e.code, 403);
      assert.equal(e.substatus, 5300);
      assert.match(e.message, /Request blocked by Auth cosmosdev : The given request \[POST \/dbs\] cannot be authorized by AAD token in data plane\. Learn more: https:\/\/aka\.ms\/cosmos-native-rbac\./);
      return true;
    });
    await assert.rejects(client.database(db.id).containers.create({ id: "x", partitionKey: { paths: ["/pk"] } }), (e) => {
      assert.equal(e.code, 403);
      assert.equal(e.substatus, 5300);
      assert.match(e.message, new RegExp(`The given request \\[POST /dbs/${db.id}/colls\\] cannot be authorized`));
      return true;
    });
  });

  test("a Data Reader reads and queries; its write answers 403/5301; roles change at once", async () => {
    await container.items.create({ id: "r1", pk: "b" });
    await putRoles({
      roleAssignments: [
        { properties: { roleDefinitionId: "00000000-0000-0000-0000-000000000001", scope: "/", principalId: "reader-oid" } },
      ],
    });
    try {
      const c = tokenClient("reader-oid").database(db.id).container("c");
      const { resource } = await c.item("r1", "b").read();
      assert.equal(resource.id, "r1");
      const { resources } = await c.items.query("SELECT VALUE r.id FROM r WHERE r.pk = 'b'").fetchAll();
      assert.deepEqual(resources, ["r1"]);
      await assert.rejects(c.items.create({ id: "w", pk: "b" }), (e) => {
        assert.equal(e.code, 403);
        assert.equal(e.substatus, 5301);
        assert.match(e.message, new RegExp(
          `Request is blocked because principal \\[reader-oid\\] does not have required RBAC permissions to perform ` +
          `action \\[Microsoft\\.DocumentDB/databaseAccounts/sqlDatabases/containers/items/create\\] on resource ` +
          `\\[dbs/${db.id}/colls/c\\]\\. Learn more: https://aka\\.ms/cosmos-native-rbac\\.`));
        return true;
      });
      // Someone with no role at all.
      await assert.rejects(tokenClient("stranger").database(db.id).container("c").item("r1", "b").read(), (e) => {
        assert.equal(e.code, 403);
        assert.equal(e.substatus, 5301);
        return true;
      });
      await putRoles({
        roleAssignments: [
          { properties: { roleDefinitionId: "00000000-0000-0000-0000-000000000002", scope: `/dbs/${db.id}`, principalId: "reader-oid" } },
        ],
      });
      const { statusCode } = await c.items.create({ id: "w", pk: "b" });
      assert.equal(statusCode, 201);
    } finally {
      await putRoles({ roleAssignments: [{ properties: { roleDefinitionId: "00000000-0000-0000-0000-000000000002", scope: "/", principalId: "*" } }] });
    }
  });

  test("cosmos-emulator --issue-token prints a token the emulator accepts", async () => {
    const issued = spawnSync(EMULATOR_BIN, ["--issue-token", "--principal", "issued-oid", "--expires-in", "600"], { encoding: "utf8" });
    assert.equal(issued.status, 0, issued.stderr);
    const token = issued.stdout.trim();
    const claims = JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString());
    assert.equal(claims.oid, "issued-oid");
    assert.equal(claims.exp - claims.nbf, 600);
    const credential = { getToken: async () => ({ token, expiresOnTimestamp: claims.exp * 1000 }) };
    const c = new CosmosClient({ endpoint: env.endpoint, aadCredentials: credential, agent }).database(db.id).container("c");
    const { statusCode } = await c.items.create({ id: uid("issued"), pk: "i" });
    assert.equal(statusCode, 201);
  });

  test("an expired token answers 401 with the service's message", async () => {
    const credential = {
      getToken: async (requested) => ({
        token: makeToken(env.key, "p", { aud: requested[0].replace(/\/\.default$/, ""), expiresIn: -3600 }),
        expiresOnTimestamp: Date.now() + 3600 * 1000,
      }),
    };
    const client = new CosmosClient({ endpoint: env.endpoint, aadCredentials: credential, agent });
    await assert.rejects(client.database(db.id).container("c").item("r1", "b").read(), (e) => {
      assert.equal(e.code, 401);
      assert.match(e.message, /Provided AAD token has been expired since \[.*\]\. Current server time is \[.*\]\. Please refresh the AAD token\./);
      return true;
    });
  });
});

describe("--rbac FILE and --aad-keys FILE", { skip: !LOCAL && "needs the local binary" }, () => {
  let env, dir, privateKey;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "entra-"));
    const pair = generateKeyPairSync("rsa", { modulusLength: 2048 });
    privateKey = pair.privateKey;
    writeFileSync(join(dir, "keys.json"), JSON.stringify({ keys: [{ ...pair.publicKey.export({ format: "jwk" }), kid: "k1", use: "sig" }] }));
    writeFileSync(join(dir, "rbac.json"), JSON.stringify({
      roleDefinitions: [{ name: "11111111-1111-1111-1111-111111111111",
        properties: { roleName: "MetadataOnly", type: "CustomRole", assignableScopes: ["/"],
                      permissions: [{ dataActions: ["Microsoft.DocumentDB/databaseAccounts/readMetadata"] }] } }],
      roleAssignments: [{ properties: { roleDefinitionId: "11111111-1111-1111-1111-111111111111", scope: "/", principalId: "meta" } }],
    }));
    env = await startEmulator(["--aad-keys", join(dir, "keys.json"), "--rbac", join(dir, "rbac.json")]);
  });
  after(async () => {
    await env?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const signed = (claims) => {
    const text = `${b64url(JSON.stringify({ typ: "JWT", alg: "RS256", kid: "k1" }))}.${b64url(JSON.stringify(claims))}`;
    return `${text}.${cryptoSign("sha256", Buffer.from(text), privateKey).toString("base64url")}`;
  };
  const call = (token, path) => fetch(env.endpoint.replace(/\/$/, "") + path, {
    headers: { authorization: `type=aad&ver=1.0&sig=${token}`, "x-ms-version": "2020-07-15" } });

  test("the start line names the keys and the roles", () => {
    assert.match(env.log(), /Entra ID tokens: signatures verified with 1 keys from .*keys\.json; 1 custom role definitions, 1 role assignments/);
  });

  test("a token signed with the key serves within its roles; the fake token does not", async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = { aud: "https://cosmos.azure.com", oid: "meta", nbf: now, exp: now + 600 };
    const ok = await call(signed(claims), "/dbs");
    assert.equal(ok.status, 200, await ok.text());
    const other = await call(signed({ ...claims, oid: "someone" }), "/dbs");
    assert.equal(other.status, 403);
    assert.equal(other.headers.get("x-ms-substatus"), "5301");
    const fake = await call(makeToken(env.key, "meta", { aud: "https://cosmos.azure.com" }), "/dbs");
    assert.equal(fake.status, 401);
    assert.equal(fake.headers.get("x-ms-substatus"), "5200");
  });
});

describe("--disable-local-auth: an application that never needs a key", { skip: !LOCAL && "needs the local binary" }, () => {
  let env, dir, agent;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "entra-seed-"));
    writeFileSync(join(dir, "items.jsonl"), '{"id":"1","pk":"a","n":1}\n');
    writeFileSync(join(dir, "manifest.json"), JSON.stringify({
      containers: [{ database: "app", container: "items", partitionKey: { paths: ["/pk"] }, data: "items.jsonl" }] }));
    env = await startEmulator(["--disable-local-auth", "true", "--seed", dir], { scheme: "https" });
    agent = new https.Agent({ ca: (await insecureGet(env.endpoint + "_explorer/emulator.pem")).body, keepAlive: true });
  });
  after(async () => {
    agent?.destroy();
    await env?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("the key answers 401 with the service's message; a token reads and writes the seeded container", async () => {
    assert.match(env.log(), /local authorization disabled/);
    const keyClient = new CosmosClient({ endpoint: env.endpoint, key: env.key, agent });
    await assert.rejects(keyClient.database("app").container("items").item("1", "a").read(), (e) => {
      assert.equal(e.code, 401);
      assert.equal(e.substatus, 5202);
      assert.match(e.message, /Local Authorization is disabled\. Use an AAD token to authorize all requests\./);
      return true;
    });
    const credential = {
      getToken: async (requested) => ({
        token: makeToken(env.key, "app-oid", { aud: requested[0].replace(/\/\.default$/, "") }),
        expiresOnTimestamp: Date.now() + 3600 * 1000,
      }),
    };
    const c = new CosmosClient({ endpoint: env.endpoint, aadCredentials: credential, agent }).database("app").container("items");
    const { resource } = await c.item("1", "a").read();
    assert.equal(resource.n, 1);
    const { statusCode } = await c.items.upsert({ id: "2", pk: "a" });
    assert.equal(statusCode, 201);
  });
});

describe("--data-dir: the roles outlive a restart", { skip: !LOCAL && "needs the local binary" }, () => {
  test("PUT /_emulator/rbac is kept (after kill -9 and after a clean stop); --rbac at a start replaces the kept roles", async (t) => {
    const dir = mkdtempSync(join(tmpdir(), "entra-roles-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const reader = "0a1b2c3d-0000-4000-8000-00000000000a";
    const readerOnly = { roleAssignments: [{ properties: { roleDefinitionId: "00000000-0000-0000-0000-000000000001", scope: "/", principalId: reader } }] };
    // An item create with the reader's token: its status and substatus.
    const create = async (env) => {
      const res = await rawRequest(env, {
        method: "POST", path: "/dbs/app/colls/items/docs", auth: false, body: { id: uid("i"), pk: "a" },
        headers: { authorization: `type=aad&ver=1.0&sig=${makeToken(env.key, reader, { aud: "https://localhost.localhost" })}`,
                   "x-ms-documentdb-partitionkey": '["a"]' },
      });
      return `${res.status}/${res.headers["x-ms-substatus"] ?? "0"}`;
    };
    const rbacFile = join(dir, "rbac.json");
    writeFileSync(rbacFile, JSON.stringify({ roleAssignments: [] }));
    const data = join(dir, "data");

    let env = await startEmulator(["--data-dir", data]);
    try {
      assert.equal((await rawRequest(env, { method: "POST", path: "/dbs", body: { id: "app" } })).status, 201);
      assert.equal((await rawRequest(env, { method: "POST", path: "/dbs/app/colls",
        body: { id: "items", partitionKey: { paths: ["/pk"], kind: "Hash", version: 2 } } })).status, 201);
      assert.equal(await create(env), "201/0");  // the default: every principal a Data Contributor
      const put = await rawRequest(env, { method: "PUT", path: "/_emulator/rbac", body: readerOnly });
      assert.equal(put.status, 200, put.text);
      assert.equal(await create(env), "403/5301");
      await env.kill();  // kill -9: from the log
      env = await startEmulator(["--data-dir", data]);
      assert.match(env.log(), /1 role assignments \(kept in /);
      assert.equal((await rawRequest(env, { path: "/_emulator/rbac" })).text, put.text);
      assert.equal(await create(env), "403/5301");
      await env.stop();  // a clean stop: from the snapshot
      env = await startEmulator(["--data-dir", data]);
      assert.equal((await rawRequest(env, { path: "/_emulator/rbac" })).text, put.text);
      await env.stop();
      // --rbac wins at a start, and is kept: a later start without it has the file's roles.
      env = await startEmulator(["--data-dir", data, "--rbac", rbacFile]);
      assert.match(env.log(), /0 role assignments \(--rbac .*rbac\.json, kept in /);
      assert.equal(await create(env), "403/5301");  // no assignment at all: "on any scope"
      await env.kill();
      env = await startEmulator(["--data-dir", data]);
      assert.equal((await rawRequest(env, { path: "/_emulator/rbac" })).json.roleAssignments.length, 0);
    } finally {
      await env.stop();
    }
  });
});
