// The in-memory account: databases, containers, physical partitions and items. Knows no HTTP.
// Items are immutable snapshots shared by pointer, so readers never hold a lock while answering.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <pthread.h>
#include <set>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <absl/container/btree_map.h>

#include "json/json.h"
#include "util/clock.h"
#include "util/util.h"
#include "store/computed_properties.h"
#include "store/indexing.h"
#include "store/full_text_policy.h"
#include "store/vector_policy.h"
#include "store/partition_key.h"
#include "store/path_index.h"
#include "store/vector_index.h"
#include "store/encryption_keys.h"
#include "store/users.h"
#include "store/unique_keys.h"
#include "store/item.h"

namespace cosmos::store {

// What a write did, for the response and the charge.
struct WriteResult {
  ItemPtr item;           // the new image (null for deletes)
  ItemPtr previous;       // the replaced or deleted image, if any
  bool created = false;   // upsert: true when it inserted
  uint64_t lsn = 0;
};

enum class WriteKind { kCreate, kReplace, kUpsert, kDelete };

struct Preconditions {
  std::optional<std::string> if_match;       // quoted etag or "*"
  std::optional<std::string> if_none_match;  // quoted etag or "*": 412 when the current version matches
};

// What a partition needs from its container's settings to keep items.
struct ItemPolicy {
  std::optional<int64_t> default_ttl;        // nullopt: TTL off; -1: on, items opt in; n: seconds
  std::optional<int64_t> retention_seconds;  // how long the all-versions-and-deletes log keeps
                                             // changes; nullopt: no changeFeedPolicy, the account's
                                             // retention (kAccountLogRetentionSeconds) applies
  // Only items in the index are seen (a query of a container in consistent mode): those left out
  // of it (Item::unindexed) are skipped.
  bool indexed_only = false;
};

// The account's retention of the all-versions-and-deletes log, for containers without a
// changeFeedPolicy: the service keeps that feed for the account's continuous-backup period (its
// documentation of change feed modes), 7 days in the default tier.
inline constexpr int64_t kAccountLogRetentionSeconds = 7 * 24 * 3600;

// One entry of the all-versions-and-deletes log. Upserts log as creates or replaces. The changes
// of one transaction share their LSN.
enum class ChangeKind { kCreate, kReplace, kDelete };
struct Change {
  uint64_t lsn = 0;
  ChangeKind kind = ChangeKind::kCreate;
  ItemPtr current;   // the new version; null for deletes
  ItemPtr previous;  // the version replaced or deleted; null for creates
  int64_t crts = 0;  // when the change committed (Unix seconds)
  bool ttl_expired = false;
};

// Which items of a partition a feed reads (a logical partition, an EPK range, or all).
using ItemFilter = std::function<bool(const Item&)>;

// A change feed page: what it returns and the LSN the next page continues after. A page never
// ends inside the changes of one LSN (one transaction's): it takes them all, however many.
template <typename T>
struct ChangePage {
  std::vector<T> entries;
  uint64_t resume_lsn = 0;
};

// The highest log sequence number any partition of this process has assigned.
uint64_t MaxLsnIssued();

class Account;
class PhysicalPartition;

// One split of a partition key range: `parent` becomes `left` [parent's min, at) and `right`
// [at, parent's max). The etag is the partition key range feed's after the split.
struct RangeSplit {
  std::string parent;
  std::string at;
  std::string left;
  std::string right;
  int64_t ts = 0;
  std::string etag;
};

// Where a persistent account writes its changes (persist/state.h implements it; null for an
// account that lives in memory only). The store calls ItemsChanged for every commit of a
// journaled partition, under that partition's exclusive lock, in LSN order; the HTTP pipeline
// calls DatabaseChanged after a request that changed a database's resources, and AwaitDurable
// before it answers.
class Journal {
 public:
  virtual ~Journal() = default;
  // Records one commit as one unit: one change (an item created, replaced or deleted, TTL deletes
  // included), or the changes of a transaction, which share their LSN, in order. Throws when the
  // record cannot be written: the changes must then not be acknowledged.
  virtual void ItemsChanged(const PhysicalPartition& p, std::span<const Change> changes) = 0;
  // Records database `id` as it now is (its offer, containers, scripts, users, permissions and
  // client encryption keys), or its deletion when it no longer exists.
  virtual void DatabaseChanged(const std::string& id) = 0;
  // Records that a range of container `container_rid` was split (under the journal's gate, after
  // the changes of the parent and before any of its children).
  virtual void RangesSplit(const std::string& container_rid, const RangeSplit& split) = 0;
  // Records the account's own settings as they now are: its data-plane roles (Account::roles).
  virtual void AccountChanged() = 0;
  // Waits until every record this thread wrote is durable; throws when it cannot be.
  virtual void AwaitDurable() = 0;
  // Forgets what this thread wrote (a new request starts).
  virtual void ForgetThread() = 0;
  // Why no record can be written any more (the disk refused one: nothing may follow a record that
  // may be partial), or empty. Requests that would change metadata are refused before they run.
  virtual std::string Failure() const = 0;

  // Held shared by every change while it is applied and recorded, and exclusively while a
  // checkpoint captures the state, so that the capture and the log agree. Writers wait for a
  // pending exclusive hold (a checkpoint is never starved by a steady stream of writes).
  class Gate {
   public:
    void lock_shared();
    void unlock_shared();
    void lock();
    void unlock();

   private:
    std::mutex mu_;
    std::condition_variable cv_;
    int readers_ = 0;
    bool writer_ = false;   // held exclusively
    int writers_waiting_ = 0;
  };
  Gate& gate() { return gate_; }

 private:
  Gate gate_;
};

// Holds a journal's gate shared for one change (nothing when there is no journal).
class JournalHold {
 public:
  explicit JournalHold(Journal* j) : j_(j) { Acquire(); }
  ~JournalHold() { Release(); }
  JournalHold(const JournalHold&) = delete;
  JournalHold& operator=(const JournalHold&) = delete;
  void Acquire() {
    if (j_ && !held_) j_->gate().lock_shared();
    held_ = true;
  }
  void Release() {
    if (j_ && held_) j_->gate().unlock_shared();
    held_ = false;
  }

 private:
  Journal* j_;
  bool held_ = false;
};

// Request units a physical partition may still spend: a bucket refilled at the partition's share
// of the provisioned RU/s, holding at most one second's worth. Used only when rate limiting is on.
struct RuBucket {
  std::mutex mu;
  bool started = false;
  double tokens = 0;
  int64_t at_ms = 0;        // when `tokens` was last brought up to date
  double mean_charge = 0;   // recent charges (moving average): how long one more request needs
  int64_t promised_ms = 0;  // the latest retry time handed out with a 429
};

// A stored procedure's, trigger's or transactional batch's view of one logical partition. Reads
// see the transaction's own writes; writes are staged and applied together by Commit, all with one
// LSN (as the service commits a transaction: Microsoft's Python SDK's test_batch_lsn), or dropped
// when the transaction ends without one. One transaction per logical partition at a time: Begin
// waits for the previous one to end, and direct writes to that logical partition wait too, so a
// script sees only committed state and nothing changes under it.
class Transaction {
 public:
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();  // rolls back unless committed, and frees the logical partition

  const std::string& pk() const { return pk_; }
  PhysicalPartition& partition() const { return part_; }
  ItemPtr Read(const std::string& id, util::Instant now) const;
  ItemPtr ReadByRid(const std::string& rid, util::Instant now) const;
  // The logical partition's live items, in feed (creation) order.
  std::vector<ItemPtr> Items(util::Instant now) const;
  // As PhysicalPartition::Write, staged. The result's lsn is 0 until Commit.
  using Maker = std::function<ItemPtr(const ItemPtr& current, uint64_t seq, uint64_t lsn)>;
  WriteResult Write(WriteKind kind, const std::string& id, const Preconditions& pre, util::Instant now, const Maker& make);
  bool empty() const { return ops_.empty(); }  // nothing staged
  // Applies every staged write in order, all with the partition's next LSN, recorded as one unit;
  // returns the partition's LSN after them (unchanged when nothing was staged).
  uint64_t Commit(util::Instant now);

 private:
  friend class PhysicalPartition;
  Transaction(PhysicalPartition& part, std::string pk, ItemPolicy policy)
      : part_(part), pk_(std::move(pk)), policy_(policy) {}
  // 409 when another item of the logical partition, staged or committed, holds one of `item`'s
  // unique-key values.
  // (`previous_id`: the id the item had before a rename, whose values are its own.)
  void CheckUnique(const Item& item, util::Instant now, std::string_view previous_id) const;
  struct Op {
    std::string id;  // the id the item had (a rename's new one is item->id)
    ItemPtr item;    // the new image; null for deletes
  };
  PhysicalPartition& part_;
  const std::string pk_;
  const ItemPolicy policy_;
  std::vector<Op> ops_;
  std::unordered_map<std::string, ItemPtr> overlay_;  // id -> latest staged image (null: deleted)
  bool done_ = false;
};

// A physical partition: one partition key range [min_epk, max_epk) with its own lock and log
// sequence number.
class PhysicalPartition {
 public:
  // `unique`: the container's unique keys (fixed at creation), kept per logical partition.
  // `first_seq`: the first item sequence number; the partitions of a container count from
  // different ones, so that the resource ids made from them (Container::ItemRid) never meet.
  PhysicalPartition(std::string range_id, std::string min_epk, std::string max_epk, UniqueKeysPtr unique = nullptr,
                    uint64_t first_seq = 1)
      : range_id_(std::move(range_id)),
        min_epk_(std::move(min_epk)),
        max_epk_(std::move(max_epk)),
        next_seq_(first_seq),
        unique_(unique && !unique->empty() ? std::move(unique) : nullptr) {}
  const std::string& range_id() const { return range_id_; }
  const std::string& min_epk() const { return min_epk_; }
  const std::string& max_epk() const { return max_epk_; }
  RuBucket& bucket() const { return bucket_; }
  // Where the range came from: the ranges it was split from, oldest first (empty for a range the
  // container was created with), and when it was made (Unix seconds).
  const std::vector<std::string>& parents() const { return parents_; }
  int64_t created_ts() const { return created_ts_; }
  void SetLineage(std::vector<std::string> parents, int64_t ts) {
    parents_ = std::move(parents);
    created_ts_ = ts;
  }
  // Whether `range` is this range or one it descends from.
  bool DescendsFrom(std::string_view range) const;
  // Frees what a range that was split still holds (its children hold the items now).
  void Retire();

  ItemPtr Read(const std::string& pk, const std::string& id, util::Instant now, const ItemPolicy& policy) const;
  uint64_t lsn() const;

  // Applies one write under the partition lock, after deleting the items whose time to live has
  // run out (each delete takes its own LSN). `make` builds the new stored item from the current
  // image (null when absent) and the values (seq, lsn) the partition assigns.
  using Maker = std::function<ItemPtr(const ItemPtr& current, uint64_t seq, uint64_t lsn)>;
  WriteResult Write(WriteKind kind, const std::string& pk, const std::string& id, const Preconditions& pre,
                    util::Instant now, const ItemPolicy& policy, const Maker& make);

  // Deletes the items whose time to live ran out by `now`, in expiry order, each with its own LSN
  // (logged as a TTL delete). Brings the all-versions log in line with the policy. Writes and
  // change-feed reads call it first. `start_log`: an all-versions read, which starts the log of a
  // partition whose container has no changeFeedPolicy (the log of one with a policy starts with it).
  void ExpireItems(util::Instant now, const ItemPolicy& policy, bool start_log = false);

  // Items in feed order with seq > after_seq, at most max_items (0 = all).
  std::vector<ItemPtr> Feed(uint64_t after_seq, size_t max_items, util::Instant now, const ItemPolicy& policy) const;
  size_t Count() const;
  // The sequence numbers of the first and the last item stored (nullopt: none), for splitting a
  // scan of the partition into parts.
  std::optional<std::pair<uint64_t, uint64_t>> SeqSpan() const;
  // The same for the items of logical partition `pk` only (read through its own sequence index).
  std::vector<ItemPtr> FeedOfKey(const std::string& pk, uint64_t after_seq, size_t max_items, util::Instant now,
                                 const ItemPolicy& policy) const;
  // How many items (live or expired) logical partition `pk` holds here.
  size_t CountOfKey(const std::string& pk) const;
  // Whether logical partition `pk` has a live item here.
  bool HasLiveItems(const std::string& pk, util::Instant now, const ItemPolicy& policy) const;

  // Path indexes (path_index.h), built the first time a query asks for a path and kept in step
  // with every change from then on (at most kMaxPathIndexes per partition; the least recently
  // used goes first). Which paths a query may use is the indexing policy's decision, not theirs.
  static constexpr size_t kMaxPathIndexes = 32;
  // The sequence numbers of the items whose value at `path` has a key in `ranges`, ascending;
  // nullopt when there are more than `cap` (reading them all is then no faster than a scan).
  std::optional<std::vector<uint64_t>> IndexLookup(const DocPath& path, const std::vector<KeyRange>& ranges,
                                                   size_t cap) const;
  // The live items among `seqs` (ascending), from position `next` on, at most max_items; `next`
  // moves past the ones read.
  std::vector<ItemPtr> ItemsBySeq(const std::vector<uint64_t>& seqs, size_t& next, size_t max_items, util::Instant now,
                                  const ItemPolicy& policy) const;
  // How many entries of the index of `path` fall in `ranges` (which must not overlap).
  size_t IndexCount(const DocPath& path, const std::vector<KeyRange>& ranges) const;
  // The index of `path` as runs of equal keys, in key order: each key, how many items hold it and
  // the first of them (by sequence number). Undefined (items without the path) is a key too. Counts
  // of what queries see only when AllLive says so.
  struct KeyRun {
    size_t count = 0;
    ItemPtr first;
  };
  std::vector<KeyRun> IndexRuns(const DocPath& path) const;
  // Whether every item stored is live at `now` (none waits for its expiry to delete it): counts of
  // the stored items are then counts of what queries see.
  bool AllLive(util::Instant now, const ItemPolicy& policy) const;
  // How many path and vector indexes the partition keeps now.
  size_t PathIndexCount() const;
  // The names (IndexName) of the path and composite indexes the partition keeps now, in name order.
  std::vector<std::string> IndexNames() const;
  // Builds each index of `wanted` the partition does not keep yet (after a bulk load, a recovery,
  // a policy change or growth, so that no query waits for one), kBuildChunk items at a time under
  // the shared lock: a writer waits for one chunk, never a whole build, and keeps the part already
  // built in step. One build at a time per partition (a second caller waits for the first). The
  // index is kept (IndexNames lists it) once it holds every item; a query asking for it before
  // builds its own, and the background one is dropped. `done` (may be null) counts the items
  // added; `cancel` (may be null) stops the build between chunks.
  static constexpr size_t kBuildChunk = 4096;
  void BuildIndexes(const std::vector<IndexColumns>& wanted, std::atomic<uint64_t>* done = nullptr,
                    const std::atomic<bool>* cancel = nullptr) const;
  // How many of `wanted` the partition does not keep.
  size_t MissingIndexes(const std::vector<IndexColumns>& wanted) const;
  // `hook` runs when a write (not a recovery's replay) brings the partition to a growth mark
  // (IsGrowthMark), under the partition's exclusive lock: it must only take note.
  void SetGrowthHook(std::function<void()> hook) { grown_ = std::move(hook); }
  // 1,024 items, then every four times as many (4,096, 16,384, ...).
  static bool IsGrowthMark(size_t items);
  // The document paths (through objects, at most kSampleDepth names deep) at which the first
  // `sample` items stored hold a number, a boolean, null or a string of at most kSampleMaxString
  // bytes, the paths most items hold first; a path where some sampled item holds a longer string
  // is left out (its index would copy the strings). System properties other than _ts are left out.
  static constexpr size_t kSampleDepth = 3;
  static constexpr size_t kSampleMaxString = 64;
  std::vector<DocPath> SampledScalarPaths(size_t sample) const;
  // Vector indexes (vector_index.h), built and kept like path indexes (and counted with them): the
  // sequence numbers, ascending, of the live items `admit` accepts that may be among the `k` best
  // for `q` by the vectors at `path` (and of those whose distance is undefined); nullopt when the
  // index cannot narrow the search.
  std::optional<std::vector<uint64_t>> VectorCandidates(const DocPath& path, const VectorQuery& q, size_t k,
                                                        const std::function<bool(const Item&)>& admit, util::Instant now,
                                                        const ItemPolicy& policy) const;
  // The live items in the order of the index of `columns` (one path, or a composite index's
  // paths and directions: path_index.h), from just after entry (key, seq) of that order (nullopt:
  // from the start), at most max_items. Ascending: by (key, seq). Descending: keys from the highest
  // down, each key's items still by ascending seq (as ORDER BY ... DESC breaks ties by position).
  struct IndexHit {
    std::string key;
    ItemPtr item;
  };
  // `within`: only the keys of that window.
  std::vector<IndexHit> IndexWalk(const IndexColumns& columns, bool descending,
                                  const std::optional<std::pair<std::string, uint64_t>>& after, size_t max_items,
                                  util::Instant now, const ItemPolicy& policy,
                                  const KeyWindow* within = nullptr) const;
  std::vector<IndexHit> IndexWalk(const DocPath& path, bool descending,
                                  const std::optional<std::pair<std::string, uint64_t>>& after, size_t max_items,
                                  util::Instant now, const ItemPolicy& policy) const {
    return IndexWalk(IndexColumns{IndexColumn{path, false}}, descending, after, max_items, now, policy);
  }

  // Latest-version change feed: every item changed after `after_lsn`, once, at its latest
  // version, in LSN order; only those `keep` accepts; at most max_items, and then the rest of the
  // last one's LSN (a transaction's items come together, as the service's PageSizeHint documents).
  // resume_lsn: the last item's LSN when the page filled, else the partition's LSN (everything up
  // to it was seen).
  // `pk`: read only that logical partition, through its own LSN index (a page costs what it
  // returns, however large the partition).
  ChangePage<ItemPtr> LatestChanges(uint64_t after_lsn, size_t max_items, const ItemFilter& keep, util::Instant now,
                                    const ItemPolicy& policy, const std::string* pk = nullptr) const;
  // All-versions-and-deletes feed: every logged change after `after_lsn` that `keep` accepts
  // (deletes are matched on the deleted version), in LSN order, at most max_items and then the rest
  // of the last one's LSN. Throws 400 when
  // the container keeps no log, or `after_lsn` lies before what the log still holds (outside the
  // retention window).
  ChangePage<Change> AllChanges(uint64_t after_lsn, size_t max_items, const ItemFilter& keep) const;
  // Where a feed starting at a point in time begins: the LSN after which every change made at or
  // after `since` (Unix seconds) lies. `all_versions`: in the log (400 as AllChanges when it
  // does not reach back that far).
  uint64_t StartLsn(int64_t since, bool all_versions) const;

  // Deletes every live item of logical partition `pk` at once: under the partition lock (after
  // waiting while a transaction holds `pk`, as a write does), each item with its own LSN, logged as
  // a delete and dropped from every index, as single deletes are. Returns how many items it deleted
  // and the partition's LSN after the last delete.
  struct LogicalDelete {
    size_t deleted = 0;
    uint64_t lsn = 0;
  };
  LogicalDelete DeleteLogicalPartition(const std::string& pk, util::Instant now, const ItemPolicy& policy);

  // Opens a transaction on logical partition `pk`, waiting while another holds it.
  std::unique_ptr<Transaction> Begin(const std::string& pk, const ItemPolicy& policy);

  // Persistence. A partition of a container writes every change to `journal` (null: none).
  void AttachJournal(Journal* journal, std::string owner_rid) {
    journal_ = journal;
    owner_rid_ = std::move(owner_rid);
  }
  const std::string& owner_rid() const { return owner_rid_; }  // the container's rid

  // The whole state, for a checkpoint: taken under the shared lock, items in feed order.
  struct State {
    uint64_t lsn = 0;
    uint64_t next_seq = 1;
    bool logging = false;
    uint64_t log_after_lsn = 0;
    int64_t log_since = 0;
    std::vector<ItemPtr> items;
    std::deque<Change> log;
  };
  State Capture() const;
  // Replaces the state with `state` (recovery, before the partition serves anything).
  void RestoreState(State state, const ItemPolicy& policy);
  // Re-applies one recorded change (recovery): `image` is the new version (null for a delete of
  // `pk`/`id`); `was`, when not empty, the id it had before (a replace that renamed it). A change
  // at or below the partition's LSN is already in its state and is skipped.
  void Replay(uint64_t lsn, ItemPtr image, const std::string& pk, const std::string& id, int64_t crts,
              bool ttl_expired, const ItemPolicy& policy, const std::string& was = "");
  // The same for the changes of one transaction, which share `lsn`: applied in order, or all
  // skipped.
  struct Replayed {
    ItemPtr image;
    std::string pk;
    std::string id;
    std::string was;
  };
  void ReplayGroup(uint64_t lsn, const std::vector<Replayed>& changes, int64_t crts, const ItemPolicy& policy);


 private:
  friend class Transaction;
  static std::string Key(std::string_view pk, std::string_view id);
  // Create/replace/delete/upsert rules and the if-match precondition against `current`.
  static void CheckWrite(WriteKind kind, const ItemPtr& current, const Preconditions& pre);
  // The live items of logical partition `pk` (shared lock held by the caller).
  std::vector<ItemPtr> LogicalItemsLocked(const std::string& pk, util::Instant now, std::optional<int64_t> default_ttl) const;
  // Waits (exclusive lock held) until no transaction holds `pk`.
  void AwaitUnreserved(std::unique_lock<std::shared_mutex>& lock, const std::string& pk);
  // The exclusive lock, with `hold` held and no transaction holding `pk`. The wait for a
  // transaction happens without the journal's gate (the transaction's commit needs it).
  std::unique_lock<std::shared_mutex> LockToWrite(JournalHold& hold, const std::string& pk);
  // When `item` expires (Unix milliseconds: its write time to the millisecond plus its time to
  // live), or nullopt.
  static std::optional<int64_t> ExpiresAt(const Item& item, std::optional<int64_t> default_ttl);
  static ItemPtr Live(const ItemPtr& item, util::Instant now, std::optional<int64_t> default_ttl);
  static bool IsLive(const ItemPtr& item, util::Instant now, std::optional<int64_t> default_ttl);
  // Live, and not left out of the index when the reader sees only indexed items.
  static bool Visible(const ItemPtr& item, util::Instant now, const ItemPolicy& policy) {
    return IsLive(item, now, policy.default_ttl) && !(policy.indexed_only && item->unindexed);
  }
  // Under the exclusive lock: the next LSN; the expiry index brought to `default_ttl`; the log
  // switched on or off and pruned to the retention window; a change recorded.
  uint64_t NextLsn();
  void ExpireLocked(util::Instant now, const ItemPolicy& policy);
  void IndexExpiry(std::optional<int64_t> default_ttl);
  void KeepLog(int64_t now_seconds, const ItemPolicy& policy, bool start = false);
  void Record(Change change);
  // Records a transaction's changes (one LSN) as one unit, then logs them.
  void RecordGroup(std::vector<Change> changes);
  // Under the exclusive lock, after it was recorded: `change` made to the stored version of item
  // `id` of logical partition `pk`.
  void ApplyRecorded(std::string_view pk, std::string_view id, const Change& change);
  // One recovered change at the partition's LSN (already set).
  void ReplayLocked(uint64_t lsn, ItemPtr image, const std::string& pk, const std::string& id, int64_t crts,
                    bool ttl_expired, const std::string& was);
  // 400 unless the all-versions log holds every change after `after_lsn`.
  void CheckLogReaches(uint64_t after_lsn) const;
  void Remove(ItemsByKey::iterator it);
  // Under the exclusive lock: one change with the next LSN (returned), indexed and logged. `it`:
  // the stored version (or end); `item`: the new image (its lsn already the next LSN), null to
  // delete.
  uint64_t Apply(ItemsByKey::iterator it, ItemPtr item, util::Instant now);
  // The version in `slot` (end for a new item) becomes `item` in every map and index; the slot
  // keeps its place unless the item was renamed.
  void Store(ItemsByKey::iterator slot, ItemPtr item);
  // The index of `path`, built now when the partition has none (shared or exclusive lock held).
  std::shared_ptr<const PathIndex> PathIndexOf(const IndexColumns& columns) const;
  std::shared_ptr<const PathIndex> PathIndexOf(const DocPath& path) const {
    return PathIndexOf(IndexColumns{IndexColumn{path, false}});
  }
  // The index named `name`, made by `make` and filled with every item when the partition has none
  // (shared or exclusive lock held); the least recently used goes when there are kMaxPathIndexes.
  std::shared_ptr<SecondaryIndex> IndexOf(const std::string& name,
                                          const std::function<std::shared_ptr<SecondaryIndex>()>& make) const;
  // The unique-key index: "<pk>\x1f<tuple>" -> id of the item holding it in that logical partition.
  static std::string UniqueSlot(std::string_view pk, const std::string& tuple) {
    std::string slot(pk);
    slot += '\x1f';
    slot += tuple;
    return slot;
  }
  void IndexUnique(const Item& item, bool add);
  // 409 when another live item of the logical partition holds one of `item`'s unique-key values
  // (`previous_id`: the id the item had before a rename, whose values are its own).
  void CheckUniqueLocked(const Item& item, std::string_view previous_id) const;
  // A replace whose new image names another id (the body renamed the item): 409 when that id is
  // taken in the logical partition.
  void CheckRenameLocked(const ItemPtr& current, const Item& item) const;

  const std::string range_id_;
  const std::string min_epk_;
  const std::string max_epk_;
  std::vector<std::string> parents_;
  int64_t created_ts_ = 0;
  mutable RuBucket bucket_;
  mutable std::shared_mutex mu_;
  ItemsByKey by_key_;
  ItemsByNumber by_seq_;
  ItemsByLsn by_lsn_;  // every stored item at the LSN of its latest version
  // The same per logical partition: its keys only (the item is by_lsn_'s at the same key).
  std::unordered_map<std::string, absl::btree_set<LsnKey>> by_pk_lsn_;
  std::unordered_map<std::string, absl::btree_set<uint64_t>> by_pk_seq_;  // each logical partition's items by seq
  // Path indexes by PathName. Readers (shared lock) may add one, under indexes_mu_; writers
  // (exclusive lock) update them all. `used` orders them for eviction.
  struct IndexSlot {
    std::shared_ptr<SecondaryIndex> index;
    mutable std::atomic<uint64_t> used{0};
  };
  mutable std::mutex indexes_mu_;
  mutable std::map<std::string, IndexSlot> indexes_;
  mutable std::atomic<uint64_t> index_clock_{0};
  // Indexes BuildIndexes is filling: every item whose sequence number is below `next` is in
  // `index`, and writers keep those in step (exclusive lock); the builder adds the rest in chunks
  // (shared lock, build_mu_ held). The map changes under indexes_mu_ with the shared lock held.
  struct Building {
    std::shared_ptr<PathIndex> index;
    uint64_t next = 0;
  };
  mutable std::map<std::string, Building> building_;
  mutable std::mutex build_mu_;
  std::function<void()> grown_;
  // Keeps `index` as `name` (indexes_mu_ held), dropping the least recently used when full.
  void KeepIndexLocked(const std::string& name, std::shared_ptr<SecondaryIndex> index, uint64_t used) const;
  // After a live write of a new item (exclusive lock): the growth hook, at a growth mark.
  void NoteGrowth() {
    if (grown_ && IsGrowthMark(by_key_.size())) grown_();
  }
  std::set<std::pair<int64_t, uint64_t>> expiry_;  // (expires at in Unix ms, seq) of items with a TTL
  size_t unindexed_ = 0;                              // stored items left out of the index
  std::optional<int64_t> expiry_ttl_;                 // the container default expiry_ follows
  std::deque<Change> log_;                            // all versions and deletes, while kept
  bool logging_ = false;
  uint64_t log_after_lsn_ = 0;  // the log holds every change with a greater LSN
  int64_t log_since_ = 0;       // ... and every change committed at or after this second
  uint64_t lsn_ = 0;
  uint64_t next_seq_ = 1;
  const UniqueKeysPtr unique_;  // null when the container has no unique keys
  Journal* journal_ = nullptr;
  std::string owner_rid_;
  std::unordered_map<std::string, std::string> unique_index_;
  std::unordered_set<std::string> reserved_;  // logical partitions a transaction holds
  std::condition_variable_any released_;
};

// Provisioned throughput: manual RU/s, or the maximum of autoscale (which scales between a tenth
// of it and it).
struct Throughput {
  int ru = 400;
  bool autoscale = false;

  // What the service accepts: manual RU/s from 400 in steps of 100; an autoscale maximum from
  // 1000 in steps of 1000; both at most 1,000,000.
  static constexpr int kManualMin = 400;
  static constexpr int kManualStep = 100;
  static constexpr int kAutoscaleMin = 1000;
  static constexpr int kAutoscaleStep = 1000;
  static constexpr int kMax = 1000000;
};

// An offer: the throughput of one container, or of a database whose containers share it.
class Offer {
 public:
  Offer(std::string id, std::string resource_self, std::string resource_rid, Throughput t, int64_t ts,
        std::string etag)
      : id_(std::move(id)),
        resource_self_(std::move(resource_self)),
        resource_rid_(std::move(resource_rid)),
        throughput_(t),
        ts_(ts),
        etag_(std::move(etag)) {}
  const std::string& id() const { return id_; }
  const std::string& resource_self() const { return resource_self_; }  // "dbs/<rid>/" or "dbs/<rid>/colls/<rid>/"
  const std::string& resource_rid() const { return resource_rid_; }
  Throughput throughput() const;
  int max_ever_provisioned() const;
  int64_t ts() const;
  std::string etag() const;
  // When the offer was last replaced (epoch seconds); 0 when it never was.
  int64_t last_replace_ts() const;
  // Replaces the throughput unless `if_match` (a quoted etag, or "*") names another version;
  // returns false then and changes nothing.
  bool Replace(Throughput t, int64_t ts, std::string etag, std::optional<std::string_view> if_match = std::nullopt);

  // Everything a replace changes, for persistence.
  struct State {
    Throughput throughput;
    int max_ever = 0;
    int64_t ts = 0;
    std::string etag;
    int64_t last_replace = 0;
  };
  State Capture() const;
  void Restore(const State& state);

  // Physical partitions that split this offer's RU/s between them.
  void AddPartitions(int delta) { partitions_ += delta; }
  int partitions() const { return partitions_.load(); }
  // RU/s each physical partition may spend (autoscale: its maximum).
  double PartitionBudget() const;

 private:
  const std::string id_;
  const std::string resource_self_;
  const std::string resource_rid_;
  mutable std::mutex mu_;
  Throughput throughput_;
  int max_ever_ = 0;
  int64_t ts_;
  std::string etag_;
  int64_t last_replace_ = 0;
  std::atomic<int> partitions_{0};
};
using OfferPtr = std::shared_ptr<Offer>;

// Container settings that can change with a replace.
struct ContainerSettings {
  IndexingPolicy indexing;
  std::optional<int64_t> default_ttl;  // nullopt: TTL off; -1: on without default; n: seconds
  std::optional<int64_t> change_feed_retention_minutes;  // changeFeedPolicy.retentionDuration (> 0)
  UniqueKeysPtr unique_keys;          // fixed at creation; null when the body gave no uniqueKeyPolicy
  std::shared_ptr<const VectorPolicy> vectors;  // vectorEmbeddingPolicy; null when the body gave none
  std::shared_ptr<const FullTextPolicy> full_text;  // fullTextPolicy; null when the body gave none
  std::shared_ptr<const ComputedProperties> computed;  // computedProperties; null when none are defined
  json::Document extra;               // other properties kept as given (conflictResolutionPolicy, ...)
  bool geometry = false;              // geospatialConfig.type is Geometry: the spatial functions are planar

  ItemPolicy items() const {
    ItemPolicy p{default_ttl, std::nullopt};
    if (change_feed_retention_minutes) p.retention_seconds = *change_feed_retention_minutes * 60;
    return p;
  }
};

// Stored procedures, triggers and user-defined functions of a container.
enum class ScriptKind { kStoredProcedure = 0, kTrigger = 1, kUserDefinedFunction = 2 };
// The kind a path segment names ("sprocs", "triggers", "udfs"), or nullopt.
std::optional<ScriptKind> ScriptKindOfPath(std::string_view segment);

struct ScriptResource {
  std::string id;
  std::string body;
  std::string trigger_type;       // triggers: "Pre" or "Post" in any case, as sent
  std::string trigger_operation;  // triggers: "All", "Create", "Update", "Delete" or "Replace" in any case, as sent
  std::string rid;
  std::string etag;  // quoted
  int64_t ts = 0;
  uint64_t version = NewScriptVersion();  // unique in the process: names this version in caches

  static uint64_t NewScriptVersion() {
    static std::atomic<uint64_t> counter{0};
    return ++counter;
  }
};
using ScriptPtr = std::shared_ptr<const ScriptResource>;

// One container's scripts of each kind, in creation order. Thread-safe; versions are immutable.
class ScriptSet {
 public:
  ScriptPtr Find(ScriptKind kind, const std::string& id) const;
  ScriptPtr FindByRid(ScriptKind kind, const std::string& rid) const;
  std::vector<ScriptPtr> List(ScriptKind kind) const;
  // Throws Conflict when the id exists.
  void Create(ScriptKind kind, ScriptPtr script);
  // Throws NotFound when it does not; PreconditionFailed when `if_match` names another version.
  void Replace(ScriptKind kind, ScriptPtr script, const std::optional<std::string>& if_match);
  // False when there is no such script.
  bool Delete(ScriptKind kind, const std::string& id);
  uint32_t NextNumber() { return ++counter_; }
  uint32_t counter() const { return counter_.load(); }
  // Replaces every script (recovery).
  void Restore(std::vector<ScriptPtr> lists[3], uint32_t counter);

 private:
  mutable std::shared_mutex mu_;
  std::vector<ScriptPtr> scripts_[3];
  std::atomic<uint32_t> counter_{0};
};

// A shared mutex whose exclusive waiter goes before new shared holders (glibc's default prefers
// readers, so a split could wait for ever under steady load). Shared holds must not nest.
class WriterFirstMutex {
 public:
  WriterFirstMutex();
  ~WriterFirstMutex();
  WriterFirstMutex(const WriterFirstMutex&) = delete;
  WriterFirstMutex& operator=(const WriterFirstMutex&) = delete;
  void lock();
  void unlock();
  void lock_shared();
  bool try_lock_shared();  // false while a split holds it or waits for it
  void unlock_shared();

 private:
  pthread_rwlock_t rw_;
};
using LayoutHold = std::shared_lock<WriterFirstMutex>;

// Where a logical partition key lives: its effective partition key and physical partition.
struct Placement {
  std::string epk;
  PhysicalPartition* partition = nullptr;
};

class Container : public std::enable_shared_from_this<Container> {
 public:
  // `offer`: the container's own throughput, or null in a shared-throughput database, whose
  // offer is `shared`. The container's `partition_count` ranges split the hash space evenly.
  Container(std::string id, std::string rid, std::string db_rid, PartitionKeyDefinition pk, ContainerSettings settings,
            int64_t ts, std::string etag, OfferPtr offer, OfferPtr shared, int partition_count);
  ~Container();

  const std::string& id() const { return id_; }
  const std::string& rid() const { return rid_; }
  const std::string& self() const { return self_; }
  const PartitionKeyDefinition& partition_key() const { return pk_; }
  // The container's own offer (null when it shares its database's).
  const OfferPtr& offer() const { return offer_; }
  // The offer whose RU/s this container spends: its own or its database's.
  const OfferPtr& budget_offer() const { return offer_ ? offer_ : shared_; }

  // Snapshot of the settings (indexing policy, TTL).
  std::shared_ptr<const ContainerSettings> settings() const;
  void Replace(ContainerSettings settings, int64_t ts, std::string etag);
  std::string etag() const;

  // The container's JSON representation, as returned by create/read/list.
  std::string ToJson() const;

  // The EPK of a full key and the partition that holds it.
  Placement Locate(const PartitionKeyValue& pk) const;
  PhysicalPartition& PartitionFor(const PartitionKeyValue& pk) const { return *Locate(pk).partition; }
  // The partition whose range holds `epk`.
  PhysicalPartition& PartitionForEpk(std::string_view epk) const;
  // Builds, on up to `threads` threads (a partition each at a time), the indexes queries will ask
  // for, so that none waits for one (store/README.md, "Indexes built ahead"): the policy's
  // composite indexes, and the paths it indexes at which each partition's first items hold
  // scalars (SampledScalarPaths), at most kPreparedPaths of them. Seeding, import and recovery
  // call it once the items are in.
  // Policy changes and growth run it in the background (ScheduleIndexes).
  static constexpr size_t kPreparedPaths = 12;
  static constexpr size_t kPreparedSample = 256;
  void PrepareIndexes(unsigned threads) const { BuildAhead(threads, nullptr, false); }
  // Queues PrepareIndexes(1) for the background indexer (one thread for the process, one
  // container at a time; a container is queued once however often it asks). `transformation`: a
  // change of the indexing policy asks, and the container reports its progress
  // (IndexTransformationProgress) until a build that started after the change has finished.
  // Otherwise (growth: a partition reached a growth mark) nothing is queued during a bulk load.
  void ScheduleIndexes(bool transformation);
  // What x-ms-documentdb-collection-index-transformation-progress reports: 100 when no policy
  // change waits for its indexes, else the share (0 to 99) of the build's items indexed so far.
  int IndexTransformationProgress() const;
  // While one is open, growth queues no build: seeding and import build in bulk after loading.
  class BulkLoad {
   public:
    explicit BulkLoad(Container& c) : c_(c) { ++c_.bulk_loads_; }
    ~BulkLoad() { --c_.bulk_loads_; }
    BulkLoad(const BulkLoad&) = delete;
    BulkLoad& operator=(const BulkLoad&) = delete;

   private:
    Container& c_;
  };
  // The background indexer's call: PrepareIndexes(1), then the transformation it was asked for is done.
  void RunScheduledIndexes(const std::atomic<bool>* cancel);

  // The partitions whose ranges overlap [min_epk, max_epk), in range order.
  std::vector<PhysicalPartition*> PartitionsOverlapping(std::string_view min_epk, std::string_view max_epk) const;
  // The live ranges, in range order. A range that was split stays readable (its pointer stays
  // valid while the container lives) but is no longer among them.
  std::vector<PhysicalPartition*> partitions() const;
  size_t partition_count() const;
  // The live range `range_id`, or null (never was, or was split).
  PhysicalPartition* PartitionById(std::string_view range_id) const;

  // Splits wait until no request is using the container's ranges: a request holds this from
  // where it resolves its ranges until it has answered (handlers::HoldRanges). On a thread that
  // may not wait (an I/O thread answering at once), a split that runs or waits throws
  // util::WouldBlock, and the request goes to a worker: the I/O threads never wait for a split.
  LayoutHold HoldLayout() const;
  // Splits live range `range_id` at the middle of its span of the hash ring: its items (with
  // their sequence numbers and LSNs), its all-versions log and its LSN go to two new ranges with
  // the next range ids; the range is then gone. Waits for the requests holding the layout; is
  // journaled. nullopt: no live range of that id. Throws BadRequest when the span cannot be
  // divided or the container holds kMaxRanges ranges.
  static constexpr size_t kMaxRanges = 256;
  std::optional<RangeSplit> SplitRange(std::string_view range_id, int64_t ts, std::string etag);
  // Re-applies a journaled split (recovery); false when its parent is not a live range.
  bool ReplaySplit(const RangeSplit& split);
  // Every split made, in order (persistence).
  std::vector<RangeSplit> splits() const;
  // The partition key range feed's etag: the container's until its first split, then the last split's.
  std::string ranges_etag() const;
  // The live item whose resource id is `rid`, in whichever partition it lives, or null.
  ItemPtr FindItemByRid(const std::string& rid, util::Instant now) const;

  // Next item resource id (16 bytes base64: container rid bytes + item sequence).
  std::string ItemRid(uint64_t seq) const;
  // Resource id of partition key range `range_id` (container rid bytes + 8 bytes, as the service's).
  std::string RangeRid(std::string_view range_id) const;
  // Resource id of script number `n` of a kind (container rid bytes + n + a kind marker).
  std::string ScriptRid(ScriptKind kind, uint32_t n) const;
  int64_t created_ts() const { return created_ts_; }
  ScriptSet& scripts() const { return scripts_; }
  const std::string& db_rid() const { return db_rid_; }
  int64_t ts() const;
  // Every partition writes its changes to `journal`.
  void AttachJournal(Journal* journal);

 private:
  const std::string id_;
  const std::string rid_;
  const std::string rid_bytes_;  // rid_ decoded: the prefix of every item rid
  const std::string db_rid_;
  const std::string self_;
  const PartitionKeyDefinition pk_;
  const OfferPtr offer_;
  const OfferPtr shared_;
  const int64_t created_ts_;
  mutable std::mutex settings_mu_;
  std::shared_ptr<const ContainerSettings> settings_;
  int64_t ts_;
  std::string etag_;
  // The split applied under the layout's exclusive hold (and parts_mu_ for the list itself).
  void ApplySplit(const RangeSplit& split);
  mutable WriterFirstMutex layout_mu_;  // held shared by requests, exclusively by a split
  mutable std::shared_mutex parts_mu_;   // guards partitions_, retired_, splits_, next_range_id_
  std::vector<std::shared_ptr<PhysicalPartition>> partitions_;  // live, in range order
  std::vector<std::shared_ptr<PhysicalPartition>> retired_;     // split, kept for pointers still held
  std::vector<RangeSplit> splits_;
  uint64_t next_range_id_ = 0;
  Journal* journal_ = nullptr;
  mutable ScriptSet scripts_;
  // Background index builds (ScheduleIndexes): the items the current build adds in all and so
  // far, the policy changes asked for and the number of them the builds have caught up with.
  mutable std::atomic<uint64_t> build_total_{0};
  mutable std::atomic<uint64_t> build_done_{0};
  std::atomic<uint64_t> transformations_asked_{0};
  std::atomic<uint64_t> transformations_done_{0};
  std::atomic<bool> index_queued_{false};
  std::atomic<int> bulk_loads_{0};
  // Every partition, made or split: growth schedules a build.
  void WatchGrowth(PhysicalPartition& p);
  // PrepareIndexes; `cancel` (may be null) stops it between chunks; `report`: counts its work in
  // build_total_ and build_done_ (the transformation progress).
  void BuildAhead(unsigned threads, const std::atomic<bool>* cancel, bool report) const;
};
using ContainerPtr = std::shared_ptr<Container>;

class Database {
 public:
  Database(std::string id, std::string rid, int64_t ts, std::string etag)
      : id_(std::move(id)), rid_(std::move(rid)), ts_(ts), etag_(std::move(etag)) {}
  const std::string& id() const { return id_; }
  const std::string& rid() const { return rid_; }
  // The throughput its containers share, or null.
  const OfferPtr& offer() const { return offer_; }
  void set_offer(OfferPtr offer) { offer_ = std::move(offer); }
  const std::string& etag() const { return etag_; }
  std::string ToJson() const;

  ContainerPtr FindContainer(const std::string& id) const;
  ContainerPtr FindContainerByRid(const std::string& rid) const;
  std::vector<ContainerPtr> Containers() const;
  // Throws Conflict when the id exists.
  void AddContainer(ContainerPtr c);
  bool RemoveContainer(const std::string& id);
  uint32_t NextContainerNumber() { return ++container_counter_; }
  uint32_t container_counter() const { return container_counter_.load(); }
  void NoteContainerCounter(uint32_t n);
  int64_t ts() const { return ts_; }
  // Replaces the containers (recovery).
  void RestoreContainers(std::vector<ContainerPtr> containers);
  // Its users and their permissions.
  UserSet& users() const { return users_; }
  // Its client encryption keys.
  ClientEncryptionKeySet& encryption_keys() const { return encryption_keys_; }

 private:
  const std::string id_;
  const std::string rid_;
  const int64_t ts_;
  const std::string etag_;
  OfferPtr offer_;  // set once, at creation
  mutable std::shared_mutex mu_;
  std::vector<ContainerPtr> containers_;  // creation order
  std::atomic<uint32_t> container_counter_{0};
  mutable UserSet users_;
  mutable ClientEncryptionKeySet encryption_keys_;
};
using DatabasePtr = std::shared_ptr<Database>;

// The whole account. Thread-safe.
class Account {
 public:
  // Physical partitions of every new container, instead of the count its throughput implies.
  void set_partition_count_override(std::optional<int> n) { partition_count_override_ = n; }

  DatabasePtr CreateDatabase(const std::string& id, std::optional<Throughput> throughput);
  DatabasePtr FindDatabase(const std::string& id) const;
  DatabasePtr FindDatabaseByRid(const std::string& rid) const;
  std::vector<DatabasePtr> Databases() const;
  bool DeleteDatabase(const std::string& id);

  // `throughput`: the container's own; without it, the database's shared throughput, or 400 RU/s
  // manual when the database has none (as the service provisions). `partitions`: the physical
  // partition count asked for; else the override; else max(1, ceil(RU/s / 6,000)).
  ContainerPtr CreateContainer(Database& db, const std::string& id, PartitionKeyDefinition pk,
                               ContainerSettings settings, std::optional<Throughput> throughput,
                               std::optional<int> partitions = std::nullopt);

  // Every offer (databases with shared throughput, containers with their own), creation order.
  std::vector<OfferPtr> Offers() const;
  OfferPtr FindOffer(std::string_view id) const;

  // A new etag value, quoted, unique across the account.
  std::string NewEtag(int64_t ts);
  // The etag NewEtag makes from counter value `n` at `ts` (always 38 characters, quotes included).
  static std::string EtagOf(uint64_t n, int64_t ts);

  // Persistence: the journal every new container's partitions write to (null: none).
  void set_journal(Journal* journal) { journal_ = journal; }
  // The clock every `_ts` the account makes reads (databases, containers, offers): the emulator's,
  // which POST /_emulator/clock moves, as items' are. Null: the system clock.
  void set_clock(const util::WallClock* clock) { clock_ = clock; }
  int64_t NowSeconds() const { return clock_ ? clock_->UnixSeconds() : util::UnixSeconds(); }
  Journal* journal() const { return journal_; }
  struct Counters {
    uint32_t databases = 0;
    uint32_t offers = 0;
    uint64_t etags = 0;
  };
  Counters counters() const { return {db_counter_.load(), offer_counter_.load(), etag_counter_.load()}; }
  // Raises the counters to at least `c` (recovery), so that no resource id or etag is issued twice.
  void NoteCounters(const Counters& c);
  // Raises the etag counter past the one `etag` was made with.
  void NoteEtag(std::string_view etag);
  // Adds `db`, replacing a database of the same id (recovery).
  void RestoreDatabase(DatabasePtr db);
  // The account's data-plane role definitions and assignments for Entra ID principals
  // (docs/entra-id.md), as the JSON document the gateway reads and writes (http::RbacRoles); the
  // store keeps it for persistence and does not read it. Empty: never set (the default roles).
  std::string roles() const;
  void set_roles(std::string document);

 private:
  mutable std::shared_mutex mu_;
  std::vector<DatabasePtr> databases_;  // creation order
  std::atomic<uint32_t> db_counter_{0};
  std::atomic<uint64_t> etag_counter_{0};
  std::atomic<uint32_t> offer_counter_{0};
  std::optional<int> partition_count_override_;
  std::string roles_;  // under mu_
  Journal* journal_ = nullptr;
  const util::WallClock* clock_ = nullptr;

  OfferPtr NewOffer(const std::string& resource_self, const std::string& resource_rid, Throughput t);
};

}  // namespace cosmos::store
