// Indexes built in the background (issue 41; docs/indexing.md, "Built ahead"): what they cost
// ordinary writes, and what the first queries cost after them.
//
// 1. Creates ITEMS items of about 1 KB by signed REST creates (CONCURRENCY in flight, no SDK) into
//    a new container, and reports creates per second over the whole load and over its last tenth
//    (when every index is kept by every write).
// 2. At once after the last create, the first run of each query and the median of REPS later ones:
//    eq   SELECT * FROM c WHERE c.city = 'city7'       scoped to partition key p7
//    top  SELECT TOP 100 * FROM c ORDER BY c.n          (ring scope, one request)
// 3. Replaces the indexing policy with the default plus the composite (/city ASC, /n ASC), reads
//    x-ms-documentdb-collection-index-transformation-progress until 100 (the time it took and the
//    values read), then the first and later runs of
//    top2 SELECT TOP 100 * FROM c ORDER BY c.city, c.n
//    With WAIT=0 the first top2 runs right after the replace instead (it builds the index itself).
//
// Environment: EMULATOR (default build/emulator/cosmos-emulator), ITEMS=100000, CONCURRENCY=32,
// REPS=5, WAIT=1, BATCH=0 (1: the creates go in transactional batches of 100). Run it against two builds to compare (EMULATOR=/path/to/other/cosmos-emulator).
import http from "node:http";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { median, request as signedRequest, startEmulator, stop } from "./rest.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const EMULATOR = process.env.EMULATOR || join(resolve(here, ".."), "build/emulator/cosmos-emulator");
const ITEMS = Number(process.env.ITEMS || 100000);
const CONCURRENCY = Number(process.env.CONCURRENCY || 32);
const REPS = Number(process.env.REPS || 5);
const WAIT = process.env.WAIT !== "0";
const BATCH = process.env.BATCH === "1";
const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
const DB = "bench";
const COLL = "c";
const LINK = `dbs/${DB}/colls/${COLL}`;
const DOCS = `/${LINK}/docs`;
const PAD = "x".repeat(900);

const item = (i) => ({ id: `i${i}`, pk: `p${i % 1000}`, city: `city${i % 100}`, n: (i * 7919) % ITEMS, pad: PAD });

async function main() {
  const e = await startEmulator(EMULATOR, []);
  const req = (...rest) => signedRequest(agent, e.port, ...rest);
  try {
    let r = await req("POST", "/dbs", "dbs", "", JSON.stringify({ id: DB }));
    if (r.status !== 201) throw new Error(`database: ${r.status} ${r.body}`);
    r = await req("POST", `/dbs/${DB}/colls`, "colls", `dbs/${DB}`, JSON.stringify({ id: COLL, partitionKey: { paths: ["/pk"] } }));
    if (r.status !== 201) throw new Error(`container: ${r.status} ${r.body}`);

    let next = 0;
    const marks = [];
    const t0 = process.hrtime.bigint();
    // BATCH=1: transactional batches of the 100 items of one partition key (1,000 keys), so that
    // the store's work is a larger share of each item's time than with one request per item.
    const batches = async () => {
      const keys = 1000;
      for (let k; (k = next++) < keys; ) {
        const ops = [];
        for (let i = k; i < ITEMS; i += keys) ops.push({ operationType: "Create", resourceBody: item(i) });
        const w = await req("POST", DOCS, "docs", LINK, JSON.stringify(ops), {
          "content-type": "application/json",
          "x-ms-cosmos-is-batch-request": "True",
          "x-ms-cosmos-batch-atomic": "True",
          "x-ms-documentdb-partitionkey": JSON.stringify([`p${k}`]),
        });
        if (w.status !== 200) throw new Error(`batch ${k}: ${w.status} ${w.body.slice(0, 200)}`);
        if (k % (keys / 10) === 0) marks.push([(k / keys) * ITEMS, Number(process.hrtime.bigint() - t0) / 1e9]);
      }
    };
    const worker = async () => {
      if (BATCH) return batches();
      for (let i; (i = next++) < ITEMS; ) {
        const d = item(i);
        const w = await req("POST", DOCS, "docs", LINK, JSON.stringify(d), {
          "content-type": "application/json",
          "x-ms-documentdb-partitionkey": JSON.stringify([d.pk]),
        });
        if (w.status !== 201) throw new Error(`create ${i}: ${w.status} ${w.body.slice(0, 200)}`);
        if (i % (ITEMS / 10) === 0) marks.push([i, Number(process.hrtime.bigint() - t0) / 1e9]);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    marks.sort((a, b) => a[0] - b[0]);
    const ninth = marks.find((m) => m[0] === (ITEMS / 10) * 9);
    const lastTenth = ninth ? (ITEMS / 10) / (seconds - ninth[1]) : NaN;
    console.log(`creates${BATCH ? " (batches of 100)" : ""}: ${ITEMS} in ${seconds.toFixed(2)} s, ${Math.round(ITEMS / seconds)}/s; last tenth ${Math.round(lastTenth)}/s`);

    const query = (text, headers) =>
      req("POST", DOCS, "docs", LINK, JSON.stringify({ query: text, parameters: [] }), {
        "content-type": "application/query+json",
        "x-ms-documentdb-isquery": "true",
        "x-ms-max-item-count": "100",
        ...headers,
      });
    const ring = { "x-ms-start-epk": "", "x-ms-end-epk": "FF" };
    const timed = async (name, text, headers) => {
      const first = await query(text, headers);
      if (first.status !== 200) throw new Error(`${name}: ${first.status} ${first.body.slice(0, 300)}`);
      const later = [];
      for (let k = 0; k < REPS; k++) later.push((await query(text, headers)).ms);
      console.log(`${name}: first ${first.ms.toFixed(2)} ms, later median ${median(later).toFixed(2)} ms, ${JSON.parse(first.body).Documents.length} rows`);
    };
    await timed("eq (key-scoped)", "SELECT * FROM c WHERE c.city = 'city7'", { "x-ms-documentdb-partitionkey": JSON.stringify(["p7"]) });
    await timed("top (ORDER BY c.n)", "SELECT TOP 100 * FROM c ORDER BY c.n", ring);

    const policy = {
      indexingMode: "consistent",
      includedPaths: [{ path: "/*" }],
      compositeIndexes: [[{ path: "/city", order: "ascending" }, { path: "/n", order: "ascending" }]],
    };
    const t1 = process.hrtime.bigint();
    r = await req("PUT", `/${LINK}`, "colls", LINK, JSON.stringify({ id: COLL, partitionKey: { paths: ["/pk"] }, indexingPolicy: policy }));
    if (r.status !== 200) throw new Error(`replace: ${r.status} ${r.body}`);
    if (WAIT) {
      const seen = [];
      for (;;) {
        const g = await req("GET", `/${LINK}`, "colls", LINK, undefined, { "x-ms-documentdb-populatequotainfo": "true" });
        const v = g.headers["x-ms-documentdb-collection-index-transformation-progress"];
        if (seen[seen.length - 1] !== v) seen.push(v);
        if (v === "100") break;
        await new Promise((ok) => setTimeout(ok, 1));
      }
      console.log(`transformation: 100 after ${(Number(process.hrtime.bigint() - t1) / 1e6).toFixed(1)} ms; values read ${seen.join(",")}`);
    }
    await timed("top2 (ORDER BY c.city, c.n)", "SELECT TOP 100 * FROM c ORDER BY c.city, c.n", ring);
  } finally {
    await stop(e);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
