#include "http/auth.h"

#include <cctype>
#include <chrono>
#include <cstdlib>

#include "common/errors.h"
#include "http/headers.h"
#include "http/replica_address.h"
#include "http/rid_links.h"
#include "json/json.h"
#include "store/partition_key.h"
#include "store/store.h"
#include "util/util.h"

namespace cosmos::http {
namespace {

// What the MAC of a resource token covers: a label (so no other signature of the master key can
// pass for one) and the claims as sent.
std::string ResourceMac(std::string_view key, std::string_view claims_b64) {
  return util::Base64Encode(util::HmacSha256(key, "resource-token\n" + std::string(claims_b64)));
}

std::string ClaimsJson(const ResourceToken& t) {
  std::string out = "{\"db\":" + json::Quote(t.scope.db_rid) + ",\"coll\":" + json::Quote(t.scope.coll_rid) +
                    ",\"kind\":" + json::Quote(t.scope.kind) + ",\"child\":" + json::Quote(t.scope.child_id) +
                    ",\"pk\":" + json::Quote(t.scope.pk) + ",\"mode\":" + json::Quote(t.mode) +
                    ",\"perm\":" + json::Quote(t.permission_rid) + ",\"etag\":" + json::Quote(t.permission_etag) +
                    ",\"start\":" + std::to_string(t.start) + ",\"expiry\":" + std::to_string(t.expiry) + "}";
  return out;
}

CosmosError BadToken() {
  return errors::Unauthorized(
      "The input authorization token can't serve the request. The resource token is malformed or was not issued by "
      "this account; use the _token of a permission as it was returned.");
}

// What an Entra ID token is checked against for this request: the configured keys and issuer,
// and the audiences of the host the client reached.
AadValidation AadValidationFor(const RequestContext& ctx, const Config& config, int64_t now) {
  AadValidation v;
  v.keys = config.aad_keys.get();
  v.issuer = config.aad_issuer;
  v.audiences = AcceptedAudiences(ctx.Header("host").value_or(""), config.public_host);
  v.account = kAccountId;
  v.now = now;
  return v;
}

CosmosError Insufficient() {
  return errors::Forbidden(
      "Insufficient permissions provided in the authorization header for the corresponding request. Please retry "
      "with another authorization header.");
}

// Token times are seconds that a client chose the range of: formatted without the system clock's nanoseconds.
std::string Rfc1123At(int64_t unix_seconds) { return util::FormatRfc1123(unix_seconds); }

}  // namespace

std::string IssueResourceToken(std::string_view key, const ResourceToken& t) {
  const std::string claims = util::Base64Encode(ClaimsJson(t));
  return "type=resource&ver=1&sig=" + ResourceMac(key, claims) + ";" + claims + ";";
}

std::optional<ResourceToken> VerifyResourceToken(std::string_view key, std::string_view sig) {
  // <mac>;<claims>;
  auto parts = util::Split(sig, ';');
  if (parts.size() != 3 || !parts[2].empty() || parts[0].empty() || parts[1].empty()) return std::nullopt;
  if (!util::ConstantTimeEqual(ResourceMac(key, parts[1]), parts[0])) return std::nullopt;
  auto text = util::Base64Decode(parts[1]);
  if (!text) return std::nullopt;
  json::Document d;
  if (json::Parse(*text, d) != json::ParseStatus::kOk || !d.IsObject()) return std::nullopt;
  auto str = [&](const char* name, std::string& out) {
    auto it = d.FindMember(name);
    if (it == d.MemberEnd() || !it->value.IsString()) return false;
    out.assign(it->value.GetString(), it->value.GetStringLength());
    return true;
  };
  auto num = [&](const char* name, int64_t& out) {
    auto it = d.FindMember(name);
    if (it == d.MemberEnd() || !it->value.IsInt64()) return false;
    out = it->value.GetInt64();
    return true;
  };
  ResourceToken t;
  if (!str("db", t.scope.db_rid) || !str("coll", t.scope.coll_rid) || !str("kind", t.scope.kind) ||
      !str("child", t.scope.child_id) || !str("pk", t.scope.pk) || !str("mode", t.mode) ||
      !str("perm", t.permission_rid) || !str("etag", t.permission_etag) || !num("start", t.start) ||
      !num("expiry", t.expiry))
    return std::nullopt;
  return t;
}

bool IsContainerOperation(const std::vector<std::string>& segments) {
  return segments.size() == 6 && segments[0] == "dbs" && segments[2] == "colls" && segments[4] == "operations";
}

ResourceAddress AddressFor(std::string_view verb, const std::vector<std::string>& segments) {
  ResourceAddress a;
  if (segments.empty()) return a;
  auto join = [&](size_t n) {
    std::string s;
    for (size_t i = 0; i < n; ++i) {
      if (i) s.push_back('/');
      s += segments[i];
    }
    return s;
  };
  if (segments.size() % 2 == 0) {
    a.type = segments[segments.size() - 2];
    a.link = join(segments.size());
  } else {
    a.type = segments.back();
    a.link = join(segments.size() - 1);
  }
  // A rid link (dbs/{rid}/...) is signed with the lower-cased rid of its last resource: the
  // resource itself, or the parent of a feed.
  if (IsRidPath(segments)) a.link = util::ToLower(segments.size() % 2 == 0 ? segments.back() : segments[segments.size() - 2]);
  // An operation on a container (.../colls/{coll}/operations/partitionkeydelete) is signed as the
  // container itself (the JavaScript SDK; see Authenticate for the others).
  if (IsContainerOperation(segments)) {
    a.type = "colls";
    a.link = IsRidPath(segments) ? util::ToLower(segments[3]) : join(4);
  }
  // Offers are signed with the lower-cased offer id as the link.
  if (segments[0] == "offers" && segments.size() == 2 && !util::EqualsIgnoreCase(verb, "post")) {
    a.link = util::ToLower(segments[1]);
  }
  return a;
}

std::string StringToSign(std::string_view verb, const ResourceAddress& addr, std::string_view date) {
  std::string out;
  out.reserve(verb.size() + addr.type.size() + addr.link.size() + date.size() + 5);
  auto lower = [&](std::string_view part) {
    for (char c : part) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  };
  lower(verb);
  out += '\n';
  lower(addr.type);
  out += '\n';
  out += addr.link;
  out += '\n';
  lower(date);
  out += "\n\n";
  return out;
}

std::string Sign(std::string_view key, std::string_view verb, const ResourceAddress& addr, std::string_view date) {
  return util::Base64Encode(util::HmacSha256(key, StringToSign(verb, addr, date)));
}

bool ReadOnlyKeyServes(const RequestContext& ctx) {
  const auto& seg = ctx.segments();
  // Permissions carry resource tokens (which may write): a read-only key cannot read them.
  for (size_t i = 4; i < seg.size(); i += 2) {
    if (seg[i] == "permissions" && seg[i - 2] == "users") return false;
  }
  // The emulator's own endpoints (/_emulator/...) change its state: master keys only; reading the
  // RU report is a read.
  if (!seg.empty() && seg[0] == "_emulator")
    return seg.size() == 2 && seg[1] == "stats" && ctx.verb() == beast_http::verb::get;
  switch (ctx.verb()) {
    case beast_http::verb::get:
    case beast_http::verb::head:
      return true;  // reads, feeds, the change feed, the account
    case beast_http::verb::post:
      return ctx.operation() == Operation::kQuery || ctx.operation() == Operation::kQueryPlan;
    default:
      return false;
  }
}

namespace {

bool IsHex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

// Whether percent-decoding `id` once more changes it: a run of escapes that decodes to valid UTF-8
// (a run that would not, such as "%ce" alone, is left as it is, as .NET's unescaping leaves it).
bool DecodesAgain(const std::string& id) {
  for (size_t i = 0; i < id.size();) {
    std::string bytes;
    size_t j = i;
    while (j + 2 < id.size() && id[j] == '%' && IsHex(id[j + 1]) && IsHex(id[j + 2])) {
      bytes.push_back(static_cast<char>(std::stoi(id.substr(j + 1, 2), nullptr, 16)));
      j += 3;
    }
    if (!bytes.empty() && json::ValidUtf8(bytes)) return true;
    i = j > i ? j : i + 1;
  }
  return false;
}

// The service creates an item whatever its id holds, but its gateway cannot address some ids in a
// path afterwards (Microsoft's Go SDK emulator tests, TestItemIdEncodingRoutingGW, assert what it
// answers): an id that holds '/', '\\' or '#', ends in a blank or holds a percent escape that
// decodes reaches the signature check as another resource (401), and one that holds CR, LF or tab
// is refused (400). The SQL compute endpoint (--compute-port, the Windows emulator's
// /EnableSqlComputeEndpoint) addresses them all (TestItemIdEncodingComputeGW).
void RefuseIdsTheGatewayCannotAddress(const RequestContext& ctx) {
  if (ctx.compute_endpoint()) return;
  const auto& seg = ctx.segments();
  if (seg.size() != 6 || seg[0] != "dbs" || seg[2] != "colls" || seg[4] != "docs") return;
  const std::string& id = seg[5];
  if (id.find_first_of("\r\n\t") != std::string::npos)
    throw errors::BadRequest("The request's URL holds a character that is not allowed (CR, LF or tab).");
  if (DecodesAgain(id) || id.find_first_of("/\\#") != std::string::npos || id.back() == ' ') {
    throw errors::Unauthorized(
        "The input authorization token can't serve the request. The wrong key is being used or the expected "
        "payload is not built as per the protocol.");
  }
}

}  // namespace

namespace {

// The address feed (GET /addresses/?$resolveFor=...) is signed for what it resolves, as the SDKs
// sign it (direct-mode-client.md §1.2-1.3): a container's as a read of its documents by its
// lower-cased rid ("get\ndocs\n<collRid>\n..."; the rid rule AddressFor applies to rid links), the
// master partition's as a read of the database feed ("get\ndbs\n\n...").
bool IsAddressFeed(const std::vector<std::string>& segments) {
  return segments.size() == 1 && segments[0] == "addresses";
}

ResourceAddress AddressFeedAddress(const RequestContext& ctx) {
  const auto resolve_for = ParseResolveFor(ctx.QueryParam("$resolveFor").value_or("dbs"));
  if (!resolve_for) return {"docs", ""};  // nothing a client signs: 401, before the feed's 400
  if (resolve_for->master) return {"dbs", ""};
  return {"docs", util::ToLower(resolve_for->coll_rid)};
}

}  // namespace

Credential Authenticate(const RequestContext& ctx, const Config& config, int64_t now) {
  RefuseIdsTheGatewayCannotAddress(ctx);
  auto header = ctx.Header(headers::kAuthorization);
  if (!header || header->empty())
    throw errors::Unauthorized(
        "Required Header authorization is missing. Ensure a valid Authorization token is passed.");
  auto decoded = util::PercentDecode(*header);
  if (!decoded) throw errors::Unauthorized("The authorization header is not correctly URL-encoded.");
  std::string type, version, sig;
  size_t pos = 0;
  const std::string& h = *decoded;
  while (pos <= h.size()) {
    size_t amp = h.find('&', pos);
    if (amp == std::string::npos) amp = h.size();
    std::string part = h.substr(pos, amp - pos);
    size_t eq = part.find('=');
    if (eq != std::string::npos) {
      std::string k = util::ToLower(part.substr(0, eq));
      std::string v = part.substr(eq + 1);
      if (k == "type") type = v;
      else if (k == "ver") version = v;
      else if (k == "sig") sig = v;
    }
    pos = amp + 1;
  }
  if (util::EqualsIgnoreCase(type, "resource")) {
    // Resource tokens carry their own lifetime: no x-ms-date is needed (the Python SDK sends none).
    if (version != "1" && version != "1.0") throw BadToken();
    auto token = VerifyResourceToken(config.master_key, sig);
    if (!token) throw BadToken();
    return {.resource = std::move(token)};
  }
  if (util::EqualsIgnoreCase(type, "aad")) {
    if (version != "1.0")
      throw CosmosError(401, 5001, "Unauthorized",
                        "The authorization header must be of the form type=aad&ver=1.0&sig=<token>.");
    return {.aad = ValidateAadToken(sig, AadValidationFor(ctx, config, now))};
  }
  if (!util::EqualsIgnoreCase(type, "master") || version != "1.0" || sig.empty())
    throw errors::Unauthorized(
        "The input authorization token can't serve the request. The authorization header must be of the form "
        "type=master&ver=1.0&sig=<signature>.");
  auto date = ctx.Header(headers::kDate);
  if (!date || date->empty()) date = ctx.Header("date");
  if (!date || date->empty())
    throw errors::Unauthorized("The request must carry an x-ms-date header (RFC 1123 date).");
  auto when = util::ParseRfc1123(*date);
  if (!when) throw errors::Unauthorized("The x-ms-date header '" + std::string(*date) + "' is not an RFC 1123 date.");
  const int64_t skew = util::UnixSeconds() - *when;
  if (std::llabs(skew) > config.clock_skew_seconds)
    throw errors::Forbidden("The authorization token is not valid at the current time. Please create another token "
                            "and retry (token start time: " + std::string(*date) +
                            ", current server time: " + util::FormatRfc1123(std::chrono::system_clock::now()) + ").");
  auto verb = std::string(beast_http::to_string(ctx.verb()));
  const ResourceAddress addr =
      IsAddressFeed(ctx.segments()) ? AddressFeedAddress(ctx) : AddressFor(verb, ctx.segments());
  auto signed_with = [&](const std::string& key) {
    if (key.empty()) return false;
    if (util::ConstantTimeEqual(Sign(key, verb, addr, *date), sig)) return true;
    // The Python and .NET SDKs sign a partition key delete with the resource type "partitionkey"
    // and the container's link; the service takes both forms.
    if (!IsContainerOperation(ctx.segments())) return false;
    ResourceAddress alt = addr;
    alt.type = "partitionkey";
    return util::ConstantTimeEqual(Sign(key, verb, alt, *date), sig);
  };
  // Any master key serves every request; a read-only key serves reads only. The service answers
  // a read-only key's signature on a write as it answers a wrong key: 401, the payload it signed.
  const bool master = signed_with(config.master_key) || signed_with(config.secondary_key);
  const bool read_only =
      !master && (signed_with(config.readonly_key) || signed_with(config.secondary_readonly_key)) &&
      ReadOnlyKeyServes(ctx);
  if (!master && !read_only) {
    std::string shown;
    for (char c : StringToSign(verb, addr, *date)) shown += (c == '\n') ? std::string("\\n") : std::string(1, c);
    throw errors::Unauthorized(
        "The input authorization token can't serve the request. The wrong key is being used or the expected "
        "payload is not built as per the protocol. Server used the following payload to sign: '" +
        shown + "'");
  }
  return {};
}

namespace {

// A POST to .../docs that reads: a query or a query plan.
bool IsQuery(const RequestContext& ctx) {
  return ctx.operation() == Operation::kQuery || ctx.operation() == Operation::kQueryPlan;
}

// Whether the request's x-ms-documentdb-partitionkey names exactly the token's partition key.
bool SameKey(const RequestContext& ctx, const store::Container& c, const std::string& pk) {
  auto h = ctx.scope().partition_key;
  if (!h) return false;
  return store::ParsePartitionKeyHeader(c.partition_key(), *h, /*allow_prefix=*/true).Canonical() == pk;
}

// Whether a token of `scope` may make this request on container `c` (the request's path is
// dbs/{db}/colls/{coll}[/...]); `write` is set to whether it changes anything.
bool Grants(const RequestContext& ctx, const store::Container& c, const store::PermissionScope& scope, bool& write) {
  using V = beast_http::verb;
  const auto& seg = ctx.segments();
  const V verb = ctx.verb();
  const bool whole = scope.kind.empty() && scope.pk.empty();  // the container itself
  write = verb != V::get;
  if (seg.size() == 4) {
    // The container's definition: any token under it may read it (the SDKs read it to route);
    // only a token for the whole container may replace or delete it.
    return !write || whole;
  }
  const std::string& kind = seg[4];
  if (seg.size() == 5) {
    if (kind == "pkranges") return !write;
    if (kind == "docs") {
      if (verb == V::post && IsQuery(ctx)) write = false;
      // A query plan reads no items: any token under the container may ask for one.
      if (verb == V::post && ctx.operation() == Operation::kQueryPlan) return true;
      // Feeds, queries and creates: the container, or the partition key the request names.
      if (!scope.kind.empty()) return false;
      return scope.pk.empty() || SameKey(ctx, c, scope.pk);
    }
    // Script (and conflict) lists and creates: a token for the whole container. A permission
    // applies where its partition key is a superset of the resource's (the .NET SDK's
    // Permission.ResourcePartitionKey): a script belongs to no partition key, so a token for one
    // key neither lists nor reads scripts; it may only run a stored procedure in its key.
    return scope.kind.empty() && scope.pk.empty();
  }
  // seg.size() == 6: one item or script.
  const std::string& id = seg[5];
  if (kind == "docs") {
    if (scope.kind.empty()) return scope.pk.empty() || SameKey(ctx, c, scope.pk);
    return scope.kind == "docs" && scope.child_id == id && (scope.pk.empty() || SameKey(ctx, c, scope.pk));
  }
  // Scripts. Running a stored procedure (POST) can write, so it needs All; a token for one
  // partition key may run it in that partition only, and may neither read nor change scripts.
  if (!scope.kind.empty()) return scope.kind == kind && scope.child_id == id;
  if (scope.pk.empty()) return true;
  return verb == V::post && kind == "sprocs" && SameKey(ctx, c, scope.pk);
}

}  // namespace

void AuthorizeResourceToken(const Services& s, const RequestContext& ctx, const ResourceToken& t) {
  const int64_t now = s.clock.UnixSeconds();
  if (now >= t.expiry || now < t.start)
    throw errors::Forbidden("The authorization token is not valid at the current time. Please create another token "
                            "and retry (token start time: " + Rfc1123At(t.start) +
                            ", token expiry time: " + Rfc1123At(t.expiry) +
                            ", current server time: " + Rfc1123At(now) + ").");
  // The permission must still exist as it was when the token was issued: deleting or replacing a
  // permission (or deleting its user or database) revokes its tokens.
  store::DatabasePtr db = s.account.FindDatabaseByRid(t.scope.db_rid);
  if (!db) throw Insufficient();
  auto perm = db->users().FindPermissionByRid(t.permission_rid);
  if (!perm || perm->etag != t.permission_etag) throw Insufficient();

  const auto& seg = ctx.segments();
  if (seg.empty()) {
    if (ctx.verb() == beast_http::verb::get) return;  // the account: any valid token reads it
    throw Insufficient();
  }
  // The address feed of the token's container (a read, named by rid: the SDKs resolve addresses
  // in Direct mode with the token they were given); never the master partition's.
  if (IsAddressFeed(seg)) {
    const ResourceAddress resolved = AddressFeedAddress(ctx);
    if (ctx.verb() != beast_http::verb::get || resolved.type != "docs" ||
        resolved.link != util::ToLower(t.scope.coll_rid))
      throw Insufficient();
    return;
  }
  // Everything else a token can reach lies in one container of its database.
  if (seg.size() < 4 || seg[0] != "dbs" || seg[2] != "colls" || seg[1] != db->id()) throw Insufficient();
  auto c = db->FindContainer(seg[3]);
  if (!c || c->rid() != t.scope.coll_rid) throw Insufficient();
  bool write = false;
  if (!Grants(ctx, *c, t.scope, write)) throw Insufficient();
  if (write && t.mode != "All") throw Insufficient();
}

}  // namespace cosmos::http
