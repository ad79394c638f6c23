// Physical partitions, routing, session tokens, rate limiting and the RU report, through the
// in-process pipeline (no socket). The SDK-level tests are tests/sdk/js/partitions.test.mjs and
// throughput.test.mjs.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <string>
#include <vector>
#include <set>

#include "http_test_util.h"
#include "store/epk.h"

namespace cosmos::testing {
namespace {

class PartitionsTest : public EmulatorTest {
 protected:
  void SetUp() override { MakeDatabase("db"); }

  // A container with `n` physical partitions (the emulator's own create header).
  void MakePartitioned(const std::string& coll, int n, const std::string& pk_json = R"({"paths":["/pk"],"version":2})") {
    auto r = Post("/dbs/db/colls", "{\"id\":\"" + coll + "\",\"partitionKey\":" + pk_json + "}",
                  {{"x-cosmos-emulator-partition-count", std::to_string(n)}});
    ASSERT_EQ(r.status(), 201) << r;
  }

  // [minInclusive, maxExclusive) of every range, in id order.
  std::vector<std::pair<std::string, std::string>> Ranges(const std::string& coll) {
    auto r = Get("/dbs/db/colls/" + coll + "/pkranges");
    EXPECT_EQ(r.status(), 200) << r;
    auto d = r.Json();
    std::vector<std::pair<std::string, std::string>> out;
    for (auto& e : d["PartitionKeyRanges"].GetArray()) {
      EXPECT_EQ(std::string(e["id"].GetString()), std::to_string(out.size()));
      out.emplace_back(e["minInclusive"].GetString(), e["maxExclusive"].GetString());
    }
    return out;
  }

  Reply Query(const std::string& coll, const std::string& text, Headers headers = {}) {
    headers.emplace_back("x-ms-documentdb-isquery", "true");
    headers.emplace_back("content-type", "application/query+json");
    headers.emplace_back("x-ms-documentdb-query-enablecrosspartition", "true");
    return Post("/dbs/db/colls/" + coll + "/docs", "{\"query\":" + json::Quote(text) + "}", headers);
  }


  // Every page of a query the gateway serves (one partition per page), following the
  // continuations: the ids (sorted), the charges added up and the number of pages.
  struct Drained {
    std::vector<std::string> ids;
    double charge = 0;
    int pages = 0;
  };
  Drained AllPages(const std::string& coll, const std::string& text) {
    Drained out;
    std::string continuation;
    do {
      Headers h;
      if (!continuation.empty()) h.emplace_back("x-ms-continuation", continuation);
      auto page = Query(coll, text, h);
      EXPECT_EQ(page.status(), 200) << page;
      if (page.status() != 200) break;
      ++out.pages;
      for (auto& id : Ids(page)) out.ids.push_back(id);
      out.charge += std::stod(page.Charge());
      continuation = page.Header("x-ms-continuation");
    } while (!continuation.empty());
    std::sort(out.ids.begin(), out.ids.end());
    return out;
  }

  static std::string V2Epk(const std::string& key) {
    return store::EffectivePartitionKeyV2({store::PkComponent::String(key)});
  }

  std::vector<std::string> Ids(const Reply& r) {
    std::vector<std::string> ids;
    auto d = r.Json();
    for (auto& e : d["Documents"].GetArray()) ids.emplace_back(e["id"].GetString());
    std::sort(ids.begin(), ids.end());
    return ids;
  }
};

TEST_F(PartitionsTest, RangesSplitTheV2HashSpaceEvenly) {
  MakePartitioned("c4", 4);
  auto ranges = Ranges("c4");
  ASSERT_EQ(ranges.size(), 4u);
  EXPECT_EQ(ranges[0], std::make_pair(std::string(""), std::string("0FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF")));
  EXPECT_EQ(ranges[1], std::make_pair(std::string("0FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF"),
                                      std::string("1FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFE")));
  EXPECT_EQ(ranges[2], std::make_pair(std::string("1FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFE"),
                                      std::string("2FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFD")));
  EXPECT_EQ(ranges[3], std::make_pair(std::string("2FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFD"), std::string("FF")));
  auto r = Get("/dbs/db/colls/c4/pkranges");
  auto d = r.Json();
  EXPECT_EQ(d["_count"].GetInt(), 4);
  EXPECT_EQ(d["PartitionKeyRanges"][1]["throughputFraction"].GetDouble(), 0.25);
  EXPECT_EQ(d["PartitionKeyRanges"][3]["ridPrefix"].GetInt(), 3);
}

TEST_F(PartitionsTest, V1RangesUseTheServicesBoundaries) {
  const std::string v1 = R"({"paths":["/pk"],"version":1})";
  MakePartitioned("two", 2, v1);
  MakePartitioned("four", 4, v1);
  MakePartitioned("five", 5, v1);
  EXPECT_EQ(Ranges("two")[0].second, "05C1DFFFFFFFFC");
  EXPECT_EQ(Ranges("four")[0].second, "05C1CFFFFFFFF8");
  auto five = Ranges("five");
  ASSERT_EQ(five.size(), 5u);
  EXPECT_EQ(five[0].second, "05C1C9CD673398");
  EXPECT_EQ(five[1].second, "05C1D9CD673398");
  EXPECT_EQ(five[4].second, "FF");
}

TEST_F(PartitionsTest, PartitionCountFollowsThroughput) {
  // ceil(RU/s / 6,000): 18,000 RU/s gives three partitions of 6,000.
  auto r = Post("/dbs/db/colls", R"({"id":"t18k","partitionKey":{"paths":["/pk"]}})", {{"x-ms-offer-throughput", "18000"}});
  ASSERT_EQ(r.status(), 201) << r;
  EXPECT_EQ(Ranges("t18k").size(), 3u);
  r = Post("/dbs/db/colls", R"({"id":"t6k","partitionKey":{"paths":["/pk"]}})", {{"x-ms-offer-throughput", "6000"}});
  ASSERT_EQ(r.status(), 201) << r;
  EXPECT_EQ(Ranges("t6k").size(), 1u);
  r = Post("/dbs/db/colls", R"({"id":"auto","partitionKey":{"paths":["/pk"]}})",
           {{"x-ms-cosmos-offer-autopilot-settings", R"({"maxThroughput":24000})"}});
  ASSERT_EQ(r.status(), 201) << r;
  EXPECT_EQ(Ranges("auto").size(), 4u);
  MakeContainer("db", "default");
  EXPECT_EQ(Ranges("default").size(), 1u);
}

TEST_F(PartitionsTest, PartitionCountOverrideAndBadHeader) {
  account_.set_partition_count_override(3);
  MakeContainer("db", "c");
  EXPECT_EQ(Ranges("c").size(), 3u);
  for (const char* bad : {"0", "1025", "x", "-1"}) {
    auto r = Post("/dbs/db/colls", R"({"id":"bad","partitionKey":{"paths":["/pk"]}})",
                  {{"x-cosmos-emulator-partition-count", bad}});
    EXPECT_EQ(r.status(), 400) << bad;
    EXPECT_NE(r.Message().find("x-cosmos-emulator-partition-count"), std::string::npos) << r;
  }
}

TEST_F(PartitionsTest, ItemsArePlacedByEffectivePartitionKey) {
  MakePartitioned("c", 4);
  auto ranges = Ranges("c");
  std::map<std::string, std::set<std::string>> expected;  // range id -> ids
  for (int i = 0; i < 64; ++i) {
    const std::string key = "k" + std::to_string(i);
    auto r = CreateDoc("db", "c", "{\"id\":\"" + key + "\",\"pk\":\"" + key + "\"}", "[\"" + key + "\"]");
    ASSERT_EQ(r.status(), 201) << r;
    const std::string epk = V2Epk(key);
    size_t range = 0;
    while (!(epk >= ranges[range].first && (range + 1 == ranges.size() || epk < ranges[range].second))) ++range;
    EXPECT_EQ(r.Header("x-ms-documentdb-partitionkeyrangeid"), std::to_string(range)) << key;
    EXPECT_EQ(r.Header("x-ms-session-token"), std::to_string(range) + ":-1#" + r.Header("lsn"));
    expected[std::to_string(range)].insert(key);
  }
  EXPECT_EQ(expected.size(), 4u) << "64 keys should reach every range";
  size_t total = 0;
  for (auto& [range, ids] : expected) {
    auto r = Query("c", "SELECT * FROM c", {{"x-ms-documentdb-partitionkeyrangeid", range}, {"x-ms-max-item-count", "-1"}});
    ASSERT_EQ(r.status(), 200) << r;
    auto got = Ids(r);
    EXPECT_EQ(std::set<std::string>(got.begin(), got.end()), ids) << range;
    total += got.size();
  }
  EXPECT_EQ(total, 64u);
  auto gone = Query("c", "SELECT * FROM c", {{"x-ms-documentdb-partitionkeyrangeid", "4"}});
  EXPECT_EQ(gone.status(), 410);
  EXPECT_EQ(gone.Substatus(), "1002");
}

// x-ms-documentdb-populatepartitionstatistics: the container's body gains "statistics", one entry
// per physical partition: its range id, item count, storage and distinct partition keys.
TEST_F(PartitionsTest, PartitionStatisticsOnAContainerRead) {
  MakePartitioned("c", 2);
  auto ranges = Ranges("c");
  std::map<std::string, std::pair<uint64_t, uint64_t>> expected;  // range -> items, bytes
  std::map<std::string, std::set<std::string>> keys;
  for (int i = 0; i < 20; ++i) {
    const std::string key = "k" + std::to_string(i % 7);
    auto r = CreateDoc("db", "c", "{\"id\":\"d" + std::to_string(i) + "\",\"pk\":\"" + key + "\"}", "[\"" + key + "\"]");
    ASSERT_EQ(r.status(), 201) << r;
    const std::string range = r.Header("x-ms-documentdb-partitionkeyrangeid");
    expected[range].first += 1;
    expected[range].second += r.Json().IsObject() ? json::Write(r.Json()).size() : 0;
    keys[range].insert(key);
  }
  auto plain = Get("/dbs/db/colls/c");
  ASSERT_EQ(plain.status(), 200);
  EXPECT_FALSE(plain.Json().HasMember("statistics"));
  auto r = Get("/dbs/db/colls/c", {{"x-ms-documentdb-populatepartitionstatistics", "true"}});
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.Charge(), plain.Charge());
  auto d = r.Json();
  ASSERT_TRUE(d["statistics"].IsArray()) << r;
  ASSERT_EQ(d["statistics"].Size(), 2u);
  for (unsigned i = 0; i < 2; ++i) {
    const auto& st = d["statistics"][i];
    const std::string id = std::to_string(i);
    EXPECT_EQ(std::string(st["id"].GetString()), id);
    EXPECT_EQ(st["documentCount"].GetUint64(), expected[id].first) << id;
    EXPECT_EQ(st["sizeInKB"].GetUint64(), (expected[id].second + 1023) / 1024) << id;
    EXPECT_EQ(st["sampledDistinctPartitionKeyCount"].GetUint64(), keys[id].size()) << id;
    EXPECT_TRUE(st["partitionKeys"].IsArray() && st["partitionKeys"].Empty());
  }
}

TEST_F(PartitionsTest, EpkHeadersNarrowARange) {
  MakePartitioned("c", 2);
  std::vector<std::string> keys;
  for (int i = 0; i < 20; ++i) {
    keys.push_back("e" + std::to_string(i));
    ASSERT_EQ(CreateDoc("db", "c", "{\"id\":\"" + keys.back() + "\",\"pk\":\"" + keys.back() + "\"}",
                        "[\"" + keys.back() + "\"]").status(), 201);
  }
  // [1000..., 2000...): only the keys whose EPK falls inside.
  const std::string lo = "10000000000000000000000000000000", hi = "20000000000000000000000000000000";
  std::vector<std::string> want;
  for (auto& k : keys) {
    if (V2Epk(k) >= lo && V2Epk(k) < hi) want.push_back(k);
  }
  std::sort(want.begin(), want.end());
  auto r = Query("c", "SELECT * FROM c", {{"x-ms-documentdb-partitionkeyrangeid", "0"}, {"x-ms-start-epk", lo},
                                         {"x-ms-end-epk", hi}, {"x-ms-read-key-type", "EffectivePartitionKeyRange"}});
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(Ids(r), want);
  auto bad = Query("c", "SELECT * FROM c", {{"x-ms-start-epk", hi}, {"x-ms-end-epk", lo}});
  EXPECT_EQ(bad.status(), 400);
}

TEST_F(PartitionsTest, HierarchicalPrefixQueriesRouteToTheRangesThePrefixCovers) {
  MakePartitioned("h", 4, R"({"paths":["/tenant","/user"],"kind":"MultiHash","version":2})");
  for (int t = 0; t < 3; ++t) {
    for (int u = 0; u < 5; ++u) {
      const std::string tenant = "t" + std::to_string(t), user = "u" + std::to_string(u);
      auto r = CreateDoc("db", "h",
                         "{\"id\":\"" + tenant + user + "\",\"tenant\":\"" + tenant + "\",\"user\":\"" + user + "\"}",
                         "[\"" + tenant + "\",\"" + user + "\"]");
      ASSERT_EQ(r.status(), 201) << r;
    }
  }
  auto r = Query("h", "SELECT * FROM c", {{"x-ms-documentdb-partitionkey", "[\"t1\"]"}});
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(Ids(r), (std::vector<std::string>{"t1u0", "t1u1", "t1u2", "t1u3", "t1u4"}));
  // A point read needs the full key.
  auto read = Get("/dbs/db/colls/h/docs/t1u0", {{"x-ms-documentdb-partitionkey", "[\"t1\"]"}});
  EXPECT_EQ(read.status(), 400);
  EXPECT_EQ(read.Substatus(), "1001");
  read = Get("/dbs/db/colls/h/docs/t1u0", {{"x-ms-documentdb-partitionkey", "[\"t1\",\"u0\"]"}});
  EXPECT_EQ(read.status(), 200);
}

TEST_F(PartitionsTest, CrossPartitionQueriesPayPerPartitionAndKeyFiltersNarrow) {
  MakePartitioned("c", 4);
  for (int i = 0; i < 16; ++i) {
    const std::string key = "p" + std::to_string(i);
    ASSERT_EQ(CreateDoc("db", "c", "{\"id\":\"" + key + "\",\"pk\":\"" + key + "\",\"n\":" + std::to_string(i) + "}",
                        "[\"" + key + "\"]").status(), 201);
  }
  auto scoped = Query("c", "SELECT * FROM c WHERE c.n = 3", {{"x-ms-documentdb-partitionkey", "[\"p3\"]"}});
  // The gateway's fan-out answers one range per page (the others empty): 4 pages, each one range's
  // base, so the query costs 3 bases more than the one scoped to its key.
  std::vector<std::string> fanned_ids;
  double fanned_charge = 0;
  int pages = 0;
  std::string continuation;
  do {
    Headers h;
    if (!continuation.empty()) h.emplace_back("x-ms-continuation", continuation);
    auto page = Query("c", "SELECT * FROM c WHERE c.n = 3", h);
    ASSERT_EQ(page.status(), 200) << page;
    ++pages;
    for (auto& id : Ids(page)) fanned_ids.push_back(id);
    fanned_charge += std::stod(page.Charge());
    // Session tokens of a page: the one range it read.
    const std::string tokens = page.Header("x-ms-session-token");
    EXPECT_EQ(std::count(tokens.begin(), tokens.end(), ','), 0) << tokens;
    continuation = page.Header("x-ms-continuation");
  } while (!continuation.empty());
  EXPECT_EQ(pages, 4);
  ASSERT_EQ(Ids(scoped), fanned_ids);
  EXPECT_NEAR(fanned_charge - std::stod(scoped.Charge()), 3 * 2.7, 1e-9);
  // An equality filter on the key narrows the gateway's fan-out to one range.
  auto narrowed = Query("c", "SELECT * FROM c WHERE c.pk = 'p3'");
  EXPECT_EQ(narrowed.Charge(), scoped.Charge());
  auto in_list = AllPages("c", "SELECT * FROM c WHERE c.pk IN ('p3', 'p4')");
  EXPECT_EQ(in_list.ids, (std::vector<std::string>{"p3", "p4"}));
  EXPECT_LE(in_list.pages, 2);
}

// A query the gateway serves across partitions (no range named) answers one partition per page, as
// the service's gateway does: a page ends at the end of its partition, full or not, and the next
// page starts the next one. So reading it page by page costs what the same query sent range by range
// costs (the JS SDK's fetchAll and fetchNext of its cross-partition test, 10% apart at most, take
// the two paths); a page that spanned ranges paid each range's base again.
TEST_F(PartitionsTest, TheGatewaysCrossPartitionPagesHoldOnePartitionEach) {
  MakePartitioned("c", 3);
  std::map<std::string, std::vector<std::string>> by_range;  // range id -> ids, in the order created
  for (int i = 0; i < 12; ++i) {
    const std::string key = "k" + std::to_string(i);
    auto r = CreateDoc("db", "c", "{\"id\":\"" + key + "\",\"pk\":\"" + key + "\"}", "[\"" + key + "\"]");
    ASSERT_EQ(r.status(), 201) << r;
    by_range[r.Header("x-ms-documentdb-partitionkeyrangeid")].push_back(key);
  }
  ASSERT_EQ(by_range.size(), 3u);
  // Range by range, pages of 2: what the SDK sends when it fans out itself.
  double per_range = 0;
  size_t per_range_pages = 0;
  for (const auto& [range, ids] : by_range) {
    std::string continuation;
    do {
      Headers h{{"x-ms-documentdb-partitionkeyrangeid", range}, {"x-ms-max-item-count", "2"}};
      if (!continuation.empty()) h.emplace_back("x-ms-continuation", continuation);
      auto page = Query("c", "SELECT * FROM c", h);
      ASSERT_EQ(page.status(), 200) << page;
      per_range += std::stod(page.Charge());
      ++per_range_pages;
      continuation = page.Header("x-ms-continuation");
    } while (!continuation.empty());
  }
  // The gateway's own fan-out, pages of 2: the same pages, partition after partition.
  double gateway = 0;
  size_t gateway_pages = 0;
  std::vector<std::string> got;
  std::string continuation;
  do {
    Headers h{{"x-ms-max-item-count", "2"}};
    if (!continuation.empty()) h.emplace_back("x-ms-continuation", continuation);
    auto page = Query("c", "SELECT * FROM c", h);
    ASSERT_EQ(page.status(), 200) << page;
    auto d = page.Json();
    std::set<std::string> ranges;
    for (auto& e : d["Documents"].GetArray()) {
      const std::string id = e["id"].GetString();
      got.push_back(id);
      for (const auto& [range, ids] : by_range)
        if (std::find(ids.begin(), ids.end(), id) != ids.end()) ranges.insert(range);
    }
    EXPECT_LE(ranges.size(), 1u) << "a page holds one partition's rows";
    // One range's base: 2.7, plus 0.1 and about 0.068 per KB for each row loaded.
    EXPECT_LT(std::stod(page.Charge()), 2 * 2.7) << page.Charge();
    gateway += std::stod(page.Charge());
    ++gateway_pages;
    continuation = page.Header("x-ms-continuation");
  } while (!continuation.empty());
  EXPECT_EQ(got.size(), 12u);
  EXPECT_EQ(gateway_pages, per_range_pages);
  EXPECT_NEAR(gateway, per_range, 1e-9);
}

TEST_F(PartitionsTest, SessionTokensAheadOrMalformed) {
  MakePartitioned("c", 2);
  auto created = CreateDoc("db", "c", R"({"id":"a","pk":"a"})", "[\"a\"]");
  const std::string range = created.Header("x-ms-documentdb-partitionkeyrangeid");
  auto ok = Get("/dbs/db/colls/c/docs/a", {{"x-ms-documentdb-partitionkey", "[\"a\"]"},
                                           {"x-ms-session-token", created.Header("x-ms-session-token")}});
  EXPECT_EQ(ok.status(), 200) << ok;
  // V2 tokens (version#global#region=local) and tokens of other ranges are accepted.
  ok = Get("/dbs/db/colls/c/docs/a", {{"x-ms-documentdb-partitionkey", "[\"a\"]"},
                                      {"x-ms-session-token", "0:1#1#3=-1,1:-1#1,7:-1#99"}});
  EXPECT_EQ(ok.status(), 200) << ok;
  auto ahead = Get("/dbs/db/colls/c/docs/a", {{"x-ms-documentdb-partitionkey", "[\"a\"]"},
                                              {"x-ms-session-token", range + ":-1#999999"}});
  EXPECT_EQ(ahead.status(), 404);
  EXPECT_EQ(ahead.Substatus(), "1002");
  EXPECT_NE(ahead.Message().find("The read session is not available for the input session token."), std::string::npos);
  auto bad = Get("/dbs/db/colls/c/docs/a", {{"x-ms-documentdb-partitionkey", "[\"a\"]"}, {"x-ms-session-token", "garbage"}});
  EXPECT_EQ(bad.status(), 400);
  EXPECT_NE(bad.Message().find("The session token provided 'garbage' is invalid."), std::string::npos) << bad;
  // Writes do not wait for a session.
  auto write = CreateDoc("db", "c", R"({"id":"b","pk":"a"})", "[\"a\"]", {{"x-ms-session-token", range + ":-1#999999"}});
  EXPECT_EQ(write.status(), 201);
}

TEST_F(PartitionsTest, RateLimitingThrottlesAPartitionAndClears) {
  limiter_.set_enabled(true);
  MakeContainer("db", "c");  // 400 RU/s, one partition
  const std::string body = R"({"id":"ID","pk":"a"})";
  double spent = 0;
  int created = 0;
  Reply last;
  for (;;) {
    std::string doc = body;
    doc.replace(doc.find("ID"), 2, "d" + std::to_string(created));
    last = CreateDoc("db", "c", doc, "[\"a\"]");
    if (last.status() != 201) break;
    spent += std::stod(last.Charge());
    ++created;
    ASSERT_LT(created, 200);
  }
  EXPECT_EQ(last.status(), 429) << last;
  EXPECT_EQ(last.Substatus(), "3200");
  EXPECT_EQ(last.Charge(), "0");
  EXPECT_EQ(last.Code(), "TooManyRequests");
  EXPECT_NE(last.Message().find("Request rate is large"), std::string::npos);
  // Admitted while RU remained: the bucket went below zero by less than one write.
  EXPECT_GE(spent, 400.0);
  const double debt = spent - 400.0;
  EXPECT_EQ(last.Header("x-ms-retry-after-ms"), std::to_string(static_cast<int>(std::floor(debt * 1000.0 / 400.0)) + 1));
  // Reads in the same partition are throttled too; other containers are not.
  MakeContainer("db", "other");
  EXPECT_EQ(CreateDoc("db", "other", R"({"id":"x","pk":"a"})", "[\"a\"]").status(), 201);
  // After the retry-after, the partition has RU again.
  clock_.Advance(std::stoi(last.Header("x-ms-retry-after-ms")));
  auto retried = CreateDoc("db", "c", R"({"id":"late","pk":"a"})", "[\"a\"]");
  EXPECT_EQ(retried.status(), 201) << retried;
  // The report counts the throttled request, charged 0.
  auto stats = Get("/_emulator/stats").Json();
  const auto& c = stats["containers"][0];
  EXPECT_EQ(std::string(c["container"].GetString()), "c");
  EXPECT_EQ(c["total"]["throttled"].GetUint64(), 1u);
  EXPECT_EQ(c["total"]["requests"].GetUint64(), static_cast<uint64_t>(created + 2));
}

TEST_F(PartitionsTest, SharedDatabaseThroughputIsSplitAcrossItsContainersPartitions) {
  limiter_.set_enabled(true);
  auto r = Post("/dbs", R"({"id":"shared"})", {{"x-ms-offer-throughput", "400"}});
  ASSERT_EQ(r.status(), 201);
  for (const char* c : {"a", "b"}) {
    ASSERT_EQ(Post("/dbs/shared/colls", std::string("{\"id\":\"") + c + R"(","partitionKey":{"paths":["/pk"]}})").status(),
              201);
  }
  // 400 RU/s over two partitions: each bucket holds 200.
  auto container = account_.FindDatabase("shared")->FindContainer("a");
  EXPECT_EQ(container->budget_offer()->PartitionBudget(), 200.0);
}

TEST_F(PartitionsTest, StatsReportPerOperationAndQueryShapeAndWarnOnceOnFanOut) {
  MakePartitioned("c", 3);
  double total = 0;
  for (int i = 0; i < 6; ++i) {
    const std::string key = "s" + std::to_string(i);
    auto r = CreateDoc("db", "c", "{\"id\":\"" + key + "\",\"pk\":\"" + key + "\"}", "[\"" + key + "\"]");
    total += std::stod(r.Charge());
  }
  for (int i = 0; i < 2; ++i) {
    auto q = AllPages("c", "select *   from c where c.x = 1");  // 3 pages: one per partition
    EXPECT_EQ(q.pages, 3);
    total += q.charge;
  }
  auto scoped = Query("c", "SELECT * FROM c", {{"x-ms-documentdb-partitionkey", "[\"s1\"]"}});
  total += std::stod(scoped.Charge());
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_EQ(warnings_[0],
            "warning: query fans out to all 3 physical partitions of db/c: SELECT * FROM c WHERE (c.x = ?)");
  auto r = Get("/_emulator/stats");
  ASSERT_EQ(r.status(), 200);
  auto d = r.Json();
  ASSERT_EQ(d["containers"].Size(), 1u);
  const auto& c = d["containers"][0];
  EXPECT_EQ(std::string(c["database"].GetString()), "db");
  EXPECT_EQ(c["physicalPartitions"].GetUint64(), 3u);
  EXPECT_EQ(c["total"]["requests"].GetUint64(), 13u);
  EXPECT_NEAR(c["total"]["totalRU"].GetDouble(), total, 1e-6);
  ASSERT_EQ(c["operations"].Size(), 2u);
  EXPECT_EQ(std::string(c["operations"][0]["operation"].GetString()), "create");
  EXPECT_EQ(c["operations"][0]["requests"].GetUint64(), 6u);
  EXPECT_EQ(std::string(c["operations"][1]["operation"].GetString()), "query");
  ASSERT_EQ(c["queries"].Size(), 2u);
  const auto& fan = c["queries"][1];
  EXPECT_EQ(std::string(fan["query"].GetString()), "SELECT * FROM c WHERE (c.x = ?)");
  EXPECT_EQ(fan["requests"].GetUint64(), 6u);
  EXPECT_EQ(fan["executions"].GetUint64(), 2u);
  EXPECT_TRUE(fan["fanOutToAllPartitions"].GetBool());
  EXPECT_EQ(fan["partitionsTouched"].Size(), 3u);
  EXPECT_FALSE(c["queries"][0]["fanOutToAllPartitions"].GetBool());
  // Per physical partition: the requests that touched it and its share of their charges; the
  // shares add up to the total (six creates on one partition each, two queries of three pages, one
  // partition each, one scoped query on one).
  ASSERT_EQ(c["partitions"].Size(), 3u);
  uint64_t touches = 0;
  double shares = 0;
  for (unsigned i = 0; i < 3; ++i) {
    EXPECT_EQ(std::string(c["partitions"][i]["id"].GetString()), std::to_string(i));
    touches += c["partitions"][i]["requests"].GetUint64();
    shares += c["partitions"][i]["totalRU"].GetDouble();
  }
  EXPECT_EQ(touches, 13u);
  EXPECT_NEAR(shares, total, 0.03);
  // DELETE resets the report and needs a master key (signed as type "_emulator", link
  // "_emulator/stats"); reading it needs none.
  http::Request del{bh::verb::delete_, "/_emulator/stats", 11};
  del.prepare_payload();
  auto refused = Send(del);
  EXPECT_EQ(refused.status(), 401) << refused;
  EXPECT_EQ(refused.Code(), "Unauthorized");
  EXPECT_EQ(Call(bh::verb::delete_, "/_emulator/stats", "", {}, SignedWith(std::string("wrong key"))).status(), 401);
  config_.readonly_key = "read-only key";
  EXPECT_EQ(Call(bh::verb::delete_, "/_emulator/stats", "", {}, SignedWith(config_.readonly_key)).status(), 401);
  EXPECT_EQ(Call(bh::verb::get, "/_emulator/stats", "", {}, NoSignature()).Json()["containers"].Size(), 1u);
  auto reset = Delete("/_emulator/stats");
  EXPECT_EQ(reset.status(), 204) << reset;
  EXPECT_EQ(reset.body(), "");
  http::Request get{bh::verb::get, "/_emulator/stats", 11};
  get.prepare_payload();
  EXPECT_EQ(Send(get).body(), R"({"containers":[]})");
}

TEST_F(PartitionsTest, StatsShowQueryShapesWithoutTheirValues) {
  MakeContainer("db", "c");
  for (const char* ssn : {"123-45-6789", "987-65-4321"}) {
    ASSERT_EQ(Query("c", std::string("SELECT * FROM c WHERE c.ssn = '") + ssn + "' AND c.n > 17 AND c.tags[0] = 2 "
                         "AND c[\"a b\"] IN ('x', 'y') AND c.ok = true",
                    {{"x-ms-documentdb-query-enablecrosspartition", "true"}})
                  .status(),
              200);
  }
  auto stats = Get("/_emulator/stats").body();
  EXPECT_EQ(stats.find("123-45"), std::string::npos) << stats;
  EXPECT_EQ(stats.find("987-65"), std::string::npos) << stats;
  auto d = Get("/_emulator/stats").Json();
  const auto& queries = d["containers"][0]["queries"];
  ASSERT_EQ(queries.Size(), 1u) << stats;  // one shape for both
  EXPECT_EQ(std::string(queries[0]["query"].GetString()),
            "SELECT * FROM c WHERE (((((c.ssn = ?) AND (c.n > ?)) AND (c.tags[0] = ?)) AND (c[\"a b\"] IN (?, ?))) AND "
            "(c.ok = true))");
  EXPECT_EQ(queries[0]["requests"].GetUint64(), 2u);
}

TEST_F(PartitionsTest, StatsKeepABoundedNumberOfShapesAndForgetDeletedContainers) {
  MakeContainer("db", "c");
  MakeContainer("db", "gone");
  ASSERT_EQ(Query("gone", "SELECT * FROM c", {{"x-ms-documentdb-query-enablecrosspartition", "true"}}).status(), 200);
  // One expensive shape first, then more shapes than are kept (each one its own: a new alias).
  ASSERT_EQ(Query("c", "SELECT * FROM c WHERE c.x > 1", {{"x-ms-documentdb-query-enablecrosspartition", "true"}}).status(),
            200);
  const size_t extra = stats::Report::kMaxShapes + 20;
  for (size_t i = 0; i < extra; ++i) {
    ASSERT_EQ(Query("c", "SELECT VALUE a" + std::to_string(i) + ".id FROM a" + std::to_string(i),
                    {{"x-ms-documentdb-query-enablecrosspartition", "true"}})
                  .status(),
              200);
  }
  auto d = Get("/_emulator/stats").Json();
  ASSERT_EQ(d["containers"].Size(), 2u);
  const auto& c = d["containers"][1];
  ASSERT_EQ(std::string(c["container"].GetString()), "c");
  const auto& queries = c["queries"];
  EXPECT_EQ(queries.Size(), stats::Report::kMaxShapes + 1);  // the kept shapes and the rest
  uint64_t requests = 0;
  bool rest = false;
  for (const auto& q : queries.GetArray()) {
    requests += q["requests"].GetUint64();
    if (std::string(q["query"].GetString()) == stats::Report::kOtherShapes) rest = true;
  }
  EXPECT_TRUE(rest);
  EXPECT_EQ(requests, extra + 1);  // nothing lost from the totals
  // Deleting a container drops what the report kept of it; deleting the database, the rest.
  ASSERT_EQ(Delete("/dbs/db/colls/gone").status(), 204);
  d = Get("/_emulator/stats").Json();
  ASSERT_EQ(d["containers"].Size(), 1u);
  EXPECT_EQ(std::string(d["containers"][0]["container"].GetString()), "c");
  ASSERT_EQ(Delete("/dbs/db").status(), 204);
  EXPECT_EQ(Get("/_emulator/stats").body(), R"({"containers":[]})");
}

TEST_F(PartitionsTest, StatsNeedASignatureWhenTheKeyIsNotTheWellKnownOne) {
  http::Request get{bh::verb::get, "/_emulator/stats", 11};
  get.prepare_payload();
  EXPECT_EQ(Send(get).status(), 200);  // the well-known key protects nothing: open
  config_.master_key = "a key of the user's own";
  config_.master_key_b64 = util::Base64Encode(config_.master_key);
  config_.readonly_key = "its read-only key";
  auto refused = Send(get);
  EXPECT_EQ(refused.status(), 401) << refused;
  EXPECT_EQ(refused.Code(), "Unauthorized");
  EXPECT_EQ(Call(bh::verb::get, "/_emulator/stats", "", {}, SignedWith(std::string("wrong key"))).status(), 401);
  EXPECT_EQ(Get("/_emulator/stats").status(), 200);
  EXPECT_EQ(Call(bh::verb::get, "/_emulator/stats", "", {}, SignedWith(config_.readonly_key)).status(), 200);
}

TEST_F(PartitionsTest, QueryMetricsInTheServicesFormat) {
  MakeContainer("db", "c");
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(CreateDoc("db", "c", "{\"id\":\"m" + std::to_string(i) + "\",\"pk\":\"a\",\"n\":" + std::to_string(i) + "}",
                        "[\"a\"]").status(), 201);
  }
  auto plain = Query("c", "SELECT * FROM c WHERE c.n > 0");
  EXPECT_FALSE(plain.Has("x-ms-documentdb-query-metrics"));
  auto r = Query("c", "SELECT * FROM c WHERE c.n > 0", {{"x-ms-documentdb-populatequerymetrics", "True"}});
  ASSERT_EQ(r.status(), 200);
  const std::string m = r.Header("x-ms-documentdb-query-metrics");
  static const std::regex kFormat(
      "totalExecutionTimeInMs=\\d+\\.\\d\\d;queryCompileTimeInMs=\\d+\\.\\d\\d;queryLogicalPlanBuildTimeInMs=0\\.00;"
      "queryPhysicalPlanBuildTimeInMs=0\\.00;queryOptimizationTimeInMs=0\\.00;VMExecutionTimeInMs=\\d+\\.\\d\\d;"
      "indexLookupTimeInMs=0\\.00;documentLoadTimeInMs=0\\.00;systemFunctionExecuteTimeInMs=0\\.00;"
      "userFunctionExecuteTimeInMs=0\\.00;retrievedDocumentCount=(\\d+);retrievedDocumentSize=(\\d+);"
      "outputDocumentCount=2;outputDocumentSize=(\\d+);writeOutputTimeInMs=\\d+\\.\\d\\d;"
      "indexUtilizationRatio=\\d\\.\\d\\d");
  std::smatch match;
  ASSERT_TRUE(std::regex_match(m, match, kFormat)) << m;
  auto docs = r.Json();
  size_t out_bytes = 0;
  for (auto& e : docs["Documents"].GetArray()) out_bytes += json::Write(e).size();
  EXPECT_EQ(match[3].str(), std::to_string(out_bytes));
}

TEST_F(PartitionsTest, ItemResourceIdsAreUniqueAcrossPartitionsAndAddressTheirItem) {
  MakePartitioned("c", 4);
  std::set<std::string> rids;
  std::vector<std::pair<std::string, std::string>> by_rid;  // rid, id
  for (int i = 0; i < 40; ++i) {
    const std::string id = "i" + std::to_string(i);
    auto r = CreateDoc("db", "c", "{\"id\":\"" + id + "\",\"pk\":\"" + id + "\"}", "[\"" + id + "\"]");
    ASSERT_EQ(r.status(), 201) << r;
    EXPECT_TRUE(rids.insert(r.Str("_rid")).second) << "a second item with _rid " << r.Str("_rid");
    by_rid.emplace_back(r.Str("_rid"), id);
  }
  const std::string coll_rid = Get("/dbs/db/colls/c").Str("_rid");
  const std::string db_rid = Get("/dbs/db").Str("_rid");
  for (const auto& [rid, id] : by_rid) {
    auto r = Get("/dbs/" + db_rid + "/colls/" + coll_rid + "/docs/" + rid, {{"x-ms-documentdb-partitionkey", "[\"" + id + "\"]"}});
    ASSERT_EQ(r.status(), 200) << r;
    EXPECT_EQ(r.Str("id"), id);
  }
}

}  // namespace
}  // namespace cosmos::testing
