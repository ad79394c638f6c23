#!/usr/bin/env node
// The blog sample: node main.mjs [--users N] [--seed S] [--runs R] [--designs V1,V2,V3]
//   [--posts-throughput RU/s] [--out DIR] [--database-prefix NAME] [--keep] [--quiet]
// Connects to COSMOS_ENDPOINT with COSMOS_KEY (default: http://127.0.0.1:8081/ and the emulator's
// well-known key). Writes DIR/results.json and DIR/results.md (DIR defaults to ./results) and prints
// the Markdown. Exits 1 when a change the scenario reports does not happen here or a copy did not
// converge.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { analyse, markdown } from "./lib/report.mjs";
import { DEFAULTS, run } from "./lib/run.mjs";

const { values } = parseArgs({
  options: {
    users: { type: "string" },
    seed: { type: "string" },
    runs: { type: "string" },
    designs: { type: "string" },
    "posts-throughput": { type: "string" },
    "database-prefix": { type: "string" },
    out: { type: "string" },
    keep: { type: "boolean" },
    quiet: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  },
});
if (values.help) {
  console.log(
    "usage: node main.mjs [--users N] [--seed S] [--runs R] [--designs V1,V2,V3] [--posts-throughput RU/s] [--out DIR] [--database-prefix NAME] [--keep] [--quiet]",
  );
  process.exit(0);
}

const integer = (name, value, min) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) {
    console.error(`--${name} must be an integer >= ${min}`);
    process.exit(2);
  }
  return n;
};
const options = {
  users: values.users ? integer("users", values.users, 50) : DEFAULTS.users,
  seed: values.seed ? integer("seed", values.seed, 0) : DEFAULTS.seed,
  runs: values.runs ? integer("runs", values.runs, 1) : DEFAULTS.runs,
  designs: values.designs ? values.designs.toUpperCase().split(",") : DEFAULTS.designs,
  postsThroughput: values["posts-throughput"] ? integer("posts-throughput", values["posts-throughput"], 400) : DEFAULTS.postsThroughput,
  databasePrefix: values["database-prefix"] ?? DEFAULTS.databasePrefix,
  keep: values.keep ?? false,
  quiet: values.quiet ?? false,
};
for (const d of options.designs) {
  if (!["V1", "V2", "V3"].includes(d)) {
    console.error(`--designs: unknown design ${d} (V1, V2, V3)`);
    process.exit(2);
  }
}

const results = await run(options);
const analysis = analyse(results);
const md = markdown(results, analysis);
const out = values.out ?? "results";
mkdirSync(out, { recursive: true });
writeFileSync(join(out, "results.json"), JSON.stringify({ ...results, analysis }, null, 2) + "\n");
writeFileSync(join(out, "results.md"), md);
console.log(md);
console.error(`written: ${join(out, "results.json")}, ${join(out, "results.md")} (${results.seconds.toFixed(0)} s)`);
process.exit(analysis.ok ? 0 : 1);
