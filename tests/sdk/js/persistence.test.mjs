// Persistence through the SDK (docs/persistence.md): with --data-dir, the emulator is killed with
// SIGKILL in the middle of a write-heavy load (creates, replaces with If-Match, patches, deletes,
// batches, a stored procedure) and restarted on the same directory. Every acknowledged write is
// there at the version acknowledged (or, for a write that was in flight at the kill, at the next
// one), nothing half-written is, the change feed holds every item at its latest version, and the
// emulator goes on with new writes. A second run does the same with --durability process, and a
// third restarts from a snapshot after a clean stop.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { ChangeFeedStartFrom } from "@azure/cosmos";
import { spawnSync } from "node:child_process";
import { EMULATOR_BIN, LOCAL, newClient, startEmulator } from "./harness.mjs";

const SECONDS = Number(process.env.COSMOS_PERSIST_SECONDS || 4);
const WORKERS = 32;

function digest(v, pad) {
  return createHash("sha256").update(`${v}:${pad}`).digest("hex").slice(0, 16);
}

function body(id, pk, v) {
  const pad = "x".repeat(50 + ((v * 37) % 400));
  return { id, pk, v, pad, sum: digest(v, pad) };
}

// Runs WORKERS clients, each on its own keys, until the process is killed. Returns, per item, what
// was acknowledged and what was in flight when the connection died.
async function loadUntilKilled(env, container, killAfterMs) {
  const state = new Map(); // id -> { pk, acked: {v, etag} | "deleted" | undefined, inflight: op | null }
  let acknowledged = 0;
  let killed = false;
  const killer = new Promise((resolve) =>
    setTimeout(() => {
      killed = true;
      process.kill(env.pid, "SIGKILL");
      resolve();
    }, killAfterMs),
  );
  async function worker(w) {
    const pk = `w${w}`;
    for (let n = 0; !killed; n++) {
      const id = `${pk}-${n % 12}`;
      let s = state.get(id);
      if (!s) state.set(id, (s = { pk, acked: undefined, inflight: null }));
      const live = s.acked && s.acked !== "deleted";
      const v = live ? s.acked.v + 1 : 1;
      const kind = !live ? (w % 4 === 0 && n % 5 === 0 ? "batch" : "create") : ["replace", "patch", "delete", "replace", "sproc"][n % 5];
      s.inflight = { kind, v };
      try {
        let etag;
        if (kind === "create") {
          etag = (await container.items.create(body(id, pk, v))).resource._etag;
        } else if (kind === "batch") {
          const r = await container.items.batch([{ operationType: "Create", resourceBody: body(id, pk, v) }], pk);
          if (r.result[0].statusCode !== 201) throw new Error(`batch ${r.result[0].statusCode}`);
          etag = r.result[0].eTag;
        } else if (kind === "replace") {
          etag = (
            await container.item(id, pk).replace(body(id, pk, v), { accessCondition: { type: "IfMatch", condition: s.acked.etag } })
          ).resource._etag;
        } else if (kind === "patch") {
          const b = body(id, pk, v);
          etag = (
            await container.item(id, pk).patch(
              [
                { op: "set", path: "/v", value: v },
                { op: "set", path: "/pad", value: b.pad },
                { op: "set", path: "/sum", value: b.sum },
              ],
              { accessCondition: { type: "IfMatch", condition: s.acked.etag } },
            )
          ).resource._etag;
        } else if (kind === "sproc") {
          etag = (await container.scripts.storedProcedure("put").execute(pk, [body(id, pk, v)])).resource._etag;
        } else {
          await container.item(id, pk).delete({ accessCondition: { type: "IfMatch", condition: s.acked.etag } });
        }
        s.acked = kind === "delete" ? "deleted" : { v, etag };
        s.inflight = null;
        acknowledged++;
      } catch (e) {
        if (!killed) throw e;
        return; // the connection died with the process: the outcome of s.inflight is unknown
      }
    }
  }
  const workers = Array.from({ length: WORKERS }, (_, w) => worker(w));
  await killer;
  await Promise.allSettled(workers);
  return { state, acknowledged };
}

async function checkRecovered(container, state) {
  let checked = 0;
  for (const [id, s] of state) {
    let item;
    try {
      item = (await container.item(id, s.pk).read()).resource;
    } catch (e) {
      if (e.code !== 404) throw e;
    }
    if (item) {
      // Nothing half-written: the item is one whole version.
      assert.equal(item.sum, digest(item.v, item.pad), `${id} is whole`);
    }
    const acked = s.acked;
    const possible = [];
    if (acked === undefined || acked === "deleted") possible.push("absent");
    else possible.push(`v${acked.v}:${acked.etag}`);
    if (s.inflight) possible.push(s.inflight.kind === "delete" ? "absent" : `v${s.inflight.v}`);
    const seen = item ? `v${item.v}` : "absent";
    const ok = possible.some((p) => p === seen || (item && p === `v${item.v}:${item._etag}`));
    assert.ok(ok, `${id}: found ${item ? `v${item.v}:${item._etag}` : "nothing"}, expected one of ${possible.join(", ")}`);
    checked++;
  }
  return checked;
}

function recoveryLine(log) {
  const m = log.match(/recovered (\d+) databases, (\d+) containers, (\d+) items from (\d+) snapshot and (\d+) log records in ([\d.]+) ms/);
  assert.ok(m, log);
  return { items: Number(m[3]), snapshot: Number(m[4]), log: Number(m[5]), ms: Number(m[6]) };
}

async function killAndRecover(t, durability) {
  const dir = mkdtempSync(join(tmpdir(), "cosmos-persist-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const args = ["--data-dir", dir, "--durability", durability, "--protocol", "http"];
  let env = await startEmulator(args);
  let client = newClient(env);
  const { database } = await client.databases.create({ id: "persist" });
  // 12,000 RU/s: two physical partitions.
  const { container } = await database.containers.create({ id: "load", partitionKey: { paths: ["/pk"] }, throughput: 12000 });
  await container.scripts.storedProcedures.create({
    id: "put",
    body: `function put(doc) {
      var c = getContext().getCollection();
      var ok = c.upsertDocument(c.getSelfLink(), doc, function (err, d) { if (err) throw err; getContext().getResponse().setBody(d); });
      if (!ok) throw new Error("not accepted");
    }`,
  });
  const { state, acknowledged } = await loadUntilKilled(env, container, SECONDS * 1000);
  client.dispose();
  await env.stop();
  assert.ok(acknowledged > 200, `only ${acknowledged} writes were acknowledged`);

  env = await startEmulator(args);
  client = newClient(env);
  const recovered = recoveryLine(env.log());
  const c = client.database("persist").container("load");
  const checked = await checkRecovered(c, state);
  // The change feed from the beginning holds every live item once, at the version read.
  const live = new Map();
  const all = (await c.items.readAll().fetchAll()).resources;
  for (const it of all) live.set(it.id, it._etag);
  const feed = new Map();
  const iterator = c.items.getChangeFeedIterator({ changeFeedStartFrom: ChangeFeedStartFrom.Beginning() });
  while (iterator.hasMoreResults) {
    const page = await iterator.readNext();
    if (page.statusCode === 304) break;
    for (const it of page.result) feed.set(it.id, it._etag);
  }
  assert.deepEqual(new Map([...feed].sort()), new Map([...live].sort()));
  // It goes on: a new write, a replace of a recovered item with its etag.
  await c.items.create(body("after", "w0", 1));
  const some = all[0];
  await c.item(some.id, some.pk).replace({ ...body(some.id, some.pk, some.v + 1) }, { accessCondition: { type: "IfMatch", condition: some._etag } });
  t.diagnostic(
    `${durability}: ${acknowledged} writes acknowledged in ${SECONDS} s by ${WORKERS} clients, killed; ` +
      `${checked} items checked; recovered ${recovered.items} items from ${recovered.log} log records in ${recovered.ms} ms`,
  );
  client.dispose();
  await env.stop(); // a clean stop writes a snapshot

  env = await startEmulator(args);
  const fromSnapshot = recoveryLine(env.log());
  assert.equal(fromSnapshot.log, 0);
  assert.ok(fromSnapshot.snapshot > 0);
  assert.equal(fromSnapshot.items, all.length + 1);
  assert.equal(statSync(join(dir, "wal.log")).size, 24);
  client = newClient(env);
  const again = (await client.database("persist").container("load").items.readAll().fetchAll()).resources;
  assert.equal(again.length, all.length + 1);
  t.diagnostic(`restart from the snapshot: ${fromSnapshot.items} items in ${fromSnapshot.ms} ms`);
  client.dispose();
  await env.stop();
}

test("kill -9 under a write-heavy load loses no acknowledged write (fsync)", { skip: !LOCAL, timeout: 120000 }, (t) =>
  killAndRecover(t, "fsync"),
);

test("kill -9 under a write-heavy load loses no acknowledged write (process)", { skip: !LOCAL, timeout: 120000 }, (t) =>
  killAndRecover(t, "process"),
);

test("a second emulator on the same data directory refuses to start with one line and exit code 2", { skip: !LOCAL }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "cosmos-persist-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const first = await startEmulator(["--data-dir", dir, "--protocol", "http"]);
  t.after(() => first.stop());
  const second = spawnSync(EMULATOR_BIN, ["--host", "127.0.0.1", "--port", "0", "--protocol", "http", "--data-dir", dir], {
    encoding: "utf8",
    timeout: 10000,
  });
  assert.equal(second.status, 2);
  assert.equal(second.stdout, "");
  assert.equal(second.stderr, `cosmos-emulator: the data directory ${dir} is in use by another emulator process\n`);
  await first.stop();
  const third = await startEmulator(["--data-dir", dir, "--protocol", "http"]);
  await third.stop();
});
