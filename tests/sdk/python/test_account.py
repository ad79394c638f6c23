"""GET / (database account), authentication and routing errors through the v3 Python SDK."""
import base64
import time
import unittest

import azure.cosmos.documents as documents

from harness import LOCAL, EmulatorTestCase, new_client, rfc1123, uid


class AccountTest(EmulatorTestCase):
    def test_get_database_account(self):
        acct = self.client.GetDatabaseAccount()
        self.assertEqual(self.last_status(), 200)
        self.assertEqual(acct.DatabasesLink, "/dbs/")
        self.assertEqual(acct.ConsistencyPolicy["defaultConsistencyLevel"], "Session")
        self.assertEqual([l["databaseAccountEndpoint"] for l in acct.WritableLocations], [self.emu.endpoint])
        self.assertEqual([l["databaseAccountEndpoint"] for l in acct.ReadableLocations], [self.emu.endpoint])
        self.assertFalse(acct._EnableMultipleWritableLocations)
        self.assertLastCharge(0)
        # the SDK sends everything to the advertised endpoint
        self.assertEqual(self.client.WriteEndpoint, self.emu.endpoint)
        self.assertEqual(self.client.ReadEndpoint, self.emu.endpoint)

    def test_raw_account_document(self):
        res = self.raw("GET", "/")
        self.assertEqual(res.status, 200)
        a = res.json
        self.assertNotEqual(a["id"], "localhost")
        self.assertNotIn("enablePerPartitionFailoverBehavior", a)
        self.assertFalse(a["enableMultipleWriteLocations"])
        self.assertEqual(a["userConsistencyPolicy"]["defaultConsistencyLevel"], "Session")
        self.assertEqual(len(a["writableLocations"]), 1)
        self.assertEqual(len(a["readableLocations"]), 1)

    def test_wrong_key_is_401(self):
        wrong = base64.b64encode(b"\x07" * 64).decode()
        client = self.make_client(key=wrong)
        self.assertFailure(lambda: client.ReadDatabase(self.db_link), 401, "Unauthorized",
                           message=r"^The input authorization token can't serve the request\.")

    def test_missing_authorization_is_401(self):
        res = self.raw("GET", "/dbs", auth=False)
        self.assertRawError(res, 401, "Unauthorized",
                            message=r"^Required Header authorization is missing\. Ensure a valid Authorization "
                                    r"token is passed\.")

    def test_date_outside_window_is_403(self):
        for delta in (-16 * 60, 16 * 60):
            res = self.raw("GET", "/dbs", date=time.time() + delta)
            self.assertRawError(res, 403, "Forbidden",
                                message=r"^The authorization token is not valid at the current time\.")
        for delta in (-14 * 60, 14 * 60):
            res = self.raw("GET", "/dbs", date=time.time() + delta)
            self.assertEqual(res.status, 200, res.text)

    def test_unparseable_date_is_401(self):
        res = self.raw("GET", "/dbs", date="yesterday")
        self.assertRawError(res, 401, "Unauthorized")

    def test_unknown_route_is_400(self):
        for path in ("/foo", "/dbs/a/colls/b/docs/c/x/y", "/dbs/a/nothing"):
            res = self.raw("GET", path)
            self.assertRawError(res, 400, "BadRequest", message=r"^Request url is invalid\.")

    def test_unsupported_verb_is_405(self):
        for method, path in (("PUT", "/dbs/x"), ("DELETE", "/dbs"), ("POST", "/dbs/x/colls/y/docs/z"),
                             ("PATCH", "/dbs/x")):
            res = self.raw(method, path, body="{}")
            self.assertRawError(res, 405, "MethodNotAllowed",
                                message=r"The requested verb is not supported on this resource\.")

    def test_paths_with_double_and_trailing_slashes(self):
        # the v3 SDK itself sends paths like //dbs/x/ ; this checks the raw forms too
        db = uid("slash")
        self.client.CreateDatabase({"id": db})
        res = self.raw("GET", "//dbs//%s/" % db)
        self.assertEqual(res.status, 200, res.text)
        self.assertEqual(res.json["id"], db)
        self.client.DeleteDatabase("dbs/" + db)

    def test_stronger_consistency_than_account_is_400(self):
        client = self.make_client(consistency_level=documents.ConsistencyLevel.Strong)
        self.assertFailure(lambda: client.ReadDatabase(self.db_link), 400, "BadRequest",
                           message=r"ConsistencyLevel Strong specified in the request is invalid")


@unittest.skipUnless(LOCAL, "emulator option")
class StrongAccountTest(EmulatorTestCase):
    emulator_args = ("--consistency", "Strong")

    def test_point_reads_cost_double(self):
        client = self.make_client(consistency_level=documents.ConsistencyLevel.Strong)
        self.assertEqual(client.GetDatabaseAccount().ConsistencyPolicy["defaultConsistencyLevel"], "Strong")
        link, _ = self.new_container()
        client.CreateItem(link, {"id": "x", "pk": "p"})
        client.ReadItem(link + "/docs/x", {"partitionKey": "p"})
        self.assertLastCharge(2, client)
        client.ReadItem(link + "/docs/x", {"partitionKey": "p", "consistencyLevel": "Eventual"})
        self.assertLastCharge(1, client)


if __name__ == "__main__":
    unittest.main()
