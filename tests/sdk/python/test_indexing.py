"""The indexing policy through the v3 Python SDK: created, read back and replaced exactly; composite
ORDER BY served with the index and refused without it; ORDER BY on an excluded path refused;
indexing mode none (filters need enableScanInQuery); spatial indexes in write and query charges;
write charges follow the indexed paths; x-ms-indexing-directive; geometry containers. Charges are the request-unit model of docs/request-units.md."""
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # also runnable as a file path

from harness import EmulatorTestCase, count_terms, create_charge, kb_of, round2  # noqa: E402

ETAG = {"path": '/"_etag"/?'}
NO_COMPOSITE = "The order by query does not have a corresponding composite index that it can be served from."
EXCLUDED = "The index path corresponding to the specified order-by item is excluded."
NEEDS_SCAN = ("An invalid query has been specified with filters against path(s) excluded from indexing. "
              "Consider adding allow scan header in the request.")
NONE_POLICY = {"indexingMode": "none", "automatic": False, "includedPaths": [], "excludedPaths": []}


def query_charge(loaded, scanned=()):
    """One query page on one partition: 2.7 + 0.1/doc + 0.068/KB loaded, 0.02/doc + 0.0072/KB scanned."""
    return round2(2.7 + sum(0.1 + 0.068 * kb_of(d) for d in loaded) + sum(0.02 + 0.0072 * kb_of(d) for d in scanned))


class IndexingTest(EmulatorTestCase):
    def container(self, policy=None):
        extra = {} if policy is None else {"indexingPolicy": policy}
        return self.new_container(**extra)

    def run_query(self, link, query, **options):
        opts = {"enableCrossPartitionQuery": True}
        opts.update(options)
        return list(self.client.QueryItems(link, query, opts))

    def assertRefused(self, link, query, text, **options):
        self.assertFailure(lambda: self.run_query(link, query, **options), 400, "BadRequest",
                           message="^" + re.escape('Message: {"Errors":["%s"]}' % text))

    def replace_policy(self, link, coll, policy):
        body = {"id": coll["id"], "partitionKey": coll["partitionKey"], "indexingPolicy": policy}
        replaced = self.client.ReplaceContainer(link, body)
        self.assertEqual(self.last_status(), 200)
        return replaced

    # -- the policy ------------------------------------------------------------------------------

    def test_policy_is_returned_exactly_on_create_read_and_replace(self):
        policy = {
            "indexingMode": "consistent",
            "automatic": True,
            "includedPaths": [{"path": "/*"}],
            "excludedPaths": [{"path": "/secret/?"}],
            "compositeIndexes": [[{"path": "/a", "order": "ascending"}, {"path": "/b", "order": "descending"}]],
            "spatialIndexes": [{"path": "/loc/*", "types": ["Point", "Polygon"]}],
        }
        expected = dict(policy, excludedPaths=[{"path": "/secret/?"}, ETAG])
        link, coll = self.container(policy)
        self.assertEqual(coll["indexingPolicy"], expected)
        self.assertEqual(self.client.ReadContainer(link)["indexingPolicy"], expected)
        replaced = self.replace_policy(link, coll, {"indexingMode": "none"})
        self.assertEqual(replaced["indexingPolicy"], NONE_POLICY)
        self.assertEqual(self.client.ReadContainer(link)["indexingPolicy"], NONE_POLICY)

    def test_invalid_composite_index(self):
        body = {"id": "bad", "partitionKey": {"paths": ["/pk"], "kind": "Hash"},
                "indexingPolicy": {"compositeIndexes": [[{"path": "/a"}, {"path": "/b", "order": "up"}]]}}
        self.assertFailure(lambda: self.client.CreateContainer(self.db_link, body), 400, "BadRequest",
                           message="^" + re.escape('Message: {"Errors":["The composite order \'up\' is invalid. '
                                                   'Choose between \'ascending\' and \'descending\'."]}'))

    # -- ORDER BY ----------------------------------------------------------------------------------

    ITEMS = [{"id": "1", "pk": "p", "a": 1, "b": 1, "secret": 3},
             {"id": "2", "pk": "p", "a": 1, "b": 2, "secret": 1},
             {"id": "3", "pk": "p", "a": 0, "b": 5, "secret": 2}]

    def test_composite_order_by_refused_without_the_index_and_served_with_it(self):
        link, coll = self.container()
        for d in self.ITEMS:
            self.client.CreateItem(link, d)
        q = "SELECT VALUE c.id FROM c ORDER BY c.a, c.b DESC"
        self.assertRefused(link, q, NO_COMPOSITE)
        self.replace_policy(link, coll, {"compositeIndexes": [[{"path": "/a", "order": "ascending"},
                                                               {"path": "/b", "order": "descending"}]]})
        self.assertEqual(self.run_query(link, q), ["3", "2", "1"])
        self.assertEqual(self.run_query(link, "SELECT VALUE c.id FROM c ORDER BY c.a DESC, c.b"), ["1", "2", "3"])
        self.assertRefused(link, "SELECT VALUE c.id FROM c ORDER BY c.a, c.b", NO_COMPOSITE)
        self.assertEqual(self.run_query(link, "SELECT VALUE c.id FROM c WHERE c.a = 1 ORDER BY c.a, c.b DESC",
                                        partitionKey="p"), ["2", "1"])
        self.assertRefused(link, "SELECT VALUE c.id FROM c WHERE c.a = 1 ORDER BY c.b, c.a", NO_COMPOSITE,
                           partitionKey="p")

    def test_order_by_on_an_excluded_path_is_refused(self):
        link, coll = self.container({"excludedPaths": [{"path": "/secret/?"}]})
        for d in self.ITEMS:
            self.client.CreateItem(link, d)
        self.assertRefused(link, "SELECT * FROM c ORDER BY c.secret", EXCLUDED)
        self.assertEqual(self.run_query(link, "SELECT VALUE c.id FROM c ORDER BY c.b DESC"), ["3", "2", "1"])
        self.assertEqual(self.run_query(link, "SELECT VALUE c.id FROM c WHERE c.secret = 1"), ["2"])
        self.replace_policy(link, coll, {})
        self.assertEqual(self.run_query(link, "SELECT VALUE c.id FROM c ORDER BY c.secret"), ["2", "3", "1"])

    # -- mode none -------------------------------------------------------------------------------

    def test_mode_none(self):
        link, coll = self.container({"indexingMode": "none"})
        self.assertEqual(coll["indexingPolicy"], NONE_POLICY)
        stored = []
        for d in [{"id": "1", "pk": "p", "n": 1}, {"id": "2", "pk": "p", "n": 2}]:
            created = self.client.CreateItem(link, d)
            self.assertLastCharge(create_charge(created, terms=0))
            stored.append(created)
        self.assertRefused(link, "SELECT * FROM c WHERE c.id = '1'", NEEDS_SCAN)
        rows = self.run_query(link, "SELECT * FROM c WHERE c.id = '1'", enableScanInQuery=True)
        self.assertEqual([r["id"] for r in rows], ["1"])
        self.assertLastCharge(query_charge([], stored))
        rows = self.run_query(link, "SELECT * FROM c")
        self.assertEqual([r["id"] for r in rows], ["1", "2"])
        self.assertLastCharge(query_charge(stored))
        self.assertRefused(link, "SELECT * FROM c ORDER BY c.n", EXCLUDED, enableScanInQuery=True)

    # -- spatial ---------------------------------------------------------------------------------

    def test_spatial_index_write_term_and_cheaper_st_distance(self):
        geo, _ = self.container({"spatialIndexes": [{"path": "/loc/*", "types": ["Point"]}]})
        plain, _ = self.container()
        geo_stored, plain_stored = [], []
        for i in range(30):
            doc = {"id": "d%d" % i, "pk": "p", "loc": {"type": "Point", "coordinates": [10.5 + i, 20.5]}}
            self.assertEqual(count_terms(doc) + 1, 6)  # id pk loc.type two coordinates _ts
            p = self.client.CreateItem(plain, doc)
            self.assertLastCharge(create_charge(p, terms=6))
            g = self.client.CreateItem(geo, doc)
            self.assertLastCharge(create_charge(g, terms=7))  # + the point's spatial term
            plain_stored.append(p)
            geo_stored.append(g)
        q = "SELECT VALUE c.id FROM c WHERE ST_DISTANCE(c.loc, {'type': 'Point', 'coordinates': [10.5, 20.5]}) < 1000"
        self.assertEqual(self.run_query(geo, q), ["d0"])
        geo_charge = self.charge()
        self.assertCharge(geo_charge, query_charge([geo_stored[0]]))
        self.assertEqual(self.run_query(plain, q), ["d0"])
        plain_charge = self.charge()
        self.assertCharge(plain_charge, query_charge([], plain_stored))
        self.assertLess(float(geo_charge), float(plain_charge))

    # -- x-ms-indexing-directive (Microsoft's IndexManagement samples) ------------------------------

    def test_exclude_leaves_an_item_out_of_queries_and_include_opts_in(self):
        link, _ = self.container()
        self.client.CreateItem(link, {"id": "doc1", "pk": "p", "orderId": "order1"})
        self.client.CreateItem(link, {"id": "doc2", "pk": "p", "orderId": "order2"}, {"indexingDirective": "Exclude"})
        self.assertEqual(self.run_query(link, "SELECT VALUE r.id FROM r WHERE r.orderId = 'order2'"), [])
        self.assertEqual(self.run_query(link, "SELECT VALUE r.id FROM r"), ["doc1"])
        read = self.client.ReadItem(link + "/docs/doc2", {"partitionKey": "p"})
        self.assertEqual(read["orderId"], "order2")
        manual, _ = self.container({"automatic": False})
        self.client.CreateItem(manual, {"id": "doc1", "pk": "p", "orderId": "o"})
        self.client.CreateItem(manual, {"id": "doc2", "pk": "p", "orderId": "o"}, {"indexingDirective": "Include"})
        self.assertEqual(self.run_query(manual, "SELECT VALUE r.id FROM r WHERE r.orderId = 'o'"), ["doc2"])

    # -- geometry containers -------------------------------------------------------------------------

    def test_geometry_container_distances_are_planar(self):
        link, coll = self.new_container(
            geospatialConfig={"type": "Geometry"},
            indexingPolicy={"spatialIndexes": [{"path": "/loc/*", "types": ["Point"],
                                                "boundingBox": {"xmin": -10, "ymin": -10, "xmax": 10, "ymax": 10}}]})
        self.assertEqual(coll["geospatialConfig"], {"type": "Geometry"})
        self.client.CreateItem(link, {"id": "o", "pk": "p", "loc": {"type": "Point", "coordinates": [0, 0]}})
        q = "SELECT VALUE ST_DISTANCE(c.loc, {'type': 'Point', 'coordinates': [3, 4]}) FROM c"
        self.assertEqual(self.run_query(link, q), [5])

    # -- write charges -----------------------------------------------------------------------------

    def test_write_charges_follow_the_indexed_paths(self):
        doc = {"id": "w", "pk": "p", "a": 1, "b": "two", "c": [1, 2, 3], "d": {"e": True}}
        everything, _ = self.container()
        fewer, _ = self.container({"excludedPaths": [{"path": "/c/*"}, {"path": "/d/*"}]})
        r1 = self.client.CreateItem(everything, doc)
        c1 = self.charge()
        self.assertCharge(c1, create_charge(r1, terms=9))  # id pk a b c[0..2] d.e _ts
        r2 = self.client.CreateItem(fewer, doc)
        c2 = self.charge()
        self.assertCharge(c2, create_charge(r2, terms=5))
        self.assertLess(float(c2), float(c1))


if __name__ == "__main__":
    unittest.main()
