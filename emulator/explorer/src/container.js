// A container's settings (indexing policy, time to live, computed properties, throughput), its
// physical partitions (key ranges, items, storage and the request units spent on each), and its
// change feed as a live list.
import { useEffect, useRef, useState } from "preact/hooks";
import { html, ErrorNote, Field, useLoad, ru, partitionKeyOf, changed, go } from "./ui.js";
import { request, link, readAll } from "./rest.js";
import { sdk, sdkClient } from "./sdk.js";
import { Editor } from "./editor.js";

const pretty = (v) => JSON.stringify(v ?? null, null, 2);

function Throughput({ container }) {
  const offer = useLoad(async () => (await readAll("/offers", "Offers")).find((o) => o.offerResourceId === container._rid) ?? null, [container._rid]);
  const [value, setValue] = useState("");
  const [error, setError] = useState(null);
  const [status, setStatus] = useState(null);
  useEffect(() => {
    const c = offer.data?.content;
    if (c) setValue(String(c.offerAutopilotSettings?.maxThroughput ?? c.offerThroughput ?? ""));
  }, [offer.data]);
  if (offer.loading) return null;
  if (!offer.data) return html`<p>Throughput: shared with the database (or none set).</p>`;
  const autoscale = !!offer.data.content?.offerAutopilotSettings;
  const save = async (e) => {
    e.preventDefault();
    setError(null);
    const body = structuredClone(offer.data);
    if (autoscale) body.content.offerAutopilotSettings.maxThroughput = Number(value);
    else body.content.offerThroughput = Number(value);
    try {
      const res = await request({ method: "PUT", path: link("offers", offer.data.id), body, sign: { type: "offers", link: offer.data.id.toLowerCase() } });
      setStatus(`Saved: ${ru(res.charge)}`);
      offer.reload();
    } catch (err) {
      setError(err);
    }
  };
  return html`<form class="card inline" onSubmit=${save}>
    <${Field} label=${autoscale ? "Autoscale maximum (RU/s)" : "Throughput (RU/s)"} id="offer-throughput">
      <input id="offer-throughput" type="number" min="400" step="100" value=${value} onInput=${(e) => setValue(e.target.value)} />
    <//>
    <button type="submit">Save throughput</button>
    <${ErrorNote} error=${error} />
    ${status ? html`<p role="status">${status}</p>` : null}
  </form>`;
}

export function SettingsView({ db, coll, container, reloadContainer }) {
  const [indexing, setIndexing] = useState(pretty(container.indexingPolicy));
  const [computed, setComputed] = useState(pretty(container.computedProperties ?? []));
  const [ttl, setTtl] = useState(container.defaultTtl === undefined ? "" : String(container.defaultTtl));
  const [retention, setRetention] = useState(String(container.changeFeedPolicy?.retentionDuration ?? ""));
  const [error, setError] = useState(null);
  const [status, setStatus] = useState(null);
  const save = async () => {
    setError(null);
    setStatus(null);
    const body = structuredClone(container);
    for (const k of ["_rid", "_self", "_etag", "_ts", "_docs", "_sprocs", "_triggers", "_udfs", "_conflicts"]) delete body[k];
    try {
      body.indexingPolicy = JSON.parse(indexing);
      const cps = JSON.parse(computed);
      if (Array.isArray(cps) && cps.length === 0) delete body.computedProperties;
      else body.computedProperties = cps;
    } catch (e) {
      setError(`Not JSON: ${e.message}`);
      return;
    }
    if (ttl === "") delete body.defaultTtl;
    else body.defaultTtl = Number(ttl);
    if (retention === "") delete body.changeFeedPolicy;
    else body.changeFeedPolicy = { ...(body.changeFeedPolicy ?? {}), retentionDuration: Number(retention) };
    try {
      const res = await request({ method: "PUT", path: link("dbs", db, "colls", coll), body });
      setStatus(`Saved: ${ru(res.charge)}`);
      reloadContainer();
    } catch (e) {
      setError(e);
    }
  };
  const remove = async () => {
    if (!confirm(`Delete container ${coll} and its items?`)) return;
    setError(null);
    try {
      await request({ method: "DELETE", path: link("dbs", db, "colls", coll) });
      changed();
      go(`#/db/${encodeURIComponent(db)}`);
    } catch (e) {
      setError(e);
    }
  };
  return html`<div>
    <dl class="facts">
      <dt>Partition key</dt><dd><code>${container.partitionKey?.paths?.join(", ")}</code> (${container.partitionKey?.kind}, version ${container.partitionKey?.version ?? 1})</dd>
      <dt>Resource id</dt><dd><code>${container._rid}</code></dd>
      <dt>Unique keys</dt><dd><code>${JSON.stringify(container.uniqueKeyPolicy?.uniqueKeys ?? [])}</code></dd>
      <dt>Conflict resolution</dt><dd><code>${JSON.stringify(container.conflictResolutionPolicy ?? {})}</code></dd>
    </dl>
    <${Throughput} container=${container} />
    <${Field} label="Default time to live (seconds; -1: on, no default; empty: off)" id="settings-ttl">
      <input id="settings-ttl" type="number" min="-1" value=${ttl} onInput=${(e) => setTtl(e.target.value)} />
    <//>
    <${Field} label="Change feed retention for all versions and deletes (minutes; empty: latest version only)" id="settings-retention">
      <input id="settings-retention" type="number" min="0" value=${retention} onInput=${(e) => setRetention(e.target.value)} />
    <//>
    <h2>Indexing policy</h2>
    <${Editor} lang="json" label="Indexing policy" id="settings-indexing" value=${indexing} onChange=${setIndexing} rows=${12} />
    <h2>Computed properties</h2>
    <${Editor} lang="json" label="Computed properties" id="settings-computed" value=${computed} onChange=${setComputed} rows=${4} />
    <p class="toolbar"><button class="primary" onClick=${save} id="settings-save">Save settings</button>
      <button class="danger" onClick=${remove} id="settings-delete">Delete container</button></p>
    <${ErrorNote} error=${error} id="settings-error" />
    ${status ? html`<p role="status">${status}</p>` : null}
    <details><summary>The container as the service returns it</summary><pre class="results">${pretty(container)}</pre></details>
  </div>`;
}

export function PartitionsView({ db, coll, container }) {
  const data = useLoad(async () => {
    const [ranges, withStats, report] = await Promise.all([
      readAll(link("dbs", db, "colls", coll, "pkranges"), "PartitionKeyRanges"),
      request({ path: link("dbs", db, "colls", coll), headers: { "x-ms-documentdb-populatepartitionstatistics": "true" } }),
      request({ path: "/_emulator/stats", quiet: true }).then((r) => r.json),
    ]);
    const stats = new Map((withStats.json.statistics ?? []).map((s) => [s.id, s]));
    const spent = new Map(((report.containers ?? []).find((c) => c._rid === container._rid)?.partitions ?? []).map((p) => [p.id, p]));
    return ranges.map((r) => ({ ...r, stats: stats.get(r.id), spent: spent.get(r.id) }));
  }, [db, coll]);
  const rows = data.data ?? [];
  const maxRu = Math.max(1e-9, ...rows.map((r) => r.spent?.totalRU ?? 0));
  const maxKb = Math.max(1e-9, ...rows.map((r) => r.stats?.sizeInKB ?? 0));
  const meanRu = rows.length ? rows.reduce((s, r) => s + (r.spent?.totalRU ?? 0), 0) / rows.length : 0;
  return html`<div>
    <p>Each physical partition owns a range of effective partition key hashes. SDKs route by these ranges; a query
      without a partition key is sent to each of them.</p>
    <${ErrorNote} error=${data.error} />
    <div class="toolbar"><button onClick=${data.reload}>Refresh</button></div>
    <table class="grid" id="partitions-table" aria-label="Physical partitions">
      <thead><tr><th scope="col">Range id</th><th scope="col">Min (inclusive)</th><th scope="col">Max (exclusive)</th><th scope="col">Parents</th>
        <th scope="col">Items</th><th scope="col">Storage</th><th scope="col">Requests</th><th scope="col">RU spent</th></tr></thead>
      <tbody>${rows.map((r) => {
        const hot = rows.length > 1 && (r.spent?.totalRU ?? 0) > 1.5 * meanRu && meanRu > 0;
        return html`<tr class=${hot ? "hot" : ""}>
          <th scope="row">${r.id}${hot ? html` <span class="badge">hot</span>` : null}</th>
          <td class="epk"><code>${r.minInclusive === "" ? '""' : r.minInclusive}</code></td><td class="epk"><code>${r.maxExclusive}</code></td>
          <td>${(r.parents ?? []).join(", ")}</td>
          <td>${r.stats?.documentCount ?? ""}</td>
          <td class="num"><span class="bar" style=${`--w:${(100 * (r.stats?.sizeInKB ?? 0)) / maxKb}`}></span>${r.stats ? `${r.stats.sizeInKB} KB` : ""}</td>
          <td>${r.spent?.requests ?? 0}</td>
          <td class="num"><span class="bar ru" style=${`--w:${(100 * (r.spent?.totalRU ?? 0)) / maxRu}`}></span>${ru(r.spent?.totalRU ?? 0)}</td>
        </tr>`;
      })}</tbody>
    </table>
    <p class="muted">Items and storage: the container read with <code>x-ms-documentdb-populatepartitionstatistics</code>.
      RU spent: the RU report (<code>/_emulator/stats</code>) since the emulator started or was reset; a request that read several
      partitions counts a share of its charge on each.</p>
  </div>`;
}

export function ChangeFeedView({ db, coll, container }) {
  const [mode, setMode] = useState("latest");
  const [from, setFrom] = useState("now");
  const [running, setRunning] = useState(false);
  const [changes, setChanges] = useState([]);
  const [charge, setCharge] = useState(0);
  const [error, setError] = useState(null);
  const iterator = useRef(null);

  useEffect(() => {
    if (!running) return;
    let live = true;
    const all = mode === "all";
    const poll = async () => {
      try {
        const { cosmos } = await sdk();
        const { ChangeFeedStartFrom, ChangeFeedMode } = cosmos;
        iterator.current = (await sdkClient()).database(db).container(coll).items.getChangeFeedIterator({
          changeFeedStartFrom: from === "beginning" && !all ? ChangeFeedStartFrom.Beginning() : ChangeFeedStartFrom.Now(),
          changeFeedMode: all ? ChangeFeedMode.AllVersionsAndDeletes : ChangeFeedMode.LatestVersion,
          maxItemCount: 100,
        });
      } catch (e) {
        if (live) setError(e);
        return;
      }
      while (live) {
        try {
          const res = await iterator.current.readNext();
          if (!live) return;
          setCharge((x) => x + (res.requestCharge ?? 0));
          if (res.result?.length) setChanges((list) => [...res.result.slice().reverse(), ...list].slice(0, 500));
          if (res.statusCode === 304 || !res.result?.length) await new Promise((r) => setTimeout(r, 1000));
        } catch (e) {
          if (live) setError(e);
          return;
        }
      }
    };
    poll();
    return () => {
      live = false;
    };
  }, [running, mode, from, db, coll]);

  const pk = container.partitionKey;
  return html`<div>
    <div class="row">
      <${Field} label="Mode" id="cf-mode">
        <select id="cf-mode" value=${mode} disabled=${running} onChange=${(e) => setMode(e.target.value)}>
          <option value="latest">Latest version</option>
          <option value="all">All versions and deletes</option>
        </select>
      <//>
      <${Field} label="Start from" id="cf-from">
        <select id="cf-from" value=${from} disabled=${running || mode === "all"} onChange=${(e) => setFrom(e.target.value)}>
          <option value="now">Now</option>
          <option value="beginning">The beginning</option>
        </select>
      <//>
    </div>
    <div class="toolbar">
      <button class="primary" onClick=${() => { setError(null); setChanges([]); setCharge(0); setRunning(!running); }} id="cf-toggle">
        ${running ? "Stop" : "Start reading"}
      </button>
      <span role="status">${running ? "Reading: new changes appear at the top" : "Stopped"}; ${changes.length} changes, ${ru(charge)}</span>
    </div>
    <${ErrorNote} error=${error} id="cf-error" />
    <table class="grid compact" aria-label="Changes" id="cf-table">
      <thead><tr><th scope="col">Operation</th><th scope="col">id</th><th scope="col">Partition key</th><th scope="col">LSN</th><th scope="col">Time</th></tr></thead>
      <tbody>${changes.map((ch) => {
        const doc = ch.current ?? ch.previous ?? ch;
        const op = ch.metadata?.operationType ?? "create or replace";
        return html`<tr><td>${op}</td><td>${doc.id ?? ch.metadata?.id ?? ""}</td><td><code>${JSON.stringify(partitionKeyOf(doc, pk))}</code></td>
          <td>${ch.metadata?.lsn ?? doc._lsn ?? ""}</td><td>${doc._ts ? new Date(doc._ts * 1000).toLocaleTimeString() : ""}</td></tr>`;
      })}</tbody>
    </table>
  </div>`;
}
