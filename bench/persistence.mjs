// Persistence benchmark (bench/run.sh persistence): the cost of keeping data on disk.
//
// 1. Create throughput: CONNS keep-alive clients create 1 KB items for SECONDS, against the
//    emulator in memory, with --data-dir --durability fsync and with --durability process, in
//    ROUNDS rounds alternating the three; prints each median and its ratio to in-memory.
// 2. Start-up with ITEMS items on disk: fills a container, kills the emulator with SIGKILL and
//    restarts it (recovery replays the log), stops it cleanly (a snapshot) and restarts it
//    STARTS times; prints the medians of process start to "Started" and of the recovery itself.
//
// Environment: ONLY=throughput|startup, EMULATOR (binary), BENCH_SECONDS=5, ROUNDS=3, CONNS=32, ITEMS=100000, STARTS=3.
// Only Node's own modules: requests are signed here (docs/protocol.md §2).
import { spawn } from "node:child_process";
import http from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median, request as signedRequest } from "./rest.mjs";

const EMULATOR = process.env.EMULATOR || new URL("../build/emulator/cosmos-emulator", import.meta.url).pathname;
const SECONDS = Number(process.env.BENCH_SECONDS || 5);
const ROUNDS = Number(process.env.ROUNDS || 3);
const CONNS = Number(process.env.CONNS || 32);
const ITEMS = Number(process.env.ITEMS || 100000);
const STARTS = Number(process.env.STARTS || 3);

function start(args) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(EMULATOR, ["--host", "127.0.0.1", "--port", "0", "--protocol", "http", ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    const onData = (d) => {
      out += d;
      if (!/^Started\r?$/m.test(out)) return;
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      const port = Number(out.match(/Now listening on: http:\/\/[^:]+:(\d+)/)[1]);
      const rec = out.match(/in ([\d.]+) ms$/m);
      resolve({ child, port, startMs: ms, recoveryMs: rec ? Number(rec[1]) : 0, log: out });
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("exit", (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

function stop(e, signal = "SIGTERM") {
  return new Promise((resolve) => {
    if (e.child.exitCode !== null) return resolve();
    e.child.removeAllListeners("exit");
    e.child.once("exit", resolve);
    e.child.kill(signal);
  });
}

// The status of a signed request with a JSON body.
async function request(agent, port, verb, path, type, link, body, headers = {}) {
  const r = await signedRequest(agent, port, verb, path, type, link, body, { "content-type": "application/json", ...headers });
  return r.status;
}

async function setup(port) {
  const agent = new http.Agent({ keepAlive: true });
  if ((await request(agent, port, "POST", "/dbs", "dbs", "", JSON.stringify({ id: "b" }))) !== 201) throw new Error("db");
  const coll = JSON.stringify({ id: "c", partitionKey: { paths: ["/pk"] } });
  if ((await request(agent, port, "POST", "/dbs/b/colls", "colls", "dbs/b", coll, { "x-ms-offer-throughput": "12000" })) !== 201)
    throw new Error("container");
  agent.destroy();
}

const PAD = "x".repeat(900);
// Creates items from `first` on with CONNS clients until `until()` says stop; returns how many.
async function createItems(port, first, until) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNS });
  let next = first;
  let done = 0;
  async function client() {
    while (!until(done)) {
      const n = next++;
      const pk = `p${n % 1000}`;
      const status = await request(
        agent,
        port,
        "POST",
        "/dbs/b/colls/c/docs",
        "docs",
        "dbs/b/colls/c",
        JSON.stringify({ id: `i${n}`, pk, n, pad: PAD }),
        { "x-ms-documentdb-partitionkey": JSON.stringify([pk]) },
      );
      if (status !== 201) throw new Error(`create answered ${status}`);
      done++;
    }
  }
  await Promise.all(Array.from({ length: CONNS }, client));
  agent.destroy();
  return done;
}

async function throughput() {
  const modes = [
    ["in memory", () => []],
    ["fsync", (dir) => ["--data-dir", dir, "--durability", "fsync"]],
    ["process", (dir) => ["--data-dir", dir, "--durability", "process"]],
  ];
  const rps = new Map(modes.map(([m]) => [m, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const [mode, args] of modes) {
      const dir = mkdtempSync(join(tmpdir(), "bench-persist-"));
      const e = await start(args(dir));
      await setup(e.port);
      await createItems(e.port, 0, (n) => n >= 2000); // warm-up
      const t0 = process.hrtime.bigint();
      const deadline = Date.now() + SECONDS * 1000;
      const n = await createItems(e.port, 1e7, () => Date.now() >= deadline);
      const secs = Number(process.hrtime.bigint() - t0) / 1e9;
      rps.get(mode).push(n / secs);
      await stop(e, "SIGKILL");
      rmSync(dir, { recursive: true, force: true });
      console.log(`round ${r + 1} ${mode}: ${(n / secs).toFixed(1)} creates/s`);
    }
  }
  const base = median(rps.get("in memory"));
  for (const [mode] of modes) {
    const m = median(rps.get(mode));
    console.log(`creates/s ${mode}: median ${m.toFixed(1)} (ratio to in memory ${(m / base).toFixed(3)})`);
  }
}

async function startup() {
  const dir = mkdtempSync(join(tmpdir(), "bench-persist-"));
  const args = ["--data-dir", dir, "--durability", "process"];
  let e = await start(args);
  await setup(e.port);
  const t0 = Date.now();
  await createItems(e.port, 0, (n) => n >= ITEMS);
  console.log(`filled ${ITEMS} items of about 1 KB in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  await stop(e, "SIGKILL");
  // After kill -9: the snapshot the last checkpoint wrote (the log passed 64 MiB while filling)
  // and the log after it. Killed again at once each time, so that every start recovers the same.
  const afterKill = [];
  for (let i = 0; i < STARTS; i++) {
    e = await start(args);
    await stop(e, "SIGKILL");
    const m = e.log.match(/ from (\d+) snapshot and (\d+) log records /);
    afterKill.push([e.startMs, e.recoveryMs, `${m[1]} snapshot and ${m[2]} log records`]);
  }
  e = await start(args);
  await stop(e, "SIGTERM"); // a clean stop writes a snapshot
  const fromSnapshot = [];
  for (let i = 0; i < STARTS; i++) {
    e = await start(args);
    fromSnapshot.push([e.startMs, e.recoveryMs, "the snapshot alone"]);
    await stop(e, "SIGKILL");
  }
  rmSync(dir, { recursive: true, force: true });
  const report = (what, xs) =>
    console.log(
      `start-up with ${ITEMS} items, ${what}: to "Started" median ${median(xs.map((x) => x[0])).toFixed(1)} ms, ` +
        `recovery (reading and replaying) median ${median(xs.map((x) => x[1])).toFixed(1)} ms; ${xs.length} starts, ` +
        `from ${[...new Set(xs.map((x) => x[2]))].join("; ")}`,
    );
  report("after kill -9", afterKill);
  report("after a clean stop", fromSnapshot);
}

const only = process.env.ONLY || "";
if (only !== "startup") await throughput();
if (only !== "throughput") await startup();
