// Scale benchmark (bench/run.sh scale): seeding, queries, point reads and memory over containers of
// 10,000 to 1,000,000 items of about 1 KB, on 1 and on 10 physical partitions.
//
// For each size the items are written once as JSON lines (10 files; kept in DATA_DIR and reused
// while the generator is unchanged) and loaded with --seed, which is the first figure: seconds and
// items per second. Then, over HTTP with signed REST requests (no SDK), each request is timed REPS
// times after one first run and the median reported, with its request charge and the time of that
// first run (the first query after the seed, which users see: it may have built an index):
//   filter    SELECT * FROM c WHERE c.city = 'city7'                (1% of the items match)
//   top       SELECT TOP 100 * FROM c ORDER BY c.n
//   top2      SELECT TOP 100 * FROM c ORDER BY c.city, c.n           (with the composite index)
//   orderby   SELECT * FROM c ORDER BY c.n, 100 a page: page 1, and the median of pages 2..PAGES
//   orderby2  the same for SELECT * FROM c ORDER BY c.city, c.n
//   count     SELECT VALUE COUNT(1) FROM c
//   groupby   SELECT c.city, COUNT(1) AS n FROM c GROUP BY c.city
//   groupby10 the same, 10 rows a page (a result over several pages: computed once, issue 41)
//   scan      SELECT VALUE COUNT(1) FROM c WHERE LENGTH(c.filler) > 5000 (reads every document)
//   groupbyscan SELECT c.city, COUNT(1) AS n FROM c WHERE c.n >= 0 GROUP BY c.city (reads documents)
//   point read of one item
// each with the partition key (x-ms-documentdb-partitionkey: ["p7"], 1/1000 of the items) and
// across partitions. A cross-partition query that needs merging (ORDER BY, TOP, aggregates, GROUP
// BY) is refused by the gateway with 400/1004 unless it is scoped; it is sent here with the whole
// ring as its EPK range (x-ms-start-epk "" to x-ms-end-epk "FF"), which the emulator serves in one
// request over every partition. Filter queries are sent with x-ms-documentdb-query-enablecrosspartition.
// A query's time is until its first page with rows (following continuations of empty pages, as an
// SDK would), or for COUNT and GROUP BY until the whole answer; the requests it took are recorded.
// The same queries are then timed through the JavaScript SDK (@azure/cosmos, from tests/sdk/js's
// packages: `bash tests/run.sh` or `npm ci` there installs them), as an application drives it: a
// client per run, the partition key as the query's option, across partitions without one (the SDK
// asks the gateway for the query plan and the partition key ranges, then queries each range; its
// first query pays for those), maxItemCount 100, fetchNext until a page with rows, or fetchAll for
// COUNT and GROUP BY; its time and summed charge beside the REST figures (SDK=0 leaves them out).
// Memory: VmRSS of the seeded emulator minus that of the same emulator started empty, per item;
// and VmRSS after the container is deleted. The seed manifest names the container's indexing
// policy: the default one plus the composite index (/city ascending, /n ascending) the two-path
// ORDER BY needs, so the seed builds it ahead with the others (and the memory figure includes it).
//
// Output: a markdown table (printed, and OUT_DIR/scale.md), the raw figures (OUT_DIR/scale.json,
// and RESULTS, whose previous contents are printed beside each figure).
//
// Environment: EMULATOR (binary), SIZES=10000,100000,1000000, PARTITIONS=1,10, REPS=5, PAGES=10,
// POLICY_BY=replace (above),
// DATA_DIR (default build-bench/scale-data), OUT_DIR (build-bench/bench-logs), RESULTS
// (bench/results/scale.json; SAVE=0 leaves it as it is).
// Only Node's own modules: requests are signed here (docs/protocol.md §2).
import http from "node:http";
import fs from "node:fs";
import os from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import { median, request as signedRequest, rssKb, startEmulator, stop } from "./rest.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(here, "..");
const EMULATOR = process.env.EMULATOR || join(ROOT, "build-bench/emulator/cosmos-emulator");
const SIZES = (process.env.SIZES || "10000,100000,1000000").split(",").map(Number);
const PARTITIONS = (process.env.PARTITIONS || "1,10").split(",").map(Number);
const REPS = Number(process.env.REPS || 5);
const PAGES = Number(process.env.PAGES || 10);
const DATA_DIR = process.env.DATA_DIR || join(ROOT, "build-bench/scale-data");
const OUT_DIR = process.env.OUT_DIR || join(ROOT, "build-bench/bench-logs");
const RESULTS = process.env.RESULTS || join(ROOT, "bench/results/scale.json");
const SAVE = process.env.SAVE !== "0";
const SDK = process.env.SDK !== "0";
const KEY = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";
// @azure/cosmos as tests/sdk/js installed it.
const cosmos = SDK ? createRequire(join(ROOT, "tests/sdk/js/package.json"))("@azure/cosmos") : undefined;
const FILES = 10;
const ITEM_BYTES = 1024;
const GENERATOR = 1; // bump when the data changes: kept data of another version is written again
const DB = "scale";
const COLL = "c";
const PK = "p7";
const CITY = "city7";
// Full scans: a filter no index answers (every document is read), and a GROUP BY whose filter
// makes it read documents rather than count from the index.
const SCAN = "SELECT VALUE COUNT(1) FROM c WHERE LENGTH(c.filler) > 5000";
const GROUP_SCAN = "SELECT c.city, COUNT(1) AS n FROM c WHERE c.n >= 0 GROUP BY c.city";

for (const n of SIZES) {
  if (!Number.isInteger(n) || n < 1000 || n % 1000 !== 0) throw new Error(`SIZES: ${n} is not a multiple of 1000`);
  if (n % 7919 === 0) throw new Error(`SIZES: ${n} must not be a multiple of 7919`);
}

// --- the data ---

// Item i: pk p(i mod 1000); city city(floor(i/7) mod 100), so both a key and a city hold many of
// each other's values; n a permutation of 0..size-1, so ORDER BY c.n is not the file order.
function item(i, size) {
  const base = { id: `i${i}`, pk: `p${i % 1000}`, city: `city${Math.floor(i / 7) % 100}`, n: (i * 7919) % size };
  const head = JSON.stringify({ ...base, filler: "" });
  return JSON.stringify({ ...base, filler: "x".repeat(Math.max(0, ITEM_BYTES - head.length)) });
}

function generate(size) {
  const dir = join(DATA_DIR, `n${size}`);
  const stamp = join(DATA_DIR, `n${size}.complete`); // beside the directory: the seed reads all that is in it
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, "utf8") === String(GENERATOR)) return dir;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(stamp, { force: true });
  fs.mkdirSync(dir, { recursive: true });
  const t0 = Date.now();
  const per = size / FILES;
  for (let f = 0; f < FILES; f++) {
    const fd = fs.openSync(join(dir, `part-${String(f).padStart(2, "0")}.jsonl`), "w");
    let lines = [];
    for (let i = f * per; i < (f + 1) * per; i++) {
      lines.push(item(i, size));
      if (lines.length === 10000) {
        fs.writeSync(fd, lines.join("\n") + "\n");
        lines = [];
      }
    }
    if (lines.length) fs.writeSync(fd, lines.join("\n") + "\n");
    fs.closeSync(fd);
  }
  fs.writeFileSync(stamp, String(GENERATOR));
  console.log(`wrote ${size} items in ${FILES} files in ${((Date.now() - t0) / 1000).toFixed(1)} s (${dir})`);
  return dir;
}

// The container's indexing policy: the default one plus the composite index the two-path ORDER BY
// needs. Named in the seed manifest; POLICY_BY=replace sets it by a container replace after the
// seed instead, for a binary whose seed manifest cannot name a policy (builds before 2026-11-30).
const POLICY = {
  indexingMode: "consistent",
  includedPaths: [{ path: "/*" }],
  excludedPaths: [{ path: '/"_etag"/?' }],
  compositeIndexes: [[{ path: "/city", order: "ascending" }, { path: "/n", order: "ascending" }]],
};
const POLICY_BY_REPLACE = process.env.POLICY_BY === "replace";

function manifest(size, partitions) {
  const file = join(DATA_DIR, `n${size}-p${partitions}${POLICY_BY_REPLACE ? "-replace" : ""}.json`);
  const m = {
    containers: [
      {
        database: DB,
        container: COLL,
        partitionKey: { paths: ["/pk"], kind: "Hash", version: 2 },
        partitionCount: partitions,
        ...(POLICY_BY_REPLACE ? {} : { indexingPolicy: POLICY }),
        data: `n${size}`,
      },
    ],
  };
  fs.writeFileSync(file, JSON.stringify(m, null, 2));
  return file;
}

// --- the emulator ---

const start = (args) => startEmulator(EMULATOR, args);

// CPU time (clock ticks) of a process, and of the whole machine: to say how busy others kept it.
function processTicks(pid) {
  const f = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = f.slice(f.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
}
function machineTicks() {
  // user nice system idle iowait irq softirq steal (guest time is already in user and nice)
  const [user, nice, system, idle, iowait, irq, softirq, steal] = fs
    .readFileSync("/proc/stat", "utf8")
    .split("\n")[0]
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const busy = user + nice + system + irq + softirq;
  return { total: busy + idle + iowait + steal, busy, steal };
}
const TICK_MS = 10; // USER_HZ is 100 on Linux

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// --- requests ---

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

const request = (port, ...rest) => signedRequest(agent, port, ...rest);

const DOCS = `/dbs/${DB}/colls/${COLL}/docs`;
const LINK = `dbs/${DB}/colls/${COLL}`;

function queryPage(port, text, scope, continuation, maxItems) {
  const headers = {
    "content-type": "application/query+json",
    "x-ms-documentdb-isquery": "true",
    "x-ms-max-item-count": String(maxItems),
  };
  if (scope === "pk") headers["x-ms-documentdb-partitionkey"] = JSON.stringify([PK]);
  if (scope === "cross") headers["x-ms-documentdb-query-enablecrosspartition"] = "true";
  if (scope === "ring") Object.assign(headers, { "x-ms-start-epk": "", "x-ms-end-epk": "FF" });
  if (continuation) headers["x-ms-continuation"] = continuation;
  return request(port, "POST", DOCS, "docs", LINK, JSON.stringify({ query: text, parameters: [] }), headers);
}

// Runs a query until its first page with rows (or until the end with `whole`); the time, charge and
// rows of all the requests it took.
async function runQuery(port, text, scope, { whole = false, maxItems = 100 } = {}) {
  let ms = 0;
  let charge = 0;
  let rows = 0;
  let requests = 0;
  let continuation;
  for (;;) {
    const r = await queryPage(port, text, scope, continuation, maxItems);
    requests++;
    ms += r.ms;
    charge += Number(r.headers["x-ms-request-charge"] || 0);
    if (r.status !== 200) return { ms, charge, rows, requests, status: r.status, error: r.body.slice(0, 300) };
    const docs = JSON.parse(r.body).Documents;
    rows += docs.length;
    continuation = r.headers["x-ms-continuation"];
    if (!continuation || (!whole && docs.length > 0)) return { ms, charge, rows, requests, status: 200 };
  }
}

// The same through the SDK: until its first page with rows, or the whole result with `whole`.
async function runSdkQuery(container, text, scope, { whole = false, maxItems = 100 } = {}) {
  const options = { maxItemCount: maxItems };
  if (scope === "pk") options.partitionKey = PK;
  const t0 = performance.now();
  const it = container.items.query(text, options);
  let charge = 0;
  let rows = 0;
  let requests = 0;
  try {
    if (whole) {
      const r = await it.fetchAll();
      charge = r.requestCharge;
      rows = r.resources.length;
      requests = 1;
    } else {
      for (;;) {
        const r = await it.fetchNext();
        requests++;
        charge += r.requestCharge;
        rows += r.resources.length;
        if (rows > 0 || !r.hasMoreResults) break;
      }
    }
  } catch (e) {
    return { ms: performance.now() - t0, charge, rows, requests, status: e.code ?? 0, error: String(e.message).slice(0, 300) };
  }
  return { ms: performance.now() - t0, charge, rows, requests, status: 200 };
}

// The median of REPS timed runs of `run` after one warm-up.
async function measure(run) {
  const first = await run();
  const results = [];
  for (let i = 0; i < REPS; i++) results.push(await run());
  const last = results[results.length - 1];
  return {
    ms: median(results.map((r) => r.ms)),
    firstMs: Math.round(first.ms * 1000) / 1000,
    runs: results.map((r) => Math.round(r.ms * 1000) / 1000),
    charge: Math.round(last.charge * 100) / 100,
    rows: last.rows,
    requests: last.requests,
    status: last.status,
    ...(last.error ? { error: last.error } : {}),
  };
}

// An ORDER BY read 100 at a time: page 1, and pages 2..PAGES.
async function paging(port, scope, text = "SELECT * FROM c ORDER BY c.n") {
  const first = [];
  const later = [];
  const charges = [];
  let status = 200;
  let error;
  for (let rep = 0; rep <= REPS; rep++) {
    let continuation;
    for (let page = 1; page <= PAGES; page++) {
      const r = await queryPage(port, text, scope, continuation, 100);
      if (r.status !== 200) {
        status = r.status;
        error = r.body.slice(0, 300);
        break;
      }
      if (rep > 0) {
        (page === 1 ? first : later).push(r.ms);
        if (rep === REPS) charges.push(Number(r.headers["x-ms-request-charge"] || 0));
      }
      continuation = r.headers["x-ms-continuation"];
      if (!continuation) break;
    }
    if (status !== 200) break;
  }
  const p1 = median(first);
  const pn = median(later);
  return {
    firstMs: p1,
    laterMs: pn,
    ratio: pn / p1,
    pages: PAGES,
    firstCharge: charges[0],
    laterCharge: median(charges.slice(1)),
    status,
    ...(error ? { error } : {}),
  };
}

// --- one size, one partition count ---

async function runOne(size, partitions, baselineKb) {
  generate(size);
  const file = manifest(size, partitions);
  const cpu0 = machineTicks();
  const own0 = process.cpuUsage();
  const e = await start(["--seed", file]);
  const m = e.log().match(/seeded (\d+) items .* in ([\d.]+) s \((\d+) items\/s\)/);
  if (!m || Number(m[1]) !== size) throw new Error(`the seed did not load ${size} items:\n${e.log()}`);
  const run = { size, partitions, seed: { seconds: Number(m[2]), itemsPerSecond: Number(m[3]), startMs: e.startMs } };
  const seedLine = e.log().match(/^cosmos-emulator: seeded .*$/m)[0];
  console.log(`${size} items, ${partitions} partitions: ${seedLine.replace("cosmos-emulator: ", "")}`);
  await sleep(1000);
  const loadedKb = rssKb(e.child.pid);
  run.memory = { baselineKb, loadedKb, bytesPerItem: Math.round(((loadedKb - baselineKb) * 1024) / size) };

  if (POLICY_BY_REPLACE) {
    const replaced = await request(e.port, "PUT", `/dbs/${DB}/colls/${COLL}`, "colls", LINK,
      JSON.stringify({ id: COLL, partitionKey: { paths: ["/pk"], kind: "Hash", version: 2 }, indexingPolicy: POLICY }));
    if (replaced.status !== 200) throw new Error(`the container replace answered ${replaced.status}: ${replaced.body}`);
  }

  // The client's own first request: Node compiles its HTTP client and the signing on first use
  // (about 10 ms, measured against a server of its own). It goes to the health probe, which reads
  // nothing, so that each query's first run below times the emulator's first such query.
  for (let i = 0; i < 3; i++) await request(e.port, "GET", "/_health", "", "", undefined);

  const q = {};
  const queries = [
    ["filter_pk", `SELECT * FROM c WHERE c.city = '${CITY}'`, "pk", {}],
    ["filter_cross", `SELECT * FROM c WHERE c.city = '${CITY}'`, "cross", {}],
    ["top_pk", "SELECT TOP 100 * FROM c ORDER BY c.n", "pk", {}],
    ["top_cross", "SELECT TOP 100 * FROM c ORDER BY c.n", "ring", {}],
    ["top2_pk", "SELECT TOP 100 * FROM c ORDER BY c.city, c.n", "pk", {}],
    ["top2_cross", "SELECT TOP 100 * FROM c ORDER BY c.city, c.n", "ring", {}],
    ["count_pk", "SELECT VALUE COUNT(1) FROM c", "pk", { whole: true }],
    ["count_cross", "SELECT VALUE COUNT(1) FROM c", "ring", { whole: true }],
    ["groupby_pk", "SELECT c.city, COUNT(1) AS n FROM c GROUP BY c.city", "pk", { whole: true }],
    ["groupby_cross", "SELECT c.city, COUNT(1) AS n FROM c GROUP BY c.city", "ring", { whole: true }],
    ["groupby10_pk", "SELECT c.city, COUNT(1) AS n FROM c GROUP BY c.city", "pk", { whole: true, maxItems: 10 }],
    ["groupby10_cross", "SELECT c.city, COUNT(1) AS n FROM c GROUP BY c.city", "ring", { whole: true, maxItems: 10 }],
    ["scan_pk", SCAN, "pk", { whole: true }],
    ["scan_cross", SCAN, "ring", { whole: true }],
    ["groupbyscan_pk", GROUP_SCAN, "pk", { whole: true }],
    ["groupbyscan_cross", GROUP_SCAN, "ring", { whole: true }],
  ];
  for (const [name, text, scope, opts] of queries) {
    q[name] = await measure(() => runQuery(e.port, text, scope, opts));
    console.log(`  ${name}: first ${q[name].firstMs.toFixed(2)} ms, median ${q[name].ms.toFixed(2)} ms, ${q[name].charge} RU, ${q[name].rows} rows, ${q[name].requests} requests` +
      (q[name].status !== 200 ? ` (status ${q[name].status}: ${q[name].error})` : ""));
  }
  if (SDK) {
    const client = new cosmos.CosmosClient({ endpoint: `http://127.0.0.1:${e.port}/`, key: KEY, connectionPolicy: { enableEndpointDiscovery: false } });
    const container = client.database(DB).container(COLL);
    run.sdk = {};
    for (const [name, text, scope, opts] of queries) {
      const s = (run.sdk[name] = await measure(() => runSdkQuery(container, text, scope === "pk" ? "pk" : "cross", opts)));
      console.log(`  sdk ${name}: first ${s.firstMs.toFixed(2)} ms, median ${s.ms.toFixed(2)} ms, ${s.charge} RU, ${s.rows} rows` +
        (s.status !== 200 ? ` (status ${s.status}: ${s.error})` : ""));
    }
    client.dispose();
  }
  const id = `i${Math.floor(size / 2) + 7}`; // in partition key p7 only when size/2 is a multiple of 1000
  const pkOf = `p${(Math.floor(size / 2) + 7) % 1000}`;
  q.point_read = await measure(async () => {
    const r = await request(e.port, "GET", `${DOCS}/${id}`, "docs", `${LINK}/docs/${id}`, undefined, {
      "x-ms-documentdb-partitionkey": JSON.stringify([pkOf]),
    });
    if (r.status !== 200) throw new Error(`point read answered ${r.status}: ${r.body}`);
    return { ms: r.ms, charge: Number(r.headers["x-ms-request-charge"]), rows: 1, requests: 1, status: r.status };
  });
  console.log(`  point_read: ${q.point_read.ms.toFixed(3)} ms, ${q.point_read.charge} RU`);
  run.queries = q;
  const two = "SELECT * FROM c ORDER BY c.city, c.n";
  run.paging = { pk: await paging(e.port, "pk"), cross: await paging(e.port, "ring") };
  run.paging2 = { pk: await paging(e.port, "pk", two), cross: await paging(e.port, "ring", two) };
  for (const [scope, p] of Object.entries(run.paging2))
    console.log(`  orderby2 pages ${scope}: page 1 ${p.firstMs.toFixed(2)} ms, pages 2..${PAGES} ${p.laterMs.toFixed(2)} ms (ratio ${p.ratio.toFixed(3)})` +
      (p.status !== 200 ? ` (status ${p.status}: ${p.error})` : ""));
  for (const [scope, p] of Object.entries(run.paging))
    console.log(`  orderby pages ${scope}: page 1 ${p.firstMs.toFixed(2)} ms, pages 2..${PAGES} ${p.laterMs.toFixed(2)} ms (ratio ${p.ratio.toFixed(3)})` +
      (p.status !== 200 ? ` (status ${p.status}: ${p.error})` : ""));

  const del = await request(e.port, "DELETE", `/dbs/${DB}/colls/${COLL}`, "colls", LINK);
  if (del.status !== 204) throw new Error(`container delete answered ${del.status}`);
  await sleep(1500);
  run.memory.afterDeleteKb = rssKb(e.child.pid);
  const emulatorMs = processTicks(e.child.pid) * TICK_MS;
  await stop(e);
  const cpu1 = machineTicks();
  const own = process.cpuUsage(own0);
  const busyMs = (cpu1.busy - cpu0.busy) * TICK_MS;
  const totalMs = (cpu1.total - cpu0.total) * TICK_MS;
  const othersMs = Math.max(0, busyMs - emulatorMs - (own.user + own.system) / 1000);
  run.machine = {
    othersCpuShare: Math.round((1000 * othersMs) / totalMs) / 1000,
    stealShare: Math.round((1000 * (cpu1.steal - cpu0.steal) * TICK_MS) / totalMs) / 1000,
    loadavg: os.loadavg().map((x) => Math.round(x * 100) / 100),
  };
  console.log(`  memory: ${run.memory.bytesPerItem} bytes per item; ${run.memory.afterDeleteKb} kB after the delete ` +
    `(${baselineKb} kB empty); others used ${(100 * run.machine.othersCpuShare).toFixed(0)}% of the CPU`);
  return run;
}

// --- the table ---

function fmtMs(v) {
  if (v === undefined || v === null || Number.isNaN(v)) return "n/a";  // (NaN is saved as null)
  return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v >= 1 ? v.toFixed(2) : v.toFixed(3);
}

function rowsOf(run) {
  if (!run) return {};
  const q = run.queries;
  const cell = (x) =>
    !x
      ? undefined
      : x.status !== 200
        ? `${x.status} after ${fmtMs(x.ms)} ms`
        : x.firstMs !== undefined
          ? `${fmtMs(x.firstMs)} / ${fmtMs(x.ms)} ms, ${x.charge} RU`
          : `${fmtMs(x.ms)} ms, ${x.charge} RU`;
  const both = (name) => {
    const rest = cell(q[name]);
    const sdk = run.sdk?.[name];
    return sdk ? `${rest}; SDK ${cell(sdk)}` : rest;
  };
  const pages = (p) =>
    !p
      ? undefined
      : p.status !== 200
      ? `${p.status}`
      : p.laterMs === null || Number.isNaN(p.laterMs)
        ? `${fmtMs(p.firstMs)} ms (one page)`
        : `${fmtMs(p.firstMs)} / ${fmtMs(p.laterMs)} ms (${p.ratio.toFixed(2)})`;
  return {
    "seeding: seconds (items/s)": `${run.seed.seconds.toFixed(2)} s (${run.seed.itemsPerSecond})`,
    "filter `c.city = 'city7'`, with pk": both("filter_pk"),
    "filter `c.city = 'city7'`, across partitions": both("filter_cross"),
    "`TOP 100 ... ORDER BY c.n`, with pk": both("top_pk"),
    "`TOP 100 ... ORDER BY c.n`, across partitions": both("top_cross"),
    "`ORDER BY c.n` page 1 / pages 2..k (ratio), with pk": pages(run.paging.pk),
    "`ORDER BY c.n` page 1 / pages 2..k (ratio), across partitions": pages(run.paging.cross),
    "`TOP 100 ... ORDER BY c.city, c.n`, with pk": both("top2_pk"),
    "`TOP 100 ... ORDER BY c.city, c.n`, across partitions": both("top2_cross"),
    "`ORDER BY c.city, c.n` page 1 / pages 2..k (ratio), with pk": pages(run.paging2?.pk),
    "`ORDER BY c.city, c.n` page 1 / pages 2..k (ratio), across partitions": pages(run.paging2?.cross),
    "`COUNT(1)`, with pk": both("count_pk"),
    "`COUNT(1)`, across partitions": both("count_cross"),
    "`GROUP BY c.city`, with pk": both("groupby_pk"),
    "`GROUP BY c.city`, across partitions": both("groupby_cross"),
    "`GROUP BY c.city` 10 a page, with pk": both("groupby10_pk"),
    "`GROUP BY c.city` 10 a page, across partitions": both("groupby10_cross"),
    "full scan `COUNT(1) ... WHERE LENGTH(c.filler) > 5000`, with pk": both("scan_pk"),
    "full scan `COUNT(1) ... WHERE LENGTH(c.filler) > 5000`, across partitions": both("scan_cross"),
    "`GROUP BY c.city` reading documents (`WHERE c.n >= 0`), with pk": both("groupbyscan_pk"),
    "`GROUP BY c.city` reading documents (`WHERE c.n >= 0`), across partitions": both("groupbyscan_cross"),
    "point read": cell(q.point_read),
    "memory per item (bytes)": String(run.memory.bytesPerItem),
    "RSS loaded / after delete / empty (MB)": `${(run.memory.loadedKb / 1024).toFixed(0)} / ${(run.memory.afterDeleteKb / 1024).toFixed(0)} / ${(run.memory.baselineKb / 1024).toFixed(0)}`,
  };
}

function table(runs, previous) {
  let out = "";
  for (const partitions of PARTITIONS) {
    const cols = SIZES.map((size) => runs.find((r) => r.size === size && r.partitions === partitions));
    const prevCols = SIZES.map((size) => previous?.runs?.find((r) => r.size === size && r.partitions === partitions));
    out += `\n### ${partitions} physical partition${partitions === 1 ? "" : "s"}\n\n`;
    out += `| measurement | ${SIZES.map((s) => s.toLocaleString("en-US") + " items").join(" | ")} |\n`;
    out += `|---|${SIZES.map(() => "---").join("|")}|\n`;
    const rows = cols.map(rowsOf);
    const prevRows = prevCols.map(rowsOf);
    for (const label of Object.keys(rows.find((r) => Object.keys(r).length) || {})) {
      out += `| ${label} | ${rows
        .map((r, i) => {
          const now = r[label] ?? "";
          const was = prevRows[i][label];
          return was !== undefined ? `${now} (was ${was})` : now;
        })
        .join(" | ")} |\n`;
    }
  }
  return out;
}

// --- main ---

fs.mkdirSync(OUT_DIR, { recursive: true });
fs.mkdirSync(DATA_DIR, { recursive: true });
let previous;
try {
  previous = JSON.parse(fs.readFileSync(RESULTS, "utf8"));
} catch {
  previous = undefined;
}
const began = new Date();
const load0 = os.loadavg();
const empty = await start([]);
await sleep(1000);
const baselineKb = rssKb(empty.child.pid);
await stop(empty);
const runs = [];
for (const size of SIZES) {
  for (const partitions of PARTITIONS) runs.push(await runOne(size, partitions, baselineKb));
}
agent.destroy();
const result = {
  date: began.toISOString(),
  machine: { cores: os.cpus().length, cpu: os.cpus()[0]?.model, memoryGb: Math.round(os.totalmem() / 2 ** 30), loadavgAtStart: load0.map((x) => Math.round(x * 100) / 100) },
  settings: { reps: REPS, pages: PAGES, itemBytes: ITEM_BYTES, files: FILES },
  runs,
};
const others = runs.map((r) => r.machine.othersCpuShare);
const othersText = runs.map((r) => `${(100 * r.machine.othersCpuShare).toFixed(0)}% (${r.size.toLocaleString("en-US")}, ${r.partitions}p)`).join(", ");
let md = `Scale benchmark, ${began.toISOString().slice(0, 10)}: ${result.machine.cores} cores (${result.machine.cpu}), ` +
  `load average ${load0.map((x) => x.toFixed(2)).join(" ")} at the start; other processes used ` +
  `${othersText} of the CPU during the runs. ` +
  `"a / b ms": REST, then "SDK" the JavaScript SDK: the first run (the first such query after the seed) / the median of the ${REPS} runs after it; ` +
  `"ms" is the time of the request(s), "RU" their charge; pages 2..k are pages 2 to ${PAGES}.` +
  (previous ? ` "was": the run of ${previous.date.slice(0, 10)}.` : "") + "\n";
if (Math.max(...others) > 0.1)
  md += "\nWARNING: other processes used more than 10% of the CPU: the times are likely high and noisy.\n";
md += table(runs, previous);
console.log("\n" + md);
fs.writeFileSync(join(OUT_DIR, "scale.md"), md);
fs.writeFileSync(join(OUT_DIR, "scale.json"), JSON.stringify(result, null, 2) + "\n");
if (SAVE) {
  fs.mkdirSync(dirname(RESULTS), { recursive: true });
  fs.writeFileSync(RESULTS, JSON.stringify(result, null, 2) + "\n");
  console.log(`raw figures: ${join(OUT_DIR, "scale.json")} and ${RESULTS}`);
}
