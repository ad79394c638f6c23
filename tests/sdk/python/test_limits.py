"""Limits and feed paging where the service's behaviour is easy to get wrong: item ids up to 1,023
bytes, a 413 (not a dropped connection) for bodies over the server's limit, and paged database and
container feeds."""
import unittest

import requests

import azure.cosmos.errors as errors

from harness import EmulatorTestCase, uid



class KnownFailuresTest(EmulatorTestCase):
    @classmethod
    def setUpClass(cls):
        super(KnownFailuresTest, cls).setUpClass()
        cls.client.CreateContainer(cls.db_link, {"id": "k", "partitionKey": {"paths": ["/pk"], "kind": "Hash"}})
        cls.link = cls.db_link + "/colls/k"

    def test_item_ids_up_to_1023_bytes_are_accepted(self):
        # Service quotas: "Maximum length of id: 1,023 bytes" for items; 255 characters is the limit
        # for database and container names only. The emulator applies 255 characters to items too.
        for doc_id in ("i" * 256, "j" * 1023):
            self.client.CreateItem(self.link, {"id": doc_id, "pk": "p"})
            self.assertEqual(self.last_status(), 201)
            self.assertEqual(self.client.ReadItem(self.link + "/docs/" + doc_id, {"partitionKey": "p"})["id"], doc_id)

    def test_oversized_request_answers_413_not_a_reset(self):
        # Above --max-body-bytes (16 MiB) the emulator answers 413 and closes the connection before
        # reading the body; a client still sending sees a connection error instead of the 413.
        try:
            self.client.CreateItem(self.link, {"id": uid("huge"), "pk": "p", "blob": "x" * (17 * 1024 * 1024)})
        except errors.HTTPFailure as e:
            self.assertEqual(e.status_code, 413)
            return
        except requests.exceptions.ConnectionError as e:
            self.fail("connection error instead of 413: %s" % e)
        self.fail("no error")

    def test_database_and_container_feeds_page_with_max_item_count(self):
        for _ in range(3):
            self.client.CreateDatabase({"id": uid("page")})
        it = self.client.ReadDatabases({"maxItemCount": 1})
        block = it.fetch_next_block()
        self.assertEqual(len(block), 1, "databases page has %d items" % len(block))
        self.assertIn("x-ms-continuation", self.headers())
        for _ in range(3):
            self.client.CreateContainer(self.db_link, {"id": uid("pc"), "partitionKey": {"paths": ["/pk"]}})
        block = self.client.ReadContainers(self.db_link, {"maxItemCount": 2}).fetch_next_block()
        self.assertEqual(len(block), 2, "containers page has %d items" % len(block))


if __name__ == "__main__":
    unittest.main()
