// The change feed (GET .../docs with A-IM), time to live and the emulator clock, through the
// in-process pipeline: latest-version and all-versions-and-deletes modes, starts, continuations,
// paging, routing, errors, charges and the RU report. The store-level tests are
// tests/unit/change_log_test.cpp.
#include "changefeed_test_util.h"

namespace cosmos::testing {
namespace {

// ---- latest version ---------------------------------------------------------------------------

TEST_F(ChangeFeedTest, LatestFromTheBeginningShowsEveryItemWithItsLsn) {
  MakeContainer("db", "c");
  auto a = Create("c", "a", "x", ",\"n\":1");
  auto b = Create("c", "b", "y");
  auto r = Latest("c");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.body(), Body("c", {Shown(a), Shown(b)}));
  EXPECT_EQ(Shown(a), a.body().substr(0, a.body().size() - 1) + ",\"_lsn\":1}");
  EXPECT_EQ(r.Header("etag"), "\"2\"");
  EXPECT_EQ(r.Header("x-ms-item-count"), "2");
  EXPECT_EQ(r.Header("x-ms-session-token"), "0:-1#2");
  EXPECT_EQ(r.Header("lsn"), "2");
  EXPECT_EQ(r.Header("x-ms-documentdb-partitionkeyrangeid"), "0");
  EXPECT_EQ(r.Header("content-type"), "application/json");
  EXPECT_EQ(r.Charge(), "4");  // 2 + one point read per (small) document
  // The etag continues, quoted or not: nothing new.
  Expect304(Latest("c", {{"If-None-Match", "\"2\""}}), "\"2\"");
  auto bare = Latest("c", {{"If-None-Match", "2"}});
  Expect304(bare, "\"2\"");
  EXPECT_EQ(bare.Header("x-ms-session-token"), "0:-1#2");
  // The A-IM value is case-insensitive.
  auto lower = Get(Docs("c"), {{"A-IM", "incremental feed"}});
  EXPECT_EQ(lower.status(), 200);
  EXPECT_EQ(lower.body(), r.body());
  // Point reads, read feeds and queries do not show _lsn.
  EXPECT_EQ(Read("c", "a", "x").body(), a.body());
  EXPECT_EQ(Get(Docs("c")).body().find("_lsn"), std::string::npos);
  auto q = Query("c", "SELECT * FROM c");
  ASSERT_EQ(q.status(), 200) << q;
  EXPECT_EQ(q.body().find("_lsn"), std::string::npos);
}

TEST_F(ChangeFeedTest, LatestOnAnEmptyContainerIs304AtLsnZero) {
  MakeContainer("db", "c");
  auto r = Latest("c");
  Expect304(r, "\"0\"");
  EXPECT_EQ(r.Header("x-ms-session-token"), "0:-1#0");
  Expect304(Latest("c", {{"If-None-Match", "*"}}), "\"0\"");
  Expect304(Latest("c", {{"If-None-Match", "\"0\""}}), "\"0\"");
}

TEST_F(ChangeFeedTest, LatestFromNowThenContinue) {
  MakeContainer("db", "c");
  Create("c", "a", "x");
  auto now = Latest("c", {{"If-None-Match", "*"}});
  Expect304(now, "\"1\"");
  auto b = Create("c", "b", "x");
  auto next = Latest("c", {{"If-None-Match", now.Header("etag")}});
  ASSERT_EQ(next.status(), 200) << next;
  EXPECT_EQ(next.body(), Body("c", {Shown(b)}));
  EXPECT_EQ(next.Header("etag"), "\"2\"");
  EXPECT_EQ(next.Charge(), "3");
  Expect304(Latest("c", {{"If-None-Match", next.Header("etag")}}), "\"2\"");
}

TEST_F(ChangeFeedTest, LatestFromAPointInTime) {
  MakeContainer("db", "c");
  const int64_t t = Secs();
  Create("c", "a", "x");  // 1 at t
  wall_.Advance(5000);
  auto b = Create("c", "b", "x");  // 2 at t+5
  wall_.Advance(5000);
  auto a2 = Replace("c", "a", "x", ",\"v\":2");  // 3 at t+10
  EXPECT_EQ(a2.Json()["_ts"].GetInt64(), t + 10);
  // Changes whose (latest) item _ts is at or after the second.
  auto all = Latest("c", {{"If-Modified-Since", HttpDate(t)}});
  ASSERT_EQ(all.status(), 200) << all;
  EXPECT_EQ(all.body(), Body("c", {Shown(b), Shown(a2)}));
  EXPECT_EQ(all.Header("etag"), "\"3\"");
  auto from5 = Latest("c", {{"If-Modified-Since", HttpDate(t + 5)}});
  EXPECT_EQ(from5.body(), Body("c", {Shown(b), Shown(a2)}));
  auto from6 = Latest("c", {{"If-Modified-Since", HttpDate(t + 6)}});
  EXPECT_EQ(from6.body(), Body("c", {Shown(a2)}));
  EXPECT_EQ(from6.Header("etag"), "\"3\"");
  Expect304(Latest("c", {{"If-Modified-Since", HttpDate(t + 11)}}), "\"3\"");
  // A continuation wins over If-Modified-Since.
  auto both = Latest("c", {{"If-None-Match", "\"2\""}, {"If-Modified-Since", HttpDate(t + 11)}});
  EXPECT_EQ(both.status(), 200) << both;
  EXPECT_EQ(both.body(), Body("c", {Shown(a2)}));
  // A date past the system clock's range (2262) is a date like any other: nothing changed after it.
  Expect304(Latest("c", {{"If-Modified-Since", "Thu, 01 Jan 4044 00:00:00 GMT"}}), "\"3\"");
  ExpectBadRequest(Latest("c", {{"If-Modified-Since", "yesterday"}}),
                   "The If-Modified-Since value 'yesterday' is not an RFC 1123 date.");
}

TEST_F(ChangeFeedTest, PagingWithMaxItemCountAndTheEtagAfterFullAndPartialPages) {
  MakeContainer("db", "c");
  std::vector<Reply> w;
  for (const char* id : {"a", "b", "c", "d", "e"}) w.push_back(Create("c", id, "x"));
  auto p1 = Latest("c", {{"x-ms-max-item-count", "2"}});
  ASSERT_EQ(p1.status(), 200) << p1;
  EXPECT_EQ(p1.body(), Body("c", {Shown(w[0]), Shown(w[1])}));
  EXPECT_EQ(p1.Header("etag"), "\"2\"");  // full page: its last entry
  EXPECT_EQ(p1.Header("x-ms-item-count"), "2");
  EXPECT_EQ(p1.Charge(), "4");
  auto p2 = Latest("c", {{"x-ms-max-item-count", "2"}, {"If-None-Match", p1.Header("etag")}});
  EXPECT_EQ(p2.body(), Body("c", {Shown(w[2]), Shown(w[3])}));
  EXPECT_EQ(p2.Header("etag"), "\"4\"");
  auto p3 = Latest("c", {{"x-ms-max-item-count", "2"}, {"If-None-Match", p2.Header("etag")}});
  EXPECT_EQ(p3.body(), Body("c", {Shown(w[4])}));
  EXPECT_EQ(p3.Header("etag"), "\"5\"");
  EXPECT_EQ(p3.Header("x-ms-item-count"), "1");
  // A delete moves the range's LSN but shows nothing: a partial page / 304 ends at the range's LSN.
  Remove("c", "a", "x");  // 6
  Expect304(Latest("c", {{"x-ms-max-item-count", "2"}, {"If-None-Match", p3.Header("etag")}}), "\"6\"");
  auto rest = Latest("c", {{"x-ms-max-item-count", "100"}});
  EXPECT_EQ(rest.body(), Body("c", {Shown(w[1]), Shown(w[2]), Shown(w[3]), Shown(w[4])}));
  EXPECT_EQ(rest.Header("etag"), "\"6\"");
  auto exact = Latest("c", {{"x-ms-max-item-count", "4"}});
  EXPECT_EQ(exact.Header("etag"), "\"5\"");  // a full page, even though nothing follows
  Expect304(Latest("c", {{"If-None-Match", exact.Header("etag")}}), "\"6\"");
  auto unbounded = Latest("c", {{"x-ms-max-item-count", "-1"}});
  EXPECT_EQ(unbounded.body(), rest.body());
  EXPECT_EQ(Latest("c", {{"x-ms-max-item-count", "0"}}).body(), rest.body());  // 0: the default page size
  for (const char* bad : {"abc", "-2", "1.5"}) {
    ExpectBadRequest(Latest("c", {{"x-ms-max-item-count", bad}}),
                     std::string("Invalid value for the x-ms-max-item-count header: '") + bad + "'.");
  }
}

TEST_F(ChangeFeedTest, DefaultPageIsOneHundredItems) {
  MakeContainer("db", "c");
  for (int i = 0; i < 105; ++i) Create("c", "i" + std::to_string(i), "x");
  auto p1 = Latest("c");
  EXPECT_EQ(p1.Header("x-ms-item-count"), "100");
  EXPECT_EQ(p1.Header("etag"), "\"100\"");
  EXPECT_EQ(p1.Charge(), "102");
  auto p2 = Latest("c", {{"If-None-Match", p1.Header("etag")}});
  EXPECT_EQ(p2.Header("x-ms-item-count"), "5");
  EXPECT_EQ(p2.Header("etag"), "\"105\"");
}

TEST_F(ChangeFeedTest, MaxItemCountMinusOneMeansAThousand) {
  MakeContainer("db", "c");
  for (int i = 0; i < 1001; ++i) Create("c", "i" + std::to_string(i), "x");
  auto p1 = Latest("c", {{"x-ms-max-item-count", "-1"}});
  EXPECT_EQ(p1.Header("x-ms-item-count"), "1000");
  EXPECT_EQ(p1.Header("etag"), "\"1000\"");
  auto p2 = Latest("c", {{"x-ms-max-item-count", "-1"}, {"If-None-Match", p1.Header("etag")}});
  EXPECT_EQ(p2.Header("x-ms-item-count"), "1");
  EXPECT_EQ(p2.Header("etag"), "\"1001\"");
}

TEST_F(ChangeFeedTest, UpdatesMoveAnItemToTheEndAndDeletesVanish) {
  MakeContainer("db", "c");
  Create("c", "a", "x", ",\"v\":1");             // 1
  auto b = Create("c", "b", "x");                // 2
  auto c = Create("c", "c", "y");                // 3
  auto a2 = Replace("c", "a", "x", ",\"v\":2");  // 4
  auto r = Latest("c");
  EXPECT_EQ(r.body(), Body("c", {Shown(b), Shown(c), Shown(a2)}));
  EXPECT_NE(Shown(a2).find("\"v\":2"), std::string::npos);
  EXPECT_NE(Shown(a2).find(",\"_lsn\":4}"), std::string::npos);
  EXPECT_EQ(r.Header("etag"), "\"4\"");
  Remove("c", "b", "x");  // 5
  r = Latest("c");
  EXPECT_EQ(r.body(), Body("c", {Shown(c), Shown(a2)}));
  EXPECT_EQ(r.Header("etag"), "\"5\"");
  auto c2 = Upsert("c", "c", "y", ",\"v\":3", 200);                              // 6
  auto a3 = PatchDoc("c", "a", "x", R"([{"op":"set","path":"/v","value":9}])");  // 7
  r = Latest("c");
  EXPECT_EQ(r.body(), Body("c", {Shown(c2), Shown(a3)}));
  EXPECT_EQ(a3.Header("lsn"), "7");
  EXPECT_EQ(r.Header("etag"), "\"7\"");
  // From the continuation of an earlier page: only what changed after it, at its latest version.
  auto after4 = Latest("c", {{"If-None-Match", "\"4\""}});
  EXPECT_EQ(after4.body(), Body("c", {Shown(c2), Shown(a3)}));
  auto after6 = Latest("c", {{"If-None-Match", "\"6\""}});
  EXPECT_EQ(after6.body(), Body("c", {Shown(a3)}));
}

TEST_F(ChangeFeedTest, ByPartitionKey) {
  MakeContainer("db", "c");
  auto a = Create("c", "a", "x");  // 1
  auto b = Create("c", "b", "y");  // 2
  auto c = Create("c", "c", "x");  // 3
  auto x = Latest("c", {{"x-ms-documentdb-partitionkey", Key("x")}});
  EXPECT_EQ(x.body(), Body("c", {Shown(a), Shown(c)}));
  EXPECT_EQ(x.Header("etag"), "\"3\"");
  EXPECT_EQ(x.Charge(), "4");
  auto y = Latest("c", {{"x-ms-documentdb-partitionkey", Key("y")}});
  EXPECT_EQ(y.body(), Body("c", {Shown(b)}));
  EXPECT_EQ(y.Header("etag"), "\"3\"");  // partial page: the range's LSN
  auto y1 = Latest("c", {{"x-ms-documentdb-partitionkey", Key("y")}, {"x-ms-max-item-count", "1"}});
  EXPECT_EQ(y1.body(), Body("c", {Shown(b)}));
  EXPECT_EQ(y1.Header("etag"), "\"2\"");  // full page: its last entry
  auto x1 = Latest(
      "c", {{"x-ms-documentdb-partitionkey", Key("x")}, {"x-ms-max-item-count", "1"}, {"If-None-Match", "\"1\""}});
  EXPECT_EQ(x1.body(), Body("c", {Shown(c)}));
  EXPECT_EQ(x1.Header("etag"), "\"3\"");
  Expect304(Latest("c", {{"x-ms-documentdb-partitionkey", Key("z")}}), "\"3\"");
  Expect304(Latest("c", {{"x-ms-documentdb-partitionkey", Key("y")}, {"If-None-Match", y.Header("etag")}}), "\"3\"");
}

TEST_F(ChangeFeedTest, ByRangeIdAndByRangeIdNarrowedWithEpks) {
  MakePartitioned("p", 2);
  auto ranges = Ranges("p");
  ASSERT_EQ(ranges.size(), 2u);
  std::map<std::string, std::vector<std::string>> shown;       // range -> documents in LSN order
  std::map<std::string, std::string> lsn;                      // range -> its LSN
  std::vector<std::pair<std::string, std::string>> in_range0;  // (epk, shown) of range 0
  for (int i = 0; i < 24; ++i) {
    const std::string key = "e" + std::to_string(i);
    auto w = Create("p", key, key);
    const std::string range = w.Header("x-ms-documentdb-partitionkeyrangeid");
    shown[range].push_back(Shown(w));
    lsn[range] = w.Header("lsn");
    if (range == "0") in_range0.emplace_back(V2Epk(key), Shown(w));
  }
  ASSERT_EQ(shown.size(), 2u);
  for (const char* range : {"0", "1"}) {
    auto r = Latest("p", {{"x-ms-documentdb-partitionkeyrangeid", range}});
    ASSERT_EQ(r.status(), 200) << r;
    EXPECT_EQ(r.body(), Body("p", shown[range])) << range;
    EXPECT_EQ(r.Header("etag"), "\"" + lsn[range] + "\"") << range;
    EXPECT_EQ(r.Header("x-ms-session-token"), std::string(range) + ":-1#" + lsn[range]);
    EXPECT_EQ(r.Header("x-ms-documentdb-partitionkeyrangeid"), range);
    EXPECT_EQ(r.Charge(), std::to_string(2 + shown[range].size()));
  }
  // An EPK window inside range 0: only the items whose EPK falls in it, the etag is range 0's.
  const std::string lo = "05000000000000000000000000000000", hi = "10000000000000000000000000000000";
  ASSERT_LT(hi, ranges[0].second);
  std::vector<std::string> want;
  for (auto& [epk, doc] : in_range0) {
    if (epk >= lo && epk < hi) want.push_back(doc);
  }
  ASSERT_FALSE(want.empty());
  ASSERT_LT(want.size(), shown["0"].size());
  auto narrow =
      Latest("p", {{"x-ms-documentdb-partitionkeyrangeid", "0"}, {"x-ms-start-epk", lo}, {"x-ms-end-epk", hi}});
  ASSERT_EQ(narrow.status(), 200) << narrow;
  EXPECT_EQ(narrow.body(), Body("p", want));
  EXPECT_EQ(narrow.Header("etag"), "\"" + lsn["0"] + "\"");
  // The EPKs of the whole range are no filter.
  auto whole = Latest("p", {{"x-ms-documentdb-partitionkeyrangeid", "1"},
                            {"x-ms-start-epk", ranges[1].first},
                            {"x-ms-end-epk", ranges[1].second}});
  EXPECT_EQ(whole.body(), Body("p", shown["1"]));
  // A range that does not exist: 410/1002.
  auto gone = Latest("p", {{"x-ms-documentdb-partitionkeyrangeid", "2"}});
  EXPECT_EQ(gone.status(), 410) << gone;
  EXPECT_EQ(gone.Substatus(), "1002");
  EXPECT_EQ(gone.Code(), "Gone");
  EXPECT_EQ(ErrorText(gone), "The partition key range '2' is gone (it was split or never existed).");
  // Start and end EPK must come together, the start below the end.
  ExpectBadRequest(Latest("p", {{"x-ms-start-epk", hi}, {"x-ms-end-epk", lo}}),
                   "x-ms-start-epk and x-ms-end-epk must be given together, the start below the end.");
}

TEST_F(ChangeFeedTest, ByHierarchicalPrefix) {
  MakePartitioned("h", 4, R"({"paths":["/tenant","/user"],"kind":"MultiHash","version":2})");
  std::vector<std::string> t1;
  std::map<std::string, std::string> lsn;  // range -> its LSN
  std::string t1_range;
  for (int t = 0; t < 3; ++t) {
    for (int u = 0; u < 4; ++u) {
      const std::string tenant = "t" + std::to_string(t), user = "u" + std::to_string(u);
      auto w = CreateDoc("db", "h",
                         "{\"id\":\"" + tenant + user + "\",\"tenant\":\"" + tenant + "\",\"user\":\"" + user + "\"}",
                         "[\"" + tenant + "\",\"" + user + "\"]");
      ASSERT_EQ(w.status(), 201) << w;
      const std::string range = w.Header("x-ms-documentdb-partitionkeyrangeid");
      lsn[range] = w.Header("lsn");
      if (t == 1) {
        t1.push_back(Shown(w));
        if (t1_range.empty()) t1_range = range;
        ASSERT_EQ(range, t1_range) << "a tenant's items share its prefix's range";
      }
    }
  }
  auto r = Latest("h", {{"x-ms-documentdb-partitionkey", "[\"t1\"]"}});
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.body(), Body("h", t1));
  EXPECT_EQ(r.Header("etag"), "\"" + lsn[t1_range] + "\"");
  EXPECT_EQ(r.Header("x-ms-session-token"), t1_range + ":-1#" + lsn[t1_range]);
  auto one = Latest("h", {{"x-ms-documentdb-partitionkey", "[\"t1\",\"u2\"]"}});
  EXPECT_EQ(one.body(), Body("h", {t1[2]}));
  // A prefix nobody wrote: 304 at the LSN of the range the prefix lives in.
  auto none = Latest("h", {{"x-ms-documentdb-partitionkey", "[\"t9\"]"}});
  const std::string r9 = none.Header("x-ms-documentdb-partitionkeyrangeid");
  Expect304(none, "\"" + (lsn.count(r9) ? lsn[r9] : std::string("0")) + "\"");
}

TEST_F(ChangeFeedTest, WholeContainerOnFourPartitionsUsesACompoundEtag) {
  MakePartitioned("c4", 4);
  std::map<std::string, std::vector<std::string>> shown;
  std::map<std::string, std::vector<std::string>> lsns;
  for (int i = 0; i < 16; ++i) {
    const std::string key = "k" + std::to_string(i);
    auto w = Create("c4", key, key);
    const std::string range = w.Header("x-ms-documentdb-partitionkeyrangeid");
    shown[range].push_back(Shown(w));
    lsns[range].push_back(w.Header("lsn"));
  }
  ASSERT_EQ(shown.size(), 4u) << "16 keys should reach every range";
  auto last = [&](const std::string& range) { return lsns[range].back(); };
  std::vector<std::string> all;
  for (const char* range : {"0", "1", "2", "3"}) all.insert(all.end(), shown[range].begin(), shown[range].end());
  const std::string etag = "\"0:" + last("0") + ",1:" + last("1") + ",2:" + last("2") + ",3:" + last("3") + "\"";
  auto r = Latest("c4");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.body(), Body("c4", all));  // range by range, each in LSN order
  EXPECT_EQ(r.Header("etag"), etag);
  EXPECT_EQ(r.Header("x-ms-item-count"), "16");
  EXPECT_EQ(r.Header("x-ms-session-token"),
            "0:-1#" + last("0") + ",1:-1#" + last("1") + ",2:-1#" + last("2") + ",3:-1#" + last("3"));
  EXPECT_FALSE(r.Has("x-ms-documentdb-partitionkeyrangeid"));
  EXPECT_EQ(r.Charge(), "18");
  Expect304(Latest("c4", {{"If-None-Match", etag}}), etag);
  Expect304(Latest("c4", {{"If-None-Match", "*"}}), etag);

  // Pages of 5: ranges read in order; a range the page finished ends at its LSN, the range the
  // page filled in at its last entry, the ranges not reached stay where they were.
  std::vector<std::string> paged;
  std::string token;
  std::map<std::string, size_t> seen;  // range -> documents read
  for (int page = 0; page < 10; ++page) {
    Headers h = {{"x-ms-max-item-count", "5"}};
    if (!token.empty()) h.emplace_back("If-None-Match", token);
    auto p = Latest("c4", h);
    if (p.status() == 304) {
      EXPECT_EQ(p.Header("etag"), etag);
      break;
    }
    ASSERT_EQ(p.status(), 200) << p;
    size_t room = 5;
    std::string expect_etag = "\"";
    for (const char* range : {"0", "1", "2", "3"}) {
      const size_t left = shown[range].size() - seen[range];
      const size_t take = std::min(room, left);
      for (size_t k = 0; k < take; ++k) paged.push_back(shown[range][seen[range] + k]);
      seen[range] += take;
      room -= take;
      const std::string pos = seen[range] == 0 ? "0" : lsns[range][seen[range] - 1];
      expect_etag += std::string(range == std::string("0") ? "" : ",") + range + ":" + pos;
    }
    expect_etag += "\"";
    EXPECT_EQ(p.Header("etag"), expect_etag) << "page " << page;
    token = p.Header("etag");
  }
  EXPECT_EQ(paged, all);

  // A new write in one range: continuing shows just it, and only that range's position moves.
  auto w = Create("c4", "late", "k3");  // a second item in k3's logical partition
  const std::string range = w.Header("x-ms-documentdb-partitionkeyrangeid");
  auto next = Latest("c4", {{"If-None-Match", etag}});
  ASSERT_EQ(next.status(), 200) << next;
  EXPECT_EQ(next.body(), Body("c4", {Shown(w)}));
  std::string moved = etag;
  const std::string from = range + ":" + last(range), to = range + ":" + w.Header("lsn");
  moved.replace(moved.find(from), from.size(), to);
  EXPECT_EQ(next.Header("etag"), moved);

  // Start and end EPKs spanning ranges 1 and 2: a compound etag of those two.
  auto ranges = Ranges("c4");
  auto mid = Latest("c4", {{"x-ms-start-epk", ranges[1].first}, {"x-ms-end-epk", ranges[2].second}});
  std::vector<std::string> mid_docs = shown["1"];
  mid_docs.insert(mid_docs.end(), shown["2"].begin(), shown["2"].end());
  if (range == "1" || range == "2") {
    // the late write lands at the end of its range
    auto& docs = mid_docs;
    auto at = range == "1" ? docs.begin() + static_cast<std::ptrdiff_t>(shown["1"].size()) : docs.end();
    docs.insert(at, Shown(w));
  }
  EXPECT_EQ(mid.body(), Body("c4", mid_docs));
  EXPECT_EQ(mid.Header("etag"), "\"1:" + (range == "1" ? w.Header("lsn") : last("1")) +
                                    ",2:" + (range == "2" ? w.Header("lsn") : last("2")) + "\"");
}

TEST_F(ChangeFeedTest, InvalidContinuationsAre400) {
  MakeContainer("db", "c");
  Create("c", "a", "x");
  Create("c", "b", "x");
  Create("c", "c", "x");
  for (const std::string bad : {"abc", "\"abc\"", "-1", "\"\"", "1:1", "0:", ":3", "0:1,1:1", "3x", "\"99\"", "4"}) {
    ExpectBadRequest(Latest("c", {{"If-None-Match", bad}}), Continuation(bad));
  }
  // The range's own id with its LSN is understood.
  auto own = Latest("c", {{"If-None-Match", "\"0:2\""}});
  EXPECT_EQ(own.status(), 200) << own;
  EXPECT_EQ(own.Header("x-ms-item-count"), "1");
  Expect304(Latest("c", {{"If-None-Match", "\"3\""}}), "\"3\"");

  MakePartitioned("c4", 4);
  Create("c4", "a", "a");
  const std::string now = Latest("c4", {{"If-None-Match", "*"}}).Header("etag");
  for (const std::string bad : {"\"1\"", "0:0,1:0", "0:0,1:0,2:0,9:0", "0:0,1:0,2:0,3:0,4:0", "0:0,1:0,2:x,3:0",
                                "\"0:0,0:0,1:0,2:0\"", "0:5,1:5,2:5,3:5", "garbage"}) {
    ExpectBadRequest(Latest("c4", {{"If-None-Match", bad}}), Continuation(bad));
  }
  Expect304(Latest("c4", {{"If-None-Match", now}}), now);
  // The etag of a whole-container read does not continue a read of one range.
  ExpectBadRequest(Latest("c4", {{"If-None-Match", now}, {"x-ms-documentdb-partitionkeyrangeid", "0"}}),
                   Continuation(now));
}

TEST_F(ChangeFeedTest, BadAimAndWireFormatAre400) {
  MakeContainer("db", "c");
  ExpectBadRequest(Get(Docs("c"), {{"A-IM", "Bogus"}}),
                   "The A-IM header value 'Bogus' is not supported: use 'Incremental Feed' or 'Full-Fidelity Feed'.");
  ExpectBadRequest(Get(Docs("c"), {{"A-IM", "Full-Fidelity Feed"},
                                   {"If-None-Match", "*"},
                                   {"x-ms-cosmos-changefeed-wire-format-version", "2020-01-01"}}),
                   "The change feed wire format version '2020-01-01' is not supported; use 2021-09-15.");
  // The wire format header means nothing to the latest-version mode.
  Expect304(Get(Docs("c"), {{"A-IM", "Incremental Feed"}, {"x-ms-cosmos-changefeed-wire-format-version", "x"}}),
            "\"0\"");
}

// ---- all versions and deletes -------------------------------------------------------------------

TEST_F(ChangeFeedTest, AllVersionsWithoutAChangeFeedPolicyStartsAtTheFirstRead) {
  // The service keeps the all-versions feed for the account (its continuous-backup period), not per
  // container: Microsoft's newest JavaScript sample reads it from a container with no policy. Here
  // such a container's log starts at its first all-versions read; earlier starts are outside it.
  MakeContainer("db", "plain");
  auto a = Create("plain", "a", "x");  // 1
  ExpectBadRequest(Avad("plain", {{"If-None-Match", "\"0\""}}), kRetentionMessage);
  ExpectBadRequest(Avad("plain", {{"If-Modified-Since", HttpDate(Secs() - 5)}}), kRetentionMessage);
  ExpectBadRequest(Avad("plain"), kBeginningMessage);
  const int64_t t = Secs();
  auto now = Avad("plain", {{"If-None-Match", "*"}});
  Expect304(now, "\"1\"");
  auto b = Create("plain", "b", "x");                // 2
  auto a2 = Replace("plain", "a", "x", ",\"v\":2");  // 3
  auto r = Avad("plain", {{"If-None-Match", now.Header("etag")}});
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.body(), Body("plain", {CreateEntry(b, t), ReplaceEntry(a2, a, t)}));
  // Without the wire-format header too.
  auto bare = Get(Docs("plain"), {{"A-IM", "Full-Fidelity Feed"}, {"If-None-Match", "\"3\""}});
  EXPECT_EQ(bare.status(), 304) << bare;
  // retentionDuration 0 is no policy: the same.
  MakeContainer("db", "zero", "\"changeFeedPolicy\":{\"retentionDuration\":0}");
  Expect304(Avad("zero", {{"If-None-Match", "*"}}), "\"0\"");
}

TEST_F(ChangeFeedTest, ChangeFeedPolicyIsReturnedAndValidated) {
  MakeLogged("cf", 10);
  auto read = Get("/dbs/db/colls/cf");
  ASSERT_EQ(read.status(), 200);
  EXPECT_NE(read.body().find(",\"changeFeedPolicy\":{\"retentionDuration\":10},"), std::string::npos) << read;
  EXPECT_EQ(read.Json()["changeFeedPolicy"]["retentionDuration"].GetInt(), 10);
  int n = 0;
  for (const std::string bad :
       {R"({"retentionDuration":-1})", R"({"retentionDuration":"10"})", R"({"retentionDuration":1.5})",
        R"({"retentionDuration":43201})", R"({})", R"({"retentionDuration":null})"}) {
    auto r = Post("/dbs/db/colls", "{\"id\":\"bad" + std::to_string(n++) +
                                       "\",\"partitionKey\":{\"paths\":[\"/pk\"]},\"changeFeedPolicy\":" + bad + "}");
    SCOPED_TRACE(bad);
    ExpectBadRequest(r, kPolicyInvalidMessage);
    EXPECT_EQ(Get("/dbs/db/colls/bad" + std::to_string(n - 1)).status(), 404) << bad;
  }
  MakeContainer("db", "max", "\"changeFeedPolicy\":{\"retentionDuration\":43200}");
  // A replace validates too.
  auto put = Put("/dbs/db/colls/cf",
                 R"({"id":"cf","partitionKey":{"paths":["/pk"]},"changeFeedPolicy":{"retentionDuration":-5}})");
  ExpectBadRequest(put, kPolicyInvalidMessage);
  EXPECT_EQ(Get("/dbs/db/colls/cf").Json()["changeFeedPolicy"]["retentionDuration"].GetInt(), 10);
}

// A changeFeedPolicy that is not an object is as invalid as a bad retentionDuration.
TEST_F(ChangeFeedTest, NonObjectChangeFeedPolicyIs400) {
  int n = 0;
  for (const std::string bad : {R"("10")", R"([])", R"(10)", R"(true)"}) {
    SCOPED_TRACE(bad);
    const std::string id = "bad" + std::to_string(n++);
    auto r = Post("/dbs/db/colls",
                  "{\"id\":\"" + id + "\",\"partitionKey\":{\"paths\":[\"/pk\"]},\"changeFeedPolicy\":" + bad + "}");
    ExpectBadRequest(r, kPolicyInvalidMessage);
  }
  MakeContainer("db", "c");
  auto put = Put("/dbs/db/colls/c", R"({"id":"c","partitionKey":{"paths":["/pk"]},"changeFeedPolicy":[]})");
  ExpectBadRequest(put, kPolicyInvalidMessage);
}

TEST_F(ChangeFeedTest, AllVersionsCannotStartFromTheBeginning) {
  MakeLogged("cf");
  Create("cf", "a", "x");
  ExpectBadRequest(Avad("cf"), kBeginningMessage);
}

TEST_F(ChangeFeedTest, AllVersionsEntriesForEveryOperation) {
  MakeLogged("cf");
  const int64_t t = Secs();
  auto start = Avad("cf", {{"If-None-Match", "*"}});
  Expect304(start, "\"0\"");
  auto a1 = Create("cf", "a", "x", ",\"v\":1");  // 1 create
  wall_.Advance(1000);
  auto b2 = Upsert("cf", "b", "y", ",\"v\":1", 201);  // 2 upsert that creates
  wall_.Advance(1000);
  auto a3 = Replace("cf", "a", "x", ",\"v\":2");  // 3 replace
  wall_.Advance(1000);
  auto b4 = Upsert("cf", "b", "y", ",\"v\":2", 200);  // 4 upsert that replaces
  wall_.Advance(1000);
  auto a5 = PatchDoc("cf", "a", "x", R"([{"op":"incr","path":"/v","value":5}])");  // 5 patch
  wall_.Advance(1000);
  Remove("cf", "b", "y");  // 6 delete
  const std::vector<std::string> entries = {
      CreateEntry(a1, t),          CreateEntry(b2, t + 1),
      ReplaceEntry(a3, a1, t + 2), ReplaceEntry(b4, b2, t + 3),
      ReplaceEntry(a5, a3, t + 4), DeleteEntry("6", b4, t + 5, false, "b", R"({"pk":"y"})"),
  };
  for (auto& e : entries) ASSERT_LT(e.size(), 1024u);
  auto r = Avad("cf", {{"If-None-Match", start.Header("etag")}});
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.body(), Body("cf", entries));
  EXPECT_EQ(r.Header("etag"), "\"6\"");
  EXPECT_EQ(r.Header("x-ms-item-count"), "6");
  EXPECT_EQ(r.Header("x-ms-session-token"), "0:-1#6");
  EXPECT_EQ(r.Charge(), "8");
  Expect304(Avad("cf", {{"If-None-Match", r.Header("etag")}}), "\"6\"");
  // Paging.
  auto p1 = Avad("cf", {{"If-None-Match", "\"0\""}, {"x-ms-max-item-count", "4"}});
  EXPECT_EQ(p1.body(), Body("cf", {entries[0], entries[1], entries[2], entries[3]}));
  EXPECT_EQ(p1.Header("etag"), "\"4\"");
  auto p2 = Avad("cf", {{"If-None-Match", p1.Header("etag")}, {"x-ms-max-item-count", "4"}});
  EXPECT_EQ(p2.body(), Body("cf", {entries[4], entries[5]}));
  EXPECT_EQ(p2.Header("etag"), "\"6\"");
  // From a point in time: changes committed at or after that second.
  auto from = Avad("cf", {{"If-Modified-Since", HttpDate(t + 2)}});
  EXPECT_EQ(from.body(), Body("cf", {entries[2], entries[3], entries[4], entries[5]}));
  EXPECT_EQ(from.Header("etag"), "\"6\"");
  Expect304(Avad("cf", {{"If-Modified-Since", HttpDate(t + 6)}}), "\"6\"");
  // One logical partition: deletes are matched on the deleted version.
  auto y = Avad("cf", {{"If-None-Match", "\"0\""}, {"x-ms-documentdb-partitionkey", Key("y")}});
  EXPECT_EQ(y.body(), Body("cf", {entries[1], entries[3], entries[5]}));
  EXPECT_EQ(y.Header("etag"), "\"6\"");
  // The same container in latest-version mode: a at its latest version; b deleted.
  auto latest = Latest("cf");
  EXPECT_EQ(latest.body(), Body("cf", {Shown(a5)}));
  EXPECT_EQ(latest.Header("etag"), "\"6\"");
  // A continuation ahead of the range.
  ExpectBadRequest(Avad("cf", {{"If-None-Match", "\"7\""}}), Continuation("\"7\""));
}

TEST_F(ChangeFeedTest, AllVersionsDeleteEntryCarriesEveryLevelOfAHierarchicalKey) {
  MakePartitioned("h", 1, R"({"paths":["/tenant","/user"],"kind":"MultiHash","version":2})",
                  R"("changeFeedPolicy":{"retentionDuration":5})");
  const int64_t t = Secs();
  auto w = CreateDoc("db", "h", R"({"id":"d","tenant":"t","user":7})", R"(["t",7])");
  ASSERT_EQ(w.status(), 201) << w;
  auto del = Delete(Docs("h") + "/d", {{"x-ms-documentdb-partitionkey", R"(["t",7])"}});
  ASSERT_EQ(del.status(), 204) << del;
  auto r = Avad("h", {{"If-None-Match", "\"0\""}});
  EXPECT_EQ(r.body(), Body("h", {CreateEntry(w, t), DeleteEntry("2", w, t, false, "d", R"({"tenant":"t","user":7})")}));
}

TEST_F(ChangeFeedTest, AllVersionsShowTtlExpiryAsADelete) {
  MakeLogged("cf", 10, "\"defaultTtl\":10");
  const int64_t t = Secs();
  auto a = Create("cf", "a", "x");                // 1, expires t+10
  auto b = Create("cf", "b", "x", ",\"ttl\":3");  // 2, expires t+3
  auto start = Avad("cf", {{"If-None-Match", "*"}});
  Expect304(start, "\"2\"");
  wall_.Advance(3000);
  // The next change-feed read sweeps b: a delete with timeToLiveExpired, at the time of the sweep.
  auto r = Avad("cf", {{"If-None-Match", start.Header("etag")}});
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.body(), Body("cf", {DeleteEntry("3", b, t + 3, true, "b", R"({"pk":"x"})")}));
  EXPECT_EQ(r.Header("etag"), "\"3\"");
  EXPECT_EQ(Read("cf", "b", "x").status(), 404);
  // a expires at t+10; the next write sweeps it first (LSN 4), then takes LSN 5.
  wall_.Advance(9000);  // t+12
  auto c = Create("cf", "c", "x");
  EXPECT_EQ(c.Header("lsn"), "5");
  auto r2 = Avad("cf", {{"If-None-Match", r.Header("etag")}});
  EXPECT_EQ(r2.body(), Body("cf", {DeleteEntry("4", a, t + 12, true, "a", R"({"pk":"x"})"), CreateEntry(c, t + 12)}));
  EXPECT_EQ(r2.Header("etag"), "\"5\"");
  auto latest = Latest("cf");
  EXPECT_EQ(latest.body(), Body("cf", {Shown(c)}));
  EXPECT_EQ(latest.Header("etag"), "\"5\"");
}

TEST_F(ChangeFeedTest, AllVersionsRetentionWindow) {
  MakeLogged("cf", 1);
  const int64_t t = Secs();
  auto a = Create("cf", "a", "x");  // 1 at t
  wall_.Advance(60000);
  auto b = Create("cf", "b", "x");  // 2 at t+60: a is exactly a minute old, still kept
  auto both = Avad("cf", {{"If-None-Match", "\"0\""}});
  EXPECT_EQ(both.body(), Body("cf", {CreateEntry(a, t), CreateEntry(b, t + 60)}));
  auto from_t = Avad("cf", {{"If-Modified-Since", HttpDate(t)}});
  EXPECT_EQ(from_t.body(), both.body());
  wall_.Advance(1000);
  auto c = Create("cf", "c", "x");  // 3 at t+61: a falls out of the window
  ExpectBadRequest(Avad("cf", {{"If-None-Match", "\"0\""}}), kRetentionMessage);
  ExpectBadRequest(Avad("cf", {{"If-Modified-Since", HttpDate(t)}}), kRetentionMessage);
  auto rest = Avad("cf", {{"If-None-Match", "\"1\""}});
  EXPECT_EQ(rest.body(), Body("cf", {CreateEntry(b, t + 60), CreateEntry(c, t + 61)}));
  auto since = Avad("cf", {{"If-Modified-Since", HttpDate(t + 1)}});
  EXPECT_EQ(since.body(), rest.body());
  Expect304(Avad("cf", {{"If-None-Match", "*"}}), "\"3\"");
  // Latest-version mode keeps no window.
  EXPECT_EQ(Latest("cf").Header("x-ms-item-count"), "3");
  // Much later, a change-feed read prunes too: only from now works.
  wall_.Advance(3600 * 1000);
  ExpectBadRequest(Avad("cf", {{"If-None-Match", "\"2\""}}), kRetentionMessage);
  Expect304(Avad("cf", {{"If-None-Match", "\"3\""}}), "\"3\"");
  Expect304(Avad("cf", {{"If-None-Match", "*"}}), "\"3\"");
}

TEST_F(ChangeFeedTest, PolicySwitchedOnByReplaceStartsTheLogThen) {
  MakeContainer("db", "late");
  auto a = Create("late", "a", "x");  // 1
  auto put = Put("/dbs/db/colls/late",
                 R"({"id":"late","partitionKey":{"paths":["/pk"]},"changeFeedPolicy":{"retentionDuration":10}})");
  ASSERT_EQ(put.status(), 200) << put;
  EXPECT_NE(put.body().find("\"changeFeedPolicy\":{\"retentionDuration\":10}"), std::string::npos);
  EXPECT_NE(Get("/dbs/db/colls/late").body().find("\"changeFeedPolicy\":{\"retentionDuration\":10}"),
            std::string::npos);
  const int64_t t = Secs();
  auto now = Avad("late", {{"If-None-Match", "*"}});
  Expect304(now, "\"1\"");
  auto b = Create("late", "b", "x");                // 2
  auto a2 = Replace("late", "a", "x", ",\"v\":2");  // 3
  auto r = Avad("late", {{"If-None-Match", now.Header("etag")}});
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.body(), Body("late", {CreateEntry(b, t), ReplaceEntry(a2, a, t)}));
  // Nothing before the switch is in the log.
  ExpectBadRequest(Avad("late", {{"If-None-Match", "\"0\""}}), kRetentionMessage);
  // Switched off again: the account's retention keeps the log.
  auto off = Put("/dbs/db/colls/late", R"({"id":"late","partitionKey":{"paths":["/pk"]}})");
  ASSERT_EQ(off.status(), 200) << off;
  EXPECT_EQ(off.body().find("changeFeedPolicy"), std::string::npos);
  Expect304(Avad("late", {{"If-None-Match", "\"3\""}}), "\"3\"");
  auto c = Create("late", "c", "x");  // 4
  auto after = Avad("late", {{"If-None-Match", "\"3\""}});
  ASSERT_EQ(after.status(), 200) << after;
  EXPECT_EQ(after.body(), Body("late", {CreateEntry(c, t)}));
}

}  // namespace
}  // namespace cosmos::testing
