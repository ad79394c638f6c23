// The official JavaScript SDK (@azure/cosmos) in the page, for what needs its client-side
// pipelines: cross-partition queries (the query plan, one request per partition key range, merged
// as every SDK merges them) and the change feed. It signs with the same key through Web Crypto, or
// sends the same Entra ID token, and its requests go through the page's request log like the page's
// own.
import { currentKey, currentToken, credentialId, record } from "./rest.js";

// Loaded on first use: the SDK refuses to load where the browser has no Web Crypto (a page over
// plain HTTP from a host other than localhost), and the page must still say why.
let loaded = null;
/** The SDK's module (for ChangeFeedStartFrom and the like). */
export async function sdk() {
  loaded ??= import("./sdk-load.js");
  const module = await loaded;
  return { cosmos: module, pipeline: module };
}

const QUERY_HEADERS = ["x-ms-documentdb-isquery", "x-ms-cosmos-is-query-plan-request"];

/** Watchers see each response the SDK received: {entry, request, response}. */
const watchers = new Set();
export function watchSdk(fn) {
  watchers.add(fn);
  return () => watchers.delete(fn);
}

function loggingHttpClient(createDefaultHttpClient) {
  const inner = createDefaultHttpClient();
  return {
    async sendRequest(req) {
      const started = performance.now();
      const url = new URL(req.url);
      const entry = {
        method: req.method,
        path: url.pathname,
        range: req.headers.get("x-ms-documentdb-partitionkeyrangeid"),
        source: "sdk",
        query: QUERY_HEADERS.some((h) => req.headers.get(h)?.toLowerCase() === "true"),
        plan: req.headers.get("x-ms-cosmos-is-query-plan-request")?.toLowerCase() === "true",
      };
      try {
        const res = await inner.sendRequest(req);
        Object.assign(entry, {
          status: res.status,
          substatus: Number(res.headers.get("x-ms-substatus") ?? 0),
          charge: Number(res.headers.get("x-ms-request-charge") ?? 0),
          ms: performance.now() - started,
          metrics: res.headers.get("x-ms-documentdb-query-metrics") ?? undefined,
          items: res.headers.get("x-ms-item-count") ?? undefined,
        });
        record(entry);
        for (const w of watchers) w(entry);
        return res;
      } catch (e) {
        record({ ...entry, status: 0, ms: performance.now() - started, error: String(e?.message ?? e) });
        throw e;
      }
    },
  };
}

/**
 * How the SDK authorizes with the page's Entra ID token: over https as applications do, a token
 * credential (aadCredentials); over plain http, where the SDK's bearer-token policy refuses to send
 * a token (core-rest-pipeline: "Bearer token authentication is not permitted for non-TLS protected
 * (non-https) URLs"), the SDK's tokenProvider hook with the same header value.
 */
function tokenAuth(t) {
  if (location.protocol === "https:") {
    const expiresOnTimestamp = t.exp ? t.exp * 1000 : Date.now() + 3600_000;
    return { aadCredentials: { getToken: async () => ({ token: t.jwt, expiresOnTimestamp }) } };
  }
  return { tokenProvider: async () => `type=aad&ver=1.0&sig=${t.jwt}` };
}

let cached = null;
/** A client for the page's origin with the current key or token (made again when it changes). */
export async function sdkClient() {
  const { cosmos, pipeline } = await sdk();
  const id = credentialId();
  if (cached && cached.id === id) return cached.client;
  const token = currentToken();
  const client = new cosmos.CosmosClient({
    endpoint: location.origin,
    ...(token ? tokenAuth(token) : { key: currentKey() }),
    // The page talks to the origin it came from (the gateway, or the explorer port that answers
    // for it), whatever endpoint the account document names.
    connectionPolicy: { enableEndpointDiscovery: false },
    httpClient: loggingHttpClient(pipeline.createDefaultHttpClient),
    userAgentSuffix: "cosmos-emulator-explorer",
  });
  cached = { id, client };
  return client;
}
