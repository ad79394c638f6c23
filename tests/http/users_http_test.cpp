// Users, permissions and resource tokens through Handle(): the resources' JSON, feeds, queries,
// renames, upserts and every failure; token lifetime (the emulator clock moves it); what a token
// scoped to a container, a partition key, an item or a script may do; revocation by deleting or
// replacing the permission; forged tokens.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "http_test_util.h"

namespace cosmos::testing {
namespace {

using json::Quote;

// The first database, container, user and permission of a fresh account.
constexpr const char* kDbRid = "AQBAAA==";
constexpr const char* kCollRid = "AQBAAIAAAAE=";
constexpr const char* kUserRid = "AQBAAAAAAQA=";
constexpr const char* kUserSelf = "dbs/AQBAAA==/users/AQBAAAAAAQA=/";
constexpr const char* kPermRid = "AQBAAAAAAQAAAAAAAAABAA==";

constexpr const char* kInsufficient =
    "Insufficient permissions provided in the authorization header for the corresponding request. Please retry with "
    "another authorization header.";
constexpr const char* kBadToken =
    "The input authorization token can't serve the request. The resource token is malformed or was not issued by "
    "this account; use the _token of a permission as it was returned.";

const std::regex kEtag(R"re("[0-9a-f]{8}-0000-0100-0000-[0-9a-f]{8}0000")re");

std::vector<std::string> Keys(const json::Value& v) {
  std::vector<std::string> keys;
  for (auto& m : v.GetObject()) keys.emplace_back(m.name.GetString());
  return keys;
}

// The message without the "\r\nActivityId: ..." the pipeline appends.
std::string Text(const Reply& r) {
  std::string m = r.Message();
  return m.substr(0, m.find("\r\nActivityId:"));
}

std::string Wrapped(const std::string& text) { return "Message: {\"Errors\":[" + Quote(text) + "]}"; }

class UsersTest : public EmulatorTest {
 protected:
  void SetUp() override {
    MakeDatabase("db");
    MakeContainer("db", "c");
    ASSERT_EQ(CreateDoc("db", "c", R"({"id":"a","pk":"x","n":1})", R"(["x"])").status(), 201);
    ASSERT_EQ(CreateDoc("db", "c", R"({"id":"b","pk":"y","n":2})", R"(["y"])").status(), 201);
  }

  Reply CreateUser(const std::string& id, const Headers& h = {}) {
    return Post("/dbs/db/users", "{\"id\":" + Quote(id) + "}", h);
  }
  void User(const std::string& id) {
    auto r = CreateUser(id);
    ASSERT_EQ(r.status(), 201) << r;
  }
  static std::string PermBody(const std::string& id, const std::string& mode, const std::string& resource,
                              const std::string& pk_json = "") {
    std::string b = "{\"id\":" + Quote(id) + ",\"permissionMode\":" + Quote(mode) + ",\"resource\":" + Quote(resource);
    if (!pk_json.empty()) b += ",\"resourcePartitionKey\":" + pk_json;
    return b + "}";
  }
  Reply CreatePerm(const std::string& user, const std::string& body, const Headers& h = {}) {
    return Post("/dbs/db/users/" + user + "/permissions", body, h);
  }
  // A permission's token (creating the user "u" when missing).
  std::string Token(const std::string& id, const std::string& mode, const std::string& resource,
                    const std::string& pk_json = "", const Headers& h = {}) {
    if (Get("/dbs/db/users/u").status() == 404) User("u");
    auto r = CreatePerm("u", PermBody(id, mode, resource, pk_json), h);
    EXPECT_EQ(r.status(), 201) << r;
    return r.Str("_token");
  }

  // A request authorised by a resource token alone, URL-encoded as the SDKs send it (no x-ms-date:
  // the Python SDK sends none with a resource token).
  Reply As(const std::string& token, bh::verb verb, std::string_view target, std::string body = "",
           Headers headers = {}) {
    headers.emplace_back("authorization", util::PercentEncode(token));
    SignOptions opt;
    opt.sign = false;
    opt.send_date = false;
    return Call(verb, target, std::move(body), headers, opt);
  }
  Reply ReadDoc(const std::string& token, const std::string& id, const std::string& pk) {
    return As(token, bh::verb::get, "/dbs/db/colls/c/docs/" + id, "", {{"x-ms-documentdb-partitionkey", pk}});
  }
  Reply WriteDoc(const std::string& token, const std::string& body, const std::string& pk) {
    return As(token, bh::verb::post, "/dbs/db/colls/c/docs", body, {{"x-ms-documentdb-partitionkey", pk}});
  }
  Reply Query(const std::string& token, const std::string& pk = "") {
    Headers h = {{"x-ms-documentdb-isquery", "true"},
                 {"content-type", "application/query+json"},
                 {"x-ms-documentdb-query-enablecrosspartition", "true"}};
    if (!pk.empty()) h.emplace_back("x-ms-documentdb-partitionkey", pk);
    return As(token, bh::verb::post, "/dbs/db/colls/c/docs", R"({"query":"SELECT * FROM c"})", h);
  }

  static void ExpectForbidden(const Reply& r) {
    EXPECT_EQ(r.status(), 403) << r;
    EXPECT_EQ(r.Code(), "Forbidden");
    EXPECT_EQ(Text(r), kInsufficient);
    EXPECT_EQ(r.Charge(), "0");
  }
  static void ExpectBadToken(const Reply& r) {
    EXPECT_EQ(r.status(), 401) << r;
    EXPECT_EQ(r.Code(), "Unauthorized");
    EXPECT_EQ(Text(r), kBadToken);
  }
  static void ExpectBadRequest(const Reply& r, const std::string& text) {
    EXPECT_EQ(r.status(), 400) << r;
    EXPECT_EQ(r.Code(), "BadRequest");
    EXPECT_EQ(Text(r), Wrapped(text));
  }
};

// ---- users ----------------------------------------------------------------------------------

TEST_F(UsersTest, CreateUserAnswersTheServiceShape) {
  auto r = CreateUser("u1");
  ASSERT_EQ(r.status(), 201) << r;
  EXPECT_EQ(r.Charge(), "1");
  auto d = r.Json();
  EXPECT_EQ(Keys(d), (std::vector<std::string>{"id", "_rid", "_ts", "_self", "_etag", "_permissions"}));
  EXPECT_STREQ(d["id"].GetString(), "u1");
  EXPECT_STREQ(d["_rid"].GetString(), kUserRid);
  EXPECT_STREQ(d["_self"].GetString(), kUserSelf);
  EXPECT_STREQ(d["_permissions"].GetString(), "permissions/");
  EXPECT_LE(std::llabs(d["_ts"].GetInt64() - util::UnixSeconds()), 2);
  EXPECT_EQ(r.Header("etag"), d["_etag"].GetString());
  EXPECT_TRUE(std::regex_match(r.Header("etag"), kEtag)) << r.Header("etag");
  // Exactly this text: no other property.
  EXPECT_EQ(r.body(), "{\"id\":\"u1\",\"_rid\":\"" + std::string(kUserRid) + "\",\"_ts\":" +
                          std::to_string(d["_ts"].GetInt64()) + ",\"_self\":\"" + kUserSelf +
                          "\",\"_etag\":" + Quote(d["_etag"].GetString()) + ",\"_permissions\":\"permissions/\"}");
}

TEST_F(UsersTest, ReadListAndQueryUsers) {
  User("u1");
  User("u2");
  auto r = Get("/dbs/db/users/u1");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.Charge(), "2");
  EXPECT_EQ(r.Str("id"), "u1");
  EXPECT_EQ(r.Header("etag"), r.Str("_etag"));

  auto list = Get("/dbs/db/users");
  ASSERT_EQ(list.status(), 200) << list;
  EXPECT_EQ(list.Charge(), "2");
  EXPECT_EQ(list.Header("x-ms-item-count"), "2");
  auto d = list.Json();
  EXPECT_EQ(Keys(d), (std::vector<std::string>{"_rid", "Users", "_count"}));
  EXPECT_STREQ(d["_rid"].GetString(), kDbRid);
  ASSERT_EQ(d["Users"].Size(), 2u);
  EXPECT_STREQ(d["Users"][0]["id"].GetString(), "u1");
  EXPECT_STREQ(d["Users"][1]["id"].GetString(), "u2");
  EXPECT_EQ(d["_count"].GetInt(), 2);

  auto paged = Get("/dbs/db/users", {{"x-ms-max-item-count", "1"}});
  EXPECT_EQ(paged.Json()["Users"].Size(), 1u);
  EXPECT_EQ(paged.Header("x-ms-continuation"), "1");

  auto q = Post("/dbs/db/users", R"({"query":"SELECT * FROM r WHERE r.id = @id","parameters":[{"name":"@id","value":"u2"}]})",
                {{"x-ms-documentdb-isquery", "true"}, {"content-type", "application/query+json"}});
  ASSERT_EQ(q.status(), 200) << q;
  EXPECT_EQ(q.Charge(), "2");
  auto qd = q.Json();
  ASSERT_EQ(qd["Users"].Size(), 1u);
  EXPECT_STREQ(qd["Users"][0]["id"].GetString(), "u2");
  EXPECT_STREQ(qd["_rid"].GetString(), kDbRid);
}

TEST_F(UsersTest, UserFailures) {
  User("u1");
  auto dup = CreateUser("u1");
  EXPECT_EQ(dup.status(), 409) << dup;
  EXPECT_EQ(dup.Code(), "Conflict");
  EXPECT_EQ(dup.Charge(), "1.24");

  auto bad = CreateUser("a/b");
  EXPECT_EQ(bad.status(), 400) << bad;
  EXPECT_EQ(bad.Code(), "BadRequest");
  auto missing_id = Post("/dbs/db/users", "{}");
  ExpectBadRequest(missing_id, "The input content is invalid because the required properties - 'id; ' - are missing.");
  auto not_json = Post("/dbs/db/users", "{");
  EXPECT_EQ(not_json.status(), 400);

  for (auto r : {Get("/dbs/db/users/nope"), Delete("/dbs/db/users/nope"), Put("/dbs/db/users/nope", R"({"id":"nope"})"),
                 Get("/dbs/nodb/users"), Post("/dbs/nodb/users", R"({"id":"x"})"), Get("/dbs/nodb/users/u1")}) {
    EXPECT_EQ(r.status(), 404) << r;
    EXPECT_EQ(r.Code(), "NotFound");
    EXPECT_EQ(r.Charge(), "2");
  }
  // Verbs the service does not serve on users.
  EXPECT_EQ(Call(bh::verb::patch, "/dbs/db/users/u1", "[]").status(), 405);
  EXPECT_EQ(Delete("/dbs/db/users").status(), 405);
}

TEST_F(UsersTest, ReplaceRenamesAndKeepsRidAndPermissions) {
  User("u1");
  ASSERT_EQ(CreatePerm("u1", PermBody("p", "Read", "dbs/db/colls/c")).status(), 201);
  auto before = Get("/dbs/db/users/u1");
  auto r = Put("/dbs/db/users/u1", R"({"id":"u2"})");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.Charge(), "1");
  EXPECT_EQ(r.Str("id"), "u2");
  EXPECT_EQ(r.Str("_rid"), kUserRid);
  EXPECT_NE(r.Str("_etag"), before.Str("_etag"));
  EXPECT_EQ(Get("/dbs/db/users/u1").status(), 404);
  EXPECT_EQ(Get("/dbs/db/users/u2").status(), 200);
  EXPECT_EQ(Get("/dbs/db/users/u2/permissions/p").status(), 200);

  // The same id: a plain replace. Another user's id: 409. A stale If-Match: 412.
  EXPECT_EQ(Put("/dbs/db/users/u2", R"({"id":"u2"})").status(), 200);
  User("u3");
  auto taken = Put("/dbs/db/users/u2", R"({"id":"u3"})");
  EXPECT_EQ(taken.status(), 409) << taken;
  EXPECT_EQ(taken.Charge(), "1.24");
  auto stale = Put("/dbs/db/users/u2", R"({"id":"u2"})", {{"if-match", before.Str("_etag")}});
  EXPECT_EQ(stale.status(), 412) << stale;
  auto current = Get("/dbs/db/users/u2").Str("_etag");
  EXPECT_EQ(Put("/dbs/db/users/u2", R"({"id":"u2"})", {{"if-match", current}}).status(), 200);
  EXPECT_EQ(Put("/dbs/db/users/u2", R"({"id":"a/b"})").status(), 400);
}

TEST_F(UsersTest, UpsertCreatesThenReplaces) {
  auto created = CreateUser("u1", {{"x-ms-documentdb-is-upsert", "true"}});
  ASSERT_EQ(created.status(), 201) << created;
  EXPECT_EQ(created.Charge(), "1");
  auto replaced = CreateUser("u1", {{"x-ms-documentdb-is-upsert", "True"}});
  ASSERT_EQ(replaced.status(), 200) << replaced;
  EXPECT_EQ(replaced.Charge(), "1");
  EXPECT_EQ(replaced.Str("_rid"), created.Str("_rid"));
  EXPECT_NE(replaced.Str("_etag"), created.Str("_etag"));
  EXPECT_EQ(Get("/dbs/db/users").Json()["_count"].GetInt(), 1);
}

TEST_F(UsersTest, DeleteUserRemovesItsPermissions) {
  User("u1");
  ASSERT_EQ(CreatePerm("u1", PermBody("p", "Read", "dbs/db/colls/c")).status(), 201);
  auto r = Delete("/dbs/db/users/u1");
  EXPECT_EQ(r.status(), 204) << r;
  EXPECT_EQ(r.Charge(), "1");
  EXPECT_EQ(r.body(), "");
  EXPECT_EQ(Get("/dbs/db/users/u1").status(), 404);
  EXPECT_EQ(Delete("/dbs/db/users/u1").status(), 404);
  User("u1");  // a new user of the same name has none of the old one's permissions
  EXPECT_EQ(Get("/dbs/db/users/u1/permissions").Json()["_count"].GetInt(), 0);
  EXPECT_EQ(Get("/dbs/db/users/u1/permissions/p").status(), 404);
}

TEST_F(UsersTest, UsersBelongToTheirDatabase) {
  User("u1");
  MakeDatabase("db2");
  EXPECT_EQ(Get("/dbs/db2/users/u1").status(), 404);
  EXPECT_EQ(Post("/dbs/db2/users", R"({"id":"u1"})").status(), 201);
  ASSERT_EQ(Delete("/dbs/db").status(), 204);
  MakeDatabase("db");
  EXPECT_EQ(Get("/dbs/db/users").Json()["_count"].GetInt(), 0);
}

// ---- permissions ----------------------------------------------------------------------------

TEST_F(UsersTest, CreatePermissionAnswersTheServiceShape) {
  User("u");
  auto r = CreatePerm("u", PermBody("p", "read", "dbs/db/colls/c"));
  ASSERT_EQ(r.status(), 201) << r;
  EXPECT_EQ(r.Charge(), "1");
  auto d = r.Json();
  EXPECT_EQ(Keys(d), (std::vector<std::string>{"id", "permissionMode", "resource", "_rid", "_ts", "_self", "_etag",
                                               "_token"}));
  EXPECT_STREQ(d["id"].GetString(), "p");
  EXPECT_STREQ(d["permissionMode"].GetString(), "read");  // as sent: the service keeps the case
  EXPECT_STREQ(d["resource"].GetString(), "dbs/db/colls/c");
  EXPECT_STREQ(d["_rid"].GetString(), kPermRid);
  EXPECT_EQ(std::string(d["_self"].GetString()), std::string(kUserSelf) + "permissions/" + kPermRid + "/");
  EXPECT_EQ(r.Header("etag"), d["_etag"].GetString());
  EXPECT_TRUE(std::regex_match(r.Header("etag"), kEtag));
  const std::string token = d["_token"].GetString();
  EXPECT_TRUE(std::regex_match(token, std::regex(R"(type=resource&ver=1&sig=[A-Za-z0-9+/=]+;[A-Za-z0-9+/=]+;)")))
      << token;

  auto all = CreatePerm("u", PermBody("p2", "ALL", "dbs/db/colls/c/docs/a", R"(["x"])"));
  ASSERT_EQ(all.status(), 201) << all;
  auto ad = all.Json();
  EXPECT_EQ(Keys(ad), (std::vector<std::string>{"id", "permissionMode", "resource", "resourcePartitionKey", "_rid",
                                                "_ts", "_self", "_etag", "_token"}));
  EXPECT_STREQ(ad["permissionMode"].GetString(), "ALL");
  EXPECT_EQ(json::Write(ad["resourcePartitionKey"]), R"(["x"])");
}

TEST_F(UsersTest, ReadListQueryReplaceAndDeletePermissions) {
  User("u");
  ASSERT_EQ(CreatePerm("u", PermBody("p1", "Read", "dbs/db/colls/c")).status(), 201);
  ASSERT_EQ(CreatePerm("u", PermBody("p2", "All", "dbs/db/colls/c", R"(["x"])")).status(), 201);

  auto r = Get("/dbs/db/users/u/permissions/p1");
  ASSERT_EQ(r.status(), 200) << r;
  EXPECT_EQ(r.Charge(), "2");
  EXPECT_EQ(r.Str("permissionMode"), "Read");
  EXPECT_FALSE(r.Str("_token").empty());

  auto list = Get("/dbs/db/users/u/permissions");
  ASSERT_EQ(list.status(), 200) << list;
  EXPECT_EQ(list.Charge(), "2");
  auto d = list.Json();
  EXPECT_EQ(Keys(d), (std::vector<std::string>{"_rid", "Permissions", "_count"}));
  EXPECT_STREQ(d["_rid"].GetString(), kUserRid);
  ASSERT_EQ(d["Permissions"].Size(), 2u);
  EXPECT_STREQ(d["Permissions"][1]["id"].GetString(), "p2");
  EXPECT_TRUE(d["Permissions"][1].HasMember("_token"));

  auto q = Post("/dbs/db/users/u/permissions", R"({"query":"SELECT * FROM r WHERE r.permissionMode = 'All'"})",
                {{"x-ms-documentdb-isquery", "true"}, {"content-type", "application/query+json"}});
  ASSERT_EQ(q.status(), 200) << q;
  auto qd = q.Json();
  ASSERT_EQ(qd["Permissions"].Size(), 1u);
  EXPECT_STREQ(qd["Permissions"][0]["id"].GetString(), "p2");
  EXPECT_STREQ(qd["_rid"].GetString(), kUserRid);

  // Replace: new mode, and a new id renames it (the rid stays).
  auto rep = Put("/dbs/db/users/u/permissions/p1", PermBody("p1", "All", "dbs/db/colls/c"));
  ASSERT_EQ(rep.status(), 200) << rep;
  EXPECT_EQ(rep.Charge(), "1");
  EXPECT_EQ(rep.Str("permissionMode"), "All");
  auto ren = Put("/dbs/db/users/u/permissions/p1", PermBody("p3", "All", "dbs/db/colls/c"));
  ASSERT_EQ(ren.status(), 200) << ren;
  EXPECT_EQ(ren.Str("id"), "p3");
  EXPECT_EQ(ren.Str("_rid"), kPermRid);
  EXPECT_EQ(Get("/dbs/db/users/u/permissions/p1").status(), 404);
  EXPECT_EQ(Put("/dbs/db/users/u/permissions/p3", PermBody("p2", "All", "dbs/db/colls/c")).status(), 409);
  EXPECT_EQ(Put("/dbs/db/users/u/permissions/p3", PermBody("p3", "All", "dbs/db/colls/c"),
                {{"if-match", rep.Str("_etag")}}).status(),
            412);
  EXPECT_EQ(Put("/dbs/db/users/u/permissions/nope", PermBody("nope", "All", "dbs/db/colls/c")).status(), 404);

  // Upsert: replaces p2 (200), creates p4 (201).
  auto up = CreatePerm("u", PermBody("p2", "Read", "dbs/db/colls/c", R"(["x"])"), {{"x-ms-documentdb-is-upsert", "true"}});
  EXPECT_EQ(up.status(), 200) << up;
  EXPECT_EQ(up.Str("permissionMode"), "Read");
  auto up2 = CreatePerm("u", PermBody("p4", "Read", "dbs/db/colls/c", R"(["y"])"), {{"x-ms-documentdb-is-upsert", "true"}});
  EXPECT_EQ(up2.status(), 201) << up2;

  auto del = Delete("/dbs/db/users/u/permissions/p3");
  EXPECT_EQ(del.status(), 204);
  EXPECT_EQ(del.Charge(), "1");
  for (auto r2 : {Get("/dbs/db/users/u/permissions/p3"), Delete("/dbs/db/users/u/permissions/p3"),
                  Get("/dbs/db/users/nope/permissions"), Get("/dbs/db/users/nope/permissions/p2"),
                  CreatePerm("nope", PermBody("p", "Read", "dbs/db/colls/c"))}) {
    EXPECT_EQ(r2.status(), 404) << r2;
    EXPECT_EQ(r2.Charge(), "2");
  }
}

TEST_F(UsersTest, PermissionBodyValidation) {
  User("u");
  ExpectBadRequest(CreatePerm("u", R"({"id":"p","resource":"dbs/db/colls/c"})"),
                   "The input content is invalid because the required properties - 'permissionMode; ' - are missing");
  ExpectBadRequest(CreatePerm("u", R"({"id":"p"})"),
                   "The input content is invalid because the required properties - 'permissionMode; resource; ' - "
                   "are missing");
  ExpectBadRequest(CreatePerm("u", PermBody("p", "Write", "dbs/db/colls/c")),
                   "The value of permissionMode is invalid: it must be Read or All.");
  ExpectBadRequest(CreatePerm("u", R"({"permissionMode":"Read","resource":"dbs/db/colls/c"})"),
                   "The input content is invalid because the required properties - 'id; ' - are missing.");
  // Links that name no container, item or script of the user's database.
  for (const char* link : {"dbs/db", "dbs/db/colls", "colls/c", "dbs/db2/colls/c", "dbs/db/colls/c/docs",
                           "dbs/db/users/u", "dbs/db/colls/c/pkranges/0", "dbs//colls/c", ""}) {
    ExpectBadRequest(CreatePerm("u", PermBody("p", "Read", link)),
                     "The input Resource link '" + std::string(link) +
                         "' is invalid. Ensure to provide a valid resource link of size lesser than '256' characters.");
  }
  auto missing = CreatePerm("u", PermBody("p", "Read", "dbs/db/colls/nope"));
  EXPECT_EQ(missing.status(), 404) << missing;
  EXPECT_EQ(missing.Charge(), "2");
  auto conflicts = CreatePerm("u", PermBody("p", "Read", "dbs/db/colls/c/conflicts/x"));
  EXPECT_EQ(conflicts.status(), 501) << conflicts;
  EXPECT_EQ(conflicts.Code(), "NotImplemented");
  for (const char* pk : {R"("x")", R"(["x","y"])", R"([])", R"([{"a":1}])"}) {
    ExpectBadRequest(CreatePerm("u", PermBody("p", "Read", "dbs/db/colls/c", pk)),
                     "The resourcePartitionKey " + std::string(pk) +
                         " is invalid: it must be a JSON array holding the container's partition key value.");
  }
  // One permission per resource and user; a different partition key is a different resource.
  ASSERT_EQ(CreatePerm("u", PermBody("p", "Read", "dbs/db/colls/c")).status(), 201);
  auto same_id = CreatePerm("u", PermBody("p", "Read", "dbs/db/colls/c/docs/a"));
  EXPECT_EQ(same_id.status(), 409) << same_id;
  EXPECT_EQ(same_id.Charge(), "1.24");
  EXPECT_EQ(CreatePerm("u", PermBody("q", "All", "dbs/db/colls/c")).status(), 409);
  EXPECT_EQ(CreatePerm("u", PermBody("q", "All", "/dbs/db/colls/c/")).status(), 409);
  EXPECT_EQ(CreatePerm("u", PermBody("q", "All", "dbs/db/colls/c", R"(["x"])")).status(), 201);
  User("v");
  EXPECT_EQ(CreatePerm("v", PermBody("p", "Read", "dbs/db/colls/c")).status(), 201);
}

TEST_F(UsersTest, ExpiryHeaderBounds) {
  User("u");
  ExpectBadRequest(CreatePerm("u", PermBody("p", "Read", "dbs/db/colls/c"), {{"x-ms-documentdb-expiry-seconds", "599"}}),
                   "One of the specified inputs is invalid");
  for (const char* v : {"86401", "abc", "", "3600.5"}) {
    ExpectBadRequest(CreatePerm("u", PermBody("p", "Read", "dbs/db/colls/c"), {{"x-ms-documentdb-expiry-seconds", v}}),
                     "Value '" + std::string(v) + "' specified for the header 'x-ms-documentdb-expiry-seconds' is invalid.");
  }
  EXPECT_EQ(Get("/dbs/db/users/u/permissions").Json()["_count"].GetInt(), 0);  // nothing was written
  EXPECT_EQ(CreatePerm("u", PermBody("p", "Read", "dbs/db/colls/c"), {{"x-ms-documentdb-expiry-seconds", "600"}}).status(),
            201);
  EXPECT_EQ(Get("/dbs/db/users/u/permissions/p", {{"x-ms-documentdb-expiry-seconds", "86400"}}).status(), 200);
  EXPECT_EQ(Get("/dbs/db/users/u/permissions/p", {{"x-ms-documentdb-expiry-seconds", "10"}}).status(), 400);
  EXPECT_EQ(Get("/dbs/db/users/u/permissions", {{"x-ms-documentdb-expiry-seconds", "90000"}}).status(), 400);
}

// ---- resource tokens: lifetime, revocation, forgery -----------------------------------------

TEST_F(UsersTest, TokenExpiresOnTheEmulatorClock) {
  const int64_t start = wall_.UnixSeconds();
  const std::string t = Token("p", "Read", "dbs/db/colls/c", "", {{"x-ms-documentdb-expiry-seconds", "600"}});
  wall_.Advance(599'000);
  EXPECT_EQ(ReadDoc(t, "a", R"(["x"])").status(), 200);
  wall_.Advance(1'000);
  auto r = ReadDoc(t, "a", R"(["x"])");
  EXPECT_EQ(r.status(), 403) << r;
  EXPECT_EQ(r.Code(), "Forbidden");
  auto at = [](int64_t s) { return util::FormatRfc1123(std::chrono::system_clock::time_point(std::chrono::seconds(s))); };
  EXPECT_EQ(Text(r), "The authorization token is not valid at the current time. Please create another token and retry "
                     "(token start time: " + at(start) + ", token expiry time: " + at(start + 600) +
                         ", current server time: " + at(start + 600) + ").");
  // A read of the permission hands out a new token, valid from now (an hour by default).
  auto fresh = Get("/dbs/db/users/u/permissions/p").Str("_token");
  EXPECT_EQ(ReadDoc(fresh, "a", R"(["x"])").status(), 200);
  wall_.Advance(3599'000);
  EXPECT_EQ(ReadDoc(fresh, "a", R"(["x"])").status(), 200);
  wall_.Advance(1'000);
  EXPECT_EQ(ReadDoc(fresh, "a", R"(["x"])").status(), 403);
}

TEST_F(UsersTest, DeletingOrReplacingThePermissionRevokesItsTokens) {
  const std::string t = Token("p", "Read", "dbs/db/colls/c");
  EXPECT_EQ(ReadDoc(t, "a", R"(["x"])").status(), 200);
  auto rep = Put("/dbs/db/users/u/permissions/p", PermBody("p", "All", "dbs/db/colls/c"));
  ASSERT_EQ(rep.status(), 200);
  ExpectForbidden(ReadDoc(t, "a", R"(["x"])"));
  const std::string t2 = rep.Str("_token");
  EXPECT_EQ(WriteDoc(t2, R"({"id":"new","pk":"x"})", R"(["x"])").status(), 201);
  // Reading the permission again issues another token; the earlier one of the same version holds.
  const std::string t3 = Get("/dbs/db/users/u/permissions/p").Str("_token");
  EXPECT_EQ(ReadDoc(t2, "a", R"(["x"])").status(), 200);
  EXPECT_EQ(ReadDoc(t3, "a", R"(["x"])").status(), 200);
  ASSERT_EQ(Delete("/dbs/db/users/u/permissions/p").status(), 204);
  ExpectForbidden(ReadDoc(t2, "a", R"(["x"])"));
  // Deleting the user revokes too.
  const std::string t4 = Token("p", "Read", "dbs/db/colls/c");
  ASSERT_EQ(Delete("/dbs/db/users/u").status(), 204);
  ExpectForbidden(ReadDoc(t4, "a", R"(["x"])"));
}

TEST_F(UsersTest, RecreatedContainerIsNotTheTokensContainer) {
  const std::string t = Token("p", "Read", "dbs/db/colls/c");
  ASSERT_EQ(Delete("/dbs/db/colls/c").status(), 204);
  MakeContainer("db", "c");
  ExpectForbidden(As(t, bh::verb::get, "/dbs/db/colls/c"));
}

TEST_F(UsersTest, ForgedAndGarbledTokensAre401) {
  const std::string t = Token("p", "Read", "dbs/db/colls/c/docs/a", R"(["x"])");
  // Claims altered to name the whole container: the MAC no longer matches.
  const auto semi = t.find(';');
  std::string claims = t.substr(semi + 1, t.size() - semi - 2);
  std::string text = *util::Base64Decode(claims);
  auto pos = text.find("\"kind\":\"docs\"");
  ASSERT_NE(pos, std::string::npos) << text;
  text.replace(pos, 13, "\"kind\":\"\"");
  ExpectBadToken(ReadDoc(t.substr(0, semi + 1) + util::Base64Encode(text) + ";", "b", R"(["y"])"));
  // Signed with another key.
  std::string mac = util::Base64Encode(util::HmacSha256("another key", "resource-token\n" + claims));
  ExpectBadToken(ReadDoc("type=resource&ver=1&sig=" + mac + ";" + claims + ";", "a", R"(["x"])"));
  for (const std::string& bad : {std::string("type=resource&ver=1&sig=abc"), std::string("type=resource&ver=1&sig="),
                                "type=resource&ver=2&" + t.substr(t.find("sig=")),
                                t.substr(0, t.size() - 1), t + "x;"}) {
    ExpectBadToken(ReadDoc(bad, "a", R"(["x"])"));
  }
  // The genuine token, sent unencoded, still works ('+' stays '+').
  Headers h = {{"authorization", t}, {"x-ms-documentdb-partitionkey", R"(["x"])"}};
  SignOptions opt;
  opt.sign = false;
  EXPECT_EQ(Call(bh::verb::get, "/dbs/db/colls/c/docs/a", "", h, opt).status(), 200);
}

// ---- resource tokens: scopes ----------------------------------------------------------------

TEST_F(UsersTest, ContainerReadTokenReadsEverythingInItAndWritesNothing) {
  const std::string t = Token("p", "Read", "dbs/db/colls/c");
  // What the SDKs read to operate: the account, the container, its partition key ranges.
  EXPECT_EQ(As(t, bh::verb::get, "/").status(), 200);
  auto c = As(t, bh::verb::get, "/dbs/db/colls/c");
  EXPECT_EQ(c.status(), 200) << c;
  EXPECT_EQ(c.Charge(), "2");
  EXPECT_EQ(As(t, bh::verb::get, "/dbs/db/colls/c/pkranges").status(), 200);
  auto doc = ReadDoc(t, "a", R"(["x"])");
  EXPECT_EQ(doc.status(), 200) << doc;
  EXPECT_EQ(doc.Charge(), "1");  // charged as with the master key
  EXPECT_EQ(ReadDoc(t, "missing", R"(["x"])").status(), 404);
  EXPECT_EQ(As(t, bh::verb::get, "/dbs/db/colls/c/docs").Json()["_count"].GetInt(), 2);
  EXPECT_EQ(Query(t).Json()["_count"].GetInt(), 2);
  EXPECT_EQ(Query(t, R"(["y"])").Json()["_count"].GetInt(), 1);
  auto feed = As(t, bh::verb::get, "/dbs/db/colls/c/docs", "", {{"a-im", "Incremental Feed"}});
  EXPECT_EQ(feed.status(), 200) << feed;
  EXPECT_EQ(As(t, bh::verb::get, "/dbs/db/colls/c/sprocs").status(), 200);

  ExpectForbidden(WriteDoc(t, R"({"id":"n","pk":"x"})", R"(["x"])"));
  ExpectForbidden(WriteDoc(t, R"({"id":"a","pk":"x"})", R"(["x"])"));
  ExpectForbidden(As(t, bh::verb::put, "/dbs/db/colls/c/docs/a", R"({"id":"a","pk":"x"})",
                     {{"x-ms-documentdb-partitionkey", R"(["x"])"}}));
  ExpectForbidden(As(t, bh::verb::delete_, "/dbs/db/colls/c/docs/a", "", {{"x-ms-documentdb-partitionkey", R"(["x"])"}}));
  ExpectForbidden(As(t, bh::verb::patch, "/dbs/db/colls/c/docs/a", R"({"operations":[{"op":"set","path":"/n","value":3}]})",
                     {{"x-ms-documentdb-partitionkey", R"(["x"])"}}));
  ExpectForbidden(As(t, bh::verb::delete_, "/dbs/db/colls/c"));
  ExpectForbidden(As(t, bh::verb::put, "/dbs/db/colls/c", R"({"id":"c","partitionKey":{"paths":["/pk"]}})"));
  ExpectForbidden(As(t, bh::verb::post, "/dbs/db/colls/c/sprocs", R"({"id":"s","body":"function(){}"})"));
  // Outside the container: nothing.
  MakeContainer("db", "other");
  ExpectForbidden(As(t, bh::verb::get, "/dbs/db/colls/other"));
  ExpectForbidden(As(t, bh::verb::get, "/dbs/db/colls/other/docs"));
  ExpectForbidden(As(t, bh::verb::get, "/dbs/db/colls"));
  ExpectForbidden(As(t, bh::verb::get, "/dbs/db"));
  ExpectForbidden(As(t, bh::verb::get, "/dbs"));
  ExpectForbidden(As(t, bh::verb::post, "/dbs", R"({"id":"x"})"));
  ExpectForbidden(As(t, bh::verb::get, "/dbs/db/users"));
  ExpectForbidden(As(t, bh::verb::get, "/dbs/db/users/u/permissions"));
  ExpectForbidden(As(t, bh::verb::get, "/offers"));
  ExpectForbidden(As(t, bh::verb::get, "/dbs/nodb/colls/c"));
  // Master-key requests are unaffected.
  EXPECT_EQ(Get("/dbs/db").status(), 200);
}

TEST_F(UsersTest, ContainerAllTokenWritesAndMayDeleteTheContainer) {
  const std::string t = Token("p", "All", "dbs/db/colls/c");
  auto created = WriteDoc(t, R"({"id":"n","pk":"x"})", R"(["x"])");
  EXPECT_EQ(created.status(), 201) << created;
  EXPECT_EQ(WriteDoc(t, R"({"id":"n","pk":"x"})", R"(["x"])").status(), 409);
  EXPECT_EQ(As(t, bh::verb::put, "/dbs/db/colls/c/docs/n", R"({"id":"n","pk":"x","v":2})",
               {{"x-ms-documentdb-partitionkey", R"(["x"])"}}).status(),
            200);
  EXPECT_EQ(As(t, bh::verb::patch, "/dbs/db/colls/c/docs/n", R"({"operations":[{"op":"set","path":"/v","value":3}]})",
               {{"x-ms-documentdb-partitionkey", R"(["x"])"}}).status(),
            200);
  EXPECT_EQ(As(t, bh::verb::delete_, "/dbs/db/colls/c/docs/n", "", {{"x-ms-documentdb-partitionkey", R"(["x"])"}}).status(),
            204);
  EXPECT_EQ(As(t, bh::verb::post, "/dbs/db/colls/c/sprocs", R"({"id":"s","body":"function(){getContext().getResponse().setBody(1);}"})")
                .status(),
            201);
  EXPECT_EQ(As(t, bh::verb::post, "/dbs/db/colls/c/sprocs/s", "[]", {{"x-ms-documentdb-partitionkey", R"(["x"])"}}).status(),
            200);
  ExpectForbidden(As(t, bh::verb::post, "/dbs/db/colls", R"({"id":"c2","partitionKey":{"paths":["/pk"]}})"));
  EXPECT_EQ(As(t, bh::verb::delete_, "/dbs/db/colls/c").status(), 204);
}

TEST_F(UsersTest, PartitionKeyTokenReachesOnlyItsPartition) {
  const std::string t = Token("p", "All", "dbs/db/colls/c", R"(["x"])");
  EXPECT_EQ(As(t, bh::verb::get, "/dbs/db/colls/c").status(), 200);  // the SDKs read the definition to route
  EXPECT_EQ(As(t, bh::verb::get, "/dbs/db/colls/c/pkranges").status(), 200);
  EXPECT_EQ(ReadDoc(t, "a", R"(["x"])").status(), 200);
  ExpectForbidden(ReadDoc(t, "b", R"(["y"])"));
  ExpectForbidden(As(t, bh::verb::get, "/dbs/db/colls/c/docs/a"));  // no key named: nothing to check against
  EXPECT_EQ(WriteDoc(t, R"({"id":"n","pk":"x"})", R"(["x"])").status(), 201);
  ExpectForbidden(WriteDoc(t, R"({"id":"n","pk":"y"})", R"(["y"])"));
  // The body's key must still match the header's, as without a token.
  EXPECT_EQ(WriteDoc(t, R"({"id":"m","pk":"y"})", R"(["x"])").status(), 400);
  auto q = Query(t, R"(["x"])");
  EXPECT_EQ(q.status(), 200) << q;
  EXPECT_EQ(q.Json()["_count"].GetInt(), 2);
  ExpectForbidden(Query(t));
  ExpectForbidden(Query(t, R"(["y"])"));
  ExpectForbidden(As(t, bh::verb::get, "/dbs/db/colls/c/docs"));
  EXPECT_EQ(As(t, bh::verb::get, "/dbs/db/colls/c/docs", "", {{"x-ms-documentdb-partitionkey", R"(["x"])"}})
                .Json()["_count"].GetInt(),
            2);
  auto plan = As(t, bh::verb::post, "/dbs/db/colls/c/docs", R"({"query":"SELECT * FROM c"})",
                 {{"x-ms-cosmos-is-query-plan-request", "True"}, {"content-type", "application/query+json"},
                  {"x-ms-cosmos-supported-query-features", "NonValueAggregate"}});
  EXPECT_EQ(plan.status(), 200) << plan;
  ExpectForbidden(As(t, bh::verb::delete_, "/dbs/db/colls/c"));
  ExpectForbidden(As(t, bh::verb::get, "/dbs/db/colls/c/docs", "", {{"x-ms-documentdb-partitionkeyrangeid", "0"}}));
  // Scripts belong to no partition key, so a token for one key neither lists nor reads them (a
  // permission applies where its key is a superset of the resource's); it runs a stored
  // procedure in its own key only.
  ASSERT_EQ(Post("/dbs/db/colls/c/sprocs", R"({"id":"s","body":"function(){getContext().getResponse().setBody(7);}"})")
                .status(),
            201);
  ASSERT_EQ(Post("/dbs/db/colls/c/udfs", R"({"id":"f","body":"function(x){return x;}"})").status(), 201);
  ExpectForbidden(As(t, bh::verb::get, "/dbs/db/colls/c/sprocs"));
  ExpectForbidden(As(t, bh::verb::get, "/dbs/db/colls/c/sprocs/s"));
  ExpectForbidden(As(t, bh::verb::get, "/dbs/db/colls/c/udfs"));
  ExpectForbidden(As(t, bh::verb::get, "/dbs/db/colls/c/udfs/f"));
  ExpectForbidden(As(t, bh::verb::get, "/dbs/db/colls/c/triggers"));
  auto ran = As(t, bh::verb::post, "/dbs/db/colls/c/sprocs/s", "[]", {{"x-ms-documentdb-partitionkey", R"(["x"])"}});
  EXPECT_EQ(ran.status(), 200) << ran;
  EXPECT_EQ(ran.body(), "7");
  ExpectForbidden(As(t, bh::verb::post, "/dbs/db/colls/c/sprocs/s", "[]", {{"x-ms-documentdb-partitionkey", R"(["y"])"}}));
  ExpectForbidden(As(t, bh::verb::delete_, "/dbs/db/colls/c/sprocs/s"));
}

TEST_F(UsersTest, ItemTokenReachesOnlyItsItem) {
  const std::string read = Token("p", "Read", "dbs/db/colls/c/docs/a");
  EXPECT_EQ(ReadDoc(read, "a", R"(["x"])").status(), 200);
  EXPECT_EQ(As(read, bh::verb::get, "/dbs/db/colls/c").status(), 200);
  ExpectForbidden(ReadDoc(read, "b", R"(["y"])"));
  ExpectForbidden(As(read, bh::verb::get, "/dbs/db/colls/c/docs"));
  ExpectForbidden(Query(read, R"(["x"])"));
  ExpectForbidden(As(read, bh::verb::delete_, "/dbs/db/colls/c/docs/a", "", {{"x-ms-documentdb-partitionkey", R"(["x"])"}}));
  ExpectForbidden(WriteDoc(read, R"({"id":"a","pk":"x"})", R"(["x"])"));

  const std::string all = Token("p2", "All", "dbs/db/colls/c/docs/b", R"(["y"])");
  EXPECT_EQ(As(all, bh::verb::put, "/dbs/db/colls/c/docs/b", R"({"id":"b","pk":"y","n":5})",
               {{"x-ms-documentdb-partitionkey", R"(["y"])"}}).status(),
            200);
  // Same id in another partition: another item.
  ASSERT_EQ(CreateDoc("db", "c", R"({"id":"b","pk":"z"})", R"(["z"])").status(), 201);
  ExpectForbidden(ReadDoc(all, "b", R"(["z"])"));
  EXPECT_EQ(As(all, bh::verb::delete_, "/dbs/db/colls/c/docs/b", "", {{"x-ms-documentdb-partitionkey", R"(["y"])"}}).status(),
            204);
}

TEST_F(UsersTest, SelfLinksNameResourcesByRid) {
  auto item = Get("/dbs/db/colls/c/docs/a", {{"x-ms-documentdb-partitionkey", R"(["x"])"}});
  const std::string item_self = item.Str("_self");
  ASSERT_EQ(CreateDoc("db", "c", R"({"id":"a","pk":"z"})", R"(["z"])").status(), 201);
  const std::string t = Token("p", "All", item_self);
  EXPECT_EQ(ReadDoc(t, "a", R"(["x"])").status(), 200);
  ExpectForbidden(ReadDoc(t, "a", R"(["z"])"));  // the rid named the item in partition x
  EXPECT_EQ(Get("/dbs/db/users/u/permissions/p").Str("resource"), item_self);  // kept as given

  const std::string coll = Token("p2", "Read", std::string("dbs/") + kDbRid + "/colls/" + kCollRid + "/");
  EXPECT_EQ(ReadDoc(coll, "b", R"(["y"])").status(), 200);
}

TEST_F(UsersTest, RidLinksThatNameNothingAreKeptAndGrantNothing) {
  // Microsoft's Python (test_crud.py test_permission_crud/upsert) and Java SDK tests, run against
  // the service, create permissions on "dbs/AQAAAA==/colls/AQAAAJ0fgTc=" ("a random one") and expect
  // 201: a link of resource ids is kept as given even when it names nothing; its token reaches nothing.
  User("u");
  const std::string db_rid = kDbRid, coll_rid = kCollRid;
  int n = 0;
  for (const std::string& link :
       {std::string("dbs/AQAAAA==/colls/AQAAAJ0fgTc="), std::string("dbs/N9EdAA==/colls/N9EdAIugXgA="),
        "dbs/" + db_rid + "/colls/AQBAAIAAAAI=", "/dbs/" + db_rid + "/colls/" + coll_rid + "/docs/AQBAAIAAAAEJAAAAAAAAAA==/",
        "dbs/" + db_rid + "/colls/" + coll_rid + "/sprocs/AQBAAIAAAAEJAAAAAAAAgA=="}) {
    const std::string id = "p" + std::to_string(++n);
    auto r = CreatePerm("u", PermBody(id, "All", link));
    ASSERT_EQ(r.status(), 201) << link << " " << r;
    EXPECT_EQ(r.Str("resource"), link);
    EXPECT_EQ(Get("/dbs/db/users/u/permissions/" + id).Str("resource"), link);
    const std::string t = r.Str("_token");
    ExpectForbidden(ReadDoc(t, "a", R"(["x"])"));
    ExpectForbidden(Query(t));
    ExpectForbidden(WriteDoc(t, R"({"id":"n","pk":"x"})", R"(["x"])"));
  }
  // With a partition key too, and replaced and upserted like any other.
  auto with_pk = CreatePerm("u", PermBody("pk", "Read", "dbs/AQAAAA==/colls/AQAAAJ0fgTg=", R"(["x"])"));
  EXPECT_EQ(with_pk.status(), 201) << with_pk;
  auto replaced = Put("/dbs/db/users/u/permissions/pk", PermBody("pk2", "Read", "dbs/AQAAAA==/colls/AQAAAJ0fgTk="));
  EXPECT_EQ(replaced.status(), 200) << replaced;
  // Still one permission per resource and user.
  EXPECT_EQ(CreatePerm("u", PermBody("dup", "Read", "dbs/AQAAAA==/colls/AQAAAJ0fgTc=")).status(), 409);
  EXPECT_EQ(Get("/dbs/db/users/u/permissions").Json()["_count"].GetInt(), 6);
}

TEST_F(UsersTest, ScriptTokens) {
  ASSERT_EQ(Post("/dbs/db/colls/c/sprocs", R"({"id":"s","body":"function(){getContext().getResponse().setBody(7);}"})")
                .status(),
            201);
  const std::string read = Token("p", "Read", "dbs/db/colls/c/sprocs/s");
  EXPECT_EQ(As(read, bh::verb::get, "/dbs/db/colls/c/sprocs/s").status(), 200);
  ExpectForbidden(As(read, bh::verb::post, "/dbs/db/colls/c/sprocs/s", "[]", {{"x-ms-documentdb-partitionkey", R"(["x"])"}}));
  ExpectForbidden(As(read, bh::verb::delete_, "/dbs/db/colls/c/sprocs/s"));
  ExpectForbidden(ReadDoc(read, "a", R"(["x"])"));
  // One permission per resource and user: the same script again is a 409; a replace makes it All.
  EXPECT_EQ(CreatePerm("u", PermBody("p2", "All", "dbs/db/colls/c/sprocs/s")).status(), 409);
  auto replaced = Put("/dbs/db/users/u/permissions/p", PermBody("p", "All", "dbs/db/colls/c/sprocs/s"));
  ASSERT_EQ(replaced.status(), 200) << replaced;
  const std::string all = replaced.Str("_token");
  auto run = As(all, bh::verb::post, "/dbs/db/colls/c/sprocs/s", "[]", {{"x-ms-documentdb-partitionkey", R"(["x"])"}});
  EXPECT_EQ(run.status(), 200) << run;
  EXPECT_EQ(run.body(), "7");
  // A container token for one key may run scripts in that partition only.
  const std::string pk = Token("p3", "All", "dbs/db/colls/c", R"(["x"])");
  EXPECT_EQ(As(pk, bh::verb::post, "/dbs/db/colls/c/sprocs/s", "[]", {{"x-ms-documentdb-partitionkey", R"(["x"])"}}).status(),
            200);
  ExpectForbidden(As(pk, bh::verb::post, "/dbs/db/colls/c/sprocs/s", "[]", {{"x-ms-documentdb-partitionkey", R"(["y"])"}}));
  ExpectForbidden(As(pk, bh::verb::delete_, "/dbs/db/colls/c/sprocs/s"));
  EXPECT_EQ(As(all, bh::verb::delete_, "/dbs/db/colls/c/sprocs/s").status(), 204);
}

}  // namespace
}  // namespace cosmos::testing
