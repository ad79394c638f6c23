// Partition splits (docs/faults.md, "Splits"): on demand through the emulator's endpoint, and when
// a container's throughput grows past what its ranges serve (10,000 RU/s each).
#include "common/errors.h"
#include "handlers/common.h"
#include "handlers/handlers.h"
#include "json/json.h"
#include "util/util.h"

namespace cosmos::handlers {
namespace {

constexpr int kRuPerRange = 10000;

store::RangeSplit Split(Services& s, store::Container& c, const std::string& range) {
  const int64_t ts = s.clock.UnixSeconds();
  auto made = c.SplitRange(range, ts, s.account.NewEtag(ts));
  if (!made)
    throw CosmosError(404, 0, "NotFound",
                      errors::Wrap("The container has no live partition key range '" + range + "'."));
  return *made;
}

}  // namespace

std::string SplitContainer(Services& s, const std::string& db, const std::string& coll, const std::string& body) {
  auto c = ResolveContainer(s, db, coll);
  std::vector<std::string> targets;
  if (!util::Trim(body).empty()) {
    json::Document d;
    if (json::Parse(body, d) != json::ParseStatus::kOk || !d.IsObject())
      throw errors::BadRequest(
          "The body must be a JSON object: {\"partitionKeyRangeId\": \"<id>\"} splits that range, {} every range.");
    for (auto& m : d.GetObject()) {
      if (std::string_view(m.name.GetString()) != "partitionKeyRangeId")
        throw errors::BadRequest("Unknown property '" + std::string(m.name.GetString()) +
                                 "': the body may only name partitionKeyRangeId.");
      if (!m.value.IsString() || m.value.GetStringLength() == 0)
        throw errors::BadRequest("partitionKeyRangeId must be a non-empty string.");
      targets.emplace_back(m.value.GetString(), m.value.GetStringLength());
    }
  }
  if (targets.empty()) {
    for (const auto* p : c->partitions()) targets.push_back(p->range_id());
    if (c->partition_count() + targets.size() > store::Container::kMaxRanges)
      throw errors::BadRequest("Splitting every range would give the container more than " +
                               std::to_string(store::Container::kMaxRanges) +
                               " partition key ranges, the most the emulator splits to.");
  }
  std::string out = "{\"splits\":[";
  for (size_t i = 0; i < targets.size(); ++i) {
    const auto made = Split(s, *c, targets[i]);
    if (i) out += ',';
    out += "{\"parent\":" + json::Quote(made.parent) + ",\"children\":[" + json::Quote(made.left) + "," +
           json::Quote(made.right) + "],\"at\":" + json::Quote(made.at) + "}";
  }
  out += "],\"partitionKeyRanges\":[";
  bool first = true;
  for (const auto* p : c->partitions()) {
    if (!first) out += ',';
    first = false;
    out += "{\"id\":" + json::Quote(p->range_id()) + ",\"minInclusive\":" + json::Quote(p->min_epk()) +
           ",\"maxExclusive\":" + json::Quote(p->max_epk()) + ",\"parents\":[";
    for (size_t i = 0; i < p->parents().size(); ++i) out += (i ? "," : "") + json::Quote(p->parents()[i]);
    out += "]}";
  }
  return out + "]}";
}

size_t SplitForThroughput(Services& s, store::Container& c, const store::Throughput& t) {
  const size_t wanted = std::min<size_t>(store::Container::kMaxRanges,
                                         static_cast<size_t>((t.ru + kRuPerRange - 1) / kRuPerRange));
  size_t made = 0;
  while (c.partition_count() < wanted) {
    // The widest range first (the fewest splits behind it), the first in range order among equals.
    const store::PhysicalPartition* widest = nullptr;
    for (const auto* p : c.partitions()) {
      if (!widest || p->parents().size() < widest->parents().size()) widest = p;
    }
    Split(s, c, widest->range_id());
    ++made;
  }
  return made;
}

}  // namespace cosmos::handlers
