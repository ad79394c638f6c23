// Stress through @azure/cosmos, loopback only and bounded in time: COSMOS_STRESS_CLIENTS clients
// (default 64, each its own CosmosClient) for COSMOS_STRESS_SECONDS seconds (default 30) mix
// creates, replaces with If-Match, patches, deletes, queries, transactional batches and stored
// procedures, on shared counter items and on items of their own. Afterwards:
// - no 5xx and no unexpected error (412 on a contended counter is retried and counted);
// - every counter holds exactly the increments acknowledged, and the values the increments
//   returned are exactly 1..n (no lost update, no duplicate);
// - every acknowledged write is in the change feed (all versions and deletes, read from before the
//   run): per item, the entries are exactly that item's acknowledged writes, in the order they were
//   acknowledged for items one client owns, and in increasing value for the shared counters; the
//   entries' LSNs increase per item (order per key), and nothing else is in the feed.
// It prints the figures: operations per kind, 412 retries, 429s, the duration.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { ChangeFeedMode, ChangeFeedPolicy, ChangeFeedRetentionTimeSpan, ChangeFeedStartFrom } from "@azure/cosmos";
import { LOCAL, newClient, uid, useEmulator } from "./harness.mjs";

const SECONDS = Number(process.env.COSMOS_STRESS_SECONDS ?? 30);
const CLIENTS = Number(process.env.COSMOS_STRESS_CLIENTS ?? 64);
const COUNTERS = 8;

let dbId;
const ctx = useEmulator({
  setup: async ({ client }) => {
    dbId = uid("stress");
    await client.databases.create({ id: dbId });
  },
  teardown: ({ client }) => client.database(dbId).delete(),
});

// Reads the counter, adds one and writes it back, all inside the logical partition's transaction.
const INCREMENT = `function increment(id) {
  var c = getContext().getCollection();
  var accepted = c.readDocument(c.getAltLink() + "/docs/" + id, {}, function (err, doc) {
    if (err) throw err;
    doc.n += 1;
    var ok = c.replaceDocument(doc._self, doc, {}, function (err2, written) {
      if (err2) throw err2;
      getContext().getResponse().setBody({ n: written.n, etag: written._etag });
    });
    if (!ok) throw new Error("replace not accepted");
  });
  if (!accepted) throw new Error("read not accepted");
}`;

const IF_MATCH = (etag) => ({ accessCondition: { type: "IfMatch", condition: etag } });
const key = (pk, id) => `${pk}|${id}`;

class Stats {
  constructor() {
    this.ops = {};
    this.retries412 = 0;
    this.throttled429 = 0;
    this.failures = [];
    this.serverErrors = [];
  }
  count(kind) {
    this.ops[kind] = (this.ops[kind] || 0) + 1;
  }
  fail(what, e) {
    const entry = `${what}: ${e?.code ?? ""} ${e?.body?.code ?? ""} ${String(e?.body?.message ?? e?.message ?? e).slice(0, 300)}`;
    if (typeof e?.code === "number" && e.code >= 500) this.serverErrors.push(entry);
    this.failures.push(entry);
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

describe("stress", { skip: !LOCAL && "loopback only: starts its own emulator" }, () => {
  it(`${CLIENTS} clients for ${SECONDS} s: exact counters, every acknowledged write in the change feed in order`, {
    timeout: (SECONDS + 120) * 1000,
  }, async () => {
    const admin = ctx.client;
    const { container: setupContainer } = await admin.database(dbId).containers.create({
      id: "s",
      partitionKey: { paths: ["/pk"] },
      throughput: 12000, // two physical partitions
      changeFeedPolicy: new ChangeFeedPolicy(ChangeFeedRetentionTimeSpan.fromMinutes(60)),
    });
    await setupContainer.scripts.storedProcedures.create({ id: "increment", body: INCREMENT });
    // acked: per item, the acknowledged writes ({op, etag, n}) in the order they were acknowledged.
    const acked = new Map();
    const ack = (pk, id, op, etag, n) => {
      const k = key(pk, id);
      if (!acked.has(k)) acked.set(k, []);
      acked.get(k).push({ op, etag, n });
    };
    for (let i = 0; i < COUNTERS; i++) {
      const { resource } = await setupContainer.items.create({ id: `ctr${i}`, pk: `ctr-${i}`, n: 0 });
      ack(`ctr-${i}`, `ctr${i}`, "create", resource._etag, 0);
    }
    // All versions and deletes reads from now: the counters' creates above are before it.
    const avad = setupContainer.items.getChangeFeedIterator({
      changeFeedStartFrom: ChangeFeedStartFrom.Now(),
      changeFeedMode: ChangeFeedMode.AllVersionsAndDeletes,
      maxItemCount: 1000,
    });
    assert.equal((await avad.readNext()).statusCode, 304);

    const stats = new Stats();
    const increments = new Array(COUNTERS).fill(0); // acknowledged increments per counter
    const returned = Array.from({ length: COUNTERS }, () => []); // the n each acknowledged increment wrote

    const clients = [];
    for (let i = 0; i < CLIENTS; i++) {
      // No SDK retry of 429: the test counts them and waits itself.
      clients.push(
        ctx.track(newClient(ctx.env, { connectionPolicy: { retryOptions: { maxRetryAttemptCount: 0 } } })),
      );
    }
    const deadline = Date.now() + SECONDS * 1000;
    const started = Date.now();

    async function attempt(what, fn) {
      for (;;) {
        try {
          return await fn();
        } catch (e) {
          if (e?.code === 429) {
            stats.throttled429++;
            await sleep(Number(e.retryAfterInMs ?? e.headers?.["x-ms-retry-after-ms"] ?? 10));
            continue;
          }
          throw e;
        }
      }
    }

    async function worker(w) {
      const c = clients[w].database(dbId).container("s");
      const pk = `w${w}`;
      const live = new Map(); // id -> etag of this worker's live items
      let seq = 0;
      const pickLive = () => {
        const ids = [...live.keys()];
        return ids.length ? ids[Math.floor(Math.random() * ids.length)] : undefined;
      };

      // One increment of a shared counter, by one of four means; 412 (another client won) retries.
      async function increment() {
        const i = Math.floor(Math.random() * COUNTERS);
        const id = `ctr${i}`;
        const cpk = `ctr-${i}`;
        const item = c.item(id, cpk);
        const how = Math.floor(Math.random() * 4);
        for (;;) {
          try {
            let n;
            let etag;
            if (how === 0) {
              const { resource } = await attempt("read", () => item.read());
              stats.count("read");
              const r = await attempt("replace", () =>
                item.replace({ ...resource, n: resource.n + 1 }, IF_MATCH(resource._etag)),
              );
              stats.count("replace");
              ({ n, _etag: etag } = r.resource);
            } else if (how === 1) {
              const { resource } = await attempt("read", () => item.read());
              stats.count("read");
              const r = await attempt("patch", () =>
                item.patch([{ op: "set", path: "/n", value: resource.n + 1 }], IF_MATCH(resource._etag)),
              );
              stats.count("patch");
              ({ n, _etag: etag } = r.resource);
            } else if (how === 2) {
              const r = await attempt("patch", () => item.patch([{ op: "incr", path: "/n", value: 1 }]));
              stats.count("patch");
              ({ n, _etag: etag } = r.resource);
            } else {
              const r = await attempt("sproc", () => c.scripts.storedProcedure("increment").execute(cpk, [id]));
              stats.count("storedProcedure");
              ({ n, etag } = r.resource);
            }
            increments[i]++;
            returned[i].push(n);
            ack(cpk, id, "replace", etag, n);
            return;
          } catch (e) {
            if (e?.code === 412) {
              stats.retries412++;
              continue;
            }
            throw e;
          }
        }
      }

      async function ownOperation() {
        const roll = Math.random();
        if (roll < 0.3 || live.size === 0) {
          const id = `${pk}-${seq++}`;
          const { resource } = await attempt("create", () => c.items.create({ id, pk, v: 0 }));
          stats.count("create");
          live.set(id, resource._etag);
          ack(pk, id, "create", resource._etag);
        } else if (roll < 0.45) {
          const id = pickLive();
          const { resource } = await attempt("replace", () =>
            c.item(id, pk).replace({ id, pk, v: seq++ }, IF_MATCH(live.get(id))),
          );
          stats.count("replace");
          live.set(id, resource._etag);
          ack(pk, id, "replace", resource._etag);
        } else if (roll < 0.6) {
          const id = pickLive();
          const { resource } = await attempt("patch", () =>
            c.item(id, pk).patch([{ op: "set", path: "/v", value: seq++ }]),
          );
          stats.count("patch");
          live.set(id, resource._etag);
          ack(pk, id, "replace", resource._etag);
        } else if (roll < 0.72) {
          const id = pickLive();
          await attempt("delete", () => c.item(id, pk).delete());
          stats.count("delete");
          live.delete(id);
          ack(pk, id, "delete");
        } else if (roll < 0.86) {
          // Its own items: the count is exact (only this client writes them; session consistency).
          const { resources } = await attempt("query", () =>
            c.items
              .query({ query: "SELECT VALUE COUNT(1) FROM c WHERE c.pk = @pk", parameters: [{ name: "@pk", value: pk }] })
              .fetchAll(),
          );
          stats.count("query");
          assert.deepEqual(resources, [live.size], `${pk}: the query counts the live items`);
        } else {
          const a = `${pk}-${seq++}`;
          const b = `${pk}-${seq++}`;
          const target = pickLive();
          const ops = [
            { operationType: "Create", resourceBody: { id: a, pk, v: 0 } },
            { operationType: "Create", resourceBody: { id: b, pk, v: 0 } },
            {
              operationType: "Replace",
              id: target,
              resourceBody: { id: target, pk, v: seq++ },
              ifMatch: live.get(target),
            },
          ];
          const res = await attempt("batch", () => c.items.batch(ops, pk));
          stats.count("batch");
          const results = res.result;
          assert.deepEqual(
            results.map((r) => r.statusCode),
            [201, 201, 200],
            `${pk}: batch ${JSON.stringify(results)}`,
          );
          for (const [i, id] of [a, b, target].entries()) {
            live.set(id, results[i].eTag);
            ack(pk, id, i < 2 ? "create" : "replace", results[i].eTag);
          }
        }
      }

      while (Date.now() < deadline) {
        try {
          if (Math.random() < 0.5) await increment();
          else await ownOperation();
        } catch (e) {
          if (e instanceof assert.AssertionError) throw e;
          stats.fail(`client ${w}`, e);
          if (stats.failures.length > 50) return;
        }
      }
    }

    await Promise.all(clients.map((_, w) => worker(w)));
    const duration = (Date.now() - started) / 1000;

    // Counters: exact.
    const finals = [];
    for (let i = 0; i < COUNTERS; i++) {
      const { resource } = await setupContainer.item(`ctr${i}`, `ctr-${i}`).read();
      finals.push(resource.n);
      const sorted = [...returned[i]].sort((x, y) => x - y);
      assert.equal(resource.n, increments[i], `counter ${i}: ${resource.n} but ${increments[i]} increments acknowledged`);
      assert.deepEqual(
        sorted,
        Array.from({ length: increments[i] }, (_, j) => j + 1),
        `counter ${i}: every acknowledged increment wrote a distinct next value`,
      );
    }

    // The change feed: every version since the run started, read to its end.
    const entries = [];
    let empty = 0;
    const feedStart = Date.now();
    while (empty < 4) {
      const page = await avad.readNext();
      if (page.statusCode === 304 || page.result.length === 0) {
        empty++;
        continue;
      }
      empty = 0;
      entries.push(...page.result);
    }
    const feedSeconds = (Date.now() - feedStart) / 1000;
    const byKey = new Map();
    for (const e of entries) {
      const m = e.metadata;
      const op = m.operationType;
      const k =
        op === "delete" ? key(Object.values(m.partitionKey)[0], m.id) : key(e.current.pk, e.current.id);
      if (!byKey.has(k)) byKey.set(k, []);
      byKey.get(k).push({ op, etag: e.current?._etag, n: e.current?.n, lsn: m.lsn });
    }
    let expectedEntries = 0;
    for (const [k, writes] of acked) {
      // The counters' creates came before the feed's start.
      const expected = k.startsWith("ctr-") ? writes.slice(1) : writes;
      expectedEntries += expected.length;
      const got = byKey.get(k) || [];
      for (let j = 1; j < got.length; j++) assert.ok(got[j].lsn > got[j - 1].lsn, `${k}: LSNs increase`);
      if (k.startsWith("ctr-")) {
        // Concurrent writers: acknowledgement order is not commit order, the values are.
        assert.deepEqual(
          got.map((g) => g.n),
          Array.from({ length: expected.length }, (_, j) => j + 1),
          `${k}: every increment in order`,
        );
        assert.deepEqual(
          new Set(got.map((g) => g.etag)),
          new Set(expected.map((x) => x.etag)),
          `${k}: the feed's versions are the acknowledged ones`,
        );
      } else {
        assert.deepEqual(
          got.map((g) => [g.op, g.etag]),
          expected.map((x) => [x.op, x.etag]),
          `${k}: the feed holds the acknowledged writes in order`,
        );
      }
    }
    assert.equal(entries.length, expectedEntries, "the feed holds nothing but the acknowledged writes");

    const total = Object.values(stats.ops).reduce((a, b) => a + b, 0);
    console.log(
      `stress: ${CLIENTS} clients, ${duration.toFixed(1)} s, ${total} operations (${Math.round(total / duration)}/s): ` +
        Object.entries(stats.ops)
          .sort()
          .map(([k, v]) => `${k} ${v}`)
          .join(", ") +
        `; 412 retries ${stats.retries412}; 429s ${stats.throttled429}; counters ${finals.join(" ")}; ` +
        `change feed ${entries.length} entries in ${feedSeconds.toFixed(1)} s; failures ${stats.failures.length}`,
    );
    assert.deepEqual(stats.serverErrors, [], "no 5xx");
    assert.deepEqual(stats.failures, [], "no unexpected error");
    assert.ok(total > CLIENTS, "the clients made progress");
  });
});
