"""Read feed (ReadItems) with paging through the v3 Python SDK."""
import unittest

from harness import LOCAL, EmulatorTestCase, doc_path, feed_charge, pk_header


class FeedTest(EmulatorTestCase):
    @classmethod
    def setUpClass(cls):
        super(FeedTest, cls).setUpClass()
        cls.client.CreateContainer(cls.db_link, {"id": "feed", "partitionKey": {"paths": ["/pk"], "kind": "Hash"}})
        cls.link = cls.db_link + "/colls/feed"
        cls.created = [cls.client.CreateItem(cls.link, {"id": "i%d" % i, "pk": "even" if i % 2 == 0 else "odd",
                                                        "n": i}) for i in range(7)]

    def test_read_items_returns_everything_in_creation_order(self):
        docs = list(self.client.ReadItems(self.link))
        self.assertEqual(docs, self.created)

    def test_paging_with_max_item_count(self):
        it = self.client.ReadItems(self.link, {"maxItemCount": 3})
        pages, charges, continuations = [], [], []
        while True:
            block = it.fetch_next_block()
            if not block:
                break
            pages.append(block)
            h = self.headers()
            charges.append(float(h["x-ms-request-charge"]))
            continuations.append(h.get("x-ms-continuation"))
            self.assertEqual(h["x-ms-item-count"], str(len(block)))
            self.assertSessionToken(h["x-ms-session-token"])
            self.assertCharge(charges[-1], feed_charge(block))
            self.assertLessEqual(len(pages), 3)
        self.assertEqual([len(p) for p in pages], [3, 3, 1])
        self.assertEqual([d for p in pages for d in p], self.created)
        self.assertIsNotNone(continuations[0])
        self.assertIsNotNone(continuations[1])
        self.assertIsNone(continuations[2])

    def test_iterating_pages_transparently(self):
        docs = list(self.client.ReadItems(self.link, {"maxItemCount": 2}))
        self.assertEqual(docs, self.created)
        self.assertEqual(self.client.statuses[-4:], [200, 200, 200, 200])

    def test_raw_continuation_resumes_the_feed(self):
        # (the v3 SDK drops a user-supplied 'continuation' option for read feeds, so this is raw)
        first = self.raw("GET", doc_path(self.db_id, "feed"), {"x-ms-max-item-count": "4"})
        token = first.headers["x-ms-continuation"]
        rest = self.raw("GET", doc_path(self.db_id, "feed"), {"x-ms-max-item-count": "4", "x-ms-continuation": token})
        self.assertNotIn("x-ms-continuation", rest.headers)
        self.assertEqual(first.json["Documents"] + rest.json["Documents"], self.created)

    def test_partition_key_option_filters_the_feed(self):
        docs = list(self.client.ReadItems(self.link, {"partitionKey": "odd"}))
        self.assertEqual([d["id"] for d in docs], ["i1", "i3", "i5"])
        docs = list(self.client.ReadItems(self.link, {"partitionKey": "even", "maxItemCount": 2}))
        self.assertEqual([d["id"] for d in docs], ["i0", "i2", "i4", "i6"])

    def test_raw_feed_shape(self):
        res = self.raw("GET", doc_path(self.db_id, "feed"), {"x-ms-documentdb-partitionkey": pk_header("odd")})
        self.assertEqual(res.status, 200)
        self.assertEqual(list(res.json.keys()), ["_rid", "Documents", "_count"])
        self.assertEqual(res.json["_count"], 3)
        self.assertCharge(res.headers["x-ms-request-charge"], feed_charge(res.json["Documents"]))

    def test_empty_feed(self):
        link, _ = self.new_container()
        self.assertEqual(list(self.client.ReadItems(link)), [])
        self.assertLastCharge(2.7)

    @unittest.skipUnless(LOCAL, "emulator message")
    def test_invalid_continuation_is_400(self):
        res = self.raw("GET", doc_path(self.db_id, "feed"), {"x-ms-continuation": "bogus"})
        self.assertRawError(res, 400, "BadRequest", message=r"Invalid Continuation Token")


if __name__ == "__main__":
    unittest.main()
