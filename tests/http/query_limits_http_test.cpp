// Issue 19: nothing a client sends through the query API can stop the emulator. Too many AND/OR
// terms, thousands of chained NOTs, text that is not UTF-8, pages that run too long and queries that
// hold too many rows each get an answer (400, or a short page with a continuation), in milliseconds.
#include <pthread.h>

#include <chrono>
#include <functional>
#include <string>

#include "http_test_util.h"
#include "query/eval.h"

namespace cosmos {
namespace {

using testing::Headers;
using testing::Reply;

class QueryLimitsTest : public testing::EmulatorTest {
 protected:
  void SetUp() override {
    MakeDatabase("db");
    MakeContainer("db", "c");
  }

  Reply Query(const std::string& text, Headers headers = {}) {
    std::string body = "{\"query\":";
    json::WriteString(body, text);
    body += "}";
    return QueryBody(body, std::move(headers));
  }

  Reply QueryBody(const std::string& body, Headers headers = {}) {
    headers.emplace_back("x-ms-documentdb-isquery", "True");
    headers.emplace_back("x-ms-documentdb-partitionkey", "[\"p\"]");
    auto req = Build(boost::beast::http::verb::post, "/dbs/db/colls/c/docs", body, headers);
    req.set(boost::beast::http::field::content_type, "application/query+json");
    return Send(req);
  }

  // Every page of a query, following continuations; the rows' JSON texts in order.
  std::vector<std::string> AllPages(const std::string& text, int* pages, const std::string& max_items = "100") {
    std::vector<std::string> rows;
    std::string continuation;
    *pages = 0;
    for (int guard = 0; guard < 100000; ++guard) {
      Headers h{{"x-ms-max-item-count", max_items}};
      if (!continuation.empty()) h.emplace_back("x-ms-continuation", continuation);
      auto r = Query(text, h);
      EXPECT_EQ(r.status(), 200) << r;
      if (r.status() != 200) break;
      ++*pages;
      auto d = r.Json();
      for (const auto& v : d["Documents"].GetArray()) rows.push_back(json::Write(v));
      continuation = r.Header("x-ms-continuation");
      if (continuation.empty()) break;
    }
    return rows;
  }

  static long long MsSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  }

  // Every error body is JSON with a code and a message.
  static void ExpectErrorBody(const Reply& r) {
    EXPECT_NE(r.Code(), "<no code>") << r;
    EXPECT_NE(r.Message(), "<no message>") << r;
  }
};

// Was a crash (stack overflow in the binder): 10,000 ANDs (120 KB of text).
TEST_F(QueryLimitsTest, TenThousandAndTermsAnswer400) {
  for (const char* op : {" AND ", " OR "}) {
    std::string q = "SELECT * FROM c WHERE c.a = 0";
    for (int i = 1; i < 10000; ++i) q += op + std::string("c.a = ") + std::to_string(i);
    const auto t0 = std::chrono::steady_clock::now();
    auto r = Query(q);
    EXPECT_EQ(r.status(), 400) << r;
    ExpectErrorBody(r);
    EXPECT_NE(r.Message().find("maximum number of '" + std::string(op).substr(1, std::string(op).size() - 2) +
                               "' operators. The allowed limit is 500."),
              std::string::npos)
        << r;
    EXPECT_LT(MsSince(t0), 2000);
  }
}

// The account's maxLogicalAndPerSqlQuery and maxLogicalOrPerSqlQuery: 500 of each still run.
TEST_F(QueryLimitsTest, FiveHundredAndsAndOrsRun) {
  ASSERT_EQ(CreateDoc("db", "c", R"({"id":"1","pk":"p","a":7})", "[\"p\"]").status(), 201);
  std::string q = "SELECT VALUE c.id FROM c WHERE (c.a >= 0";
  for (int i = 0; i < 500; ++i) q += " AND c.a >= 0";
  q += ") AND (c.a = -1";
  for (int i = 0; i < 499; ++i) q += " OR c.a = " + std::to_string(i);
  q += ")";
  auto r = Query(q);  // 501 ANDs: refused
  EXPECT_EQ(r.status(), 400) << r;
  q = "SELECT VALUE c.id FROM c WHERE (c.a >= 0";
  for (int i = 0; i < 499; ++i) q += " AND c.a >= 0";
  q += ") AND (c.a = -1";
  for (int i = 0; i < 500; ++i) q += " OR c.a = " + std::to_string(i);
  q += ")";
  r = Query(q);  // 500 of each
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(json::Write(r.Json()["Documents"]), "[\"1\"]");
}

// Was 12-16 s and ~450 MB kept by ANTLR: 50,000 chained NOTs. Now refused before parsing (a few
// milliseconds here); the bound only catches a return of the old cost on a loaded machine.
TEST_F(QueryLimitsTest, FiftyThousandNotsAnswer400BeforeParsing) {
  std::string q = "SELECT * FROM c WHERE ";
  for (int i = 0; i < 50000; ++i) q += (i % 2 ? "not " : "NOT ");
  q += "true";
  const auto t0 = std::chrono::steady_clock::now();
  auto r = Query(q);
  EXPECT_EQ(r.status(), 400) << r;
  ExpectErrorBody(r);
  EXPECT_NE(r.Message().find("too complex"), std::string::npos) << r;
  EXPECT_LT(MsSince(t0), 3000);
  // NOT inside names, strings and comments is not an operator.
  ASSERT_EQ(CreateDoc("db", "c", R"({"id":"1","pk":"p","note":"x","nothing":true})", "[\"p\"]").status(), 201);
  std::string words = "SELECT VALUE c.id FROM c WHERE c.note = 'x'";
  for (int i = 0; i < 200; ++i) words += " AND c.nothing";
  words += " -- " + std::string(200 * 4, ' ');
  for (int i = 0; i < 200; ++i) words += "NOT ";
  r = Query(words);
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(json::Write(r.Json()["Documents"]), "[\"1\"]");
  // A few NOTs in a row still run.
  r = Query("SELECT VALUE NOT NOT NOT NOT c.nothing FROM c");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(json::Write(r.Json()["Documents"]), "[true]");
  // Conditionals nest to the right: thousands are refused too.
  std::string cond = "SELECT VALUE ";
  for (int i = 0; i < 5000; ++i) cond += "c.nothing ? 1 : ";
  cond += "0 FROM c";
  r = Query(cond);
  EXPECT_EQ(r.status(), 400) << r;
}

// Was 500: a query text (a body that is not JSON, taken as the text) that is not UTF-8.
TEST_F(QueryLimitsTest, InvalidUtf8QueryTextAnswers400WithJsonBody) {
  auto r = QueryBody(std::string("SELECT * FROM c WHERE c.name = '\xff\xfe\xc0\xaf'"));
  EXPECT_EQ(r.status(), 400) << r;
  ExpectErrorBody(r);
  EXPECT_EQ(r.Code(), "BadRequest");
  // In JSON the body is refused too (RapidJSON validates the encoding).
  r = QueryBody(std::string("{\"query\":\"SELECT * FROM c WHERE c.name = '\xed\xa0\x80'\"}"));
  EXPECT_EQ(r.status(), 400) << r;
  ExpectErrorBody(r);
}

// Was 500 "RapidJSON assertion failed: IsObject()": a parameter (or a unique key) that is not an
// object, on item queries, query plans and metadata queries.
TEST_F(QueryLimitsTest, ParametersThatAreNotObjectsAnswer400) {
  const std::string body = "{\"query\":\"SELECT * FROM c\",\"parameters\":[0]}";
  const std::string message = "Invalid query parameter: every parameter needs a";
  auto r = QueryBody(body);
  EXPECT_EQ(r.status(), 400) << r;
  ExpectErrorBody(r);
  EXPECT_EQ(r.Code(), "BadRequest");
  EXPECT_NE(r.Message().find(message), std::string::npos) << r;
  r = QueryBody(body, {{"x-ms-cosmos-is-query-plan-request", "True"}, {"x-ms-cosmos-supported-query-features", "Aggregate"}});
  EXPECT_EQ(r.status(), 400) << r;
  EXPECT_NE(r.Message().find(message), std::string::npos) << r;
  for (const char* target : {"/dbs", "/dbs/db/colls"}) {
    auto req = Build(boost::beast::http::verb::post, target, body, {{"x-ms-documentdb-isquery", "True"}});
    req.set(boost::beast::http::field::content_type, "application/query+json");
    r = Send(req);
    EXPECT_EQ(r.status(), 400) << target << r;
    EXPECT_NE(r.Message().find(message), std::string::npos) << r;
  }
  r = Post("/dbs/db/colls", "{\"id\":\"u\",\"partitionKey\":{\"paths\":[\"/p\"],\"kind\":\"Hash\"},"
                            "\"uniqueKeyPolicy\":{\"uniqueKeys\":[0]}}");
  EXPECT_EQ(r.status(), 400) << r;
  ExpectErrorBody(r);
}

// A query continuation is not base64 of a JSON object with a "v": the Python SDK 4 takes such a
// token for its own feed-range continuation and fails ("'cr' is required").
TEST_F(QueryLimitsTest, ContinuationsAreNotTakenForTheSdksOwnTokens) {
  for (int i = 0; i < 3; ++i) CreateDoc("db", "c", R"({"id":"k)" + std::to_string(i) + R"(","pk":"p"})", R"(["p"])");
  auto r = Query("SELECT * FROM c", {{"x-ms-max-item-count", "1"}});
  ASSERT_EQ(r.status(), 200) << r;
  const std::string token = r.Header("x-ms-continuation");
  ASSERT_FALSE(token.empty());
  auto raw = util::Base64Decode(token);
  json::Document d;
  if (raw && json::Parse(*raw, d) == json::ParseStatus::kOk && d.IsObject()) {
    EXPECT_FALSE(d.HasMember("v")) << *raw;
  }
  auto next = Query("SELECT * FROM c", {{"x-ms-max-item-count", "1"}, {"x-ms-continuation", token}});
  EXPECT_EQ(next.status(), 200) << next;
  EXPECT_EQ(next.Header("x-ms-item-count"), "1");
}

// An error that echoes bytes of the request that are not UTF-8 is still a JSON body.
TEST_F(QueryLimitsTest, ErrorBodiesEchoingInvalidBytesAreJson) {
  auto r = Call(boost::beast::http::verb::get, "/dbs/db/colls/c/docs/x", "",
                {{"x-ms-consistency-level", std::string("Str\xff\xc3(ong")}, {"x-ms-documentdb-partitionkey", "[\"p\"]"}});
  EXPECT_EQ(r.status(), 400) << r;
  ExpectErrorBody(r);
  EXPECT_NE(r.Message().find("Str\xef\xbf\xbd\xef\xbf\xbd(ong"), std::string::npos) << r;  // U+FFFD each
}

// The service answers OPTIONS 403 {"code":"Forbidden"} (recording cosmos-203); ours carries a message.
TEST_F(QueryLimitsTest, OptionsAnswers403WithAMessage) {
  auto r = Call(boost::beast::http::verb::options, "/", "", {}, testing::NoSignature());
  EXPECT_EQ(r.status(), 403) << r;
  EXPECT_EQ(r.Code(), "Forbidden");
  ExpectErrorBody(r);
}

// A streaming page that runs out of time ends early with a continuation; following the
// continuations gives exactly the rows of one unbounded run, in the same order.
TEST_F(QueryLimitsTest, PageTimeoutEndsThePageAndResumesExactly) {
  std::string arr;
  for (int i = 0; i < 80; ++i) arr += (i ? "," : "") + std::to_string(i);
  for (int d = 0; d < 30; ++d) {
    ASSERT_EQ(CreateDoc("db", "c", R"({"id":"d)" + std::to_string(d) + R"(","pk":"p","arr":[)" + arr + "]}", "[\"p\"]")
                  .status(),
              201);
  }
  // 6,400 candidate rows per document, 4 kept.
  const std::string q = "SELECT c.id, a, b FROM c JOIN a IN c.arr JOIN b IN c.arr WHERE a = b AND a % 20 = 0";
  int pages = 0;
  const auto expected = AllPages(q, &pages, "-1");
  ASSERT_EQ(expected.size(), 30u * 4u);
  EXPECT_EQ(pages, 1);
  config_.query_page_timeout_ms = 1;
  for (const char* max_items : {"100", "7", "-1"}) {
    const auto rows = AllPages(q, &pages, max_items);
    EXPECT_EQ(rows, expected) << max_items;
    EXPECT_GT(pages, 2) << max_items;
  }
  // OFFSET/LIMIT carry over pages cut short by time.
  const std::string windowed = q + " OFFSET 7 LIMIT 40";
  config_.query_page_timeout_ms = 5000;
  const auto expected_window = AllPages(windowed, &pages, "-1");
  ASSERT_EQ(expected_window.size(), 40u);
  config_.query_page_timeout_ms = 1;
  EXPECT_EQ(AllPages(windowed, &pages, "-1"), expected_window);
  EXPECT_GT(pages, 1);
  // A filter that keeps nothing still progresses page by page to the end.
  const auto none = AllPages("SELECT c.id FROM c JOIN a IN c.arr JOIN b IN c.arr WHERE a = -1", &pages);
  EXPECT_TRUE(none.empty());
  EXPECT_GT(pages, 2);
  // A FROM subquery is run whole on every page; the outer rows still resume exactly.
  const std::string sub = "SELECT VALUE x.id FROM (SELECT c.id, c.arr FROM c) x JOIN a IN x.arr JOIN b IN x.arr "
                          "WHERE a = b AND a = 3";
  config_.query_page_timeout_ms = 5000;
  const auto expected_sub = AllPages(sub, &pages, "-1");
  ASSERT_EQ(expected_sub.size(), 30u);
  config_.query_page_timeout_ms = 1;
  EXPECT_EQ(AllPages(sub, &pages, "-1"), expected_sub);
}

// ThreadSanitizer's instrumentation makes every frame larger: the binder's recursion needs about
// 1.4 MB there for what fits in 1 MB otherwise (tests/tsan.sh), still far inside a worker's 8 MB.
#if defined(__SANITIZE_THREAD__)  // gcc
#define COSMOS_TEST_UNDER_TSAN 1
#elif defined(__has_feature)      // clang
#if __has_feature(thread_sanitizer)
#define COSMOS_TEST_UNDER_TSAN 1
#endif
#endif
#ifdef COSMOS_TEST_UNDER_TSAN
constexpr size_t kSmallStackBytes = 2u << 20;
#else
constexpr size_t kSmallStackBytes = 1u << 20;
#endif

// Runs `fn` on a thread with a small stack (1 MB, 2 MB under TSan; worker threads have 8 MB by default).
void OnSmallStack(const std::function<void()>& fn) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, kSmallStackBytes);
  pthread_t t;
  auto run = [](void* arg) -> void* {
    (*static_cast<const std::function<void()>*>(arg))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&t, &attr, run, const_cast<std::function<void()>*>(&fn)), 0);
  pthread_attr_destroy(&attr);
  pthread_join(t, nullptr);
}

// The deepest trees the parser accepts go through every recursive stage (bind, evaluate, print,
// query plan, index use) on a 1 MB stack (2 MB under TSan); deeper ones are refused.
TEST_F(QueryLimitsTest, DeepestAcceptedQueriesRunOnASmallStack) {
  ASSERT_EQ(CreateDoc("db", "c", R"({"id":"1","pk":"p","a":1})", "[\"p\"]").status(), 201);
  std::vector<std::string> queries;
  std::string sum = "SELECT VALUE c.a";
  for (int i = 0; i < 990; ++i) sum += " + c.a";
  queries.push_back(sum + " FROM c");
  std::string logic = "SELECT VALUE c.id FROM c WHERE (c.a = 1";
  for (int i = 0; i < 499; ++i) logic += " AND c.a = 1";
  logic += ") OR (c.a = 2";
  for (int i = 0; i < 498; ++i) logic += " OR c.a = 2";
  queries.push_back(logic + ")");
  queries.push_back("SELECT VALUE " + std::string(120, '(') + "c.a" + std::string(120, ')') + " FROM c");
  std::string prefix = "SELECT VALUE ";
  for (int i = 0; i < 120; ++i) prefix += "-(";
  queries.push_back(prefix + "c.a" + std::string(120, ')') + " FROM c");
  std::string nots = "SELECT VALUE ";
  for (int i = 0; i < 120; ++i) nots += "NOT ";
  queries.push_back(nots + "(c.a = 1) FROM c");
  std::string subqueries = "SELECT VALUE ";
  for (int i = 0; i < 120; ++i) subqueries += "(SELECT VALUE ";
  queries.push_back(subqueries + "c.a" + std::string(120, ')') + " FROM c");
  std::string arrays = "SELECT VALUE ";
  for (int i = 0; i < 120; ++i) arrays += "ARRAY(SELECT VALUE ";
  queries.push_back(arrays + "1" + std::string(120, ')') + " FROM c");
  std::string conds = "SELECT VALUE ";
  for (int i = 0; i < 120; ++i) conds += "c.a = " + std::to_string(i) + " ? " + std::to_string(i) + " : ";
  queries.push_back(conds + "-1 FROM c");
  std::vector<int> statuses(queries.size() * 2, 0);
  OnSmallStack([&] {
    for (size_t i = 0; i < queries.size(); ++i) {
      statuses[2 * i] = Query(queries[i]).status();
      // Cross-partition: the gateway's query plan and partition ranges too.
      std::string body = "{\"query\":";
      json::WriteString(body, queries[i]);
      body += "}";
      auto req = Build(boost::beast::http::verb::post, "/dbs/db/colls/c/docs", body,
                       {{"x-ms-documentdb-isquery", "True"}, {"x-ms-documentdb-query-enablecrosspartition", "True"},
                        {"x-ms-cosmos-is-query-plan-request", "True"},
                        {"x-ms-cosmos-supported-query-features",
                         "Aggregate, Distinct, MultipleOrderBy, OffsetAndLimit, OrderBy, Top, CompositeAggregate, "
                         "GroupBy, MultipleAggregates, NonStreamingOrderBy"}});
      req.set(boost::beast::http::field::content_type, "application/query+json");
      statuses[2 * i + 1] = Send(req).status();
    }
  });
  for (size_t i = 0; i < queries.size(); ++i) {
    EXPECT_EQ(statuses[2 * i], 200) << queries[i].substr(0, 80);
    EXPECT_EQ(statuses[2 * i + 1], 200) << queries[i].substr(0, 80);
  }
}

// ORDER BY (and GROUP BY, DISTINCT) over a large JOIN holds its rows within the memory budget:
// past it, 400 (it grew to 6.3 GB).
TEST_F(QueryLimitsTest, OrderByOverLargeJoinAnswers400PastTheMemoryBudget) {
  std::string arr;
  for (int i = 0; i < 200; ++i) arr += (i ? "," : "") + std::to_string(i);
  for (int d = 0; d < 5; ++d) {
    ASSERT_EQ(CreateDoc("db", "c", R"({"id":"d)" + std::to_string(d) + R"(","pk":"p","arr":[)" + arr + "]}", "[\"p\"]")
                  .status(),
              201);
  }
  config_.query_memory_bytes = 4u << 20;
  for (const char* q : {"SELECT x.id, x.a, x.b FROM (SELECT c.id, a, b FROM c JOIN a IN c.arr JOIN b IN c.arr) AS x ORDER BY x.id",
                        "SELECT DISTINCT {\"a\": a, \"b\": b} FROM c JOIN a IN c.arr JOIN b IN c.arr",
                        "SELECT a, b, COUNT(1) AS n FROM c JOIN a IN c.arr JOIN b IN c.arr GROUP BY a, b"}) {
    const auto t0 = std::chrono::steady_clock::now();
    auto r = Query(q);
    EXPECT_EQ(r.status(), 400) << q << " " << r.status();
    ExpectErrorBody(r);
    EXPECT_NE(r.Message().find("Query exceeded the maximum allowed memory usage of 4 MB"), std::string::npos) << r;
    EXPECT_LT(MsSince(t0), 5000);
  }
  // ORDER BY over an indexed path of the documents walks its index: the first page of the same
  // join holds little, whatever the join's size.
  {
    auto r = Query("SELECT c.id, a, b FROM c JOIN a IN c.arr JOIN b IN c.arr ORDER BY c.id");
    ASSERT_EQ(r.status(), 200) << r;
    EXPECT_EQ(r.Json()["Documents"].Size(), 100u);
    EXPECT_FALSE(r.Header("x-ms-continuation").empty());
  }
  // Within the budget, the same shapes answer.
  auto r = Query("SELECT VALUE c.id FROM c ORDER BY c.id DESC OFFSET 0 LIMIT 1");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(json::Write(r.Json()["Documents"]), "[\"d4\"]");
  // A streaming query over the same JOIN is not limited by the budget: its pages are short.
  int pages = 0;
  EXPECT_EQ(AllPages("SELECT VALUE 1 FROM c JOIN a IN c.arr JOIN b IN c.arr WHERE a = b", &pages, "-1").size(), 1000u);
}

// The cancellation flag stops any query (408); nobody sets it yet.
TEST_F(QueryLimitsTest, BudgetDefaultsAreUnbounded) {
  query::QueryBudget b;
  EXPECT_EQ(b.cancelled, nullptr);
  EXPECT_EQ(b.memory_bytes, SIZE_MAX);
  EXPECT_EQ(b.deadline, std::chrono::steady_clock::time_point::max());
}

}  // namespace
}  // namespace cosmos
