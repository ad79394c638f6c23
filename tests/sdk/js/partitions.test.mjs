// Partitioned containers through @azure/cosmos: physical partition key ranges (V1, V2, MultiHash),
// item placement by effective partition key (hashed independently here), range-scoped queries
// (x-ms-documentdb-partitionkeyrangeid), the --partition-count flag, the charge of cross-partition
// queries, hierarchical-key prefixes, session tokens per range, and the GET /_emulator/stats report.
import { describe, it, before } from "node:test";
import assert from "node:assert/strict";
import {
  LOCAL,
  REJECTED_WRITE,
  assertCharge,
  createCharge,
  docPath,
  expectError,
  feedCharge,
  kbOf,
  newClient,
  rawRequest,
  readCharge,
  round2,
  startEmulator,
  uid,
  useEmulatorWithDatabase,
} from "./harness.mjs";

let db;
let dbId;
const ctx = useEmulatorWithDatabase((d) => ({ db, dbId } = d));

// ---------------------------------------------------------------------------------------------
// Effective partition keys, computed here from the definitions in docs/protocol.md §8

const M64 = (1n << 64n) - 1n;
const rotl64 = (x, r) => ((x << BigInt(r)) | (x >> BigInt(64 - r))) & M64;
const fmix64 = (k) => {
  k ^= k >> 33n;
  k = (k * 0xff51afd7ed558ccdn) & M64;
  k ^= k >> 33n;
  k = (k * 0xc4ceb9fe1a85ec53n) & M64;
  return k ^ (k >> 33n);
};

/** MurmurHash3_x64_128 with seed 0; returns [h1, h2] as BigInts. */
function murmur3x64_128(bytes) {
  const c1 = 0x87c37b91114253d5n;
  const c2 = 0x4cf5ad432745937fn;
  let h1 = 0n;
  let h2 = 0n;
  const le = (off, n) => {
    let v = 0n;
    for (let i = n - 1; i >= 0; i--) v = (v << 8n) | BigInt(bytes[off + i]);
    return v;
  };
  const blocks = Math.floor(bytes.length / 16);
  for (let b = 0; b < blocks; b++) {
    let k1 = le(b * 16, 8);
    let k2 = le(b * 16 + 8, 8);
    k1 = rotl64((k1 * c1) & M64, 31);
    h1 ^= (k1 * c2) & M64;
    h1 = (((rotl64(h1, 27) + h2) & M64) * 5n + 0x52dce729n) & M64;
    k2 = rotl64((k2 * c2) & M64, 33);
    h2 ^= (k2 * c1) & M64;
    h2 = (((rotl64(h2, 31) + h1) & M64) * 5n + 0x38495ab5n) & M64;
  }
  const off = blocks * 16;
  const tail = bytes.length - off;
  if (tail > 8) h2 ^= (rotl64((le(off + 8, tail - 8) * c2) & M64, 33) * c1) & M64;
  if (tail > 0) h1 ^= (rotl64((le(off, Math.min(tail, 8)) * c1) & M64, 31) * c2) & M64;
  const len = BigInt(bytes.length);
  h1 ^= len;
  h2 ^= len;
  h1 = (h1 + h2) & M64;
  h2 = (h2 + h1) & M64;
  h1 = fmix64(h1);
  h2 = fmix64(h2);
  h1 = (h1 + h2) & M64;
  h2 = (h2 + h1) & M64;
  return [h1, h2];
}

const hex = (v, digits) => v.toString(16).toUpperCase().padStart(digits, "0");

/** V2 EPK of a string key component: marker 0x08, UTF-8, 0xFF; %016X%016X of (h2 & 0x3FFF..., h1). */
function epkV2(s) {
  const bytes = Buffer.concat([Buffer.from([0x08]), Buffer.from(s, "utf8"), Buffer.from([0xff])]);
  const [h1, h2] = murmur3x64_128(bytes);
  return hex(h2 & 0x3fffffffffffffffn, 16) + hex(h1, 16);
}

/** V1 EPK encoding of a number (the service's binary number encoding: marker 05, 8 bits, then 7-bit groups). */
function v1NumberEpk(value) {
  const buf = Buffer.alloc(8);
  buf.writeDoubleLE(value);
  const bits = buf.readBigUInt64LE();
  const sign = 0x8000000000000000n;
  let payload = bits < sign ? bits ^ sign : (~bits + 1n) & M64;
  const out = [0x05, Number(payload >> 56n)];
  payload = (payload << 8n) & M64;
  let byte = 0;
  let first = true;
  do {
    if (!first) out.push(byte);
    first = false;
    byte = Number(payload >> 56n) | 0x01;
    payload = (payload << 7n) & M64;
  } while (payload !== 0n);
  out.push(byte & 0xfe);
  return Buffer.from(out).toString("hex").toUpperCase();
}

/** MurmurHash3_x86_32 with seed 0 (an unsigned 32-bit number). */
function murmur3x86_32(bytes) {
  const c1 = 0xcc9e2d51;
  const c2 = 0x1b873593;
  const rotl = (x, r) => (x << r) | (x >>> (32 - r));
  let h = 0;
  const blocks = Math.floor(bytes.length / 4);
  for (let b = 0; b < blocks; b++) {
    let k = bytes.readUInt32LE(b * 4);
    k = Math.imul(rotl(Math.imul(k, c1), 15), c2);
    h = (Math.imul(rotl(h ^ k, 13), 5) + 0xe6546b64) | 0;
  }
  let k = 0;
  const off = blocks * 4;
  for (let i = bytes.length - off - 1; i >= 0; i--) k = (k << 8) | bytes[off + i];
  if (bytes.length > off) h ^= Math.imul(rotl(Math.imul(k, c1), 15), c2);
  h ^= bytes.length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** V1 EPK of a (short, ASCII) string key: number-encoded hash of 08 + UTF-8 + 00, then 08, bytes + 1, 00. */
function epkV1(s) {
  const utf8 = Buffer.from(s, "utf8");
  const hash = murmur3x86_32(Buffer.concat([Buffer.from([0x08]), utf8, Buffer.from([0x00])]));
  const suffix = Buffer.concat([Buffer.from([0x08]), Buffer.from(utf8.map((b) => b + 1)), Buffer.from([0x00])]);
  return v1NumberEpk(hash) + suffix.toString("hex").toUpperCase();
}

/** The expected ranges of an even split into n: [{id, minInclusive, maxExclusive}]. */
function expectedRanges(n, version) {
  const step = ((1n << 126n) - 1n) / BigInt(n);
  const boundary = (i) =>
    version === 1 ? v1NumberEpk(Math.floor(((2 ** 32 - 1) * i) / n)) : hex(BigInt(i) * step, 32);
  const ranges = [];
  for (let i = 0; i < n; i++) {
    ranges.push({
      id: String(i),
      minInclusive: i === 0 ? "" : boundary(i),
      maxExclusive: i === n - 1 ? "FF" : boundary(i + 1),
    });
  }
  return ranges;
}

/** The id of the range whose [min, max) holds the EPK (upper-case hex strings compare as strings). */
function rangeOf(ranges, epk) {
  const hits = ranges.filter((r) => r.minInclusive <= epk && epk < r.maxExclusive);
  assert.equal(hits.length, 1, `exactly one range holds ${epk}`);
  return hits[0].id;
}

const V2 = { paths: ["/pk"], version: 2 };
const V1 = { paths: ["/pk"], version: 1 };

async function createContainer(partitionCount, partitionKey = V2, id = uid("c")) {
  const options = partitionCount === undefined ? {} : { initialHeaders: { "x-cosmos-emulator-partition-count": String(partitionCount) } };
  const res = await db.containers.create({ id, partitionKey }, options);
  return { container: res.container, resource: res.resource, id };
}

async function readRanges(container) {
  const res = await container.readPartitionKeyRanges().fetchAll();
  return res.resources;
}

/** Asserts the ranges of a fresh even layout of n ranges: ids, boundaries, contiguity, fractions. */
function assertLayout(ranges, n, version) {
  const expected = expectedRanges(n, version);
  assert.deepEqual(
    ranges.map((r) => ({ id: r.id, minInclusive: r.minInclusive, maxExclusive: r.maxExclusive })),
    expected,
  );
  assert.equal(ranges[0].minInclusive, "");
  assert.equal(ranges.at(-1).maxExclusive, "FF");
  for (let i = 1; i < ranges.length; i++) assert.equal(ranges[i].minInclusive, ranges[i - 1].maxExclusive, "contiguous");
  for (const [i, r] of ranges.entries()) {
    assert.equal(r.throughputFraction, 1 / n);
    assert.equal(r.ridPrefix, i);
    assert.equal(r.status, "online");
    assert.deepEqual(r.parents, []);
  }
}

const byId = (a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const sum = (xs) => xs.reduce((s, x) => s + x, 0);

/** Charge of one query page over `partitions` partitions that loaded `docs`. */
const queryCharge = (partitions, docs, extra = 0) =>
  round2(2.7 * partitions + 0.1 * docs.length + 0.068 * sum(docs.map((d) => kbOf(d))) + extra);

/** A query restricted to one physical range (the SDK has no option for it: the header goes in initialHeaders). */
function rangeQuery(container, query, rangeId, options = {}) {
  return container.items.query(query, { ...options, initialHeaders: { "x-ms-documentdb-partitionkeyrangeid": rangeId } });
}

// ---------------------------------------------------------------------------------------------

describe("effective partition key hashing (test-side implementation)", () => {
  it("matches the docs/protocol.md V2 vectors", () => {
    assert.equal(epkV2("a"), "3A5381E1114EB8D3FCC90795045B49B7");
    assert.equal(epkV2(""), "32E9366E637A71B4E710384B2F4970A0");
  });

  it("matches the docs/protocol.md V1 vectors", () => {
    assert.equal(epkV1("a"), "05C1D78593652C086200");
    assert.equal(epkV1(""), "05C1CF33970FF80800");
  });

  it("encodes the known V1 boundaries", () => {
    assert.equal(v1NumberEpk(Math.floor((2 ** 32 - 1) / 2)), "05C1DFFFFFFFFC");
    assert.equal(v1NumberEpk(Math.floor((2 ** 32 - 1) / 4)), "05C1CFFFFFFFF8");
    assert.equal(v1NumberEpk(Math.floor((2 ** 32 - 1) / 5)), "05C1C9CD673398");
  });
});

describe("partition key ranges", () => {
  it("a default container (400 RU/s) has one range covering everything", async () => {
    const { container } = await createContainer(undefined);
    const ranges = await readRanges(container);
    assert.equal(ranges.length, 1);
    assertLayout(ranges, 1, 2);
  });

  it("the SDK's default definition (no version) is hashed V1", async () => {
    const { container, resource } = await createContainer(4, { paths: ["/pk"] });
    assert.equal(resource.partitionKey.version ?? 1, 1);
    assertLayout(await readRanges(container), 4, 1);
  });

  for (const n of [1, 2, 4, 5]) {
    it(`V2: ${n} partition(s) split the hash space evenly`, async () => {
      const { container, resource } = await createContainer(n);
      assert.deepEqual(resource.partitionKey, { paths: ["/pk"], kind: "Hash", version: 2 });
      const ranges = await readRanges(container);
      assertLayout(ranges, n, 2);
      const feedRanges = await container.getFeedRanges();
      assert.deepEqual(
        feedRanges.map((f) => ({ minInclusive: f.minInclusive, maxExclusive: f.maxExclusive })),
        ranges.map((r) => ({ minInclusive: r.minInclusive, maxExclusive: r.maxExclusive })),
      );
    });

    it(`V1: ${n} partition(s) split the 32-bit hash evenly`, async () => {
      const { container, resource } = await createContainer(n, V1);
      assert.deepEqual(resource.partitionKey, { paths: ["/pk"], kind: "Hash", version: 1 });
      assertLayout(await readRanges(container), n, 1);
    });
  }

  it("V2 boundaries of 4 ranges are the published ones", async () => {
    const { container } = await createContainer(4);
    assert.deepEqual(
      (await readRanges(container)).map((r) => [r.minInclusive, r.maxExclusive]),
      [
        ["", "0FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF"],
        ["0FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF", "1FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFE"],
        ["1FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFE", "2FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFD"],
        ["2FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFD", "FF"],
      ],
    );
  });

  it("V1 boundaries of 2, 4 and 5 ranges are the published ones", async () => {
    const firsts = {};
    for (const n of [2, 4, 5]) {
      const { container } = await createContainer(n, V1);
      firsts[n] = (await readRanges(container))[0].maxExclusive;
    }
    assert.deepEqual(firsts, { 2: "05C1DFFFFFFFFC", 4: "05C1CFFFFFFFF8", 5: "05C1C9CD673398" });
  });

  it("MultiHash containers use the V2 layout", async () => {
    const { container } = await createContainer(4, { paths: ["/tenant", "/user"], kind: "MultiHash", version: 2 });
    assertLayout(await readRanges(container), 4, 2);
  });
});

describe("item placement", () => {
  const N = 200;
  let container;
  let collId;
  let ranges;
  const expectedRange = new Map(); // id -> range id
  const created = new Map(); // id -> stored item

  it(`${N} items land in the range their hash names`, async () => {
    ({ container, id: collId } = await createContainer(4));
    ranges = await readRanges(container);
    for (let i = 0; i < N; i++) {
      const key = `key-${i}`;
      const res = await container.items.create({ id: `item-${i}`, pk: key, n: i });
      const range = rangeOf(ranges, epkV2(key));
      expectedRange.set(res.resource.id, range);
      created.set(res.resource.id, res.resource);
      assert.equal(res.headers["x-ms-documentdb-partitionkeyrangeid"], range, `create of ${key}`);
    }
    // every range gets a share of 200 distinct keys
    for (const r of ranges) assert.ok([...expectedRange.values()].includes(r.id), `range ${r.id} is used`);
  });

  it("a query per range returns exactly the items hashed into it", async () => {
    const seen = new Map();
    for (const r of ranges) {
      const res = await rangeQuery(container, "SELECT * FROM c", r.id).fetchAll();
      const expectedIds = [...expectedRange].filter(([, range]) => range === r.id).map(([id]) => id);
      assert.deepEqual(res.resources.map((d) => d.id).sort(), expectedIds.sort(), `range ${r.id}`);
      for (const d of res.resources) {
        assert.equal(seen.has(d.id), false, `${d.id} appears in one range only`);
        seen.set(d.id, r.id);
        assert.deepEqual(d, created.get(d.id));
      }
      assertCharge(res.requestCharge, feedCharge(res.resources), `range ${r.id} query`);
    }
    assert.equal(seen.size, N);
  });

  it("a range-scoped page carries that range's session token (LSN = writes to that range)", async () => {
    for (const r of ranges) {
      const page = await rangeQuery(container, "SELECT c.id FROM c", r.id, { maxItemCount: 1000 }).fetchNext();
      const writes = [...expectedRange.values()].filter((x) => x === r.id).length;
      assert.equal(page.resources.length, writes);
      assert.equal(page.headers["x-ms-session-token"], `${r.id}:-1#${writes}`);
    }
  });

  it("point reads name the item's range in x-ms-documentdb-partitionkeyrangeid", async () => {
    for (let i = 0; i < N; i += 7) {
      const res = await container.item(`item-${i}`, `key-${i}`).read();
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers["x-ms-documentdb-partitionkeyrangeid"], expectedRange.get(`item-${i}`));
      assertCharge(res.requestCharge, readCharge(res.resource));
    }
  });

  it("an unknown range id answers 410 substatus 1002", async () => {
    const res = await rawRequest(ctx.env, {
      method: "POST",
      path: docPath(dbId, collId),
      headers: {
        "x-ms-documentdb-isquery": "true",
        "content-type": "application/query+json",
        "x-ms-documentdb-query-enablecrosspartition": "true",
        "x-ms-documentdb-partitionkeyrangeid": "4",
      },
      body: { query: "SELECT * FROM c" },
    });
    assert.equal(res.status, 410);
    assert.equal(res.headers["x-ms-substatus"], "1002");
    assert.equal(res.json.code, "Gone");
    // the SDK's default query path reports a 410 as an unrecoverable split
    const err = await expectError(() => rangeQuery(container, "SELECT * FROM c", "4").fetchAll(), 503);
    assert.match(err.message, /partition split/);
  });

  it("a raw read-feed per range header lists that range's items", async () => {
    for (const r of ranges) {
      const res = await rawRequest(ctx.env, {
        path: docPath(dbId, collId),
        headers: { "x-ms-documentdb-partitionkeyrangeid": r.id, "x-ms-max-item-count": "1000" },
      });
      assert.equal(res.status, 200);
      const expectedIds = [...expectedRange].filter(([, range]) => range === r.id).map(([id]) => id);
      assert.deepEqual(res.json.Documents.map((d) => d.id).sort(), expectedIds.sort());
    }
  });
});

describe("item placement, V1 hashing", () => {
  it("100 items on a 4-range V1 container land in the range of their V1 EPK", async () => {
    const { container } = await createContainer(4, V1);
    const ranges = await readRanges(container);
    const expected = new Map();
    for (let i = 0; i < 100; i++) {
      const res = await container.items.create({ id: `v${i}`, pk: `key-${i}` });
      const range = rangeOf(ranges, epkV1(`key-${i}`));
      expected.set(`v${i}`, range);
      assert.equal(res.headers["x-ms-documentdb-partitionkeyrangeid"], range, `create of key-${i}`);
    }
    for (const r of ranges) {
      const res = await rangeQuery(container, "SELECT VALUE c.id FROM c", r.id).fetchAll();
      const ids = [...expected].filter(([, range]) => range === r.id).map(([id]) => id);
      assert.ok(ids.length > 0, `range ${r.id} is used`);
      assert.deepEqual(res.resources.sort(), ids.sort(), `range ${r.id}`);
    }
  });
});

describe("--partition-count", () => {
  it("gives every new container that many ranges; the per-container header still wins", async () => {
    const env = await startEmulator(["--partition-count", "3"]);
    const client = newClient(env);
    try {
      const d = (await client.databases.create({ id: uid("db") })).database;
      // the SDK's default definition (V1) and an explicit V2 one
      const sdkDefault = (await d.containers.create({ id: "default", partitionKey: { paths: ["/pk"] } })).container;
      assertLayout((await sdkDefault.readPartitionKeyRanges().fetchAll()).resources, 3, 1);
      const { container } = await d.containers.create({ id: "c", partitionKey: V2 });
      assertLayout((await container.readPartitionKeyRanges().fetchAll()).resources, 3, 2);
      const two = (
        await d.containers.create({ id: "two", partitionKey: V2 }, { initialHeaders: { "x-cosmos-emulator-partition-count": "2" } })
      ).container;
      assertLayout((await two.readPartitionKeyRanges().fetchAll()).resources, 2, 2);
      // items spread over the 3 ranges as hashed
      const ranges = (await container.readPartitionKeyRanges().fetchAll()).resources;
      for (let i = 0; i < 30; i++) {
        const res = await container.items.create({ id: `i${i}`, pk: `p${i}` });
        assert.equal(res.headers["x-ms-documentdb-partitionkeyrangeid"], rangeOf(ranges, epkV2(`p${i}`)));
      }
    } finally {
      client.dispose();
      await env.stop();
    }
  });
});

describe("cross-partition query charge", () => {
  let container;
  let ranges;
  const docs = [];

  // Setup, a hook so that each test runs alone by name: 12 items on a 4-partition container.
  before(async () => {
    ({ container } = await createContainer(4));
    ranges = await readRanges(container);
    for (let i = 0; i < 12; i++) docs.push((await container.items.create({ id: `d${i}`, pk: `p${i}`, k: i })).resource);
  });

  it("an equality query costs 3 * 2.7 more fanned out to 4 ranges than scoped to its key", async () => {
    const query = "SELECT * FROM c WHERE c.k = 1";
    const scoped = await container.items.query(query, { partitionKey: "p1" }).fetchAll();
    const fanned = await container.items.query(query).fetchAll();
    assert.deepEqual(scoped.resources, [docs[1]]);
    assert.deepEqual(fanned.resources, [docs[1]]);
    assertCharge(scoped.requestCharge, queryCharge(1, scoped.resources));
    // (The gateway answers one range per page: 4 pages, whose charges the SDK adds up.)
    assertCharge(round2(fanned.requestCharge), queryCharge(4, fanned.resources));
    assertCharge(round2(fanned.requestCharge - scoped.requestCharge), round2(3 * 2.7), "difference");
  });

  it("a full scan fanned out costs 4 * 2.7 plus the loaded items", async () => {
    const res = await container.items.query("SELECT * FROM c").fetchAll();
    assert.deepEqual(res.resources.slice().sort(byId), docs.slice().sort(byId));
    assertCharge(res.requestCharge, queryCharge(4, res.resources));
  });

  it("COUNT: the fan-out adds 3 partitions' base and aggregate charge (2.7 + 0.45 each)", async () => {
    const query = "SELECT VALUE COUNT(1) FROM c";
    const scoped = await container.items.query(query, { partitionKey: "p3" }).fetchAll();
    const fanned = await container.items.query(query).fetchAll();
    assert.deepEqual(scoped.resources, [1]);
    assert.deepEqual(fanned.resources, [12]);
    assertCharge(scoped.requestCharge, round2(2.7 + 0.45));
    assertCharge(fanned.requestCharge, round2(4 * (2.7 + 0.45)));
    assertCharge(round2(fanned.requestCharge - scoped.requestCharge), round2(3 * (2.7 + 0.45)), "difference");
  });

  it("WHERE c.pk = 'x' without a partitionKey option is narrowed to the one range", async () => {
    const page = await container.items.query("SELECT * FROM c WHERE c.pk = 'p5'").fetchNext();
    assert.deepEqual(page.resources, [docs[5]]);
    assertCharge(page.requestCharge, queryCharge(1, page.resources));
    const range = rangeOf(ranges, epkV2("p5"));
    assert.match(page.headers["x-ms-session-token"], new RegExp(`^${range}:-1#\\d+$`));
  });

  it("WHERE c.pk IN (...) is narrowed to the ranges of the listed keys", async () => {
    // two keys in different ranges
    const keyRange = (i) => rangeOf(ranges, epkV2(`p${i}`));
    const a = 0;
    const b = docs.findIndex((_, i) => keyRange(i) !== keyRange(a));
    assert.ok(b > 0);
    const it_ = container.items.query(`SELECT * FROM c WHERE c.pk IN ('p${a}', 'p${b}')`);
    // One page per range, each naming its range in its session token.
    const first = await it_.fetchNext();
    const second = await it_.fetchNext();
    assert.equal(it_.hasMoreResults(), false);
    const rows = [...first.resources, ...second.resources];
    assert.deepEqual(rows.slice().sort(byId), [docs[a], docs[b]].sort(byId));
    // 2 partitions; 2 index lookups: + 0.02 for the second, in each partition (docs/request-units.md:
    // the lookup term sits inside the per-partition sum)
    assertCharge(round2(first.requestCharge + second.requestCharge),
      round2(queryCharge(1, first.resources, 0.02) + queryCharge(1, second.resources, 0.02)));
    const tokenRanges = [first, second].map((p) => p.headers["x-ms-session-token"].split(":")[0]);
    assert.deepEqual(tokenRanges, [keyRange(a), keyRange(b)].sort());
  });

  // The JS SDK's own cross-partition test (crossPartition.spec.ts) drains a query with fetchAll and
  // again with fetchNext and wants the two charges within 10%: with forceQueryPlan, fetchAll sends
  // the query range by range and fetchNext lets the gateway fan out. The gateway's pages hold one
  // range each, so both paths read the same pages and pay the same.
  it("fetchAll and fetchNext of a fanned-out query cost the same (the SDK's cross-partition test)", async () => {
    for (const options of [{ maxItemCount: 2, maxDegreeOfParallelism: -1, forceQueryPlan: true }, { maxItemCount: 2 }]) {
      const iterator = container.items.query("SELECT * FROM root r", options);
      const all = await iterator.fetchAll();
      assert.equal(all.resources.length, 12);
      iterator.reset();
      let total = 0;
      let rows = 0;
      while (iterator.hasMoreResults()) {
        const page = await iterator.fetchNext();
        total += page.requestCharge;
        rows += page.resources.length;
        assert.ok(page.resources.length <= 2);
      }
      assert.equal(rows, 12);
      assertCharge(round2(total), round2(all.requestCharge), JSON.stringify(options));
    }
  });

  it("the fanned-out pages hold one range each, whose session token they carry", async () => {
    const it_ = container.items.query("SELECT * FROM c", { maxItemCount: 100 });
    const perRange = ranges.map((r) => docs.filter((d) => rangeOf(ranges, epkV2(d.pk)) === r.id).length);
    const tokens = [];
    while (it_.hasMoreResults()) {
      const page = await it_.fetchNext();
      tokens.push(page.headers["x-ms-session-token"]);
      const inRanges = new Set(page.resources.map((d) => rangeOf(ranges, epkV2(d.pk))));
      assert.ok(inRanges.size <= 1, JSON.stringify([...inRanges]));
    }
    assert.deepEqual(tokens, ranges.map((r, i) => `${r.id}:-1#${perRange[i]}`));
  });
});

describe("hierarchical partition keys (MultiHash) on 4 partitions", () => {
  let container;
  let ranges;
  const items = [];
  const TENANTS = ["t0", "t1", "t2", "t3"];
  const USERS = ["u0", "u1", "u2", "u3", "u4"];
  const fullEpk = (t, u) => epkV2(t) + epkV2(u);

  it("items land in the range of the concatenated component hashes", async () => {
    ({ container } = await createContainer(4, { paths: ["/tenant", "/user"], kind: "MultiHash", version: 2 }));
    ranges = await readRanges(container);
    for (const t of TENANTS) {
      for (const u of USERS) {
        const res = await container.items.create({ id: `${t}-${u}`, tenant: t, user: u });
        items.push(res.resource);
        assert.equal(res.headers["x-ms-documentdb-partitionkeyrangeid"], rangeOf(ranges, fullEpk(t, u)));
      }
    }
  });

  it("a query with the prefix ['t1'] returns exactly the t1 items, from t1's range only", async () => {
    const page = await container.items.query("SELECT * FROM c", { partitionKey: ["t1"], maxItemCount: 100 }).fetchNext();
    const expected = items.filter((d) => d.tenant === "t1");
    assert.deepEqual(page.resources.slice().sort(byId), expected.slice().sort(byId));
    const range = rangeOf(ranges, epkV2("t1"));
    assert.match(page.headers["x-ms-session-token"], new RegExp(`^${range}:-1#\\d+$`));
    assertCharge(page.requestCharge, queryCharge(1, page.resources));
  });

  it("each tenant prefix returns its own items", async () => {
    for (const t of TENANTS) {
      const res = await container.items.query("SELECT VALUE c.id FROM c", { partitionKey: [t] }).fetchAll();
      assert.deepEqual(res.resources.sort(), USERS.map((u) => `${t}-${u}`));
    }
  });

  it("without a key, WHERE on the first path is narrowed like the prefix", async () => {
    const page = await container.items.query("SELECT * FROM c WHERE c.tenant = 't2'", { maxItemCount: 100 }).fetchNext();
    assert.deepEqual(page.resources.slice().sort(byId), items.filter((d) => d.tenant === "t2").sort(byId));
    const range = rangeOf(ranges, epkV2("t2"));
    assert.match(page.headers["x-ms-session-token"], new RegExp(`^${range}:-1#\\d+$`));
    assertCharge(page.requestCharge, queryCharge(1, page.resources));
  });

  it("a query with the full key returns the one item", async () => {
    const res = await container.items.query("SELECT * FROM c", { partitionKey: ["t2", "u3"] }).fetchAll();
    assert.deepEqual(res.resources, [items.find((d) => d.id === "t2-u3")]);
  });

  it("point operations with the full key work; a prefix is rejected (400/1001)", async () => {
    const read = await container.item("t1-u2", ["t1", "u2"]).read();
    assert.equal(read.statusCode, 200);
    assert.deepEqual(read.resource, items.find((d) => d.id === "t1-u2"));
    assert.equal(read.headers["x-ms-documentdb-partitionkeyrangeid"], rangeOf(ranges, fullEpk("t1", "u2")));
    const rep = await container.item("t1-u2", ["t1", "u2"]).replace({ id: "t1-u2", tenant: "t1", user: "u2", v: 2 });
    assert.equal(rep.statusCode, 200);
    assert.equal(rep.resource.v, 2);
    const patched = await container.item("t1-u2", ["t1", "u2"]).patch([{ op: "add", path: "/w", value: 3 }]);
    assert.equal(patched.resource.w, 3);
    await expectError(() => container.item("t1-u2", ["t1"]).read(), 400, "BadRequest", 1001);
    const del = await container.item("t1-u2", ["t1", "u2"]).delete();
    assert.equal(del.statusCode, 204);
    assert.equal((await container.item("t1-u2", ["t1", "u2"]).read()).statusCode, 404); // read() does not throw on 404
    const after = await container.items.query("SELECT VALUE c.id FROM c", { partitionKey: ["t1"] }).fetchAll();
    assert.deepEqual(after.resources.sort(), ["t1-u0", "t1-u1", "t1-u3", "t1-u4"]);
  });
});

describe("session tokens", () => {
  it("a Session client reads its own writes on every range", async () => {
    const { container, id } = await createContainer(4);
    const session = ctx.track(newClient(ctx.env, { consistencyLevel: "Session" }));
    const c = session.database(dbId).container(id);
    const ranges = await readRanges(container);
    for (let i = 0; i < 8; i++) {
      const created = await c.items.create({ id: `s${i}`, pk: `sk${i}` });
      const range = rangeOf(ranges, epkV2(`sk${i}`));
      const token = created.headers["x-ms-session-token"];
      assert.match(token, new RegExp(`^${range}:-1#\\d+$`));
      const read = await c.item(`s${i}`, `sk${i}`).read();
      assert.equal(read.statusCode, 200);
      assert.deepEqual(read.resource, created.resource);
      assert.equal(read.headers["x-ms-session-token"], token);
      const q = await c.items.query("SELECT VALUE c.id FROM c", { partitionKey: `sk${i}` }).fetchAll();
      assert.deepEqual(q.resources, [`s${i}`]);
    }
  });

  it("a token ahead of the partition answers 404/1002; at the partition's LSN it reads", async () => {
    const { container, id } = await createContainer(undefined);
    const created = await container.items.create({ id: "x", pk: "a" });
    const token = created.headers["x-ms-session-token"];
    const path = docPath(dbId, id, "x");
    const pk = { "x-ms-documentdb-partitionkey": '["a"]' };
    const ahead = await rawRequest(ctx.env, { path, headers: { ...pk, "x-ms-session-token": "0:-1#999999" } });
    assert.equal(ahead.status, 404);
    assert.equal(ahead.headers["x-ms-substatus"], "1002");
    assert.equal(ahead.json.code, "NotFound");
    assert.match(ahead.json.message, /The read session is not available for the input session token\./);
    const current = await rawRequest(ctx.env, { path, headers: { ...pk, "x-ms-session-token": token } });
    assert.equal(current.status, 200);
    assert.equal(current.json.id, "x");
  });

  it("on a 4-partition container only the token of the item's own range matters", async () => {
    const { container, id } = await createContainer(4);
    const ranges = await readRanges(container);
    await container.items.create({ id: "x", pk: "a" });
    const own = rangeOf(ranges, epkV2("a"));
    const other = ranges.find((r) => r.id !== own).id;
    const path = docPath(dbId, id, "x");
    const pk = { "x-ms-documentdb-partitionkey": '["a"]' };
    const mine = await rawRequest(ctx.env, { path, headers: { ...pk, "x-ms-session-token": `${own}:-1#999999` } });
    assert.equal(mine.status, 404);
    assert.equal(mine.headers["x-ms-substatus"], "1002");
    const theirs = await rawRequest(ctx.env, { path, headers: { ...pk, "x-ms-session-token": `${other}:-1#999999` } });
    assert.equal(theirs.status, 200);
    const both = await rawRequest(ctx.env, {
      path,
      headers: { ...pk, "x-ms-session-token": `${other}:-1#999999,${own}:-1#999999` },
    });
    assert.equal(both.status, 404);
    assert.equal(both.headers["x-ms-substatus"], "1002");
  });

  it("a malformed token answers 400", async () => {
    const { container, id } = await createContainer(undefined);
    await container.items.create({ id: "x", pk: "a" });
    const res = await rawRequest(ctx.env, {
      path: docPath(dbId, id, "x"),
      headers: { "x-ms-documentdb-partitionkey": '["a"]', "x-ms-session-token": "garbage" },
    });
    assert.equal(res.status, 400);
    assert.equal(res.json.code, "BadRequest");
    assert.match(res.json.message, /The session token provided 'garbage' is invalid\./);
  });
});

describe("GET /_emulator/stats", () => {
  const findContainer = (report, collId) => {
    const hits = report.containers.filter((c) => c.database === dbId && c.container === collId);
    assert.equal(hits.length, 1, `one stats entry for ${dbId}/${collId}`);
    return hits[0];
  };
  const op = (entry, name) => {
    const hits = entry.operations.filter((o) => o.operation === name);
    assert.equal(hits.length, 1, `one "${name}" entry`);
    return hits[0];
  };
  const queryEntry = (entry, text) => {
    const hits = entry.queries.filter((q) => q.query === text);
    assert.equal(hits.length, 1, `one entry for ${text}: ${JSON.stringify(entry.queries.map((q) => q.query))}`);
    return hits[0];
  };
  const stats = async () => {
    const res = await rawRequest(ctx.env, { path: "/_emulator/stats", auth: false });
    assert.equal(res.status, 200);
    return res.json;
  };

  it("counts requests and sums the charges the SDK reported, per operation and per query shape", async (t) => {
    if (!LOCAL) return t.skip("emulator-only endpoint");
    const { container, id, resource } = await createContainer(4);
    const ranges = await readRanges(container);
    const charges = { create: [], read: [], query: [], upsert: [] };
    for (let i = 0; i < 6; i++) {
      const r = await container.items.create({ id: `i${i}`, pk: "same", n: i });
      charges.create.push(r.requestCharge);
      assertCharge(r.requestCharge, createCharge(r.resource));
    }
    const conflict = await expectError(() => container.items.create({ id: "i0", pk: "same" }), 409);
    assertCharge(conflict.headers["x-ms-request-charge"], REJECTED_WRITE);
    charges.create.push(Number(conflict.headers["x-ms-request-charge"]));
    const up = await container.items.upsert({ id: "other", pk: "elsewhere" });
    charges.upsert.push(up.requestCharge);
    for (let i = 0; i < 2; i++) charges.read.push((await container.item(`i${i}`, "same").read()).requestCharge);
    const missing = await container.item("nope", "same").read(); // read() does not throw on 404
    assert.equal(missing.statusCode, 404);
    assertCharge(missing.requestCharge, 1);
    charges.read.push(missing.requestCharge);

    // a scoped query over 4 pages (one execution: its last page is exactly full, so an empty page
    // follows, as the service's), and a cross-partition query run twice (4 pages each: the
    // gateway answers one range per page, sent to all 4)
    const pages = [];
    const iter = container.items.query("SELECT c.id FROM c", { partitionKey: "same", maxItemCount: 2 });
    while (iter.hasMoreResults()) pages.push(await iter.fetchNext());
    assert.deepEqual(pages.map((p) => p.resources.length), [2, 2, 2, 0]);
    const scopedRU = pages.map((p) => p.requestCharge);
    const fanRU = [];
    for (let i = 0; i < 2; i++) {
      const res = await container.items.query("SELECT * FROM c").fetchAll();
      assert.equal(res.resources.length, 7);
      fanRU.push(res.requestCharge);
    }
    charges.query.push(...scopedRU, ...fanRU);

    const entry = findContainer(await stats(), id);
    assert.equal(entry._rid, resource._rid);
    assert.equal(entry.physicalPartitions, 4);
    const sameRange = rangeOf(ranges, epkV2("same"));
    const elsewhere = rangeOf(ranges, epkV2("elsewhere"));

    const create = op(entry, "create");
    assert.equal(create.requests, 7);
    assert.equal(create.executions, 7);
    assert.equal(create.failed, 1);
    assert.equal(create.throttled, 0);
    assert.equal(create.totalRU, round2(sum(charges.create)));
    assert.equal(create.maxRU, Math.max(...charges.create));
    assert.equal(create.meanRU, round2(sum(charges.create) / 7));
    assert.deepEqual(create.partitionsTouched, [sameRange]);
    assert.equal(create.maxPartitionsPerRequest, 1);
    assert.equal(create.fanOutToAllPartitions, false);

    const upsert = op(entry, "upsert");
    assert.equal(upsert.requests, 1);
    assert.equal(upsert.totalRU, round2(sum(charges.upsert)));
    assert.deepEqual(upsert.partitionsTouched, [elsewhere]);

    const read = op(entry, "read");
    assert.equal(read.requests, 3);
    assert.equal(read.failed, 1);
    assert.equal(read.totalRU, round2(sum(charges.read)));

    const query = op(entry, "query");
    // 4 pages + 2 runs of 4 pages (the gateway answers one range per page)
    assert.equal(query.requests, 12);
    assert.equal(query.executions, 3);
    assert.equal(query.totalRU, round2(sum(charges.query)));
    assert.equal(query.maxPartitionsPerRequest, 1);
    assert.equal(query.fanOutToAllPartitions, true);

    const scoped = queryEntry(entry, "SELECT c.id FROM c");
    assert.equal(scoped.requests, 4);
    assert.equal(scoped.executions, 1);
    assert.equal(scoped.totalRU, round2(sum(scopedRU)));
    assert.deepEqual(scoped.partitionsTouched, [sameRange]);
    assert.equal(scoped.maxPartitionsPerRequest, 1);
    assert.equal(scoped.fanOutToAllPartitions, false);

    const fan = queryEntry(entry, "SELECT * FROM c");
    assert.equal(fan.requests, 8);
    assert.equal(fan.executions, 2);
    assert.equal(fan.totalRU, round2(sum(fanRU)));
    assert.deepEqual(fan.partitionsTouched, ["0", "1", "2", "3"]);
    assert.equal(fan.maxPartitionsPerRequest, 1);
    assert.equal(fan.fanOutToAllPartitions, true);

    const total = entry.total;
    const all = [...charges.create, ...charges.upsert, ...charges.read, ...charges.query];
    assert.equal(total.requests, all.length - fanRU.length + 8); // each fanned-out run: 4 requests
    assert.equal(total.totalRU, round2(sum(all)));
    assert.equal(total.failed, 2);
    assert.equal(total.fanOutToAllPartitions, true);

    // the fan-out warning is logged once per query shape, however often the query runs
    const warning = `fans out to all 4 physical partitions of ${dbId}/${id}: SELECT * FROM c`;
    const lines = ctx.env.log().split("\n").filter((l) => l.includes(warning));
    assert.equal(lines.length, 1, ctx.env.log());
    assert.ok(!ctx.env.log().includes(`of ${dbId}/${id}: SELECT c.id FROM c`), "no warning for the scoped query");
  });

  it("a key-scoped query shape run with keys of every range is not a fan-out", async (t) => {
    if (!LOCAL) return t.skip("emulator-only endpoint");
    const { container, id } = await createContainer(4);
    const ranges = await readRanges(container);
    const keys = [];
    for (let i = 0; keys.length < 8; i++) {
      await container.items.create({ id: `i${i}`, pk: `k${i}` });
      keys.push(`k${i}`);
    }
    const covered = new Set(keys.map((k) => rangeOf(ranges, epkV2(k))));
    assert.equal(covered.size, 4, "the keys cover every range");
    for (const k of keys) {
      const res = await container.items
        .query({ query: "SELECT * FROM c WHERE c.pk = @pk", parameters: [{ name: "@pk", value: k }] })
        .fetchAll();
      assert.equal(res.resources.length, 1);
      assertCharge(res.requestCharge, queryCharge(1, res.resources));
    }
    const entry = findContainer(await stats(), id);
    assert.equal(entry.queries.length, 1);
    const q = entry.queries[0];
    assert.equal(q.requests, 8);
    assert.equal(q.maxPartitionsPerRequest, 1);
    assert.deepEqual(q.partitionsTouched, ["0", "1", "2", "3"]);
    // every request used one partition: the shape does not fan out, and nothing is logged
    assert.equal(q.fanOutToAllPartitions, false, "each request touched one partition");
    assert.ok(!ctx.env.log().includes(`${dbId}/${id}:`), ctx.env.log());
  });

  it("a single-partition container never warns or flags a fan-out", async (t) => {
    if (!LOCAL) return t.skip("emulator-only endpoint");
    const { container, id } = await createContainer(undefined);
    await container.items.create({ id: "a", pk: "a" });
    await container.items.query("SELECT * FROM c WHERE c.n = 1").fetchAll();
    const entry = findContainer(await stats(), id);
    assert.equal(entry.physicalPartitions, 1);
    assert.equal(op(entry, "query").fanOutToAllPartitions, false);
    assert.equal(op(entry, "query").maxPartitionsPerRequest, 1);
    assert.ok(!ctx.env.log().includes(`${dbId}/${id}:`));
  });

  it("metadata requests are not item operations; DELETE resets the report", async (t) => {
    if (!LOCAL) return t.skip("emulator-only endpoint");
    const { container, id } = await createContainer(2);
    await container.read();
    await container.items.create({ id: "a", pk: "a" });
    const entry = findContainer(await stats(), id);
    assert.deepEqual(entry.operations.map((o) => o.operation), ["create"]);
    // Resetting needs the master key (signed as type "_emulator", link "_emulator/stats").
    const unsigned = await rawRequest(ctx.env, { method: "DELETE", path: "/_emulator/stats", auth: false });
    assert.equal(unsigned.status, 401, unsigned.text);
    assert.equal(unsigned.json.code, "Unauthorized");
    assert.ok(findContainer(await stats(), id), "an unsigned DELETE reset the report");
    const del = await rawRequest(ctx.env, { method: "DELETE", path: "/_emulator/stats" });
    assert.equal(del.status, 204, del.text);
    assert.deepEqual(await stats(), { containers: [] });
  });
});
