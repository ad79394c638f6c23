// The query view: SQL with parameters, run through the SDK's query pipeline page by page; each page's
// charge and the total, every request the SDK sent for it (the partition key range, its status, its
// charge and its query metrics: documents retrieved, index use), the partitions touched, and the
// query plan. A query the gateway cannot serve whole shows its refusal (400) before the per-range
// requests: that is how every SDK learns it must run the plan.
import { useRef, useState } from "preact/hooks";
import { html, ErrorNote, Field, ru } from "./ui.js";
import { request, link } from "./rest.js";
import { sdkClient, watchSdk } from "./sdk.js";
import { Editor } from "./editor.js";

const FEATURES =
  "NonValueAggregate, Aggregate, Distinct, MultipleOrderBy, OffsetAndLimit, OrderBy, Top, CompositeAggregate, GroupBy, MultipleAggregates, NonStreamingOrderBy, HybridSearch, CountIf, WeightedRankFusion";

/** "a=1;b=2.5" -> {a: 1, b: 2.5} */
export function parseMetrics(header) {
  const out = {};
  for (const part of String(header ?? "").split(";")) {
    const [k, v] = part.split("=");
    if (k && v !== undefined) out[k.trim()] = Number(v);
  }
  return out;
}

function parseJson(text, what) {
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`${what} is not JSON: ${e.message}`);
  }
}

export function QueryView({ db, coll, container }) {
  const [text, setText] = useState("SELECT * FROM c");
  const [params, setParams] = useState("[]");
  const [pkText, setPkText] = useState("");
  const [maxItems, setMaxItems] = useState("100");
  const [pages, setPages] = useState([]);
  const [rows, setRows] = useState([]);
  const [plan, setPlan] = useState(null);
  const [error, setError] = useState(null);
  const [more, setMore] = useState(false);
  const [busy, setBusy] = useState(false);
  const iterator = useRef(null);

  const nextPage = async () => {
    const sent = [];
    const stop = watchSdk((e) => e.query && !e.plan && sent.push(e));
    try {
      const page = await iterator.current.fetchNext();
      setPages((p) => [...p, { n: p.length + 1, charge: page.requestCharge, count: page.resources.length, requests: sent }]);
      setRows((r) => [...r, ...page.resources]);
      setMore(page.hasMoreResults);
    } finally {
      stop();
    }
  };

  const run = async () => {
    setError(null);
    setPages([]);
    setRows([]);
    setPlan(null);
    setMore(false);
    setBusy(true);
    try {
      const parameters = parseJson(params, "Parameters") ?? [];
      const partitionKey = parseJson(pkText, "Partition key");
      const spec = { query: text, parameters };
      const options = { maxItemCount: Number(maxItems) || 100, populateQueryMetrics: true };
      if (partitionKey !== undefined) options.partitionKey = partitionKey;
      // The plan, as the gateway gives it to every SDK (what runs per partition, and how the pages merge).
      const planned = request({
        method: "POST",
        path: link("dbs", db, "colls", coll, "docs"),
        body: spec,
        headers: {
          "content-type": "application/query+json",
          "x-ms-documentdb-isquery": "True",
          "x-ms-documentdb-query-enablecrosspartition": "True",
          "x-ms-cosmos-is-query-plan-request": "True",
          "x-ms-cosmos-supported-query-features": FEATURES,
          "x-ms-cosmos-query-version": "1.4",
        },
      }).catch(() => null); // a query the service refuses has its error shown from the SDK's answer
      iterator.current = (await sdkClient()).database(db).container(coll).items.query(spec, options);
      await nextPage();
      setPlan((await planned)?.json ?? null);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const next = async () => {
    setBusy(true);
    try {
      await nextPage();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  const total = pages.reduce((s, p) => s + p.charge, 0);
  const ranges = [...new Set(pages.flatMap((p) => p.requests.map((r) => r.range).filter((x) => x !== null && x !== undefined)))]
    .sort((a, b) => Number(a) - Number(b));
  const backend = pages.flatMap((p) => p.requests.map((r) => ({ page: p.n, ...r, m: parseMetrics(r.metrics) })));
  const retrieved = backend.reduce((s, r) => s + (r.m.retrievedDocumentCount || 0), 0);
  const indexed = backend.some((r) => r.m.indexUtilizationRatio > 0);

  return html`<div>
    <${Editor} lang="sql" label="Query" id="query-editor" value=${text} onChange=${setText} rows=${5} onRun=${run} />
    <${ErrorNote} error=${error} id="query-error" />
    <div class="row">
      <${Field} label="Parameters (JSON array of {name, value})" id="query-params">
        <input id="query-params" placeholder='[{"name": "@p", "value": 1}]' value=${params} onInput=${(e) => setParams(e.target.value)} />
      <//>
      <${Field} label="Partition key (JSON, optional)" id="query-pk">
        <input id="query-pk" placeholder='"key" or ["a", "b"]' value=${pkText} onInput=${(e) => setPkText(e.target.value)} />
      <//>
      <${Field} label="Items per page" id="query-max">
        <input id="query-max" type="number" min="1" value=${maxItems} onInput=${(e) => setMaxItems(e.target.value)} />
      <//>
    </div>
    <div class="toolbar">
      <button class="primary" onClick=${run} disabled=${busy} id="query-run">Run query (Ctrl+Enter)</button>
      <button onClick=${next} disabled=${busy || !more} id="query-next">Next page</button>
    </div>
    ${pages.length
      ? html`<div class="stats" role="status" id="query-stats">
          <span>Total charge <strong id="query-charge">${ru(total)}</strong></span>
          <span>${rows.length} results in ${pages.length} page${pages.length === 1 ? "" : "s"}${more ? " (more)" : ""}</span>
          <span>Partitions touched: <strong id="query-ranges">${ranges.length ? ranges.join(", ") : "one, by its partition key"}</strong></span>
          <span>Documents retrieved: ${retrieved}</span>
          <span>Filter used the index: <strong>${backend.length === 0 ? "n/a" : indexed ? "yes" : retrieved === 0 ? "nothing read" : "no (scan)"}</strong></span>
        </div>`
      : null}
    ${pages.length
      ? html`<table class="grid compact" aria-label="Requests per page">
          <thead><tr><th scope="col">Page</th><th scope="col">Range</th><th scope="col">Status</th><th scope="col">Items</th><th scope="col">Charge</th><th scope="col">Retrieved</th><th scope="col">Output</th><th scope="col">Index hit ratio</th><th scope="col">Execution ms</th></tr></thead>
          <tbody>${backend.map(
            (r) => html`<tr class=${r.status >= 400 ? "bad" : ""}><td>${r.page}</td><td>${r.range ?? "(none)"}</td>
              <td>${r.status}${r.substatus ? "/" + r.substatus : ""}</td><td>${r.items ?? ""}</td><td>${ru(r.charge)}</td>
              <td>${r.m.retrievedDocumentCount ?? ""}</td><td>${r.m.outputDocumentCount ?? ""}</td><td>${r.m.indexUtilizationRatio ?? ""}</td>
              <td>${r.m.totalExecutionTimeInMs ?? ""}</td></tr>`,
          )}</tbody>
          <tfoot>${pages.map((p) => html`<tr><th scope="row">Page ${p.n}</th><td colspan="3">${p.count} results</td><td>${ru(p.charge)}</td><td colspan="4"></td></tr>`)}</tfoot>
        </table>`
      : null}
    ${pages.length ? html`<h2>Results</h2><pre class="results" id="query-results" tabindex="0">${JSON.stringify(rows, null, 2)}</pre>` : null}
    ${plan
      ? html`<details><summary>Query plan</summary><pre class="results" id="query-plan">${JSON.stringify(plan, null, 2)}</pre></details>`
      : null}
  </div>`;
}
