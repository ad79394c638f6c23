"""Databases and containers through the v3 Python SDK."""
import base64
import re
import time
import unittest

from harness import (LOCAL, METADATA_READ, METADATA_WRITE, REJECTED_WRITE, EmulatorTestCase, create_charge, kb_of,
                     round2, uid)


def rid_bytes(rid):
    return base64.b64decode(rid.replace("-", "/"))


class DatabaseTest(EmulatorTestCase):
    def test_create_read_list_delete(self):
        db_id = uid("db")
        db = self.client.CreateDatabase({"id": db_id})
        self.assertEqual(self.last_status(), 201)
        self.assertEqual(list(db.keys()), ["id", "_rid", "_self", "_etag", "_colls", "_users", "_ts"])
        self.assertEqual(db["id"], db_id)
        self.assertEqual(len(rid_bytes(db["_rid"])), 4)
        self.assertEqual(db["_self"], "dbs/%s/" % db["_rid"])
        self.assertRegex(db["_etag"], r'^"[^"]+"$')
        self.assertEqual(self.headers()["etag"], db["_etag"])
        self.assertLess(abs(db["_ts"] - time.time()), 120)
        self.assertLastCharge(METADATA_WRITE)

        read = self.client.ReadDatabase("dbs/" + db_id)
        self.assertEqual(self.last_status(), 200)
        self.assertEqual(read, db)
        self.assertLastCharge(METADATA_READ)

        ids = [d["id"] for d in self.client.ReadDatabases()]
        self.assertIn(db_id, ids)
        self.assertIn(self.db_id, ids)

        self.client.DeleteDatabase("dbs/" + db_id)
        self.assertEqual(self.last_status(), 204)
        self.assertLastCharge(METADATA_WRITE)
        self.assertFailure(lambda: self.client.ReadDatabase("dbs/" + db_id), 404, "NotFound",
                           message=r"Resource Not Found", charge=METADATA_READ)
        self.assertFailure(lambda: self.client.DeleteDatabase("dbs/" + db_id), 404, "NotFound")
        self.assertNotIn(db_id, [d["id"] for d in self.client.ReadDatabases()])

    def test_duplicate_is_409(self):
        self.assertFailure(lambda: self.client.CreateDatabase({"id": self.db_id}), 409, "Conflict",
                           message=r"Resource with specified id, name, or unique index already exists\.",
                           charge=REJECTED_WRITE)

    def test_list_feed_shape(self):
        res = self.raw("GET", "/dbs")
        self.assertEqual(res.status, 200)
        self.assertEqual(list(res.json.keys()), ["_rid", "Databases", "_count"])
        self.assertEqual(res.json["_count"], len(res.json["Databases"]))
        self.assertEqual(res.headers["x-ms-item-count"], str(res.json["_count"]))

    def test_delete_removes_contents(self):
        db_id = uid("db")
        self.client.CreateDatabase({"id": db_id})
        self.client.CreateContainer("dbs/" + db_id, {"id": "c", "partitionKey": {"paths": ["/pk"], "kind": "Hash"}})
        self.client.CreateItem("dbs/%s/colls/c" % db_id, {"id": "i", "pk": "p"})
        self.client.DeleteDatabase("dbs/" + db_id)
        self.client.CreateDatabase({"id": db_id})
        self.assertEqual(list(self.client.ReadContainers("dbs/" + db_id)), [])
        self.assertFailure(lambda: self.client.ReadContainer("dbs/%s/colls/c" % db_id), 404, "NotFound")
        self.client.CreateContainer("dbs/" + db_id, {"id": "c", "partitionKey": {"paths": ["/pk"], "kind": "Hash"}})
        self.assertFailure(lambda: self.client.ReadItem("dbs/%s/colls/c/docs/i" % db_id, {"partitionKey": "p"}),
                           404, "NotFound")
        self.assertEqual(list(self.client.ReadItems("dbs/%s/colls/c" % db_id)), [])
        self.client.DeleteDatabase("dbs/" + db_id)

    def test_invalid_ids(self):
        for body in ('{"id":"x",', "[]", '{"name":"x"}', '{"id":""}', '{"id":5}'):
            res = self.raw("POST", "/dbs", body=body)
            self.assertRawError(res, 400, "BadRequest")
        for bad in ("a/b", "a\\b", "a?b", "a#b", "d" * 256):
            res = self.raw("POST", "/dbs", body={"id": bad})
            self.assertRawError(res, 400, "BadRequest")
        # the SDK refuses these ids itself
        with self.assertRaises(ValueError):
            self.client.CreateDatabase({"id": "a/b"})

    def test_non_ascii_id(self):
        db_id = "dé " + uid("日本")
        self.client.CreateDatabase({"id": db_id})
        self.assertEqual(self.client.ReadDatabase("dbs/" + db_id)["id"], db_id)
        self.client.DeleteDatabase("dbs/" + db_id)


class ContainerTest(EmulatorTestCase):
    def test_create_read_list_replace_delete(self):
        coll_id = uid("c")
        link = "%s/colls/%s" % (self.db_link, coll_id)
        coll = self.client.CreateContainer(self.db_link, {"id": coll_id, "partitionKey": {"paths": ["/pk"]}})
        self.assertEqual(self.last_status(), 201)
        self.assertLastCharge(METADATA_WRITE)
        self.assertEqual(coll["partitionKey"], {"paths": ["/pk"], "kind": "Hash", "version": 1})
        self.assertEqual(coll["indexingPolicy"], {
            "indexingMode": "consistent", "automatic": True,
            "includedPaths": [{"path": "/*"}], "excludedPaths": [{"path": '/"_etag"/?'}]})
        self.assertEqual(coll["conflictResolutionPolicy"]["mode"], "LastWriterWins")
        self.assertEqual(coll["geospatialConfig"], {"type": "Geography"})
        db = self.client.ReadDatabase(self.db_link)
        self.assertEqual(rid_bytes(coll["_rid"])[:4], rid_bytes(db["_rid"]))
        self.assertEqual(len(rid_bytes(coll["_rid"])), 8)
        self.assertEqual(coll["_self"], "dbs/%s/colls/%s/" % (db["_rid"], coll["_rid"]))
        for k, v in (("_docs", "docs/"), ("_sprocs", "sprocs/"), ("_triggers", "triggers/"), ("_udfs", "udfs/"),
                     ("_conflicts", "conflicts/")):
            self.assertEqual(coll[k], v)

        self.assertEqual(self.client.ReadContainer(link), coll)
        self.assertEqual(self.last_status(), 200)
        self.assertLastCharge(METADATA_READ)
        self.assertIn(coll_id, [c["id"] for c in self.client.ReadContainers(self.db_link)])

        policy = {"indexingMode": "consistent", "automatic": True, "includedPaths": [{"path": "/a/?"}],
                  "excludedPaths": [{"path": "/*"}]}
        replaced = self.client.ReplaceContainer(link, {"id": coll_id, "partitionKey": coll["partitionKey"],
                                                       "indexingPolicy": policy, "defaultTtl": 60})
        self.assertEqual(self.last_status(), 200)
        self.assertEqual(replaced["defaultTtl"], 60)
        self.assertEqual(replaced["indexingPolicy"]["includedPaths"], [{"path": "/a/?"}])
        self.assertEqual(replaced["indexingPolicy"]["excludedPaths"], [{"path": "/*"}, {"path": '/"_etag"/?'}])
        self.assertNotEqual(replaced["_etag"], coll["_etag"])
        # one indexed term (/a) per item now
        doc = self.client.CreateItem(link, {"id": "x", "pk": "p", "a": 1, "b": [1, 2]})
        size = int(self.headers()["Content-Length"])
        self.assertLastCharge(round2(4.6 + 0.6 * kb_of(size) + 0.38 * 1))

        self.client.DeleteContainer(link)
        self.assertEqual(self.last_status(), 204)
        self.assertLastCharge(METADATA_WRITE)
        self.assertFailure(lambda: self.client.ReadContainer(link), 404, "NotFound")
        self.assertNotIn(coll_id, [c["id"] for c in self.client.ReadContainers(self.db_link)])
        # re-created: empty
        self.client.CreateContainer(self.db_link, {"id": coll_id, "partitionKey": {"paths": ["/pk"]}})
        self.assertEqual(list(self.client.ReadItems(link)), [])
        self.assertFailure(lambda: self.client.ReadItem(link + "/docs/x", {"partitionKey": "p"}), 404, "NotFound")

    def test_hierarchical_partition_key_is_stored_as_given(self):
        definition = {"paths": ["/tenant", "/user"], "kind": "MultiHash", "version": 2}
        link, coll = self.new_container(definition)
        self.assertEqual(coll["partitionKey"], definition)
        self.assertEqual(self.client.ReadContainer(link)["partitionKey"], definition)

    def test_partition_key_version_2(self):
        _, coll = self.new_container({"paths": ["/pk"], "kind": "Hash", "version": 2})
        self.assertEqual(coll["partitionKey"], {"paths": ["/pk"], "kind": "Hash", "version": 2})

    def test_invalid_partition_key_definitions(self):
        for pk in ({"paths": ["/a", "/b"], "kind": "Hash"}, {"paths": []}, {"paths": ["/a", "/b", "/c", "/d"]}):
            self.assertFailure(lambda: self.client.CreateContainer(self.db_link, {"id": uid("c"), "partitionKey": pk}),
                               400, "BadRequest")

    def test_duplicate_and_unknown(self):
        link, coll = self.new_container()
        self.assertFailure(lambda: self.client.CreateContainer(self.db_link, {"id": coll["id"], "partitionKey": {
            "paths": ["/pk"]}}), 409, "Conflict", charge=REJECTED_WRITE)
        self.assertFailure(lambda: self.client.ReadContainer(self.db_link + "/colls/nope"), 404, "NotFound",
                           charge=METADATA_READ)
        self.assertFailure(lambda: self.client.CreateContainer("dbs/" + uid("nodb"), {"id": "c", "partitionKey": {
            "paths": ["/pk"]}}), 404, "NotFound")

    def test_replace_cannot_change_partition_key(self):
        link, coll = self.new_container()
        self.assertFailure(lambda: self.client.ReplaceContainer(link, {"id": coll["id"], "partitionKey": {
            "paths": ["/other"], "kind": "Hash"}}), 400, "BadRequest")

    def test_replace_with_stale_if_match_is_412(self):
        link, coll = self.new_container()
        self.assertFailure(lambda: self.client.ReplaceContainer(
            link, {"id": coll["id"], "partitionKey": coll["partitionKey"]},
            {"accessCondition": {"type": "IfMatch", "condition": '"stale"'}}), 412, "PreconditionFailed")

    def test_container_without_partition_key(self):
        link, coll = self.new_container(False)
        self.assertEqual(coll["partitionKey"]["paths"], ["/_partitionKey"])
        self.client.CreateItem(link, {"id": "x", "v": 1})
        self.assertEqual(self.last_status(), 201)
        self.assertEqual(self.client.ReadItem(link + "/docs/x")["v"], 1)
        self.client.DeleteItem(link + "/docs/x")
        self.assertEqual(self.last_status(), 204)


if __name__ == "__main__":
    unittest.main()
