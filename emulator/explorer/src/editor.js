// A code editor (CodeMirror 6) as a Preact component: JSON with live validation, SQL, or
// plain text (script bodies); labelled for screen readers; Tab indents, Escape then Tab leaves the editor.
import { h } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { EditorState } from "@codemirror/state";
import { EditorView, keymap, lineNumbers, drawSelection, highlightActiveLine } from "@codemirror/view";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { syntaxHighlighting, defaultHighlightStyle, bracketMatching } from "@codemirror/language";
import { json, jsonParseLinter } from "@codemirror/lang-json";
import { sql } from "@codemirror/lang-sql";
import { linter, lintGutter } from "@codemirror/lint";

function languageOf(lang) {
  if (lang === "json") return [json(), linter(jsonParseLinter(), { delay: 300 }), lintGutter()];
  if (lang === "sql") return [sql()];
  return [];
}

/**
 * props: value, onChange(text), lang ("json" | "sql" | "js": plain), label (accessible name), id,
 * readOnly, rows (minimum height in lines), onRun (Ctrl+Enter).
 */
export function Editor({ value, onChange, lang, label, id, readOnly = false, rows = 8, onRun }) {
  const host = useRef(null);
  const view = useRef(null);
  const callbacks = useRef({});
  callbacks.current = { onChange, onRun };

  useEffect(() => {
    const run = keymap.of([
      {
        key: "Mod-Enter",
        run: () => {
          callbacks.current.onRun?.();
          return true;
        },
      },
    ]);
    const state = EditorState.create({
      doc: value ?? "",
      extensions: [
        lineNumbers(),
        history(),
        drawSelection(),
        highlightActiveLine(),
        bracketMatching(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        run,
        keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
        ...languageOf(lang),
        EditorState.readOnly.of(readOnly),
        EditorView.lineWrapping,
        EditorView.contentAttributes.of({ "aria-label": label, ...(id ? { id } : {}) }),
        EditorView.theme({ ".cm-content, .cm-gutter": { minHeight: `${rows * 1.4}em` } }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) callbacks.current.onChange?.(u.state.doc.toString());
        }),
      ],
    });
    view.current = new EditorView({ state, parent: host.current });
    return () => view.current.destroy();
  }, [lang, readOnly]);

  // A value set from outside (another item chosen) replaces the text.
  useEffect(() => {
    const v = view.current;
    if (v && value !== undefined && value !== v.state.doc.toString()) {
      v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
    }
  }, [value]);

  return h("div", { class: "editor", ref: host, "data-lang": lang });
}
