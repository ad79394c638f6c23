// Stored procedures, triggers and user-defined functions: edit, save, delete; run a stored
// procedure with a partition key and arguments, and read its result and its console log.
import { useEffect, useState } from "preact/hooks";
import { html, ErrorNote, Field, useLoad, ru } from "./ui.js";
import { request, link, readAll } from "./rest.js";
import { Editor } from "./editor.js";

const KINDS = {
  sprocs: { label: "Stored procedures", feed: "StoredProcedures", sample: 'function sample(name) {\n  const response = getContext().getResponse();\n  console.log("called with " + name);\n  response.setBody({ hello: name });\n}\n' },
  triggers: { label: "Triggers", feed: "Triggers", sample: "function stamp() {\n  const request = getContext().getRequest();\n  const doc = request.getBody();\n  doc.stampedAt = Date.now();\n  request.setBody(doc);\n}\n" },
  udfs: { label: "User-defined functions", feed: "UserDefinedFunctions", sample: "function tax(amount) {\n  return amount * 0.2;\n}\n" },
};

export function ScriptsView({ db, coll }) {
  const [kind, setKind] = useState("sprocs");
  const list = useLoad(() => readAll(link("dbs", db, "colls", coll, kind), KINDS[kind].feed), [db, coll, kind]);
  const [selected, setSelected] = useState(null);
  const [id, setId] = useState("");
  const [body, setBody] = useState(KINDS.sprocs.sample);
  const [triggerType, setTriggerType] = useState("Pre");
  const [triggerOperation, setTriggerOperation] = useState("All");
  const [error, setError] = useState(null);
  const [status, setStatus] = useState(null);
  const [pk, setPk] = useState('""');
  const [args, setArgs] = useState('["world"]');
  const [result, setResult] = useState(null);
  const [runError, setRunError] = useState(null);

  const fresh = (k = kind) => {
    setSelected(null);
    setId("");
    setBody(KINDS[k].sample);
    setError(null);
    setStatus(null);
    setResult(null);
  };
  useEffect(() => fresh(kind), [kind, db, coll]);
  const pick = (s) => {
    setSelected(s);
    setId(s.id);
    setBody(s.body);
    if (s.triggerType) setTriggerType(s.triggerType);
    if (s.triggerOperation) setTriggerOperation(s.triggerOperation);
    setError(null);
    setStatus(null);
    setResult(null);
  };
  const save = async () => {
    setError(null);
    setStatus(null);
    const doc = { id, body };
    if (kind === "triggers") Object.assign(doc, { triggerType, triggerOperation });
    try {
      const res = selected
        ? await request({ method: "PUT", path: link("dbs", db, "colls", coll, kind, selected.id), body: doc })
        : await request({ method: "POST", path: link("dbs", db, "colls", coll, kind), body: doc });
      pick(res.json);
      setStatus(`Saved: ${ru(res.charge)}`);
      list.reload();
    } catch (e) {
      setError(e);
    }
  };
  const remove = async () => {
    try {
      await request({ method: "DELETE", path: link("dbs", db, "colls", coll, kind, selected.id) });
      fresh();
      list.reload();
    } catch (e) {
      setError(e);
    }
  };
  const execute = async (e) => {
    e.preventDefault();
    setRunError(null);
    setResult(null);
    let headers = { "x-ms-documentdb-script-enable-logging": "true" };
    try {
      const key = pk.trim() === "" ? undefined : JSON.parse(pk);
      if (key !== undefined) headers["x-ms-documentdb-partitionkey"] = JSON.stringify(Array.isArray(key) ? key : [key]);
      JSON.parse(args);
    } catch (err) {
      setRunError(`Not JSON: ${err.message}`);
      return;
    }
    try {
      const res = await request({ method: "POST", path: link("dbs", db, "colls", coll, "sprocs", selected.id), body: args, headers });
      const log = res.headers["x-ms-documentdb-script-log-results"];
      setResult({ body: res.text, charge: res.charge, log: log ? decodeURIComponent(log) : "" });
    } catch (err) {
      const log = err.headers?.["x-ms-documentdb-script-log-results"];
      setRunError(err);
      if (log) setResult({ body: "", charge: 0, log: decodeURIComponent(log) });
    }
  };

  return html`<div>
    <nav class="tabs small" aria-label="Script kinds">
      ${Object.entries(KINDS).map(([k, v]) => html`<button class=${k === kind ? "current" : ""} aria-pressed=${k === kind} onClick=${() => setKind(k)}>${v.label}</button>`)}
    </nav>
    <div class="split">
      <div class="pane list">
        <${ErrorNote} error=${list.error} />
        <ul class="plain" aria-label=${KINDS[kind].label}>
          ${(list.data ?? []).map((s) => html`<li><button class=${"link" + (selected?.id === s.id ? " current" : "")} onClick=${() => pick(s)}>${s.id}</button></li>`)}
        </ul>
        <button onClick=${() => fresh()}>New</button>
      </div>
      <div class="pane">
        <div class="row">
          <${Field} label="Id" id="script-id"><input id="script-id" value=${id} onInput=${(e) => setId(e.target.value)} disabled=${!!selected} /><//>
          ${kind === "triggers"
            ? html`<${Field} label="Type" id="trigger-type">
                  <select id="trigger-type" value=${triggerType} onChange=${(e) => setTriggerType(e.target.value)}><option>Pre</option><option>Post</option></select>
                <//>
                <${Field} label="Operation" id="trigger-op">
                  <select id="trigger-op" value=${triggerOperation} onChange=${(e) => setTriggerOperation(e.target.value)}>
                    ${["All", "Create", "Replace", "Delete"].map((o) => html`<option>${o}</option>`)}
                  </select>
                <//>`
            : null}
        </div>
        <${Editor} lang="js" label="Script body" id="script-body" value=${body} onChange=${setBody} rows=${12} />
        <div class="toolbar">
          <button class="primary" onClick=${save} id="script-save">Save</button>
          <button class="danger" onClick=${remove} disabled=${!selected}>Delete</button>
        </div>
        <${ErrorNote} error=${error} id="script-error" />
        ${status ? html`<p role="status">${status}</p>` : null}
        ${kind === "sprocs" && selected
          ? html`<form class="card" onSubmit=${execute} aria-labelledby="run-title">
              <h2 id="run-title">Run ${selected.id}</h2>
              <div class="row">
                <${Field} label="Partition key (JSON)" id="sproc-pk"><input id="sproc-pk" value=${pk} onInput=${(e) => setPk(e.target.value)} /><//>
                <${Field} label="Arguments (JSON array)" id="sproc-args"><input id="sproc-args" value=${args} onInput=${(e) => setArgs(e.target.value)} /><//>
              </div>
              <button type="submit" id="sproc-run">Execute</button>
              <${ErrorNote} error=${runError} id="sproc-error" />
              ${result
                ? html`<div role="status" id="sproc-result">
                    <p>Result (${ru(result.charge)}):</p><pre class="results">${result.body}</pre>
                    ${result.log ? html`<p>Script log:</p><pre class="results" id="sproc-log">${result.log}</pre>` : null}
                  </div>`
                : null}
            </form>`
          : null}
      </div>
    </div>
  </div>`;
}
