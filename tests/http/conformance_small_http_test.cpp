// Small conformance causes, each as the service answers: legacy indexing policies, the
// "/_partitionKey" key, null time to live, invalid key paths, quota headers on a container read,
// the all-versions change feed's refusals, and malformed or foreign offer ids.
#include "http_test_util.h"

namespace cosmos::testing {
namespace {

class ConformanceSmallTest : public EmulatorTest {
 protected:
  void SetUp() override { MakeDatabase("db"); }
  Reply CreateColl(const std::string& body) { return Post("/dbs/db/colls", body); }
};

// ---- A: legacy indexing policies ---------------------------------------------------------------

TEST_F(ConformanceSmallTest, LegacyRootIncludedPathIsAcceptedAsWildcard) {
  auto r = CreateColl(
      R"({"id":"legacy","partitionKey":{"paths":["/pk"]},"indexingPolicy":{"indexingMode":"consistent",)"
      R"("automatic":true,"includedPaths":[{"path":"/","indexes":[{"kind":"Range","dataType":"Number","precision":-1},)"
      R"({"kind":"Hash","dataType":"String","precision":3}]}]}})");
  ASSERT_EQ(r.status(), 201) << r;
  const std::string expected =
      R"({"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*"}],)"
      R"("excludedPaths":[{"path":"/\"_etag\"/?"}]})";
  EXPECT_EQ(json::Write(r.Json()["indexingPolicy"]), expected);
  EXPECT_EQ(json::Write(Get("/dbs/db/colls/legacy").Json()["indexingPolicy"]), expected);
  // without indexes too
  auto bare = CreateColl(R"({"id":"bare","partitionKey":{"paths":["/pk"]},"indexingPolicy":{"includedPaths":[{"path":"/"}]}})");
  ASSERT_EQ(bare.status(), 201) << bare;
  EXPECT_EQ(json::Write(bare.Json()["indexingPolicy"]["includedPaths"]), R"([{"path":"/*"}])");
}

TEST_F(ConformanceSmallTest, LegacyIndexKindsAndModesRoundTrip) {
  auto r = CreateColl(
      R"({"id":"kinds","partitionKey":{"paths":["/pk"]},"indexingPolicy":{"indexingMode":"lazy","automatic":false,)"
      R"("includedPaths":[{"path":"/a/?","indexes":[{"kind":"Hash","dataType":"String","precision":3}]},)"
      R"({"path":"/loc/*","indexes":[{"kind":"Spatial","dataType":"Point"}]},{"path":"/*"}],)"
      R"("excludedPaths":[{"path":"/b/*"}]}})");
  ASSERT_EQ(r.status(), 201) << r;
  EXPECT_EQ(json::Write(r.Json()["indexingPolicy"]),
            R"({"indexingMode":"consistent","automatic":false,"includedPaths":[{"path":"/a/?"},{"path":"/loc/*"},)"
            R"({"path":"/*"}],"excludedPaths":[{"path":"/b/*"},{"path":"/\"_etag\"/?"}]})");
  auto none = CreateColl(
      R"({"id":"none","partitionKey":{"paths":["/pk"]},"indexingPolicy":{"indexingMode":"none","automatic":false}})");
  ASSERT_EQ(none.status(), 201) << none;
  EXPECT_EQ(json::Write(none.Json()["indexingPolicy"]),
            R"({"indexingMode":"none","automatic":false,"includedPaths":[],"excludedPaths":[]})");
}

// ---- B: "/_partitionKey" named by the body is a normal key -------------------------------------

TEST_F(ConformanceSmallTest, ExplicitUnderscorePartitionKeyIsNotSystemKey) {
  auto r = CreateColl(R"({"id":"upk","partitionKey":{"paths":["/_partitionKey"],"kind":"Hash"}})");
  ASSERT_EQ(r.status(), 201) << r;
  EXPECT_EQ(json::Write(r.Json()["partitionKey"]), R"({"paths":["/_partitionKey"],"kind":"Hash","version":1})");
  // An item without the property lives under the undefined key [{}]; a read needs the header.
  ASSERT_EQ(CreateDoc("db", "upk", R"({"id":"a"})", "[{}]").status(), 201);
  ASSERT_EQ(CreateDoc("db", "upk", R"({"id":"b","_partitionKey":"x"})", R"(["x"])").status(), 201);
  auto noHeader = Get("/dbs/db/colls/upk/docs/a");
  EXPECT_EQ(noHeader.status(), 400) << noHeader;
  EXPECT_EQ(noHeader.Substatus(), "1001");
  EXPECT_EQ(Get("/dbs/db/colls/upk/docs/a", {{"x-ms-documentdb-partitionkey", "[{}]"}}).status(), 200);
  EXPECT_EQ(Get("/dbs/db/colls/upk/docs/b", {{"x-ms-documentdb-partitionkey", R"(["x"])"}}).status(), 200);
  // "systemKey": true in the body still makes the system key.
  auto sys = CreateColl(R"({"id":"sys","partitionKey":{"paths":["/_partitionKey"],"kind":"Hash","systemKey":true}})");
  ASSERT_EQ(sys.status(), 201) << sys;
  EXPECT_TRUE(sys.Json()["partitionKey"]["systemKey"].GetBool());
}

// ---- C: null time to live -----------------------------------------------------------------------

TEST_F(ConformanceSmallTest, NullTtlIsRefused) {
  const std::string tail =
      "' is invalid. Ensure to provide a nonzero positive integer less than or equal to '2147483647', or '-1' which "
      "means never expire.";
  MakeContainer("db", "c", R"("defaultTtl":-1)");
  for (const char* v : {"null", "0", "-2", "2147483648"}) {
    auto r = CreateDoc("db", "c", std::string(R"({"id":"t","pk":"a","ttl":)") + v + "}", R"(["a"])");
    EXPECT_EQ(r.status(), 400) << v << " " << r;
    EXPECT_EQ(r.Code(), "BadRequest");
    EXPECT_EQ(ErrorText(r), std::string("The input ttl '") + v + tail) << v;
  }
  EXPECT_EQ(CreateDoc("db", "c", R"({"id":"max","pk":"a","ttl":2147483647})", R"(["a"])").status(), 201);
  // replace with a null ttl too
  auto put = Put("/dbs/db/colls/c/docs/max", R"({"id":"max","pk":"a","ttl":null})",
                 {{"x-ms-documentdb-partitionkey", R"(["a"])"}});
  EXPECT_EQ(put.status(), 400) << put;
  for (const char* v : {"null", "0"}) {
    auto r = CreateColl(std::string(R"({"id":"d","partitionKey":{"paths":["/pk"]},"defaultTtl":)") + v + "}");
    EXPECT_EQ(r.status(), 400) << v << " " << r;
    EXPECT_EQ(ErrorText(r), std::string("The input ttl '") + v + tail) << v;
  }
  auto rep = Put("/dbs/db/colls/c", R"({"id":"c","partitionKey":{"paths":["/pk"]},"defaultTtl":null})");
  EXPECT_EQ(rep.status(), 400) << rep;
  EXPECT_EQ(Get("/dbs/db/colls/c").Json()["defaultTtl"].GetInt(), -1);
}

// ---- D: invalid partition key paths -------------------------------------------------------------

TEST_F(ConformanceSmallTest, InvalidPartitionKeyPathsAre400) {
  const std::string tail =
      "'. Partition key paths must contain only valid characters and not contain a trailing slash or wildcard "
      "character.";
  const std::pair<const char*, int> cases[] = {{"/id ds", 4},  {"id", 0},   {"/a//b", 3},
                                               {"/a/", 3},     {"/", 1},    {"/*", 1},
                                               {"/a/*", 3},    {"/a.b", 2}, {"/asdwqr31 @#$#$WRadf", 10}};
  for (auto& [path, pos] : cases) {
    auto r = CreateColl(std::string(R"({"id":"bad","partitionKey":{"paths":[")") + path + "\"]}}");
    EXPECT_EQ(r.status(), 400) << path << " " << r;
    EXPECT_EQ(r.Code(), "BadRequest");
    EXPECT_EQ(ErrorText(r), std::string("The partition key component definition path '") + path +
                                "' could not be accepted, failed near position '" + std::to_string(pos) + tail)
        << path;
  }
  for (const char* ok : {"/id", "/a/b", "/\\\"odd name\\\"", "/user_id", "/my-key", "/_partitionKey"}) {
    auto r = CreateColl(std::string(R"({"id":"ok","partitionKey":{"paths":[")") + ok + "\"]}}");
    EXPECT_EQ(r.status(), 201) << ok << " " << r;
    EXPECT_EQ(Delete("/dbs/db/colls/ok").status(), 204);
  }
}

// ---- E: quota headers and index progress on a container read ----------------------------------

TEST_F(ConformanceSmallTest, PopulateQuotaInfoHeaders) {
  MakeContainer("db", "q");
  auto plain = Get("/dbs/db/colls/q");
  ASSERT_EQ(plain.status(), 200);
  EXPECT_FALSE(plain.Has("x-ms-resource-quota"));
  EXPECT_FALSE(plain.Has("x-ms-documentdb-collection-index-transformation-progress"));
  const std::string quota =
      "functions=25;storedProcedures=100;triggers=25;documentSize=10240;documentsSize=10485760;documentsCount=-1;"
      "collectionSize=10485760;";
  auto empty = Get("/dbs/db/colls/q", {{"x-ms-documentdb-populatequotainfo", "true"}});
  ASSERT_EQ(empty.status(), 200);
  EXPECT_EQ(empty.Header("x-ms-resource-quota"), quota);
  EXPECT_EQ(empty.Header("x-ms-resource-usage"),
            "functions=0;storedProcedures=0;triggers=0;documentSize=0;documentsSize=0;documentsCount=0;collectionSize=0;");
  EXPECT_EQ(empty.Header("x-ms-documentdb-collection-index-transformation-progress"), "100");
  EXPECT_FALSE(empty.Has("x-ms-documentdb-collection-lazy-indexing-progress"));
  // 3 items of 1,500 bytes of payload each (stored size with system properties: > 4.5 KB), a sproc
  const std::string pad(1500, 'x');
  size_t bytes = 0;
  for (int i = 0; i < 3; ++i) {
    auto c = CreateDoc("db", "q", R"({"id":"i)" + std::to_string(i) + R"(","pk":"a","p":")" + pad + "\"}", R"(["a"])");
    ASSERT_EQ(c.status(), 201);
    bytes += c.body().size();
  }
  ASSERT_EQ(Post("/dbs/db/colls/q/sprocs", R"({"id":"sp","body":"function(){}"})").status(), 201);
  auto full = Get("/dbs/db/colls/q", {{"x-ms-documentdb-populatequotainfo", "true"}});
  const std::string kb = std::to_string((bytes + 1023) / 1024);
  EXPECT_EQ(full.Header("x-ms-resource-usage"), "functions=0;storedProcedures=1;triggers=0;documentSize=0;documentsSize=" +
                                                    kb + ";documentsCount=3;collectionSize=" + kb + ";");
  EXPECT_EQ(full.Header("x-ms-resource-quota"), quota);
}

// ---- F: the all-versions change feed's refusals ------------------------------------------------

TEST_F(ConformanceSmallTest, AllVersionsRefusalsCarryTheRetentionSentence) {
  const std::string sentence = "You must read the change feed from within the retention period.";
  MakeContainer("db", "plain");
  MakeContainer("db", "kept", R"("changeFeedPolicy":{"retentionDuration":10})");
  const Headers avad = {{"A-IM", "Full-Fidelity Feed"}, {"x-ms-cosmos-changefeed-wire-format-version", "2021-09-15"}};
  auto now = avad;
  now.emplace_back("If-None-Match", "*");
  // Without a policy: a start before the log (which begins at the first such read) is outside the
  // retention window; from now is served.
  ASSERT_EQ(CreateDoc("db", "plain", R"({"id":"a","pk":"x"})", R"(["x"])").status(), 201);
  auto old = avad;
  old.emplace_back("If-None-Match", "\"0\"");
  auto noPolicy = Get("/dbs/db/colls/plain/docs", old);
  EXPECT_EQ(noPolicy.status(), 400) << noPolicy;
  EXPECT_NE(ErrorText(noPolicy).find(sentence), std::string::npos) << noPolicy;
  EXPECT_EQ(Get("/dbs/db/colls/plain/docs", now).status(), 304);
  auto beginning = Get("/dbs/db/colls/kept/docs", avad);
  EXPECT_EQ(beginning.status(), 400) << beginning;
  EXPECT_EQ(beginning.Code(), "BadRequest");
  EXPECT_NE(ErrorText(beginning).find(sentence), std::string::npos) << beginning;
  EXPECT_EQ(Get("/dbs/db/colls/kept/docs", now).status(), 304);
}

// ---- G: offers: malformed ids, foreign names in a replace ---------------------------------------

TEST_F(ConformanceSmallTest, MalformedOfferIdIs400) {
  MakeContainer("db", "c");
  auto list = Get("/offers").Json();
  const std::string id = list["Offers"][0]["id"].GetString();
  EXPECT_EQ(Get("/offers/" + id).status(), 200);
  for (const std::string& bad : {id + "x", std::string("undefined"), std::string("abc")}) {
    auto r = Get("/offers/" + bad);
    EXPECT_EQ(r.status(), 400) << bad << " " << r;
    EXPECT_EQ(r.Code(), "BadRequest");
    auto put = Put("/offers/" + bad, R"({"id":")" + bad + R"(","content":{"offerThroughput":500}})");
    EXPECT_EQ(put.status(), 400) << bad << " " << put;
  }
  EXPECT_EQ(Get("/offers/zzzz").status(), 404);  // well-formed, unknown
}

TEST_F(ConformanceSmallTest, OfferReplaceNamingAnotherResourceIs400) {
  MakeContainer("db", "c1");
  MakeContainer("db", "c2");
  auto offers = Get("/offers").Json();
  ASSERT_EQ(offers["Offers"].Size(), 2u);
  const std::string mine = json::Write(offers["Offers"][0]);
  const std::string other_rid = offers["Offers"][1]["_rid"].GetString();
  const std::string other_res = offers["Offers"][1]["resource"].GetString();
  const std::string other_res_rid = offers["Offers"][1]["offerResourceId"].GetString();
  const std::string id = offers["Offers"][0]["id"].GetString();
  auto with = [&](const char* key, const std::string& value) {
    json::Document d;
    json::Parse(mine, d);
    d[key].SetString(value.c_str(), static_cast<rapidjson::SizeType>(value.size()), d.GetAllocator());
    d["content"]["offerThroughput"].SetInt(500);
    return json::Write(d);
  };
  for (auto [key, value] : std::vector<std::pair<const char*, std::string>>{
           {"_rid", other_rid}, {"_rid", "NotAllowed"}, {"_rid", "InvalidRid"},
           {"resource", other_res}, {"offerResourceId", other_res_rid}}) {
    auto r = Put("/offers/" + id, with(key, value));
    EXPECT_EQ(r.status(), 400) << key << "=" << value << " " << r;
    EXPECT_EQ(r.Code(), "BadRequest");
  }
  EXPECT_EQ(Get("/offers/" + id).Json()["content"]["offerThroughput"].GetInt(), 400);  // unchanged
  auto ok = Put("/offers/" + id, with("_rid", id));
  EXPECT_EQ(ok.status(), 200) << ok;
  EXPECT_EQ(ok.Json()["content"]["offerThroughput"].GetInt(), 500);
}

}  // namespace
}  // namespace cosmos::testing
