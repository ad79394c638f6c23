// The Data Explorer: a single page served by the emulator at /_explorer/. It reads and writes
// through the REST API like any client, signing each request with the account key in the browser,
// or, when the emulator refuses keys (local authorization disabled), sending a Microsoft Entra ID
// token the user pastes.
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { html, ErrorNote, useLoad, ru, Field, go, changed, useChanges } from "./ui.js";
import { request, link, readAll, setKey, currentKey, setToken, currentToken, credentialId, refuseKeys, requestLog, onLog, errorText } from "./rest.js";
import { ItemsView } from "./items.js";
import { QueryView } from "./query.js";
import { SettingsView, PartitionsView, ChangeFeedView } from "./container.js";
import { ScriptsView } from "./scripts.js";
import { UsersView } from "./users.js";
import { StatsView } from "./stats.js";

const config = JSON.parse(document.getElementById("config")?.textContent || "{}");
const connectionHtml = document.getElementById("connection")?.innerHTML ?? "";
const KEY_STORE = "cosmos-emulator-explorer-key";
const TOKEN_STORE = "cosmos-emulator-explorer-token";
// What the page says, instead of sending requests that would answer 401, when the emulator runs with
// local authorization disabled (its config's disableLocalAuth).
const LOCAL_AUTH_DISABLED =
  "This emulator runs with local authorization disabled (--disable-local-auth): it refuses requests signed with " +
  "the account key (401), so this page cannot sign with it. Sign in with a Microsoft Entra ID token instead: paste " +
  "one on the Connect page (cosmos-emulator --issue-token --principal <object id> prints one).";
// Why the page cannot sign (no Web Crypto outside a secure context, a key that is not base64).
let startupProblem = null;

function useRoute() {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const fn = () => setHash(location.hash);
    addEventListener("hashchange", fn);
    return () => removeEventListener("hashchange", fn);
  }, []);
  const parts = hash.replace(/^#\/?/, "").split("/").map((p) => decodeURIComponent(p));
  return parts.filter((p, i) => p !== "" || i === 0);
}

export const route = (...parts) => "#/" + parts.map((p) => encodeURIComponent(p)).join("/");

const TABS = [
  ["items", "Items"],
  ["query", "Query"],
  ["settings", "Settings"],
  ["partitions", "Partitions"],
  ["scripts", "Scripts"],
  ["changefeed", "Change feed"],
];

function Tree({ current, version }) {
  const dbs = useLoad(() => readAll("/dbs", "Databases"), [version, credentialId()]);
  return html`<nav class="tree" aria-label="Databases and containers">
    <ul>
      <li><a href="#/" aria-current=${current[0] === "" ? "page" : null}>Connect</a></li>
      <li><a href="#/stats" aria-current=${current[0] === "stats" ? "page" : null}>RU report</a></li>
    </ul>
    <h2>Databases</h2>
    <${ErrorNote} error=${dbs.error} />
    <ul>
      ${(dbs.data ?? []).map((db) => html`<${DatabaseNode} key=${db.id} db=${db} current=${current} version=${version} />`)}
    </ul>
  </nav>`;
}

function DatabaseNode({ db, current, version }) {
  const open = current[0] === "db" && current[1] === db.id;
  const colls = useLoad(() => (open ? readAll(link("dbs", db.id, "colls"), "DocumentCollections") : Promise.resolve([])), [open, version]);
  return html`<li>
    <a href=${route("db", db.id)} aria-current=${open && current.length === 2 ? "page" : null} aria-expanded=${open}>${db.id}</a>
    ${open
      ? html`<ul>
          <li><a href=${route("db", db.id, "users")} aria-current=${current[2] === "users" ? "page" : null}>Users</a></li>
          ${(colls.data ?? []).map(
            (c) => html`<li>
              <a href=${route("db", db.id, "c", c.id, "items")} class="container" aria-expanded=${current[3] === c.id}>${c.id}</a>
              ${current[3] === c.id
                ? html`<ul>${TABS.map(
                    ([tab, label]) => html`<li><a href=${route("db", db.id, "c", c.id, tab)} aria-current=${current[4] === tab ? "page" : null}>${label}</a></li>`,
                  )}</ul>`
                : null}
            </li>`,
          )}
        </ul>`
      : null}
  </li>`;
}

function ConnectView() {
  return html`<section>
    <h1>Connect</h1>
    <div class="connection" dangerouslySetInnerHTML=${{ __html: connectionHtml }}></div>
    ${config.disableLocalAuth ? html`<${TokenForm} />` : html`<${KeyForm} />`}
    <${NewDatabase} />
  </section>`;
}

function KeyForm() {
  const [key, setKeyInput] = useState(currentKey() ?? "");
  const [error, setError] = useState(null);
  const [note, setNote] = useState(null);
  const apply = async (e) => {
    e.preventDefault();
    setError(null);
    try {
      await setKey(key.trim());
      startupProblem = null;
      await request({ path: "/dbs" });
      sessionStorage.setItem(KEY_STORE, key.trim());
      setNote("Key accepted.");
      changed();
    } catch (err) {
      setError(err);
    }
  };
  return html`<form onSubmit=${apply} class="inline">
      <${Field} label="Account key the page signs with" id="key-input"
        hint=${config.key ? "The well-known key, unless you change it." : "This emulator was started with a key of its own: enter it."}>
        <input id="key-input" type="password" autocomplete="off" value=${key} onInput=${(e) => setKeyInput(e.target.value)} />
      <//>
      <button type="submit">Use key</button>
    </form>
    <${ErrorNote} error=${error || startupProblem} id="key-error" />
    ${note ? html`<p role="status">${note}</p>` : null}`;
}

/** Who the token names and until when, as its claims say. */
function tokenSummary(t) {
  const who = t.oid ? `principal ${t.oid}` : "no principal (oid)";
  return t.exp ? `${who}, expires ${new Date(t.exp * 1000).toLocaleString()}` : who;
}

// Local authorization disabled: why the page cannot sign with the key, and a Microsoft Entra ID
// token to send instead (Authorization: type=aad&ver=1.0&sig=<token>). The emulator checks it as
// any client's and authorizes with the principal's data-plane roles (docs/entra-id.md).
function TokenForm() {
  const [jwt, setJwt] = useState(currentToken()?.jwt ?? "");
  const [error, setError] = useState(null);
  const [note, setNote] = useState(currentToken() ? `Signed in as ${tokenSummary(currentToken())}.` : null);
  const apply = async (e) => {
    e.preventDefault();
    setError(null);
    setNote(null);
    try {
      setToken(jwt.trim());
      startupProblem = null;
      changed();
      await request({ path: "/dbs" });
      sessionStorage.setItem(TOKEN_STORE, jwt.trim());
      setNote(`Token accepted: ${tokenSummary(currentToken())}.`);
    } catch (err) {
      setError(err);
    }
  };
  const signedIn = currentToken() !== null;
  return html`<p class=${signedIn ? "notice" : "error"} role=${signedIn ? "note" : "alert"} id="local-auth">${LOCAL_AUTH_DISABLED}</p>
    <form onSubmit=${apply} class="inline">
      <${Field} label="Microsoft Entra ID token the page sends" id="token-input"
        hint="Requests carry it as a token credential's (type=aad); what they may do is the principal's data-plane roles. Databases and containers cannot be made with a token (403, substatus 5300): seed them (--seed).">
        <input id="token-input" type="password" autocomplete="off" value=${jwt} onInput=${(e) => setJwt(e.target.value)} />
      <//>
      <button type="submit">Use token</button>
    </form>
    <${ErrorNote} error=${error || startupProblem} id="token-error" />
    ${note ? html`<p role="status" id="token-status">${note}</p>` : null}`;
}

function NewDatabase() {
  const [id, setId] = useState("");
  const [throughput, setThroughput] = useState("");
  const [error, setError] = useState(null);
  const create = async (e) => {
    e.preventDefault();
    setError(null);
    try {
      const headers = throughput ? { "x-ms-offer-throughput": throughput } : {};
      await request({ method: "POST", path: "/dbs", body: { id }, headers });
      changed();
      go(route("db", id));
    } catch (err) {
      setError(err);
    }
  };
  return html`<form onSubmit=${create} class="card" aria-labelledby="new-db-title">
    <h2 id="new-db-title">New database</h2>
    <${Field} label="Database id" id="new-db-id"><input id="new-db-id" value=${id} onInput=${(e) => setId(e.target.value)} required /><//>
    <${Field} label="Shared throughput (RU/s, optional)" id="new-db-throughput">
      <input id="new-db-throughput" type="number" min="400" step="100" value=${throughput} onInput=${(e) => setThroughput(e.target.value)} />
    <//>
    <button type="submit">Create database</button>
    <${ErrorNote} error=${error} id="new-db-error" />
  </form>`;
}

function DatabaseView({ db, version }) {
  const colls = useLoad(() => readAll(link("dbs", db, "colls"), "DocumentCollections"), [db, version]);
  const [error, setError] = useState(null);
  const remove = async () => {
    if (!confirm(`Delete database ${db} and everything in it?`)) return;
    try {
      await request({ method: "DELETE", path: link("dbs", db) });
      changed();
      go("#/");
    } catch (err) {
      setError(err);
    }
  };
  return html`<section>
    <h1>Database ${db}</h1>
    <${ErrorNote} error=${colls.error || error} />
    <table class="grid">
      <caption>Containers</caption>
      <thead><tr><th scope="col">Container</th><th scope="col">Partition key</th><th scope="col">Default TTL</th></tr></thead>
      <tbody>${(colls.data ?? []).map(
        (c) => html`<tr><td><a href=${route("db", db, "c", c.id, "items")}>${c.id}</a></td>
          <td><code>${c.partitionKey?.paths?.join(", ")}</code>${c.partitionKey?.kind === "MultiHash" ? " (hierarchical)" : ""}</td>
          <td>${c.defaultTtl ?? "off"}</td></tr>`,
      )}</tbody>
    </table>
    <${NewContainer} db=${db} />
    <p><button class="danger" onClick=${remove}>Delete database</button></p>
  </section>`;
}

function NewContainer({ db }) {
  const [id, setId] = useState("");
  const [paths, setPaths] = useState("/id");
  const [throughput, setThroughput] = useState("");
  const [ttl, setTtl] = useState("");
  const [error, setError] = useState(null);
  const create = async (e) => {
    e.preventDefault();
    setError(null);
    const list = paths.split(",").map((p) => p.trim()).filter(Boolean);
    const body = { id, partitionKey: { paths: list, kind: list.length > 1 ? "MultiHash" : "Hash", version: 2 } };
    if (ttl !== "") body.defaultTtl = Number(ttl);
    try {
      const headers = throughput ? { "x-ms-offer-throughput": throughput } : {};
      await request({ method: "POST", path: link("dbs", db, "colls"), body, headers });
      changed();
      go(route("db", db, "c", id, "items"));
    } catch (err) {
      setError(err);
    }
  };
  return html`<form onSubmit=${create} class="card" aria-labelledby="new-coll-title">
    <h2 id="new-coll-title">New container</h2>
    <${Field} label="Container id" id="new-coll-id"><input id="new-coll-id" value=${id} onInput=${(e) => setId(e.target.value)} required /><//>
    <${Field} label="Partition key paths" id="new-coll-pk" hint="One path, or up to three separated by commas for a hierarchical key">
      <input id="new-coll-pk" value=${paths} onInput=${(e) => setPaths(e.target.value)} required />
    <//>
    <${Field} label="Throughput (RU/s, optional)" id="new-coll-throughput">
      <input id="new-coll-throughput" type="number" min="400" step="100" value=${throughput} onInput=${(e) => setThroughput(e.target.value)} />
    <//>
    <${Field} label="Default time to live (seconds, -1 for on without a default; empty for off)" id="new-coll-ttl">
      <input id="new-coll-ttl" type="number" min="-1" value=${ttl} onInput=${(e) => setTtl(e.target.value)} />
    <//>
    <button type="submit">Create container</button>
    <${ErrorNote} error=${error} id="new-coll-error" />
  </form>`;
}

function RequestLog() {
  const [, setN] = useState(0);
  const [open, setOpen] = useState(true);
  useEffect(() => onLog(() => setN((x) => x + 1)), []);
  const rows = requestLog.slice(-12).reverse();
  const total = requestLog.reduce((s, e) => s + (e.charge || 0), 0);
  return html`<footer class="log">
    <button class="link" aria-expanded=${open} onClick=${() => setOpen(!open)}>
      Requests (${requestLog.length}, ${ru(total)} in all)
    </button>
    ${open
      ? html`<table class="grid compact" aria-label="Recent requests">
          <thead><tr><th scope="col">Time</th><th scope="col">From</th><th scope="col">Request</th><th scope="col">Range</th><th scope="col">Status</th><th scope="col">Charge</th><th scope="col">ms</th></tr></thead>
          <tbody>${rows.map(
            (e) => html`<tr class=${e.status >= 400 || e.status === 0 ? "bad" : ""}>
              <td>${e.at.toLocaleTimeString()}</td><td>${e.source}</td><td><code>${e.method} ${e.path}</code></td>
              <td>${e.range ?? ""}</td><td>${e.status}${e.substatus ? "/" + e.substatus : ""}</td><td>${ru(e.charge)}</td><td>${e.ms?.toFixed(1)}</td>
            </tr>`,
          )}</tbody>
        </table>`
      : null}
  </footer>`;
}

function ContainerView({ db, coll, tab, version }) {
  const container = useLoad(() => request({ path: link("dbs", db, "colls", coll) }).then((r) => r.json), [db, coll, version]);
  const views = { items: ItemsView, query: QueryView, settings: SettingsView, partitions: PartitionsView, scripts: ScriptsView, changefeed: ChangeFeedView };
  const View = views[tab] ?? ItemsView;
  return html`<section>
    <h1>${db} / ${coll}</h1>
    <nav class="tabs" aria-label="Container views">
      ${TABS.map(([t, label]) => html`<a href=${route("db", db, "c", coll, t)} aria-current=${t === tab ? "page" : null}>${label}</a>`)}
    </nav>
    <${ErrorNote} error=${container.error} />
    ${container.data ? html`<${View} db=${db} coll=${coll} container=${container.data} reloadContainer=${container.reload} />` : null}
  </section>`;
}

function App() {
  const version = useChanges();
  const r = useRoute();
  let view;
  if (r[0] === "stats") view = html`<${StatsView} />`;
  else if (r[0] === "db" && r[2] === "users") view = html`<${UsersView} db=${r[1]} version=${version} />`;
  else if (r[0] === "db" && r[2] === "c" && r[3]) view = html`<${ContainerView} db=${r[1]} coll=${r[3]} tab=${r[4]} version=${version} />`;
  else if (r[0] === "db" && r[1]) view = html`<${DatabaseView} db=${r[1]} version=${version} />`;
  else view = html`<${ConnectView} />`;
  return html`<div class="layout">
    <header><a href="#/" class="brand">cosmos-emulator</a> <span>Data Explorer</span>
      <span class="endpoint">${config.endpoint ?? location.origin}</span></header>
    <${Tree} current=${r} version=${version} />
    <main id="main">${view}</main>
    <${RequestLog} />
  </div>`;
}

async function start() {
  if (config.disableLocalAuth) {
    refuseKeys(LOCAL_AUTH_DISABLED);
    const saved = sessionStorage.getItem(TOKEN_STORE);
    try {
      if (saved) setToken(saved);
    } catch (e) {
      startupProblem = errorText(e);
    }
  }
  const key = config.disableLocalAuth ? null : sessionStorage.getItem(KEY_STORE) || config.key;
  if (key) {
    try {
      await setKey(key);
    } catch (e) {
      startupProblem = errorText(e);
    }
  }
  const root = document.getElementById("app");
  root.textContent = "";
  render(html`<${App} />`, root);
}

start();
