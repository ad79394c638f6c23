"""Partition splits (docs/faults.md, "Splits") with Debian's azure-cosmos 3.x, as far as its API goes:
it has no handling of 410 of its own, so the tests drive the ranges as its users do: the change
feed by range with the etag it returned (given to each child after a split), cross-partition
queries started after a split, point operations throughout, and the service's own trigger (the
throughput raised from 400 to 11,000 RU/s, as the SDK's own split tests do)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # also runnable as a file path

import azure.cosmos.errors as errors  # noqa: E402

from harness import LOCAL, EmulatorTestCase, uid  # noqa: E402


@unittest.skipUnless(LOCAL, "the emulator's own endpoint")
class SplitTest(EmulatorTestCase):
    def make(self, n=40):
        coll = uid("c")
        res = self.raw("POST", "/dbs/%s/colls" % self.db_id,
                       headers={"x-cosmos-emulator-partition-count": "2"},
                       body={"id": coll, "partitionKey": {"paths": ["/pk"], "kind": "Hash", "version": 2}})
        self.assertEqual(res.status, 201, res.text)
        link = "%s/colls/%s" % (self.db_link, coll)
        for i in range(n):
            self.client.CreateItem(link, {"id": "i%02d" % i, "pk": "k%02d" % i, "n": i})
        return coll, link

    def split(self, coll, body):
        res = self.raw("POST", "/_emulator/containers/%s/%s/split" % (self.db_id, coll), body=body)
        self.assertEqual(res.status, 200, res.text)
        return res.json

    def ranges(self, link):
        return [(r["id"], r["parents"]) for r in self.client._ReadPartitionKeyRanges(link)]

    def feed(self, link, rng, etag=None):
        """Every change of range `rng` after `etag`, and the etag to go on from."""
        options = {"partitionKeyRangeId": rng, "maxItemCount": 7}
        if etag:
            options["continuation"] = etag
        docs = list(self.client.QueryItemsChangeFeed(link, options))
        return docs, self.client.last_response_headers["etag"]

    def test_the_change_feed_of_a_range_goes_on_in_its_children_with_its_etag(self):
        coll, link = self.make()
        before, etag = self.feed(link, "0")
        self.assertTrue(0 < len(before) < 40)
        made = self.split(coll, {"partitionKeyRangeId": "0"})
        self.assertEqual([(s["parent"], s["children"]) for s in made["splits"]], [("0", ["2", "3"])])
        self.assertEqual(self.ranges(link), [("2", ["0"]), ("3", ["0"]), ("1", [])])
        with self.assertRaises(errors.HTTPFailure) as cm:
            self.feed(link, "0", etag)
        self.assertEqual((cm.exception.status_code, cm.exception.sub_status), (410, 1002))
        for i in range(40, 70):
            self.client.CreateItem(link, {"id": "i%02d" % i, "pk": "k%02d" % i, "n": i})
        old = before[0]
        old["n"] = 1000
        self.client.ReplaceItem("%s/docs/%s" % (link, old["id"]), old, {"partitionKey": old["pk"]})
        after = []
        for child in ("2", "3"):
            docs, _ = self.feed(link, child, etag)
            after += [d["id"] for d in docs]
        # What changed in range 0's span since the etag: the items created there and the replaced one.
        changed = [d["id"] for d in self.feed(link, "2")[0] + self.feed(link, "3")[0] if d["n"] >= 40]
        self.assertIn(old["id"], changed)
        self.assertEqual(sorted(after), sorted(changed))  # nothing lost, nothing twice
        self.assertEqual(len(after), len(set(after)))

    def test_items_queries_and_point_operations_after_a_split(self):
        coll, link = self.make()
        self.split(coll, {})
        self.assertEqual([r[0] for r in self.ranges(link)], ["2", "3", "4", "5"])
        for i in range(40):
            self.assertEqual(self.client.ReadItem("%s/docs/i%02d" % (link, i), {"partitionKey": "k%02d" % i})["n"], i)
        rows = list(self.client.QueryItems(link, "SELECT VALUE c.n FROM c",
                                           {"enableCrossPartitionQuery": True, "maxItemCount": 6}))
        self.assertEqual(sorted(rows), list(range(40)))
        one = list(self.client.QueryItems(link, "SELECT VALUE c.id FROM c", {"partitionKey": "k07"}))
        self.assertEqual(one, ["i07"])
        self.client.UpsertItem(link, {"id": "i07", "pk": "k07", "n": 70})
        self.assertEqual(self.client.ReadItem(link + "/docs/i07", {"partitionKey": "k07"})["n"], 70)

    def test_raising_the_throughput_to_11000_splits_and_the_offer_is_not_pending(self):
        coll = uid("t")
        c = self.client.CreateContainer(self.db_link, {"id": coll, "partitionKey": {"paths": ["/pk"], "kind": "Hash"}},
                                        {"offerThroughput": 400})
        link = "%s/colls/%s" % (self.db_link, coll)
        self.client.CreateItem(link, {"id": "a", "pk": "a"})
        self.assertEqual(self.ranges(link), [("0", [])])
        offer = [o for o in self.client.ReadOffers() if o["offerResourceId"] == c["_rid"]][0]
        offer["content"]["offerThroughput"] = 11000
        replaced = self.client.ReplaceOffer(offer["_self"], offer)
        self.assertEqual(replaced["content"]["offerThroughput"], 11000)
        self.assertFalse(replaced["content"].get("isOfferReplacePending", False))
        self.assertEqual(self.ranges(link), [("1", ["0"]), ("2", ["0"])])
        self.assertEqual(self.client.ReadItem(link + "/docs/a", {"partitionKey": "a"})["id"], "a")


if __name__ == "__main__":
    unittest.main()
