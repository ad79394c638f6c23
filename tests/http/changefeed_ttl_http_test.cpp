// The change feed through the in-process pipeline, continued from changefeed_http_test.cpp: time to
// live and the emulator clock, and the change feed's charges and RU report entries.
#include "changefeed_test_util.h"

namespace cosmos::testing {
namespace {

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
