// JSON fidelity through the SDK and on the wire: property order, numbers, strings, ids, nesting.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  assertCharge,
  createCharge,
  docPath,
  expectError,
  pkHeader,
  rawRequest,
  readCharge,
  uid,
  useEmulatorWithDatabase,
} from "./harness.mjs";

let db;
let dbId;
let container;
const ctx = useEmulatorWithDatabase((f) => ({ dbId, db, container } = f), { containerId: "f" });

const SYSTEM = ["_rid", "_self", "_etag", "_attachments", "_ts"];
const createRaw = (body, pk = "p") =>
  rawRequest(ctx.env, {
    method: "POST",
    path: docPath(dbId, "f"),
    headers: { "x-ms-documentdb-partitionkey": pkHeader(pk) },
    body,
  });
const readRaw = (id, pk = "p") =>
  rawRequest(ctx.env, {
    method: "GET",
    path: docPath(dbId, "f", id),
    headers: { "x-ms-documentdb-partitionkey": pkHeader(pk) },
  });

describe("property order", () => {
  it("is kept as sent, at every level, with system properties appended", async () => {
    const body = { zeta: 1, id: uid("o"), alpha: { z: 1, a: 2, m: { y: 0, b: 1 } }, pk: "p", middle: [{ b: 1, a: 2 }] };
    const res = await container.items.create(body);
    assert.deepEqual(Object.keys(res.resource), ["zeta", "id", "alpha", "pk", "middle", ...SYSTEM]);
    assert.deepEqual(Object.keys(res.resource.alpha), ["z", "a", "m"]);
    assert.deepEqual(Object.keys(res.resource.alpha.m), ["y", "b"]);
    assert.deepEqual(Object.keys(res.resource.middle[0]), ["b", "a"]);
    const read = await container.item(body.id, "p").read();
    assert.deepEqual(Object.keys(read.resource), Object.keys(res.resource));
    assert.equal(JSON.stringify(read.resource), JSON.stringify(res.resource));
  });

  it("the wire text is compact and identical between create and read", async () => {
    const id = uid("w");
    const text = `{ "id" : "${id}",\n  "pk":"p",   "b" : [ 1 , 2 ], "a": {"c": null}}`;
    const res = await createRaw(text);
    assert.equal(res.status, 201);
    assert.ok(res.text.startsWith(`{"id":"${id}","pk":"p","b":[1,2],"a":{"c":null},"_rid":"`), res.text);
    const read = await readRaw(id);
    assert.equal(read.text, res.text);
  });
});

describe("numbers", () => {
  it("keep their value on the wire: 1, 1.5, 1e21, 2^53+1, negatives, small exponents", async () => {
    const id = uid("n");
    const text =
      `{"id":"${id}","pk":"p","int":1,"float":1.5,"big":1e21,"exact":9007199254740993,` +
      `"neg":-42,"negf":-0.25,"small":1e-7,"dec":0.1,"one":1.0,"exp":1E+2,"i64":-9007199254740993}`;
    const res = await createRaw(text);
    assert.equal(res.status, 201, res.text);
    const expected =
      `{"id":"${id}","pk":"p","int":1,"float":1.5,"big":1e+21,"exact":9007199254740993,` +
      `"neg":-42,"negf":-0.25,"small":1e-7,"dec":0.1,"one":1,"exp":100,"i64":-9007199254740993,"_rid":`;
    assert.ok(res.text.startsWith(expected), `${res.text}\n!=\n${expected}`);
    const read = await readRaw(id);
    assert.equal(read.text, res.text);
  });

  it("round-trip through the SDK as JavaScript numbers", async () => {
    const nums = {
      zero: 0,
      one: 1,
      half: 1.5,
      big: 1e21,
      maxSafe: Number.MAX_SAFE_INTEGER,
      minSafe: Number.MIN_SAFE_INTEGER,
      tiny: 5e-324,
      third: 1 / 3,
      neg: -123456.789,
      huge: 1.7976931348623157e308,
      pi: Math.PI,
    };
    const id = uid("n");
    const res = await container.items.create({ id, pk: "p", ...nums });
    for (const [k, v] of Object.entries(nums)) assert.equal(res.resource[k], v, k);
    const read = await container.item(id, "p").read();
    for (const [k, v] of Object.entries(nums)) assert.equal(read.resource[k], v, k);
    assertCharge(res.requestCharge, createCharge(res.resource));
  });

  it("numbers as partition key values", async () => {
    for (const pk of [0, -1, 2.5, 1e21, 9007199254740991]) {
      const id = uid("npk");
      const res = await container.items.create({ id, pk });
      assert.equal(res.statusCode, 201, String(pk));
      assert.equal((await container.item(id, pk).read()).resource.pk, pk);
    }
  });
});

describe("strings", () => {
  const samples = {
    ascii: "plain text",
    latin: "héllo wörld çà",
    cjk: "日本語のテキスト 中文",
    emoji: "😀 👍🏽 🇫🇷",
    rtl: "مرحبا שלום",
    escapes: 'quote " backslash \\ slash / tab \t newline \n return \r',
    controls: "\u0000\u0001\u001f\u007f",
    separators: "\u2028\u2029",
    html: "</script><!-- & -->",
    empty: "",
    bom: "\ufeffbom",
  };

  it("round-trip through the SDK unchanged", async () => {
    const id = uid("s");
    const res = await container.items.create({ id, pk: "p", ...samples });
    for (const [k, v] of Object.entries(samples)) assert.equal(res.resource[k], v, k);
    const read = await container.item(id, "p").read();
    for (const [k, v] of Object.entries(samples)) assert.equal(read.resource[k], v, k);
    assertCharge(res.requestCharge, createCharge(res.resource));
    assertCharge(read.requestCharge, readCharge(read.resource));
  });

  it("are written as UTF-8 on the wire; control characters are escaped", async () => {
    const id = uid("s");
    const res = await createRaw(`{"id":"${id}","pk":"p","s":"\\u00e9\\u65e5\\ud83d\\ude00","c":"\\u0001\\n"}`);
    assert.equal(res.status, 201);
    assert.ok(res.text.includes(`"s":"é日😀","c":"\\u0001\\n"`), res.text);
    assert.equal(Number(res.headers["content-length"]), Buffer.byteLength(res.text));
  });

  it("non-ASCII partition key values", async () => {
    for (const pk of ["é", "日本", "😀", "a b", 'q"uote']) {
      const id = uid("upk");
      const res = await container.items.create({ id, pk });
      assert.equal(res.statusCode, 201, pk);
      assert.equal((await container.item(id, pk).read()).resource.pk, pk);
      const raw = await readRaw(id, pk);
      assert.equal(raw.status, 200, pk);
    }
  });
});

describe("ids", () => {
  const ids = [
    "with space",
    "  leading",
    "per%cent",
    "plus+sign",
    "amp&and=eq",
    "semi;colon,comma",
    "quote'apos\"",
    "ünïcödé",
    "日本語",
    "emoji😀",
    "dots...",
    "tilde~star*paren()",
    "at@dollar$colon:",
    "brackets[]{}",
    "pipe|caret^back`tick",
    // The SDK sends '?' unescaped (encodeURI); the service takes it as part of the id (the SDKs'
    // id-encoding tests, idWithDisallowedCharQuestionMark: 201, 200, 200, 204).
    "Disallowed?Chars",
    "q?a=1&b=2",
    "?leading",
    "a".repeat(255),
  ];

  for (const id of ids) {
    it(`${JSON.stringify(id.length > 40 ? id.slice(0, 20) + "…" : id)}: create, read, replace, patch, delete`, async () => {
      const created = await container.items.create({ id, pk: "ids", v: 1 });
      assert.equal(created.statusCode, 201);
      assert.equal(created.resource.id, id);
      const item = container.item(id, "ids");
      const read = await item.read();
      assert.equal(read.statusCode, 200);
      assert.equal(read.resource.id, id);
      const raw = await readRaw(id, "ids");
      assert.equal(raw.status, 200);
      assert.equal(raw.json.id, id);
      const rep = await item.replace({ id, pk: "ids", v: 2 });
      assert.equal(rep.resource.v, 2);
      const patched = await item.patch([{ op: "incr", path: "/v", value: 1 }]);
      assert.equal(patched.resource.v, 3);
      const up = await container.items.upsert({ id, pk: "ids", v: 4 });
      assert.equal(up.statusCode, 200);
      assert.equal((await item.delete()).statusCode, 204);
      assert.equal((await item.read()).statusCode, 404);
    });
  }

  // The service creates these, but its gateway cannot address them in a path afterwards: a trailing
  // blank or a percent escape that decodes reaches its signature check as another resource (401;
  // Microsoft's Go SDK emulator tests, TestItemIdEncodingRoutingGW, assert these answers).
  for (const id of ["trailing  ", "%41%20", "Special%E9%B1%80"]) {
    it(`${JSON.stringify(id)}: created, then 401 on point operations`, async () => {
      const created = await container.items.create({ id, pk: "ids", v: 1 });
      assert.equal(created.statusCode, 201);
      assert.equal(created.resource.id, id);
      const raw = await readRaw(id, "ids");
      assert.equal(raw.status, 401);
      await assert.rejects(() => container.item(id, "ids").read(), (e) => e.code === 401);
      const found = await container.items
        .query({ query: "SELECT VALUE c.id FROM c WHERE c.id = @id", parameters: [{ name: "@id", value: id }] }, { partitionKey: "ids" })
        .fetchAll();
      assert.deepEqual(found.resources, [id]);
    });
  }

  it("ids are case-sensitive", async () => {
    await container.items.create({ id: "Case", pk: "c", v: "upper" });
    await container.items.create({ id: "case", pk: "c", v: "lower" });
    assert.equal((await container.item("Case", "c").read()).resource.v, "upper");
    assert.equal((await container.item("case", "c").read()).resource.v, "lower");
  });
});

describe("structure", () => {
  it("empty objects and arrays, nulls, booleans, nested arrays survive", async () => {
    const body = {
      id: uid("st"),
      pk: "p",
      eo: {},
      ea: [],
      n: null,
      t: true,
      f: false,
      nested: [[1, [2, [3, []]]], { a: [{}] }],
      mixed: [1, "two", null, false, { three: 3 }],
    };
    const res = await container.items.create(body);
    for (const k of Object.keys(body)) assert.deepEqual(res.resource[k], body[k], k);
    assertCharge(res.requestCharge, createCharge(res.resource));
  });

  function nested(depth) {
    // depth counts the item itself: nested(1) = {id, pk}
    let inner = {};
    for (let i = 2; i < depth; i++) inner = { d: inner };
    return depth > 1 ? { id: uid("deep"), pk: "p", d: inner } : { id: uid("deep"), pk: "p" };
  }

  it("128 levels of nesting are accepted", async () => {
    const res = await container.items.create(nested(128));
    assert.equal(res.statusCode, 201);
    let v = res.resource;
    let depth = 1;
    while (v.d) {
      v = v.d;
      depth++;
    }
    assert.equal(depth, 128);
    assertCharge(res.requestCharge, createCharge(res.resource));
  });

  it("129 levels of nesting answer 400", async () => {
    const err = await expectError(() => container.items.create(nested(129)), 400, "BadRequest");
    assert.match(err.body.message, /nesting depth exceeds the maximum of 128/);
  });

  it("arrays count towards the nesting depth too", async () => {
    let v = [];
    for (let i = 0; i < 128; i++) v = [v];
    const res = await createRaw({ id: uid("arr"), pk: "p", v });
    assert.equal(res.status, 400);
  });
});
