// The official JavaScript SDK (@azure/cosmos) in the page, for what needs its client-side
// pipelines: cross-partition queries (the query plan, one request per partition key range, merged
// as every SDK merges them) and the change feed. It signs with the same key through Web Crypto, and
// its requests go through the page's request log like the page's own.
import { currentKey, record } from "./rest.js";

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

let cached = null;
/** A client for the page's origin with the current key (made again when the key changes). */
export async function sdkClient() {
  const { cosmos, pipeline } = await sdk();
  const key = currentKey();
  if (cached && cached.key === key) return cached.client;
  const client = new cosmos.CosmosClient({
    endpoint: location.origin,
    key,
    // The page talks to the origin it came from (the gateway, or the explorer port that answers
    // for it), whatever endpoint the account document names.
    connectionPolicy: { enableEndpointDiscovery: false },
    httpClient: loggingHttpClient(pipeline.createDefaultHttpClient),
    userAgentSuffix: "cosmos-emulator-explorer",
  });
  cached = { key, client };
  return client;
}
