// The results as the scenario's table (our RU, the published RU, their ratio), the check that every
// change the scenario reports from one design to the next happens here too, and the rows more than
// 25% from the published figure with the reason.
import { DESIGN_NAMES, PUBLISHED, REQUESTS } from "./published.mjs";
import { REASONS } from "./reasons.mjs";

const TOLERANCE = 0.25;
const r2 = (x) => Math.round(x * 100) / 100;

export function analyse(results) {
  const designs = DESIGN_NAMES.filter((d) => results.designs[d]);
  const rows = REQUESTS.map(([id, what]) => ({
    id,
    what,
    cells: Object.fromEntries(
      designs.map((d) => {
        const i = DESIGN_NAMES.indexOf(d);
        const ours = results.designs[d].requests[id];
        const [publishedMs, publishedRu] = PUBLISHED[id][i];
        return [d, { ru: ours.ru, publishedRu, ratio: r2(ours.ru / publishedRu), ms: ours.ms, publishedMs, calls: ours.calls }];
      }),
    ),
  }));

  // Every pair of designs the scenario compares: where its RU goes down (an improvement) or up (the
  // price of denormalising: C3 and C4), ours must move the same way.
  const changes = [];
  for (const { id, cells } of rows) {
    for (let a = 0; a < designs.length; a++) {
      for (let b = a + 1; b < designs.length; b++) {
        const [da, db] = [designs[a], designs[b]];
        const pa = cells[da].publishedRu;
        const pb = cells[db].publishedRu;
        if (pa === pb) continue;
        const direction = pb < pa ? "cheaper" : "dearer";
        const ok = direction === "cheaper" ? cells[db].ru < cells[da].ru : cells[db].ru > cells[da].ru;
        changes.push({ request: id, from: da, to: db, direction, published: [pa, pb], ours: [cells[da].ru, cells[db].ru], ok });
      }
    }
  }

  const deviations = [];
  for (const { id, cells } of rows) {
    for (const d of designs) {
      const c = cells[d];
      if (Math.abs(c.ratio - 1) > TOLERANCE) {
        deviations.push({ request: id, design: d, ru: c.ru, publishedRu: c.publishedRu, ratio: c.ratio, reason: REASONS[`${id} ${d}`] ?? REASONS[id] ?? "no reason recorded" });
      }
    }
  }

  const convergence = designs.flatMap((d) => results.designs[d].convergence.map((c) => ({ design: d, ...c })));
  return {
    designs,
    rows,
    changes,
    deviations,
    convergence,
    ok: changes.every((c) => c.ok) && convergence.every((c) => c.ok),
  };
}

export function markdown(results, a) {
  const o = results.options;
  const lines = [];
  lines.push(`# Blog sample: request units, ours beside the published figures`);
  lines.push("");
  lines.push(
    `Dataset: seed ${o.seed}, ${fmt(results.dataset.users)} users, ${fmt(results.dataset.posts)} posts, ` +
      `${fmt(results.dataset.comments)} comments, ${fmt(results.dataset.likes)} likes. ` +
      `\`posts\`: ${a.designs.map((d) => `${d} ${results.designs[d].partitions}`).join(", ")} physical partitions ` +
      `(${fmt(o.postsThroughput)} RU/s). Each figure is the median of ${o.runs} runs; RU is the sum over every call the request makes.`,
  );
  lines.push("");
  lines.push("Each cell: our RU / published RU (ratio).");
  lines.push("");
  lines.push(`| request | ${a.designs.join(" | ")} |`);
  lines.push(`|---|${a.designs.map(() => "---|").join("")}`);
  for (const r of a.rows) {
    lines.push(`| ${r.id} ${r.what} | ${a.designs.map((d) => `${num(r.cells[d].ru)} / ${num(r.cells[d].publishedRu)} (${r.cells[d].ratio.toFixed(2)})`).join(" | ")} |`);
  }
  lines.push("");
  lines.push("Latency, median (ms), ours / published (the published figures are the cloud service's; calls: requests the SDK sent):");
  lines.push("");
  lines.push(`| request | ${a.designs.join(" | ")} |`);
  lines.push(`|---|${a.designs.map(() => "---|").join("")}`);
  for (const r of a.rows) {
    lines.push(`| ${r.id} | ${a.designs.map((d) => `${r.cells[d].ms.toFixed(1)} / ${r.cells[d].publishedMs} (${r.cells[d].calls} calls)`).join(" | ")} |`);
  }
  lines.push("");
  lines.push("## Changes from one design to the next");
  lines.push("");
  lines.push("| request | from -> to | published | ours | same direction |");
  lines.push("|---|---|---|---|---|");
  for (const c of a.changes) {
    lines.push(`| ${c.request} | ${c.from} -> ${c.to} | ${num(c.published[0])} -> ${num(c.published[1])} (${c.direction}) | ${num(c.ours[0])} -> ${num(c.ours[1])} | ${c.ok ? "yes" : "**no**"} |`);
  }
  lines.push("");
  lines.push(`## Rows more than ${TOLERANCE * 100}% from the published RU`);
  lines.push("");
  if (!a.deviations.length) lines.push("None.");
  for (const d of a.deviations) lines.push(`- ${d.request} ${d.design}: ${num(d.ru)} vs ${num(d.publishedRu)} (${d.ratio.toFixed(2)}). ${d.reason}`);
  lines.push("");
  lines.push("## Background work (not in the published table)");
  lines.push("");
  lines.push("| design | load RU | load s | workers during load RU | workers after the C1-C4 runs RU | username change: request RU + workers RU |");
  lines.push("|---|---|---|---|---|---|");
  for (const d of a.designs) {
    const r = results.designs[d];
    lines.push(`| ${d} | ${num(r.load.ru)} | ${r.load.seconds.toFixed(1)} | ${num(r.load.workers)} | ${num(r.background.afterCreates)} | ${num(r.background.rename.ru)} + ${num(r.background.rename.workersRu)} |`);
  }
  lines.push("");
  lines.push("## Denormalised copies after a username change");
  lines.push("");
  if (!a.convergence.length) lines.push("No design with copies was run.");
  for (const c of a.convergence) lines.push(`- ${c.design}: ${c.ok ? "converged" : "**not converged**"}: ${c.check} (${c.detail})`);
  return lines.join("\n") + "\n";
}

const fmt = (n) => n.toLocaleString("en-US");
const num = (x) => (Number.isInteger(x) ? String(x) : x.toFixed(2));
