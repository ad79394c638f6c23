// The page's REST client: every request signed with the account key in the browser (the master-key
// signature of docs/protocol.md §2, HMAC-SHA256 through Web Crypto), or, on an emulator with local
// authorization disabled, carrying a Microsoft Entra ID token the user gave (docs/entra-id.md);
// sent to the page's own origin, and recorded in the request log with its status, charge and
// partition key range.

export const WELL_KNOWN_KEY =
  "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";
export const API_VERSION = "2020-07-15";

let keyText = null;
let cryptoKey = null;
let token = null; // {jwt, oid, exp}: the Entra ID token requests carry instead of a key signature
// Why requests cannot be signed with a key: set when the emulator refuses keys (local authorization
// disabled), and said instead of sending requests that would only answer 401.
let keyRefusal = null;

/** Sets the key requests are signed with; throws when it is not base64. */
export async function setKey(base64) {
  if (keyRefusal) throw new Error(keyRefusal);
  const raw = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  if (!globalThis.crypto?.subtle) {
    throw new Error("This page cannot sign requests: the browser offers Web Crypto only to https pages and to http on localhost or 127.0.0.1.");
  }
  cryptoKey = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  keyText = base64;
}
export const currentKey = () => keyText;

/** Signs with no key from now on: `why` is what the page says instead (local authorization disabled). */
export function refuseKeys(why) {
  keyRefusal = why;
  keyText = null;
  cryptoKey = null;
}

function base64UrlJson(segment) {
  const b64 = segment.replace(/-/g, "+").replace(/_/g, "/");
  const bin = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  return JSON.parse(new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0))));
}

/**
 * Sets the Microsoft Entra ID token requests carry (Authorization: type=aad&ver=1.0&sig=<token>, as
 * the SDKs send a token credential's); throws when it is not a JWT. The emulator checks it; the page
 * reads only its principal (oid) and expiry (exp) to show them.
 */
export function setToken(jwt) {
  const parts = jwt.split(".");
  let claims;
  try {
    if (parts.length !== 3) throw new Error();
    claims = base64UrlJson(parts[1]);
  } catch {
    throw new Error("This is not a token: a Microsoft Entra ID token (a JWT) is three base64url parts separated by dots.");
  }
  token = { jwt, oid: typeof claims.oid === "string" ? claims.oid : null, exp: typeof claims.exp === "number" ? claims.exp : null };
}
export const currentToken = () => token;
/** What requests are signed with now, for what must reload when it changes. */
export const credentialId = () => token?.jwt ?? keyText;

/** Resource type and link a path is signed with, as the service derives them. */
export function resourceAddress(path) {
  const segs = path.split("?")[0].split("/").filter((s) => s.length > 0).map((s) => decodeURIComponent(s));
  if (segs.length === 0) return { type: "", link: "" };
  if (segs.length % 2 === 0) return { type: segs[segs.length - 2], link: segs.join("/") };
  return { type: segs[segs.length - 1], link: segs.slice(0, -1).join("/") };
}

/** The authorization token (not yet URL-encoded) for one request. */
export async function sign(verb, type, link, date) {
  if (token) return `type=aad&ver=1.0&sig=${token.jwt}`;
  if (keyRefusal) throw new Error(keyRefusal);
  if (!cryptoKey) throw new Error("No key: enter the emulator's key on the Connect page.");
  const text = `${verb.toLowerCase()}\n${type.toLowerCase()}\n${link}\n${date.toLowerCase()}\n\n`;
  const mac = await crypto.subtle.sign("HMAC", cryptoKey, new TextEncoder().encode(text));
  let bin = "";
  for (const b of new Uint8Array(mac)) bin += String.fromCharCode(b);
  return `type=master&ver=1.0&sig=${btoa(bin)}`;
}

// ---------------------------------------------------------------------------------------------
// The request log: the last entries, newest last; listeners re-render on change.

const LOG_LIMIT = 300;
export const requestLog = [];
const listeners = new Set();
let nextId = 1;
export function onLog(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}
export function record(entry) {
  entry.id = nextId++;
  entry.at = new Date();
  requestLog.push(entry);
  if (requestLog.length > LOG_LIMIT) requestLog.splice(0, requestLog.length - LOG_LIMIT);
  for (const fn of listeners) fn(entry);
  return entry;
}

/** An error the service answered: status, substatus, code and message as its body gave them. */
export class ServiceError extends Error {
  constructor(status, substatus, code, message, headers = {}) {
    super(message || code || `HTTP ${status}`);
    this.status = status;
    this.substatus = substatus;
    this.code = code;
    this.headers = headers;
  }
}

/** Removes the "\r\nActivityId: ..." lines the service appends to messages. */
export function plainMessage(message) {
  return String(message ?? "").replace(/\r?\nActivityId:[\s\S]*$/, "").trim();
}

/** The message to show for any failure: the service's message when it answered. */
export function errorText(e) {
  if (e instanceof ServiceError) return `${e.status}${e.substatus ? "/" + e.substatus : ""} ${e.code ?? ""}: ${plainMessage(e.message)}`;
  if (e && typeof e.code === "number" && e.body) {
    // An error from @azure/cosmos: the service's status and body.
    return `${e.code}${e.substatus ? "/" + e.substatus : ""} ${e.body.code ?? ""}: ${plainMessage(e.body.message ?? e.message)}`;
  }
  return String(e?.message ?? e);
}

/**
 * Sends one signed request. opts: {method, path (URL-encoded, from the root), headers, body (string
 * or object), sign: {type, link} to override what is signed}. Resolves to {status, headers, json,
 * text, charge}; a status of 400 and above rejects with a ServiceError.
 */
export async function request(opts) {
  const method = (opts.method || "GET").toUpperCase();
  const path = opts.path;
  const date = new Date().toUTCString();
  const addr = opts.sign || resourceAddress(path);
  const headers = {
    "x-ms-version": API_VERSION,
    "x-ms-date": date,
    accept: "application/json",
    authorization: encodeURIComponent(await sign(method, addr.type, addr.link, date)),
  };
  let body = opts.body;
  if (body !== undefined && typeof body !== "string") body = JSON.stringify(body);
  if (body !== undefined) headers["content-type"] = "application/json";
  Object.assign(headers, opts.headers || {});
  const started = performance.now();
  const entry = { method, path, range: headers["x-ms-documentdb-partitionkeyrangeid"], source: "page" };
  let res;
  try {
    res = await fetch(path, { method, headers, body });
  } catch (e) {
    if (!opts.quiet) record({ ...entry, status: 0, ms: performance.now() - started, error: String(e) });
    throw e;
  }
  const text = await res.text();
  const h = {};
  res.headers.forEach((v, k) => (h[k] = v));
  const charge = Number(h["x-ms-request-charge"] ?? 0);
  if (!opts.quiet) record({ ...entry, status: res.status, substatus: Number(h["x-ms-substatus"] ?? 0), charge, ms: performance.now() - started });
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (res.status >= 400) {
    throw new ServiceError(res.status, Number(h["x-ms-substatus"] ?? 0), json?.code, json?.message ?? text, h);
  }
  return { status: res.status, headers: h, json, text, charge };
}

/** Encodes each id of a resource path: link("dbs", db, "colls", c) -> "/dbs/db/colls/c". */
export function link(...parts) {
  return "/" + parts.map((p) => encodeURIComponent(p)).join("/");
}

/** Every page of a feed (GET) as one array of its `key` member. */
export async function readAll(path, key) {
  const out = [];
  let continuation;
  do {
    const headers = continuation ? { "x-ms-continuation": continuation } : {};
    const res = await request({ path, headers });
    out.push(...(res.json?.[key] ?? []));
    continuation = res.headers["x-ms-continuation"];
  } while (continuation);
  return out;
}
