"""The Python SDK (v3) over HTTPS: the emulator's certificate is downloaded from
/_explorer/emulator.pem and trusted through the SDK's SSLConfiguration, then every resource type,
a query, the change feed, a batch (a signed request: the v3 SDK has no batch) and a stored
procedure go over TLS; an untrusted certificate is refused.

The v3 SDK never verifies certificates for the hosts localhost and 127.0.0.1, so the emulator
listens on 127.0.0.2 (with that address in its certificate) and verification is real."""
import os
import tempfile
import unittest
import warnings

import requests
import urllib3
from azure.cosmos import cosmos_client, documents, errors

from harness import LOCAL, raw_request, start_emulator, uid

HOST = "127.0.0.2"


@unittest.skipUnless(LOCAL, "needs the local binary")
class HttpsTest(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        warnings.simplefilter("ignore", ResourceWarning)
        cls.emu = start_emulator(["--host", HOST, "--cert-san", HOST], scheme="https")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", urllib3.exceptions.InsecureRequestWarning)
                got = requests.get(cls.emu.endpoint + "_explorer/emulator.pem", verify=False)
            assert got.status_code == 200, got.text
            cls.tmp = tempfile.mkdtemp(prefix="https-test-")
            cls.pem = os.path.join(cls.tmp, "emulator.pem")
            with open(cls.pem, "w") as f:
                f.write(got.text)
            policy = documents.ConnectionPolicy()
            policy.SSLConfiguration = documents.SSLConfiguration()
            policy.SSLConfiguration.SSLCaCerts = cls.pem
            cls.client = cosmos_client.CosmosClient(cls.emu.endpoint, {"masterKey": cls.emu.key}, policy)
            cls.db_link = "dbs/" + uid("db")
            cls.client.CreateDatabase({"id": cls.db_link[4:]})
        except Exception:
            cls.emu.stop()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.client._requests_session.close()
        cls.emu.stop()

    def container(self, name, throughput=400):
        return self.client.CreateContainer(
            self.db_link, {"id": name, "partitionKey": {"paths": ["/pk"], "kind": "Hash"}},
            {"offerThroughput": throughput})

    def test_endpoint_is_https_and_the_account_sends_the_sdk_back_to_it(self):
        self.assertRegex(self.emu.endpoint, r"^https://127\.0\.0\.2:\d+/$")
        account = self.client.GetDatabaseAccount()
        self.assertEqual(account.WritableLocations, [{"name": "South Central US",
                                                      "databaseAccountEndpoint": self.emu.endpoint}])
        self.assertEqual(account.ReadableLocations, account.WritableLocations)

    def test_items_crud_and_query(self):
        self.container("items", 12000)
        link = self.db_link + "/colls/items/"
        for i in range(6):
            self.client.CreateItem(link, {"id": "i%d" % i, "pk": "p%d" % (i % 3), "n": i})
        doc = self.client.ReadItem(link + "docs/i4", {"partitionKey": "p1"})
        self.assertEqual(doc["n"], 4)
        self.client.UpsertItem(link, {"id": "i4", "pk": "p1", "n": 40})
        self.client.ReplaceItem(link + "docs/i4", {"id": "i4", "pk": "p1", "n": 41}, {"partitionKey": "p1"})
        got = list(self.client.QueryItems(link, "SELECT VALUE c.n FROM c WHERE c.n >= 3 ORDER BY c.n",
                                          {"enableCrossPartitionQuery": True}))
        self.assertEqual(got, [3, 5, 41])
        self.client.DeleteItem(link + "docs/i4", {"partitionKey": "p1"})
        self.assertEqual(len(list(self.client.ReadItems(link, {"enableCrossPartitionQuery": True}))), 5)
        ranges = list(self.client._ReadPartitionKeyRanges(link))
        self.assertEqual(len(ranges), 2)

    def test_change_feed(self):
        link = self.container("feed")["_self"]
        self.client.CreateItem(link, {"id": "f1", "pk": "x"})
        self.client.CreateItem(link, {"id": "f2", "pk": "x"})
        got = list(self.client.QueryItemsChangeFeed(link, {"partitionKeyRangeId": "0", "isStartFromBeginning": True}))
        self.assertEqual([d["id"] for d in got], ["f1", "f2"])

    def test_batch_as_a_signed_request(self):
        self.container("batch")
        path = "/%s/colls/batch/docs" % self.db_link
        res = raw_request(self.emu, "POST", path, {
            "x-ms-cosmos-is-batch-request": "True", "x-ms-cosmos-batch-atomic": "True",
            "x-ms-documentdb-partitionkey": '["k"]', "x-ms-cosmos-batch-continue-on-error": "False",
        }, [{"operationType": "Create", "resourceBody": {"id": "b1", "pk": "k"}},
            {"operationType": "Read", "id": "b1"}], verify=self.pem)
        self.assertEqual(res.status, 200, res.text)
        self.assertEqual([r["statusCode"] for r in res.json], [201, 200])

    def test_stored_procedure_trigger_and_udf(self):
        link = self.container("scripts")["_self"]
        sproc = self.client.CreateStoredProcedure(link, {
            "id": "hello", "body": "function hello(n) { getContext().getResponse().setBody('hi ' + n); }"})
        self.assertEqual(self.client.ExecuteStoredProcedure(sproc["_self"], ["you"], {"partitionKey": "k"}), "hi you")
        self.client.CreateTrigger(link, {
            "id": "stamp", "triggerType": "Pre", "triggerOperation": "Create",
            "body": "function stamp() { var r = getContext().getRequest(); var d = r.getBody(); d.stamped = 1; "
                    "r.setBody(d); }"})
        made = self.client.CreateItem(link, {"id": "t1", "pk": "k"}, {"preTriggerInclude": "stamp"})
        self.assertEqual(made["stamped"], 1)
        self.client.CreateUserDefinedFunction(link, {"id": "twice", "body": "function twice(x) { return 2 * x; }"})
        got = list(self.client.QueryItems(link, "SELECT VALUE udf.twice(21) FROM c", {"partitionKey": "k"}))
        self.assertEqual(got, [42])

    def test_users_permissions_offers_and_conflicts(self):
        coll = self.container("perm")
        user = self.client.CreateUser(self.db_link, {"id": "bob"})
        perm = self.client.CreatePermission(user["_self"], {
            "id": "all", "permissionMode": "All", "resource": coll["_self"]})
        self.assertTrue(perm["_token"])
        offers = list(self.client.QueryOffers("SELECT * FROM root r WHERE r.offerResourceId = '%s'" % coll["_rid"]))
        self.assertEqual(offers[0]["content"]["offerThroughput"], 400)
        self.assertEqual(list(self.client.ReadConflicts(coll["_self"])), [])

    def test_an_untrusted_certificate_is_refused(self):
        # The client reads the account when it is made: that first request is refused.
        with self.assertRaises(requests.exceptions.SSLError) as caught:
            cosmos_client.CosmosClient(self.emu.endpoint, {"masterKey": self.emu.key}, documents.ConnectionPolicy())
        self.assertIn("CERTIFICATE_VERIFY_FAILED", str(caught.exception))
        self.assertIn("self-signed certificate", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
