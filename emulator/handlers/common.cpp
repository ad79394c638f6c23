#include "handlers/common.h"

#include <algorithm>
#include <iterator>

#include "charge/charge.h"
#include "common/errors.h"
#include "http/headers.h"
#include "http/inject.h"
#include "query/executor.h"
#include "query/parse_cache.h"
#include "store/epk.h"
#include "util/clock.h"
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

store::ContainerPtr ResolveContainer(http::Services& s, const http::RequestContext& ctx) {
  auto c = ResolveContainer(s, ctx.Param("db"), ctx.Param("coll"));
  ctx.HoldRanges(c);
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
  auto h = ctx.Header(headers::kMaxItemCount);
  if (!h) return std::nullopt;
  auto v = util::ParseInteger<long long>(*h);
  if (!v || *v < -1)
    throw errors::BadRequest("Invalid value for the x-ms-max-item-count header: '" + std::string(*h) + "'.");
  // 0 is taken as no page size given: the Java SDK sends it for TOP 0 queries, which the service
  // answers (azure-cosmos-tests TopQueryTests).
  if (*v == 0) return std::nullopt;
  if (*v == -1) return std::optional<size_t>();
  return std::optional<size_t>(static_cast<size_t>(*v));
}

void CheckCrossPartitionAllowed(const http::RequestContext& ctx, const store::Container& c) {
  if (c.partition_key().system_key || ctx.BoolHeader(headers::kEnableCrossPartition)) return;
  throw CosmosError(400, 0, "BadRequest",
                    "Cross partition query is required but disabled. Please set "
                    "x-ms-documentdb-query-enablecrosspartition to true, specify x-ms-documentdb-partitionkey, or "
                    "revise your query to avoid this exception.");
}

bool ReturnsMinimal(const http::RequestContext& ctx) {
  auto prefer = ctx.Header(headers::kPrefer);
  return prefer && util::EqualsIgnoreCase(*prefer, "return=minimal");
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
  // Item ids may hold them: the service creates such items (though its gateway cannot address some
  // of them in a path afterwards: http/auth.cpp, RefuseIdsTheGatewayCannotAddress).
  if (kind != IdKind::kItem && id.find_first_of("/\\?#") != std::string::npos) throw errors::InvalidId(id);
}

FeedBudget::FeedBudget(const http::Services& s, const http::RequestContext& ctx)
    : deadline(std::chrono::steady_clock::now() + std::chrono::milliseconds(s.config.query_page_timeout_ms)),
      cancelled(ctx.cancel_flag()) {}

void FeedBudget::CheckCancelled() const {
  if (cancelled != nullptr && cancelled->load(std::memory_order_relaxed)) {
    throw CosmosError(408, 0, "RequestTimeout", errors::Wrap("The request was cancelled."));
  }
}

QueryBody ParseQueryBody(const std::string& body) {
  QueryBody q;
  if (json::Parse(body, q.doc) != json::ParseStatus::kOk) {
    q.text = body;
    return q;
  }
  if (!q.doc.IsObject()) throw errors::MalformedPayload();
  auto text = q.doc.FindMember("query");
  if (text == q.doc.MemberEnd() || !text->value.IsString()) throw errors::MalformedPayload();
  q.text.assign(text->value.GetString(), text->value.GetStringLength());
  auto params = q.doc.FindMember("parameters");
  if (params != q.doc.MemberEnd() && !params->value.IsNull()) {
    if (!params->value.IsArray()) throw errors::MalformedPayload();
    for (const auto& p : params->value.GetArray()) {
      // (MemberEnd of a value that is not an object is an assertion, so the kind is checked first.)
      const json::Value* name = nullptr;
      if (p.IsObject()) {
        auto it = p.FindMember("name");
        if (it != p.MemberEnd()) name = &it->value;
      }
      if (name == nullptr || !name->IsString() || name->GetStringLength() < 2 || name->GetString()[0] != '@') {
        throw errors::BadRequest("Invalid query parameter: every parameter needs a \"name\" starting with '@'.");
      }
    }
    q.params = &params->value;
  }
  return q;
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
  if (auto h = ctx.Header(headers::kContinuation); h && !h->empty()) {
    auto v = util::ParseInteger<size_t>(*h);
    if (!v || *v > all.size()) throw CosmosError(400, 0, "BadRequest", "Invalid Continuation Token");
    start = *v;
  }
  size_t end = std::min(all.size(), start + max_items);
  if (end < all.size()) r.headers.emplace_back(headers::kContinuation, std::to_string(end));
  std::vector<std::string> out(std::make_move_iterator(all.begin() + static_cast<std::ptrdiff_t>(start)),
                               std::make_move_iterator(all.begin() + static_cast<std::ptrdiff_t>(end)));
  r.headers.emplace_back(headers::kItemCount, std::to_string(out.size()));
  return out;
}

store::Throughput CheckedThroughput(int64_t ru, bool autoscale) {
  using Limits = store::Throughput;
  if (!autoscale) {
    if (ru < Limits::kManualMin || ru % Limits::kManualStep != 0)
      throw errors::BadRequest("The offer throughput " + std::to_string(ru) +
                               " is invalid: it must be at least 400 RU/s and a multiple of 100.");
    if (ru > Limits::kMax) throw errors::BadRequest("The offer throughput exceeds the maximum of 1000000 RU/s.");
  } else {
    if (ru < Limits::kAutoscaleMin || ru % Limits::kAutoscaleStep != 0)
      throw errors::BadRequest("The autoscale maximum throughput must be at least 1000 RU/s and a multiple of 1000.");
    if (ru > Limits::kMax)
      throw errors::BadRequest("The autoscale maximum throughput exceeds the maximum of 1000000 RU/s.");
  }
  return store::Throughput{static_cast<int>(ru), autoscale};
}

std::optional<store::Throughput> ThroughputFromHeaders(const http::RequestContext& ctx) {
  if (auto h = ctx.Header(headers::kOfferThroughput)) {
    auto parsed = util::ParseInteger<int>(*h);
    if (!parsed) throw errors::BadRequest("The x-ms-offer-throughput header must be an integer.");
    return CheckedThroughput(*parsed, false);
  }
  if (auto h = ctx.Header(headers::kOfferAutopilotSettings)) {
    json::Document d;
    if (json::Parse(*h, d) != json::ParseStatus::kOk || !d.IsObject() || !d.HasMember("maxThroughput") ||
        !d["maxThroughput"].IsInt())
      throw errors::BadRequest("The x-ms-cosmos-offer-autopilot-settings header must be {\"maxThroughput\":N}.");
    return CheckedThroughput(d["maxThroughput"].GetInt(), true);
  }
  return std::nullopt;
}

// Headers every item response carries: session token and the container it belongs to.
void ItemHeaders(http::Result& r, const http::RequestContext& ctx, const store::Container& c, const store::PhysicalPartition& p,
                 uint64_t lsn) {
  r.headers.emplace_back(headers::kSessionToken, p.range_id() + ":-1#" + std::to_string(lsn));
  r.headers.emplace_back(headers::kContentPath, c.rid());
  r.headers.emplace_back(headers::kAltContentPath, "dbs/" + ctx.Param("db") + "/colls/" + ctx.Param("coll"));
  r.headers.emplace_back(headers::kPartitionKeyRangeId, p.range_id());
  r.headers.emplace_back(headers::kLsn, std::to_string(lsn));
}

void SessionHeaders(http::Result& r, const http::RequestContext& ctx, const store::Container& c,
                    const std::vector<store::PhysicalPartition*>& parts) {
  if (parts.size() == 1) {
    ItemHeaders(r, ctx, c, *parts[0], parts[0]->lsn());
    return;
  }
  std::string token;
  for (auto* p : parts) {
    if (!token.empty()) token += ',';
    token += p->range_id() + ":-1#" + std::to_string(p->lsn());
  }
  if (!token.empty()) r.headers.emplace_back(headers::kSessionToken, token);
  r.headers.emplace_back(headers::kContentPath, c.rid());
  r.headers.emplace_back(headers::kAltContentPath, "dbs/" + ctx.Param("db") + "/colls/" + ctx.Param("coll"));
}

namespace {

CosmosError InvalidSessionToken(std::string_view token) {
  return CosmosError(400, 0, "BadRequest",
                     errors::Wrap("The session token provided '" + std::string(token) + "' is invalid."));
}

// The global LSN of one session token entry's value: "<lsn>" (the simple form), or
// "<version>#<global lsn>" optionally followed by "#<region>=<lsn>" entries.
std::optional<uint64_t> SessionLsn(std::string_view v) {
  auto hash = v.find('#');
  if (hash == std::string_view::npos) return util::ParseInteger<uint64_t>(v);
  if (!util::ParseInteger<int64_t>(v.substr(0, hash))) return std::nullopt;  // the version
  auto rest = v.substr(hash + 1);
  auto next = rest.find('#');
  auto lsn = util::ParseInteger<uint64_t>(rest.substr(0, next));
  if (!lsn) return std::nullopt;
  while (next != std::string_view::npos) {  // "#<region>=<lsn>" entries: validated, not compared
    rest = rest.substr(next + 1);
    next = rest.find('#');
    auto entry = rest.substr(0, next);
    auto eq = entry.find('=');
    if (eq == std::string_view::npos || !util::ParseInteger<int64_t>(entry.substr(0, eq)) ||
        !util::ParseInteger<int64_t>(entry.substr(eq + 1)))
      return std::nullopt;
  }
  return lsn;
}

// Session consistency. The emulator has one replica, so every committed write is visible and a
// session is always available. A token ahead of the partition is either from a deleted container
// of the same name (the SDKs key tokens by name and send them to its successor; refusing those
// would break the common delete-and-recreate test fixture) or one no write of this emulator ever
// produced: only the latter answers 404/1002, as a replica that never catches up would.
void CheckSessionToken(const http::RequestContext& ctx, const std::vector<store::PhysicalPartition*>& parts) {
  auto h = ctx.Header(headers::kSessionToken);
  if (!h || h->empty()) return;
  std::string_view all = *h;
  while (!all.empty()) {
    auto comma = all.find(',');
    auto entry = all.substr(0, comma);
    all = comma == std::string_view::npos ? std::string_view() : all.substr(comma + 1);
    auto colon = entry.find(':');
    if (colon == std::string_view::npos) throw InvalidSessionToken(*h);
    auto lsn = SessionLsn(entry.substr(colon + 1));
    if (!lsn) throw InvalidSessionToken(*h);
    auto range = entry.substr(0, colon);
    for (auto* p : parts) {
      // A token of a range that was split holds for its children, which carry on its LSNs.
      if (p->DescendsFrom(range) && *lsn > p->lsn() && *lsn > store::MaxLsnIssued())
        throw CosmosError(404, 1002, "NotFound",
                          errors::Wrap("The read session is not available for the input session token."));
    }
  }
}

}  // namespace

void Admit(http::Services& s, http::RequestContext& ctx, const store::ContainerPtr& c,
           std::vector<store::PhysicalPartition*> parts, bool check_budget) {
  auto& u = ctx.usage;
  u.container = c;
  u.database = ctx.Param("db");
  u.operation = ctx.facts().report_name;
  u.partitions = std::move(parts);
  u.addressed = u.partitions.size();
  u.by_range = ctx.scope().by_range();
  auto cont = ctx.Header(headers::kContinuation);
  u.first_page = !cont || cont->empty();
  http::InjectFault(s, ctx, u.partitions);
  const bool read = ctx.verb() == http::beast_http::verb::get || u.operation == "query";
  if (read) CheckSessionToken(ctx, u.partitions);
  if (check_budget) s.limiter.Admit(*c, u.partitions);
}

bool Routed::Contains(const store::Item& item) const {
  if (pk && item.pk() != *pk) return false;
  if (epk && !(item.epk() >= epk->first && item.epk() < epk->second)) return false;
  return true;
}

CosmosError RangeGone(std::string_view range) {
  return CosmosError(410, 1002, "Gone",
                     errors::Wrap("The partition key range '" + std::string(range) +
                                  "' is gone (it was split or never existed)."));
}

std::optional<std::string> IfMatchHeader(const http::RequestContext& ctx) {
  auto h = ctx.Header(headers::kIfMatch);
  if (!h || h->empty()) return std::nullopt;
  return std::string(*h);
}

Routed RouteRequest(const http::RequestContext& ctx, const store::ContainerPtr& c) {
  Routed r;
  const auto& def = c->partition_key();
  const auto& scope = ctx.scope();
  auto start = scope.start_epk;
  auto end = scope.end_epk;
  if ((start.has_value() != end.has_value()) || (start && !(*start < *end)))
    throw errors::BadRequest("x-ms-start-epk and x-ms-end-epk must be given together, the start below the end.");
  if (auto h = scope.partition_key) {
    store::PartitionKeyValue key = store::ParsePartitionKeyHeader(def, *h, /*allow_prefix=*/true);
    if (key.components.size() < def.paths.size()) {  // a prefix of a hierarchical key
      std::string min = store::EffectivePartitionKey(def, key);
      r.epk.emplace(min, min + std::string(store::kMaxEpk));
      r.partitions = c->PartitionsOverlapping(r.epk->first, r.epk->second);
    } else {
      r.pk = key.Canonical();
      r.partitions.push_back(&c->PartitionFor(key));
    }
  } else if (auto range = scope.range_id) {
    store::PhysicalPartition* p = c->PartitionById(*range);
    if (p == nullptr) throw RangeGone(*range);
    r.partitions.push_back(p);
    if (start && (*start > p->min_epk() || *end < p->max_epk())) r.epk.emplace(*start, *end);
  } else if (start) {
    r.epk.emplace(*start, *end);
    r.partitions = c->PartitionsOverlapping(*start, *end);
    if (r.epk->first == store::kMinEpk && r.epk->second == store::kMaxEpk) r.epk.reset();
  } else {
    r.partitions = c->partitions();
    r.all = true;
  }
  return r;
}

store::PartitionKeyValue HeaderKey(const http::RequestContext& ctx, const store::Container& c) {
  auto h = ctx.scope().partition_key;
  if (!h) {
    if (c.partition_key().system_key) return store::ParsePartitionKeyHeader(c.partition_key(), "[]");
    throw errors::PartitionKeyComponents();
  }
  return store::ParsePartitionKeyHeader(c.partition_key(), *h);
}

// Strong and Bounded Staleness reads cost double: the account's level, unless the request weakens it.
charge::Consistency ReadConsistency(const http::Services& s, const http::RequestContext& ctx) {
  std::string_view level = s.config.consistency;
  if (auto h = ctx.Header(headers::kConsistencyLevel)) level = *h;
  return util::EqualsIgnoreCase(level, "Strong") || util::EqualsIgnoreCase(level, "BoundedStaleness")
             ? charge::Consistency::kStrong
             : charge::Consistency::kWeak;
}

http::Result QueryResources(http::Services& s, http::RequestContext& ctx, const char* key, const std::string& rid,
                      const std::vector<std::pair<std::string, std::string>>& resources) {
  QueryBody body = ParseQueryBody(ctx.body());
  auto ast = query::ParseQuery(body.text);
  query::Arena constants;
  auto plan = query::Bind(*ast, body.params, constants);
  const util::Instant now = s.clock.Now();
  store::PhysicalPartition part("0", "", "FF");
  for (const auto& [id, text] : resources) {
    part.Write(store::WriteKind::kCreate, id, id, store::Preconditions{}, now, store::ItemPolicy{},
               [&, &id = id, &text = text](const store::ItemPtr&, uint64_t seq, uint64_t lsn) {
                 auto item = store::NewItem();
                 item->set_id(id);
                 item->set_pk(id);
                 if (json::Parse(text, item->Draft()) != json::ParseStatus::kOk)
                   throw errors::Internal("resource JSON did not parse");
                 item->Seal();
                 item->set_rid(id);
                 item->lsn = lsn;
                 item->seq = seq;
                 return store::ItemPtr(std::move(item));
               });
  }
  query::Scope scope;
  scope.partitions.push_back(&part);
  scope.now = now;
  query::PageRequest req;
  req.max_items = MaxItemCount(ctx).value_or(100).value_or(SIZE_MAX);
  if (auto h = ctx.Header(headers::kContinuation); h && !h->empty()) req.continuation = std::string(*h);
  req.query_text = body.text;
  req.now_ms = s.clock.UnixMs();
  query::Page page = query::ExecutePage(*plan, scope, req);
  http::Result r;
  r.body = FeedJson(rid, key, page.rows);
  r.headers.emplace_back(headers::kItemCount, std::to_string(page.rows.size()));
  if (page.continuation) r.headers.emplace_back(headers::kContinuation, *page.continuation);
  r.charge = charge::MetadataRead();
  return r;
}


}  // namespace cosmos::handlers
