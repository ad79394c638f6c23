// /dbs/{db}/colls/{coll}/pkranges: the partition key ranges SDKs route by.
#include "charge/charge.h"
#include "handlers/common.h"
#include "handlers/handlers.h"

namespace cosmos::handlers {

Result ListPartitionKeyRanges(Services& s, RequestContext& ctx) {
  auto c = ResolveContainer(s, ctx.Param("db"), ctx.Param("coll"));
  // The range layout only changes when a container is created, so its etag is the container's.
  const std::string etag = c->etag();
  Result r;
  r.headers.emplace_back("etag", etag);
  r.charge = charge::MetadataRead();
  if (auto inm = ctx.Header("if-none-match"); inm && ctx.Header("a-im") && *inm == etag) {
    r.status = 304;
    return r;
  }
  std::vector<std::string> items;
  const auto& parts = c->partitions();
  for (size_t i = 0; i < parts.size(); ++i) {
    json::Document d;
    auto& a = d.GetAllocator();
    d.SetObject();
    const std::string rid = c->RangeRid(i);
    d.AddMember("_rid", json::Value(rid.c_str(), a), a);
    d.AddMember("id", json::Value(parts[i]->range_id().c_str(), a), a);
    d.AddMember("_etag", json::Value(etag.c_str(), a), a);
    d.AddMember("minInclusive", json::Value(parts[i]->min_epk().c_str(), a), a);
    d.AddMember("maxExclusive", json::Value(parts[i]->max_epk().c_str(), a), a);
    d.AddMember("ridPrefix", static_cast<int>(i), a);
    d.AddMember("_self", json::Value((c->self() + "pkranges/" + rid + "/").c_str(), a), a);
    d.AddMember("throughputFraction", 1.0 / static_cast<double>(parts.size()), a);
    d.AddMember("status", "online", a);
    d.AddMember("parents", json::Value(rapidjson::kArrayType), a);
    d.AddMember("ownedArchivalPKRangeIds", json::Value(rapidjson::kArrayType), a);
    d.AddMember("_ts", c->created_ts(), a);
    d.AddMember("lsn", parts[i]->lsn(), a);
    items.push_back(json::Write(d));
  }
  r.body = FeedJson(c->rid(), "PartitionKeyRanges", items);
  r.headers.emplace_back("x-ms-item-count", std::to_string(items.size()));
  return r;
}

}  // namespace cosmos::handlers
