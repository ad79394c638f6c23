// GET / (database account), connection strings, authentication, routing errors.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { CosmosClient } from "@azure/cosmos";
import {
  LOCAL,
  assertCharge,
  startEmulator,
  expectError,
  newClient,
  rawRequest,
  rfc1123,
  uid,
  useEmulator,
} from "./harness.mjs";

const ctx = useEmulator();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("database account (GET /)", () => {
  it("getDatabaseAccount returns one location pointing back at the endpoint", async () => {
    const res = await ctx.client.getDatabaseAccount();
    assert.equal(res.statusCode, 200);
    const a = res.resource;
    assert.deepEqual(a.writableLocations.map((l) => l.databaseAccountEndpoint), [ctx.env.endpoint]);
    assert.deepEqual(a.readableLocations.map((l) => l.databaseAccountEndpoint), [ctx.env.endpoint]);
    assert.equal(a.writableLocations.length, 1);
    assert.equal(a.readableLocations.length, 1);
    assert.equal(a.consistencyPolicy, "Session");
    assert.equal(a.enableMultipleWritableLocations, false);
    assert.equal(a.enablePerPartitionFailover, false);
    assert.equal(a.databasesLink, "/dbs/");
    assertCharge(res.headers["x-ms-request-charge"], 0);
  });

  it("raw GET / carries the fields the SDKs read", async () => {
    const res = await rawRequest(ctx.env, { method: "GET", path: "/" });
    assert.equal(res.status, 200);
    assert.equal(res.headers["content-type"], "application/json");
    assert.match(res.headers["x-ms-activity-id"], UUID);
    const a = res.json;
    assert.equal(typeof a.id, "string");
    assert.notEqual(a.id, "localhost");
    assert.equal(a.enableMultipleWriteLocations, false);
    assert.equal("enablePerPartitionFailoverBehavior" in a, false);
    assert.equal(a.userConsistencyPolicy.defaultConsistencyLevel, "Session");
    assert.equal(a.writableLocations.length, 1);
    assert.equal(a.readableLocations.length, 1);
    assert.equal(a.writableLocations[0].databaseAccountEndpoint, ctx.env.endpoint);
    assert.equal(typeof a.writableLocations[0].name, "string");
    if (LOCAL) {
      assert.equal(a.id, "cosmosdev");
      assert.equal(res.headers["x-ms-request-charge"], "0");
    }
  });

  it("the location follows the request's Host header", { skip: !LOCAL }, async () => {
    const url = new URL(ctx.env.endpoint);
    // localhost on the gateway's own port is sent to 127.0.0.1, as the official emulator answers
    // (Microsoft's Python and Go SDK tests take the two names for two regions)
    const res = await rawRequest(
      { ...ctx.env, endpoint: `http://localhost:${url.port}/` },
      { method: "GET", path: "/" },
    );
    assert.equal(res.status, 200);
    assert.equal(res.json.writableLocations[0].databaseAccountEndpoint, `http://127.0.0.1:${url.port}/`);
  });

  it("GET /_health answers without authentication", { skip: !LOCAL }, async () => {
    const res = await fetch(ctx.env.endpoint + "_health");
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { status: "ok" });
  });
});

describe("connection string", () => {
  it("CosmosClient accepts AccountEndpoint=...;AccountKey=...;", async () => {
    const cs = `AccountEndpoint=${ctx.env.endpoint};AccountKey=${ctx.env.key};`;
    const client = ctx.track(new CosmosClient(cs));
    const id = uid("cs");
    const created = await client.databases.create({ id });
    assert.equal(created.statusCode, 201);
    const read = await ctx.client.database(id).read();
    assert.equal(read.resource._rid, created.resource._rid);
    await client.database(id).delete();
  });
});

describe("authentication", () => {
  it("a wrong key is refused with 401 Unauthorized", async () => {
    const wrong = Buffer.alloc(64, 7).toString("base64");
    const client = ctx.track(newClient({ endpoint: ctx.env.endpoint, key: wrong }));
    const err = await expectError(() => client.databases.readAll().fetchAll(), 401, "Unauthorized");
    assert.match(err.body.message, /^The input authorization token can't serve the request\./);
    if (LOCAL) {
      // The SDK's first request is GET / (the account): type "" and link "".
      assert.match(err.body.message, /Server used the following payload to sign: 'get\\n\\n\\n[a-z]{3}, \d\d [a-z]{3} \d{4} [0-9:]{8} gmt\\n\\n'/);
      assertCharge(err.headers["x-ms-request-charge"], 0);
    }
  });

  it("a missing authorization header is refused with 401", async () => {
    const res = await rawRequest(ctx.env, { method: "GET", path: "/dbs", auth: false });
    assert.equal(res.status, 401);
    assert.equal(res.json.code, "Unauthorized");
    assert.ok(
      res.json.message.startsWith(
        "Required Header authorization is missing. Ensure a valid Authorization token is passed.",
      ),
      res.json.message,
    );
    assert.ok(res.json.message.endsWith(`ActivityId: ${res.headers["x-ms-activity-id"]}`));
  });

  it("an authorization header of the wrong form is refused with 401", async () => {
    const res = await rawRequest(ctx.env, {
      method: "GET",
      path: "/dbs",
      headers: { authorization: encodeURIComponent("type=aad&ver=1.0&sig=abc") },
    });
    assert.equal(res.status, 401);
    assert.equal(res.json.code, "Unauthorized");
  });

  it("a signature over the wrong resource link is refused with 401", async () => {
    const res = await rawRequest(ctx.env, { method: "GET", path: "/dbs", sign: { type: "dbs", link: "dbs/other" } });
    assert.equal(res.status, 401);
    assert.equal(res.json.code, "Unauthorized");
  });

  it("a missing x-ms-date is refused with 401", async () => {
    const res = await rawRequest(ctx.env, { method: "GET", path: "/dbs", headers: { "x-ms-date": undefined } });
    assert.equal(res.status, 401);
    assert.equal(res.json.code, "Unauthorized");
  });

  it("a date 16 minutes in the past is refused with 403 Forbidden", async () => {
    const date = new Date(Date.now() - 16 * 60 * 1000);
    const res = await rawRequest(ctx.env, { method: "GET", path: "/dbs", date });
    assert.equal(res.status, 403);
    assert.equal(res.json.code, "Forbidden");
    assert.match(res.json.message, /^The authorization token is not valid at the current time\./);
  });

  it("a date 16 minutes in the future is refused with 403 Forbidden", async () => {
    const date = new Date(Date.now() + 16 * 60 * 1000);
    const res = await rawRequest(ctx.env, { method: "GET", path: "/dbs", date });
    assert.equal(res.status, 403);
    assert.equal(res.json.code, "Forbidden");
  });

  it("a date 14 minutes off is still accepted (clock skew of a 429 retry)", async () => {
    for (const delta of [-14, 14]) {
      const date = new Date(Date.now() + delta * 60 * 1000);
      const res = await rawRequest(ctx.env, { method: "GET", path: "/dbs", date });
      assert.equal(res.status, 200, `delta ${delta}: ${res.text}`);
    }
  });

  it("the x-ms-date is compared case-insensitively in the signature", async () => {
    const date = rfc1123();
    const res = await rawRequest(ctx.env, { method: "GET", path: "/dbs", date: date.toUpperCase() });
    assert.equal(res.status, 200, res.text);
  });
});

describe("routing errors", () => {
  it("an unknown route answers 400 'Request url is invalid.'", async () => {
    for (const path of ["/foo", "/dbs/a/colls/b/docs/c/extra/more", "/dbs/a/bogus", "/dbs/a/colls/b/bogus"]) {
      const res = await rawRequest(ctx.env, { method: "GET", path });
      assert.equal(res.status, 400, path);
      assert.equal(res.json.code, "BadRequest", path);
      assert.ok(res.json.message.startsWith("Request url is invalid."), `${path}: ${res.json.message}`);
    }
  });

  it("an unsupported verb on a known route answers 405", async () => {
    const cases = [
      ["PUT", "/dbs/x"],
      ["DELETE", "/dbs"],
      ["PATCH", "/dbs/x/colls/y"],
      ["POST", "/dbs/x/colls/y/docs/z"],
      ["DELETE", "/dbs/x/colls/y/docs"],
      ["POST", "/"],
    ];
    for (const [method, path] of cases) {
      const res = await rawRequest(ctx.env, { method, path, body: method === "GET" ? undefined : "{}" });
      assert.equal(res.status, 405, `${method} ${path}: ${res.text}`);
      assert.equal(res.json.code, "MethodNotAllowed");
      assert.match(res.json.message, /The requested verb is not supported on this resource\./);
    }
  });

  it("resources the emulator does not serve yet answer 501 NotImplemented", { skip: !LOCAL }, async () => {
    for (const path of ["/dbs/x/colls/y/docs/z/attachments", "/dbs/x/colls/y/docs/z/attachments/a"]) {
      const res = await rawRequest(ctx.env, { method: "GET", path });
      assert.equal(res.status, 501, path);
      assert.equal(res.json.code, "NotImplemented");
    }
  });

  it("percent-decoding failures in the path answer 400 'Request url is invalid.'", async () => {
    const res = await rawRequest(ctx.env, { method: "GET", path: "/dbs/%zz", sign: { type: "dbs", link: "dbs/%zz" } });
    assert.equal(res.status, 400);
    assert.ok(res.json.message.startsWith("Request url is invalid."));
  });

  it("double slashes and a trailing slash are tolerated (the Python SDK sends them)", async () => {
    const id = uid("slash");
    await ctx.client.databases.create({ id });
    const res = await rawRequest(ctx.env, { method: "GET", path: `//dbs//${id}/` });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.id, id);
    await ctx.client.database(id).delete();
  });

  it("a consistency level stronger than the account's is refused with 400", async () => {
    const client = ctx.track(newClient(ctx.env, { consistencyLevel: "Strong" }));
    const err = await expectError(() => client.databases.readAll().fetchAll(), 400, "BadRequest");
    assert.match(err.body.message, /ConsistencyLevel Strong specified in the request is invalid/);
  });
});

describe("account consistency Strong", { skip: !LOCAL }, () => {
  it("point reads cost double; a weaker request level costs the normal charge", async () => {
    const env = await startEmulator(["--consistency", "Strong"]);
    const client = newClient(env);
    try {
      const acct = await client.getDatabaseAccount();
      assert.equal(acct.resource.consistencyPolicy, "Strong");
      const { database } = await client.databases.create({ id: "s" });
      const { container } = await database.containers.create({ id: "c", partitionKey: { paths: ["/pk"] } });
      await container.items.create({ id: "x", pk: "p" });
      const strong = await container.item("x", "p").read();
      assert.equal(strong.requestCharge, 2);
      const session = await container.item("x", "p").read({ consistencyLevel: "Session" });
      assert.equal(session.requestCharge, 1);
      const eventual = await container.item("x", "p").read({ consistencyLevel: "Eventual" });
      assert.equal(eventual.requestCharge, 1);
      const missing = await container.item("nope", "p").read();
      assert.equal(missing.statusCode, 404);
      assert.equal(missing.requestCharge, 1);
    } finally {
      client.dispose();
      await env.stop();
    }
  });
});
