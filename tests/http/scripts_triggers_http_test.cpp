// Server-side JavaScript through Handle(), continued from scripts_http_test.cpp: triggers around
// item writes, and user-defined functions in queries.
#include "scripts_test_util.h"

namespace cosmos::testing {
namespace {

// ==== triggers ===================================================================================

constexpr const char* kStampPre =
    "function () { var req = getContext().getRequest(); var doc = req.getBody();"
    " doc.op = req.getOperationType(); req.setBody(doc); }";

TEST_F(ScriptsTest, PreTriggerReplacesTheBodyBeingWritten) {
  Trigger("stamp", kStampPre, "Pre", "All");
  const Headers pre = {{"x-ms-documentdb-pre-trigger-include", "stamp"}};
  auto r = Create(R"({"id":"t1","pk":"x","n":1})", kX, pre);
  ASSERT_EQ(r.status(), 201) << r;
  EXPECT_EQ(r.Str("op"), "Create");
  EXPECT_EQ(Read("t1").body(), r.body());
  EXPECT_EQ(r.Header("x-ms-session-token"), "0:-1#1");
  EXPECT_EQ(r.Header("lsn"), "1");
  EXPECT_EQ(r.Header("etag"), r.Str("_etag"));
  // The charge: the write's own (a direct create of an identical item) + 5.2 for the trigger.
  auto direct = Create(R"({"id":"t2","pk":"x","n":1,"op":"Create"})");
  ASSERT_EQ(direct.status(), 201);
  ASSERT_EQ(direct.body().size(), r.body().size());
  EXPECT_EQ(r.Charge(), json::FormatNumber(Round2(Ru(direct) + 5.2))) << direct.Charge();

  auto rep = Replace("t1", R"({"id":"t1","pk":"x","n":2})", kX, pre);
  ASSERT_EQ(rep.status(), 200) << rep;
  EXPECT_EQ(rep.Str("op"), "Replace");
  auto direct_rep = Replace("t2", R"({"id":"t2","pk":"x","n":2,"op":"Replace"})");
  ASSERT_EQ(direct_rep.body().size(), rep.body().size());
  EXPECT_EQ(rep.Charge(), json::FormatNumber(Round2(Ru(direct_rep) + 5.2)));
  auto up = Upsert(R"({"id":"t1","pk":"x","n":3})", kX, pre);
  ASSERT_EQ(up.status(), 200) << up;
  EXPECT_EQ(up.Str("op"), "Upsert");
  auto up_new = Upsert(R"({"id":"t3","pk":"x"})", kX, pre);
  ASSERT_EQ(up_new.status(), 201) << up_new;
  EXPECT_EQ(up_new.Str("op"), "Upsert");
  // Without the header the trigger does not run.
  auto plain = Create(R"({"id":"t4","pk":"x"})");
  EXPECT_EQ(plain.Str("op"), "");
  // An empty pre-trigger leaves the item as sent.
  Trigger("empty", kNoop, "Pre", "All");
  auto same = Create(R"({"id":"t5","pk":"x","k":"v"})", kX, {{"x-ms-documentdb-pre-trigger-include", "empty"}});
  ASSERT_EQ(same.status(), 201) << same;
  EXPECT_EQ(same.Str("k"), "v");
  EXPECT_EQ(same.Str("op"), "");
}

TEST_F(ScriptsTest, PreTriggerErrors) {
  // Throwing: 400 with the number as substatus, nothing written.
  Trigger("refuse", "function () { throw new Error(409, 'Error 409'); }", "Pre", "All");
  auto r = Create(R"({"id":"a","pk":"x"})", kX, {{"x-ms-documentdb-pre-trigger-include", "refuse"}});
  ExpectBadRequest(r, "409");
  EXPECT_TRUE(StartsWith(ErrorText(r), std::string(kExecPrefix) + "Error: Error 409")) << ErrorText(r);
  EXPECT_EQ(Read("a").status(), 404);
  // The partition key must not change.
  Trigger("move",
          "function () { var req = getContext().getRequest(); var d = req.getBody(); d.pk = 'y'; req.setBody(d); }",
          "Pre", "All");
  auto moved = Create(R"({"id":"a","pk":"x"})", kX, {{"x-ms-documentdb-pre-trigger-include", "move"}});
  EXPECT_EQ(moved.status(), 400) << moved;
  EXPECT_EQ(Read("a").status(), 404);
  EXPECT_EQ(Read("a", kY).status(), 404);
  // A pre-trigger has no response.
  Trigger("peek", "function () { getContext().getResponse(); }", "Pre", "All");
  auto peek = Create(R"({"id":"a","pk":"x"})", kX, {{"x-ms-documentdb-pre-trigger-include", "peek"}});
  EXPECT_EQ(peek.status(), 400) << peek;
  EXPECT_EQ(Read("a").status(), 404);
  EXPECT_EQ(Create(R"({"id":"a","pk":"x"})").Header("lsn"), "1");
}

TEST_F(ScriptsTest, PostTriggerWritesASecondItemInTheSameTransaction) {
  Trigger("audit",
          "function () { var coll = getContext().getCollection(); var doc = getContext().getResponse().getBody();"
          " coll.createDocument(coll.getSelfLink(), {id: doc.id + '-audit', pk: doc.pk}, function (err) {"
          "  if (err) throw err; }); }",
          "Post", "Create");
  auto r = Create(R"({"id":"p1","pk":"x","n":1})", kX, {{"x-ms-documentdb-post-trigger-include", "audit"}});
  ASSERT_EQ(r.status(), 201) << r;
  // The response is the stored item (the trigger did not set one).
  auto stored = Read("p1");
  EXPECT_EQ(r.body(), stored.body());
  auto audit = Read("p1-audit");
  ASSERT_EQ(audit.status(), 200) << audit;
  // The write and its trigger's write are one transaction: one LSN.
  EXPECT_EQ(r.Header("x-ms-session-token"), "0:-1#1");
  EXPECT_EQ(r.Header("lsn"), "1");
  EXPECT_EQ(ChangeFeed(), "p1@1 p1-audit@1");
  // The charge: the write's own + 5.2 + 0.35 * the audit item's create.
  auto direct = Create(R"({"id":"q1","pk":"x","n":1})");
  auto direct_audit = Create(R"({"id":"q1-audit","pk":"x"})");
  ASSERT_EQ(direct.body().size(), r.body().size());
  ASSERT_EQ(direct_audit.body().size(), audit.body().size());
  EXPECT_EQ(r.Charge(), json::FormatNumber(Round2(Ru(direct) + Round2(5.2 + 0.35 * Ru(direct_audit)))))
      << direct.Charge() << " " << direct_audit.Charge();
}

TEST_F(ScriptsTest, PostTriggerThrowingRollsBackTheOriginalWrite) {
  ASSERT_EQ(Create(R"({"id":"before","pk":"x"})").status(), 201);  // 1
  Trigger("fail", "function () { throw new Error(4444, 'Error 4444'); }", "Post", "All");
  auto r = Create(R"({"id":"a","pk":"x"})", kX, {{"x-ms-documentdb-post-trigger-include", "fail"}});
  ExpectBadRequest(r, "4444");
  EXPECT_TRUE(StartsWith(ErrorText(r), std::string(kExecPrefix) + "Error: Error 4444")) << ErrorText(r);
  EXPECT_EQ(Read("a").status(), 404);
  // A post-trigger that wrote first and then threw: neither write stays.
  Trigger("writeThenFail",
          "function () { var coll = getContext().getCollection();"
          " coll.createDocument(coll.getSelfLink(), {id: 'side', pk: 'x'}, function (err) {"
          "  if (err) throw err; throw 'always throw'; }); }",
          "Post", "All");
  auto w = Create(R"({"id":"a","pk":"x"})", kX, {{"x-ms-documentdb-post-trigger-include", "writeThenFail"}});
  ExpectBadRequest(w);
  EXPECT_EQ(ErrorText(w), std::string(kExecPrefix) + "always throw");
  EXPECT_EQ(Read("a").status(), 404);
  EXPECT_EQ(Read("side").status(), 404);
  // A replace and a delete are undone too.
  auto rep = Replace("before", R"({"id":"before","pk":"x","v":2})", kX,
                     {{"x-ms-documentdb-post-trigger-include", "fail"}});
  ExpectBadRequest(rep, "4444");
  auto del = Remove("before", kX, {{"x-ms-documentdb-post-trigger-include", "fail"}});
  ExpectBadRequest(del, "4444");
  auto still = Read("before");
  ASSERT_EQ(still.status(), 200);
  EXPECT_EQ(still.Str("v"), "");
  EXPECT_EQ(ChangeFeed(), "before@1");
  EXPECT_EQ(Create(R"({"id":"after","pk":"x"})").Header("lsn"), "2");
}

TEST_F(ScriptsTest, PostTriggerSeesTheRequestAndResponseAndMaySetTheResponse) {
  Trigger("reshape",
          "function () { var res = getContext().getResponse(); var stored = res.getBody();"
          " var req = getContext().getRequest().getBody();"
          " res.setBody({id: stored.id, hasRid: typeof stored._rid === 'string', sent: req.n,"
          "  op: getContext().getRequest().getOperationType()}); }",
          "Post", "All");
  auto r = Create(R"({"id":"r1","pk":"x","n":5})", kX, {{"x-ms-documentdb-post-trigger-include", "reshape"}});
  ASSERT_EQ(r.status(), 201) << r;
  EXPECT_EQ(r.body(), R"({"id":"r1","hasRid":true,"sent":5,"op":"Create"})");
  // What is stored is the item as written.
  auto stored = Read("r1");
  EXPECT_EQ(stored.Json()["n"].GetInt(), 5);
  EXPECT_EQ(stored.Str("hasRid"), "");
  // With both triggers: the post-trigger sees the pre-trigger's body.
  Trigger("stamp", kStampPre, "Pre", "All");
  auto both = Create(R"({"id":"r2","pk":"x","n":6})", kX,
                     {{"x-ms-documentdb-pre-trigger-include", "stamp"},
                      {"x-ms-documentdb-post-trigger-include", "reshape"}});
  ASSERT_EQ(both.status(), 201) << both;
  EXPECT_EQ(both.body(), R"({"id":"r2","hasRid":true,"sent":6,"op":"Create"})");
  EXPECT_EQ(Read("r2").Str("op"), "Create");
  EXPECT_EQ(both.Charge(), json::FormatNumber(Round2(Ru(Create(R"({"id":"r3","pk":"x","n":6,"op":"Create"})")) + 10.4)));
}

TEST_F(ScriptsTest, TriggerHeaderErrors) {
  Trigger("pre", kNoop, "Pre", "All");
  Trigger("pre2", kNoop, "Pre", "All");
  Trigger("post", kNoop, "Post", "All");
  Trigger("post2", kNoop, "Post", "All");
  Trigger("onDelete", kNoop, "Pre", "Delete");
  Trigger("postDelete", kNoop, "Post", "Delete");
  const std::string doc = R"({"id":"a","pk":"x"})";
  // The operation does not match: 400, nothing written.
  auto mismatch = Create(doc, kX, {{"x-ms-documentdb-pre-trigger-include", "onDelete"}});
  ExpectBadRequest(mismatch);
  auto post_mismatch = Create(doc, kX, {{"x-ms-documentdb-post-trigger-include", "postDelete"}});
  ExpectBadRequest(post_mismatch);
  // More than one of a kind: 400.
  auto two = Create(doc, kX, {{"x-ms-documentdb-pre-trigger-include", "pre,pre2"}});
  ExpectBadRequest(two);
  auto two_post = Create(doc, kX, {{"x-ms-documentdb-post-trigger-include", "post, post2"}});
  ExpectBadRequest(two_post);
  // Unknown: 404.
  auto unknown = Create(doc, kX, {{"x-ms-documentdb-pre-trigger-include", "nope"}});
  EXPECT_EQ(unknown.status(), 404) << unknown;
  EXPECT_EQ(unknown.Code(), "NotFound");
  auto unknown_post = Create(doc, kX, {{"x-ms-documentdb-post-trigger-include", "nope"}});
  EXPECT_EQ(unknown_post.status(), 404) << unknown_post;
  // The wrong type: 400.
  auto post_as_pre = Create(doc, kX, {{"x-ms-documentdb-pre-trigger-include", "post"}});
  ExpectBadRequest(post_as_pre);
  auto pre_as_post = Create(doc, kX, {{"x-ms-documentdb-post-trigger-include", "pre"}});
  ExpectBadRequest(pre_as_post);
  EXPECT_EQ(Read("a").status(), 404);
  // One pre and one post together are fine.
  auto ok = Create(doc, kX, {{"x-ms-documentdb-pre-trigger-include", "pre"}, {"x-ms-documentdb-post-trigger-include", "post"}});
  EXPECT_EQ(ok.status(), 201) << ok;
  EXPECT_EQ(ok.Header("lsn"), "1");
}

TEST_F(ScriptsTest, TriggerOperationMatching) {
  Trigger("onCreate", kStampPre, "Pre", "Create");
  Trigger("onReplace", kStampPre, "Pre", "Replace");
  Trigger("onUpdate", kStampPre, "Pre", "Update");
  Trigger("onDelete", kNoop, "Pre", "Delete");
  Trigger("onAll", kNoop, "Pre", "All");
  auto with = [](const char* t) { return Headers{{"x-ms-documentdb-pre-trigger-include", t}}; };
  // Create: only Create (and All).
  EXPECT_EQ(Create(R"({"id":"c1","pk":"x"})", kX, with("onCreate")).status(), 201);
  ExpectBadRequest(Create(R"({"id":"c2","pk":"x"})", kX, with("onReplace")));
  ExpectBadRequest(Create(R"({"id":"c2","pk":"x"})", kX, with("onUpdate")));
  EXPECT_EQ(Create(R"({"id":"c2","pk":"x"})", kX, with("onAll")).status(), 201);
  // An upsert that inserts matches Create; one that replaces matches Replace (and Update).
  auto ins = Upsert(R"({"id":"u1","pk":"x"})", kX, with("onCreate"));
  EXPECT_EQ(ins.status(), 201) << ins;
  EXPECT_EQ(ins.Str("op"), "Upsert");
  ExpectBadRequest(Upsert(R"({"id":"u2","pk":"x"})", kX, with("onReplace")));
  EXPECT_EQ(Read("u2").status(), 404);
  auto rep = Upsert(R"({"id":"u1","pk":"x","v":1})", kX, with("onReplace"));
  EXPECT_EQ(rep.status(), 200) << rep;
  EXPECT_EQ(Upsert(R"({"id":"u1","pk":"x","v":2})", kX, with("onUpdate")).status(), 200);
  auto refused = Upsert(R"({"id":"u1","pk":"x","v":3})", kX, with("onCreate"));
  ExpectBadRequest(refused);
  EXPECT_EQ(Read("u1").Json()["v"].GetInt(), 2);
  // Replace: Replace and Update; Delete: Delete.
  EXPECT_EQ(Replace("c1", R"({"id":"c1","pk":"x","v":1})", kX, with("onReplace")).status(), 200);
  EXPECT_EQ(Replace("c1", R"({"id":"c1","pk":"x","v":2})", kX, with("onUpdate")).status(), 200);
  ExpectBadRequest(Replace("c1", R"({"id":"c1","pk":"x","v":3})", kX, with("onCreate")));
  ExpectBadRequest(Remove("c1", kX, with("onCreate")));
  EXPECT_EQ(Read("c1").status(), 200);
  EXPECT_EQ(Remove("c1", kX, with("onDelete")).status(), 204);
  EXPECT_EQ(Read("c1").status(), 404);
  ExpectBadRequest(Create(R"({"id":"c3","pk":"x"})", kX, with("onDelete")));
}

TEST_F(ScriptsTest, PostTriggerOnDeleteSeesTheDeletedItem) {
  ASSERT_EQ(Create(R"({"id":"gone","pk":"x","v":7})").status(), 201);
  Trigger("tombstone",
          "function () { var coll = getContext().getCollection(); var old = getContext().getResponse().getBody();"
          " coll.createDocument(coll.getSelfLink(), {id: old.id + '-deleted', pk: old.pk, v: old.v},"
          "  function (err) { if (err) throw err; }); }",
          "Post", "Delete");
  auto r = Remove("gone", kX, {{"x-ms-documentdb-post-trigger-include", "tombstone"}});
  EXPECT_EQ(r.status(), 204) << r;
  EXPECT_EQ(r.body(), "");
  EXPECT_EQ(r.Header("x-ms-session-token"), "0:-1#2");  // the delete and the trigger's create: one LSN
  EXPECT_EQ(Read("gone").status(), 404);
  auto t = Read("gone-deleted");
  ASSERT_EQ(t.status(), 200) << t;
  EXPECT_EQ(t.Json()["v"].GetInt(), 7);
}

// ==== user-defined functions =====================================================================

class ScriptsUdfTest : public ScriptsTest {
 protected:
  void SetUp() override {
    ScriptsTest::SetUp();
    ASSERT_EQ(Create(R"({"id":"a","pk":"x","income":1000})").status(), 201);
    ASSERT_EQ(Create(R"({"id":"b","pk":"y","income":50})", kY).status(), 201);
    ASSERT_EQ(Create(R"({"id":"c","pk":"x","income":300})").status(), 201);
  }
};

TEST_F(ScriptsUdfTest, InSelectAndWhere) {
  Udf("tax", "function tax(income) { return income * 0.1; }");
  auto r = Query("SELECT c.id, udf.tax(c.income) AS t FROM c");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(Documents(r), R"([{"id":"a","t":100},{"id":"b","t":5},{"id":"c","t":30}])");
  auto where = Query("SELECT VALUE c.id FROM c WHERE udf.tax(c.income) > 20");
  ASSERT_EQ(where.status(), 200) << where;
  EXPECT_EQ(Documents(where), R"(["a","c"])");
  // Several arguments, strings, objects.
  Udf("pair", "function (a, b) { return a + ':' + JSON.stringify(b); }");
  auto multi = Query("SELECT VALUE udf.pair(c.id, {\"n\": c.income}) FROM c WHERE c.id = 'b'");
  ASSERT_EQ(multi.status(), 200) << multi;
  EXPECT_EQ(Documents(multi), R"(["b:{\"n\":50}"])");
  // In a single-partition query too.
  auto scoped = Post(Docs(), R"({"query":"SELECT VALUE udf.tax(c.income) FROM c"})",
                     {{"x-ms-documentdb-isquery", "true"},
                      {"content-type", "application/query+json"},
                      {"x-ms-documentdb-partitionkey", kY}});
  ASSERT_EQ(scoped.status(), 200) << scoped;
  EXPECT_EQ(Documents(scoped), "[5]");
}

TEST_F(ScriptsUdfTest, UndefinedResultDropsTheProperty) {
  Udf("big", "function (x) { if (x > 100) return x; }");
  auto r = Query("SELECT c.id, udf.big(c.income) AS b FROM c");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(Documents(r), R"([{"id":"a","b":1000},{"id":"b"},{"id":"c","b":300}])");
  auto values = Query("SELECT VALUE udf.big(c.income) FROM c");
  ASSERT_EQ(values.status(), 200) << values;
  EXPECT_EQ(Documents(values), "[1000,300]");
  // Undefined in WHERE is not true.
  auto where = Query("SELECT VALUE c.id FROM c WHERE udf.big(c.income)");
  EXPECT_EQ(Documents(where), "[]");
  auto where2 = Query("SELECT VALUE c.id FROM c WHERE udf.big(c.income) > 0");
  EXPECT_EQ(Documents(where2), R"(["a","c"])");
}

TEST_F(ScriptsUdfTest, ThrowingUdfIs400WithItsNumber) {
  Udf("bad", "function (x) { throw new Error(32766, 'Error'); }");
  auto r = Query("SELECT udf.bad(c.id) FROM c");
  ExpectBadRequest(r, "32766");
  EXPECT_TRUE(StartsWith(ErrorText(r), std::string(kExecPrefix) + "Error: Error")) << r;
  Udf("plain", "function (x) { throw new Error('nope ' + x); }");
  auto p = Query("SELECT VALUE c.id FROM c WHERE udf.plain(c.id)");
  ExpectBadRequest(p);
  EXPECT_TRUE(StartsWith(ErrorText(p), std::string(kExecPrefix) + "Error: nope ")) << r;
  // The next query works.
  Udf("id", "function (x) { return x; }");
  EXPECT_EQ(Documents(Query("SELECT VALUE udf.id(c.id) FROM c")), R"(["a","b","c"])");
}

// The service resolves a UDF when a row calls it (issue 39 item 10: its recordings show no error for
// an unknown udf.X on an empty container): nothing to evaluate, no error; a row that calls it, 400.
TEST_F(ScriptsTest, UnknownUdfFailsOnlyWhenARowCallsIt) {
  auto empty = Query("SELECT udf.nope(c.id) AS x FROM c");
  ASSERT_EQ(empty.status(), 200) << empty;
  EXPECT_EQ(Documents(empty), "[]");
  ASSERT_EQ(Create(R"({"id":"a","pk":"x"})").status(), 201);
  auto r = Query("SELECT udf.nope(c.id) AS x FROM c");
  EXPECT_EQ(r.status(), 400) << r;
  EXPECT_TRUE(Contains(r.Message(), "SC2005")) << r.Message();
  EXPECT_TRUE(Contains(r.Message(), "'udf.nope' is not a recognized user-defined function name.")) << r.Message();
  EXPECT_TRUE(Contains(r.Message(), R"("location":{"start":7,"end":21})")) << r.Message();
  // A filter that no row passes evaluates no projection.
  auto none = Query("SELECT udf.nope(c.id) AS x FROM c WHERE c.id = 'zz'");
  ASSERT_EQ(none.status(), 200) << none;
  EXPECT_EQ(Documents(none), "[]");
}

TEST_F(ScriptsUdfTest, UnknownUdfIs400) {
  auto r = Query("SELECT udf.nope(c.id) FROM c");
  EXPECT_EQ(r.status(), 400) << r;
  EXPECT_EQ(r.Code(), "BadRequest");
  EXPECT_TRUE(Contains(r.Message(), "SC2005")) << r.Message();
  EXPECT_TRUE(Contains(r.Message(), "'udf.nope' is not a recognized user-defined function name.")) << r.Message();
  // The udf. prefix is case-sensitive; a sproc of that name is not a udf.
  Sproc("tax", kNoop);
  EXPECT_EQ(Query("SELECT udf.tax(c.income) FROM c").status(), 400);
  Udf("tax", "function (x) { return x; }");
  EXPECT_EQ(Query("SELECT UDF.tax(c.income) FROM c").status(), 400);
  EXPECT_EQ(Query("SELECT udf.TAX(c.income) FROM c").status(), 400);
  EXPECT_EQ(Query("SELECT udf.tax(c.income) FROM c").status(), 200);
}

TEST_F(ScriptsUdfTest, TimeoutInAUdf) {
  config_.script_timeout_ms = 200;
  Udf("spin", "function (x) { while (true) {} }");
  auto r = Query("SELECT udf.spin(c.id) FROM c");
  EXPECT_EQ(r.status(), 408) << r;
  EXPECT_EQ(r.Code(), "RequestTimeout");
  Udf("id", "function (x) { return x; }");
  EXPECT_EQ(Query("SELECT VALUE udf.id(c.id) FROM c").status(), 200);
}

}  // namespace
}  // namespace cosmos::testing
