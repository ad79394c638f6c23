#include "stats/report.h"

#include <algorithm>

#include "charge/charge.h"
#include "json/json.h"

namespace cosmos::stats {

void Report::Tally::Add(const Usage& u, double charge, int status) {
  ++requests;
  if (u.first_page) ++executions;
  if (status == 429) ++throttled;
  else if (status >= 400) ++failed;
  if (u.injected) ++injected;
  total += charge;
  max = std::max(max, charge);
  for (auto* p : u.partitions) {
    ranges.insert(p->range_id());
    if (u.by_range) ranges_by_range.insert(p->range_id());
  }
  max_partitions = std::max(max_partitions, u.partitions.size());
  if (u.container && u.addressed == u.container->partition_count()) addressed_all = true;
}

void Report::Tally::Merge(const Tally& o) {
  requests += o.requests;
  executions += o.executions;
  throttled += o.throttled;
  failed += o.failed;
  injected += o.injected;
  total += o.total;
  max = std::max(max, o.max);
  ranges.insert(o.ranges.begin(), o.ranges.end());
  ranges_by_range.insert(o.ranges_by_range.begin(), o.ranges_by_range.end());
  max_partitions = std::max(max_partitions, o.max_partitions);
  addressed_all = addressed_all || o.addressed_all;
}

// A shape fans out when one request went to every partition, or when requests addressed by range
// id (how SDKs that run the query plan fan out) covered every partition between them. Point
// queries that happen to hit every range over many keys do not.
bool Report::Tally::FannedOut(size_t partitions) const {
  return partitions > 1 && (addressed_all || ranges_by_range.size() == partitions);
}

void Report::Record(const Usage& u, double charge, int status) {
  if (!u.container) return;
  std::string warning;
  {
    std::lock_guard lock(mu_);
    const std::string& rid = u.container->rid();
    auto [it, inserted] = by_rid_.try_emplace(rid);
    if (inserted) order_.push_back(rid);
    ContainerStats& cs = it->second;
    cs.database = u.database;
    cs.container = u.container->id();
    cs.partitions = u.container->partition_count();
    cs.all.Add(u, charge, status);
    cs.operations[u.operation].Add(u, charge, status);
    for (auto* p : u.partitions) {
      auto& share = cs.partition_shares[p->range_id()];
      ++share.requests;
      share.total += charge / static_cast<double>(u.partitions.size());
    }
    if (!u.query.empty()) {
      if (cs.queries.size() >= kMaxShapes && !cs.queries.count(u.query)) {
        // Full: the shape that cost least so far joins the rest (never the rest itself).
        auto least = cs.queries.end();
        for (auto q = cs.queries.begin(); q != cs.queries.end(); ++q) {
          if (q->first == kOtherShapes) continue;
          if (least == cs.queries.end() || q->second.total < least->second.total ||
              (q->second.total == least->second.total && q->second.requests < least->second.requests))
            least = q;
        }
        Tally folded = std::move(least->second);
        cs.queries.erase(least);
        cs.queries[kOtherShapes].Merge(folded);
      }
      Tally& q = cs.queries[u.query];
      q.Add(u, charge, status);
      if (q.FannedOut(cs.partitions) && cs.warned.insert(u.query).second) {
        warning = "warning: query fans out to all " + std::to_string(cs.partitions) + " physical partitions of " +
                  u.database + "/" + cs.container + ": " + u.query;
      }
    }
  }
  if (!warning.empty() && warn_) warn_(warning);
}

namespace {

// Range ids in numeric order ("2" before "10").
bool RangeIdLess(const std::string& x, const std::string& y) {
  return x.size() != y.size() ? x.size() < y.size() : x < y;
}

void WriteTally(json::Value& out, const char* key_name, const std::string& key, const auto& t, size_t partitions,
                json::Allocator& a) {
  out.SetObject();
  if (key_name) out.AddMember(json::Value(key_name, a), json::Value(key.c_str(), a), a);
  out.AddMember("requests", static_cast<uint64_t>(t.requests), a);
  out.AddMember("executions", static_cast<uint64_t>(t.executions), a);
  out.AddMember("totalRU", charge::Round2(t.total), a);
  out.AddMember("meanRU", t.requests ? charge::Round2(t.total / static_cast<double>(t.requests)) : 0.0, a);
  out.AddMember("maxRU", charge::Round2(t.max), a);
  out.AddMember("throttled", static_cast<uint64_t>(t.throttled), a);
  out.AddMember("failed", static_cast<uint64_t>(t.failed), a);
  out.AddMember("injectedFaults", static_cast<uint64_t>(t.injected), a);
  json::Value ranges(rapidjson::kArrayType);
  std::vector<std::string> ids(t.ranges.begin(), t.ranges.end());
  std::sort(ids.begin(), ids.end(), RangeIdLess);
  for (auto& id : ids) ranges.PushBack(json::Value(id.c_str(), a), a);
  out.AddMember("partitionsTouched", ranges, a);
  out.AddMember("maxPartitionsPerRequest", static_cast<uint64_t>(t.max_partitions), a);
  out.AddMember("fanOutToAllPartitions", t.FannedOut(partitions), a);
}

}  // namespace

std::string Report::ToJson() const {
  std::lock_guard lock(mu_);
  json::Document d;
  auto& a = d.GetAllocator();
  d.SetObject();
  json::Value containers(rapidjson::kArrayType);
  for (const auto& rid : order_) {
    const ContainerStats& cs = by_rid_.at(rid);
    json::Value c(rapidjson::kObjectType);
    c.AddMember("database", json::Value(cs.database.c_str(), a), a);
    c.AddMember("container", json::Value(cs.container.c_str(), a), a);
    c.AddMember("_rid", json::Value(rid.c_str(), a), a);
    c.AddMember("physicalPartitions", static_cast<uint64_t>(cs.partitions), a);
    json::Value total;
    WriteTally(total, nullptr, "", cs.all, cs.partitions, a);
    c.AddMember("total", total, a);
    // "operations" and "queries": one entry per key, named by `key_name`.
    auto tallies = [&](const char* member, const char* key_name, const auto& by_key) {
      json::Value list(rapidjson::kArrayType);
      for (const auto& [key, t] : by_key) {
        json::Value entry;
        WriteTally(entry, key_name, key, t, cs.partitions, a);
        list.PushBack(entry, a);
      }
      c.AddMember(json::Value(member, a), list, a);
    };
    tallies("operations", "operation", cs.operations);
    tallies("queries", "query", cs.queries);
    std::vector<std::string> ids;
    for (const auto& [id, share] : cs.partition_shares) ids.push_back(id);
    std::sort(ids.begin(), ids.end(), RangeIdLess);
    json::Value partitions(rapidjson::kArrayType);
    for (const auto& id : ids) {
      const auto& share = cs.partition_shares.at(id);
      json::Value entry(rapidjson::kObjectType);
      entry.AddMember("id", json::Value(id.c_str(), a), a);
      entry.AddMember("requests", share.requests, a);
      entry.AddMember("totalRU", charge::Round2(share.total), a);
      partitions.PushBack(entry, a);
    }
    c.AddMember("partitions", partitions, a);
    containers.PushBack(c, a);
  }
  d.AddMember("containers", containers, a);
  return json::Write(d);
}

void Report::ForgetDatabase(const std::string& database) {
  std::lock_guard lock(mu_);
  std::erase_if(order_, [&](const std::string& rid) {
    auto it = by_rid_.find(rid);
    if (it == by_rid_.end() || it->second.database != database) return false;
    by_rid_.erase(it);
    return true;
  });
}

void Report::ForgetContainer(const std::string& database, const std::string& container) {
  std::lock_guard lock(mu_);
  std::erase_if(order_, [&](const std::string& rid) {
    auto it = by_rid_.find(rid);
    if (it == by_rid_.end() || it->second.database != database || it->second.container != container) return false;
    by_rid_.erase(it);
    return true;
  });
}

void Report::Reset() {
  std::lock_guard lock(mu_);
  order_.clear();
  by_rid_.clear();
}

}  // namespace cosmos::stats
