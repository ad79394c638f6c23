"""Users, permissions and resource tokens through the v3 Python SDK (3.1.1).

- Users: create 201, read, list ("Users"), query, replace (a new id renames; the rid stays), upsert
  (200 when it existed), delete 204 (its permissions go with it); 409 duplicate, 404 missing.
  JSON {id,_rid,_ts,_self,_etag,_permissions}; metadata charges (write 1, read 2, rejected 1.24).
- Permissions: {id, permissionMode (Read/All in any case, returned as sent), resource, optional
  resourcePartitionKey} and a `_token` on every answer; 400 for a bad mode, link or key, 404 for a
  missing container, 409 for the same id or the same resource twice for one user; the token
  lifetime (x-ms-documentdb-expiry-seconds, option resourceTokenExpirySeconds) from 600 to 86400 s.
- A client built with {'resourceTokens': {...}} or {'permissionFeed': [...]} (the v3 SDK keys tokens
  by the last id of a link): reads in the token's scope, 403 outside it and for writes with a Read
  token, 403 once expired (the emulator clock moves time) or once the permission is deleted or
  replaced, 401 for a forged token. The SDK sends no x-ms-date with a resource token.
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # also runnable as a file path

import azure.cosmos.cosmos_client as cosmos_client  # noqa: E402

from harness import (LOCAL, METADATA_READ, METADATA_WRITE, REJECTED_WRITE, EmulatorTestCase,  # noqa: E402
                     emulator_clock, uid)

INSUFFICIENT = (r"^Insufficient permissions provided in the authorization header for the corresponding request\. "
                r"Please retry with another authorization header\.")


class UsersTest(EmulatorTestCase):
    @classmethod
    def setUpClass(cls):
        super(UsersTest, cls).setUpClass()
        cls.coll_link = cls.db_link + "/colls/c"
        cls.client.CreateContainer(cls.db_link, {"id": "c", "partitionKey": {"paths": ["/pk"], "kind": "Hash"}})
        cls.client.CreateItem(cls.coll_link, {"id": "a", "pk": "x", "n": 1})
        cls.client.CreateItem(cls.coll_link, {"id": "b", "pk": "y", "n": 2})

    def new_user(self):
        u = self.client.CreateUser(self.db_link, {"id": uid("u")})
        return self.db_link + "/users/" + u["id"], u

    def grant(self, mode, resource, pk=None, options=None):
        link, _ = self.new_user()
        body = {"id": uid("p"), "permissionMode": mode, "resource": resource}
        if pk is not None:
            body["resourcePartitionKey"] = pk
        return link, self.client.CreatePermission(link, body, options)

    def token_client(self, auth):
        c = cosmos_client.CosmosClient(self.emu.endpoint, auth)
        self.clients.append(c)
        return c

    def clock(self, seconds):
        res = emulator_clock(self.emu, advanceSeconds=seconds)
        self.assertEqual(res.status, 200, res.text)

    # -- users ------------------------------------------------------------------------------------

    def test_user_crud(self):
        uid_ = uid("u")
        u = self.client.CreateUser(self.db_link, {"id": uid_})
        self.assertEqual(self.last_status(), 201)
        self.assertLastCharge(METADATA_WRITE)
        self.assertEqual(list(u.keys()), ["id", "_rid", "_ts", "_self", "_etag", "_permissions"])
        db = self.client.ReadDatabase(self.db_link)
        self.assertEqual(u["_self"], db["_self"] + "users/" + u["_rid"] + "/")
        link = self.db_link + "/users/" + uid_
        self.assertEqual(self.client.ReadUser(link)["_rid"], u["_rid"])
        self.assertLastCharge(METADATA_READ)
        self.assertIn(uid_, [x["id"] for x in self.client.ReadUsers(self.db_link)])
        found = list(self.client.QueryUsers(self.db_link, {"query": "SELECT * FROM r WHERE r.id = @id",
                                                           "parameters": [{"name": "@id", "value": uid_}]}))
        self.assertEqual([x["id"] for x in found], [uid_])

        renamed = uid("renamed")
        r = self.client.ReplaceUser(link, {"id": renamed})
        self.assertEqual((r["id"], r["_rid"]), (renamed, u["_rid"]))
        self.assertFailure(lambda: self.client.ReadUser(link), 404, "NotFound", charge=METADATA_READ)
        link = self.db_link + "/users/" + renamed
        up = self.client.UpsertUser(self.db_link, {"id": renamed})
        self.assertEqual(self.last_status(), 200)
        self.assertEqual(up["_rid"], u["_rid"])
        self.client.DeleteUser(link)
        self.assertEqual(self.last_status(), 204)
        self.assertLastCharge(METADATA_WRITE)
        self.assertFailure(lambda: self.client.DeleteUser(link), 404, "NotFound")

    def test_user_failures(self):
        link, u = self.new_user()
        self.assertFailure(lambda: self.client.CreateUser(self.db_link, {"id": u["id"]}), 409, "Conflict",
                           charge=REJECTED_WRITE)
        # The SDK refuses ids with '/' itself: the raw request shows the service's 400.
        res = self.raw("POST", "/%s/users" % self.db_link, body={"id": "a/b"})
        self.assertRawError(res, 400, "BadRequest", message=r"The input name 'a/b' is invalid")
        self.assertFailure(lambda: self.client.CreateUser("dbs/" + uid("nodb"), {"id": "x"}), 404, "NotFound")
        other, _ = self.new_user()
        self.assertFailure(lambda: self.client.ReplaceUser(link, {"id": other.split("/")[-1]}), 409, "Conflict")

    # -- permissions ------------------------------------------------------------------------------

    def test_permission_crud(self):
        link, _ = self.new_user()
        p = self.client.CreatePermission(link, {"id": "p1", "permissionMode": "Read", "resource": self.coll_link})
        self.assertEqual(self.last_status(), 201)
        self.assertLastCharge(METADATA_WRITE)
        self.assertEqual(list(p.keys()),
                         ["id", "permissionMode", "resource", "_rid", "_ts", "_self", "_etag", "_token"])
        self.assertRegex(p["_token"], r"^type=resource&ver=1&sig=[A-Za-z0-9+/=]+;[A-Za-z0-9+/=]+;$")
        p2 = self.client.CreatePermission(link, {"id": "p2", "permissionMode": "all", "resource": self.coll_link,
                                                 "resourcePartitionKey": ["x"]})
        self.assertEqual((p2["permissionMode"], p2["resourcePartitionKey"]), ("all", ["x"]))
        self.assertEqual(self.client.ReadPermission(link + "/permissions/p1")["_rid"], p["_rid"])
        self.assertLastCharge(METADATA_READ)
        self.assertEqual([x["id"] for x in self.client.ReadPermissions(link)], ["p1", "p2"])
        q = list(self.client.QueryPermissions(link, "SELECT * FROM r WHERE r.permissionMode = 'all'"))
        self.assertEqual([x["id"] for x in q], ["p2"])
        r = self.client.ReplacePermission(link + "/permissions/p1",
                                          {"id": "p3", "permissionMode": "All", "resource": self.coll_link})
        self.assertEqual((r["id"], r["permissionMode"], r["_rid"]), ("p3", "All", p["_rid"]))
        self.assertFailure(lambda: self.client.ReadPermission(link + "/permissions/p1"), 404, "NotFound")
        self.client.UpsertPermission(link, {"id": "p2", "permissionMode": "Read", "resource": self.coll_link,
                                            "resourcePartitionKey": ["x"]})
        self.assertEqual(self.last_status(), 200)
        self.client.DeletePermission(link + "/permissions/p3")
        self.assertEqual(self.last_status(), 204)

    def test_permission_failures(self):
        link, _ = self.new_user()
        self.assertFailure(lambda: self.client.CreatePermission(
            link, {"id": "p", "permissionMode": "Write", "resource": self.coll_link}), 400, "BadRequest",
            message="The value of permissionMode is invalid")
        self.assertFailure(lambda: self.client.CreatePermission(
            link, {"id": "p", "permissionMode": "Read", "resource": self.db_link}), 400, "BadRequest",
            message=r"The input Resource link '%s' is invalid\." % self.db_link)
        self.assertFailure(lambda: self.client.CreatePermission(
            link, {"id": "p", "permissionMode": "Read", "resource": self.db_link + "/colls/nope"}), 404, "NotFound")
        self.assertFailure(lambda: self.client.CreatePermission(
            link, {"id": "p", "permissionMode": "Read", "resource": self.coll_link, "resourcePartitionKey": ["x", 1]}),
            400, "BadRequest", message="The resourcePartitionKey")
        self.client.CreatePermission(link, {"id": "p", "permissionMode": "Read", "resource": self.coll_link})
        self.assertFailure(lambda: self.client.CreatePermission(
            link, {"id": "q", "permissionMode": "All", "resource": self.coll_link}), 409, "Conflict")
        self.assertFailure(lambda: self.client.CreatePermission(
            link, {"id": "t", "permissionMode": "Read", "resource": self.coll_link + "/docs/a"},
            {"resourceTokenExpirySeconds": 599}), 400, "BadRequest", message="One of the specified inputs is invalid")
        self.assertFailure(lambda: self.client.ReadPermission(
            link + "/permissions/p", {"resourceTokenExpirySeconds": 86401}), 400, "BadRequest",
            message="Value '86401' specified for the header 'x-ms-documentdb-expiry-seconds' is invalid.")

    # -- resource tokens --------------------------------------------------------------------------

    def test_container_read_token(self):
        _, p = self.grant("Read", self.coll_link)
        c = self.token_client({"resourceTokens": {"c": p["_token"]}})
        self.assertEqual(c.ReadItem(self.coll_link + "/docs/a", {"partitionKey": "x"})["n"], 1)
        self.assertEqual(len(list(c.ReadItems(self.coll_link))), 2)
        q = list(c.QueryItems(self.coll_link, "SELECT VALUE c.id FROM c", {"enableCrossPartitionQuery": True}))
        self.assertEqual(sorted(q), ["a", "b"])
        self.assertEqual(c.ReadContainer(self.coll_link)["id"], "c")
        self.assertFailure(lambda: c.CreateItem(self.coll_link, {"id": uid("n"), "pk": "x"}), 403, "Forbidden",
                           message=INSUFFICIENT)
        self.assertFailure(lambda: c.DeleteItem(self.coll_link + "/docs/a", {"partitionKey": "x"}), 403, "Forbidden")
        self.assertFailure(lambda: c.DeleteContainer(self.coll_link), 403, "Forbidden")
        # A token the SDK picks for a path outside the container: 403.
        c2 = self.token_client({"resourceTokens": {"c": p["_token"], self.db_id: p["_token"]}})
        self.assertFailure(lambda: c2.ReadDatabase(self.db_link), 403, "Forbidden")
        self.assertFailure(lambda: list(c2.ReadUsers(self.db_link)), 403, "Forbidden")

    def test_partition_key_token_through_a_permission_feed(self):
        _, p = self.grant("All", self.coll_link, pk=["x"])
        c = self.token_client({"permissionFeed": [p]})
        n = uid("n")
        self.assertEqual(c.CreateItem(self.coll_link, {"id": n, "pk": "x"})["id"], n)
        self.assertFailure(lambda: c.CreateItem(self.coll_link, {"id": n, "pk": "y"}), 403, "Forbidden")
        self.assertEqual(c.ReadItem(self.coll_link + "/docs/a", {"partitionKey": "x"})["id"], "a")
        self.assertFailure(lambda: c.ReadItem(self.coll_link + "/docs/b", {"partitionKey": "y"}), 403, "Forbidden")
        got = sorted(c.QueryItems(self.coll_link, "SELECT VALUE c.id FROM c", {"partitionKey": "x"}))
        self.assertEqual(got, sorted(["a", n]))
        self.assertFailure(lambda: list(c.ReadItems(self.coll_link)), 403, "Forbidden")
        c.DeleteItem(self.coll_link + "/docs/" + n, {"partitionKey": "x"})

    def test_item_token(self):
        link, p = self.grant("Read", self.coll_link + "/docs/b")
        c = self.token_client({"resourceTokens": {"b": p["_token"], "c": p["_token"]}})
        self.assertEqual(c.ReadItem(self.coll_link + "/docs/b", {"partitionKey": "y"})["n"], 2)
        self.assertFailure(lambda: c.ReadItem(self.coll_link + "/docs/a", {"partitionKey": "x"}), 403, "Forbidden")
        self.assertFailure(lambda: c.ReplaceItem(self.coll_link + "/docs/b", {"id": "b", "pk": "y", "n": 3},
                                                 {"partitionKey": "y"}), 403, "Forbidden")
        all_ = self.client.ReplacePermission(link + "/permissions/" + p["id"],
                                             {"id": p["id"], "permissionMode": "All", "resource": p["resource"]})
        c2 = self.token_client({"resourceTokens": {"b": all_["_token"], "c": all_["_token"]}})
        self.assertEqual(c2.ReplaceItem(self.coll_link + "/docs/b", {"id": "b", "pk": "y", "n": 2},
                                        {"partitionKey": "y"})["n"], 2)

    @unittest.skipUnless(LOCAL, "moves the emulator's clock")
    def test_expired_token(self):
        link, p = self.grant("Read", self.coll_link, options={"resourceTokenExpirySeconds": 600})
        c = self.token_client({"resourceTokens": {"c": p["_token"]}})
        self.assertEqual(c.ReadItem(self.coll_link + "/docs/a", {"partitionKey": "x"})["id"], "a")
        self.clock(600)
        self.assertFailure(lambda: c.ReadItem(self.coll_link + "/docs/a", {"partitionKey": "x"}), 403, "Forbidden",
                           message=r"^The authorization token is not valid at the current time\. Please create "
                                   r"another token and retry \(token start time: .* GMT, token expiry time: .* GMT, "
                                   r"current server time: .* GMT\)\.")
        fresh = self.client.ReadPermission(link + "/permissions/" + p["id"])
        c2 = self.token_client({"resourceTokens": {"c": fresh["_token"]}})
        self.assertEqual(c2.ReadItem(self.coll_link + "/docs/a", {"partitionKey": "x"})["id"], "a")

    def test_revoked_and_forged_tokens(self):
        link, p = self.grant("Read", self.coll_link)
        c = self.token_client({"resourceTokens": {"c": p["_token"]}})
        self.assertEqual(c.ReadItem(self.coll_link + "/docs/a", {"partitionKey": "x"})["id"], "a")
        self.client.DeleteUser(link)  # its permissions, and their tokens, go with it
        self.assertFailure(lambda: c.ReadItem(self.coll_link + "/docs/a", {"partitionKey": "x"}), 403, "Forbidden",
                           message=INSUFFICIENT)
        _, p2 = self.grant("Read", self.coll_link)
        head, claims, _ = p2["_token"].split(";")
        forged = head[:-2] + ("AA" if head[-2:] != "AA" else "BB") + ";" + claims + ";"
        c2 = self.token_client({"resourceTokens": {"c": forged}})
        self.assertFailure(lambda: c2.ReadItem(self.coll_link + "/docs/a", {"partitionKey": "x"}), 401,
                           "Unauthorized", message=r"^The input authorization token can't serve the request\.")


if __name__ == "__main__":
    unittest.main()
