// PATCH .../docs/{id}: the six operations, their errors, atomicity, preconditions and conditions.
#include "http_test_util.h"

namespace cosmos::testing {
namespace {

const std::string kPkA = R"(["a"])";
constexpr const char* kDoc = "/dbs/db1/colls/c1/docs/d1";
constexpr const char* kInitial = R"({"id":"d1","pk":"a","n":1,"s":"y","arr":[1,2,3],"obj":{"x":1}})";

std::string UserPart(const std::string& body) {
  auto pos = body.find(",\"_rid\":");
  return pos == std::string::npos ? body : body.substr(0, pos);
}

// The user properties of a stored body with the system properties removed (patched properties
// are added after _attachments, before _ts, as the service does).
std::string UserOnly(const Reply& r) {
  auto d = r.Json();
  if (!d.IsObject()) return "<not an object: " + r.body() + ">";
  for (const char* k : {"_rid", "_self", "_etag", "_attachments", "_ts"}) d.RemoveMember(k);
  return json::Write(d);
}

class PatchTest : public EmulatorTest {
 protected:
  void SetUp() override {
    MakeDatabase("db1");
    MakeContainer("db1", "c1");
    auto r = CreateDoc("db1", "c1", kInitial, kPkA);
    ASSERT_EQ(r.status(), 201) << r;
    created_ = r;
  }
  Reply PatchOps(const std::string& ops, Headers h = {}, const std::string& id = "d1") {
    h.emplace_back("x-ms-documentdb-partitionkey", kPkA);
    return Patch("/dbs/db1/colls/c1/docs/" + id, ops, h);
  }
  Reply ReadDoc() { return Get(kDoc, {{"x-ms-documentdb-partitionkey", kPkA}}); }

  // Applies `ops` (must succeed) and returns the user properties afterwards.
  std::string Apply(const std::string& ops) {
    auto r = PatchOps(ops);
    EXPECT_EQ(r.status(), 200) << ops << " -> " << r;
    return UserOnly(r);
  }
  // Applies `ops` (must fail with 400 BadRequest) and checks the document did not change.
  void ExpectRejected(const std::string& ops, const std::string& message_part = "") {
    const std::string before = ReadDoc().body();
    auto r = PatchOps(ops);
    EXPECT_EQ(r.status(), 400) << ops << " -> " << r;
    EXPECT_EQ(r.Code(), "BadRequest") << ops;
    EXPECT_FALSE(r.Has("x-ms-substatus")) << ops;
    if (!message_part.empty()) {
      EXPECT_NE(r.Message().find(message_part), std::string::npos) << r.Message();
    }
    EXPECT_EQ(ReadDoc().body(), before) << ops;
  }

  Reply created_;
};

// ---- the six operations ---------------------------------------------------------------------

TEST_F(PatchTest, Set) {
  EXPECT_EQ(Apply(R"([{"op":"set","path":"/n","value":7}])"),
            R"({"id":"d1","pk":"a","n":7,"s":"y","arr":[1,2,3],"obj":{"x":1}})");
  EXPECT_EQ(Apply(R"([{"op":"set","path":"/obj/y","value":{"z":[null]}}])"),
            R"({"id":"d1","pk":"a","n":7,"s":"y","arr":[1,2,3],"obj":{"x":1,"y":{"z":[null]}}})");
  EXPECT_EQ(Apply(R"([{"op":"set","path":"/arr/1","value":"two"}])"),
            R"({"id":"d1","pk":"a","n":7,"s":"y","arr":[1,"two",3],"obj":{"x":1,"y":{"z":[null]}}})");
  EXPECT_EQ(Apply(R"([{"op":"set","path":"/m","value":1.5}])"),
            R"({"id":"d1","pk":"a","n":7,"s":"y","arr":[1,"two",3],"obj":{"x":1,"y":{"z":[null]}},"m":1.5})");
}

TEST_F(PatchTest, Add) {
  EXPECT_EQ(Apply(R"([{"op":"add","path":"/arr/1","value":9}])"),
            R"({"id":"d1","pk":"a","n":1,"s":"y","arr":[1,9,2,3],"obj":{"x":1}})");
  EXPECT_EQ(Apply(R"([{"op":"add","path":"/arr/-","value":4}])"),
            R"({"id":"d1","pk":"a","n":1,"s":"y","arr":[1,9,2,3,4],"obj":{"x":1}})");
  EXPECT_EQ(Apply(R"([{"op":"add","path":"/arr/5","value":5}])"),
            R"({"id":"d1","pk":"a","n":1,"s":"y","arr":[1,9,2,3,4,5],"obj":{"x":1}})");
  EXPECT_EQ(Apply(R"([{"op":"add","path":"/arr/0","value":0}])"),
            R"({"id":"d1","pk":"a","n":1,"s":"y","arr":[0,1,9,2,3,4,5],"obj":{"x":1}})");
  // add on an existing property replaces it
  EXPECT_EQ(Apply(R"([{"op":"add","path":"/s","value":"z"}])"),
            R"({"id":"d1","pk":"a","n":1,"s":"z","arr":[0,1,9,2,3,4,5],"obj":{"x":1}})");
}

TEST_F(PatchTest, Replace) {
  EXPECT_EQ(Apply(R"([{"op":"replace","path":"/s","value":["v"]}])"),
            R"({"id":"d1","pk":"a","n":1,"s":["v"],"arr":[1,2,3],"obj":{"x":1}})");
  EXPECT_EQ(Apply(R"([{"op":"replace","path":"/arr/2","value":30}])"),
            R"({"id":"d1","pk":"a","n":1,"s":["v"],"arr":[1,2,30],"obj":{"x":1}})");
  ExpectRejected(R"([{"op":"replace","path":"/missing","value":1}])", "does not exist; replace needs it.");
  ExpectRejected(R"([{"op":"replace","path":"/arr/3","value":1}])");
}

TEST_F(PatchTest, Remove) {
  EXPECT_EQ(Apply(R"([{"op":"remove","path":"/obj/x"}])"),
            R"({"id":"d1","pk":"a","n":1,"s":"y","arr":[1,2,3],"obj":{}})");
  EXPECT_EQ(Apply(R"([{"op":"remove","path":"/arr/0"}])"),
            R"({"id":"d1","pk":"a","n":1,"s":"y","arr":[2,3],"obj":{}})");
  EXPECT_EQ(Apply(R"([{"op":"remove","path":"/s"}])"), R"({"id":"d1","pk":"a","n":1,"arr":[2,3],"obj":{}})");
  ExpectRejected(R"([{"op":"remove","path":"/missing"}])", "does not exist.");
  ExpectRejected(R"([{"op":"remove","path":"/arr/5"}])");
}

TEST_F(PatchTest, Increment) {
  EXPECT_EQ(Apply(R"([{"op":"incr","path":"/n","value":3}])"),
            R"({"id":"d1","pk":"a","n":4,"s":"y","arr":[1,2,3],"obj":{"x":1}})");
  EXPECT_EQ(Apply(R"([{"op":"incr","path":"/n","value":-5}])"),
            R"({"id":"d1","pk":"a","n":-1,"s":"y","arr":[1,2,3],"obj":{"x":1}})");
  EXPECT_EQ(Apply(R"([{"op":"incr","path":"/n","value":0.5}])"),
            R"({"id":"d1","pk":"a","n":-0.5,"s":"y","arr":[1,2,3],"obj":{"x":1}})");
  EXPECT_EQ(Apply(R"([{"op":"incr","path":"/cnt","value":2}])"),
            R"({"id":"d1","pk":"a","n":-0.5,"s":"y","arr":[1,2,3],"obj":{"x":1},"cnt":2})");
  EXPECT_EQ(Apply(R"([{"op":"incr","path":"/arr/0","value":10}])"),
            R"({"id":"d1","pk":"a","n":-0.5,"s":"y","arr":[11,2,3],"obj":{"x":1},"cnt":2})");
  ExpectRejected(R"([{"op":"incr","path":"/s","value":1}])", "is not a number; incr needs a number.");
  ExpectRejected(R"([{"op":"incr","path":"/cnt","value":"1"}])", "The value of an incr operation must be a number.");
}

TEST_F(PatchTest, IncrementBeyondInt64BecomesDouble) {
  EXPECT_EQ(Apply(R"([{"op":"set","path":"/big","value":9223372036854775807}])").find("\"big\":9223372036854775807"),
            std::string(R"({"id":"d1","pk":"a","n":1,"s":"y","arr":[1,2,3],"obj":{"x":1},)").size());
  EXPECT_NE(Apply(R"([{"op":"incr","path":"/big","value":1}])").find("\"big\":9223372036854776000"), std::string::npos);
}

TEST_F(PatchTest, Move) {
  EXPECT_EQ(Apply(R"([{"op":"move","from":"/obj/x","path":"/moved"}])"),
            R"({"id":"d1","pk":"a","n":1,"s":"y","arr":[1,2,3],"obj":{},"moved":1})");
  EXPECT_EQ(Apply(R"([{"op":"move","from":"/arr","path":"/obj/list"}])"),
            R"({"id":"d1","pk":"a","n":1,"s":"y","obj":{"list":[1,2,3]},"moved":1})");
  // Moving onto an existing property replaces it.
  EXPECT_EQ(Apply(R"([{"op":"move","from":"/moved","path":"/n"}])"),
            R"({"id":"d1","pk":"a","n":1,"s":"y","obj":{"list":[1,2,3]}})");
  ExpectRejected(R"([{"op":"move","from":"/missing","path":"/x"}])");
  ExpectRejected(R"([{"op":"move","path":"/x"}])", "The patch operation 'move' needs a string 'from'.");
}

TEST_F(PatchTest, OperationsApplyInOrderAsTheServiceDoes) {
  // Recording cosmos-140: set, incr, add -> n 10 and "new" after _attachments, before _ts.
  auto r = PatchOps(R"({"operations":[{"op":"set","path":"/n","value":7},{"op":"incr","path":"/n","value":3},)"
                    R"({"op":"add","path":"/new","value":"v"}]})");
  ASSERT_EQ(r.status(), 200) << r;
  std::vector<std::string> keys;
  auto d = r.Json();
  for (auto& m : d.GetObject()) keys.emplace_back(m.name.GetString());
  EXPECT_EQ(keys, (std::vector<std::string>{"id", "pk", "n", "s", "arr", "obj", "_rid", "_self", "_etag",
                                            "_attachments", "new", "_ts"}));
  EXPECT_EQ(d["n"].GetInt(), 10);
  EXPECT_EQ(UserPart(r.body()), R"({"id":"d1","pk":"a","n":10,"s":"y","arr":[1,2,3],"obj":{"x":1})");
}

TEST_F(PatchTest, ResponseMetadataAndCharge) {
  auto r = PatchOps(R"([{"op":"set","path":"/n","value":2}])");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.Str("_rid"), created_.Str("_rid"));
  EXPECT_EQ(r.Str("_self"), created_.Str("_self"));
  EXPECT_NE(r.Header("etag"), created_.Header("etag"));
  EXPECT_EQ(r.Header("etag"), r.Str("_etag"));
  EXPECT_EQ(r.Header("x-ms-session-token"), "0:-1#2");
  EXPECT_EQ(ReadDoc().body(), r.body());
  // Replace charge of the new image: terms id, pk, n, s, arr x3, obj.x, _ts = 9.
  EXPECT_EQ(r.body().size(), 267u);
  EXPECT_EQ(r.Charge(), "15.13");  // 1.85 * (4.6 + 0.6 * 267/1024 + 0.38 * 9)
}

// ---- errors ---------------------------------------------------------------------------------

TEST_F(PatchTest, InvalidOperationLists) {
  ExpectRejected("[]", "non-empty array of operations");
  ExpectRejected("{}", "The patch request must carry an 'operations' array.");
  ExpectRejected(R"({"operations":{}})");
  ExpectRejected(R"("set")");
  ExpectRejected("[1]", "Each patch operation must be an object.");
  std::string eleven = "[";
  for (int i = 0; i < 11; ++i) eleven += std::string(i ? "," : "") + R"({"op":"incr","path":"/n","value":1})";
  eleven += "]";
  ExpectRejected(eleven, "The number of patch operations can't exceed 10.");
  ExpectRejected(R"([{"op":"copy","path":"/x","from":"/n"}])", "The patch operation 'copy' is not supported");
  ExpectRejected(R"([{"op":"Set","path":"/x","value":1}])");
  ExpectRejected(R"([{"path":"/x","value":1}])", "Each patch operation needs a string 'op'.");
  ExpectRejected(R"([{"op":"set","value":1}])", "Each patch operation needs a string 'path'.");
  for (const char* op : {"add", "set", "replace", "incr"}) {
    ExpectRejected(std::string(R"([{"op":")") + op + R"(","path":"/x"}])", "needs a 'value'.");
  }
  // Ten operations are fine.
  std::string ten = "[";
  for (int i = 0; i < 10; ++i) ten += std::string(i ? "," : "") + R"({"op":"incr","path":"/n","value":1})";
  ten += "]";
  EXPECT_NE(Apply(ten).find("\"n\":11"), std::string::npos);
}

TEST_F(PatchTest, InvalidPaths) {
  ExpectRejected(R"([{"op":"set","path":"","value":1}])", "must start with '/'.");
  ExpectRejected(R"([{"op":"set","path":"n","value":1}])", "must start with '/'.");
  ExpectRejected(R"([{"op":"set","path":"/","value":1}])", "cannot target the document root.");
  for (const char* sys : {"/id", "/_rid", "/_self", "/_etag", "/_ts", "/_attachments"}) {
    ExpectRejected(std::string(R"([{"op":"set","path":")") + sys + R"(","value":"x"}])",
                   "is a system property and cannot be patched.");
  }
  ExpectRejected(R"([{"op":"set","path":"/pk","value":"b"}])", "cannot change the partition key");
  ExpectRejected(R"([{"op":"remove","path":"/pk"}])", "cannot change the partition key");
  ExpectRejected(R"([{"op":"move","from":"/pk","path":"/x"}])", "cannot change the partition key");
  ExpectRejected(R"([{"op":"move","from":"/n","path":"/pk"}])", "cannot change the partition key");
  ExpectRejected(R"([{"op":"set","path":"/missing/child","value":1}])", "has a parent that does not exist.");
  ExpectRejected(R"([{"op":"set","path":"/s/child","value":1}])", "not an object or array.");
  ExpectRejected(R"([{"op":"set","path":"/arr/x","value":1}])", "invalid array index");
  ExpectRejected(R"([{"op":"add","path":"/arr/4","value":1}])", "beyond the end of the array");
  ExpectRejected(R"([{"op":"set","path":"/arr/3","value":1}])", "beyond the end of the array");
}

TEST_F(PatchTest, FailingOperationLeavesDocumentUnchanged) {
  ExpectRejected(R"([{"op":"set","path":"/n","value":100},{"op":"remove","path":"/missing"}])");
  auto r = ReadDoc();
  EXPECT_EQ(r.Header("etag"), created_.Header("etag"));
  EXPECT_EQ(r.Header("x-ms-session-token"), "0:-1#1");
}

TEST_F(PatchTest, ErrorCharges) {
  auto bad = PatchOps(R"([{"op":"remove","path":"/missing"}])");
  EXPECT_EQ(bad.Charge(), "1.24");
  auto malformed = PatchOps(R"([{"op":)");
  EXPECT_EQ(malformed.status(), 400);
  EXPECT_EQ(malformed.Code(), "BadRequest");
  EXPECT_EQ(malformed.Charge(), "1.24");
  auto missing = PatchOps(R"([{"op":"set","path":"/n","value":1}])", {}, "nope");
  EXPECT_EQ(missing.status(), 404);
  EXPECT_EQ(missing.Code(), "NotFound");
  auto no_key = Patch(kDoc, R"([{"op":"set","path":"/n","value":1}])");
  EXPECT_EQ(no_key.status(), 400);
  EXPECT_EQ(no_key.Substatus(), "1001");
  EXPECT_EQ(no_key.Charge(), "0");
  auto wrong_key =
      Patch(kDoc, R"([{"op":"set","path":"/n","value":1}])", {{"x-ms-documentdb-partitionkey", "[\"b\"]"}});
  EXPECT_EQ(wrong_key.status(), 404);
  auto deep = PatchOps(R"([{"op":"set","path":"/n","value":)" + std::string(200, '[') + std::string(200, ']') + "}]");
  EXPECT_EQ(deep.status(), 400);
  EXPECT_NE(deep.Message().find("nesting depth"), std::string::npos);
}

TEST_F(PatchTest, IfMatch) {
  auto stale = PatchOps(R"([{"op":"set","path":"/n","value":2}])", {{"if-match", "\"stale\""}});
  EXPECT_EQ(stale.status(), 412);
  EXPECT_EQ(stale.Code(), "PreconditionFailed");
  EXPECT_EQ(stale.Charge(), "1.24");
  auto ok = PatchOps(R"([{"op":"set","path":"/n","value":2}])", {{"if-match", created_.Header("etag")}});
  EXPECT_EQ(ok.status(), 200);
  EXPECT_EQ(PatchOps(R"([{"op":"set","path":"/n","value":3}])", {{"if-match", created_.Header("etag")}}).status(), 412);
}

TEST_F(PatchTest, Condition) {
  auto pass = PatchOps(R"({"condition":"FROM c WHERE c.n = 1","operations":[{"op":"set","path":"/n","value":2}]})");
  EXPECT_EQ(pass.status(), 200) << pass;
  auto fail = PatchOps(R"({"condition":"FROM c WHERE c.n = 1","operations":[{"op":"set","path":"/n","value":3}]})");
  EXPECT_EQ(fail.status(), 412);
  EXPECT_EQ(fail.Code(), "PreconditionFailed");
  EXPECT_EQ(fail.Charge(), "1.24");
  EXPECT_NE(UserOnly(ReadDoc()).find("\"n\":2"), std::string::npos);
  auto null_condition = PatchOps(R"({"condition":null,"operations":[{"op":"set","path":"/n","value":4}]})");
  EXPECT_EQ(null_condition.status(), 200);
  ExpectRejected(R"({"condition":5,"operations":[{"op":"set","path":"/n","value":5}]})",
                 "The patch condition must be a string.");
  ExpectRejected(R"({"condition":"FROM c WHERE (","operations":[{"op":"set","path":"/n","value":5}]})");
}

}  // namespace
}  // namespace cosmos::testing
