// Small shared pieces: the html tag, errors shown next to their input, async state, formatting.
import { h } from "preact";
import { useCallback, useEffect, useState } from "preact/hooks";
import htm from "htm";
import { errorText } from "./rest.js";

export const html = htm.bind(h);

/** The service's answer to a failed request, next to the input that caused it. */
export function ErrorNote({ error, id }) {
  if (!error) return null;
  return html`<p class="error" role="alert" id=${id}>${typeof error === "string" ? error : errorText(error)}</p>`;
}

/** Runs `load` when `deps` change: {data, error, loading, reload}. */
export function useLoad(load, deps) {
  const [state, setState] = useState({ data: undefined, error: null, loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, error: null, loading: false }),
      (error) => live && setState({ data: undefined, error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

export const ru = (x) => (x === undefined || x === null || Number.isNaN(x) ? "" : `${Number(x).toFixed(2)} RU`);
export const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

/** Partition key values of a document for the x-ms-documentdb-partitionkey header. */
export function partitionKeyOf(doc, partitionKey) {
  if (!partitionKey || partitionKey.systemKey) return [];
  return partitionKey.paths.map((path) => {
    let v = doc;
    for (const seg of path.split("/").filter(Boolean)) {
      if (v === null || typeof v !== "object") return {};
      v = v[seg.replace(/^["']|["']$/g, "")];
    }
    return v === undefined ? {} : v;
  });
}

/** A labelled form field. */
export function Field({ label, id, children, hint }) {
  return html`<div class="field"><label for=${id}>${label}</label>${children}${hint ? html`<small>${hint}</small>` : null}</div>`;
}

/** Navigates to a hash route. */
export function go(route) {
  location.hash = route;
}

// The tree and the views refresh together after a change to databases or containers.
const changes = new Set();
export function changed() {
  for (const fn of changes) fn();
}
/** A counter that moves on every changed(): a dependency for what lists databases or containers. */
export function useChanges() {
  const [n, setN] = useState(0);
  useEffect(() => {
    const fn = () => setN((x) => x + 1);
    changes.add(fn);
    return () => changes.delete(fn);
  }, []);
  return n;
}
