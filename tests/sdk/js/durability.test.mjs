// What the emulator does when its data directory is damaged or its disk fails (docs/persistence.md):
// damage other than a torn tail stops the start with one line and exit code 2 and changes no file;
// --recover salvage keeps the longest valid prefix, moves the damaged files aside and says what it
// dropped; a write the disk refuses (EIO on write or on fdatasync, a read-only file system) is
// answered 500, never seen, and every later change is refused before it is made. The disk's
// failures come from tests/io_faults (a library preloaded into the emulator: it makes the data
// directory's writes, syncs and opens fail on demand).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { EMULATOR_BIN, LOCAL, newClient, pkHeader, rawRequest, startEmulator } from "./harness.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const FAULTS_LIB = process.env.COSMOS_IO_FAULTS_LIB || resolve(here, "../../../build/tests/cosmos_io_faults.so");

const sha = (path) => createHash("sha256").update(readFileSync(path)).digest("hex");

function freshDir(t) {
  const dir = mkdtempSync(join(tmpdir(), "cosmos-durability-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// Starts the emulator on `dir` and expects it to refuse: exit code 2, nothing on stdout, one line.
function refusedStart(dir, extra = []) {
  const r = spawnSync(EMULATOR_BIN, ["--host", "127.0.0.1", "--port", "0", "--protocol", "http", "--data-dir", dir, ...extra], {
    encoding: "utf8",
    timeout: 20000,
  });
  assert.equal(r.status, 2, r.stderr);
  assert.equal(r.stdout, "");
  const lines = r.stderr.split("\n").filter((l) => l.length > 0);
  assert.equal(lines.length, 1, r.stderr);
  return lines[0];
}

// An emulator on a fresh data directory whose disk fails on demand: write the mode's file
// (tests/io_faults) to make it fail.
async function withFailingDisk(t) {
  assert.ok(existsSync(FAULTS_LIB), `${FAULTS_LIB} (built with the tests)`);
  const dir = freshDir(t);
  const mode = join(freshDir(t), "mode");
  writeFileSync(mode, "");
  const env = await startEmulator(["--data-dir", dir, "--protocol", "http"], {
    env: { LD_PRELOAD: FAULTS_LIB, COSMOS_IO_FAULTS_DIR: dir, COSMOS_IO_FAULTS_FILE: mode },
  });
  t.after(() => env.stop());
  return { dir, mode, env };
}

// A request of `env`'s with the partition key header when `pk` is given.
const send = (env, method, path, pk, body) =>
  rawRequest(env, { method, path, body, headers: pk ? { "x-ms-documentdb-partitionkey": pkHeader(pk) } : {} });

async function withItems(dir, count, { args = [] } = {}) {
  const env = await startEmulator(["--data-dir", dir, "--protocol", "http", ...args]);
  const client = newClient(env);
  const { database } = await client.databases.createIfNotExists({ id: "d" });
  const { container } = await database.containers.createIfNotExists({ id: "c", partitionKey: { paths: ["/pk"] } });
  for (let i = 0; i < count; i += 25) {
    await Promise.all(
      Array.from({ length: Math.min(25, count - i) }, (_, k) => container.items.create({ id: `i${i + k}`, pk: `p${(i + k) % 7}` })),
    );
  }
  client.dispose();
  return env;
}

async function countItems(dir, args = []) {
  const env = await startEmulator(["--data-dir", dir, "--protocol", "http", ...args]);
  const client = newClient(env);
  const n = (await client.database("d").container("c").items.query("SELECT VALUE COUNT(1) FROM c").fetchAll()).resources[0];
  client.dispose();
  const log = env.log();
  await env.stop();
  return { n, log };
}

test("a flipped byte at 10% of wal.log stops the start, changes no file; --recover salvage keeps the records before it", { skip: !LOCAL, timeout: 120000 }, async (t) => {
  const dir = freshDir(t);
  const env = await withItems(dir, 500);
  await env.kill(); // no checkpoint: every write is in the log
  const log = join(dir, "wal.log");
  const bytes = readFileSync(log);
  const at = Math.floor(bytes.length / 10);
  bytes[at] ^= 0x5a;
  writeFileSync(log, bytes);
  const before = sha(log);
  const listing = readdirSync(dir).sort();

  const line = refusedStart(dir);
  assert.match(
    line,
    new RegExp(
      `^cosmos-emulator: the log ${dir}/wal\\.log is damaged at byte \\d+ \\((a checksum mismatch|a record length of \\d+ bytes|sequence number \\d+ after \\d+)\\): ` +
        "the \\d+ bytes from there to its end hold \\d+ whole records \\(sequence numbers \\d+ to \\d+\\) that would be lost; " +
        "\\d+ records before it are whole; start-up stopped and no file was changed: restore the file, or start with --recover salvage$",
    ),
  );
  const damagedAt = Number(line.match(/damaged at byte (\d+)/)[1]);
  assert.ok(damagedAt <= at && damagedAt > at - 70000, `damage found at ${damagedAt}, flipped at ${at}`);
  assert.equal(sha(log), before, "the refused start changed wal.log");
  assert.deepEqual(readdirSync(dir).sort(), listing);

  const { n, log: out } = await countItems(dir, ["--recover", "salvage"]);
  assert.match(out, /--recover salvage: the log .*wal\.log is damaged at byte \d+ .*: dropped them and kept the \d+ records before it; the whole log was set aside/);
  const aside = out.match(/--recover salvage: the damaged files are in (\S+)/)[1];
  assert.equal(dirname(aside), dir);
  assert.equal(sha(join(aside, "wal.log")), before, "the damaged log was moved aside whole");
  assert.ok(n > 0 && n < 500, `${n} items kept`);
  // From then on it starts as usual, with what was kept.
  const again = await countItems(dir);
  assert.equal(again.n, n);
  assert.doesNotMatch(again.log, /salvage|damaged/);
});

test("snapshot.bin missing beside a log that follows it, and wal.log missing beside a snapshot, stop the start", { skip: !LOCAL, timeout: 120000 }, async (t) => {
  const dir = freshDir(t);
  await (await withItems(dir, 20)).stop(); // a clean stop: a snapshot and an empty log
  assert.equal(statSync(join(dir, "wal.log")).size, 24);
  const env = await withItems(dir, 0);
  const c = newClient(env).database("d").container("c");
  for (let i = 0; i < 5; ++i) await c.items.create({ id: `late${i}`, pk: "q" });
  await env.kill();
  const snapshot = readFileSync(join(dir, "snapshot.bin"));
  unlinkSync(join(dir, "snapshot.bin"));
  const before = sha(join(dir, "wal.log"));
  assert.match(
    refusedStart(dir),
    new RegExp(
      `^cosmos-emulator: the snapshot ${dir}/snapshot\\.bin is missing but the log ${dir}/wal\\.log continues from it \\(record \\d+\\): ` +
        "the log's \\d+ bytes from byte 24, holding 5 whole records \\(sequence numbers \\d+ to \\d+\\), cannot be applied without it; " +
        "start-up stopped and no file was changed",
    ),
  );
  assert.equal(sha(join(dir, "wal.log")), before);
  assert.ok(!existsSync(join(dir, "snapshot.bin")));

  // The snapshot back, the log gone: the log's five writes would be lost.
  writeFileSync(join(dir, "snapshot.bin"), snapshot);
  unlinkSync(join(dir, "wal.log"));
  assert.match(
    refusedStart(dir),
    new RegExp(`^cosmos-emulator: the log ${dir}/wal\\.log is missing beside the snapshot ${dir}/snapshot\\.bin \\(records 1 to \\d+\\): every write logged after the snapshot would be lost`),
  );
  // Salvage keeps the snapshot's state: the twenty items written before the clean stop.
  const { n, log } = await countItems(dir, ["--recover", "salvage"]);
  assert.equal(n, 20);
  assert.match(log, /--recover salvage: the log .* is missing beside the snapshot .*: kept the snapshot's state/);
});

test("the disk failing: EIO on write is answered 500, the write is never seen, later changes are refused", { skip: !LOCAL, timeout: 60000 }, async (t) => {
  const { dir, mode, env } = await withFailingDisk(t);
  const post = (path, body, pk) => send(env, "POST", path, pk, body);
  const get = (path, pk) => send(env, "GET", path, pk);
  assert.equal((await post("/dbs", { id: "d" })).status, 201);
  assert.equal((await post("/dbs/d/colls", { id: "c", partitionKey: { paths: ["/pk"] } })).status, 201);
  assert.equal((await post("/dbs/d/colls/c/docs", { id: "a", pk: "p" }, "p")).status, 201);

  writeFileSync(mode, "eio-write");
  const refused = await post("/dbs/d/colls/c/docs", { id: "b", pk: "p" }, "p");
  assert.equal(refused.status, 500);
  assert.equal(refused.json.code, "InternalServerError");
  assert.match(refused.json.message, new RegExp(`cannot write ${dir}/wal\\.log: Input/output error`));
  writeFileSync(mode, ""); // the disk is back; the log still refuses: nothing may follow a partial record
  assert.equal((await get("/dbs/d/colls/c/docs/b", "p")).status, 404, "a refused write is never seen");
  assert.equal((await get("/dbs/d/colls/c/docs/a", "p")).status, 200, "reads go on");
  const later = await post("/dbs/d/colls/c/docs", { id: "c", pk: "p" }, "p");
  assert.equal(later.status, 500);
  assert.match(later.json.message, /the log refuses every write since an earlier one failed \(cannot write .*: Input\/output error\)/);
  assert.equal((await get("/dbs/d/colls/c/docs/c", "p")).status, 404);
  // A metadata change is refused before it is made.
  const db = await post("/dbs", { id: "d2" });
  assert.equal(db.status, 500);
  assert.match(db.json.message, /The change could not be made durable: the log refuses every write/);
  assert.equal((await get("/dbs/d2")).status, 404);
  assert.equal((await post("/dbs/d/colls", { id: "c2", partitionKey: { paths: ["/pk"] } })).status, 500);
  assert.equal((await get("/dbs/d/colls/c2")).status, 404);

  // After a restart on a good disk: what was acknowledged, nothing else.
  await env.kill();
  const after = await startEmulator(["--data-dir", dir, "--protocol", "http"]);
  t.after(() => after.stop());
  const r = (path, pk) => send(after, "GET", path, pk);
  assert.equal((await r("/dbs/d/colls/c/docs/a", "p")).status, 200);
  assert.equal((await r("/dbs/d/colls/c/docs/b", "p")).status, 404);
  assert.equal((await r("/dbs/d2")).status, 404);
});

test("the disk failing: EIO on fdatasync is answered 500 and later writes are refused", { skip: !LOCAL, timeout: 60000 }, async (t) => {
  const { mode, env } = await withFailingDisk(t);
  const client = newClient(env);
  t.after(() => client.dispose());
  const { database } = await client.databases.create({ id: "d" });
  const { container } = await database.containers.create({ id: "c", partitionKey: { paths: ["/pk"] } });
  await container.items.create({ id: "a", pk: "p" });
  writeFileSync(mode, "eio-fsync");
  await assert.rejects(container.items.create({ id: "b", pk: "p" }), (e) => e.code === 500 && /cannot sync .*wal\.log: Input\/output error/.test(e.message));
  writeFileSync(mode, "");
  await assert.rejects(container.items.create({ id: "c", pk: "p" }), (e) => e.code === 500);
  await assert.rejects(container.items.upsert({ id: "a", pk: "p", v: 2 }), (e) => e.code === 500);
  assert.equal((await container.item("a", "p").read()).resource.v, undefined, "the refused upsert is not seen");
});

test("a read-only data directory stops the start with one line naming the file", { skip: !LOCAL, timeout: 30000 }, (t) => {
  const dir = freshDir(t);
  const mode = join(freshDir(t), "mode");
  writeFileSync(mode, "erofs");
  const r = spawnSync(EMULATOR_BIN, ["--host", "127.0.0.1", "--port", "0", "--protocol", "http", "--data-dir", dir], {
    encoding: "utf8",
    timeout: 20000,
    env: { ...process.env, LD_PRELOAD: FAULTS_LIB, COSMOS_IO_FAULTS_DIR: dir, COSMOS_IO_FAULTS_FILE: mode },
  });
  assert.equal(r.status, 2, r.stderr);
  assert.equal(r.stderr, `cosmos-emulator: cannot open ${dir}/LOCK: Read-only file system\n`);
  assert.deepEqual(readdirSync(dir), []);
});
