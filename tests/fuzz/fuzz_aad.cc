// Fuzz target: Microsoft Entra ID tokens and role documents (docs/entra-id.md). The input is used
// as a whole token, as the claims and as the header of an otherwise well-formed token, through the
// pipeline (unsigned checks, then a signed one with a configured key set) and the validator alone;
// and as a role document for RbacRoles::Replace. Only the service's errors may come out: a 401 for
// a token, a 400 for a document.
#include <cstdint>
#include <memory>
#include <string>

#include "common/errors.h"
#include "fuzz_env.h"
#include "http/entra.h"
#include "http/rbac.h"

namespace {

std::string B64Url(std::string_view bytes) {
  std::string s = cosmos::util::Base64Encode(bytes);
  while (!s.empty() && s.back() == '=') s.pop_back();
  for (char& c : s) c = c == '+' ? '-' : c == '/' ? '_' : c;
  return s;
}

// A P-256 key in a JWKS, so the signature path runs (no input can sign with it).
const cosmos::http::AadKeys& Keys() {
  static const std::shared_ptr<const cosmos::http::AadKeys> keys = cosmos::http::AadKeys::Load(
      R"({"keys":[{"kty":"EC","crv":"P-256","kid":"k","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",)"
      R"("y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}]})");
  return *keys;
}

void Validate(const std::string& jwt, const cosmos::http::AadKeys* keys) {
  cosmos::http::AadValidation v;
  v.keys = keys;
  v.audiences = cosmos::http::AcceptedAudiences("localhost:8081", "");
  v.account = "cosmosdev";
  v.now = 1'700'000'000;
  try {
    cosmos::http::ValidateAadToken(jwt, v);
  } catch (const cosmos::CosmosError& e) {
    if (e.status != 401) cosmos::fuzz::Finding("a token refused with another status than 401");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cosmos;
  auto& env = fuzz::TheEnv();
  env.MaybeReset();
  const std::string v(reinterpret_cast<const char*>(data), size);
  const std::string header = B64Url(R"({"typ":"JWT","alg":"ES256","kid":"k"})");
  const std::string claims =
      B64Url(R"({"aud":"https://localhost","exp":1700003600,"nbf":1700000000,"oid":"p"})");
  for (const std::string& jwt : {v, header + "." + B64Url(v) + ".c2ln", B64Url(v) + "." + claims + ".c2ln"}) {
    Validate(jwt, nullptr);
    Validate(jwt, &Keys());
    bool clean = true;  // a header value cannot hold CR, LF or NUL on the wire
    for (char c : jwt) clean = clean && c != '\r' && c != '\n' && c != '\0';
    if (clean)
      env.Send(fuzz::bh::verb::get, "/dbs/db/colls/c/docs/1", "",
               {{"authorization", "type=aad&ver=1.0&sig=" + jwt}, {"x-ms-documentdb-partitionkey", "[\"a\"]"}},
               /*sign=*/false);
  }
  http::RbacRoles roles;
  try {
    roles.Replace(v);
    bool any = false;
    roles.Allows({"p"}, http::RbacActionName(http::RbacAction::kReadItem), "/dbs/db/colls/c", any);
    http::RbacRoles again;
    again.Replace(roles.ToJson());  // what GET answers loads again
    if (again.ToJson() != roles.ToJson()) fuzz::Finding("a role document that does not round-trip");
  } catch (const CosmosError& e) {
    if (e.status != 400) fuzz::Finding("a role document refused with another status than 400");
  }
  return 0;
}
