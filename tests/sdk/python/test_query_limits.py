"""Issue 19 through the v3 Python SDK, against an emulator started with --query-page-timeout-ms 1
and --query-memory-mb 4: 10,000 AND terms and 50,000 chained NOTs answer 400 (a crash, and 15 s
with 450 MB kept, before); pages cut short by the time budget resume exactly; ORDER BY over a large
JOIN answers 400 past the memory budget; the emulator keeps answering after each."""
import time
import unittest

import azure.cosmos.errors as errors

from harness import EmulatorTestCase, uid


class QueryLimitsTest(EmulatorTestCase):
    emulator_args = ("--query-page-timeout-ms", "1", "--query-memory-mb", "4")

    @classmethod
    def setUpClass(cls):
        super(QueryLimitsTest, cls).setUpClass()
        cls.client.CreateContainer(cls.db_link, {"id": "q", "partitionKey": {"paths": ["/pk"], "kind": "Hash"}})
        cls.link = cls.db_link + "/colls/q"

    def assertHealthy(self):
        doc_id = uid("h")
        self.client.CreateItem(self.link, {"id": doc_id, "pk": "h"})
        self.assertEqual(self.client.ReadItem(self.link + "/docs/" + doc_id, {"partitionKey": "h"})["id"], doc_id)

    def query(self, text, pk="p", max_items=None):
        opts = {"partitionKey": pk}
        if max_items:
            opts["maxItemCount"] = max_items
        return self.client.QueryItems(self.link, text, opts)

    def test_ten_thousand_ands_answer_400(self):
        q = "SELECT * FROM c WHERE c.a = 0" + "".join(" AND c.a = %d" % i for i in range(1, 10000))
        with self.assertRaises(errors.HTTPFailure) as cm:
            list(self.query(q))
        self.assertEqual(cm.exception.status_code, 400)
        self.assertIn("maximum number of 'AND' operators", str(cm.exception))
        self.assertHealthy()

    def test_fifty_thousand_nots_answer_400_quickly(self):
        q = "SELECT * FROM c WHERE " + "NOT " * 50000 + "true"
        t0 = time.time()
        with self.assertRaises(errors.HTTPFailure) as cm:
            list(self.query(q))
        self.assertEqual(cm.exception.status_code, 400)
        self.assertLess(time.time() - t0, 2)
        self.assertHealthy()

    def test_pages_ended_by_time_resume_exactly(self):
        arr = list(range(80))
        for d in range(30):
            self.client.UpsertItem(self.link, {"id": "d%d" % d, "pk": "p", "arr": arr})
        q = "SELECT c.id, a, b FROM c JOIN a IN c.arr JOIN b IN c.arr WHERE a = b AND a % 20 = 0"
        it = self.query(q, max_items=1000)
        rows, pages = [], 0
        while True:
            block = it.fetch_next_block()
            if not block:
                break
            pages += 1
            rows.extend(block)
        expected = [{"id": "d%d" % d, "a": a, "b": a} for d in range(30) for a in (0, 20, 40, 60)]
        self.assertEqual(rows, expected)
        self.assertGreater(pages, 2)

    def test_order_by_over_large_join_answers_400_past_memory_budget(self):
        arr = list(range(200))
        for d in range(5):
            self.client.UpsertItem(self.link, {"id": "m%d" % d, "pk": "m", "arr": arr})
        # Ordered through a FROM subquery over the join, the rows must be sorted: past the budget, 400.
        # (The service refuses ORDER BY over the join's own values.)
        with self.assertRaises(errors.HTTPFailure) as cm:
            list(self.query("SELECT x.id, x.a, x.b FROM (SELECT c.id, a, b FROM c JOIN a IN c.arr JOIN b IN c.arr) AS x "
                            "ORDER BY x.id", pk="m"))
        self.assertEqual(cm.exception.status_code, 400)
        self.assertIn("Query exceeded the maximum allowed memory usage of 4 MB", str(cm.exception))
        # Ordered by a path of the documents, the index is walked: the first page holds 100 rows.
        it = self.query("SELECT c.id, a, b FROM c JOIN a IN c.arr JOIN b IN c.arr ORDER BY c.id", pk="m", max_items=100)
        block = it.fetch_next_block()
        self.assertEqual(len(block), 100)
        self.assertEqual(block[0], {"id": "m0", "a": 0, "b": 0})
        self.assertHealthy()


if __name__ == "__main__":
    unittest.main()
