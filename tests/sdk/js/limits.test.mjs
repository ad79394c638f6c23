// Limits and feed paging where the service's behaviour is easy to get wrong: item ids up to 1,023
// bytes, a 413 (not a dropped connection) for bodies over the server's body limit, and paged
// database and container feeds.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { uid, useEmulatorWithDatabase } from "./harness.mjs";

let db;
let container;
const ctx = useEmulatorWithDatabase((f) => ({ db, container } = f), { containerId: "k" });

describe("limits and paging", () => {
  // Service quotas: "Maximum length of id: 1,023 bytes" for items (255 characters is the limit for
  // database and container names only). The emulator applies 255 characters to item ids too.
  it("item ids of 256 to 1023 bytes are accepted", async () => {
    for (const id of ["i".repeat(256), "j".repeat(1023), "é".repeat(511)]) {
      const res = await container.items.create({ id, pk: "p" });
      assert.equal(res.statusCode, 201, `${Buffer.byteLength(id)} bytes`);
      assert.equal((await container.item(id, "p").read()).statusCode, 200);
    }
  });

  // The service answers 413 RequestEntityTooLarge for any oversized request. Above the server's
  // body limit (--max-body-bytes, 16 MiB by default) the emulator writes a 413 and closes the
  // connection before reading the body, so a client still sending gets EPIPE / ECONNRESET instead.
  it("a 17 MB item answers 413 RequestEntityTooLarge, not a dropped connection", async () => {
    let err;
    try {
      await container.items.create({ id: uid("huge"), pk: "p", blob: "x".repeat(17 * 1024 * 1024) });
    } catch (e) {
      err = e;
    }
    assert.ok(err, "expected an error");
    assert.equal(err.code, 413, `got ${err.code}: ${err.message}`);
    assert.equal(err.body?.code, "RequestEntityTooLarge");
  });

  // Feeds of databases and containers honour x-ms-max-item-count and page with x-ms-continuation,
  // like the document feed does. The emulator always answers the whole list in one page.
  it("the database and container feeds page with maxItemCount", async () => {
    for (let i = 0; i < 3; i++) await ctx.client.databases.create({ id: uid("page") });
    const dbPage = await ctx.client.databases.readAll({ maxItemCount: 1 }).fetchNext();
    assert.equal(dbPage.resources.length, 1, `databases page has ${dbPage.resources.length} items`);
    assert.equal(dbPage.hasMoreResults, true);
    assert.ok(dbPage.continuationToken);

    for (let i = 0; i < 3; i++) await db.containers.create({ id: uid("pc"), partitionKey: { paths: ["/pk"] } });
    const collPage = await db.containers.readAll({ maxItemCount: 2 }).fetchNext();
    assert.equal(collPage.resources.length, 2, `containers page has ${collPage.resources.length} items`);
    assert.equal(collPage.hasMoreResults, true);
  });
});
