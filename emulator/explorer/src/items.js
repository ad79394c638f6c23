// Items: a paged list (optionally filtered), and a JSON editor to create, replace, patch and delete.
import { useEffect, useRef, useState } from "preact/hooks";
import { html, ErrorNote, Field, partitionKeyOf, ru } from "./ui.js";
import { request, link } from "./rest.js";
import { sdkClient } from "./sdk.js";
import { Editor } from "./editor.js";

const PAGE = 50;
const SYSTEM = ["_rid", "_self", "_etag", "_attachments", "_ts"];
const NEW_ITEM = '{\n  "id": "new-item"\n}';

function pkText(doc, pk) {
  const values = partitionKeyOf(doc, pk);
  return values.map((v) => (typeof v === "object" && v !== null && Object.keys(v).length === 0 ? "(none)" : JSON.stringify(v))).join(", ");
}

export function ItemsView({ db, coll, container }) {
  const pk = container.partitionKey;
  const [filter, setFilter] = useState("");
  const [rows, setRows] = useState([]);
  const [more, setMore] = useState(false);
  const [listError, setListError] = useState(null);
  const [charge, setCharge] = useState(0);
  const [selected, setSelected] = useState(null); // the document as read, or null for a new one
  const [text, setText] = useState(NEW_ITEM);
  const [error, setError] = useState(null);
  const [status, setStatus] = useState(null);
  const [patch, setPatch] = useState('[\n  { "op": "set", "path": "/status", "value": "done" }\n]');
  const iterator = useRef(null);

  const load = async (next) => {
    setListError(null);
    try {
      if (!next) {
        const where = filter.trim() ? ` WHERE ${filter.trim()}` : "";
        iterator.current = (await sdkClient()).database(db).container(coll).items.query(`SELECT * FROM c${where}`, { maxItemCount: PAGE });
      }
      const page = await iterator.current.fetchNext();
      setRows((r) => (next ? [...r, ...page.resources] : page.resources));
      setCharge((c) => (next ? c : 0) + page.requestCharge);
      setMore(page.hasMoreResults);
    } catch (e) {
      setListError(e);
    }
  };
  useEffect(() => {
    setRows([]);
    setSelected(null);
    setText(NEW_ITEM);
    load(false);
  }, [db, coll]);

  const pick = (doc) => {
    setSelected(doc);
    setText(JSON.stringify(doc, null, 2));
    setError(null);
    setStatus(null);
  };
  const fresh = () => {
    setSelected(null);
    setText(NEW_ITEM);
    setError(null);
    setStatus(null);
  };

  // The text goes to the service as typed: a body that is not JSON gets the service's answer.
  const headersFor = (doc) => (pk?.systemKey ? {} : { "x-ms-documentdb-partitionkey": JSON.stringify(partitionKeyOf(doc, pk)) });
  const parsed = () => {
    try {
      return JSON.parse(text);
    } catch {
      return null;
    }
  };
  const save = async () => {
    setError(null);
    setStatus(null);
    const doc = parsed();
    try {
      let res;
      if (selected) {
        res = await request({
          method: "PUT",
          path: link("dbs", db, "colls", coll, "docs", selected.id),
          body: text,
          headers: { ...headersFor(doc ?? selected), "if-match": selected._etag },
        });
      } else {
        res = await request({ method: "POST", path: link("dbs", db, "colls", coll, "docs"), body: text, headers: headersFor(doc ?? {}) });
      }
      pick(res.json);
      setStatus(`${selected ? "Replaced" : "Created"}: ${ru(res.charge)}`);
      load(false);
    } catch (e) {
      setError(e);
    }
  };
  const remove = async () => {
    if (!selected) return;
    setError(null);
    try {
      const res = await request({ method: "DELETE", path: link("dbs", db, "colls", coll, "docs", selected.id), headers: headersFor(selected) });
      fresh();
      setStatus(`Deleted: ${ru(res.charge)}`);
      load(false);
    } catch (e) {
      setError(e);
    }
  };
  const applyPatch = async () => {
    if (!selected) return;
    setError(null);
    let operations;
    try {
      operations = JSON.parse(patch);
    } catch {
      operations = undefined;
    }
    try {
      const res = await request({
        method: "PATCH",
        path: link("dbs", db, "colls", coll, "docs", selected.id),
        // The operations as typed when they are not JSON: the service says what is wrong.
        body: operations === undefined ? patch : { operations },
        headers: { ...headersFor(selected), "content-type": "application/json_patch+json" },
      });
      pick(res.json);
      setStatus(`Patched: ${ru(res.charge)}`);
      load(false);
    } catch (e) {
      setError(e);
    }
  };

  return html`<div class="split">
    <div class="pane list">
      <form class="inline" onSubmit=${(e) => { e.preventDefault(); load(false); }}>
        <${Field} label="Filter (a WHERE condition on c)" id="items-filter">
          <input id="items-filter" placeholder="c.status = 'open'" value=${filter} onInput=${(e) => setFilter(e.target.value)} />
        <//>
        <button type="submit">Apply</button>
      </form>
      <${ErrorNote} error=${listError} id="items-list-error" />
      <p class="muted">${rows.length} items loaded, ${ru(charge)}</p>
      <table class="grid selectable" aria-label="Items">
        <thead><tr><th scope="col">id</th><th scope="col">Partition key</th></tr></thead>
        <tbody>${rows.map(
          (d) => html`<tr class=${selected?._rid === d._rid ? "selected" : ""}>
            <td><button class="link" onClick=${() => pick(d)}>${d.id}</button></td><td><code>${pkText(d, pk)}</code></td></tr>`,
        )}</tbody>
      </table>
      ${more ? html`<button onClick=${() => load(true)}>Load more</button>` : null}
    </div>
    <div class="pane">
      <div class="toolbar">
        <button onClick=${fresh}>New item</button>
        <button onClick=${save} class="primary" id="item-save">${selected ? "Replace" : "Create"}</button>
        <button onClick=${remove} disabled=${!selected} class="danger">Delete</button>
      </div>
      <${Editor} lang="json" label="Item JSON" id="item-editor" value=${text} onChange=${setText} rows=${14} onRun=${save} />
      <${ErrorNote} error=${error} id="item-error" />
      ${status ? html`<p role="status" id="item-status">${status}</p>` : null}
      ${selected
        ? html`<details>
            <summary>Patch operations</summary>
            <${Editor} lang="json" label="Patch operations" value=${patch} onChange=${setPatch} rows=${5} />
            <button onClick=${applyPatch}>Apply patch</button>
          </details>`
        : null}
      <p class="muted">System properties (${SYSTEM.join(", ")}) are set by the service.</p>
    </div>
  </div>`;
}
