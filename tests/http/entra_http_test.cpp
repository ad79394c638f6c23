// Microsoft Entra ID tokens through the pipeline (docs/entra-id.md): the SDK suites' test token
// serves data operations under the default roles; management operations answer 403/5300 and
// operations outside a principal's roles 403/5301 with the service's messages; 401s for bad,
// expired and wrong-audience tokens; /_emulator/rbac changes the roles at once; --aad-keys.
#include <gtest/gtest.h>

#include <string>

#include "aad_token_util.h"
#include "http/entra.h"
#include "http/rbac.h"
#include "http_test_util.h"

namespace cosmos::testing {
namespace {

class EntraTest : public EmulatorTest {
 protected:
  EntraTest() {
    services_.rbac = &roles_;
    MakeDatabase("db");
    MakeContainer("db", "c");
  }

  std::string Token(const std::string& oid, int64_t exp_in = 3600, const std::string& aud = "https://localhost.localhost") {
    const int64_t now = wall_.UnixSeconds();
    return FakeToken(TestClaims(oid, now, now + exp_in, aud), kEmulatorKey);
  }

  // A request with the token (raw, as JS/Python/Go send it; `encode`: as .NET/Java do).
  Reply As(const std::string& token, bh::verb verb, std::string_view target, std::string body = "",
           Headers headers = {}, bool encode = false) {
    const std::string value = "type=aad&ver=1.0&sig=" + token;
    headers.emplace_back("authorization", encode ? util::PercentEncode(value) : value);
    return Call(verb, target, std::move(body), headers, NoSignature());
  }

  void SetRoles(const std::string& doc) {
    auto r = Put("/_emulator/rbac", doc);
    ASSERT_EQ(r.status(), 200) << r;
  }

  static std::string Blocked(const std::string& text) { return "Request blocked by Auth cosmosdev : " + text; }
  static std::string MessageText(const Reply& r) {
    std::string m = r.Message();
    return m.substr(0, m.find("\r\nActivityId: "));
  }

  http::RbacRoles roles_;
};

const Headers kPk = {{"x-ms-documentdb-partitionkey", R"(["a"])"}};

TEST_F(EntraTest, TheSdkTestTokenServesDataOperationsUnderTheDefaultRoles) {
  const std::string t = Token("96313034-4739-43cb-93cd-74193adbe5b6");
  EXPECT_EQ(As(t, bh::verb::get, "/").status(), 200);
  EXPECT_EQ(As(t, bh::verb::get, "/dbs/db").status(), 200);
  EXPECT_EQ(As(t, bh::verb::get, "/dbs/db/colls/c", "", {}, true).status(), 200);
  EXPECT_EQ(As(t, bh::verb::get, "/dbs/db/colls/c/pkranges").status(), 200);
  auto created = As(t, bh::verb::post, "/dbs/db/colls/c/docs", R"({"id":"1","pk":"a"})", kPk);
  EXPECT_EQ(created.status(), 201) << created;
  EXPECT_EQ(As(t, bh::verb::get, "/dbs/db/colls/c/docs/1", "", kPk).status(), 200);
  auto q = As(t, bh::verb::post, "/dbs/db/colls/c/docs", R"({"query":"SELECT * FROM c"})",
              {{"x-ms-documentdb-isquery", "true"}, {"content-type", "application/query+json"},
               {"x-ms-documentdb-query-enablecrosspartition", "true"}});
  EXPECT_EQ(q.status(), 200) << q;
  EXPECT_EQ(As(t, bh::verb::put, "/dbs/db/colls/c/docs/1", R"({"id":"1","pk":"a","v":2})", kPk).status(), 200);
  EXPECT_EQ(As(t, bh::verb::delete_, "/dbs/db/colls/c/docs/1", "", kPk).status(), 204);
}

TEST_F(EntraTest, ManagementOperationsAre5300WhateverTheRoles) {
  const std::string t = Token("p1");
  struct Case {
    bh::verb verb;
    std::string target, body, echoed;
    Headers headers;
  };
  const std::vector<Case> cases = {
      {bh::verb::post, "/dbs", R"({"id":"x"})", "POST /dbs", {}},
      {bh::verb::delete_, "/dbs/db", "", "DELETE /dbs/db", {}},
      {bh::verb::post, "/dbs/db/colls", R"({"id":"x","partitionKey":{"paths":["/pk"]}})", "POST /dbs/db/colls", {}},
      {bh::verb::put, "/dbs/db/colls/c", R"({"id":"c","partitionKey":{"paths":["/pk"]}})", "PUT /dbs/db/colls/c", {}},
      {bh::verb::post, "//offers", R"({"query":"SELECT * FROM root"})", "POST /offers",
       {{"x-ms-documentdb-isquery", "true"}, {"content-type", "application/query+json"}}},
      {bh::verb::post, "/dbs/db/colls/c/sprocs", R"({"id":"s","body":"function(){}"})", "POST /dbs/db/colls/c/sprocs", {}},
      {bh::verb::get, "/dbs/db/colls/c/sprocs/", "", "GET /dbs/db/colls/c/sprocs/", {}},
      {bh::verb::post, "/dbs/db/users", R"({"id":"u"})", "POST /dbs/db/users", {}},
  };
  for (const auto& c : cases) {
    auto r = As(t, c.verb, c.target, c.body, c.headers);
    EXPECT_EQ(r.status(), 403) << c.target << r;
    EXPECT_EQ(r.Substatus(), "5300") << c.target;
    EXPECT_EQ(r.Code(), "Forbidden");
    // The service's text (vscode-cosmosdb#2446, efcore#32197, dapr components-contrib#1603).
    EXPECT_EQ(MessageText(r), Blocked("The given request [" + c.echoed +
                                      "] cannot be authorized by AAD token in data plane. Learn more: "
                                      "https://aka.ms/cosmos-native-rbac."))
        << c.target;
  }
  EXPECT_EQ(Get("/dbs/db/colls/c").status(), 200);  // nothing changed
}

TEST_F(EntraTest, OutsideThePrincipalsRolesIs5301) {
  SetRoles(R"({"roleAssignments":[
      {"properties":{"roleDefinitionId":"00000000-0000-0000-0000-000000000001","scope":"/","principalId":"reader"}},
      {"properties":{"roleDefinitionId":"00000000-0000-0000-0000-000000000002","scope":"/dbs/db/colls/c","principalId":"writer"}}]})");
  ASSERT_EQ(CreateDoc("db", "c", R"({"id":"1","pk":"a"})", R"(["a"])").status(), 201);
  const std::string reader = Token("reader"), writer = Token("writer"), nobody = Token("nobody");
  EXPECT_EQ(As(reader, bh::verb::get, "/dbs/db/colls/c/docs/1", "", kPk).status(), 200);
  auto r = As(reader, bh::verb::post, "/dbs/db/colls/c/docs", R"({"id":"2","pk":"a"})", kPk);
  EXPECT_EQ(r.status(), 403) << r;
  EXPECT_EQ(r.Substatus(), "5301");
  EXPECT_EQ(MessageText(r),
            Blocked("Request is blocked because principal [reader] does not have required RBAC permissions to perform "
                    "action [Microsoft.DocumentDB/databaseAccounts/sqlDatabases/containers/items/create] on resource "
                    "[dbs/db/colls/c]. Learn more: https://aka.ms/cosmos-native-rbac."));
  // A batch needs each operation's action.
  auto batch = As(reader, bh::verb::post, "/dbs/db/colls/c/docs",
                  R"([{"operationType":"Read","id":"1"},{"operationType":"Upsert","resourceBody":{"id":"3","pk":"a"}}])",
                  {{"x-ms-documentdb-partitionkey", R"(["a"])"}, {"x-ms-cosmos-is-batch-request", "true"},
                   {"x-ms-cosmos-batch-atomic", "true"}});
  EXPECT_EQ(batch.status(), 403) << batch;
  EXPECT_NE(batch.Message().find("items/upsert] on resource [dbs/db/colls/c]"), std::string::npos) << batch;
  // The writer's role is on its container only: the account's metadata is outside it.
  EXPECT_EQ(As(writer, bh::verb::post, "/dbs/db/colls/c/docs", R"({"id":"2","pk":"a"})", kPk).status(), 201);
  auto meta = As(writer, bh::verb::get, "/dbs");
  EXPECT_EQ(meta.Substatus(), "5301");
  EXPECT_NE(meta.Message().find("action [Microsoft.DocumentDB/databaseAccounts/readMetadata] on resource [/]."),
            std::string::npos)
      << meta;
  // A principal without any assignment (the service's "on any scope" form).
  auto none = As(nobody, bh::verb::get, "/");
  EXPECT_EQ(none.status(), 403);
  EXPECT_EQ(MessageText(none),
            Blocked("Request is blocked because principal [nobody] does not have required RBAC permissions to perform "
                    "action [Microsoft.DocumentDB/databaseAccounts/readMetadata] on any scope. Learn more: "
                    "https://aka.ms/cosmos-native-rbac."));
  // Role changes take effect at once.
  SetRoles(R"({"roleAssignments":[{"properties":{"roleDefinitionId":"00000000-0000-0000-0000-000000000002","scope":"/","principalId":"reader"}}]})");
  EXPECT_EQ(As(reader, bh::verb::post, "/dbs/db/colls/c/docs", R"({"id":"4","pk":"a"})", kPk).status(), 201);
}

TEST_F(EntraTest, TheRolesEndpointNeedsAMasterKey) {
  auto r = Get("/_emulator/rbac");
  ASSERT_EQ(r.status(), 200) << r;
  auto d = r.Json();
  EXPECT_EQ(d["roleDefinitions"].Size(), 2u);
  EXPECT_STREQ(d["roleAssignments"][0]["properties"]["principalId"].GetString(), "*");
  EXPECT_EQ(As(Token("p"), bh::verb::get, "/_emulator/rbac").status(), 403);
  EXPECT_EQ(Call(bh::verb::get, "/_emulator/rbac", "", {}, NoSignature()).status(), 401);
  auto bad = Put("/_emulator/rbac", R"({"roleAssignments":[{"roleDefinitionId":"nope","principalId":"p"}]})");
  EXPECT_EQ(bad.status(), 400) << bad;
  EXPECT_EQ(Call(bh::verb::post, "/_emulator/rbac", "{}").status(), 405);
}

TEST_F(EntraTest, BadExpiredAndWrongAudienceTokensAre401) {
  auto expired = As(Token("p", -3600), bh::verb::get, "/dbs");
  EXPECT_EQ(expired.status(), 401);
  EXPECT_EQ(expired.Substatus(), "5006");
  EXPECT_NE(expired.Message().find("Provided AAD token has been expired since ["), std::string::npos) << expired;
  // On the emulator clock: moving it past the token's expiry (and the 5 minutes of skew) expires it.
  const std::string t = Token("p", 60);
  EXPECT_EQ(As(t, bh::verb::get, "/dbs").status(), 200);
  wall_.Advance(400'000);
  EXPECT_EQ(As(t, bh::verb::get, "/dbs").Substatus(), "5006");
  auto aud = As(Token("p", 3600, "https://someone-else.documents.azure.com"), bh::verb::get, "/dbs");
  EXPECT_EQ(aud.status(), 401);
  EXPECT_EQ(aud.Substatus(), "5008");
  // The audiences the SDKs request for http(s)://localhost:8081 (the Host the tests send).
  for (const char* a : {"https://localhost:8081", "https://localhost", "https://cosmos.azure.com"})
    EXPECT_EQ(As(Token("p", 3600, a), bh::verb::get, "/dbs").status(), 200) << a;
  for (const std::string& bad : {std::string("a.b"), std::string("!!!.x.y"), std::string(30000, 'x')}) {
    auto r = As(bad, bh::verb::get, "/dbs");
    EXPECT_EQ(r.status(), 401) << r;
    EXPECT_EQ(r.Substatus(), "5003");
  }
  auto ver = Call(bh::verb::get, "/dbs", "", {{"authorization", "type=aad&ver=2.0&sig=" + Token("p")}}, NoSignature());
  EXPECT_EQ(ver.status(), 401);
  EXPECT_EQ(ver.Substatus(), "5001");
}

TEST_F(EntraTest, SignaturesAreVerifiedWithConfiguredKeys) {
  TestSigningKey key("RS256", "k1");
  config_.aad_keys = http::AadKeys::Load(R"({"keys":[)" + key.Jwk() + "]}");
  config_.aad_issuer = "https://sts.fake-issuer.net/7b1999a1-dfd7-440e-8204-00170979b984";
  const int64_t now = wall_.UnixSeconds();
  const std::string claims = TestClaims("p", now, now + 3600);
  EXPECT_EQ(As(key.Sign(claims), bh::verb::get, "/dbs").status(), 200);
  auto fake = As(Token("p"), bh::verb::get, "/dbs");
  EXPECT_EQ(fake.status(), 401);
  EXPECT_EQ(fake.Substatus(), "5200");  // kid CosmosEmulatorPrimaryMaster is not a configured key
  auto none = As(B64Url(R"({"alg":"none","kid":"k1"})") + "." + B64Url(claims) + ".", bh::verb::get, "/dbs");
  EXPECT_EQ(none.Substatus(), "5004");
  auto issuer = As(key.Sign(R"({"aud":"https://localhost","iss":"https://elsewhere","exp":)" +
                            std::to_string(now + 60) + R"(,"oid":"p"})"),
                   bh::verb::get, "/dbs");
  EXPECT_EQ(issuer.Substatus(), "5007");
}

TEST_F(EntraTest, LocalAuthDisabledServesTokensOnly) {
  ASSERT_EQ(Post("/dbs/db/users", R"({"id":"u"})").status(), 201);
  auto perm = Post("/dbs/db/users/u/permissions", R"({"id":"p","permissionMode":"Read","resource":"dbs/db/colls/c"})");
  ASSERT_EQ(perm.status(), 201) << perm;
  const std::string resource_token = perm.Str("_token");
  config_.disable_local_auth = true;
  // The service's answer to a key or a resource token (TWL300-AI-Apps-and-agents#19).
  for (const Reply& r : {Get("/dbs"), Call(bh::verb::get, "/dbs/db/colls/c", "",
                                           {{"authorization", util::PercentEncode(resource_token)}}, NoSignature())}) {
    EXPECT_EQ(r.status(), 401) << r;
    EXPECT_EQ(r.Code(), "Unauthorized");
    EXPECT_EQ(r.Substatus(), "5202");
    EXPECT_EQ(MessageText(r), "Local Authorization is disabled. Use an AAD token to authorize all requests.");
  }
  EXPECT_EQ(As(Token("p"), bh::verb::get, "/dbs/db/colls/c").status(), 200);
  // The emulator's own endpoints still take the master key (its stand-in for the control plane).
  EXPECT_EQ(Get("/_emulator/rbac").status(), 200);
}

}  // namespace
}  // namespace cosmos::testing
