// Vector search benchmark (run on demand: bench/run.sh vector). Loads VECTORS items (default
// 100,000), each with an embedding of DIMS numbers (default 1,536, float32-like values with six
// decimals), into one physical partition with --seed, then times
//   SELECT TOP K c.id, VectorDistance(c.embedding, @q) AS score FROM c ORDER BY VectorDistance(c.embedding, @q)
// sent as the SDKs send it to each partition key range (x-ms-documentdb-partitionkeyrangeid), REPS
// times after the first run (the first builds the partition's vector index and is reported on its
// own), for a few query vectors, plain and with a filter (WHERE STARTSWITH(c.id, 'v1'), which keeps
// one item in nine). The same runs against a second emulator started with
// --query-indexes off (every distance computed exactly, no vector index) give the ratio, measured
// side by side, and check that both return the same rows. Memory: resident bytes per item after
// the seed, and what the vector index adds.
//
// Environment: EMULATOR (default build-bench/emulator/cosmos-emulator), VECTORS, DIMS, K, REPS (9),
// QUERIES (3 query vectors), DATA_DIR (build-bench/vector-data), OUT_DIR (build-bench/bench-logs).
import fs from "node:fs";
import http from "node:http";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { median, request as signedRequest, rssKb, startEmulator, stop } from "./rest.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(here, "..");
const EMULATOR = process.env.EMULATOR || join(ROOT, "build-bench/emulator/cosmos-emulator");
const VECTORS = Number(process.env.VECTORS || 100000);
const DIMS = Number(process.env.DIMS || 1536);
const K = Number(process.env.K || 10);
const REPS = Number(process.env.REPS || 9);
const QUERIES = Number(process.env.QUERIES || 3);
const DATA_DIR = process.env.DATA_DIR || join(ROOT, "build-bench/vector-data");
const OUT_DIR = process.env.OUT_DIR || join(ROOT, "build-bench/bench-logs");
const FILES = 10;
const GENERATOR = 1;  // bump when the data changes
const DB = "vec";
const COLL = "c";

// A deterministic generator (mulberry32).
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
// Numbers like an embedding model's: normally distributed around 0 (scale 1/sqrt(DIMS)), six decimals.
function vectorOf(random) {
  const v = new Array(DIMS);
  for (let i = 0; i < DIMS; i++) {
    const u = Math.max(random(), 1e-12);
    const gauss = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
    v[i] = Math.round((gauss / Math.sqrt(DIMS)) * 1e6) / 1e6;
  }
  return v;
}

function generate() {
  const name = `n${VECTORS}-d${DIMS}`;
  const dir = join(DATA_DIR, name);
  const stamp = join(DATA_DIR, `${name}.complete`);
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, "utf8") === String(GENERATOR)) return dir;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const t0 = Date.now();
  const random = generator(1);
  const per = Math.ceil(VECTORS / FILES);
  for (let f = 0; f < FILES; f++) {
    const fd = fs.openSync(join(dir, `part-${String(f).padStart(2, "0")}.jsonl`), "w");
    let lines = [];
    for (let i = f * per; i < Math.min(VECTORS, (f + 1) * per); i++) {
      lines.push(JSON.stringify({ id: `v${i}`, pk: `p${i % 100}`, embedding: vectorOf(random) }));
      if (lines.length === 1000) {
        fs.writeSync(fd, lines.join("\n") + "\n");
        lines = [];
      }
    }
    if (lines.length) fs.writeSync(fd, lines.join("\n") + "\n");
    fs.closeSync(fd);
  }
  fs.writeFileSync(stamp, String(GENERATOR));
  console.log(`wrote ${VECTORS} vectors of ${DIMS} dimensions in ${((Date.now() - t0) / 1000).toFixed(1)} s (${dir})`);
  return dir;
}

function manifest(dir) {
  const file = join(DATA_DIR, `n${VECTORS}-d${DIMS}.manifest.json`);
  fs.writeFileSync(
    file,
    JSON.stringify({
      containers: [
        { database: DB, container: COLL, partitionKey: { paths: ["/pk"], kind: "Hash", version: 2 }, partitionCount: 1, data: dir },
      ],
    }),
  );
  return file;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The plain search, and the same with a filter that keeps about one item in nine (an index lookup
// on the id's prefix finds 11,111 of 100,000).
const FILTERS = { plain: "", filtered: "WHERE STARTSWITH(c.id, 'v1') " };

async function search(port, q, filter = "") {
  const text = `SELECT TOP ${K} c.id, VectorDistance(c.embedding, @q) AS score FROM c ${filter}ORDER BY VectorDistance(c.embedding, @q)`;
  const r = await signedRequest(agent, port, "POST", `/dbs/${DB}/colls/${COLL}/docs`, "docs", `dbs/${DB}/colls/${COLL}`,
    JSON.stringify({ query: text, parameters: [{ name: "@q", value: q }] }), {
      "content-type": "application/query+json",
      "x-ms-documentdb-isquery": "true",
      "x-ms-documentdb-query-enablecrosspartition": "true",
      "x-ms-documentdb-partitionkeyrangeid": "0",
      "x-ms-max-item-count": "100",
    });
  if (r.status !== 200) throw new Error(`the search answered ${r.status}: ${r.body.slice(0, 300)}`);
  return { ms: r.ms, charge: Number(r.headers["x-ms-request-charge"]), rows: JSON.parse(r.body).Documents };
}

async function main() {
  const dir = generate();
  const file = manifest(dir);
  const random = generator(99);
  const queries = Array.from({ length: QUERIES }, () => vectorOf(random));
  const results = {};
  const emulators = {};
  for (const [name, args] of [["index", []], ["exact", ["--query-indexes", "off"]]]) {
    const empty = await startEmulator(EMULATOR, args);
    await sleep(500);
    const baseKb = rssKb(empty.child.pid);
    await stop(empty);
    const e = await startEmulator(EMULATOR, ["--seed", file, ...args]);
    const seedLine = (e.log().match(/^cosmos-emulator: seeded .*$/m) || [""])[0];
    await sleep(1000);
    const loadedKb = rssKb(e.child.pid);
    const first = await search(e.port, queries[0]);
    await sleep(500);
    const indexedKb = rssKb(e.child.pid);
    emulators[name] = e;
    results[name] = {
      seed: seedLine.replace("cosmos-emulator: ", ""),
      bytesPerItem: Math.round(((loadedKb - baseKb) * 1024) / VECTORS),
      indexBytesPerItem: Math.round(((indexedKb - loadedKb) * 1024) / VECTORS),
      firstMs: first.ms,
      firstCharge: first.charge,
    };
    console.log(`${name}: ${results[name].seed}; ${results[name].bytesPerItem} bytes per item; first search ${first.ms.toFixed(1)} ms ` +
      `(+${results[name].indexBytesPerItem} bytes per item after it), ${first.charge} RU`);
  }
  // Side by side: each round runs every query on both, in turn.
  const runs = {};
  for (const f of Object.keys(FILTERS)) runs[f] = { index: [], exact: [], charge: {} };
  for (let rep = 0; rep < REPS; rep++) {
    for (const [qi, q] of queries.entries()) {
      for (const [f, filter] of Object.entries(FILTERS)) {
        const a = await search(emulators.index.port, q, filter);
        const b = await search(emulators.exact.port, q, filter);
        runs[f].index.push(a.ms);
        runs[f].exact.push(b.ms);
        runs[f].charge = { index: a.charge, exact: b.charge };
        if (JSON.stringify(a.rows) !== JSON.stringify(b.rows))
          throw new Error(`query ${qi} (${f}): the two emulators disagree:\n${JSON.stringify(a.rows)}\n${JSON.stringify(b.rows)}`);
      }
    }
  }
  for (const e of Object.values(emulators)) await stop(e);
  const summary = { vectors: VECTORS, dims: DIMS, k: K, results, searches: {} };
  for (const [f, r] of Object.entries(runs)) {
    const s = { indexMs: median(r.index), exactMs: median(r.exact), charge: r.charge, runs: r };
    s.ratio = s.exactMs / s.indexMs;
    summary.searches[f] = s;
    console.log(`TOP ${K} of ${VECTORS.toLocaleString("en-US")} vectors of ${DIMS} dimensions, ${f}: median ${s.indexMs.toFixed(2)} ms ` +
      `with the vector index (${r.charge.index} RU), ${s.exactMs.toFixed(1)} ms computing every distance ` +
      `(${r.charge.exact} RU); ${s.ratio.toFixed(1)}x; same rows every time`);
  }
  fs.mkdirSync(OUT_DIR, { recursive: true });
  fs.writeFileSync(join(OUT_DIR, "vector.json"), JSON.stringify(summary, null, 2));
}

await main();
