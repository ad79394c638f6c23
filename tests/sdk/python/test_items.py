"""Items through the v3 Python SDK: CRUD, upsert, conditions, partitions, system properties, charges."""
import base64
import time
import unittest

from harness import (LOCAL, REJECTED_WRITE, EmulatorTestCase, compact, count_terms, create_charge, delete_charge,
                     doc_path, kb_of, pk_header, read_charge, replace_charge, uid)

SYSTEM = ["_rid", "_self", "_etag", "_attachments", "_ts"]


class ItemTest(EmulatorTestCase):
    @classmethod
    def setUpClass(cls):
        super(ItemTest, cls).setUpClass()
        coll = cls.client.CreateContainer(cls.db_link, {"id": "items", "partitionKey": {"paths": ["/pk"],
                                                                                        "kind": "Hash"}})
        cls.coll = coll
        cls.link = cls.db_link + "/colls/items"

    def doc(self, doc_id):
        return "%s/docs/%s" % (self.link, doc_id)

    def size(self):
        return int(self.headers()["Content-Length"])

    def assertSystemProperties(self, doc, user_keys):
        self.assertEqual(list(doc.keys()), list(user_keys) + SYSTEM)
        rid = base64.b64decode(doc["_rid"].replace("-", "/"))
        self.assertEqual(len(rid), 16)
        self.assertEqual(rid[:8], base64.b64decode(self.coll["_rid"].replace("-", "/")))
        self.assertEqual(doc["_self"], "%sdocs/%s/" % (self.coll["_self"], doc["_rid"]))
        self.assertRegex(doc["_etag"], r'^"[^"]+"$')
        self.assertEqual(doc["_attachments"], "attachments/")
        self.assertIsInstance(doc["_ts"], int)
        self.assertLess(abs(doc["_ts"] - time.time()), 120)

    def test_create(self):
        body = {"id": uid("i"), "pk": "a", "name": "widget", "tags": ["x", "y"], "nested": {"n": 1, "ok": True,
                                                                                             "none": None}}
        doc = self.client.CreateItem(self.link, body)
        self.assertEqual(self.last_status(), 201)
        self.assertSystemProperties(doc, body.keys())
        for k, v in body.items():
            self.assertEqual(doc[k], v)
        h = self.headers()
        self.assertEqual(h["etag"], doc["_etag"])
        self.assertSessionToken(h["x-ms-session-token"])
        if LOCAL:
            self.assertEqual(h["x-ms-content-path"], self.coll["_rid"])
        self.assertEqual(self.size(), len(compact(doc).encode("utf-8")))
        self.assertEqual(count_terms(doc), 9)
        self.assertLastCharge(create_charge(doc, self.size()))

    def test_client_system_properties_are_replaced(self):
        doc = self.client.CreateItem(self.link, {"id": uid("i"), "pk": "a", "_rid": "x", "_self": "x", "_etag": "x",
                                                 "_ts": 1, "_attachments": "x", "v": 1})
        self.assertSystemProperties(doc, ["id", "pk", "v"])

    def test_read(self):
        created = self.client.CreateItem(self.link, {"id": uid("r"), "pk": "a", "v": [1, 2]})
        doc = self.client.ReadItem(self.doc(created["id"]), {"partitionKey": "a"})
        self.assertEqual(self.last_status(), 200)
        self.assertEqual(doc, created)
        self.assertEqual(self.headers()["etag"], created["_etag"])
        self.assertLastCharge(1)
        self.assertLastCharge(read_charge(doc, self.size()))

    def test_read_large_item(self):
        created = self.client.CreateItem(self.link, {"id": uid("big"), "pk": "a", "blob": "x" * (100 * 1024)})
        self.assertLastCharge(create_charge(created, self.size()))
        self.client.ReadItem(self.doc(created["id"]), {"partitionKey": "a"})
        kb = kb_of(self.size())
        self.assertGreater(kb, 100)
        self.assertLastCharge(read_charge(created, self.size()))

    def test_read_unknown_is_404_and_1_ru(self):
        self.assertFailure(lambda: self.client.ReadItem(self.doc(uid("none")), {"partitionKey": "a"}), 404,
                           "NotFound", message=r"Resource Not Found", charge=1)

    def test_same_id_in_two_logical_partitions(self):
        doc_id = uid("same")
        a = self.client.CreateItem(self.link, {"id": doc_id, "pk": "a", "which": "a"})
        b = self.client.CreateItem(self.link, {"id": doc_id, "pk": "b", "which": "b"})
        self.assertNotEqual(a["_rid"], b["_rid"])
        self.assertEqual(self.client.ReadItem(self.doc(doc_id), {"partitionKey": "a"})["which"], "a")
        self.assertEqual(self.client.ReadItem(self.doc(doc_id), {"partitionKey": "b"})["which"], "b")
        self.client.DeleteItem(self.doc(doc_id), {"partitionKey": "b"})
        self.assertEqual(self.client.ReadItem(self.doc(doc_id), {"partitionKey": "a"})["which"], "a")
        self.assertFailure(lambda: self.client.ReadItem(self.doc(doc_id), {"partitionKey": "b"}), 404, "NotFound")

    def test_partition_key_types(self):
        doc_id = uid("types")
        for pk in ("s", 5, 1.5, True, False, None):
            self.client.CreateItem(self.link, {"id": doc_id, "pk": pk})
            self.assertEqual(self.last_status(), 201)
            self.assertEqual(self.client.ReadItem(self.doc(doc_id), {"partitionKey": pk})["pk"], pk)

    def test_duplicate_is_409(self):
        doc_id = uid("dup")
        self.client.CreateItem(self.link, {"id": doc_id, "pk": "a"})
        self.assertFailure(lambda: self.client.CreateItem(self.link, {"id": doc_id, "pk": "a"}), 409, "Conflict",
                           charge=REJECTED_WRITE)

    def test_replace(self):
        created = self.client.CreateItem(self.link, {"id": uid("rep"), "pk": "a", "v": 1})
        doc = self.client.ReplaceItem(self.doc(created["id"]), {"id": created["id"], "pk": "a", "w": [1], "v": 2})
        self.assertEqual(self.last_status(), 200)
        self.assertSystemProperties(doc, ["id", "pk", "w", "v"])
        self.assertEqual(doc["_rid"], created["_rid"])
        self.assertNotEqual(doc["_etag"], created["_etag"])
        self.assertLastCharge(replace_charge(doc, self.size()))
        self.assertEqual(self.client.ReadItem(self.doc(created["id"]), {"partitionKey": "a"}), doc)

    def test_replace_unknown_is_404(self):
        doc_id = uid("none")
        self.assertFailure(lambda: self.client.ReplaceItem(self.doc(doc_id), {"id": doc_id, "pk": "a"}), 404,
                           "NotFound", charge=REJECTED_WRITE)

    def test_if_match(self):
        created = self.client.CreateItem(self.link, {"id": uid("im"), "pk": "a", "v": 1})
        link = self.doc(created["id"])
        updated = self.client.ReplaceItem(link, {"id": created["id"], "pk": "a", "v": 2})
        stale = {"accessCondition": {"type": "IfMatch", "condition": created["_etag"]}}
        self.assertFailure(lambda: self.client.ReplaceItem(link, {"id": created["id"], "pk": "a", "v": 3}, stale),
                           412, "PreconditionFailed",
                           message=r"Operation cannot be performed because one of the specified precondition is "
                                   r"not met\.", charge=REJECTED_WRITE)
        self.assertFailure(lambda: self.client.DeleteItem(link, dict(stale, partitionKey="a")), 412,
                           "PreconditionFailed")
        self.assertFailure(lambda: self.client.UpsertItem(self.link, {"id": created["id"], "pk": "a", "v": 3}, stale),
                           412, "PreconditionFailed")
        self.assertEqual(self.client.ReadItem(link, {"partitionKey": "a"})["v"], 2)
        ok = self.client.ReplaceItem(link, {"id": created["id"], "pk": "a", "v": 3},
                                     {"accessCondition": {"type": "IfMatch", "condition": updated["_etag"]}})
        self.assertEqual(ok["v"], 3)

    def test_if_none_match_is_304(self):
        created = self.client.CreateItem(self.link, {"id": uid("inm"), "pk": "a"})
        res = self.client.ReadItem(self.doc(created["id"]), {
            "partitionKey": "a", "accessCondition": {"type": "IfNoneMatch", "condition": created["_etag"]}})
        self.assertEqual(self.last_status(), 304)
        self.assertIsNone(res)
        self.assertEqual(self.headers()["etag"], created["_etag"])
        self.assertLastCharge(1)
        res = self.client.ReadItem(self.doc(created["id"]), {
            "partitionKey": "a", "accessCondition": {"type": "IfNoneMatch", "condition": '"other"'}})
        self.assertEqual(self.last_status(), 200)
        self.assertEqual(res, created)

    def test_upsert_201_then_200(self):
        doc_id = uid("up")
        first = self.client.UpsertItem(self.link, {"id": doc_id, "pk": "a", "v": 1})
        self.assertEqual(self.last_status(), 201)
        self.assertLastCharge(create_charge(first, self.size()))
        second = self.client.UpsertItem(self.link, {"id": doc_id, "pk": "a", "v": 2, "x": "y"})
        self.assertEqual(self.last_status(), 200)
        self.assertEqual(second["_rid"], first["_rid"])
        self.assertNotEqual(second["_etag"], first["_etag"])
        self.assertLastCharge(replace_charge(second, self.size()))

    def test_delete(self):
        created = self.client.CreateItem(self.link, {"id": uid("del"), "pk": "a", "list": [1, 2, 3]})
        size = self.size()
        link = self.doc(created["id"])
        self.client.DeleteItem(link, {"partitionKey": "a"})
        self.assertEqual(self.last_status(), 204)
        self.assertSessionToken(self.headers()["x-ms-session-token"])
        self.assertLastCharge(delete_charge(created, size))
        self.assertFailure(lambda: self.client.ReadItem(link, {"partitionKey": "a"}), 404, "NotFound")
        self.assertFailure(lambda: self.client.DeleteItem(link, {"partitionKey": "a"}), 404, "NotFound",
                           charge=REJECTED_WRITE)

    def test_session_token_lsn_grows_by_one_per_write(self):
        link, _ = self.new_container()
        self.client.CreateItem(link, {"id": "a", "pk": "x"})
        lsn = self.assertSessionToken(self.headers()["x-ms-session-token"])
        if LOCAL:
            self.assertEqual(lsn, 1)
        self.client.UpsertItem(link, {"id": "b", "pk": "y"})
        self.assertEqual(self.assertSessionToken(self.headers()["x-ms-session-token"]), lsn + 1)
        self.client.ReadItem(link + "/docs/a", {"partitionKey": "x"})
        self.assertEqual(self.assertSessionToken(self.headers()["x-ms-session-token"]), lsn + 1)
        self.client.ReplaceItem(link + "/docs/a", {"id": "a", "pk": "x", "v": 1})
        self.assertEqual(self.assertSessionToken(self.headers()["x-ms-session-token"]), lsn + 2)
        self.client.DeleteItem(link + "/docs/b", {"partitionKey": "y"})
        self.assertEqual(self.assertSessionToken(self.headers()["x-ms-session-token"]), lsn + 3)

    def test_hierarchical_partition_key_items(self):
        link, _ = self.new_container({"paths": ["/tenant", "/user"], "kind": "MultiHash", "version": 2})
        # the v3 SDK predates hierarchical keys: address items with raw requests
        db, coll = link.split("/")[1], link.split("/")[3]
        for user, v in (("u1", 1), ("u2", 2)):
            res = self.raw("POST", doc_path(db, coll), {"x-ms-documentdb-partitionkey": pk_header("t1", user)},
                           {"id": "1", "tenant": "t1", "user": user, "v": v})
            self.assertEqual(res.status, 201, res.text)
        res = self.raw("GET", doc_path(db, coll, "1"), {"x-ms-documentdb-partitionkey": pk_header("t1", "u2")})
        self.assertEqual(res.json["v"], 2)
        res = self.raw("GET", doc_path(db, coll, "1"), {"x-ms-documentdb-partitionkey": pk_header("t1")})
        self.assertRawError(res, 400, "BadRequest", substatus=1001)

    def test_raw_patch(self):
        created = self.client.CreateItem(self.link, {"id": uid("pt"), "pk": "a", "n": 1, "gone": 0, "arr": [1]})
        ops = [{"op": "add", "path": "/added", "value": "x"}, {"op": "set", "path": "/arr/0", "value": 9},
               {"op": "replace", "path": "/n", "value": 10}, {"op": "remove", "path": "/gone"},
               {"op": "incr", "path": "/n", "value": 5}, {"op": "move", "from": "/added", "path": "/moved"}]
        res = self.raw("PATCH", doc_path(self.db_id, "items", created["id"]),
                       {"x-ms-documentdb-partitionkey": pk_header("a")}, ops)
        self.assertEqual(res.status, 200, res.text)
        self.assertEqual(res.json["n"], 15)
        self.assertEqual(res.json["arr"], [9])
        self.assertEqual(res.json["moved"], "x")
        self.assertNotIn("gone", res.json)
        self.assertNotIn("added", res.json)
        self.assertCharge(res.headers["x-ms-request-charge"], replace_charge(res.json, len(res.content)))
        self.assertEqual(self.client.ReadItem(self.doc(created["id"]), {"partitionKey": "a"}), res.json)
        too_many = [{"op": "set", "path": "/p%d" % i, "value": i} for i in range(11)]
        res = self.raw("PATCH", doc_path(self.db_id, "items", created["id"]),
                       {"x-ms-documentdb-partitionkey": pk_header("a")}, too_many)
        self.assertRawError(res, 400, "BadRequest", message=r"The number of patch operations can't exceed 10\.")


if __name__ == "__main__":
    unittest.main()
