"""Resources of the service beyond items and scripts, through the v3 Python SDK (3.1.1) and signed
raw requests where the SDK has no API.

- Conflicts (ReadConflicts, QueryConflicts, ReadConflict, DeleteConflict): the feed is empty (one
  write region never conflicts), {"_rid": <container rid>, "Conflicts": [], "_count": 0}, a
  conflict id answers 404; metadata read charge.
- Delete by partition key (POST .../operations/partitionkeydelete, the v4 SDKs'
  delete_all_items_by_partition_key): 200 with an empty body, every item of the key gone, others
  kept; signed as the JavaScript SDK signs it ("colls") or as the Python and .NET SDKs do
  ("partitionkey"); 400/1001 without a key.
- Client encryption keys (/dbs/{db}/clientencryptionkeys): create 201, read, list, query, replace
  with If-Match (412 when stale), 409, 404; and the container's clientEncryptionPolicy (stored,
  returned, fixed on replace, its keys must exist).
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # also runnable as a file path

from harness import (METADATA_READ, METADATA_WRITE, REJECTED_WRITE, EmulatorTestCase, pk_header,  # noqa: E402
                     uid)


def key_body(key_id, wrapped="AAECAwQFBgc=", value="https://vault/keys/k/1"):
    return {"id": key_id, "encryptionAlgorithm": "AEAD_AES_256_CBC_HMAC_SHA256", "wrappedDataEncryptionKey": wrapped,
            "keyWrapMetadata": {"type": "AZURE_KEY_VAULT", "name": "kek", "value": value, "algorithm": "RSA-OAEP"}}


def included(path, key, kind="Deterministic"):
    return {"path": path, "clientEncryptionKeyId": key, "encryptionType": kind,
            "encryptionAlgorithm": "AEAD_AES_256_CBC_HMAC_SHA256"}


class ResourcesTest(EmulatorTestCase):
    @classmethod
    def setUpClass(cls):
        super(ResourcesTest, cls).setUpClass()
        cls.coll_link = cls.db_link + "/colls/c"
        cls.coll = cls.client.CreateContainer(cls.db_link, {"id": "c", "partitionKey": {"paths": ["/pk"],
                                                                                         "kind": "Hash"}})

    # -- conflicts --------------------------------------------------------------------------------

    def test_conflicts_feed_is_empty(self):
        self.assertEqual(list(self.client.ReadConflicts(self.coll_link)), [])
        self.assertLastCharge(METADATA_READ)
        # a query over every partition must say so, as for items (Microsoft's Python 4 test_partition_key)
        self.assertEqual(list(self.client.QueryConflicts(self.coll_link, "SELECT * FROM c",
                                                         {"enableCrossPartitionQuery": True})), [])
        self.assertLastCharge(METADATA_READ)
        res = self.raw("GET", "/" + self.coll_link + "/conflicts")
        self.assertEqual(res.status, 200, res.text)
        self.assertEqual(res.json, {"_rid": self.coll["_rid"], "Conflicts": [], "_count": 0})

    def test_one_conflict_is_not_found(self):
        self.assertFailure(lambda: self.client.ReadConflict(self.coll_link + "/conflicts/x"), 404, "NotFound")
        self.assertFailure(lambda: self.client.DeleteConflict(self.coll_link + "/conflicts/x"), 404, "NotFound")

    # -- delete by partition key -------------------------------------------------------------------

    def pk_delete(self, coll_link, pk, sign_type=None):
        path = "/" + coll_link + "/operations/partitionkeydelete"
        headers = {} if pk is None else {"x-ms-documentdb-partitionkey": pk}
        sign_as = (sign_type, coll_link) if sign_type else None
        return self.raw("POST", path, headers=headers, sign_as=sign_as or ("colls", coll_link))

    def test_partition_key_delete(self):
        link, _ = self.new_container()
        for i, pk in (("a1", "a"), ("a2", "a"), ("b1", "b")):
            self.client.CreateItem(link, {"id": i, "pk": pk})
        res = self.pk_delete(link, pk_header("a"))
        self.assertEqual(res.status, 200, res.text)
        self.assertEqual(res.text, "")
        self.assertCharge(res.headers["x-ms-request-charge"], METADATA_WRITE)
        ids = sorted(d["id"] for d in self.client.QueryItems(link, "SELECT * FROM c",
                                                             {"enableCrossPartitionQuery": True}))
        self.assertEqual(ids, ["b1"])
        # Signed the way the Python and .NET SDKs sign it.
        res = self.pk_delete(link, pk_header("b"), sign_type="partitionkey")
        self.assertEqual(res.status, 200, res.text)
        self.assertEqual(list(self.client.ReadItems(link)), [])
        # Any other resource type in the signature: 401.
        self.assertEqual(self.pk_delete(link, pk_header("b"), sign_type="docs").status, 401)
        self.assertRawError(self.pk_delete(link, None), 400, "BadRequest", substatus=1001)

    # -- client encryption keys --------------------------------------------------------------------

    def test_client_encryption_keys(self):
        base = "/" + self.db_link + "/clientencryptionkeys"
        res = self.raw("POST", base, body=key_body("k1"))
        self.assertEqual(res.status, 201, res.text)
        self.assertCharge(res.headers["x-ms-request-charge"], METADATA_WRITE)
        k = res.json
        self.assertEqual(list(k.keys()), ["id", "encryptionAlgorithm", "wrappedDataEncryptionKey", "keyWrapMetadata",
                                          "_rid", "_self", "_etag", "_ts"])
        self.assertEqual(k["keyWrapMetadata"], key_body("k1")["keyWrapMetadata"])
        self.assertEqual(res.headers["etag"], k["_etag"])
        read = self.raw("GET", base + "/k1")
        self.assertEqual(read.status, 200, read.text)
        self.assertEqual(read.json, k)
        self.assertCharge(read.headers["x-ms-request-charge"], METADATA_READ)
        self.assertEqual(self.raw("GET", base + "/k1", headers={"if-none-match": k["_etag"]}).status, 304)
        dup = self.raw("POST", base, body=key_body("k1"))
        self.assertRawError(dup, 409, "Conflict")
        self.assertCharge(dup.headers["x-ms-request-charge"], REJECTED_WRITE)
        self.assertRawError(self.raw("GET", base + "/nope"), 404, "NotFound")
        self.assertRawError(self.raw("POST", base, body={"id": "k2"}), 400, "BadRequest")
        # Replace (a rewrap), with If-Match.
        new = self.raw("PUT", base + "/k1", headers={"if-match": k["_etag"]},
                       body=key_body("k1", wrapped="CAkKCw==", value="https://vault/keys/k/2"))
        self.assertEqual(new.status, 200, new.text)
        self.assertEqual(new.json["wrappedDataEncryptionKey"], "CAkKCw==")
        self.assertEqual(new.json["_rid"], k["_rid"])
        stale = self.raw("PUT", base + "/k1", headers={"if-match": k["_etag"]}, body=key_body("k1"))
        self.assertRawError(stale, 412, "PreconditionFailed")
        # List and query.
        lst = self.raw("GET", base)
        self.assertEqual(lst.status, 200, lst.text)
        self.assertEqual(lst.json["ClientEncryptionKeys"], [new.json])
        self.assertEqual(lst.json["_count"], 1)
        q = self.raw("POST", base, headers={"x-ms-documentdb-isquery": "true",
                                            "content-type": "application/query+json"},
                     body={"query": "SELECT VALUE k.keyWrapMetadata['value'] FROM k"})
        self.assertEqual(q.status, 200, q.text)
        self.assertEqual(q.json["ClientEncryptionKeys"], ["https://vault/keys/k/2"])

    def test_client_encryption_policy(self):
        self.raw("POST", "/" + self.db_link + "/clientencryptionkeys", body=key_body("pk1"))
        policy = {"includedPaths": [included("/pk", "pk1"), included("/s", "pk1", "Randomized")],
                  "policyFormatVersion": 2}
        cid = uid("e")
        coll = self.client.CreateContainer(self.db_link, {"id": cid, "partitionKey": {"paths": ["/pk"]},
                                                          "clientEncryptionPolicy": policy})
        self.assertEqual(coll["clientEncryptionPolicy"], policy)
        link = self.db_link + "/colls/" + cid
        read = self.client.ReadContainer(link)
        self.assertEqual(read["clientEncryptionPolicy"], policy)
        del read["clientEncryptionPolicy"]
        self.assertFailure(lambda: self.client.ReplaceContainer(link, read), 400, "BadRequest",
                           message=r"'clientEncryptionPolicy' cannot be changed as part of collection replace")
        self.assertFailure(lambda: self.client.CreateContainer(self.db_link, {
            "id": uid("e"), "partitionKey": {"paths": ["/pk"]},
            "clientEncryptionPolicy": {"includedPaths": [included("/s", "missing")]}}), 400, "BadRequest")


if __name__ == "__main__":
    unittest.main()
