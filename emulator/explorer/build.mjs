// Bundles the Data Explorer into OUT_DIR: app.js (the page's code and its libraries, minified),
// app.css with a gzip copy of each, and index.html, which the emulator embeds at build time
// (embed.cmake) and serves under /_explorer/. Usage: node build.mjs OUT_DIR
import { build } from "esbuild";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync, constants } from "node:zlib";

const here = dirname(fileURLToPath(import.meta.url));
const out = process.argv[2];
if (!out) {
  console.error("usage: node build.mjs OUT_DIR");
  process.exit(2);
}
mkdirSync(out, { recursive: true });

const result = await build({
  entryPoints: [join(here, "src/main.js")],
  bundle: true,
  minify: !process.env.EXPLORER_NO_MINIFY,
  format: "esm",
  platform: "browser",
  target: ["es2020"],
  legalComments: "none",
  write: false,
  outdir: out,
  entryNames: "app",
  logLevel: "warning",
});

const files = {};
for (const f of result.outputFiles) files[f.path.slice(out.length).replace(/^\/+/, "")] = Buffer.from(f.contents);
// uPlot's stylesheet, then the page's own.
files["app.css"] = Buffer.concat([
  readFileSync(join(here, "node_modules/uplot/dist/uPlot.min.css")),
  Buffer.from("\n"),
  readFileSync(join(here, "src/style.css")),
]);
files["index.html"] = readFileSync(join(here, "src/index.html"));

// index.html is a template the emulator fills in per request; the others go out compressed.
for (const [name, data] of Object.entries(files)) {
  if (!["app.js", "app.css", "index.html"].includes(name)) throw new Error(`unexpected output ${name}`);
  writeFileSync(join(out, name), data);
  if (name === "index.html") continue;
  const gz = gzipSync(data, { level: constants.Z_BEST_COMPRESSION });
  writeFileSync(join(out, name + ".gz"), gz);
  console.log(`explorer: ${name} ${data.length} bytes, ${gz.length} gzipped`);
}
