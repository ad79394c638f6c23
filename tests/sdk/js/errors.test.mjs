// Bad input on item routes: bodies, ids, sizes, partition key headers, unknown resources.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  LOCAL,
  REJECTED_WRITE,
  assertCharge,
  docPath,
  expectError,
  pkHeader,
  rawRequest,
  uid,
  useEmulatorWithDatabase,
} from "./harness.mjs";

let db;
let dbId;
let container;
const ctx = useEmulatorWithDatabase((f) => ({ dbId, db, container } = f), { containerId: "e" });

const post = (body, headers = { "x-ms-documentdb-partitionkey": pkHeader("p") }, coll = "e") =>
  rawRequest(ctx.env, { method: "POST", path: docPath(dbId, coll), headers, body });

function assertBadRequest(res, messagePattern, substatus) {
  assert.equal(res.status, 400, res.text);
  assert.equal(res.json.code, "BadRequest");
  if (messagePattern) assert.match(res.json.message, messagePattern);
  assert.equal(res.headers["x-ms-substatus"], substatus === undefined ? undefined : String(substatus));
}

describe("request bodies", () => {
  it("malformed JSON answers 400 (charged as a rejected write)", async () => {
    for (const body of ['{"id":"x","pk":"p"', '{"id":"x" "pk":"p"}', "{id:'x'}", '{"id":"x","pk":"p"} trailing', "", "{,}"]) {
      const res = await post(body);
      assertBadRequest(res, /^Message: \{"Errors":\["The request payload is invalid\. Ensure to provide a valid request payload\."\]\}/);
      assertCharge(res.headers["x-ms-request-charge"], REJECTED_WRITE);
    }
  });

  it("NaN, Infinity and numbers beyond double range answer 400", async () => {
    for (const v of ["NaN", "Infinity", "-Infinity", "1e400"]) {
      const res = await post(`{"id":"x","pk":"p","v":${v}}`);
      assertBadRequest(res, /The request payload is invalid/);
    }
  });

  it("invalid UTF-8 answers 400", async () => {
    const body = Buffer.concat([Buffer.from('{"id":"'), Buffer.from([0xff, 0xfe]), Buffer.from('","pk":"p"}')]);
    const res = await post(body);
    assertBadRequest(res, /The request payload is invalid/);
  });

  it("a body that is not an object answers 400", async () => {
    for (const body of ["[]", '[{"id":"x","pk":"p"}]', '"text"', "42", "true", "null"]) {
      const res = await post(body);
      assertBadRequest(res, /The request payload is invalid/);
    }
  });

  it("a missing or null id answers 400", async () => {
    for (const body of [{ pk: "p" }, { id: null, pk: "p" }]) {
      const res = await post(body);
      assertBadRequest(res, /The input content is invalid because the required properties - 'id; ' - are missing\./);
      assertCharge(res.headers["x-ms-request-charge"], REJECTED_WRITE);
    }
  });

  it("the SDK generates an id when none is given; with disableAutomaticIdGeneration the service answers 400", async () => {
    const res = await container.items.create({ pk: "p", v: 1 });
    assert.equal(res.statusCode, 201);
    assert.match(res.resource.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    await expectError(
      () => container.items.create({ pk: "p", v: 1 }, { disableAutomaticIdGeneration: true }),
      400,
      "BadRequest",
    );
  });

  it("a non-string id answers 400", async () => {
    for (const id of [5, true, ["a"], { a: 1 }]) {
      const res = await post({ id, pk: "p" });
      assertBadRequest(res);
    }
  });

  it("an empty id answers 400", async () => {
    const res = await post({ id: "", pk: "p" });
    assertBadRequest(res, /The input name '' is invalid/);
  });

  it("ids containing / \\ ? # are created (raw; the SDK refuses them itself)", async () => {
    // the service creates them (Microsoft's Go SDK emulator tests, TestItemIdEncodingRoutingGW)
    for (const id of ["a/b", "a\\b", "a?b", "a#b", "/", "#"]) {
      const res = await post({ id, pk: "p" });
      assert.equal(res.status, 201, res.text);
    }
    await assert.rejects(() => container.items.create({ id: "a/b", pk: "p" }), { message: "Id contains illegal chars." });
  });

  it("an item id longer than 1023 bytes answers 400", async () => {
    const res = await post({ id: "x".repeat(1024), pk: "p" });
    assertBadRequest(res);
    const res2 = await post({ id: "é".repeat(600), pk: "p" }); // 1200 bytes
    assertBadRequest(res2);
  });

  it("a bad item ttl answers 400", async () => {
    for (const ttl of [0, -2, "10", 1.5]) {
      const res = await post({ id: uid("ttl"), pk: "p", ttl });
      assertBadRequest(res);
    }
  });
});

describe("item size", () => {
  const MAX = 2 * 1024 * 1024;

  it("an item over 2 MB answers 413 RequestEntityTooLarge", async () => {
    const err = await expectError(
      () => container.items.create({ id: uid("big"), pk: "p", blob: "x".repeat(MAX + 10) }),
      413,
      "RequestEntityTooLarge",
    );
    assert.match(err.body.message, /Request size is too large/);
    const res = await post({ id: uid("big"), pk: "p", blob: "x".repeat(MAX + 10) });
    assert.equal(res.status, 413);
    assert.equal(res.json.code, "RequestEntityTooLarge");
    assertCharge(res.headers["x-ms-request-charge"], 0);
  });

  it("the limit applies to the stored image, system properties included", { skip: !LOCAL }, async () => {
    // Measure the system-property overhead on a small item of the same shape.
    const probe = await post({ id: "probe-0000", pk: "p", blob: "" });
    assert.equal(probe.status, 201);
    const overhead = Buffer.byteLength(probe.text) - Buffer.byteLength(JSON.stringify({ id: "probe-0000", pk: "p", blob: "" }));
    const base = Buffer.byteLength(probe.text);
    const fits = await post({ id: "probe-0001", pk: "p", blob: "x".repeat(MAX - base) });
    assert.equal(fits.status, 201, fits.text.slice(0, 200));
    assert.equal(Buffer.byteLength(fits.text), MAX);
    const over = await post({ id: "probe-0002", pk: "p", blob: "x".repeat(MAX - base + 1) });
    assert.equal(over.status, 413);
    assert.ok(overhead > 100);
    // a replace that grows the item over the limit is refused too, and leaves it unchanged
    const rep = await rawRequest(ctx.env, {
      method: "PUT",
      path: docPath(dbId, "e", "probe-0001"),
      headers: { "x-ms-documentdb-partitionkey": pkHeader("p") },
      body: { id: "probe-0001", pk: "p", blob: "x".repeat(MAX - base + 1) },
    });
    assert.equal(rep.status, 413);
    // so is a patch
    const patched = await container.item("probe-0001", "p").patch([{ op: "add", path: "/more", value: "y" }]).catch((e) => e);
    assert.equal(patched.code, 413);
    const read = await container.item("probe-0001", "p").read();
    assert.equal(read.resource._etag, fits.json._etag);
  });
});

describe("partition key header", () => {
  it("missing on a partitioned container answers 400/1001", async () => {
    const res = await post({ id: uid("nopk"), pk: "p" }, {});
    assertBadRequest(
      res,
      /The partition key supplied in x-ms-partitionkey header has fewer components than defined in the the collection\./,
      1001,
    );
    for (const method of ["GET", "DELETE"]) {
      const r = await rawRequest(ctx.env, { method, path: docPath(dbId, "e", "x") });
      assertBadRequest(r, undefined, 1001);
    }
  });

  it("disagreeing with the body answers 400/1001", async () => {
    for (const [header, body] of [
      [pkHeader("q"), { pk: "p" }],
      [pkHeader(5), { pk: "5" }],
      [pkHeader(true), { pk: "true" }],
      [pkHeader(null), {}],
      ["[{}]", { pk: null }],
      [pkHeader("p"), {}],
    ]) {
      const res = await post({ id: uid("mm"), ...body }, { "x-ms-documentdb-partitionkey": header });
      assertBadRequest(res, /PartitionKey extracted from document doesn't match the one specified in the header\./, 1001);
      assertCharge(res.headers["x-ms-request-charge"], REJECTED_WRITE);
    }
  });

  it("not a JSON array of key values answers 400/1001", async () => {
    for (const header of ["p", '"p"', '["p"', "[[1]]", '[{"a":1}]', "{}"]) {
      const res = await post({ id: uid("bad"), pk: "p" }, { "x-ms-documentdb-partitionkey": header });
      assertBadRequest(res, undefined, 1001);
    }
  });

  it("more components than the definition answers 400/1001", async () => {
    const res = await post({ id: uid("two"), pk: "p" }, { "x-ms-documentdb-partitionkey": '["p","q"]' });
    assertBadRequest(res, /more components than defined/, 1001);
  });

  it("non-ASCII escaped in the header matches the UTF-8 body value", async () => {
    const res = await post({ id: uid("u"), pk: "日本é" }, { "x-ms-documentdb-partitionkey": pkHeader("日本é") });
    assert.equal(res.status, 201, res.text);
    assert.match(pkHeader("日本é"), /^\["\\u65e5\\u672c\\u00e9"\]$/);
  });
});

describe("unknown resources and conflicts", () => {
  it("an unknown database, container or item answers 404 NotFound", async () => {
    const cases = [
      ["POST", docPath(uid("nodb"), "e")],
      ["POST", docPath(dbId, uid("nocoll"))],
      ["GET", docPath(dbId, "e", uid("noitem"))],
      ["PUT", docPath(dbId, "e", "noitem")],
      ["DELETE", docPath(dbId, "e", "noitem")],
      ["GET", docPath(dbId, uid("nocoll"), "x")],
      ["GET", `/dbs/${uid("nodb")}/colls/x`],
      ["GET", `/dbs/${uid("nodb")}`],
    ];
    for (const [method, path] of cases) {
      const res = await rawRequest(ctx.env, {
        method,
        path,
        headers: { "x-ms-documentdb-partitionkey": pkHeader("p") },
        body: method === "POST" || method === "PUT" ? { id: "noitem", pk: "p" } : undefined,
      });
      assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
      assert.equal(res.json.code, "NotFound");
      assert.match(res.json.message, /Resource Not Found/);
    }
  });

  it("a duplicate create answers 409 Conflict and keeps the first item", async () => {
    const id = uid("dup");
    const first = await post({ id, pk: "p", v: 1 });
    assert.equal(first.status, 201);
    const second = await post({ id, pk: "p", v: 2 });
    assert.equal(second.status, 409);
    assert.equal(second.json.code, "Conflict");
    assertCharge(second.headers["x-ms-request-charge"], REJECTED_WRITE);
    assert.equal((await container.item(id, "p").read()).resource.v, 1);
  });

  it("every error carries a JSON {code, message} body with the activity id", async () => {
    const res = await post("{");
    assert.equal(res.headers["content-type"], "application/json");
    assert.deepEqual(Object.keys(res.json), ["code", "message"]);
    assert.ok(res.json.message.endsWith(`\r\nActivityId: ${res.headers["x-ms-activity-id"]}`));
  });
});
