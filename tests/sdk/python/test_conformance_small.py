"""Small conformance causes (A-G) through the v3 Python SDK (3.1.1), raw signed requests where the
SDK has no API.

- A: legacy indexing policies (the root path "/", Hash/Range/Spatial indexes, lazy mode) are taken
  and read back in the service's current form.
- B: a container whose body names "/_partitionKey" is a normal keyed container.
- C: ttl null on items and defaultTtl null on containers are 400 with the service's message.
- D: invalid partition key paths are 400 with the service's message and position.
- E: a container read with populateQuotaInfo carries the quota/usage headers and the index
  transformation progress.
- F: the all-versions change feed's refusals carry the service's retention sentence.
- G: offers: a malformed offer id is 400; a replace naming another _rid is 400.
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # also runnable as a file path

from harness import EmulatorTestCase, uid  # noqa: E402

TTL_TAIL = ("' is invalid. Ensure to provide a nonzero positive integer less than or equal to '2147483647', "
            "or '-1' which means never expire.")
RETENTION = "You must read the change feed from within the retention period."


class LegacyIndexingPolicyTest(EmulatorTestCase):
    def test_root_path_with_legacy_indexes(self):
        _, coll = self.new_container(indexingPolicy={
            "indexingMode": "Consistent", "automatic": True,
            "includedPaths": [{"path": "/", "indexes": [
                {"kind": "Range", "dataType": "Number", "precision": -1},
                {"kind": "Hash", "dataType": "String", "precision": 3}]}]})
        expected = {"indexingMode": "consistent", "automatic": True, "includedPaths": [{"path": "/*"}],
                    "excludedPaths": [{"path": '/"_etag"/?'}]}
        self.assertEqual(coll["indexingPolicy"], expected)
        self.assertEqual(self.client.ReadContainer(coll["_self"])["indexingPolicy"], expected)

    def test_lazy_and_index_kinds(self):
        _, coll = self.new_container(indexingPolicy={
            "indexingMode": "Lazy", "automatic": False,
            "includedPaths": [{"path": "/a/?", "indexes": [{"kind": "Hash", "dataType": "String", "precision": 3}]},
                              {"path": "/loc/*", "indexes": [{"kind": "Spatial", "dataType": "Point"}]},
                              {"path": "/", "indexes": [{"kind": "Range", "dataType": "String", "precision": -1}]}]})
        policy = coll["indexingPolicy"]
        self.assertEqual(policy["indexingMode"], "consistent")
        self.assertFalse(policy["automatic"])
        self.assertEqual(policy["includedPaths"], [{"path": "/a/?"}, {"path": "/loc/*"}, {"path": "/*"}])


class UnderscorePartitionKeyTest(EmulatorTestCase):
    def test_named_underscore_key_is_normal(self):
        link, coll = self.new_container(partition_key={"paths": ["/_partitionKey"], "kind": "Hash"})
        self.assertEqual(coll["partitionKey"], {"paths": ["/_partitionKey"], "kind": "Hash", "version": 1})
        self.client.CreateItem(link, {"id": "a", "_partitionKey": "x", "v": 1})
        self.assertEqual(self.client.ReadItem(link + "/docs/a", {"partitionKey": "x"})["v"], 1)
        res = self.raw("GET", "/%s/docs/a" % link)
        self.assertRawError(res, 400, "BadRequest", substatus=1001)


class NullTtlTest(EmulatorTestCase):
    def test_item_ttl_null(self):
        link, _ = self.new_container(defaultTtl=-1)
        _, body = self.assertFailure(lambda: self.client.CreateItem(link, {"id": "a", "pk": "p", "ttl": None}),
                                     400, "BadRequest")
        self.assertIn("The input ttl 'null" + TTL_TAIL, body["message"])
        self.client.CreateItem(link, {"id": "b", "pk": "p", "ttl": 10})
        _, body = self.assertFailure(
            lambda: self.client.ReplaceItem(link + "/docs/b", {"id": "b", "pk": "p", "ttl": None}), 400, "BadRequest")
        self.assertIn("The input ttl 'null" + TTL_TAIL, body["message"])

    def test_container_default_ttl_null(self):
        body_def = {"id": uid("c"), "partitionKey": {"paths": ["/pk"], "kind": "Hash"}, "defaultTtl": None}
        _, body = self.assertFailure(lambda: self.client.CreateContainer(self.db_link, body_def), 400, "BadRequest")
        self.assertIn("The input ttl 'null" + TTL_TAIL, body["message"])


class InvalidPartitionKeyPathTest(EmulatorTestCase):
    def test_paths(self):
        for path, pos in (("/id ds", 4), ("/a b", 3), ("/a//b", 3), ("/a/", 3), ("/a/?", 3), ("/a.b", 2)):
            body_def = {"id": uid("c"), "partitionKey": {"paths": [path], "kind": "Hash"}}
            _, body = self.assertFailure(lambda: self.client.CreateContainer(self.db_link, body_def), 400, "BadRequest")
            self.assertIn("The partition key component definition path '%s' could not be accepted, failed near "
                          "position '%d'. Partition key paths must contain only valid characters and not contain a "
                          "trailing slash or wildcard character." % (path, pos), body["message"])


class QuotaInfoTest(EmulatorTestCase):
    def test_populate_quota_info(self):
        link, coll = self.new_container()
        self.client.ReadContainer(link)
        self.assertNotIn("x-ms-documentdb-collection-index-transformation-progress", self.headers())
        for i in range(3):
            self.client.CreateItem(link, {"id": "i%d" % i, "pk": "p"})
        self.client.CreateStoredProcedure(link, {"id": "sp", "body": "function () {}"})
        self.client.CreateTrigger(link, {"id": "tr", "body": "function () {}", "triggerType": "Pre",
                                         "triggerOperation": "All"})
        self.client.ReadContainer(link, {"populateQuotaInfo": True})
        h = self.headers()
        self.assertEqual(h["x-ms-documentdb-collection-index-transformation-progress"], "100")
        self.assertNotIn("x-ms-documentdb-collection-lazy-indexing-progress", h)
        self.assertEqual(h["x-ms-resource-quota"],
                         "functions=25;storedProcedures=100;triggers=25;documentSize=10240;documentsSize=10485760;"
                         "documentsCount=-1;collectionSize=10485760;")
        self.assertEqual(h["x-ms-resource-usage"],
                         "functions=0;storedProcedures=1;triggers=1;documentSize=0;documentsSize=1;documentsCount=3;"
                         "collectionSize=1;")


class AllVersionsRefusalTest(EmulatorTestCase):
    AVAD = {"A-IM": "Full-Fidelity Feed", "x-ms-cosmos-changefeed-wire-format-version": "2021-09-15"}

    def test_refusals(self):
        link, _ = self.new_container(changeFeedPolicy={"retentionDuration": 5})
        self.client.CreateItem(link, {"id": "a", "pk": "p"})
        res = self.raw("GET", "/%s/docs" % link, headers=dict(self.AVAD))
        self.assertRawError(res, 400, "BadRequest")
        self.assertIn(RETENTION, res.json["message"])
        # Without a policy (the account keeps this feed): a start before the container's log, which
        # begins at its first all-versions read, is outside the retention window; from now is served.
        plain, _ = self.new_container()
        self.client.CreateItem(plain, {"id": "a", "pk": "p"})
        res = self.raw("GET", "/%s/docs" % plain, headers=dict(self.AVAD, **{"If-None-Match": '"0"'}))
        self.assertRawError(res, 400, "BadRequest")
        self.assertIn(RETENTION, res.json["message"])
        now = self.raw("GET", "/%s/docs" % plain, headers=dict(self.AVAD, **{"If-None-Match": "*"}))
        self.assertEqual(now.status, 304, now.text)
        ok = self.raw("GET", "/%s/docs" % link, headers=dict(self.AVAD, **{"If-None-Match": "*"}))
        self.assertEqual(ok.status, 304, ok.text)


class OfferTest(EmulatorTestCase):
    def test_malformed_offer_id_and_foreign_rid(self):
        self.new_container()
        offer = list(self.client.ReadOffers())[0]
        self.assertFailure(lambda: self.client.ReadOffer(offer["_self"][:-1] + "x"), 400, "BadRequest")
        self.assertFailure(lambda: self.client.ReadOffer("offers/zzzz/"), 404, "NotFound")
        for rid in ("NotAllowed", "InvalidRid"):
            bad = dict(offer, _rid=rid)
            self.assertFailure(lambda: self.client.ReplaceOffer(bad["_self"], bad), 400, "BadRequest")
        nulls = dict(offer, id=None, _rid=None)
        self.assertFailure(lambda: self.client.ReplaceOffer(nulls["_self"], nulls), 400, "BadRequest")
        good = dict(offer, content=dict(offer["content"], offerThroughput=500))
        self.assertEqual(self.client.ReplaceOffer(good["_self"], good)["content"]["offerThroughput"], 500)


if __name__ == "__main__":
    unittest.main()
