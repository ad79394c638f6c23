// The blog sample end to end at a small scale (60 users, 2 runs a request): every design loads,
// every request answers the targets, every change the scenario reports from one design to the next
// happens here too, and every denormalised copy converges after a username change (usernames,
// counts, the feed holds exactly the 100 newest posts).
//
// Starts the emulator binary on a free port through the SDK tests' harness (tests/sdk/js/harness.mjs:
// $COSMOS_EMULATOR_BIN, else build/emulator/cosmos-emulator); with COSMOS_ENDPOINT set, runs against
// that account instead and skips the emulator's exact charges.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { LOCAL, startEmulator } from "../../../tests/sdk/js/harness.mjs";
import { analyse, markdown } from "../lib/report.mjs";
import { run } from "../lib/run.mjs";

// The RU table at this scale (seed 1, 60 users): the emulator's charges are deterministic, so any
// change to them, to the data or to the requests shows here.
const EXPECTED_RU = {
  C1: [5.91, 5.91, 6.7],
  Q1: [1, 1, 1],
  C2: [8.47, 9.65, 9.65],
  Q2: [8.45, 1.15, 1.15],
  Q3: [392.2, 195.22, 6.51],
  C3: [8.39, 14.89, 14.89],
  Q4: [27.74, 7.78, 7.78],
  C4: [7.12, 14.45, 14.45],
  Q5: [59.03, 9.14, 9.14],
  Q6: [1101.15, 374.4, 16.79],
};

describe("the blog sample at a small scale", () => {
  let emulator;
  let results;
  let analysis;

  before(async () => {
    emulator = await startEmulator();
    results = await run({ users: 60, runs: 2, quiet: true, endpoint: emulator.endpoint, key: emulator.key, databasePrefix: "blog-test" });
    analysis = analyse(results);
  });
  after(() => emulator.stop());

  it("generates the scenario's shape and finds the targets", () => {
    assert.deepEqual(results.dataset, { users: 60, posts: 1806, comments: 23352, likes: 54759 });
    for (const d of ["V1", "V2", "V3"]) assert.equal(results.designs[d].partitions, LOCAL ? 70 : results.designs[d].partitions);
  });

  it("every change the scenario reports from one design to the next happens here too", () => {
    assert.equal(analysis.changes.length, 16);
    assert.deepEqual(analysis.changes.filter((c) => !c.ok), []);
    // the ones the scenario is about
    const change = (request, from, to) => analysis.changes.find((c) => c.request === request && c.from === from && c.to === to);
    for (const [q, from, to] of [["Q2", "V1", "V2"], ["Q3", "V1", "V2"], ["Q3", "V2", "V3"], ["Q4", "V1", "V2"], ["Q5", "V1", "V2"], ["Q6", "V1", "V2"], ["Q6", "V2", "V3"]]) {
      assert.equal(change(q, from, to).direction, "cheaper", `${q} ${from} -> ${to}`);
      assert.ok(change(q, from, to).ok, `${q} ${from} -> ${to}`);
    }
    for (const c of ["C3", "C4"]) assert.ok(change(c, "V1", "V2").ok && change(c, "V1", "V2").direction === "dearer", c);
  });

  it("every denormalised copy converges after the creates and a username change", () => {
    const checks = analysis.convergence.map((c) => `${c.design}: ${c.check}: ${c.ok}`);
    assert.deepEqual(checks, [
      "V2: posts, comments and likes carry their author's current username: true",
      "V2: every post's commentCount and likeCount equal its comments and likes: true",
      "V3: posts, comments and likes carry their author's current username: true",
      "V3: every post's commentCount and likeCount equal its comments and likes: true",
      "V3: users holds one up-to-date short copy of every post, in its author's partition: true",
      "V3: feed holds exactly the 100 newest posts, up to date: true",
    ]);
    const feed = analysis.convergence.find((c) => c.design === "V3" && c.check.startsWith("feed"));
    assert.equal(feed.detail, "100 items, 0 of the 100 newest absent, 0 stale");
    assert.ok(analysis.ok);
  });

  it("the request units, exactly, and the rows far from the published figures, each with its reason", { skip: !LOCAL && "exact charges are the emulator's" }, () => {
    const table = Object.fromEntries(analysis.rows.map((r) => [r.id, ["V1", "V2", "V3"].map((d) => r.cells[d].ru)]));
    assert.deepEqual(table, EXPECTED_RU);
    assert.deepEqual(
      analysis.deviations.map((d) => `${d.request} ${d.design}`),
      ["Q2 V1", "Q3 V1", "Q6 V1", "Q6 V2"],
    );
    for (const d of analysis.deviations) assert.notEqual(d.reason, "no reason recorded", `${d.request} ${d.design}`);
  });

  it("writes the table as Markdown", () => {
    const md = markdown(results, analysis);
    assert.match(md, /\| Q3 list a user's posts in short form \| [\d.]+ \/ 619\.41 \([\d.]+\) \| [\d.]+ \/ 201\.54 \([\d.]+\) \| [\d.]+ \/ 6\.46 \([\d.]+\) \|/);
    assert.match(md, /\| Q6 \| V1 -> V3 \| 2063\.54 -> 16\.97 \(cheaper\) \| [\d.]+ -> [\d.]+ \| yes \|/);
  });
});
