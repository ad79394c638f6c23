"""Server-side JavaScript through the v3 Python SDK (3.1.1), part 2 of 2: triggers on item writes,
UDFs in queries, and the time and memory limits. Part 1 (the script resources and executing stored
procedures) is test_scripts_sprocs.py; the shared base class and constants, with the spec of
ExecuteStoredProcedure, are in scripts_common.py.

What is asserted comes from the issue 6 spec (background: the service's own behaviour):
- Triggers named in x-ms-documentdb-pre/post-trigger-include (SDK options preTriggerInclude /
  postTriggerInclude) on create, replace, upsert and delete; charge = the write's own charge + per
  trigger 5.2 + 0.35 x (its inner operations); a throwing post-trigger rolls the write back.
- UDFs in SELECT and WHERE, cross-partition too; a throwing UDF -> 400 + substatus.
- Past the time limit -> 408 RequestTimeout (see scripts_common.py for the rest of
  ExecuteStoredProcedure).
"""
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # also runnable as a file path

from harness import LOCAL, create_charge, pk_header, replace_charge, round2, uid  # noqa: E402
from scripts_common import (ANY, ECHO, EXEC_EXCEPTION, SPROC_BASE, SPROC_FACTOR, TIMEOUT_MESSAGE,  # noqa: E402
                            ScriptTestCase, script_charge)


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

    def test_type_and_operation_come_back_as_sent(self):
        # The service keeps triggerType and triggerOperation in the case they were sent in (Microsoft's
        # Python SDK tests send documents.TriggerType.Pre == "pre" and assert they read it back).
        for t_id, ttype, op, _ in TRIGGERS[:3]:
            read = self.client.ReadTrigger(self.link + "/triggers/" + t_id)
            self.assertEqual((read["triggerType"], read["triggerOperation"]), (ttype.lower(), op.lower()))
        listed = {t["id"]: t for t in self.client.ReadTriggers(self.link)}
        self.assertEqual((listed["post-create"]["triggerType"], listed["post-create"]["triggerOperation"]),
                         ("post", "create"))

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
