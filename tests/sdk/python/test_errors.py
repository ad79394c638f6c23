"""Bad input on item routes (raw signed requests and the v3 SDK)."""
import unittest

from harness import LOCAL, REJECTED_WRITE, EmulatorTestCase, doc_path, pk_header, uid

PAYLOAD_INVALID = r"^Message: \{\"Errors\":\[\"The request payload is invalid\. Ensure to provide a valid request " \
                  r"payload\.\"\]\}"
MAX = 2 * 1024 * 1024


class ErrorTest(EmulatorTestCase):
    @classmethod
    def setUpClass(cls):
        super(ErrorTest, cls).setUpClass()
        cls.client.CreateContainer(cls.db_link, {"id": "e", "partitionKey": {"paths": ["/pk"], "kind": "Hash"}})
        cls.link = cls.db_link + "/colls/e"

    def post(self, body, headers=None, coll="e"):
        if headers is None:
            headers = {"x-ms-documentdb-partitionkey": pk_header("p")}
        return self.raw("POST", doc_path(self.db_id, coll), headers, body)

    def test_malformed_json(self):
        for body in ('{"id":"x","pk":"p"', "{id:'x'}", '{"id":"x","pk":"p"} trailing', "", '{"a":NaN}'):
            res = self.post(body)
            self.assertRawError(res, 400, "BadRequest", message=PAYLOAD_INVALID)
            self.assertCharge(res.headers["x-ms-request-charge"], REJECTED_WRITE)

    def test_invalid_utf8(self):
        res = self.post(b'{"id":"\xff\xfe","pk":"p"}')
        self.assertRawError(res, 400, "BadRequest", message=PAYLOAD_INVALID)

    def test_body_not_an_object(self):
        for body in ("[]", '[{"id":"x","pk":"p"}]', '"s"', "1", "null"):
            self.assertRawError(self.post(body), 400, "BadRequest", message=PAYLOAD_INVALID)

    def test_missing_id(self):
        res = self.post({"pk": "p"})
        self.assertRawError(res, 400, "BadRequest",
                            message=r"The input content is invalid because the required properties - 'id; ' - are "
                                    r"missing\.")
        # the SDK generates one unless told not to
        doc = self.client.CreateItem(self.link, {"pk": "p"})
        self.assertRegex(doc["id"], r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
        self.assertFailure(lambda: self.client.CreateItem(self.link, {"pk": "p"}, {
            "disableAutomaticIdGeneration": True}), 400, "BadRequest")

    def test_id_not_a_string_or_empty(self):
        for body in ({"id": 5, "pk": "p"}, {"id": ["x"], "pk": "p"}, {"id": "", "pk": "p"}):
            self.assertRawError(self.post(body), 400, "BadRequest")

    def test_id_with_reserved_characters(self):
        # Item ids may hold them (the service creates such items: Microsoft's Go SDK emulator tests,
        # TestItemIdEncodingRoutingGW); database and container names may not.
        for doc_id in ("a/b", "a\\b", "a?b", "a#b"):
            res = self.post({"id": doc_id, "pk": "p"})
            self.assertEqual(res.status, 201, res.text)
            res = self.raw("POST", "/dbs", {}, {"id": doc_id})
            self.assertRawError(res, 400, "BadRequest", message=r"The input name '.*' is invalid" if LOCAL else None)

    def test_id_over_1023_bytes(self):
        self.assertRawError(self.post({"id": "x" * 1024, "pk": "p"}), 400, "BadRequest")

    def test_item_over_2mb_is_413(self):
        self.assertFailure(lambda: self.client.CreateItem(self.link, {"id": uid("big"), "pk": "p",
                                                                      "blob": "x" * (MAX + 1)}),
                           413, "RequestEntityTooLarge", message=r"Request size is too large", charge=0)

    def test_missing_partition_key_header(self):
        res = self.post({"id": uid("x"), "pk": "p"}, headers={})
        self.assertRawError(res, 400, "BadRequest", substatus=1001,
                            message=r"The partition key supplied in x-ms-partitionkey header has fewer components "
                                    r"than defined in the the collection\.")
        self.assertFailure(lambda: self.client.ReadItem(self.link + "/docs/x"), 400, "BadRequest", substatus=1001)

    def test_partition_key_header_disagrees_with_body(self):
        for header, pk in ((pk_header("q"), "p"), (pk_header(5), "5"), ("[{}]", None)):
            res = self.post({"id": uid("mm"), "pk": pk}, headers={"x-ms-documentdb-partitionkey": header})
            self.assertRawError(res, 400, "BadRequest", substatus=1001,
                                message=r"PartitionKey extracted from document doesn't match the one specified in "
                                        r"the header\.")
            self.assertCharge(res.headers["x-ms-request-charge"], REJECTED_WRITE)
        # through the SDK: an explicit partitionKey option that disagrees with the document
        self.assertFailure(lambda: self.client.CreateItem(self.link, {"id": uid("mm"), "pk": "p"},
                                                          {"partitionKey": "other"}), 400, "BadRequest",
                           substatus=1001)

    def test_malformed_partition_key_header(self):
        for header in ("p", "[p]", '["p"', "[[1]]"):
            res = self.post({"id": uid("x"), "pk": "p"}, headers={"x-ms-documentdb-partitionkey": header})
            self.assertRawError(res, 400, "BadRequest", substatus=1001)

    def test_unknown_resources_are_404(self):
        self.assertFailure(lambda: self.client.CreateItem("dbs/%s/colls/e" % uid("nodb"), {"id": "x", "pk": "p"},
                                                          {"partitionKey": "p"}), 404, "NotFound")
        self.assertFailure(lambda: self.client.ReadItem(self.link + "/docs/" + uid("nope"), {"partitionKey": "p"}),
                           404, "NotFound")
        res = self.post({"id": "x", "pk": "p"}, coll=uid("nocoll"))
        self.assertRawError(res, 404, "NotFound", message=r"Resource Not Found")

    def test_duplicate_is_409(self):
        doc_id = uid("dup")
        self.assertEqual(self.post({"id": doc_id, "pk": "p", "v": 1}).status, 201)
        res = self.post({"id": doc_id, "pk": "p", "v": 2})
        self.assertRawError(res, 409, "Conflict")
        self.assertEqual(self.client.ReadItem(self.link + "/docs/" + doc_id, {"partitionKey": "p"})["v"], 1)

    def test_error_bodies_carry_the_activity_id(self):
        res = self.post("{")
        self.assertEqual(res.headers["content-type"], "application/json")
        self.assertEqual(sorted(res.json.keys()), ["code", "message"])
        self.assertTrue(res.json["message"].endswith("\r\nActivityId: " + res.headers["x-ms-activity-id"]))


if __name__ == "__main__":
    unittest.main()
