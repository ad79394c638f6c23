// The change feed (GET .../docs with A-IM), time to live and the emulator clock, through the
// in-process pipeline: latest-version and all-versions-and-deletes modes, starts, continuations,
// paging, routing, errors, charges and the RU report. The store-level tests are
// tests/unit/change_log_test.cpp.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "http_test_util.h"
#include "store/epk.h"

namespace cosmos::testing {
namespace {

constexpr const char* kWire = "2021-09-15";
constexpr const char* kBeginningMessage =
    "The change feed in all versions and deletes mode cannot start from the beginning: start from now, a point in "
    "time or a continuation. You must read the change feed from within the retention period.";
constexpr const char* kNoPolicyMessage =
    "The change feed in all versions and deletes mode needs a change feed policy on the container: set "
    "changeFeedPolicy.retentionDuration (minutes) when creating or replacing it. You must read the change feed from "
    "within the retention period.";
constexpr const char* kRetentionMessage =
    "The requested start of the change feed in all versions and deletes mode lies outside the container's retention "
    "window. You must read the change feed from within the retention period.";
constexpr const char* kPolicyInvalidMessage =
    "The changeFeedPolicy is invalid: retentionDuration must be a whole number of minutes from 0 to 43200.";
constexpr const char* kClockUsage =
    "The body must be {\"advanceMs\": n} or {\"advanceSeconds\": n}, n a whole number from 0 to ten years.";

std::string Continuation(const std::string& token) {
  return "The change feed continuation (If-None-Match) '" + token + "' is invalid.";
}

class ChangeFeedTest : public EmulatorTest {
 protected:
  void SetUp() override { MakeDatabase("db"); }

  static std::string Docs(const std::string& coll) { return "/dbs/db/colls/" + coll + "/docs"; }
  static std::string Key(const std::string& pk) { return "[\"" + pk + "\"]"; }
  static std::string Doc(const std::string& id, const std::string& pk, const std::string& extra = "") {
    return "{\"id\":\"" + id + "\",\"pk\":\"" + pk + "\"" + extra + "}";
  }

  // A container with `n` physical partitions (V2 hash unless `pk_json` says otherwise).
  void MakePartitioned(const std::string& coll, int n, const std::string& pk_json = R"({"paths":["/pk"],"version":2})",
                       const std::string& extra = "") {
    std::string body =
        "{\"id\":\"" + coll + "\",\"partitionKey\":" + pk_json + (extra.empty() ? "" : "," + extra) + "}";
    auto r = Post("/dbs/db/colls", body, {{"x-cosmos-emulator-partition-count", std::to_string(n)}});
    ASSERT_EQ(r.status(), 201) << r;
  }
  // A single-partition container with the all-versions log on.
  void MakeLogged(const std::string& coll, int minutes = 10, const std::string& extra = "") {
    MakeContainer("db", coll,
                  "\"changeFeedPolicy\":{\"retentionDuration\":" + std::to_string(minutes) + "}" +
                      (extra.empty() ? "" : "," + extra));
  }

  Reply Latest(const std::string& coll, Headers h = {}) {
    h.emplace_back("A-IM", "Incremental Feed");
    return Get(Docs(coll), h);
  }
  Reply Avad(const std::string& coll, Headers h = {}) {
    h.emplace_back("A-IM", "Full-Fidelity Feed");
    h.emplace_back("x-ms-cosmos-changefeed-wire-format-version", kWire);
    return Get(Docs(coll), h);
  }

  // Writes that must succeed.
  Reply Create(const std::string& coll, const std::string& id, const std::string& pk, const std::string& extra = "") {
    auto r = CreateDoc("db", coll, Doc(id, pk, extra), Key(pk));
    EXPECT_EQ(r.status(), 201) << r;
    return r;
  }
  Reply Upsert(const std::string& coll, const std::string& id, const std::string& pk, const std::string& extra,
               int status) {
    auto r = CreateDoc("db", coll, Doc(id, pk, extra), Key(pk), {{"x-ms-documentdb-is-upsert", "true"}});
    EXPECT_EQ(r.status(), status) << r;
    return r;
  }
  Reply Replace(const std::string& coll, const std::string& id, const std::string& pk, const std::string& extra = "") {
    auto r = Put(Docs(coll) + "/" + id, Doc(id, pk, extra), {{"x-ms-documentdb-partitionkey", Key(pk)}});
    EXPECT_EQ(r.status(), 200) << r;
    return r;
  }
  Reply PatchDoc(const std::string& coll, const std::string& id, const std::string& pk, const std::string& ops) {
    auto r = Patch(Docs(coll) + "/" + id, ops, {{"x-ms-documentdb-partitionkey", Key(pk)}});
    EXPECT_EQ(r.status(), 200) << r;
    return r;
  }
  Reply Remove(const std::string& coll, const std::string& id, const std::string& pk) {
    auto r = Delete(Docs(coll) + "/" + id, {{"x-ms-documentdb-partitionkey", Key(pk)}});
    EXPECT_EQ(r.status(), 204) << r;
    return r;
  }
  Reply Read(const std::string& coll, const std::string& id, const std::string& pk) {
    return Get(Docs(coll) + "/" + id, {{"x-ms-documentdb-partitionkey", Key(pk)}});
  }
  Reply Query(const std::string& coll, const std::string& text) {
    return Post(Docs(coll), "{\"query\":\"" + text + "\"}",
                {{"x-ms-documentdb-isquery", "true"},
                 {"content-type", "application/query+json"},
                 {"x-ms-documentdb-query-enablecrosspartition", "true"}});
  }

  std::string Rid(const std::string& coll) { return Get("/dbs/db/colls/" + coll).Str("_rid"); }

  // The version a write made, as the change feed shows it: the stored item with "_lsn" last.
  static std::string Shown(const Reply& write) {
    std::string s = write.body();
    s.pop_back();
    return s + ",\"_lsn\":" + write.Header("lsn") + "}";
  }
  // The 200 body of a change feed page.
  std::string Body(const std::string& coll, const std::vector<std::string>& docs) {
    std::string out = "{\"_rid\":\"" + Rid(coll) + "\",\"Documents\":[";
    for (size_t i = 0; i < docs.size(); ++i) out += (i ? "," : "") + docs[i];
    return out + "],\"_count\":" + std::to_string(docs.size()) + "}";
  }

  // All-versions entries in the 2021-09-15 wire format.
  static std::string CreateEntry(const Reply& w, int64_t crts) {
    return "{\"current\":" + Shown(w) + ",\"metadata\":{\"lsn\":" + w.Header("lsn") +
           ",\"crts\":" + std::to_string(crts) + ",\"operationType\":\"create\"}}";
  }
  static std::string ReplaceEntry(const Reply& w, const Reply& previous, int64_t crts) {
    return "{\"current\":" + Shown(w) + ",\"metadata\":{\"lsn\":" + w.Header("lsn") +
           ",\"crts\":" + std::to_string(crts) +
           ",\"operationType\":\"replace\",\"previousImageLSN\":" + previous.Header("lsn") + "}}";
  }
  // A delete carries an empty current image and metadata naming the item; `previous` is the write
  // that made the deleted version.
  static std::string DeleteEntry(const std::string& lsn, const Reply& previous, int64_t crts, bool ttl,
                                 const std::string& id, const std::string& pk_object) {
    return "{\"current\":{},\"metadata\":{\"lsn\":" + lsn +
           ",\"crts\":" + std::to_string(crts) +
           ",\"operationType\":\"delete\",\"previousImageLSN\":" + previous.Header("lsn") +
           ",\"timeToLiveExpired\":" + (ttl ? "true" : "false") + ",\"id\":\"" + id +
           "\",\"partitionKey\":" + pk_object + "}}";
  }

  // The text inside the service-style message: Message: {"Errors":["<text>"]}\r\nActivityId: ...
  static std::string ErrorText(const Reply& r) {
    std::string m = r.Message();
    if (auto cut = m.find("\r\nActivityId: "); cut != std::string::npos) m.resize(cut);
    const std::string prefix = "Message: ";
    if (m.rfind(prefix, 0) != 0) return "<not wrapped: " + m + ">";
    json::Document d;
    if (json::Parse(m.substr(prefix.size()), d) != json::ParseStatus::kOk || !d.IsObject() || !d.HasMember("Errors") ||
        !d["Errors"].IsArray() || d["Errors"].Empty() || !d["Errors"][0].IsString())
      return "<unreadable: " + m + ">";
    return d["Errors"][0].GetString();
  }
  static void ExpectBadRequest(const Reply& r, const std::string& text) {
    EXPECT_EQ(r.status(), 400) << r;
    EXPECT_EQ(r.Code(), "BadRequest") << r;
    EXPECT_FALSE(r.Has("x-ms-substatus")) << r.Substatus();
    EXPECT_EQ(ErrorText(r), text) << r;
  }
  // Nothing new: 304, empty body, the etag to continue from, no items, 2 RU.
  static void Expect304(const Reply& r, const std::string& etag) {
    EXPECT_EQ(r.status(), 304) << r;
    EXPECT_EQ(r.body(), "");
    EXPECT_EQ(r.Header("etag"), etag);
    EXPECT_EQ(r.Header("x-ms-item-count"), "0");
    EXPECT_EQ(r.Charge(), "2");
  }

  int64_t Secs() const { return wall_.UnixSeconds(); }
  static std::string HttpDate(int64_t secs) {
    return util::FormatRfc1123(std::chrono::system_clock::time_point(std::chrono::seconds(secs)));
  }
  static std::string V2Epk(const std::string& key) {
    return store::EffectivePartitionKeyV2({store::PkComponent::String(key)});
  }
  std::vector<std::pair<std::string, std::string>> Ranges(const std::string& coll) {
    auto d = Get("/dbs/db/colls/" + coll + "/pkranges").Json();
    std::vector<std::pair<std::string, std::string>> out;
    for (auto& e : d["PartitionKeyRanges"].GetArray())
      out.emplace_back(e["minInclusive"].GetString(), e["maxExclusive"].GetString());
    return out;
  }
};

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

TEST_F(ChangeFeedTest, AllVersionsNeedsAChangeFeedPolicy) {
  MakeContainer("db", "plain");
  Create("plain", "a", "x");
  ExpectBadRequest(Avad("plain", {{"If-None-Match", "*"}}), kNoPolicyMessage);
  ExpectBadRequest(Avad("plain", {{"If-None-Match", "\"1\""}}), kNoPolicyMessage);
  ExpectBadRequest(Avad("plain", {{"If-Modified-Since", HttpDate(Secs())}}), kNoPolicyMessage);
  ExpectBadRequest(Avad("plain"), kBeginningMessage);
  // Without the wire-format header too.
  ExpectBadRequest(Get(Docs("plain"), {{"A-IM", "Full-Fidelity Feed"}, {"If-None-Match", "*"}}), kNoPolicyMessage);
  // retentionDuration 0 keeps no log.
  MakeContainer("db", "zero", "\"changeFeedPolicy\":{\"retentionDuration\":0}");
  ExpectBadRequest(Avad("zero", {{"If-None-Match", "*"}}), kNoPolicyMessage);
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
  ExpectBadRequest(Avad("late", {{"If-None-Match", "*"}}), kNoPolicyMessage);
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
  // Switched off again: the log is gone.
  auto off = Put("/dbs/db/colls/late", R"({"id":"late","partitionKey":{"paths":["/pk"]}})");
  ASSERT_EQ(off.status(), 200) << off;
  EXPECT_EQ(off.body().find("changeFeedPolicy"), std::string::npos);
  ExpectBadRequest(Avad("late", {{"If-None-Match", "\"3\""}}), kNoPolicyMessage);
}

// ---- time to live -------------------------------------------------------------------------------

TEST_F(ChangeFeedTest, ExpiredItemsVanishAtOnceAndTheirDeletesTakeLsns) {
  MakeContainer("db", "c", "\"defaultTtl\":10");
  const int64_t t = Secs();
  auto a = Create("c", "a", "x");                 // 1, expires t+10
  auto b = Create("c", "b", "x", ",\"ttl\":-1");  // 2, never
  auto c = Create("c", "c", "x", ",\"ttl\":5");   // 3, expires t+5
  EXPECT_EQ(c.Json()["_ts"].GetInt64(), t);
  wall_.Advance(4000);  // t+4 (the clock started somewhere inside second t)
  EXPECT_EQ(Read("c", "c", "x").status(), 200);
  wall_.Advance(1000);  // t+5
  EXPECT_EQ(Read("c", "c", "x").status(), 404);
  auto q = Query("c", "SELECT VALUE c.id FROM c");
  EXPECT_EQ(q.Json()["Documents"].Size(), 2u) << q;
  EXPECT_EQ(Get(Docs("c")).Header("x-ms-item-count"), "2");
  auto r = Latest("c");
  EXPECT_EQ(r.body(), Body("c", {Shown(a), Shown(b)}));
  EXPECT_EQ(r.Header("etag"), "\"3\"");  // nothing swept yet
  wall_.Advance(5000);                   // t+10
  EXPECT_EQ(Read("c", "a", "x").status(), 404);
  r = Latest("c");
  EXPECT_EQ(r.body(), Body("c", {Shown(b)}));
  EXPECT_EQ(r.Header("etag"), "\"3\"");
  // The next write sweeps c (expired first) and a, then takes its own LSN.
  auto d = Create("c", "d", "x");
  EXPECT_EQ(d.Header("lsn"), "6");
  EXPECT_EQ(d.Header("x-ms-session-token"), "0:-1#6");
  EXPECT_EQ(d.Json()["_ts"].GetInt64(), t + 10);
  r = Latest("c");
  EXPECT_EQ(r.body(), Body("c", {Shown(b), Shown(d)}));
  EXPECT_EQ(r.Header("etag"), "\"6\"");
  Expect304(Latest("c", {{"If-None-Match", "\"3\""}, {"x-ms-documentdb-partitionkey", Key("y")}}), "\"6\"");
  // An expired item's id is free again.
  auto a2 = Create("c", "a", "x");
  EXPECT_EQ(a2.Header("lsn"), "7");
}

TEST_F(ChangeFeedTest, ItemTtlNeedsContainerTtl) {
  MakeContainer("db", "off");
  auto a = Create("off", "a", "x", ",\"ttl\":1");
  MakeContainer("db", "on", "\"defaultTtl\":-1");
  Create("on", "b", "x", ",\"ttl\":2");
  auto n = Create("on", "n", "x");
  wall_.Advance(100000);
  EXPECT_EQ(Read("off", "a", "x").status(), 200);
  EXPECT_EQ(Latest("off").body(), Body("off", {Shown(a)}));
  EXPECT_EQ(Read("on", "b", "x").status(), 404);
  EXPECT_EQ(Read("on", "n", "x").status(), 200);
  EXPECT_EQ(Latest("on").body(), Body("on", {Shown(n)}));
}

TEST_F(ChangeFeedTest, ContainerReplaceChangingDefaultTtlAppliesToExistingItems) {
  MakeContainer("db", "c");
  Create("c", "a", "x");
  wall_.Advance(30000);
  EXPECT_EQ(Latest("c").Header("x-ms-item-count"), "1");
  auto put = Put("/dbs/db/colls/c", R"({"id":"c","partitionKey":{"paths":["/pk"]},"defaultTtl":20})");
  ASSERT_EQ(put.status(), 200) << put;
  EXPECT_EQ(Read("c", "a", "x").status(), 404);
  Expect304(Latest("c"), "\"1\"");
  auto b = Create("c", "b", "x");
  EXPECT_EQ(b.Header("lsn"), "3");  // a's expiry took 2
}

TEST_F(ChangeFeedTest, EmulatorClockEndpoint) {
  const int64_t base = wall_.UnixMs();
  http::Request get{bh::verb::get, "/_emulator/clock", 11};
  get.prepare_payload();
  auto r = Send(get);  // unauthenticated
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.body(), "{\"unixMs\":" + std::to_string(base) + ",\"offsetMs\":0}");
  EXPECT_EQ(r.Header("content-type"), "application/json");
  auto post = [&](const std::string& body) { return Call(bh::verb::post, "/_emulator/clock", body); };
  r = post(R"({"advanceSeconds":5})");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.body(), "{\"unixMs\":" + std::to_string(base + 5000) + ",\"offsetMs\":5000}");
  EXPECT_EQ(wall_.UnixMs(), base + 5000);
  r = post(R"({"advanceMs":250})");
  EXPECT_EQ(r.body(), "{\"unixMs\":" + std::to_string(base + 5250) + ",\"offsetMs\":5250}");
  r = post(R"({"advanceMs":0})");
  EXPECT_EQ(r.status(), 200);
  EXPECT_EQ(wall_.offset_ms(), 5250);
  for (const std::string bad :
       {"", "x", "[]", "{}", R"({"advanceSeconds":-1})", R"({"advanceSeconds":1.5})", R"({"advanceMs":"5"})",
        R"({"advanceHours":1})", R"({"advanceMs":1,"advanceSeconds":1})", R"({"advanceSeconds":316224001})",
        R"({"advanceMs":316224000001})"}) {
    auto e = post(bad);
    ExpectBadRequest(e, kClockUsage);
    EXPECT_EQ(e.Charge(), "0") << bad;
  }
  EXPECT_EQ(wall_.offset_ms(), 5250);
  // Ten years exactly is allowed.
  r = post(R"({"advanceSeconds":316224000})");
  EXPECT_EQ(r.status(), 200) << r;
  EXPECT_EQ(wall_.offset_ms(), 5250 + int64_t{316224000} * 1000);
  // Other verbs are not the clock.
  http::Request del{bh::verb::delete_, "/_emulator/clock", 11};
  del.prepare_payload();
  EXPECT_NE(Send(del).status(), 200);
}

// Moving the clock expires every token and every item with a time to live: it needs a master key,
// signed as any path is (resource type "_emulator", link "_emulator/clock").
TEST_F(ChangeFeedTest, MovingTheClockNeedsAMasterKey) {
  const std::string body = R"({"advanceSeconds":5})";
  auto unsigned_post = Call(bh::verb::post, "/_emulator/clock", body, {}, NoSignature());
  EXPECT_EQ(unsigned_post.status(), 401) << unsigned_post;
  EXPECT_EQ(unsigned_post.Code(), "Unauthorized");
  EXPECT_EQ(unsigned_post.Message().substr(0, unsigned_post.Message().find("\r\n")),
            "Required Header authorization is missing. Ensure a valid Authorization token is passed.");
  EXPECT_EQ(wall_.offset_ms(), 0);
  auto wrong = Call(bh::verb::post, "/_emulator/clock", body, {}, SignedWith(std::string("another key")));
  EXPECT_EQ(wrong.status(), 401) << wrong;
  EXPECT_NE(wrong.Message().find("Server used the following payload to sign: 'post\\n_emulator\\n_emulator/clock\\n"),
            std::string::npos)
      << wrong;
  // Signed for another path (a read of the account) does not serve.
  const std::string date = Now();
  http::Request other{bh::verb::post, "/_emulator/clock", 11};
  other.set("x-ms-date", date);
  other.set(bh::field::authorization,
            util::PercentEncode("type=master&ver=1.0&sig=" + http::Sign(config_.master_key, "POST", {"", ""}, date)));
  other.body() = body;
  other.prepare_payload();
  EXPECT_EQ(Send(other).status(), 401);
  // A read-only key reads the clock but does not move it.
  config_.readonly_key = "a read-only key";
  auto ro = Call(bh::verb::post, "/_emulator/clock", body, {}, SignedWith(config_.readonly_key));
  EXPECT_EQ(ro.status(), 401) << ro;
  EXPECT_EQ(wall_.offset_ms(), 0);
  // The secondary master key moves it.
  config_.secondary_key = "a secondary key";
  auto secondary = Call(bh::verb::post, "/_emulator/clock", body, {}, SignedWith(config_.secondary_key));
  EXPECT_EQ(secondary.status(), 200) << secondary;
  EXPECT_EQ(wall_.offset_ms(), 5000);
  // A resource token, even one granting All, does not move it.
  http::ResourceToken t;
  t.mode = "All";
  t.start = wall_.UnixSeconds();
  t.expiry = t.start + 3600;
  http::Request token{bh::verb::post, "/_emulator/clock", 11};
  token.set(bh::field::authorization, util::PercentEncode(http::IssueResourceToken(config_.master_key, t)));
  token.body() = body;
  token.prepare_payload();
  auto by_token = Send(token);
  EXPECT_EQ(by_token.status(), 403) << by_token;
  EXPECT_EQ(by_token.Code(), "Forbidden");
  EXPECT_EQ(wall_.offset_ms(), 5000);
  // Reading it stays open.
  EXPECT_EQ(Call(bh::verb::get, "/_emulator/clock", "", {}, NoSignature()).status(), 200);
}

// Every advance is bounded (ten years), and so is their sum (a hundred years): before, about
// 3,000 of the largest advances overflowed the clock's offset.
TEST_F(ChangeFeedTest, TheClocksTotalOffsetIsBoundedToAHundredYears) {
  constexpr int64_t kTenYearsMs = int64_t{316224000} * 1000;
  auto post = [&](const std::string& body) { return Call(bh::verb::post, "/_emulator/clock", body); };
  for (int i = 0; i < 10; ++i) ASSERT_EQ(post(R"({"advanceSeconds":316224000})").status(), 200) << i;
  EXPECT_EQ(wall_.offset_ms(), 10 * kTenYearsMs);
  for (const std::string over : {R"({"advanceMs":1})", R"({"advanceSeconds":316224000})"}) {
    auto r = post(over);
    const std::string ms = over == R"({"advanceMs":1})" ? "1" : std::to_string(kTenYearsMs);
    ExpectBadRequest(r, "The clock cannot move more than a hundred years (3162240000000 ms) from its start: it has "
                        "moved 3162240000000 ms, and " + ms + " ms more would pass that. Restart the emulator to "
                        "start the clock again.");
  }
  EXPECT_EQ(wall_.offset_ms(), 10 * kTenYearsMs);
  EXPECT_EQ(post(R"({"advanceMs":0})").status(), 200);
  // Many more calls change nothing and never overflow.
  for (int i = 0; i < 4000; ++i) ASSERT_EQ(post(R"({"advanceSeconds":316224000})").status(), 400) << i;
  EXPECT_EQ(wall_.offset_ms(), 10 * kTenYearsMs);
  auto r = Call(bh::verb::get, "/_emulator/clock", "", {}, NoSignature());
  EXPECT_EQ(r.Json()["offsetMs"].GetInt64(), 10 * kTenYearsMs);
  EXPECT_GT(r.Json()["unixMs"].GetInt64(), 10 * kTenYearsMs);
}

TEST_F(ChangeFeedTest, ItemTimesAndTtlFollowTheClockEndpoint) {
  MakeContainer("db", "c", "\"defaultTtl\":60");
  const int64_t t = Secs();
  auto a = Create("c", "a", "x");
  auto advance = Post("/_emulator/clock", R"({"advanceSeconds":59})");
  ASSERT_EQ(advance.status(), 200) << advance;
  auto b = Create("c", "b", "x");
  EXPECT_EQ(b.Json()["_ts"].GetInt64(), t + 59);
  EXPECT_EQ(Read("c", "a", "x").status(), 200);
  ASSERT_EQ(Post("/_emulator/clock", R"({"advanceMs":1000})").status(), 200);
  EXPECT_EQ(Read("c", "a", "x").status(), 404);
  auto r = Latest("c", {{"If-Modified-Since", HttpDate(t)}});
  EXPECT_EQ(r.body(), Body("c", {Shown(b)}));
}

// ---- charges and the RU report ------------------------------------------------------------------

TEST_F(ChangeFeedTest, ChargeIsTwoPlusAPointReadPerReturnedDocument) {
  MakeContainer("db", "c");
  // Items whose change-feed text is exactly 3072 bytes (3 KB: 1 + 0.1 * 2 = 1.2 RU) and 1100 bytes
  // (1.0742 KB: 1.0074, rounded per document to 1.01 RU).
  auto sized = [&](const std::string& id, size_t target) {
    auto first = Create("c", id, "x", ",\"s\":\"\"");
    const size_t base = Shown(first).size();  // with a one-digit _lsn
    auto w = Replace("c", id, "x", ",\"s\":\"" + std::string(target - base, 'p') + "\"");
    EXPECT_EQ(Shown(w).size(), target);
    return w;
  };
  auto big = sized("big", 3072);  // 1, 2
  auto r = Latest("c");
  EXPECT_EQ(r.body(), Body("c", {Shown(big)}));
  EXPECT_EQ(r.Charge(), "3.2");
  auto m1 = sized("m1", 1100);  // 3, 4
  auto m2 = sized("m2", 1100);  // 5, 6
  r = Latest("c", {{"If-None-Match", "\"2\""}});
  EXPECT_EQ(r.body(), Body("c", {Shown(m1), Shown(m2)}));
  EXPECT_EQ(r.Charge(), "4.02");  // 2 + 1.01 + 1.01, not 2 + 2.0148
  Create("c", "s", "x");          // 7
  r = Latest("c");
  EXPECT_EQ(r.Charge(), "6.22");  // 2 + 1.2 + 1.01 + 1.01 + 1
  Expect304(Latest("c", {{"If-None-Match", "\"7\""}}), "\"7\"");
  // Weakening the request's consistency changes nothing under Session.
  EXPECT_EQ(Latest("c", {{"x-ms-consistency-level", "Eventual"}}).Charge(), "6.22");
}

TEST_F(ChangeFeedTest, StrongReadsDoubleThePerDocumentCharge) {
  config_.consistency = "Strong";
  MakeContainer("db", "c");
  auto first = Create("c", "big", "x", ",\"s\":\"\"");
  auto big = Replace("c", "big", "x", ",\"s\":\"" + std::string(3072 - Shown(first).size(), 'p') + "\"");
  ASSERT_EQ(Shown(big).size(), 3072u);
  Create("c", "small", "x");
  EXPECT_EQ(Latest("c").Charge(), "6.4");  // 2 + 2 * (1.2 + 1)
  EXPECT_EQ(Latest("c", {{"x-ms-consistency-level", "BoundedStaleness"}}).Charge(), "6.4");
  EXPECT_EQ(Latest("c", {{"x-ms-consistency-level", "Session"}}).Charge(), "4.2");
  Expect304(Latest("c", {{"If-None-Match", "*"}}), "\"3\"");
}

TEST_F(ChangeFeedTest, AllVersionsChargeCountsTheEntryText) {
  MakeLogged("cf");
  auto first = Create("cf", "big", "x", ",\"s\":\"\"");  // 1
  // The create entry: {"current":<item+_lsn>,"metadata":{...}}; make a replace entry of 2048 bytes.
  auto probe = Replace("cf", "big", "x", ",\"s\":\"\"");  // 2
  const size_t overhead = ReplaceEntry(probe, first, Secs()).size();
  auto w = Replace("cf", "big", "x", ",\"s\":\"" + std::string(2048 - overhead, 'p') + "\"");  // 3
  const std::string entry = ReplaceEntry(w, probe, Secs());
  ASSERT_EQ(entry.size(), 2048u);
  auto r = Avad("cf", {{"If-None-Match", "\"2\""}});
  EXPECT_EQ(r.body(), Body("cf", {entry}));
  EXPECT_EQ(r.Charge(), "3.1");  // 2 + (1 + 0.1 * (2 - 1))
}

TEST_F(ChangeFeedTest, RuReportNamesTheOperationChangeFeed) {
  MakeContainer("db", "c");
  Create("c", "a", "x");
  Latest("c");                                  // 3 RU
  Latest("c", {{"If-None-Match", "*"}});        // 2 RU (304)
  Latest("c", {{"If-None-Match", "garbage"}});  // 400
  auto d = Get("/_emulator/stats").Json();
  ASSERT_EQ(d["containers"].Size(), 1u);
  const json::Value* feed = nullptr;
  for (auto& op : d["containers"][0]["operations"].GetArray()) {
    if (std::string(op["operation"].GetString()) == "changeFeed") feed = &op;
  }
  ASSERT_NE(feed, nullptr) << Get("/_emulator/stats").body();
  EXPECT_EQ((*feed)["requests"].GetUint64(), 3u);
  EXPECT_EQ((*feed)["failed"].GetUint64(), 1u);
  EXPECT_EQ((*feed)["totalRU"].GetDouble(), 5.0);
  EXPECT_EQ((*feed)["maxRU"].GetDouble(), 3.0);
  EXPECT_EQ(json::Write((*feed)["partitionsTouched"]), "[\"0\"]");
}

}  // namespace
}  // namespace cosmos::testing
