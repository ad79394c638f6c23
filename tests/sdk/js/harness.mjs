// Shared test harness for the @azure/cosmos SDK tests.
//
// - startEmulator(): starts build/emulator/cosmos-emulator (or $COSMOS_EMULATOR_BIN) on a free port
//   (--port 0; the port is read back from its "Now listening on: http://host:port" line once it
//   printed "Started"; `scheme: "https"` picks the HTTPS one), or, when
//   $COSMOS_ENDPOINT is set, uses that endpoint with $COSMOS_KEY and starts nothing.
// - useEmulator(): node:test before/after hooks around startEmulator() for one test file.
// - rawRequest(): a signed (master key) HTTP request through fetch, for what the SDK cannot send.
// - emulatorClock(): reads or (signed) moves the emulator's clock.
// - charge helpers: the request-unit model of emulator/charge/charge.cpp.
import { spawn } from "node:child_process";
import { createHmac, randomBytes } from "node:crypto";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before } from "node:test";
import assert from "node:assert/strict";
import { CosmosClient } from "@azure/cosmos";

export const WELL_KNOWN_KEY =
  "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

const here = dirname(fileURLToPath(import.meta.url));
export const EMULATOR_BIN =
  process.env.COSMOS_EMULATOR_BIN || resolve(here, "../../../build/emulator/cosmos-emulator");

// True when the tests run against the local binary: emulator-model assertions (request charges)
// are only checked then.
export const LOCAL = !process.env.COSMOS_ENDPOINT;

/** Starts the emulator (or uses $COSMOS_ENDPOINT). Resolves to {endpoint, key, pid, stop()}.
 *  `scheme` picks the listener to return, `env` adds variables, `port: null` passes no --port,
 *  `nofile` starts it with that open-file limit (ulimit -n). */
export async function startEmulator(extraArgs = [], { scheme = "http", env = {}, port = "0", nofile } = {}) {
  if (!LOCAL) {
    let endpoint = process.env.COSMOS_ENDPOINT;
    if (!endpoint.endsWith("/")) endpoint += "/";
    return { endpoint, key: process.env.COSMOS_KEY || WELL_KNOWN_KEY, stop: async () => {}, log: () => "" };
  }
  const portArgs = port === null ? [] : ["--port", String(port)];
  const argv = ["--host", "127.0.0.1", ...portArgs, "--threads", "2", ...extraArgs];
  const [file, args] = nofile
    ? ["sh", ["-c", 'ulimit -n "$0" && exec "$@"', String(nofile), EMULATOR_BIN, ...argv]]
    : [EMULATOR_BIN, argv];
  const child = spawn(file, args, {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  let output = "";
  const endpoint = await new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`emulator did not start in 10 s:\n${output}`)), 10000);
    const onData = (chunk) => {
      output += chunk.toString();
      if (!/^Started\r?$/m.test(output)) return;
      const m = output.match(new RegExp(`^Now listening on: (${scheme}://\\S+)$`, "m"));
      clearTimeout(timer);
      if (m) resolvePromise(m[1] + "/");
      else reject(new Error(`no ${scheme} listener:\n${output}`));
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`emulator exited with ${code} before starting:\n${output}`));
    });
  });
  // onData (above) keeps appending the output after the start: log() has each line once.
  const killOnExit = () => child.kill("SIGKILL");
  process.on("exit", killOnExit);
  return {
    endpoint,
    key: WELL_KNOWN_KEY,
    pid: child.pid,
    log: () => output,
    // kill -9, resolved once the process is gone (its data directory's lock released).
    kill: async () => {
      process.off("exit", killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGKILL");
      await exited;
    },
    stop: async () => {
      process.off("exit", killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 3000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export function newClient(env, options = {}) {
  return new CosmosClient({
    endpoint: env.endpoint,
    key: env.key,
    connectionPolicy: { enableBackgroundEndpointRefreshing: false, ...(options.connectionPolicy || {}) },
    ...options,
  });
}

/**
 * Registers before/after hooks for the current test file. Returns a context object whose
 * `env` and `client` fields are filled in by the before hook. `setup(ctx)` runs after the
 * emulator is up and `teardown(ctx)` before it stops (in the same hooks: node 20 does not
 * serialise several root-level before hooks). `args` are extra emulator flags
 * (e.g. ["--script-timeout-ms", "1000"]; ignored with $COSMOS_ENDPOINT).
 */
export function useEmulator({ setup, teardown, args = [] } = {}) {
  const ctx = { env: null, client: null, clients: [] };
  before(async () => {
    ctx.env = await startEmulator(args);
    ctx.client = newClient(ctx.env);
    ctx.clients.push(ctx.client);
    if (setup) await setup(ctx);
  });
  after(async () => {
    if (teardown) {
      try {
        await teardown(ctx);
      } catch {
        // the emulator stops anyway
      }
    }
    for (const c of ctx.clients) {
      try {
        c.dispose();
      } catch {
        // already disposed
      }
    }
    if (ctx.env) await ctx.env.stop();
  });
  ctx.track = (client) => {
    ctx.clients.push(client);
    return client;
  };
  return ctx;
}

/** useEmulator() plus one database with a fresh id, created before the tests and deleted after
 *  them. With `containerId`, also one container in it (createDatabaseAndContainer). `onReady`
 *  receives {db, dbId[, container, containerResource]} and may seed data (it is awaited).
 *  `args` are extra emulator flags, as for useEmulator(). Returns the same ctx as useEmulator(). */
export function useEmulatorWithDatabase(onReady, { containerId, partitionKey, args } = {}) {
  let db;
  return useEmulator({
    args,
    setup: async ({ client }) => {
      let fixture;
      if (containerId) {
        fixture = await createDatabaseAndContainer(client, containerId, partitionKey);
      } else {
        const dbId = uid("db");
        fixture = { dbId, db: (await client.databases.create({ id: dbId })).database };
      }
      db = fixture.db;
      await onReady(fixture);
    },
    teardown: () => db.delete(),
  });
}

/** A unique resource id, so tests can also run against a shared real account. */
export function uid(prefix = "t") {
  return `${prefix}-${randomBytes(5).toString("hex")}`;
}

/** Creates a database with a fresh id and one container in it (partition key /pk unless given).
 *  Resolves to {dbId, db, container, containerResource}. */
export async function createDatabaseAndContainer(client, containerId, partitionKey = { paths: ["/pk"] }) {
  const dbId = uid("db");
  const db = (await client.databases.create({ id: dbId })).database;
  const res = await db.containers.create({ id: containerId, partitionKey });
  return { dbId, db, container: res.container, containerResource: res.resource };
}

// ---------------------------------------------------------------------------------------------
// Signed raw requests

export function rfc1123(date = new Date()) {
  return date.toUTCString(); // "Sat, 21 Nov 2026 05:28:38 GMT"
}

/** Resource type and link of a request path, as the service derives them (docs/protocol.md §2). */
export function resourceAddress(path) {
  const p = path.split("?")[0];
  const segs = p
    .split("/")
    .filter((s) => s.length > 0)
    .map((s) => decodeURIComponent(s));
  if (segs.length === 0) return { type: "", link: "" };
  if (segs.length % 2 === 0) return { type: segs[segs.length - 2], link: segs.join("/") };
  return { type: segs[segs.length - 1], link: segs.slice(0, -1).join("/") };
}

export function signature(key, verb, type, link, date) {
  const text = `${verb.toLowerCase()}\n${type.toLowerCase()}\n${link}\n${date.toLowerCase()}\n\n`;
  const sig = createHmac("sha256", Buffer.from(key, "base64")).update(text, "utf8").digest("base64");
  return encodeURIComponent(`type=master&ver=1.0&sig=${sig}`);
}

/**
 * Sends one request with master-key auth.
 * opts: {method, path (already URL-encoded), headers, body (string | object), date (Date or string),
 *        key, auth:false to omit authorization, sign:{type,link} to override what is signed,
 *        signal: an AbortSignal that drops the connection}
 * Returns {status, headers (lower-case object), text, json}.
 */
export async function rawRequest(env, opts) {
  const method = (opts.method || "GET").toUpperCase();
  const path = opts.path || "/";
  const date = typeof opts.date === "string" ? opts.date : rfc1123(opts.date || new Date());
  const headers = {
    "x-ms-version": "2020-07-15",
    "x-ms-date": date,
    accept: "application/json",
  };
  if (opts.auth !== false) {
    const addr = opts.sign || resourceAddress(path);
    headers.authorization = signature(opts.key || env.key, method, addr.type, addr.link, date);
  }
  let body = opts.body;
  if (body !== undefined && typeof body !== "string" && !(body instanceof Uint8Array)) body = JSON.stringify(body);
  if (body !== undefined) headers["content-type"] = "application/json";
  Object.assign(headers, opts.headers || {});
  for (const [k, v] of Object.entries(headers)) if (v === undefined) delete headers[k];
  const url = env.endpoint.replace(/\/$/, "") + path;
  const res = await fetch(url, { method, headers, body, signal: opts.signal });
  const text = await res.text();
  let json;
  try {
    json = text.length ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  const h = {};
  res.headers.forEach((v, k) => (h[k] = v));
  return { status: res.status, headers: h, text, json };
}

/**
 * The emulator's clock (docs/change-feed.md): GET it (open) or, with a body, POST it signed with the
 * master key (resource type "_emulator", link "_emulator/clock", as resourceAddress derives them).
 * Returns {status, json}.
 */
export async function emulatorClock(env, body) {
  if (body === undefined) return rawRequest(env, { path: "/_emulator/clock", auth: false });
  return rawRequest(env, { method: "POST", path: "/_emulator/clock", body });
}

/** Path of an item (ids are URL-encoded per segment). */
export function docPath(db, coll, id) {
  const base = `/dbs/${encodeURIComponent(db)}/colls/${encodeURIComponent(coll)}/docs`;
  return id === undefined ? base : `${base}/${encodeURIComponent(id)}`;
}

/** The partition key header value for a single-path key, non-ASCII escaped as the SDKs send it. */
export function pkHeader(...values) {
  return JSON.stringify(values).replace(/[\u007f-\uffff]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
}

// ---------------------------------------------------------------------------------------------
// Request charges (emulator/charge/charge.cpp, docs/request-units.md)

const SYSTEM_NOT_INDEXED = new Set(["_rid", "_self", "_etag", "_attachments"]);

/** Index terms with the default policy: one per leaf (each array element), `_ts` and `id` included. */
export function countTerms(doc) {
  let terms = 0;
  const walk = (v) => {
    if (v !== null && typeof v === "object") {
      const entries = Array.isArray(v) ? v : Object.values(v);
      if (entries.length === 0) {
        terms++;
        return;
      }
      for (const e of entries) walk(e);
      return;
    }
    terms++;
  };
  for (const [k, v] of Object.entries(doc)) {
    if (SYSTEM_NOT_INDEXED.has(k)) continue;
    walk(v);
  }
  return terms;
}

export const round2 = (x) => Math.round(x * 100) / 100;

/** KB of a stored item: byte length of its JSON text as returned / 1024. */
export function kbOf(docOrText) {
  const text = typeof docOrText === "string" ? docOrText : JSON.stringify(docOrText);
  return Buffer.byteLength(text, "utf8") / 1024;
}

/** Create = 4.6 + 0.6 KB + 0.38 T, unrounded; `terms` defaults to the default policy's count. */
const createModel = (docOrText, terms) => 4.6 + 0.6 * kbOf(docOrText) + 0.38 * terms;
export function createCharge(doc, text) {
  return round2(createModel(text ?? doc, countTerms(doc)));
}
/** The create charge of `doc` under a policy that indexes `terms` terms. */
export function createChargeWithTerms(doc, terms) {
  return round2(createModel(doc, terms));
}
export function replaceCharge(doc, text) {
  return round2(1.85 * createModel(text ?? doc, countTerms(doc)));
}
export const deleteCharge = createCharge;
export function readCharge(doc, text) {
  return round2(Math.max(1, 1 + 0.1 * (kbOf(text ?? doc) - 1)));
}
export function feedCharge(docs) {
  const kb = docs.reduce((s, d) => s + kbOf(d), 0);
  return round2(2.7 + 0.1 * docs.length + 0.068 * kb);
}
export const REJECTED_WRITE = 1.24;
export const METADATA_READ = 2;
export const METADATA_WRITE = 1;

/** Asserts a request charge (only against the local emulator: a real account charges differently). */
export function assertCharge(actual, expected, what = "request charge") {
  if (!LOCAL) return;
  assert.equal(Number(actual), expected, `${what}: got ${actual}, expected ${expected}`);
}

/** Session token format of a single-partition container: "0:-1#<lsn>". Returns the lsn. */
export function assertSessionToken(token) {
  assert.match(String(token), /^0:-1#\d+$/);
  return Number(String(token).split("#")[1]);
}

/** Runs fn, expects it to reject with an ErrorResponse of the given HTTP status; returns the error. */
export async function expectError(fn, status, bodyCode, substatus) {
  let err;
  try {
    await fn();
  } catch (e) {
    err = e;
  }
  assert.ok(err, `expected an error with status ${status}, got success`);
  assert.equal(err.code, status, `status: ${err.code} ${JSON.stringify(err.body)}`);
  if (bodyCode !== undefined) assert.equal(err.body?.code, bodyCode);
  if (substatus !== undefined) assert.equal(err.substatus, substatus);
  return err;
}
