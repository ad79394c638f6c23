// The Data Explorer (/_explorer/) in Debian's Chromium, headless, driven by puppeteer-core against
// the emulator binary: what a user does with the page, checked against what the REST API and the
// official SDK answer for the same requests. Screenshots go to $EXPLORER_ARTIFACTS (default:
// tests/explorer/artifacts/).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import puppeteer from "puppeteer-core";
import { startEmulator, newClient, rawRequest, WELL_KNOWN_KEY, EMULATOR_BIN } from "../sdk/js/harness.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const ARTIFACTS = process.env.EXPLORER_ARTIFACTS || join(here, "artifacts");
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
mkdirSync(ARTIFACTS, { recursive: true });

let env;
let client;
let browser;

before(async () => {
  env = await startEmulator();
  client = newClient(env);
  browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    acceptInsecureCerts: true,
    // Root in a container needs --no-sandbox; the rest keeps Chromium off the network.
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"],
  });
});
after(async () => {
  await browser?.close();
  await env?.stop();
});

/** A new tab on the page at `url`, failing the test on any page error. */
async function open(t, url = env.endpoint + "_explorer/") {
  const page = await browser.newPage();
  await page.setViewport({ width: 1366, height: 900 });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  // A script, style or connection the page's Content-Security-Policy refuses is an error too.
  page.on("console", (m) => {
    if (m.type() === "error" && /Content Security Policy/i.test(m.text())) errors.push(m.text());
  });
  t.after(async () => {
    await page.close();
    assert.deepEqual(errors, [], "errors in the page");
  });
  await page.goto(url, { waitUntil: "networkidle0" });
  await page.waitForSelector(".layout");
  return page;
}

async function shot(page, name) {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

const text = (page, selector) => page.$eval(selector, (e) => e.textContent.trim());

/** Replaces the text of the CodeMirror editor whose content element `selector` finds. The text is
 *  inserted as an input method would (Input.insertText): key events for printable characters stall
 *  in headless Chromium once CodeMirror handles them. */
async function typeInEditor(page, selector, value) {
  await page.click(selector);
  await page.evaluate(() => document.execCommand("selectAll"));
  if (value === "") await page.keyboard.press("Delete");
  else await page.keyboard.sendCharacter(value);
}

async function fill(page, selector, value) {
  await page.$eval(selector, (e) => (e.value = ""));
  await page.type(selector, value);
}

/** The responses to requests whose path and method match, with their charge, while `fn` runs. */
async function responses(page, method, pathPattern, fn) {
  const got = [];
  const listener = (res) => {
    const url = new URL(res.url());
    if (res.request().method() === method && pathPattern.test(url.pathname)) {
      got.push({ status: res.status(), headers: res.headers(), request: res.request().headers() });
    }
  };
  page.on("response", listener);
  try {
    await fn();
  } finally {
    page.off("response", listener);
  }
  return got;
}

const until = async (page, fn, ...args) => page.waitForFunction(fn, { timeout: 10000 }, ...args);

/** The message the service gave, without its ActivityId lines. */
const plain = (message) => String(message).replace(/\r?\nActivityId:[\s\S]*$/, "").trim();

const uid = (p) => `${p}${Math.random().toString(36).slice(2, 8)}`;

async function containerWith(partitions, items) {
  const db = uid("db");
  const coll = uid("c");
  await client.databases.create({ id: db });
  const res = await rawRequest(env, {
    method: "POST",
    path: `/dbs/${db}/colls`,
    body: { id: coll, partitionKey: { paths: ["/pk"], kind: "Hash", version: 2 } },
    headers: { "x-cosmos-emulator-partition-count": String(partitions) },
  });
  assert.equal(res.status, 201, res.text);
  const container = client.database(db).container(coll);
  for (const item of items) await container.items.create(item);
  return { db, coll, container };
}

describe("the page's files", () => {
  test("index, script and stylesheet: gzip when asked, validators, 404 for anything else", async () => {
    const index = await fetch(env.endpoint + "_explorer/");
    assert.equal(index.status, 200);
    assert.equal(index.headers.get("content-type"), "text/html; charset=utf-8");
    const html = await index.text();
    const config = JSON.parse(html.match(/<script id="config" type="application\/json">(.*?)<\/script>/)[1]);
    assert.deepEqual(config, { endpoint: env.endpoint, key: WELL_KNOWN_KEY, consistency: "Session", protocol: "both", certificate: true,
      disableLocalAuth: false });
    assert.ok(!html.includes("Local authorization"));
    assert.ok(html.includes(`<code id="endpoint">${env.endpoint}</code>`));
    // The page runs its bundled script alone, talks to its origin and the gateway only, and no
    // other site may frame it.
    assert.equal(
      index.headers.get("content-security-policy"),
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; " +
        `connect-src 'self' ${env.endpoint}; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`,
    );
    assert.equal(index.headers.get("x-frame-options"), "DENY");
    assert.equal(index.headers.get("x-content-type-options"), "nosniff");
    assert.equal(index.headers.get("referrer-policy"), "no-referrer");

    const js = await fetch(env.endpoint + "_explorer/app.js", { headers: { "accept-encoding": "gzip" } });
    assert.equal(js.status, 200);
    assert.equal(js.headers.get("content-type"), "text/javascript; charset=utf-8");
    assert.equal(js.headers.get("content-encoding"), "gzip");
    assert.equal(js.headers.get("cache-control"), "no-cache");
    assert.equal(js.headers.get("vary"), "Accept-Encoding");
    const etag = js.headers.get("etag");
    assert.match(etag, /^"[0-9a-f]{16}"$/);
    const body = await js.text(); // fetch undoes the gzip
    const identity = await rawGet("/_explorer/app.js", { "accept-encoding": "identity" });
    assert.equal(identity.headers["content-encoding"], undefined);
    assert.equal(identity.body, body);
    const again = await fetch(env.endpoint + "_explorer/app.js", { headers: { "if-none-match": etag } });
    assert.equal(again.status, 304);
    assert.equal(await again.text(), "");

    const css = await fetch(env.endpoint + "_explorer/app.css");
    assert.equal(css.headers.get("content-type"), "text/css; charset=utf-8");
    for (const missing of ["_explorer/nothing.js", "_explorer/app.js.gz", "_explorer/index.html.gz"]) {
      const res = await fetch(env.endpoint + missing);
      assert.equal(res.status, 404, missing);
      assert.deepEqual(await res.json(), { code: "NotFound", message: "The Data Explorer has no such file." });
    }
  });

  test("ENABLE_EXPLORER=false: no page and no files", async () => {
    const off = await startEmulator([], { env: { ENABLE_EXPLORER: "false" } });
    try {
      for (const path of ["_explorer/", "_explorer/app.js"]) {
        const res = await fetch(off.endpoint + path);
        assert.equal(res.status, 404);
        assert.deepEqual(await res.json(), { code: "NotFound", message: "The emulator's page is disabled (ENABLE_EXPLORER=false)." });
      }
    } finally {
      await off.stop();
    }
  });

  test("a key of the user's own stays off the page; the page asks for it and signs with it", async (t) => {
    const key = Buffer.alloc(64, 7).toString("base64");
    const own = await startEmulator(["--key", key]);
    t.after(() => own.stop());
    const html = await (await fetch(own.endpoint + "_explorer/")).text();
    assert.ok(!html.includes(key));
    assert.ok(!html.includes(WELL_KNOWN_KEY));
    assert.match(html, /"key":null/);
    const page = await open(t, own.endpoint + "_explorer/");
    await until(page, () => document.querySelector(".tree .error"));
    assert.equal(await text(page, ".tree .error"), "No key: enter the emulator's key on the Connect page.");
    await fill(page, "#key-input", Buffer.alloc(64, 8).toString("base64"));
    await page.click("button[type=submit]");
    await until(page, () => document.querySelector("main .error"));
    assert.match(await text(page, "main .error"), /^401 Unauthorized: /);
    await fill(page, "#key-input", key);
    await page.click("button[type=submit]");
    await until(page, () => document.querySelector("[role=status]")?.textContent === "Key accepted.");
  });
});

async function rawGet(path, headers) {
  const { request } = await import("node:http");
  const url = new URL(path, env.endpoint);
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("browse and edit", () => {
  test("create a database, a container and an item; the SDK reads what the page wrote", async (t) => {
    const page = await open(t);
    const db = uid("shop");
    await page.type("#new-db-id", db);
    await page.click("form[aria-labelledby=new-db-title] button[type=submit]");
    await page.waitForSelector("#new-coll-id");
    await page.type("#new-coll-id", "orders");
    await fill(page, "#new-coll-pk", "/customer");
    await page.click("form[aria-labelledby=new-coll-title] button[type=submit]");
    await page.waitForSelector("#item-editor");
    const { resource: props } = await client.database(db).container("orders").read();
    assert.deepEqual(props.partitionKey, { paths: ["/customer"], kind: "Hash", version: 2 });

    const created = await responses(page, "POST", new RegExp(`^/dbs/${db}/colls/orders/docs$`), async () => {
      await typeInEditor(page, "#item-editor", '{"id": "o1", "customer": "ana", "total": 12.5, "lines": [1, 2]}');
      await page.click("#item-save");
      await until(page, () => document.querySelector("#item-status"));
    });
    const writes = created.filter((r) => r.request["content-type"] === "application/json");
    assert.equal(writes.length, 1);
    assert.equal(writes[0].status, 201);
    assert.equal(writes[0].request["x-ms-documentdb-partitionkey"], '["ana"]');
    assert.equal(await text(page, "#item-status"), `Created: ${Number(writes[0].headers["x-ms-request-charge"]).toFixed(2)} RU`);
    const { resource } = await client.database(db).container("orders").item("o1", "ana").read();
    assert.deepEqual({ ...resource, _rid: undefined, _self: undefined, _etag: undefined, _ts: undefined, _attachments: undefined },
      { id: "o1", customer: "ana", total: 12.5, lines: [1, 2], _rid: undefined, _self: undefined, _etag: undefined, _ts: undefined, _attachments: undefined });
    // The list shows it with its partition key.
    await until(page, () => [...document.querySelectorAll("table[aria-label=Items] tbody tr")].some((r) => r.textContent.includes("o1")));
    assert.equal(await text(page, "table[aria-label=Items] tbody tr td:nth-child(2)"), '"ana"');

    // Replace, then patch, then delete.
    await typeInEditor(page, "#item-editor", '{"id": "o1", "customer": "ana", "total": 20}');
    await page.click("#item-save");
    await until(page, () => document.querySelector("#item-status")?.textContent.startsWith("Replaced: "));
    assert.equal((await client.database(db).container("orders").item("o1", "ana").read()).resource.total, 20);
    await page.click("details summary");
    await typeInEditor(page, "details .cm-content", '[{"op": "incr", "path": "/total", "value": 5}]');
    await page.click("details button");
    await until(page, () => document.querySelector("#item-status")?.textContent.startsWith("Patched: "));
    assert.equal((await client.database(db).container("orders").item("o1", "ana").read()).resource.total, 25);
    await shot(page, "items");
    page.on("dialog", (d) => d.accept());
    await page.click("button.danger");
    await until(page, () => document.querySelector("#item-status")?.textContent.startsWith("Deleted: "));
    assert.equal((await client.database(db).container("orders").item("o1", "ana").read()).statusCode, 404);
  });

  test("bad input shows the service's error message next to the input", async (t) => {
    const { db, coll } = await containerWith(1, []);
    const page = await open(t, `${env.endpoint}_explorer/#/db/${db}/c/${coll}/items`);
    await page.waitForSelector("#item-editor");
    // Not JSON: the text goes to the service as typed; its answer is shown under the editor.
    const body = '{"id": "x", "pk": ';
    await typeInEditor(page, "#item-editor", body);
    await page.click("#item-save");
    await page.waitForSelector("#item-error");
    const direct = await rawRequest(env, { method: "POST", path: `/dbs/${db}/colls/${coll}/docs`, body, headers: { "x-ms-documentdb-partitionkey": "[{}]" } });
    assert.equal(direct.status, 400);
    assert.equal(await text(page, "#item-error"), `400 ${direct.json.code}: ${plain(direct.json.message)}`);
    // The editor marks the JSON error itself too.
    await until(page, () => document.querySelector(".cm-lint-marker-error"));
    // An id the service refuses (an empty one; "a/b" it creates).
    await typeInEditor(page, "#item-editor", '{"id": "", "pk": "p"}');
    await page.click("#item-save");
    await until(page, () => document.querySelector("#item-error")?.textContent.startsWith("400 BadRequest"));
    const refused = await rawRequest(env, { method: "POST", path: `/dbs/${db}/colls/${coll}/docs`, body: { id: "", pk: "p" }, headers: { "x-ms-documentdb-partitionkey": '["p"]' } });
    assert.equal(await text(page, "#item-error"), `400 ${refused.json.code}: ${plain(refused.json.message)}`);
    // A bad filter on the list.
    await page.type("#items-filter", "c.x = ");
    await page.click("form.inline button[type=submit]");
    await page.waitForSelector("#items-list-error");
    const bad = await rawRequest(env, {
      method: "POST",
      path: `/dbs/${db}/colls/${coll}/docs`,
      body: { query: "SELECT * FROM c WHERE c.x =", parameters: [] },
      headers: { "content-type": "application/query+json", "x-ms-documentdb-isquery": "True", "x-ms-documentdb-query-enablecrosspartition": "True" },
    });
    assert.equal(bad.status, 400);
    assert.equal(await text(page, "#items-list-error"), `400 ${bad.json.code}: ${plain(bad.json.message)}`);
    await shot(page, "bad-input");
  });
});

describe("query", () => {
  test("a cross-partition ORDER BY: its rows, the charge of each page and the total, the partitions and the plan", async (t) => {
    const items = Array.from({ length: 30 }, (_, i) => ({ id: `i${i}`, pk: `k${i % 9}`, n: (i * 7) % 30 }));
    const { db, coll, container } = await containerWith(3, items);
    const page = await open(t, `${env.endpoint}_explorer/#/db/${db}/c/${coll}/query`);
    await page.waitForSelector("#query-editor");
    await typeInEditor(page, "#query-editor", "SELECT c.id, c.n FROM c WHERE c.n >= @min ORDER BY c.n DESC");
    await fill(page, "#query-params", '[{"name": "@min", "value": 5}]');
    await fill(page, "#query-max", "10");
    const sent = await responses(page, "POST", new RegExp(`^/dbs/${db}/colls/${coll}/docs$`), async () => {
      await page.click("#query-run");
      await page.waitForSelector("#query-charge");
      await page.click("#query-next");
      await until(page, () => document.querySelectorAll("table[aria-label='Requests per page'] tfoot tr").length === 2);
    });
    const expected = (await container.items
      .query({ query: "SELECT c.id, c.n FROM c WHERE c.n >= @min ORDER BY c.n DESC", parameters: [{ name: "@min", value: 5 }] })
      .fetchAll()).resources;
    const shown = JSON.parse(await text(page, "#query-results"));
    assert.deepEqual(shown, expected.slice(0, 20));
    // The charge shown is what the service charged for the pages' requests (the plan is free).
    const pages = sent.filter((r) => r.request["x-ms-documentdb-partitionkeyrangeid"] !== undefined);
    assert.ok(pages.length >= 3, `one request per range at least, got ${pages.length}`);
    const total = pages.reduce((s, r) => s + Number(r.headers["x-ms-request-charge"]), 0);
    assert.equal(await text(page, "#query-charge"), `${total.toFixed(2)} RU`);
    assert.equal(await text(page, "#query-ranges"), "0, 1, 2");
    // Each request carried query metrics, shown per range.
    const metricsRows = await page.$$eval("table[aria-label='Requests per page'] tbody tr", (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent)));
    // The gateway refuses the query whole (400: it needs the plan), then one request per range.
    assert.deepEqual(metricsRows[0].slice(0, 5), ["1", "(none)", "400/1004", "", "0.00 RU"]);
    assert.equal(metricsRows.length, pages.length + 1);
    // The same requests (they run in parallel: in any order), each with its range, status and charge.
    const shownRequests = metricsRows.slice(1).map((row) => [row[1], row[2], row[4]].join(" ")).sort();
    const sentRequests = pages.map((r) => [r.request["x-ms-documentdb-partitionkeyrangeid"], String(r.status),
      `${Number(r.headers["x-ms-request-charge"]).toFixed(2)} RU`].join(" ")).sort();
    assert.deepEqual(shownRequests, sentRequests);
    for (const r of pages) assert.ok(r.headers["x-ms-documentdb-query-metrics"], "metrics asked for and given");
    // The plan, as the gateway gives it.
    await page.click("details summary");
    const plan = JSON.parse(await text(page, "#query-plan"));
    assert.deepEqual(plan.queryInfo.orderBy, ["Descending"]);
    assert.deepEqual(plan.queryRanges, [{ min: "", max: "FF", isMinInclusive: true, isMaxInclusive: false }]);
    await shot(page, "query");
  });

  test("a query with a partition key reads one partition; a bad query shows the service's message", async (t) => {
    const items = Array.from({ length: 12 }, (_, i) => ({ id: `i${i}`, pk: `k${i % 3}` }));
    const { db, coll, container } = await containerWith(3, items);
    const page = await open(t, `${env.endpoint}_explorer/#/db/${db}/c/${coll}/query`);
    await page.waitForSelector("#query-editor");
    await fill(page, "#query-pk", '"k1"');
    await page.click("#query-run");
    await page.waitForSelector("#query-charge");
    assert.equal(await text(page, "#query-ranges"), "one, by its partition key");
    const shown = JSON.parse(await text(page, "#query-results"));
    assert.deepEqual(shown.map((d) => d.id).sort(), ["i1", "i10", "i4", "i7"]);
    assert.equal(await text(page, "#query-results"), JSON.stringify(shown, null, 2));
    // The index did not serve a filterless query: nothing to say it did.
    await typeInEditor(page, "#query-editor", "SELECT * FROM c WHERE");
    await page.click("#query-run");
    await page.waitForSelector("#query-error");
    let sdkError;
    try {
      await container.items.query("SELECT * FROM c WHERE", { partitionKey: "k1" }).fetchAll();
    } catch (e) {
      sdkError = e;
    }
    assert.equal(await text(page, "#query-error"), `400 ${sdkError.body.code}: ${plain(sdkError.body.message)}`);
    assert.equal(await page.$("#query-results"), null);
  });

  test("the filter's use of the index, from the query metrics", async (t) => {
    const items = Array.from({ length: 20 }, (_, i) => ({ id: `i${i}`, pk: "p", n: i }));
    const { db, coll } = await containerWith(1, items);
    const page = await open(t, `${env.endpoint}_explorer/#/db/${db}/c/${coll}/query`);
    await page.waitForSelector("#query-editor");
    await typeInEditor(page, "#query-editor", "SELECT * FROM c WHERE c.n = 3");
    await page.click("#query-run");
    await page.waitForSelector("#query-charge");
    assert.match(await text(page, "#query-stats"), /Filter used the index: yes/);
    assert.match(await text(page, "#query-stats"), /Documents retrieved: 1/);
    await typeInEditor(page, "#query-editor", "SELECT * FROM c WHERE STARTSWITH(LOWER(c.id), 'i1')");
    await page.click("#query-run");
    await until(page, () => /Filter used the index: no \(scan\)/.test(document.querySelector("#query-stats")?.textContent));
    assert.match(await text(page, "#query-stats"), /Documents retrieved: 20/);
  });
});

describe("what other explorers do not show", () => {
  test("partitions: key ranges, items, storage and the RU spent on each", async (t) => {
    const items = Array.from({ length: 40 }, (_, i) => ({ id: `i${i}`, pk: i < 30 ? "hot" : `k${i}`, pad: "x".repeat(200) }));
    const { db, coll, container } = await containerWith(4, items);
    for (let i = 0; i < 20; i++) await container.item("i0", "hot").read();
    const page = await open(t, `${env.endpoint}_explorer/#/db/${db}/c/${coll}/partitions`);
    await until(page, () => document.querySelectorAll("#partitions-table tbody tr").length === 4);
    const rows = await page.$$eval("#partitions-table tbody tr", (trs) => trs.map((tr) => ({ cells: [...tr.cells].map((c) => c.textContent.trim()), hot: tr.classList.contains("hot") })));
    const { resources: ranges } = await container.readPartitionKeyRanges().fetchAll();
    const stats = await (await fetch(env.endpoint + "_emulator/stats")).json();
    const spent = stats.containers.find((c) => c.container === coll).partitions;
    const withStats = await rawRequest(env, { path: `/dbs/${db}/colls/${coll}`, headers: { "x-ms-documentdb-populatepartitionstatistics": "true" } });
    let count = 0;
    rows.forEach((r, i) => {
      const range = ranges[i];
      const st = withStats.json.statistics[i];
      const share = spent.find((p) => p.id === range.id);
      assert.equal(r.cells[0].replace(" hot", ""), range.id);
      assert.equal(r.cells[1], range.minInclusive === "" ? '""' : range.minInclusive);
      assert.equal(r.cells[2], range.maxExclusive);
      assert.equal(r.cells[4], String(st.documentCount));
      assert.equal(r.cells[5], `${st.sizeInKB} KB`);
      assert.equal(r.cells[6], String(share?.requests ?? 0));
      assert.equal(r.cells[7], `${(share?.totalRU ?? 0).toFixed(2)} RU`);
      count += st.documentCount;
    });
    assert.equal(count, 40);
    // The partition that holds "hot" took 30 creates and 20 reads: it stands out.
    assert.deepEqual(rows.filter((r) => r.hot).length, 1);
    assert.ok(rows.find((r) => r.hot).cells[4] >= "30");
    await shot(page, "partitions");
  });

  test("the RU report as charts, with fan-out warnings", async (t) => {
    const items = Array.from({ length: 6 }, (_, i) => ({ id: `i${i}`, pk: `k${i}`, city: "Oslo" }));
    const { coll, container } = await containerWith(2, items);
    const page = await open(t, `${env.endpoint}_explorer/#/stats`);
    await container.items.query("SELECT * FROM c WHERE c.city = 'Oslo'").fetchAll();
    await until(page, (c) => document.querySelector("#stats-containers")?.textContent.includes(c), coll);
    await until(page, () => document.querySelectorAll("#chart-operations .u-series").length > 1);
    await until(page, () => document.querySelector("#stats-fanouts")?.textContent.includes("SELECT * FROM c WHERE (c.city = ?)"));
    const legend = await page.$$eval("#chart-operations .u-series .u-label", (ls) => ls.map((l) => l.textContent));
    assert.ok(legend.includes("create"), legend.join());
    await shot(page, "ru-report");
  });

  test("throttling: the 429s of a rate-limited emulator, counted and charted", async (t) => {
    const limited = await startEmulator(["--rate-limit", "on"]);
    t.after(() => limited.stop());
    await newClient(limited).databases.create({ id: "rl" });
    const made = await rawRequest(limited, { method: "POST", path: "/dbs/rl/colls", body: { id: "c", partitionKey: { paths: ["/pk"], version: 2 } }, headers: { "x-ms-offer-throughput": "400" } });
    assert.equal(made.status, 201, made.text);
    const page = await open(t, `${limited.endpoint}_explorer/#/stats`);
    await page.waitForSelector("#chart-throttling");
    // Writes of 20 KB each, sent without retrying, spend the second's 400 RU at once.
    const statuses = await Promise.all(Array.from({ length: 40 }, (_, i) => rawRequest(limited, {
      method: "POST", path: "/dbs/rl/colls/c/docs", body: { id: `d${i}`, pk: "p", pad: "x".repeat(20000) }, headers: { "x-ms-documentdb-partitionkey": '["p"]' },
    }).then((r) => r.status)));
    const throttled = statuses.filter((x) => x === 429).length;
    assert.ok(throttled > 0, statuses.join());
    await until(page, (n) => document.querySelector("#stats-containers tbody td.warn")?.textContent === String(n), throttled);
    const report = await (await fetch(limited.endpoint + "_emulator/stats")).json();
    assert.equal(report.containers[0].total.throttled, throttled);
    const legend = await page.$$eval("#chart-throttling .u-series .u-label", (ls) => ls.map((l) => l.textContent));
    assert.deepEqual(legend.slice(1), ["429 answers"]);
  });

  test("the change feed as a live list", async (t) => {
    const { db, coll, container } = await containerWith(2, []);
    const page = await open(t, `${env.endpoint}_explorer/#/db/${db}/c/${coll}/changefeed`);
    await page.click("#cf-toggle");
    await new Promise((r) => setTimeout(r, 1500));
    await container.items.create({ id: "first", pk: "a" });
    await container.items.create({ id: "second", pk: "b" });
    await until(page, () => document.querySelectorAll("#cf-table tbody tr").length === 2);
    const ids = await page.$$eval("#cf-table tbody tr td:nth-child(2)", (tds) => tds.map((td) => td.textContent));
    assert.deepEqual(ids.sort(), ["first", "second"]);
    await page.click("#cf-toggle");
  });
});

describe("scripts and users", () => {
  test("save a stored procedure, run it with a partition key and arguments, read its log", async (t) => {
    const { db, coll, container } = await containerWith(1, []);
    const page = await open(t, `${env.endpoint}_explorer/#/db/${db}/c/${coll}/scripts`);
    await page.waitForSelector("#script-id");
    await page.type("#script-id", "hello");
    await page.click("#script-save");
    await until(page, () => document.querySelector("[role=status]")?.textContent.startsWith("Saved: "));
    const { resource } = await container.scripts.storedProcedure("hello").read();
    assert.match(resource.body, /response\.setBody\(\{ hello: name \}\)/);
    // The save reloads the list: the form is filled once the list shows the new procedure.
    await until(page, () => [...document.querySelectorAll("ul[aria-label='Stored procedures'] button")].some((b) => b.textContent === "hello"));
    await fill(page, "#sproc-pk", '"p1"');
    await fill(page, "#sproc-args", '["ana"]');
    await until(page, () => document.querySelector("#sproc-pk").value === '"p1"' && document.querySelector("#sproc-args").value === '["ana"]');
    // Clicked in the page, not at the coordinates the button had a moment before (the list's reload
    // can still move things): once on a loaded machine neither a result nor an error came.
    await page.$eval("#sproc-run", (b) => b.click());
    // The result, or the error the page shows instead (named in the failure).
    await page.waitForSelector("#sproc-result, #sproc-error");
    assert.equal(await page.$eval("#sproc-error", (e) => e.textContent).catch(() => null), null);
    const direct = await container.scripts.storedProcedure("hello").execute("p1", ["ana"]);
    assert.deepEqual(JSON.parse(await text(page, "#sproc-result pre")), direct.resource);
    assert.equal(await text(page, "#sproc-log"), "called with ana");
    await shot(page, "stored-procedure");
    // A script that throws: the service's message next to the button.
    await fill(page, "#sproc-args", "not json");
    await page.click("#sproc-run");
    await until(page, () => document.querySelector("#sproc-error")?.textContent.startsWith("Not JSON"));
  });

  test("users and permissions: the token a permission grants", async (t) => {
    const { db, coll, container } = await containerWith(1, [{ id: "a", pk: "p" }]);
    const page = await open(t, `${env.endpoint}_explorer/#/db/${db}/users`);
    await page.type("#user-id", "reader");
    await page.click("form.inline button[type=submit]");
    await until(page, () => document.querySelector("table[aria-label=Users]")?.textContent.includes("reader"));
    await page.click("table[aria-label=Users] button.link");
    await page.waitForSelector("#perm-id");
    await page.type("#perm-id", "read-c");
    await page.select("#perm-resource", `dbs/${db}/colls/${coll}`);
    await page.click("form[aria-labelledby=perm-title] button[type=submit]");
    await until(page, () => document.querySelector("table[aria-label=Permissions] code.token"));
    const token = await text(page, "table[aria-label=Permissions] code.token");
    const { resource } = await client.database(db).user("reader").permission("read-c").read();
    assert.equal(resource.permissionMode, "Read");
    // The token reads the container and nothing more.
    const { CosmosClient } = await import("../sdk/js/node_modules/@azure/cosmos/dist/esm/index.js");
    const limited = new CosmosClient({ endpoint: env.endpoint, resourceTokens: { [`dbs/${db}/colls/${coll}`]: token } });
    const read = await limited.database(db).container(coll).item("a", "p").read();
    assert.equal(read.resource.id, "a");
    assert.equal(resource.resource, `dbs/${db}/colls/${coll}`);
  });

  test("container settings: time to live and the indexing policy; errors shown as the service gives them", async (t) => {
    const { db, coll, container } = await containerWith(1, []);
    const page = await open(t, `${env.endpoint}_explorer/#/db/${db}/c/${coll}/settings`);
    await page.waitForSelector("#settings-ttl");
    await fill(page, "#settings-ttl", "3600");
    await fill(page, "#settings-retention", "60");
    await typeInEditor(page, "#settings-indexing", '{"indexingMode": "consistent", "includedPaths": [{"path": "/name/?"}], "excludedPaths": [{"path": "/*"}]}');
    await page.click("#settings-save");
    await until(page, () => [...document.querySelectorAll("[role=status]")].some((e) => e.textContent.startsWith("Saved: ")));
    const { resource } = await container.read();
    assert.equal(resource.defaultTtl, 3600);
    assert.deepEqual(resource.changeFeedPolicy, { retentionDuration: 60 });
    assert.deepEqual(resource.indexingPolicy.includedPaths.map((p) => p.path), ["/name/?"]);
    await typeInEditor(page, "#settings-indexing", '{"indexingMode": "sometimes"}');
    await page.click("#settings-save");
    await page.waitForSelector("#settings-error");
    const body = { ...resource, indexingPolicy: { indexingMode: "sometimes" } };
    const direct = await rawRequest(env, { method: "PUT", path: `/dbs/${db}/colls/${coll}`, body });
    assert.equal(direct.status, 400);
    assert.equal(await text(page, "#settings-error"), `400 ${direct.json.code}: ${plain(direct.json.message)}`);
    // Deleting the container (after a confirmation) leads back to its database.
    page.on("dialog", (d) => d.accept());
    await page.click("#settings-delete");
    await until(page, (d) => document.querySelector("main h1")?.textContent === `Database ${d}`, db);
    await assert.rejects(container.read(), (e) => e.code === 404);
  });
});

describe("local authorization disabled (--disable-local-auth)", () => {
  const WHY =
    "This emulator runs with local authorization disabled (--disable-local-auth): it refuses requests signed with " +
    "the account key (401), so this page cannot sign with it. Sign in with a Microsoft Entra ID token instead: paste " +
    "one on the Connect page (cosmos-emulator --issue-token --principal <object id> prints one).";
  const OID = "6f1d7a8e-0b1c-4c2d-9e3f-40a5b6c7d8e9";
  let seed;
  before(() => {
    seed = mkdtempSync(join(tmpdir(), "explorer-seed-"));
    writeFileSync(join(seed, "items.jsonl"), '{"id":"seeded1","pk":"a","n":1}\n{"id":"seeded2","pk":"b","n":2}\n');
    writeFileSync(join(seed, "manifest.json"), JSON.stringify({
      containers: [{ database: "app", container: "items", partitionKey: { paths: ["/pk"] }, data: "items.jsonl" }] }));
  });
  after(() => rmSync(seed, { recursive: true, force: true }));

  /** What every request the page sends carries as its Authorization header, while `page` is open;
   *  `sdk`: sent by the SDK (it names itself in x-ms-useragent, the page's own requests do not). */
  function authorizations(page) {
    const seen = [];
    page.on("request", (r) => {
      const url = new URL(r.url());
      const headers = r.headers();
      if (!url.pathname.startsWith("/_explorer/")) {
        seen.push({ path: url.pathname, authorization: headers.authorization, sdk: /cosmos-emulator-explorer/.test(headers["x-ms-useragent"] ?? "") });
      }
    });
    return seen;
  }

  /** Opens the page, pastes the token --issue-token prints, and waits for it to be accepted. */
  async function signIn(t, emulator) {
    const page = await open(t, emulator.endpoint + "_explorer/");
    const sent = authorizations(page);
    const token = execFileSync(EMULATOR_BIN, ["--issue-token", "--principal", OID], { encoding: "utf8" }).trim();
    await fill(page, "#token-input", token);
    await page.click("button[type=submit]");
    await until(page, () => document.querySelector("#token-status")?.textContent.startsWith("Token accepted: "));
    assert.match(await text(page, "#token-status"), new RegExp(`^Token accepted: principal ${OID}, expires `));
    return { page, sent };
  }

  test("the page says why it cannot sign, and sends no request, instead of a stream of 401s", async (t) => {
    const off = await startEmulator(["--disable-local-auth", "true", "--seed", seed]);
    t.after(() => off.stop());
    const html = await (await fetch(off.endpoint + "_explorer/")).text();
    const config = JSON.parse(html.match(/<script id="config" type="application\/json">(.*?)<\/script>/)[1]);
    assert.equal(config.disableLocalAuth, true);
    assert.match(html, /<td id="local-authorization">disabled: requests signed with a key answer 401; sign in with a Microsoft Entra ID token/);
    const page = await browser.newPage();
    t.after(() => page.close());
    const sent = authorizations(page);
    await page.goto(off.endpoint + "_explorer/", { waitUntil: "networkidle0" });
    await page.waitForSelector("#local-auth");
    assert.equal(await text(page, "#local-auth"), WHY);
    assert.equal(await page.$eval("#local-auth", (e) => e.getAttribute("role")), "alert");
    await until(page, () => document.querySelector(".tree .error"));
    assert.equal(await text(page, ".tree .error"), WHY);
    assert.equal(await page.$("#key-input"), null, "no key to enter");
    // Other views say the same, and nothing reaches the emulator.
    await page.goto(off.endpoint + "_explorer/#/db/app/c/items/items", { waitUntil: "networkidle0" });
    await until(page, () => document.querySelector("main .error"));
    assert.equal(await text(page, "main .error"), WHY);
    assert.deepEqual(sent, []);
    // What is pasted must be a token.
    await page.goto(off.endpoint + "_explorer/", { waitUntil: "networkidle0" });
    await fill(page, "#token-input", "not-a-token");
    await page.click("button[type=submit]");
    await until(page, () => document.querySelector("#token-error"));
    assert.equal(await text(page, "#token-error"),
      "This is not a token: a Microsoft Entra ID token (a JWT) is three base64url parts separated by dots.");
    assert.deepEqual(sent, []);
    await shot(page, "local-auth-disabled");
  });

  test("with a token (--issue-token): the page's requests and the SDK's carry it; roles apply; a reload keeps it", async (t) => {
    const off = await startEmulator(["--disable-local-auth", "true", "--seed", seed]);
    t.after(() => off.stop());
    const { page, sent } = await signIn(t, off);
    assert.equal(await page.$eval("#local-auth", (e) => e.getAttribute("role")), "note");
    await until(page, () => document.querySelector(".tree")?.textContent.includes("app"));
    // The items view lists through the SDK (tokenProvider over plain http); the page writes itself.
    await page.goto(off.endpoint + "_explorer/#/db/app/c/items/items");
    await until(page, () => document.querySelectorAll("table[aria-label=Items] tbody tr").length === 2);
    await typeInEditor(page, "#item-editor", '{"id": "fromPage", "pk": "c"}');
    await page.click("#item-save");
    await until(page, () => document.querySelector("#item-status")?.textContent.startsWith("Created: "));
    // A cross-partition query: the plan, then one request per range.
    await page.goto(off.endpoint + "_explorer/#/db/app/c/items/query");
    await page.waitForSelector("#query-editor");
    await typeInEditor(page, "#query-editor", "SELECT VALUE c.id FROM c ORDER BY c.id");
    await page.click("#query-run");
    await page.waitForSelector("#query-charge");
    assert.deepEqual(JSON.parse(await text(page, "#query-results")), ["fromPage", "seeded1", "seeded2"]);
    assert.ok(sent.filter((r) => r.sdk).length > 2 && sent.filter((r) => !r.sdk).length > 2, JSON.stringify(sent));
    // The page's own requests and, through its tokenProvider, the SDK's: URL-encoded, as .NET and Java send it.
    for (const r of sent) assert.match(r.authorization ?? "", /^type%3Daad%26ver%3D1\.0%26sig%3D/, r.path);
    // A management operation is refused to a token, with the service's message.
    await page.goto(off.endpoint + "_explorer/#/");
    await page.waitForSelector("#new-db-id");
    await page.type("#new-db-id", "other");
    await page.click("form[aria-labelledby=new-db-title] button[type=submit]");
    await until(page, () => document.querySelector("#new-db-error"));
    assert.match(await text(page, "#new-db-error"),
      /^403\/5300 Forbidden: Request blocked by Auth cosmosdev : The given request \[POST \/dbs\] cannot be authorized by AAD token in data plane\./);
    // The token stays for the tab.
    await page.reload({ waitUntil: "networkidle0" });
    await until(page, (oid) => document.querySelector("#token-status")?.textContent.startsWith(`Signed in as principal ${oid}`), OID);
    await until(page, () => document.querySelector(".tree")?.textContent.includes("app"));
  });

  test("over HTTPS the SDK takes the token as a token credential (aadCredentials)", async (t) => {
    const off = await startEmulator(["--disable-local-auth", "true", "--seed", seed], { scheme: "https" });
    t.after(() => off.stop());
    const { page, sent } = await signIn(t, off);
    await page.goto(off.endpoint + "_explorer/#/db/app/c/items/query");
    await page.waitForSelector("#query-editor");
    await typeInEditor(page, "#query-editor", "SELECT VALUE c.n FROM c ORDER BY c.n");
    await page.click("#query-run");
    await page.waitForSelector("#query-charge");
    assert.deepEqual(JSON.parse(await text(page, "#query-results")), [1, 2]);
    // The SDK's bearer-token policy sets the header as JavaScript applications send it, raw; the
    // page's own requests encode it.
    const sdk = sent.filter((r) => r.sdk);
    assert.ok(sdk.some((r) => r.path.endsWith("/docs")), JSON.stringify(sent));
    for (const r of sdk) assert.match(r.authorization ?? "", /^type=aad&ver=1\.0&sig=/, r.path);
    for (const r of sent.filter((r) => !r.sdk)) assert.match(r.authorization ?? "", /^type%3Daad%26ver%3D1\.0%26sig%3D/, r.path);
  });
});

describe("how the page is reached", () => {
  test("over HTTPS (Web Crypto needs a secure context; the emulator's certificate)", async (t) => {
    const secure = await startEmulator([], { scheme: "https" });
    t.after(() => secure.stop());
    const page = await open(t, secure.endpoint + "_explorer/");
    assert.ok(secure.endpoint.startsWith("https://"));
    await page.type("#new-db-id", "viaHttps");
    await page.click("form[aria-labelledby=new-db-title] button[type=submit]");
    await page.waitForSelector("#new-coll-id");
    assert.equal(await text(page, "main h1"), "Database viaHttps");
  });

  test("plain HTTP from another host name: the page says why it cannot sign", async (t) => {
    // A name other than localhost over http is not a secure context: no Web Crypto.
    const other = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--host-resolver-rules=MAP emulator.test 127.0.0.1"],
    });
    t.after(() => other.close());
    const page = await other.newPage();
    await page.goto(env.endpoint.replace("127.0.0.1", "emulator.test") + "_explorer/", { waitUntil: "networkidle0" });
    await page.waitForSelector("#key-error");
    assert.equal(await page.evaluate(() => isSecureContext), false);
    assert.equal(await text(page, "#key-error"),
      "This page cannot sign requests: the browser offers Web Crypto only to https pages and to http on localhost or 127.0.0.1.");
  });

  test("EXPLORER_PORT: the page on a port of its own, its requests answered there", async (t) => {
    const { default: net } = await import("node:net");
    const port = await new Promise((r) => {
      const s = net.createServer().listen(0, "127.0.0.1", () => {
        const p = s.address().port;
        s.close(() => r(p));
      });
    });
    const own = await startEmulator([], { env: { EXPLORER_PORT: String(port), EXPLORER_PROTOCOL: "http" } });
    t.after(() => own.stop());
    await newClient(own).databases.create({ id: "seen" });
    const page = await open(t, `http://127.0.0.1:${port}/`);
    await until(page, () => document.querySelector(".tree")?.textContent.includes("seen"));
    const html = await (await fetch(`http://127.0.0.1:${port}/`)).text();
    assert.ok(html.includes(`<code id="endpoint">${own.endpoint}</code>`));
  });

  test("every input is labelled; the views are reached by keyboard", async (t) => {
    const { db, coll } = await containerWith(1, []);
    for (const view of ["", `db/${db}`, `db/${db}/users`, ...["items", "query", "settings", "partitions", "scripts", "changefeed"].map((v) => `db/${db}/c/${coll}/${v}`), "stats"]) {
      const page = await open(t, `${env.endpoint}_explorer/#/${view}`);
      await page.waitForSelector("main h1");
      await new Promise((r) => setTimeout(r, 200));
      const unlabelled = await page.$$eval("input, select, textarea, [contenteditable=true]", (els) =>
        els.filter((e) => !(e.labels?.length || e.getAttribute("aria-label"))).map((e) => e.outerHTML.slice(0, 80)));
      assert.deepEqual(unlabelled, [], view);
    }
    const page = await open(t, `${env.endpoint}_explorer/#/db/${db}/c/${coll}/items`);
    await page.waitForSelector("#item-editor");
    // Tab from the start of the page reaches the tree, then the Query tab, by keyboard alone.
    await page.focus("body");
    let reached = false;
    for (let i = 0; i < 40 && !reached; i++) {
      await page.keyboard.press("Tab");
      reached = await page.evaluate(() => document.activeElement?.textContent === "Query" && document.activeElement.closest(".tabs") !== null);
    }
    assert.ok(reached, "the Query tab is reachable with Tab");
    await page.keyboard.press("Enter");
    await page.waitForSelector("#query-editor");
  });
});
