// Computed properties through @azure/cosmos, with the data and expectations of the SDKs' own tests
// (the JavaScript and .NET family documents, the Python test's counts): a container's
// computedProperties are kept as sent and read back, queries name them in SELECT, WHERE and ORDER
// BY (on one partition and across four, where the SDK runs the query plan), SELECT * and point
// reads leave them out, a replace redefines or removes them, and wrong definitions get the
// service's messages.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { expectError, LOCAL, uid, useEmulatorWithDatabase } from "./harness.mjs";

let db;
useEmulatorWithDatabase((d) => ({ db } = d));

const lowerLastName = {
  name: "lowerLastName",
  query: "SELECT VALUE LOWER(IS_DEFINED(c.lastName) ? c.lastName : c.parents[0].familyName) FROM c",
};
const parentsFullName = {
  name: "parentsFullName",
  query:
    "SELECT VALUE CONCAT(CONCAT(c.parents[0].firstName, ' ', c.lastName), ' & ', CONCAT(c.parents[1].firstName, ' ', c.lastName)) FROM c",
};
const andersen = {
  id: "AndersenFamily",
  lastName: "Andersen",
  parents: [{ firstName: "Thomas" }, { firstName: "Mary Kay" }],
  children: [{ firstName: "Henriette Thaulow", gender: "female", grade: 5, pets: [{ givenName: "Fluffy" }] }],
  address: { state: "WA", county: "King", city: "Seattle" },
  isRegistered: true,
};
const wakefield = {
  id: "WakefieldFamily",
  parents: [
    { familyName: "Wakefield", givenName: "Robin" },
    { familyName: "Miller", givenName: "Ben" },
  ],
  children: [{ familyName: "Merriam", givenName: "Jesse", gender: "female", grade: 1 }],
  address: { state: "NY", county: "Manhattan", city: "NY" },
  isRegistered: false,
};
const both = [
  { lowerLastName: "andersen", parentsFullName: "Thomas Andersen & Mary Kay Andersen" },
  { lowerLastName: "wakefield" },
];

async function familyContainer(computedProperties, indexingPolicy, partitions) {
  const def = { id: uid("cp"), partitionKey: { paths: ["/id"] } };
  if (computedProperties !== undefined) def.computedProperties = computedProperties;
  if (indexingPolicy) def.indexingPolicy = indexingPolicy;
  const options = partitions && LOCAL ? { initialHeaders: { "x-cosmos-emulator-partition-count": String(partitions) } } : {};
  const { container, resource, statusCode } = await db.containers.create(def, options);
  assert.equal(statusCode, 201);
  await container.items.create(andersen);
  await container.items.create(wakefield);
  return { container, resource, def };
}

const names = (container) =>
  container.items
    .query("SELECT c.lowerLastName, c.parentsFullName FROM c ORDER BY c.id")
    .fetchAll()
    .then((r) => r.resources);

describe("computed properties", () => {
  const policies = [
    { includedPaths: [{ path: "/lowerLastName/*" }, { path: "/parentsFullName/*" }, { path: "/*" }] },
    { includedPaths: [{ path: "/lowerLastName/*" }, { path: "/parentsFullName/*" }], excludedPaths: [{ path: "/*" }] },
    { includedPaths: [{ path: "/*" }] },
    { excludedPaths: [{ path: "/*" }] },
  ];
  for (const [i, policy] of policies.entries()) {
    it(`are kept as sent and answer queries under indexing policy ${i + 1}`, async () => {
      const { container, resource } = await familyContainer([lowerLastName, parentsFullName], policy);
      assert.deepEqual(resource.computedProperties, [lowerLastName, parentsFullName]);
      const { resource: read } = await container.read();
      assert.deepEqual(read.computedProperties, [lowerLastName, parentsFullName]);
      assert.deepEqual(await names(container), both);
      await container.delete();
    });
  }

  it("are left out of SELECT *, SELECT VALUE c and point reads, and stay out of the stored item", async () => {
    const { container } = await familyContainer([lowerLastName, parentsFullName]);
    const { resources: star } = await container.items.query("SELECT * FROM c WHERE c.lowerLastName = 'andersen'").fetchAll();
    assert.equal(star.length, 1);
    assert.equal(star[0].id, "AndersenFamily");
    assert.equal("lowerLastName" in star[0], false);
    const { resources: value } = await container.items.query("SELECT VALUE c FROM c").fetchAll();
    assert.ok(value.every((d) => !("lowerLastName" in d) && !("parentsFullName" in d)));
    const { resource: item } = await container.item("WakefieldFamily", "WakefieldFamily").read();
    assert.equal("lowerLastName" in item, false);
    // Named explicitly (by property or by index), with other expressions and in a subquery.
    const { resources } = await container.items
      .query(
        "SELECT c.id, UPPER(c['lowerLastName']) AS u, ARRAY(SELECT VALUE p.firstName FROM p IN c.parents WHERE c.lowerLastName = 'andersen') AS f FROM c ORDER BY c.id",
      )
      .fetchAll();
    assert.deepEqual(resources, [
      { id: "AndersenFamily", u: "ANDERSEN", f: ["Thomas", "Mary Kay"] },
      { id: "WakefieldFamily", u: "WAKEFIELD", f: [] },
    ]);
    await container.delete();
  });

  it("follow a replace: redefined, reduced, then removed (the key then absent)", async () => {
    const { container, def } = await familyContainer([lowerLastName, parentsFullName]);
    await container.replace({ ...def, computedProperties: [parentsFullName] });
    assert.deepEqual(await names(container), [{ parentsFullName: "Thomas Andersen & Mary Kay Andersen" }, {}]);
    const redefined = { name: "lowerLastName", query: "SELECT VALUE LOWER(c.lastName) FROM c" };
    const { resource } = await container.replace({ ...def, computedProperties: [redefined] });
    assert.deepEqual(resource.computedProperties, [redefined]);
    assert.deepEqual(await names(container), [{ lowerLastName: "andersen" }, {}]);
    const { resource: without } = await container.replace({ id: def.id, partitionKey: def.partitionKey });
    assert.equal("computedProperties" in without, false);
    const { resource: read } = await container.read();
    assert.equal("computedProperties" in read, false);
    assert.deepEqual(await names(container), [{}, {}]);
    await container.delete();
  });

  it("an empty list defines none", async () => {
    const { container, resource } = await familyContainer([]);
    assert.equal("computedProperties" in resource, false);
    assert.deepEqual(await names(container), [{}, {}]);
    await container.delete();
  });

  it("filter in WHERE without an index, with the Python test's data and counts", async () => {
    const computed = [
      { name: "cp_lower", query: "SELECT VALUE LOWER(c.db_group) FROM c" },
      { name: "cp_power", query: "SELECT VALUE POWER(c.val, 2) FROM c" },
      { name: "cp_str_len", query: "SELECT VALUE LENGTH(c.stringProperty) FROM c" },
    ];
    const { container, resource } = await db.containers.create({
      id: uid("cp"),
      partitionKey: { paths: ["/pk"] },
      computedProperties: computed,
    });
    const rows = [
      [5, "prefixOne", "GroUp1"], [5, "prefixTwo", "GrOUp1"], [5, "randomWord1", "GroUp2"], [5, "randomWord2", "groUp1"],
      [5, "randomWord3", "GroUp3"], [5, "randomWord4", "GrOUP1"], [5, "randomWord5", "GroUp2"], [0, "randomWord6", "group1"],
      [3, "randomWord7", "group2"], [2, "randomWord8", "GroUp3"],
    ];
    for (const [i, [val, stringProperty, db_group]] of rows.entries())
      await container.items.create({ id: `item${i}`, pk: "test", val, stringProperty, db_group });
    const count = async (where) =>
      (await container.items.query(`SELECT * FROM c WHERE ${where}`, { partitionKey: "test" }).fetchAll()).resources.length;
    assert.equal(await count('c.cp_upper = "GROUP2"'), 0);
    assert.equal(await count('c.cp_lower = "group1"'), 5);
    assert.equal(await count('c.cp_lower = "group4"'), 0);
    assert.equal(await count("c.cp_power = 25"), 7);
    assert.equal(await count("c.cp_power = 16"), 0);
    assert.equal(await count("c.cp_str_len = 9"), 2);
    await container.replace({
      id: resource.id,
      partitionKey: resource.partitionKey,
      computedProperties: [
        { name: "cp_upper", query: "SELECT VALUE UPPER(c.db_group) FROM c" },
        { name: "cp_len", query: "SELECT VALUE LENGTH(c.stringProperty) FROM c" },
      ],
    });
    assert.equal(await count('c.cp_upper = "GROUP2"'), 3);
    assert.equal(await count('c.cp_lower = "group1"'), 0);
    assert.equal(await count("c.cp_len = 9"), 2);
    assert.equal(await count("c.cp_str_len = 9"), 0);
    await container.delete();
  });

  for (const partitions of [1, 4]) {
    it(`order by an indexed computed property, and refuse one the index leaves out (${partitions} partition${partitions > 1 ? "s" : ""})`, async () => {
      const policy = { includedPaths: [{ path: "/*" }, { path: "/lowerLastName/?" }] };
      const { container } = await familyContainer([lowerLastName], policy, partitions);
      const { resources } = await container.items
        .query("SELECT c.id, c.lowerLastName FROM c WHERE STARTSWITH(c.lowerLastName, 'a') OR c.lowerLastName > 'b' ORDER BY c.lowerLastName DESC")
        .fetchAll();
      assert.deepEqual(resources, [
        { id: "WakefieldFamily", lowerLastName: "wakefield" },
        { id: "AndersenFamily", lowerLastName: "andersen" },
      ]);
      await container.delete();
      // The root's /* does not cover a computed property.
      const { container: plain } = await familyContainer([lowerLastName], undefined, partitions);
      const err = await expectError(
        () => plain.items.query("SELECT c.id FROM c ORDER BY c.lowerLastName", { partitionKey: "AndersenFamily" }).fetchAll(),
        400,
        "BadRequest",
      );
      assert.ok(err.body.message.includes("The index path corresponding to the specified order-by item is excluded."), err.body.message);
      await plain.delete();
    });
  }

  // The service's messages, as the .NET SDK's own negative test asserts them (Errors[0]).
  const invalid = [
    [[{ name: "lowerName", query: "SELECT VALUE LOWER(c.name) FROM c" }, { name: "lowerName", query: "SELECT VALUE LOWER(c.lastName) FROM c" }],
      "Computed property name 'lowerName' cannot be used in multiple definitions."],
    [[{ query: "SELECT VALUE LOWER(c.name) FROM c" }], "One of the specified inputs is invalid"],
    [[{ name: "", query: "SELECT VALUE LOWER(c.name) FROM c" }], "Computed property 'name' is either empty or unspecified."],
    [[{ name: "lowerName" }], "One of the specified inputs is invalid"],
    [[{ name: "lowerName", query: "" }], "Computed property 'query' is either empty or unspecified."],
    [[{ name: "id", query: "SELECT VALUE LOWER(c.name) FROM c" }], "The system property name 'id' cannot be used as a computed property name."],
    [[{ name: "spatial", query: "SELECT VALUE LOWER(c.name) FROM c" }],
      "Computed property 'spatial' at index (0) has a spatial index. Remove the spatial index on this path."],
    [[{ name: "lowerName", query: "SELECT LOWER(c.name) FROM c" }],
      "Required VALUE expression missing from computed property query 'SELECT LOWER(c.name) FROM c' at index (0)."],
    [[{ name: "lowerName", query: "SELECT VALUE LOWER(c.name) FROM r" }],
      `Computed property at index (0) has a malformed query: 'SELECT VALUE LOWER(c.name) FROM r' Error details: '{"errors":[{"severity":"Error","code":2001,"message":"Identifier 'c' could not be resolved."}]}'`],
    [{ name: "cp_lower", query: "SELECT VALUE LOWER(c.db_group) FROM c" }, "One of the specified inputs is invalid"],
  ];
  for (const [computedProperties, message] of invalid) {
    it(`refuses ${JSON.stringify(computedProperties).slice(0, 70)} on create and on replace`, async () => {
      const def = {
        id: uid("cp"),
        partitionKey: { paths: ["/id"] },
        indexingPolicy: { spatialIndexes: [{ path: "/spatial/*", types: ["Point"] }] },
      };
      const check = (err) => {
        const text = err.body.message;
        const end = text.indexOf("\r\n");
        const inner = JSON.parse(text.slice("Message: ".length, end < 0 ? undefined : end));
        assert.deepEqual(inner.Errors, [message]);
      };
      check(await expectError(() => db.containers.create({ ...def, computedProperties }), 400, "BadRequest"));
      const { container } = await db.containers.create(def);
      check(await expectError(() => container.replace({ ...def, computedProperties }), 400, "BadRequest"));
      const { resource } = await container.read();
      assert.equal("computedProperties" in resource, false);
      await container.delete();
    });
  }
});
