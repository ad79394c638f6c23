"""Query conformance through the v3 Python SDK (QueryItems), one test group per fixed divergence from
the service: MAKELIST/MAKESET; TOP and OFFSET LIMIT refused in subqueries (SC2203, SC2204); ORDER BY
refused in subqueries (SC2202); a JOIN subquery without an alias; DISTINCT with ORDER BY and TOP or
OFFSET/LIMIT over 4 physical partitions; a streaming page that is exactly full carries a continuation
and the next page is empty."""
import json
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # also runnable as a file path

from harness import LOCAL, EmulatorTestCase, doc_path, raw_request, uid  # noqa: E402

PARTITIONS = 4
# 30 items over 6 partition key values: v is 1 for the first 24 (4 per key), then 2..7.
DOCS = [{
    "id": "d%02d" % i,
    "pk": "p%d" % (i % 6),
    "v": 1 if i < 24 else i - 22,
    "tags": [] if i % 5 == 0 else ["t%d" % ((i + k) % 4) for k in range(i % 3 + 1)],
} for i in range(30)]


def refusal(start, end, code, message):
    return {"severity": "Error", "location": {"start": start, "end": end}, "code": code, "message": message}


class ConformanceQueryTest(EmulatorTestCase):
    @classmethod
    def setUpClass(cls):
        super(ConformanceQueryTest, cls).setUpClass()
        cls.coll_id = "conformance"
        headers = {"x-cosmos-emulator-partition-count": str(PARTITIONS)} if LOCAL else {}
        res = raw_request(cls.emu, "POST", "/dbs/%s/colls" % cls.db_id, headers,
                          {"id": cls.coll_id, "partitionKey": {"paths": ["/pk"], "kind": "Hash"}})
        assert res.status == 201, res.text
        cls.link = cls.db_link + "/colls/" + cls.coll_id
        for d in DOCS:
            cls.client.CreateItem(cls.link, d)

    def all(self, query, **options):
        opts = {"enableCrossPartitionQuery": True}
        opts.update(options)
        return list(self.client.QueryItems(self.link, query, opts))

    def refused(self, query, expected, **options):
        _, body = self.assertFailure(lambda: self.all(query, **options), 400, "BadRequest")
        m = re.match(r"^Message: (\{.*\})", body["message"])
        self.assertIsNotNone(m, body["message"])
        self.assertEqual(json.loads(m.group(1))["errors"], expected)

    # -- 1. MAKELIST and MAKESET -----------------------------------------------------------------

    def test_makelist_and_makeset_in_one_logical_partition(self):
        mine = [d for d in DOCS if d["pk"] == "p1"]
        self.assertEqual(self.all("SELECT VALUE MakeList(c.id) FROM c", partitionKey="p1"), [[d["id"] for d in mine]])
        self.assertEqual(self.all("SELECT VALUE MAKESET(c.v) FROM c", partitionKey="p1"), [[1, 3]])
        self.assertEqual(self.all("SELECT MakeList(c.nope) AS l, MakeSet(c.pk) AS s FROM c", partitionKey="p1"),
                         [{"l": [], "s": ["p1"]}])

    def test_makelist_and_makeset_with_group_by(self):
        got = self.all("SELECT c.v, MakeList(c.id) AS ids, MakeSet(c.pk) AS pks FROM c GROUP BY c.v",
                       partitionKey="p0")
        mine = [d for d in DOCS if d["pk"] == "p0"]
        expected = {}
        for d in mine:
            expected.setdefault(d["v"], []).append(d["id"])
        self.assertEqual(sorted(r["v"] for r in got), sorted(expected))
        for row in got:
            self.assertEqual(row["ids"], expected[row["v"]])
            self.assertEqual(row["pks"], ["p0"])

    # -- 2. TOP and OFFSET LIMIT in subqueries -----------------------------------------------------

    def test_top_in_a_from_subquery_is_refused(self):
        for options in ({}, {"partitionKey": "p0"}):
            with self.subTest(options=options):
                self.refused("SELECT VALUE COUNT(1) FROM (SELECT TOP 1 VALUE c.id FROM c) AS r",
                             [refusal(35, 40, "SC2203", "'TOP' is not supported in subqueries.")], **options)

    def test_offset_limit_in_a_scalar_subquery_is_refused(self):
        self.refused("SELECT VALUE (SELECT VALUE t FROM t IN c.tags OFFSET 1 LIMIT 1) FROM c",
                     [refusal(46, 62, "SC2204", "'OFFSET LIMIT' clause is not supported in subqueries.")],
                     partitionKey="p2")

    # -- 3. ORDER BY in subqueries -------------------------------------------------------------------

    def test_order_by_in_subqueries_is_refused(self):
        self.refused("SELECT VALUE EXISTS(SELECT VALUE t FROM t IN c.tags ORDER BY t) FROM c",
                     [refusal(52, 62, "SC2202", "'ORDER BY' is not supported in subqueries.")])
        self.refused("SELECT VALUE ARRAY(SELECT VALUE t FROM t IN c.tags ORDER BY t || 'x' OFFSET 0 LIMIT 1) FROM c",
                     [refusal(51, 68, "SC2202", "'ORDER BY' is not supported in subqueries."),
                      refusal(69, 85, "SC2204", "'OFFSET LIMIT' clause is not supported in subqueries.")],
                     partitionKey="p1")

    # -- 4. a JOIN subquery without an alias ---------------------------------------------------------

    def test_join_subquery_without_alias(self):
        expected = sorted(d["id"] for d in DOCS for _ in d["tags"])
        self.assertEqual(sorted(self.all("SELECT VALUE c.id FROM c JOIN (SELECT VALUE t FROM t IN c.tags)")), expected)
        mine = sorted(d["id"] for d in DOCS if d["pk"] == "p4" for t in d["tags"] if t != "t1")
        self.assertEqual(sorted(self.all("SELECT VALUE c.id FROM c JOIN (SELECT VALUE t FROM t IN c.tags WHERE t != 't1')",
                                         partitionKey="p4")), mine)
        self.refused("SELECT VALUE t FROM c JOIN (SELECT VALUE t FROM t IN c.tags)",
                     [refusal(13, 14, "SC2001", "Identifier 't' could not be resolved.")])

    # -- 5. DISTINCT with ORDER BY and TOP or OFFSET/LIMIT -------------------------------------------

    def test_distinct_order_by_with_offset_limit_and_top(self):
        # The v3 SDK has no client-side DISTINCT: it cannot run these across partitions (the gateway
        # refuses them whole with 400/1004, against the service as here). What the other SDKs run is
        # the plan: TOP/OFFSET/LIMIT stay in queryInfo and leave the rewritten per-range query, so the
        # client removes duplicates across ranges before it counts.
        path = doc_path(self.db_id, self.coll_id)
        for text, top, offset, limit in (("SELECT DISTINCT VALUE c.v FROM c ORDER BY c.v OFFSET 1 LIMIT 3", None, 1, 3),
                                         ("SELECT DISTINCT TOP 3 VALUE c.v FROM c ORDER BY c.v", 3, None, None)):
            with self.subTest(query=text):
                plan = self.raw("POST", path, {"x-ms-cosmos-is-query-plan-request": "True",
                                               "content-type": "application/query+json",
                                               "x-ms-cosmos-supported-query-features": "Distinct, OffsetAndLimit, Top, OrderBy"},
                                {"query": text})
                self.assertEqual(plan.status, 200, plan.text)
                info = plan.json["queryInfo"]
                self.assertEqual((info["distinctType"], info["top"], info["offset"], info["limit"]),
                                 ("Ordered", top, offset, limit))
                self.assertNotIn("TOP", info["rewrittenQuery"])
                self.assertNotIn("OFFSET", info["rewrittenQuery"])
                whole = self.raw("POST", path, {"x-ms-documentdb-isquery": "True", "content-type": "application/query+json",
                                                "x-ms-documentdb-query-enablecrosspartition": "True"}, {"query": text})
                self.assertEqual((whole.status, whole.headers.get("x-ms-substatus")), (400, "1004"), whole.text)

    # -- 6. a page that is exactly full -------------------------------------------------------------

    def test_exactly_full_page_is_followed_by_an_empty_one(self):
        coll = uid("page")
        self.client.CreateContainer(self.db_link, {"id": coll, "partitionKey": {"paths": ["/pk"], "kind": "Hash"}})
        link = self.db_link + "/colls/" + coll
        for i in range(4):
            self.client.CreateItem(link, {"id": "i%d" % i, "pk": "a"})
        path = doc_path(self.db_id, coll)
        headers = {"x-ms-documentdb-isquery": "True", "content-type": "application/query+json",
                   "x-ms-documentdb-partitionkey": '["a"]', "x-ms-max-item-count": "2"}
        body = {"query": "SELECT VALUE c.id FROM c"}
        pages = []
        while True:
            res = self.raw("POST", path, headers, body)
            self.assertEqual(res.status, 200, res.text)
            cont = res.headers.get("x-ms-continuation")
            pages.append((res.json["Documents"], res.headers["x-ms-item-count"], cont is not None))
            self.assertLessEqual(len(pages), 4)
            if not cont:
                break
            headers["x-ms-continuation"] = cont
        self.assertEqual(pages, [(["i0", "i1"], "2", True), (["i2", "i3"], "2", True), ([], "0", False)])
        # The SDK follows the continuation through the empty page.
        it = self.client.QueryItems(link, "SELECT VALUE c.id FROM c", {"partitionKey": "a", "maxItemCount": 2})
        self.assertEqual(it.fetch_next_block(), ["i0", "i1"])
        self.assertEqual(it.fetch_next_block(), ["i2", "i3"])
        self.assertEqual(it.fetch_next_block(), [])


if __name__ == "__main__":
    unittest.main()
