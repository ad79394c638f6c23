"""JSON fidelity through the v3 Python SDK: property order, numbers (Python ints are exact), strings, ids."""
import json
import unittest

from harness import EmulatorTestCase, create_charge, doc_path, pk_header, uid

SYSTEM = ["_rid", "_self", "_etag", "_attachments", "_ts"]


class FidelityTest(EmulatorTestCase):
    @classmethod
    def setUpClass(cls):
        super(FidelityTest, cls).setUpClass()
        cls.client.CreateContainer(cls.db_link, {"id": "f", "partitionKey": {"paths": ["/pk"], "kind": "Hash"}})
        cls.link = cls.db_link + "/colls/f"

    def doc(self, doc_id):
        return "%s/docs/%s" % (self.link, doc_id)

    def roundtrip(self, body):
        created = self.client.CreateItem(self.link, body)
        read = self.client.ReadItem(self.doc(body["id"]), {"partitionKey": body.get("pk")})
        self.assertEqual(read, created)
        return read

    def test_property_order(self):
        body = {"zeta": 1, "id": uid("o"), "alpha": {"z": 1, "a": 2, "m": {"y": 0, "b": 1}}, "pk": "p",
                "middle": [{"b": 1, "a": 2}]}
        doc = self.roundtrip(body)
        self.assertEqual(list(doc.keys()), ["zeta", "id", "alpha", "pk", "middle"] + SYSTEM)
        self.assertEqual(list(doc["alpha"].keys()), ["z", "a", "m"])
        self.assertEqual(list(doc["alpha"]["m"].keys()), ["y", "b"])
        self.assertEqual(list(doc["middle"][0].keys()), ["b", "a"])

    def test_numbers(self):
        nums = {"one": 1, "half": 1.5, "big": 1e21, "exact": 2 ** 53 + 1, "neg_exact": -(2 ** 53 + 1),
                "i64max": 2 ** 63 - 1, "neg": -42, "small": 1e-7, "dec": 0.1, "third": 1 / 3.0, "zero": 0,
                "huge": 1.7976931348623157e308}
        body = dict({"id": uid("n"), "pk": "p"}, **nums)
        doc = self.roundtrip(body)
        for k, v in nums.items():
            self.assertEqual(doc[k], v, k)
            self.assertEqual(type(doc[k]), type(v), k)
        # wire text
        res = self.raw("GET", doc_path(self.db_id, "f", body["id"]), {"x-ms-documentdb-partitionkey": pk_header("p")})
        self.assertIn('"one":1,"half":1.5,"big":1e+21,"exact":9007199254740993,"neg_exact":-9007199254740993,'
                      '"i64max":9223372036854775807,', res.text)

    def test_integer_valued_floats_come_back_as_integers(self):
        # the service prints numbers like JavaScript: 2.0 -> 2
        body = {"id": uid("f"), "pk": "p", "two": 2.0}
        doc = self.roundtrip(body)
        self.assertEqual(doc["two"], 2)
        self.assertIsInstance(doc["two"], int)

    def test_strings(self):
        samples = {"latin": u"h\u00e9llo", "cjk": u"\u65e5\u672c\u8a9e", "emoji": u"\U0001F600 \U0001F44D\U0001F3FD",
                   "escapes": 'q " b \\ s / t \t n \n r \r', "controls": u"\u0000\u0001\u001f",
                   "separators": u"\u2028\u2029", "empty": ""}
        body = dict({"id": uid("s"), "pk": "p"}, **samples)
        doc = self.roundtrip(body)
        for k, v in samples.items():
            self.assertEqual(doc[k], v, k)
        # the SDK sends \u escapes; the service stores and answers UTF-8
        res = self.raw("GET", doc_path(self.db_id, "f", body["id"]), {"x-ms-documentdb-partitionkey": pk_header("p")})
        self.assertIn(u'"cjk":"\u65e5\u672c\u8a9e"'.encode("utf-8"), res.content)
        self.assertIn(b'"controls":"\\u0000\\u0001\\u001f"', res.content)

    def test_charges_follow_the_stored_size(self):
        body = {"id": uid("c"), "pk": u"\u00e9", "s": u"\u65e5" * 100, "n": [1, 2, {"a": None}]}
        doc = self.client.CreateItem(self.link, body)
        size = int(self.headers()["Content-Length"])
        self.assertEqual(size, len(json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode("utf-8")))
        self.assertLastCharge(create_charge(doc, size))

    def test_ids(self):
        ids = ["with space", "plus+sign", "amp&and=eq", "semi;colon,comma", "quote'\"",
               u"\u00fcn\u00efc\u00f6d\u00e9", u"\u65e5\u672c", u"emoji\U0001F600", "tilde~star*()", "a" * 255,
               "  leading"]
        for doc_id in ids:
            created = self.client.CreateItem(self.link, {"id": doc_id, "pk": "ids", "v": 1})
            self.assertEqual(created["id"], doc_id)
            link = self.doc(doc_id)
            self.assertEqual(self.client.ReadItem(link, {"partitionKey": "ids"})["id"], doc_id)
            self.assertEqual(self.client.ReplaceItem(link, {"id": doc_id, "pk": "ids", "v": 2})["v"], 2)
            self.client.UpsertItem(self.link, {"id": doc_id, "pk": "ids", "v": 3})
            self.assertEqual(self.last_status(), 200, doc_id)
            self.client.DeleteItem(link, {"partitionKey": "ids"})
            self.assertEqual(self.last_status(), 204, doc_id)

    def test_sdk_refuses_ids_it_cannot_address(self):
        for doc_id in ("a/b", "a\\b", "a?b", "a#b", "trailing "):
            with self.assertRaises(ValueError):
                self.client.CreateItem(self.link, {"id": doc_id, "pk": "p"})

    def test_non_ascii_partition_keys(self):
        for pk in (u"\u00e9", u"\u65e5\u672c", u"\U0001F600", "a b"):
            doc_id = uid("upk")
            self.client.CreateItem(self.link, {"id": doc_id, "pk": pk})
            self.assertEqual(self.client.ReadItem(self.doc(doc_id), {"partitionKey": pk})["pk"], pk)

    def test_structure(self):
        body = {"id": uid("st"), "pk": "p", "eo": {}, "ea": [], "n": None, "t": True, "f": False,
                "nested": [[1, [2, [3, []]]], {"a": [{}]}]}
        self.roundtrip(body)

    def test_nesting_limit(self):
        def nested(depth):
            inner = {}
            for _ in range(depth - 2):
                inner = {"d": inner}
            return {"id": uid("deep"), "pk": "p", "d": inner}
        self.roundtrip(nested(128))
        self.assertFailure(lambda: self.client.CreateItem(self.link, nested(129)), 400, "BadRequest",
                           message=r"nesting depth exceeds the maximum of 128")


if __name__ == "__main__":
    unittest.main()
