// Issue 20, indexes: what a query reads follows its index use, as the query metrics report it
// (retrievedDocumentCount: documents read). A filter an index answers reads only its matches, a
// query scoped to a partition key only that key's items, an ORDER BY over one path the page's rows
// and the one after, COUNT/MIN/MAX nothing; with --query-indexes off the same queries read every
// document and answer the same rows.
#include <regex>
#include <string>
#include <vector>

#include "http_test_util.h"

namespace cosmos {
namespace {

using testing::Headers;
using testing::Reply;

constexpr int kDocs = 400;

class QueryIndexTest : public testing::EmulatorTest {
 protected:
  void SetUp() override {
    MakeDatabase("db");
    MakeContainer("db", "c");
    // 400 documents over 10 partition keys; city one of 20 (so 20 documents each); n distinct.
    for (int i = 0; i < kDocs; ++i) {
      const std::string pk = "k" + std::to_string(i % 10);
      auto r = CreateDoc("db", "c",
                         R"({"id":"d)" + std::to_string(i) + R"(","pk":")" + pk + R"(","city":"c)" +
                             std::to_string(i % 20) + R"(","n":)" + std::to_string((i * 7) % kDocs) + "}",
                         "[\"" + pk + "\"]");
      ASSERT_EQ(r.status(), 201) << r;
    }
  }

  struct Result {
    std::vector<std::string> rows;
    long retrieved = -1;
    std::string continuation;
  };

  Result Run(const std::string& text, Headers scope, const std::string& max_items = "-1") {
    std::string body = "{\"query\":";
    json::WriteString(body, text);
    body += "}";
    scope.emplace_back("x-ms-documentdb-isquery", "True");
    scope.emplace_back("x-ms-documentdb-populatequerymetrics", "True");
    scope.emplace_back("x-ms-max-item-count", max_items);
    auto req = Build(boost::beast::http::verb::post, "/dbs/db/colls/c/docs", body, scope);
    req.set(boost::beast::http::field::content_type, "application/query+json");
    Reply r = Send(req);
    EXPECT_EQ(r.status(), 200) << text << "\n" << r;
    Result out;
    if (r.status() != 200) return out;
    const auto page = r.Json();  // (kept: a temporary in the range of a for would be gone in its body)
    for (const auto& v : page["Documents"].GetArray()) out.rows.push_back(json::Write(v));
    std::smatch m;
    const std::string metrics = r.Header("x-ms-documentdb-query-metrics");
    if (std::regex_search(metrics, m, std::regex("retrievedDocumentCount=(\\d+)"))) out.retrieved = std::stol(m[1]);
    out.continuation = r.Header("x-ms-continuation");
    return out;
  }

  static Headers AllRanges() {
    return {{"x-ms-documentdb-partitionkeyrangeid", "0"}, {"x-ms-documentdb-query-enablecrosspartition", "True"}};
  }
  static Headers Key(const std::string& pk) { return {{"x-ms-documentdb-partitionkey", "[\"" + pk + "\"]"}}; }

  // The query with and without the indexes: the same rows; returns what each read.
  std::pair<long, long> Both(const std::string& text, const Headers& scope, const std::string& max_items = "-1") {
    config_.query_indexes = true;
    const Result with = Run(text, scope, max_items);
    config_.query_indexes = false;
    const Result without = Run(text, scope, max_items);
    config_.query_indexes = true;
    EXPECT_EQ(with.rows, without.rows) << text;
    EXPECT_FALSE(with.rows.empty()) << text;
    return {with.retrieved, without.retrieved};
  }
};

TEST_F(QueryIndexTest, FiltersReadOnlyWhatTheIndexFinds) {
  EXPECT_EQ(Both("SELECT VALUE c.id FROM c WHERE c.city = 'c3'", AllRanges()), std::pair(20L, 400L));
  EXPECT_EQ(Both("SELECT VALUE c.id FROM c WHERE c.city IN ('c3', 'c4')", AllRanges()), std::pair(40L, 400L));
  EXPECT_EQ(Both("SELECT VALUE c.id FROM c WHERE c.n >= 390", AllRanges()), std::pair(10L, 400L));
  EXPECT_EQ(Both("SELECT VALUE c.id FROM c WHERE c.n BETWEEN 10 AND 19 AND c.city != 'c0'", AllRanges()),
            std::pair(10L, 400L));
  EXPECT_EQ(Both("SELECT VALUE c.id FROM c WHERE STARTSWITH(c.city, 'c19')", AllRanges()), std::pair(20L, 400L));
  // More than a quarter of the partition: read whole.
  EXPECT_EQ(Both("SELECT VALUE c.id FROM c WHERE c.n >= 100", AllRanges()), std::pair(400L, 400L));
  // A function of a path is no lookup.
  EXPECT_EQ(Both("SELECT VALUE c.id FROM c WHERE LOWER(c.city) = 'c3'", AllRanges()), std::pair(400L, 400L));
}

// x-ms-cosmos-populateindexmetrics: x-ms-cosmos-index-utilization, base64 of the service's JSON,
// naming the single-path index the filter is answered with (none for a function of a path).
TEST_F(QueryIndexTest, IndexMetricsNameTheIndexTheFilterUses) {
  auto utilization = [&](const std::string& text, bool ask) {
    Headers h = Key("k3");
    h.emplace_back("x-ms-documentdb-isquery", "True");
    if (ask) h.emplace_back("x-ms-cosmos-populateindexmetrics", "True");
    auto req = Build(boost::beast::http::verb::post, "/dbs/db/colls/c/docs", "{\"query\":" + json::Quote(text) + "}", h);
    req.set(boost::beast::http::field::content_type, "application/query+json");
    Reply r = Send(req);
    EXPECT_EQ(r.status(), 200) << r;
    if (!r.Has("x-ms-cosmos-index-utilization")) return std::string("<none>");
    auto decoded = util::Base64Decode(r.Header("x-ms-cosmos-index-utilization"));
    return decoded ? *decoded : std::string("<not base64>");
  };
  EXPECT_EQ(utilization("SELECT * FROM c WHERE c.city = 'c3'", true),
            R"({"UtilizedSingleIndexes":[{"IndexSpec":"/city/?","FilterPreciseSet":true,"IndexPreciseSet":true,)"
            R"("IndexImpactScore":"High"}],"PotentialSingleIndexes":[],"UtilizedCompositeIndexes":[],)"
            R"("PotentialCompositeIndexes":[]})");
  EXPECT_EQ(utilization("SELECT * FROM c WHERE LOWER(c.city) = 'c3'", true),
            R"({"UtilizedSingleIndexes":[],"PotentialSingleIndexes":[],"UtilizedCompositeIndexes":[],)"
            R"("PotentialCompositeIndexes":[]})");
  EXPECT_EQ(utilization("SELECT * FROM c WHERE c.city = 'c3'", false), "<none>");
}

// x-ms-cosmos-populateindexmetrics-V2 (what @azure/cosmos 4.x and the newer .NET SDK send): the
// percent-encoded JSON of the second format, {"UtilizedIndexes": {...}, "PotentialIndexes": {...}}.
TEST_F(QueryIndexTest, IndexMetricsV2ArePercentEncodedJson) {
  auto utilization = [&](const std::string& text) {
    Headers h = Key("k3");
    h.emplace_back("x-ms-documentdb-isquery", "True");
    h.emplace_back("x-ms-cosmos-populateindexmetrics-V2", "true");
    auto req = Build(boost::beast::http::verb::post, "/dbs/db/colls/c/docs", "{\"query\":" + json::Quote(text) + "}", h);
    req.set(boost::beast::http::field::content_type, "application/query+json");
    Reply r = Send(req);
    EXPECT_EQ(r.status(), 200) << r;
    if (!r.Has("x-ms-cosmos-index-utilization")) return std::string("<none>");
    const std::string raw = r.Header("x-ms-cosmos-index-utilization");
    EXPECT_EQ(raw.find_first_of("{}\":/ "), std::string::npos) << raw;  // every reserved character escaped
    auto decoded = util::PercentDecode(raw);
    return decoded ? *decoded : std::string("<not percent-encoded>");
  };
  EXPECT_EQ(utilization("SELECT * FROM c WHERE c.city = 'c3'"),
            R"({"UtilizedIndexes":{"SingleIndexes":[{"IndexSpec":"/city/?","IndexImpactScore":"High"}],)"
            R"("CompositeIndexes":[]},"PotentialIndexes":{"SingleIndexes":[],"CompositeIndexes":[]}})");
  EXPECT_EQ(utilization("SELECT * FROM c WHERE LOWER(c.city) = 'c3'"),
            R"({"UtilizedIndexes":{"SingleIndexes":[],"CompositeIndexes":[]},)"
            R"("PotentialIndexes":{"SingleIndexes":[],"CompositeIndexes":[]}})");
}

TEST_F(QueryIndexTest, APartitionKeyReadsOnlyItsItems) {
  // k3 holds 40 of the 400 documents, two cities of 20 among them. Its own items are read, with or
  // without the path indexes (they are the logical partition's, not a path's).
  EXPECT_EQ(Both("SELECT VALUE c.id FROM c WHERE LOWER(c.city) = 'c3'", Key("k3")), std::pair(40L, 40L));
  EXPECT_EQ(Both("SELECT VALUE c.id FROM c WHERE c.city = 'c3'", Key("k3")), std::pair(20L, 40L));
  // A small logical partition is read and sorted rather than walked.
  EXPECT_EQ(Both("SELECT VALUE c.id FROM c ORDER BY c.n DESC", Key("k3")), std::pair(40L, 40L));
}

TEST_F(QueryIndexTest, OrderByReadsThePageAndTheRowAfterIt) {
  // The walk reads the page's 10 and the 11th (sorting reads all, but reports, as the service's
  // walk would, the same).
  EXPECT_EQ(Both("SELECT VALUE c.id FROM c ORDER BY c.n", AllRanges(), "10"), std::pair(11L, 11L));
  EXPECT_EQ(Both("SELECT TOP 5 VALUE c.id FROM c ORDER BY c.city DESC", AllRanges()), std::pair(6L, 6L));
  // Every later page costs the same: it seeks to just after the last row.
  config_.query_indexes = true;
  std::vector<std::string> all;
  std::string continuation;
  int pages = 0;
  while (true) {
    Headers h = AllRanges();
    if (!continuation.empty()) h.emplace_back("x-ms-continuation", continuation);
    const Result page = Run("SELECT VALUE c.n FROM c ORDER BY c.n", h, "50");
    ++pages;
    all.insert(all.end(), page.rows.begin(), page.rows.end());
    if (page.continuation.empty()) {
      EXPECT_EQ(page.retrieved, 50);  // the last page has no row after it
      break;
    }
    EXPECT_EQ(page.retrieved, 51) << "page " << pages;
    continuation = page.continuation;
  }
  EXPECT_EQ(pages, 8);
  ASSERT_EQ(all.size(), 400u);
  for (int i = 0; i < kDocs; ++i) EXPECT_EQ(all[i], std::to_string(i));
}

TEST_F(QueryIndexTest, CountMinAndMaxReadNoDocument) {
  EXPECT_EQ(Both("SELECT VALUE COUNT(1) FROM c", AllRanges()), std::pair(0L, 400L));
  EXPECT_EQ(Both("SELECT VALUE COUNT(1) FROM c WHERE c.city = 'c7'", AllRanges()), std::pair(0L, 400L));
  EXPECT_EQ(Both("SELECT MIN(c.n) AS lo, MAX(c.n) AS hi, COUNT(c.city) AS n FROM c", AllRanges()),
            std::pair(0L, 400L));
  EXPECT_EQ(Run("SELECT MIN(c.n) AS lo, MAX(c.n) AS hi, COUNT(c.city) AS n FROM c", AllRanges()).rows,
            std::vector<std::string>{R"({"lo":0,"hi":399,"n":400})"});
  // A partition key: its items are counted, not read.
  EXPECT_EQ(Both("SELECT VALUE COUNT(1) FROM c", Key("k3")), std::pair(0L, 40L));
  EXPECT_EQ(Run("SELECT VALUE COUNT(1) FROM c", Key("k3")).rows, std::vector<std::string>{"40"});
}

TEST_F(QueryIndexTest, TheIndexFollowsEveryWrite) {
  const std::string q = "SELECT VALUE c.id FROM c WHERE c.city = 'moved' ORDER BY c.n";
  EXPECT_TRUE(Run(q, AllRanges()).rows.empty());  // builds the index of /city
  ASSERT_EQ(CreateDoc("db", "c", R"({"id":"x1","pk":"k1","city":"moved","n":5})", "[\"k1\"]").status(), 201);
  ASSERT_EQ(Put("/dbs/db/colls/c/docs/d2", R"({"id":"d2","pk":"k2","city":"moved","n":2})",
                {{"x-ms-documentdb-partitionkey", "[\"k2\"]"}})
                .status(),
            200);
  EXPECT_EQ(Run(q, AllRanges()).rows, (std::vector<std::string>{"\"d2\"", "\"x1\""}));
  ASSERT_EQ(Delete("/dbs/db/colls/c/docs/x1", {{"x-ms-documentdb-partitionkey", "[\"k1\"]"}}).status(), 204);
  EXPECT_EQ(Run(q, AllRanges()).rows, std::vector<std::string>{"\"d2\""});
  EXPECT_EQ(Run("SELECT VALUE COUNT(1) FROM c WHERE c.city = 'c2'", AllRanges()).rows, std::vector<std::string>{"19"});
}

}  // namespace
}  // namespace cosmos
