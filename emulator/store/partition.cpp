// Physical partitions: items by key and by logical partition, their unique keys, writes and
// transactions, the change log, expiry, and the images recovery restores. (Their path, composite
// and vector indexes: partition_indexes.cpp; containers, databases, offers and the account:
// store.cpp.)
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/errors.h"
#include "store/epk.h"
#include "store/store.h"
#include "util/clock.h"
#include "util/util.h"

namespace cosmos::store {

// ---- PhysicalPartition ----------------------------------------------------------------------

namespace {

std::atomic<uint64_t> g_max_lsn{0};
void NoteLsn(uint64_t lsn) {
  uint64_t seen = g_max_lsn.load(std::memory_order_relaxed);
  while (seen < lsn && !g_max_lsn.compare_exchange_weak(seen, lsn, std::memory_order_relaxed)) {
  }
}
}  // namespace

uint64_t MaxLsnIssued() { return g_max_lsn.load(std::memory_order_relaxed); }

std::string PhysicalPartition::Key(std::string_view pk, std::string_view id) {
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
  // From the write's own time, to the millisecond: an item written at 10.95 s with a ttl of 8 is
  // there until 18.95 s (the JS SDK's TTL tests check it 7 s after the write, which the service
  // passes; counting from its whole-second _ts would end it at 18 s).
  return item.written().ms + ttl * 1000;
}

bool PhysicalPartition::IsLive(const ItemPtr& item, util::Instant now, std::optional<int64_t> default_ttl) {
  if (!item) return false;
  if (!default_ttl) return true;  // (without reading the item)
  auto at = ExpiresAt(*item, default_ttl);
  return !(at && *at <= now.ms);
}

ItemPtr PhysicalPartition::Live(const ItemPtr& item, util::Instant now, std::optional<int64_t> default_ttl) {
  if (!item) return item;
  auto at = ExpiresAt(*item, default_ttl);
  return at && *at <= now.ms ? nullptr : item;
}

ItemPtr PhysicalPartition::Read(const std::string& pk, const std::string& id, util::Instant now,
                                const ItemPolicy& policy) const {
  std::shared_lock lock(mu_);
  auto it = by_key_.find(ItemKey{pk, id});
  if (it == by_key_.end()) return nullptr;
  return Live(it->item, now, policy.default_ttl);
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
  for (const auto& slot : by_key_) {
    if (auto at = ExpiresAt(*slot.item, default_ttl)) expiry_.emplace(*at, slot.item->seq);
  }
}

void PhysicalPartition::KeepLog(int64_t now, const ItemPolicy& policy, bool start) {
  // Without a changeFeedPolicy the account's retention applies. Such a partition keeps no log
  // until the first all-versions read of it (`start`), so that containers nobody reads that way
  // hold no history; a read from before then answers as one from before the retention window.
  if (!policy.retention_seconds && !logging_ && !start) return;
  if (!logging_) {  // switched on now: the log starts with the next change
    logging_ = true;
    log_after_lsn_ = lsn_;
    log_since_ = by_key_.empty() && lsn_ == 0 ? 0 : now + 1;
  }
  const int64_t oldest = now - policy.retention_seconds.value_or(kAccountLogRetentionSeconds);
  while (!log_.empty() && log_.front().crts < oldest) {
    log_after_lsn_ = log_.front().lsn;
    log_since_ = log_.front().crts + 1;
    log_.pop_front();
  }
}

void PhysicalPartition::Record(Change change) {
  if (journal_) journal_->ItemsChanged(*this, std::span<const Change>(&change, 1));
  if (logging_) log_.push_back(std::move(change));
}

void PhysicalPartition::RecordGroup(std::vector<Change> changes) {
  if (journal_) journal_->ItemsChanged(*this, changes);
  if (logging_) {
    for (auto& change : changes) log_.push_back(std::move(change));
  }
}

void PhysicalPartition::IndexUnique(const Item& item, bool add) {
  if (!unique_) return;
  for (auto& tuple : unique_->Tuples(item.body)) {
    if (add) {
      unique_index_[UniqueSlot(item.pk(), tuple)] = item.id();
    } else if (auto it = unique_index_.find(UniqueSlot(item.pk(), tuple)); it != unique_index_.end() && it->second == item.id()) {
      unique_index_.erase(it);
    }
  }
}

void PhysicalPartition::CheckUniqueLocked(const Item& item, std::string_view previous_id) const {
  if (!unique_) return;
  for (auto& tuple : unique_->Tuples(item.body)) {
    auto it = unique_index_.find(UniqueSlot(item.pk(), tuple));
    if (it != unique_index_.end() && it->second != item.id() && it->second != previous_id) throw errors::ItemConflict();
  }
}

void PhysicalPartition::CheckRenameLocked(const ItemPtr& current, const Item& item) const {
  if (!current || current->id() == item.id()) return;
  if (by_key_.contains(ItemKey{item.pk(), item.id()})) throw errors::ItemConflict();
}

void PhysicalPartition::Remove(ItemsByKey::iterator it) {
  const ItemPtr held = it->item;  // (the slot goes last)
  const Item& item = *held;
  IndexUnique(item, false);
  by_seq_.erase(item.seq);
  by_lsn_.erase(LsnKey{item.lsn, item.seq});
  if (auto pk = by_pk_lsn_.find(std::string(item.pk())); pk != by_pk_lsn_.end()) {
    pk->second.erase(LsnKey{item.lsn, item.seq});
    if (pk->second.empty()) by_pk_lsn_.erase(pk);
  }
  if (auto pk = by_pk_seq_.find(std::string(item.pk())); pk != by_pk_seq_.end()) {
    pk->second.erase(item.seq);
    if (pk->second.empty()) by_pk_seq_.erase(pk);
  }
  for (auto& [name, slot] : indexes_) slot.index->Remove(item);
  for (auto& [name, b] : building_) {
    if (item.seq < b.next) b.index->Remove(item);
  }
  if (auto at = ExpiresAt(item, expiry_ttl_)) expiry_.erase({*at, item.seq});
  if (item.unindexed) --unindexed_;
  by_key_.erase(it);
}

void PhysicalPartition::Store(ItemsByKey::iterator slot, ItemPtr item) {
  const ItemPtr current = slot == by_key_.end() ? nullptr : slot->item;
  // A replace whose body named another id renames the item: it keeps its rid and place in the
  // feed and moves to the key of its new id (the service renames it; .NET's Resource.Id is "not
  // immutable", and Microsoft's Python SDK tests rename items by replace and in batches).
  const bool renamed = current && current->id() != item->id();
  auto& logical = by_pk_lsn_[std::string(item->pk())];
  if (unique_) {
    if (current) IndexUnique(*current, false);
    IndexUnique(*item, true);
  }
  if (current && current->unindexed) --unindexed_;
  if (item->unindexed) ++unindexed_;
  if (current) {
    by_lsn_.erase(LsnKey{current->lsn, current->seq});
    logical.erase(LsnKey{current->lsn, current->seq});
    if (auto at = ExpiresAt(*current, expiry_ttl_)) expiry_.erase({*at, current->seq});
  }
  if (auto at = ExpiresAt(*item, expiry_ttl_)) expiry_.emplace(*at, item->seq);
  // LSNs and new sequence numbers only grow: placed at the end without a walk down the tree (the
  // items of one transaction share an LSN, and may go before the last one by sequence number).
  auto put = [](auto& m, const auto& k, const ItemPtr& v) {
    if (m.empty() || m.rbegin()->first < k) {
      m.emplace_hint(m.end(), k, v);
    } else {
      m[k] = v;
    }
  };
  const LsnKey at{item->lsn, item->seq};
  put(by_lsn_, at, item);
  logical.insert(logical.empty() || *logical.rbegin() < at ? logical.end() : logical.lower_bound(at), at);
  put(by_seq_, item->seq, item);
  if (!current) {
    auto& own = by_pk_seq_[std::string(item->pk())];
    own.insert(own.end(), item->seq);  // (the same: a new item's seq is the highest)
  }
  for (auto& [name, slot] : indexes_) {
    if (current) slot.index->Remove(*current);
    slot.index->Add(*item);
  }
  // An index being built holds the items below its `next`; the builder reads the others as they
  // are then (a replace keeps its item's sequence number, a new item takes the highest).
  for (auto& [name, b] : building_) {
    if (current && current->seq < b.next) b.index->Remove(*current);
    if (item->seq < b.next) b.index->Add(*item);
  }
  if (current) {
    if (!renamed) {
      slot->item = std::move(item);
      return;
    }
    by_key_.erase(slot);
  }
  by_key_.insert(ItemSlot{std::move(item)});
}

std::vector<ItemPtr> PhysicalPartition::FeedOfKey(const std::string& pk, uint64_t after_seq, size_t max_items,
                                                  util::Instant now, const ItemPolicy& policy) const {
  std::shared_lock lock(mu_);
  std::vector<ItemPtr> out;
  auto found = by_pk_seq_.find(pk);
  if (found == by_pk_seq_.end()) return out;
  for (auto it = found->second.upper_bound(after_seq); it != found->second.end(); ++it) {
    auto item = by_seq_.find(*it);
    if (item == by_seq_.end() || !Visible(item->second, now, policy)) continue;
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

bool PhysicalPartition::HasLiveItems(const std::string& pk, util::Instant now, const ItemPolicy& policy) const {
  std::shared_lock lock(mu_);
  auto found = by_pk_seq_.find(pk);
  if (found == by_pk_seq_.end()) return false;
  for (uint64_t seq : found->second) {
    auto item = by_seq_.find(seq);
    if (item != by_seq_.end() && Visible(item->second, now, policy)) return true;
  }
  return false;
}

void PhysicalPartition::ExpireItems(util::Instant now, const ItemPolicy& policy, bool start_log) {
  JournalHold hold(journal_);
  std::unique_lock lock(mu_);
  if (start_log) KeepLog(now.seconds(), policy, /*start=*/true);
  ExpireLocked(now, policy);
}

void PhysicalPartition::ExpireLocked(util::Instant now, const ItemPolicy& policy) {
  IndexExpiry(policy.default_ttl);
  KeepLog(now.seconds(), policy);
  while (!expiry_.empty() && expiry_.begin()->first <= now.ms) {
    const Item& due = *by_seq_.at(expiry_.begin()->second);
    auto it = by_key_.find(ItemKey{due.pk(), due.id()});
    Record({lsn_ + 1, ChangeKind::kDelete, nullptr, it->item, now.seconds(), true});  // first: see Apply
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
  if (pre.if_match && current && *pre.if_match != "*" && *pre.if_match != current->etag())
    throw errors::PreconditionFailed();
  // An upsert's If-Match applies to the item it would replace: with none, it creates (the official
  // emulator's answer that the Python SDK's test_etag_match_condition_compatibility expects).
  if (pre.if_none_match && current && (*pre.if_none_match == "*" || *pre.if_none_match == current->etag()))
    throw errors::PreconditionFailed();
}

void PhysicalPartition::AwaitUnreserved(std::unique_lock<std::shared_mutex>& lock, const std::string& pk) {
  if (reserved_.empty()) return;
  released_.wait(lock, [&] { return reserved_.count(pk) == 0; });
}

std::unique_lock<std::shared_mutex> PhysicalPartition::LockToWrite(JournalHold& hold, const std::string& pk) {
  for (;;) {
    // A write holds the lock for microseconds: a writer that finds it taken tries again for about
    // as long before it sleeps in the kernel (a futex wait and a wake-up, each a system call and
    // a context switch, cost more than the wait).
    std::unique_lock lock(mu_, std::defer_lock);
    for (int i = 0; i < 128 && !lock.try_lock(); ++i) util::CpuRelax();
    if (!lock.owns_lock()) lock.lock();
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

std::vector<ItemPtr> PhysicalPartition::LogicalItemsLocked(const std::string& pk, util::Instant now,
                                                           std::optional<int64_t> default_ttl) const {
  std::vector<ItemPtr> out;
  auto found = by_pk_lsn_.find(pk);
  if (found == by_pk_lsn_.end()) return out;
  out.reserve(found->second.size());
  for (const LsnKey& at : found->second) {
    const ItemPtr& item = by_lsn_.at(at);
    if (IsLive(item, now, default_ttl)) out.push_back(item);
  }
  return out;
}

Transaction::~Transaction() {
  std::unique_lock lock(part_.mu_);
  part_.reserved_.erase(pk_);
  part_.released_.notify_all();
}

ItemPtr Transaction::Read(const std::string& id, util::Instant now) const {
  if (auto it = overlay_.find(id); it != overlay_.end()) return PhysicalPartition::Live(it->second, now, policy_.default_ttl);
  return part_.Read(pk_, id, now, policy_);
}

std::vector<ItemPtr> Transaction::Items(util::Instant now) const {
  std::vector<ItemPtr> items;
  {
    std::shared_lock lock(part_.mu_);
    items = part_.LogicalItemsLocked(pk_, now, policy_.default_ttl);
  }
  if (!overlay_.empty()) {
    std::erase_if(items, [&](const ItemPtr& item) { return overlay_.count(std::string(item->id())) > 0; });
    for (const auto& [id, item] : overlay_) {
      if (PhysicalPartition::IsLive(item, now, policy_.default_ttl)) items.push_back(item);
    }
  }
  std::sort(items.begin(), items.end(), [](const ItemPtr& a, const ItemPtr& b) { return a->seq < b->seq; });
  return items;
}

ItemPtr Transaction::ReadByRid(const std::string& rid, util::Instant now) const {
  for (const auto& item : Items(now)) {
    if (item->rid() == rid) return item;
  }
  return nullptr;
}

WriteResult Transaction::Write(WriteKind kind, const std::string& id, const Preconditions& pre, util::Instant now,
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
  // A replace that renames the item (PhysicalPartition::Store): its new id must be free.
  const bool renamed = current && item->id() != id;
  if (renamed && Read(std::string(item->id()), now)) throw errors::ItemConflict();
  CheckUnique(*item, now, current ? current->id() : item->id());
  ops_.push_back({id, item});
  if (renamed) overlay_[id] = nullptr;
  overlay_[std::string(item->id())] = item;
  result.item = std::move(item);
  result.created = !current;
  return result;
}

void Transaction::CheckUnique(const Item& item, util::Instant now, std::string_view previous_id) const {
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
    if (id != item.id() && id != previous_id && PhysicalPartition::IsLive(staged, now, policy_.default_ttl) &&
        taken(*staged))
      throw errors::Conflict();
  }
  std::shared_lock lock(part_.mu_);
  for (auto& t : tuples) {
    auto it = part_.unique_index_.find(PhysicalPartition::UniqueSlot(pk_, t));
    if (it == part_.unique_index_.end() || it->second == item.id() || it->second == previous_id ||
        overlay_.count(it->second))
      continue;
    auto holder = part_.by_key_.find(ItemKey{pk_, it->second});
    if (holder != part_.by_key_.end() && PhysicalPartition::IsLive(holder->item, now, policy_.default_ttl))
      throw errors::ItemConflict();
  }
}

uint64_t Transaction::Commit(util::Instant now) {
  JournalHold hold(part_.journal_);
  std::unique_lock lock(part_.mu_);
  if (done_) return part_.lsn_;
  part_.ExpireLocked(now, policy_);
  // Every change first, each against the version the ones before it left (`after`: key -> image,
  // null once deleted), all with the next LSN; then recorded as one unit, then applied.
  const uint64_t lsn = part_.lsn_ + 1;
  std::vector<Change> changes;
  std::vector<std::string> ids;  // the stored version each change replaces or deletes
  std::unordered_map<std::string, ItemPtr> after;
  for (auto& op : ops_) {
    const std::string key = PhysicalPartition::Key(pk_, op.id);
    ItemPtr current;
    if (auto seen = after.find(key); seen != after.end()) {
      current = seen->second;
    } else if (auto it = part_.by_key_.find(ItemKey{pk_, op.id}); it != part_.by_key_.end()) {
      current = it->item;
    }
    if (!op.item && !current) continue;  // deleted, and expired while the script ran
    // Staged images were made by this transaction and are published only now: setting their LSN
    // is the last change they see.
    if (op.item) const_cast<Item&>(*op.item).lsn = lsn;
    const ChangeKind kind = !op.item ? ChangeKind::kDelete : current ? ChangeKind::kReplace : ChangeKind::kCreate;
    changes.push_back({lsn, kind, op.item, current, now.seconds(), false});
    ids.push_back(op.id);
    if (op.item && op.item->id() != op.id) {  // renamed: it moves to the key of its new id
      after[key] = nullptr;
      after[PhysicalPartition::Key(pk_, op.item->id())] = op.item;
    } else {
      after[key] = op.item;
    }
  }
  done_ = true;
  if (changes.empty()) return part_.lsn_;
  // Recorded first, as Apply does: when the journal cannot write the record nothing changes.
  part_.RecordGroup(changes);
  part_.NextLsn();
  for (size_t i = 0; i < changes.size(); ++i) part_.ApplyRecorded(pk_, ids[i], changes[i]);
  return part_.lsn_;
}

WriteResult PhysicalPartition::Write(WriteKind kind, const std::string& pk, const std::string& id,
                                     const Preconditions& pre, util::Instant now, const ItemPolicy& policy,
                                     const Maker& make) {
  JournalHold hold(journal_);
  auto lock = LockToWrite(hold, pk);
  ExpireLocked(now, policy);
  auto it = by_key_.find(ItemKey{pk, id});
  ItemPtr current = it == by_key_.end() ? nullptr : it->item;
  WriteResult result;
  CheckWrite(kind, current, pre);
  result.previous = current;
  if (kind == WriteKind::kDelete) {
    result.lsn = Apply(it, nullptr, now);
    return result;
  }
  const uint64_t seq = current ? current->seq : next_seq_;
  ItemPtr item = make(current, seq, lsn_ + 1);  // may throw: nothing has changed yet
  CheckRenameLocked(current, *item);
  CheckUniqueLocked(*item, current ? current->id() : item->id());
  if (!current) ++next_seq_;
  result.lsn = Apply(it, item, now);
  result.item = std::move(item);
  result.created = !current;
  return result;
}

PhysicalPartition::LogicalDelete PhysicalPartition::DeleteLogicalPartition(const std::string& pk, util::Instant now,
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
    for (const LsnKey& at : found->second) items.push_back(by_lsn_.at(at));
    for (const auto& item : items) {
      auto it = by_key_.find(ItemKey{pk, item->id()});
      if (it == by_key_.end()) continue;
      Apply(it, nullptr, now);
      ++out.deleted;
    }
  }
  out.lsn = lsn_;
  return out;
}

uint64_t PhysicalPartition::Apply(ItemsByKey::iterator it, ItemPtr item, util::Instant now) {
  ItemPtr current = it == by_key_.end() ? nullptr : it->item;
  // Recorded first: when the journal cannot write the record (the disk refuses it) it throws and
  // nothing has changed here, so the partition never holds a change that was not acknowledged.
  const uint64_t lsn = lsn_ + 1;
  const ChangeKind kind = !item ? ChangeKind::kDelete : current ? ChangeKind::kReplace : ChangeKind::kCreate;
  Record({lsn, kind, item, current, now.seconds(), false});
  NextLsn();
  if (!item) {
    Remove(it);
  } else {
    const bool created = !current;
    Store(it, std::move(item));
    if (created) NoteGrowth();
  }
  return lsn;
}

void PhysicalPartition::ApplyRecorded(std::string_view pk, std::string_view id, const Change& change) {
  auto it = by_key_.find(ItemKey{pk, id});
  if (!change.current) {
    if (it != by_key_.end()) Remove(it);
    return;
  }
  const bool created = it == by_key_.end();
  Store(it, change.current);
  if (created) NoteGrowth();
}

std::vector<ItemPtr> PhysicalPartition::Feed(uint64_t after_seq, size_t max_items, util::Instant now,
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
    if (!Visible(it->second, now, policy)) continue;
    out.push_back(it->second);
    if (max_items && out.size() >= max_items) break;
  }
  return out;
}

ChangePage<ItemPtr> PhysicalPartition::LatestChanges(uint64_t after_lsn, size_t max_items, const ItemFilter& keep,
                                                     util::Instant now, const ItemPolicy& policy,
                                                     const std::string* pk) const {
  std::shared_lock lock(mu_);
  ChangePage<ItemPtr> page;
  page.resume_lsn = lsn_;
  std::optional<uint64_t> last;  // once the page is full: the LSN whose items it still takes
  auto take = [&](const ItemPtr& item) {  // false once the page is done
    if (last && item->lsn != *last) return false;
    if (!IsLive(item, now, policy.default_ttl) || !keep(*item)) return true;
    page.entries.push_back(item);
    if (!last && page.entries.size() == max_items) {
      last = item->lsn;
      page.resume_lsn = item->lsn;
    }
    return true;
  };
  const LsnKey after{after_lsn, UINT64_MAX};
  if (!pk) {
    for (auto it = by_lsn_.upper_bound(after); it != by_lsn_.end() && take(it->second); ++it) {
    }
    return page;
  }
  auto found = by_pk_lsn_.find(*pk);
  if (found == by_pk_lsn_.end()) return page;
  for (auto it = found->second.upper_bound(after); it != found->second.end() && take(by_lsn_.at(*it)); ++it) {
  }
  return page;
}

// The sentence the service's refusals of all-versions reads carry (the SDKs' tests look for it).
constexpr const char* kRetentionSentence = "You must read the change feed from within the retention period.";

void PhysicalPartition::CheckLogReaches(uint64_t after_lsn) const {
  if (!logging_ || after_lsn < log_after_lsn_)
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
  std::optional<uint64_t> last;  // once the page is full: the LSN whose changes it still takes
  for (auto it = first; it != log_.end(); ++it) {
    if (last && it->lsn != *last) break;
    if (!keep(it->current ? *it->current : *it->previous)) continue;
    page.entries.push_back(*it);
    if (!last && page.entries.size() == max_items) {
      last = it->lsn;
      page.resume_lsn = it->lsn;
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
  for (const auto& [at, item] : by_lsn_) {
    if (item->ts >= since) return at.first - 1;
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
    building_.clear();  // its builder sees that and gives up
  }
  expiry_.clear();
  unindexed_ = 0;
  unique_index_.clear();
  expiry_ttl_ = policy.default_ttl;
  by_key_.reserve(state.items.size());
  for (auto& item : state.items) Store(by_key_.end(), std::move(item));
  lsn_ = state.lsn;
  NoteLsn(lsn_);
  next_seq_ = state.next_seq;
  logging_ = state.logging;
  log_after_lsn_ = state.log_after_lsn;
  log_since_ = state.log_since;
  log_ = std::move(state.log);
}

void PhysicalPartition::Replay(uint64_t lsn, ItemPtr image, const std::string& pk, const std::string& id,
                               int64_t crts, bool ttl_expired, const ItemPolicy& policy, const std::string& was) {
  std::unique_lock lock(mu_);
  if (lsn <= lsn_) return;
  IndexExpiry(policy.default_ttl);
  KeepLog(crts, policy);
  lsn_ = lsn;
  NoteLsn(lsn);
  ReplayLocked(lsn, std::move(image), pk, id, crts, ttl_expired, was);
}

void PhysicalPartition::ReplayGroup(uint64_t lsn, const std::vector<Replayed>& changes, int64_t crts,
                                    const ItemPolicy& policy) {
  std::unique_lock lock(mu_);
  if (lsn <= lsn_) return;  // the whole transaction is in the state already
  IndexExpiry(policy.default_ttl);
  KeepLog(crts, policy);
  lsn_ = lsn;
  NoteLsn(lsn);
  for (const auto& c : changes) ReplayLocked(lsn, c.image, c.pk, c.id, crts, false, c.was);
}

void PhysicalPartition::ReplayLocked(uint64_t lsn, ItemPtr image, const std::string& pk, const std::string& id,
                                     int64_t crts, bool ttl_expired, const std::string& was) {
  auto it = by_key_.find(ItemKey{pk, was.empty() ? std::string_view(id) : std::string_view(was)});
  ItemPtr current = it == by_key_.end() ? nullptr : it->item;
  if (!image) {
    if (it != by_key_.end()) Remove(it);
    if (current && logging_) log_.push_back({lsn, ChangeKind::kDelete, nullptr, std::move(current), crts, ttl_expired});
    return;
  }
  next_seq_ = std::max(next_seq_, image->seq + 1);
  Store(it, image);
  const ChangeKind kind = current ? ChangeKind::kReplace : ChangeKind::kCreate;
  if (logging_) log_.push_back({lsn, kind, std::move(image), std::move(current), crts, false});
}

}  // namespace cosmos::store
