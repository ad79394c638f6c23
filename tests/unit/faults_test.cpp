// Fault-injection rules (faults/faults.h): what they match, how they are checked, when they stop.
#include <gtest/gtest.h>

#include "common/errors.h"
#include "faults/faults.h"
#include "json/json.h"

namespace cosmos::faults {
namespace {

json::Document Doc(const std::string& text) {
  json::Document d;
  EXPECT_EQ(json::Parse(text, d), json::ParseStatus::kOk) << text;
  return d;
}

std::string AddError(Injector& in, const std::string& rule) {
  try {
    in.Add(Doc(rule));
  } catch (const CosmosError& e) {
    EXPECT_EQ(e.status, 400);
    return e.what();
  }
  return "";
}

TEST(FaultPaths, GlobsMatchWholeSegments) {
  EXPECT_TRUE(PathMatches("/dbs/db/colls/c/**", "/dbs/db/colls/c"));
  EXPECT_TRUE(PathMatches("/dbs/db/colls/c/**", "/dbs/db/colls/c/docs/x"));
  EXPECT_TRUE(PathMatches("/dbs/*/colls/c/docs/*", "/dbs/other/colls/c/docs/x"));
  EXPECT_FALSE(PathMatches("/dbs/*/colls/c/docs/*", "/dbs/other/colls/c/docs"));
  EXPECT_FALSE(PathMatches("/dbs/db/colls/c", "/dbs/db/colls/cc"));
  EXPECT_TRUE(PathMatches("/**/docs/**", "/dbs/a/colls/b/docs/id"));
  EXPECT_TRUE(PathMatches("/**", "/"));
  EXPECT_FALSE(PathMatches("/dbs/db", "/dbs/db/colls/c"));
}

TEST(FaultRules, BadRulesAreRefusedWithWhatIsWrong) {
  Injector in;
  EXPECT_NE(AddError(in, R"({"result":{"serverErrorType":"Timeout"}})").find("A fault rule needs an"), std::string::npos);
  EXPECT_NE(AddError(in, R"({"id":"r","result":{"serverErrorType":"Nope"}})").find("unknown serverErrorType 'Nope'"),
            std::string::npos);
  EXPECT_NE(AddError(in, R"({"id":"r","result":{"serverErrorType":"Timeout"},"hitlimit":1})")
                .find("The rule has no member 'hitlimit'"),
            std::string::npos);
  EXPECT_NE(AddError(in, R"({"id":"r","condition":{"operationType":"Read"},"result":{"status":503}})")
                .find("unknown operationType 'Read'"),
            std::string::npos);
  EXPECT_NE(AddError(in, R"({"id":"r","result":{"status":503,"serverErrorType":"Timeout"}})")
                .find("needs either"),
            std::string::npos);
  EXPECT_NE(AddError(in, R"({"id":"r","result":{"status":200}})").find("from 400 to 599"), std::string::npos);
  EXPECT_NE(AddError(in, R"({"id":"r","result":{"serverErrorType":"ResponseDelay"}})").find("needs result.delayMs"),
            std::string::npos);
  EXPECT_NE(AddError(in, R"({"id":"r","result":{"serverErrorType":"Timeout","retryAfterMs":5}})")
                .find("goes with a 429"),
            std::string::npos);
  EXPECT_NE(AddError(in, R"({"id":"r","result":{"serverErrorType":"Timeout","injectionRate":0}})")
                .find("greater than 0"),
            std::string::npos);
  EXPECT_NE(AddError(in, R"({"id":"r","result":{"serverErrorType":"Timeout"},"hitLimit":0})").find("at least 1"),
            std::string::npos);
  EXPECT_NE(AddError(in, R"({"id":"r","condition":{"path":"dbs/x"},"result":{"status":500}})")
                .find("starting with '/'"),
            std::string::npos);
  EXPECT_EQ(in.ListJson(), R"({"rules":[]})");
}

TEST(FaultRules, MatchByTypePathAndRangeUntilTheHitLimit) {
  Injector in;
  in.Add(Doc(R"({"id":"reads","condition":{"operationType":["ReadItem","QueryItem"],"path":"/dbs/db/colls/c/**",
                 "partitionKeyRangeId":"1"},"result":{"serverErrorType":"TooManyRequests","retryAfterMs":7},
                 "hitLimit":2})"));
  std::vector<std::string_view> one = {"1"}, zero = {"0"};
  EXPECT_FALSE(in.Match({"CreateItem", "/dbs/db/colls/c/docs", one}));
  EXPECT_FALSE(in.Match({"ReadItem", "/dbs/db/colls/d/docs/x", one}));
  EXPECT_FALSE(in.Match({"ReadItem", "/dbs/db/colls/c/docs/x", zero}));
  auto f = in.Match({"ReadItem", "/dbs/db/colls/c/docs/x", one});
  ASSERT_TRUE(f);
  EXPECT_EQ(f->status, 429);
  EXPECT_EQ(f->substatus, 3200);
  EXPECT_EQ(f->code, "TooManyRequests");
  EXPECT_EQ(f->retry_after_ms, 7);
  EXPECT_EQ(f->message, errors::TooManyRequests(0).what());
  EXPECT_TRUE(in.Match({"QueryItem", "/dbs/db/colls/c/docs", {"0", "1"}}));
  EXPECT_FALSE(in.Match({"ReadItem", "/dbs/db/colls/c/docs/x", one}));  // two hits, the limit
  EXPECT_EQ(in.ListJson(),
            R"({"rules":[{"id":"reads","condition":{"operationType":["ReadItem","QueryItem"],"path":"/dbs/db/colls/c/**",)"
            R"("partitionKeyRangeId":"1"},"result":{"serverErrorType":"TooManyRequests","retryAfterMs":7},)"
            R"("hitLimit":2,"hits":2,"active":false}]})");
}

TEST(FaultRules, KindsDefaultsEnablementAndRemoval) {
  Injector in;
  in.Add(Doc(R"({"id":"slow","condition":{"operationType":"CreateItem"},"result":{"serverErrorType":"ResponseDelay","delayMs":250}})"));
  in.Add(Doc(R"({"id":"gone","condition":{"operationType":"ReadFeed"},"result":{"serverErrorType":"PartitionIsSplitting"}})"));
  in.Add(Doc(R"({"id":"custom","condition":{"operationType":"DeleteItem"},"result":{"status":503,"substatus":21008}})"));
  in.Add(Doc(R"({"id":"off","result":{"serverErrorType":"ConnectionClose"},"enabled":false})"));
  in.Add(Doc(R"({"id":"later","result":{"serverErrorType":"ConnectionClose"},"startDelayMs":60000})"));
  in.Add(Doc(R"({"id":"never","result":{"serverErrorType":"ConnectionClose"},"durationMs":0})"));
  auto slow = in.Match({"CreateItem", "/dbs/d/colls/c/docs", {}});
  ASSERT_TRUE(slow);
  EXPECT_EQ(slow->kind, Fault::Kind::kDelay);
  EXPECT_EQ(slow->delay_ms, 250);
  auto gone = in.Match({"ReadFeed", "/dbs/d/colls/c/docs", {}});
  ASSERT_TRUE(gone);
  EXPECT_EQ(gone->status, 410);
  EXPECT_EQ(gone->substatus, 1007);
  EXPECT_EQ(gone->code, "Gone");
  EXPECT_EQ(gone->message, errors::Wrap("The partition key range is completing a split. (Fault injected by the "
                                        "emulator: rule 'gone', PartitionIsSplitting.)"));
  auto custom = in.Match({"DeleteItem", "/dbs/d/colls/c/docs/x", {}});
  ASSERT_TRUE(custom);
  EXPECT_EQ(custom->status, 503);
  EXPECT_EQ(custom->substatus, 21008);
  EXPECT_EQ(custom->code, "ServiceUnavailable");
  // Disabled, not yet started, already over: none of the ConnectionClose rules apply.
  EXPECT_FALSE(in.Match({"ReadItem", "/dbs/d/colls/c/docs/x", {}}));
  // A rule of the same id replaces the old one.
  in.Add(Doc(R"({"id":"off","result":{"serverErrorType":"ConnectionClose"}})"));
  auto drop = in.Match({"ReadItem", "/dbs/d/colls/c/docs/x", {}});
  ASSERT_TRUE(drop);
  EXPECT_EQ(drop->kind, Fault::Kind::kDrop);
  EXPECT_TRUE(in.Remove("off"));
  EXPECT_FALSE(in.Remove("off"));
  EXPECT_FALSE(in.Match({"ReadItem", "/dbs/d/colls/c/docs/x", {}}));
  in.Clear();
  EXPECT_FALSE(in.Match({"CreateItem", "/dbs/d/colls/c/docs", {}}));
}

TEST(FaultRules, InjectionRateIsAProbability) {
  Injector in;
  in.Add(Doc(R"({"id":"half","result":{"serverErrorType":"ServiceUnavailable","injectionRate":0.5}})"));
  int hits = 0;
  for (int i = 0; i < 4000; ++i) hits += in.Match({"ReadItem", "/dbs/d/colls/c/docs/x", {}}) ? 1 : 0;
  EXPECT_GT(hits, 1700);
  EXPECT_LT(hits, 2300);
}

TEST(FaultRules, AFileHoldsAnArrayOfRules) {
  Injector in;
  in.AddAll(R"([{"id":"a","result":{"status":500}},{"id":"b","result":{"status":408}}])");
  EXPECT_NE(in.ListJson().find(R"("id":"b")"), std::string::npos);
  try {
    in.AddAll(R"([{"id":"c","result":{"status":500}},{"id":"d"}])");
    FAIL();
  } catch (const CosmosError& e) {
    EXPECT_NE(std::string(e.what()).find("Fault rule 'd'"), std::string::npos) << e.what();
  }
  try {
    in.AddAll("not json");
    FAIL();
  } catch (const CosmosError& e) {
    EXPECT_EQ(e.status, 400);
  }
}

}  // namespace
}  // namespace cosmos::faults
