// Server-side JavaScript through Handle(): stored procedure, trigger and user-defined function
// resources (create, read, list, replace, delete and their errors); stored procedure execution
// (parameters, response body, charges, session tokens, the script log, errors, time and memory
// limits, transactions and rollback, the partition a script may touch, the change feed); triggers
// around item writes; user-defined functions in queries. The engine alone is tested in
// tests/unit/scripting_test.cpp and the store's transactions in tests/unit/transaction_test.cpp.
#include "scripts_test_util.h"

namespace cosmos::testing {
namespace {

// ==== resources ==================================================================================

TEST_F(ScriptsTest, SprocCreateReadListInServiceKeyOrder) {
  const std::string body = "function () { getContext().getResponse().setBody('hi'); }";
  auto r = CreateSproc("s1", body);
  ASSERT_EQ(r.status(), 201) << r;
  const std::string rid = "AQBAAIAAAAEBAAAAAAAAgA==";  // container rid + script number 1 + the sproc marker 0x80
  const std::string etag = r.Header("etag");
  EXPECT_TRUE(std::regex_match(etag, kEtag)) << etag;
  const std::string expected = SprocJson("sprocs", body, "s1", rid, Now(), etag);
  EXPECT_EQ(r.body(), expected);
  EXPECT_EQ(r.Charge(), "1");
  EXPECT_EQ(r.Header("content-type"), "application/json");

  auto read = Get(Coll() + "/sprocs/s1");
  ASSERT_EQ(read.status(), 200) << read;
  EXPECT_EQ(read.body(), expected);
  EXPECT_EQ(read.Header("etag"), etag);
  EXPECT_EQ(read.Charge(), "2");

  auto list = Get(Coll() + "/sprocs");
  ASSERT_EQ(list.status(), 200) << list;
  EXPECT_EQ(list.body(), std::string("{\"_rid\":\"") + kCollRid + "\",\"StoredProcedures\":[" + expected +
                             "],\"_count\":1}");
  EXPECT_EQ(list.Header("x-ms-item-count"), "1");
  EXPECT_EQ(list.Charge(), "2");

  // A second one lists after the first.
  auto r2 = CreateSproc("s2", kNoop);
  ASSERT_EQ(r2.status(), 201) << r2;
  EXPECT_EQ(r2.Str("_rid"), "AQBAAIAAAAECAAAAAAAAgA==");
  list = Get(Coll() + "/sprocs");
  EXPECT_EQ(list.body(), std::string("{\"_rid\":\"") + kCollRid + "\",\"StoredProcedures\":[" + expected + "," +
                             r2.body() + "],\"_count\":2}");
  EXPECT_EQ(list.Header("x-ms-item-count"), "2");
}

TEST_F(ScriptsTest, TriggerAndUdfResourcesInServiceKeyOrder) {
  // triggerType and triggerOperation are case-insensitive on input and kept as sent (Microsoft's
  // Python SDK tests, run against the service, send "pre" and "all" and assert they read them back).
  const std::string tbody = "function () { }";
  auto t = CreateTrigger("t1", tbody, "pre", "create");
  ASSERT_EQ(t.status(), 201) << t;
  const std::string trid = "AQBAAIAAAAEBAAAAAAAAcA==";
  const std::string texpected = TriggerJson(tbody, "t1", "create", "pre", trid, Now(), t.Header("etag"));
  EXPECT_EQ(t.body(), texpected);
  EXPECT_EQ(t.Charge(), "1");
  EXPECT_EQ(Get(Coll() + "/triggers/t1").body(), texpected);
  EXPECT_EQ(Get(Coll() + "/triggers").body(),
            std::string("{\"_rid\":\"") + kCollRid + "\",\"Triggers\":[" + texpected + "],\"_count\":1}");

  for (const auto& [type, op, want_type, want_op] :
       std::vector<std::tuple<std::string, std::string, std::string, std::string>>{
           {"POST", "ALL", "Post", "All"},
           {"Pre", "update", "Pre", "Update"},
           {"post", "Delete", "Post", "Delete"},
           {"pRe", "rePlace", "Pre", "Replace"}}) {
    auto r = CreateTrigger("t-" + want_type + want_op, tbody, type, op);
    ASSERT_EQ(r.status(), 201) << r;
    EXPECT_EQ(r.Str("triggerType"), type);
    EXPECT_EQ(r.Str("triggerOperation"), op);
  }

  const std::string ubody = "function tax(income) { return income * 0.1; }";
  auto u = CreateUdf("tax", ubody);
  ASSERT_EQ(u.status(), 201) << u;
  const std::string urid = "AQBAAIAAAAEGAAAAAAAAYA==";  // script number 6 of the container, the udf marker 0x60
  const std::string uexpected = SprocJson("udfs", ubody, "tax", urid, Now(), u.Header("etag"));
  EXPECT_EQ(u.body(), uexpected);
  EXPECT_EQ(u.Charge(), "1");
  EXPECT_EQ(Get(Coll() + "/udfs/tax").body(), uexpected);
  EXPECT_EQ(Get(Coll() + "/udfs").body(),
            std::string("{\"_rid\":\"") + kCollRid + "\",\"UserDefinedFunctions\":[" + uexpected + "],\"_count\":1}");
  // The kinds are separate: an id may repeat across them, and each list holds only its own.
  ASSERT_EQ(CreateSproc("tax", kNoop).status(), 201);
  EXPECT_EQ(Get(Coll() + "/sprocs").Json()["_count"].GetInt(), 1);
  EXPECT_EQ(Get(Coll() + "/triggers").Json()["_count"].GetInt(), 5);
  EXPECT_EQ(Get(Coll() + "/udfs").Json()["_count"].GetInt(), 1);
  // Empty lists.
  MakeContainer("db", "empty");
  auto rid = Get("/dbs/db/colls/empty").Str("_rid");
  EXPECT_EQ(Get("/dbs/db/colls/empty/triggers").body(), "{\"_rid\":\"" + rid + "\",\"Triggers\":[],\"_count\":0}");
}

TEST_F(ScriptsTest, DuplicateIdIs409AndMissingIs404) {
  Sproc("s", kNoop);
  Trigger("t", kNoop, "Pre", "All");
  Udf("u", "function (x) { return x; }");
  auto dup = CreateSproc("s", "function () { return 1; }");
  EXPECT_EQ(dup.status(), 409) << dup;
  EXPECT_EQ(dup.Code(), "Conflict");
  EXPECT_EQ(CreateTrigger("t", kNoop, "Post", "All").status(), 409);
  EXPECT_EQ(CreateUdf("u", kNoop).status(), 409);
  // The original stays.
  EXPECT_EQ(Get(Coll() + "/sprocs/s").Str("body"), kNoop);

  for (const std::string kind : {"sprocs", "triggers", "udfs"}) {
    auto read = Get(Coll() + "/" + kind + "/missing");
    EXPECT_EQ(read.status(), 404) << kind << " " << read;
    EXPECT_EQ(read.Code(), "NotFound") << kind;
    auto del = Delete(Coll() + "/" + kind + "/missing");
    EXPECT_EQ(del.status(), 404) << kind << " " << del;
    std::string body = "{\"id\":\"missing\",\"body\":\"function () {}\"";
    if (kind == "triggers") body += ",\"triggerType\":\"Pre\",\"triggerOperation\":\"All\"";
    auto put = Put(Coll() + "/" + kind + "/missing", body + "}");
    EXPECT_EQ(put.status(), 404) << kind << " " << put;
    // A missing container.
    EXPECT_EQ(Get("/dbs/db/colls/nope/" + kind).status(), 404) << kind;
    EXPECT_EQ(Post("/dbs/db/colls/nope/" + kind, body + "}").status(), 404) << kind;
  }
  auto exec = Exec("missing");
  EXPECT_EQ(exec.status(), 404) << exec;
  EXPECT_EQ(exec.Code(), "NotFound");
}

TEST_F(ScriptsTest, ReplaceKeepsTheRidAndTheNewBodyRuns) {
  Sproc("s", "function () { getContext().getResponse().setBody(1); }");
  auto first = Exec("s");
  ASSERT_EQ(first.status(), 200) << first;
  EXPECT_EQ(first.body(), "1");
  auto before = Get(Coll() + "/sprocs/s");
  wall_.Advance(3000);
  const std::string body2 = "function () { getContext().getResponse().setBody(2); }";
  auto r = Put(Coll() + "/sprocs/s", "{\"id\":\"s\",\"body\":" + Quote(body2) + "}");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.Charge(), "1");
  EXPECT_EQ(r.body(), SprocJson("sprocs", body2, "s", before.Str("_rid"), Now(), r.Header("etag")));
  EXPECT_NE(r.Header("etag"), before.Header("etag"));
  EXPECT_EQ(Get(Coll() + "/sprocs/s").body(), r.body());
  // The cached compiled script is not reused for the new version.
  auto second = Exec("s");
  ASSERT_EQ(second.status(), 200) << second;
  EXPECT_EQ(second.body(), "2");
  // If-Match with a stale etag: 412; the id in the body must match the URL.
  auto stale = Put(Coll() + "/sprocs/s", "{\"id\":\"s\",\"body\":\"function () {}\"}",
                   {{"If-Match", before.Header("etag")}});
  EXPECT_EQ(stale.status(), 412) << stale;
  auto other = Put(Coll() + "/sprocs/s", "{\"id\":\"t\",\"body\":\"function () {}\"}");
  EXPECT_EQ(other.status(), 400) << other;
  EXPECT_EQ(Exec("s").body(), "2");
  // Triggers replace their type and operation too.
  Trigger("t", kNoop, "Pre", "All");
  auto rt = Put(Coll() + "/triggers/t",
                "{\"id\":\"t\",\"body\":\"function () {}\",\"triggerType\":\"post\",\"triggerOperation\":\"delete\"}");
  ASSERT_EQ(rt.status(), 200) << rt;
  EXPECT_EQ(rt.Str("triggerType"), "post");
  EXPECT_EQ(rt.Str("triggerOperation"), "delete");
}

TEST_F(ScriptsTest, DeleteIs204ThenGone) {
  Sproc("s", kNoop);
  Udf("u", "function (x) { return x; }");
  auto del = Delete(Coll() + "/sprocs/s");
  EXPECT_EQ(del.status(), 204) << del;
  EXPECT_EQ(del.body(), "");
  EXPECT_EQ(del.Charge(), "1");
  EXPECT_EQ(Get(Coll() + "/sprocs/s").status(), 404);
  EXPECT_EQ(Exec("s").status(), 404);
  EXPECT_EQ(Delete(Coll() + "/sprocs/s").status(), 404);
  EXPECT_EQ(Get(Coll() + "/sprocs").body(),
            std::string("{\"_rid\":\"") + kCollRid + "\",\"StoredProcedures\":[],\"_count\":0}");
  // A deleted udf is no longer known to queries (a row that calls it: here the one row of a query
  // without FROM); the id can be created again.
  EXPECT_EQ(Delete(Coll() + "/udfs/u").status(), 204);
  EXPECT_EQ(Query("SELECT udf.u(1) AS v").status(), 400);
  EXPECT_EQ(CreateSproc("s", kNoop).status(), 201);
}

TEST_F(ScriptsTest, MissingPropertiesAndInvalidTriggerValuesAre400) {
  auto missing = Post(Coll() + "/sprocs", R"({"id":"s"})");
  ExpectBadRequest(missing);
  EXPECT_TRUE(StartsWith(ErrorText(missing),
                         "The input content is invalid because the required properties - 'body; ' - are missing"))
      << ErrorText(missing);
  auto null_body = Post(Coll() + "/udfs", R"({"id":"u","body":null})");
  ExpectBadRequest(null_body);
  EXPECT_TRUE(Contains(ErrorText(null_body), "required properties - 'body; ' - are missing")) << null_body;

  auto no_type = Post(Coll() + "/triggers", R"({"id":"t","body":"function () {}","triggerOperation":"All"})");
  ExpectBadRequest(no_type);
  EXPECT_TRUE(Contains(ErrorText(no_type), "required properties - 'triggerType; ' - are missing")) << no_type;
  auto no_op = Post(Coll() + "/triggers", R"({"id":"t","body":"function () {}","triggerType":"Pre"})");
  ExpectBadRequest(no_op);
  EXPECT_TRUE(Contains(ErrorText(no_op), "required properties - 'triggerOperation; ' - are missing")) << no_op;
  auto nothing = Post(Coll() + "/triggers", R"({"id":"t"})");
  ExpectBadRequest(nothing);
  EXPECT_TRUE(Contains(ErrorText(nothing), "required properties - 'body; triggerType; triggerOperation; ' - are missing"))
      << nothing;

  auto bad_type = CreateTrigger("t", kNoop, "Middle", "All");
  ExpectBadRequest(bad_type);
  EXPECT_EQ(ErrorText(bad_type), "The value of triggerType is invalid: it must be Pre or Post.");
  // "Insert" is in an old REST document but the service refuses it.
  auto bad_op = CreateTrigger("t", kNoop, "Pre", "Insert");
  ExpectBadRequest(bad_op);
  EXPECT_EQ(ErrorText(bad_op),
            "The value of triggerOperation is invalid: it must be All, Create, Update, Delete or Replace.");
  auto numeric_type = Post(Coll() + "/triggers",
                           R"({"id":"t","body":"function () {}","triggerType":1,"triggerOperation":"All"})");
  ExpectBadRequest(numeric_type);

  auto no_id = Post(Coll() + "/sprocs", R"({"body":"function () {}"})");
  ExpectBadRequest(no_id);
  auto not_json = Post(Coll() + "/sprocs", R"({"id":"s",)");
  ExpectBadRequest(not_json);
  // Nothing was created by any of these.
  EXPECT_EQ(Get(Coll() + "/sprocs").Json()["_count"].GetInt(), 0);
  EXPECT_EQ(Get(Coll() + "/triggers").Json()["_count"].GetInt(), 0);
  EXPECT_EQ(Get(Coll() + "/udfs").Json()["_count"].GetInt(), 0);
}

// ==== stored procedure execution =================================================================

TEST_F(ScriptsTest, EmptySprocCostsFivePointTwoAndAnswersAnEmptyString) {
  Sproc("noop", kNoop);
  auto r = Exec("noop");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.body(), "\"\"");
  EXPECT_EQ(r.Charge(), "5.2");
  EXPECT_EQ(r.Header("x-ms-session-token"), "0:-1#0");
  EXPECT_EQ(r.Header("lsn"), "0");
  EXPECT_EQ(r.Header("x-ms-documentdb-partitionkeyrangeid"), "0");
  EXPECT_EQ(r.Header("x-ms-alt-content-path"), "dbs/db/colls/c");
  EXPECT_FALSE(r.Has("x-ms-documentdb-script-log-results"));
  // The session token follows the partition's LSN.
  ASSERT_EQ(Create(R"({"id":"a","pk":"x"})").status(), 201);
  ASSERT_EQ(Create(R"({"id":"b","pk":"y"})", kY).status(), 201);
  auto after = Exec("noop", "[]", kY);
  EXPECT_EQ(after.Header("x-ms-session-token"), "0:-1#2");
  EXPECT_EQ(after.Charge(), "5.2");
  // No body at all is an empty parameter list.
  auto empty = Exec("noop", "");
  EXPECT_EQ(empty.status(), 200) << empty;
}

TEST_F(ScriptsTest, ParametersAndTheResponseBody) {
  Sproc("echo", kEcho);
  auto r = Exec("echo", R"([1,"two",{"x":[3,null]}])");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.body(), std::string(R"({"a":1,"b":"two","c":{"x":[3,null]},"alt":"dbs/db/colls/c","self":")") +
                          kCollSelf + "\"}");
  EXPECT_EQ(r.Charge(), "5.2");
  // Fewer parameters: the rest are undefined (and leave the body).
  auto one = Exec("echo", "[true]");
  EXPECT_EQ(one.body(), std::string(R"({"a":true,"alt":"dbs/db/colls/c","self":")") + kCollSelf + "\"}");
  // Any JSON the script sets: a number, a string, null, an array.
  Sproc("n", "function () { getContext().getResponse().setBody(42); }");
  EXPECT_EQ(Exec("n").body(), "42");
  Sproc("s", "function () { getContext().getResponse().setBody('text'); }");
  EXPECT_EQ(Exec("s").body(), "\"text\"");
  Sproc("arr", "function (xs) { getContext().getResponse().setBody(xs.map(function (x) { return x * 2; })); }");
  EXPECT_EQ(Exec("arr", "[[1,2,3]]").body(), "[2,4,6]");
  // The parameters must be a JSON array.
  auto obj = Exec("echo", R"({"a":1})");
  ExpectBadRequest(obj);
  auto bad = Exec("echo", "[1,");
  EXPECT_EQ(bad.status(), 400) << bad;
}

TEST_F(ScriptsTest, ExecutionNeedsThePartitionKeyAndRefusesTriggers) {
  Sproc("noop", kNoop);
  auto no_pk = Post(Coll() + "/sprocs/noop", "[]");
  EXPECT_EQ(no_pk.status(), 400) << no_pk;
  EXPECT_EQ(no_pk.Code(), "BadRequest");
  Trigger("t", kNoop, "Pre", "All");
  auto with_trigger = Exec("noop", "[]", kX, {{"x-ms-documentdb-pre-trigger-include", "t"}});
  ExpectBadRequest(with_trigger);
  auto with_post = Exec("noop", "[]", kX, {{"x-ms-documentdb-post-trigger-include", "t"}});
  EXPECT_EQ(with_post.status(), 400) << with_post;
}

TEST_F(ScriptsTest, ChargeIsTheFormulaOverTheStandaloneChargesOfTheInnerOperations) {
  // One create: 5.2 + 0.35 * what a direct create of an identical item costs.
  auto direct = Create(R"({"id":"d1","pk":"x","n":1,"s":"abc"})");
  ASSERT_EQ(direct.status(), 201) << direct;
  Sproc("create", kCreateOne);
  auto r = Exec("create", R"([{"id":"d2","pk":"x","n":1,"s":"abc"}])");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.body(), "\"\"");
  EXPECT_EQ(r.Charge(), ScriptCharge(Ru(direct))) << direct.Charge();
  auto made = Read("d2");
  ASSERT_EQ(made.status(), 200) << made;
  EXPECT_EQ(made.body().size(), direct.body().size());
  EXPECT_EQ(made.Str("s"), "abc");
  EXPECT_EQ(r.Header("x-ms-session-token"), "0:-1#2");
  EXPECT_EQ(r.Header("lsn"), "2");

  // Create, then read it back, then replace it and read feed: each at its standalone price.
  auto direct_read = Read("d1");
  auto direct_replace = Replace("d1", R"({"id":"d1","pk":"x","n":2,"s":"abc"})");
  ASSERT_EQ(direct_replace.status(), 200) << direct_replace;
  Sproc("several",
        "function () { var coll = getContext().getCollection(); var link = coll.getAltLink() + '/docs/d3';"
        " coll.createDocument(coll.getSelfLink(), {id: 'd3', pk: 'x', n: 1, s: 'abc'}, function (err) {"
        "  if (err) throw err;"
        "  coll.readDocument(link, function (err, doc) {"
        "   if (err) throw err; doc.n = 2;"
        "   coll.replaceDocument(link, doc, function (err, replaced) {"
        "    if (err) throw err; getContext().getResponse().setBody(replaced.n); }); }); }); }");
  auto s = Exec("several");
  ASSERT_EQ(s.status(), 200) << s;
  EXPECT_EQ(s.body(), "2");
  EXPECT_EQ(s.Charge(), ScriptCharge(Ru(direct) + Ru(direct_read) + Ru(direct_replace)))
      << direct.Charge() << " " << direct_read.Charge() << " " << direct_replace.Charge();
  // A failed inner operation (409) is charged as the failed direct request would be (1.24 RU).
  Sproc("conflict",
        "function () { var coll = getContext().getCollection();"
        " coll.createDocument(coll.getSelfLink(), {id: 'd1', pk: 'x'}, function (err) {"
        "  getContext().getResponse().setBody(err.number); }); }");
  auto c = Exec("conflict");
  ASSERT_EQ(c.status(), 200) << c;
  EXPECT_EQ(c.body(), "409");
  EXPECT_EQ(c.Charge(), ScriptCharge(1.24));
  EXPECT_EQ(c.Charge(), "5.63");
}

TEST_F(ScriptsTest, ScriptLogHeaderIsPercentEncodedAndOnlyWhenAsked) {
  Sproc("log",
        "function () { var x = 1; console.log('The value of x is %s.', x); console.log(' a&b=c/\u00e9!~*()\\'');"
        " getContext().getResponse().setBody('ok'); }");
  auto r = Exec("log", "[]", kX, {{"x-ms-documentdb-script-enable-logging", "true"}});
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.body(), "\"ok\"");
  // encodeURIComponent("The value of x is 1." + " a&b=c/é!~*()'"), no separator between calls.
  EXPECT_EQ(r.Header("x-ms-documentdb-script-log-results"),
            "The%20value%20of%20x%20is%201.%20a%26b%3Dc%2F%C3%A9!~*()'");
  auto quiet = Exec("log");
  EXPECT_EQ(quiet.status(), 200);
  EXPECT_FALSE(quiet.Has("x-ms-documentdb-script-log-results"));
  auto off = Exec("log", "[]", kX, {{"x-ms-documentdb-script-enable-logging", "false"}});
  EXPECT_FALSE(off.Has("x-ms-documentdb-script-log-results"));
  // The log comes back on a failed execution too (the .NET SDK reads it from the exception).
  Sproc("logThenThrow", "function () { console.log('before %s', 'failing'); throw new Error('x'); }");
  auto failed = Exec("logThenThrow", "[]", kX, {{"x-ms-documentdb-script-enable-logging", "true"}});
  EXPECT_EQ(failed.status(), 400) << failed;
  EXPECT_EQ(failed.Header("x-ms-documentdb-script-log-results"), "before%20failing");
}

TEST_F(ScriptsTest, UncaughtThrowIs400WithTheErrorNumberAsSubstatus) {
  Sproc("noop", kNoop);
  Sproc("boom", "function () { throw new Error('boom'); }");
  auto r = Exec("boom");
  ExpectBadRequest(r);  // a plain Error has no number: no substatus
  EXPECT_TRUE(StartsWith(ErrorText(r), std::string(kExecPrefix) + "Error: boom\r\nStack trace: ")) << ErrorText(r);
  EXPECT_EQ(r.Charge(), "5.2");

  Sproc("numbered", "function () { throw new Error(1234, 'Error 1234'); }");
  auto n = Exec("numbered");
  ExpectBadRequest(n, "1234");
  EXPECT_TRUE(StartsWith(ErrorText(n), std::string(kExecPrefix) + "Error: Error 1234")) << ErrorText(n);

  Sproc("str", "function () { throw 'always throw'; }");
  auto s = Exec("str");
  ExpectBadRequest(s);
  EXPECT_EQ(ErrorText(s), std::string(kExecPrefix) + "always throw");

  // A failed operation without a callback is rethrown: 400 with the operation's status as substatus.
  ASSERT_EQ(Create(R"({"id":"dup","pk":"x"})").status(), 201);
  Sproc("create", kCreateOne);
  auto dup = Exec("create", R"([{"id":"dup","pk":"x"}])");
  ExpectBadRequest(dup, "409");
  EXPECT_TRUE(StartsWith(ErrorText(dup), std::string(kExecPrefix) +
                                             "Error: Entity with the specified id already exists in the system."))
      << ErrorText(dup);
  EXPECT_EQ(dup.Charge(), ScriptCharge(1.24));
  // The same error reaches a callback as {number, message}; rethrowing it gives the same answer.
  Sproc("seen",
        "function () { var coll = getContext().getCollection();"
        " coll.createDocument(coll.getSelfLink(), {id: 'dup', pk: 'x'}, function (err, doc) {"
        "  getContext().getResponse().setBody({number: err.number, message: err.message, doc: doc === undefined}); }); }");
  auto seen = Exec("seen");
  ASSERT_EQ(seen.status(), 200) << seen;
  EXPECT_EQ(seen.body(),
            R"({"number":409,"message":"Entity with the specified id already exists in the system.","doc":true})");
  Sproc("rethrow",
        "function () { var coll = getContext().getCollection();"
        " coll.readDocument(coll.getAltLink() + '/docs/nope', function (err) { if (err) throw err; }); }");
  auto rethrow = Exec("rethrow");
  ExpectBadRequest(rethrow, "404");
  EXPECT_TRUE(Contains(ErrorText(rethrow), "Exception = Error: {\"Errors\":[\"Resource Not Found.\"]}"))
      << ErrorText(rethrow);
  // The server stays healthy.
  auto next = Exec("noop");
  EXPECT_EQ(next.status(), 200) << next;
  EXPECT_EQ(next.body(), "\"\"");
}

TEST_F(ScriptsTest, BodyThatDoesNotCompileIs400WhenExecuted) {
  // Accepted at create time, as the service does.
  Sproc("bad", "function() { This is to create a Compile Error! }");
  auto r = Exec("bad");
  EXPECT_EQ(r.status(), 400) << r;
  EXPECT_EQ(r.Code(), "BadRequest");
  EXPECT_TRUE(StartsWith(ErrorText(r), "Encountered exception while compiling Javascript. Exception = SyntaxError"))
      << ErrorText(r);
  Sproc("noop", kNoop);
  EXPECT_EQ(Exec("noop").status(), 200);
  // Again: a failed compile is not cached as a success.
  EXPECT_EQ(Exec("bad").status(), 400);
}

TEST_F(ScriptsTest, RunningPastTheTimeoutIs408AndRollsBack) {
  config_.script_timeout_ms = 200;
  Sproc("noop", kNoop);
  Sproc("spin",
        "function () { var coll = getContext().getCollection();"
        " coll.createDocument(coll.getSelfLink(), {id: 'written', pk: 'x'}, function (err) {"
        "  if (err) throw err; while (true) {} }); }");
  auto r = Exec("spin");
  EXPECT_EQ(r.status(), 408) << r;
  EXPECT_EQ(r.Code(), "RequestTimeout");
  EXPECT_FALSE(r.Has("x-ms-substatus")) << r.Substatus();
  EXPECT_TRUE(Contains(r.Message(), "The requested operation exceeded maximum alloted time.")) << r.Message();
  // Nothing was written, and the server answers the next request.
  EXPECT_EQ(Read("written").status(), 404);
  auto next = Exec("noop");
  EXPECT_EQ(next.status(), 200) << next;
  EXPECT_EQ(next.Header("x-ms-session-token"), "0:-1#0");
  EXPECT_EQ(ChangeFeed(), "");
}

TEST_F(ScriptsTest, MemoryCapAndDeepRecursionAre400) {
  config_.script_memory_bytes = 64u << 20;
  Sproc("noop", kNoop);
  Sproc("hog", "function () { var a = []; for (;;) a.push(new Array(1 << 20).fill(a.length)); }");
  auto hog = Exec("hog");
  ExpectBadRequest(hog);
  EXPECT_TRUE(Contains(ErrorText(hog), "Exception = Error: Out of memory")) << ErrorText(hog);
  EXPECT_EQ(Exec("noop").status(), 200);
  Sproc("deep", "function () { var f = function (n) { return f(n + 1) + 1; }; f(0); }");
  auto deep = Exec("deep");
  EXPECT_EQ(deep.status(), 400) << deep;
  EXPECT_TRUE(Contains(ErrorText(deep), "too much recursion")) << ErrorText(deep);
  EXPECT_EQ(Exec("noop").status(), 200);
}

TEST_F(ScriptsTest, NothingIsWrittenWhenTheScriptThrowsAfterWriting) {
  auto kept = Create(R"({"id":"kept","pk":"x","v":1})");
  ASSERT_EQ(kept.status(), 201);
  Sproc("noop", kNoop);
  Sproc("undo",
        "function () { var coll = getContext().getCollection(); var self = coll.getSelfLink();"
        " coll.createDocument(self, {id: 'n1', pk: 'x'}, function (err) { if (err) throw err;"
        "  coll.upsertDocument(self, {id: 'kept', pk: 'x', v: 2}, function (err) { if (err) throw err;"
        "   coll.deleteDocument(coll.getAltLink() + '/docs/kept', {}, function (err) { if (err) throw err;"
        "    coll.createDocument(self, {id: 'n2', pk: 'x'}, function (err) { if (err) throw err;"
        "     throw new Error(7, 'undo'); }); }); }); }); }");
  auto r = Exec("undo");
  ExpectBadRequest(r, "7");
  EXPECT_EQ(Read("n1").status(), 404);
  EXPECT_EQ(Read("n2").status(), 404);
  auto still = Read("kept");
  ASSERT_EQ(still.status(), 200);
  EXPECT_EQ(still.body(), kept.body());
  EXPECT_EQ(SessionToken(), "0:-1#1");
  EXPECT_EQ(ChangeFeed(), "kept@1");
  // Nothing is held: direct writes to the same logical partition go through.
  EXPECT_EQ(Create(R"({"id":"n1","pk":"x"})").status(), 201);
}

TEST_F(ScriptsTest, WritesToAnotherPartitionKeyAreRefused) {
  Sproc("other",
        "function () { var coll = getContext().getCollection();"
        " coll.createDocument(coll.getSelfLink(), {id: 'o', pk: 'y'}, function (err) {"
        "  getContext().getResponse().setBody({number: err.number,"
        "   named: err.message.indexOf(" + Quote(kOtherPartition) + ") >= 0}); }); }");
  auto r = Exec("other");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.body(), R"({"number":400,"named":true})");
  EXPECT_EQ(Read("o", kY).status(), 404);
  // Without a callback: the script fails with 400, substatus 400.
  Sproc("create", kCreateOne);
  auto thrown = Exec("create", R"([{"id":"o","pk":"y"}])");
  ExpectBadRequest(thrown, "400");
  EXPECT_TRUE(Contains(ErrorText(thrown), kOtherPartition)) << ErrorText(thrown);
  EXPECT_EQ(Read("o", kY).status(), 404);
  // Reads see only the request's logical partition.
  ASSERT_EQ(Create(R"({"id":"iny","pk":"y"})", kY).status(), 201);
  Sproc("read",
        "function () { var coll = getContext().getCollection();"
        " coll.readDocument(coll.getAltLink() + '/docs/iny', function (err) {"
        "  getContext().getResponse().setBody(err ? err.number : 200); }); }");
  EXPECT_EQ(Exec("read", "[]", kX).body(), "404");
  EXPECT_EQ(Exec("read", "[]", kY).body(), "200");
}

TEST_F(ScriptsTest, LinksToAnotherCollectionAreRefused) {
  // Spec: an operation on a link to another collection gets err.number 400. This accepts the error
  // either in the callback or thrown at the call (as the service's wrapper does).
  MakeContainer("db", "other");
  Sproc("elsewhere",
        "function () { var coll = getContext().getCollection(); var seen = {};"
        " try { coll.createDocument('dbs/db/colls/other', {id: 'e', pk: 'x'}, function (err) {"
        "   getContext().getResponse().setBody({number: err && err.number, via: 'callback'}); });"
        " } catch (e) { getContext().getResponse().setBody({number: e.number, via: 'throw'}); } }");
  auto r = Exec("elsewhere");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.Json()["number"].GetInt(), 400) << r.body();
  EXPECT_EQ(Get("/dbs/db/colls/other/docs/e", {{"x-ms-documentdb-partitionkey", kX}}).status(), 404);
  // Rethrown (or never caught): the script fails with 400, substatus 400, naming the link.
  Sproc("rethrow",
        "function () { var coll = getContext().getCollection();"
        " coll.createDocument('dbs/db/colls/other', {id: 'e', pk: 'x'}, function (err) { if (err) throw err; }); }");
  auto thrown = Exec("rethrow");
  ExpectBadRequest(thrown, "400");
  EXPECT_TRUE(Contains(ErrorText(thrown), "Function is not allowed to operate on resources outside current collection. "
                                          "Make sure that the link provided, \"dbs/db/colls/other\", belongs to "
                                          "current collection."))
      << ErrorText(thrown);
  // A document link into another collection, and a link that is no collection link at all.
  Sproc("readElsewhere",
        "function () { var coll = getContext().getCollection();"
        " coll.readDocument('dbs/db/colls/other/docs/e', function (err) { if (err) throw err; }); }");
  ExpectBadRequest(Exec("readElsewhere"), "400");
  Sproc("garbage",
        "function () { var coll = getContext().getCollection();"
        " coll.createDocument('not/a/link', {id: 'e', pk: 'x'}, function (err) { if (err) throw err; }); }");
  auto garbage = Exec("garbage");
  ExpectBadRequest(garbage, "400");
  EXPECT_TRUE(Contains(ErrorText(garbage), "Invalid collection link: \"not/a/link\".")) << ErrorText(garbage);
}

TEST_F(ScriptsTest, OperationOptionsAndTheQueryApi) {
  auto a = Create(R"({"id":"a","pk":"x","n":3})");
  ASSERT_EQ(Create(R"({"id":"b","pk":"x","n":1})").status(), 201);
  ASSERT_EQ(Create(R"({"id":"c","pk":"x","n":2})").status(), 201);
  ASSERT_EQ(Create(R"({"id":"y","pk":"y","n":5})", kY).status(), 201);
  // Every call is accepted; a create without an id gets a GUID unless told not to.
  Sproc("ids",
        "function () { var coll = getContext().getCollection(); var self = coll.getSelfLink(); var out = {};"
        " out.accepted = coll.createDocument(self, {pk: 'x', n: 0}, function (err, doc) { if (err) throw err;"
        "  out.id = doc.id;"
        "  coll.createDocument(self, {pk: 'x'}, {disableAutomaticIdGeneration: true}, function (err) {"
        "   out.without = err.number; getContext().getResponse().setBody(out); }); }); }");
  auto ids = Exec("ids");
  ASSERT_EQ(ids.status(), 200) << ids;
  auto d = ids.Json();
  EXPECT_TRUE(d["accepted"].GetBool());
  EXPECT_EQ(d["without"].GetInt(), 400);
  const std::string id = d["id"].GetString();
  EXPECT_TRUE(std::regex_match(id, std::regex("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"))) << id;
  EXPECT_EQ(Read(id).status(), 200);
  ASSERT_EQ(Remove(id).status(), 204);

  // etag for replace/upsert/delete; ifNoneMatch for read.
  const std::string etag = a.Str("_etag");
  Sproc("etags",
        "function (etag) { var coll = getContext().getCollection(); var link = coll.getAltLink() + '/docs/a';"
        " var out = {};"
        " coll.replaceDocument(link, {id: 'a', pk: 'x', n: 9}, {etag: '\"stale\"'}, function (err) {"
        "  out.replace = err.number;"
        "  coll.deleteDocument(link, {etag: '\"stale\"'}, function (err) {"
        "   out.del = err.number;"
        "   coll.upsertDocument(coll.getSelfLink(), {id: 'a', pk: 'x', n: 9}, {etag: '\"stale\"'}, function (err) {"
        "    out.upsert = err.number;"
        "    coll.readDocument(link, {ifNoneMatch: etag}, function (err, doc, opts) {"
        "     out.notModified = opts.notModified === true; out.noDoc = doc === undefined;"
        "     coll.replaceDocument(link, {id: 'a', pk: 'x', n: 4}, {etag: etag}, function (err, doc) {"
        "      if (err) throw err; out.n = doc.n; getContext().getResponse().setBody(out); }); }); }); }); }); }");
  auto e = Exec("etags", "[" + Quote(etag) + "]");
  ASSERT_EQ(e.status(), 200) << e;
  EXPECT_EQ(e.body(), R"({"replace":412,"del":412,"upsert":412,"notModified":true,"noDoc":true,"n":4})");

  // pageSize and continuation page through the feed and queries.
  Sproc("pages",
        "function () { var coll = getContext().getCollection(); var self = coll.getSelfLink(); var out = [];"
        " coll.readDocuments(self, {pageSize: 2}, function (err, docs, opts) { if (err) throw err;"
        "  out.push(docs.map(function (d) { return d.id; }));"
        "  coll.readDocuments(self, {pageSize: 2, continuation: opts.continuation}, function (err, docs, opts2) {"
        "   if (err) throw err; out.push(docs.map(function (d) { return d.id; })); out.push(opts2.continuation === undefined);"
        "   coll.queryDocuments(self, 'SELECT VALUE c.n FROM c ORDER BY c.n', {pageSize: 2}, function (err, ns, qo) {"
        "    if (err) throw err; out.push(ns);"
        "    coll.queryDocuments(self, 'SELECT VALUE c.n FROM c ORDER BY c.n', {pageSize: 2, continuation: qo.continuation},"
        "     function (err, rest) { if (err) throw err; out.push(rest); getContext().getResponse().setBody(out); });"
        "   }); }); }); }");
  auto pages = Exec("pages");
  ASSERT_EQ(pages.status(), 200) << pages;
  EXPECT_EQ(pages.body(), R"([["a","b"],["c"],true,[1,2],[4]])");

  // __: a pipeline over the logical partition's documents, with or without a callback.
  Sproc("under",
        "function () { var r = __.chain().filter(function (d) { return d.n > 1; }).sortBy(function (d) { return d.n; })"
        " .pluck('id').value(function (err, ids) { if (err) throw err; getContext().getResponse().setBody(ids); });"
        " if (!r.isAccepted) throw new Error('not accepted'); }");
  auto under = Exec("under");
  ASSERT_EQ(under.status(), 200) << under;
  EXPECT_EQ(under.body(), R"(["c","a"])");
  Sproc("underNoCallback", "function () { __.map(function (d) { return d.n; }); }");
  auto appended = Exec("underNoCallback");
  ASSERT_EQ(appended.status(), 200) << appended;
  // The result is appended to the (string) response body: the JSON text of the mapped page.
  EXPECT_EQ(appended.body(), R"("[4,1,2]")");
}

// A script's writes commit as one transaction with one LSN, as the service's do (its change feed
// keeps a stored procedure's transaction together: the .NET SDK's PageSizeHint).
TEST_F(ScriptsTest, ScriptWritesAppearInTheChangeFeedWithOneLsn) {
  ASSERT_EQ(Create(R"({"id":"a","pk":"x","v":1})").status(), 201);  // 1
  Sproc("three",
        "function () { var coll = getContext().getCollection(); var self = coll.getSelfLink();"
        " coll.createDocument(self, {id: 'b', pk: 'x'}, function (err) { if (err) throw err;"
        "  coll.createDocument(self, {id: 'c', pk: 'x'}, function (err) { if (err) throw err;"
        "   coll.replaceDocument(coll.getAltLink() + '/docs/a', {id: 'a', pk: 'x', v: 2}, function (err, doc) {"
        "    if (err) throw err; getContext().getResponse().setBody(doc._rid); }); }); }); }");
  auto r = Exec("three");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.Header("x-ms-session-token"), "0:-1#2");
  EXPECT_EQ(r.Header("lsn"), "2");
  EXPECT_EQ(ChangeFeed(), "a@2 b@2 c@2");
  EXPECT_EQ(Read("a").Json()["v"].GetInt(), 2);
  // The script saw the replaced item's _rid, which is the stored one.
  EXPECT_EQ(r.body(), Quote(Read("a").Str("_rid")));
  // A later direct write continues the sequence.
  auto d = Create(R"({"id":"d","pk":"x"})");
  EXPECT_EQ(d.Header("lsn"), "3");
  EXPECT_EQ(ChangeFeed(), "a@2 b@2 c@2 d@3");
}

TEST_F(ScriptsTest, ScriptsReadTheirOwnWritesAndQueryTheirPartition) {
  ASSERT_EQ(Create(R"({"id":"a","pk":"x","n":3})").status(), 201);
  ASSERT_EQ(Create(R"({"id":"b","pk":"x","n":1})").status(), 201);
  ASSERT_EQ(Create(R"({"id":"y1","pk":"y","n":9})", kY).status(), 201);
  Sproc("mix",
        "function () { var coll = getContext().getCollection(); var self = coll.getSelfLink(); var out = {};"
        " coll.createDocument(self, {id: 'c', pk: 'x', n: 2}, function (err) { if (err) throw err;"
        "  coll.deleteDocument(coll.getAltLink() + '/docs/b', function (err, opts) { if (err) throw err;"
        "   coll.queryDocuments(self, {query: 'SELECT VALUE c.id FROM c WHERE c.n > @n', parameters: [{name: '@n', value: 0}]},"
        "    function (err, ids) { if (err) throw err; out.query = ids;"
        "     coll.readDocuments(self, function (err, docs) { if (err) throw err;"
        "      out.feed = docs.map(function (d) { return d.id; });"
        "      coll.readDocument(coll.getAltLink() + '/docs/c', function (err, doc) { if (err) throw err;"
        "       out.read = doc.n; getContext().getResponse().setBody(out); }); }); }); }); }); }");
  auto r = Exec("mix");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.body(), R"({"query":["a","c"],"feed":["a","c"],"read":2})");
  EXPECT_EQ(Read("b").status(), 404);
  EXPECT_EQ(Read("c").status(), 200);
  EXPECT_EQ(r.Header("x-ms-session-token"), "0:-1#4");  // three creates, then the script's one LSN
}

TEST_F(ScriptsTest, QueriesInsideAScriptMayCallUserDefinedFunctions) {
  ASSERT_EQ(Create(R"({"id":"a","pk":"x","n":10})").status(), 201);
  ASSERT_EQ(Create(R"({"id":"b","pk":"x","n":20})").status(), 201);
  Udf("tax", "function tax(v) { return v * 0.1; }");
  Sproc("taxed",
        "function (label) { var coll = getContext().getCollection(); var before = label + ':';"
        " coll.queryDocuments(coll.getSelfLink(), 'SELECT VALUE udf.tax(c.n) FROM c', function (err, vs) {"
        "  if (err) throw err; getContext().getResponse().setBody({before: before, values: vs, after: label}); }); }");
  auto r = Exec("taxed", R"(["L"])");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.body(), R"({"before":"L:","values":[1,2],"after":"L"})");
  // A udf that throws inside a script's query: the operation fails with 400 and the number.
  Udf("bad", "function (v) { throw new Error(32766, 'bad udf'); }");
  Sproc("badQuery",
        "function () { var coll = getContext().getCollection();"
        " coll.queryDocuments(coll.getSelfLink(), 'SELECT VALUE udf.bad(c.n) FROM c', function (err) {"
        "  getContext().getResponse().setBody(err ? err.number : 'no error'); }); }");
  auto bad = Exec("badQuery");
  ASSERT_EQ(bad.status(), 200) << bad;
  EXPECT_EQ(bad.body(), "400");
  // The thread's engine is still sound.
  auto again = Exec("taxed", R"(["M"])");
  EXPECT_EQ(again.body(), R"({"before":"M:","values":[1,2],"after":"M"})");
  EXPECT_EQ(Documents(Query("SELECT VALUE udf.tax(c.n) FROM c")), "[1,2]");
}

TEST_F(ScriptsTest, ConcurrentExecutionsOnOneLogicalPartitionAreSerialised) {
  ASSERT_EQ(Create(R"({"id":"counter","pk":"x","n":0})").status(), 201);
  Sproc("noop", kNoop);
  Sproc("inc",
        "function () { var coll = getContext().getCollection();"
        " coll.readDocument(coll.getAltLink() + '/docs/counter', function (err, doc) { if (err) throw err;"
        "  doc.n += 1;"
        "  coll.replaceDocument(doc._self, doc, function (err, saved) { if (err) throw err;"
        "   getContext().getResponse().setBody(saved.n); }); }); }");
  constexpr int kThreads = 4;
  constexpr int kEach = 8;
  std::vector<std::thread> threads;
  std::vector<int> failures(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        auto r = Exec("inc");
        if (r.status() != 200) ++failures[t];
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << t;
  // No increment was lost: each read-modify-write ran alone.
  EXPECT_EQ(Read("counter").Json()["n"].GetInt(), kThreads * kEach);
  EXPECT_EQ(SessionToken(), "0:-1#" + std::to_string(1 + kThreads * kEach));
}

TEST_F(ScriptsTest, SessionTokenNamesTheRangeOfThePartitionKey) {
  auto r = Post("/dbs/db/colls", R"({"id":"multi","partitionKey":{"paths":["/pk"],"version":2}})",
                {{"x-cosmos-emulator-partition-count", "4"}});
  ASSERT_EQ(r.status(), 201) << r;
  ASSERT_EQ(Post("/dbs/db/colls/multi/sprocs", "{\"id\":\"create\",\"body\":" + Quote(kCreateOne) + "}").status(),
            201);
  for (const std::string pk : {"x", "y", "z", "w"}) {
    auto direct = CreateDoc("db", "multi", "{\"id\":\"d\",\"pk\":\"" + pk + "\"}", "[\"" + pk + "\"]");
    ASSERT_EQ(direct.status(), 201) << direct;
    const std::string range = direct.Header("x-ms-documentdb-partitionkeyrangeid");
    const std::string lsn = direct.Header("lsn");
    auto e = Post("/dbs/db/colls/multi/sprocs/create", "[{\"id\":\"s\",\"pk\":\"" + pk + "\"}]",
                  {{"x-ms-documentdb-partitionkey", "[\"" + pk + "\"]"}});
    ASSERT_EQ(e.status(), 200) << e;
    EXPECT_EQ(e.Header("x-ms-documentdb-partitionkeyrangeid"), range) << pk;
    EXPECT_EQ(e.Header("x-ms-session-token"), range + ":-1#" + std::to_string(std::stoi(lsn) + 1)) << pk;
  }
}

}  // namespace
}  // namespace cosmos::testing
