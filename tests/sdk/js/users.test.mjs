// Users, permissions and resource tokens through the @azure/cosmos SDK: CRUD of users and
// permissions (renames, upserts, queries, failures), and clients built from `resourceTokens` or a
// `permissionFeed`: what a container, partition-key or item token may do, 403 outside it, 403 for
// a write with a Read token, expiry (the emulator clock moves time), revocation, forged tokens.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { CosmosClient, PermissionMode } from "@azure/cosmos";
import {
  useEmulatorWithDatabase,
  uid,
  expectError,
  assertCharge,
  METADATA_READ,
  METADATA_WRITE,
  REJECTED_WRITE,
  LOCAL,
  emulatorClock,
} from "./harness.mjs";

const INSUFFICIENT =
  "Insufficient permissions provided in the authorization header for the corresponding request. Please retry with " +
  "another authorization header.";

let db;
let container;
const ctx = useEmulatorWithDatabase(
  async (f) => {
    db = f.db;
    container = f.container;
    await container.items.create({ id: "a", pk: "x", n: 1 });
    await container.items.create({ id: "b", pk: "y", n: 2 });
  },
  { containerId: "c" },
);

function tokenClient(options) {
  return ctx.track(
    new CosmosClient({
      endpoint: ctx.env.endpoint,
      connectionPolicy: { enableBackgroundEndpointRefreshing: false },
      ...options,
    }),
  );
}

// A fresh user holding one permission; resolves to the permission resource (with its _token).
async function grant(definition, options) {
  const { user } = await db.users.create({ id: uid("u") });
  const { resource } = await user.permissions.create({ id: uid("p"), ...definition }, options);
  return { user, permission: resource };
}

function containerOf(client) {
  return client.database(db.id).container("c");
}

async function advanceClock(seconds) {
  const res = await emulatorClock(ctx.env, { advanceSeconds: seconds });
  assert.equal(res.status, 200, res.text);
}

function message(err) {
  return String(err.body?.message ?? err.message).split("\r\nActivityId:")[0];
}

describe("users", () => {
  it("create, read, list, query, rename by replace, upsert and delete", async () => {
    const id = uid("u");
    const created = await db.users.create({ id });
    assert.equal(created.statusCode, 201);
    assertCharge(created.requestCharge, METADATA_WRITE);
    const u = created.resource;
    assert.deepEqual(Object.keys(u), ["id", "_rid", "_ts", "_self", "_etag", "_permissions"]);
    assert.equal(u.id, id);
    assert.equal(u._self, `${(await db.read()).resource._self}users/${u._rid}/`);
    assert.equal(u._permissions, "permissions/");
    assert.equal(created.etag, u._etag);

    const read = await db.user(id).read();
    assert.equal(read.resource._rid, u._rid);
    assertCharge(read.requestCharge, METADATA_READ);

    const all = await db.users.readAll().fetchAll();
    assert.ok(all.resources.some((x) => x.id === id));
    const q = await db.users
      .query({ query: "SELECT * FROM r WHERE r.id = @id", parameters: [{ name: "@id", value: id }] })
      .fetchAll();
    assert.deepEqual(
      q.resources.map((x) => x.id),
      [id],
    );

    // A replace with another id renames the user; its rid stays.
    const renamed = uid("renamed");
    const replaced = await db.user(id).replace({ id: renamed });
    assert.equal(replaced.resource.id, renamed);
    assert.equal(replaced.resource._rid, u._rid);
    await expectError(() => db.user(id).read(), 404, "NotFound");
    assert.equal((await db.user(renamed).read()).resource.id, renamed);

    // Upsert: an existing id is replaced (200), a new one created (201).
    const up = await db.users.upsert({ id: renamed });
    assert.equal(up.statusCode, 200);
    assert.equal(up.resource._rid, u._rid);
    const up2 = await db.users.upsert({ id: uid("up") });
    assert.equal(up2.statusCode, 201);

    const del = await db.user(renamed).delete();
    assert.equal(del.statusCode, 204);
    assertCharge(del.requestCharge, METADATA_WRITE);
    await expectError(() => db.user(renamed).read(), 404, "NotFound");
  });

  it("failures: 409 duplicate, 400 bad id, 404 missing user or database", async () => {
    const id = uid("u");
    await db.users.create({ id });
    const dup = await expectError(() => db.users.create({ id }), 409, "Conflict");
    assertCharge(dup.headers["x-ms-request-charge"], REJECTED_WRITE);
    await expectError(() => db.user(uid("none")).read(), 404, "NotFound");
    await expectError(() => db.user(uid("none")).delete(), 404, "NotFound");
    await expectError(() => db.user(uid("none")).replace({ id: "x" }), 404, "NotFound");
    await expectError(() => ctx.client.database(uid("nodb")).users.create({ id: "x" }), 404, "NotFound");
    const other = uid("u");
    await db.users.create({ id: other });
    await expectError(() => db.user(id).replace({ id: other }), 409, "Conflict");
  });
});

describe("permissions", () => {
  it("create, read, list, query, replace (mode and id), upsert and delete", async () => {
    const { user } = await db.users.create({ id: uid("u") });
    const created = await user.permissions.create({
      id: "p1",
      permissionMode: "Read", // any case in, returned as sent
      resource: container.url,
    });
    assert.equal(created.statusCode, 201);
    assertCharge(created.requestCharge, METADATA_WRITE);
    const p = created.resource;
    assert.deepEqual(Object.keys(p), [
      "id",
      "permissionMode",
      "resource",
      "_rid",
      "_ts",
      "_self",
      "_etag",
      "_token",
    ]);
    assert.equal(p.permissionMode, "Read");
    assert.equal(p.resource, container.url);
    assert.equal(p._self, `${(await user.read()).resource._self}permissions/${p._rid}/`);
    assert.match(p._token, /^type=resource&ver=1&sig=[A-Za-z0-9+/=]+;[A-Za-z0-9+/=]+;$/);

    const withKey = await user.permissions.create({
      id: "p2",
      permissionMode: PermissionMode.All, // the SDK's "all"
      resource: container.url,
      resourcePartitionKey: ["x"],
    });
    assert.deepEqual(withKey.resource.resourcePartitionKey, ["x"]);
    assert.equal(withKey.resource.permissionMode, "all");

    const read = await user.permission("p1").read();
    assertCharge(read.requestCharge, METADATA_READ);
    assert.equal(read.resource._rid, p._rid);
    const list = await user.permissions.readAll().fetchAll();
    assert.deepEqual(
      list.resources.map((x) => x.id),
      ["p1", "p2"],
    );
    const q = await user.permissions.query("SELECT * FROM r WHERE r.permissionMode = 'all'").fetchAll();
    assert.deepEqual(
      q.resources.map((x) => x.id),
      ["p2"],
    );

    const replaced = await user.permission("p1").replace({ id: "p1", permissionMode: "All", resource: container.url });
    assert.equal(replaced.resource.permissionMode, "All");
    const renamed = await user.permission("p1").replace({ id: "p3", permissionMode: "All", resource: container.url });
    assert.equal(renamed.resource.id, "p3");
    assert.equal(renamed.resource._rid, p._rid);
    await expectError(() => user.permission("p1").read(), 404, "NotFound");

    const up = await user.permissions.upsert({
      id: "p2",
      permissionMode: "Read",
      resource: container.url,
      resourcePartitionKey: ["x"],
    });
    assert.equal(up.statusCode, 200);
    assert.equal(up.resource.permissionMode, "Read");

    const del = await user.permission("p3").delete();
    assert.equal(del.statusCode, 204);
    await expectError(() => user.permission("p3").read(), 404, "NotFound");
  });

  it("failures: 400 invalid body or link, 404, 409 same id or same resource, expiry bounds", async () => {
    const { user } = await db.users.create({ id: uid("u") });
    const bad = await expectError(
      () => user.permissions.create({ id: "p", permissionMode: "Write", resource: container.url }),
      400,
      "BadRequest",
    );
    assert.match(message(bad), /The value of permissionMode is invalid: it must be Read or All\./);
    const dbLink = await expectError(
      () => user.permissions.create({ id: "p", permissionMode: "Read", resource: `dbs/${db.id}` }),
      400,
      "BadRequest",
    );
    assert.match(message(dbLink), new RegExp(`The input Resource link 'dbs/${db.id}' is invalid\\.`));
    await expectError(
      () => user.permissions.create({ id: "p", permissionMode: "Read", resource: `dbs/${db.id}/colls/nope` }),
      404,
      "NotFound",
    );
    await expectError(
      () => user.permissions.create({ id: "p", permissionMode: "Read", resource: container.url, resourcePartitionKey: "x" }),
      400,
      "BadRequest",
    );
    await expectError(() => user.permission("nope").read(), 404, "NotFound");
    await expectError(
      () => db.user(uid("none")).permissions.create({ id: "p", permissionMode: "Read", resource: container.url }),
      404,
      "NotFound",
    );

    await user.permissions.create({ id: "p", permissionMode: "Read", resource: container.url });
    await expectError(
      () => user.permissions.create({ id: "p", permissionMode: "Read", resource: `${container.url}/docs/a` }),
      409,
      "Conflict",
    );
    await expectError(
      () => user.permissions.create({ id: "q", permissionMode: "All", resource: container.url }),
      409,
      "Conflict",
    );

    const short = await expectError(
      () =>
        user.permissions.create(
          { id: "t", permissionMode: "Read", resource: `${container.url}/docs/a` },
          { resourceTokenExpirySeconds: 599 },
        ),
      400,
      "BadRequest",
    );
    assert.match(message(short), /One of the specified inputs is invalid/);
    const long = await expectError(
      () =>
        user.permissions.create(
          { id: "t", permissionMode: "Read", resource: `${container.url}/docs/a` },
          { resourceTokenExpirySeconds: 86401 },
        ),
      400,
      "BadRequest",
    );
    assert.match(message(long), /Value '86401' specified for the header 'x-ms-documentdb-expiry-seconds' is invalid\./);
  });
});

describe("resource tokens", () => {
  it("a container Read token reads the container's items and nothing else", async () => {
    const { permission } = await grant({ permissionMode: PermissionMode.Read, resource: container.url });
    // Keyed by the database id too, so that the SDK sends the token with database-level requests
    // (with no token for a path it sends none, which is a 401).
    const client = tokenClient({ resourceTokens: { [container.url]: permission._token, [db.id]: permission._token } });
    const c = containerOf(client);
    assert.equal((await c.read()).resource.id, "c");
    const item = await c.item("a", "x").read();
    assert.equal(item.resource.n, 1);
    assertCharge(item.requestCharge, 1);
    assert.equal((await c.items.readAll().fetchAll()).resources.length >= 2, true);
    const q = await c.items.query("SELECT VALUE c.id FROM c WHERE c.pk = 'y'").fetchAll();
    assert.deepEqual(q.resources, ["b"]);
    const byKey = await c.items.query("SELECT VALUE c.id FROM c", { partitionKey: "x" }).fetchAll();
    assert.ok(byKey.resources.includes("a"));

    const err = await expectError(() => c.items.create({ id: uid("n"), pk: "x" }), 403, "Forbidden");
    assert.equal(message(err), INSUFFICIENT);
    await expectError(() => c.item("a", "x").replace({ id: "a", pk: "x", n: 9 }), 403, "Forbidden");
    await expectError(() => c.item("a", "x").delete(), 403, "Forbidden");
    await expectError(() => c.delete(), 403, "Forbidden");
    await expectError(() => client.database(db.id).read(), 403, "Forbidden");
    await expectError(() => client.database(db.id).containers.readAll().fetchAll(), 403, "Forbidden");
    await expectError(() => client.database(db.id).users.readAll().fetchAll(), 403, "Forbidden");
  });

  it("a container All token writes there, through a permission feed", async () => {
    const { permission } = await grant({ permissionMode: PermissionMode.All, resource: container.url });
    const c = containerOf(tokenClient({ permissionFeed: [permission] }));
    const id = uid("n");
    const created = await c.items.create({ id, pk: "x" });
    assert.equal(created.statusCode, 201);
    assert.equal((await c.item(id, "x").replace({ id, pk: "x", v: 2 })).statusCode, 200);
    assert.equal((await c.item(id, "x").patch([{ op: "set", path: "/v", value: 3 }])).resource.v, 3);
    assert.equal((await c.items.upsert({ id, pk: "x", v: 4 })).statusCode, 200);
    assert.equal((await c.item(id, "x").delete()).statusCode, 204);
  });

  it("a partition-key token reaches only its partition", async () => {
    const { permission } = await grant({
      permissionMode: PermissionMode.All,
      resource: container.url,
      resourcePartitionKey: ["x"],
    });
    const c = containerOf(tokenClient({ resourceTokens: { [container.url]: permission._token } }));
    const id = uid("n");
    assert.equal((await c.items.create({ id, pk: "x" })).statusCode, 201);
    await expectError(() => c.items.create({ id, pk: "y" }), 403, "Forbidden");
    assert.equal((await c.item("a", "x").read()).resource.id, "a");
    await expectError(() => c.item("b", "y").read(), 403, "Forbidden");
    const inKey = await c.items.query("SELECT VALUE c.id FROM c", { partitionKey: "x" }).fetchAll();
    assert.deepEqual(inKey.resources.sort(), ["a", id].sort());
    await expectError(() => c.items.query("SELECT * FROM c").fetchAll(), 403, "Forbidden");
    await expectError(() => c.items.readAll().fetchAll(), 403, "Forbidden");
  });

  it("an item token reaches only its item; Read cannot write it", async () => {
    const { user, permission } = await grant({ permissionMode: PermissionMode.Read, resource: `${container.url}/docs/a` });
    const c = containerOf(tokenClient({ resourceTokens: { [container.url]: permission._token } }));
    assert.equal((await c.item("a", "x").read()).resource.id, "a");
    await expectError(() => c.item("b", "y").read(), 403, "Forbidden");
    await expectError(() => c.item("a", "x").replace({ id: "a", pk: "x", n: 5 }), 403, "Forbidden");
    await expectError(() => c.items.readAll().fetchAll(), 403, "Forbidden");

    // The same item by its _self, with All: it may replace it.
    const self = (await container.item("a", "x").read()).resource._self;
    const all = (
      await user
        .permission(permission.id)
        .replace({ id: permission.id, permissionMode: PermissionMode.All, resource: self })
    ).resource;
    assert.equal(all.resource, self);
    const c2 = containerOf(tokenClient({ resourceTokens: { [container.url]: all._token } }));
    assert.equal((await c2.item("a", "x").replace({ id: "a", pk: "x", n: 1 })).statusCode, 200);
  });

  it("an expired token answers 403 until a fresh one is read", { skip: !LOCAL }, async () => {
    const { user, permission } = await grant(
      { permissionMode: PermissionMode.Read, resource: container.url },
      { resourceTokenExpirySeconds: 600 },
    );
    const c = containerOf(tokenClient({ resourceTokens: { [container.url]: permission._token } }));
    assert.equal((await c.item("a", "x").read()).statusCode, 200);
    await advanceClock(600);
    const err = await expectError(() => c.item("a", "x").read(), 403, "Forbidden");
    assert.match(
      message(err),
      /^The authorization token is not valid at the current time\. Please create another token and retry \(token start time: .+ GMT, token expiry time: .+ GMT, current server time: .+ GMT\)\.$/,
    );
    const fresh = (await user.permission(permission.id).read()).resource;
    const c2 = containerOf(tokenClient({ resourceTokens: { [container.url]: fresh._token } }));
    assert.equal((await c2.item("a", "x").read()).statusCode, 200);
  });

  it("deleting or replacing the permission revokes its tokens; forged tokens are 401", async () => {
    const { user, permission } = await grant({ permissionMode: PermissionMode.Read, resource: container.url });
    const c = containerOf(tokenClient({ resourceTokens: { [container.url]: permission._token } }));
    assert.equal((await c.item("a", "x").read()).statusCode, 200);
    await user.permission(permission.id).replace({ id: permission.id, permissionMode: "Read", resource: container.url });
    await expectError(() => c.item("a", "x").read(), 403, "Forbidden");

    const fresh = (await user.permission(permission.id).read()).resource._token;
    const c2 = containerOf(tokenClient({ resourceTokens: { [container.url]: fresh } }));
    assert.equal((await c2.item("a", "x").read()).statusCode, 200);
    await user.permission(permission.id).delete();
    await expectError(() => c2.item("a", "x").read(), 403, "Forbidden");

    // One character of the claims changed: the signature no longer matches.
    const [head, claims] = fresh.split(";");
    const flipped = claims[3] === "A" ? "B" : "A";
    const forged = `${head};${claims.slice(0, 3)}${flipped}${claims.slice(4)};`;
    const c3 = containerOf(tokenClient({ resourceTokens: { [container.url]: forged } }));
    const err = await expectError(() => c3.item("a", "x").read(), 401, "Unauthorized");
    assert.match(message(err), /^The input authorization token can't serve the request\./);
  });
});
