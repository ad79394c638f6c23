// Containers, their scripts and layout of ranges (splits), databases, offers and the account.
// (Physical partitions and transactions: partition.cpp.)
#include "store/store.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "common/errors.h"
#include "json/json.h"
#include "store/epk.h"
#include "util/clock.h"
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
// The first item sequence number of range `n`: each range counts in its own span, so that the
// resource ids made from them (Container::ItemRid) never meet, and a range made by a split counts
// above every item it inherits.
uint64_t FirstSeqOfRange(uint64_t n) { return (n << 40) + 1; }

// The background indexer: one thread for the process, started by the first container that asks,
// building the indexes of one queued container at a time (Container::ScheduleIndexes). At exit
// it stops between chunks and is joined before the statics it reads go.
class IndexWorker {
 public:
  static IndexWorker& Get() {
    static IndexWorker* worker = [] {
      auto* w = new IndexWorker();  // never deleted: containers may ask until the process ends
      std::atexit([] { Get().Stop(); });
      return w;
    }();
    return *worker;
  }

  void Enqueue(std::weak_ptr<Container> c) {
    {
      std::lock_guard lock(mu_);
      if (stop_) return;
      queue_.push_back(std::move(c));
      if (!thread_.joinable()) thread_ = std::thread([this] { Run(); });
    }
    cv_.notify_one();
  }

 private:
  void Run() {
    while (true) {
      std::weak_ptr<Container> next;
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
        if (stop_) return;
        next = std::move(queue_.front());
        queue_.pop_front();
      }
      if (auto c = next.lock()) c->RunScheduledIndexes(&stop_);  // (a deleted container: nothing to do)
    }
  }
  void Stop() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
      queue_.clear();
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::weak_ptr<Container>> queue_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};
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
    WatchGrowth(*partitions_.back());
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

void Container::BuildAhead(unsigned threads, const std::atomic<bool>* cancel, bool report) const {
  const auto settings_now = settings();
  const IndexingPolicy& policy = settings_now->indexing;
  if (policy.mode == "none") return;
  // The composite indexes, each with its first column ascending (an index walked backwards serves
  // the reverse order), as the executor asks for them.
  std::vector<IndexColumns> composites;
  for (size_t i = 0; i < policy.composites.size(); ++i) {
    IndexColumns columns;
    bool plain = true;
    for (size_t k = 0; k < policy.composites[i].size(); ++k) {
      DocPath path;
      for (const auto& name : policy.composites[i][k]) {
        if (name == "*" || name == "?" || name == "[]") plain = false;
        path.push_back(PathStep{name, -1});
      }
      columns.push_back(IndexColumn{std::move(path), policy.composite_descending[i][k]});
    }
    if (!plain || columns.size() < 2) continue;
    TurnFirstAscending(columns);
    composites.push_back(std::move(columns));
  }
  // No layout hold (a request may hold one already, and holds must not nest): a partition a split
  // retires meanwhile stays alive (retired_), and its children are built by the queries that ask.
  const std::vector<PhysicalPartition*> parts = partitions();
  // Each partition's list first, to know how many items the build adds (the progress reported).
  std::vector<std::vector<IndexColumns>> wanted(parts.size());
  uint64_t total = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    wanted[i] = composites;
    size_t paths = 0;
    for (auto& path : parts[i]->SampledScalarPaths(kPreparedSample)) {
      if (paths == kPreparedPaths) break;
      std::vector<std::string> names;
      for (const auto& step : path) names.push_back(step.name);
      if (!policy.IsIndexed(names)) continue;
      wanted[i].push_back(IndexColumns{IndexColumn{std::move(path), false}});
      ++paths;
    }
    total += parts[i]->MissingIndexes(wanted[i]) * parts[i]->Count();
  }
  if (report) {
    build_done_ = 0;
    build_total_ = total;
  }
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next++) < parts.size();) parts[i]->BuildIndexes(wanted[i], report ? &build_done_ : nullptr, cancel);
  };
  const unsigned n = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(parts.size())));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < n; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
}

void Container::WatchGrowth(PhysicalPartition& p) {
  p.SetGrowthHook([this] { ScheduleIndexes(false); });  // (the container outlives its partitions)
}

void Container::ScheduleIndexes(bool transformation) {
  if (transformation) {
    build_done_ = 0;
    build_total_ = 0;
    ++transformations_asked_;
  } else if (bulk_loads_ > 0) {
    return;
  }
  if (index_queued_.exchange(true)) return;
  std::weak_ptr<Container> self = weak_from_this();
  if (self.expired()) {  // not owned by a shared_ptr (a test's): nothing runs in the background
    index_queued_ = false;
    return;
  }
  IndexWorker::Get().Enqueue(std::move(self));
}

void Container::RunScheduledIndexes(const std::atomic<bool>* cancel) {
  index_queued_ = false;  // a change from here on queues another build
  const uint64_t asked = transformations_asked_.load();
  BuildAhead(1, cancel, asked > transformations_done_.load());
  if (cancel && cancel->load()) return;
  uint64_t caught_up = transformations_done_.load();
  while (caught_up < asked && !transformations_done_.compare_exchange_weak(caught_up, asked)) {
  }
}

int Container::IndexTransformationProgress() const {
  if (transformations_done_.load() >= transformations_asked_.load()) return 100;
  const uint64_t total = build_total_.load();
  if (total == 0) return 0;
  return static_cast<int>(std::min<uint64_t>(99, build_done_.load() * 100 / total));
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
  const bool grown = parent->Count() >= 1024;  // (the first growth mark)
  parent->Retire();  // its memory freed after the requests that waited have gone on
  if (grown) ScheduleIndexes(false);  // the new ranges' indexes, as the parent's were
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
    auto inside = [&](const Item& item) { return item.epk() >= min && item.epk() < max; };
    for (const auto& item : whole.items) {
      if (inside(*item)) st.items.push_back(item);
    }
    for (const auto& ch : whole.log) {
      const Item& version = ch.current ? *ch.current : *ch.previous;
      if (inside(version)) st.log.push_back(ch);
    }
    child->RestoreState(std::move(st), policy);
    if (journal_) child->AttachJournal(journal_, rid_);
    WatchGrowth(*child);
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
  bool reindex = false;
  {
    std::lock_guard lock(settings_mu_);
    reindex = json::Write(settings.indexing.raw) != json::Write(settings_->indexing.raw);
    settings_ = std::make_shared<const ContainerSettings>(std::move(settings));
    ts_ = ts;
    etag_ = std::move(etag);
  }
  // The service transforms its index in the background; so are the indexes the new policy asks
  // for built here (and a query before they are builds what it needs itself).
  if (reindex) ScheduleIndexes(true);
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

ItemPtr Container::FindItemByRid(const std::string& rid, util::Instant now) const {
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
      if (!hit.empty() && hit.front()->rid() == rid) return hit.front();
    }
  }
  for (const auto* p : parts) {
    for (uint64_t after = 0;;) {
      auto chunk = p->Feed(after, 1000, now, policy);
      if (chunk.empty()) break;
      for (const auto& it : chunk) {
        if (it->rid() == rid) return it;
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

std::string Account::EtagOf(uint64_t n, int64_t ts) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"00000000-0000-0100-0000-000000000000\"";
  auto put = [&](size_t at, uint32_t v) {
    for (int i = 7; i >= 0; --i, v >>= 4) out[at + static_cast<size_t>(i)] = kHex[v & 0xF];
  };
  put(1, static_cast<uint32_t>(n & 0xFFFFFFFF));
  put(25, static_cast<uint32_t>(static_cast<uint64_t>(ts) & 0xFFFFFFFF));
  return out;
}

std::string Account::NewEtag(int64_t ts) { return EtagOf(++etag_counter_, ts); }

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

std::string Account::roles() const {
  std::shared_lock lock(mu_);
  return roles_;
}

void Account::set_roles(std::string document) {
  std::unique_lock lock(mu_);
  roles_ = std::move(document);
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
