// Partition splits through the in-process pipeline (docs/faults.md, "Splits"): the endpoint, the
// partition key range feed, 410/1002 for the parent, and every continuation and token that named
// the parent going on in its children.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <map>
#include <set>
#include <thread>

#include "http_test_util.h"
#include "store/epk.h"

namespace cosmos::testing {
namespace {

constexpr const char* kMid0 = "0FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF";  // the middle of range 0 of two
constexpr const char* kBound = "1FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF";  // between ranges 0 and 1

class SplitsTest : public EmulatorTest {
 protected:
  void SetUp() override {
    MakeDatabase("db");
    auto r = Post("/dbs/db/colls", R"({"id":"c","partitionKey":{"paths":["/pk"],"version":2}})",
                  {{"x-cosmos-emulator-partition-count", "2"}});
    ASSERT_EQ(r.status(), 201) << r;
    for (int i = 0; i < 40; ++i) Create("a" + std::to_string(i));
  }
  void Create(const std::string& id) {
    auto r = CreateDoc("db", "c", R"({"id":")" + id + R"(","pk":")" + id + R"("})", "[\"" + id + "\"]");
    ASSERT_EQ(r.status(), 201) << r;
  }
  Reply Split(const std::string& body = "") { return Post("/_emulator/containers/db/c/split", body); }
  static std::string EpkOf(const std::string& pk) {
    store::PartitionKeyDefinition def;
    def.paths = {"/pk"};
    def.version = 2;
    store::PartitionKeyValue key;
    key.components.push_back("\"" + pk + "\"");
    return store::EffectivePartitionKey(def, key);
  }
  // The ids of a feed page's Documents.
  static std::vector<std::string> Ids(const Reply& r) {
    std::vector<std::string> out;
    auto d = r.Json();
    for (const auto& doc : d["Documents"].GetArray()) out.emplace_back(doc["id"].GetString());
    return out;
  }
  // The ids in range `range` (by EPK) of the first 40 items.
  std::set<std::string> IdsIn(const std::string& min, const std::string& max) {
    std::set<std::string> out;
    for (int i = 0; i < 40; ++i) {
      const std::string id = "a" + std::to_string(i);
      const std::string e = EpkOf(id);
      if (e >= min && (max == "FF" || e < max)) out.insert(id);
    }
    return out;
  }
  // Every page of a feed from `target` with `headers`, until no continuation.
  std::vector<std::string> ReadAll(const std::string& target, Headers headers, std::string continuation = "") {
    std::vector<std::string> out;
    for (;;) {
      Headers h = headers;
      if (!continuation.empty()) h.emplace_back("x-ms-continuation", continuation);
      auto r = Get(target, h);
      EXPECT_EQ(r.status(), 200) << r;
      for (auto& id : Ids(r)) out.push_back(id);
      continuation = r.Header("x-ms-continuation");
      if (continuation.empty() || r.status() != 200) return out;
    }
  }
};

TEST_F(SplitsTest, TheEndpointSplitsARangeAndThePartitionKeyRangeFeedShowsIt) {
  EXPECT_EQ(Call(bh::verb::post, "/_emulator/containers/db/c/split", "", {}, NoSignature()).status(), 401);
  EXPECT_EQ(Get("/_emulator/containers/db/c/split").status(), 405);
  EXPECT_EQ(Post("/_emulator/containers/db/c/merge", "").status(), 400);
  auto bad = Split(R"({"partitionKeyRangeId":0})");
  EXPECT_EQ(bad.status(), 400);
  EXPECT_NE(bad.Message().find("partitionKeyRangeId must be a non-empty string."), std::string::npos) << bad;
  EXPECT_EQ(Split(R"({"range":"0"})").status(), 400);
  auto none = Split(R"({"partitionKeyRangeId":"7"})");
  EXPECT_EQ(none.status(), 404);
  EXPECT_NE(none.Message().find("The container has no live partition key range '7'."), std::string::npos) << none;
  EXPECT_EQ(Post("/_emulator/containers/db/nope/split", "").status(), 404);

  auto before = Get("/dbs/db/colls/c/pkranges");
  ASSERT_EQ(before.status(), 200);
  const std::string old_etag = before.Header("etag");
  const uint64_t lsn0 = before.Json()["PartitionKeyRanges"][0]["lsn"].GetUint64();

  auto r = Split(R"({"partitionKeyRangeId":"0"})");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.body(), std::string(R"({"splits":[{"parent":"0","children":["2","3"],"at":")") + kMid0 +
                          R"("}],"partitionKeyRanges":[{"id":"2","minInclusive":"","maxExclusive":")" + kMid0 +
                          R"(","parents":["0"]},{"id":"3","minInclusive":")" + kMid0 + R"(","maxExclusive":")" +
                          kBound + R"(","parents":["0"]},{"id":"1","minInclusive":")" + kBound +
                          R"(","maxExclusive":"FF","parents":[]}]})");

  auto after = Get("/dbs/db/colls/c/pkranges");
  ASSERT_EQ(after.status(), 200);
  EXPECT_NE(after.Header("etag"), old_etag);
  EXPECT_EQ(after.Header("x-ms-item-count"), "3");
  auto d = after.Json();
  const auto& ranges = d["PartitionKeyRanges"];
  ASSERT_EQ(ranges.Size(), 3u);
  EXPECT_EQ(std::string(ranges[0]["id"].GetString()), "2");
  EXPECT_EQ(std::string(ranges[0]["parents"][0].GetString()), "0");
  EXPECT_EQ(ranges[0]["ridPrefix"].GetInt(), 2);
  EXPECT_EQ(ranges[0]["lsn"].GetUint64(), lsn0);  // the children go on from the parent's LSN
  EXPECT_EQ(ranges[1]["lsn"].GetUint64(), lsn0);
  EXPECT_EQ(std::string(ranges[2]["id"].GetString()), "1");
  EXPECT_EQ(ranges[2]["parents"].Size(), 0u);
  EXPECT_NE(std::string(ranges[0]["_rid"].GetString()), std::string(ranges[1]["_rid"].GetString()));

  // The incremental feed: the old etag gets the new ranges, the new etag 304.
  auto inc = Get("/dbs/db/colls/c/pkranges", {{"a-im", "Incremental feed"}, {"if-none-match", old_etag}});
  EXPECT_EQ(inc.status(), 200);
  EXPECT_EQ(inc.Header("x-ms-item-count"), "3");
  auto same = Get("/dbs/db/colls/c/pkranges",
                  {{"a-im", "Incremental feed"}, {"if-none-match", after.Header("etag")}});
  EXPECT_EQ(same.status(), 304);

  // Every item stayed, in the child its EPK falls in.
  const auto left = IdsIn("", kMid0), right = IdsIn(kMid0, kBound), rest = IdsIn(kBound, "FF");
  EXPECT_EQ(left.size() + right.size() + rest.size(), 40u);
  EXPECT_FALSE(left.empty());
  EXPECT_FALSE(right.empty());
  auto feed = [&](const char* range) {
    auto v = ReadAll("/dbs/db/colls/c/docs", {{"x-ms-documentdb-partitionkeyrangeid", range}});
    return std::set<std::string>(v.begin(), v.end());
  };
  EXPECT_EQ(feed("2"), left);
  EXPECT_EQ(feed("3"), right);
  EXPECT_EQ(feed("1"), rest);
  for (int i = 0; i < 40; ++i) {
    const std::string id = "a" + std::to_string(i);
    auto read = Get("/dbs/db/colls/c/docs/" + id, {{"x-ms-documentdb-partitionkey", "[\"" + id + "\"]"}});
    ASSERT_EQ(read.status(), 200) << id;
    EXPECT_EQ(read.Header("x-ms-session-token").substr(0, 2), (left.count(id) ? "2:" : right.count(id) ? "3:" : "1:"))
        << id;
  }

  // The parent is gone for whoever still names it.
  auto gone = Get("/dbs/db/colls/c/docs", {{"x-ms-documentdb-partitionkeyrangeid", "0"}});
  EXPECT_EQ(gone.status(), 410);
  EXPECT_EQ(gone.Substatus(), "1002");
  auto query = Post("/dbs/db/colls/c/docs", R"({"query":"SELECT * FROM c"})",
                    {{"x-ms-documentdb-isquery", "true"},
                     {"content-type", "application/query+json"},
                     {"x-ms-documentdb-partitionkeyrangeid", "0"}});
  EXPECT_EQ(query.status(), 410);
  EXPECT_EQ(query.Substatus(), "1002");
  auto again = Split(R"({"partitionKeyRangeId":"0"})");
  EXPECT_EQ(again.status(), 404);
}

TEST_F(SplitsTest, WritesGoOnInTheChildrenWithTheParentsLsnsAndSessionTokens) {
  const std::string id = *IdsIn("", kMid0).begin();
  auto read = Get("/dbs/db/colls/c/docs/" + id, {{"x-ms-documentdb-partitionkey", "[\"" + id + "\"]"}});
  const std::string token = read.Header("x-ms-session-token");  // "0:-1#<lsn>"
  ASSERT_EQ(token.substr(0, 5), "0:-1#");
  const uint64_t lsn = std::stoull(token.substr(5));
  ASSERT_EQ(Split(R"({"partitionKeyRangeId":"0"})").status(), 200);
  // The parent's token is honoured by its child.
  auto again = Get("/dbs/db/colls/c/docs/" + id,
                   {{"x-ms-documentdb-partitionkey", "[\"" + id + "\"]"}, {"x-ms-session-token", token}});
  EXPECT_EQ(again.status(), 200) << again;
  EXPECT_EQ(again.Header("x-ms-session-token"), "2:-1#" + std::to_string(lsn));
  EXPECT_EQ(again.body(), read.body());  // same _rid, _etag, _ts
  auto replaced = Put("/dbs/db/colls/c/docs/" + id, R"({"id":")" + id + R"(","pk":")" + id + R"(","v":1})",
                      {{"x-ms-documentdb-partitionkey", "[\"" + id + "\"]"}});
  ASSERT_EQ(replaced.status(), 200) << replaced;
  EXPECT_EQ(replaced.Header("x-ms-session-token"), "2:-1#" + std::to_string(lsn + 1));
  // A token ahead of everything the parent ever wrote is still refused on the child.
  auto ahead = Get("/dbs/db/colls/c/docs/" + id, {{"x-ms-documentdb-partitionkey", "[\"" + id + "\"]"},
                                                  {"x-ms-session-token", "0:-1#999999"}});
  EXPECT_EQ(ahead.status(), 404);
  EXPECT_EQ(ahead.Substatus(), "1002");
  // New items in a child get resource ids no other item has.
  std::set<std::string> rids;
  for (int i = 40; i < 60; ++i) Create("a" + std::to_string(i));
  auto all = Get("/dbs/db/colls/c/docs", {{"x-ms-max-item-count", "-1"}});
  auto d = all.Json();
  ASSERT_EQ(d["Documents"].Size(), 60u);
  for (const auto& doc : d["Documents"].GetArray()) rids.insert(doc["_rid"].GetString());
  EXPECT_EQ(rids.size(), 60u);
}

TEST_F(SplitsTest, AChangeFeedContinuationOfTheParentGoesOnInEachChild) {
  // Read range 0 to its end.
  std::string etag;
  std::set<std::string> seen;
  for (;;) {
    Headers h{{"a-im", "Incremental Feed"}, {"x-ms-documentdb-partitionkeyrangeid", "0"}, {"x-ms-max-item-count", "7"}};
    if (!etag.empty()) h.emplace_back("if-none-match", etag);
    auto r = Get("/dbs/db/colls/c/docs", h);
    etag = r.Header("etag");
    if (r.status() == 304) break;
    for (auto& id : Ids(r)) EXPECT_TRUE(seen.insert(id).second) << id;
  }
  EXPECT_EQ(seen, IdsIn("", kBound));
  // The whole container's feed, to its end: one etag naming both ranges.
  std::string all_etag;
  for (;;) {
    Headers h{{"a-im", "Incremental Feed"}};
    if (!all_etag.empty()) h.emplace_back("if-none-match", all_etag);
    auto r = Get("/dbs/db/colls/c/docs", h);
    all_etag = r.Header("etag");
    if (r.status() == 304) break;
  }
  ASSERT_NE(all_etag.find("0:"), std::string::npos) << all_etag;

  ASSERT_EQ(Split(R"({"partitionKeyRangeId":"0"})").status(), 200);
  // The parent's continuation, sent to it, is gone; sent to each child, it gives what changed since.
  auto gone = Get("/dbs/db/colls/c/docs", {{"a-im", "Incremental Feed"},
                                            {"x-ms-documentdb-partitionkeyrangeid", "0"},
                                            {"if-none-match", etag}});
  EXPECT_EQ(gone.status(), 410);
  EXPECT_EQ(gone.Substatus(), "1002");
  for (const char* range : {"2", "3"}) {
    auto r = Get("/dbs/db/colls/c/docs",
                 {{"a-im", "Incremental Feed"}, {"x-ms-documentdb-partitionkeyrangeid", range}, {"if-none-match", etag}});
    EXPECT_EQ(r.status(), 304) << range;
    EXPECT_EQ(r.Header("etag"), etag) << range;
  }
  for (int i = 40; i < 80; ++i) Create("a" + std::to_string(i));
  // Changes to one of the old items, after the split.
  const std::string old = *IdsIn(kMid0, kBound).begin();
  ASSERT_EQ(Put("/dbs/db/colls/c/docs/" + old, R"({"id":")" + old + R"(","pk":")" + old + R"(","v":2})",
                {{"x-ms-documentdb-partitionkey", "[\"" + old + "\"]"}})
                .status(),
            200);
  std::multiset<std::string> after;
  for (const char* range : {"2", "3"}) {
    std::string e = etag;
    for (;;) {
      auto r = Get("/dbs/db/colls/c/docs", {{"a-im", "Incremental Feed"},
                                            {"x-ms-documentdb-partitionkeyrangeid", range},
                                            {"x-ms-max-item-count", "5"},
                                            {"if-none-match", e}});
      e = r.Header("etag");
      if (r.status() == 304) break;
      for (auto& id : Ids(r)) after.insert(id);
    }
  }
  std::multiset<std::string> expected{old};
  for (int i = 40; i < 80; ++i) {
    const std::string id = "a" + std::to_string(i);
    if (EpkOf(id) < kBound) expected.insert(id);
  }
  EXPECT_EQ(after, expected);  // nothing lost, nothing twice

  // The whole-container etag made before the split names range 0: its children resume from it.
  std::multiset<std::string> all_after;
  for (std::string e = all_etag;;) {
    auto r = Get("/dbs/db/colls/c/docs", {{"a-im", "Incremental Feed"}, {"if-none-match", e}});
    ASSERT_TRUE(r.status() == 200 || r.status() == 304) << r;
    e = r.Header("etag");
    if (r.status() == 304) {
      EXPECT_EQ(e.find("0:"), std::string::npos) << e;
      EXPECT_NE(e.find("2:"), std::string::npos) << e;
      break;
    }
    for (auto& id : Ids(r)) all_after.insert(id);
  }
  expected.clear();
  expected.insert(old);
  for (int i = 40; i < 80; ++i) expected.insert("a" + std::to_string(i));
  EXPECT_EQ(all_after, expected);
}

TEST_F(SplitsTest, ReadFeedAndQueryContinuationsOfTheParentResumeInTheChildren) {
  // The read feed across the container, split between two pages.
  auto first = Get("/dbs/db/colls/c/docs", {{"x-ms-max-item-count", "5"}});
  ASSERT_EQ(first.status(), 200);
  const std::string cont = first.Header("x-ms-continuation");
  ASSERT_EQ(cont.substr(0, 2), "0:");
  std::vector<std::string> ids = Ids(first);
  ASSERT_EQ(Split(R"({"partitionKeyRangeId":"0"})").status(), 200);
  for (auto& id : ReadAll("/dbs/db/colls/c/docs", {{"x-ms-max-item-count", "5"}}, cont)) ids.push_back(id);
  std::multiset<std::string> got(ids.begin(), ids.end()), all;
  for (int i = 0; i < 40; ++i) all.insert("a" + std::to_string(i));
  EXPECT_EQ(got, all);

  // A query of range 1 with its continuation, split between pages: each child goes on from it.
  const Headers q{{"x-ms-documentdb-isquery", "true"},
                  {"content-type", "application/query+json"},
                  {"x-ms-max-item-count", "3"}};
  const std::string body = R"({"query":"SELECT c.id FROM c ORDER BY c.id"})";
  Headers h = q;
  h.emplace_back("x-ms-documentdb-partitionkeyrangeid", "1");
  auto page = Post("/dbs/db/colls/c/docs", body, h);
  ASSERT_EQ(page.status(), 200) << page;
  std::vector<std::string> rows = Ids(page);
  const std::string qcont = page.Header("x-ms-continuation");
  ASSERT_FALSE(qcont.empty());
  ASSERT_EQ(Split(R"({"partitionKeyRangeId":"1"})").status(), 200);  // children 4 and 5
  std::vector<std::vector<std::string>> per_child;
  for (const char* range : {"4", "5"}) {
    std::vector<std::string> mine;
    for (std::string c = qcont; !c.empty();) {
      Headers hc = q;
      hc.emplace_back("x-ms-documentdb-partitionkeyrangeid", range);
      hc.emplace_back("x-ms-continuation", c);
      auto r = Post("/dbs/db/colls/c/docs", body, hc);
      ASSERT_EQ(r.status(), 200) << r;
      for (auto& id : Ids(r)) mine.push_back(id);
      c = r.Header("x-ms-continuation");
    }
    EXPECT_TRUE(std::is_sorted(mine.begin(), mine.end()));
    for (auto& id : mine) EXPECT_GT(id, rows.back());  // after the last row the parent returned
    per_child.push_back(mine);
  }
  std::multiset<std::string> all_rows(rows.begin(), rows.end());
  for (auto& v : per_child) all_rows.insert(v.begin(), v.end());
  const auto in1 = IdsIn(kBound, "FF");
  EXPECT_EQ(all_rows, std::multiset<std::string>(in1.begin(), in1.end()));
}

TEST_F(SplitsTest, RaisingTheThroughputPastTenThousandPerRangeSplits) {
  auto r = Post("/dbs/db/colls", R"({"id":"t","partitionKey":{"paths":["/pk"],"version":2}})",
                {{"x-ms-offer-throughput", "400"}});
  ASSERT_EQ(r.status(), 201) << r;
  const std::string rid = r.Str("_rid");
  auto offers = Post("/offers", R"({"query":"SELECT * FROM root r WHERE r.offerResourceId = @r","parameters":[{"name":"@r","value":")" + rid + R"("}]})",
                     {{"x-ms-documentdb-isquery", "true"}, {"content-type", "application/query+json"}});
  ASSERT_EQ(offers.status(), 200) << offers;
  auto od = offers.Json();
  json::Document offer;
  offer.CopyFrom(od["Offers"][0], offer.GetAllocator());
  offer["content"]["offerThroughput"].SetInt(25000);
  const std::string oid = offer["id"].GetString();
  auto replaced = Put("/offers/" + oid, json::Write(offer));
  ASSERT_EQ(replaced.status(), 200) << replaced;
  auto ranges = Get("/dbs/db/colls/t/pkranges").Json();
  std::vector<std::string> ids;
  for (const auto& p : ranges["PartitionKeyRanges"].GetArray()) ids.emplace_back(p["id"].GetString());
  EXPECT_EQ(ids, (std::vector<std::string>{"3", "4", "2"}));  // 0 -> 1, 2; then 1 -> 3, 4
  // Lowering it merges nothing.
  offer.CopyFrom(replaced.Json(), offer.GetAllocator());
  offer["content"]["offerThroughput"].SetInt(400);
  ASSERT_EQ(Put("/offers/" + oid, json::Write(offer)).status(), 200);
  EXPECT_EQ(Get("/dbs/db/colls/t/pkranges").Header("x-ms-item-count"), "3");
}

TEST_F(SplitsTest, ASplitIsNotStarvedByRequestsThatKeepOverlapping) {
  auto c = account_.FindDatabase("db")->FindContainer("c");
  std::atomic<bool> split_done{false};
  std::atomic<bool> readers_gave_up{false};
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t) {
    readers.emplace_back([&] {
      // Requests that hold the ranges for 2 ms each, back to back, for at most 10 s.
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (!split_done) {
        if (std::chrono::steady_clock::now() > until) {
          readers_gave_up = true;
          return;
        }
        auto hold = c->HoldLayout();
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(c->SplitRange("0", 1, "\"e\"").has_value());
  split_done = true;
  for (auto& r : readers) r.join();
  EXPECT_FALSE(readers_gave_up);  // the split went in between them, not after they stopped
  EXPECT_EQ(c->partition_count(), 3u);
}

// A split waiting for a request that holds the ranges (a running stored procedure, say) never
// holds an I/O thread: there, taking the ranges throws util::WouldBlock at once and the request
// goes to a worker (issue 36: point reads and /_health stalled 2.5 s). A worker waits as before.
TEST_F(SplitsTest, APendingSplitMakesAnIoThreadPassTheRequestOn) {
  auto c = account_.FindDatabase("db")->FindContainer("c");
  std::atomic<bool> release{false};
  std::atomic<bool> held{false};
  std::thread script([&] {
    auto hold = c->HoldLayout();
    held = true;
    while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  while (!held) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::atomic<bool> split_done{false};
  std::thread split([&] {
    c->SplitRange("0", 1, "\"e\"");
    split_done = true;
  });
  // On threads of their own, so that a regression fails the test instead of hanging it. The first
  // tries until the split has queued behind the hold (each try that gets the ranges lets go at once;
  // none may wait); from then on an I/O thread's request is passed on, not answered late.
  auto req = Build(boost::beast::http::verb::get, "/dbs/db/colls/c/docs/x", "", {{"x-ms-documentdb-partitionkey", "[\"a\"]"}});
  auto on_an_io_thread = [&](const std::function<bool()>& f) {
    return std::async(std::launch::async, [f] {
      util::NoWaitScope io_thread;
      try {
        return std::string(f() ? "went on" : "never passed on");
      } catch (const util::WouldBlock&) {
        return std::string("passed on");
      }
    });
  };
  auto layout = on_an_io_thread([&] {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < until) {
      c->HoldLayout();  // taken and let go while the split has not queued yet
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return false;
  });
  const bool layout_ended = layout.wait_for(std::chrono::seconds(20)) == std::future_status::ready;
  EXPECT_TRUE(layout_ended) << "an I/O thread waited for the pending split";
  EXPECT_FALSE(split_done);
  auto read = on_an_io_thread([&] {  // a point read answered at once, the split still pending
    http::Handle(services_, req);
    return true;
  });
  const bool read_ended = read.wait_for(std::chrono::seconds(20)) == std::future_status::ready;
  EXPECT_TRUE(read_ended) << "an I/O thread waited for the pending split";
  release = true;
  EXPECT_EQ(layout.get(), "passed on");
  EXPECT_EQ(read.get(), "passed on");
  script.join();
  split.join();
  EXPECT_TRUE(split_done);
  {
    util::NoWaitScope io_thread;  // nothing pending now: taken at once
    EXPECT_NO_THROW(c->HoldLayout());
  }
}

TEST(SplitPointTest, TheMiddleOfTheRangesSpanOfHashValues) {
  store::PartitionKeyDefinition v2;
  v2.paths = {"/pk"};
  v2.version = 2;
  EXPECT_EQ(store::SplitPoint(v2, "", "FF"), kBound);  // where RangeBoundaries divides in two
  EXPECT_EQ(store::SplitPoint(v2, "", kBound), kMid0);
  EXPECT_EQ(store::SplitPoint(v2, kBound, "FF"), "2FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF");
  EXPECT_EQ(store::SplitPoint(v2, "00000000000000000000000000000001", "00000000000000000000000000000002"),
            std::nullopt);
  store::PartitionKeyDefinition v1;
  v1.paths = {"/pk"};
  v1.version = 1;
  // V1: the middle hash value 2^31, in V1's number encoding; the ring's two halves from it.
  const auto bounds = store::RangeBoundaries(v1, 2);
  EXPECT_EQ(store::SplitPoint(v1, "", "FF"), bounds[1]);
  const auto quarter = store::RangeBoundaries(v1, 4);
  EXPECT_EQ(store::SplitPoint(v1, "", bounds[1]), quarter[1]);
  store::PartitionKeyDefinition range;
  range.paths = {"/pk"};
  range.kind = "Range";
  EXPECT_EQ(store::SplitPoint(range, "", "FF"), std::nullopt);
}

}  // namespace
}  // namespace cosmos::testing
