// http/entra and http/rbac: Entra ID token validation (format, times, audience, issuer, oid,
// RS256/ES256 signatures with keys made here), role definitions, scopes, wildcards, and the data
// action each route names (docs/entra-id.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "../http/aad_token_util.h"
#include "common/errors.h"
#include "http/entra.h"
#include "http/rbac.h"
#include "http/routes.h"
#include "json/json.h"
#include "util/util.h"

namespace cosmos {
namespace {

using testing::B64Url;
using testing::FakeToken;
using testing::TestClaims;
using testing::TestSigningKey;

constexpr int64_t kNow = 1'800'000'000;
constexpr const char* kKey = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

http::AadValidation Validation(const http::AadKeys* keys = nullptr) {
  http::AadValidation v;
  v.keys = keys;
  v.audiences = http::AcceptedAudiences("localhost:8081", "");
  v.account = "cosmosdev";
  v.now = kNow;
  return v;
}

// The substatus ValidateAadToken throws (0: accepted), and its message in `message`.
int Substatus(const std::string& jwt, const http::AadValidation& v, std::string* message = nullptr) {
  try {
    http::ValidateAadToken(jwt, v);
    return 0;
  } catch (const CosmosError& e) {
    EXPECT_EQ(e.status, 401);
    EXPECT_EQ(e.code, "Unauthorized");
    if (message) *message = e.what();
    return e.substatus;
  }
}

TEST(EntraToken, TheSdkTestTokenIsAcceptedWithoutKeys) {
  // Every SDK's emulator tests: kid CosmosEmulatorPrimaryMaster (.NET: x_9KSusKU5YcHf4), aud
  // https://localhost.localhost, the master key's text as the signature.
  auto p = http::ValidateAadToken(FakeToken(TestClaims("96313034-4739-43cb-93cd-74193adbe5b6", kNow, kNow + 7200, "https://localhost.localhost",
                                                       R"(,"groups":["g1","g2"])"),
                                            kKey),
                                  Validation());
  EXPECT_EQ(p.oid, "96313034-4739-43cb-93cd-74193adbe5b6");
  EXPECT_EQ(p.groups, (std::vector<std::string>{"g1", "g2"}));
  EXPECT_EQ(p.expiry, kNow + 7200);
  EXPECT_EQ(Substatus(FakeToken(TestClaims("o", kNow, kNow + 60), kKey, "x_9KSusKU5YcHf4"), Validation()), 0);
  // Go's test token: pretty-printed JSON.
  EXPECT_EQ(Substatus(FakeToken("{\n  \"aud\": \"https://localhost.localhost\",\n  \"exp\": " + std::to_string(kNow + 60) +
                                    ",\n  \"oid\": \"o\"\n}",
                                kKey),
                      Validation()),
            0);
}

TEST(EntraToken, AudiencesTheSdksRequest) {
  // JS keeps the port, Python/.NET/Java/Go drop it, Rust and the fallbacks ask for cosmos.azure.com.
  for (const char* aud : {"https://localhost:8081", "https://localhost", "https://cosmos.azure.com",
                          "https://localhost.localhost", "http://localhost"})
    EXPECT_EQ(Substatus(FakeToken(TestClaims("o", kNow, kNow + 60, aud), kKey), Validation()), 0) << aud;
  std::string message;
  // The service compares exactly: a trailing slash is another audience (azure-sdk-for-java#42800).
  EXPECT_EQ(Substatus(FakeToken(TestClaims("o", kNow, kNow + 60, "https://localhost/"), kKey), Validation(), &message),
            http::aad_substatus::kInvalidAudience);
  EXPECT_EQ(message.substr(0, message.find(", http")),
            "Request blocked by Auth cosmosdev : Provided AAD token is intended for [https://localhost/]. This "
            "database account accepts tokens intended for [https://localhost");
  EXPECT_EQ(Substatus(FakeToken(TestClaims("o", kNow, kNow + 60, "https://other.documents.azure.com"), kKey), Validation()),
            http::aad_substatus::kInvalidAudience);
  // An array of audiences: one must match.
  EXPECT_EQ(Substatus(FakeToken(R"({"aud":["x","https://cosmos.azure.com"],"exp":)" + std::to_string(kNow + 60) +
                                    R"(,"oid":"o"})",
                                kKey),
                      Validation()),
            0);
  auto auds = http::AcceptedAudiences("[::1]:8081", "cosmos.example");
  for (const char* a : {"https://[::1]", "https://[::1]:8081", "http://[::1]", "https://cosmos.example"})
    EXPECT_NE(std::find(auds.begin(), auds.end(), a), auds.end()) << a;
}

TEST(EntraToken, TimesOnTheEmulatorClockWithFiveMinutesOfSkew) {
  std::string message;
  EXPECT_EQ(Substatus(FakeToken(TestClaims("o", kNow - 7200, kNow - 3600), kKey), Validation(), &message),
            http::aad_substatus::kExpired);
  // The service's text (azure-sdk-for-js#22620); times as .NET prints them.
  EXPECT_EQ(message, "Request blocked by Auth cosmosdev : Provided AAD token has been expired since [" +
                         http::AadTime(kNow - 3600) + "]. Current server time is [" + http::AadTime(kNow) +
                         "]. Please refresh the AAD token.");
  EXPECT_EQ(http::AadTime(1658077749), "7/17/2022 5:09:09 PM (UTC)");
  EXPECT_EQ(http::AadTime(1658102665), "7/18/2022 12:04:25 AM (UTC)");
  EXPECT_EQ(Substatus(FakeToken(TestClaims("o", kNow - 7200, kNow - 200), kKey), Validation()), 0);  // within skew
  EXPECT_EQ(Substatus(FakeToken(TestClaims("o", kNow + 200, kNow + 3600), kKey), Validation()), 0);
  EXPECT_EQ(Substatus(FakeToken(TestClaims("o", kNow + 600, kNow + 3600), kKey), Validation()),
            http::aad_substatus::kNotYetValid);
  EXPECT_EQ(Substatus(FakeToken(R"({"aud":"https://localhost","oid":"o"})", kKey), Validation()),
            http::aad_substatus::kInvalidFormat);  // no exp
}

TEST(EntraToken, MalformedTokensAre401NeverACrash) {
  const std::string good = FakeToken(TestClaims("o", kNow, kNow + 60), kKey);
  const std::string header = good.substr(0, good.find('.'));
  for (const std::string& bad :
       {std::string(""), std::string("a.b"), good + ".x", std::string("!!!.x.y"), std::string("...."),
        B64Url("[1]") + "." + B64Url("{}") + ".x", B64Url("{}") + "." + B64Url("{}") + ".x",
        header + "." + B64Url("not json") + ".x", header + ".a=.x", std::string(20000, 'a') + ".b.c",
        B64Url(R"({"alg":"RS256"})") + "." + B64Url(std::string(100000, '{')) + ".x"})
    EXPECT_EQ(Substatus(bad, Validation()), http::aad_substatus::kInvalidFormat) << bad.substr(0, 80);
  EXPECT_EQ(Substatus(FakeToken(R"({"aud":"https://localhost","exp":)" + std::to_string(kNow + 60) + "}", kKey),
                      Validation()),
            http::aad_substatus::kMissingObjectIdentifier);
}

TEST(EntraToken, IssuerWhenConfigured) {
  auto v = Validation();
  v.issuer = "https://login.microsoftonline.com/tenant/v2.0";
  EXPECT_EQ(Substatus(FakeToken(TestClaims("o", kNow, kNow + 60), kKey), v), http::aad_substatus::kInvalidIssuer);
  v.issuer = "https://sts.fake-issuer.net/7b1999a1-dfd7-440e-8204-00170979b984";
  EXPECT_EQ(Substatus(FakeToken(TestClaims("o", kNow, kNow + 60), kKey), v), 0);
}

TEST(EntraToken, SignaturesVerifyWithJwksKeys) {
  TestSigningKey rsa("RS256", "rsa-1"), ec("ES256", "ec-1"), stranger("RS256", "rsa-1");
  auto keys = http::AadKeys::Load(R"({"keys":[)" + rsa.Jwk() + "," + ec.Jwk() + "]}");
  ASSERT_EQ(keys->size(), 2u);
  const auto v = Validation(keys.get());
  const std::string claims = TestClaims("o", kNow, kNow + 60);
  EXPECT_EQ(Substatus(rsa.Sign(claims), v), 0);
  EXPECT_EQ(Substatus(ec.Sign(claims), v), 0);
  // Another key under the same kid, an altered payload, a key named by a kid the set lacks.
  EXPECT_EQ(Substatus(stranger.Sign(claims), v), http::aad_substatus::kInvalidSignature);
  std::string altered = rsa.Sign(claims);
  const size_t d1 = altered.find('.'), d2 = altered.find('.', d1 + 1);
  altered.replace(d1 + 1, d2 - d1 - 1, B64Url(TestClaims("someone-else", kNow, kNow + 60)));
  EXPECT_EQ(Substatus(altered, v), http::aad_substatus::kInvalidSignature);
  EXPECT_EQ(Substatus(rsa.Sign(claims, "RS256", "unknown-kid"), v), http::aad_substatus::kInvalidSigningKey);
  // alg none, HS256 and an algorithm on the wrong key type are refused once keys are configured.
  const std::string unsigned_token = B64Url(R"({"alg":"none","kid":"rsa-1"})") + "." + B64Url(claims) + ".";
  EXPECT_EQ(Substatus(unsigned_token, v), http::aad_substatus::kInvalidSignature);
  EXPECT_EQ(Substatus(rsa.Sign(claims, "HS256"), v), http::aad_substatus::kInvalidSignature);
  EXPECT_EQ(Substatus(ec.Sign(claims, "RS256"), v), http::aad_substatus::kInvalidSignature);
  // The SDK suites' fake token does not verify once keys are given.
  EXPECT_EQ(Substatus(FakeToken(claims, kKey, "rsa-1"), v), http::aad_substatus::kInvalidSignature);
  // Without keys, alg none passes (nothing is verified; the start line says so).
  EXPECT_EQ(Substatus(unsigned_token, Validation()), 0);
}

TEST(EntraToken, SignaturesVerifyWithPemKeys) {
  TestSigningKey rsa("RS256", "any"), ec("ES256", "any");
  auto keys = http::AadKeys::Load(rsa.PublicPem() + ec.PublicPem());
  ASSERT_EQ(keys->size(), 2u);
  const std::string claims = TestClaims("o", kNow, kNow + 60);
  // A PEM key has no kid: it verifies tokens whatever kid they name.
  EXPECT_EQ(Substatus(rsa.Sign(claims, "RS256", "whatever"), Validation(keys.get())), 0);
  EXPECT_EQ(Substatus(ec.Sign(claims, "ES256", ""), Validation(keys.get())), 0);
  TestSigningKey other("RS256", "x");
  EXPECT_EQ(Substatus(other.Sign(claims), Validation(keys.get())), http::aad_substatus::kInvalidSignature);
}

TEST(EntraToken, BadKeyFilesAreRefused) {
  for (const char* bad : {"", "{}", R"({"keys":[]})", R"({"keys":[{"kty":"oct","k":"AAAA"}]})",
                          R"({"keys":[{"kty":"RSA","n":"!!","e":"AQAB"}]})",
                          R"({"keys":[{"kty":"EC","crv":"P-384","x":"AA","y":"AA"}]})",
                          "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", "garbage"})
    EXPECT_THROW(http::AadKeys::Load(bad), std::runtime_error) << bad;
}

// ---- roles ------------------------------------------------------------------------------------

TEST(EntraRoles, ScopesNormalize) {
  EXPECT_EQ(http::NormalizeScope("/"), "/");
  EXPECT_EQ(http::NormalizeScope(""), "/");
  EXPECT_EQ(http::NormalizeScope("/dbs/sales/"), "/dbs/sales");
  EXPECT_EQ(http::NormalizeScope("/dbs/sales/colls/orders"), "/dbs/sales/colls/orders");
  EXPECT_EQ(http::NormalizeScope("/subscriptions/s/resourceGroups/rg/providers/Microsoft.DocumentDB/databaseAccounts/"
                                 "acct/dbs/purchases/colls/redmond-purchases"),
            "/dbs/purchases/colls/redmond-purchases");
  EXPECT_EQ(http::NormalizeScope("/subscriptions/s/resourceGroups/rg/providers/Microsoft.DocumentDB/databaseAccounts/acct"),
            "/");
  EXPECT_FALSE(http::NormalizeScope("/dbs"));
  EXPECT_FALSE(http::NormalizeScope("/dbs/a/docs/b"));
  EXPECT_FALSE(http::NormalizeScope("/subscriptions/s/resourceGroups/rg"));
}

bool Allows(const http::RbacRoles& roles, const std::string& who, http::RbacAction a, const std::string& resource) {
  bool any = false;
  return roles.Allows({who}, http::RbacActionName(a), resource, any);
}

TEST(EntraRoles, DefaultEveryPrincipalIsADataContributor) {
  http::RbacRoles roles;
  using A = http::RbacAction;
  for (A a : {A::kReadMetadata, A::kCreateItem, A::kReadItem, A::kReplaceItem, A::kUpsertItem, A::kDeleteItem,
              A::kExecuteQuery, A::kReadChangeFeed, A::kExecuteStoredProcedure, A::kManageConflicts})
    EXPECT_TRUE(Allows(roles, "anyone", a, "/dbs/d/colls/c")) << http::RbacActionName(a);
  EXPECT_NE(roles.Summary().find("every Entra ID principal"), std::string::npos);
}

TEST(EntraRoles, BuiltInReaderCustomRolesWildcardsAndScopes) {
  http::RbacRoles roles;
  roles.Replace(R"({
    "roleDefinitions": [
      {"id": "/subscriptions/s/resourceGroups/rg/providers/Microsoft.DocumentDB/databaseAccounts/a/sqlRoleDefinitions/11111111-1111-1111-1111-111111111111",
       "properties": {"roleName": "Writers", "type": "CustomRole", "assignableScopes": ["/dbs/sales"],
                      "permissions": [{"dataActions": ["Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/items/*"], "notDataActions": []}]}},
      {"Name": "22222222-2222-2222-2222-222222222222", "RoleName": "Queries", "AssignableScopes": ["/"],
       "Permissions": [{"DataActions": ["Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/*"]}]}
    ],
    "roleAssignments": [
      {"properties": {"roleDefinitionId": "00000000-0000-0000-0000-000000000001", "scope": "/", "principalId": "reader"}},
      {"properties": {"roleDefinitionId": ".../sqlRoleDefinitions/11111111-1111-1111-1111-111111111111", "scope": "/dbs/sales/colls/orders", "principalId": "writer"}},
      {"properties": {"roleDefinitionId": "22222222-2222-2222-2222-222222222222", "scope": "/dbs/sales", "principalId": "group-1"}}
    ]})");
  using A = http::RbacAction;
  EXPECT_TRUE(Allows(roles, "reader", A::kReadItem, "/dbs/x/colls/y"));
  EXPECT_TRUE(Allows(roles, "reader", A::kExecuteQuery, "/dbs/x/colls/y"));
  EXPECT_TRUE(Allows(roles, "reader", A::kReadMetadata, "/"));
  EXPECT_FALSE(Allows(roles, "reader", A::kCreateItem, "/dbs/x/colls/y"));
  // items/* covers every item action, on its scope only, and no container-level action.
  EXPECT_TRUE(Allows(roles, "writer", A::kCreateItem, "/dbs/sales/colls/orders"));
  EXPECT_TRUE(Allows(roles, "writer", A::kDeleteItem, "/dbs/sales/colls/orders"));
  EXPECT_FALSE(Allows(roles, "writer", A::kCreateItem, "/dbs/sales/colls/other"));
  EXPECT_FALSE(Allows(roles, "writer", A::kExecuteQuery, "/dbs/sales/colls/orders"));
  EXPECT_FALSE(Allows(roles, "writer", A::kReadMetadata, "/dbs/sales/colls/orders"));
  // containers/* covers container-level actions, not the items' (the built-in Contributor lists both).
  bool any = false;
  EXPECT_TRUE(roles.Allows({"someone", "group-1"}, http::RbacActionName(A::kExecuteQuery), "/dbs/sales/colls/c", any));
  EXPECT_FALSE(roles.Allows({"someone", "group-1"}, http::RbacActionName(A::kReadItem), "/dbs/sales/colls/c", any));
  EXPECT_TRUE(any);
  EXPECT_FALSE(roles.Allows({"nobody"}, http::RbacActionName(A::kReadItem), "/", any));
  EXPECT_FALSE(any);
  // What GET /_emulator/rbac answers loads again unchanged.
  const std::string once = roles.ToJson();
  http::RbacRoles again;
  again.Replace(once);
  EXPECT_EQ(again.ToJson(), once);
  json::Document d;
  ASSERT_EQ(json::Parse(once, d), json::ParseStatus::kOk);
  EXPECT_EQ(d["roleDefinitions"].Size(), 4u);
  EXPECT_STREQ(d["roleDefinitions"][0]["properties"]["roleName"].GetString(), "Cosmos DB Built-in Data Reader");
  EXPECT_EQ(d["roleAssignments"].Size(), 3u);
}

TEST(EntraRoles, BadDocumentsAreRefusedAndChangeNothing) {
  http::RbacRoles roles;
  const std::string before = roles.ToJson();
  auto refused = [&](const std::string& doc) {
    try {
      roles.Replace(doc);
    } catch (const CosmosError& e) {
      EXPECT_EQ(e.status, 400);
      return std::string(e.what());
    }
    return std::string("<accepted>");
  };
  const std::string def = R"({"name":"33333333-3333-3333-3333-333333333333","roleName":"R","assignableScopes":["/dbs/a"],"permissions":[{"dataActions":[)";
  EXPECT_EQ(refused(R"({"roleDefinitions":[)" + def + R"("Microsoft.DocumentDB/databaseAccounts/sqlDatabases/write"]}]}]})"),
            "The provided data action string [Microsoft.DocumentDB/databaseAccounts/sqlDatabases/write] does not "
            "correspond to any valid SQL data action.");
  EXPECT_NE(refused(R"({"roleDefinitions":[{"roleName":"R","assignableScopes":["/"],"permissions":[]}]})").find("needs its id"),
            std::string::npos);
  EXPECT_NE(refused(R"({"roleDefinitions":[)" + def +
                    R"("Microsoft.DocumentDB/databaseAccounts/readMetadata"],"notDataActions":["x"]}]}]})")
                .find("notDataActions"),
            std::string::npos);
  // Assigned outside the definition's assignable scopes, or naming no definition.
  EXPECT_NE(refused(R"({"roleDefinitions":[)" + def + R"("Microsoft.DocumentDB/databaseAccounts/readMetadata"]}]}],
                      "roleAssignments":[{"roleDefinitionId":"33333333-3333-3333-3333-333333333333","scope":"/dbs/b","principalId":"p"}]})")
                .find("not within the assignable scopes"),
            std::string::npos);
  EXPECT_NE(refused(R"({"roleAssignments":[{"roleDefinitionId":"44444444-4444-4444-4444-444444444444","scope":"/","principalId":"p"}]})")
                .find("names no role definition"),
            std::string::npos);
  EXPECT_NE(refused(R"({"roleDefinitions":[{"name":"00000000-0000-0000-0000-000000000002","roleName":"X","assignableScopes":["/"],"permissions":[]}]})")
                .find("built-in"),
            std::string::npos);
  EXPECT_NE(refused("[]").find("JSON object"), std::string::npos);
  EXPECT_NE(refused(R"({"assignments":[]})").find("Unknown member"), std::string::npos);
  EXPECT_EQ(roles.ToJson(), before);
}

// ---- the action each route names ---------------------------------------------------------------

TEST(EntraRoles, EachRouteNamesTheServicesAction) {
  using A = http::RbacAction;
  using V = boost::beast::http::verb;
  using Op = http::Operation;
  auto action = [](std::vector<std::string_view> pattern, V verb, Op op) {
    for (const auto& r : http::Routes())
      if (r.pattern == pattern && r.verb == verb && r.op == op) return r.facts.rbac;
    ADD_FAILURE() << "no route";
    return A::kManagement;
  };
  const std::vector<std::string_view> docs = {"dbs", "{db}", "colls", "{coll}", "docs"};
  const std::vector<std::string_view> doc = {"dbs", "{db}", "colls", "{coll}", "docs", "{id}"};
  EXPECT_EQ(action({}, V::get, Op::kPlain), A::kReadMetadata);
  EXPECT_EQ(action({"dbs"}, V::get, Op::kPlain), A::kReadMetadata);
  EXPECT_EQ(action({"dbs", "{db}"}, V::get, Op::kPlain), A::kReadMetadata);
  EXPECT_EQ(action({"dbs", "{db}", "colls", "{coll}"}, V::get, Op::kPlain), A::kReadMetadata);
  EXPECT_EQ(action({"dbs", "{db}", "colls", "{coll}", "pkranges"}, V::get, Op::kPlain), A::kReadMetadata);
  EXPECT_EQ(action({"addresses"}, V::get, Op::kPlain), A::kReadMetadata);
  EXPECT_EQ(action(docs, V::post, Op::kPlain), A::kCreateItem);
  EXPECT_EQ(action(docs, V::post, Op::kUpsert), A::kUpsertItem);
  EXPECT_EQ(action(docs, V::post, Op::kQuery), A::kExecuteQuery);
  EXPECT_EQ(action(docs, V::post, Op::kQueryPlan), A::kExecuteQuery);
  EXPECT_EQ(action(docs, V::get, Op::kPlain), A::kReadChangeFeed);
  EXPECT_EQ(action(docs, V::get, Op::kChangeFeed), A::kReadChangeFeed);
  EXPECT_EQ(action(docs, V::post, Op::kBatch), A::kBatchItems);
  EXPECT_EQ(action(doc, V::get, Op::kPlain), A::kReadItem);
  EXPECT_EQ(action(doc, V::put, Op::kPlain), A::kReplaceItem);
  EXPECT_EQ(action(doc, V::patch, Op::kPlain), A::kReplaceItem);
  EXPECT_EQ(action(doc, V::delete_, Op::kPlain), A::kDeleteItem);
  EXPECT_EQ(action({"dbs", "{db}", "colls", "{coll}", "sprocs", "{id}"}, V::post, Op::kPlain),
            A::kExecuteStoredProcedure);
  EXPECT_EQ(action({"dbs", "{db}", "colls", "{coll}", "conflicts"}, V::get, Op::kPlain), A::kManageConflicts);
  // Management operations (how-to-setup-rbac "Permission model"): never served to a token.
  EXPECT_EQ(action({"dbs"}, V::post, Op::kPlain), A::kManagement);
  EXPECT_EQ(action({"dbs", "{db}"}, V::delete_, Op::kPlain), A::kManagement);
  EXPECT_EQ(action({"dbs", "{db}", "colls"}, V::post, Op::kPlain), A::kManagement);
  EXPECT_EQ(action({"dbs", "{db}", "colls", "{coll}"}, V::put, Op::kPlain), A::kManagement);
  EXPECT_EQ(action({"dbs", "{db}", "colls", "{coll}"}, V::delete_, Op::kPlain), A::kManagement);
  EXPECT_EQ(action({"dbs", "{db}", "colls", "{coll}", "sprocs"}, V::post, Op::kPlain), A::kManagement);
  EXPECT_EQ(action({"dbs", "{db}", "colls", "{coll}", "sprocs"}, V::get, Op::kPlain), A::kManagement);
  EXPECT_EQ(action({"dbs", "{db}", "colls", "{coll}", "udfs", "{id}"}, V::get, Op::kPlain), A::kManagement);
  EXPECT_EQ(action({"offers"}, V::post, Op::kQuery), A::kManagement);
  EXPECT_EQ(action({"offers", "{id}"}, V::put, Op::kPlain), A::kManagement);
  EXPECT_EQ(action({"dbs", "{db}", "users"}, V::post, Op::kPlain), A::kManagement);
  EXPECT_EQ(action({"dbs", "{db}", "users", "{user}", "permissions"}, V::get, Op::kPlain), A::kManagement);
  EXPECT_EQ(http::RbacActionName(A::kReadMetadata), "Microsoft.DocumentDB/databaseAccounts/readMetadata");
  EXPECT_EQ(http::RbacActionName(A::kExecuteQuery),
            "Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/executeQuery");
}

}  // namespace
}  // namespace cosmos
