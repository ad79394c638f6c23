// Runs the whole sample: generates the dataset, then for each design creates its containers, loads
// the data, measures C1-C4 and Q1-Q6 on the targets, changes a username, lets the change-feed
// workers converge, and checks every denormalised copy. Resolves to the results (see report.mjs).
import { performance } from "node:perf_hooks";
import { connect, Meter, median } from "./cosmos.mjs";
import { DESIGNS } from "./designs.mjs";
import { generate } from "./generate.mjs";

export const DEFAULTS = {
  users: 1000,
  seed: 1,
  runs: 5,
  designs: ["V1", "V2", "V3"],
  // 70 physical partitions for posts, as the published cross-partition figures imply: a container
  // gets one physical partition per 10,000 RU/s provisioned.
  postsThroughput: 420_000, // 70 physical partitions: ceil(RU/s / 6,000)
  databasePrefix: "blog",
  keep: false,
  quiet: false,
};

const log = (quiet, ...args) => {
  if (!quiet) console.error(...args);
};

export async function run(options = {}) {
  const o = { ...DEFAULTS, ...options };
  const client = options.client ?? connect(options);
  const started = Date.now();
  const data = generate({ users: o.users, seed: o.seed });
  const t = data.target;
  log(o.quiet, `dataset (seed ${o.seed}): ${fmt(data.counts.users)} users, ${fmt(data.counts.posts)} posts, ${fmt(data.counts.comments)} comments, ${fmt(data.counts.likes)} likes`);
  log(o.quiet, `targets: user ${t.user.id} (${t.userPosts} posts), post ${t.post.id} (${t.post.nComments} comments, ${t.post.nLikes} likes)`);

  const results = { options: { ...o, client: undefined }, dataset: data.counts, target: { userId: t.user.id, postId: t.post.id }, designs: {} };
  for (const name of o.designs) {
    const design = new DESIGNS[name](client, o);
    log(o.quiet, `\n${name}: setting up ${design.databaseId}`);
    await design.setup();
    log(o.quiet, `${name}: posts has ${design.partitions} physical partitions`);
    const loadStart = Date.now();
    await design.loadData(data);
    const r = {
      partitions: design.partitions,
      load: { ru: design.load.ru, seconds: (Date.now() - loadStart) / 1000, workers: workerRu(design) },
      requests: await measure(design, data, o.runs),
    };
    log(o.quiet, `${name}: measured (${requestLine(r.requests)})`);

    // C1 (edit): the target user changes their username; the workers carry it everywhere.
    const before = workerRu(design);
    await design.settle();
    const afterCreates = workerRu(design);
    const m = new Meter();
    const renamed = `${t.user.username}.renamed`;
    await design.rename(m, t.user.id, renamed);
    await design.settle();
    r.background = {
      afterCreates: round(afterCreates - before),
      rename: { ru: m.ru, workersRu: round(workerRu(design) - afterCreates) },
    };
    r.convergence = await design.verify();
    for (const c of r.convergence) log(o.quiet, `${name}: ${c.ok ? "converged" : "NOT CONVERGED"}: ${c.check} (${c.detail})`);
    if (!o.keep) await design.drop();
    results.designs[name] = r;
  }
  results.seconds = (Date.now() - started) / 1000;
  return results;
}

function workerRu(design) {
  return round(design.workers.reduce((a, w) => a + w.meter.total, 0));
}

const round = (x) => Math.round(x * 100) / 100;
const fmt = (n) => n.toLocaleString("en-US");
const requestLine = (req) => Object.entries(req).map(([k, v]) => `${k} ${v.ru}`).join(", ");

/**
 * Each request `runs` times: the queries first, on the targets (the data they read stays as
 * generated), then the creates. Each run of C3 and C4 comments on and likes the post C2 created in
 * that run, by the user C1 created in that run.
 */
async function measure(design, data, runs) {
  const t = data.target;
  const fresh = data.fresh();
  const out = {};
  const record = async (id, fn) => {
    const samples = [];
    for (let r = 0; r < runs; r++) {
      const m = new Meter();
      const t0 = performance.now();
      await fn(m, r);
      samples.push({ ru: m.ru, ms: round(performance.now() - t0), calls: m.calls });
    }
    out[id] = { ru: round(median(samples.map((s) => s.ru))), ms: round(median(samples.map((s) => s.ms))), calls: median(samples.map((s) => s.calls)), samples };
  };
  const check = (cond, what) => {
    if (!cond) throw new Error(`${design.constructor.label}: ${what}`);
  };

  await record("Q1", async (m) => check((await design.Q1(m, t.user.id)).username === t.user.username, "Q1 read the wrong user"));
  await record("Q2", async (m) => {
    const post = await design.Q2(m, t.post.id);
    check(post.userUsername === t.user.username && post.commentCount === t.post.nComments && post.likeCount === t.post.nLikes, `Q2 answered ${JSON.stringify({ ...post, content: undefined })}`);
  });
  await record("Q3", async (m) => check((await design.Q3(m, t.user.id)).length === t.userPosts, "Q3 listed the wrong number of posts"));
  await record("Q4", async (m) => {
    const comments = await design.Q4(m, t.post.id);
    check(comments.length === t.post.nComments && comments.every((c) => c.userUsername === data.usernames.get(c.userId)), "Q4 answered the wrong comments");
  });
  await record("Q5", async (m) => {
    const likes = await design.Q5(m, t.post.id);
    check(likes.length === t.post.nLikes && likes.every((l) => l.userUsername === data.usernames.get(l.userId)), "Q5 answered the wrong likes");
  });
  await record("Q6", async (m) => {
    const feed = await design.Q6(m);
    check(feed.length === Math.min(100, data.counts.posts), "Q6 listed the wrong number of posts");
    check(feed.every((p, i) => i === 0 || feed[i - 1].creationDate > p.creationDate), "Q6 is not newest first");
  });

  const made = [];
  await record("C1", async (m, r) => {
    made[r] = { user: fresh.user() };
    await design.C1(m, made[r].user);
  });
  await record("C2", async (m, r) => {
    const post = fresh.post(made[r].user.id);
    post.username = made[r].user.username;
    made[r].post = post;
    await design.C2(m, post);
  });
  await record("C3", async (m, r) => {
    const comment = fresh.comment(made[r].user.id);
    comment.username = made[r].user.username;
    await design.C3(m, made[r].post, comment);
  });
  await record("C4", async (m, r) => {
    const like = fresh.like(made[r].user.id);
    like.username = made[r].user.username;
    await design.C4(m, made[r].post, like);
  });
  return out;
}
