// Offers (throughput) through Handle(): list, query, read, replace, migration between manual and
// autoscale, shared-throughput databases.
#include "http_test_util.h"

namespace cosmos::testing {
namespace {

const Headers kQuery = {{"x-ms-documentdb-isquery", "true"}, {"content-type", "application/query+json"}};

Headers QueryHeaders(Headers extra = {}) {
  Headers h = kQuery;
  h.insert(h.end(), extra.begin(), extra.end());
  return h;
}

class OffersTest : public EmulatorTest {
 protected:
  // Creates a container with extra create headers (throughput).
  void MakeContainerWith(const std::string& db, const std::string& coll, const Headers& headers) {
    auto r = Post("/dbs/" + db + "/colls", "{\"id\":\"" + coll + "\",\"partitionKey\":{\"paths\":[\"/pk\"]}}", headers);
    ASSERT_EQ(r.status(), 201) << r;
  }
  std::string SelfOf(const std::string& path) {
    auto r = Get(path);
    EXPECT_EQ(r.status(), 200) << r;
    return r.Str("_self");
  }
  std::string RidOf(const std::string& path) {
    auto r = Get(path);
    EXPECT_EQ(r.status(), 200) << r;
    return r.Str("_rid");
  }
  Reply Query(const std::string& body, Headers extra = {}) { return Post("/offers", body, QueryHeaders(extra)); }
  // The offers whose resource is `self` (the SDK's readOffer query).
  Reply QueryByResource(const std::string& self) {
    return Query(R"({"query":"SELECT * from root where root.resource = \")" + self + R"(\""})");
  }
  // The only offer of `self`, as JSON text.
  std::string OfferOf(const std::string& self) {
    auto r = QueryByResource(self);
    EXPECT_EQ(r.status(), 200) << r;
    auto d = r.Json();
    EXPECT_EQ(d["Offers"].Size(), 1u) << r;
    if (d["Offers"].Size() != 1) return "";
    return json::Write(d["Offers"][0]);
  }
  static std::string IdIn(const std::string& offer_json) {
    json::Document d;
    EXPECT_EQ(json::Parse(offer_json, d), json::ParseStatus::kOk);
    return d["id"].GetString();
  }
};

// The offer JSON the service returns, keys in its order.
struct Expected {
  std::string resource;
  std::string resource_rid;
  int throughput = 400;
  int max_ever = 400;
  std::optional<int> autoscale_max;
  std::optional<int64_t> last_replace;
  std::string id;
  std::string etag;
  int64_t ts = 0;

  std::string Json() const {
    std::string out = "{\"resource\":\"" + resource + "\",\"offerType\":\"Invalid\",\"offerResourceId\":\"" +
                      resource_rid + "\",\"offerVersion\":\"V2\",\"content\":{\"offerThroughput\":" +
                      std::to_string(throughput) +
                      ",\"offerIsRUPerMinuteThroughputEnabled\":false,\"offerMinimumThroughputParameters\":{"
                      "\"maxThroughputEverProvisioned\":" +
                      std::to_string(max_ever) + ",\"maxConsumedStorageEverInKB\":0}";
    if (last_replace) out += ",\"offerLastReplaceTimestamp\":" + std::to_string(*last_replace);
    if (autoscale_max) out += ",\"offerAutopilotSettings\":{\"maxThroughput\":" + std::to_string(*autoscale_max) + "}";
    std::string quoted_etag;
    json::WriteString(quoted_etag, etag);
    out += "},\"id\":\"" + id + "\",\"_rid\":\"" + id + "\",\"_self\":\"offers/" + id + "/\",\"_etag\":" + quoted_etag +
           ",\"_ts\":" + std::to_string(ts) + "}";
    return out;
  }
};

// Fills etag and ts of `e` from a reply's offer (they are generated).
Expected WithSystem(Expected e, const json::Value& offer) {
  e.etag = offer["_etag"].GetString();
  e.ts = offer["_ts"].GetInt64();
  if (offer["content"].HasMember("offerLastReplaceTimestamp"))
    e.last_replace = offer["content"]["offerLastReplaceTimestamp"].GetInt64();
  return e;
}

// The offer with content.<key> (or content.offerAutopilotSettings.maxThroughput) set.
std::string WithThroughput(const std::string& offer_json, int value, bool autoscale = false) {
  json::Document d;
  EXPECT_EQ(json::Parse(offer_json, d), json::ParseStatus::kOk);
  auto& a = d.GetAllocator();
  if (autoscale) {
    if (!d["content"].HasMember("offerAutopilotSettings"))
      d["content"].AddMember("offerAutopilotSettings", json::Value(rapidjson::kObjectType), a);
    auto& s = d["content"]["offerAutopilotSettings"];
    if (s.HasMember("maxThroughput")) {
      s["maxThroughput"].SetInt(value);
    } else {
      s.AddMember("maxThroughput", value, a);
    }
  } else {
    d["content"]["offerThroughput"].SetInt(value);
  }
  return json::Write(d);
}

std::string ErrorText(const std::string& message) {
  std::string out = "Message: {\"Errors\":[";
  json::WriteString(out, message);
  return out + "]}\r\nActivityId: ";
}

constexpr const char* kManualMessage =
    "The offer should have valid throughput values between 400 and 1000000 inclusive in increments of 100.";
constexpr const char* kAutoscaleMessage =
    "The offer should have valid throughput values between 1000 and 1000000 inclusive in increments of 1000.";

// ---- list -----------------------------------------------------------------------------------

TEST_F(OffersTest, ListOffers) {
  MakeDatabase("db1");
  MakeContainer("db1", "c1");
  MakeContainerWith("db1", "c2", {{"x-ms-offer-throughput", "1000"}});
  MakeDatabase("shared", {{"x-ms-offer-throughput", "500"}});
  MakeContainer("shared", "s1");

  auto r = Get("/offers");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.Charge(), "2");
  EXPECT_EQ(r.Header("x-ms-item-count"), "3");
  EXPECT_FALSE(r.Has("x-ms-continuation"));
  EXPECT_FALSE(r.Has("x-ms-session-token"));
  EXPECT_EQ(r.Header("content-type"), "application/json");
  auto d = r.Json();
  ASSERT_EQ(d["Offers"].Size(), 3u) << r;
  const std::string c1 = SelfOf("/dbs/db1/colls/c1"), c2 = SelfOf("/dbs/db1/colls/c2");
  const std::string shared = SelfOf("/dbs/shared");
  Expected e1{c1, RidOf("/dbs/db1/colls/c1"), 400, 400, {}, {}, "AQAA", "", 0};
  Expected e2{c2, RidOf("/dbs/db1/colls/c2"), 1000, 1000, {}, {}, "AgAA", "", 0};
  Expected e3{shared, RidOf("/dbs/shared"), 500, 500, {}, {}, "AwAA", "", 0};
  std::string expected = "{\"_rid\":\"\",\"Offers\":[" + WithSystem(e1, d["Offers"][0]).Json() + "," +
                         WithSystem(e2, d["Offers"][1]).Json() + "," + WithSystem(e3, d["Offers"][2]).Json() +
                         "],\"_count\":3}";
  EXPECT_EQ(r.body(), expected);
  EXPECT_LE(std::llabs(d["Offers"][0]["_ts"].GetInt64() - util::UnixSeconds()), 2);

  // Paged like every feed.
  auto p1 = Get("/offers", {{"x-ms-max-item-count", "2"}});
  ASSERT_EQ(p1.status(), 200) << p1;
  EXPECT_EQ(p1.Header("x-ms-item-count"), "2");
  EXPECT_EQ(p1.Header("x-ms-continuation"), "2");
  EXPECT_EQ(p1.Json()["_count"].GetInt(), 2);
  auto p2 = Get("/offers", {{"x-ms-max-item-count", "2"}, {"x-ms-continuation", "2"}});
  ASSERT_EQ(p2.status(), 200) << p2;
  EXPECT_EQ(p2.Header("x-ms-item-count"), "1");
  EXPECT_FALSE(p2.Has("x-ms-continuation"));
  EXPECT_EQ(p2.body(), "{\"_rid\":\"\",\"Offers\":[" + json::Write(d["Offers"][2]) + "],\"_count\":1}");
}

TEST_F(OffersTest, EmptyAccountHasNoOffers) {
  auto r = Get("/offers");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.body(), "{\"_rid\":\"\",\"Offers\":[],\"_count\":0}");
  EXPECT_EQ(r.Header("x-ms-item-count"), "0");
  EXPECT_EQ(r.Charge(), "2");
}

// ---- query ----------------------------------------------------------------------------------

TEST_F(OffersTest, QueryByResourceForContainerAndDatabase) {
  MakeDatabase("db1");
  MakeContainer("db1", "c1");
  MakeContainer("db1", "c2");
  MakeDatabase("shared", {{"x-ms-offer-throughput", "400"}});

  const std::string c2 = SelfOf("/dbs/db1/colls/c2");
  auto r = QueryByResource(c2);
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.Charge(), "2");
  EXPECT_EQ(r.Header("x-ms-item-count"), "1");
  EXPECT_FALSE(r.Has("x-ms-continuation"));
  auto d = r.Json();
  ASSERT_EQ(d["Offers"].Size(), 1u) << r;
  Expected e{c2, RidOf("/dbs/db1/colls/c2"), 400, 400, {}, {}, "AgAA", "", 0};
  EXPECT_EQ(r.body(), "{\"_rid\":\"\",\"Offers\":[" + WithSystem(e, d["Offers"][0]).Json() + "],\"_count\":1}");

  const std::string db = SelfOf("/dbs/shared");
  auto rd = QueryByResource(db);
  ASSERT_EQ(rd.status(), 200) << rd;
  auto dd = rd.Json();
  ASSERT_EQ(dd["Offers"].Size(), 1u) << rd;
  Expected ed{db, RidOf("/dbs/shared"), 400, 400, {}, {}, "AwAA", "", 0};
  EXPECT_EQ(rd.body(), "{\"_rid\":\"\",\"Offers\":[" + WithSystem(ed, dd["Offers"][0]).Json() + "],\"_count\":1}");

  // The database without shared throughput has no offer: an empty list, not an error.
  auto none = QueryByResource(SelfOf("/dbs/db1"));
  ASSERT_EQ(none.status(), 200) << none;
  EXPECT_EQ(none.body(), "{\"_rid\":\"\",\"Offers\":[],\"_count\":0}");
  EXPECT_EQ(none.Header("x-ms-item-count"), "0");
  EXPECT_EQ(none.Charge(), "2");
}

TEST_F(OffersTest, QueryWithParameter) {
  MakeDatabase("db1");
  MakeContainer("db1", "c1");
  MakeContainer("db1", "c2");
  const std::string rid = RidOf("/dbs/db1/colls/c1");
  auto r = Query(R"({"query":"SELECT * FROM root WHERE root.offerResourceId = @rid","parameters":[{"name":"@rid","value":")" +
                 rid + R"("}]})");
  ASSERT_EQ(r.status(), 200) << r;
  auto d = r.Json();
  ASSERT_EQ(d["Offers"].Size(), 1u) << r;
  EXPECT_STREQ(d["Offers"][0]["offerResourceId"].GetString(), rid.c_str());
  EXPECT_STREQ(d["Offers"][0]["id"].GetString(), "AQAA");
  EXPECT_EQ(r.Charge(), "2");

  // Projections and filters on content work like any query.
  auto p = Query(R"({"query":"SELECT VALUE o.content.offerThroughput FROM o WHERE o.id = @id","parameters":[{"name":"@id","value":"AgAA"}]})");
  ASSERT_EQ(p.status(), 200) << p;
  EXPECT_EQ(p.body(), "{\"_rid\":\"\",\"Offers\":[400],\"_count\":1}");

  // The content-type alone marks a query too.
  auto ct = Post("/offers", R"({"query":"SELECT VALUE r.id FROM r"})", {{"content-type", "application/query+json"}});
  ASSERT_EQ(ct.status(), 200) << ct;
  EXPECT_EQ(ct.body(), "{\"_rid\":\"\",\"Offers\":[\"AQAA\",\"AgAA\"],\"_count\":2}");
}

TEST_F(OffersTest, QueryIsPaged) {
  MakeDatabase("db1");
  for (const char* c : {"c1", "c2", "c3"}) MakeContainer("db1", c);
  const std::string q = R"({"query":"SELECT VALUE r.id FROM r"})";
  auto p1 = Query(q, {{"x-ms-max-item-count", "2"}});
  ASSERT_EQ(p1.status(), 200) << p1;
  EXPECT_EQ(p1.body(), "{\"_rid\":\"\",\"Offers\":[\"AQAA\",\"AgAA\"],\"_count\":2}");
  EXPECT_EQ(p1.Header("x-ms-item-count"), "2");
  ASSERT_TRUE(p1.Has("x-ms-continuation"));
  auto p2 = Query(q, {{"x-ms-max-item-count", "2"}, {"x-ms-continuation", p1.Header("x-ms-continuation")}});
  ASSERT_EQ(p2.status(), 200) << p2;
  EXPECT_EQ(p2.body(), "{\"_rid\":\"\",\"Offers\":[\"AwAA\"],\"_count\":1}");
  EXPECT_FALSE(p2.Has("x-ms-continuation"));
  EXPECT_EQ(p2.Charge(), "2");
}

TEST_F(OffersTest, QueryErrors) {
  auto syntax = Query(R"({"query":"SELECT * FROM"})");
  EXPECT_EQ(syntax.status(), 400) << syntax;
  EXPECT_EQ(syntax.Code(), "BadRequest");
  // POST without a query does not create offers.
  auto post = Post("/offers", R"({"id":"x"})");
  EXPECT_EQ(post.status(), 405) << post;
  EXPECT_EQ(post.Code(), "MethodNotAllowed");
  auto del = Delete("/offers/AQAA");
  EXPECT_EQ(del.status(), 405) << del;
}

// ---- read -----------------------------------------------------------------------------------

TEST_F(OffersTest, ReadOffer) {
  MakeDatabase("db1");
  MakeContainer("db1", "c1");
  const std::string listed = OfferOf(SelfOf("/dbs/db1/colls/c1"));
  const std::string id = IdIn(listed);
  EXPECT_EQ(id, "AQAA");
  auto r = Get("/offers/" + id);
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.body(), listed);
  EXPECT_EQ(r.Charge(), "2");
  EXPECT_EQ(r.Header("etag"), r.Str("_etag"));
  EXPECT_EQ(r.Header("x-ms-cosmos-min-throughput"), "400");
  EXPECT_FALSE(r.Has("x-ms-session-token"));
  // Python sends a trailing slash.
  auto slash = Get("/offers/" + id + "/");
  ASSERT_EQ(slash.status(), 200) << slash;
  EXPECT_EQ(slash.body(), listed);
}

TEST_F(OffersTest, ReadUnknownOfferIs404) {
  MakeDatabase("db1");
  MakeContainer("db1", "c1");
  for (const char* id : {"zzzz", "aqaa"}) {  // ids are case-sensitive
    auto r = Get(std::string("/offers/") + id);
    EXPECT_EQ(r.status(), 404) << r;
    EXPECT_EQ(r.Code(), "NotFound");
    EXPECT_EQ(r.Charge(), "2");
    EXPECT_EQ(r.Message().rfind("Message: {\"Errors\":[\"Resource Not Found.\"]}\r\nActivityId: ", 0), 0u)
        << r.Message();
  }
  auto put = Put("/offers/zzzz", R"({"id":"zzzz","content":{"offerThroughput":400}})");
  EXPECT_EQ(put.status(), 404) << put;
  EXPECT_EQ(put.Charge(), "2");
}

// ---- replace: manual ------------------------------------------------------------------------

TEST_F(OffersTest, ReplaceManualThroughput) {
  MakeDatabase("db1");
  MakeContainer("db1", "c1");
  const std::string self = SelfOf("/dbs/db1/colls/c1");
  const std::string before = OfferOf(self);
  auto r = Put("/offers/AQAA", WithThroughput(before, 1000));
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.Charge(), "1");
  auto d = r.Json();
  EXPECT_EQ(r.Header("etag"), d["_etag"].GetString());
  json::Document old;
  json::Parse(before, old);
  EXPECT_NE(std::string(d["_etag"].GetString()), std::string(old["_etag"].GetString()));
  ASSERT_TRUE(d["content"].HasMember("offerLastReplaceTimestamp")) << r;
  EXPECT_EQ(d["content"]["offerLastReplaceTimestamp"].GetInt64(), d["_ts"].GetInt64());
  EXPECT_LE(std::llabs(d["_ts"].GetInt64() - util::UnixSeconds()), 2);
  Expected e{self, RidOf("/dbs/db1/colls/c1"), 1000, 1000, {}, {}, "AQAA", "", 0};
  EXPECT_EQ(r.body(), WithSystem(e, d).Json());

  auto back = Get("/offers/AQAA");
  ASSERT_EQ(back.status(), 200) << back;
  EXPECT_EQ(back.body(), r.body());
  EXPECT_EQ(OfferOf(self), r.body());

  // The budget changes at once; the partition count does not.
  auto offer = account_.FindOffer("AQAA");
  ASSERT_TRUE(offer);
  EXPECT_EQ(offer->throughput().ru, 1000);
  EXPECT_EQ(offer->partitions(), 1);
  EXPECT_DOUBLE_EQ(offer->PartitionBudget(), 1000.0);

  // Scaling down keeps the highest value ever provisioned.
  auto down = Put("/offers/AQAA", WithThroughput(back.body(), 500));
  ASSERT_EQ(down.status(), 200) << down;
  auto dd = down.Json();
  EXPECT_EQ(dd["content"]["offerThroughput"].GetInt(), 500);
  EXPECT_EQ(dd["content"]["offerMinimumThroughputParameters"]["maxThroughputEverProvisioned"].GetInt(), 1000);
}

TEST_F(OffersTest, ReplaceBelowMinimumOrAboveMaximumIs400) {
  MakeDatabase("db1");
  MakeContainer("db1", "c1");
  const std::string before = OfferOf(SelfOf("/dbs/db1/colls/c1"));
  for (int bad : {300, 0, -100, 1000100, 2000000}) {
    auto r = Put("/offers/AQAA", WithThroughput(before, bad));
    EXPECT_EQ(r.status(), 400) << bad << " " << r;
    EXPECT_EQ(r.Code(), "BadRequest");
    EXPECT_EQ(r.Message().rfind(ErrorText(kManualMessage), 0), 0u) << r.Message();
    EXPECT_EQ(r.Charge(), "0");
  }
  EXPECT_EQ(Get("/offers/AQAA").body(), before);  // unchanged
  // The bounds themselves are fine.
  EXPECT_EQ(Put("/offers/AQAA", WithThroughput(before, 1000000)).status(), 200);
  EXPECT_EQ(Put("/offers/AQAA", WithThroughput(Get("/offers/AQAA").body(), 400)).status(), 200);
}

TEST_F(OffersTest, ReplaceNotMultipleOf100Is400) {
  MakeDatabase("db1");
  MakeContainer("db1", "c1");
  const std::string before = OfferOf(SelfOf("/dbs/db1/colls/c1"));
  for (int bad : {405, 450, 999}) {
    auto r = Put("/offers/AQAA", WithThroughput(before, bad));
    EXPECT_EQ(r.status(), 400) << bad << " " << r;
    EXPECT_EQ(r.Message().rfind(ErrorText(kManualMessage), 0), 0u) << r.Message();
  }
  // Not a number, or missing.
  auto str = Put("/offers/AQAA", R"({"id":"AQAA","content":{"offerThroughput":"500"}})");
  EXPECT_EQ(str.status(), 400) << str;
  EXPECT_EQ(str.Message().rfind(ErrorText(kManualMessage), 0), 0u) << str.Message();
  auto frac = Put("/offers/AQAA", R"({"id":"AQAA","content":{"offerThroughput":500.5}})");
  EXPECT_EQ(frac.status(), 400) << frac;
  auto missing = Put("/offers/AQAA", R"({"id":"AQAA","content":{}})");
  EXPECT_EQ(missing.status(), 400) << missing;
  auto no_content = Put("/offers/AQAA", R"({"id":"AQAA"})");
  EXPECT_EQ(no_content.status(), 400) << no_content;
  // A minimal body is accepted (only id and the content matter).
  auto minimal = Put("/offers/AQAA", R"({"id":"AQAA","content":{"offerThroughput":700}})");
  ASSERT_EQ(minimal.status(), 200) << minimal;
  EXPECT_EQ(minimal.Json()["content"]["offerThroughput"].GetInt(), 700);
}

TEST_F(OffersTest, ReplaceWithWrongIdIs400) {
  MakeDatabase("db1");
  MakeContainer("db1", "c1");
  auto r = Put("/offers/AQAA", R"({"id":"AgAA","content":{"offerThroughput":500}})");
  EXPECT_EQ(r.status(), 400) << r;
  EXPECT_EQ(r.Code(), "BadRequest");
  auto no_id = Put("/offers/AQAA", R"({"content":{"offerThroughput":500}})");
  EXPECT_EQ(no_id.status(), 400) << no_id;
  auto not_json = Put("/offers/AQAA", "{");
  EXPECT_EQ(not_json.status(), 400) << not_json;
}

TEST_F(OffersTest, StaleIfMatchIs412) {
  MakeDatabase("db1");
  MakeContainer("db1", "c1");
  const std::string before = OfferOf(SelfOf("/dbs/db1/colls/c1"));
  json::Document old;
  json::Parse(before, old);
  const std::string old_etag = old["_etag"].GetString();
  auto first = Put("/offers/AQAA", WithThroughput(before, 600), {{"if-match", old_etag}});
  ASSERT_EQ(first.status(), 200) << first;
  auto stale = Put("/offers/AQAA", WithThroughput(before, 700), {{"if-match", old_etag}});
  EXPECT_EQ(stale.status(), 412) << stale;
  EXPECT_EQ(stale.Code(), "PreconditionFailed");
  EXPECT_EQ(Get("/offers/AQAA").Json()["content"]["offerThroughput"].GetInt(), 600);
  auto fresh = Put("/offers/AQAA", WithThroughput(before, 700), {{"if-match", first.Header("etag")}});
  EXPECT_EQ(fresh.status(), 200) << fresh;
  auto star = Put("/offers/AQAA", WithThroughput(before, 800), {{"if-match", "*"}});
  EXPECT_EQ(star.status(), 200) << star;
}

// ---- autoscale ------------------------------------------------------------------------------

TEST_F(OffersTest, AutoscaleContainerOffer) {
  MakeDatabase("db1");
  MakeContainerWith("db1", "auto", {{"x-ms-cosmos-offer-autopilot-settings", R"({"maxThroughput":4000})"}});
  const std::string self = SelfOf("/dbs/db1/colls/auto");
  auto r = QueryByResource(self);
  ASSERT_EQ(r.status(), 200) << r;
  auto d = r.Json();
  ASSERT_EQ(d["Offers"].Size(), 1u) << r;
  Expected e{self, RidOf("/dbs/db1/colls/auto"), 400, 4000, 4000, {}, "AQAA", "", 0};
  EXPECT_EQ(json::Write(d["Offers"][0]), WithSystem(e, d["Offers"][0]).Json());
  EXPECT_EQ(json::Write(d["Offers"][0]["content"]),
            "{\"offerThroughput\":400,\"offerIsRUPerMinuteThroughputEnabled\":false,"
            "\"offerMinimumThroughputParameters\":{\"maxThroughputEverProvisioned\":4000,"
            "\"maxConsumedStorageEverInKB\":0},\"offerAutopilotSettings\":{\"maxThroughput\":4000}}");
  auto read = Get("/offers/AQAA");
  ASSERT_EQ(read.status(), 200) << read;
  EXPECT_EQ(read.Header("x-ms-cosmos-min-throughput"), "1000");
}

TEST_F(OffersTest, ReplaceAutoscaleMaximum) {
  MakeDatabase("db1");
  MakeContainerWith("db1", "auto", {{"x-ms-cosmos-offer-autopilot-settings", R"({"maxThroughput":4000})"}});
  const std::string self = SelfOf("/dbs/db1/colls/auto");
  const std::string before = OfferOf(self);
  auto r = Put("/offers/AQAA", WithThroughput(before, 8000, /*autoscale=*/true));
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.Charge(), "1");
  auto d = r.Json();
  Expected e{self, RidOf("/dbs/db1/colls/auto"), 800, 8000, 8000, {}, "AQAA", "", 0};
  EXPECT_EQ(r.body(), WithSystem(e, d).Json());
  ASSERT_TRUE(d["content"].HasMember("offerLastReplaceTimestamp"));
  EXPECT_EQ(json::Write(d["content"]),
            "{\"offerThroughput\":800,\"offerIsRUPerMinuteThroughputEnabled\":false,"
            "\"offerMinimumThroughputParameters\":{\"maxThroughputEverProvisioned\":8000,"
            "\"maxConsumedStorageEverInKB\":0},\"offerLastReplaceTimestamp\":" +
                std::to_string(d["_ts"].GetInt64()) + ",\"offerAutopilotSettings\":{\"maxThroughput\":8000}}");
  EXPECT_EQ(Get("/offers/AQAA").body(), r.body());
  EXPECT_EQ(account_.FindOffer("AQAA")->throughput().ru, 8000);

  // The documented minimal body.
  auto minimal = Put("/offers/AQAA", R"({"id":"AQAA","content":{"offerAutopilotSettings":{"maxThroughput":5000}}})");
  ASSERT_EQ(minimal.status(), 200) << minimal;
  EXPECT_EQ(minimal.Json()["content"]["offerAutopilotSettings"]["maxThroughput"].GetInt(), 5000);

  for (int bad : {500, 1500, 2000500, 0}) {
    auto b = Put("/offers/AQAA", WithThroughput(before, bad, /*autoscale=*/true));
    EXPECT_EQ(b.status(), 400) << bad << " " << b;
    EXPECT_EQ(b.Message().rfind(ErrorText(kAutoscaleMessage), 0), 0u) << b.Message();
  }
  // Manual content on an autoscale offer, without the migrate header: refused.
  auto manual = Put("/offers/AQAA", R"({"id":"AQAA","content":{"offerThroughput":1000}})");
  EXPECT_EQ(manual.status(), 400) << manual;
  EXPECT_NE(manual.Message().find("x-ms-cosmos-migrate-offer-to-manual-throughput"), std::string::npos)
      << manual.Message();
}

TEST_F(OffersTest, MigrateBetweenManualAndAutoscale) {
  MakeDatabase("db1");
  MakeContainer("db1", "c1");
  MakeContainerWith("db1", "c2", {{"x-ms-offer-throughput", "5500"}});
  const std::string c1 = OfferOf(SelfOf("/dbs/db1/colls/c1"));

  // Autoscale settings on a manual offer, without the header: refused.
  auto no_header = Put("/offers/AQAA", WithThroughput(c1, 4000, /*autoscale=*/true));
  EXPECT_EQ(no_header.status(), 400) << no_header;
  EXPECT_NE(no_header.Message().find("x-ms-cosmos-migrate-offer-to-autopilot"), std::string::npos)
      << no_header.Message();

  // Manual 400 -> autoscale: the maximum becomes 4000 (the body's throughput is ignored).
  auto to_auto = Put("/offers/AQAA", WithThroughput(c1, -1), {{"x-ms-cosmos-migrate-offer-to-autopilot", "true"}});
  ASSERT_EQ(to_auto.status(), 200) << to_auto;
  auto a = to_auto.Json();
  EXPECT_EQ(a["content"]["offerThroughput"].GetInt(), 400);
  EXPECT_EQ(a["content"]["offerAutopilotSettings"]["maxThroughput"].GetInt(), 4000);
  EXPECT_EQ(a["content"]["offerMinimumThroughputParameters"]["maxThroughputEverProvisioned"].GetInt(), 4000);
  EXPECT_TRUE(account_.FindOffer("AQAA")->throughput().autoscale);
  EXPECT_EQ(Get("/offers/AQAA").Header("x-ms-cosmos-min-throughput"), "1000");
  // Already autoscale.
  EXPECT_EQ(Put("/offers/AQAA", to_auto.body(), {{"x-ms-cosmos-migrate-offer-to-autopilot", "true"}}).status(), 400);

  // Autoscale -> manual: the RU/s become the previous maximum.
  auto to_manual =
      Put("/offers/AQAA", to_auto.body(), {{"x-ms-cosmos-migrate-offer-to-manual-throughput", "True"}});
  ASSERT_EQ(to_manual.status(), 200) << to_manual;
  auto m = to_manual.Json();
  EXPECT_EQ(m["content"]["offerThroughput"].GetInt(), 4000);
  EXPECT_FALSE(m["content"].HasMember("offerAutopilotSettings"));
  EXPECT_FALSE(account_.FindOffer("AQAA")->throughput().autoscale);
  EXPECT_EQ(Put("/offers/AQAA", to_manual.body(), {{"x-ms-cosmos-migrate-offer-to-manual-throughput", "true"}}).status(),
            400);

  // Manual 5500 -> autoscale maximum 6000 (rounded up to a multiple of 1000).
  const std::string c2 = OfferOf(SelfOf("/dbs/db1/colls/c2"));
  auto up = Put("/offers/AgAA", c2, {{"x-ms-cosmos-migrate-offer-to-autopilot", "true"}});
  ASSERT_EQ(up.status(), 200) << up;
  EXPECT_EQ(up.Json()["content"]["offerAutopilotSettings"]["maxThroughput"].GetInt(), 6000);
  EXPECT_EQ(up.Json()["content"]["offerThroughput"].GetInt(), 600);

  // Both headers: refused.
  auto both = Put("/offers/AgAA", up.body(),
                  {{"x-ms-cosmos-migrate-offer-to-autopilot", "true"},
                   {"x-ms-cosmos-migrate-offer-to-manual-throughput", "true"}});
  EXPECT_EQ(both.status(), 400) << both;
}

// ---- shared throughput and deletion ---------------------------------------------------------

TEST_F(OffersTest, SharedThroughputDatabase) {
  MakeDatabase("shared", {{"x-ms-offer-throughput", "1000"}});
  MakeContainer("shared", "s1");
  MakeContainer("shared", "s2");
  auto list = Get("/offers");
  ASSERT_EQ(list.status(), 200) << list;
  auto d = list.Json();
  ASSERT_EQ(d["Offers"].Size(), 1u) << list;
  const std::string db_self = SelfOf("/dbs/shared");
  Expected e{db_self, RidOf("/dbs/shared"), 1000, 1000, {}, {}, "AQAA", "", 0};
  EXPECT_EQ(list.body(), "{\"_rid\":\"\",\"Offers\":[" + WithSystem(e, d["Offers"][0]).Json() + "],\"_count\":1}");
  EXPECT_EQ(OfferOf(db_self), json::Write(d["Offers"][0]));

  for (const char* c : {"s1", "s2"}) {
    auto none = QueryByResource(SelfOf(std::string("/dbs/shared/colls/") + c));
    ASSERT_EQ(none.status(), 200) << none;
    EXPECT_EQ(none.body(), "{\"_rid\":\"\",\"Offers\":[],\"_count\":0}");
    EXPECT_EQ(none.Header("x-ms-item-count"), "0");
  }

  // Replacing the database offer changes what its containers share.
  auto r = Put("/offers/AQAA", WithThroughput(json::Write(d["Offers"][0]), 2000));
  ASSERT_EQ(r.status(), 200) << r;
  auto c = account_.FindDatabase("shared")->FindContainer("s1");
  EXPECT_EQ(c->budget_offer()->throughput().ru, 2000);
  EXPECT_EQ(c->budget_offer()->partitions(), 2);  // one partition per container, unchanged

  // A container with its own throughput in the shared database has its own offer.
  auto own = Post("/dbs/shared/colls", R"({"id":"own","partitionKey":{"paths":["/pk"]}})",
                  {{"x-ms-offer-throughput", "400"}});
  ASSERT_EQ(own.status(), 201) << own;
  EXPECT_EQ(IdIn(OfferOf(own.Str("_self"))), "AgAA");
  EXPECT_EQ(Get("/offers").Header("x-ms-item-count"), "2");
}

TEST_F(OffersTest, DeletingAContainerRemovesItsOffer) {
  MakeDatabase("db1");
  MakeContainer("db1", "c1");
  MakeContainer("db1", "c2");
  const std::string c1 = SelfOf("/dbs/db1/colls/c1");
  EXPECT_EQ(Get("/offers").Header("x-ms-item-count"), "2");
  ASSERT_EQ(Delete("/dbs/db1/colls/c1").status(), 204);
  auto list = Get("/offers");
  ASSERT_EQ(list.status(), 200) << list;
  EXPECT_EQ(list.Header("x-ms-item-count"), "1");
  EXPECT_STREQ(list.Json()["Offers"][0]["id"].GetString(), "AgAA");
  EXPECT_EQ(QueryByResource(c1).body(), "{\"_rid\":\"\",\"Offers\":[],\"_count\":0}");
  EXPECT_EQ(Get("/offers/AQAA").status(), 404);
  // Deleting the database removes the rest.
  ASSERT_EQ(Delete("/dbs/db1").status(), 204);
  EXPECT_EQ(Get("/offers").body(), "{\"_rid\":\"\",\"Offers\":[],\"_count\":0}");
}

}  // namespace
}  // namespace cosmos::testing
