"""Shared harness for the Python SDK tests (Debian's python3-azure-cosmos 3.1.1, run with /usr/bin/python3).

- start_emulator(): starts build/emulator/cosmos-emulator (or $COSMOS_EMULATOR_BIN) on a free port
  (--port 0; the port is read back from its "Now listening on: http://host:port" line once it
  printed "Started"; scheme="https" picks the HTTPS one), or, when
  $COSMOS_ENDPOINT is set, uses that endpoint with $COSMOS_KEY and starts nothing.
- EmulatorTestCase: one emulator per test class, a client whose HTTP statuses are recorded
  (the v3 SDK does not expose them), signed raw requests, and the request-charge model of
  emulator/charge/charge.cpp.
"""
import atexit
import base64
import email.utils
import hashlib
import hmac
import json
import os
import re
import subprocess
import threading
import time
import unittest
import uuid
import warnings
from urllib.parse import quote, unquote

import requests

import azure.cosmos.cosmos_client as cosmos_client
import azure.cosmos.documents as documents
import azure.cosmos.errors as errors

WELL_KNOWN_KEY = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=="
HERE = os.path.dirname(os.path.abspath(__file__))
EMULATOR_BIN = os.environ.get("COSMOS_EMULATOR_BIN") or os.path.normpath(
    os.path.join(HERE, "..", "..", "..", "build", "emulator", "cosmos-emulator"))
# Emulator-model assertions (request charges) only hold against the local binary.
LOCAL = not os.environ.get("COSMOS_ENDPOINT")

REJECTED_WRITE = 1.24
METADATA_READ = 2.0
METADATA_WRITE = 1.0


class Emulator(object):
    def __init__(self, endpoint, key, process=None):
        self.endpoint = endpoint
        self.key = key
        self.process = process
        self.output = []

    def stop(self):
        p = self.process
        if p is None or p.poll() is not None:
            return
        p.terminate()
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        if p.stdout:
            p.stdout.close()


def _drain(stream, sink):
    try:
        for line in stream:
            sink.append(line)
    except (ValueError, OSError):
        pass  # closed by stop()


def start_emulator(extra_args=(), scheme="http"):
    if not LOCAL:
        endpoint = os.environ["COSMOS_ENDPOINT"]
        if not endpoint.endswith("/"):
            endpoint += "/"
        return Emulator(endpoint, os.environ.get("COSMOS_KEY", WELL_KNOWN_KEY))
    proc = subprocess.Popen(
        [EMULATOR_BIN, "--host", "127.0.0.1", "--port", "0", "--threads", "2"] + list(extra_args),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    emu = Emulator(None, WELL_KNOWN_KEY, proc)
    atexit.register(emu.stop)
    deadline = time.time() + 10
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            if proc.poll() is not None:
                raise RuntimeError("emulator exited before starting: " + "".join(emu.output))
            continue
        emu.output.append(line)
        m = re.match(r"Now listening on: (%s://\S+)$" % scheme, line.strip())
        if m:
            emu.endpoint = m.group(1) + "/"
        if line.strip() == "Started":
            if not emu.endpoint:
                raise RuntimeError("no %s listener: %s" % (scheme, "".join(emu.output)))
            # keep draining the log so the pipe never fills up
            threading.Thread(target=_drain, args=(proc.stdout, emu.output), daemon=True).start()
            return emu
    emu.stop()
    raise RuntimeError("emulator did not start in 10 s: " + "".join(emu.output))


def new_client(endpoint, key, consistency_level=documents.ConsistencyLevel.Session):
    """A v3 CosmosClient whose HTTP response statuses are recorded in client.statuses, and the
    responses themselves in client.responses."""
    client = cosmos_client.CosmosClient(endpoint, {"masterKey": key}, consistency_level=consistency_level)
    client.statuses = []
    client.responses = []

    def hook(response, *args, **kwargs):
        client.statuses.append(response.status_code)
        client.responses.append(response)

    client._requests_session.hooks["response"].append(hook)
    return client


def uid(prefix="t"):
    return "%s-%s" % (prefix, uuid.uuid4().hex[:10])


# ------------------------------------------------------------------------------------------------
# Signed raw requests

def rfc1123(ts=None):
    return email.utils.formatdate(ts if ts is not None else time.time(), usegmt=True)


def resource_address(path):
    segs = [unquote(s) for s in path.split("?")[0].split("/") if s]
    if not segs:
        return "", ""
    if len(segs) % 2 == 0:
        return segs[-2], "/".join(segs)
    return segs[-1], "/".join(segs[:-1])


def sign(key, verb, rtype, link, date):
    text = "%s\n%s\n%s\n%s\n\n" % (verb.lower(), rtype.lower(), link, date.lower())
    sig = base64.b64encode(hmac.new(base64.b64decode(key), text.encode("utf-8"), hashlib.sha256).digest()).decode()
    return quote("type=master&ver=1.0&sig=" + sig, safe="-_.!~*'()")


class RawResponse(object):
    def __init__(self, r):
        self.status = r.status_code
        self.headers = {k.lower(): v for k, v in r.headers.items()}
        self.content = r.content
        self.text = r.content.decode("utf-8", "replace")
        try:
            self.json = json.loads(self.text) if self.text else None
        except ValueError:
            self.json = None


def raw_request(emu, method, path, headers=None, body=None, date=None, key=None, auth=True, sign_as=None,
                verify=True):
    """One request with master-key auth. body: str/bytes sent as-is, anything else JSON-encoded.
    verify: as requests takes it (a CA bundle path to trust the emulator's certificate)."""
    date = date if isinstance(date, str) else rfc1123(date)
    h = {"x-ms-version": "2020-07-15", "x-ms-date": date, "accept": "application/json"}
    if auth:
        rtype, link = sign_as or resource_address(path)
        h["authorization"] = sign(key or emu.key, method, rtype, link, date)
    if body is not None:
        if not isinstance(body, (str, bytes)):
            body = json.dumps(body, separators=(",", ":"))
        if isinstance(body, str):
            body = body.encode("utf-8")
        h["content-type"] = "application/json"
    for k, v in (headers or {}).items():
        if v is None:
            h.pop(k, None)
        else:
            h[k] = v
    return RawResponse(requests.request(method, emu.endpoint.rstrip("/") + path, headers=h, data=body,
                                        verify=verify))


def emulator_clock(emu, **body):
    """The emulator's clock (docs/change-feed.md): GET it (open) or, with a body, POST it signed with the
    master key (resource type "_emulator", link "_emulator/clock", as resource_address derives them)."""
    if not body:
        return raw_request(emu, "GET", "/_emulator/clock", auth=False)
    return raw_request(emu, "POST", "/_emulator/clock", body=body)


def doc_path(db, coll, doc_id=None):
    base = "/dbs/%s/colls/%s/docs" % (quote(db, safe=""), quote(coll, safe=""))
    return base if doc_id is None else base + "/" + quote(doc_id, safe="")


def pk_header(*values):
    return json.dumps(list(values), separators=(",", ":"))


# ------------------------------------------------------------------------------------------------
# Request charges (emulator/charge/charge.cpp, docs/request-units.md)

SYSTEM_NOT_INDEXED = {"_rid", "_self", "_etag", "_attachments"}


def compact(doc):
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False)


def count_terms(doc):
    def walk(v):
        if isinstance(v, dict):
            return sum(walk(x) for x in v.values()) if v else 1
        if isinstance(v, list):
            return sum(walk(x) for x in v) if v else 1
        return 1
    return sum(walk(v) for k, v in doc.items() if k not in SYSTEM_NOT_INDEXED)


def kb_of(doc_or_bytes):
    if isinstance(doc_or_bytes, dict):
        doc_or_bytes = compact(doc_or_bytes).encode("utf-8")
    if isinstance(doc_or_bytes, int):
        return doc_or_bytes / 1024.0
    return len(doc_or_bytes) / 1024.0


def round2(x):
    # std::round: half away from zero (all charges are positive)
    return int(x * 100 + 0.5) / 100.0


def _create_model(doc, size, terms):
    """Create = 4.6 + 0.6 KB + 0.38 T, unrounded; T defaults to the default policy's count."""
    kb = kb_of(size if size is not None else doc)
    return 4.6 + 0.6 * kb + 0.38 * (count_terms(doc) if terms is None else terms)


def create_charge(doc, size=None, terms=None):
    return round2(_create_model(doc, size, terms))


def replace_charge(doc, size=None):
    return round2(1.85 * _create_model(doc, size, None))


delete_charge = create_charge


def read_charge(doc, size=None):
    kb = kb_of(size if size is not None else doc)
    return round2(max(1.0, 1 + 0.1 * (kb - 1)))


def feed_charge(docs):
    kb = sum(kb_of(d) for d in docs)
    return round2(2.7 + 0.1 * len(docs) + 0.068 * kb)


class EmulatorTestCase(unittest.TestCase):
    """One emulator (and one database, self.db_id) per test class."""

    maxDiff = None
    emulator_args = ()

    @classmethod
    def setUpClass(cls):
        # the SDK leaves pooled keep-alive sockets to the garbage collector
        warnings.simplefilter("ignore", ResourceWarning)
        cls.emu = start_emulator(cls.emulator_args)
        cls.clients = []
        try:
            cls.client = cls.make_client()
            cls.db_id = uid("db")
            cls.client.CreateDatabase({"id": cls.db_id})
            cls.db_link = "dbs/" + cls.db_id
        except Exception:
            cls.emu.stop()
            raise

    @classmethod
    def tearDownClass(cls):
        try:
            cls.client.DeleteDatabase(cls.db_link)
        except Exception:
            pass
        for c in cls.clients:
            c._requests_session.close()
        cls.emu.stop()

    @classmethod
    def make_client(cls, key=None, consistency_level=documents.ConsistencyLevel.Session):
        c = new_client(cls.emu.endpoint, key or cls.emu.key, consistency_level)
        cls.clients.append(c)
        return c

    # -- helpers --------------------------------------------------------------------------------

    def raw(self, method, path, headers=None, body=None, **kw):
        return raw_request(self.emu, method, path, headers, body, **kw)

    def last_status(self, client=None):
        return (client or self.client).statuses[-1]

    def headers(self, client=None):
        return (client or self.client).last_response_headers

    def charge(self, client=None):
        return float(self.headers(client)["x-ms-request-charge"])

    def query_pages(self, start, client=None):
        """The response headers of the query requests sent since client.responses[start] (a query
        the gateway serves across partitions answers one partition per page)."""
        return [r.headers for r in (client or self.client).responses[start:]
                if r.request.method == "POST" and r.request.headers.get("x-ms-documentdb-isquery")]

    def assertCharge(self, actual, expected, msg=None):
        if LOCAL:
            self.assertEqual(float(actual), expected, msg)

    def assertLastCharge(self, expected, client=None):
        self.assertCharge(self.charge(client), expected)

    def assertSessionToken(self, token):
        self.assertRegex(token, r"^0:-1#\d+$")
        return int(token.split("#")[1])

    def assertFailure(self, fn, status, code=None, substatus=None, message=None, charge=None):
        """fn() must raise HTTPFailure(status); returns (error, parsed body). The SDK does not update
        last_response_headers on failures: the charge is read from the error's headers."""
        with self.assertRaises(errors.HTTPFailure) as cm:
            fn()
        e = cm.exception
        self.assertEqual(e.status_code, status, e._http_error_message)
        body = json.loads(e._http_error_message)
        self.assertEqual(sorted(body.keys()), ["code", "message"])
        if code is not None:
            self.assertEqual(body["code"], code)
        self.assertEqual(e.sub_status, substatus)
        if message is not None:
            self.assertRegex(body["message"], message)
        if charge is not None:
            self.assertCharge(e.headers["x-ms-request-charge"], charge)
        return e, body

    def assertRawError(self, res, status, code, substatus=None, message=None):
        self.assertEqual(res.status, status, res.text)
        self.assertEqual(res.json["code"], code)
        self.assertEqual(res.headers.get("x-ms-substatus"), None if substatus is None else str(substatus))
        if message is not None:
            self.assertRegex(res.json["message"], message)

    def new_container(self, partition_key=None, **extra):
        body = {"id": uid("c")}
        if partition_key is not False:
            body["partitionKey"] = partition_key or {"paths": ["/pk"], "kind": "Hash"}
        body.update(extra)
        coll = self.client.CreateContainer(self.db_link, body)
        return "%s/colls/%s" % (self.db_link, coll["id"]), coll
