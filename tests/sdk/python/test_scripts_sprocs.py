"""Server-side JavaScript through the v3 Python SDK (3.1.1), part 1 of 2: the stored procedure, trigger
and UDF resources, and executing stored procedures. Part 2 (triggers on item writes, UDFs in queries,
the time and memory limits) is test_scripts_triggers.py; the shared base class and constants, with
the spec of ExecuteStoredProcedure, are in scripts_common.py.

What is asserted comes from the issue 6 spec (background: the service's own behaviour):
- sprocs / triggers / udfs under dbs/{db}/colls/{coll}/: create 201, list 200, read 200, replace 200,
  delete 204; 409 on a duplicate id, 404 on a missing one; metadata charges as for containers
  (write 1, read/list/not found 2, rejected write 1.24). Resource JSON key order
  {body,id,_rid,_ts,_self,_etag} (triggers: body,id,triggerOperation,triggerType,...), _self =
  <container _self><kind>/<rid>/, triggerType/triggerOperation stored capitalised.
- ExecuteStoredProcedure: see scripts_common.py.

The SDK sends the enableScriptLogging option as the header value str(True) == "True".
"""
import json
import os
import re
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # also runnable as a file path

import azure.cosmos.documents as documents  # noqa: E402

from harness import (METADATA_READ, METADATA_WRITE, REJECTED_WRITE, create_charge, pk_header,  # noqa: E402
                     read_charge, replace_charge, uid)
from scripts_common import (ANY, COMPILE_EXCEPTION, CROSS_PK, ECHO, EXEC_EXCEPTION, GUID,  # noqa: E402
                            SPROC_BASE, ZERO, ScriptTestCase, encode_uri_component, lower, script_charge)


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
        if kind == "triggers":  # as sent (the SDK's enums are lower case)
            self.assertEqual(created["triggerType"], documents.TriggerType.Pre)
            self.assertEqual(created["triggerOperation"], documents.TriggerOperation.All)
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

    def test_trigger_type_and_operation_are_case_insensitive_and_kept_as_sent(self):
        # The service returns them as sent (Microsoft's Python SDK tests assert "pre" comes back "pre").
        path = "/%s/triggers" % self.link
        cases = [("pre", "all"), ("POST", "create"), ("Pre", "UPDATE"), ("pOsT", "dElEtE"), ("post", "Replace")]
        for ttype, op in cases:
            want_type, want_op = ttype, op
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
        self.assertEqual((t["triggerType"], t["triggerOperation"]),
                         (documents.TriggerType.Post, documents.TriggerOperation.Replace))

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
        # one transaction, one LSN (the service keeps a transaction's writes together in the feed)
        lsns = [d["_lsn"] for d in feed]
        self.assertEqual(len(set(lsns)), 1)

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




if __name__ == "__main__":
    unittest.main()
