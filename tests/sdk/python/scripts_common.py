"""The shared part of the server-side JavaScript tests through the v3 Python SDK (3.1.1):
test_scripts_sprocs.py (stored procedure, trigger and UDF resources; executing stored procedures)
and test_scripts_triggers.py (triggers on item writes, UDFs in queries, the time and memory limits)
import the constants, the ECHO script and the ScriptTestCase base class from here.

What is asserted comes from the issue 6 spec (background: the service's own behaviour):
- ExecuteStoredProcedure: POST .../sprocs/{id} with a JSON array of parameters, 200 with the JSON of
  what the script passed to setBody ("" when never set); charge 5.2 + 0.35 x (the standalone charges
  of the operations the script did); writes commit only when the script finishes without an
  uncaught exception; writes to another partition key value are refused (callback err 400);
  uncaught throw -> 400 BadRequest with x-ms-substatus = err.number; compile error -> 400; past the
  time limit -> 408 RequestTimeout; x-ms-documentdb-script-log-results = encodeURIComponent(logs).
"""
import json
from urllib.parse import quote

import azure.cosmos.errors as errors

from harness import EmulatorTestCase, round2, uid

SPROC_BASE = 5.2
SPROC_FACTOR = 0.35
EXEC_EXCEPTION = "Encountered exception while executing function. Exception = "
COMPILE_EXCEPTION = "Encountered exception while compiling Javascript. Exception = SyntaxError"
CROSS_PK = ("Requests originating from scripts cannot reference partition keys other than the one for which "
            "client request was submitted.")
TIMEOUT_MESSAGE = "The requested operation exceeded maximum alloted time."
GUID = r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"
ZERO = object()  # "no substatus, or 0"
ANY = object()  # substatus not specified: not checked


def script_charge(*inner):
    """5.2 + 0.35 x (sum of the standalone charges of the script's operations), to 2 decimals."""
    return round2(SPROC_BASE + SPROC_FACTOR * sum(inner))


def encode_uri_component(s):
    return quote(s, safe="-_.!~*'()")


def lower(headers):
    return {k.lower(): v for k, v in headers.items()}


class ScriptTestCase(EmulatorTestCase):
    """Helpers shared by the script tests."""

    def assertScriptFailure(self, fn, status, code, substatus=ZERO, contains=()):
        """fn() must raise HTTPFailure(status) with body {code, message}; substatus ZERO means absent or 0."""
        with self.assertRaises(errors.HTTPFailure) as cm:
            fn()
        e = cm.exception
        self.assertEqual(e.status_code, status, e._http_error_message)
        body = json.loads(e._http_error_message)
        self.assertEqual(sorted(body.keys()), ["code", "message"])
        self.assertEqual(body["code"], code)
        if substatus is ZERO:
            self.assertIn(e.sub_status, (None, 0), e._http_error_message)
        elif substatus is not ANY:
            self.assertEqual(e.sub_status, substatus, e._http_error_message)
        for part in contains:
            self.assertIn(part, body["message"])
        return e, body

    def sproc(self, link, body, sproc_id=None):
        """Creates a stored procedure; returns its link."""
        sproc_id = sproc_id or uid("sp")
        self.client.CreateStoredProcedure(link, {"id": sproc_id, "body": body})
        return "%s/sprocs/%s" % (link, sproc_id)

    def execute(self, sproc_link, params, pk, **options):
        opts = {"partitionKey": pk} if pk is not None else {}
        opts.update(options)
        return self.client.ExecuteStoredProcedure(sproc_link, params, opts)

    def read(self, link, doc_id, pk):
        return self.client.ReadItem("%s/docs/%s" % (link, doc_id), {"partitionKey": pk})

    def assertMissing(self, link, doc_id, pk):
        self.assertFailure(lambda: self.read(link, doc_id, pk), 404, "NotFound")

    def ids_in(self, link, pk):
        return sorted(self.client.QueryItems(link, "SELECT VALUE c.id FROM c", {"partitionKey": pk}))

    def assertExecHeaders(self):
        h = lower(self.headers())
        self.assertEqual(self.last_status(), 200)
        self.assertIn("x-ms-request-charge", h)
        self.assertRegex(h["x-ms-session-token"], r"^\d+:-1#\d+$")
        return h



ECHO = """function echo(a, b) {
    getContext().getResponse().setBody({a: a, b: b, n: arguments.length});
}"""
