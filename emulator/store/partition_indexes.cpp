// Physical partitions, their indexes: the path, composite and vector indexes a partition keeps
// (built on first use or ahead, least recently used first out), and the reads that go through them:
// lookups, walks in index order, counts and runs of equal keys. (The rest of the partition:
// partition.cpp.)
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "store/store.h"
#include "util/clock.h"
#include "util/util.h"

namespace cosmos::store {

std::shared_ptr<SecondaryIndex> PhysicalPartition::IndexOf(
    const std::string& name, const std::function<std::shared_ptr<SecondaryIndex>()>& make) const {
  std::lock_guard guard(indexes_mu_);
  const uint64_t now = ++index_clock_;
  if (auto it = indexes_.find(name); it != indexes_.end()) {
    it->second.used = now;
    return it->second.index;
  }
  // Writers are kept out by the caller's lock while the index is filled.
  auto index = make();
  index->Reserve(by_seq_.size());
  for (const auto& [seq, item] : by_seq_) index->Add(*item);
  KeepIndexLocked(name, index, now);
  return index;
}

void PhysicalPartition::KeepIndexLocked(const std::string& name, std::shared_ptr<SecondaryIndex> index,
                                        uint64_t used) const {
  if (indexes_.size() >= kMaxPathIndexes) {
    auto oldest = indexes_.begin();
    for (auto it = indexes_.begin(); it != indexes_.end(); ++it) {
      if (it->second.used < oldest->second.used) oldest = it;
    }
    indexes_.erase(oldest);  // a reader still using it keeps it alive; no writer updates it again
  }
  auto& slot = indexes_[name];
  slot.index = std::move(index);
  slot.used = used;
}

std::shared_ptr<const PathIndex> PhysicalPartition::PathIndexOf(const IndexColumns& columns) const {
  // Path names start with '.' or '#', composite ones with 'c'; vector indexes are named "v" + the
  // path's name.
  return std::static_pointer_cast<const PathIndex>(
      IndexOf(IndexName(columns), [&] { return std::make_shared<PathIndex>(columns); }));
}

std::optional<std::vector<uint64_t>> PhysicalPartition::VectorCandidates(
    const DocPath& path, const VectorQuery& q, size_t k, const std::function<bool(const Item&)>& admit, util::Instant now,
    const ItemPolicy& policy) const {
  std::shared_lock lock(mu_);
  auto index = std::static_pointer_cast<const VectorIndex>(
      IndexOf(std::string(1, 'v').append(PathName(path)), [&] { return std::make_shared<VectorIndex>(path); }));
  return index->Candidates(q, k, [&](const Item& item) {
    if (policy.default_ttl) {
      auto at = ExpiresAt(item, policy.default_ttl);
      if (at && *at <= now.ms) return false;
    }
    if (policy.indexed_only && item.unindexed) return false;
    return !admit || admit(item);
  });
}

std::optional<std::vector<uint64_t>> PhysicalPartition::IndexLookup(const DocPath& path,
                                                                    const std::vector<KeyRange>& ranges,
                                                                    size_t cap) const {
  std::shared_lock lock(mu_);
  auto seqs = PathIndexOf(path)->Lookup(ranges, cap);
  if (seqs) {
    std::sort(seqs->begin(), seqs->end());
    seqs->erase(std::unique(seqs->begin(), seqs->end()), seqs->end());
  }
  return seqs;
}

std::vector<ItemPtr> PhysicalPartition::ItemsBySeq(const std::vector<uint64_t>& seqs, size_t& next, size_t max_items,
                                                   util::Instant now, const ItemPolicy& policy) const {
  std::shared_lock lock(mu_);
  std::vector<ItemPtr> out;
  for (; next < seqs.size() && (max_items == 0 || out.size() < max_items); ++next) {
    auto it = by_seq_.find(seqs[next]);
    if (it == by_seq_.end() || !Visible(it->second, now, policy)) continue;  // gone since the lookup
    out.push_back(it->second);
  }
  return out;
}

std::vector<PhysicalPartition::IndexHit> PhysicalPartition::IndexWalk(
    const IndexColumns& columns, bool descending, const std::optional<std::pair<std::string, uint64_t>>& after,
    size_t max_items, util::Instant now, const ItemPolicy& policy, const KeyWindow* within) const {
  std::shared_lock lock(mu_);
  std::vector<IndexHit> out;
  const auto index = PathIndexOf(columns);
  const PathIndex::Set& entries = index->entries();
  // Takes the entry's item when it is live; false once the page is full.
  auto take = [&](const PathIndex::Entry& e) {
    auto it = by_seq_.find(e.seq);
    if (it != by_seq_.end() && Visible(it->second, now, policy)) out.push_back({std::string(e.key.view()), it->second});
    return out.size() < max_items;
  };
  // (Items count from 1: entry (k, 0) comes before every entry of key k.)
  const bool ends = within != nullptr && within->to.has_value();
  if (!descending) {
    auto it = after ? entries.upper_bound(PathIndex::Entry{after->first, after->second}) : entries.begin();
    if (within != nullptr && it != entries.end() && it->key.view() < within->from) {
      it = entries.lower_bound(PathIndex::Entry{within->from, 0});
    }
    for (; it != entries.end() && !(ends && it->key.view() >= *within->to); ++it) {
      if (!take(*it)) break;
    }
    return out;
  }
  // One key's run at a time, from the highest key down, each run read forwards.
  std::string key;
  uint64_t seq = 0;
  // The highest key below `limit` (none: the last key); false when there is none.
  auto below = [&](const std::optional<std::string>& limit) {
    auto first = limit ? entries.lower_bound(PathIndex::Entry{*limit, 0}) : entries.end();
    if (first == entries.begin()) return false;
    key = std::string(std::prev(first)->key.view());
    seq = 0;
    return true;
  };
  if (after && !(ends && after->first >= *within->to)) {
    key = after->first;
    seq = after->second;
  } else if (!below(ends ? within->to : std::nullopt)) {
    return out;
  }
  while (within == nullptr || key >= within->from) {
    for (auto it = entries.upper_bound(PathIndex::Entry{key, seq}); it != entries.end() && it->key.view() == key; ++it) {
      if (!take(*it)) return out;
    }
    if (!below(key)) break;
  }
  return out;
}

size_t PhysicalPartition::IndexCount(const DocPath& path, const std::vector<KeyRange>& ranges) const {
  std::shared_lock lock(mu_);
  return PathIndexOf(path)->Count(ranges);
}

std::vector<PhysicalPartition::KeyRun> PhysicalPartition::IndexRuns(const DocPath& path) const {
  std::shared_lock lock(mu_);
  std::vector<KeyRun> out;
  std::string_view key;
  for (const auto& e : PathIndexOf(path)->entries()) {
    if (!out.empty() && e.key.view() == key) {
      ++out.back().count;
      continue;
    }
    auto it = by_seq_.find(e.seq);
    if (it == by_seq_.end()) continue;  // (the index is kept in step: not expected)
    key = e.key.view();
    out.push_back({1, it->second});
  }
  return out;
}

bool PhysicalPartition::AllLive(util::Instant now, const ItemPolicy& policy) const {
  std::shared_lock lock(mu_);
  // Counts that include items left out of the index are not what such a reader sees.
  if (policy.indexed_only && unindexed_ > 0) return false;
  // The expiry index follows the default it was built for; another one is not known here.
  if (policy.default_ttl != expiry_ttl_) return by_key_.empty();
  return expiry_.empty() || expiry_.begin()->first > now.ms;
}

size_t PhysicalPartition::PathIndexCount() const {
  std::lock_guard guard(indexes_mu_);
  return indexes_.size();
}

std::vector<std::string> PhysicalPartition::IndexNames() const {
  std::lock_guard guard(indexes_mu_);
  std::vector<std::string> out;
  for (const auto& [name, slot] : indexes_) {
    if (name.empty() || name[0] != 'v') out.push_back(name);
  }
  return out;
}

void PhysicalPartition::BuildIndexes(const std::vector<IndexColumns>& wanted, std::atomic<uint64_t>* done,
                                     const std::atomic<bool>* cancel) const {
  std::lock_guard one(build_mu_);
  for (const auto& columns : wanted) {
    const std::string name = IndexName(columns);
    auto index = std::make_shared<PathIndex>(columns);
    {
      std::shared_lock lock(mu_);
      std::lock_guard guard(indexes_mu_);
      if (indexes_.count(name)) continue;
      index->Reserve(by_seq_.size());
      building_[name] = Building{index, 0};
    }
    // One chunk at a time; `false` once the index is kept or given up.
    auto chunk = [&] {
      std::shared_lock lock(mu_);
      auto b = building_.find(name);
      if (b == building_.end() || b->second.index != index) return false;  // the partition was restored
      {
        std::lock_guard guard(indexes_mu_);
        if ((cancel && cancel->load()) || indexes_.count(name)) {  // cancelled, or a query built it meanwhile
          building_.erase(b);
          return false;
        }
      }
      // (Without indexes_mu_: queries go on finding the indexes kept meanwhile.)
      size_t n = 0;
      auto it = by_seq_.lower_bound(b->second.next);
      for (; it != by_seq_.end() && n < kBuildChunk; ++it, ++n) index->Add(*it->second);
      if (done) *done += n;
      if (it != by_seq_.end()) {
        b->second.next = it->first;
        return true;
      }
      std::lock_guard guard(indexes_mu_);
      building_.erase(b);
      if (!indexes_.count(name)) KeepIndexLocked(name, index, ++index_clock_);
      return false;
    };
    while (chunk()) {
    }
    if (cancel && cancel->load()) return;
  }
}

size_t PhysicalPartition::MissingIndexes(const std::vector<IndexColumns>& wanted) const {
  std::lock_guard guard(indexes_mu_);
  size_t n = 0;
  for (const auto& columns : wanted) n += indexes_.count(IndexName(columns)) ? 0 : 1;
  return n;
}

bool PhysicalPartition::IsGrowthMark(size_t items) {
  // 2^10, 2^12, 2^14, ...: a power of two with an even exponent of at least 10.
  return items >= 1024 && (items & (items - 1)) == 0 && __builtin_ctzll(items) % 2 == 0;
}

std::vector<DocPath> PhysicalPartition::SampledScalarPaths(size_t sample) const {
  std::map<std::string, std::pair<size_t, DocPath>> seen;  // by PathName: (items holding it, path)
  std::set<std::string> long_strings;
  std::shared_lock lock(mu_);
  size_t n = 0;
  DocPath path;
  // Every scalar below `v` (an object), at most kSampleDepth names deep.
  std::function<void(const json::Value&)> walk = [&](const json::Value& v) {
    for (auto m = v.MemberBegin(); m != v.MemberEnd(); ++m) {
      std::string_view name(m->name.GetString(), m->name.GetStringLength());
      if (path.empty() && !name.empty() && name[0] == '_' && name != "_ts") continue;
      path.push_back(PathStep{std::string(name), -1});
      const json::Value& x = m->value;
      if (x.IsObject()) {
        if (path.size() < kSampleDepth) walk(x);
      } else if (!x.IsArray()) {
        const std::string key = PathName(path);
        if (x.IsString() && x.GetStringLength() > kSampleMaxString) {
          long_strings.insert(key);
        } else {
          auto& slot = seen[key];
          if (slot.first++ == 0) slot.second = path;
        }
      }
      path.pop_back();
    }
  };
  for (auto it = by_seq_.begin(); it != by_seq_.end() && n < sample; ++it, ++n) {
    if (it->second->body.IsObject()) walk(it->second->body);
  }
  std::vector<std::pair<size_t, DocPath>> found;
  for (auto& [key, slot] : seen) {
    if (!long_strings.count(key)) found.push_back(std::move(slot));
  }
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<DocPath> out;
  for (auto& f : found) out.push_back(std::move(f.second));
  return out;
}

}  // namespace cosmos::store
