"""Transactional batch through the v3 Python SDK.

The v3 SDK (azure-cosmos 3.1.1) has no batch API. These tests send the batch through the SDK's own
request path: its header builder (base.GetHeaders: signature, date, version, session token,
partition key header) and its private POST (CosmosClient.__Post, name-mangled), so the request is
signed, retried and parsed exactly as the SDK does for its other writes. Only the two batch headers
and the JSON array body are ours.
"""
import json
import unittest

import azure.cosmos.base as base
import azure.cosmos.documents as documents
import azure.cosmos.errors as errors
import azure.cosmos.request_object as request_object

from harness import (REJECTED_WRITE, EmulatorTestCase, create_charge, delete_charge, read_charge, replace_charge,
                     round2, uid)

SYSTEM = ["_rid", "_self", "_etag", "_attachments", "_ts"]


class BatchTest(EmulatorTestCase):
    @classmethod
    def setUpClass(cls):
        super(BatchTest, cls).setUpClass()
        cls.link, _ = cls.new_container_cls()

    @classmethod
    def new_container_cls(cls, partition_key=None):
        body = {"id": uid("c"), "partitionKey": partition_key or {"paths": ["/pk"], "kind": "Hash"}}
        coll = cls.client.CreateContainer(cls.db_link, body)
        return "%s/colls/%s" % (cls.db_link, coll["id"]), coll

    # -- the batch request through the SDK's request path -------------------------------------

    def batch(self, ops, pk, atomic=True, link=None, continue_on_error=None):
        """Returns (status, results, headers). HTTP errors raise errors.HTTPFailure as the SDK does."""
        link = link or self.link
        path = base.GetPathFromLink(link, "docs")
        coll_id = base.GetResourceIdOrFullNameFromLink(link)
        initial = dict(self.client.default_headers)
        initial["x-ms-cosmos-is-batch-request"] = "True"
        initial["x-ms-cosmos-batch-atomic"] = "True" if atomic else "False"
        if continue_on_error is not None:
            initial["x-ms-cosmos-batch-continue-on-error"] = "True" if continue_on_error else "False"
        options = {} if pk is None else {"partitionKey": pk}
        headers = base.GetHeaders(self.client, initial, "post", path, coll_id, "docs", options)
        request = request_object._RequestObject("docs", documents._OperationType.Create)
        result, response_headers = self.client._CosmosClient__Post(path, request, ops, headers)
        return self.client.statuses[-1], result, response_headers

    def read(self, doc_id, pk, link=None):
        return self.client.ReadItem("%s/docs/%s" % (link or self.link, doc_id), {"partitionKey": pk})

    def assertMissing(self, doc_id, pk, link=None):
        self.assertFailure(lambda: self.read(doc_id, pk, link), 404)

    def assertHeaderIsSum(self, headers, results):
        self.assertCharge(headers["x-ms-request-charge"], round2(sum(r["requestCharge"] for r in results)))

    # -- tests --------------------------------------------------------------------------------

    def test_every_operation_type(self):
        pk = uid("p")
        c = self.client
        read_me = c.CreateItem(self.link, {"id": "read-me", "pk": pk, "n": 1})
        c.CreateItem(self.link, {"id": "replace-me", "pk": pk, "v": 1})
        delete_me = c.CreateItem(self.link, {"id": "delete-me", "pk": pk})
        c.CreateItem(self.link, {"id": "patch-me", "pk": pk, "n": 1})
        ops = [
            {"operationType": "Create", "resourceBody": {"id": "created", "pk": pk, "tags": ["a"]}},
            {"operationType": "Read", "id": "read-me"},
            {"operationType": "Replace", "id": "replace-me", "resourceBody": {"id": "replace-me", "pk": pk, "v": 2}},
            {"operationType": "Upsert", "resourceBody": {"id": "upserted", "pk": pk}},
            {"operationType": "Upsert", "resourceBody": {"id": "read-me", "pk": pk, "n": 2}},
            {"operationType": "Delete", "id": "delete-me"},
            {"operationType": "Patch", "id": "patch-me",
             "resourceBody": {"operations": [{"op": "incr", "path": "/n", "value": 4}]}},
        ]
        status, results, headers = self.batch(ops, pk)
        self.assertEqual(status, 200)
        self.assertEqual([r["statusCode"] for r in results], [201, 200, 200, 201, 200, 204, 200])
        self.assertEqual(headers["x-ms-item-count"], "7")
        created, read, replaced, upserted, upserted_old, deleted, patched = results
        self.assertEqual(list(created["resourceBody"].keys()), ["id", "pk", "tags"] + SYSTEM)
        self.assertEqual(read["resourceBody"], read_me)
        self.assertEqual(replaced["resourceBody"]["v"], 2)
        self.assertEqual(patched["resourceBody"]["n"], 5)
        self.assertNotIn("resourceBody", deleted)
        for r in (created, read, replaced, upserted, upserted_old, patched):
            self.assertEqual(r["eTag"], r["resourceBody"]["_etag"])
        self.assertCharge(created["requestCharge"], create_charge(created["resourceBody"]))
        self.assertCharge(read["requestCharge"], read_charge(read["resourceBody"]))
        self.assertCharge(replaced["requestCharge"], replace_charge(replaced["resourceBody"]))
        self.assertCharge(upserted["requestCharge"], create_charge(upserted["resourceBody"]))
        self.assertCharge(upserted_old["requestCharge"], replace_charge(upserted_old["resourceBody"]))
        self.assertCharge(deleted["requestCharge"], delete_charge(delete_me))
        self.assertCharge(patched["requestCharge"], replace_charge(patched["resourceBody"]))
        self.assertHeaderIsSum(headers, results)
        self.assertEqual(self.read("created", pk), created["resourceBody"])
        self.assertEqual(self.read("read-me", pk)["n"], 2)
        self.assertMissing("delete-me", pk)

    def test_failure_rolls_back_everything(self):
        pk = uid("p")
        self.client.CreateItem(self.link, {"id": "dup", "pk": pk})
        status, results, headers = self.batch([
            {"operationType": "Create", "resourceBody": {"id": "before", "pk": pk}},
            {"operationType": "Upsert", "resourceBody": {"id": "dup", "pk": pk, "changed": True}},
            {"operationType": "Create", "resourceBody": {"id": "dup", "pk": pk}},
            {"operationType": "Create", "resourceBody": {"id": "after", "pk": pk}},
        ], pk)
        self.assertEqual(status, 207)
        self.assertEqual([r["statusCode"] for r in results], [424, 424, 409, 424])
        for r in results:
            self.assertEqual(sorted(r.keys()), ["requestCharge", "statusCode"])
        self.assertNotIn("x-ms-substatus", headers)
        self.assertCharge(results[2]["requestCharge"], REJECTED_WRITE)
        self.assertCharge(results[3]["requestCharge"], 0)
        self.assertHeaderIsSum(headers, results)
        self.assertMissing("before", pk)
        self.assertMissing("after", pk)
        self.assertNotIn("changed", self.read("dup", pk))
        # the create that ran before the failure kept its own charge
        self.client.CreateItem(self.link, {"id": "before", "pk": pk})
        self.assertCharge(results[0]["requestCharge"], self.charge())

    def test_document_of_another_partition_key(self):
        pk = uid("p")
        status, results, headers = self.batch([
            {"operationType": "Create", "resourceBody": {"id": "ok", "pk": pk}},
            {"operationType": "Create", "resourceBody": {"id": "bad", "pk": "zzz"}},
        ], pk)
        self.assertEqual(status, 207)
        self.assertEqual(headers.get("x-ms-substatus"), "1001")
        self.assertEqual(results[0]["statusCode"], 424)
        self.assertEqual(results[1], {"statusCode": 400, "requestCharge": results[1]["requestCharge"]})
        self.assertCharge(results[1]["requestCharge"], REJECTED_WRITE)
        self.assertMissing("ok", pk)

    def test_conditions_and_reads(self):
        pk = uid("p")
        doc = self.client.CreateItem(self.link, {"id": "c", "pk": pk, "v": 1})
        status, results, _ = self.batch([
            {"operationType": "Create", "resourceBody": {"id": "x", "pk": pk}},
            {"operationType": "Replace", "id": "c", "resourceBody": {"id": "c", "pk": pk, "v": 2},
             "ifMatch": '"stale"'},
            {"operationType": "Replace", "id": "c", "resourceBody": {"id": "c", "pk": pk, "v": 3}},
        ], pk)
        self.assertEqual(status, 207)
        self.assertEqual([r["statusCode"] for r in results], [424, 412, 424])
        self.assertEqual(self.read("c", pk)["v"], 1)
        status, results, _ = self.batch([
            {"operationType": "Replace", "id": "c", "resourceBody": {"id": "c", "pk": pk, "v": 2},
             "ifMatch": doc["_etag"]},
        ], pk)
        self.assertEqual(status, 200)
        self.assertEqual(self.read("c", pk)["v"], 2)
        status, results, _ = self.batch([
            {"operationType": "Read", "id": "missing"},
            {"operationType": "Read", "id": "c"},
        ], pk)
        self.assertEqual(status, 207)
        self.assertEqual([r["statusCode"] for r in results], [404, 424])
        self.assertCharge(results[0]["requestCharge"], 1.0)

    def test_patch_condition(self):
        pk = uid("p")
        self.client.CreateItem(self.link, {"id": "p", "pk": pk, "set_path": 1, "port": 9000, "move_path": "yes"})
        status, results, _ = self.batch([
            {"operationType": "Patch", "id": "p", "resourceBody": {
                "operations": [{"op": "add", "path": "/color", "value": "red"}],
                "condition": "from c where c.set_path = 0"}},
        ], pk)
        self.assertEqual(status, 207)
        self.assertEqual(results[0]["statusCode"], 412)
        status, results, _ = self.batch([
            {"operationType": "Patch", "id": "p", "resourceBody": {
                "operations": [{"op": "add", "path": "/color", "value": "red"},
                               {"op": "incr", "path": "/port", "value": 5},
                               {"op": "move", "from": "/move_path", "path": "/moved_path"}],
                "condition": "from c where c.set_path = 1"}},
        ], pk)
        self.assertEqual(status, 200)
        body = results[0]["resourceBody"]
        self.assertEqual((body["color"], body["port"], body["moved_path"]), ("red", 9005, "yes"))
        self.assertNotIn("move_path", body)

    def test_limits(self):
        pk = uid("p")
        ops = [{"operationType": "Create", "resourceBody": {"id": "o%d" % i, "pk": pk}} for i in range(101)]
        e, body = self.assertFailure(lambda: self.batch(ops, pk), 400, code="BadRequest")
        self.assertIn("Batch request has more operations than what is supported.", body["message"])
        self.assertMissing("o0", pk)
        # the SDK sends no body at all for an empty list: the JSON text goes as a string
        e, body = self.assertFailure(lambda: self.batch("[]", pk), 400, code="BadRequest")
        self.assertIn("Batch request has no operations.", body["message"])
        status, results, _ = self.batch(ops[:100], pk)
        self.assertEqual(status, 200)
        self.assertEqual(len(results), 100)
        big = [{"operationType": "Create", "resourceBody": {"id": "big%d" % i, "pk": pk, "pad": "x" * (115 * 1024)}}
               for i in range(20)]
        with self.assertRaises(errors.HTTPFailure) as cm:
            self.batch(big, pk)
        self.assertEqual(cm.exception.status_code, 413)
        self.assertEqual(json.loads(cm.exception._http_error_message)["code"], "RequestEntityTooLarge")
        self.assertMissing("big0", pk)

    def test_hierarchical_partition_key(self):
        link, _ = self.new_container_cls({"paths": ["/state", "/city"], "kind": "MultiHash", "version": 2})
        # the v3 SDK writes a one-element header for a scalar; a full key is built by hand
        path = base.GetPathFromLink(link, "docs")
        coll_id = base.GetResourceIdOrFullNameFromLink(link)
        initial = dict(self.client.default_headers)
        initial.update({"x-ms-cosmos-is-batch-request": "True", "x-ms-cosmos-batch-atomic": "True",
                        "x-ms-documentdb-partitionkey": json.dumps(["WA", "Redmond"])})
        headers = base.GetHeaders(self.client, initial, "post", path, coll_id, "docs", {})
        request = request_object._RequestObject("docs", documents._OperationType.Create)
        result, _ = self.client._CosmosClient__Post(path, request, [
            {"operationType": "Create", "resourceBody": {"id": "a", "state": "WA", "city": "Redmond"}},
            {"operationType": "Read", "id": "a"},
        ], headers)
        self.assertEqual(self.last_status(), 200)
        self.assertEqual([r["statusCode"] for r in result], [201, 200])

    def test_non_atomic_continue_on_error(self):
        pk = uid("p")
        self.client.CreateItem(self.link, {"id": "b1", "pk": pk})
        status, results, headers = self.batch([
            {"operationType": "Create", "resourceBody": {"id": "b9", "pk": pk}},
            {"operationType": "Create", "resourceBody": {"id": "b1", "pk": pk}},
            {"operationType": "Create", "resourceBody": {"id": "b10", "pk": pk}},
        ], pk, atomic=False, continue_on_error=True)
        self.assertEqual(status, 207)
        self.assertEqual([r["statusCode"] for r in results], [201, 409, 201])
        self.assertHeaderIsSum(headers, results)
        self.assertEqual(self.read("b9", pk)["id"], "b9")
        self.assertEqual(self.read("b10", pk)["id"], "b10")


if __name__ == "__main__":
    unittest.main()
