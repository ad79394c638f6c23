#include "store/store.h"

#include <algorithm>
#include <cstdio>

#include "common/errors.h"
#include "store/epk.h"
#include "util/util.h"

namespace cosmos::store {
namespace {
// Resource ids are base64 with '/' written as '-', so they can appear in links.
std::string RidEncode(const std::string& bytes) {
  std::string s = util::Base64Encode(bytes);
  std::replace(s.begin(), s.end(), '/', '-');
  return s;
}
std::string RidDecode(std::string s) {
  std::replace(s.begin(), s.end(), '-', '/');
  return util::Base64Decode(s).value_or(std::string());
}
}  // namespace

// ---- Journal ----------------------------------------------------------------------------------

void Journal::Gate::lock_shared() {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [this] { return !writer_ && writers_waiting_ == 0; });
  ++readers_;
}

void Journal::Gate::unlock_shared() {
  std::lock_guard lock(mu_);
  if (--readers_ == 0 && writers_waiting_ > 0) cv_.notify_all();
}

void Journal::Gate::lock() {
  std::unique_lock lock(mu_);
  ++writers_waiting_;
  cv_.wait(lock, [this] { return !writer_ && readers_ == 0; });
  --writers_waiting_;
  writer_ = true;
}

void Journal::Gate::unlock() {
  std::lock_guard lock(mu_);
  writer_ = false;
  cv_.notify_all();
}

// ---- PhysicalPartition ----------------------------------------------------------------------

namespace {
// The first item sequence number of range `n`: each range counts in its own span, so that the
// resource ids made from them (Container::ItemRid) never meet, and a range made by a split counts
// above every item it inherits.
uint64_t FirstSeqOfRange(uint64_t n) { return (n << 40) + 1; }

std::atomic<uint64_t> g_max_lsn{0};
void NoteLsn(uint64_t lsn) {
  uint64_t seen = g_max_lsn.load(std::memory_order_relaxed);
  while (seen < lsn && !g_max_lsn.compare_exchange_weak(seen, lsn, std::memory_order_relaxed)) {
  }
}
}  // namespace

uint64_t MaxLsnIssued() { return g_max_lsn.load(std::memory_order_relaxed); }

std::string PhysicalPartition::Key(const std::string& pk, const std::string& id) {
  std::string k = std::to_string(pk.size());
  k.push_back(':');
  k += pk;
  k += id;
  return k;
}

std::optional<int64_t> PhysicalPartition::ExpiresAt(const Item& item, std::optional<int64_t> default_ttl) {
  if (!default_ttl) return std::nullopt;  // TTL off on the container: nothing expires
  const int64_t ttl = item.ttl ? *item.ttl : *default_ttl;
  if (ttl < 0) return std::nullopt;
  return item.ts + ttl;
}

bool PhysicalPartition::IsLive(const ItemPtr& item, int64_t now, std::optional<int64_t> default_ttl) {
  if (!item) return false;
  if (!default_ttl) return true;  // (without reading the item)
  auto at = ExpiresAt(*item, default_ttl);
  return !(at && *at <= now);
}

ItemPtr PhysicalPartition::Live(const ItemPtr& item, int64_t now, std::optional<int64_t> default_ttl) {
  if (!item) return item;
  auto at = ExpiresAt(*item, default_ttl);
  return at && *at <= now ? nullptr : item;
}

ItemPtr PhysicalPartition::Read(const std::string& pk, const std::string& id, int64_t now,
                                const ItemPolicy& policy) const {
  std::shared_lock lock(mu_);
  auto it = by_key_.find(Key(pk, id));
  if (it == by_key_.end()) return nullptr;
  return Live(it->second, now, policy.default_ttl);
}

uint64_t PhysicalPartition::lsn() const {
  std::shared_lock lock(mu_);
  return lsn_;
}

bool PhysicalPartition::DescendsFrom(std::string_view range) const {
  return range == range_id_ || std::find(parents_.begin(), parents_.end(), range) != parents_.end();
}

void PhysicalPartition::Retire() {
  RestoreState(State{}, ItemPolicy{});  // nothing kept: no item, index or log
  std::unique_lock lock(mu_);
  journal_ = nullptr;
}

size_t PhysicalPartition::Count() const {
  std::shared_lock lock(mu_);
  return by_key_.size();
}

std::optional<std::pair<uint64_t, uint64_t>> PhysicalPartition::SeqSpan() const {
  std::shared_lock lock(mu_);
  if (by_seq_.empty()) return std::nullopt;
  return std::make_pair(by_seq_.begin()->first, std::prev(by_seq_.end())->first);
}

uint64_t PhysicalPartition::NextLsn() {
  NoteLsn(++lsn_);
  return lsn_;
}

void PhysicalPartition::IndexExpiry(std::optional<int64_t> default_ttl) {
  if (default_ttl == expiry_ttl_) return;
  // The container's default changed (or TTL was switched on or off): every expiry moves.
  expiry_ttl_ = default_ttl;
  expiry_.clear();
  for (auto& [key, item] : by_key_) {
    if (auto at = ExpiresAt(*item, default_ttl)) expiry_.emplace(*at, key);
  }
}

void PhysicalPartition::KeepLog(int64_t now, const ItemPolicy& policy) {
  if (!policy.retention_seconds) {
    logging_ = false;
    log_.clear();
    return;
  }
  if (!logging_) {  // switched on now: the log starts with the next change
    logging_ = true;
    log_after_lsn_ = lsn_;
    log_since_ = by_key_.empty() && lsn_ == 0 ? 0 : now + 1;
  }
  const int64_t oldest = now - *policy.retention_seconds;
  while (!log_.empty() && log_.front().crts < oldest) {
    log_after_lsn_ = log_.front().lsn;
    log_since_ = log_.front().crts + 1;
    log_.pop_front();
  }
}

void PhysicalPartition::Record(Change change) {
  if (journal_) journal_->ItemChanged(*this, change);
  if (logging_) log_.push_back(std::move(change));
}

void PhysicalPartition::IndexUnique(const Item& item, bool add) {
  if (!unique_) return;
  for (auto& tuple : unique_->Tuples(item.body)) {
    if (add) {
      unique_index_[UniqueSlot(item.pk, tuple)] = item.id;
    } else if (auto it = unique_index_.find(UniqueSlot(item.pk, tuple)); it != unique_index_.end() && it->second == item.id) {
      unique_index_.erase(it);
    }
  }
}

void PhysicalPartition::CheckUniqueLocked(const Item& item) const {
  if (!unique_) return;
  for (auto& tuple : unique_->Tuples(item.body)) {
    auto it = unique_index_.find(UniqueSlot(item.pk, tuple));
    if (it != unique_index_.end() && it->second != item.id) throw errors::ItemConflict();
  }
}

void PhysicalPartition::Remove(std::unordered_map<std::string, ItemPtr>::iterator it) {
  const Item& item = *it->second;
  IndexUnique(item, false);
  by_seq_.erase(item.seq);
  by_lsn_.erase(item.lsn);
  if (auto pk = by_pk_lsn_.find(item.pk); pk != by_pk_lsn_.end()) {
    pk->second.erase(item.lsn);
    if (pk->second.empty()) by_pk_lsn_.erase(pk);
  }
  if (auto pk = by_pk_seq_.find(item.pk); pk != by_pk_seq_.end()) {
    pk->second.erase(item.seq);
    if (pk->second.empty()) by_pk_seq_.erase(pk);
  }
  for (auto& [name, slot] : indexes_) slot.index->Remove(item);
  if (auto at = ExpiresAt(item, expiry_ttl_)) expiry_.erase({*at, it->first});
  by_key_.erase(it);
}

void PhysicalPartition::Store(const std::string& key, const ItemPtr& current, ItemPtr item) {
  auto& logical = by_pk_lsn_[item->pk];
  if (unique_) {
    if (current) IndexUnique(*current, false);
    IndexUnique(*item, true);
  }
  if (current) {
    by_lsn_.erase(current->lsn);
    logical.erase(current->lsn);
    if (auto at = ExpiresAt(*current, expiry_ttl_)) expiry_.erase({*at, key});
  }
  if (auto at = ExpiresAt(*item, expiry_ttl_)) expiry_.emplace(*at, key);
  // LSNs and new sequence numbers only grow: placed at the end without a walk down the tree.
  auto put = [](ItemsByNumber& m, uint64_t k, const ItemPtr& v) {
    if (m.empty() || m.rbegin()->first < k) {
      m.emplace_hint(m.end(), k, v);
    } else {
      m[k] = v;
    }
  };
  put(by_lsn_, item->lsn, item);
  put(logical, item->lsn, item);
  put(by_seq_, item->seq, item);
  if (!current) {
    auto& own = by_pk_seq_[item->pk];
    own.insert(own.end(), item->seq);  // (the same: a new item's seq is the highest)
  }
  for (auto& [name, slot] : indexes_) {
    if (current) slot.index->Remove(*current);
    slot.index->Add(*item);
  }
  by_key_[key] = std::move(item);
}

std::shared_ptr<SecondaryIndex> PhysicalPartition::IndexOf(
    const std::string& name, const std::function<std::shared_ptr<SecondaryIndex>()>& make) const {
  std::lock_guard guard(indexes_mu_);
  const uint64_t now = ++index_clock_;
  if (auto it = indexes_.find(name); it != indexes_.end()) {
    it->second.used = now;
    return it->second.index;
  }
  if (indexes_.size() >= kMaxPathIndexes) {
    auto oldest = indexes_.begin();
    for (auto it = indexes_.begin(); it != indexes_.end(); ++it) {
      if (it->second.used < oldest->second.used) oldest = it;
    }
    indexes_.erase(oldest);  // a reader still using it keeps it alive; no writer updates it again
  }
  // Writers are kept out by the caller's lock while the index is filled.
  auto index = make();
  index->Reserve(by_seq_.size());
  for (const auto& [seq, item] : by_seq_) index->Add(*item);
  auto& slot = indexes_[name];
  slot.index = index;
  slot.used = now;
  return index;
}

std::shared_ptr<const PathIndex> PhysicalPartition::PathIndexOf(const DocPath& path) const {
  // Path names start with '.' or '#'; vector indexes are named "v" + the path's name.
  return std::static_pointer_cast<const PathIndex>(
      IndexOf(PathName(path), [&] { return std::make_shared<PathIndex>(path); }));
}

std::optional<std::vector<uint64_t>> PhysicalPartition::VectorCandidates(
    const DocPath& path, const VectorQuery& q, size_t k, const std::function<bool(const Item&)>& admit, int64_t now,
    const ItemPolicy& policy) const {
  std::shared_lock lock(mu_);
  auto index = std::static_pointer_cast<const VectorIndex>(
      IndexOf(std::string(1, 'v').append(PathName(path)), [&] { return std::make_shared<VectorIndex>(path); }));
  return index->Candidates(q, k, [&](const Item& item) {
    if (policy.default_ttl) {
      auto at = ExpiresAt(item, policy.default_ttl);
      if (at && *at <= now) return false;
    }
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
                                                   int64_t now, const ItemPolicy& policy) const {
  std::shared_lock lock(mu_);
  std::vector<ItemPtr> out;
  for (; next < seqs.size() && (max_items == 0 || out.size() < max_items); ++next) {
    auto it = by_seq_.find(seqs[next]);
    if (it == by_seq_.end() || !IsLive(it->second, now, policy.default_ttl)) continue;  // gone since the lookup
    out.push_back(it->second);
  }
  return out;
}

std::vector<PhysicalPartition::IndexHit> PhysicalPartition::IndexWalk(
    const DocPath& path, bool descending, const std::optional<std::pair<std::string, uint64_t>>& after,
    size_t max_items, int64_t now, const ItemPolicy& policy) const {
  std::shared_lock lock(mu_);
  std::vector<IndexHit> out;
  const auto index = PathIndexOf(path);
  const PathIndex::Set& entries = index->entries();
  // Takes the entry's item when it is live; false once the page is full.
  auto take = [&](const PathIndex::Entry& e) {
    auto it = by_seq_.find(e.seq);
    if (it != by_seq_.end() && IsLive(it->second, now, policy.default_ttl)) out.push_back({e.key, it->second});
    return out.size() < max_items;
  };
  if (!descending) {
    auto it = after ? entries.upper_bound(PathIndex::Entry{after->first, after->second}) : entries.begin();
    for (; it != entries.end(); ++it) {
      if (!take(*it)) break;
    }
    return out;
  }
  if (entries.empty()) return out;
  // One key's run at a time, from the highest key down, each run read forwards.
  std::string key = after ? after->first : std::prev(entries.end())->key;
  uint64_t seq = after ? after->second : 0;
  while (true) {
    for (auto it = entries.upper_bound(PathIndex::Entry{key, seq}); it != entries.end() && it->key == key; ++it) {
      if (!take(*it)) return out;
    }
    auto first = entries.lower_bound(PathIndex::Entry{key, 0});
    if (first == entries.begin()) break;
    key = std::prev(first)->key;
    seq = 0;
  }
  return out;
}

size_t PhysicalPartition::IndexCount(const DocPath& path, const std::vector<KeyRange>& ranges) const {
  std::shared_lock lock(mu_);
  return PathIndexOf(path)->Count(ranges);
}

bool PhysicalPartition::AllLive(int64_t now, const ItemPolicy& policy) const {
  std::shared_lock lock(mu_);
  // The expiry index follows the default it was built for; another one is not known here.
  if (policy.default_ttl != expiry_ttl_) return by_key_.empty();
  return expiry_.empty() || expiry_.begin()->first > now;
}

size_t PhysicalPartition::PathIndexCount() const {
  std::lock_guard guard(indexes_mu_);
  return indexes_.size();
}

std::vector<ItemPtr> PhysicalPartition::FeedOfKey(const std::string& pk, uint64_t after_seq, size_t max_items,
                                                  int64_t now, const ItemPolicy& policy) const {
  std::shared_lock lock(mu_);
  std::vector<ItemPtr> out;
  auto found = by_pk_seq_.find(pk);
  if (found == by_pk_seq_.end()) return out;
  for (auto it = found->second.upper_bound(after_seq); it != found->second.end(); ++it) {
    auto item = by_seq_.find(*it);
    if (item == by_seq_.end() || !IsLive(item->second, now, policy.default_ttl)) continue;
    out.push_back(item->second);
    if (max_items && out.size() >= max_items) break;
  }
  return out;
}

size_t PhysicalPartition::CountOfKey(const std::string& pk) const {
  std::shared_lock lock(mu_);
  auto found = by_pk_seq_.find(pk);
  return found == by_pk_seq_.end() ? 0 : found->second.size();
}

bool PhysicalPartition::HasLiveItems(const std::string& pk, int64_t now, const ItemPolicy& policy) const {
  std::shared_lock lock(mu_);
  auto found = by_pk_seq_.find(pk);
  if (found == by_pk_seq_.end()) return false;
  for (uint64_t seq : found->second) {
    auto item = by_seq_.find(seq);
    if (item != by_seq_.end() && IsLive(item->second, now, policy.default_ttl)) return true;
  }
  return false;
}

void PhysicalPartition::ExpireItems(int64_t now, const ItemPolicy& policy) {
  JournalHold hold(journal_);
  std::unique_lock lock(mu_);
  ExpireLocked(now, policy);
}

void PhysicalPartition::ExpireLocked(int64_t now, const ItemPolicy& policy) {
  IndexExpiry(policy.default_ttl);
  KeepLog(now, policy);
  while (!expiry_.empty() && expiry_.begin()->first <= now) {
    auto it = by_key_.find(expiry_.begin()->second);
    Record({lsn_ + 1, ChangeKind::kDelete, nullptr, it->second, now, true});  // first: see Apply
    NextLsn();
    Remove(it);
  }
}

void PhysicalPartition::CheckWrite(WriteKind kind, const ItemPtr& current, const Preconditions& pre) {
  switch (kind) {
    case WriteKind::kCreate:
      if (current) throw errors::ItemConflict();
      break;
    case WriteKind::kReplace:
    case WriteKind::kDelete:
      if (!current) throw errors::NotFound();
      break;
    case WriteKind::kUpsert:
      break;
  }
  if (pre.if_match && current && *pre.if_match != "*" && *pre.if_match != current->etag)
    throw errors::PreconditionFailed();
  // An upsert's If-Match applies to the item it would replace: with none, it creates (the official
  // emulator's answer that the Python SDK's test_etag_match_condition_compatibility expects).
  if (pre.if_none_match && current && (*pre.if_none_match == "*" || *pre.if_none_match == current->etag))
    throw errors::PreconditionFailed();
}

void PhysicalPartition::AwaitUnreserved(std::unique_lock<std::shared_mutex>& lock, const std::string& pk) {
  if (reserved_.empty()) return;
  released_.wait(lock, [&] { return reserved_.count(pk) == 0; });
}

std::unique_lock<std::shared_mutex> PhysicalPartition::LockToWrite(JournalHold& hold, const std::string& pk) {
  for (;;) {
    std::unique_lock lock(mu_);
    if (reserved_.empty() || reserved_.count(pk) == 0) return lock;
    if (!util::MayBlock()) throw util::WouldBlock{};  // (nothing changed yet)
    hold.Release();
    AwaitUnreserved(lock, pk);
    lock.unlock();
    hold.Acquire();  // the gate before the partition lock, always
  }
}

std::unique_ptr<Transaction> PhysicalPartition::Begin(const std::string& pk, const ItemPolicy& policy) {
  std::unique_lock lock(mu_);
  if (reserved_.count(pk) != 0 && !util::MayBlock()) throw util::WouldBlock{};
  AwaitUnreserved(lock, pk);
  reserved_.insert(pk);
  return std::unique_ptr<Transaction>(new Transaction(*this, pk, policy));
}

std::vector<ItemPtr> PhysicalPartition::LogicalItemsLocked(const std::string& pk, int64_t now,
                                                           std::optional<int64_t> default_ttl) const {
  std::vector<ItemPtr> out;
  auto found = by_pk_lsn_.find(pk);
  if (found == by_pk_lsn_.end()) return out;
  out.reserve(found->second.size());
  for (const auto& [lsn, item] : found->second) {
    if (IsLive(item, now, default_ttl)) out.push_back(item);
  }
  return out;
}

Transaction::~Transaction() {
  std::unique_lock lock(part_.mu_);
  part_.reserved_.erase(pk_);
  part_.released_.notify_all();
}

ItemPtr Transaction::Read(const std::string& id, int64_t now) const {
  if (auto it = overlay_.find(id); it != overlay_.end()) return PhysicalPartition::Live(it->second, now, policy_.default_ttl);
  return part_.Read(pk_, id, now, policy_);
}

std::vector<ItemPtr> Transaction::Items(int64_t now) const {
  std::vector<ItemPtr> items;
  {
    std::shared_lock lock(part_.mu_);
    items = part_.LogicalItemsLocked(pk_, now, policy_.default_ttl);
  }
  if (!overlay_.empty()) {
    std::erase_if(items, [&](const ItemPtr& item) { return overlay_.count(item->id) > 0; });
    for (const auto& [id, item] : overlay_) {
      if (PhysicalPartition::IsLive(item, now, policy_.default_ttl)) items.push_back(item);
    }
  }
  std::sort(items.begin(), items.end(), [](const ItemPtr& a, const ItemPtr& b) { return a->seq < b->seq; });
  return items;
}

ItemPtr Transaction::ReadByRid(const std::string& rid, int64_t now) const {
  for (const auto& item : Items(now)) {
    if (item->rid == rid) return item;
  }
  return nullptr;
}

WriteResult Transaction::Write(WriteKind kind, const std::string& id, const Preconditions& pre, int64_t now,
                               const Maker& make) {
  ItemPtr current = Read(id, now);
  PhysicalPartition::CheckWrite(kind, current, pre);
  WriteResult result;
  result.previous = current;
  if (kind == WriteKind::kDelete) {
    ops_.push_back({id, nullptr});
    overlay_[id] = nullptr;
    return result;
  }
  uint64_t seq = 0;
  if (current) {
    seq = current->seq;
  } else {
    std::unique_lock lock(part_.mu_);
    seq = part_.next_seq_++;  // a rolled-back create leaves a gap, as on the service
  }
  ItemPtr item = make(current, seq, 0);
  CheckUnique(*item, now);
  ops_.push_back({id, item});
  overlay_[id] = item;
  result.item = std::move(item);
  result.created = !current;
  return result;
}

void Transaction::CheckUnique(const Item& item, int64_t now) const {
  if (!part_.unique_) return;
  const auto tuples = part_.unique_->Tuples(item.body);
  auto taken = [&](const Item& other) {
    for (auto& t : part_.unique_->Tuples(other.body)) {
      if (std::find(tuples.begin(), tuples.end(), t) != tuples.end()) return true;
    }
    return false;
  };
  // Staged images of other items, then committed ones this transaction has not touched.
  for (const auto& [id, staged] : overlay_) {
    if (id != item.id && PhysicalPartition::IsLive(staged, now, policy_.default_ttl) && taken(*staged))
      throw errors::Conflict();
  }
  std::shared_lock lock(part_.mu_);
  for (auto& t : tuples) {
    auto it = part_.unique_index_.find(PhysicalPartition::UniqueSlot(pk_, t));
    if (it == part_.unique_index_.end() || it->second == item.id || overlay_.count(it->second)) continue;
    auto holder = part_.by_key_.find(PhysicalPartition::Key(pk_, it->second));
    if (holder != part_.by_key_.end() && PhysicalPartition::IsLive(holder->second, now, policy_.default_ttl))
      throw errors::ItemConflict();
  }
}

uint64_t Transaction::Commit(int64_t now) {
  JournalHold hold(part_.journal_);
  std::unique_lock lock(part_.mu_);
  if (done_) return part_.lsn_;
  part_.ExpireLocked(now, policy_);
  for (auto& op : ops_) {
    const std::string key = PhysicalPartition::Key(pk_, op.id);
    auto it = part_.by_key_.find(key);
    if (!op.item && it == part_.by_key_.end()) continue;  // deleted, and expired while the script ran
    // Staged images were made by this transaction and are published only now: setting their
    // LSN (the one Apply assigns) is the last change they see.
    if (op.item) const_cast<Item&>(*op.item).lsn = part_.lsn_ + 1;
    part_.Apply(it, key, op.item, now);
  }
  done_ = true;
  return part_.lsn_;
}

WriteResult PhysicalPartition::Write(WriteKind kind, const std::string& pk, const std::string& id,
                                     const Preconditions& pre, int64_t now, const ItemPolicy& policy,
                                     const Maker& make) {
  JournalHold hold(journal_);
  auto lock = LockToWrite(hold, pk);
  ExpireLocked(now, policy);
  const std::string key = Key(pk, id);
  auto it = by_key_.find(key);
  ItemPtr current = it == by_key_.end() ? nullptr : it->second;
  WriteResult result;
  CheckWrite(kind, current, pre);
  result.previous = current;
  if (kind == WriteKind::kDelete) {
    result.lsn = Apply(it, key, nullptr, now);
    return result;
  }
  const uint64_t seq = current ? current->seq : next_seq_;
  ItemPtr item = make(current, seq, lsn_ + 1);  // may throw: nothing has changed yet
  CheckUniqueLocked(*item);
  if (!current) ++next_seq_;
  result.lsn = Apply(it, key, item, now);
  result.item = std::move(item);
  result.created = !current;
  return result;
}

PhysicalPartition::LogicalDelete PhysicalPartition::DeleteLogicalPartition(const std::string& pk, int64_t now,
                                                                         const ItemPolicy& policy) {
  JournalHold hold(journal_);
  auto lock = LockToWrite(hold, pk);
  ExpireLocked(now, policy);
  LogicalDelete out;
  auto found = by_pk_lsn_.find(pk);
  if (found != by_pk_lsn_.end()) {
    // Copied first: each delete takes its item out of the index being walked.
    std::vector<ItemPtr> items;
    items.reserve(found->second.size());
    for (const auto& [lsn, item] : found->second) items.push_back(item);
    for (const auto& item : items) {
      const std::string key = Key(pk, item->id);
      auto it = by_key_.find(key);
      if (it == by_key_.end()) continue;
      Apply(it, key, nullptr, now);
      ++out.deleted;
    }
  }
  out.lsn = lsn_;
  return out;
}

uint64_t PhysicalPartition::Apply(std::unordered_map<std::string, ItemPtr>::iterator it, const std::string& key,
                                  ItemPtr item, int64_t now) {
  ItemPtr current = it == by_key_.end() ? nullptr : it->second;
  // Recorded first: when the journal cannot write the record (the disk refuses it) it throws and
  // nothing has changed here, so the partition never holds a change that was not acknowledged.
  const uint64_t lsn = lsn_ + 1;
  const ChangeKind kind = !item ? ChangeKind::kDelete : current ? ChangeKind::kReplace : ChangeKind::kCreate;
  Record({lsn, kind, item, current, now, false});
  NextLsn();
  if (!item) {
    Remove(it);
  } else {
    Store(key, current, std::move(item));
  }
  return lsn;
}

std::vector<ItemPtr> PhysicalPartition::Feed(uint64_t after_seq, size_t max_items, int64_t now,
                                             const ItemPolicy& policy) const {
  std::shared_lock lock(mu_);
  std::vector<ItemPtr> out;
  if (max_items) out.reserve(std::min(max_items, by_seq_.size()));
  // Items lie anywhere in memory: the one a few places on is asked for while this one is copied.
  auto ahead = by_seq_.upper_bound(after_seq);
  for (int i = 0; i < 8 && ahead != by_seq_.end(); ++i) ++ahead;
  for (auto it = by_seq_.upper_bound(after_seq); it != by_seq_.end(); ++it) {
    if (ahead != by_seq_.end()) {
      const char* at = reinterpret_cast<const char*>(ahead->second.get());
      __builtin_prefetch(at - 16);  // the counts, just before the item (one allocation)
      __builtin_prefetch(at + 16);
      ++ahead;
    }
    if (!IsLive(it->second, now, policy.default_ttl)) continue;
    out.push_back(it->second);
    if (max_items && out.size() >= max_items) break;
  }
  return out;
}

ChangePage<ItemPtr> PhysicalPartition::LatestChanges(uint64_t after_lsn, size_t max_items, const ItemFilter& keep,
                                                     int64_t now, const ItemPolicy& policy,
                                                     const std::string* pk) const {
  std::shared_lock lock(mu_);
  ChangePage<ItemPtr> page;
  page.resume_lsn = lsn_;
  static const ItemsByNumber kNone;
  const ItemsByNumber* index = &by_lsn_;
  if (pk) {
    auto found = by_pk_lsn_.find(*pk);
    index = found == by_pk_lsn_.end() ? &kNone : &found->second;
  }
  for (auto it = index->upper_bound(after_lsn); it != index->end(); ++it) {
    const ItemPtr& item = it->second;
    if (!IsLive(item, now, policy.default_ttl) || !keep(*item)) continue;
    page.entries.push_back(item);
    if (page.entries.size() == max_items) {
      page.resume_lsn = item->lsn;
      break;
    }
  }
  return page;
}

// The sentence the service's refusals of all-versions reads carry (the SDKs' tests look for it).
constexpr const char* kRetentionSentence = "You must read the change feed from within the retention period.";

void PhysicalPartition::CheckLogReaches(uint64_t after_lsn) const {
  if (!logging_)
    throw errors::BadRequest(
        "The change feed in all versions and deletes mode needs a change feed policy on the container: set "
        "changeFeedPolicy.retentionDuration (minutes) when creating or replacing it. " +
        std::string(kRetentionSentence));
  if (after_lsn < log_after_lsn_)
    throw errors::BadRequest(
        "The requested start of the change feed in all versions and deletes mode lies outside the container's "
        "retention window. " +
        std::string(kRetentionSentence));
}

ChangePage<Change> PhysicalPartition::AllChanges(uint64_t after_lsn, size_t max_items, const ItemFilter& keep) const {
  std::shared_lock lock(mu_);
  CheckLogReaches(after_lsn);
  ChangePage<Change> page;
  page.resume_lsn = lsn_;
  auto first = std::upper_bound(log_.begin(), log_.end(), after_lsn,
                                [](uint64_t lsn, const Change& c) { return lsn < c.lsn; });
  for (auto it = first; it != log_.end(); ++it) {
    if (!keep(it->current ? *it->current : *it->previous)) continue;
    page.entries.push_back(*it);
    if (page.entries.size() == max_items) {
      page.resume_lsn = it->lsn;
      break;
    }
  }
  return page;
}

uint64_t PhysicalPartition::StartLsn(int64_t since, bool all_versions) const {
  std::shared_lock lock(mu_);
  // Writes take their time under the partition lock, so times rise with LSNs: the start is just
  // before the first change at or after `since`.
  if (all_versions) {
    CheckLogReaches(since < log_since_ ? 0 : log_after_lsn_);
    for (const Change& c : log_) {
      if (c.crts >= since) return c.lsn - 1;
    }
    return lsn_;
  }
  for (const auto& [lsn, item] : by_lsn_) {
    if (item->ts >= since) return lsn - 1;
  }
  return lsn_;
}

PhysicalPartition::State PhysicalPartition::Capture() const {
  std::shared_lock lock(mu_);
  State st;
  st.lsn = lsn_;
  st.next_seq = next_seq_;
  st.logging = logging_;
  st.log_after_lsn = log_after_lsn_;
  st.log_since = log_since_;
  st.items.reserve(by_seq_.size());
  for (const auto& [seq, item] : by_seq_) st.items.push_back(item);
  st.log = log_;
  return st;
}

void PhysicalPartition::RestoreState(State state, const ItemPolicy& policy) {
  std::unique_lock lock(mu_);
  by_key_.clear();
  by_seq_.clear();
  by_lsn_.clear();
  by_pk_lsn_.clear();
  by_pk_seq_.clear();
  {
    std::lock_guard guard(indexes_mu_);
    indexes_.clear();
  }
  expiry_.clear();
  unique_index_.clear();
  expiry_ttl_ = policy.default_ttl;
  by_key_.reserve(state.items.size());
  for (auto& item : state.items) {
    const std::string key = Key(item->pk, item->id);
    Store(key, nullptr, std::move(item));
  }
  lsn_ = state.lsn;
  NoteLsn(lsn_);
  next_seq_ = state.next_seq;
  logging_ = state.logging;
  log_after_lsn_ = state.log_after_lsn;
  log_since_ = state.log_since;
  log_ = std::move(state.log);
}

void PhysicalPartition::Replay(uint64_t lsn, ItemPtr image, const std::string& pk, const std::string& id,
                               int64_t crts, bool ttl_expired, const ItemPolicy& policy) {
  std::unique_lock lock(mu_);
  if (lsn <= lsn_) return;
  IndexExpiry(policy.default_ttl);
  KeepLog(crts, policy);
  const std::string key = Key(pk, id);
  auto it = by_key_.find(key);
  ItemPtr current = it == by_key_.end() ? nullptr : it->second;
  lsn_ = lsn;
  NoteLsn(lsn);
  if (!image) {
    if (it != by_key_.end()) Remove(it);
    if (current && logging_) log_.push_back({lsn, ChangeKind::kDelete, nullptr, std::move(current), crts, ttl_expired});
    return;
  }
  next_seq_ = std::max(next_seq_, image->seq + 1);
  Store(key, current, image);
  const ChangeKind kind = current ? ChangeKind::kReplace : ChangeKind::kCreate;
  if (logging_) log_.push_back({lsn, kind, std::move(image), std::move(current), crts, false});
}

// ---- Offer ------------------------------------------------------------------------------------

Offer::State Offer::Capture() const {
  std::lock_guard lock(mu_);
  return {throughput_, max_ever_, ts_, etag_, last_replace_};
}

void Offer::Restore(const State& st) {
  std::lock_guard lock(mu_);
  throughput_ = st.throughput;
  max_ever_ = st.max_ever;
  ts_ = st.ts;
  etag_ = st.etag;
  last_replace_ = st.last_replace;
}

Throughput Offer::throughput() const {
  std::lock_guard lock(mu_);
  return throughput_;
}

int Offer::max_ever_provisioned() const {
  std::lock_guard lock(mu_);
  return std::max(max_ever_, throughput_.ru);
}

int64_t Offer::ts() const {
  std::lock_guard lock(mu_);
  return ts_;
}

std::string Offer::etag() const {
  std::lock_guard lock(mu_);
  return etag_;
}

int64_t Offer::last_replace_ts() const {
  std::lock_guard lock(mu_);
  return last_replace_;
}

bool Offer::Replace(Throughput t, int64_t ts, std::string etag, std::optional<std::string_view> if_match) {
  std::lock_guard lock(mu_);
  if (if_match && *if_match != "*" && *if_match != etag_) return false;
  max_ever_ = std::max({max_ever_, throughput_.ru, t.ru});
  throughput_ = t;
  ts_ = ts;
  last_replace_ = ts;
  etag_ = std::move(etag);
  return true;
}

double Offer::PartitionBudget() const {
  return static_cast<double>(throughput().ru) / static_cast<double>(std::max(1, partitions()));
}

// ---- Container --------------------------------------------------------------------------------

Container::Container(std::string id, std::string rid, std::string db_rid, PartitionKeyDefinition pk,
                     ContainerSettings settings, int64_t ts, std::string etag, OfferPtr offer, OfferPtr shared,
                     int partition_count)
    : id_(std::move(id)),
      rid_(std::move(rid)),
      rid_bytes_(RidDecode(rid_)),
      db_rid_(std::move(db_rid)),
      self_("dbs/" + db_rid_ + "/colls/" + rid_ + "/"),
      pk_(std::move(pk)),
      offer_(std::move(offer)),
      shared_(std::move(shared)),
      created_ts_(ts),
      settings_(std::make_shared<const ContainerSettings>(std::move(settings))),
      ts_(ts),
      etag_(std::move(etag)) {
  auto bounds = RangeBoundaries(pk_, partition_count);
  for (size_t i = 0; i + 1 < bounds.size(); ++i) {
    partitions_.push_back(std::make_shared<PhysicalPartition>(std::to_string(i), bounds[i], bounds[i + 1],
                                                              settings_->unique_keys, FirstSeqOfRange(i)));
    partitions_.back()->SetLineage({}, ts);
  }
  next_range_id_ = partitions_.size();
  if (auto& o = budget_offer()) o->AddPartitions(static_cast<int>(partitions_.size()));
}

Container::~Container() {
  if (auto& o = budget_offer()) o->AddPartitions(-static_cast<int>(partitions_.size()));
}

WriterFirstMutex::WriterFirstMutex() {
  pthread_rwlockattr_t attr;
  pthread_rwlockattr_init(&attr);
  pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
  pthread_rwlock_init(&rw_, &attr);
  pthread_rwlockattr_destroy(&attr);
}
WriterFirstMutex::~WriterFirstMutex() { pthread_rwlock_destroy(&rw_); }
void WriterFirstMutex::lock() { pthread_rwlock_wrlock(&rw_); }
void WriterFirstMutex::unlock() { pthread_rwlock_unlock(&rw_); }
void WriterFirstMutex::lock_shared() { pthread_rwlock_rdlock(&rw_); }
void WriterFirstMutex::unlock_shared() { pthread_rwlock_unlock(&rw_); }
// (With writers preferred, a waiting split makes the attempt fail too: glibc's tryrdlock.)
bool WriterFirstMutex::try_lock_shared() { return pthread_rwlock_tryrdlock(&rw_) == 0; }

LayoutHold Container::HoldLayout() const {
  if (util::MayBlock()) return LayoutHold(layout_mu_);
  LayoutHold hold(layout_mu_, std::try_to_lock);
  if (!hold.owns_lock()) throw util::WouldBlock{};
  return hold;
}

std::vector<PhysicalPartition*> Container::partitions() const {
  std::shared_lock lock(parts_mu_);
  std::vector<PhysicalPartition*> out;
  out.reserve(partitions_.size());
  for (const auto& p : partitions_) out.push_back(p.get());
  return out;
}

size_t Container::partition_count() const {
  std::shared_lock lock(parts_mu_);
  return partitions_.size();
}

std::vector<RangeSplit> Container::splits() const {
  std::shared_lock lock(parts_mu_);
  return splits_;
}

std::string Container::ranges_etag() const {
  {
    std::shared_lock lock(parts_mu_);
    if (!splits_.empty()) return splits_.back().etag;
  }
  return etag();
}

std::optional<RangeSplit> Container::SplitRange(std::string_view range_id, int64_t ts, std::string etag) {
  std::unique_lock layout(layout_mu_);  // no request is using the ranges from here on
  JournalHold hold(journal_);             // a checkpoint sees the ranges before or after, whole
  RangeSplit split;
  {
    std::shared_lock lock(parts_mu_);
    auto it = std::find_if(partitions_.begin(), partitions_.end(),
                           [&](const auto& p) { return p->range_id() == range_id; });
    if (it == partitions_.end()) return std::nullopt;
    if (partitions_.size() >= kMaxRanges)
      throw errors::BadRequest("The container already has " + std::to_string(kMaxRanges) +
                               " partition key ranges, the most the emulator splits to.");
    auto at = SplitPoint(pk_, (*it)->min_epk(), (*it)->max_epk());
    if (!at)
      throw errors::BadRequest("The partition key range '" + std::string(range_id) +
                               "' cannot be split: its span of the hash ring holds no value to divide it at.");
    split = {std::string(range_id), *at, std::to_string(next_range_id_), std::to_string(next_range_id_ + 1), ts,
             std::move(etag)};
  }
  ApplySplit(split);
  if (journal_) journal_->RangesSplit(rid_, split);
  std::shared_ptr<PhysicalPartition> parent;
  {
    std::shared_lock lock(parts_mu_);
    parent = retired_.back();  // ApplySplit's
  }
  hold.Release();
  layout.unlock();
  parent->Retire();  // its memory freed after the requests that waited have gone on
  return split;
}

bool Container::ReplaySplit(const RangeSplit& split) {
  {
    std::shared_lock lock(parts_mu_);
    if (std::none_of(partitions_.begin(), partitions_.end(),
                     [&](const auto& p) { return p->range_id() == split.parent; }))
      return false;
  }
  ApplySplit(split);
  std::shared_lock lock(parts_mu_);
  retired_.back()->Retire();
  return true;
}

void Container::ApplySplit(const RangeSplit& split) {
  std::shared_ptr<PhysicalPartition> parent;
  {
    std::shared_lock lock(parts_mu_);
    for (const auto& p : partitions_) {
      if (p->range_id() == split.parent) parent = p;
    }
  }
  if (!parent) return;
  // The children keep every item with its sequence number and LSN, and the log: a continuation
  // or session token of the parent means the same on each child.
  PhysicalPartition::State whole = parent->Capture();
  const auto policy = settings()->items();
  std::vector<std::string> lineage = parent->parents();
  lineage.push_back(parent->range_id());
  auto make = [&](const std::string& id, const std::string& min, const std::string& max) {
    const uint64_t n = util::ParseInteger<uint64_t>(id).value_or(0);
    auto child = std::make_shared<PhysicalPartition>(id, min, max, settings()->unique_keys, FirstSeqOfRange(n));
    child->SetLineage(lineage, split.ts);
    PhysicalPartition::State st;
    st.lsn = whole.lsn;
    st.next_seq = std::max(whole.next_seq, FirstSeqOfRange(n));
    st.logging = whole.logging;
    st.log_after_lsn = whole.log_after_lsn;
    st.log_since = whole.log_since;
    auto inside = [&](const Item& item) { return item.epk >= min && item.epk < max; };
    for (const auto& item : whole.items) {
      if (inside(*item)) st.items.push_back(item);
    }
    for (const auto& ch : whole.log) {
      const Item& version = ch.current ? *ch.current : *ch.previous;
      if (inside(version)) st.log.push_back(ch);
    }
    child->RestoreState(std::move(st), policy);
    if (journal_) child->AttachJournal(journal_, rid_);
    return child;
  };
  auto left = make(split.left, parent->min_epk(), split.at);
  auto right = make(split.right, split.at, parent->max_epk());
  {
    std::unique_lock lock(parts_mu_);
    auto it = std::find(partitions_.begin(), partitions_.end(), parent);
    it = partitions_.erase(it);
    it = partitions_.insert(it, right);
    partitions_.insert(it, left);
    retired_.push_back(parent);
    splits_.push_back(split);
    const uint64_t r = util::ParseInteger<uint64_t>(split.right).value_or(0);
    next_range_id_ = std::max(next_range_id_, r + 1);
  }
  if (auto& o = budget_offer()) o->AddPartitions(1);
}

std::shared_ptr<const ContainerSettings> Container::settings() const {
  std::lock_guard lock(settings_mu_);
  return settings_;
}

void Container::Replace(ContainerSettings settings, int64_t ts, std::string etag) {
  std::lock_guard lock(settings_mu_);
  settings_ = std::make_shared<const ContainerSettings>(std::move(settings));
  ts_ = ts;
  etag_ = std::move(etag);
}

std::string Container::etag() const {
  std::lock_guard lock(settings_mu_);
  return etag_;
}

int64_t Container::ts() const {
  std::lock_guard lock(settings_mu_);
  return ts_;
}

void Container::AttachJournal(Journal* journal) {
  std::unique_lock lock(parts_mu_);
  journal_ = journal;
  for (auto& p : partitions_) p->AttachJournal(journal, rid_);
}

Placement Container::Locate(const PartitionKeyValue& pk) const {
  Placement p;
  p.epk = EffectivePartitionKey(pk_, pk);
  p.partition = &PartitionForEpk(p.epk);
  return p;
}

PhysicalPartition& Container::PartitionForEpk(std::string_view epk) const {
  // The last range whose minimum is <= epk (ranges are contiguous, the first starts at "").
  std::shared_lock lock(parts_mu_);
  auto it = std::upper_bound(partitions_.begin(), partitions_.end(), epk,
                             [](std::string_view e, const auto& p) { return e < std::string_view(p->min_epk()); });
  return **std::prev(it);
}

std::vector<PhysicalPartition*> Container::PartitionsOverlapping(std::string_view min_epk,
                                                                 std::string_view max_epk) const {
  std::vector<PhysicalPartition*> out;
  std::shared_lock lock(parts_mu_);
  for (const auto& p : partitions_) {
    // [p.min, p.max) overlaps [min, max) when p.min < max and min < p.max ("FF" is the top).
    if (std::string_view(p->min_epk()) < max_epk && min_epk < std::string_view(p->max_epk())) out.push_back(p.get());
  }
  return out;
}

PhysicalPartition* Container::PartitionById(std::string_view range_id) const {
  std::shared_lock lock(parts_mu_);
  for (auto& p : partitions_) {
    if (p->range_id() == range_id) return p.get();
  }
  return nullptr;
}

std::string Container::ItemRid(uint64_t seq) const {
  std::string bytes = rid_bytes_;
  for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<char>((seq >> (8 * i)) & 0xFF));
  return RidEncode(bytes);
}

ItemPtr Container::FindItemByRid(const std::string& rid, int64_t now) const {
  // An item's rid carries the sequence number it was created with (ItemRid), so an item not
  // replaced since is the first of the feed from there; one replaced since moved on, and is found
  // by walking the feed.
  const std::string bytes = RidDecode(rid);
  if (bytes.size() != 16 || bytes.compare(0, 8, rid_bytes_) != 0) return nullptr;
  uint64_t seq = 0;
  for (int i = 7; i >= 0; --i) seq = (seq << 8) | static_cast<unsigned char>(bytes[8 + i]);
  const auto policy = settings()->items();
  const auto parts = partitions();
  if (seq > 0) {
    for (const auto* p : parts) {
      auto hit = p->Feed(seq - 1, 1, now, policy);
      if (!hit.empty() && hit.front()->rid == rid) return hit.front();
    }
  }
  for (const auto* p : parts) {
    for (uint64_t after = 0;;) {
      auto chunk = p->Feed(after, 1000, now, policy);
      if (chunk.empty()) break;
      for (const auto& it : chunk) {
        if (it->rid == rid) return it;
        after = it->seq;
      }
    }
  }
  return nullptr;
}

std::string Container::ScriptRid(ScriptKind kind, uint32_t n) const {
  // As the service's: the number in the first bytes, the kind in the last (0x80 stored
  // procedures, 0x70 triggers, 0x60 user-defined functions).
  static const char kMarker[] = {'\x80', '\x70', '\x60'};
  std::string bytes = rid_bytes_;
  for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<char>((n >> (8 * i)) & 0xFF));
  bytes += std::string(3, '\0');
  bytes.push_back(kMarker[static_cast<int>(kind)]);
  return RidEncode(bytes);
}

ScriptPtr ScriptSet::Find(ScriptKind kind, const std::string& id) const {
  std::shared_lock lock(mu_);
  for (const auto& s : scripts_[static_cast<int>(kind)]) {
    if (s->id == id) return s;
  }
  return nullptr;
}

ScriptPtr ScriptSet::FindByRid(ScriptKind kind, const std::string& rid) const {
  std::shared_lock lock(mu_);
  for (const auto& s : scripts_[static_cast<int>(kind)]) {
    if (s->rid == rid) return s;
  }
  return nullptr;
}

std::optional<ScriptKind> ScriptKindOfPath(std::string_view segment) {
  if (segment == "sprocs") return ScriptKind::kStoredProcedure;
  if (segment == "triggers") return ScriptKind::kTrigger;
  if (segment == "udfs") return ScriptKind::kUserDefinedFunction;
  return std::nullopt;
}

std::vector<ScriptPtr> ScriptSet::List(ScriptKind kind) const {
  std::shared_lock lock(mu_);
  return scripts_[static_cast<int>(kind)];
}

void ScriptSet::Create(ScriptKind kind, ScriptPtr script) {
  std::unique_lock lock(mu_);
  auto& list = scripts_[static_cast<int>(kind)];
  for (const auto& s : list) {
    if (s->id == script->id) throw errors::Conflict();
  }
  list.push_back(std::move(script));
}

void ScriptSet::Replace(ScriptKind kind, ScriptPtr script, const std::optional<std::string>& if_match) {
  std::unique_lock lock(mu_);
  for (auto& s : scripts_[static_cast<int>(kind)]) {
    if (s->id != script->id) continue;
    if (if_match && *if_match != "*" && *if_match != s->etag) throw errors::PreconditionFailed();
    s = std::move(script);
    return;
  }
  throw errors::NotFound();
}

void ScriptSet::Restore(std::vector<ScriptPtr> lists[3], uint32_t counter) {
  std::unique_lock lock(mu_);
  for (int i = 0; i < 3; ++i) scripts_[i] = std::move(lists[i]);
  counter_ = std::max(counter_.load(), counter);
}

bool ScriptSet::Delete(ScriptKind kind, const std::string& id) {
  std::unique_lock lock(mu_);
  auto& list = scripts_[static_cast<int>(kind)];
  auto it = std::find_if(list.begin(), list.end(), [&](const ScriptPtr& s) { return s->id == id; });
  if (it == list.end()) return false;
  list.erase(it);
  return true;
}

std::string Container::RangeRid(std::string_view range_id) const {
  // The service's first range is <container> 02 00 00 00 00 00 00 50; the range id goes in bytes 4-6.
  const uint64_t index = util::ParseInteger<uint64_t>(range_id).value_or(0);
  std::string bytes = rid_bytes_;
  bytes += std::string("\x02\0\0\0", 4);
  for (int i = 0; i < 3; ++i) bytes.push_back(static_cast<char>((index >> (8 * i)) & 0xFF));
  bytes.push_back('\x50');
  return RidEncode(bytes);
}

std::string Container::ToJson() const {
  auto s = settings();
  int64_t ts;
  std::string etag;
  {
    std::lock_guard lock(settings_mu_);
    ts = ts_;
    etag = etag_;
  }
  json::Document d;
  auto& a = d.GetAllocator();
  d.SetObject();
  d.AddMember("id", json::Value(id_.c_str(), static_cast<rapidjson::SizeType>(id_.size()), a), a);
  d.AddMember("indexingPolicy", json::Value(s->indexing.raw, a), a);
  json::Value pk;
  pk_.ToJson(pk, a);
  d.AddMember("partitionKey", pk, a);
  if (s->default_ttl) d.AddMember("defaultTtl", *s->default_ttl, a);
  if (s->unique_keys) d.AddMember("uniqueKeyPolicy", json::Value(s->unique_keys->raw, a), a);
  if (s->extra.IsObject()) {
    for (auto& m : s->extra.GetObject()) d.AddMember(json::Value(m.name, a), json::Value(m.value, a), a);
  }
  d.AddMember("_rid", json::Value(rid_.c_str(), a), a);
  d.AddMember("_ts", ts, a);
  d.AddMember("_self", json::Value(self_.c_str(), a), a);
  d.AddMember("_etag", json::Value(etag.c_str(), a), a);
  d.AddMember("_docs", "docs/", a);
  d.AddMember("_sprocs", "sprocs/", a);
  d.AddMember("_triggers", "triggers/", a);
  d.AddMember("_udfs", "udfs/", a);
  d.AddMember("_conflicts", "conflicts/", a);
  return json::Write(d);
}

// ---- Database ---------------------------------------------------------------------------------

std::string Database::ToJson() const {
  json::Document d;
  auto& a = d.GetAllocator();
  d.SetObject();
  d.AddMember("id", json::Value(id_.c_str(), static_cast<rapidjson::SizeType>(id_.size()), a), a);
  d.AddMember("_rid", json::Value(rid_.c_str(), a), a);
  d.AddMember("_self", json::Value(("dbs/" + rid_ + "/").c_str(), a), a);
  d.AddMember("_etag", json::Value(etag_.c_str(), a), a);
  d.AddMember("_colls", "colls/", a);
  d.AddMember("_users", "users/", a);
  d.AddMember("_ts", ts_, a);
  return json::Write(d);
}

ContainerPtr Database::FindContainer(const std::string& id) const {
  std::shared_lock lock(mu_);
  for (auto& c : containers_) {
    if (c->id() == id) return c;
  }
  return nullptr;
}

ContainerPtr Database::FindContainerByRid(const std::string& rid) const {
  std::shared_lock lock(mu_);
  for (auto& c : containers_) {
    if (c->rid() == rid) return c;
  }
  return nullptr;
}

std::vector<ContainerPtr> Database::Containers() const {
  std::shared_lock lock(mu_);
  return containers_;
}

void Database::AddContainer(ContainerPtr c) {
  std::unique_lock lock(mu_);
  for (auto& e : containers_) {
    if (e->id() == c->id()) throw errors::Conflict();
  }
  containers_.push_back(std::move(c));
}

void Database::NoteContainerCounter(uint32_t n) {
  uint32_t seen = container_counter_.load();
  while (seen < n && !container_counter_.compare_exchange_weak(seen, n)) {
  }
}

void Database::RestoreContainers(std::vector<ContainerPtr> containers) {
  std::unique_lock lock(mu_);
  containers_ = std::move(containers);
}

bool Database::RemoveContainer(const std::string& id) {
  std::unique_lock lock(mu_);
  auto it = std::find_if(containers_.begin(), containers_.end(), [&](auto& c) { return c->id() == id; });
  if (it == containers_.end()) return false;
  containers_.erase(it);
  return true;
}

// ---- Account ----------------------------------------------------------------------------------

std::string Account::NewEtag(int64_t ts) {
  uint64_t n = ++etag_counter_;
  char buf[64];
  std::snprintf(buf, sizeof buf, "\"%08llx-0000-0100-0000-%08llx0000\"", static_cast<unsigned long long>(n & 0xFFFFFFFF),
                static_cast<unsigned long long>(ts & 0xFFFFFFFF));
  return buf;
}

namespace {
template <typename T>
void RaiseTo(std::atomic<T>& counter, T n) {
  T seen = counter.load();
  while (seen < n && !counter.compare_exchange_weak(seen, n)) {
  }
}
}  // namespace

void Account::NoteCounters(const Counters& c) {
  RaiseTo(db_counter_, c.databases);
  RaiseTo(offer_counter_, c.offers);
  RaiseTo(etag_counter_, c.etags);
}

void Account::NoteEtag(std::string_view etag) {
  // "\"<8 hex digits: the counter's low 32 bits>-..." (NewEtag).
  if (etag.size() < 9 || etag[0] != '"') return;
  uint64_t n = 0;
  for (size_t i = 1; i < 9; ++i) {
    const char ch = etag[i];
    const int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
    if (d < 0) return;
    n = n * 16 + static_cast<uint64_t>(d);
  }
  // The counter may have passed 2^32: keep its high bits.
  const uint64_t current = etag_counter_.load();
  uint64_t full = (current & ~uint64_t{0xFFFFFFFF}) | n;
  if (full < current && current - full > (uint64_t{1} << 31)) full += uint64_t{1} << 32;
  RaiseTo(etag_counter_, full);
}

void Account::RestoreDatabase(DatabasePtr db) {
  std::unique_lock lock(mu_);
  for (auto& d : databases_) {
    if (d->id() == db->id()) {
      d = std::move(db);
      return;
    }
  }
  databases_.push_back(std::move(db));
}

OfferPtr Account::NewOffer(const std::string& resource_self, const std::string& resource_rid, Throughput t) {
  uint32_t n = ++offer_counter_;
  // A 3-byte resource id: 4 base64 characters, as the service's offer ids are.
  std::string bytes = {static_cast<char>(n & 0xFF), static_cast<char>((n >> 8) & 0xFF),
                       static_cast<char>((n >> 16) & 0xFF)};
  int64_t ts = NowSeconds();
  return std::make_shared<Offer>(RidEncode(bytes), resource_self, resource_rid, t, ts, NewEtag(ts));
}

std::vector<OfferPtr> Account::Offers() const {
  std::vector<OfferPtr> out;
  for (auto& db : Databases()) {
    if (db->offer()) out.push_back(db->offer());
    for (auto& c : db->Containers()) {
      if (c->offer()) out.push_back(c->offer());
    }
  }
  return out;
}

OfferPtr Account::FindOffer(std::string_view id) const {
  for (auto& o : Offers()) {
    if (o->id() == id) return o;
  }
  return nullptr;
}

DatabasePtr Account::CreateDatabase(const std::string& id, std::optional<Throughput> throughput) {
  std::unique_lock lock(mu_);
  for (auto& d : databases_) {
    if (d->id() == id) throw errors::Conflict();
  }
  uint32_t n = ++db_counter_;
  // 4-byte database resource id; the last byte stays 0 as in the service's ids.
  std::string bytes = {static_cast<char>(n & 0xFF), static_cast<char>((n >> 8) & 0xFF),
                       static_cast<char>(0x40 | ((n >> 16) & 0x3F)), '\0'};
  int64_t ts = NowSeconds();
  auto db = std::make_shared<Database>(id, RidEncode(bytes), ts, NewEtag(ts));
  if (throughput) db->set_offer(NewOffer("dbs/" + db->rid() + "/", db->rid(), *throughput));
  databases_.push_back(db);
  return db;
}

DatabasePtr Account::FindDatabase(const std::string& id) const {
  std::shared_lock lock(mu_);
  for (auto& d : databases_) {
    if (d->id() == id) return d;
  }
  return nullptr;
}

DatabasePtr Account::FindDatabaseByRid(const std::string& rid) const {
  std::shared_lock lock(mu_);
  for (auto& d : databases_) {
    if (d->rid() == rid) return d;
  }
  return nullptr;
}

std::vector<DatabasePtr> Account::Databases() const {
  std::shared_lock lock(mu_);
  return databases_;
}

bool Account::DeleteDatabase(const std::string& id) {
  std::unique_lock lock(mu_);
  auto it = std::find_if(databases_.begin(), databases_.end(), [&](auto& d) { return d->id() == id; });
  if (it == databases_.end()) return false;
  databases_.erase(it);
  return true;
}

ContainerPtr Account::CreateContainer(Database& db, const std::string& id, PartitionKeyDefinition pk,
                                      ContainerSettings settings, std::optional<Throughput> throughput,
                                      std::optional<int> partitions) {
  uint32_t n = db.NextContainerNumber();
  std::string bytes = RidDecode(db.rid());
  // Collection part: high bit set, as the service's collection ids have.
  bytes.push_back(static_cast<char>(0x80 | ((n >> 24) & 0x7F)));
  bytes.push_back(static_cast<char>((n >> 16) & 0xFF));
  bytes.push_back(static_cast<char>((n >> 8) & 0xFF));
  bytes.push_back(static_cast<char>(n & 0xFF));
  int64_t ts = NowSeconds();
  const std::string rid = RidEncode(bytes);
  if (!throughput && !db.offer()) throughput = Throughput{};  // the service provisions 400 RU/s
  OfferPtr offer = throughput ? NewOffer("dbs/" + db.rid() + "/colls/" + rid + "/", rid, *throughput) : nullptr;
  const int ru = (offer ? offer : db.offer())->throughput().ru;
  // The service starts a container with ceil(RU/s / 6,000) physical partitions (18,000 RU/s gives
  // three of 6,000 RU/s each), leaving room to scale each up to its 10,000 RU/s maximum without a split.
  const int count = partitions ? *partitions : partition_count_override_ ? *partition_count_override_
                                                                         : std::max(1, (ru + 5999) / 6000);
  OfferPtr shared = offer ? nullptr : db.offer();
  auto c = std::make_shared<Container>(id, rid, db.rid(), std::move(pk), std::move(settings), ts, NewEtag(ts),
                                       std::move(offer), std::move(shared), count);
  c->AttachJournal(journal_);
  db.AddContainer(c);
  return c;
}

}  // namespace cosmos::store
