"""SQL queries through the v3 Python SDK (QueryItems): paging with fetch_next_block, cross-partition
ORDER BY / TOP / value aggregates (the v3 SDK's own pipeline, after the gateway's 400/1004 with the
query plan), OFFSET LIMIT / GROUP BY / DISTINCT / non-value aggregates scoped to one partition key
(the v3 SDK has no client-side pipeline for them: across partitions it returns the per-range rows
unmerged, against the service as here), parameters, errors. Every expectation is computed in plain
Python from the same deterministic data."""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # also runnable as a file path

from harness import LOCAL, EmulatorTestCase, doc_path  # noqa: E402

PKS = ["alpha", "beta", "gamma", "delta", "epsilon"]
CATS = ["red", "green", "blue"]
N = 40


def make_docs():
    """40 items over 5 partition key values, interleaved in creation order."""
    return [{
        "id": "item-%02d" % i,
        "pk": PKS[(i * 3) % 5],
        "n": i,
        "x": (i * 7) % 11,  # 0..10 with ties
        "f": i / 4.0,  # exact binary fractions
        "cat": CATS[i % 3],
        "tags": ["t%d" % ((i + k) % 5) for k in range(i % 4)],
    } for i in range(N)]


DOCS = make_docs()
SYSTEM = ("_rid", "_self", "_etag", "_attachments", "_ts")


def user_part(doc):
    return {k: v for k, v in doc.items() if k not in SYSTEM}


class QueryTest(EmulatorTestCase):
    @classmethod
    def setUpClass(cls):
        super(QueryTest, cls).setUpClass()
        # Several ORDER BY items need a composite index (same paths, directions as indexed or all reversed).
        composites = [[{"path": "/x", "order": "descending"}, {"path": "/n", "order": "ascending"}],
                      [{"path": "/x", "order": "ascending"}, {"path": "/n", "order": "ascending"}],
                      [{"path": "/x", "order": "descending"}, {"path": "/f", "order": "ascending"}],
                      [{"path": "/cat", "order": "ascending"}, {"path": "/n", "order": "descending"}]]
        cls.client.CreateContainer(cls.db_link, {"id": "query", "partitionKey": {"paths": ["/pk"], "kind": "Hash"},
                                                 "indexingPolicy": {"compositeIndexes": composites}})
        cls.link = cls.db_link + "/colls/query"
        cls.stored = [cls.client.CreateItem(cls.link, d) for d in DOCS]
        cls.by_id = {d["id"]: d for d in cls.stored}

    # -- helpers --------------------------------------------------------------------------------

    def query(self, query, **options):
        opts = {"enableCrossPartitionQuery": True}
        options.pop("pipelined", None)
        opts.update(options)
        return self.client.QueryItems(self.link, query, opts)

    def all(self, query, **options):
        """The whole result (the SDK follows continuations); asserts the last page's charge > 0."""
        result = list(self.query(query, **options))
        self.assertGreater(self.charge(), 0)
        return result

    def pages(self, query, page_size, **options):
        """Drains fetch_next_block(): asserts every page size <= page_size (== except the last against
        the emulator), a charge > 0 on each. (A pipelined query's block is made of several responses,
        so x-ms-item-count is the last response's, not the block's.)"""
        it = self.query(query, maxItemCount=page_size, **options)
        pages = []
        while True:
            block = it.fetch_next_block()
            if not block:
                break
            h = self.headers()
            self.assertLessEqual(len(block), page_size)
            if not options.get("pipelined", True):
                self.assertEqual(h["x-ms-item-count"], str(len(block)))
            self.assertGreater(float(h["x-ms-request-charge"]), 0)
            pages.append(block)
            self.assertLessEqual(len(pages), N + 1, "terminates")
        self.assertEqual(it.fetch_next_block(), [])
        if LOCAL:
            total = sum(len(p) for p in pages)
            expected = [min(page_size, total - i) for i in range(0, total, page_size)]
            self.assertEqual([len(p) for p in pages], expected)
        return pages

    # -- paging ---------------------------------------------------------------------------------

    def test_paging_order_by_with_page_sizes_1_2_7(self):
        expected = [self.by_id[d["id"]] for d in sorted(DOCS, key=lambda d: d["n"])]
        for size in (1, 2, 7):
            with self.subTest(size=size):
                pages = self.pages("SELECT * FROM c ORDER BY c.n", size)
                self.assertEqual(len(pages), -(-N // size))
                self.assertEqual([d for p in pages for d in p], expected)

    def test_paging_streaming_query_with_page_sizes_1_2_7(self):
        expected = sorted(d["id"] for d in DOCS if d["cat"] != "blue")
        for size in (1, 2, 7):
            with self.subTest(size=size):
                pages = self.pages('SELECT VALUE c.id FROM c WHERE c.cat != "blue"', size)
                got = [d for p in pages for d in p]
                self.assertEqual(len(got), len(expected))
                self.assertEqual(sorted(got), expected)

    def test_paging_continuation_headers(self):
        # Scoped to one partition key, the backend pages the ordered query itself: one response a block.
        it = self.query("SELECT VALUE c.n FROM c ORDER BY c.n DESC", maxItemCount=3, partitionKey="alpha")
        continuations, got = [], []
        while True:
            block = it.fetch_next_block()
            if not block:
                break
            got.extend(block)
            self.assertEqual(self.headers()["x-ms-item-count"], str(len(block)))
            continuations.append(self.headers().get("x-ms-continuation"))
        self.assertEqual(got, sorted((d["n"] for d in DOCS if d["pk"] == "alpha"), reverse=True))
        self.assertEqual(len(continuations), 3)
        for c in continuations[:-1]:
            self.assertTrue(c)
        self.assertIsNone(continuations[-1])

    def test_raw_continuation_resumes_the_query(self):
        # (the v3 SDK has no option to resume a query from a token, so this is raw)
        path = doc_path(self.db_id, "query")
        # (sent to the one partition key range as the SDKs' per-range requests are: whole, the
        # gateway refuses an ORDER BY with 400/1004)
        headers = {"x-ms-documentdb-isquery": "True", "content-type": "application/query+json",
                   "x-ms-documentdb-query-enablecrosspartition": "True", "x-ms-max-item-count": "5",
                   "x-ms-documentdb-partitionkeyrangeid": "0"}
        body = {"query": "SELECT VALUE c.id FROM c ORDER BY c.x DESC, c.n"}
        first = self.raw("POST", path, headers, body)
        self.assertEqual(first.status, 200, first.text)
        token = first.headers["x-ms-continuation"]
        rest_headers = dict(headers, **{"x-ms-continuation": token, "x-ms-max-item-count": "100"})
        rest = self.raw("POST", path, rest_headers, body)
        self.assertEqual(rest.status, 200, rest.text)
        self.assertNotIn("x-ms-continuation", rest.headers)
        expected = [d["id"] for d in sorted(DOCS, key=lambda d: (-d["x"], d["n"]))]
        self.assertEqual(first.json["Documents"], expected[:5])
        self.assertEqual(rest.json["Documents"], expected[5:])
        self.assertEqual(first.json["_count"], 5)

    # -- ORDER BY, TOP, OFFSET LIMIT -----------------------------------------------------------

    def test_order_by_asc_desc_and_two_keys(self):
        self.assertEqual(self.all("SELECT VALUE c.n FROM c ORDER BY c.n"), list(range(N)))
        self.assertEqual(self.all("SELECT VALUE c.n FROM c ORDER BY c.n DESC"), list(range(N - 1, -1, -1)))
        expected = [{"id": d["id"], "cat": d["cat"]} for d in sorted(DOCS, key=lambda d: (d["cat"], -d["n"]))]
        self.assertEqual(self.all("SELECT c.id, c.cat FROM c ORDER BY c.cat ASC, c.n DESC"), expected)
        expected = [[d["x"], d["n"]] for d in sorted((d for d in DOCS if d["n"] >= 10),
                                                     key=lambda d: (-d["x"], d["f"]))]
        self.assertEqual(self.all("SELECT VALUE [c.x, c.n] FROM c WHERE c.n >= 10 ORDER BY c.x DESC, c.f ASC"),
                         expected)

    def test_order_by_whole_items(self):
        expected = [self.by_id[d["id"]] for d in sorted(DOCS, key=lambda d: -d["f"])]
        self.assertEqual(self.all("SELECT * FROM c ORDER BY c.f DESC"), expected)

    def test_top(self):
        self.assertEqual(self.all("SELECT TOP 5 VALUE c.n FROM c ORDER BY c.n DESC"), [39, 38, 37, 36, 35])
        top = self.all("SELECT TOP 7 * FROM c")
        self.assertEqual(len(top), 7)
        self.assertEqual(len({d["id"] for d in top}), 7)
        for d in top:
            self.assertEqual(d, self.by_id[d["id"]])
        self.assertEqual(self.all("SELECT TOP 0 * FROM c"), [])
        pages = self.pages("SELECT TOP 5 VALUE c.n FROM c ORDER BY c.n", 2)
        self.assertEqual([d for p in pages for d in p], [0, 1, 2, 3, 4])

    def test_offset_limit(self):
        # Scoped: the v3 SDK has no client-side OFFSET/LIMIT.
        scoped = [d for d in DOCS if d["pk"] == "beta"]
        by_x = [d["id"] for d in sorted(scoped, key=lambda d: (d["x"], d["n"]))]
        q = "SELECT VALUE c.id FROM c ORDER BY c.x, c.n OFFSET %d LIMIT %d"
        self.assertEqual(self.all(q % (2, 3), partitionKey="beta"), by_x[2:5])
        self.assertEqual(self.all(q % (6, 10), partitionKey="beta"), by_x[6:])
        self.assertEqual(self.all(q % (8, 10), partitionKey="beta"), [])
        pages = self.pages("SELECT VALUE c.n FROM c ORDER BY c.n DESC OFFSET 1 LIMIT 5", 2, partitionKey="beta",
                           pipelined=False)
        self.assertEqual([d for p in pages for d in p], sorted((d["n"] for d in scoped), reverse=True)[1:6])

    # -- aggregates ----------------------------------------------------------------------------

    def test_value_aggregates(self):
        xs = [d["x"] for d in DOCS]
        fs = [d["f"] for d in DOCS]
        self.assertEqual(self.all("SELECT VALUE COUNT(1) FROM c"), [N])
        self.assertEqual(self.all("SELECT VALUE SUM(c.x) FROM c"), [sum(xs)])
        self.assertEqual(self.all("SELECT VALUE SUM(c.f) FROM c"), [sum(fs)])
        self.assertEqual(self.all("SELECT VALUE AVG(c.x) FROM c"), [sum(xs) / N])
        self.assertEqual(self.all("SELECT VALUE MIN(c.f) FROM c"), [min(fs)])
        self.assertEqual(self.all("SELECT VALUE MAX(c.x) FROM c"), [max(xs)])
        self.assertEqual(self.all("SELECT VALUE MAX(c.cat) FROM c"), ["red"])
        self.assertEqual(self.all("SELECT VALUE COUNT(1) FROM c WHERE c.n > 1000"), [0])
        # MAX over no rows: the backend answers nothing for it (the v3 SDK's pipeline cannot merge a
        # range's empty MAX, so this is asked of one partition key).
        self.assertEqual(self.all("SELECT VALUE MAX(c.n) FROM c WHERE c.n > 1000", partitionKey="beta"), [])

    def test_non_value_aggregates(self):
        scoped = [d for d in DOCS if d["pk"] == "gamma"]
        self.assertEqual(self.all("SELECT COUNT(1) AS n, SUM(c.x) AS s FROM c", partitionKey="gamma"),
                         [{"n": len(scoped), "s": sum(d["x"] for d in scoped)}])

    def test_aggregate_with_page_size_1(self):
        pages = self.pages("SELECT VALUE COUNT(1) FROM c", 1)
        self.assertEqual(pages, [[N]])

    # -- GROUP BY, DISTINCT --------------------------------------------------------------------

    # (scoped to one partition key: the v3 SDK has no client-side GROUP BY or DISTINCT)

    def test_group_by(self):
        scoped = [d for d in DOCS if d["pk"] == "delta"]
        expected = sorted(({"cat": cat, "n": sum(1 for d in scoped if d["cat"] == cat),
                            "s": sum(d["x"] for d in scoped if d["cat"] == cat)} for cat in CATS
                           if any(d["cat"] == cat for d in scoped)),
                          key=lambda r: r["cat"])
        got = self.all("SELECT c.cat, COUNT(1) AS n, SUM(c.x) AS s FROM c GROUP BY c.cat", partitionKey="delta")
        self.assertEqual(sorted(got, key=lambda r: r["cat"]), expected)

    def test_group_by_with_page_size_1(self):
        scoped = [d for d in DOCS if d["pk"] == "delta"]
        cats = sorted({d["cat"] for d in scoped})
        expected = [{"cat": c, "n": sum(1 for d in scoped if d["cat"] == c)} for c in cats]
        pages = self.pages("SELECT c.cat, COUNT(1) AS n FROM c GROUP BY c.cat", 1, partitionKey="delta",
                           pipelined=False)
        self.assertEqual(len(pages), len(cats))
        self.assertEqual(sorted((r for p in pages for r in p), key=lambda r: r["cat"]), expected)

    def test_distinct(self):
        scoped = [d for d in DOCS if d["pk"] == "epsilon"]
        got = self.all("SELECT DISTINCT c.cat FROM c", partitionKey="epsilon")
        self.assertEqual(sorted(got, key=lambda r: r["cat"]), [{"cat": c} for c in sorted({d["cat"] for d in scoped})])
        got = self.all("SELECT DISTINCT VALUE c.x FROM c", partitionKey="epsilon")
        self.assertEqual(sorted(got), sorted({d["x"] for d in scoped}))
        self.assertEqual(self.all("SELECT DISTINCT VALUE c.x FROM c ORDER BY c.x DESC", partitionKey="epsilon"),
                         sorted({d["x"] for d in scoped}, reverse=True))

    # -- JOIN, parameters, partition keys ------------------------------------------------------

    def test_join(self):
        pairs = sorted((d["id"], t) for d in DOCS for t in d["tags"])
        got = self.all("SELECT c.id, t AS tag FROM c JOIN t IN c.tags")
        self.assertEqual(sorted((r["id"], r["tag"]) for r in got), pairs)

    def test_parameters(self):
        got = self.all({"query": "SELECT VALUE c.id FROM c WHERE c.n >= @lo AND c.cat = @cat ORDER BY c.n",
                        "parameters": [{"name": "@lo", "value": 20}, {"name": "@cat", "value": "green"}]})
        self.assertEqual(got, [d["id"] for d in DOCS if d["n"] >= 20 and d["cat"] == "green"])
        got = self.all({"query": "SELECT VALUE c.n FROM c WHERE ARRAY_CONTAINS(@ids, c.id) ORDER BY c.n DESC",
                        "parameters": [{"name": "@ids", "value": ["item-03", "item-17", "nope"]}]})
        self.assertEqual(got, [17, 3])

    def test_partition_key_scoped_query(self):
        expected = [self.by_id[d["id"]] for d in DOCS if d["pk"] == "gamma"]
        got = list(self.client.QueryItems(self.link, "SELECT * FROM c ORDER BY c.n", {"partitionKey": "gamma"}))
        self.assertEqual(got, expected)
        self.assertGreater(self.charge(), 0)
        got = list(self.client.QueryItems(self.link, "SELECT VALUE COUNT(1) FROM c", {"partitionKey": "gamma"}))
        self.assertEqual(got, [len(expected)])
        it = self.client.QueryItems(self.link, "SELECT VALUE c.n FROM c ORDER BY c.n",
                                    {"partitionKey": "beta", "maxItemCount": 3})
        pages = []
        while True:
            block = it.fetch_next_block()
            if not block:
                break
            self.assertLessEqual(len(block), 3)
            pages.append(block)
        self.assertEqual([n for p in pages for n in p], [d["n"] for d in DOCS if d["pk"] == "beta"])

    # -- errors --------------------------------------------------------------------------------

    def test_syntax_error_is_400(self):
        _, body = self.assertFailure(lambda: self.all("SELECT FROM c"), 400, "BadRequest")
        self.assertIn('"code":"SC1001"', body["message"])
        self.assertIn('"location":{"start":7,"end":11}', body["message"])
        self.assertIn("Syntax error, incorrect syntax near 'FROM'.", body["message"])

    def test_unknown_function_is_400(self):
        _, body = self.assertFailure(lambda: self.all("SELECT ABC(1) AS x FROM c"), 400, "BadRequest")
        self.assertIn('"code":"SC2005"', body["message"])
        self.assertIn("'ABC' is not a recognized built-in function name.", body["message"])

    def test_cross_partition_query_without_the_option_is_400(self):
        self.assertFailure(
            lambda: list(self.client.QueryItems(self.link, "SELECT * FROM c", {})), 400, "BadRequest",
            message=r"^Cross partition query is required but disabled\. Please set "
                    r"x-ms-documentdb-query-enablecrosspartition to true, specify x-ms-documentdb-partitionkey, "
                    r"or revise your query to avoid this exception\.")
        # a partition key makes it a single-partition query
        got = list(self.client.QueryItems(self.link, "SELECT VALUE c.id FROM c", {"partitionKey": "alpha"}))
        self.assertEqual(sorted(got), sorted(d["id"] for d in DOCS if d["pk"] == "alpha"))

    def test_query_of_a_missing_container_is_404(self):
        self.assertFailure(lambda: list(self.client.QueryItems(self.db_link + "/colls/nope", "SELECT * FROM c",
                                                               {"enableCrossPartitionQuery": True})),
                           404, "NotFound")


if __name__ == "__main__":
    unittest.main()
