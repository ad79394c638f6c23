// Databases, containers and partition key ranges through Handle().
#include <regex>

#include "http_test_util.h"

namespace cosmos::testing {
namespace {

class ResourcesTest : public EmulatorTest {};

std::vector<std::string> Keys(const json::Value& v) {
  std::vector<std::string> keys;
  for (auto& m : v.GetObject()) keys.emplace_back(m.name.GetString());
  return keys;
}

const std::regex kEtag(R"re("[0-9a-f]{8}-0000-0100-0000-[0-9a-f]{8}0000")re");

// ---- databases ------------------------------------------------------------------------------

TEST_F(ResourcesTest, CreateDatabase) {
  auto r = Post("/dbs", R"({"id":"db1"})");
  ASSERT_EQ(r.status(), 201) << r;
  EXPECT_EQ(r.Charge(), "1");
  auto d = r.Json();
  EXPECT_EQ(Keys(d), (std::vector<std::string>{"id", "_rid", "_self", "_etag", "_colls", "_users", "_ts"}));
  EXPECT_STREQ(d["id"].GetString(), "db1");
  EXPECT_STREQ(d["_rid"].GetString(), "AQBAAA==");
  EXPECT_STREQ(d["_self"].GetString(), "dbs/AQBAAA==/");
  EXPECT_STREQ(d["_colls"].GetString(), "colls/");
  EXPECT_STREQ(d["_users"].GetString(), "users/");
  EXPECT_LE(std::llabs(d["_ts"].GetInt64() - util::UnixSeconds()), 2);
  EXPECT_EQ(r.Header("etag"), d["_etag"].GetString());
  EXPECT_TRUE(std::regex_match(r.Header("etag"), kEtag)) << r.Header("etag");
}

// x-ms-alt-content-path names the owner of what was addressed (the Java SDK builds each resource's
// alt link from it, and its change feed needs the container's): none for databases.
TEST_F(ResourcesTest, AltContentPathNamesTheOwner) {
  MakeDatabase("d");
  MakeContainer("d", "c");
  EXPECT_FALSE(Get("/dbs/d").Has("x-ms-alt-content-path"));
  EXPECT_EQ(Get("/dbs/d/colls/c").Header("x-ms-alt-content-path"), "dbs/d");
  EXPECT_EQ(Get("/dbs/d/colls").Header("x-ms-alt-content-path"), "dbs/d");
  auto rid = Get("/dbs/d/colls/c").Str("_rid");
  auto db_rid = Get("/dbs/d").Str("_rid");
  EXPECT_EQ(Get("/dbs/" + db_rid + "/colls/" + rid).Header("x-ms-alt-content-path"), "dbs/d");
  auto sproc = Post("/dbs/d/colls/c/sprocs", R"({"id":"s","body":"function () {}"})");
  EXPECT_EQ(sproc.status(), 201) << sproc;
  EXPECT_EQ(sproc.Header("x-ms-alt-content-path"), "dbs/d/colls/c");
  EXPECT_FALSE(Get("/dbs/d/colls/nope").Has("x-ms-alt-content-path"));  // errors name nothing
}

TEST_F(ResourcesTest, CreateDuplicateDatabaseIs409) {
  MakeDatabase("db1");
  auto r = Post("/dbs", R"({"id":"db1"})");
  EXPECT_EQ(r.status(), 409);
  EXPECT_EQ(r.Code(), "Conflict");
  EXPECT_EQ(r.Charge(), "1.24");
  EXPECT_EQ(r.Message().rfind(
                "Message: {\"Errors\":[\"Resource with specified id, name, or unique index already exists.\"]}\r\n"
                "ActivityId: ",
                0),
            0u)
      << r.Message();
  // Ids are case-sensitive.
  EXPECT_EQ(Post("/dbs", R"({"id":"DB1"})").status(), 201);
}

TEST_F(ResourcesTest, ReadListDeleteDatabase) {
  MakeDatabase("db1");
  MakeDatabase("db2");
  auto read = Get("/dbs/db1");
  ASSERT_EQ(read.status(), 200) << read;
  EXPECT_EQ(read.Charge(), "2");
  EXPECT_EQ(read.Str("id"), "db1");
  EXPECT_EQ(read.Header("etag"), read.Str("_etag"));

  auto list = Get("/dbs");
  ASSERT_EQ(list.status(), 200) << list;
  EXPECT_EQ(list.Charge(), "2");
  EXPECT_EQ(list.Header("x-ms-item-count"), "2");
  auto d = list.Json();
  EXPECT_EQ(Keys(d), (std::vector<std::string>{"_rid", "Databases", "_count"}));
  EXPECT_STREQ(d["_rid"].GetString(), "");
  EXPECT_EQ(d["_count"].GetInt(), 2);
  ASSERT_EQ(d["Databases"].Size(), 2u);
  EXPECT_STREQ(d["Databases"][0]["id"].GetString(), "db1");
  EXPECT_STREQ(d["Databases"][1]["id"].GetString(), "db2");
  EXPECT_EQ(json::Write(d["Databases"][0]), read.body());

  auto del = Delete("/dbs/db1");
  EXPECT_EQ(del.status(), 204);
  EXPECT_EQ(del.body(), "");
  EXPECT_EQ(del.Charge(), "1");
  EXPECT_FALSE(del.Has("content-type"));

  auto gone = Get("/dbs/db1");
  EXPECT_EQ(gone.status(), 404);
  EXPECT_EQ(gone.Code(), "NotFound");
  EXPECT_EQ(gone.Charge(), "2");
  EXPECT_EQ(gone.Message().rfind("Message: {\"Errors\":[\"Resource Not Found.\"]}\r\nActivityId: ", 0), 0u)
      << gone.Message();
  auto again = Delete("/dbs/db1");
  EXPECT_EQ(again.status(), 404);
  EXPECT_EQ(again.Code(), "NotFound");
  EXPECT_EQ(again.Charge(), "2");
  EXPECT_EQ(Get("/dbs").Header("x-ms-item-count"), "1");
}

TEST_F(ResourcesTest, DatabaseAndContainerListsArePaged) {
  for (const char* id : {"a", "b", "c"}) MakeDatabase(id);
  auto p1 = Get("/dbs", {{"x-ms-max-item-count", "2"}});
  ASSERT_EQ(p1.status(), 200) << p1;
  EXPECT_EQ(p1.Header("x-ms-item-count"), "2");
  EXPECT_EQ(p1.Header("x-ms-continuation"), "2");
  auto d1 = p1.Json();
  EXPECT_EQ(d1["_count"].GetInt(), 2);
  EXPECT_STREQ(d1["Databases"][1]["id"].GetString(), "b");
  auto p2 = Get("/dbs", {{"x-ms-max-item-count", "2"}, {"x-ms-continuation", "2"}});
  ASSERT_EQ(p2.status(), 200) << p2;
  EXPECT_EQ(p2.Header("x-ms-item-count"), "1");
  EXPECT_FALSE(p2.Has("x-ms-continuation"));
  EXPECT_STREQ(p2.Json()["Databases"][0]["id"].GetString(), "c");
  EXPECT_EQ(Get("/dbs", {{"x-ms-max-item-count", "-1"}}).Header("x-ms-item-count"), "3");
  EXPECT_FALSE(Get("/dbs", {{"x-ms-max-item-count", "3"}}).Has("x-ms-continuation"));
  for (const char* bad : {"-2", "x"}) EXPECT_EQ(Get("/dbs", {{"x-ms-max-item-count", bad}}).status(), 400) << bad;
  // 0 is no page size given (the Java SDK sends it for TOP 0; the service answers).
  EXPECT_EQ(Get("/dbs", {{"x-ms-max-item-count", "0"}}).Header("x-ms-item-count"), "3");
  for (const char* bad : {"x", "4", "-1"}) EXPECT_EQ(Get("/dbs", {{"x-ms-continuation", bad}}).status(), 400) << bad;

  MakeContainer("a", "c1");
  MakeContainer("a", "c2");
  auto c1 = Get("/dbs/a/colls", {{"x-ms-max-item-count", "1"}});
  EXPECT_EQ(c1.Header("x-ms-item-count"), "1");
  EXPECT_EQ(c1.Header("x-ms-continuation"), "1");
  auto c2 = Get("/dbs/a/colls", {{"x-ms-max-item-count", "1"}, {"x-ms-continuation", "1"}});
  EXPECT_STREQ(c2.Json()["DocumentCollections"][0]["id"].GetString(), "c2");
  EXPECT_FALSE(c2.Has("x-ms-continuation"));
}

TEST_F(ResourcesTest, EmptyDatabaseList) {
  auto r = Get("/dbs");
  EXPECT_EQ(r.status(), 200);
  EXPECT_EQ(r.body(), R"({"_rid":"","Databases":[],"_count":0})");
  EXPECT_EQ(r.Header("x-ms-item-count"), "0");
}

TEST_F(ResourcesTest, DatabaseBodyErrors) {
  struct Case {
    std::string body;
    const char* message;
  };
  for (auto& c : std::vector<Case>{
           {R"({"id":)", "The request payload is invalid. Ensure to provide a valid request payload."},
           {"", "The request payload is invalid. Ensure to provide a valid request payload."},
           {"[]", "The request payload is invalid. Ensure to provide a valid request payload."},
           {R"("db")", "The request payload is invalid. Ensure to provide a valid request payload."},
           {R"({})", "The input content is invalid because the required properties - 'id; ' - are missing."},
           {R"({"id":null})", "The input content is invalid because the required properties - 'id; ' - are missing."},
           {R"({"id":5})", "The input content is invalid because the property 'id' must be a string."},
           {R"({"id":""})", "The input name '' is invalid."},
           {R"({"id":"a/b"})", "The input name 'a/b' is invalid."},
           {R"({"id":"a?b"})", "The input name 'a?b' is invalid."},
           {R"({"id":"a#b"})", "The input name 'a#b' is invalid."},
           {R"({"id":"a\\b"})", "is invalid."},
           {"{\"id\":\"" + std::string(256, 'x') + "\"}", "exceeds the maximum length of 255 characters."}}) {
    auto r = Post("/dbs", c.body);
    EXPECT_EQ(r.status(), 400) << c.body;
    EXPECT_EQ(r.Code(), "BadRequest") << c.body;
    EXPECT_FALSE(r.Has("x-ms-substatus")) << c.body;
    EXPECT_NE(r.Message().find(c.message), std::string::npos) << c.body << " -> " << r.Message();
  }
  EXPECT_EQ(Get("/dbs").Header("x-ms-item-count"), "0");
  EXPECT_EQ(Post("/dbs", "{\"id\":\"" + std::string(255, 'x') + "\"}").status(), 201);
  // 255 characters, not bytes.
  std::string accented;
  for (int i = 0; i < 255; ++i) accented += "é";
  EXPECT_EQ(Post("/dbs", "{\"id\":\"" + accented + "\"}").status(), 201);
}

TEST_F(ResourcesTest, DatabaseThroughputHeaders) {
  EXPECT_EQ(Post("/dbs", R"({"id":"a"})", {{"x-ms-offer-throughput", "400"}}).status(), 201);
  EXPECT_EQ(Post("/dbs", R"({"id":"b"})", {{"x-ms-offer-throughput", "1000000"}}).status(), 201);
  EXPECT_EQ(
      Post("/dbs", R"({"id":"c"})", {{"x-ms-cosmos-offer-autopilot-settings", R"({"maxThroughput":4000})"}}).status(),
      201);
  for (const char* bad : {"300", "450", "abc", "400x", "1000100", ""}) {
    auto r = Post("/dbs", R"({"id":"x"})", {{"x-ms-offer-throughput", bad}});
    EXPECT_EQ(r.status(), 400) << bad;
    EXPECT_EQ(r.Code(), "BadRequest") << bad;
  }
  for (const char* bad : {R"({"maxThroughput":500})", R"({"maxThroughput":1500})", "{}", "x"}) {
    auto r = Post("/dbs", R"({"id":"x"})", {{"x-ms-cosmos-offer-autopilot-settings", bad}});
    EXPECT_EQ(r.status(), 400) << bad;
  }
  EXPECT_EQ(Get("/dbs/x").status(), 404);
}

// ---- containers -----------------------------------------------------------------------------

TEST_F(ResourcesTest, CreateContainerDefaults) {
  MakeDatabase("db1");
  auto r = Post("/dbs/db1/colls", R"({"id":"c1","partitionKey":{"paths":["/pk"]}})");
  ASSERT_EQ(r.status(), 201) << r;
  EXPECT_EQ(r.Charge(), "1");
  auto d = r.Json();
  EXPECT_EQ(Keys(d), (std::vector<std::string>{"id", "indexingPolicy", "partitionKey", "conflictResolutionPolicy",
                                               "geospatialConfig", "_rid", "_ts", "_self", "_etag", "_docs", "_sprocs",
                                               "_triggers", "_udfs", "_conflicts"}));
  EXPECT_EQ(
      json::Write(d["indexingPolicy"]),
      R"({"indexingMode":"consistent","automatic":true,"includedPaths":[{"path":"/*"}],"excludedPaths":[{"path":"/\"_etag\"/?"}]})");
  EXPECT_EQ(json::Write(d["partitionKey"]), R"({"paths":["/pk"],"kind":"Hash","version":1})");
  EXPECT_EQ(json::Write(d["conflictResolutionPolicy"]),
            R"({"mode":"LastWriterWins","conflictResolutionPath":"/_ts","conflictResolutionProcedure":""})");
  EXPECT_EQ(json::Write(d["geospatialConfig"]), R"({"type":"Geography"})");
  EXPECT_STREQ(d["_rid"].GetString(), "AQBAAIAAAAE=");
  EXPECT_STREQ(d["_self"].GetString(), "dbs/AQBAAA==/colls/AQBAAIAAAAE=/");
  EXPECT_STREQ(d["_docs"].GetString(), "docs/");
  EXPECT_STREQ(d["_sprocs"].GetString(), "sprocs/");
  EXPECT_STREQ(d["_triggers"].GetString(), "triggers/");
  EXPECT_STREQ(d["_udfs"].GetString(), "udfs/");
  EXPECT_STREQ(d["_conflicts"].GetString(), "conflicts/");
  EXPECT_EQ(r.Header("etag"), d["_etag"].GetString());
  EXPECT_TRUE(std::regex_match(r.Header("etag"), kEtag));
  EXPECT_NE(r.Header("etag"), Get("/dbs/db1").Header("etag"));
}

TEST_F(ResourcesTest, CreateContainerWithSettings) {
  MakeDatabase("db1");
  auto r = Post("/dbs/db1/colls",
                R"({"id":"c1","partitionKey":{"paths":["/a","/b"],"kind":"MultiHash","version":2},"defaultTtl":3600,)"
                R"("indexingPolicy":{"indexingMode":"consistent","excludedPaths":[{"path":"/big/*"}]},)"
                R"("conflictResolutionPolicy":{"mode":"Custom","conflictResolutionProcedure":"p"},)"
                R"("uniqueKeyPolicy":{"uniqueKeys":[]},"computedProperties":[]})");
  ASSERT_EQ(r.status(), 201) << r;
  auto d = r.Json();
  EXPECT_EQ(json::Write(d["partitionKey"]), R"({"paths":["/a","/b"],"kind":"MultiHash","version":2})");
  EXPECT_EQ(d["defaultTtl"].GetInt(), 3600);
  EXPECT_EQ(json::Write(d["indexingPolicy"]["excludedPaths"]), R"([{"path":"/big/*"},{"path":"/\"_etag\"/?"}])");
  EXPECT_EQ(json::Write(d["conflictResolutionPolicy"]), R"({"mode":"Custom","conflictResolutionProcedure":"p"})");
  EXPECT_EQ(Keys(d)[3], "defaultTtl");
}

TEST_F(ResourcesTest, ContainerWithoutPartitionKeyUsesSystemKey) {
  MakeDatabase("db1");
  auto r = Post("/dbs/db1/colls", R"({"id":"c1"})");
  ASSERT_EQ(r.status(), 201) << r;
  EXPECT_EQ(json::Write(r.Json()["partitionKey"]),
            R"({"paths":["/_partitionKey"],"kind":"Hash","version":1,"systemKey":true})");
}

TEST_F(ResourcesTest, SharedThroughputContainerNeedsPartitionKey) {
  MakeDatabase("db1", {{"x-ms-offer-throughput", "400"}});
  auto r = Post("/dbs/db1/colls", R"({"id":"nokey"})");
  EXPECT_EQ(r.status(), 400);
  EXPECT_EQ(r.Code(), "BadRequest");
  EXPECT_EQ(r.Message().rfind("Shared throughput collection should have a partition key\r\nActivityId: ", 0), 0u)
      << r.Message();
}

TEST_F(ResourcesTest, ContainerErrors) {
  EXPECT_EQ(Post("/dbs/nodb/colls", R"({"id":"c1","partitionKey":{"paths":["/pk"]}})").Code(), "NotFound");
  MakeDatabase("db1");
  MakeContainer("db1", "c1");
  auto dup = Post("/dbs/db1/colls", R"({"id":"c1","partitionKey":{"paths":["/pk"]}})");
  EXPECT_EQ(dup.status(), 409);
  EXPECT_EQ(dup.Code(), "Conflict");
  EXPECT_EQ(dup.Charge(), "1.24");
  for (const char* bad :
       {R"({"partitionKey":{"paths":["/pk"]}})", R"({"id":"c/2","partitionKey":{"paths":["/pk"]}})",
        R"({"id":"c2","partitionKey":{"paths":["pk"]}})", R"({"id":"c2","partitionKey":{"paths":[]}})",
        R"({"id":"c2","partitionKey":"/pk"})", R"({"id":"c2","partitionKey":{"paths":["/a","/b"],"kind":"Hash"}})",
        R"({"id":"c2","partitionKey":{"paths":["/pk"]},"defaultTtl":0})",
        R"({"id":"c2","partitionKey":{"paths":["/pk"]},"defaultTtl":-2})",
        R"({"id":"c2","partitionKey":{"paths":["/pk"]},"defaultTtl":"1"})",
        R"({"id":"c2","partitionKey":{"paths":["/pk"]},"indexingPolicy":{"indexingMode":"fast"}})", R"([])",
        R"({"id":"c2","partitionKey":{"paths":["/pk"]},"computedProperties":{"name":"x","query":"SELECT VALUE 1 FROM c"}})",
        R"({"id":"c2","partitionKey":{"paths":["/pk"]},"computedProperties":[{"name":"x","query":"SELECT 1 FROM c"}]})",
        R"({"id":"c2")"}) {
    auto r = Post("/dbs/db1/colls", bad);
    EXPECT_EQ(r.status(), 400) << bad;
    EXPECT_EQ(r.Code(), "BadRequest") << bad;
  }
  for (const char* unsupported : {R"({"id":"c2","partitionKey":{"paths":["/pk"],"kind":"Range"}})"}) {
    auto r = Post("/dbs/db1/colls", unsupported);
    EXPECT_EQ(r.status(), 501) << unsupported;
    EXPECT_EQ(r.Code(), "NotImplemented") << unsupported;
  }
  EXPECT_EQ(Get("/dbs/db1/colls").Header("x-ms-item-count"), "1");
}

TEST_F(ResourcesTest, ReadListDeleteContainer) {
  MakeDatabase("db1");
  MakeContainer("db1", "c1");
  MakeContainer("db1", "c2");
  auto read = Get("/dbs/db1/colls/c1");
  ASSERT_EQ(read.status(), 200) << read;
  EXPECT_EQ(read.Charge(), "2");
  EXPECT_EQ(read.Str("id"), "c1");
  EXPECT_EQ(read.Header("etag"), read.Str("_etag"));

  auto list = Get("/dbs/db1/colls");
  ASSERT_EQ(list.status(), 200);
  EXPECT_EQ(list.Charge(), "2");
  EXPECT_EQ(list.Header("x-ms-item-count"), "2");
  auto d = list.Json();
  EXPECT_EQ(Keys(d), (std::vector<std::string>{"_rid", "DocumentCollections", "_count"}));
  EXPECT_STREQ(d["_rid"].GetString(), "AQBAAA==");
  EXPECT_EQ(d["_count"].GetInt(), 2);
  EXPECT_EQ(json::Write(d["DocumentCollections"][0]), read.body());
  EXPECT_STREQ(d["DocumentCollections"][1]["_rid"].GetString(), "AQBAAIAAAAI=");

  EXPECT_EQ(Get("/dbs/db1/colls/nope").Code(), "NotFound");
  EXPECT_EQ(Get("/dbs/db1/colls/nope").Charge(), "2");
  EXPECT_EQ(Get("/dbs/nodb/colls/c1").status(), 404);
  EXPECT_EQ(Get("/dbs/nodb/colls").status(), 404);

  auto del = Delete("/dbs/db1/colls/c1");
  EXPECT_EQ(del.status(), 204);
  EXPECT_EQ(del.body(), "");
  EXPECT_EQ(del.Charge(), "1");
  EXPECT_EQ(Get("/dbs/db1/colls/c1").status(), 404);
  auto again = Delete("/dbs/db1/colls/c1");
  EXPECT_EQ(again.status(), 404);
  EXPECT_EQ(again.Charge(), "2");
  EXPECT_EQ(Get("/dbs/db1/colls").Header("x-ms-item-count"), "1");
}

TEST_F(ResourcesTest, DeletingDatabaseRemovesItsContainers) {
  MakeDatabase("db1");
  MakeContainer("db1", "c1");
  EXPECT_EQ(Delete("/dbs/db1").status(), 204);
  EXPECT_EQ(Get("/dbs/db1/colls/c1").status(), 404);
  MakeDatabase("db1");
  EXPECT_EQ(Get("/dbs/db1/colls/c1").status(), 404);
  EXPECT_EQ(Get("/dbs/db1/colls").Header("x-ms-item-count"), "0");
}

TEST_F(ResourcesTest, ReplaceContainer) {
  MakeDatabase("db1");
  MakeContainer("db1", "c1");
  const std::string etag = Get("/dbs/db1/colls/c1").Header("etag");
  auto r = Put("/dbs/db1/colls/c1", R"({"id":"c1","partitionKey":{"paths":["/pk"],"kind":"Hash"},"defaultTtl":60,)"
                                    R"("indexingPolicy":{"indexingMode":"none","automatic":false}})");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.Charge(), "1");
  EXPECT_NE(r.Header("etag"), etag);
  EXPECT_EQ(r.Header("etag"), r.Str("_etag"));
  auto d = r.Json();
  EXPECT_EQ(d["defaultTtl"].GetInt(), 60);
  EXPECT_STREQ(d["indexingPolicy"]["indexingMode"].GetString(), "none");
  EXPECT_STREQ(d["_rid"].GetString(), "AQBAAIAAAAE=");
  EXPECT_EQ(Get("/dbs/db1/colls/c1").body(), r.body());

  auto stale = Put("/dbs/db1/colls/c1", R"({"id":"c1","partitionKey":{"paths":["/pk"]}})", {{"if-match", etag}});
  EXPECT_EQ(stale.status(), 412);
  EXPECT_EQ(stale.Code(), "PreconditionFailed");
  auto ok =
      Put("/dbs/db1/colls/c1", R"({"id":"c1","partitionKey":{"paths":["/pk"]}})", {{"if-match", r.Header("etag")}});
  EXPECT_EQ(ok.status(), 200) << ok;
  EXPECT_FALSE(ok.Json().HasMember("defaultTtl"));

  auto mismatch = Put("/dbs/db1/colls/c1", R"({"id":"c2","partitionKey":{"paths":["/pk"]}})");
  EXPECT_EQ(mismatch.status(), 400);
  EXPECT_EQ(mismatch.Code(), "BadRequest");
  auto pk_change = Put("/dbs/db1/colls/c1", R"({"id":"c1","partitionKey":{"paths":["/other"]}})");
  EXPECT_EQ(pk_change.status(), 400);
  EXPECT_NE(pk_change.Message().find("The partition key of a container cannot be changed."), std::string::npos);
  EXPECT_EQ(Put("/dbs/db1/colls/nope", R"({"id":"nope"})").status(), 404);
  EXPECT_EQ(Put("/dbs/db1/colls/c1", R"({"id":)").status(), 400);
}

// ---- partition key ranges -------------------------------------------------------------------

TEST_F(ResourcesTest, PartitionKeyRanges) {
  MakeDatabase("db1");
  MakeContainer("db1", "c1");
  const std::string coll_etag = Get("/dbs/db1/colls/c1").Header("etag");
  auto r = Get("/dbs/db1/colls/c1/pkranges");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.Charge(), "2");
  EXPECT_EQ(r.Header("x-ms-item-count"), "1");
  EXPECT_EQ(r.Header("etag"), coll_etag);
  auto d = r.Json();
  EXPECT_EQ(Keys(d), (std::vector<std::string>{"_rid", "PartitionKeyRanges", "_count"}));
  EXPECT_STREQ(d["_rid"].GetString(), "AQBAAIAAAAE=");
  EXPECT_EQ(d["_count"].GetInt(), 1);
  ASSERT_EQ(d["PartitionKeyRanges"].Size(), 1u);
  const auto& range = d["PartitionKeyRanges"][0];
  EXPECT_STREQ(range["id"].GetString(), "0");
  EXPECT_STREQ(range["minInclusive"].GetString(), "");
  EXPECT_STREQ(range["maxExclusive"].GetString(), "FF");
  EXPECT_EQ(range["ridPrefix"].GetInt(), 0);
  EXPECT_EQ(range["throughputFraction"].GetDouble(), 1.0);
  EXPECT_STREQ(range["status"].GetString(), "online");
  EXPECT_TRUE(range["parents"].IsArray() && range["parents"].Empty());
  // The range's own resource id: container rid + 02 00 00 00 00 00 00 50, as the service's first range.
  EXPECT_STREQ(range["_rid"].GetString(), "AQBAAIAAAAECAAAAAAAAUA==");
  EXPECT_STREQ(range["_self"].GetString(), "dbs/AQBAAA==/colls/AQBAAIAAAAE=/pkranges/AQBAAIAAAAECAAAAAAAAUA==/");
  EXPECT_EQ(range["_etag"].GetString(), coll_etag);
  EXPECT_EQ(Keys(range), (std::vector<std::string>{"_rid", "id", "_etag", "minInclusive", "maxExclusive", "ridPrefix",
                                                   "_self", "throughputFraction", "status", "parents",
                                                   "ownedArchivalPKRangeIds", "_ts", "lsn"}));
  EXPECT_NE(r.body().find("\"throughputFraction\":1,"), std::string::npos) << r.body();
}

TEST_F(ResourcesTest, PartitionKeyRangesIncrementalFeed) {
  MakeDatabase("db1");
  MakeContainer("db1", "c1");
  const std::string etag = Get("/dbs/db1/colls/c1/pkranges").Header("etag");
  auto unchanged = Get("/dbs/db1/colls/c1/pkranges", {{"a-im", "Incremental Feed"}, {"if-none-match", etag}});
  EXPECT_EQ(unchanged.status(), 304);
  EXPECT_EQ(unchanged.body(), "");
  EXPECT_EQ(unchanged.Header("etag"), etag);
  EXPECT_EQ(unchanged.Charge(), "2");
  // Without A-IM, or with another etag, the ranges come back.
  EXPECT_EQ(Get("/dbs/db1/colls/c1/pkranges", {{"if-none-match", etag}}).status(), 200);
  EXPECT_EQ(Get("/dbs/db1/colls/c1/pkranges", {{"a-im", "Incremental Feed"}, {"if-none-match", "\"0\""}}).status(),
            200);
  EXPECT_EQ(Get("/dbs/db1/colls/c1/pkranges", {{"a-im", "Incremental Feed"}}).status(), 200);
  EXPECT_EQ(Get("/dbs/db1/colls/nope/pkranges").status(), 404);
}

}  // namespace
}  // namespace cosmos::testing

namespace cosmos::testing {
namespace {

// Every _ts reads the emulator's clock, which POST /_emulator/clock moves: databases, containers,
// offers, users, permissions, scripts and client encryption keys as items.
TEST_F(ResourcesTest, EveryTimestampReadsTheEmulatorsClock) {
  const int64_t day = 86400;
  ASSERT_EQ(Call(bh::verb::post, "/_emulator/clock", R"({"advanceSeconds":86400})").status(), 200);
  const int64_t now = wall_.UnixSeconds();
  ASSERT_GE(now, util::UnixSeconds() + day - 5);
  auto ts = [](const Reply& r) { return r.Json()["_ts"].GetInt64(); };
  auto db = Post("/dbs", R"({"id":"d"})", {{"x-ms-offer-throughput", "400"}});
  ASSERT_EQ(db.status(), 201) << db;
  EXPECT_EQ(ts(db), now);
  auto c = Post("/dbs/d/colls", R"({"id":"c","partitionKey":{"paths":["/pk"]}})");
  EXPECT_EQ(ts(c), now);
  auto replaced = Put("/dbs/d/colls/c", R"({"id":"c","partitionKey":{"paths":["/pk"]},"defaultTtl":5})");
  EXPECT_EQ(ts(replaced), now);
  auto offers = Get("/offers").Json();
  ASSERT_GE(offers["Offers"].Size(), 1u);
  for (const auto& o : offers["Offers"].GetArray()) EXPECT_EQ(o["_ts"].GetInt64(), now);
  auto user = Post("/dbs/d/users", R"({"id":"u"})");
  EXPECT_EQ(ts(user), now);
  auto perm = Post("/dbs/d/users/u/permissions", R"({"id":"p","permissionMode":"Read","resource":"dbs/d/colls/c"})");
  EXPECT_EQ(ts(perm), now);
  auto sproc = Post("/dbs/d/colls/c/sprocs", R"({"id":"s","body":"function(){}"})");
  EXPECT_EQ(ts(sproc), now);
  auto item = CreateDoc("d", "c", R"({"id":"i","pk":"a"})", R"(["a"])");
  EXPECT_EQ(ts(item), now);
}

}  // namespace
}  // namespace cosmos::testing
