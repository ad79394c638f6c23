// The pipeline around every handler: routing errors, authentication, consistency checks, the 501
// answers, the common headers and the {"code","message"} error body.
#include <regex>

#include "http_test_util.h"

namespace cosmos::testing {
namespace {

const std::regex kUuid("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$");

class PipelineTest : public EmulatorTest {};

// Every error: JSON body with exactly "code" and "message", the message ending in the activity id.
void ExpectErrorShape(const Reply& r) {
  EXPECT_EQ(r.Header("content-type"), "application/json") << r;
  auto d = r.Json();
  ASSERT_TRUE(d.IsObject()) << r;
  std::vector<std::string> keys;
  for (auto& m : d.GetObject()) keys.emplace_back(m.name.GetString());
  EXPECT_EQ(keys, (std::vector<std::string>{"code", "message"})) << r;
  const std::string activity = r.Header("x-ms-activity-id");
  EXPECT_TRUE(std::regex_match(activity, kUuid)) << activity;
  const std::string suffix = "\r\nActivityId: " + activity;
  const std::string message = r.Message();
  ASSERT_GE(message.size(), suffix.size()) << r;
  EXPECT_EQ(message.substr(message.size() - suffix.size()), suffix) << r;
}

// ---- health, account, common headers ---------------------------------------------------------

TEST_F(PipelineTest, HealthNeedsNoAuth) {
  SignOptions opt;
  opt.sign = false;
  auto r = Call(bh::verb::get, "/_health", "", {}, opt);
  EXPECT_EQ(r.status(), 200);
  EXPECT_EQ(r.body(), R"({"status":"ok"})");
  EXPECT_EQ(r.Charge(), "0");
}

TEST_F(PipelineTest, CommonHeadersOnSuccess) {
  auto r = Get("/");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_TRUE(std::regex_match(r.Header("x-ms-activity-id"), kUuid));
  EXPECT_EQ(r.Charge(), "0");
  EXPECT_EQ(r.Header("content-type"), "application/json");
  EXPECT_EQ(r.Header("content-length"), std::to_string(r.body().size()));
  EXPECT_TRUE(util::ParseRfc1123(r.Header("date")).has_value()) << r.Header("date");
  EXPECT_FALSE(r.Has("x-ms-substatus"));
  EXPECT_NE(r.Header("x-ms-activity-id"), Get("/").Header("x-ms-activity-id"));
}

// The client's x-ms-activity-id comes back as the answer's, in lower case, errors included (the REST
// reference's common headers; the Python SDK's logging test compares the two). Anything but a GUID
// gets an id of the emulator's own.
TEST_F(PipelineTest, ActivityIdOfTheClientIsEchoed) {
  const std::string sent = "0663B718-02E6-46A7-AEB1-D07AA713A988";
  auto ok = Get("/", {{"x-ms-activity-id", sent}});
  ASSERT_EQ(ok.status(), 200) << ok;
  EXPECT_EQ(ok.Header("x-ms-activity-id"), "0663b718-02e6-46a7-aeb1-d07aa713a988");
  auto missing = Get("/dbs/nosuchdb", {{"x-ms-activity-id", sent}});
  ASSERT_EQ(missing.status(), 404) << missing;
  EXPECT_EQ(missing.Header("x-ms-activity-id"), "0663b718-02e6-46a7-aeb1-d07aa713a988");
  const std::string message = missing.Message();
  EXPECT_NE(message.find("ActivityId: 0663b718-02e6-46a7-aeb1-d07aa713a988"), std::string::npos) << message;
  for (const char* bad : {"not-a-guid", "0663b718-02e6-46a7-aeb1-d07aa713a98", "0663b718x02e6-46a7-aeb1-d07aa713a988",
                          "{0663b718-02e6-46a7-aeb1-d07aa713a988}", "0663b718-02e6-46a7-aeb1-d07aa713a98g"}) {
    auto r = Get("/", {{"x-ms-activity-id", bad}});
    ASSERT_EQ(r.status(), 200) << bad << r;
    EXPECT_TRUE(std::regex_match(r.Header("x-ms-activity-id"), kUuid)) << bad << " " << r.Header("x-ms-activity-id");
  }
}

TEST_F(PipelineTest, AccountDocument) {
  auto r = Get("/");
  ASSERT_EQ(r.status(), 200) << r;
  auto d = r.Json();
  ASSERT_TRUE(d.IsObject());
  EXPECT_STREQ(d["id"].GetString(), "cosmosdev");
  EXPECT_STREQ(d["_dbs"].GetString(), "//dbs/");
  for (const char* list : {"writableLocations", "readableLocations"}) {
    ASSERT_TRUE(d[list].IsArray()) << list;
    ASSERT_EQ(d[list].Size(), 1u) << list;
    EXPECT_STREQ(d[list][0]["databaseAccountEndpoint"].GetString(), "http://localhost:8081/") << list;
  }
  EXPECT_FALSE(d["enableMultipleWriteLocations"].GetBool());
  EXPECT_FALSE(d.HasMember("enablePerPartitionFailoverBehavior"));
  EXPECT_STREQ(d["userConsistencyPolicy"]["defaultConsistencyLevel"].GetString(), "Session");
  ASSERT_TRUE(d["queryEngineConfiguration"].IsString());
  json::Document q;
  EXPECT_EQ(json::Parse(d["queryEngineConfiguration"].GetString(), q), json::ParseStatus::kOk);
}

// A client that came as localhost to the gateway's own port is sent to 127.0.0.1 on it (as the
// official emulator answers; Microsoft's Python and Go SDK tests take the two for two regions);
// any other name or port (a container's mapped port) is sent back where it came from.
TEST_F(PipelineTest, AccountSendsLocalhostOnTheGatewayPortTo127001) {
  config_.gateway_port = "8081";
  auto endpoint = [&](const std::string& host, bool https) {
    auto req = Build(bh::verb::get, "/");
    req.set(bh::field::host, host);
    auto d = Reply{http::Handle(services_, req, https)}.Json();
    EXPECT_STREQ(d["readableLocations"][0]["databaseAccountEndpoint"].GetString(),
                 d["writableLocations"][0]["databaseAccountEndpoint"].GetString());
    return std::string(d["writableLocations"][0]["databaseAccountEndpoint"].GetString());
  };
  EXPECT_EQ(endpoint("localhost:8081", false), "http://127.0.0.1:8081/");
  EXPECT_EQ(endpoint("LocalHost:8081", true), "https://127.0.0.1:8081/");
  EXPECT_EQ(endpoint("127.0.0.1:8081", true), "https://127.0.0.1:8081/");
  EXPECT_EQ(endpoint("localhost:32768", true), "https://localhost:32768/");
  EXPECT_EQ(endpoint("cosmos:8081", true), "https://cosmos:8081/");
  config_.public_host = "emulator.example";
  EXPECT_EQ(endpoint("localhost:8081", true), "https://emulator.example:8081/");
}

TEST_F(PipelineTest, AccountReportsConfiguredConsistency) {
  config_.consistency = "Strong";
  auto d = Get("/").Json();
  EXPECT_STREQ(d["userConsistencyPolicy"]["defaultConsistencyLevel"].GetString(), "Strong");
}

// ---- authentication ---------------------------------------------------------------------------

TEST_F(PipelineTest, MissingAuthorizationIs401) {
  SignOptions opt;
  opt.sign = false;
  auto r = Call(bh::verb::get, "/dbs", "", {}, opt);
  EXPECT_EQ(r.status(), 401);
  EXPECT_EQ(r.Code(), "Unauthorized");
  EXPECT_EQ(r.Charge(), "0");
  EXPECT_FALSE(r.Has("x-ms-substatus"));
  EXPECT_EQ(r.Message(),
            "Required Header authorization is missing. Ensure a valid Authorization token is passed.\r\n"
            "ActivityId: " +
                r.Header("x-ms-activity-id"));
  ExpectErrorShape(r);
}

TEST_F(PipelineTest, WrongSignatureIs401) {
  SignOptions opt;
  opt.key = std::string("wrong key");
  const std::string date = Now();
  opt.date = date;
  auto r = Call(bh::verb::get, "/dbs/db1", "", {}, opt);
  EXPECT_EQ(r.status(), 401);
  EXPECT_EQ(r.Code(), "Unauthorized");
  EXPECT_NE(r.Message().find("Server used the following payload to sign: 'get\\ndbs\\ndbs/db1\\n" +
                             util::ToLower(date) + "\\n\\n'"),
            std::string::npos)
      << r.Message();
  ExpectErrorShape(r);
}

TEST_F(PipelineTest, SignatureForAnotherResourceIs401) {
  auto req = Build(bh::verb::get, "/dbs/db1");
  req.target("/dbs/db2");
  EXPECT_EQ(Send(req).status(), 401);
}

TEST_F(PipelineTest, SkewedDateIs403) {
  std::vector<std::string> dates;
  for (int minutes : {-20, 20})
    dates.push_back(util::FormatRfc1123(std::chrono::system_clock::now() + std::chrono::minutes(minutes)));
  dates.push_back("Fri, 31 Dec 9999 23:59:59 GMT");  // past the system clock's range
  for (const auto& date : dates) {
    SignOptions opt;
    opt.date = date;
    auto r = Call(bh::verb::get, "/dbs", "", {}, opt);
    EXPECT_EQ(r.status(), 403) << date;
    EXPECT_EQ(r.Code(), "Forbidden");
    EXPECT_NE(r.Message().find("The authorization token is not valid at the current time."), std::string::npos);
    EXPECT_EQ(r.Charge(), "0");
    ExpectErrorShape(r);
  }
}

TEST_F(PipelineTest, LowerCaseDateAndUnencodedTokenAreAccepted) {
  SignOptions opt;
  opt.date = util::ToLower(Now());
  opt.url_encode = false;
  EXPECT_EQ(Call(bh::verb::get, "/dbs", "", {}, opt).status(), 200);
}

TEST_F(PipelineTest, MissingDateIs401) {
  SignOptions opt;
  opt.send_date = false;
  auto r = Call(bh::verb::get, "/dbs", "", {}, opt);
  EXPECT_EQ(r.status(), 401);
  EXPECT_EQ(r.Code(), "Unauthorized");
}

TEST_F(PipelineTest, DoubleAndTrailingSlashesAreSignedCollapsed) {
  MakeDatabase("db1");
  EXPECT_EQ(Get("//dbs//db1/").status(), 200);
  EXPECT_EQ(Get("/dbs/db1/").status(), 200);
  // Python v3 SDK: empty session token header.
  EXPECT_EQ(Get("/dbs/db1", {{"x-ms-session-token", ""}}).status(), 200);
  EXPECT_EQ(Get("/dbs/db1?foo=bar").status(), 200);
}

// ---- routing errors ---------------------------------------------------------------------------

TEST_F(PipelineTest, UnknownPathIs400InvalidUrl) {
  for (const char* path :
       {"/nope", "/dbs/db1/views", "/dbs/db1/colls/c1/docs/d1/extra", "/dbs/%zz", "/dbs/db1/colls/c1/pkranges/0/x"}) {
    auto r = Post(path, R"({"id":"x"})");
    EXPECT_EQ(r.status(), 400) << path;
    EXPECT_EQ(r.Code(), "BadRequest") << path;
    EXPECT_EQ(r.Message().rfind("Request url is invalid.\r\nActivityId: ", 0), 0u) << r.Message();
    EXPECT_EQ(r.Charge(), "0");
    ExpectErrorShape(r);
  }
}

TEST_F(PipelineTest, WrongVerbIs405) {
  MakeDatabase("db1");
  MakeContainer("db1", "c1");
  struct Case {
    bh::verb verb;
    const char* path;
  };
  for (auto c : {Case{bh::verb::put, "/dbs/db1"}, Case{bh::verb::delete_, "/dbs"}, Case{bh::verb::patch, "/dbs/db1"},
                 Case{bh::verb::patch, "/dbs/db1/colls/c1"}, Case{bh::verb::post, "/dbs/db1/colls/c1/docs/d1"},
                 Case{bh::verb::post, "/dbs/db1/colls/c1/pkranges"}, Case{bh::verb::put, "/dbs/db1/colls/c1/docs"},
                 Case{bh::verb::post, "/"}, Case{bh::verb::head, "/dbs"}}) {
    auto r = Call(c.verb, c.path, c.verb == bh::verb::head ? "" : "{}");
    EXPECT_EQ(r.status(), 405) << bh::to_string(c.verb) << " " << c.path;
    EXPECT_EQ(r.Code(), "MethodNotAllowed") << c.path;
    EXPECT_NE(r.Message().find("The requested verb is not supported on this resource."), std::string::npos);
    if (c.verb != bh::verb::head) ExpectErrorShape(r);
  }
}

// ---- consistency ------------------------------------------------------------------------------

TEST_F(PipelineTest, StrongerConsistencyThanAccountIs400) {
  for (const char* level : {"Strong", "BoundedStaleness", "strong"}) {
    auto r = Get("/dbs", {{"x-ms-consistency-level", level}});
    EXPECT_EQ(r.status(), 400) << level;
    EXPECT_EQ(r.Code(), "BadRequest");
    EXPECT_FALSE(r.Has("x-ms-substatus"));
    EXPECT_NE(r.Message().find(std::string("ConsistencyLevel ") + level +
                               " specified in the request is invalid when service is configured with consistency "
                               "level Session."),
              std::string::npos)
        << r.Message();
    ExpectErrorShape(r);
  }
}

TEST_F(PipelineTest, WeakerOrEqualConsistencyIsAccepted) {
  for (const char* level : {"Session", "Eventual", "ConsistentPrefix", "session"}) {
    EXPECT_EQ(Get("/dbs", {{"x-ms-consistency-level", level}}).status(), 200) << level;
  }
  config_.consistency = "Strong";
  EXPECT_EQ(Get("/dbs", {{"x-ms-consistency-level", "Strong"}}).status(), 200);
  EXPECT_EQ(Get("/dbs", {{"x-ms-consistency-level", "BoundedStaleness"}}).status(), 200);
}

TEST_F(PipelineTest, UnknownConsistencyIs400) {
  auto r = Get("/dbs", {{"x-ms-consistency-level", "Linearizable"}});
  EXPECT_EQ(r.status(), 400);
  EXPECT_EQ(r.Code(), "BadRequest");
}

// ---- 501 for what the foundation does not serve -------------------------------------------------

TEST_F(PipelineTest, NotImplementedResources) {
  MakeDatabase("db1");
  MakeContainer("db1", "c1");
  struct Case {
    bh::verb verb;
    const char* path;
    const char* what;
  };
  for (auto c :
       {Case{bh::verb::get, "/dbs/db1/colls/c1/docs/d1/attachments", "Attachments"},
        Case{bh::verb::get, "/dbs/db1/colls/c1/docs/d1/attachments/a1", "Attachments"}}) {
    auto r = Call(c.verb, c.path, c.verb == bh::verb::get ? "" : "[]");
    EXPECT_EQ(r.status(), 501) << c.path;
    EXPECT_EQ(r.Code(), "NotImplemented") << c.path;
    EXPECT_NE(r.Message().find(std::string(c.what) + " is not supported by this emulator yet."), std::string::npos)
        << r.Message();
    EXPECT_EQ(r.Charge(), "0");
    ExpectErrorShape(r);
  }
}

// A batch request reaches the batch handler (tests/http/batch_http_test.cpp): a body that is not an
// array of operations is a 400, not a query and not a 501.
TEST_F(PipelineTest, BatchRequestReachesTheBatchHandler) {
  MakeDatabase("db1");
  MakeContainer("db1", "c1");
  auto r = Post("/dbs/db1/colls/c1/docs", R"({"query":"SELECT * FROM c"})",
                {{"x-ms-cosmos-is-batch-request", "true"}, {"x-ms-documentdb-partitionkey", "[\"a\"]"}});
  EXPECT_EQ(r.status(), 400) << r;
  EXPECT_EQ(r.Code(), "BadRequest");
  ExpectErrorShape(r);
  auto ok = Post("/dbs/db1/colls/c1/docs", R"([{"operationType":"Create","resourceBody":{"id":"x","pk":"a"}}])",
                 {{"x-ms-cosmos-is-batch-request", "true"},
                  {"x-ms-cosmos-batch-atomic", "true"},
                  {"x-ms-documentdb-partitionkey", "[\"a\"]"}});
  EXPECT_EQ(ok.status(), 200) << ok;
}

// Every way an SDK marks a query reaches the query engine.
TEST_F(PipelineTest, QueryMarkersReachTheQueryEngine) {
  MakeDatabase("db1");
  MakeContainer("db1", "c1");
  for (auto& h : std::vector<Headers>{
           {{"x-ms-documentdb-isquery", "true"}, {"content-type", "application/query+json"}},
           {{"x-ms-documentdb-isquery", "True"}},
           {{"content-type", "application/query+json"}},
           {{"content-type", "Application/Query+JSON; charset=utf-8"}}}) {
    h.emplace_back("x-ms-documentdb-query-enablecrosspartition", "True");
    // A filter the gateway serves whole (an aggregate would be refused with 400/1004 and the plan).
    auto r = Post("/dbs/db1/colls/c1/docs", R"({"query":"SELECT VALUE c.id FROM c WHERE c.n = 1"})", h);
    EXPECT_EQ(r.status(), 200);
    EXPECT_NE(r.raw.body().find("\"Documents\":[]"), std::string::npos) << r.raw.body();
  }
  auto plan = Post("/dbs/db1/colls/c1/docs", R"({"query":"SELECT * FROM c"})",
                   {{"x-ms-cosmos-is-query-plan-request", "True"}, {"content-type", "application/query+json"}});
  EXPECT_EQ(plan.status(), 200);
  EXPECT_NE(plan.raw.body().find("\"partitionedQueryExecutionInfoVersion\":2"), std::string::npos);
}

TEST_F(PipelineTest, ErrorResponseHelper) {
  auto res = http::ErrorResponse(400, "BadRequest", "Request url is invalid.", 11, true);
  Reply r{res};
  EXPECT_EQ(r.status(), 400);
  EXPECT_EQ(r.Code(), "BadRequest");
  EXPECT_EQ(r.Charge(), "0");
  EXPECT_TRUE(r.raw.keep_alive());
  ExpectErrorShape(r);
}

}  // namespace
}  // namespace cosmos::testing
