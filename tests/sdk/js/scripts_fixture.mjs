// The shared setup of the server-side JavaScript tests, scripts_sprocs.test.mjs and
// scripts_transactions.test.mjs (node runs each test file in its own process, so each file that
// imports this module gets its own emulator): importing it registers the before/after hooks of
// useEmulatorWithDatabase() (one database and the "scripts" container with the /pk key), whose
// db, dbId, container and collRid are exported as live bindings; and the helpers both files use.
import assert from "node:assert/strict";
import { uid, useEmulatorWithDatabase } from "./harness.mjs";

export let db;
export let dbId;
export let container;
export let collRid;
export const COLL = "scripts";
export const ctx = useEmulatorWithDatabase(
  (f) => {
    ({ db, dbId, container } = f);
    collRid = f.containerResource._rid;
  },
  { containerId: COLL },
);

export const EXEC = "Encountered exception while executing function. Exception = ";
export const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const OTHER_PK =
  "Requests originating from scripts cannot reference partition keys other than the one for which client request was submitted.";

/** A stored procedure (function or source text) with a fresh id in `c`; returns its client. */
export async function createSproc(body, c = container) {
  const id = uid("sp");
  const res = await c.scripts.storedProcedures.create({ id, body });
  assert.equal(res.statusCode, 201);
  return c.scripts.storedProcedure(id);
}

/** Creates a stored procedure and executes it once. */
export async function run(body, pk, params = [], options = undefined) {
  return (await createSproc(body)).execute(pk, params, options);
}

/** A trigger with a fresh id; returns the id. */
export async function createTrigger(body, triggerType, triggerOperation, c = container) {
  const id = uid("tr");
  const res = await c.scripts.triggers.create({ id, body, triggerType, triggerOperation });
  assert.equal(res.statusCode, 201);
  return id;
}

/** A UDF with the given id; returns the id. */
export async function createUdf(id, body, c = container) {
  const res = await c.scripts.userDefinedFunctions.create({ id, body });
  assert.equal(res.statusCode, 201);
  return id;
}

/** Asserts the item does not exist (point read answers 404; the SDK resolves it, no throw). */
export async function assertMissing(id, pk, c = container) {
  const res = await c.item(id, pk).read();
  assert.equal(res.statusCode, 404, `${id} (pk ${pk}) should not exist`);
  assert.equal(res.resource, undefined);
}

/** The stored item as a point read returns it. */
export async function stored(id, pk, c = container) {
  const res = await c.item(id, pk).read();
  assert.equal(res.statusCode, 200, `${id} exists`);
  return res.resource;
}

/** A plain Error (no number) gives no substatus, or 0. */
export function assertNoSubstatus(err) {
  assert.ok(err.substatus === undefined || err.substatus === 0, `substatus: ${err.substatus}`);
}

/** A fresh container with the /pk key: {container, id, rid, self}. */
export async function freshContainer(options = {}, partitionKey = { paths: ["/pk"] }) {
  const id = uid("sc");
  const res = await db.containers.create({ id, partitionKey }, options);
  return { container: res.container, id, rid: res.resource._rid, self: res.resource._self };
}

let dbRidCache;
export async function dbRid() {
  dbRidCache ??= (await db.read()).resource._rid;
  return dbRidCache;
}
