// The RU report (/_emulator/stats) as charts: request units per operation and per query shape, and
// throttled requests, over time (sampled every two seconds while the page is open), per-container
// totals, and the queries that fanned out to every physical partition.
import { useEffect, useRef, useState } from "preact/hooks";
import uPlot from "uplot";
import { html, ErrorNote, ru } from "./ui.js";
import { request } from "./rest.js";

const COLORS = ["#0b6bcb", "#c2410c", "#15803d", "#9333ea", "#b91c1c", "#0f766e", "#a16207", "#475569"];
const INTERVAL_MS = 2000;
const KEEP = 300; // samples: ten minutes

// Samples kept while the page is open: {t (seconds), ops: {name: totalRU}, queries: {...},
// throttles: {"429 answers": count}}, each a running total.
const samples = [];
let latest = null;
const subscribers = new Set();
let timer = null;

async function sample() {
  try {
    // Signed: with a key of the user's own the report is not open to anyone (docs/emulator-stats.md).
    const res = await request({ path: "/_emulator/stats", quiet: true });
    latest = { report: res.json, error: null };
  } catch (e) {
    latest = { report: latest?.report, error: e };
  }
  const s = { t: Date.now() / 1000, ops: {}, queries: {}, throttles: { "429 answers": 0 } };
  for (const c of latest.report?.containers ?? []) {
    for (const o of c.operations ?? []) s.ops[o.operation] = (s.ops[o.operation] ?? 0) + o.totalRU;
    for (const q of c.queries ?? []) s.queries[q.query] = (s.queries[q.query] ?? 0) + q.totalRU;
    s.throttles["429 answers"] += c.total?.throttled ?? 0;
  }
  samples.push(s);
  if (samples.length > KEEP) samples.shift();
  for (const fn of subscribers) fn();
}

function useSamples() {
  const [, setN] = useState(0);
  useEffect(() => {
    const fn = () => setN((x) => x + 1);
    subscribers.add(fn);
    if (!timer) {
      sample();
      timer = setInterval(sample, INTERVAL_MS);
    }
    return () => {
      subscribers.delete(fn);
      if (subscribers.size === 0) {
        clearInterval(timer);
        timer = null;
      }
    };
  }, []);
}

/** What each interval added, per name, for the `top` names with the largest totals. */
function rates(field, top) {
  const last = samples[samples.length - 1]?.[field] ?? {};
  const names = Object.keys(last).sort((a, b) => last[b] - last[a]).slice(0, top);
  const times = samples.slice(1).map((s) => s.t);
  const series = names.map((n) => samples.slice(1).map((s, i) => Math.max(0, (s[field][n] ?? 0) - (samples[i][field][n] ?? 0))));
  return { names, times, series };
}

function Chart({ title, id, data, unit = "RU per 2 s" }) {
  const host = useRef(null);
  const plot = useRef(null);
  const key = data.names.join("\n");
  useEffect(() => {
    const width = Math.max(320, host.current.clientWidth || 640);
    plot.current = new uPlot(
      {
        title,
        width,
        height: 220,
        series: [{}, ...data.names.map((n, i) => ({ label: n.length > 60 ? n.slice(0, 57) + "..." : n, stroke: COLORS[i % COLORS.length], width: 2 }))],
        axes: [{}, { label: unit }],
        scales: { x: { time: true } },
      },
      [data.times, ...data.series],
      host.current,
    );
    return () => plot.current.destroy();
  }, [key]);
  useEffect(() => {
    plot.current?.setData([data.times, ...data.series]);
  });
  return html`<figure class="chart" id=${id}><div ref=${host} role="img" aria-label=${title}></div></figure>`;
}

export function StatsView() {
  useSamples();
  const [error, setError] = useState(null);
  const report = latest?.report;
  const reset = async () => {
    setError(null);
    try {
      await request({ method: "DELETE", path: "/_emulator/stats" });
      samples.length = 0;
      sample();
    } catch (e) {
      setError(e);
    }
  };
  const containers = report?.containers ?? [];
  const fanOuts = containers.flatMap((c) => (c.queries ?? []).filter((q) => q.fanOutToAllPartitions).map((q) => ({ ...q, c })));
  return html`<section>
    <h1>RU report</h1>
    <p>What every request cost since the emulator started (or the report was reset), read from <a href="/_emulator/stats">/_emulator/stats</a>
      every two seconds while this page is open.</p>
    <${ErrorNote} error=${latest?.error || error} />
    <div class="toolbar"><button onClick=${reset} class="danger">Reset the report</button></div>
    <${Chart} title="Request units per operation" id="chart-operations" data=${rates("ops", 8)} />
    <${Chart} title="Request units per query shape" id="chart-queries" data=${rates("queries", 6)} />
    <${Chart} title="Throttled requests" id="chart-throttling" data=${rates("throttles", 1)} unit="429s per 2 s" />
    <table class="grid" aria-label="Containers" id="stats-containers">
      <thead><tr><th scope="col">Container</th><th scope="col">Partitions</th><th scope="col">Requests</th><th scope="col">RU</th><th scope="col">Mean</th><th scope="col">Throttled (429)</th><th scope="col">Failed</th></tr></thead>
      <tbody>${containers.map(
        (c) => html`<tr><th scope="row">${c.database}/${c.container}</th><td>${c.physicalPartitions}</td><td>${c.total.requests}</td>
          <td>${ru(c.total.totalRU)}</td><td>${ru(c.total.meanRU)}</td><td class=${c.total.throttled ? "warn" : ""}>${c.total.throttled}</td><td>${c.total.failed}</td></tr>`,
      )}</tbody>
    </table>
    <h2>Queries that fanned out to every partition</h2>
    ${fanOuts.length
      ? html`<ul class="warnings" id="stats-fanouts">${fanOuts.map(
          (q) => html`<li><code>${q.query}</code> on ${q.c.database}/${q.c.container}: ${q.executions} runs, ${ru(q.totalRU)}, up to ${q.maxPartitionsPerRequest} partitions a request</li>`,
        )}</ul>`
      : html`<p id="stats-fanouts">None.</p>`}
    <h2>Query shapes</h2>
    <table class="grid compact" aria-label="Query shapes">
      <thead><tr><th scope="col">Query</th><th scope="col">Runs</th><th scope="col">Requests</th><th scope="col">RU</th><th scope="col">Max</th><th scope="col">Partitions</th></tr></thead>
      <tbody>${containers.flatMap((c) =>
        (c.queries ?? []).map(
          (q) => html`<tr><td><code>${q.query}</code></td><td>${q.executions}</td><td>${q.requests}</td><td>${ru(q.totalRU)}</td><td>${ru(q.maxRU)}</td>
            <td>${(q.partitionsTouched ?? []).join(", ")}</td></tr>`,
        ),
      )}</tbody>
    </table>
  </section>`;
}
