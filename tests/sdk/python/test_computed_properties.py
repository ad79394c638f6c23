"""Computed properties through the v3 Python SDK, with the data, queries and counts of the Python SDK's
own computed-properties test: filters on computed properties in WHERE (not indexed, evaluated per
item), a replace that redefines them, the definitions read back exactly, the key absent once a
replace leaves them out, and a definition that is not a list refused with the service's message.
docs/computed-properties.md."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # also runnable as a file path

from harness import EmulatorTestCase  # noqa: E402

COMPUTED = [{"name": "cp_lower", "query": "SELECT VALUE LOWER(c.db_group) FROM c"},
            {"name": "cp_power", "query": "SELECT VALUE POWER(c.val, 2) FROM c"},
            {"name": "cp_str_len", "query": "SELECT VALUE LENGTH(c.stringProperty) FROM c"}]
ITEMS = [(5, "prefixOne", "GroUp1"), (5, "prefixTwo", "GrOUp1"), (5, "randomWord1", "GroUp2"),
         (5, "randomWord2", "groUp1"), (5, "randomWord3", "GroUp3"), (5, "randomWord4", "GrOUP1"),
         (5, "randomWord5", "GroUp2"), (0, "randomWord6", "group1"), (3, "randomWord7", "group2"),
         (2, "randomWord8", "GroUp3")]


class ComputedPropertiesTest(EmulatorTestCase):
    def container_with_items(self):
        link, coll = self.new_container(computedProperties=COMPUTED)
        for i, (val, string_property, group) in enumerate(ITEMS):
            self.client.CreateItem(link, {"id": "item%d" % i, "pk": "test", "val": val,
                                          "stringProperty": string_property, "db_group": group})
        return link, coll

    def count(self, link, where):
        return len(list(self.client.QueryItems(link, "SELECT * FROM c WHERE " + where, {"partitionKey": "test"})))

    def test_queries_filter_on_computed_properties_and_follow_a_replace(self):
        link, coll = self.container_with_items()
        self.assertEqual(coll["computedProperties"], COMPUTED)
        self.assertEqual(self.client.ReadContainer(link)["computedProperties"], COMPUTED)
        self.assertEqual(self.count(link, 'c.cp_upper = "GROUP2"'), 0)
        self.assertEqual(self.count(link, 'c.cp_lower = "group1"'), 5)
        self.assertEqual(self.count(link, 'c.cp_lower = "group4"'), 0)
        self.assertEqual(self.count(link, "c.cp_power = 25"), 7)
        self.assertEqual(self.count(link, "c.cp_power = 16"), 0)
        self.assertEqual(self.count(link, "c.cp_str_len = 9"), 2)
        replaced = [{"name": "cp_upper", "query": "SELECT VALUE UPPER(c.db_group) FROM c"},
                    {"name": "cp_len", "query": "SELECT VALUE LENGTH(c.stringProperty) FROM c"}]
        self.client.ReplaceContainer(link, {"id": coll["id"], "partitionKey": coll["partitionKey"],
                                            "computedProperties": replaced})
        self.assertEqual(self.count(link, 'c.cp_upper = "GROUP2"'), 3)
        self.assertEqual(self.count(link, 'c.cp_lower = "group1"'), 0)
        self.assertEqual(self.count(link, "c.cp_len = 9"), 2)
        self.assertEqual(self.count(link, "c.cp_str_len = 9"), 0)
        rows = list(self.client.QueryItems(link, "SELECT c.id, c.db_group, c.cp_upper FROM c WHERE c.id = 'item2'",
                                           {"partitionKey": "test"}))
        self.assertEqual(rows, [{"id": "item2", "db_group": "GroUp2", "cp_upper": "GROUP2"}])

    def test_a_replace_without_them_removes_them(self):
        link, coll = self.container_with_items()
        self.client.ReplaceContainer(link, {"id": coll["id"], "partitionKey": coll["partitionKey"]})
        self.assertNotIn("computedProperties", self.client.ReadContainer(link))
        self.assertEqual(self.count(link, 'c.cp_lower = "group1"'), 0)

    def test_a_definition_that_is_not_a_list_is_invalid(self):
        link, coll = self.new_container()
        self.assertFailure(lambda: self.client.ReplaceContainer(link, {
            "id": coll["id"], "partitionKey": coll["partitionKey"],
            "computedProperties": {"name": "cp_lower", "query": "SELECT VALUE LOWER(c.db_group) FROM c"}}),
            400, "BadRequest", message=r'^Message: \{"Errors":\["One of the specified inputs is invalid"\]\}')
        self.assertNotIn("computedProperties", self.client.ReadContainer(link))


if __name__ == "__main__":
    unittest.main()
