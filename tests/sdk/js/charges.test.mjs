// Request charges through @azure/cosmos, checked EXACTLY against the model of docs/request-units.md
// (emulator/charge/charge.cpp): point operations on items of 0.25, 1, 4, 10, 64 and 100 KB
// under three indexing policies (default, indexingMode none, the padding excluded), a minimal
// {id,name} item, and queries on 100 items in 1 and in 4 physical partitions. The expected charge is
// computed here from the facts the model names: the size of the stored item (the exact bytes the
// server returns, read with a raw GET) and its index terms T (counted here under the container's
// policy); for queries, the documents each page loads or scans.
//
// The test prints a table "operation | item size | emulator RU | model RU | documented figure";
// with WRITE_CHARGE_TABLE=1 it also writes it to docs/charges-table.md.
import { describe, it, before } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { LOCAL, docPath, pkHeader, rawRequest, uid, useEmulatorWithDatabase } from "./harness.mjs";

let db;
let dbId;
const ctx = useEmulatorWithDatabase((d) => ({ db, dbId } = d));

// ---------------------------------------------------------------------------------------------
// The model, term by term in the order charge.cpp evaluates it (so the doubles round alike)

const round2 = (x) => Math.round(x * 100) / 100;
const writeRU = (kb, terms) => 4.6 + 0.6 * kb + 0.38 * terms;
const model = {
  read: (kb) => round2(Math.max(1, 1 + 0.1 * (kb - 1))),
  create: (kb, terms) => round2(writeRU(kb, terms)),
  replace: (kb, terms) => round2(1.85 * writeRU(kb, terms)),
  delete: (kb, terms) => round2(writeRU(kb, terms)),
  /** One query page: {partitions, loaded: [kb...], scanned: [kb...], lookups, aggregate}. */
  query: ({ partitions: p, loaded = [], scanned = [], lookups = 1, aggregate = false }) => {
    const kbLoaded = loaded.reduce((s, k) => s + k, 0);
    const kbScanned = scanned.reduce((s, k) => s + k, 0);
    let ru =
      p * 2.7 + 0.1 * loaded.length + 0.068 * kbLoaded + 0.02 * scanned.length + 0.0072 * kbScanned + p * 0.02 * (lookups - 1);
    if (aggregate) ru += 0.45 * p;
    return round2(ru);
  },
};

const bytesOf = (text) => Buffer.byteLength(text, "utf8");
const kbOfText = (text) => bytesOf(text) / 1024;

// Index terms T (emulator/store/indexing.h): one per indexed leaf value (each array element; an
// empty object or array is one leaf), `id` and `_ts` included, `_rid` `_self` `_etag`
// `_attachments` not; 0 with indexingMode none. `excludedTop`: top-level properties excluded by a
// path /"name"/? (the only exclusion used here).
const SYSTEM_NOT_INDEXED = new Set(["_rid", "_self", "_etag", "_attachments"]);
function countTerms(doc, policy) {
  if (policy.none) return 0;
  let terms = 0;
  const walk = (v) => {
    if (v !== null && typeof v === "object") {
      const entries = Array.isArray(v) ? v : Object.values(v);
      if (entries.length === 0) terms++;
      for (const e of entries) walk(e);
      return;
    }
    terms++;
  };
  for (const [k, v] of Object.entries(doc)) {
    if (SYSTEM_NOT_INDEXED.has(k)) continue;
    if (policy.excludedTop?.includes(k) && (v === null || typeof v !== "object")) continue;
    walk(v);
  }
  return terms;
}

const POLICIES = {
  default: { label: "default indexing", indexingPolicy: undefined },
  none: { label: "indexing none", indexingPolicy: { indexingMode: "none", automatic: false }, none: true },
  expad: {
    label: 'pad excluded',
    indexingPolicy: { indexingMode: "consistent", automatic: true, includedPaths: [{ path: "/*" }], excludedPaths: [{ path: '/"pad"/?' }] },
    excludedTop: ["pad"],
  },
};

// ---------------------------------------------------------------------------------------------
// The table

const SRC = "request-units.md";
const rows = [];
const mismatches = [];
const querySizes = { min: Infinity, max: 0 }; // stored bytes of the 100 query items
const sizeLabel = (bytes) => (bytes === undefined ? "" : `${bytes} B (${(bytes / 1024).toFixed(2)} KB)`);

/** Records a row and asserts the emulator's header equals the model (as the server formats it). */
function check(operation, bytes, header, expected, documented = "") {
  rows.push({ operation, size: typeof bytes === "string" ? bytes : sizeLabel(bytes), emulator: header, model: String(expected), documented });
  if (String(header) !== String(expected)) mismatches.push(`${operation}: emulator ${header}, model ${expected}`);
  if (LOCAL) assert.equal(String(header), String(expected), `${operation}: x-ms-request-charge`);
}

function tableMarkdown() {
  const esc = (s) => String(s).replace(/\|/g, "\\|");
  const lines = [
    "| operation | item size | emulator RU | model RU | documented figure (source) |",
    "|---|---|---|---|---|",
    ...rows.map((r) => `| ${esc(r.operation)} | ${esc(r.size)} | ${esc(r.emulator)} | ${esc(r.model)} | ${esc(r.documented)} |`),
  ];
  return lines.join("\n");
}

// ---------------------------------------------------------------------------------------------
// Items

/** The stored text of an item, as the server returns it (raw GET, no re-serialisation). */
async function storedText(collId, id, pk) {
  const res = await rawRequest(ctx.env, {
    path: docPath(dbId, collId, id),
    headers: { "x-ms-documentdb-partitionkey": pkHeader(pk) },
  });
  assert.equal(res.status, 200, res.text);
  return res.text;
}

/** Stored bytes an item body gains on the server (system properties), measured with a probe item. */
async function systemOverhead(container, collId) {
  const body = { id: "probe", pk: "probe", pad: "" };
  await container.items.create(body);
  const text = await storedText(collId, "probe", "probe");
  await container.item("probe", "probe").delete();
  return bytesOf(text) - bytesOf(JSON.stringify(body));
}

/** {id, pk, ...fields, pad} padded so that the stored item has `target` bytes. */
function paddedBody(id, target, overhead, fields = {}, ch = "a") {
  const base = { id, pk: `pk-${id}`, ...fields, pad: "" };
  const padLen = target - overhead - bytesOf(JSON.stringify(base));
  assert.ok(padLen >= 0, `target ${target} too small for ${id}`);
  return { ...base, pad: ch.repeat(padLen) };
}

const manyFields = () => Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`f${String(i).padStart(2, "0")}`, i * 7]));

const SIZES = [
  { name: "0.25 KB", id: "s0256", target: 256 },
  { name: "1 KB", id: "s1024", target: 1024 },
  { name: "1 KB, 40 numeric properties", id: "m1024", target: 1024, many: true },
  { name: "4 KB", id: "s4096", target: 4096, only: ["none"] },
  { name: "10 KB", id: "s10240", target: 10240 },
  { name: "64 KB", id: "s65536", target: 65536, only: ["none"] },
  { name: "100 KB", id: "s102400", target: 102400 },
];

/** Documented figures for a (policy, size, operation), from docs/request-units.md "Public facts". */
function documentedFor(policyKey, size, op, bytes) {
  if (op === "read" && bytes <= 1024 && size.target === 1024) return `1 RU for 1 KB (${SRC}: point read)`;
  if (op === "read" && size.target === 102400) return `10 RU for 100 KB (${SRC}: point read)`;
  if (op === "create" && policyKey === "none") {
    const fig = { 1024: "~5", 4096: "~7", 65536: "~48" }[size.target];
    if (fig && !size.many) return `${fig} with indexing off (${SRC})`;
  }
  if (op === "create" && size.many && policyKey === "default") return `~15 for 1 KB with many indexed properties (${SRC})`;
  if (op === "replace" || op === "upsert (existing)") return `~2x create (${SRC})`;
  return "";
}

/** create, read, replace, upsert of the existing item, delete; each charge against the model. */
async function crud(container, collId, policyKey, size, overhead) {
  const policy = POLICIES[policyKey];
  const label = (op) => `${op}: ${size.name}, ${policy.label}`;
  const fields = size.many ? manyFields() : {};
  const body = paddedBody(size.id, size.target, overhead, fields, "a");
  const pk = body.pk;

  // The stored image: the raw text, which must be what the SDK parsed.
  const image = async (resource) => {
    const text = await storedText(collId, size.id, pk);
    assert.equal(text, JSON.stringify(resource), "the server's text is the minified resource");
    return { text, bytes: bytesOf(text), kb: kbOfText(text), terms: countTerms(resource, policy) };
  };

  const created = await container.items.create(body);
  const c = await image(created.resource);
  check(label("create"), c.bytes, created.headers["x-ms-request-charge"], model.create(c.kb, c.terms),
    documentedFor(policyKey, size, "create", c.bytes));

  const read = await container.item(size.id, pk).read();
  check(label("read"), c.bytes, read.headers["x-ms-request-charge"], model.read(c.kb), documentedFor(policyKey, size, "read", c.bytes));

  const replaced = await container.item(size.id, pk).replace({ ...body, pad: "b".repeat(body.pad.length) });
  const r = await image(replaced.resource);
  check(label("replace"), r.bytes, replaced.headers["x-ms-request-charge"], model.replace(r.kb, r.terms),
    documentedFor(policyKey, size, "replace", r.bytes));

  const upserted = await container.items.upsert({ ...body, pad: "c".repeat(body.pad.length) });
  assert.equal(upserted.statusCode, 200, "upsert of an existing item");
  const u = await image(upserted.resource);
  check(label("upsert (existing)"), u.bytes, upserted.headers["x-ms-request-charge"], model.replace(u.kb, u.terms),
    documentedFor(policyKey, size, "upsert (existing)", u.bytes));

  const deleted = await container.item(size.id, pk).delete();
  check(label("delete"), u.bytes, deleted.headers["x-ms-request-charge"], model.delete(u.kb, u.terms),
    documentedFor(policyKey, size, "delete", u.bytes));
  return { created: c, terms: c.terms };
}

for (const policyKey of ["default", "none", "expad"]) {
  describe(`item operations, ${POLICIES[policyKey].label}`, () => {
    let container;
    let collId;
    let overhead;
    // Setup, a hook so that each test runs alone by name: container and the size of the system properties.
    before(async () => {
      collId = uid("c");
      const def = { id: collId, partitionKey: { paths: ["/pk"], version: 2 } };
      if (POLICIES[policyKey].indexingPolicy) def.indexingPolicy = POLICIES[policyKey].indexingPolicy;
      container = (await db.containers.create(def)).container;
      overhead = await systemOverhead(container, collId);
      assert.ok(overhead > 0 && overhead < 400, `overhead ${overhead}`);
    });
    for (const size of SIZES.filter((s) => !s.only || s.only.includes(policyKey))) {
      it(`${size.name}: create, read, replace, upsert, delete cost the model's charge`, async () => {
        const { created } = await crud(container, collId, policyKey, size, overhead);
        assert.equal(created.bytes, size.target, "the stored item has the targeted size");
        if (policyKey === "none") assert.equal(created.terms, 0);
        if (policyKey === "default") {
          // id, pk, pad, _ts (+ 40 numbers)
          assert.equal(created.terms, size.many ? 44 : 4);
        }
        if (policyKey === "expad") assert.equal(created.terms, size.many ? 43 : 3);
      });
    }
  });
}

describe("a minimal {id, name} item (the capacity planner's figures)", () => {
  it("create 5.71 / read 1.00 / update 10.67 / delete 5.71 documented; the model's values", async () => {
    const collId = uid("c");
    const container = (await db.containers.create({ id: collId, partitionKey: { paths: ["/id"], version: 2 } })).container;
    const policy = { excludedTop: [] };
    const body = { id: "item1", name: "Contoso" };
    const image = async (resource) => {
      const text = await storedText(collId, "item1", "item1");
      assert.equal(text, JSON.stringify(resource));
      return { bytes: bytesOf(text), kb: kbOfText(text), terms: countTerms(resource, policy) };
    };
    const created = await container.items.create(body);
    const c = await image(created.resource);
    assert.equal(c.terms, 3, "id, name, _ts");
    const doc = (fig) => `${fig} (${SRC}: capacity planner, {id,name})`;
    check("create: {id, name}", c.bytes, created.headers["x-ms-request-charge"], model.create(c.kb, c.terms), doc("5.71"));
    const read = await container.item("item1", "item1").read();
    check("read: {id, name}", c.bytes, read.headers["x-ms-request-charge"], model.read(c.kb), doc("1.00"));
    const replaced = await container.item("item1", "item1").replace({ id: "item1", name: "Fabrikam" });
    const r = await image(replaced.resource);
    check("replace (update): {id, name}", r.bytes, replaced.headers["x-ms-request-charge"], model.replace(r.kb, r.terms), doc("10.67"));
    const deleted = await container.item("item1", "item1").delete();
    check("delete: {id, name}", r.bytes, deleted.headers["x-ms-request-charge"], model.delete(r.kb, r.terms), doc("5.71"));
  });
});

// ---------------------------------------------------------------------------------------------
// Queries

/** 100 deterministic items: n = 0..99, 10 logical keys, an excluded property `ex`, varied sizes. */
const queryItems = () =>
  Array.from({ length: 100 }, (_, i) => ({
    id: `q${String(i).padStart(3, "0")}`,
    pk: `p${i % 10}`,
    n: i,
    ex: `e${i}`,
    pad: "x".repeat(40 + ((i * 37) % 400)),
  }));

/** One page through the SDK: exactly one request (asserted), its header and rows. */
// One page through the SDK. `served` is how many query requests the backend answered: 1 for a
// query the gateway serves whole; for one that needs merging (ORDER BY, TOP, aggregates) the
// gateway first answers 400/1004 with the plan and the SDK then asks every range.
async function onePage(container, query, options, served = 1) {
  const res = await container.items.query(query, options).fetchNext();
  const requests = res.diagnostics.clientSideRequestStatistics.gatewayStatistics.filter((g) => g.operationType === "query");
  const refused = requests.filter((g) => g.statusCode === 400);
  assert.equal(requests.length - refused.length, served, `${query}: ${served} query request(s) answered`);
  if (refused.length) {
    assert.equal(refused.length, 1);
    assert.equal(refused[0].subStatusCode, 1004);
  }
  return res;
}

// A query the gateway serves across partitions, read page by page: the gateway answers one range
// per page (its session token names it), so each page is charged as one partition's query.
async function gatewayPages(container, query, options) {
  const iterator = container.items.query(query, options);
  const pages = [];
  while (iterator.hasMoreResults()) {
    const res = await iterator.fetchNext();
    const range = (res.headers["x-ms-session-token"] ?? "").split(":")[0];
    pages.push({ resources: res.resources, charge: Number(res.headers["x-ms-request-charge"]), range });
  }
  return pages;
}

for (const partitions of [1, 4]) {
  describe(`queries on 100 items, ${partitions} physical partition${partitions > 1 ? "s" : ""}`, () => {
    let container;
    let collId;
    const kb = new Map(); // id -> KB of the stored text
    const rangeOf = new Map(); // id -> partition key range id
    let items;
    const where = `${partitions} partition${partitions > 1 ? "s" : ""}`;
    const fanOut = partitions > 1 ? `each partition fanned out to adds 2-3 RU (${SRC})` : "";

    // Setup, a hook so that each test runs alone by name: 100 items; their stored sizes read back raw.
    before(async () => {
      collId = uid("c");
      const def = {
        id: collId,
        partitionKey: { paths: ["/pk"], version: 2 },
        indexingPolicy: { indexingMode: "consistent", automatic: true, includedPaths: [{ path: "/*" }], excludedPaths: [{ path: '/"ex"/?' }] },
      };
      const options = partitions > 1 ? { initialHeaders: { "x-cosmos-emulator-partition-count": String(partitions) } } : {};
      container = (await db.containers.create(def, options)).container;
      const ranges = (await container.readPartitionKeyRanges().fetchAll()).resources;
      assert.equal(ranges.length, partitions);
      items = queryItems();
      for (const body of items) {
        const created = await container.items.create(body);
        rangeOf.set(body.id, created.headers["x-ms-documentdb-partitionkeyrangeid"]);
      }
      for (const body of items) {
        const text = await storedText(collId, body.id, body.pk);
        kb.set(body.id, kbOfText(text));
        querySizes.min = Math.min(querySizes.min, bytesOf(text));
        querySizes.max = Math.max(querySizes.max, bytesOf(text));
      }
    });

    const kbs = (docs) => docs.map((d) => kb.get(d.id));
    const header = (res) => res.headers["x-ms-request-charge"];

    // The pages of a query the gateway serves, one per partition: their rows, their charges added
    // up, and the model's charge of each page (one partition's) added up.
    const pagesOf = async (query, options, modelOf) => {
      const pages = await gatewayPages(container, query, options);
      assert.equal(pages.length, partitions, `${query}: one page per partition`);
      assert.deepEqual(pages.map((p) => p.range).sort(), [...new Set(rangeOf.values())].sort());
      return {
        resources: pages.flatMap((p) => p.resources),
        charge: round2(pages.reduce((t, p) => t + p.charge, 0)),
        model: round2(pages.reduce((t, p) => t + modelOf(p), 0)),
      };
    };

    it("SELECT * FROM c: every item loaded (a page of 1000 per partition)", async () => {
      const res = await pagesOf("SELECT * FROM c", { maxItemCount: 1000 }, (p) => model.query({ partitions: 1, loaded: kbs(p.resources) }));
      assert.equal(res.resources.length, 100);
      // Rows come in the order the pages read them: sum the sizes in that order.
      check(`query SELECT * FROM c (${where})`, "100 items", res.charge, res.model, fanOut);
    });

    it("SELECT * FROM c WHERE c.n = 7: the index loads the one match", async () => {
      const res = await pagesOf("SELECT * FROM c WHERE c.n = 7", { maxItemCount: 100 }, (p) => model.query({ partitions: 1, loaded: kbs(p.resources) }));
      assert.deepEqual(res.resources.map((d) => d.id), ["q007"]);
      check(`query WHERE c.n = 7 (${where})`, sizeLabel(Math.round(kb.get("q007") * 1024)), res.charge, res.model, fanOut);
    });

    it("a filter on the excluded path /ex scans every item", async () => {
      // No usable index: every document read (the match included) is charged as scanned.
      const res = await pagesOf("SELECT * FROM c WHERE c.ex = 'e7'", { maxItemCount: 100 }, (p) =>
        model.query({ partitions: 1, scanned: kbs(items.filter((d) => rangeOf.get(d.id) === p.range)) }));
      assert.deepEqual(res.resources.map((d) => d.id), ["q007"]);
      check(`query WHERE c.ex = 'e7', /ex excluded (${where})`, "100 items scanned", res.charge, res.model,
        `excluded path 409.51 vs 2.98 indexed, on 60,951 items (${SRC})`);
    });

    // The SDK asks every range for its own first `n` rows (ordered by c.n); each range's page is
    // charged on its own, and the SDK adds the charges up.
    const perRange = (n, charge) => {
      let total = 0;
      for (const r of new Set(items.map((d) => rangeOf.get(d.id)))) {
        const mine = items.filter((d) => rangeOf.get(d.id) === r).slice(0, n);
        total += charge(mine);
      }
      return round2(total);
    };
    const sum = (res) => round2(Number(header(res)));

    it("SELECT * FROM c ORDER BY c.n, first page of 10: each range loads 10 + 1", async () => {
      const res = await onePage(container, "SELECT * FROM c ORDER BY c.n", { maxItemCount: 10 }, partitions);
      assert.deepEqual(res.resources.map((d) => d.n), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      check(`query ORDER BY c.n, page of 10 (${where})`, "11 items loaded per range", sum(res),
        perRange(11, (docs) => model.query({ partitions: 1, loaded: kbs(docs) })), fanOut);
    });

    it("SELECT TOP 5 * FROM c ORDER BY c.n: each range loads 5 + 1", async () => {
      const res = await onePage(container, "SELECT TOP 5 * FROM c ORDER BY c.n", { maxItemCount: 10 }, partitions);
      assert.deepEqual(res.resources.map((d) => d.n), [0, 1, 2, 3, 4]);
      check(`query TOP 5 ORDER BY c.n (${where})`, "6 items loaded per range", sum(res),
        perRange(6, (docs) => model.query({ partitions: 1, loaded: kbs(docs) })),
        `TOP n loads n+1 items (${SRC})${fanOut ? "; " + fanOut : ""}`);
    });

    it("SELECT VALUE COUNT(1) FROM c: 2.7 + 0.45 per partition", async () => {
      const res = await onePage(container, "SELECT VALUE COUNT(1) FROM c", { maxItemCount: 100 }, partitions);
      assert.deepEqual(res.resources, [100]);
      check(`query SELECT VALUE COUNT(1) (${where})`, "aggregate", sum(res), model.query({ partitions, aggregate: true }), fanOut);
    });

    it("SELECT * FROM c WHERE c.n IN (3, 5, 7): three lookups, three loads", async () => {
      const res = await pagesOf("SELECT * FROM c WHERE c.n IN (3, 5, 7)", { maxItemCount: 100 }, (p) =>
        model.query({ partitions: 1, loaded: kbs(p.resources), lookups: 3 }));
      assert.deepEqual(res.resources.map((d) => d.n).sort((a, b) => a - b), [3, 5, 7]);
      check(`query WHERE c.n IN (3, 5, 7) (${where})`, "3 items loaded", res.charge, res.model, fanOut);
    });
  });
}

describe("queries with documented figures (1 partition)", () => {
  let container;
  let collId;
  const kb = new Map();

  // Setup, a hook so that each test runs alone by name: five small items and one 10 KB item.
  before(async () => {
    collId = uid("c");
    container = (await db.containers.create({ id: collId, partitionKey: { paths: ["/pk"], version: 2 } })).container;
    const overhead = await systemOverhead(container, collId);
    const bodies = [1, 2, 3, 4, 5].map((i) => ({ id: `m${i}`, pk: "p", name: `name ${i}` }));
    bodies.push(paddedBody("big", 10240, overhead));
    for (const b of bodies) {
      await container.items.create(b);
      kb.set(b.id, kbOfText(await storedText(collId, b.id, b.pk)));
    }
    assert.equal(kb.get("big"), 10);
  });

  const run = async (query, lookups, documented) => {
    const res = await onePage(container, query, { maxItemCount: 100 });
    const loaded = res.resources.map((d) => kb.get(d.id));
    const bytes = loaded.length === 0 ? "no match" : loaded.map((k) => `${Math.round(k * 1024)} B`).join(" + ");
    check(`query ${query}`, bytes, res.headers["x-ms-request-charge"], model.query({ partitions: 1, loaded, lookups }), documented);
    return res;
  };

  it("a query that matches nothing: the minimum", async () => {
    const res = await run("SELECT * FROM c WHERE c.id = 'none'", 1, `2.3-2.9 minimum (${SRC})`);
    assert.equal(res.resources.length, 0);
  });
  it("one small item", async () => {
    const res = await run("SELECT * FROM c WHERE c.id = 'm1'", 1, `2.83-2.92 (${SRC})`);
    assert.equal(res.resources.length, 1);
  });
  it("IN lists of 2, 3 and 5 ids", async () => {
    const figs = { 2: "3.06", 3: "3.19", 5: "3.45" };
    for (const k of [2, 3, 5]) {
      const ids = Array.from({ length: k }, (_, i) => `'m${i + 1}'`).join(", ");
      const res = await run(`SELECT * FROM c WHERE c.id IN (${ids})`, k, `${figs[k]} (${SRC}: IN of ${k} ids)`);
      assert.equal(res.resources.length, k);
    }
  });
  it("one 10 KB item", async () => {
    const res = await run("SELECT * FROM c WHERE c.id = 'big'", 1, `3.19 (${SRC})`);
    assert.equal(res.resources.length, 1);
  });
});

// ---------------------------------------------------------------------------------------------

describe("the table", () => {
  it("prints it (and writes docs/charges-table.md with WRITE_CHARGE_TABLE=1)", () => {
    const table = tableMarkdown();
    console.log(table);
    if (mismatches.length) console.log(`charges that differ from the model:\n${mismatches.join("\n")}`);
    if (process.env.WRITE_CHARGE_TABLE === "1") {
      const here = dirname(fileURLToPath(import.meta.url));
      const text = [
        "# Request charges: emulator vs model vs documented figures",
        "",
        "Generated by `WRITE_CHARGE_TABLE=1 node --test charges.test.mjs` in `tests/sdk/js` (the test",
        "drives the emulator through the official `@azure/cosmos` SDK). The emulator follows the model in",
        "[emulator/charge/README.md](../emulator/charge/README.md): each \"emulator RU\" is the `x-ms-request-charge` header of",
        "one request, each \"model RU\" the model's formula computed by the test from the stored item's",
        "exact size (the bytes the server returns, system properties included) and its index terms, or,",
        "for queries, from the items the page loads or scans; the test asserts that both are equal.",
        "Documented figures are the public facts quoted in [request-units.md](request-units.md) (\"Public facts\"). Sizes are",
        `stored sizes; query rows use 100 items of ${querySizes.min}-${querySizes.max} bytes (\`n\` = 0..99, \`/ex\` excluded`,
        "from the index) on 1 and on 4 physical partitions, the last rows five small items and one 10 KB",
        "item. The smallest item size is 0.25 KB: the system properties alone take about 205 bytes.",
        "",
        table,
        "",
      ].join("\n");
      writeFileSync(resolve(here, "../../../docs/charges-table.md"), text);
    }
  });
});
