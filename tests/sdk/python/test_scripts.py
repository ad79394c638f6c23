"""Server-side JavaScript through the v3 Python SDK (3.1.1): stored procedures, triggers and UDFs.

What is asserted comes from the issue 6 spec (background: the service's own behaviour):
- sprocs / triggers / udfs under dbs/{db}/colls/{coll}/: create 201, list 200, read 200, replace 200,
  delete 204; 409 on a duplicate id, 404 on a missing one; metadata charges as for containers
  (write 1, read/list/not found 2, rejected write 1.24). Resource JSON key order
  {body,id,_rid,_ts,_self,_etag} (triggers: body,id,triggerOperation,triggerType,...), _self =
  <container _self><kind>/<rid>/, triggerType/triggerOperation stored capitalised.
- ExecuteStoredProcedure: POST .../sprocs/{id} with a JSON array of parameters, 200 with the JSON of
  what the script passed to setBody ("" when never set); charge 5.2 + 0.35 x (the standalone charges
  of the operations the script did); writes commit only when the script finishes without an
  uncaught exception; writes to another partition key value are refused (callback err 400);
  uncaught throw -> 400 BadRequest with x-ms-substatus = err.number; compile error -> 400; past the
  time limit -> 408 RequestTimeout; x-ms-documentdb-script-log-results = encodeURIComponent(logs).
- Triggers named in x-ms-documentdb-pre/post-trigger-include (SDK options preTriggerInclude /
  postTriggerInclude) on create, replace, upsert and delete; charge = the write's own charge + per
  trigger 5.2 + 0.35 x (its inner operations); a throwing post-trigger rolls the write back.
- UDFs in SELECT and WHERE, cross-partition too; a throwing UDF -> 400 + substatus.

The SDK sends the enableScriptLogging option as the header value str(True) == "True".
"""
import json
import os
import re
import sys
import threading
import time
import unittest
from urllib.parse import quote

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # also runnable as a file path

import azure.cosmos.documents as documents  # noqa: E402
import azure.cosmos.errors as errors  # noqa: E402

from harness import (LOCAL, METADATA_READ, METADATA_WRITE, REJECTED_WRITE, EmulatorTestCase,  # noqa: E402
                     create_charge, pk_header, read_charge, replace_charge, round2, uid)

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


# ------------------------------------------------------------------------------------------------
# Resources: CRUD of stored procedures, triggers and user-defined functions

class ScriptResourceTest(ScriptTestCase):
    @classmethod
    def setUpClass(cls):
        super(ScriptResourceTest, cls).setUpClass()
        cls.coll = cls.client.CreateContainer(cls.db_link, {"id": "res", "partitionKey": {"paths": ["/pk"],
                                                                                          "kind": "Hash"}})
        cls.link = cls.db_link + "/colls/res"

    KINDS = {
        "sprocs": {"create": "CreateStoredProcedure", "read": "ReadStoredProcedure",
                   "replace": "ReplaceStoredProcedure", "delete": "DeleteStoredProcedure",
                   "list": "ReadStoredProcedures", "key": "StoredProcedures",
                   "keys": ["body", "id", "_rid", "_ts", "_self", "_etag"]},
        "triggers": {"create": "CreateTrigger", "read": "ReadTrigger", "replace": "ReplaceTrigger",
                     "delete": "DeleteTrigger", "list": "ReadTriggers", "key": "Triggers",
                     "keys": ["body", "id", "triggerOperation", "triggerType", "_rid", "_ts", "_self", "_etag"]},
        "udfs": {"create": "CreateUserDefinedFunction", "read": "ReadUserDefinedFunction",
                 "replace": "ReplaceUserDefinedFunction", "delete": "DeleteUserDefinedFunction",
                 "list": "ReadUserDefinedFunctions", "key": "UserDefinedFunctions",
                 "keys": ["body", "id", "_rid", "_ts", "_self", "_etag"]},
    }

    def resource(self, kind, res_id, body, **extra):
        r = {"id": res_id, "body": body}
        if kind == "triggers":
            r["triggerType"] = extra.get("triggerType", documents.TriggerType.Pre)
            r["triggerOperation"] = extra.get("triggerOperation", documents.TriggerOperation.All)
        return r

    def crud(self, kind):
        k = self.KINDS[kind]
        c = self.client
        link, coll = self.new_container()
        body = "function (x) {\n  // n\u00e4ive \u65e5\u672c \"quoted\"\n  getContext().getResponse().setBody(x);\n}"
        res_id = uid(kind[:2])
        res_link = "%s/%s/%s" % (link, kind, res_id)

        # create
        created = getattr(c, k["create"])(link, self.resource(kind, res_id, body))
        self.assertEqual(self.last_status(), 201)
        self.assertLastCharge(METADATA_WRITE)
        self.assertEqual(list(created.keys()), k["keys"])
        self.assertEqual(created["id"], res_id)
        self.assertEqual(created["body"], body)  # stored verbatim
        if kind == "triggers":
            self.assertEqual(created["triggerType"], "Pre")
            self.assertEqual(created["triggerOperation"], "All")
        self.assertTrue(created["_rid"])
        self.assertEqual(created["_self"], "%s%s/%s/" % (coll["_self"], kind, created["_rid"]))
        self.assertRegex(created["_etag"], r'^"[^"]+"$')
        self.assertIsInstance(created["_ts"], int)
        self.assertLess(abs(created["_ts"] - time.time()), 120)

        # duplicate id -> 409
        self.assertFailure(lambda: getattr(c, k["create"])(link, self.resource(kind, res_id, body)), 409,
                           "Conflict", charge=REJECTED_WRITE)

        # read
        self.assertEqual(getattr(c, k["read"])(res_link), created)
        self.assertEqual(self.last_status(), 200)
        self.assertLastCharge(METADATA_READ)
        self.assertFailure(lambda: getattr(c, k["read"])("%s/%s/%s" % (link, kind, uid("none"))), 404, "NotFound",
                           charge=METADATA_READ)

        # list: SDK and raw shape
        other_id = uid(kind[:2])
        other = getattr(c, k["create"])(link, self.resource(kind, other_id, "function () {}"))
        self.assertNotEqual(other["_rid"], created["_rid"])
        listed = list(getattr(c, k["list"])(link))
        self.assertEqual(self.last_status(), 200)
        self.assertLastCharge(METADATA_READ)
        self.assertEqual(sorted(listed, key=lambda r: r["id"]), sorted([created, other], key=lambda r: r["id"]))
        res = self.raw("GET", "/%s/%s" % (link, kind))
        self.assertEqual(res.status, 200, res.text)
        self.assertEqual(list(res.json.keys()), ["_rid", k["key"], "_count"])
        self.assertEqual(res.json["_rid"], coll["_rid"])
        self.assertEqual(res.json["_count"], 2)
        self.assertEqual(sorted(res.json[k["key"]], key=lambda r: r["id"]),
                         sorted([created, other], key=lambda r: r["id"]))

        # replace
        new_body = "function () { getContext().getResponse().setBody('replaced'); }"
        replaced = getattr(c, k["replace"])(res_link, self.resource(kind, res_id, new_body))
        self.assertEqual(self.last_status(), 200)
        self.assertLastCharge(METADATA_WRITE)
        self.assertEqual(list(replaced.keys()), k["keys"])
        self.assertEqual(replaced["body"], new_body)
        self.assertEqual(replaced["_rid"], created["_rid"])
        self.assertEqual(replaced["_self"], created["_self"])
        self.assertNotEqual(replaced["_etag"], created["_etag"])
        self.assertEqual(getattr(c, k["read"])(res_link), replaced)
        missing = uid("none")
        self.assertFailure(lambda: getattr(c, k["replace"])("%s/%s/%s" % (link, kind, missing),
                                                            self.resource(kind, missing, new_body)),
                           404, "NotFound")

        # delete
        getattr(c, k["delete"])(res_link)
        self.assertEqual(self.last_status(), 204)
        self.assertLastCharge(METADATA_WRITE)
        self.assertFailure(lambda: getattr(c, k["read"])(res_link), 404, "NotFound")
        self.assertFailure(lambda: getattr(c, k["delete"])(res_link), 404, "NotFound")
        self.assertEqual([r["id"] for r in getattr(c, k["list"])(link)], [other_id])
        res = self.raw("GET", "/%s/%s" % (link, kind))
        self.assertEqual(res.json["_count"], 1)
        # the id is free again
        getattr(c, k["create"])(link, self.resource(kind, res_id, body))
        self.assertEqual(self.last_status(), 201)

        # missing body -> 400
        self.assertFailure(lambda: getattr(c, k["create"])(link, {k2: v for k2, v in self.resource(
            kind, uid("nobody"), body).items() if k2 != "body"}), 400, "BadRequest",
            message=re.escape("The input content is invalid because the required properties - 'body; ' - are "
                              "missing"))

        # unknown container -> 404
        self.assertFailure(lambda: getattr(c, k["create"])(self.db_link + "/colls/" + uid("nocoll"),
                                                           self.resource(kind, uid("x"), body)), 404, "NotFound")

    def test_stored_procedure_crud(self):
        self.crud("sprocs")

    def test_trigger_crud(self):
        self.crud("triggers")

    def test_udf_crud(self):
        self.crud("udfs")

    def test_trigger_type_and_operation_are_case_insensitive_and_capitalised(self):
        path = "/%s/triggers" % self.link
        cases = [("pre", "all", "Pre", "All"), ("POST", "create", "Post", "Create"), ("Pre", "UPDATE", "Pre", "Update"),
                 ("pOsT", "dElEtE", "Post", "Delete"), ("post", "Replace", "Post", "Replace")]
        for ttype, op, want_type, want_op in cases:
            with self.subTest(ttype=ttype, op=op):
                t_id = uid("tr")
                res = self.raw("POST", path, body={"id": t_id, "body": "function () {}", "triggerType": ttype,
                                                   "triggerOperation": op})
                self.assertEqual(res.status, 201, res.text)
                self.assertEqual(res.json["triggerType"], want_type)
                self.assertEqual(res.json["triggerOperation"], want_op)
                read = self.client.ReadTrigger("%s/triggers/%s" % (self.link, t_id))
                self.assertEqual((read["triggerType"], read["triggerOperation"]), (want_type, want_op))
        # through the SDK's enums (lower case on the wire)
        t = self.client.CreateTrigger(self.link, {"id": uid("tr"), "body": "function () {}",
                                                  "triggerType": documents.TriggerType.Post,
                                                  "triggerOperation": documents.TriggerOperation.Replace})
        self.assertEqual((t["triggerType"], t["triggerOperation"]), ("Post", "Replace"))

    def test_trigger_invalid_type_or_operation_is_400(self):
        path = "/%s/triggers" % self.link
        for ttype, op in (("Middle", "All"), ("Pre", "Insert"), ("Pre", "Read"), ("", "All"), ("Pre", "")):
            with self.subTest(ttype=ttype, op=op):
                res = self.raw("POST", path, body={"id": uid("bad"), "body": "function () {}", "triggerType": ttype,
                                                   "triggerOperation": op})
                self.assertRawError(res, 400, "BadRequest")

    def test_trigger_missing_type_or_operation_is_400(self):
        path = "/%s/triggers" % self.link
        for missing in ("triggerType", "triggerOperation"):
            with self.subTest(missing=missing):
                body = {"id": uid("bad"), "body": "function () {}", "triggerType": "Pre", "triggerOperation": "All"}
                del body[missing]
                res = self.raw("POST", path, body=body)
                self.assertRawError(res, 400, "BadRequest", message=re.escape(
                    "The input content is invalid because the required properties - '%s; ' - are missing" % missing))


# ------------------------------------------------------------------------------------------------
# Executing stored procedures

ECHO = """function echo(a, b) {
    getContext().getResponse().setBody({a: a, b: b, n: arguments.length});
}"""

CREATE_ONE = """function createOne(doc) {
    var c = getContext().getCollection();
    var accepted = c.createDocument(c.getSelfLink(), doc, {}, function (err, created) {
        if (err) throw err;
        getContext().getResponse().setBody(created);
    });
    if (!accepted) throw new Error('not accepted');
}"""

BUMP = """function bump(id, by) {
    var c = getContext().getCollection();
    var ok = c.readDocument(c.getAltLink() + '/docs/' + id, {}, function (err, doc) {
        if (err) throw err;
        doc.n += by;
        c.replaceDocument(doc._self, doc, {etag: doc._etag}, function (err2, replaced) {
            if (err2) throw err2;
            getContext().getResponse().setBody(replaced);
        });
    });
    if (!ok) throw new Error('not accepted');
}"""

STALE_REPLACE = """function stale(id) {
    var c = getContext().getCollection();
    c.readDocument(c.getAltLink() + '/docs/' + id, {}, function (err, doc) {
        if (err) throw err;
        doc.n = -1;
        c.replaceDocument(doc._self, doc, {etag: '"stale-etag"'}, function (err2) {
            if (err2) throw err2;
        });
    });
}"""

ROLLBACK = """function rollback(ids, existing) {
    var c = getContext().getCollection(), coll = c.getAltLink();
    c.createDocument(coll, {id: ids[0], pk: 'rb'}, {}, function (err) {
        if (err) throw err;
        c.createDocument(coll, {id: ids[1], pk: 'rb'}, {}, function (err) {
            if (err) throw err;
            c.readDocument(coll + '/docs/' + existing[0], {}, function (err, doc) {
                if (err) throw err;
                doc.v = 99;
                c.replaceDocument(doc._self, doc, {}, function (err) {
                    if (err) throw err;
                    c.deleteDocument(coll + '/docs/' + existing[1], {}, function (err) {
                        if (err) throw err;
                        throw new Error('boom');
                    });
                });
            });
        });
    });
}"""

CROSS_PARTITION = """function cross(otherPk, ownId, otherId) {
    var c = getContext().getCollection(), out = {};
    c.createDocument(c.getSelfLink(), {id: otherId, pk: otherPk}, {}, function (err) {
        out.create = err ? {number: err.number, message: String(err.message)} : 'written';
        c.upsertDocument(c.getSelfLink(), {id: otherId, pk: otherPk}, {}, function (err) {
            out.upsert = err ? {number: err.number, message: String(err.message)} : 'written';
            c.createDocument(c.getSelfLink(), {id: ownId, pk: 'own'}, {}, function (err) {
                if (err) throw err;
                getContext().getResponse().setBody(out);
            });
        });
    });
}"""

CONFLICT = """function conflict(id, rethrow) {
    var c = getContext().getCollection();
    c.createDocument(c.getSelfLink(), {id: id, pk: 'cf', second: true}, {}, function (err) {
        if (err && rethrow) throw err;
        getContext().getResponse().setBody({number: err ? err.number : null});
    });
}"""

THROWS = {
    "plain": ("function () { throw new Error('boom'); }", ZERO, [EXEC_EXCEPTION + "Error: boom", "Stack trace: "]),
    "numbered": ("function () { throw new Error(409, 'custom conflict'); }", 409,
                 [EXEC_EXCEPTION + "Error: custom conflict", "Stack trace: "]),
    "string": ("function () { throw 'plain failure'; }", ZERO, [EXEC_EXCEPTION + "plain failure"]),
    "type-error": ("function () { var x; x.y.z = 1; }", ZERO, [EXEC_EXCEPTION + "TypeError"]),
    "recursion": ("function () { function f(n) { return f(n + 1) + 1; } f(0); }", ANY, ["too much recursion"]),
}

SERVER_API = """function api(pk, otherColl) {
    var ctx = getContext(), c = ctx.getCollection(), res = ctx.getResponse();
    var coll = c.getAltLink();
    var out = {alt: coll, self: c.getSelfLink()};
    out.accepted = c.createDocument(coll, {pk: pk, kind: 'auto'}, {}, function (err, auto) {
        if (err) throw err;
        out.autoId = auto.id;
        c.upsertDocument(coll, {id: 'u1', pk: pk, v: 1}, {}, function (err, up) {
            if (err) throw err;
            out.upserted = up.v;
            c.readDocument(auto._self, {}, function (err, viaRid) {
                if (err) throw err;
                out.readViaRid = viaRid.id;
                c.readDocuments(coll, {pageSize: 100}, function (err, docs) {
                    if (err) throw err;
                    out.readIds = docs.map(function (d) { return d.id; }).sort();
                    var q = {query: 'SELECT VALUE d.id FROM d WHERE d.v >= @v', parameters: [{name: '@v', value: 1}]};
                    c.queryDocuments(coll, q, {}, function (err, ids) {
                        if (err) throw err;
                        out.queried = ids.sort();
                        c.queryDocuments(c.getSelfLink(), 'SELECT VALUE d.kind FROM d WHERE d.kind = "auto"', {},
                                         function (err, kinds) {
                            if (err) throw err;
                            out.kinds = kinds;
                            c.deleteDocument(coll + '/docs/u1', {}, function (err, opts) {
                                if (err) throw err;
                                out.deleteSecondArg = typeof opts;
                                c.readDocument(coll + '/docs/u1', {}, function (err) {
                                    out.readDeleted = err ? err.number : 'found';
                                    // a link outside the collection throws at once, as the service's wrapper does
                                    try {
                                        c.createDocument(otherColl, {id: 'x', pk: pk}, {}, function () {});
                                        out.otherColl = 'no error';
                                    } catch (e) {
                                        out.otherColl = e.number;
                                    }
                                    c.createDocument(coll, {pk: pk, kind: 'no id'},
                                                     {disableAutomaticIdGeneration: true}, function (err) {
                                        out.noId = err ? err.number : 'no error';
                                        res.setBody(out);
                                    });
                                });
                            });
                        });
                    });
                });
            });
        });
    });
}"""

PAGING = """function paging(kind) {
    var c = getContext().getCollection(), pages = [];
    function next(token) {
        var options = {pageSize: 2};
        if (token) options.continuation = token;
        var done = function (err, docs, responseOptions) {
            if (err) throw err;
            pages.push(docs.map(function (d) { return d.id; }));
            if (responseOptions.continuation) next(responseOptions.continuation);
            else getContext().getResponse().setBody(pages);
        };
        if (kind === 'feed') c.readDocuments(c.getSelfLink(), options, done);
        else c.queryDocuments(c.getSelfLink(), 'SELECT * FROM d', options, done);
    }
    next(null);
}"""

UNDERSCORE = """function under(minN) {
    var res = getContext().getResponse();
    var out = {};
    var r = __.filter(function (d) { return d.n >= minN; }, function (err, docs) {
        if (err) throw err;
        out.filtered = docs.map(function (d) { return d.id; }).sort();
        __.chain().filter(function (d) { return d.n >= minN; }).map(function (d) { return d.n * 10; })
            .value(function (err, values) {
                if (err) throw err;
                out.chained = values.sort(function (a, b) { return a - b; });
                __.pluck('n', {}, function (err, ns) {
                    if (err) throw err;
                    out.plucked = ns.sort(function (a, b) { return a - b; });
                    res.setBody(out);
                });
            });
    });
    out.isAccepted = r.isAccepted;
}"""

UNDERSCORE_NO_CALLBACK = """function underNoCallback(minN) {
    __.filter(function (d) { return d.n >= minN; });
}"""

LOG = """function logs(x) {
    console.log('The value of x is %s.', x);
    console.log(' \u00fcml\u00e4ut & / ? # + done');
}"""

CHANGE_FEED_WRITES = """function three(ids) {
    var c = getContext().getCollection();
    c.createDocument(c.getSelfLink(), {id: ids[0], pk: 'cfw'}, function (err) {
        if (err) throw err;
        c.createDocument(c.getSelfLink(), {id: ids[1], pk: 'cfw'}, function (err) {
            if (err) throw err;
            c.createDocument(c.getSelfLink(), {id: ids[2], pk: 'cfw'}, function (err) {
                if (err) throw err;
            });
        });
    });
}"""

SLOW_INCREMENT = """function slowIncrement(id) {
    var c = getContext().getCollection();
    c.readDocument(c.getAltLink() + '/docs/' + id, {}, function (err, doc) {
        if (err) throw err;
        var t = Date.now();
        while (Date.now() - t < 150) {}
        doc.n += 1;
        c.replaceDocument(doc._self, doc, {}, function (err) {
            if (err) throw err;
            getContext().getResponse().setBody(doc.n);
        });
    });
}"""


class StoredProcedureTest(ScriptTestCase):
    @classmethod
    def setUpClass(cls):
        super(StoredProcedureTest, cls).setUpClass()
        cls.coll = cls.client.CreateContainer(cls.db_link, {"id": "sp", "partitionKey": {"paths": ["/pk"],
                                                                                         "kind": "Hash"}})
        cls.link = cls.db_link + "/colls/sp"

    # -- results, parameters, charges ------------------------------------------------------------

    def test_empty_body_is_empty_string(self):
        link = self.sproc(self.link, "function () {}")
        self.assertEqual(self.execute(link, [], "p"), "")
        self.assertExecHeaders()
        self.assertLastCharge(SPROC_BASE)
        # on the wire: the JSON string ""
        res = self.raw("POST", "/%s" % link, {"x-ms-documentdb-partitionkey": pk_header("p")}, body="[]")
        self.assertEqual(res.status, 200, res.text)
        self.assertEqual(res.text, '""')
        self.assertCharge(res.headers["x-ms-request-charge"], SPROC_BASE)
        self.assertNotIn("x-ms-documentdb-script-log-results", res.headers)

    def test_set_body_values_are_json(self):
        for value, js in (("aso", "'aso'"), (42, "42"), ([1, "two", {"three": 3}], "[1, 'two', {three: 3}]"),
                          ({"nested": {"ok": True, "none": None}}, "{nested: {ok: true, none: null}}")):
            with self.subTest(js=js):
                link = self.sproc(self.link, "function () { getContext().getResponse().setBody(%s); }" % js)
                self.assertEqual(self.execute(link, [], "p"), value)
                self.assertExecHeaders()
                self.assertLastCharge(SPROC_BASE)

    def test_parameters_and_partition_key(self):
        link = self.sproc(self.link, ECHO)
        self.assertEqual(self.execute(link, [{"x": [1, "two", None]}, "s"], "p"),
                         {"a": {"x": [1, "two", None]}, "b": "s", "n": 2})
        self.assertExecHeaders()
        self.assertLastCharge(SPROC_BASE)
        # the SDK wraps a single non-list parameter in an array
        self.assertEqual(self.execute(link, {"k": 1}, "p"), {"a": {"k": 1}, "n": 1})
        self.assertEqual(self.execute(link, [], "p"), {"n": 0})
        # any partition key value works, numbers too
        self.assertEqual(self.execute(link, [1, 2], 5), {"a": 1, "b": 2, "n": 2})
        # the request body on the wire is the parameter array
        res = self.raw("POST", "/%s" % link, {"x-ms-documentdb-partitionkey": pk_header("p")}, body='[true,"x"]')
        self.assertEqual(res.status, 200, res.text)
        self.assertEqual(res.json, {"a": True, "b": "x", "n": 2})

    def test_partition_key_is_required_on_a_partitioned_container(self):
        link = self.sproc(self.link, ECHO)
        self.assertFailure(lambda: self.client.ExecuteStoredProcedure(link, []), 400, "BadRequest", substatus=1001)

    def test_container_without_partition_key_needs_none(self):
        coll_link, _ = self.new_container(False)
        link = self.sproc(coll_link, ECHO)
        self.assertEqual(self.client.ExecuteStoredProcedure(link, [7]), {"a": 7, "n": 1})
        self.assertEqual(self.last_status(), 200)

    def test_unknown_sproc_or_container_is_404(self):
        self.assertFailure(lambda: self.execute("%s/sprocs/%s" % (self.link, uid("none")), [], "p"), 404, "NotFound")
        self.assertFailure(lambda: self.execute("%s/colls/%s/sprocs/x" % (self.db_link, uid("none")), [], "p"), 404,
                           "NotFound")

    def test_replaced_body_is_executed_and_deleted_sproc_is_404(self):
        sp_id = uid("sp")
        link = self.sproc(self.link, "function () { getContext().getResponse().setBody(1); }", sp_id)
        self.assertEqual(self.execute(link, [], "p"), 1)
        self.client.ReplaceStoredProcedure(link, {"id": sp_id,
                                                  "body": "function () { getContext().getResponse().setBody(2); }"})
        self.assertEqual(self.execute(link, [], "p"), 2)
        self.client.DeleteStoredProcedure(link)
        self.assertFailure(lambda: self.execute(link, [], "p"), 404, "NotFound")

    def test_create_charge_is_base_plus_share_of_the_write(self):
        link = self.sproc(self.link, CREATE_ONE)
        doc_id = uid("c")
        created = self.execute(link, [{"id": doc_id, "pk": "cc", "tags": ["a", "b"], "n": 1}], "cc")
        h = self.assertExecHeaders()
        stored = self.read(self.link, doc_id, "cc")
        self.assertEqual(created, stored)
        for k in ("_rid", "_self", "_etag", "_ts", "_attachments"):
            self.assertIn(k, stored)
        self.assertCharge(h["x-ms-request-charge"], script_charge(create_charge(stored)))

    def test_read_modify_replace(self):
        doc_id = uid("rmr")
        original = self.client.CreateItem(self.link, {"id": doc_id, "pk": "rmr", "n": 10, "name": "counter"})
        link = self.sproc(self.link, BUMP)
        replaced = self.execute(link, [doc_id, 5], "rmr")
        h = self.assertExecHeaders()
        self.assertEqual(replaced["n"], 15)
        self.assertEqual(replaced["_rid"], original["_rid"])
        self.assertNotEqual(replaced["_etag"], original["_etag"])
        stored = self.read(self.link, doc_id, "rmr")
        self.assertEqual(stored, replaced)
        self.assertEqual({k: v for k, v in stored.items() if not k.startswith("_")},
                         {"id": doc_id, "pk": "rmr", "n": 15, "name": "counter"})
        self.assertCharge(h["x-ms-request-charge"], script_charge(read_charge(original), replace_charge(stored)))
        # again: reads the new version
        self.assertEqual(self.execute(link, [doc_id, 1], "rmr")["n"], 16)
        # a stale etag: the replace fails with 412, rethrown -> 400 + substatus 412, nothing written
        stale = self.sproc(self.link, STALE_REPLACE)
        self.assertScriptFailure(lambda: self.execute(stale, [doc_id], "rmr"), 400, "BadRequest", substatus=412,
                                 contains=[EXEC_EXCEPTION])
        self.assertEqual(self.read(self.link, doc_id, "rmr")["n"], 16)
        # a missing item: 404 rethrown -> 400 + substatus 404
        self.assertScriptFailure(lambda: self.execute(link, [uid("none"), 1], "rmr"), 400, "BadRequest",
                                 substatus=404, contains=[EXEC_EXCEPTION])

    # -- transactions --------------------------------------------------------------------------

    def test_uncaught_exception_rolls_back_every_write(self):
        existing = [uid("keep"), uid("keep")]
        kept = [self.client.CreateItem(self.link, {"id": e, "pk": "rb", "v": 1}) for e in existing]
        before = self.ids_in(self.link, "rb")
        link = self.sproc(self.link, ROLLBACK)
        ids = [uid("rb"), uid("rb")]
        self.assertScriptFailure(lambda: self.execute(link, [ids, existing], "rb"), 400, "BadRequest",
                                 contains=[EXEC_EXCEPTION + "Error: boom", "Stack trace: "])
        for doc_id in ids:
            self.assertMissing(self.link, doc_id, "rb")
        self.assertEqual(self.read(self.link, existing[0], "rb"), kept[0])  # not replaced
        self.assertEqual(self.read(self.link, existing[1], "rb"), kept[1])  # not deleted
        self.assertEqual(self.ids_in(self.link, "rb"), before)
        # the server is fine afterwards
        self.assertEqual(self.execute(self.sproc(self.link, "function () {}"), [], "rb"), "")

    def test_writes_to_another_partition_key_are_refused(self):
        link = self.sproc(self.link, CROSS_PARTITION)
        own_id, other_id = uid("own"), uid("other")
        out = self.execute(link, ["elsewhere", own_id, other_id], "own")
        self.assertExecHeaders()
        for op in ("create", "upsert"):
            self.assertIsInstance(out[op], dict, out)
            self.assertEqual(out[op]["number"], 400)
            self.assertIn(CROSS_PK, out[op]["message"])
        self.assertMissing(self.link, other_id, "elsewhere")
        self.assertEqual(self.read(self.link, own_id, "own")["id"], own_id)  # the script itself committed

    def test_rethrown_conflict_is_400_with_substatus_409(self):
        doc_id = uid("cf")
        first = self.client.CreateItem(self.link, {"id": doc_id, "pk": "cf"})
        link = self.sproc(self.link, CONFLICT)
        # caught: the callback sees err.number 409
        self.assertEqual(self.execute(link, [doc_id, False], "cf"), {"number": 409})
        # rethrown: 400, substatus 409
        e, _ = self.assertScriptFailure(lambda: self.execute(link, [doc_id, True], "cf"), 400, "BadRequest",
                                        substatus=409, contains=[EXEC_EXCEPTION + "Error: "])
        self.assertEqual(lower(e.headers)["x-ms-substatus"], "409")
        self.assertEqual(self.read(self.link, doc_id, "cf"), first)
        # no conflict: created
        fresh = uid("cf")
        self.assertEqual(self.execute(link, [fresh, True], "cf"), {"number": None})
        self.assertTrue(self.read(self.link, fresh, "cf")["second"])

    def test_thrown_values(self):
        for name, (body, substatus, contains) in THROWS.items():
            with self.subTest(name):
                link = self.sproc(self.link, body)
                self.assertScriptFailure(lambda: self.execute(link, [], "p"), 400, "BadRequest",
                                         substatus=substatus, contains=contains)
        # the raw response carries the substatus header and the error body
        link = self.sproc(self.link, THROWS["numbered"][0])
        res = self.raw("POST", "/%s" % link, {"x-ms-documentdb-partitionkey": pk_header("p")}, body="[]")
        self.assertRawError(res, 400, "BadRequest", substatus=409)
        self.assertIn(EXEC_EXCEPTION + "Error: custom conflict", res.json["message"])
        self.assertEqual(self.execute(self.sproc(self.link, ECHO), [1], "p"), {"a": 1, "n": 1})

    def test_compile_error_is_400_at_execution(self):
        link = self.sproc(self.link, "function () { This is to create a Compile Error! }")
        self.assertEqual(self.last_status(), 201)  # accepted at create time
        self.assertScriptFailure(lambda: self.execute(link, [], "p"), 400, "BadRequest", substatus=ANY,
                                 contains=[COMPILE_EXCEPTION])
        self.assertEqual(self.execute(self.sproc(self.link, "function () {}"), [], "p"), "")

    # -- server-side API -------------------------------------------------------------------------

    def test_server_side_collection_api(self):
        link_coll, coll = self.new_container()
        other = self.client.CreateContainer(self.db_link, {"id": uid("other"), "partitionKey": {"paths": ["/pk"]}})
        self.client.CreateItem(link_coll, {"id": "seed", "pk": "api", "v": 5})
        self.client.CreateItem(link_coll, {"id": "elsewhere", "pk": "not-api", "v": 5})
        link = self.sproc(link_coll, SERVER_API)
        out = self.execute(link, ["api", "%s/colls/%s" % (self.db_link, other["id"])], "api")
        self.assertExecHeaders()
        self.assertEqual(out["alt"], link_coll)
        self.assertIn(out["self"], (coll["_self"], coll["_self"].rstrip("/")))
        self.assertIs(out["accepted"], True)
        self.assertRegex(out["autoId"], GUID)
        self.assertEqual(out["upserted"], 1)
        self.assertEqual(out["readViaRid"], out["autoId"])
        # reads and queries see the request's logical partition only
        self.assertEqual(out["readIds"], sorted([out["autoId"], "seed", "u1"]))
        self.assertEqual(out["queried"], ["seed", "u1"])
        self.assertEqual(out["kinds"], ["auto"])
        self.assertEqual(out["deleteSecondArg"], "object")
        self.assertEqual(out["readDeleted"], 404)
        self.assertEqual(out["otherColl"], 400)
        self.assertEqual(out["noId"], 400)
        # committed
        self.assertEqual(self.ids_in(link_coll, "api"), sorted([out["autoId"], "seed"]))
        self.assertEqual(self.read(link_coll, out["autoId"], "api")["kind"], "auto")
        self.assertEqual(list(self.client.QueryItems("%s/colls/%s" % (self.db_link, other["id"]), "SELECT * FROM c",
                                                     {"enableCrossPartitionQuery": True})), [])

    def test_feed_and_query_paging(self):
        link_coll, _ = self.new_container()
        ids = ["p%d" % i for i in range(5)]
        for doc_id in ids:
            self.client.CreateItem(link_coll, {"id": doc_id, "pk": "pg"})
        self.client.CreateItem(link_coll, {"id": "elsewhere", "pk": "other"})
        link = self.sproc(link_coll, PAGING)
        for kind in ("feed", "query"):
            with self.subTest(kind=kind):
                pages = self.execute(link, [kind], "pg")
                self.assertEqual([len(p) for p in pages], [2, 2, 1])
                self.assertEqual(sorted(i for p in pages for i in p), ids)

    def test_underscore_query_api(self):
        link_coll, _ = self.new_container()
        for i in range(5):
            self.client.CreateItem(link_coll, {"id": "d%d" % i, "pk": "u", "n": i})
        self.client.CreateItem(link_coll, {"id": "x9", "pk": "other", "n": 9})
        link = self.sproc(link_coll, UNDERSCORE)
        out = self.execute(link, [2], "u")
        self.assertEqual(out, {"isAccepted": True, "filtered": ["d2", "d3", "d4"], "chained": [20, 30, 40],
                               "plucked": [0, 1, 2, 3, 4]})
        # without a callback the results are appended to the response body (a JSON string of the feed)
        link = self.sproc(link_coll, UNDERSCORE_NO_CALLBACK)
        body = self.execute(link, [3], "u")
        self.assertIsInstance(body, str)
        docs = json.loads(body)
        self.assertEqual(sorted(d["id"] for d in docs), ["d3", "d4"])
        self.assertEqual(sorted(docs, key=lambda d: d["id"]),
                         [self.read(link_coll, "d3", "u"), self.read(link_coll, "d4", "u")])

    def test_script_log_header(self):
        link = self.sproc(self.link, LOG)
        expected = encode_uri_component("The value of x is 1. \u00fcml\u00e4ut & / ? # + done")
        self.assertEqual(self.execute(link, [1], "p", enableScriptLogging=True), "")
        h = lower(self.headers())
        self.assertEqual(h["x-ms-documentdb-script-log-results"], expected)
        self.assertEqual(h["x-ms-documentdb-script-log-results"],
                         "The%20value%20of%20x%20is%201.%20%C3%BCml%C3%A4ut%20%26%20%2F%20%3F%20%23%20%2B%20done")
        self.assertLastCharge(SPROC_BASE)
        # without the request header: absent
        self.execute(link, [1], "p")
        self.assertNotIn("x-ms-documentdb-script-log-results", lower(self.headers()))
        # raw, with the documented value "true"
        res = self.raw("POST", "/%s" % link, {"x-ms-documentdb-partitionkey": pk_header("p"),
                                              "x-ms-documentdb-script-enable-logging": "true"}, body='["y"]')
        self.assertEqual(res.status, 200, res.text)
        self.assertEqual(res.headers["x-ms-documentdb-script-log-results"],
                         encode_uri_component("The value of x is y. \u00fcml\u00e4ut & / ? # + done"))

    def test_script_writes_appear_in_the_change_feed(self):
        link_coll, _ = self.new_container()
        ids = [uid("a"), uid("b"), uid("c")]
        self.assertEqual(self.execute(self.sproc(link_coll, CHANGE_FEED_WRITES), [ids], "cfw"), "")
        feed = list(self.client.QueryItemsChangeFeed(link_coll))
        self.assertEqual([d["id"] for d in feed], ids)
        lsns = [d["_lsn"] for d in feed]
        self.assertEqual(len(set(lsns)), 3)
        self.assertEqual(lsns, sorted(lsns))

    def test_concurrent_executions_on_one_partition_are_serialised(self):
        doc_id = uid("ctr")
        self.client.CreateItem(self.link, {"id": doc_id, "pk": "ser", "n": 0})
        link = self.sproc(self.link, SLOW_INCREMENT)
        clients = [self.make_client() for _ in range(4)]
        results, failures = [], []

        def run(c):
            try:
                results.append(c.ExecuteStoredProcedure(link, [doc_id], {"partitionKey": "ser"}))
            except Exception as e:  # reported below
                failures.append(e)

        threads = [threading.Thread(target=run, args=(c,)) for c in clients]
        for t in threads:
            t.start()
        for t in threads:
            t.join(20)
        self.assertEqual(failures, [])
        self.assertEqual(sorted(results), [1, 2, 3, 4])
        self.assertEqual(self.read(self.link, doc_id, "ser")["n"], 4)


# ------------------------------------------------------------------------------------------------
# Triggers

STAMP = """function stamp() {
    var req = getContext().getRequest();
    var doc = req.getBody();
    if (doc && typeof doc === 'object') { doc.stamp = req.getOperationType(); req.setBody(doc); }
}"""

EXPECT_DELETE = """function expectDelete() {
    var op = getContext().getRequest().getOperationType();
    if (op !== 'Delete') throw new Error(400, 'unexpected ' + op);
}"""

PRE_THROW = "function () { throw new Error(409, 'pre refused'); }"
PRE_MOVE_PK = """function movePk() {
    var req = getContext().getRequest(), doc = req.getBody();
    doc.pk = doc.pk + '-moved';
    req.setBody(doc);
}"""
PRE_RESPONSE = "function () { getContext().getResponse().getBody(); }"

POST_MARK = """function mark() {
    var res = getContext().getResponse(), doc = res.getBody();
    doc.post = true;
    res.setBody(doc);
}"""

POST_AUDIT = """function audit() {
    var c = getContext().getCollection(), doc = getContext().getResponse().getBody();
    c.createDocument(c.getSelfLink(), {id: 'audit-' + doc.id, pk: doc.pk, etag: doc._etag, rid: doc._rid}, {},
                     function (err) { if (err) throw err; });
}"""

POST_AUDIT_DELETE = """function auditDelete() {
    var c = getContext().getCollection();
    c.createDocument(c.getSelfLink(), {id: 'audit-of-delete', pk: 'del'}, {}, function (err) { if (err) throw err; });
}"""

POST_THROW = "function () { throw new Error(4444, 'post refused'); }"

POST_WRITE_THEN_THROW = """function writeThenThrow() {
    var c = getContext().getCollection(), doc = getContext().getResponse().getBody();
    c.createDocument(c.getSelfLink(), {id: 'wtt-' + doc.id, pk: doc.pk}, {}, function (err) {
        if (err) throw err;
        throw new Error('after write');
    });
}"""

TRIGGERS = [
    ("stamp-all", "Pre", "All", STAMP),
    ("stamp-create", "Pre", "Create", STAMP),
    ("stamp-replace", "Pre", "Replace", STAMP),
    ("stamp-update", "Pre", "Update", STAMP),
    ("pre-delete", "Pre", "Delete", EXPECT_DELETE),
    ("pre-noop", "Pre", "All", "function () {}"),
    ("pre-throw", "Pre", "All", PRE_THROW),
    ("pre-move-pk", "Pre", "All", PRE_MOVE_PK),
    ("pre-response", "Pre", "All", PRE_RESPONSE),
    ("post-mark", "Post", "All", POST_MARK),
    ("post-audit", "Post", "All", POST_AUDIT),
    ("post-audit-delete", "Post", "Delete", POST_AUDIT_DELETE),
    ("post-throw", "Post", "All", POST_THROW),
    ("post-write-then-throw", "Post", "All", POST_WRITE_THEN_THROW),
    ("post-create", "Post", "Create", "function () {}"),
]


def user(doc):
    return {k: v for k, v in doc.items() if not k.startswith("_")}


class TriggerTest(ScriptTestCase):
    @classmethod
    def setUpClass(cls):
        super(TriggerTest, cls).setUpClass()
        cls.client.CreateContainer(cls.db_link, {"id": "tr", "partitionKey": {"paths": ["/pk"], "kind": "Hash"}})
        cls.link = cls.db_link + "/colls/tr"
        for t_id, ttype, op, body in TRIGGERS:
            cls.client.CreateTrigger(cls.link, {"id": t_id, "body": body, "triggerType": ttype.lower(),
                                                "triggerOperation": op.lower()})

    def doc_link(self, doc_id):
        return "%s/docs/%s" % (self.link, doc_id)

    def create(self, doc, pre=None, post=None):
        opts = {"partitionKey": doc["pk"]}
        if pre:
            opts["preTriggerInclude"] = pre
        if post:
            opts["postTriggerInclude"] = post
        return self.client.CreateItem(self.link, doc, opts)

    def replace(self, doc, pre=None, post=None):
        opts = {"partitionKey": doc["pk"]}
        if pre:
            opts["preTriggerInclude"] = pre
        if post:
            opts["postTriggerInclude"] = post
        return self.client.ReplaceItem(self.doc_link(doc["id"]), doc, opts)

    def upsert(self, doc, pre=None, post=None):
        opts = {"partitionKey": doc["pk"]}
        if pre:
            opts["preTriggerInclude"] = pre
        if post:
            opts["postTriggerInclude"] = post
        return self.client.UpsertItem(self.link, doc, opts)

    def delete(self, doc_id, pk, pre=None, post=None):
        opts = {"partitionKey": pk}
        if pre:
            opts["preTriggerInclude"] = pre
        if post:
            opts["postTriggerInclude"] = post
        return self.client.DeleteItem(self.doc_link(doc_id), opts)

    def assertTriggeredCharge(self, charge, own, *inner_per_trigger):
        """charge == the write's own charge + per trigger 5.2 + 0.35 x its inner operations (either rounding
        order)."""
        exact = round2(own + sum(SPROC_BASE + SPROC_FACTOR * sum(inner) for inner in inner_per_trigger))
        per_trigger = round2(own + sum(script_charge(*inner) for inner in inner_per_trigger))
        if LOCAL:
            self.assertIn(charge, (exact, per_trigger))

    # -- pre-triggers ------------------------------------------------------------------------------

    def test_pre_trigger_on_create_replace_upsert(self):
        doc_id = uid("pre")
        created = self.create({"id": doc_id, "pk": "p", "v": 1}, pre="stamp-all")
        charge = self.charge()
        self.assertEqual(self.last_status(), 201)
        self.assertEqual(user(created), {"id": doc_id, "pk": "p", "v": 1, "stamp": "Create"})
        stored = self.read(self.link, doc_id, "p")
        self.assertEqual(stored, created)
        self.assertTriggeredCharge(charge, create_charge(stored), [])

        replaced = self.replace({"id": doc_id, "pk": "p", "v": 2}, pre="stamp-all")
        self.assertEqual(self.last_status(), 200)
        self.assertEqual(user(replaced), {"id": doc_id, "pk": "p", "v": 2, "stamp": "Replace"})
        self.assertTriggeredCharge(self.charge(), replace_charge(replaced), [])

        upserted = self.upsert({"id": doc_id, "pk": "p", "v": 3}, pre="stamp-all")
        self.assertEqual(self.last_status(), 200)
        self.assertEqual(user(upserted), {"id": doc_id, "pk": "p", "v": 3, "stamp": "Upsert"})
        self.assertTriggeredCharge(self.charge(), replace_charge(upserted), [])

        new_id = uid("ups")
        inserted = self.upsert({"id": new_id, "pk": "p", "v": 4}, pre="stamp-all")
        self.assertEqual(self.last_status(), 201)
        self.assertEqual(user(inserted), {"id": new_id, "pk": "p", "v": 4, "stamp": "Upsert"})
        self.assertTriggeredCharge(self.charge(), create_charge(inserted), [])
        self.assertEqual(self.read(self.link, new_id, "p"), inserted)

        # without the trigger header nothing runs
        plain = self.replace({"id": doc_id, "pk": "p", "v": 5})
        self.assertNotIn("stamp", plain)

    def test_pre_trigger_on_delete(self):
        doc_id = uid("del")
        self.create({"id": doc_id, "pk": "p"})
        self.delete(doc_id, "p", pre="pre-delete")  # throws unless getOperationType() == "Delete"
        self.assertEqual(self.last_status(), 204)
        self.assertMissing(self.link, doc_id, "p")
        doc_id = uid("del")
        self.create({"id": doc_id, "pk": "p"})
        self.delete(doc_id, "p", pre="pre-noop")  # an All trigger
        self.assertEqual(self.last_status(), 204)
        self.assertMissing(self.link, doc_id, "p")

    def test_trigger_operation_must_match(self):
        existing = uid("ex")
        self.create({"id": existing, "pk": "m", "v": 0})
        # (operation, trigger, expected stamp or None for a 400)
        cases = [
            ("create", "stamp-create", "Create"), ("create", "stamp-replace", None), ("create", "stamp-update", None),
            ("create", "pre-delete", None),
            ("replace", "stamp-replace", "Replace"), ("replace", "stamp-update", "Replace"),
            ("replace", "stamp-create", None), ("replace", "pre-delete", None),
            ("upsert-insert", "stamp-create", "Upsert"), ("upsert-insert", "stamp-replace", None),
            ("upsert-insert", "stamp-update", None),
            ("upsert-replace", "stamp-replace", "Upsert"), ("upsert-replace", "stamp-update", "Upsert"),
            ("upsert-replace", "stamp-create", None), ("upsert-replace", "pre-delete", None),
            ("delete", "stamp-create", None), ("delete", "stamp-replace", None),
        ]
        for op, trigger, stamp in cases:
            with self.subTest(op=op, trigger=trigger):
                before = self.read(self.link, existing, "m")
                new_id = uid("n")
                if op == "create":
                    fn = lambda: self.create({"id": new_id, "pk": "m", "v": 1}, pre=trigger)  # noqa: E731
                elif op == "replace":
                    fn = lambda: self.replace({"id": existing, "pk": "m", "v": 1}, pre=trigger)  # noqa: E731
                elif op == "upsert-insert":
                    fn = lambda: self.upsert({"id": new_id, "pk": "m", "v": 1}, pre=trigger)  # noqa: E731
                elif op == "upsert-replace":
                    fn = lambda: self.upsert({"id": existing, "pk": "m", "v": 1}, pre=trigger)  # noqa: E731
                else:
                    fn = lambda: self.delete(existing, "m", pre=trigger)  # noqa: E731
                if stamp is None:
                    self.assertScriptFailure(fn, 400, "BadRequest", substatus=ANY)
                    self.assertEqual(self.read(self.link, existing, "m"), before)
                    self.assertMissing(self.link, new_id, "m")
                else:
                    self.assertEqual(fn()["stamp"], stamp)
        # post-trigger operation mismatch too
        self.assertScriptFailure(lambda: self.replace({"id": existing, "pk": "m", "v": 9}, post="post-create"), 400,
                                 "BadRequest", substatus=ANY)
        self.assertNotEqual(self.read(self.link, existing, "m")["v"], 9)

    def test_throwing_pre_trigger_writes_nothing(self):
        doc_id = uid("pt")
        self.assertScriptFailure(lambda: self.create({"id": doc_id, "pk": "p"}, pre="pre-throw"), 400, "BadRequest",
                                 substatus=409, contains=[EXEC_EXCEPTION + "Error: pre refused"])
        self.assertMissing(self.link, doc_id, "p")
        kept = self.create({"id": doc_id, "pk": "p", "v": 1})
        self.assertScriptFailure(lambda: self.replace({"id": doc_id, "pk": "p", "v": 2}, pre="pre-throw"), 400,
                                 "BadRequest", substatus=409)
        self.assertScriptFailure(lambda: self.upsert({"id": doc_id, "pk": "p", "v": 3}, pre="pre-throw"), 400,
                                 "BadRequest", substatus=409)
        self.assertScriptFailure(lambda: self.delete(doc_id, "p", pre="pre-throw"), 400, "BadRequest", substatus=409)
        self.assertEqual(self.read(self.link, doc_id, "p"), kept)

    def test_pre_trigger_cannot_change_the_partition_key(self):
        doc_id = uid("mv")
        self.assertScriptFailure(lambda: self.create({"id": doc_id, "pk": "p"}, pre="pre-move-pk"), 400, "BadRequest",
                                 substatus=ANY)
        self.assertMissing(self.link, doc_id, "p")
        self.assertMissing(self.link, doc_id, "p-moved")

    def test_pre_trigger_has_no_response(self):
        doc_id = uid("nr")
        self.assertScriptFailure(lambda: self.create({"id": doc_id, "pk": "p"}, pre="pre-response"), 400,
                                 "BadRequest", substatus=ANY, contains=[EXEC_EXCEPTION])
        self.assertMissing(self.link, doc_id, "p")

    # -- post-triggers -----------------------------------------------------------------------------

    def test_post_trigger_changes_the_response_not_the_item(self):
        doc_id = uid("pm")
        created = self.create({"id": doc_id, "pk": "p", "v": 1}, post="post-mark")
        charge = self.charge()
        self.assertEqual(self.last_status(), 201)
        stored = self.read(self.link, doc_id, "p")
        self.assertNotIn("post", stored)
        self.assertEqual(created, dict(stored, post=True))  # the stored item (with _rid, _etag...) + post
        self.assertTriggeredCharge(charge, create_charge(stored), [])

        replaced = self.replace({"id": doc_id, "pk": "p", "v": 2}, post="post-mark")
        charge = self.charge()
        stored = self.read(self.link, doc_id, "p")
        self.assertEqual(replaced, dict(stored, post=True))
        self.assertEqual(stored["v"], 2)
        self.assertTriggeredCharge(charge, replace_charge(stored), [])

        upserted = self.upsert({"id": doc_id, "pk": "p", "v": 3}, post="post-mark")
        stored = self.read(self.link, doc_id, "p")
        self.assertEqual(upserted, dict(stored, post=True))
        self.assertEqual(stored["v"], 3)

    def test_pre_and_post_trigger_together(self):
        doc_id = uid("pp")
        created = self.create({"id": doc_id, "pk": "p"}, pre="stamp-all", post="post-mark")
        charge = self.charge()
        stored = self.read(self.link, doc_id, "p")
        self.assertEqual(user(stored), {"id": doc_id, "pk": "p", "stamp": "Create"})
        self.assertEqual(created, dict(stored, post=True))
        self.assertTriggeredCharge(charge, create_charge(stored), [], [])

    def test_post_trigger_writes_in_the_same_partition(self):
        doc_id = uid("pa")
        created = self.create({"id": doc_id, "pk": "pa", "v": 1}, post="post-audit")
        charge = self.charge()
        self.assertEqual(self.last_status(), 201)
        audit = self.read(self.link, "audit-" + doc_id, "pa")
        self.assertEqual(audit["etag"], created["_etag"])  # the post-trigger saw the stored item
        self.assertEqual(audit["rid"], created["_rid"])
        self.assertEqual(self.read(self.link, doc_id, "pa"), created)
        self.assertTriggeredCharge(charge, create_charge(created), [create_charge(audit)])
        # upsert with the same trigger: the audit id already exists -> the post-trigger throws 409 -> 400 and
        # the upsert is rolled back too
        self.assertScriptFailure(lambda: self.upsert({"id": doc_id, "pk": "pa", "v": 2}, post="post-audit"), 400,
                                 "BadRequest", substatus=409, contains=[EXEC_EXCEPTION])
        self.assertEqual(self.read(self.link, doc_id, "pa"), created)

    def test_post_trigger_on_delete(self):
        doc_id = uid("pd")
        self.create({"id": doc_id, "pk": "del"})
        self.delete(doc_id, "del", post="post-audit-delete")
        self.assertEqual(self.last_status(), 204)
        self.assertMissing(self.link, doc_id, "del")
        self.assertEqual(self.read(self.link, "audit-of-delete", "del")["pk"], "del")

    def test_throwing_post_trigger_rolls_back_the_write(self):
        doc_id = uid("ptr")
        self.assertScriptFailure(lambda: self.create({"id": doc_id, "pk": "p"}, post="post-throw"), 400, "BadRequest",
                                 substatus=4444, contains=[EXEC_EXCEPTION + "Error: post refused"])
        self.assertMissing(self.link, doc_id, "p")

        kept = self.create({"id": doc_id, "pk": "p", "v": 1})
        self.assertScriptFailure(lambda: self.replace({"id": doc_id, "pk": "p", "v": 2}, post="post-throw"), 400,
                                 "BadRequest", substatus=4444)
        self.assertEqual(self.read(self.link, doc_id, "p"), kept)
        self.assertScriptFailure(lambda: self.upsert({"id": doc_id, "pk": "p", "v": 3}, post="post-throw"), 400,
                                 "BadRequest", substatus=4444)
        self.assertEqual(self.read(self.link, doc_id, "p"), kept)
        new_id = uid("ptu")
        self.assertScriptFailure(lambda: self.upsert({"id": new_id, "pk": "p"}, post="post-throw"), 400,
                                 "BadRequest", substatus=4444)
        self.assertMissing(self.link, new_id, "p")
        self.assertScriptFailure(lambda: self.delete(doc_id, "p", post="post-throw"), 400, "BadRequest",
                                 substatus=4444)
        self.assertEqual(self.read(self.link, doc_id, "p"), kept)

        # the trigger's own write is rolled back with the item
        wid = uid("wtt")
        self.assertScriptFailure(lambda: self.create({"id": wid, "pk": "p"}, post="post-write-then-throw"), 400,
                                 "BadRequest", contains=[EXEC_EXCEPTION + "Error: after write"])
        self.assertMissing(self.link, wid, "p")
        self.assertMissing(self.link, "wtt-" + wid, "p")

    # -- naming errors -------------------------------------------------------------------------------

    def test_trigger_include_errors(self):
        doc_id = uid("ie")
        self.assertScriptFailure(lambda: self.create({"id": doc_id, "pk": "p"}, pre="no-such-trigger"), 404,
                                 "NotFound", substatus=ANY)
        self.assertScriptFailure(lambda: self.create({"id": doc_id, "pk": "p"}, post="no-such-trigger"), 404,
                                 "NotFound", substatus=ANY)
        # a post-trigger named as pre, and the reverse
        self.assertScriptFailure(lambda: self.create({"id": doc_id, "pk": "p"}, pre="post-mark"), 400, "BadRequest",
                                 substatus=ANY)
        self.assertScriptFailure(lambda: self.create({"id": doc_id, "pk": "p"}, post="stamp-all"), 400, "BadRequest",
                                 substatus=ANY)
        # more than one of a kind (the SDK joins a list with ",")
        self.assertScriptFailure(lambda: self.create({"id": doc_id, "pk": "p"}, pre=["stamp-all", "stamp-create"]),
                                 400, "BadRequest", substatus=ANY)
        self.assertScriptFailure(lambda: self.create({"id": doc_id, "pk": "p"}, post=["post-mark", "post-audit"]),
                                 400, "BadRequest", substatus=ANY)
        self.assertMissing(self.link, doc_id, "p")
        # raw: the header names on the wire
        res = self.raw("POST", "/%s/docs" % self.link, {"x-ms-documentdb-partitionkey": pk_header("p"),
                                                         "x-ms-documentdb-pre-trigger-include": "stamp-all",
                                                         "x-ms-documentdb-post-trigger-include": "post-mark"},
                       body={"id": doc_id, "pk": "p"})
        self.assertEqual(res.status, 201, res.text)
        self.assertEqual((res.json["stamp"], res.json["post"]), ("Create", True))


# ------------------------------------------------------------------------------------------------
# User-defined functions

UDF_ITEMS = [
    {"id": "u1", "pk": "a", "income": 1000, "name": "ann"},
    {"id": "u2", "pk": "b", "income": 2500, "name": "bob"},
    {"id": "u3", "pk": "c", "income": 40000, "name": "cy"},
    {"id": "u4", "pk": "a", "name": "dee"},
]


class UdfTest(ScriptTestCase):
    @classmethod
    def setUpClass(cls):
        super(UdfTest, cls).setUpClass()
        cls.client.CreateContainer(cls.db_link, {"id": "udf", "partitionKey": {"paths": ["/pk"], "kind": "Hash"}})
        cls.link = cls.db_link + "/colls/udf"
        for d in UDF_ITEMS:
            cls.client.CreateItem(cls.link, d)
        for udf_id, body in (
                ("tax", "function tax(income) { if (typeof income !== 'number') return undefined; return income / 10; }"),
                ("greet", "function greet(name, suffix) { return 'hi ' + name + suffix; }"),
                ("wrap", "function wrap(x) { return {v: x, list: [x, x]}; }"),
                ("bad", "function bad(x) { throw new Error(32766, 'udf failed'); }")):
            cls.client.CreateUserDefinedFunction(cls.link, {"id": udf_id, "body": body})

    def query(self, q, **options):
        opts = {"enableCrossPartitionQuery": True}
        opts.update(options)
        return list(self.client.QueryItems(self.link, q, opts))

    def test_udf_in_select_cross_partition(self):
        got = self.query("SELECT c.id, udf.tax(c.income) AS t FROM c")
        self.assertGreater(self.charge(), 0)
        # a UDF returning undefined drops the property
        self.assertEqual(sorted(got, key=lambda r: r["id"]),
                         [{"id": "u1", "t": 100}, {"id": "u2", "t": 250}, {"id": "u3", "t": 4000}, {"id": "u4"}])
        got = self.query("SELECT VALUE udf.greet(c.name, '!') FROM c")
        self.assertEqual(sorted(got), ["hi ann!", "hi bob!", "hi cy!", "hi dee!"])
        got = self.query("SELECT udf.wrap(c.income) AS w FROM c WHERE c.id = 'u2'")
        self.assertEqual(got, [{"w": {"v": 2500, "list": [2500, 2500]}}])
        got = self.query("SELECT c.id, udf.tax(c.income) AS t FROM c ORDER BY c.id")
        self.assertEqual(got, [{"id": "u1", "t": 100}, {"id": "u2", "t": 250}, {"id": "u3", "t": 4000},
                               {"id": "u4"}])

    def test_udf_in_where_cross_partition(self):
        self.assertEqual(sorted(self.query("SELECT VALUE c.id FROM c WHERE udf.tax(c.income) > 200")), ["u2", "u3"])
        self.assertEqual(sorted(self.query("SELECT VALUE c.id FROM c WHERE udf.greet(c.name, '') = 'hi cy'")),
                         ["u3"])
        self.assertEqual(self.query("SELECT VALUE c.id FROM c WHERE udf.tax(c.income) > 1000000"), [])

    def test_udf_with_partition_key(self):
        got = self.client.QueryItems(self.link, "SELECT c.id, udf.tax(c.income) AS t FROM c", {"partitionKey": "a"})
        self.assertEqual(sorted(got, key=lambda r: r["id"]), [{"id": "u1", "t": 100}, {"id": "u4"}])
        got = self.client.QueryItems(self.link, {"query": "SELECT VALUE c.id FROM c WHERE udf.tax(c.income) = @t",
                                                 "parameters": [{"name": "@t", "value": 250}]},
                                     {"partitionKey": "b"})
        self.assertEqual(list(got), ["u2"])

    def test_throwing_udf_is_400_with_substatus(self):
        for q in ("SELECT udf.bad(c.id) AS x FROM c", "SELECT * FROM c WHERE udf.bad(c.id) = 1"):
            with self.subTest(q=q):
                self.assertScriptFailure(lambda: self.query(q), 400, "BadRequest", substatus=32766,
                                         contains=[EXEC_EXCEPTION + "Error: udf failed"])
        self.assertScriptFailure(lambda: list(self.client.QueryItems(self.link, "SELECT udf.bad(c.id) AS x FROM c",
                                                                     {"partitionKey": "a"})),
                                 400, "BadRequest", substatus=32766, contains=[EXEC_EXCEPTION + "Error: udf failed"])
        self.assertEqual(len(self.query("SELECT * FROM c")), 4)

    def test_unknown_udf_is_400(self):
        _, body = self.assertScriptFailure(lambda: self.query("SELECT udf.nope(c.id) AS x FROM c"), 400, "BadRequest",
                                           substatus=ANY)
        self.assertIn('"code":"SC2005"', body["message"])
        # a deleted UDF is unknown again
        self.client.CreateUserDefinedFunction(self.link, {"id": "gone", "body": "function (x) { return x; }"})
        self.assertEqual(len(self.query("SELECT udf.gone(c.id) AS x FROM c")), 4)
        self.client.DeleteUserDefinedFunction(self.link + "/udfs/gone")
        _, body = self.assertScriptFailure(lambda: self.query("SELECT udf.gone(c.id) AS x FROM c"), 400, "BadRequest",
                                           substatus=ANY)
        self.assertIn('"code":"SC2005"', body["message"])


# ------------------------------------------------------------------------------------------------
# Limits: the time limit (--script-timeout-ms 1000) and the memory cap (--script-memory-mb 128)

LOOP = "function () { while (true) {} }"

WRITE_THEN_LOOP = """function writeThenLoop(id) {
    var c = getContext().getCollection();
    c.createDocument(c.getSelfLink(), {id: id, pk: 'tl'}, {}, function (err) {
        if (err) throw err;
        while (true) {}
    });
}"""

ACCEPTED = """function accepted(id) {
    var c = getContext().getCollection(), res = getContext().getResponse();
    var early = c.readDocuments(c.getSelfLink(), {pageSize: 1}, function () {});
    var t = Date.now();
    while (Date.now() - t < 850) {}
    var late = c.createDocument(c.getSelfLink(), {id: id, pk: 'tl'}, {}, function () { res.setBody('ran'); });
    res.setBody({early: early, late: late});
}"""

MEMORY = """function hog() {
    var keep = [];
    for (var i = 0; i < 48; i++) { keep.push(new Array(1 << 20).fill(i)); }  // ~384 MB, 3x the cap
    getContext().getResponse().setBody(keep.length);
}"""


class ScriptLimitsTest(ScriptTestCase):
    emulator_args = ("--script-timeout-ms", "1000", "--script-memory-mb", "128")

    @classmethod
    def setUpClass(cls):
        super(ScriptLimitsTest, cls).setUpClass()
        cls.client.CreateContainer(cls.db_link, {"id": "lim", "partitionKey": {"paths": ["/pk"], "kind": "Hash"}})
        cls.link = cls.db_link + "/colls/lim"

    def assertTimesOut(self, fn):
        start = time.time()
        self.assertScriptFailure(fn, 408, "RequestTimeout", contains=[TIMEOUT_MESSAGE])
        elapsed = time.time() - start
        if LOCAL:
            self.assertGreaterEqual(elapsed, 0.9)
            self.assertLess(elapsed, 4.0)  # the 1000 ms limit, not the 5000 ms default

    def test_infinite_loop_is_408_and_the_next_call_works(self):
        link = self.sproc(self.link, LOOP)
        self.assertTimesOut(lambda: self.execute(link, [], "tl"))
        self.assertEqual(self.execute(self.sproc(self.link, ECHO), [1], "tl"), {"a": 1, "n": 1})
        self.assertEqual(self.last_status(), 200)
        # again: still healthy
        self.assertTimesOut(lambda: self.execute(link, [], "tl"))
        self.assertEqual(self.client.CreateItem(self.link, {"id": uid("after"), "pk": "tl"})["pk"], "tl")

    def test_timeout_rolls_back_writes(self):
        doc_id = uid("tl")
        link = self.sproc(self.link, WRITE_THEN_LOOP)
        self.assertTimesOut(lambda: self.execute(link, [doc_id], "tl"))
        self.assertMissing(self.link, doc_id, "tl")

    def test_calls_are_refused_near_the_limit(self):
        doc_id = uid("late")
        link = self.sproc(self.link, ACCEPTED)
        self.assertEqual(self.execute(link, [doc_id], "tl"), {"early": True, "late": False})
        self.assertMissing(self.link, doc_id, "tl")

    def test_memory_cap_is_400(self):
        link = self.sproc(self.link, MEMORY)
        self.assertScriptFailure(lambda: self.execute(link, [], "tl"), 400, "BadRequest",
                                 contains=["Exception = Error: Out of memory"])
        self.assertEqual(self.execute(self.sproc(self.link, ECHO), [2], "tl"), {"a": 2, "n": 1})


if __name__ == "__main__":
    unittest.main()
