// Entra ID tokens for tests: the SDK suites' fake token (signature segment = the master key's
// text), and tokens really signed with keys made here with OpenSSL (RS256, ES256), with the JWKS
// and PEM documents the emulator is given for them (--aad-keys).
#pragma once

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "util/util.h"

namespace cosmos::testing {

inline std::string B64Url(std::string_view bytes) {
  std::string s = util::Base64Encode(bytes);
  while (!s.empty() && s.back() == '=') s.pop_back();
  for (char& c : s) c = c == '+' ? '-' : c == '/' ? '_' : c;
  return s;
}

// The claims of the SDK suites' test token (Microsoft's Python, Java, Go tests), valid from
// `nbf` to `exp`, for principal `oid`.
inline std::string TestClaims(const std::string& oid, int64_t nbf, int64_t exp,
                              const std::string& aud = "https://localhost.localhost", const std::string& extra = "") {
  return R"({"aud":")" + aud + R"(","iss":"https://sts.fake-issuer.net/7b1999a1-dfd7-440e-8204-00170979b984","iat":)" +
         std::to_string(nbf) + R"(,"nbf":)" + std::to_string(nbf) + R"(,"exp":)" + std::to_string(exp) +
         R"(,"oid":")" + oid + R"(","tid":"EmulatorFederation","scp":"user_impersonation")" + extra + "}";
}

// header.claims.<the master key's base64 text>: the fake token every SDK's emulator tests send.
inline std::string FakeToken(const std::string& claims, const std::string& key_b64,
                             const std::string& kid = "CosmosEmulatorPrimaryMaster") {
  return B64Url(R"({"typ":"JWT","alg":"RS256","x5t":")" + kid + R"(","kid":")" + kid + R"("})") + "." +
         B64Url(claims) + "." + B64Url(key_b64);
}

// A key pair made for one test, and what it signs.
class TestSigningKey {
 public:
  // "RS256" (RSA 2048) or "ES256" (P-256).
  TestSigningKey(std::string alg, std::string kid) : alg_(std::move(alg)), kid_(std::move(kid)) {
    pkey_ = alg_ == "RS256" ? EVP_RSA_gen(2048) : EVP_EC_gen("P-256");
    if (!pkey_) throw std::runtime_error("key generation failed");
  }
  ~TestSigningKey() { EVP_PKEY_free(pkey_); }
  TestSigningKey(const TestSigningKey&) = delete;
  TestSigningKey& operator=(const TestSigningKey&) = delete;

  const std::string& kid() const { return kid_; }

  // A JWT of `claims`, signed (header alg/kid as given, default this key's).
  std::string Sign(const std::string& claims, std::string alg = "", std::string kid = "") const {
    if (alg.empty()) alg = alg_;
    if (kid.empty()) kid = kid_;
    const std::string signed_text =
        B64Url(R"({"typ":"JWT","alg":")" + alg + R"(","kid":")" + kid + R"("})") + "." + B64Url(claims);
    return signed_text + "." + B64Url(RawSignature(signed_text));
  }

  // {"kty":...} of the public key.
  std::string Jwk() const {
    if (alg_ == "RS256") {
      return R"({"kty":"RSA","use":"sig","kid":")" + kid_ + R"(","n":")" + B64Url(Bn(OSSL_PKEY_PARAM_RSA_N)) +
             R"(","e":")" + B64Url(Bn(OSSL_PKEY_PARAM_RSA_E)) + R"("})";
    }
    return R"({"kty":"EC","crv":"P-256","kid":")" + kid_ + R"(","x":")" + B64Url(Bn(OSSL_PKEY_PARAM_EC_PUB_X, 32)) +
           R"(","y":")" + B64Url(Bn(OSSL_PKEY_PARAM_EC_PUB_Y, 32)) + R"("})";
  }

  std::string PublicPem() const {
    BIO* bio = BIO_new(BIO_s_mem());
    PEM_write_bio_PUBKEY(bio, pkey_);
    char* data = nullptr;
    const long len = BIO_get_mem_data(bio, &data);
    std::string out(data, static_cast<size_t>(len));
    BIO_free(bio);
    return out;
  }

 private:
  std::string Bn(const char* name, size_t pad = 0) const {
    BIGNUM* bn = nullptr;
    EVP_PKEY_get_bn_param(pkey_, name, &bn);
    std::string out(static_cast<size_t>(BN_num_bytes(bn)), '\0');
    BN_bn2bin(bn, reinterpret_cast<unsigned char*>(out.data()));
    BN_free(bn);
    if (out.size() < pad) out.insert(0, pad - out.size(), '\0');
    return out;
  }

  std::string RawSignature(const std::string& text) const {
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    size_t len = 0;
    EVP_DigestSignInit(ctx, nullptr, EVP_sha256(), nullptr, pkey_);
    EVP_DigestSign(ctx, nullptr, &len, reinterpret_cast<const unsigned char*>(text.data()), text.size());
    std::string sig(len, '\0');
    EVP_DigestSign(ctx, reinterpret_cast<unsigned char*>(sig.data()), &len,
                   reinterpret_cast<const unsigned char*>(text.data()), text.size());
    sig.resize(len);
    EVP_MD_CTX_free(ctx);
    if (alg_ == "RS256") return sig;
    // DER ECDSA-Sig-Value to JWS's r || s.
    const unsigned char* p = reinterpret_cast<const unsigned char*>(sig.data());
    ECDSA_SIG* es = d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(sig.size()));
    std::string raw(64, '\0');
    BN_bn2binpad(ECDSA_SIG_get0_r(es), reinterpret_cast<unsigned char*>(raw.data()), 32);
    BN_bn2binpad(ECDSA_SIG_get0_s(es), reinterpret_cast<unsigned char*>(raw.data()) + 32, 32);
    ECDSA_SIG_free(es);
    return raw;
  }

  std::string alg_, kid_;
  EVP_PKEY* pkey_ = nullptr;
};

}  // namespace cosmos::testing
