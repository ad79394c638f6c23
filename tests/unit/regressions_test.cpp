// Emulator behaviour found wrong while writing the tests, each asserting the correct behaviour.
// Fixed ones run as regression tests (Regression*). Two remain DISABLED_ (KnownFailures*), open:
//  - zero with a huge exponent ("0e400"): RapidJSON's reader refuses the exponent before our number
//    conversion sees it; the service's answer for it is unknown, so it stays refused (400).
//  - id/_ts as index terms under an excluded "/*": the documentation is ambiguous.
// Run them with --gtest_also_run_disabled_tests --gtest_filter='KnownFailures*'.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "../http/recording_util.h"
#include "common/errors.h"
#include "json/json.h"
#include "store/indexing.h"

namespace cosmos {
namespace {

std::string RoundTrip(std::string_view text, json::ParseStatus* status = nullptr) {
  json::Document d;
  auto st = json::Parse(text, d);
  if (status) *status = st;
  return st == json::ParseStatus::kOk ? json::Write(d) : std::string("<rejected>");
}

bool ValidUtf8(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 0 : (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xE ? 2 : (c >> 3) == 0x1E ? 3 : 99;
    if (n == 99 || i + n >= s.size()) return false;
    uint32_t cp = n == 0 ? c : n == 1 ? (c & 0x1F) : n == 2 ? (c & 0x0F) : (c & 0x07);
    for (size_t k = 1; k <= n; ++k) {
      unsigned char cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF))
      return false;
    i += n + 1;
  }
  return true;
}

// ---- json ---------------------------------------------------------------------------------------

// Was a bug: numbers that underflow below half of the smallest denormal (about 2.47e-324 down to 1e-326)
// parse to NaN, to huge negative numbers or to 5e-324: [1e-325] is written back as
// [-2.2471164185778954e+307], [1e-324] as [null], [2e-324] as [5e-324]. JavaScript and correct
// IEEE rounding give 0 (as the emulator already does for 1e-400).
TEST(Regression, JsonTinyNumbersUnderflowToZero) {
  for (const char* text : {"[1e-324]", "[1e-325]", "[9e-325]", "[4.9e-326]", "[0.1e-323]", "[10e-325]", "[2e-324]"}) {
    EXPECT_EQ(RoundTrip(text), "[0]") << text;
  }
}

// Was a bug: a zero with a large exponent is valid JSON and equals 0, but is rejected as too big.
TEST(KnownFailures, DISABLED_JsonZeroWithLargeExponentIsZero) {
  for (const char* text : {"[0e400]", "[0.0e500]", "[-0e999]", "[1e-2147483649]"}) {
    EXPECT_EQ(RoundTrip(text), "[0]") << text;
  }
}

// Was a bug: a NUL byte after the root value ends parsing, so anything after it is accepted as if the
// text ended there ({"a":1}<NUL>garbage parses as {"a":1}); trailing garbage must be rejected.
TEST(Regression, JsonNulAfterRootIsRejected) {
  json::ParseStatus st{};
  RoundTrip(std::string_view("[1]\0", 4), &st);
  EXPECT_EQ(st, json::ParseStatus::kMalformed);
  RoundTrip(std::string_view("{\"a\":1}\0garbage", 15), &st);
  EXPECT_EQ(st, json::ParseStatus::kMalformed);
}

// Was a bug: a lone low surrogate escape ("\udc00") is accepted and stored as the bytes ED B0 80, so the
// emulator later sends invalid UTF-8. It must either be refused or be written back escaped.
TEST(Regression, JsonLoneLowSurrogateNeverProducesInvalidUtf8) {
  for (const char* text : {R"(["\udc00"])", R"(["a\udfffb"])"}) {
    json::ParseStatus st{};
    auto out = RoundTrip(text, &st);
    if (st == json::ParseStatus::kOk) {
      EXPECT_TRUE(ValidUtf8(out)) << text;
    }
  }
}

// ---- indexing -----------------------------------------------------------------------------------

// Was a bug (per Microsoft's indexing-policy documentation and docs/request-units.md "T ... /id and /_ts
// included"): id and _ts are always indexed in consistent mode, even when "/*" is excluded.
TEST(KnownFailures, DISABLED_IdAndTsAreAlwaysIndexTerms) {
  json::Document policy;
  policy.Parse(R"({"includedPaths":[{"path":"/name/?"}],"excludedPaths":[{"path":"/*"}]})");
  auto p = store::IndexingPolicy::FromJson(&policy);
  json::Document doc;
  doc.Parse(R"({"id":"1","name":"n","other":2,"_ts":1791622989})");
  EXPECT_EQ(p.CountTerms(doc), 3);  // id, name, _ts; the emulator counts 1
}

// Was a bug (only in builds without NDEBUG, e.g. -DCMAKE_BUILD_TYPE=Debug with COSMOS_SANITIZE): a path
// entry that is not an object makes store/indexing.cpp call MemberEnd() on a non-object
// (`e.IsObject() ? e.FindMember("path") : e.MemberEnd()`, twice), and RapidJSON's assertion aborts
// the whole process; a client can bring the emulator down with one container create. Release
// builds answer 400 as they should, so this test passes there and aborts in a Debug build.
TEST(Regression, IndexingPathEntriesThatAreNotObjectsAre400) {
  for (const char* text :
       {R"({"includedPaths":["/*"]})", R"({"excludedPaths":[5]})", R"({"compositeIndexes":[[{"path":"/a"},"/b"]]})"}) {
    json::Document policy;
    policy.Parse(text);
    try {
      store::IndexingPolicy::FromJson(&policy);
      ADD_FAILURE() << "accepted " << text;
    } catch (const CosmosError& e) {
      EXPECT_EQ(e.status, 400) << text;
    }
  }
}

// ---- HTTP ---------------------------------------------------------------------------------------

class RegressionHttp : public testing::EmulatorTest {
 protected:
  void SetUp() override {
    MakeDatabase("db1");
    MakeContainer("db1", "c1");
  }
};

// Was a bug: consequence of the tiny-number parse bug: the stored item holds a different (negative,
// huge) number than the one sent.
TEST_F(RegressionHttp, TinyNumberInItemIsStoredAsZero) {
  auto r = CreateDoc("db1", "c1", R"({"id":"t","pk":"a","v":1e-325})", R"(["a"])");
  ASSERT_EQ(r.status(), 201) << r;
  EXPECT_EQ(r.body().rfind(R"({"id":"t","pk":"a","v":0,)", 0), 0u) << r.body();
}

// Was a bug: consequence of the NUL bug: an item body with garbage after a NUL byte is accepted (201).
TEST_F(RegressionHttp, ItemBodyWithBytesAfterNulIs400) {
  auto r = CreateDoc("db1", "c1", std::string("{\"id\":\"x\",\"pk\":\"a\"}\0garbage", 27), R"(["a"])");
  EXPECT_EQ(r.status(), 400) << r;
  EXPECT_EQ(r.Code(), "BadRequest");
}

// Was a bug: the system-property filter compares names with strcmp, so a user property whose name is a
// system name followed by an embedded NUL ("_ts\u0000x") is silently dropped from the item.
TEST_F(RegressionHttp, UserPropertyWithEmbeddedNulIsKept) {
  auto r = CreateDoc("db1", "c1", R"({"id":"x","pk":"a","_ts\u0000x":1,"_rid\u0000":2})", R"(["a"])");
  ASSERT_EQ(r.status(), 201) << r;
  EXPECT_EQ(r.body().rfind(R"({"id":"x","pk":"a","_ts\u0000x":1,"_rid\u0000":2,)", 0), 0u) << r.body();
}

// Was a bug: docs/request-units.md: "Strong / Bounded Staleness double every read charge (queries
// included)" and the read feed is charged with the query-page formula, but it is not doubled.
TEST_F(RegressionHttp, ReadFeedChargeDoublesUnderStrong) {
  config_.consistency = "Strong";
  auto r = Get("/dbs/db1/colls/c1/docs");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.Charge(), "5.4");  // 2 * 2.7; the emulator answers 2.7
}

// ---- real-service recordings ----------------------------------------------------------------------

class RegressionRecordings : public testing::RecordingTest {
 protected:
  void MakeDbimp() {
    ASSERT_EQ(Check(2).status(), 201);
    ASSERT_EQ(Check(3).status(), 201);
  }
};

// Was a bug: recording cosmos-203: OPTIONS / answers 403 {"code":"Forbidden"}; the emulator answers 405
// MethodNotAllowed.
TEST_F(RegressionRecordings, Options203IsForbidden) { Check(203); }

// Was a bug: recording cosmos-170: a query on a container that does not exist answers 404 NotFound
// (2 RU); the emulator answers 501 NotImplemented before looking the container up.
TEST_F(RegressionRecordings, QueryOnMissingContainer170Is404) {
  MakeDbimp();
  Check(170, /*charge=*/true);
}

// Was a bug (minor): recording cosmos-038: a partition key range carries "lsn"; the emulator writes
// "_lsn", a property the service never sends.
TEST_F(RegressionRecordings, PartitionKeyRangeLsnField038) {
  MakeDbimp();
  auto r = Check(38);
  auto d = r.Json();
  ASSERT_TRUE(d.IsObject() && d["PartitionKeyRanges"].IsArray() && !d["PartitionKeyRanges"].Empty()) << r;
  EXPECT_TRUE(d["PartitionKeyRanges"][0].HasMember("lsn"));
  EXPECT_FALSE(d["PartitionKeyRanges"][0].HasMember("_lsn"));
}

}  // namespace
}  // namespace cosmos
