// /dbs and /dbs/{db}
#include "charge/charge.h"
#include "common/errors.h"
#include "handlers/common.h"
#include "handlers/handlers.h"
#include "http/headers.h"

namespace cosmos::handlers {

Result CreateDatabase(Services& s, RequestContext& ctx) {
  json::Document body = ParseObjectBody(ctx.body());
  ValidateId(body);
  auto throughput = ThroughputFromHeaders(ctx);
  Result r;
  try {
    auto db = s.account.CreateDatabase(IdOf(body), throughput);
    r.status = 201;
    r.body = db->ToJson();
    r.headers.emplace_back(headers::kETag, db->etag());
  } catch (CosmosError& e) {
    e.charge = charge::RejectedWrite();
    throw;
  }
  r.charge = charge::MetadataWrite();
  return r;
}

Result ListDatabases(Services& s, RequestContext& ctx) {
  std::vector<std::string> items;
  for (auto& db : s.account.Databases()) items.push_back(db->ToJson());
  Result r;
  r.body = FeedJson("", "Databases", Page(ctx, std::move(items), r));
  r.charge = charge::MetadataRead();
  return r;
}

Result QueryDatabases(Services& s, RequestContext& ctx) {
  std::vector<std::pair<std::string, std::string>> all;
  for (auto& db : s.account.Databases()) all.emplace_back(db->rid(), db->ToJson());
  return QueryResources(s, ctx, "Databases", "", all);
}

Result ReadDatabase(Services& s, RequestContext& ctx) {
  auto db = ResolveDatabase(s, ctx.Param("db"));  // a 404 is charged as a metadata lookup
  Result r;
  r.body = db->ToJson();
  r.headers.emplace_back(headers::kETag, db->etag());
  r.charge = charge::MetadataRead();
  return r;
}

Result DeleteDatabase(Services& s, RequestContext& ctx) {
  if (!s.account.DeleteDatabase(ctx.Param("db"))) throw MetadataNotFound();
  Result r;
  r.status = 204;
  r.charge = charge::MetadataWrite();
  return r;
}

}  // namespace cosmos::handlers
