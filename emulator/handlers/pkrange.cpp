// /dbs/{db}/colls/{coll}/pkranges: the partition key ranges SDKs route by.
#include "charge/charge.h"
#include "handlers/common.h"
#include "handlers/handlers.h"
#include "http/headers.h"
#include "util/util.h"

namespace cosmos::handlers {

Result ListPartitionKeyRanges(Services& s, RequestContext& ctx) {
  auto c = ResolveContainer(s, ctx);
  // The layout changes when a range is split: the feed's etag is the container's until the first
  // split, then the last split's. A client that names the etag it has (If-None-Match, with A-IM:
  // Incremental feed) gets 304 until then. Otherwise the feed lists the live ranges, each with the
  // ranges it was split from; a range that was split is no longer listed (clients drop the ranges
  // a child names as parents, and a listing that held both would overlap).
  const std::string etag = c->ranges_etag();
  Result r;
  r.headers.emplace_back(headers::kETag, etag);
  r.charge = charge::MetadataRead();
  if (auto inm = ctx.Header(headers::kIfNoneMatch); inm && ctx.Header(headers::kAIm) && *inm == etag) {
    r.status = 304;
    return r;
  }
  std::vector<std::string> items;
  const auto parts = c->partitions();
  for (const auto* p : parts) {
    json::Document d;
    auto& a = d.GetAllocator();
    d.SetObject();
    const std::string rid = c->RangeRid(p->range_id());
    d.AddMember("_rid", json::Value(rid.c_str(), a), a);
    d.AddMember("id", json::Value(p->range_id().c_str(), a), a);
    d.AddMember("_etag", json::Value(etag.c_str(), a), a);
    d.AddMember("minInclusive", json::Value(p->min_epk().c_str(), a), a);
    d.AddMember("maxExclusive", json::Value(p->max_epk().c_str(), a), a);
    d.AddMember("ridPrefix", util::ParseInteger<int>(p->range_id()).value_or(0), a);
    d.AddMember("_self", json::Value((c->self() + "pkranges/" + rid + "/").c_str(), a), a);
    d.AddMember("throughputFraction", 1.0 / static_cast<double>(parts.size()), a);
    d.AddMember("status", "online", a);
    json::Value parents(rapidjson::kArrayType);
    for (const auto& id : p->parents()) parents.PushBack(json::Value(id.c_str(), a), a);
    d.AddMember("parents", parents, a);
    d.AddMember("ownedArchivalPKRangeIds", json::Value(rapidjson::kArrayType), a);
    d.AddMember("_ts", p->created_ts(), a);
    d.AddMember("lsn", p->lsn(), a);
    items.push_back(json::Write(d));
  }
  r.body = FeedJson(c->rid(), "PartitionKeyRanges", items);
  r.headers.emplace_back(headers::kItemCount, std::to_string(items.size()));
  return r;
}

}  // namespace cosmos::handlers
