"""Microsoft Entra ID tokens with the Python SDK 4 (azure-cosmos), as an application sends them:
CosmosClient(url, credential=<a token credential>) instead of a key (docs/entra-id.md).

The credential stands in for a tenant's: get_token returns a JWT for the scope the SDK asks for,
whose signature the emulator does not check without --aad-keys. Each test module starts its own
emulators (the binary in COSMOS_EMULATOR_BIN) on free ports, over HTTPS (the SDK sends bearer tokens
over TLS only), trusting the certificate each one exports.
"""
import base64
import email.utils
import hashlib
import hmac
import json
import os
import re
import subprocess
import tempfile
import time
import uuid
from urllib.parse import quote

import pytest
import requests
from azure.core.credentials import AccessToken
from azure.cosmos import CosmosClient, PartitionKey, exceptions

KEY = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=="
READER = "00000000-0000-0000-0000-000000000001"
CONTRIBUTOR = "00000000-0000-0000-0000-000000000002"


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class TokenCredentialForTests:
    """A token credential: a JWT for principal `oid` and the scope asked for, valid `seconds` (negative: expired)."""

    def __init__(self, oid, seconds=3600):
        self.oid, self.seconds, self.scopes = oid, seconds, []

    def get_token(self, *scopes, **kwargs):
        scope = scopes[0]
        self.scopes.append(scope)
        audience = scope[: -len("/.default")] if scope.endswith("/.default") else scope
        exp = int(time.time()) + self.seconds
        header = b64(json.dumps({"alg": "RS256", "typ": "JWT", "kid": "py4-suite"}).encode())
        claims = b64(json.dumps({"aud": audience, "oid": self.oid, "tid": "00000000-0000-0000-0000-00000000000a",
                                 "iss": "https://sts.windows.net/00000000-0000-0000-0000-00000000000a/",
                                 "iat": exp - 3600, "nbf": exp - 3600, "exp": exp}).encode())
        return AccessToken(f"{header}.{claims}.{b64(b'not-checked-without-keys')}", max(exp, int(time.time()) + 5))


class Emulator:
    def __init__(self, *flags):
        self.dir = tempfile.mkdtemp(prefix="py4-entra-")
        self.pem = os.path.join(self.dir, "emulator.pem")
        binary = os.environ.get("COSMOS_EMULATOR_BIN", "build/emulator/cosmos-emulator")
        self.log = open(os.path.join(self.dir, "emulator.log"), "w+")
        self.proc = subprocess.Popen([binary, "--host", "127.0.0.1", "--port", "0", "--key", KEY,
                                      "--cert-export", self.pem, *flags], stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 60
        self.endpoint = None
        while time.time() < deadline and self.proc.poll() is None:
            self.log.seek(0)
            text = self.log.read()
            m = re.search(r"Now listening on: (https://127\.0\.0\.1:\d+)", text)
            if m and "Started" in text:
                self.endpoint = m.group(1) + "/"
                break
            time.sleep(0.05)
        assert self.endpoint, "the emulator did not start: " + open(self.log.name).read()

    def client(self, credential):
        return CosmosClient(self.endpoint, credential=credential, connection_verify=self.pem)

    def rbac(self, document):
        """PUT /_emulator/rbac, signed with the master key as the emulator's own endpoints are."""
        date = email.utils.formatdate(usegmt=True)
        text = f"put\n_emulator\n_emulator/rbac\n{date.lower()}\n\n"
        sig = base64.b64encode(hmac.new(base64.b64decode(KEY), text.encode(), hashlib.sha256).digest()).decode()
        r = requests.put(self.endpoint + "_emulator/rbac", data=json.dumps(document), verify=self.pem,
                         headers={"x-ms-date": date, "content-type": "application/json",
                                  "authorization": quote(f"type=master&ver=1.0&sig={sig}", safe="")})
        assert r.status_code == 200, r.text

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=30)


@pytest.fixture(scope="module")
def emulator():
    e = Emulator()
    key_client = CosmosClient(e.endpoint, credential=KEY, connection_verify=e.pem)
    db = key_client.create_database("entra")
    db.create_container("items", partition_key=PartitionKey(path="/pk"))
    yield e
    e.stop()


def assignment(role, scope, principal):
    return {"properties": {"roleDefinitionId": role, "scope": scope, "principalId": principal}}


def test_a_data_contributor_writes_reads_and_queries_and_cannot_create_containers(emulator):
    cred = TokenCredentialForTests(str(uuid.uuid4()))
    c = emulator.client(cred).get_database_client("entra").get_container_client("items")
    c.create_item({"id": "a", "pk": "p", "n": 1})
    c.upsert_item({"id": "a", "pk": "p", "n": 2})
    assert c.read_item("a", partition_key="p")["n"] == 2
    assert list(c.query_items("SELECT VALUE c.n FROM c", enable_cross_partition_query=True)) == [2]
    # The Python SDK asks for the endpoint's scope without its port.
    assert "https://127.0.0.1/.default" in cred.scopes, cred.scopes
    with pytest.raises(exceptions.CosmosHttpResponseError) as e:
        emulator.client(cred).get_database_client("entra").create_container("more", partition_key=PartitionKey(path="/pk"))
    assert (e.value.status_code, e.value.sub_status) == (403, 5300)
    assert "cannot be authorized by AAD token in data plane" in e.value.message
    with pytest.raises(exceptions.CosmosHttpResponseError) as e:
        emulator.client(cred).create_database("other")
    assert (e.value.status_code, e.value.sub_status) == (403, 5300)
    c.delete_item("a", partition_key="p")


def test_a_data_reader_reads_and_its_writes_are_5301_until_its_role_changes(emulator):
    reader = str(uuid.uuid4())
    key_items = CosmosClient(emulator.endpoint, credential=KEY, connection_verify=emulator.pem) \
        .get_database_client("entra").get_container_client("items")
    key_items.upsert_item({"id": "r", "pk": "p", "n": 7})
    emulator.rbac({"roleAssignments": [assignment(READER, "/", reader)]})
    try:
        c = emulator.client(TokenCredentialForTests(reader)).get_database_client("entra").get_container_client("items")
        assert c.read_item("r", partition_key="p")["n"] == 7
        assert list(c.query_items("SELECT VALUE c.n FROM c WHERE c.id = 'r'", partition_key="p")) == [7]
        with pytest.raises(exceptions.CosmosHttpResponseError) as e:
            c.create_item({"id": "w", "pk": "p"})
        assert (e.value.status_code, e.value.sub_status) == (403, 5301)
        assert (f"principal [{reader}] does not have required RBAC permissions to perform action "
                "[Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/items/create]") in e.value.message
        # A role change takes effect with the next request.
        emulator.rbac({"roleAssignments": [assignment(CONTRIBUTOR, "/dbs/entra/colls/items", reader)]})
        c.create_item({"id": "w", "pk": "p"})
    finally:
        emulator.rbac({"roleAssignments": [assignment(CONTRIBUTOR, "/", "*")]})


def test_an_expired_token_is_401(emulator):
    with pytest.raises(exceptions.CosmosHttpResponseError) as e:
        client = emulator.client(TokenCredentialForTests(str(uuid.uuid4()), seconds=-3600))
        client.get_database_client("entra").read()
    assert e.value.status_code == 401
    assert "Provided AAD token has been expired since" in e.value.message


def test_with_local_auth_disabled_the_key_is_refused_and_a_token_is_served():
    e = Emulator("--disable-local-auth", "true")
    try:
        with pytest.raises(exceptions.CosmosHttpResponseError) as err:
            CosmosClient(e.endpoint, credential=KEY, connection_verify=e.pem).create_database("x")
        assert err.value.status_code == 401
        assert "Local Authorization is disabled. Use an AAD token to authorize all requests." in err.value.message
        assert list(e.client(TokenCredentialForTests(str(uuid.uuid4()))).list_databases()) == []
    finally:
        e.stop()
