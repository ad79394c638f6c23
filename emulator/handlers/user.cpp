// /dbs/{db}/users[/{user}] and /dbs/{db}/users/{user}/permissions[/{permission}]: users, their
// permissions, and the resource tokens permissions hand out (docs/users.md). Users and
// permissions are metadata: flat metadata charges, no session tokens.
#include <memory>
#include <string>
#include <vector>

#include "charge/charge.h"
#include "common/errors.h"
#include "handlers/common.h"
#include "handlers/handlers.h"
#include "http/auth.h"
#include "http/rid_links.h"
#include "http/headers.h"
#include "query/executor.h"
#include "query/parse_cache.h"
#include "store/partition_key.h"
#include "util/util.h"

namespace cosmos::handlers {
namespace {

// A token's lifetime: an hour unless the request asks for 10 minutes to 24 hours (what the
// service accepts, whatever its documentation says).
constexpr int64_t kDefaultExpirySeconds = 3600;
constexpr int64_t kMinExpirySeconds = 600;
constexpr int64_t kMaxExpirySeconds = 24 * 3600;

std::string UserSelf(const store::Database& db, const store::User& u) {
  return "dbs/" + db.rid() + "/users/" + u.rid + "/";
}

std::string UserJson(const store::Database& db, const store::User& u) {
  std::string out = "{\"id\":" + json::Quote(u.id) + ",\"_rid\":" + json::Quote(u.rid) +
                    ",\"_ts\":" + std::to_string(u.ts) + ",\"_self\":" + json::Quote(UserSelf(db, u)) +
                    ",\"_etag\":" + json::Quote(u.etag) + ",\"_permissions\":\"permissions/\"}";
  return out;
}

// The token lifetime a request asks for, checked before anything is written.
int64_t ExpirySeconds(const RequestContext& ctx) {
  auto h = ctx.Header(headers::kExpirySeconds);
  if (!h) return kDefaultExpirySeconds;
  auto v = util::ParseInteger<int64_t>(*h);
  if (!v || *v > kMaxExpirySeconds)
    throw errors::BadRequest("Value '" + std::string(*h) + "' specified for the header '" + headers::kExpirySeconds +
                             "' is invalid.");
  if (*v < kMinExpirySeconds) throw errors::InvalidInput();
  return *v;
}

std::string PermissionJson(Services& s, const store::Database& db, const store::User& u, const store::Permission& p,
                           int64_t lifetime) {
  http::ResourceToken t;
  t.scope = p.scope;
  t.mode = util::EqualsIgnoreCase(p.mode, "All") ? "All" : "Read";
  t.permission_rid = p.rid;
  t.permission_etag = p.etag;
  t.start = s.clock.UnixSeconds();
  t.expiry = t.start + lifetime;
  std::string out = "{\"id\":" + json::Quote(p.id) + ",\"permissionMode\":" + json::Quote(p.mode) +
                    ",\"resource\":" + json::Quote(p.resource);
  if (!p.resource_pk_json.empty()) out += ",\"resourcePartitionKey\":" + p.resource_pk_json;
  out += ",\"_rid\":" + json::Quote(p.rid) + ",\"_ts\":" + std::to_string(p.ts) +
         ",\"_self\":" + json::Quote(UserSelf(db, u) + "permissions/" + p.rid + "/") +
         ",\"_etag\":" + json::Quote(p.etag) +
         ",\"_token\":" + json::Quote(http::IssueResourceToken(s.config.master_key, t)) + "}";
  return out;
}

store::User ResolveUser(const store::Database& db, const std::string& id) {
  auto u = db.users().FindUser(id);
  if (!u) throw MetadataNotFound();
  return *u;
}

// ---- permissions: the resource a body names ----

CosmosError InvalidLink(const std::string& link) {
  return errors::BadRequest("The input Resource link '" + link +
                            "' is invalid. Ensure to provide a valid resource link of size lesser than '256' "
                            "characters.");
}

// Resolves a permission's `resource` (name-based "dbs/db/colls/c[/docs/id]", or the same made of
// resource ids, as a `_self` is) to what it grants, in the user's database `db`.
store::PermissionScope ResolveResource(Services& s, const store::Database& db, const std::string& link) {
  std::string_view v = link;
  while (!v.empty() && v.front() == '/') v.remove_prefix(1);
  while (!v.empty() && v.back() == '/') v.remove_suffix(1);
  auto parts = util::Split(v, '/');
  if (link.size() > 255 || v.empty() || parts.size() < 4 || parts[0] != "dbs" || parts[2] != "colls")
    throw InvalidLink(link);
  for (auto p : parts) {
    if (p.empty()) throw InvalidLink(link);
  }
  // Conflicts and attachments are resources of the service this emulator does not serve.
  if (parts.size() == 6 && parts[4] == "conflicts") throw errors::NotImplemented("Permissions on conflicts");
  if (parts.size() == 8 && parts[4] == "docs" && parts[6] == "attachments")
    throw errors::NotImplemented("Permissions on attachments");
  if (parts.size() != 4 && !(parts.size() == 6 && (parts[4] == "docs" || parts[4] == "sprocs" ||
                                                   parts[4] == "triggers" || parts[4] == "udfs")))
    throw InvalidLink(link);
  // A permission grants access in its user's database only. Links made of resource ids (their
  // database segment reads as a database rid, the rule the SDKs use) name it by its rid, and then
  // everything in them is a rid.
  std::vector<std::string> segments(parts.begin(), parts.end());
  const bool by_rid = parts[1] != db.id() && http::IsRidPath(segments);
  if (!by_rid && parts[1] != db.id()) throw InvalidLink(link);
  store::PermissionScope scope;
  scope.db_rid = db.rid();
  // A link of resource ids that names nothing in the user's database is taken as it is and grants
  // nothing (Microsoft's Python and Java SDK tests, run against the service, create permissions on
  // "dbs/AQAAAA==/colls/AQAAAJ0fgTc=", "a random one"). Its scope holds the link where the
  // container's rid goes: no container has such a rid, a rid is never given again, and two such
  // permissions of one user are two resources as long as their links differ.
  store::PermissionScope nothing = scope;
  nothing.coll_rid = std::string(v);
  if (by_rid && parts[1] != db.rid()) return nothing;
  store::ContainerPtr c = by_rid ? db.FindContainerByRid(std::string(parts[3])) : db.FindContainer(std::string(parts[3]));
  if (!c && by_rid) return nothing;
  if (!c) throw MetadataNotFound();
  scope.coll_rid = c->rid();
  if (parts.size() == 4) return scope;
  scope.kind = std::string(parts[4]);
  const std::string child(parts[5]);
  if (!by_rid) {
    scope.child_id = child;
    return scope;
  }
  if (scope.kind == "docs") {
    // The item with that rid, in whichever partition it lives: the token names exactly it.
    auto item = c->FindItemByRid(child, s.clock.Now());
    if (!item) return nothing;
    scope.child_id = item->id();
    scope.pk = item->pk();
    return scope;
  }
  auto script = c->scripts().FindByRid(*store::ScriptKindOfPath(scope.kind), child);
  if (!script) return nothing;
  scope.child_id = script->id;
  return scope;
}

// A permission from a create, replace or upsert body (without rid, etag and time).
store::Permission PermissionFromBody(Services& s, const store::Database& db, const json::Value& body) {
  ValidateId(body);
  std::string missing;
  auto mode = body.FindMember("permissionMode");
  auto resource = body.FindMember("resource");
  if (mode == body.MemberEnd() || mode->value.IsNull()) missing += "permissionMode; ";
  if (resource == body.MemberEnd() || resource->value.IsNull()) missing += "resource; ";
  if (!missing.empty())
    throw errors::BadRequest("The input content is invalid because the required properties - '" + missing +
                             "' - are missing");
  store::Permission p;
  p.id = IdOf(body);
  // Read or All in any case; kept as given, as the service returns it (the JavaScript SDK sends
  // "read" and "all" and reads back what it sent).
  if (!mode->value.IsString() || !(util::EqualsIgnoreCase(mode->value.GetString(), "Read") ||
                                   util::EqualsIgnoreCase(mode->value.GetString(), "All")))
    throw errors::BadRequest("The value of permissionMode is invalid: it must be Read or All.");
  p.mode.assign(mode->value.GetString(), mode->value.GetStringLength());
  if (!resource->value.IsString())
    throw errors::BadRequest("The input content is invalid because the property 'resource' must be a string.");
  p.resource.assign(resource->value.GetString(), resource->value.GetStringLength());
  p.scope = ResolveResource(s, db, p.resource);
  auto rpk = body.FindMember("resourcePartitionKey");
  if (rpk != body.MemberEnd() && !rpk->value.IsNull()) {
    p.resource_pk_json = json::Write(rpk->value);
    store::ContainerPtr c = db.FindContainerByRid(p.scope.coll_rid);
    try {
      if (!rpk->value.IsArray()) throw errors::BadRequest("");
      // A permission on nothing keeps the key as given; it grants nothing anyway.
      if (c) p.scope.pk = store::ParsePartitionKeyHeader(c->partition_key(), p.resource_pk_json).Canonical();
    } catch (const CosmosError&) {
      throw errors::BadRequest("The resourcePartitionKey " + p.resource_pk_json +
                               " is invalid: it must be a JSON array holding the container's partition key value.");
    }
  }
  return p;
}

store::PermissionPtr Stamp(Services& s, store::Permission p, std::string rid) {
  const int64_t ts = s.clock.UnixSeconds();
  p.rid = std::move(rid);
  p.ts = ts;
  p.etag = s.account.NewEtag(ts);
  return std::make_shared<const store::Permission>(std::move(p));
}

Result PermissionResult(Services& s, const store::Database& db, const store::User& u, const store::Permission& p,
                        int64_t lifetime, int status, double charge) {
  Result r;
  r.status = status;
  r.body = PermissionJson(s, db, u, p, lifetime);
  r.headers.emplace_back(headers::kETag, p.etag);
  r.charge = charge;
  return r;
}

}  // namespace

// ---- users ----

Result QueryUsers(Services& s, RequestContext& ctx) {
  auto db = ResolveDatabase(s, ctx.Param("db"));
  std::vector<std::pair<std::string, std::string>> all;
  for (const auto& u : db->users().Users()) all.emplace_back(u.rid, UserJson(*db, u));
  return QueryResources(s, ctx, "Users", db->rid(), all);
}

namespace {

Result WriteUser(Services& s, RequestContext& ctx, bool upsert) {
  auto db = ResolveDatabase(s, ctx.Param("db"));
  json::Document body = ParseObjectBody(ctx.body());
  ValidateId(body);
  const std::string id = IdOf(body);
  const int64_t ts = s.clock.UnixSeconds();
  Result r;
  r.charge = charge::MetadataWrite();
  MetadataWrite([&] {
    if (upsert && db->users().FindUser(id)) {
      store::User u{id, "", s.account.NewEtag(ts), ts};
      db->users().ReplaceUser(id, u, std::nullopt);
      r.status = 200;
    } else {
      store::User u{id, store::UserRid(db->rid(), db->users().NextUserNumber()), s.account.NewEtag(ts), ts};
      db->users().CreateUser(u);
      r.status = 201;
    }
    return 0;
  });
  auto u = ResolveUser(*db, id);
  r.body = UserJson(*db, u);
  r.headers.emplace_back(headers::kETag, u.etag);
  return r;
}

}  // namespace

Result CreateUser(Services& s, RequestContext& ctx) { return WriteUser(s, ctx, false); }
Result UpsertUser(Services& s, RequestContext& ctx) { return WriteUser(s, ctx, true); }

Result ListUsers(Services& s, RequestContext& ctx) {
  auto db = ResolveDatabase(s, ctx.Param("db"));
  std::vector<std::string> items;
  for (const auto& u : db->users().Users()) items.push_back(UserJson(*db, u));
  Result r;
  r.body = FeedJson(db->rid(), "Users", Page(ctx, std::move(items), r));
  r.charge = charge::MetadataRead();
  return r;
}

Result ReadUser(Services& s, RequestContext& ctx) {
  auto db = ResolveDatabase(s, ctx.Param("db"));
  auto u = ResolveUser(*db, ctx.Param("user"));
  Result r;
  r.body = UserJson(*db, u);
  r.headers.emplace_back(headers::kETag, u.etag);
  r.charge = charge::MetadataRead();
  return r;
}

Result ReplaceUser(Services& s, RequestContext& ctx) {
  auto db = ResolveDatabase(s, ctx.Param("db"));
  ResolveUser(*db, ctx.Param("user"));
  json::Document body = ParseObjectBody(ctx.body());
  ValidateId(body);
  // The body's id may differ: a replace renames the user (its rid and permissions stay).
  const std::string id = IdOf(body);
  const int64_t ts = s.clock.UnixSeconds();
  MetadataWrite([&] {
    db->users().ReplaceUser(ctx.Param("user"), store::User{id, "", s.account.NewEtag(ts), ts}, IfMatchHeader(ctx));
    return 0;
  });
  auto u = ResolveUser(*db, id);
  Result r;
  r.body = UserJson(*db, u);
  r.headers.emplace_back(headers::kETag, u.etag);
  r.charge = charge::MetadataWrite();
  return r;
}

Result DeleteUser(Services& s, RequestContext& ctx) {
  auto db = ResolveDatabase(s, ctx.Param("db"));
  if (!db->users().DeleteUser(ctx.Param("user"))) throw MetadataNotFound();
  Result r;
  r.status = 204;
  r.charge = charge::MetadataWrite();
  return r;
}

// ---- permissions ----

Result QueryPermissions(Services& s, RequestContext& ctx) {
  auto db = ResolveDatabase(s, ctx.Param("db"));
  auto u = ResolveUser(*db, ctx.Param("user"));
  const int64_t lifetime = ExpirySeconds(ctx);
  std::vector<std::pair<std::string, std::string>> all;
  for (const auto& p : db->users().Permissions(u.id).value_or(std::vector<store::PermissionPtr>{}))
    all.emplace_back(p->rid, PermissionJson(s, *db, u, *p, lifetime));
  return QueryResources(s, ctx, "Permissions", u.rid, all);
}

namespace {

Result WritePermission(Services& s, RequestContext& ctx, bool upsert) {
  auto db = ResolveDatabase(s, ctx.Param("db"));
  auto u = ResolveUser(*db, ctx.Param("user"));
  const int64_t lifetime = ExpirySeconds(ctx);
  json::Document body = ParseObjectBody(ctx.body());
  store::Permission p = PermissionFromBody(s, *db, body);
  const std::string id = p.id;
  int status = 201;
  MetadataWrite([&] {
    auto existing = upsert ? db->users().FindPermission(u.id, id) : nullptr;
    if (existing) {
      db->users().ReplacePermission(u.id, id, Stamp(s, std::move(p), existing->rid), std::nullopt);
      status = 200;
    } else {
      db->users().CreatePermission(
          u.id, Stamp(s, std::move(p), store::PermissionRid(u.rid, db->users().NextPermissionNumber())));
    }
    return 0;
  });
  auto stored = db->users().FindPermission(u.id, id);
  if (!stored) throw MetadataNotFound();  // removed in between
  return PermissionResult(s, *db, u, *stored, lifetime, status, charge::MetadataWrite());
}

}  // namespace

Result CreatePermission(Services& s, RequestContext& ctx) { return WritePermission(s, ctx, false); }
Result UpsertPermission(Services& s, RequestContext& ctx) { return WritePermission(s, ctx, true); }

Result ListPermissions(Services& s, RequestContext& ctx) {
  auto db = ResolveDatabase(s, ctx.Param("db"));
  auto u = ResolveUser(*db, ctx.Param("user"));
  const int64_t lifetime = ExpirySeconds(ctx);
  std::vector<std::string> items;
  // Every listed permission carries a new token.
  for (const auto& p : db->users().Permissions(u.id).value_or(std::vector<store::PermissionPtr>{}))
    items.push_back(PermissionJson(s, *db, u, *p, lifetime));
  Result r;
  r.body = FeedJson(u.rid, "Permissions", Page(ctx, std::move(items), r));
  r.charge = charge::MetadataRead();
  return r;
}

Result ReadPermission(Services& s, RequestContext& ctx) {
  auto db = ResolveDatabase(s, ctx.Param("db"));
  auto u = ResolveUser(*db, ctx.Param("user"));
  const int64_t lifetime = ExpirySeconds(ctx);
  auto p = db->users().FindPermission(u.id, ctx.Param("id"));
  if (!p) throw MetadataNotFound();
  return PermissionResult(s, *db, u, *p, lifetime, 200, charge::MetadataRead());
}

Result ReplacePermission(Services& s, RequestContext& ctx) {
  auto db = ResolveDatabase(s, ctx.Param("db"));
  auto u = ResolveUser(*db, ctx.Param("user"));
  const int64_t lifetime = ExpirySeconds(ctx);
  auto existing = db->users().FindPermission(u.id, ctx.Param("id"));
  if (!existing) throw MetadataNotFound();
  json::Document body = ParseObjectBody(ctx.body());
  // The body's id may differ: a replace renames the permission.
  store::Permission p = PermissionFromBody(s, *db, body);
  const std::string id = p.id;
  MetadataWrite([&] {
    db->users().ReplacePermission(u.id, ctx.Param("id"), Stamp(s, std::move(p), existing->rid), IfMatchHeader(ctx));
    return 0;
  });
  auto stored = db->users().FindPermission(u.id, id);
  if (!stored) throw MetadataNotFound();
  return PermissionResult(s, *db, u, *stored, lifetime, 200, charge::MetadataWrite());
}

Result DeletePermission(Services& s, RequestContext& ctx) {
  auto db = ResolveDatabase(s, ctx.Param("db"));
  auto u = ResolveUser(*db, ctx.Param("user"));
  if (!db->users().DeletePermission(u.id, ctx.Param("id"))) throw MetadataNotFound();
  Result r;
  r.status = 204;
  r.charge = charge::MetadataWrite();
  return r;
}

}  // namespace cosmos::handlers
