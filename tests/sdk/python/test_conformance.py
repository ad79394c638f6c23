"""Conformance through the v3 Python SDK (3.1.1), one class per cause of issue 17.

- Queries over every feed are queries: QueryDatabases, QueryContainers, QueryStoredProcedures,
  QueryTriggers, QueryUserDefinedFunctions, QueryUsers, QueryPermissions (before, a POST with a query
  to /dbs was taken for a create and answered 400 "required properties - 'id'").
- Upserts of stored procedures, triggers and UDFs replace an existing script (200, same _rid).
- Every resource is reachable by its _self link: the SDK signs those with the lower-cased rid.
- The gateway answers 400/1004 with the query plan for queries that need merging across
  partitions; the v3 SDK then runs its own pipeline (ORDER BY, TOP, aggregates) per range.
- New containers get ceil(RU/s / 6,000) partition key ranges.
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # also runnable as a file path

import azure.cosmos.errors as errors  # noqa: E402

from harness import LOCAL, METADATA_WRITE, EmulatorTestCase, uid  # noqa: E402


class QueryEveryFeedTest(EmulatorTestCase):
    @classmethod
    def setUpClass(cls):
        super(QueryEveryFeedTest, cls).setUpClass()
        cls.coll_link = cls.db_link + "/colls/c1"
        cls.client.CreateContainer(cls.db_link, {"id": "c1", "partitionKey": {"paths": ["/pk"], "kind": "Hash"}})
        cls.client.CreateContainer(cls.db_link, {"id": "c2", "partitionKey": {"paths": ["/pk"], "kind": "Hash"}})
        cls.client.CreateStoredProcedure(cls.coll_link, {"id": "sp1", "body": "function () {}"})
        cls.client.CreateStoredProcedure(cls.coll_link, {"id": "sp2", "body": "function () {}"})
        cls.client.CreateTrigger(cls.coll_link, {"id": "tr1", "body": "function () {}", "triggerType": "Pre",
                                                 "triggerOperation": "All"})
        cls.client.CreateUserDefinedFunction(cls.coll_link, {"id": "f1", "body": "function (x) { return x; }"})
        cls.client.CreateUser(cls.db_link, {"id": "u1"})
        cls.client.CreatePermission(cls.db_link + "/users/u1",
                                    {"id": "p1", "permissionMode": "Read", "resource": cls.coll_link})

    def test_query_databases(self):
        q = {"query": "SELECT * FROM r WHERE r.id = @id", "parameters": [{"name": "@id", "value": self.db_id}]}
        found = list(self.client.QueryDatabases(q))
        self.assertEqual([d["id"] for d in found], [self.db_id])
        self.assertEqual(list(self.client.QueryDatabases("SELECT * FROM r WHERE r.id = 'missing'")), [])

    def test_query_containers(self):
        found = list(self.client.QueryContainers(self.db_link, "SELECT VALUE r.id FROM r ORDER BY r.id"))
        self.assertEqual(found, ["c1", "c2"])

    def test_query_scripts(self):
        self.assertEqual(list(self.client.QueryStoredProcedures(self.coll_link, "SELECT VALUE r.id FROM r WHERE r.id = 'sp2'")),
                         ["sp2"])
        self.assertEqual(list(self.client.QueryTriggers(self.coll_link, "SELECT VALUE r.triggerOperation FROM r")), ["All"])
        self.assertEqual(list(self.client.QueryUserDefinedFunctions(self.coll_link, "SELECT VALUE COUNT(1) FROM r")), [1])

    def test_query_users_and_permissions(self):
        self.assertEqual(list(self.client.QueryUsers(self.db_link, "SELECT VALUE r.id FROM r")), ["u1"])
        perms = list(self.client.QueryPermissions(self.db_link + "/users/u1", "SELECT VALUE r.id FROM r"))
        self.assertEqual(perms, ["p1"])


class UpsertScriptsTest(EmulatorTestCase):
    @classmethod
    def setUpClass(cls):
        super(UpsertScriptsTest, cls).setUpClass()
        cls.coll_link = cls.db_link + "/colls/c"
        cls.client.CreateContainer(cls.db_link, {"id": "c", "partitionKey": {"paths": ["/pk"], "kind": "Hash"}})

    def check(self, upsert, create, body):
        first = upsert(self.coll_link, dict(body))
        self.assertEqual(self.last_status(), 201)
        changed = dict(body, body=body["body"].replace("1", "2"))
        second = upsert(self.coll_link, changed)
        self.assertEqual(self.last_status(), 200)
        self.assertEqual(second["_rid"], first["_rid"])
        self.assertEqual(second["body"], changed["body"])
        self.assertLastCharge(METADATA_WRITE)
        with self.assertRaises(errors.HTTPFailure) as cm:
            create(self.coll_link, dict(body))
        self.assertEqual(cm.exception.status_code, 409)

    def test_stored_procedure(self):
        self.check(self.client.UpsertStoredProcedure, self.client.CreateStoredProcedure,
                   {"id": "sp", "body": "function () { getContext().getResponse().setBody(1); }"})
        result = self.client.ExecuteStoredProcedure(self.coll_link + "/sprocs/sp", None, {"partitionKey": "x"})
        self.assertEqual(result, 2)

    def test_trigger(self):
        self.check(self.client.UpsertTrigger, self.client.CreateTrigger,
                   {"id": "tr", "body": "function () { var x = 1; }", "triggerType": "Pre", "triggerOperation": "All"})

    def test_udf(self):
        self.check(self.client.UpsertUserDefinedFunction, self.client.CreateUserDefinedFunction,
                   {"id": "f", "body": "function () { return 1; }"})


class SelfLinksTest(EmulatorTestCase):
    @classmethod
    def setUpClass(cls):
        super(SelfLinksTest, cls).setUpClass()
        cls.db = cls.client.ReadDatabase(cls.db_link)
        cls.coll = cls.client.CreateContainer(cls.db["_self"], {"id": "c", "partitionKey": {"paths": ["/pk"], "kind": "Hash"}})

    def test_database_and_container_by_self_link(self):
        self.assertEqual(self.client.ReadDatabase(self.db["_self"])["id"], self.db_id)
        self.assertEqual(self.client.ReadContainer(self.coll["_self"])["id"], "c")
        self.assertEqual([c["id"] for c in self.client.ReadContainers(self.db["_self"])], ["c"])

    def test_item_crud_by_self_link(self):
        item = self.client.CreateItem(self.coll["_self"], {"id": "i1", "pk": "a", "n": 1})
        self.assertEqual(self.last_status(), 201)
        read = self.client.ReadItem(item["_self"], {"partitionKey": "a"})
        self.assertEqual((read["id"], read["n"], read["_rid"]), ("i1", 1, item["_rid"]))
        replaced = self.client.ReplaceItem(item["_self"], {"id": "i1", "pk": "a", "n": 2}, {"partitionKey": "a"})
        self.assertEqual((replaced["n"], replaced["_rid"]), (2, item["_rid"]))
        found = list(self.client.QueryItems(self.coll["_self"], "SELECT VALUE c.n FROM c", {"partitionKey": "a"}))
        self.assertEqual(found, [2])
        self.client.DeleteItem(item["_self"], {"partitionKey": "a"})
        self.assertEqual(self.last_status(), 204)
        with self.assertRaises(errors.HTTPFailure) as cm:
            self.client.ReadItem(item["_self"], {"partitionKey": "a"})
        self.assertEqual(cm.exception.status_code, 404)

    def test_scripts_users_permissions_by_self_link(self):
        sp = self.client.CreateStoredProcedure(self.coll["_self"], {"id": "sp", "body": "function () { getContext().getResponse().setBody('hi'); }"})
        self.assertEqual(self.client.ReadStoredProcedure(sp["_self"])["id"], "sp")
        self.assertEqual(self.client.ExecuteStoredProcedure(sp["_self"], None, {"partitionKey": "a"}), "hi")
        self.client.DeleteStoredProcedure(sp["_self"])
        user = self.client.CreateUser(self.db["_self"], {"id": "u"})
        self.assertEqual(self.client.ReadUser(user["_self"])["id"], "u")
        perm = self.client.CreatePermission(user["_self"], {"id": "p", "permissionMode": "All", "resource": self.coll["_self"]})
        self.assertEqual(self.client.ReadPermission(perm["_self"])["resource"], self.coll["_self"])
        self.client.DeletePermission(perm["_self"])
        self.client.DeleteUser(user["_self"])
        self.assertEqual(self.last_status(), 204)

    def test_unknown_rid_is_404(self):
        with self.assertRaises(errors.HTTPFailure) as cm:
            self.client.ReadDatabase("dbs/AAAAAA==/")
        self.assertEqual(cm.exception.status_code, 404)


class GatewayCrossPartitionTest(EmulatorTestCase):
    @classmethod
    def setUpClass(cls):
        super(GatewayCrossPartitionTest, cls).setUpClass()
        cls.coll_link = cls.db_link + "/colls/c"
        cls.client.CreateContainer(cls.db_link, {"id": "c", "partitionKey": {"paths": ["/pk"], "kind": "Hash"}},
                                   {"offerThroughput": 18000})
        for i in range(30):
            # one key per item, so every range holds some (the v3 SDK cannot merge a MAX over an empty range)
            cls.client.CreateItem(cls.coll_link, {"id": "i%d" % i, "pk": "p%d" % i, "n": i % 10})

    def query(self, text, options=None):
        return list(self.client.QueryItems(self.coll_link, text, dict({"enableCrossPartitionQuery": True}, **(options or {}))))

    def test_raw_refusal_carries_the_plan(self):
        r = self.raw("POST", "/" + self.coll_link + "/docs",
                     {"x-ms-documentdb-isquery": "True", "content-type": "application/query+json",
                      "x-ms-documentdb-query-enablecrosspartition": "True"},
                     '{"query": "SELECT VALUE MAX(c.n) FROM c"}')
        self.assertEqual(r.status, 400)
        self.assertEqual(r.headers["x-ms-substatus"], "1004")
        import json
        plan = json.loads(r.json["additionalErrorInfo"])
        self.assertEqual(plan["queryInfo"]["aggregates"], ["Max"])

    def test_sdk_pipeline_merges_order_by_top_and_aggregates(self):
        if LOCAL:
            self.assertEqual(len(list(self.client._ReadPartitionKeyRanges(self.coll_link))), 3)
        self.assertEqual(self.query("SELECT TOP 3 VALUE c.id FROM c ORDER BY c.id DESC"), ["i9", "i8", "i7"])
        self.assertEqual(self.query("SELECT VALUE COUNT(1) FROM c"), [30])
        self.assertEqual(self.query("SELECT VALUE MAX(c.n) FROM c"), [9])
        self.assertEqual(self.query("SELECT VALUE SUM(c.n) FROM c WHERE c.n > 7"), [8 * 3 + 9 * 3])
        ordered = self.query("SELECT c.id, c.n FROM c WHERE c.n = 4 ORDER BY c.id")
        self.assertEqual(ordered, [{"id": "i14", "n": 4}, {"id": "i24", "n": 4}, {"id": "i4", "n": 4}])

    def test_plain_filter_is_served_by_the_gateway(self):
        self.assertEqual(sorted(self.query("SELECT VALUE c.id FROM c WHERE c.n = 3")), ["i13", "i23", "i3"])


@unittest.skipUnless(LOCAL, "the layout of a real account is the service's")
class PartitionLayoutTest(EmulatorTestCase):
    def test_ranges_per_throughput(self):
        for ru, ranges in [(400, 1), (6000, 1), (10000, 2), (18000, 3), (21000, 4)]:
            cid = uid("c")
            link = self.db_link + "/colls/" + cid
            self.client.CreateContainer(self.db_link, {"id": cid, "partitionKey": {"paths": ["/pk"], "kind": "Hash"}},
                                        {"offerThroughput": ru})
            self.assertEqual(len(list(self.client._ReadPartitionKeyRanges(link))), ranges, ru)
            self.client.DeleteContainer(link)


if __name__ == "__main__":
    unittest.main()
