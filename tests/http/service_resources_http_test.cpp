// Resources of the service beyond items and scripts, through Handle(): the conflicts feed, delete
// by partition key (POST .../operations/partitionkeydelete), client encryption keys and the
// container's clientEncryptionPolicy, and the intended-collection check of client-side encryption.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "http_test_util.h"

namespace cosmos::testing {
namespace {

class ServiceResourcesTest : public EmulatorTest {
 protected:
  void SetUp() override {
    MakeDatabase("db");
    MakeContainer("db", "c");
  }
  static std::string Key(const std::string& pk) { return "[\"" + pk + "\"]"; }
  Reply Create(const std::string& coll, const std::string& id, const std::string& pk, const std::string& extra = "") {
    auto r = CreateDoc("db", coll, "{\"id\":\"" + id + "\",\"pk\":\"" + pk + "\"" + extra + "}", Key(pk));
    EXPECT_EQ(r.status(), 201) << r;
    return r;
  }
  Reply Read(const std::string& coll, const std::string& id, const std::string& pk) {
    return Get("/dbs/db/colls/" + coll + "/docs/" + id, {{"x-ms-documentdb-partitionkey", Key(pk)}});
  }
  Reply PkDelete(const std::string& coll, const std::string& pk_header) {
    Headers h;
    if (!pk_header.empty()) h.emplace_back("x-ms-documentdb-partitionkey", pk_header);
    return Post("/dbs/db/colls/" + coll + "/operations/partitionkeydelete", "", h);
  }
  Reply Query(const std::string& path, const std::string& text) {
    return Post(path, "{\"query\":\"" + text + "\"}",
                {{"x-ms-documentdb-isquery", "true"}, {"content-type", "application/query+json"}});
  }
  std::string Rid(const std::string& path) { return Get(path).Str("_rid"); }

  static std::string KeyBody(const std::string& id, const std::string& wrapped = "AAECAwQFBgc=",
                             const std::string& meta_value = "https://vault/keys/k/1") {
    return "{\"id\":\"" + id +
           "\",\"encryptionAlgorithm\":\"AEAD_AES_256_CBC_HMAC_SHA256\",\"wrappedDataEncryptionKey\":\"" + wrapped +
           "\",\"keyWrapMetadata\":{\"type\":\"AZURE_KEY_VAULT\",\"name\":\"kek\",\"value\":\"" + meta_value +
           "\",\"algorithm\":\"RSA-OAEP\"}}";
  }
  static std::string Included(const std::string& path, const std::string& key, const std::string& type = "Deterministic") {
    return "{\"path\":\"" + path + "\",\"clientEncryptionKeyId\":\"" + key + "\",\"encryptionType\":\"" + type +
           "\",\"encryptionAlgorithm\":\"AEAD_AES_256_CBC_HMAC_SHA256\"}";
  }
};

// ---- conflicts ---------------------------------------------------------------------------------

TEST_F(ServiceResourcesTest, ConflictsFeedIsEmpty) {
  auto r = Get("/dbs/db/colls/c/conflicts");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.body(), "{\"_rid\":\"" + Rid("/dbs/db/colls/c") + "\",\"Conflicts\":[],\"_count\":0}");
  EXPECT_EQ(r.Header("x-ms-item-count"), "0");
  EXPECT_FALSE(r.Has("x-ms-continuation"));
  EXPECT_EQ(r.Charge(), "2");
}

TEST_F(ServiceResourcesTest, ConflictsQueryIsEmpty) {
  // Without a partition key or range it is a cross-partition query, which must say so (the
  // Python SDK's test_partition_key expects the 400).
  auto refused = Query("/dbs/db/colls/c/conflicts", "SELECT * FROM root r");
  EXPECT_EQ(refused.status(), 400) << refused;
  EXPECT_NE(refused.Message().find("Cross partition query is required but disabled"), std::string::npos) << refused;
  auto r = Post("/dbs/db/colls/c/conflicts", R"({"query":"SELECT * FROM root r"})",
                {{"x-ms-documentdb-isquery", "true"}, {"content-type", "application/query+json"},
                 {"x-ms-documentdb-query-enablecrosspartition", "true"}});
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(Post("/dbs/db/colls/c/conflicts", R"({"query":"SELECT * FROM root r"})",
                 {{"x-ms-documentdb-isquery", "true"}, {"content-type", "application/query+json"},
                  {"x-ms-documentdb-partitionkey", "[\"p\"]"}})
                .status(),
            200);
  EXPECT_EQ(r.body(), "{\"_rid\":\"" + Rid("/dbs/db/colls/c") + "\",\"Conflicts\":[],\"_count\":0}");
  EXPECT_EQ(r.Header("x-ms-item-count"), "0");
  EXPECT_EQ(r.Charge(), "2");
  // A malformed query is still a 400.
  EXPECT_EQ(Query("/dbs/db/colls/c/conflicts", "SELEC").status(), 400);
}

TEST_F(ServiceResourcesTest, OneConflictIsNotFound) {
  for (auto verb : {bh::verb::get, bh::verb::delete_}) {
    auto r = Call(verb, "/dbs/db/colls/c/conflicts/x");
    EXPECT_EQ(r.status(), 404) << r;
    EXPECT_EQ(r.Code(), "NotFound");
  }
  // A missing container is a 404 as well.
  EXPECT_EQ(Get("/dbs/db/colls/nope/conflicts").status(), 404);
  EXPECT_EQ(Get("/dbs/db/colls/nope/conflicts/x").status(), 404);
  // No create or replace.
  EXPECT_EQ(Post("/dbs/db/colls/c/conflicts", R"({"id":"x"})").status(), 405);
  EXPECT_EQ(Put("/dbs/db/colls/c/conflicts/x", R"({"id":"x"})").status(), 405);
}

// ---- delete by partition key -------------------------------------------------------------------

TEST_F(ServiceResourcesTest, PartitionKeyDeleteRemovesEveryItemOfTheKeyOnly) {
  Create("c", "a1", "a");
  Create("c", "a2", "a");
  Create("c", "b1", "b");
  auto r = PkDelete("c", Key("a"));
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.body(), "");
  EXPECT_EQ(r.Charge(), "1");
  EXPECT_EQ(r.Header("x-ms-session-token"), "0:-1#5");  // two deletes after three creates
  EXPECT_EQ(r.Header("lsn"), "5");
  EXPECT_EQ(Read("c", "a1", "a").status(), 404);
  EXPECT_EQ(Read("c", "a2", "a").status(), 404);
  EXPECT_EQ(Read("c", "b1", "b").status(), 200);
  // The same ids can be created again at once.
  Create("c", "a1", "a");
  // An empty logical partition: 200, nothing changes.
  auto none = PkDelete("c", Key("zzz"));
  EXPECT_EQ(none.status(), 200) << none;
  EXPECT_EQ(none.Header("lsn"), "6");
}

TEST_F(ServiceResourcesTest, PartitionKeyDeleteNeedsTheFullKey) {
  auto none = PkDelete("c", "");
  EXPECT_EQ(none.status(), 400) << none;
  EXPECT_EQ(none.Substatus(), "1001");
  MakeContainer("db", "h", "", R"({"paths":["/t","/u"],"kind":"MultiHash","version":2})");
  auto w = CreateDoc("db", "h", R"({"id":"d","t":"x","u":"y"})", R"(["x","y"])");
  ASSERT_EQ(w.status(), 201) << w;
  auto prefix = PkDelete("h", R"(["x"])");
  EXPECT_EQ(prefix.status(), 400) << prefix;
  EXPECT_EQ(prefix.Substatus(), "1001");
  auto full = PkDelete("h", R"(["x","y"])");
  EXPECT_EQ(full.status(), 200) << full;
  EXPECT_EQ(Get("/dbs/db/colls/h/docs/d", {{"x-ms-documentdb-partitionkey", R"(["x","y"])"}}).status(), 404);
  EXPECT_EQ(PkDelete("nope", Key("a")).status(), 404);
}

TEST_F(ServiceResourcesTest, PartitionKeyDeleteFreesUniqueKeys) {
  MakeContainer("db", "u", R"("uniqueKeyPolicy":{"uniqueKeys":[{"paths":["/email"]}]})");
  Create("u", "1", "a", R"(,"email":"x@y")");
  EXPECT_EQ(CreateDoc("db", "u", R"({"id":"2","pk":"a","email":"x@y"})", Key("a")).status(), 409);
  ASSERT_EQ(PkDelete("u", Key("a")).status(), 200);
  Create("u", "2", "a", R"(,"email":"x@y")");
}

TEST_F(ServiceResourcesTest, PartitionKeyDeleteInTheChangeFeed) {
  MakeContainer("db", "cf", R"("changeFeedPolicy":{"retentionDuration":10})");
  Create("cf", "a1", "a");
  Create("cf", "b1", "b");
  Create("cf", "a2", "a");
  ASSERT_EQ(PkDelete("cf", Key("a")).status(), 200);
  // Latest version: deleted items do not appear.
  auto latest = Get("/dbs/db/colls/cf/docs", {{"A-IM", "Incremental Feed"}});
  ASSERT_EQ(latest.status(), 200) << latest;
  auto l = latest.Json();
  ASSERT_EQ(l["Documents"].Size(), 1u);
  EXPECT_STREQ(l["Documents"][0]["id"].GetString(), "b1");
  // All versions and deletes: one delete per item, each with its own LSN.
  auto all = Get("/dbs/db/colls/cf/docs", {{"A-IM", "Full-Fidelity Feed"},
                                          {"x-ms-cosmos-changefeed-wire-format-version", "2021-09-15"},
                                          {"If-None-Match", "\"3\""},
                                          {"x-ms-documentdb-partitionkey", Key("a")}});
  ASSERT_EQ(all.status(), 200) << all;
  auto d = all.Json();
  ASSERT_EQ(d["Documents"].Size(), 2u) << all;
  std::vector<std::string> ids;
  for (auto& e : d["Documents"].GetArray()) {
    EXPECT_TRUE(e["current"].IsObject() && e["current"].ObjectEmpty());
    EXPECT_STREQ(e["metadata"]["operationType"].GetString(), "delete");
    EXPECT_FALSE(e["metadata"]["timeToLiveExpired"].GetBool());
    ids.emplace_back(e["metadata"]["id"].GetString());
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"a1", "a2"}));
  EXPECT_EQ(d["Documents"][0]["metadata"]["lsn"].GetInt(), 4);
  EXPECT_EQ(d["Documents"][1]["metadata"]["lsn"].GetInt(), 5);
  EXPECT_EQ(all.Header("etag"), "\"5\"");
}

// ---- client encryption keys --------------------------------------------------------------------

TEST_F(ServiceResourcesTest, CreateReadListQueryClientEncryptionKey) {
  auto r = Post("/dbs/db/clientencryptionkeys", KeyBody("k1"));
  ASSERT_EQ(r.status(), 201) << r;
  EXPECT_EQ(r.Charge(), "1");
  auto d = r.Json();
  std::vector<std::string> keys;
  for (auto& m : d.GetObject()) keys.emplace_back(m.name.GetString());
  EXPECT_EQ(keys, (std::vector<std::string>{"id", "encryptionAlgorithm", "wrappedDataEncryptionKey", "keyWrapMetadata",
                                            "_rid", "_self", "_etag", "_ts"}));
  EXPECT_STREQ(d["wrappedDataEncryptionKey"].GetString(), "AAECAwQFBgc=");
  EXPECT_EQ(json::Write(d["keyWrapMetadata"]),
            R"({"type":"AZURE_KEY_VAULT","name":"kek","value":"https://vault/keys/k/1","algorithm":"RSA-OAEP"})");
  const std::string db_rid = Rid("/dbs/db");
  const std::string rid = d["_rid"].GetString();
  EXPECT_EQ(std::string(d["_self"].GetString()), "dbs/" + db_rid + "/clientencryptionkeys/" + rid + "/");
  EXPECT_EQ(r.Header("etag"), d["_etag"].GetString());

  auto read = Get("/dbs/db/clientencryptionkeys/k1");
  ASSERT_EQ(read.status(), 200) << read;
  EXPECT_EQ(read.body(), r.body());
  EXPECT_EQ(read.Charge(), "2");
  // By rid, and 304 for the current etag.
  EXPECT_EQ(Get("/dbs/" + db_rid + "/clientencryptionkeys/" + rid).body(), r.body());
  auto same = Get("/dbs/db/clientencryptionkeys/k1", {{"If-None-Match", r.Header("etag")}});
  EXPECT_EQ(same.status(), 304);
  EXPECT_EQ(same.body(), "");

  ASSERT_EQ(Post("/dbs/db/clientencryptionkeys", KeyBody("k2")).status(), 201);
  auto list = Get("/dbs/db/clientencryptionkeys");
  ASSERT_EQ(list.status(), 200) << list;
  auto l = list.Json();
  EXPECT_STREQ(l["_rid"].GetString(), db_rid.c_str());
  ASSERT_EQ(l["ClientEncryptionKeys"].Size(), 2u);
  EXPECT_EQ(json::Write(l["ClientEncryptionKeys"][0]), r.body());
  EXPECT_EQ(l["_count"].GetInt(), 2);
  EXPECT_EQ(list.Header("x-ms-item-count"), "2");
  EXPECT_EQ(list.Charge(), "2");

  auto q = Query("/dbs/db/clientencryptionkeys", "SELECT VALUE r.id FROM r WHERE r.id = 'k2'");
  ASSERT_EQ(q.status(), 200) << q;
  EXPECT_EQ(q.body(), "{\"_rid\":\"" + db_rid + "\",\"ClientEncryptionKeys\":[\"k2\"],\"_count\":1}");
}

TEST_F(ServiceResourcesTest, ClientEncryptionKeyErrors) {
  ASSERT_EQ(Post("/dbs/db/clientencryptionkeys", KeyBody("k1")).status(), 201);
  auto dup = Post("/dbs/db/clientencryptionkeys", KeyBody("k1"));
  EXPECT_EQ(dup.status(), 409);
  EXPECT_EQ(dup.Charge(), "1.24");
  auto missing = Get("/dbs/db/clientencryptionkeys/nope");
  EXPECT_EQ(missing.status(), 404);
  EXPECT_EQ(missing.Code(), "NotFound");
  EXPECT_EQ(Get("/dbs/nodb/clientencryptionkeys").status(), 404);
  // Validation.
  auto absent = Post("/dbs/db/clientencryptionkeys", R"({"id":"k9"})");
  EXPECT_EQ(absent.status(), 400);
  EXPECT_NE(absent.Message().find("encryptionAlgorithm; wrappedDataEncryptionKey; keyWrapMetadata; "),
            std::string::npos)
      << absent.Message();
  auto alg = Post("/dbs/db/clientencryptionkeys",
                  R"({"id":"k9","encryptionAlgorithm":"AES","wrappedDataEncryptionKey":"AAAA","keyWrapMetadata":{"type":"t","name":"n","value":"v"}})");
  EXPECT_EQ(alg.status(), 400);
  EXPECT_EQ(Post("/dbs/db/clientencryptionkeys", KeyBody("k9", "not base64!")).status(), 400);
  EXPECT_EQ(Post("/dbs/db/clientencryptionkeys", KeyBody("")).status(), 400);
  EXPECT_EQ(Get("/dbs/db/clientencryptionkeys/k9").status(), 404);
  // No delete.
  EXPECT_EQ(Delete("/dbs/db/clientencryptionkeys/k1").status(), 405);
}

TEST_F(ServiceResourcesTest, ReplaceClientEncryptionKeyRewraps) {
  auto created = Post("/dbs/db/clientencryptionkeys", KeyBody("k1"));
  ASSERT_EQ(created.status(), 201);
  const std::string etag = created.Header("etag");
  auto r = Put("/dbs/db/clientencryptionkeys/k1", KeyBody("k1", "CAkKCw==", "https://vault/keys/k/2"),
               {{"If-Match", etag}});
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.Charge(), "1");
  EXPECT_EQ(r.Str("wrappedDataEncryptionKey"), "CAkKCw==");
  EXPECT_EQ(r.Str("_rid"), created.Str("_rid"));
  EXPECT_NE(r.Header("etag"), etag);
  EXPECT_EQ(Get("/dbs/db/clientencryptionkeys/k1").body(), r.body());
  // A stale etag: 412.
  auto stale = Put("/dbs/db/clientencryptionkeys/k1", KeyBody("k1"), {{"If-Match", etag}});
  EXPECT_EQ(stale.status(), 412);
  EXPECT_EQ(stale.Charge(), "1.24");
  EXPECT_EQ(Put("/dbs/db/clientencryptionkeys/k1", KeyBody("other")).status(), 400);
  EXPECT_EQ(Put("/dbs/db/clientencryptionkeys/nope", KeyBody("nope")).status(), 404);
}

// ---- clientEncryptionPolicy --------------------------------------------------------------------

TEST_F(ServiceResourcesTest, ClientEncryptionPolicyIsStoredAndFixed) {
  ASSERT_EQ(Post("/dbs/db/clientencryptionkeys", KeyBody("k1")).status(), 201);
  const std::string policy = "{\"includedPaths\":[" + Included("/pk", "k1") + "," + Included("/secret", "k1", "Randomized") +
                             "],\"policyFormatVersion\":2}";
  auto r = Post("/dbs/db/colls", "{\"id\":\"e\",\"partitionKey\":{\"paths\":[\"/pk\"]},\"clientEncryptionPolicy\":" +
                                     policy + "}");
  ASSERT_EQ(r.status(), 201) << r;
  auto d = r.Json();
  EXPECT_EQ(json::Write(d["clientEncryptionPolicy"]), policy);
  auto read = Get("/dbs/db/colls/e");
  EXPECT_EQ(json::Write(read.Json()["clientEncryptionPolicy"]), policy);
  // policyFormatVersion defaults to 1.
  auto v1 = Post("/dbs/db/colls", "{\"id\":\"e1\",\"partitionKey\":{\"paths\":[\"/pk\"]},\"clientEncryptionPolicy\":"
                                  "{\"includedPaths\":[" + Included("/s", "k1") + "]}}");
  ASSERT_EQ(v1.status(), 201) << v1;
  EXPECT_EQ(v1.Json()["clientEncryptionPolicy"]["policyFormatVersion"].GetInt(), 1);
  // A replace repeating it succeeds; one that drops or changes it is refused.
  const std::string base = "{\"id\":\"e\",\"partitionKey\":{\"paths\":[\"/pk\"]}";
  auto same = Put("/dbs/db/colls/e", base + ",\"clientEncryptionPolicy\":" + policy + ",\"defaultTtl\":60}");
  ASSERT_EQ(same.status(), 200) << same;
  EXPECT_EQ(json::Write(same.Json()["clientEncryptionPolicy"]), policy);
  for (const std::string& body :
       {base + "}", base + ",\"clientEncryptionPolicy\":{\"includedPaths\":[],\"policyFormatVersion\":2}}"}) {
    auto changed = Put("/dbs/db/colls/e", body);
    EXPECT_EQ(changed.status(), 400) << changed;
    EXPECT_NE(changed.Message().find("'clientEncryptionPolicy' cannot be changed as part of collection replace operation."),
              std::string::npos)
        << changed.Message();
  }
  // A container without one cannot gain one either.
  auto gain = Put("/dbs/db/colls/c", "{\"id\":\"c\",\"partitionKey\":{\"paths\":[\"/pk\"]},\"clientEncryptionPolicy\":"
                                     "{\"includedPaths\":[" + Included("/s", "k1") + "]}}");
  EXPECT_EQ(gain.status(), 400) << gain;
}

TEST_F(ServiceResourcesTest, ClientEncryptionPolicyValidation) {
  ASSERT_EQ(Post("/dbs/db/clientencryptionkeys", KeyBody("k1")).status(), 201);
  auto create = [&](const std::string& policy) {
    return Post("/dbs/db/colls",
                "{\"id\":\"bad\",\"partitionKey\":{\"paths\":[\"/pk\"]},\"clientEncryptionPolicy\":" + policy + "}");
  };
  const std::vector<std::string> invalid = {
      "[]",
      "{\"policyFormatVersion\":2}",
      "{\"includedPaths\":[" + Included("/s", "k1") + "],\"policyFormatVersion\":3}",
      "{\"includedPaths\":[" + Included("/s", "k1") + "],\"policyFormatVersion\":0}",
      "{\"includedPaths\":[" + Included("s", "k1") + "]}",
      "{\"includedPaths\":[" + Included("/s", "k1") + "," + Included("/s", "k1") + "]}",
      "{\"includedPaths\":[" + Included("/s", "") + "]}",
      "{\"includedPaths\":[{\"path\":\"/s\",\"clientEncryptionKeyId\":\"k1\"}]}",
      "{\"includedPaths\":[" + Included("/s", "nokey") + "]}",
  };
  for (const auto& p : invalid) {
    auto r = create(p);
    EXPECT_EQ(r.status(), 400) << p << " -> " << r;
    EXPECT_EQ(r.Code(), "BadRequest") << p;
  }
  EXPECT_NE(create(invalid.back()).Message().find("client encryption key 'nokey'"), std::string::npos);
  EXPECT_EQ(Get("/dbs/db/colls/bad").status(), 404);
  // null is no policy.
  auto none = create("null");
  ASSERT_EQ(none.status(), 201) << none;
  EXPECT_FALSE(none.Json().HasMember("clientEncryptionPolicy"));
}

// ---- x-ms-cosmos-intended-collection-rid -------------------------------------------------------

TEST_F(ServiceResourcesTest, IntendedCollectionRidMismatchIs400With1024) {
  const std::string old_rid = Rid("/dbs/db/colls/c");
  Create("c", "a", "a");
  auto ok = Get("/dbs/db/colls/c/docs/a",
                {{"x-ms-documentdb-partitionkey", Key("a")}, {"x-ms-cosmos-intended-collection-rid", old_rid}});
  EXPECT_EQ(ok.status(), 200) << ok;
  ASSERT_EQ(Delete("/dbs/db/colls/c").status(), 204);
  MakeContainer("db", "c");
  for (auto verb : {bh::verb::get, bh::verb::delete_}) {
    auto r = Call(verb, "/dbs/db/colls/c/docs/a", "",
                  {{"x-ms-documentdb-partitionkey", Key("a")}, {"x-ms-cosmos-intended-collection-rid", old_rid}});
    EXPECT_EQ(r.status(), 400) << r;
    EXPECT_EQ(r.Substatus(), "1024");
  }
  auto create = CreateDoc("db", "c", R"({"id":"b","pk":"b"})", Key("b"),
                          {{"x-ms-cosmos-intended-collection-rid", old_rid}});
  EXPECT_EQ(create.status(), 400) << create;
  EXPECT_EQ(create.Substatus(), "1024");
  // The container itself is read without the check; the new rid passes.
  EXPECT_EQ(Get("/dbs/db/colls/c", {{"x-ms-cosmos-intended-collection-rid", old_rid}}).status(), 200);
  EXPECT_EQ(CreateDoc("db", "c", R"({"id":"b","pk":"b"})", Key("b"),
                      {{"x-ms-cosmos-intended-collection-rid", Rid("/dbs/db/colls/c")}})
                .status(),
            201);
}

}  // namespace
}  // namespace cosmos::testing
