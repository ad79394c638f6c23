#include "http/entra.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <cstdio>
#include <ctime>
#include <stdexcept>

#include "common/errors.h"
#include "json/json.h"
#include "util/util.h"

namespace cosmos::http {

struct AadKeys::Key {
  std::string kid;  // empty: any kid
  EVP_PKEY* pkey = nullptr;
  ~Key() { EVP_PKEY_free(pkey); }
};

namespace {

// base64url without padding (a JWT segment, a JWK number) to bytes; nullopt when it is not that.
std::optional<std::string> JwtBase64Url(std::string_view text) {
  if (text.size() % 4 == 1) return std::nullopt;
  std::string b64(text);
  for (char& c : b64) {
    if (c == '-') c = '+';
    else if (c == '_') c = '/';
    else if (c == '+' || c == '/' || c == '=') return std::nullopt;
  }
  b64.append((4 - b64.size() % 4) % 4, '=');
  return util::Base64Decode(b64);
}

std::string JwkString(const json::Value& jwk, const char* name) {
  auto it = jwk.FindMember(name);
  if (it == jwk.MemberEnd() || !it->value.IsString()) return {};
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

std::string JwkBytes(const json::Value& jwk, const char* name, size_t index) {
  std::string text = JwkString(jwk, name);
  auto bytes = JwtBase64Url(text);
  if (text.empty() || !bytes)
    throw std::runtime_error("key " + std::to_string(index) + ": \"" + name + "\" is not a base64url string");
  return *bytes;
}

EVP_PKEY* KeyFromParams(const char* type, OSSL_PARAM_BLD* bld) {
  OSSL_PARAM* params = OSSL_PARAM_BLD_to_param(bld);
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr);
  EVP_PKEY* pkey = nullptr;
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx) <= 0 ||
      EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) <= 0)
    pkey = nullptr;
  EVP_PKEY_CTX_free(ctx);
  OSSL_PARAM_free(params);
  return pkey;
}

EVP_PKEY* RsaFromJwk(const json::Value& jwk, size_t index) {
  const std::string n = JwkBytes(jwk, "n", index), e = JwkBytes(jwk, "e", index);
  BIGNUM* bn_n = BN_bin2bn(reinterpret_cast<const unsigned char*>(n.data()), static_cast<int>(n.size()), nullptr);
  BIGNUM* bn_e = BN_bin2bn(reinterpret_cast<const unsigned char*>(e.data()), static_cast<int>(e.size()), nullptr);
  OSSL_PARAM_BLD* bld = OSSL_PARAM_BLD_new();
  EVP_PKEY* pkey = nullptr;
  if (bn_n && bn_e && bld && OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, bn_n) &&
      OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, bn_e))
    pkey = KeyFromParams("RSA", bld);
  OSSL_PARAM_BLD_free(bld);
  BN_free(bn_n);
  BN_free(bn_e);
  return pkey;
}

EVP_PKEY* EcFromJwk(const json::Value& jwk, size_t index) {
  if (JwkString(jwk, "crv") != "P-256")
    throw std::runtime_error("key " + std::to_string(index) + ": only the EC curve P-256 (ES256) is supported");
  const std::string x = JwkBytes(jwk, "x", index), y = JwkBytes(jwk, "y", index);
  if (x.size() != 32 || y.size() != 32)
    throw std::runtime_error("key " + std::to_string(index) + ": x and y of a P-256 key are 32 bytes each");
  const std::string point = std::string(1, '\x04') + x + y;
  OSSL_PARAM_BLD* bld = OSSL_PARAM_BLD_new();
  EVP_PKEY* pkey = nullptr;
  if (bld && OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) &&
      OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, point.data(), point.size()))
    pkey = KeyFromParams("EC", bld);
  OSSL_PARAM_BLD_free(bld);
  return pkey;
}

// The JWS ES256 signature (r || s, 32 bytes each) as the DER OpenSSL verifies.
std::optional<std::string> EcdsaDer(std::string_view raw) {
  if (raw.size() != 64) return std::nullopt;
  ECDSA_SIG* sig = ECDSA_SIG_new();
  BIGNUM* r = BN_bin2bn(reinterpret_cast<const unsigned char*>(raw.data()), 32, nullptr);
  BIGNUM* s = BN_bin2bn(reinterpret_cast<const unsigned char*>(raw.data()) + 32, 32, nullptr);
  if (!sig || !r || !s || ECDSA_SIG_set0(sig, r, s) != 1) {
    BN_free(r);
    BN_free(s);
    ECDSA_SIG_free(sig);
    return std::nullopt;
  }
  unsigned char* der = nullptr;
  const int len = i2d_ECDSA_SIG(sig, &der);
  ECDSA_SIG_free(sig);
  if (len <= 0) return std::nullopt;
  std::string out(reinterpret_cast<char*>(der), static_cast<size_t>(len));
  OPENSSL_free(der);
  return out;
}

bool VerifyWith(EVP_PKEY* pkey, std::string_view alg, std::string_view signed_text, std::string_view signature) {
  const int type = EVP_PKEY_get_base_id(pkey);
  std::string der;
  if (alg == "RS256") {
    if (type != EVP_PKEY_RSA) return false;
    der.assign(signature);
  } else if (alg == "ES256") {
    if (type != EVP_PKEY_EC) return false;
    auto d = EcdsaDer(signature);
    if (!d) return false;
    der = std::move(*d);
  } else {
    return false;
  }
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  const bool ok = ctx && EVP_DigestVerifyInit(ctx, nullptr, EVP_sha256(), nullptr, pkey) == 1 &&
                  EVP_DigestVerify(ctx, reinterpret_cast<const unsigned char*>(der.data()), der.size(),
                                   reinterpret_cast<const unsigned char*>(signed_text.data()), signed_text.size()) == 1;
  EVP_MD_CTX_free(ctx);
  return ok;
}

CosmosError AadUnauthorized(int substatus, const AadValidation& v, const std::string& text) {
  return CosmosError(401, substatus, "Unauthorized", "Request blocked by Auth " + v.account + " : " + text);
}

CosmosError AadMalformed(const AadValidation& v, const std::string& why) {
  return AadUnauthorized(aad_substatus::kInvalidFormat, v, "The AAD token is not well formed: " + why + ".");
}

std::optional<int64_t> AadSeconds(const json::Value& claims, const char* name) {
  auto it = claims.FindMember(name);
  if (it == claims.MemberEnd()) return std::nullopt;
  if (it->value.IsInt64()) return it->value.GetInt64();
  if (it->value.IsNumber() && it->value.GetDouble() > -1e15 && it->value.GetDouble() < 1e15)
    return static_cast<int64_t>(it->value.GetDouble());
  return std::nullopt;
}

}  // namespace

AadKeys::~AadKeys() = default;

std::shared_ptr<const AadKeys> AadKeys::Load(std::string_view text) {
  std::shared_ptr<AadKeys> out(new AadKeys());
  const std::string_view trimmed = util::Trim(text);
  if (!trimmed.empty() && trimmed.front() == '{') {
    json::Document d;
    if (json::Parse(trimmed, d) != json::ParseStatus::kOk || !d.IsObject() || !d.HasMember("keys") ||
        !d["keys"].IsArray())
      throw std::runtime_error("not a JWKS document ({\"keys\": [...]})");
    size_t index = 0;
    for (const auto& jwk : d["keys"].GetArray()) {
      if (!jwk.IsObject()) throw std::runtime_error("key " + std::to_string(index) + " is not an object");
      const std::string kty = JwkString(jwk, "kty");
      EVP_PKEY* pkey = nullptr;
      if (kty == "RSA") pkey = RsaFromJwk(jwk, index);
      else if (kty == "EC") pkey = EcFromJwk(jwk, index);
      else throw std::runtime_error("key " + std::to_string(index) + ": kty \"" + kty + "\" (RSA or EC keys only)");
      if (!pkey) throw std::runtime_error("key " + std::to_string(index) + " is not a valid public key");
      auto key = std::make_unique<Key>();
      key->kid = JwkString(jwk, "kid");
      key->pkey = pkey;
      out->keys_.push_back(std::move(key));
      ++index;
    }
  } else {
    BIO* bio = BIO_new_mem_buf(trimmed.data(), static_cast<int>(trimmed.size()));
    for (;;) {
      char* name = nullptr;
      char* header = nullptr;
      unsigned char* data = nullptr;
      long len = 0;
      if (PEM_read_bio(bio, &name, &header, &data, &len) != 1) break;
      const std::string kind = name;
      const unsigned char* p = data;
      EVP_PKEY* pkey = nullptr;
      if (kind == "PUBLIC KEY") {
        pkey = d2i_PUBKEY(nullptr, &p, len);
      } else if (kind == "CERTIFICATE") {
        if (X509* cert = d2i_X509(nullptr, &p, len)) {
          pkey = X509_get_pubkey(cert);
          X509_free(cert);
        }
      }
      OPENSSL_free(name);
      OPENSSL_free(header);
      OPENSSL_free(data);
      if (!pkey) {
        BIO_free(bio);
        throw std::runtime_error("a PEM block \"" + kind + "\" is not a public key or certificate");
      }
      auto key = std::make_unique<Key>();
      key->pkey = pkey;
      out->keys_.push_back(std::move(key));
    }
    BIO_free(bio);
  }
  if (out->keys_.empty()) throw std::runtime_error("no key found (a JWKS document or PEM public keys)");
  return out;
}

bool AadKeys::HasKeyFor(std::string_view kid) const {
  for (const auto& k : keys_)
    if (k->kid.empty() || k->kid == kid) return true;
  return false;
}

bool AadKeys::Verify(std::string_view alg, std::string_view kid, std::string_view signed_text,
                     std::string_view signature) const {
  for (const auto& k : keys_) {
    if (!k->kid.empty() && k->kid != kid) continue;
    if (VerifyWith(k->pkey, alg, signed_text, signature)) return true;
  }
  return false;
}

std::vector<std::string> AcceptedAudiences(std::string_view host, std::string_view public_host) {
  std::vector<std::string> out;
  auto add = [&](std::string_view h) {
    if (h.empty()) return;
    std::string with_port(h);
    // The name without a port (an IPv6 literal keeps its brackets).
    std::string name = with_port;
    const size_t colon = name.rfind(':');
    if (colon != std::string::npos && name.find(']', colon) == std::string::npos) name.resize(colon);
    for (const char* scheme : {"https://", "http://"}) {
      for (const std::string& n : {name, with_port}) {
        std::string a = scheme + util::ToLower(n);
        bool seen = false;
        for (const auto& o : out) seen = seen || o == a;
        if (!seen) out.push_back(a);
      }
    }
  };
  add(host);
  add(public_host);
  // Direct mode's requests (RNTBD) carry no Host: the loopback names a local client is given.
  add("localhost");
  add("127.0.0.1");
  out.emplace_back("https://cosmos.azure.com");
  out.emplace_back("https://localhost.localhost");
  return out;
}

std::string AadTime(int64_t unix_seconds) {
  std::time_t secs = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  if (gmtime_r(&secs, &tm) == nullptr) tm = std::tm{};
  const int hour12 = tm.tm_hour % 12 == 0 ? 12 : tm.tm_hour % 12;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%d/%d/%d %d:%02d:%02d %s (UTC)", tm.tm_mon + 1, tm.tm_mday, tm.tm_year + 1900,
                hour12, tm.tm_min, tm.tm_sec, tm.tm_hour < 12 ? "AM" : "PM");
  return buf;
}

AadPrincipal ValidateAadToken(std::string_view jwt, const AadValidation& v) {
  // Entra ID's tokens are a few kilobytes; a header of more is no token of theirs.
  constexpr size_t kMaxTokenBytes = 16 * 1024;
  if (jwt.size() > kMaxTokenBytes) throw AadMalformed(v, "it is longer than 16 KB");
  const size_t dot1 = jwt.find('.');
  const size_t dot2 = dot1 == std::string_view::npos ? dot1 : jwt.find('.', dot1 + 1);
  if (dot2 == std::string_view::npos || jwt.find('.', dot2 + 1) != std::string_view::npos)
    throw AadMalformed(v, "a JWT has three segments separated by '.'");
  auto header_text = JwtBase64Url(jwt.substr(0, dot1));
  auto claims_text = JwtBase64Url(jwt.substr(dot1 + 1, dot2 - dot1 - 1));
  auto signature = JwtBase64Url(jwt.substr(dot2 + 1));
  json::Document header, claims;
  if (!header_text || !claims_text || !signature || json::Parse(*header_text, header) != json::ParseStatus::kOk ||
      json::Parse(*claims_text, claims) != json::ParseStatus::kOk || !header.IsObject() || !claims.IsObject())
    throw AadMalformed(v, "its segments are not base64url-encoded JSON objects");
  const std::string alg = JwkString(header, "alg"), kid = JwkString(header, "kid");
  if (alg.empty()) throw AadMalformed(v, "its header names no algorithm (alg)");

  if (v.keys) {
    if (alg != "RS256" && alg != "ES256")
      throw AadUnauthorized(aad_substatus::kInvalidSignature, v,
                            "The AAD token is signed with algorithm [" + alg +
                                "]; the emulator verifies RS256 and ES256 signatures only.");
    if (!v.keys->HasKeyFor(kid))
      throw AadUnauthorized(aad_substatus::kInvalidSigningKey, v,
                            "The AAD token is signed with key [" + kid +
                                "], which is not one of the signing keys the emulator was given (--aad-keys).");
    if (!v.keys->Verify(alg, kid, jwt.substr(0, dot2), *signature))
      throw AadUnauthorized(aad_substatus::kInvalidSignature, v,
                            "The AAD token's signature does not verify with the signing keys the emulator was "
                            "given (--aad-keys).");
  }

  auto exp = AadSeconds(claims, "exp");
  if (!exp) throw AadMalformed(v, "it has no expiry time (exp)");
  auto nbf = AadSeconds(claims, "nbf");
  if (claims.HasMember("nbf") && !nbf) throw AadMalformed(v, "its nbf is not a number");
  if (nbf && *nbf > v.now + v.clock_skew_seconds)
    throw AadUnauthorized(aad_substatus::kNotYetValid, v,
                          "Provided AAD token is not valid before [" + AadTime(*nbf) +
                              "]. Current server time is [" + AadTime(v.now) + "].");
  if (*exp + v.clock_skew_seconds < v.now)
    throw AadUnauthorized(aad_substatus::kExpired, v,
                          "Provided AAD token has been expired since [" + AadTime(*exp) +
                              "]. Current server time is [" + AadTime(v.now) + "]. Please refresh the AAD token.");

  if (!v.issuer.empty()) {
    const std::string iss = JwkString(claims, "iss");
    if (iss != v.issuer)
      throw AadUnauthorized(aad_substatus::kInvalidIssuer, v,
                            "Provided AAD token was issued by [" + iss + "]. This database account accepts tokens "
                            "issued by [" + v.issuer + "].");
  }

  std::vector<std::string> auds;
  if (auto it = claims.FindMember("aud"); it != claims.MemberEnd()) {
    if (it->value.IsString()) auds.emplace_back(it->value.GetString(), it->value.GetStringLength());
    else if (it->value.IsArray())
      for (const auto& a : it->value.GetArray())
        if (a.IsString()) auds.emplace_back(a.GetString(), a.GetStringLength());
  }
  bool audience_ok = false;
  for (const auto& a : auds)
    for (const auto& accepted : v.audiences) audience_ok = audience_ok || util::EqualsIgnoreCase(a, accepted);
  if (!audience_ok) {
    std::string list;
    for (const auto& a : v.audiences) list += (list.empty() ? "" : ", ") + a;
    std::string given;
    for (const auto& a : auds) given += (given.empty() ? "" : ", ") + a;
    throw AadUnauthorized(aad_substatus::kInvalidAudience, v,
                          "Provided AAD token is intended for [" + given +
                              "]. This database account accepts tokens intended for [" + list + "].");
  }

  AadPrincipal p;
  p.oid = JwkString(claims, "oid");
  if (p.oid.empty())
    throw AadUnauthorized(aad_substatus::kMissingObjectIdentifier, v,
                          "Provided AAD token carries no object identifier (oid) of its principal.");
  if (auto it = claims.FindMember("groups"); it != claims.MemberEnd() && it->value.IsArray())
    for (const auto& g : it->value.GetArray())
      if (g.IsString()) p.groups.emplace_back(g.GetString(), g.GetStringLength());
  p.expiry = *exp;
  return p;
}

}  // namespace cosmos::http
