// GET /dbs/{db}/colls/{coll}/docs with A-IM: the change feed, in latest-version mode
// ("Incremental Feed") or all-versions-and-deletes mode ("Full-Fidelity Feed").
//
// A request reads one partition key range, an EPK range inside it, one logical partition, or (with
// no routing header) every range. It starts from the beginning (no precondition), from now
// (If-None-Match: *), from a time (If-Modified-Since) or from a continuation (If-None-Match: the
// etag of an earlier response). The etag is the LSN the next page continues after: "<lsn>" for one
// range, "<range>:<lsn>,..." for a request that read several. Nothing new: 304 with the etag.
// After a split, a continuation that names the parent serves its children (they keep its LSNs).
#include <map>
#include <set>

#include "charge/charge.h"
#include "common/errors.h"
#include "handlers/common.h"
#include "handlers/handlers.h"
#include "http/headers.h"
#include "util/clock.h"
#include "util/util.h"

namespace cosmos::handlers {
namespace {

enum class Mode { kLatestVersion, kAllVersionsAndDeletes };

constexpr std::string_view kWireFormat = "2021-09-15";

Mode ModeOf(const RequestContext& ctx) {
  std::string_view aim = *ctx.Header(headers::kAIm);
  if (util::EqualsIgnoreCase(aim, "Incremental Feed")) return Mode::kLatestVersion;
  if (util::EqualsIgnoreCase(aim, "Full-Fidelity Feed")) {
    auto wire = ctx.Header(headers::kChangeFeedWireFormatVersion);
    if (wire && *wire != kWireFormat)
      throw errors::BadRequest("The change feed wire format version '" + std::string(*wire) +
                               "' is not supported; use " + std::string(kWireFormat) + ".");
    return Mode::kAllVersionsAndDeletes;
  }
  throw errors::BadRequest("The A-IM header value '" + std::string(aim) +
                           "' is not supported: use 'Incremental Feed' or 'Full-Fidelity Feed'.");
}

CosmosError InvalidContinuation(std::string_view token) {
  return errors::BadRequest("The change feed continuation (If-None-Match) '" + std::string(token) + "' is invalid.");
}

// Where each partition starts: after this LSN.
std::vector<uint64_t> StartPositions(const RequestContext& ctx, const std::vector<store::PhysicalPartition*>& parts,
                                     Mode mode) {
  std::vector<uint64_t> start(parts.size(), 0);
  auto inm = ctx.Header(headers::kIfNoneMatch);
  if (inm && *inm == "*") {  // from now
    for (size_t i = 0; i < parts.size(); ++i) start[i] = parts[i]->lsn();
    return start;
  }
  if (inm && !inm->empty()) {  // a continuation, the etag verbatim (quoted or not)
    std::string_view token = *inm;
    if (token.size() >= 2 && token.front() == '"' && token.back() == '"') token = token.substr(1, token.size() - 2);
    std::map<std::string_view, uint64_t> by_range;
    if (auto lsn = util::ParseInteger<uint64_t>(token)) {
      if (parts.size() != 1) throw InvalidContinuation(*inm);
      by_range[parts[0]->range_id()] = *lsn;
    } else {
      // "<range>:<lsn>" entries joined by commas: none empty, no range twice.
      for (size_t from = 0;;) {
        auto comma = token.find(',', from);
        auto entry = token.substr(from, comma == std::string_view::npos ? std::string_view::npos : comma - from);
        auto colon = entry.find(':');
        auto lsn = colon == std::string_view::npos ? std::nullopt : util::ParseInteger<uint64_t>(entry.substr(colon + 1));
        if (!lsn || !by_range.emplace(entry.substr(0, colon), *lsn).second) throw InvalidContinuation(*inm);
        if (comma == std::string_view::npos) break;
        from = comma + 1;
      }
    }
    // Each range resumes from its own entry or, when the token was made before a split, from the
    // entry of the nearest range it was split from (it carries that range's LSNs). Every entry must
    // serve a range.
    std::set<std::string_view> used;
    for (size_t i = 0; i < parts.size(); ++i) {
      auto it = by_range.find(parts[i]->range_id());
      const auto& parents = parts[i]->parents();
      for (auto p = parents.rbegin(); it == by_range.end() && p != parents.rend(); ++p) it = by_range.find(*p);
      // A position past the range's last write was never handed out by this container.
      if (it == by_range.end() || it->second > parts[i]->lsn()) throw InvalidContinuation(*inm);
      used.insert(it->first);
      start[i] = it->second;
    }
    if (used.size() != by_range.size()) throw InvalidContinuation(*inm);
    return start;
  }
  if (auto ims = ctx.Header(headers::kIfModifiedSince)) {  // from a point in time
    auto t = util::ParseRfc1123(*ims);
    if (!t) throw errors::BadRequest("The If-Modified-Since value '" + std::string(*ims) + "' is not an RFC 1123 date.");
    const int64_t since = *t;
    for (size_t i = 0; i < parts.size(); ++i) start[i] = parts[i]->StartLsn(since, mode == Mode::kAllVersionsAndDeletes);
    return start;
  }
  if (mode == Mode::kAllVersionsAndDeletes)
    throw errors::BadRequest(
        "The change feed in all versions and deletes mode cannot start from the beginning: start from now, a point "
        "in time or a continuation. You must read the change feed from within the retention period.");
  return start;  // from the beginning
}

// The version as the feed shows it: the stored JSON with its "_lsn".
std::string WithLsn(const store::Item& item) {
  if (item.body.HasMember("_lsn")) {  // a stored "_lsn" of the user's own gives way to the feed's
    json::Document d;
    d.CopyFrom(item.body, d.GetAllocator());
    d.EraseMember("_lsn");  // keeps the order of the others
    d.AddMember("_lsn", item.lsn, d.GetAllocator());
    return json::Write(d);
  }
  std::string out = item.Text();
  out.pop_back();  // the closing brace of the object
  out += ",\"_lsn\":" + std::to_string(item.lsn) + "}";
  return out;
}

// {"pk": value} (every level of a hierarchical key) for a delete's metadata.
std::string PartitionKeyObject(const store::Container& c, const store::Item& item) {
  const auto& def = c.partition_key();
  json::Document d;
  auto& a = d.GetAllocator();
  d.SetObject();
  for (size_t i = 0; i < def.parts.size(); ++i) {
    const json::Value* v = store::FindKeyPath(item.body, def.parts[i]);
    if (!v) continue;  // the item has no value at this path
    std::string name = def.paths[i].substr(1);
    d.AddMember(json::Value(name.c_str(), static_cast<rapidjson::SizeType>(name.size()), a), json::Value(*v, a), a);
  }
  return json::Write(d);
}

// {"current": ..., "metadata": {...}} in the 2021-09-15 wire format. A delete carries an empty
// current image and its metadata, which names the deleted item (id, partition key): the service
// keeps no previous images (the Python SDK's test_query_change_feed_all_versions_and_deletes
// expects "current": {} on a delete).
std::string AllVersionsEntry(const store::Container& c, const store::Change& ch) {
  static const char* kOperation[] = {"create", "replace", "delete"};
  std::string out = "{\"current\":";
  out += ch.current ? WithLsn(*ch.current) : std::string("{}");
  out += ",";
  out += "\"metadata\":{\"lsn\":" + std::to_string(ch.lsn) + ",\"crts\":" + std::to_string(ch.crts) +
         ",\"operationType\":\"" + kOperation[static_cast<int>(ch.kind)] + "\"";
  if (ch.previous) out += ",\"previousImageLSN\":" + std::to_string(ch.previous->lsn);
  if (ch.kind == store::ChangeKind::kDelete) {
    out += std::string(",\"timeToLiveExpired\":") + (ch.ttl_expired ? "true" : "false");
    json::Value id(ch.previous->id().data(), static_cast<rapidjson::SizeType>(ch.previous->id().size()));
    out += ",\"id\":" + json::Write(id) + ",\"partitionKey\":" + PartitionKeyObject(c, *ch.previous);
  }
  out += "}}";
  return out;
}

std::string Etag(const std::vector<store::PhysicalPartition*>& parts, const std::vector<uint64_t>& resume) {
  std::string e = "\"";
  if (parts.size() == 1) {
    e += std::to_string(resume[0]);
  } else {
    for (size_t i = 0; i < parts.size(); ++i) {
      if (i) e += ",";
      e += parts[i]->range_id() + ":" + std::to_string(resume[i]);
    }
  }
  return e + "\"";
}

}  // namespace

Result ReadChangeFeed(Services& s, RequestContext& ctx) {
  auto c = ResolveContainer(s, ctx);
  const Mode mode = ModeOf(ctx);
  Routed routed = RouteRequest(ctx, c);
  Admit(s, ctx, c, routed.partitions);
  const auto& parts = routed.partitions;
  const auto policy = c->settings()->items();
  const util::Instant now = s.clock.Now();
  // Expired items become TTL deletes (with their LSNs) before anyone reads the log.
  if (mode == Mode::kAllVersionsAndDeletes) {
    for (auto* p : parts) p->ExpireItems(now, policy, /*start_log=*/true);
  }
  std::vector<uint64_t> resume = StartPositions(ctx, parts, mode);
  const size_t max_items = MaxItemCount(ctx).value_or(100).value_or(1000);
  auto keep = [&routed](const store::Item& item) { return routed.Contains(item); };

  std::vector<std::string> docs;
  std::vector<double> kbs;
  // A page ends full, at about 4 MB, or when the page time is up (between chunks), with what it
  // has: the etag resumes after the last change it read.
  const FeedBudget budget(s, ctx);
  size_t bytes = 0;
  bool full = false;
  for (size_t i = 0; i < parts.size() && !full; ++i) {
    for (;;) {
      budget.CheckCancelled();
      const size_t chunk = std::min<size_t>(max_items - docs.size(), 32);
      std::vector<std::pair<std::string, uint64_t>> got;  // entry, its LSN
      uint64_t resume_lsn;
      if (mode == Mode::kLatestVersion) {
        auto page = parts[i]->LatestChanges(resume[i], chunk, keep, now, policy, routed.pk ? &*routed.pk : nullptr);
        for (auto& item : page.entries) got.emplace_back(WithLsn(*item), item->lsn);
        resume_lsn = page.resume_lsn;
      } else {
        auto page = parts[i]->AllChanges(resume[i], chunk, keep);
        for (auto& ch : page.entries) got.emplace_back(AllVersionsEntry(*c, ch), ch.lsn);
        resume_lsn = page.resume_lsn;
      }
      // One LSN's changes at a time (a transaction's come together, as the partition's pages
      // keep them): the etag resumes after an LSN, so a page never ends inside one.
      for (size_t j = 0; j < got.size() && !full;) {
        size_t end = j;
        size_t group_bytes = 0;
        for (; end < got.size() && got[end].second == got[j].second; ++end) group_bytes += got[end].first.size();
        if (!docs.empty() && bytes + group_bytes > FeedBudget::kPageBytes) {
          full = true;  // these changes and the ones after them wait for the next page
          break;
        }
        for (; j < end; ++j) docs.push_back(std::move(got[j].first));
        bytes += group_bytes;
        resume[i] = got[end - 1].second;
      }
      if (full) break;
      resume[i] = resume_lsn;
      if (docs.size() >= max_items || budget.TimeUp()) {
        full = true;
        break;
      }
      if (got.size() < chunk) break;  // the range is read to its end
    }
  }
  for (auto& d : docs) kbs.push_back(static_cast<double>(d.size()) / 1024.0);

  Result r;
  r.headers.emplace_back(headers::kETag, Etag(parts, resume));
  r.headers.emplace_back(headers::kItemCount, std::to_string(docs.size()));
  SessionHeaders(r, ctx, *c, parts);
  r.charge = charge::ChangeFeed(kbs, ReadConsistency(s, ctx));
  if (docs.empty()) {
    r.status = 304;
    return r;
  }
  r.body = FeedJson(c->rid(), "Documents", docs);
  return r;
}

}  // namespace cosmos::handlers
