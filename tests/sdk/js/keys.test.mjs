// The account's keys through @azure/cosmos (docs/protocol.md §2, docs/settings.md): the primary and
// the secondary master keys serve everything; the primary and secondary read-only keys read, query
// and read the change feed, and every write they sign answers 401 as a wrong key does (what the
// service answers: the signature is not one of a read-write key). Also the emulator's own
// endpoints: moving the clock or clearing the RU report needs a master key.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { ChangeFeedStartFrom } from "@azure/cosmos";
import { LOCAL, expectError, newClient, rawRequest, uid, useEmulator } from "./harness.mjs";

const key = () => randomBytes(64).toString("base64");
const KEYS = { secondary: key(), readonly: key(), secondaryReadonly: key() };

const ctx = useEmulator({
  args: [
    "--secondary-key",
    KEYS.secondary,
    "--readonly-key",
    KEYS.readonly,
    "--secondary-readonly-key",
    KEYS.secondaryReadonly,
  ],
  setup: async ({ client }) => {
    dbId = uid("db");
    const { database } = await client.databases.create({ id: dbId });
    await database.containers.create({ id: "c", partitionKey: { paths: ["/pk"] } });
    const c = database.container("c");
    await c.items.create({ id: "a", pk: "p", n: 1 });
    await c.scripts.storedProcedures.create({
      id: "count",
      body: "function count() { getContext().getResponse().setBody(1); }",
    });
    const user = (await database.users.create({ id: "u" })).user;
    await user.permissions.create({ id: "read-c", permissionMode: "Read", resource: c.url });
  },
  teardown: ({ client }) => client.database(dbId).delete(),
});
let dbId;

const clientWith = (k) => ctx.track(newClient({ ...ctx.env, key: k }));
const container = (client) => client.database(dbId).container("c");

const WRONG_KEY =
  "The input authorization token can't serve the request. The wrong key is being used or the expected payload is " +
  "not built as per the protocol. Server used the following payload to sign: ";

/** A write signed with a read-only key: 401 Unauthorized, the payload the emulator signed. */
async function expectRefused(fn, payload) {
  const err = await expectError(fn, 401, "Unauthorized");
  const message = String(err.body.message).split("\r\nActivityId:")[0];
  assert.ok(message.startsWith(WRONG_KEY + `'${payload}`), message);
  return err;
}

describe("account keys", { skip: !LOCAL && "starts the emulator with its own keys" }, () => {
  it("the secondary master key serves reads and writes", async () => {
    const c = container(clientWith(KEYS.secondary));
    const created = await c.items.create({ id: uid("s"), pk: "p" });
    assert.equal(created.statusCode, 201);
    const { resource } = await c.item(created.resource.id, "p").read();
    assert.equal(resource.id, created.resource.id);
    assert.equal((await c.item(created.resource.id, "p").delete()).statusCode, 204);
  });

  for (const kind of ["readonly", "secondaryReadonly"]) {
    describe(`the ${kind} key`, () => {
      it("reads the account, databases, containers and items, queries, and reads the change feed", async () => {
        const client = clientWith(KEYS[kind]);
        const account = await client.getDatabaseAccount();
        assert.equal(account.statusCode, 200);
        const dbs = (await client.databases.readAll().fetchAll()).resources.map((d) => d.id);
        assert.ok(dbs.includes(dbId));
        const c = container(client);
        assert.equal((await c.read()).resource.id, "c");
        const item = await c.item("a", "p").read();
        assert.equal(item.statusCode, 200);
        assert.equal(item.resource.n, 1);
        const q = await c.items.query("SELECT c.id, c.n FROM c WHERE c.n = 1").fetchAll();
        assert.deepEqual(q.resources, [{ id: "a", n: 1 }]);
        const all = await c.items.readAll().fetchAll();
        assert.deepEqual(
          all.resources.map((d) => d.id),
          ["a"],
        );
        const feed = c.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning() });
        const page = await feed.readNext();
        assert.equal(page.statusCode, 200);
        assert.deepEqual(
          page.result.map((d) => d.id),
          ["a"],
        );
        const sprocs = (await c.scripts.storedProcedures.readAll().fetchAll()).resources.map((s) => s.id);
        assert.deepEqual(sprocs, ["count"]);
        const users = (await client.database(dbId).users.readAll().fetchAll()).resources.map((u) => u.id);
        assert.deepEqual(users, ["u"]);
      });

      it("creates, replaces, upserts, patches, deletes, batches and runs nothing: 401", async () => {
        const client = clientWith(KEYS[kind]);
        const c = container(client);
        const docs = `dbs/${dbId}/colls/c`;
        await expectRefused(() => c.items.create({ id: "b", pk: "p" }), `post\\ndocs\\n${docs}\\n`);
        await expectRefused(() => c.items.upsert({ id: "a", pk: "p", n: 2 }), `post\\ndocs\\n${docs}\\n`);
        await expectRefused(() => c.item("a", "p").replace({ id: "a", pk: "p", n: 2 }), `put\\ndocs\\n${docs}/docs/a\\n`);
        await expectRefused(
          () => c.item("a", "p").patch([{ op: "set", path: "/n", value: 2 }]),
          `patch\\ndocs\\n${docs}/docs/a\\n`,
        );
        await expectRefused(() => c.item("a", "p").delete(), `delete\\ndocs\\n${docs}/docs/a\\n`);
        // The SDK wraps a batch's failure in an Error of its own, without the status: the message
        // carries the emulator's; a raw batch shows the status.
        await assert.rejects(
          () => c.items.batch([{ operationType: "Create", resourceBody: { id: "b", pk: "p" } }], "p"),
          (e) => e.message.startsWith(`Batch request error: ${WRONG_KEY}'post\\ndocs\\n${docs}\\n`),
        );
        const batch = await rawRequest(
          { ...ctx.env, key: KEYS[kind] },
          {
            method: "POST",
            path: `/${docs}/docs`,
            headers: {
              "x-ms-cosmos-is-batch-request": "true",
              "x-ms-cosmos-batch-atomic": "true",
              "x-ms-documentdb-partitionkey": '["p"]',
            },
            body: [{ operationType: "Create", resourceBody: { id: "b", pk: "p" } }],
          },
        );
        assert.equal(batch.status, 401, batch.text);
        assert.equal(batch.json.code, "Unauthorized");
        await expectRefused(
          () => c.scripts.storedProcedure("count").execute("p"),
          `post\\nsprocs\\n${docs}/sprocs/count\\n`,
        );
        await expectRefused(() => client.databases.create({ id: uid("db") }), "post\\ndbs\\n\\n");
        await expectRefused(() => client.database(dbId).containers.create({ id: "d" }), `post\\ncolls\\ndbs/${dbId}\\n`);
        await expectRefused(() => client.database(dbId).delete(), `delete\\ndbs\\ndbs/${dbId}\\n`);
        // Nothing changed: the master key still reads what was there.
        const { resource } = await container(ctx.client).item("a", "p").read();
        assert.equal(resource.n, 1);
        const ids = (await container(ctx.client).items.readAll().fetchAll()).resources.map((d) => d.id);
        assert.deepEqual(ids, ["a"]);
      });

      it("does not read permissions (they hold resource tokens)", async () => {
        const user = clientWith(KEYS[kind]).database(dbId).user("u");
        await expectRefused(
          () => user.permission("read-c").read(),
          `get\\npermissions\\ndbs/${dbId}/users/u/permissions/read-c\\n`,
        );
        await expectRefused(() => user.permissions.readAll().fetchAll(), `get\\npermissions\\ndbs/${dbId}/users/u\\n`);
      });

      it("does not move the emulator's clock or clear its report", async () => {
        const env = { ...ctx.env, key: KEYS[kind] };
        const before = (await rawRequest(env, { path: "/_emulator/clock", auth: false })).json;
        const post = await rawRequest(env, { method: "POST", path: "/_emulator/clock", body: { advanceSeconds: 60 } });
        assert.equal(post.status, 401, post.text);
        const del = await rawRequest(env, { method: "DELETE", path: "/_emulator/stats" });
        assert.equal(del.status, 401, del.text);
        const after = (await rawRequest(env, { path: "/_emulator/clock", auth: false })).json;
        assert.equal(after.offsetMs, before.offsetMs);
      });
    });
  }

  it("the emulator's endpoints: no key or a wrong key is 401, a master key moves the clock", async () => {
    const body = { advanceMs: 1 };
    const none = await rawRequest(ctx.env, { method: "POST", path: "/_emulator/clock", body, auth: false });
    assert.equal(none.status, 401, none.text);
    assert.deepEqual(Object.keys(none.json), ["code", "message"]);
    assert.equal(none.json.code, "Unauthorized");
    const wrong = await rawRequest({ ...ctx.env, key: key() }, { method: "POST", path: "/_emulator/clock", body });
    assert.equal(wrong.status, 401);
    assert.ok(wrong.json.message.startsWith(WRONG_KEY + "'post\\n_emulator\\n_emulator/clock\\n"), wrong.json.message);
    for (const k of [ctx.env.key, KEYS.secondary]) {
      const before = (await rawRequest(ctx.env, { path: "/_emulator/clock", auth: false })).json.offsetMs;
      const ok = await rawRequest({ ...ctx.env, key: k }, { method: "POST", path: "/_emulator/clock", body });
      assert.equal(ok.status, 200, ok.text);
      assert.equal(ok.json.offsetMs, before + 1);
    }
  });
});
