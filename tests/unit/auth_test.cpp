// http/auth: resource address derivation (docs/protocol.md §2), signing, and Authenticate().
#include "http/auth.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <chrono>
#include <string>
#include <vector>

#include "common/errors.h"
#include "util/util.h"

namespace cosmos::http {
namespace {

using Segs = std::vector<std::string>;

constexpr const char* kKeyB64 =
    "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

// Splits a path per docs/protocol.md §2 (independent of the pipeline): percent-decode only, collapse
// "//", drop a trailing "/".
Segs Split(const std::string& path) {
  Segs out;
  std::string cur;
  for (size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') {
      if (!cur.empty()) out.push_back(*util::PercentDecode(cur));
      cur.clear();
    } else {
      cur.push_back(path[i]);
    }
  }
  return out;
}

void ExpectAddress(const char* verb, const std::string& path, const std::string& type, const std::string& link) {
  auto a = AddressFor(verb, Split(path));
  EXPECT_EQ(a.type, type) << verb << " " << path;
  EXPECT_EQ(a.link, link) << verb << " " << path;
}

TEST(AddressFor, ProtocolExamples) {
  ExpectAddress("GET", "/", "", "");
  ExpectAddress("POST", "/dbs", "dbs", "");
  ExpectAddress("GET", "/dbs", "dbs", "");
  ExpectAddress("GET", "/dbs/db1", "dbs", "dbs/db1");
  ExpectAddress("DELETE", "/dbs/db1", "dbs", "dbs/db1");
  ExpectAddress("POST", "/dbs/db1/colls", "colls", "dbs/db1");
  ExpectAddress("GET", "/dbs/db1/colls/c1", "colls", "dbs/db1/colls/c1");
  ExpectAddress("GET", "/dbs/db1/colls/c1/docs/1", "docs", "dbs/db1/colls/c1/docs/1");
  ExpectAddress("PATCH", "/dbs/db1/colls/c1/docs/1", "docs", "dbs/db1/colls/c1/docs/1");
  ExpectAddress("POST", "/dbs/db1/colls/c1/docs", "docs", "dbs/db1/colls/c1");
  ExpectAddress("GET", "/dbs/db1/colls/c1/docs", "docs", "dbs/db1/colls/c1");
  ExpectAddress("GET", "/dbs/db1/colls/c1/pkranges", "pkranges", "dbs/db1/colls/c1");
  ExpectAddress("POST", "/dbs/db1/colls/c1/sprocs/sp1", "sprocs", "dbs/db1/colls/c1/sprocs/sp1");
  ExpectAddress("GET", "/dbs/db1/users/u1/permissions", "permissions", "dbs/db1/users/u1");
}

TEST(AddressFor, LinkKeepsCaseAndIsNotEncoded) {
  ExpectAddress("GET", "/dbs/MyDb/colls/Coll1/docs/Item%20One", "docs", "dbs/MyDb/colls/Coll1/docs/Item One");
  ExpectAddress("GET", "/dbs/db1/colls/c1/docs/a+b", "docs", "dbs/db1/colls/c1/docs/a+b");
  ExpectAddress("GET", "/dbs/db1/colls/c1/docs/%C3%A9", "docs", "dbs/db1/colls/c1/docs/é");
}

TEST(AddressFor, DoubleAndTrailingSlashesAfterSplitting) {
  ExpectAddress("GET", "//dbs//db1/", "dbs", "dbs/db1");
  ExpectAddress("POST", "/dbs/", "dbs", "");
  ExpectAddress("POST", "//dbs/db1//colls//", "colls", "dbs/db1");
  ExpectAddress("GET", "/dbs/db1/colls/c1/docs/d1/", "docs", "dbs/db1/colls/c1/docs/d1");
  EXPECT_EQ(Split("//dbs//db1/"), (Segs{"dbs", "db1"}));
}

TEST(AddressFor, OffersUseTheLowerCasedOfferId) {
  ExpectAddress("GET", "/offers/AbCd", "offers", "abcd");
  ExpectAddress("PUT", "/offers/AbCd", "offers", "abcd");
  ExpectAddress("get", "/offers/XyZ-", "offers", "xyz-");
  ExpectAddress("POST", "/offers", "offers", "");
  ExpectAddress("GET", "/offers", "offers", "");
}

// ---- Sign -----------------------------------------------------------------------------------

// Independent implementation: OpenSSL HMAC + EVP base64 on the text docs/protocol.md §2 defines.
std::string ReferenceSignature(const std::string& key, const std::string& text) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(text.data()),
       text.size(), md, &len);
  std::string b64(4 * ((len + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(b64.data()), md, static_cast<int>(len));
  b64.resize(static_cast<size_t>(n));
  return b64;
}

std::string Key() { return *util::Base64Decode(kKeyB64); }

TEST(Sign, KnownValue) {
  // Precomputed with Python's hmac module for the well-known key.
  EXPECT_EQ(Sign(Key(), "GET", {"dbs", "dbs/db1"}, "Sat, 21 Nov 2026 05:28:38 GMT"),
            "ymMRF9fHnHKa4Jcojis1MDQKUzADH4FDGGjgpiRQ2fw=");
  EXPECT_EQ(Sign(Key(), "POST", {"docs", "dbs/MyDb/colls/Coll1"}, "Thu, 27 Apr 2017 00:51:12 GMT"),
            "NKHq2fuKSh+v98xYubZr5jpI/Qc9KGnThiD7j9ZnygI=");
}

TEST(Sign, MatchesIndependentHmac) {
  EXPECT_EQ(Sign(Key(), "GET", {"dbs", "dbs/db1"}, "Sat, 21 Nov 2026 05:28:38 GMT"),
            ReferenceSignature(Key(), "get\ndbs\ndbs/db1\nsat, 21 nov 2026 05:28:38 gmt\n\n"));
  // Verb, type and date are lower-cased; the link keeps its case.
  EXPECT_EQ(Sign(Key(), "PATCH", {"Docs", "dbs/DB/colls/C/docs/X"}, "Mon, 02 Jan 2006 15:04:05 GMT"),
            ReferenceSignature(Key(), "patch\ndocs\ndbs/DB/colls/C/docs/X\nmon, 02 jan 2006 15:04:05 gmt\n\n"));
  EXPECT_EQ(Sign(Key(), "get", {"", ""}, "Mon, 02 Jan 2006 15:04:05 GMT"),
            ReferenceSignature(Key(), "get\n\n\nmon, 02 jan 2006 15:04:05 gmt\n\n"));
  EXPECT_EQ(Sign("other key", "DELETE", {"colls", "dbs/a/colls/b"}, "x"),
            ReferenceSignature("other key", "delete\ncolls\ndbs/a/colls/b\nx\n\n"));
  EXPECT_NE(Sign(Key(), "GET", {"docs", "dbs/db1/colls/c1/docs/A"}, "d"),
            Sign(Key(), "GET", {"docs", "dbs/db1/colls/c1/docs/a"}, "d"));
}

// ---- Authenticate ---------------------------------------------------------------------------

class AuthenticateTest : public ::testing::Test {
 protected:
  AuthenticateTest() {
    config_.master_key_b64 = kKeyB64;
    config_.master_key = Key();
  }

  // Status of Authenticate for GET /dbs/db1 with the given headers (0 = accepted).
  int Check(const std::vector<std::pair<std::string, std::string>>& headers) {
    Request req{beast_http::verb::get, "/dbs/db1", 11};
    for (auto& [k, v] : headers) req.set(k, v);
    RequestContext ctx(req, {"dbs", "db1"});
    try {
      Authenticate(ctx, config_);
      return 0;
    } catch (const CosmosError& e) {
      last_code_ = e.code;
      last_message_ = e.what();
      return e.status;
    }
  }

  static std::string Token(const std::string& sig) { return util::PercentEncode("type=master&ver=1.0&sig=" + sig); }
  static std::string DateAt(std::chrono::seconds offset) {
    return util::FormatRfc1123(std::chrono::system_clock::now() + offset);
  }
  std::string SigFor(const std::string& date) { return Sign(Key(), "GET", {"dbs", "dbs/db1"}, date); }

  Config config_;
  std::string last_code_;
  std::string last_message_;
};

TEST_F(AuthenticateTest, AcceptsValidSignature) {
  auto date = DateAt(std::chrono::seconds(0));
  EXPECT_EQ(Check({{"x-ms-date", date}, {"authorization", Token(SigFor(date))}}), 0);
}

TEST_F(AuthenticateTest, AcceptsLowerCaseDateAndUnencodedHeader) {
  auto date = util::ToLower(DateAt(std::chrono::seconds(0)));
  EXPECT_EQ(Check({{"x-ms-date", date}, {"authorization", "type=master&ver=1.0&sig=" + SigFor(date)}}), 0);
}

TEST_F(AuthenticateTest, FallsBackToDateHeader) {
  auto date = DateAt(std::chrono::seconds(0));
  EXPECT_EQ(Check({{"date", date}, {"authorization", Token(SigFor(date))}}), 0);
}

TEST_F(AuthenticateTest, AllowsFourteenMinutesOfSkew) {
  for (int minutes : {-14, 14}) {
    auto date = DateAt(std::chrono::minutes(minutes));
    EXPECT_EQ(Check({{"x-ms-date", date}, {"authorization", Token(SigFor(date))}}), 0) << minutes;
  }
}

TEST_F(AuthenticateTest, RejectsSkewedDateWith403) {
  for (int minutes : {-16, 16, -24 * 60}) {
    auto date = DateAt(std::chrono::minutes(minutes));
    EXPECT_EQ(Check({{"x-ms-date", date}, {"authorization", Token(SigFor(date))}}), 403) << minutes;
    EXPECT_EQ(last_code_, "Forbidden");
  }
}

TEST_F(AuthenticateTest, MissingAuthorizationIs401) {
  EXPECT_EQ(Check({{"x-ms-date", DateAt(std::chrono::seconds(0))}}), 401);
  EXPECT_EQ(last_code_, "Unauthorized");
  EXPECT_EQ(last_message_, "Required Header authorization is missing. Ensure a valid Authorization token is passed.");
  EXPECT_EQ(Check({{"x-ms-date", DateAt(std::chrono::seconds(0))}, {"authorization", ""}}), 401);
}

TEST_F(AuthenticateTest, WrongSignatureIs401WithPayload) {
  auto date = DateAt(std::chrono::seconds(0));
  auto wrong = Sign("not the key", "GET", {"dbs", "dbs/db1"}, date);
  EXPECT_EQ(Check({{"x-ms-date", date}, {"authorization", Token(wrong)}}), 401);
  EXPECT_EQ(last_code_, "Unauthorized");
  EXPECT_NE(last_message_.find("'get\\ndbs\\ndbs/db1\\n" + util::ToLower(date) + "\\n\\n'"), std::string::npos)
      << last_message_;
  // Signed for another resource.
  auto other = Sign(Key(), "GET", {"dbs", "dbs/db2"}, date);
  EXPECT_EQ(Check({{"x-ms-date", date}, {"authorization", Token(other)}}), 401);
  // Signed with another verb.
  auto post = Sign(Key(), "POST", {"dbs", "dbs/db1"}, date);
  EXPECT_EQ(Check({{"x-ms-date", date}, {"authorization", Token(post)}}), 401);
}

TEST_F(AuthenticateTest, MalformedTokensAre401) {
  auto date = DateAt(std::chrono::seconds(0));
  auto sig = SigFor(date);
  EXPECT_EQ(Check({{"x-ms-date", date}, {"authorization", util::PercentEncode("type=master&ver=2.0&sig=" + sig)}}),
            401);
  EXPECT_EQ(Check({{"x-ms-date", date}, {"authorization", util::PercentEncode("type=aad&ver=1.0&sig=" + sig)}}), 401);
  EXPECT_EQ(Check({{"x-ms-date", date}, {"authorization", util::PercentEncode("type=master&ver=1.0&sig=")}}), 401);
  EXPECT_EQ(Check({{"x-ms-date", date}, {"authorization", "type%3Dmaster%26ver%3D1.0%26sig%3D%ZZ"}}), 401);
  EXPECT_EQ(Check({{"x-ms-date", date}, {"authorization", util::PercentEncode("type=resource&ver=1.0&sig=abc")}}), 401);
}

// ---- the account's keys ----------------------------------------------------------------------

class AccountKeysTest : public AuthenticateTest {
 protected:
  AccountKeysTest() {
    config_.secondary_key = "secondary master key";
    config_.readonly_key = "primary read-only key";
    config_.secondary_readonly_key = "secondary read-only key";
  }

  // Status of Authenticate for `verb` on `path` signed with `key` (0 = accepted).
  int Send(const std::string& key, beast_http::verb verb, const std::string& path, Operation op = Operation::kPlain) {
    const std::string date = DateAt(std::chrono::seconds(0));
    const std::string verb_text(beast_http::to_string(verb));
    Request req{verb, path, 11};
    req.set("x-ms-date", date);
    req.set("authorization", Token(Sign(key, verb_text, AddressFor(verb_text, Split(path)), date)));
    RequestContext ctx(req, Split(path));
    ctx.set_operation(op);
    try {
      EXPECT_TRUE(Authenticate(ctx, config_).key());
      return 0;
    } catch (const CosmosError& e) {
      last_code_ = e.code;
      last_message_ = e.what();
      return e.status;
    }
  }
};

TEST_F(AccountKeysTest, EitherMasterKeyServesEverything) {
  using V = beast_http::verb;
  for (const std::string& key : {Key(), config_.secondary_key}) {
    EXPECT_EQ(Send(key, V::post, "/dbs/db1/colls/c1/docs"), 0);
    EXPECT_EQ(Send(key, V::delete_, "/dbs/db1/colls/c1/docs/a"), 0);
    EXPECT_EQ(Send(key, V::get, "/dbs/db1/users/u1/permissions/p1"), 0);
    EXPECT_EQ(Send(key, V::post, "/_emulator/clock"), 0);
  }
}

TEST_F(AccountKeysTest, ReadOnlyKeysReadQueryAndReadTheChangeFeed) {
  using V = beast_http::verb;
  for (const std::string& key : {config_.readonly_key, config_.secondary_readonly_key}) {
    EXPECT_EQ(Send(key, V::get, "/"), 0);  // the account
    EXPECT_EQ(Send(key, V::get, "/dbs"), 0);
    EXPECT_EQ(Send(key, V::get, "/dbs/db1/colls/c1"), 0);
    EXPECT_EQ(Send(key, V::get, "/dbs/db1/colls/c1/docs/a"), 0);
    EXPECT_EQ(Send(key, V::head, "/dbs/db1/colls/c1/docs/a"), 0);
    EXPECT_EQ(Send(key, V::get, "/dbs/db1/colls/c1/docs", Operation::kChangeFeed), 0);
    EXPECT_EQ(Send(key, V::get, "/dbs/db1/colls/c1/pkranges"), 0);
    EXPECT_EQ(Send(key, V::post, "/dbs/db1/colls/c1/docs", Operation::kQuery), 0);
    EXPECT_EQ(Send(key, V::post, "/dbs/db1/colls/c1/docs", Operation::kQueryPlan), 0);
    EXPECT_EQ(Send(key, V::post, "/dbs", Operation::kQuery), 0);
    EXPECT_EQ(Send(key, V::get, "/dbs/db1/users/u1"), 0);
  }
}

TEST_F(AccountKeysTest, ReadOnlyKeysWriteNothingAndAnswerAsAWrongKey) {
  using V = beast_http::verb;
  struct Case {
    V verb;
    const char* path;
    Operation op;
    const char* payload;
  };
  const Case cases[] = {
      {V::post, "/dbs/db1/colls/c1/docs", Operation::kPlain, "post\\ndocs\\ndbs/db1/colls/c1"},
      {V::post, "/dbs/db1/colls/c1/docs", Operation::kUpsert, "post\\ndocs\\ndbs/db1/colls/c1"},
      {V::post, "/dbs/db1/colls/c1/docs", Operation::kBatch, "post\\ndocs\\ndbs/db1/colls/c1"},
      {V::put, "/dbs/db1/colls/c1/docs/a", Operation::kPlain, "put\\ndocs\\ndbs/db1/colls/c1/docs/a"},
      {V::patch, "/dbs/db1/colls/c1/docs/a", Operation::kPlain, "patch\\ndocs\\ndbs/db1/colls/c1/docs/a"},
      {V::delete_, "/dbs/db1/colls/c1/docs/a", Operation::kPlain, "delete\\ndocs\\ndbs/db1/colls/c1/docs/a"},
      {V::post, "/dbs/db1/colls/c1/sprocs/s", Operation::kPlain, "post\\nsprocs\\ndbs/db1/colls/c1/sprocs/s"},
      {V::post, "/dbs", Operation::kPlain, "post\\ndbs\\n\\n"},
      {V::delete_, "/dbs/db1", Operation::kPlain, "delete\\ndbs\\ndbs/db1"},
      // Permissions hold resource tokens: a read-only key does not read them.
      {V::get, "/dbs/db1/users/u1/permissions/p1", Operation::kPlain,
       "get\\npermissions\\ndbs/db1/users/u1/permissions/p1"},
      {V::get, "/dbs/db1/users/u1/permissions", Operation::kPlain, "get\\npermissions\\ndbs/db1/users/u1"},
      // Nor does it move the emulator's clock or clear its report.
      {V::post, "/_emulator/clock", Operation::kPlain, "post\\n_emulator\\n_emulator/clock"},
      {V::delete_, "/_emulator/stats", Operation::kPlain, "delete\\n_emulator\\n_emulator/stats"},
  };
  for (const std::string& key : {config_.readonly_key, config_.secondary_readonly_key}) {
    for (const auto& c : cases) {
      EXPECT_EQ(Send(key, c.verb, c.path, c.op), 401) << c.path;
      EXPECT_EQ(last_code_, "Unauthorized");
      EXPECT_EQ(last_message_.rfind(
                    "The input authorization token can't serve the request. The wrong key is being used or the "
                    "expected payload is not built as per the protocol. Server used the following payload to sign: '" +
                        std::string(c.payload),
                    0),
                0u)
          << last_message_;
    }
  }
}

TEST_F(AccountKeysTest, KeysNotSetAreNotKeys) {
  Config bare;
  bare.master_key = Key();
  std::swap(config_, bare);
  // An unset key is empty: a signature under the empty key must not pass.
  EXPECT_EQ(Send("", beast_http::verb::get, "/dbs"), 401);
  EXPECT_EQ(Send(bare.readonly_key, beast_http::verb::get, "/dbs"), 401);
  EXPECT_EQ(Send(bare.secondary_key, beast_http::verb::post, "/dbs"), 401);
}

// ---- resource tokens ------------------------------------------------------------------------

ResourceToken SampleToken() {
  ResourceToken t;
  t.scope = {"AQBAAA==", "AQBAAIAAAAE=", "docs", "item \"1\"\n", "[\"x\"]"};
  t.mode = "All";
  t.permission_rid = "AQBAAAAAAQAAAAAAAAABAA==";
  t.permission_etag = "\"00000001-0000-0100-0000-000000000000\"";
  t.start = 1700000000;
  t.expiry = 1700003600;
  return t;
}

TEST(ResourceTokens, RoundTripUnderTheKey) {
  const std::string token = IssueResourceToken(Key(), SampleToken());
  ASSERT_EQ(token.rfind("type=resource&ver=1&sig=", 0), 0u) << token;
  ASSERT_EQ(token.back(), ';');
  auto t = VerifyResourceToken(Key(), token.substr(token.find("sig=") + 4));
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->scope, SampleToken().scope);
  EXPECT_EQ(t->mode, "All");
  EXPECT_EQ(t->permission_rid, SampleToken().permission_rid);
  EXPECT_EQ(t->permission_etag, SampleToken().permission_etag);
  EXPECT_EQ(t->start, 1700000000);
  EXPECT_EQ(t->expiry, 1700003600);
  // The MAC is HMAC-SHA256 of a label and the claims, under the master key.
  const std::string sig = token.substr(token.find("sig=") + 4);
  const std::string claims = sig.substr(sig.find(';') + 1, sig.size() - sig.find(';') - 2);
  EXPECT_EQ(sig.substr(0, sig.find(';')), ReferenceSignature(Key(), "resource-token\n" + claims));
}

TEST(ResourceTokens, ForgedOrAlteredTokensDoNotVerify) {
  const std::string sig = IssueResourceToken(Key(), SampleToken()).substr(24);
  EXPECT_FALSE(VerifyResourceToken("another key", sig).has_value());
  std::string altered = sig;
  altered[sig.find(';') + 5] ^= 1;  // one claims character
  EXPECT_FALSE(VerifyResourceToken(Key(), altered).has_value());
  for (std::string bad : {std::string(""), std::string("abc"), std::string(";;"), sig.substr(0, sig.size() - 1),
                          sig + "x;", sig.substr(sig.find(';'))}) {
    EXPECT_FALSE(VerifyResourceToken(Key(), bad).has_value()) << bad;
  }
  // A valid MAC over claims that are not the token's JSON.
  const std::string junk = util::Base64Encode("{\"db\":1}");
  EXPECT_FALSE(VerifyResourceToken(Key(), ReferenceSignature(Key(), "resource-token\n" + junk) + ";" + junk + ";"));
}

TEST_F(AuthenticateTest, ResourceTokenNeedsNoDateAndReturnsItsClaims) {
  Request req{beast_http::verb::get, "/dbs/db1", 11};
  req.set("authorization", util::PercentEncode(IssueResourceToken(Key(), SampleToken())));
  RequestContext ctx(req, {"dbs", "db1"});
  auto t = Authenticate(ctx, config_).resource;
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->scope.child_id, "item \"1\"\n");
  // Issued under another key: 401.
  req.set("authorization", util::PercentEncode(IssueResourceToken("another key", SampleToken())));
  EXPECT_EQ(Check({{"authorization", util::PercentEncode(IssueResourceToken("another key", SampleToken()))}}), 401);
  EXPECT_EQ(last_code_, "Unauthorized");
  EXPECT_EQ(Check({{"authorization", util::PercentEncode(IssueResourceToken(Key(), SampleToken()))}}), 0);
  // A master-key request still returns no claims.
  auto date = DateAt(std::chrono::seconds(0));
  Request master{beast_http::verb::get, "/dbs/db1", 11};
  master.set("x-ms-date", date);
  master.set("authorization", Token(SigFor(date)));
  RequestContext mctx(master, {"dbs", "db1"});
  EXPECT_TRUE(Authenticate(mctx, config_).key());
}

TEST_F(AuthenticateTest, MissingOrInvalidDateIs401) {
  auto date = DateAt(std::chrono::seconds(0));
  EXPECT_EQ(Check({{"authorization", Token(SigFor(date))}}), 401);
  EXPECT_EQ(Check({{"x-ms-date", "yesterday"}, {"authorization", Token(SigFor("yesterday"))}}), 401);
}

}  // namespace
}  // namespace cosmos::http
