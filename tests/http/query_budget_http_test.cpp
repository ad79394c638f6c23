// Issue 19, bounded work per request: every query page ends at the page time (--query-page-timeout-ms)
// with a continuation that resumes exactly, whatever the query collects.
//  - ORDER BY, DISTINCT, GROUP BY and aggregates keep what a page read (a suspended collection) and
//    answer empty pages until they have read everything; then the rows come in order, each once.
//  - One partition key range of the SDKs' pipeline (x-ms-documentdb-partitionkeyrangeid, no partition
//    key) gets partial pages: aggregates and groups over what the page read, which the SDKs merge.
//  - User-defined functions end at the page's deadline, at the script limit, or when the client has
//    gone; triggers stop when the client has gone; stored procedures' queries and feeds are bounded.
//  - Read feeds and change feeds end at about 4 MB and at the page time.
#include <atomic>
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <thread>

#include "http_test_util.h"
#include "query/executor.h"
#include "util/util.h"

namespace cosmos {
namespace {

using testing::Headers;
using testing::Reply;

constexpr int kDocs = 3000;

class QueryBudgetTest : public testing::EmulatorTest {
 protected:
  void SetUp() override {
    MakeDatabase("db");
    MakeContainer("db", "c");
  }

  // kDocs documents in logical partition "p": n is a permutation of 0..kDocs-1, g one of 7 groups,
  // arr 10 numbers (JOINs give 10 candidate rows per document).
  void Fill() {
    for (int i = 0; i < kDocs; ++i) {
      const int n = (i * 7919) % kDocs;
      std::string arr;
      for (int k = 0; k < 10; ++k) arr += (k ? "," : "") + std::to_string((i + k) % 13);
      auto r = CreateDoc("db", "c",
                         R"({"id":"d)" + std::to_string(i) + R"(","pk":"p","n":)" + std::to_string(n) + R"(,"g":"g)" +
                             std::to_string(n % 7) + R"(","arr":[)" + arr + "]}",
                         "[\"p\"]");
      ASSERT_EQ(r.status(), 201) << r;
    }
  }

  Reply QueryWith(const std::string& text, Headers headers, const std::string& params = "") {
    std::string body = "{\"query\":";
    json::WriteString(body, text);
    if (!params.empty()) body += ",\"parameters\":" + params;
    body += "}";
    headers.emplace_back("x-ms-documentdb-isquery", "True");
    auto req = Build(boost::beast::http::verb::post, "/dbs/db/colls/c/docs", body, headers);
    req.set(boost::beast::http::field::content_type, "application/query+json");
    return Send(req);
  }

  struct Pages {
    std::vector<std::string> rows;        // every row, in order
    std::vector<size_t> sizes;            // rows per page
    int empty_with_continuation = 0;      // pages that answered nothing but a continuation
    std::vector<std::string> tokens;      // the continuations handed out
  };

  // Every page of a query, following continuations. `scope`: the partition key header (default)
  // or a partition key range.
  Pages All(const std::string& text, const std::string& max_items = "100", Headers scope = {},
            const std::string& params = "") {
    if (scope.empty()) scope.emplace_back("x-ms-documentdb-partitionkey", "[\"p\"]");
    Pages out;
    std::string continuation;
    for (int guard = 0; guard < 200000; ++guard) {
      Headers h = scope;
      h.emplace_back("x-ms-max-item-count", max_items);
      if (!continuation.empty()) h.emplace_back("x-ms-continuation", continuation);
      auto r = QueryWith(text, h, params);
      EXPECT_EQ(r.status(), 200) << r;
      if (r.status() != 200) break;
      auto d = r.Json();
      size_t n = 0;
      for (const auto& v : d["Documents"].GetArray()) {
        out.rows.push_back(json::Write(v));
        ++n;
      }
      out.sizes.push_back(n);
      EXPECT_EQ(r.Header("x-ms-item-count"), std::to_string(n));
      continuation = r.Header("x-ms-continuation");
      if (continuation.empty()) break;
      out.tokens.push_back(continuation);
      if (n == 0) ++out.empty_with_continuation;
    }
    return out;
  }

  static Headers Range() {
    return {{"x-ms-documentdb-partitionkeyrangeid", "0"}, {"x-ms-documentdb-query-enablecrosspartition", "True"}};
  }

  static long long MsSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  }
};

// ORDER BY (and DISTINCT, GROUP BY, aggregates, windows) over more documents than a page reads in
// its time: empty pages while the collection grows, then every row once, in order. (The path
// indexes are off: with them, ORDER BY over one path walks its index and returns rows at once;
// see OrderedWalksUnderATinyPageTimeAnswerEveryRowOnce.)
TEST_F(QueryBudgetTest, CollectingQueriesUnderATinyPageTimeAnswerEveryRowOnce) {
  config_.query_indexes = false;
  Fill();
  const std::vector<std::string> queries = {
      "SELECT c.id, c.n FROM c ORDER BY c.n",
      "SELECT VALUE c.id FROM c ORDER BY c.g DESC",
      "SELECT c.id, a FROM c JOIN a IN c.arr WHERE a % 5 = 0 ORDER BY c.g DESC",
      "SELECT TOP 25 c.id FROM c ORDER BY c.n DESC",
      "SELECT c.id FROM c ORDER BY c.n OFFSET 13 LIMIT 40",
      "SELECT DISTINCT VALUE c.g FROM c ORDER BY c.g",
      "SELECT DISTINCT VALUE a FROM c JOIN a IN c.arr",
      "SELECT c.g, COUNT(1) AS n, SUM(c.n) AS s, MIN(c.id) AS lo, MAX(c.n) AS hi, AVG(c.n) AS mean FROM c GROUP BY c.g",
      "SELECT VALUE COUNT(1) FROM c JOIN a IN c.arr",
      "SELECT VALUE {\"k\": \"constant\", \"n\": c.n, \"p\": @p} FROM c WHERE c.n >= @lo ORDER BY c.n",
  };
  const std::string params = R"([{"name":"@lo","value":0},{"name":"@p","value":{"deep":[1,2]}}])";
  for (const auto& q : queries) {
    config_.query_page_timeout_ms = 60000;
    const auto expected = All(q, "-1", {}, params);
    ASSERT_FALSE(expected.rows.empty()) << q;
    ASSERT_EQ(expected.sizes.size(), 1u) << q;  // one page when time does not count
    config_.query_page_timeout_ms = 0;  // every page past its deadline at its first check: not up to the machine's speed
    for (const char* max_items : {"300", "7"}) {
      if (std::string(max_items) == "7" && expected.rows.size() > 100) continue;  // every page reads it all again
      const auto got = All(q, max_items, {}, params);
      EXPECT_EQ(got.rows, expected.rows) << q << " max " << max_items;
      EXPECT_GT(got.empty_with_continuation, 0) << q << " max " << max_items;
      for (size_t n : got.sizes) EXPECT_LE(n, std::string(max_items) == "7" ? 7u : 300u) << q;
    }
  }
  EXPECT_EQ(All("SELECT VALUE COUNT(1) FROM c JOIN a IN c.arr").rows, std::vector<std::string>{"30000"});
}

// A collecting query over enough items reads its partitions in parts on several threads (here 4
// threads, parts of 100 items, from any size) and merges the parts in order: rows, charges and
// continuations are what one thread gives, scoped by partition key or by range (partial pages),
// with the page time unbounded or tiny (every part then stops and the request's thread reads on).
TEST_F(QueryBudgetTest, CollectionsReadInParallelAnswerWhatOneThreadAnswers) {
  config_.query_indexes = false;
  Fill();
  const std::vector<std::string> queries = {
      "SELECT c.id, c.n FROM c ORDER BY c.n",
      "SELECT TOP 25 c.id FROM c ORDER BY c.g DESC",
      "SELECT c.id, a FROM c JOIN a IN c.arr WHERE a % 5 = 0 ORDER BY c.g DESC",
      "SELECT DISTINCT VALUE c.g FROM c",
      "SELECT DISTINCT VALUE a FROM c JOIN a IN c.arr",
      "SELECT c.g, COUNT(1) AS n, SUM(c.n) AS s, MIN(c.id) AS lo, MAX(c.n) AS hi, AVG(c.n) AS mean FROM c GROUP BY c.g",
      "SELECT VALUE SUM(c.n * 0.1) FROM c",
      "SELECT VALUE AVG(c.n / 3) FROM c WHERE c.n % 2 = 1",
      "SELECT VALUE MIN(c.g) FROM c",
      "SELECT VALUE COUNT(1) FROM c JOIN a IN c.arr",
      "SELECT c.g, MAX(c.id) AS last FROM c GROUP BY c.g ORDER BY c.g",
  };
  auto one_thread = [&] {
    config_.query_threads = 1;
    config_.query_parallel_min_items = 20000;
    config_.query_parallel_part_items = 25000;
  };
  auto parallel = [&] {
    config_.query_threads = 4;
    config_.query_parallel_min_items = 0;
    config_.query_parallel_part_items = 100;
  };
  for (const auto& q : queries) {
    for (const Headers& scope : {Headers{{"x-ms-documentdb-partitionkey", "[\"p\"]"}}, Range()}) {
      config_.query_page_timeout_ms = 60000;
      Headers h = scope;
      h.emplace_back("x-ms-max-item-count", "-1");
      one_thread();
      const auto expected = QueryWith(q, h);
      ASSERT_EQ(expected.status(), 200) << q << expected;
      parallel();
      const auto got = QueryWith(q, h);
      ASSERT_EQ(got.status(), 200) << q << got;
      EXPECT_EQ(json::Write(got.Json()["Documents"]), json::Write(expected.Json()["Documents"])) << q;
      EXPECT_EQ(got.Charge(), expected.Charge()) << q;
      EXPECT_EQ(got.Header("x-ms-continuation"), expected.Header("x-ms-continuation")) << q;
    }
    // Under a tiny page time the parts give up at once and the pages collect as before.
    config_.query_page_timeout_ms = 60000;
    one_thread();
    const auto whole = All(q, "-1");
    parallel();
    config_.query_page_timeout_ms = 0;
    const auto paged = All(q, "300");
    EXPECT_EQ(paged.rows, whole.rows) << q;
    EXPECT_GT(paged.empty_with_continuation, 0) << q;
  }
}

// A part that holds more than its thread's share of the memory budget (the budget over the
// threads) gives up; the parts before it are kept and the request's thread reads on from there
// with the whole budget: the answer is the one thread's, not a 400.
TEST_F(QueryBudgetTest, APartOverItsShareOfMemoryIsReadOnOneThread) {
  config_.query_indexes = false;
  // 1,000 small items, then 1,000 whose rows hold 4 KB each: the second of two parts holds about
  // 4 MB, over a share of 6 MB / 2 threads; the whole query holds less than 6 MB.
  const std::string big(4000, 'x');
  for (int i = 0; i < 2000; ++i) {
    auto r = CreateDoc("db", "c",
                       R"({"id":"d)" + std::to_string(i) + R"(","pk":"p","n":)" + std::to_string((i * 7919) % 2000) +
                           R"(,"big":")" + (i < 1000 ? std::string() : big) + "\"}",
                       "[\"p\"]");
    ASSERT_EQ(r.status(), 201) << r;
  }
  config_.query_memory_bytes = 6u << 20;
  const std::string q = "SELECT c.id, c.big FROM c ORDER BY c.n";
  config_.query_threads = 1;
  const auto expected = All(q, "-1");
  ASSERT_EQ(expected.rows.size(), 2000u);
  config_.query_threads = 2;
  config_.query_parallel_min_items = 0;
  config_.query_parallel_part_items = 1000;
  const auto got = All(q, "-1");
  EXPECT_EQ(got.rows, expected.rows);
  EXPECT_EQ(got.sizes, expected.sizes);
  // Over the whole budget it is still the service's 400.
  config_.query_memory_bytes = 2u << 20;
  Headers h{{"x-ms-documentdb-partitionkey", "[\"p\"]"}};
  const auto refused = QueryWith(q, h);
  EXPECT_EQ(refused.status(), 400) << refused;
  EXPECT_NE(refused.body().find("Query exceeded the maximum allowed memory usage"), std::string::npos) << refused;
}

// What a row's filter makes is dropped once the row is decided: a WHERE that builds a 20 KB string
// for each of 400 documents (8 MB in all) is answered under a 4 MB budget, in one page, on one
// thread and on two. Before, every row's temporaries stayed until the page ended: the SUM answered
// 400 "Query exceeded the maximum allowed memory usage" and the streaming query ended its page
// early. Values the query keeps still count (APartOverItsShareOfMemoryIsReadOnOneThread), and so
// does what one row's filter makes while the row is decided.
TEST_F(QueryBudgetTest, AFiltersTemporariesAreDroppedRowByRow) {
  config_.query_indexes = false;
  const std::string big(20000, 'x');
  for (int i = 0; i < 400; ++i) {
    auto r = CreateDoc("db", "c",
                       R"({"id":"d)" + std::to_string(i) + R"(","pk":"p","n":)" + std::to_string(i) + R"(,"tags":["a","b"],"big":")" +
                           big + (i % 4 == 0 ? "Q" : "") + "\"}",
                       "[\"p\"]");
    ASSERT_EQ(r.status(), 201) << r;
  }
  config_.query_memory_bytes = 4u << 20;
  struct Case {
    std::string query;
    std::vector<std::string> rows;
  };
  std::string every_fourth = "[";
  for (int i = 0; i < 400; i += 4) every_fourth += (i ? ",\"d" : "\"d") + std::to_string(i) + "\"";
  every_fourth += "]";
  const std::vector<Case> cases = {
      {"SELECT VALUE SUM(c.n) FROM c WHERE ENDSWITH(UPPER(c.big), 'Q')", {"19800"}},
      {"SELECT VALUE COUNT(1) FROM c WHERE LENGTH(CONCAT(c.big, c.big)) > 40000", {"100"}},
      {"SELECT VALUE COUNT(1) FROM c WHERE EXISTS(SELECT VALUE t FROM t IN c.tags WHERE CONCAT(t, c.big) != '')", {"400"}},
      {"SELECT VALUE COUNT(1) FROM c JOIN t IN c.tags WHERE CONTAINS(LOWER(c.big), 'q') AND t = 'b'", {"100"}},
  };
  for (const size_t threads : {1u, 2u}) {
    config_.query_threads = threads;
    config_.query_parallel_min_items = 0;
    config_.query_parallel_part_items = 100;
    for (const auto& c : cases) {
      const auto got = All(c.query, "-1");
      EXPECT_EQ(got.rows, c.rows) << c.query << " threads " << threads;
      EXPECT_EQ(got.sizes.size(), 1u) << c.query;
    }
    const auto ids = All("SELECT VALUE c.id FROM c WHERE ENDSWITH(UPPER(c.big), 'Q')", "-1");
    ASSERT_EQ(ids.sizes.size(), 1u) << "one page: the filter holds nothing past its row";
    std::string joined = "[";
    for (size_t i = 0; i < ids.rows.size(); ++i) joined += (i ? "," : "") + ids.rows[i];
    EXPECT_EQ(joined + "]", every_fourth);
  }
  // One row's filter that makes more than the budget is still refused: the scratch area counts
  // while its row is being decided.
  std::string many = "[";
  for (int m = 0; m < 300; ++m) many += (m ? "," : "") + std::to_string(m);
  auto one = CreateDoc("db", "c", R"({"id":"one","pk":"q","big":")" + big + R"(","many":)" + many + "]}", "[\"q\"]");
  ASSERT_EQ(one.status(), 201) << one.status();
  const auto refused = QueryWith(
      "SELECT VALUE COUNT(1) FROM c WHERE ARRAY_LENGTH(ARRAY(SELECT VALUE CONCAT(c.big, ToString(m)) FROM m IN c.many)) > 0",
      {{"x-ms-documentdb-partitionkey", "[\"q\"]"}, {"x-ms-max-item-count", "-1"}});
  EXPECT_EQ(refused.status(), 400) << refused.body().substr(0, 300);
  EXPECT_NE(refused.body().find("Query exceeded the maximum allowed memory usage"), std::string::npos)
      << refused.body().substr(0, 300);
}

// A subquery that collects (DISTINCT, GROUP BY, an aggregate) inside a filter counts its rows
// against the page's budget while it runs, once per document, and gives them back when it ends.
// Before, each document's subquery rows stayed counted: 2,000 documents whose DISTINCT subquery
// collects 50 values each went over a 1 MB budget and answered 400.
TEST_F(QueryBudgetTest, ASubqueryInAFilterCountsItsRowsOnlyWhileItRuns) {
  config_.query_indexes = false;
  std::string arr;
  for (int k = 0; k < 50; ++k) arr += (k ? "," : "") + std::to_string(k);
  for (int i = 0; i < 2000; ++i) {
    auto r = CreateDoc("db", "c", R"({"id":"d)" + std::to_string(i) + R"(","pk":"p","arr":[)" + arr + "]}", "[\"p\"]");
    ASSERT_EQ(r.status(), 201) << r;
  }
  config_.query_memory_bytes = 1u << 20;
  for (const size_t threads : {1u, 2u}) {
    config_.query_threads = threads;
    config_.query_parallel_min_items = 0;
    config_.query_parallel_part_items = 500;
    const auto distinct = All("SELECT VALUE COUNT(1) FROM c WHERE ARRAY_LENGTH(ARRAY(SELECT DISTINCT VALUE x FROM x IN c.arr)) = 50", "-1");
    EXPECT_EQ(distinct.rows, std::vector<std::string>{"2000"}) << threads;
    const auto grouped = All("SELECT VALUE COUNT(1) FROM c WHERE EXISTS(SELECT x % 7 AS g FROM x IN c.arr GROUP BY x % 7)", "-1");
    EXPECT_EQ(grouped.rows, std::vector<std::string>{"2000"}) << threads;
    const auto summed = All("SELECT VALUE c.id FROM c WHERE (SELECT VALUE SUM(x) FROM x IN c.arr) = 1225", "-1");
    EXPECT_EQ(summed.rows.size(), 2000u) << threads;
    EXPECT_EQ(summed.sizes.size(), 1u) << threads;
  }
}

// ORDER BY over one indexed path walks the index: under the same tiny page time every page that
// ends early carries on from its last row, and the rows come once, in order, without a page that
// had to collect everything first.
TEST_F(QueryBudgetTest, OrderedWalksUnderATinyPageTimeAnswerEveryRowOnce) {
  Fill();
  const std::vector<std::string> queries = {
      "SELECT c.id, c.n FROM c ORDER BY c.n",
      "SELECT VALUE c.id FROM c ORDER BY c.g DESC",
      "SELECT c.id, a FROM c JOIN a IN c.arr WHERE a % 5 = 0 ORDER BY c.n DESC",
      "SELECT TOP 25 c.id FROM c ORDER BY c.n DESC",
      "SELECT c.id FROM c ORDER BY c.n OFFSET 13 LIMIT 40",
      "SELECT VALUE c.n FROM c WHERE c.n % 7 = 0 ORDER BY c.id",
  };
  for (const auto& q : queries) {
    config_.query_page_timeout_ms = 60000;
    const auto expected = All(q, "-1");
    ASSERT_FALSE(expected.rows.empty()) << q;
    ASSERT_EQ(expected.sizes.size(), 1u) << q;
    config_.query_page_timeout_ms = 0;
    for (const char* max_items : {"300", "7"}) {
      const auto got = All(q, max_items);
      EXPECT_EQ(got.rows, expected.rows) << q << " max " << max_items;
      for (size_t n : got.sizes) EXPECT_LE(n, std::string(max_items) == "7" ? 7u : 300u) << q;
    }
  }
  // With the indexes off, the same query collects: pages stay empty until it has read everything.
  config_.query_indexes = false;
  const auto collected = All("SELECT c.id, c.n FROM c ORDER BY c.n", "300");
  EXPECT_GT(collected.empty_with_continuation, 0);
}

// What one page collected is kept in the emulator under the number in its continuation; when it is
// gone (dropped for memory or age, another process) the next page reads from the start again.
// (Indexes off: with them this ORDER BY walks its index and collects nothing.)
TEST_F(QueryBudgetTest, ACollectionThatIsGoneIsReadAgain) {
  config_.query_indexes = false;
  Fill();
  const std::string q = "SELECT VALUE c.n FROM c WHERE c.n % 3 = 0 ORDER BY c.n DESC";
  config_.query_page_timeout_ms = 60000;
  const auto expected = All(q, "-1");
  ASSERT_EQ(expected.rows.size(), 1000u);
  config_.query_page_timeout_ms = 0;  // every page past its deadline at its first check: not up to the machine's speed
  // Follow the pages, but replace the number of every suspended collection by one that names none.
  std::vector<std::string> rows;
  std::string continuation;
  int replaced = 0;
  for (int guard = 0; guard < 100000; ++guard) {
    Headers h{{"x-ms-documentdb-partitionkey", "[\"p\"]"}, {"x-ms-max-item-count", "400"}};
    if (!continuation.empty()) {
      auto raw = util::Base64Decode(continuation);
      ASSERT_TRUE(raw);
      json::Document d;
      ASSERT_EQ(json::Parse(*raw, d), json::ParseStatus::kOk);
      if (d.HasMember("x") && replaced < 3) {
        d["x"].SetUint64(d["x"].GetUint64() + 1000000);
        ++replaced;
        continuation = util::Base64Encode(json::Write(d));
      }
      h.emplace_back("x-ms-continuation", continuation);
    }
    auto r = QueryWith(q, h);
    ASSERT_EQ(r.status(), 200) << r;
    const auto page = r.Json();
    for (const auto& v : page["Documents"].GetArray()) rows.push_back(json::Write(v));
    continuation = r.Header("x-ms-continuation");
    if (continuation.empty()) break;
  }
  EXPECT_EQ(replaced, 3);
  EXPECT_EQ(rows, expected.rows);
}

// A continuation of one shape does not fit a query of another: 400. (A collecting query's token
// with kept rows whose number names none resumes as the token says: AResultLargerThanItsPageIsReadOnce.)
TEST_F(QueryBudgetTest, ScanContinuationsFitOnlyCollectingQueries) {
  for (const char* id : {"1", "2", "3"}) {
    ASSERT_EQ(CreateDoc("db", "c", std::string(R"({"id":")") + id + R"(","pk":"p"})", "[\"p\"]").status(), 201);
  }
  const Headers scope{{"x-ms-documentdb-partitionkey", "[\"p\"]"}, {"x-ms-max-item-count", "1"}};
  auto first = QueryWith("SELECT * FROM c", scope);
  ASSERT_EQ(first.status(), 200) << first;
  auto raw = util::Base64Decode(first.Header("x-ms-continuation"));
  ASSERT_TRUE(raw);
  json::Document token;
  ASSERT_EQ(json::Parse(*raw, token), json::ParseStatus::kOk);
  auto& a = token.GetAllocator();
  // A streaming query's token with a collecting query's scan position or kept collection.
  json::Document scan;
  scan.CopyFrom(token, scan.GetAllocator());
  scan.AddMember("c", json::Value(rapidjson::kArrayType).PushBack(0, a).PushBack(1, a).PushBack(0, a).Move(), scan.GetAllocator());
  json::Document kept;
  kept.CopyFrom(scan, kept.GetAllocator());
  kept.AddMember("x", 7, kept.GetAllocator());
  json::Document rowless;
  rowless.CopyFrom(scan, rowless.GetAllocator());
  rowless.RemoveMember("p");
  rowless.RemoveMember("k");
  // Kept rows (of a result that did not fit in its page): only a collecting query has them.
  json::Document rows;
  rows.CopyFrom(token, rows.GetAllocator());
  rows.AddMember("y", 7, rows.GetAllocator());
  for (const json::Document* d : {&scan, &kept, &rowless, &rows}) {
    Headers h = scope;
    h.emplace_back("x-ms-continuation", util::Base64Encode(json::Write(*d)));
    auto r = QueryWith("SELECT * FROM c", h);
    EXPECT_EQ(r.status(), 400) << json::Write(*d) << " " << r;
    EXPECT_NE(r.Message().find("Invalid Continuation Token"), std::string::npos) << r;
  }
  // The unchanged token still works.
  Headers h = scope;
  h.emplace_back("x-ms-continuation", first.Header("x-ms-continuation"));
  EXPECT_EQ(QueryWith("SELECT * FROM c", h).status(), 200);
}

// One range of the SDKs' pipeline: GROUP BY and aggregate pages end at the deadline with their
// result over what they read (never empty while a continuation follows: the SDKs end a GROUP BY at
// an empty page); merged as the SDKs merge them, they give the whole result.
TEST_F(QueryBudgetTest, PartialPagesOfOneRangeMergeToTheWholeResult) {
  Fill();
  config_.query_page_timeout_ms = 0;  // every page past its deadline at its first check: not up to the machine's speed
  // COUNT, as the SDK rewrites SELECT VALUE COUNT(1): one partial count per page.
  {
    const auto got = All("SELECT VALUE [{\"item\": COUNT(1)}] FROM c JOIN a IN c.arr", "100", Range());
    ASSERT_GT(got.sizes.size(), 2u);
    long long total = 0;
    for (size_t i = 0; i < got.rows.size(); ++i) {
      json::Document d;
      ASSERT_EQ(json::Parse(got.rows[i], d), json::ParseStatus::kOk);
      total += d[0]["item"].GetInt64();
    }
    EXPECT_EQ(total, 10LL * kDocs);
    for (size_t n : got.sizes) EXPECT_EQ(n, 1u);
  }
  // GROUP BY as the SDK rewrites it; every page but the last holds a group.
  const std::string grouped =
      "SELECT [{\"item\": c.g}] AS groupByItems, {\"g\": c.g, \"n\": {\"item\": COUNT(1)}, \"s\": {\"item\": SUM(c.n)}} "
      "AS payload FROM c WHERE c.n % 2 = 0 GROUP BY c.g";
  std::map<std::string, std::pair<long long, long long>> expected;
  for (int n = 0; n < kDocs; n += 2) {
    auto& e = expected["g" + std::to_string(n % 7)];
    ++e.first;
    e.second += n;
  }
  for (const char* max_items : {"100", "2"}) {
    const auto got = All(grouped, max_items, Range());
    ASSERT_GT(got.sizes.size(), 2u) << max_items;
    for (size_t i = 0; i + 1 < got.sizes.size(); ++i) EXPECT_GT(got.sizes[i], 0u) << max_items << " page " << i;
    std::map<std::string, std::pair<long long, long long>> merged;
    for (const auto& row : got.rows) {
      json::Document d;
      ASSERT_EQ(json::Parse(row, d), json::ParseStatus::kOk);
      auto& m = merged[d["payload"]["g"].GetString()];
      m.first += d["payload"]["n"]["item"].GetInt64();
      m.second += d["payload"]["s"]["item"].GetInt64();
    }
    EXPECT_EQ(merged, expected) << max_items;
  }
  // DISTINCT without ORDER BY (the SDK removes duplicates across pages).
  const auto distinct = All("SELECT DISTINCT VALUE a FROM c JOIN a IN c.arr", "100", Range());
  ASSERT_GT(distinct.sizes.size(), 2u);
  std::set<std::string> values(distinct.rows.begin(), distinct.rows.end());
  EXPECT_EQ(values.size(), 13u);
  // Scoped by its partition key instead, the same GROUP BY answers each group once.
  const auto whole = All(grouped, "100");
  EXPECT_EQ(whole.rows.size(), 7u);
}

// Issue 41 item 3: a GROUP BY (or DISTINCT) result that does not fit in its page is computed once:
// the rows the page cannot return are kept in the emulator under the number in its continuation
// ("y") and the next pages return them without reading the container again. So the pages of
// max-item-count 10 over 1,000 groups read the 2,000 documents once in all (retrievedDocumentCount)
// and charge the one page's charge plus the query base (2.7 RU) for each further page; whole
// (scoped by partition key) and on one range of the SDKs' pipeline (partial pages, with the page
// time unbounded or tiny). When the kept rows are gone, the token resumes as it did before.
TEST_F(QueryBudgetTest, AResultLargerThanItsPageIsReadOnce) {
  constexpr int kItems = 2000;
  for (int i = 0; i < kItems; ++i) {
    auto r = CreateDoc("db", "c",
                       R"({"id":"d)" + std::to_string(i) + R"(","pk":"p","city":"c)" + std::to_string(i % 1000) +
                           R"(","n":)" + std::to_string(i) + "}",
                       "[\"p\"]");
    ASSERT_EQ(r.status(), 201) << r;
  }
  struct Read {
    std::vector<std::string> rows;
    size_t pages = 0;
    long long retrieved = 0;
    double charge = 0;
    int kept = 0;  // continuations that name kept rows
  };
  // Every page; `drop_kept`: the number of the kept rows is replaced by one that names none.
  auto read = [&](const std::string& q, const std::string& max_items, Headers scope, bool drop_kept = false) {
    Read out;
    std::string continuation;
    for (int guard = 0; guard < 10000; ++guard) {
      Headers h = scope;
      h.emplace_back("x-ms-max-item-count", max_items);
      h.emplace_back("x-ms-documentdb-populatequerymetrics", "True");
      if (!continuation.empty()) h.emplace_back("x-ms-continuation", continuation);
      auto r = QueryWith(q, h);
      EXPECT_EQ(r.status(), 200) << r;
      if (r.status() != 200) break;
      ++out.pages;
      const auto page = r.Json();
      for (const auto& v : page["Documents"].GetArray()) out.rows.push_back(json::Write(v));
      out.charge += std::stod(r.Charge());
      const std::string metrics = r.Header("x-ms-documentdb-query-metrics");
      const auto at = metrics.find("retrievedDocumentCount=");
      EXPECT_NE(at, std::string::npos) << metrics;
      if (at != std::string::npos) out.retrieved += std::stoll(metrics.substr(at + 23));
      continuation = r.Header("x-ms-continuation");
      if (continuation.empty()) break;
      auto raw = util::Base64Decode(continuation);
      json::Document d;
      EXPECT_TRUE(raw && json::Parse(*raw, d) == json::ParseStatus::kOk);
      if (d.IsObject() && d.HasMember("y")) {
        ++out.kept;
        if (drop_kept) {
          d["y"].SetUint64(d["y"].GetUint64() + 1000000);
          continuation = util::Base64Encode(json::Write(d));
        }
      }
    }
    return out;
  };
  const Headers pk{{"x-ms-documentdb-partitionkey", "[\"p\"]"}};
  for (const std::string q : {"SELECT c.city, COUNT(1) AS n, SUM(c.n) AS s FROM c GROUP BY c.city",
                              "SELECT DISTINCT VALUE c.city FROM c",
                              "SELECT DISTINCT VALUE c.city FROM c WHERE c.n >= 500"}) {
    const Read whole = read(q, "-1", pk);
    ASSERT_EQ(whole.pages, 1u) << q;
    ASSERT_EQ(whole.rows.size(), 1000u) << q;
    const Read paged = read(q, "10", pk);
    EXPECT_EQ(paged.rows, whole.rows) << q;
    EXPECT_EQ(paged.pages, 100u) << q;
    EXPECT_EQ(paged.kept, 99) << q;
    EXPECT_EQ(paged.retrieved, whole.retrieved) << q;
    EXPECT_EQ(paged.retrieved, kItems) << q;  // (the range filter finds too many to narrow the scan)
    EXPECT_NEAR(paged.charge, whole.charge + 2.7 * 99, 0.01 * 100) << q;
    // Kept rows gone: each page computes the result again, as before (same rows).
    const Read again = read(q, "10", pk, /*drop_kept=*/true);
    EXPECT_EQ(again.rows, whole.rows) << q;
    EXPECT_EQ(again.retrieved, 100 * whole.retrieved) << q;
  }
  // One range of the SDKs' pipeline: the partial result of one part, returned over several pages.
  // (A filter that matches every item: without it the groups come from the index of /city, which
  // reads no document, GroupByAnIndexedPathReadsNoDocument; the same rows.)
  const std::string grouped =
      "SELECT [{\"item\": c.city}] AS groupByItems, {\"city\": c.city, \"n\": {\"item\": COUNT(1)}} AS payload FROM c "
      "WHERE c.n >= 0 GROUP BY c.city";
  const Read one = read(grouped, "-1", Range());
  ASSERT_EQ(one.rows.size(), 1000u);
  const Read ranged = read(grouped, "10", Range());
  EXPECT_EQ(ranged.rows, one.rows);
  EXPECT_EQ(ranged.retrieved, kItems);
  EXPECT_EQ(ranged.kept, 99);
  const Read indexed = read(
      "SELECT [{\"item\": c.city}] AS groupByItems, {\"city\": c.city, \"n\": {\"item\": COUNT(1)}} AS payload FROM c "
      "GROUP BY c.city",
      "10", Range());
  EXPECT_EQ(indexed.rows, one.rows);
  EXPECT_EQ(indexed.retrieved, 0);
  EXPECT_EQ(indexed.kept, 99);
  // Parts ended by the page time (each part's groups over several pages): every document once.
  config_.query_page_timeout_ms = 0;
  const Read parts = read(grouped, "3", Range());
  EXPECT_EQ(parts.retrieved, kItems);
  EXPECT_GT(parts.kept, 0);
  std::map<std::string, long long> merged;
  for (const auto& row : parts.rows) {
    json::Document d;
    ASSERT_EQ(json::Parse(row, d), json::ParseStatus::kOk);
    merged[d["payload"]["city"].GetString()] += d["payload"]["n"]["item"].GetInt64();
  }
  ASSERT_EQ(merged.size(), 1000u);
  for (const auto& [city, n] : merged) EXPECT_EQ(n, 2) << city;
}

// A user-defined function: slow calls end the page at its deadline (the next page runs the cut call
// again); one that never returns ends at the script time limit with the service's 408; a client
// that goes away stops it at once.
TEST_F(QueryBudgetTest, UserDefinedFunctionsEndAtTheDeadlineTheScriptLimitOrTheCancel) {
  for (int i = 0; i < 40; ++i) {
    ASSERT_EQ(CreateDoc("db", "c", R"({"id":"d)" + std::to_string(i) + R"(","pk":"p","n":)" + std::to_string(39 - i) + "}",
                        "[\"p\"]")
                  .status(),
              201);
  }
  ASSERT_EQ(Post("/dbs/db/colls/c/udfs",
                 R"({"id":"slow","body":"function (n) { var t = Date.now(); while (Date.now() - t < 5) {} return n * 2; }"})")
                .status(),
            201);
  ASSERT_EQ(Post("/dbs/db/colls/c/udfs", R"({"id":"forever","body":"function (n) { while (true) {} }"})").status(), 201);

  config_.query_page_timeout_ms = 30;
  for (const std::string q : {"SELECT VALUE udf.slow(c.n) FROM c", "SELECT VALUE udf.slow(c.n) FROM c ORDER BY c.n",
                              "SELECT VALUE SUM(udf.slow(c.n)) FROM c"}) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto got = All(q, "100");
    EXPECT_GT(got.sizes.size(), 3u) << q;
    if (q.find("ORDER") != std::string::npos) {
      std::vector<std::string> want;
      for (int n = 0; n < 40; ++n) want.push_back(std::to_string(2 * n));
      EXPECT_EQ(got.rows, want);
    } else if (q.find("SUM") != std::string::npos) {
      EXPECT_EQ(got.rows, std::vector<std::string>{"1560"});
    } else {
      std::multiset<std::string> seen(got.rows.begin(), got.rows.end());
      EXPECT_EQ(seen.size(), 40u);
      for (int n = 0; n < 40; ++n) EXPECT_EQ(seen.count(std::to_string(2 * n)), 1u) << n;
    }
    EXPECT_LT(MsSince(t0), 30000) << q;  // 200 ms of calls; generous for a loaded machine
  }

  // Never returns: the script limit (here 300 ms) ends it, whatever the page time.
  config_.script_timeout_ms = 300;
  config_.query_page_timeout_ms = 0;  // every page past its deadline at its first check: not up to the machine's speed
  for (const char* q : {"SELECT VALUE udf.forever(c.n) FROM c", "SELECT VALUE c.n FROM c ORDER BY udf.forever(c.n)"}) {
    const auto t0 = std::chrono::steady_clock::now();
    auto r = QueryWith(q, {{"x-ms-documentdb-partitionkey", "[\"p\"]"}});
    if (std::string(q).find("ORDER BY udf") != std::string::npos && r.status() == 400) continue;  // not sortable
    EXPECT_EQ(r.status(), 408) << q << " " << r;
    EXPECT_NE(r.Message().find("The requested operation exceeded maximum alloted time"), std::string::npos) << r;
    EXPECT_LT(MsSince(t0), 3000);
  }

  // The client goes away: the call stops within milliseconds, long before the script limit.
  config_.script_timeout_ms = 60000;
  config_.query_page_timeout_ms = 60000;
  std::atomic<bool> cancelled{false};
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    cancelled = true;
  });
  std::string body = R"({"query":"SELECT VALUE udf.forever(c.n) FROM c"})";
  auto req = Build(boost::beast::http::verb::post, "/dbs/db/colls/c/docs", body,
                   {{"x-ms-documentdb-isquery", "True"}, {"x-ms-documentdb-partitionkey", "[\"p\"]"}});
  req.set(boost::beast::http::field::content_type, "application/query+json");
  const auto t0 = std::chrono::steady_clock::now();
  Reply r{http::Handle(services_, req, false, &cancelled)};
  canceller.join();
  EXPECT_EQ(r.status(), 408) << r;
  EXPECT_NE(r.Message().find("The request was cancelled."), std::string::npos) << r;
  EXPECT_LT(MsSince(t0), 3000);
}

// A pre- or post-trigger whose client goes away stops as a stored procedure does; nothing is written.
TEST_F(QueryBudgetTest, TriggersStopWhenTheClientGoesAway) {
  config_.script_timeout_ms = 60000;
  ASSERT_EQ(Post("/dbs/db/colls/c/triggers",
                 R"({"id":"pre","triggerType":"Pre","triggerOperation":"All","body":"function () { while (true) {} }"})")
                .status(),
            201);
  ASSERT_EQ(Post("/dbs/db/colls/c/triggers",
                 R"({"id":"post","triggerType":"Post","triggerOperation":"All","body":"function () { while (true) {} }"})")
                .status(),
            201);
  for (const auto& [header, trigger] : std::vector<std::pair<std::string, std::string>>{
           {"x-ms-documentdb-pre-trigger-include", "pre"}, {"x-ms-documentdb-post-trigger-include", "post"}}) {
    std::atomic<bool> cancelled{false};
    std::thread canceller([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      cancelled = true;
    });
    auto req = Build(boost::beast::http::verb::post, "/dbs/db/colls/c/docs", R"({"id":"t","pk":"p"})",
                     {{"x-ms-documentdb-partitionkey", "[\"p\"]"}, {header, trigger}});
    const auto t0 = std::chrono::steady_clock::now();
    Reply r{http::Handle(services_, req, false, &cancelled)};
    canceller.join();
    EXPECT_EQ(r.status(), 408) << header << " " << r;
    EXPECT_LT(MsSince(t0), 3000) << header;
    EXPECT_EQ(Get("/dbs/db/colls/c/docs/t", {{"x-ms-documentdb-partitionkey", "[\"p\"]"}}).status(), 404);
  }
}

// A stored procedure's query is bounded by the page time as the client's are: it hands the script
// a continuation (after an empty page while an ORDER BY collects), and the script's loop gets every
// row once, in order.
TEST_F(QueryBudgetTest, StoredProcedureQueriesAnswerContinuations) {
  Fill();
  ASSERT_EQ(Post("/dbs/db/colls/c/sprocs", R"({"id":"all","body":"function (q) {\n)"
                                           R"(  var rows = [], calls = 0, empty = 0;\n)"
                                           R"(  function next(token) {\n)"
                                           R"(    calls++;\n)"
                                           R"(    var ok = __.queryDocuments(__.getSelfLink(), q, {continuation: token, pageSize: 500},\n)"
                                           R"(      function (err, docs, options) {\n)"
                                           R"(        if (err) throw err;\n)"
                                           R"(        if (docs.length === 0 && options.continuation) empty++;\n)"
                                           R"(        rows = rows.concat(docs);\n)"
                                           R"(        if (options.continuation) next(options.continuation);\n)"
                                           R"(        else getContext().getResponse().setBody({rows: rows, calls: calls, empty: empty});\n)"
                                           R"(      });\n)"
                                           R"(    if (!ok) throw new Error('not accepted');\n)"
                                           R"(  }\n)"
                                           R"(  next(undefined);\n)"
                                           R"(}"})")
                .status(),
            201);
  auto run = [&](const std::string& q) {
    std::string params = "[";
    json::WriteString(params, q);
    params += "]";
    auto r = Post("/dbs/db/colls/c/sprocs/all", params, {{"x-ms-documentdb-partitionkey", "[\"p\"]"}});
    EXPECT_EQ(r.status(), 200) << r;
    return r.Json();
  };
  const std::string q = "SELECT VALUE c.n FROM c WHERE c.n % 4 = 1 ORDER BY c.n DESC";
  config_.query_page_timeout_ms = 60000;
  auto whole = run(q);
  ASSERT_TRUE(whole.IsObject());
  ASSERT_EQ(whole["rows"].Size(), 750u);
  EXPECT_EQ(whole["empty"].GetInt(), 0);
  config_.query_page_timeout_ms = 0;  // every page past its deadline at its first check: not up to the machine's speed
  auto paged = run(q);
  ASSERT_TRUE(paged.IsObject());
  EXPECT_EQ(json::Write(paged["rows"]), json::Write(whole["rows"]));
  EXPECT_GT(paged["empty"].GetInt(), 0);
  EXPECT_GT(paged["calls"].GetInt(), 2);
}

// Read feeds and change feeds answer at most about 4 MB a page, and a read feed filtered by its
// partition key ends at the page time with what it has; every item comes once.
TEST_F(QueryBudgetTest, FeedsEndAtTheSizeLimitAndThePageTime) {
  const std::string big(900 * 1024, 'x');
  for (int i = 0; i < 12; ++i) {
    ASSERT_EQ(CreateDoc("db", "c", R"({"id":"b)" + std::to_string(i) + R"(","pk":"big","s":")" + big + "\"}", "[\"big\"]")
                  .status(),
              201);
  }
  auto read_all = [&](const std::string& path, Headers base, bool change_feed) {
    std::vector<size_t> sizes;
    std::vector<std::string> ids;
    std::string token;
    for (int guard = 0; guard < 100000; ++guard) {
      Headers h = base;
      h.emplace_back("x-ms-max-item-count", "-1");
      if (!token.empty()) h.emplace_back(change_feed ? "if-none-match" : "x-ms-continuation", token);
      auto r = Get(path, h);
      if (change_feed && r.status() == 304) break;
      EXPECT_EQ(r.status(), 200) << r.status();
      if (r.status() != 200) break;
      EXPECT_LE(r.body().size(), 4u * 1024 * 1024 + 64 * 1024);
      auto d = r.Json();
      sizes.push_back(d["Documents"].Size());
      for (const auto& v : d["Documents"].GetArray()) ids.push_back(v["id"].GetString());
      token = r.Header(change_feed ? "etag" : "x-ms-continuation");
      if (token.empty()) break;
    }
    return std::make_pair(sizes, ids);
  };
  std::vector<std::string> want;
  for (int i = 0; i < 12; ++i) want.push_back("b" + std::to_string(i));
  auto [feed_sizes, feed_ids] = read_all("/dbs/db/colls/c/docs", {}, false);
  EXPECT_EQ(feed_ids, want);
  EXPECT_EQ(feed_sizes, (std::vector<size_t>{4, 4, 4}));
  auto [cf_sizes, cf_ids] = read_all("/dbs/db/colls/c/docs", {{"a-im", "Incremental Feed"}}, true);
  EXPECT_EQ(cf_ids, want);
  EXPECT_EQ(cf_sizes, (std::vector<size_t>{4, 4, 4}));

  // 20,000 items of other keys before the two of "late": pages end at the page time (1 ms), some
  // empty, each with a continuation; the two come once.
  for (int i = 0; i < 20000; ++i) {
    ASSERT_EQ(CreateDoc("db", "c", R"({"id":"o)" + std::to_string(i) + R"(","pk":"k)" + std::to_string(i % 50) + "\"}",
                        "[\"k" + std::to_string(i % 50) + "\"]")
                  .status(),
              201);
  }
  for (const char* id : {"l1", "l2"}) {
    ASSERT_EQ(CreateDoc("db", "c", std::string(R"({"id":")") + id + R"(","pk":"late"})", "[\"late\"]").status(), 201);
  }
  config_.query_page_timeout_ms = 0;  // every page past its deadline at its first check: not up to the machine's speed
  auto [late_sizes, late_ids] = read_all("/dbs/db/colls/c/docs", {{"x-ms-documentdb-partitionkey", "[\"late\"]"}}, false);
  EXPECT_EQ(late_ids, (std::vector<std::string>{"l1", "l2"}));
  EXPECT_GT(late_sizes.size(), 1u);
}

}  // namespace
}  // namespace cosmos
