#include "handlers/common.h"

#include <algorithm>
#include <charconv>
#include <iterator>

#include "charge/charge.h"
#include "common/errors.h"
#include "util/util.h"

namespace cosmos::handlers {

CosmosError MetadataNotFound() {
  auto e = errors::NotFound();
  e.charge = charge::MetadataNotFound();
  return e;
}

store::DatabasePtr ResolveDatabase(http::Services& s, const std::string& id) {
  auto db = s.account.FindDatabase(id);
  if (!db) throw MetadataNotFound();
  return db;
}

store::ContainerPtr ResolveContainer(http::Services& s, const std::string& db, const std::string& coll) {
  auto c = ResolveDatabase(s, db)->FindContainer(coll);
  if (!c) throw MetadataNotFound();
  return c;
}

json::Document ParseBody(const std::string& body) {
  json::Document d;
  switch (json::Parse(body, d)) {
    case json::ParseStatus::kTooDeep:
      throw errors::NestingTooDeep();
    case json::ParseStatus::kMalformed:
      throw errors::MalformedPayload();
    case json::ParseStatus::kOk:
      break;
  }
  return d;
}

json::Document ParseObjectBody(const std::string& body) {
  json::Document d = ParseBody(body);
  if (!d.IsObject()) throw errors::MalformedPayload();
  return d;
}

std::optional<std::optional<size_t>> MaxItemCount(const http::RequestContext& ctx) {
  auto h = ctx.Header("x-ms-max-item-count");
  if (!h) return std::nullopt;
  long long v = 0;
  auto res = std::from_chars(h->data(), h->data() + h->size(), v);
  if (res.ec != std::errc() || res.ptr != h->data() + h->size() || v == 0 || v < -1)
    throw errors::BadRequest("Invalid value for the x-ms-max-item-count header: '" + std::string(*h) + "'.");
  if (v == -1) return std::optional<size_t>();
  return std::optional<size_t>(static_cast<size_t>(v));
}

std::string IdOf(const json::Value& doc) {
  auto it = doc.FindMember("id");
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

void ValidateId(const json::Value& doc, IdKind kind) {
  auto it = doc.FindMember("id");
  if (it == doc.MemberEnd() || it->value.IsNull()) throw errors::MissingId();
  if (!it->value.IsString())
    throw errors::BadRequest("The input content is invalid because the property 'id' must be a string.");
  std::string id(it->value.GetString(), it->value.GetStringLength());
  if (id.empty()) throw errors::InvalidId(id);
  if (kind == IdKind::kItem) {
    if (id.size() > 1023) throw errors::IdTooLong(1023, "bytes");
  } else {
    size_t chars = 0;  // UTF-8 code points
    for (unsigned char c : id) chars += (c & 0xC0) != 0x80;
    if (chars > 255) throw errors::IdTooLong(255, "characters");
  }
  if (id.find_first_of("/\\?#") != std::string::npos) throw errors::InvalidId(id);
}

std::string FeedJson(const std::string& rid, const char* key, const std::vector<std::string>& items) {
  std::string out = "{\"_rid\":";
  json::WriteString(out, rid);
  out += ",\"";
  out += key;
  out += "\":[";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out.push_back(',');
    out += items[i];
  }
  out += "],\"_count\":";
  out += std::to_string(items.size());
  out += "}";
  return out;
}

std::vector<std::string> Page(const http::RequestContext& ctx, std::vector<std::string> all, http::Result& r) {
  const size_t max_items = MaxItemCount(ctx).value_or(std::nullopt).value_or(all.size());
  size_t start = 0;
  if (auto h = ctx.Header("x-ms-continuation"); h && !h->empty()) {
    auto res = std::from_chars(h->data(), h->data() + h->size(), start);
    if (res.ec != std::errc() || res.ptr != h->data() + h->size() || start > all.size())
      throw CosmosError(400, 0, "BadRequest", "Invalid Continuation Token");
  }
  size_t end = std::min(all.size(), start + max_items);
  if (end < all.size()) r.headers.emplace_back("x-ms-continuation", std::to_string(end));
  std::vector<std::string> out(std::make_move_iterator(all.begin() + static_cast<std::ptrdiff_t>(start)),
                               std::make_move_iterator(all.begin() + static_cast<std::ptrdiff_t>(end)));
  r.headers.emplace_back("x-ms-item-count", std::to_string(out.size()));
  return out;
}

std::optional<int> ThroughputFromHeaders(const http::RequestContext& ctx) {
  if (auto h = ctx.Header("x-ms-offer-throughput")) {
    int v = 0;
    auto r = std::from_chars(h->data(), h->data() + h->size(), v);
    if (r.ec != std::errc() || r.ptr != h->data() + h->size())
      throw errors::BadRequest("The x-ms-offer-throughput header must be an integer.");
    if (v < 400 || v % 100 != 0)
      throw errors::BadRequest("The offer throughput " + std::string(*h) +
                               " is invalid: it must be at least 400 RU/s and a multiple of 100.");
    if (v > 1000000) throw errors::BadRequest("The offer throughput exceeds the maximum of 1000000 RU/s.");
    return v;
  }
  if (auto h = ctx.Header("x-ms-cosmos-offer-autopilot-settings")) {
    json::Document d;
    if (json::Parse(*h, d) != json::ParseStatus::kOk || !d.IsObject() || !d.HasMember("maxThroughput") ||
        !d["maxThroughput"].IsInt())
      throw errors::BadRequest("The x-ms-cosmos-offer-autopilot-settings header must be {\"maxThroughput\":N}.");
    int v = d["maxThroughput"].GetInt();
    if (v < 1000 || v % 1000 != 0)
      throw errors::BadRequest("The autoscale maximum throughput must be at least 1000 RU/s and a multiple of 1000.");
    return v;
  }
  return std::nullopt;
}

// Headers every item response carries: session token and the container it belongs to.
void ItemHeaders(http::Result& r, const http::RequestContext& ctx, const store::Container& c, const store::PhysicalPartition& p,
                 uint64_t lsn) {
  r.headers.emplace_back("x-ms-session-token", p.range_id() + ":-1#" + std::to_string(lsn));
  r.headers.emplace_back("x-ms-content-path", c.rid());
  r.headers.emplace_back("x-ms-alt-content-path", "dbs/" + ctx.seg(1) + "/colls/" + ctx.seg(3));
  r.headers.emplace_back("x-ms-documentdb-partitionkeyrangeid", p.range_id());
  r.headers.emplace_back("lsn", std::to_string(lsn));
}

store::PartitionKeyValue HeaderKey(const http::RequestContext& ctx, const store::Container& c) {
  auto h = ctx.Header("x-ms-documentdb-partitionkey");
  if (!h) {
    if (c.partition_key().system_key) return store::ParsePartitionKeyHeader(c.partition_key(), "[]");
    throw errors::PartitionKeyComponents();
  }
  return store::ParsePartitionKeyHeader(c.partition_key(), *h);
}

// Strong and Bounded Staleness reads cost double: the account's level, unless the request weakens it.
charge::Consistency ReadConsistency(const http::Services& s, const http::RequestContext& ctx) {
  std::string_view level = s.config.consistency;
  if (auto h = ctx.Header("x-ms-consistency-level")) level = *h;
  return util::EqualsIgnoreCase(level, "Strong") || util::EqualsIgnoreCase(level, "BoundedStaleness")
             ? charge::Consistency::kStrong
             : charge::Consistency::kWeak;
}

}  // namespace cosmos::handlers
