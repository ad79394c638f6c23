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
    std::string charge;
  };

  Result Run(const std::string& text, Headers scope, const std::string& max_items = "-1") {
    std::string body = "{\"query\":";
    json::WriteString(body, text);
    body += "}";
    scope.emplace_back("x-ms-documentdb-isquery", "True");
    scope.emplace_back("x-ms-documentdb-populatequerymetrics", "True");
    scope.emplace_back("x-ms-max-item-count", max_items);
    auto req = Build(boost::beast::http::verb::post, "/dbs/db/colls/" + coll_ + "/docs", body, scope);
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
    out.charge = r.Header("x-ms-request-charge");
    return out;
  }

  std::string coll_ = "c";  // the container Run queries

  // Every page of `text` in pages of `max_items`, and what each page read.
  std::vector<std::string> AllPages(const std::string& text, const std::string& max_items,
                                    std::vector<long>* retrieved = nullptr) {
    std::vector<std::string> all;
    std::string continuation;
    for (int pages = 0; pages < 1000; ++pages) {
      Headers h = AllRanges();
      if (!continuation.empty()) h.emplace_back("x-ms-continuation", continuation);
      const Result page = Run(text, h, max_items);
      all.insert(all.end(), page.rows.begin(), page.rows.end());
      if (retrieved != nullptr) retrieved->push_back(page.retrieved);
      if (page.continuation.empty()) break;
      continuation = page.continuation;
    }
    return all;
  }

  // Container `name` with the composite index (/city ascending, /n `n_order`), made the one Run
  // queries, holding 400 documents over 10 partition keys: cities c0..c19, 20 documents each,
  // but d0, d97, d194, d291 and d388 have no city (c0, c17, c14, c11 and c8 hold 19); n repeats
  // every 50 documents, so (city, n) pairs repeat too and ties go by position.
  void MakeCityContainer(const std::string& name, const std::string& n_order) {
    MakeContainer("db", name,
                  R"("indexingPolicy":{"compositeIndexes":[[{"path":"/city","order":"ascending"},)"
                  R"({"path":"/n","order":")" + n_order + R"("}]]})");
    coll_ = name;
    for (int i = 0; i < kDocs; ++i) {
      const std::string pk = "k" + std::to_string(i % 10);
      std::string body = R"({"id":"d)" + std::to_string(i) + R"(","pk":")" + pk + R"(","city":"c)" +
                         std::to_string(i % 20) + R"(","n":)" + std::to_string((i * 7) % 50) + "}";
      if (i % 97 == 0) body = R"({"id":"d)" + std::to_string(i) + R"(","pk":")" + pk + R"(","n":3})";
      ASSERT_EQ(CreateDoc("db", name, body, "[\"" + pk + "\"]").status(), 201);
    }
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

// An ORDER BY that walks a composite index names it among the utilized composite indexes, each path
// with its direction in the policy ("/city ASC", "/n DESC"; the same for the index walked backwards),
// in both formats, beside the single-path index a filter uses.
TEST_F(QueryIndexTest, IndexMetricsNameTheCompositeIndexAnOrderByWalks) {
  MakeCityContainer("m", "descending");
  auto utilization = [&](const std::string& text, bool v2) {
    Headers h = Key("k3");
    h.emplace_back("x-ms-documentdb-isquery", "True");
    h.emplace_back(v2 ? "x-ms-cosmos-populateindexmetrics-V2" : "x-ms-cosmos-populateindexmetrics", "True");
    auto req = Build(boost::beast::http::verb::post, "/dbs/db/colls/m/docs", "{\"query\":" + json::Quote(text) + "}", h);
    req.set(boost::beast::http::field::content_type, "application/query+json");
    Reply r = Send(req);
    EXPECT_EQ(r.status(), 200) << r;
    const std::string raw = r.Header("x-ms-cosmos-index-utilization");
    auto decoded = v2 ? util::PercentDecode(raw) : util::Base64Decode(raw);
    return decoded ? *decoded : std::string("<not decoded>");
  };
  const std::string v1 =
      R"({"UtilizedSingleIndexes":[],"PotentialSingleIndexes":[],"UtilizedCompositeIndexes":[{"IndexSpecs":)"
      R"(["/city ASC","/n DESC"],"IndexPreciseSet":true,"IndexImpactScore":"High"}],"PotentialCompositeIndexes":[]})";
  EXPECT_EQ(utilization("SELECT * FROM c ORDER BY c.city, c.n DESC", false), v1);
  EXPECT_EQ(utilization("SELECT * FROM c ORDER BY c.city DESC, c.n", false), v1);
  EXPECT_EQ(utilization("SELECT * FROM c WHERE c.city = 'c3' ORDER BY c.city, c.n DESC", true),
            R"({"UtilizedIndexes":{"SingleIndexes":[{"IndexSpec":"/city/?","IndexImpactScore":"High"}],)"
            R"("CompositeIndexes":[{"IndexSpecs":["/city ASC","/n DESC"],"IndexImpactScore":"High"}]},)"
            R"("PotentialIndexes":{"SingleIndexes":[],"CompositeIndexes":[]}})");
  // One path: no composite index.
  EXPECT_EQ(utilization("SELECT * FROM c ORDER BY c.n", true),
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

// ORDER BY over two paths with the composite index that serves it (issue 41): the page walks the
// composite index, in the index's order or its reverse, and every later page seeks to just after
// its last row; the rows are those a sort gives (--query-indexes off).
TEST_F(QueryIndexTest, OrderByOverACompositeIndexWalksItPageByPage) {
  MakeCityContainer("cc", "descending");
  for (const char* q : {"SELECT VALUE [c.city, c.n, c.id] FROM c ORDER BY c.city, c.n DESC",
                        "SELECT VALUE [c.city, c.n, c.id] FROM c ORDER BY c.city DESC, c.n"}) {
    // A page reads its rows and the one after it, however deep into the result it starts.
    EXPECT_EQ(Both(q, AllRanges(), "10"), std::pair(11L, 11L)) << q;
    config_.query_indexes = false;
    const std::vector<std::string> sorted = AllPages(q, "-1");
    config_.query_indexes = true;
    ASSERT_EQ(sorted.size(), static_cast<size_t>(kDocs)) << q;
    std::vector<long> retrieved;
    EXPECT_EQ(AllPages(q, "7", &retrieved), sorted) << q;
    ASSERT_EQ(retrieved.size(), 58u) << q;
    for (size_t i = 0; i + 1 < retrieved.size(); ++i) EXPECT_EQ(retrieved[i], 8) << q << " page " << i;
  }
  // The first rows: the documents without a city first (undefined sorts first), then c0 with its
  // highest n first; and with the query's directions reversed, the same rows backwards.
  EXPECT_EQ(Run("SELECT TOP 4 VALUE [c.city, c.n] FROM c ORDER BY c.city, c.n DESC", AllRanges()).rows,
            (std::vector<std::string>{"[3]", "[3]", "[3]", "[3]"}));
  EXPECT_EQ(Run("SELECT TOP 6 VALUE [c.city, c.n] FROM c ORDER BY c.city DESC, c.n", AllRanges()).rows,
            (std::vector<std::string>{R"(["c9",3])", R"(["c9",3])", R"(["c9",3])", R"(["c9",3])", R"(["c9",13])",
                                      R"(["c9",13])"}));
}

// The equality-prefix and range-filter shapes a composite index serves (issue 41): a filter on the
// first ORDER BY path bounds the walk to that filter's windows of the index, in either direction,
// so a page reads its rows and the one after, not the index before them; the rows are those a sort
// of the matches gives (--query-indexes off), page by page with continuations.
TEST_F(QueryIndexTest, AFilterOnTheFirstOrderByPathBoundsTheWalk) {
  MakeCityContainer("cb", "ascending");
  struct Case {
    const char* where;
    size_t rows;
    bool tight;  // every document of the windows matches: a page reads its rows and one more
  };
  const Case cases[] = {
      {"c.city = 'c7'", 20, true},
      {"c.city = 'c0'", 19, true},
      {"c.city >= 'c15' AND c.city <= 'c17'", 59, true},  // (both ranges bound it)
      {"c.city > 'c17'", 199, true},                        // c18, c19 and c2..c9
      {"c.city < 'c10'", 39, true},                         // c0 and c1
      {"c.city IN ('c3', 'c11', 'nowhere')", 39, true},
      {"STARTSWITH(c.city, 'c1')", 217, true},
      {"c.city = 'c4' OR c.city = 'c4' OR c.city = 'c5'", 40, true},
      // An equality on the first path and a filter on the second: windows of both columns.
      {"c.city = 'c7' AND c.n > 20", 12, true},
      {"c.city = 'c7' AND c.n >= 10 AND c.n < 30", 8, true},
      {"c.city IN ('c3', 'c11') AND c.n BETWEEN 5 AND 25", 16, true},
      {"c.city IN ('c3', 'c11') AND (c.n < 5 OR c.n > 35)", 15, true},
      {"c.city = 'c7' AND c.n > 20 AND c.id != 'x'", 12, true},
      {"c.city = 'c7' AND c.n = 'not a number'", 0, true},
      {"c.city = 'nowhere'", 0, true},
  };
  for (const auto& [where, expected, tight] : cases) {
    for (const char* order : {"ORDER BY c.city, c.n", "ORDER BY c.city DESC, c.n DESC"}) {
      const std::string q = std::string("SELECT VALUE [c.city, c.n, c.id] FROM c WHERE ") + where + " " + order;
      config_.query_indexes = false;
      const std::vector<std::string> sorted = AllPages(q, "-1");
      config_.query_indexes = true;
      EXPECT_EQ(sorted.size(), expected) << q;
      std::vector<long> retrieved;
      EXPECT_EQ(AllPages(q, "5", &retrieved), sorted) << q;
      EXPECT_EQ(retrieved.size(), std::max<size_t>(1, (sorted.size() + 4) / 5)) << q;
      long read = 0;
      for (long r : retrieved) read += r;
      // Never more than the windows hold; with a tight bound, a page's rows and the one after.
      EXPECT_LE(read, static_cast<long>((tight ? sorted.size() : 20) + retrieved.size())) << q;
      if (!tight) continue;
      for (size_t i = 0; i + 1 < retrieved.size(); ++i) EXPECT_EQ(retrieved[i], 6) << q << " page " << i;
    }
  }
  // One path: a range on it bounds its own index.
  coll_ = "c";
  for (const char* q : {"SELECT VALUE c.n FROM c WHERE c.n > 390 ORDER BY c.n",
                        "SELECT VALUE c.n FROM c WHERE c.n < 9 ORDER BY c.n DESC"}) {
    EXPECT_EQ(Both(q, AllRanges(), "3").first, 4L) << q;  // (a sort reads every document)
  }
  EXPECT_EQ(Run("SELECT VALUE c.n FROM c WHERE c.n > 390 ORDER BY c.n", AllRanges()).rows,
            (std::vector<std::string>{"391", "392", "393", "394", "395", "396", "397", "398", "399"}));
}

// The walk holds one page, not the result: an ORDER BY over two paths of a JOIN of two 200-element
// arrays in each document (200,000 rows) answers its first page within a 4 MB budget, where
// sorting the rows refuses the query.
TEST_F(QueryIndexTest, ACompositeWalkHoldsOnlyItsPage) {
  MakeContainer("db", "cj",
                R"("indexingPolicy":{"compositeIndexes":[[{"path":"/g","order":"ascending"},)"
                R"({"path":"/n","order":"descending"}]]})");
  coll_ = "cj";
  std::string arr;
  for (int i = 0; i < 200; ++i) arr += (i ? "," : "") + std::to_string(i);
  for (int d = 0; d < 5; ++d) {
    ASSERT_EQ(CreateDoc("db", "cj",
                        R"({"id":"d)" + std::to_string(d) + R"(","pk":"p","g":"x","n":)" + std::to_string(d) +
                            R"(,"arr":[)" + arr + "]}",
                        "[\"p\"]")
                  .status(),
              201);
  }
  config_.query_memory_bytes = 4u << 20;
  const std::string q = "SELECT c.id, a, b FROM c JOIN a IN c.arr JOIN b IN c.arr ORDER BY c.g, c.n DESC";
  const Result page = Run(q, Key("p"), "100");
  ASSERT_EQ(page.rows.size(), 100u);
  EXPECT_EQ(page.rows.front(), R"({"id":"d4","a":0,"b":0})");
  EXPECT_EQ(page.rows.back(), R"({"id":"d4","a":0,"b":99})");
  EXPECT_FALSE(page.continuation.empty());
  Headers next = Key("p");
  next.emplace_back("x-ms-continuation", page.continuation);
  EXPECT_EQ(Run(q, next, "100").rows.front(), R"({"id":"d4","a":0,"b":100})");
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

// GROUP BY one indexed path: each group is a run of equal keys of the path's index, counted there;
// no document is read (the run's first gives the group its key). The same rows as reading every
// document, in every page size; a query the runs cannot answer reads the documents as before.
TEST_F(QueryIndexTest, GroupByAnIndexedPathReadsNoDocument) {
  MakeCityContainer("g", "ascending");
  // Values of every type: equal numbers and equal arrays written differently are one group each.
  const char* odd[] = {R"("city":null)", R"("city":5)", R"("city":5.0)", R"("city":[1,"x"])", R"("city":[1,"x"])",
                       R"("city":{"a":1})", R"("city":true)"};
  int i = 0;
  for (const char* v : odd) {
    const std::string body = R"({"id":"o)" + std::to_string(i++) + R"(","pk":"k1",)" + v + "}";
    ASSERT_EQ(CreateDoc("db", "g", body, "[\"k1\"]").status(), 201);
  }
  const std::string q =
      "SELECT c.city, COUNT(1) AS n, COUNT(c.city) AS defined, MIN(c.city) AS lo, MAX(c.city) AS hi "
      "FROM c GROUP BY c.city";
  EXPECT_EQ(Both(q, AllRanges()), std::pair(0L, 407L));
  const Result all = Run(q, AllRanges());
  ASSERT_EQ(all.rows.size(), 26u);
  EXPECT_EQ(all.rows[0], R"({"n":5,"defined":0})");  // no city: undefined comes first
  EXPECT_EQ(all.rows[1], R"({"city":null,"n":1,"defined":1,"lo":null,"hi":null})");
  EXPECT_EQ(all.rows[2], R"({"city":true,"n":1,"defined":1,"lo":true,"hi":true})");
  EXPECT_EQ(all.rows[3], R"({"city":5,"n":2,"defined":2,"lo":5,"hi":5})");
  EXPECT_EQ(all.rows[4], R"({"city":"c0","n":19,"defined":19,"lo":"c0","hi":"c0"})");
  EXPECT_EQ(all.rows[5], R"({"city":"c1","n":20,"defined":20,"lo":"c1","hi":"c1"})");
  EXPECT_EQ(all.rows[24], R"({"city":[1,"x"],"n":2,"defined":2})");
  EXPECT_EQ(all.rows[25], R"({"city":{"a":1},"n":1,"defined":1})");
  // One partition, nothing loaded: the page's base charge alone.
  EXPECT_EQ(all.charge, "2.7");
  // In pages of 4: the groups are made once, kept, and returned page by page; nothing is read.
  std::vector<long> retrieved;
  EXPECT_EQ(AllPages(q, "4", &retrieved), all.rows);
  EXPECT_EQ(retrieved, std::vector<long>(7, 0L));
  // A WHERE, a partition key, or an aggregate of another path: the documents are read.
  EXPECT_EQ(Both("SELECT c.city, COUNT(1) AS n FROM c WHERE c.n > 45 GROUP BY c.city", AllRanges()).first, 32L);
  EXPECT_EQ(Both("SELECT c.city, COUNT(1) AS n FROM c GROUP BY c.city", Key("k3")).first, 40L);
  EXPECT_EQ(Both("SELECT c.city, SUM(c.n) AS n FROM c GROUP BY c.city", AllRanges()).first, 407L);
  // Four physical partitions, the whole ring in one request: each partition's runs (read on the
  // cores there are), one group per key across them, the 2.7 base of each partition.
  ASSERT_EQ(Post("/dbs/db/colls", R"({"id":"g4","partitionKey":{"paths":["/pk"],"version":2}})",
                 {{"x-cosmos-emulator-partition-count", "4"}})
                .status(),
            201);
  for (int k = 0; k < kDocs; ++k) {
    const std::string pk = "k" + std::to_string(k % 10);
    ASSERT_EQ(CreateDoc("db", "g4", R"({"id":"d)" + std::to_string(k) + R"(","pk":")" + pk + R"(","city":"c)" +
                                         std::to_string(k % 20) + "\"}",
                        "[\"" + pk + "\"]")
                  .status(),
              201);
  }
  coll_ = "g4";
  const Headers ring{{"x-ms-start-epk", ""}, {"x-ms-end-epk", "FF"}};
  EXPECT_EQ(Both("SELECT c.city, COUNT(1) AS n FROM c GROUP BY c.city", ring), std::pair(0L, 400L));
  const Result spread = Run("SELECT c.city, COUNT(1) AS n FROM c GROUP BY c.city", ring);
  ASSERT_EQ(spread.rows.size(), 20u);
  EXPECT_EQ(spread.rows[0], R"({"city":"c0","n":20})");
  EXPECT_EQ(spread.rows[19], R"({"city":"c9","n":20})");
  EXPECT_EQ(spread.charge, "10.8");
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
