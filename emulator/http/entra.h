// Microsoft Entra ID (AAD) tokens: the JWT an SDK with a token credential sends as
// "type=aad&ver=1.0&sig=<JWT>" (docs/entra-id.md). Parsed and validated as the service validates
// it (well-formed, nbf/exp on the emulator clock, audience, issuer, oid), its signature verified
// with OpenSSL when the emulator was given keys (--aad-keys: a JWKS or a PEM public key). Each
// failure answers 401 with the service's substatus (AadSubStatusCodes).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace cosmos::http {

// The service's 401 substatuses for Entra ID tokens (its AadSubStatusCodes).
namespace aad_substatus {
inline constexpr int kInvalidFormat = 5003;
inline constexpr int kInvalidSignature = 5004;
inline constexpr int kNotYetValid = 5005;
inline constexpr int kExpired = 5006;
inline constexpr int kInvalidIssuer = 5007;
inline constexpr int kInvalidAudience = 5008;
inline constexpr int kMissingObjectIdentifier = 5011;
inline constexpr int kInvalidSigningKey = 5200;
}  // namespace aad_substatus

// Public keys that sign tokens: from a JWKS document ({"keys":[{"kty":"RSA","kid":..,"n":..,"e":..},
// {"kty":"EC","crv":"P-256","x":..,"y":..}]}) or PEM (public keys or certificates). A key without
// a kid (PEM) verifies a token whatever kid it names.
class AadKeys {
 public:
  struct Key;
  // Throws std::runtime_error naming what is wrong.
  static std::shared_ptr<const AadKeys> Load(std::string_view text);
  ~AadKeys();
  AadKeys(const AadKeys&) = delete;
  AadKeys& operator=(const AadKeys&) = delete;
  size_t size() const { return keys_.size(); }
  // Whether `signature` (the JWS's raw bytes) over `signed_text` verifies under a key for `alg`
  // (RS256, ES256) and `kid`. False for any other algorithm.
  bool Verify(std::string_view alg, std::string_view kid, std::string_view signed_text,
              std::string_view signature) const;
  // Whether some key has this kid (or no kid).
  bool HasKeyFor(std::string_view kid) const;

 private:
  AadKeys() = default;
  std::vector<std::unique_ptr<Key>> keys_;
};

// What a valid token says about its holder: its object id (the principal role assignments name)
// and the groups it carries.
struct AadPrincipal {
  std::string oid;
  std::vector<std::string> groups;
  int64_t expiry = 0;
};

struct AadValidation {
  const AadKeys* keys = nullptr;  // null: the signature is not checked
  std::string issuer;             // empty: any issuer
  std::vector<std::string> audiences;  // exact matches accepted for aud
  std::string account;                 // the account's name, in messages
  int64_t now = 0;                     // Unix seconds on the emulator clock
  int64_t clock_skew_seconds = 300;    // tolerance for nbf and exp
};

// The audiences accepted for a request that reached the emulator as `host` (the Host header: a
// name or address and maybe ":port") or the public host: https:// and http:// forms with and
// without the port, the same for localhost and 127.0.0.1 (Direct mode's requests carry no Host),
// https://cosmos.azure.com, and https://localhost.localhost (the audience of the test token every
// SDK's emulator tests make).
std::vector<std::string> AcceptedAudiences(std::string_view host, std::string_view public_host);

// Validates `jwt`; throws CosmosError 401 (substatus of aad_substatus) when it does not serve.
AadPrincipal ValidateAadToken(std::string_view jwt, const AadValidation& v);

// "M/d/yyyy h:mm:ss AM (UTC)", the service's format in token messages.
std::string AadTime(int64_t unix_seconds);

}  // namespace cosmos::http
