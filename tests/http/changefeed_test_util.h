// The fixture and helpers of the change-feed tests (changefeed_http_test.cpp,
// changefeed_ttl_http_test.cpp): a container, change-feed reads and their continuations.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "http_test_util.h"
#include "store/epk.h"

namespace cosmos::testing {

inline constexpr const char* kWire = "2021-09-15";
inline constexpr const char* kBeginningMessage =
    "The change feed in all versions and deletes mode cannot start from the beginning: start from now, a point in "
    "time or a continuation. You must read the change feed from within the retention period.";
inline constexpr const char* kRetentionMessage =
    "The requested start of the change feed in all versions and deletes mode lies outside the container's retention "
    "window. You must read the change feed from within the retention period.";
inline constexpr const char* kPolicyInvalidMessage =
    "The changeFeedPolicy is invalid: retentionDuration must be a whole number of minutes from 0 to 43200.";
inline constexpr const char* kClockUsage =
    "The body must be {\"advanceMs\": n} or {\"advanceSeconds\": n}, n a whole number from 0 to ten years.";

inline std::string Continuation(const std::string& token) {
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

}  // namespace cosmos::testing
