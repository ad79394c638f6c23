"""Unique key policies through the v3 Python SDK: the policy read back, 409 on create / replace /
upsert per logical partition with the service's message, missing values as null, composite and
nested paths, deletes freeing values, stored procedures, and the 403 of a container replace that
would change the policy."""
import unittest

from harness import REJECTED_WRITE, EmulatorTestCase, uid

POLICY = {"uniqueKeys": [{"paths": ["/email"]}, {"paths": ["/first", "/last"]}]}
EMAIL = {"uniqueKeys": [{"paths": ["/email"]}]}
CONFLICT_TEXT = r"^Entity with the specified id already exists in the system\."


class UniqueKeyTest(EmulatorTestCase):
    # With POLICY, items lacking /first and /last share the composite value (null, null): tests of
    # the email key use EMAIL alone.
    def make(self, policy=EMAIL):
        return self.new_container(uniqueKeyPolicy=policy)

    def create(self, link, doc):
        return self.client.CreateItem(link, doc)

    def assertConflict(self, fn):
        self.assertFailure(fn, 409, code="Conflict", message=CONFLICT_TEXT, charge=REJECTED_WRITE)

    def test_policy_is_returned(self):
        link, coll = self.make(POLICY)
        self.assertEqual(coll["uniqueKeyPolicy"], POLICY)
        self.assertEqual(self.client.ReadContainer(link)["uniqueKeyPolicy"], POLICY)

    def test_create_per_logical_partition(self):
        link, _ = self.make()
        self.create(link, {"id": "1", "pk": "p", "email": "a@b"})
        self.assertConflict(lambda: self.create(link, {"id": "2", "pk": "p", "email": "a@b"}))
        self.create(link, {"id": "2", "pk": "q", "email": "a@b"})
        self.create(link, {"id": "3", "pk": "p", "email": "A@B"})

    def test_composite(self):
        link, _ = self.make(POLICY)
        self.create(link, {"id": "4", "pk": "p", "email": "x1", "first": "Gaby", "last": "Duperre"})
        self.create(link, {"id": "5", "pk": "p", "email": "x2", "first": "Gaby", "last": "Other"})
        self.assertConflict(lambda: self.create(link, {"id": "6", "pk": "p", "email": "x3", "first": "Gaby",
                                                       "last": "Duperre"}))

    def test_missing_value_is_null(self):
        link, _ = self.make({"uniqueKeys": [{"paths": ["/email"]}]})
        self.create(link, {"id": "1", "pk": "p"})
        self.assertConflict(lambda: self.create(link, {"id": "2", "pk": "p"}))
        self.assertConflict(lambda: self.create(link, {"id": "2", "pk": "p", "email": None}))
        self.create(link, {"id": "2", "pk": "p", "email": "set"})

    def test_nested_path(self):
        link, _ = self.make({"uniqueKeys": [{"paths": ["/address/zip"]}]})
        self.create(link, {"id": "1", "pk": "p", "address": {"zip": "98052"}})
        self.assertConflict(lambda: self.create(link, {"id": "2", "pk": "p", "address": {"zip": "98052", "n": 1}}))
        self.create(link, {"id": "2", "pk": "p", "address": {"zip": "98053"}})

    def test_replace_upsert_and_delete(self):
        link, _ = self.make()
        self.create(link, {"id": "a", "pk": "p", "email": "a@x"})
        self.create(link, {"id": "b", "pk": "p", "email": "b@x"})
        opts = {"partitionKey": "p"}
        self.client.ReplaceItem(link + "/docs/a", {"id": "a", "pk": "p", "email": "a@x", "v": 1}, opts)
        self.assertConflict(lambda: self.client.ReplaceItem(link + "/docs/a", {"id": "a", "pk": "p", "email": "b@x"},
                                                            opts))
        self.assertConflict(lambda: self.client.UpsertItem(link, {"id": "a", "pk": "p", "email": "b@x"}))
        self.assertConflict(lambda: self.client.UpsertItem(link, {"id": "z", "pk": "p", "email": "b@x"}))
        self.assertEqual(self.client.ReadItem(link + "/docs/a", opts)["email"], "a@x")
        self.client.DeleteItem(link + "/docs/b", opts)
        self.client.UpsertItem(link, {"id": "a", "pk": "p", "email": "b@x"})
        self.create(link, {"id": "c", "pk": "p", "email": "a@x"})

    def test_stored_procedure_sees_409(self):
        link, _ = self.make()
        self.create(link, {"id": "x", "pk": "p", "email": "taken"})
        sproc_id = uid("sp")
        self.client.CreateStoredProcedure(link, {"id": sproc_id, "body": (
            "function (email) { var c = getContext().getCollection();"
            " c.createDocument(c.getSelfLink(), {id: 's1', pk: 'p', email: email},"
            " function (err) { getContext().getResponse().setBody(err ? err.number : 0); }); }")})
        result = self.client.ExecuteStoredProcedure(link + "/sprocs/" + sproc_id, ["taken"], {"partitionKey": "p"})
        self.assertEqual(result, 409)
        result = self.client.ExecuteStoredProcedure(link + "/sprocs/" + sproc_id, ["free"], {"partitionKey": "p"})
        self.assertEqual(result, 0)

    def test_replacing_the_policy_is_forbidden(self):
        link, coll = self.make(POLICY)
        base_body = {"id": coll["id"], "partitionKey": coll["partitionKey"]}
        kept = self.client.ReplaceContainer(link, dict(base_body, uniqueKeyPolicy=POLICY, defaultTtl=30))
        self.assertEqual(kept["uniqueKeyPolicy"], POLICY)
        for body in (dict(base_body, uniqueKeyPolicy={"uniqueKeys": [{"paths": ["/email"]}]}), dict(base_body)):
            self.assertFailure(lambda: self.client.ReplaceContainer(link, body), 403, code="Forbidden",
                               message=r"The unique index cannot be modified\. To change the unique index, remove "
                                       r"the collection and re-create a new one\.")
        self.assertEqual(self.client.ReadContainer(link)["uniqueKeyPolicy"], POLICY)


if __name__ == "__main__":
    unittest.main()
