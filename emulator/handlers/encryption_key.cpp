// /dbs/{db}/clientencryptionkeys[/{id}]: the data encryption keys of client-side encryption
// (Always Encrypted), wrapped by the client's own key store, and the clientEncryptionPolicy of
// containers that refers to them. The emulator stores both as the service does and never touches
// the cryptography: the SDKs encrypt and decrypt. Keys are metadata: flat metadata charges, no
// session tokens. There is no delete (the service offers none).
#include <set>

#include "charge/charge.h"
#include "common/errors.h"
#include "handlers/common.h"
#include "handlers/encryption.h"
#include "handlers/handlers.h"
#include "http/headers.h"
#include "util/util.h"

namespace cosmos::handlers {
namespace {

constexpr const char* kAlgorithm = "AEAD_AES_256_CBC_HMAC_SHA256";

std::string KeyJson(const store::Database& db, const store::ClientEncryptionKey& k) {
  return "{\"id\":" + json::Quote(k.id) + ",\"encryptionAlgorithm\":" + json::Quote(k.encryption_algorithm) +
         ",\"wrappedDataEncryptionKey\":" + json::Quote(k.wrapped_key) + ",\"keyWrapMetadata\":" +
         k.key_wrap_metadata + ",\"_rid\":" + json::Quote(k.rid) +
         ",\"_self\":" + json::Quote("dbs/" + db.rid() + "/clientencryptionkeys/" + k.rid + "/") +
         ",\"_etag\":" + json::Quote(k.etag) + ",\"_ts\":" + std::to_string(k.ts) + "}";
}

Result KeyResult(const store::Database& db, const store::ClientEncryptionKey& k, int status, double charge) {
  Result r;
  r.status = status;
  r.body = KeyJson(db, k);
  r.headers.emplace_back(headers::kETag, k.etag);
  r.charge = charge;
  return r;
}

CosmosError Invalid(const std::string& what) {
  return errors::BadRequest("The input content is invalid because " + what);
}

bool IsBase64(std::string_view s) {
  if (s.empty() || s.size() % 4 != 0) return false;
  return util::Base64Decode(s).has_value();
}

// A key from a create or replace body (without rid, etag and time).
store::ClientEncryptionKey KeyFromBody(const json::Value& body) {
  ValidateId(body);
  std::string missing;
  for (const char* k : {"encryptionAlgorithm", "wrappedDataEncryptionKey", "keyWrapMetadata"}) {
    auto it = body.FindMember(k);
    if (it == body.MemberEnd() || it->value.IsNull()) missing += std::string(k) + "; ";
  }
  if (!missing.empty()) throw Invalid("the required properties - '" + missing + "' - are missing");
  store::ClientEncryptionKey k;
  k.id = IdOf(body);
  const auto& alg = body["encryptionAlgorithm"];
  if (!alg.IsString() || std::string_view(alg.GetString(), alg.GetStringLength()) != kAlgorithm)
    throw Invalid(std::string("the encryptionAlgorithm must be '") + kAlgorithm + "'.");
  k.encryption_algorithm = kAlgorithm;
  const auto& wrapped = body["wrappedDataEncryptionKey"];
  if (!wrapped.IsString() || !IsBase64(std::string_view(wrapped.GetString(), wrapped.GetStringLength())))
    throw Invalid("the wrappedDataEncryptionKey must be a non-empty base64 string.");
  k.wrapped_key.assign(wrapped.GetString(), wrapped.GetStringLength());
  const auto& meta = body["keyWrapMetadata"];
  if (!meta.IsObject()) throw Invalid("the keyWrapMetadata must be an object.");
  for (const char* f : {"type", "name", "value"}) {
    auto it = meta.FindMember(f);
    if (it == meta.MemberEnd() || !it->value.IsString() || it->value.GetStringLength() == 0)
      throw Invalid(std::string("the keyWrapMetadata needs a non-empty string '") + f + "'.");
  }
  if (auto it = meta.FindMember("algorithm"); it != meta.MemberEnd() && !it->value.IsNull() && !it->value.IsString())
    throw Invalid("the keyWrapMetadata's 'algorithm' must be a string.");
  k.key_wrap_metadata = json::Write(meta);
  return k;
}

store::ClientEncryptionKey Stamp(Services& s, store::ClientEncryptionKey k) {
  const int64_t ts = s.clock.UnixSeconds();
  k.ts = ts;
  k.etag = s.account.NewEtag(ts);
  return k;
}

store::ClientEncryptionKey ResolveKey(const store::Database& db, const std::string& id) {
  auto k = db.encryption_keys().Find(id);
  if (!k) throw MetadataNotFound();
  return *k;
}

}  // namespace

Result CreateClientEncryptionKey(Services& s, RequestContext& ctx) {
  auto db = ResolveDatabase(s, ctx.Param("db"));
  json::Document body = ParseObjectBody(ctx.body());
  store::ClientEncryptionKey k = KeyFromBody(body);
  k.rid = store::ClientEncryptionKeyRid(db->rid(), db->encryption_keys().NextNumber());
  k = Stamp(s, std::move(k));
  MetadataWrite([&] { db->encryption_keys().Create(k); });
  return KeyResult(*db, k, 201, charge::MetadataWrite());
}

Result QueryClientEncryptionKeys(Services& s, RequestContext& ctx) {
  auto db = ResolveDatabase(s, ctx.Param("db"));
  std::vector<std::pair<std::string, std::string>> all;
  for (const auto& k : db->encryption_keys().List()) all.emplace_back(k.rid, KeyJson(*db, k));
  return QueryResources(s, ctx, "ClientEncryptionKeys", db->rid(), all);
}

Result ListClientEncryptionKeys(Services& s, RequestContext& ctx) {
  auto db = ResolveDatabase(s, ctx.Param("db"));
  std::vector<std::string> items;
  for (const auto& k : db->encryption_keys().List()) items.push_back(KeyJson(*db, k));
  Result r;
  r.body = FeedJson(db->rid(), "ClientEncryptionKeys", Page(ctx, std::move(items), r));
  r.charge = charge::MetadataRead();
  return r;
}

Result ReadClientEncryptionKey(Services& s, RequestContext& ctx) {
  auto db = ResolveDatabase(s, ctx.Param("db"));
  auto k = ResolveKey(*db, ctx.Param("id"));
  // If-None-Match with the current etag: 304 (the SDKs ask so when they refresh a cached key).
  if (auto inm = ctx.Header(headers::kIfNoneMatch); inm && (*inm == k.etag || *inm == "*")) {
    Result r;
    r.status = 304;
    r.headers.emplace_back(headers::kETag, k.etag);
    r.charge = charge::MetadataRead();
    return r;
  }
  return KeyResult(*db, k, 200, charge::MetadataRead());
}

Result ReplaceClientEncryptionKey(Services& s, RequestContext& ctx) {
  auto db = ResolveDatabase(s, ctx.Param("db"));
  ResolveKey(*db, ctx.Param("id"));
  json::Document body = ParseObjectBody(ctx.body());
  store::ClientEncryptionKey k = KeyFromBody(body);
  // Policies name keys by id: a key keeps its id (a rewrap changes the wrapped key and metadata).
  if (k.id != ctx.Param("id"))
    throw errors::BadRequest("The id of a client encryption key cannot be changed: the body's id '" + k.id +
                             "' is not the id in the URL.");
  k = Stamp(s, std::move(k));
  MetadataWrite([&] { db->encryption_keys().Replace(k, IfMatchHeader(ctx)); });
  return KeyResult(*db, ResolveKey(*db, k.id), 200, charge::MetadataWrite());
}

// ---- the container's clientEncryptionPolicy ----

std::optional<std::string> ClientEncryptionPolicyFromBody(const json::Value& body, const store::Database& db) {
  auto it = body.FindMember("clientEncryptionPolicy");
  if (it == body.MemberEnd() || it->value.IsNull()) return std::nullopt;
  const json::Value& policy = it->value;
  auto bad = [](const std::string& why) { return errors::BadRequest("The clientEncryptionPolicy is invalid: " + why); };
  if (!policy.IsObject()) throw bad("it must be an object.");
  json::Document out;
  auto& a = out.GetAllocator();
  out.CopyFrom(policy, a);
  auto version = out.FindMember("policyFormatVersion");
  if (version == out.MemberEnd() || version->value.IsNull()) {
    if (version != out.MemberEnd()) out.RemoveMember(version);
    out.AddMember("policyFormatVersion", 1, a);
  } else if (!version->value.IsInt() || (version->value.GetInt() != 1 && version->value.GetInt() != 2)) {
    throw bad("the supported values of policyFormatVersion are 1 and 2.");
  }
  auto paths = policy.FindMember("includedPaths");
  if (paths == policy.MemberEnd() || !paths->value.IsArray()) throw bad("includedPaths must be an array.");
  std::set<std::string> seen;
  for (const auto& p : paths->value.GetArray()) {
    if (!p.IsObject()) throw bad("every entry of includedPaths must be an object.");
    for (const char* f : {"path", "clientEncryptionKeyId", "encryptionType", "encryptionAlgorithm"}) {
      auto m = p.FindMember(f);
      if (m == p.MemberEnd() || !m->value.IsString() || m->value.GetStringLength() == 0)
        throw bad(std::string("every included path needs a non-empty string '") + f + "'.");
    }
    std::string path = p["path"].GetString();
    if (path.size() < 2 || path[0] != '/') throw bad("the path '" + path + "' must start with '/'.");
    if (!seen.insert(path).second) throw bad("the path '" + path + "' is included more than once.");
    const std::string key = p["clientEncryptionKeyId"].GetString();
    if (!db.encryption_keys().Find(key))
      throw bad("the client encryption key '" + key + "' of the path '" + path + "' does not exist in database '" +
                db.id() + "'; create it first.");
  }
  return json::Write(out);
}

}  // namespace cosmos::handlers
