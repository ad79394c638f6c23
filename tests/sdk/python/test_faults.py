"""Fault injection (/_emulator/faults, docs/faults.md) against Debian's azure-cosmos 3.x: which
faults the SDK retries (429) and which it hands to the application as they came."""
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # also runnable as a file path

import azure.cosmos.errors as errors  # noqa: E402

from harness import LOCAL, EmulatorTestCase  # noqa: E402


@unittest.skipUnless(LOCAL, "the emulator's own endpoint")
class FaultTest(EmulatorTestCase):
    @classmethod
    def setUpClass(cls):
        super(FaultTest, cls).setUpClass()
        cls.client.CreateContainer(cls.db_link, {"id": "f", "partitionKey": {"paths": ["/pk"], "kind": "Hash"}})
        cls.link = cls.db_link + "/colls/f"
        for i in range(6):
            cls.client.CreateItem(cls.link, {"id": "i%d" % i, "pk": "k%d" % i, "n": i})

    def setUp(self):
        self.assertEqual(self.raw("DELETE", "/_emulator/faults").status, 204)

    def add_rule(self, rule):
        rule.setdefault("condition", {})["path"] = "/dbs/%s/colls/f/**" % self.db_id
        res = self.raw("POST", "/_emulator/faults", body=rule)
        self.assertEqual(res.status, 201, res.text)

    def hits(self, rule_id):
        rules = self.raw("GET", "/_emulator/faults").json["rules"]
        return [r for r in rules if r["id"] == rule_id][0]["hits"]

    def read(self, i):
        return self.client.ReadItem(self.link + "/docs/i%d" % i, {"partitionKey": "k%d" % i})

    def test_429_is_retried_after_the_retry_after(self):
        self.add_rule({"id": "busy", "condition": {"operationType": "ReadItem"},
                       "result": {"serverErrorType": "TooManyRequests", "retryAfterMs": 150}, "hitLimit": 2})
        started = time.time()
        self.assertEqual(self.read(1)["n"], 1)
        self.assertGreaterEqual(time.time() - started, 0.3)
        self.assertEqual(self.hits("busy"), 2)

    def test_other_faults_reach_the_application(self):
        cases = [("ServiceUnavailable", 503, None), ("Timeout", 408, None), ("RetryWith", 449, None),
                 ("PartitionIsGone", 410, 1002), ("PartitionIsSplitting", 410, 1007)]
        for kind, status, substatus in cases:
            self.add_rule({"id": kind, "condition": {"operationType": "ReadItem"},
                           "result": {"serverErrorType": kind}, "hitLimit": 1})
            with self.assertRaises(errors.HTTPFailure) as cm:
                self.read(2)
            self.assertEqual(cm.exception.status_code, status, kind)
            self.assertEqual(cm.exception.sub_status, substatus, kind)
            self.assertIn("Fault injected by the emulator: rule '%s', %s" % (kind, kind), str(cm.exception))
            self.assertEqual(self.hits(kind), 1)
        self.assertEqual(self.read(2)["n"], 2)

    def test_a_gone_range_fails_the_query(self):
        self.add_rule({"id": "gone", "condition": {"operationType": "QueryItem"},
                       "result": {"serverErrorType": "PartitionIsGone"}, "hitLimit": 1})
        with self.assertRaises(errors.HTTPFailure) as cm:
            list(self.client.QueryItems(self.link, "SELECT * FROM c", {"enableCrossPartitionQuery": True}))
        self.assertEqual((cm.exception.status_code, cm.exception.sub_status), (410, 1002))
        self.assertEqual(len(list(self.client.QueryItems(self.link, "SELECT * FROM c",
                                                         {"enableCrossPartitionQuery": True}))), 6)

    def test_a_delayed_answer_arrives_late(self):
        self.add_rule({"id": "slow", "condition": {"operationType": "ReadItem"},
                       "result": {"serverErrorType": "ResponseDelay", "delayMs": 300}, "hitLimit": 1})
        started = time.time()
        self.assertEqual(self.read(3)["n"], 3)
        self.assertGreaterEqual(time.time() - started, 0.3)


if __name__ == "__main__":
    unittest.main()
