// Internal to the query executor (executor*.cpp): the types its stages share. A page is driven by
// executor.cpp; it decodes and writes continuations (executor_continuation.cpp), may take or keep a
// suspended collection (executor_suspended.cpp), and runs its plan through the row loop
// (executor_rows.cpp), which may read partitions on several threads (executor_parallel.cpp) or
// answer from the indexes (executor_index.cpp).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/errors.h"
#include "json/json.h"
#include "query/eval.h"
#include "query/executor.h"
#include "query/index_use.h"
#include "query/plan.h"
#include "store/store.h"
#include "util/parallel.h"

namespace cosmos::query::detail {

// Where a row came from: partition index, document sequence, row number within the document.
struct Pos {
  uint64_t part = 0;
  uint64_t seq = 0;
  uint64_t ord = 0;
  auto operator<=>(const Pos&) const = default;
};

struct OutRow {
  std::vector<Val> keys;
  Pos pos;
  Val value;
  double kb = 0;  // size of the document the row came from
};

inline int CompareRows(const std::vector<bool>& desc, const OutRow& a, const OutRow& b) {
  for (size_t i = 0; i < a.keys.size(); ++i) {
    int c = CompareForOrder(a.keys[i], b.keys[i]);
    if (c != 0) return desc[i] ? -c : c;
  }
  return a.pos < b.pos ? -1 : (b.pos < a.pos ? 1 : 0);
}

// Numbers the candidate rows of one root input (before WHERE): a row's position is its number, so
// that a page can end after any candidate, matched or not, and the next resume after it.
struct Cursor {
  uint64_t ord = 0;        // candidates started
  uint64_t completed = 0;  // the last candidate whose row (if WHERE kept it) was handled
  uint64_t arm_after = 0;  // completing a candidate past this one is progress for the page
  uint64_t stop_after = UINT64_MAX;  // candidates past this one are not read (a segment's end)
};

// Whether a row passes the filter `where`. What the filter makes is the row's temporaries
// (Arena::RowScratch), dropped once the verdict is read.
bool Passes(const Node& where, EvalContext& cx);

// Enumerates the rows of the FROM/JOIN sources from `index` on, with WHERE applied.
void ForEachRow(const Plan& plan, size_t index, EvalContext& cx, const std::function<void()>& row,
                Cursor* cursor = nullptr);

inline bool Streaming(const Plan& plan) {
  return plan.order_by.empty() && plan.group_by.empty() && plan.aggregates.empty() && !plan.distinct;
}

// Collects the rows of a non-streaming query (ORDER BY, GROUP BY, aggregates, DISTINCT) and
// returns them in their final order.
//
// Every Add either records its row (or group update) whole or, when evaluating it throws (a
// budget stop, an error), changes nothing: a page may end before any candidate row.
class Collector {
 public:
  explicit Collector(const Plan& plan) : plan_(&plan) {
    for (const auto& k : plan.order_by) desc_.push_back(k.descending);
    if (plan.order_by.empty()) desc_.assign(plan.group_by.size(), false);
  }
  Collector(const Collector&) = delete;
  Collector& operator=(const Collector&) = delete;

  // A collection suspended by one page continues with the next page's plan (the same query).
  void Rebind(const Plan& plan) { plan_ = &plan; }
  // Whether Finish would give at least one row (a partial page of groups must not be empty).
  bool HasOutput() const { return plan_->aggregate_query || !rows_.empty() || !groups_.empty(); }

  // Returns whether the collection keeps values of the row's documents (they must stay pinned):
  // a kept row, or a new group (its key and first row); accumulators keep copies of their own.
  bool Add(EvalContext& cx, Pos pos, double kb) {
    if (!plan_->group_by.empty() || plan_->aggregate_query) return AddToGroup(cx, pos);
    OutRow r;
    r.pos = pos;
    for (const auto& k : plan_->order_by) r.keys.push_back(Eval(k.expr, cx));
    r.value = Project(*plan_, cx);
    if (r.value.IsUndefined()) return false;
    r.kb = kb;
    if (cx.budget != nullptr) cx.budget->held_bytes += sizeof(OutRow) + r.keys.size() * sizeof(Val);
    rows_.push_back(std::move(r));
    return true;
  }

  std::vector<OutRow> Finish(EvalContext& cx) {
    if (plan_->aggregate_query && groups_.empty()) NewGroup("", cx, Pos{});
    for (auto& [_, g] : groups_) {
      std::vector<Val> results;
      for (const auto& acc : g.accs) results.push_back(acc.Result(cx.arena));
      std::vector<Val> saved = cx.env;
      cx.env = g.env;
      cx.aggs = &results;
      OutRow r;
      r.pos = g.first;
      if (!plan_->order_by.empty()) {
        for (const auto& k : plan_->order_by) r.keys.push_back(Eval(k.expr, cx));
      } else {
        r.keys = g.key;
      }
      r.value = Project(*plan_, cx);
      cx.aggs = nullptr;
      cx.env = std::move(saved);
      if (r.value.IsDefined()) rows_.push_back(std::move(r));
    }
    std::stable_sort(rows_.begin(), rows_.end(),
                     [&](const OutRow& a, const OutRow& b) { return CompareRows(desc_, a, b) < 0; });
    if (plan_->distinct) {
      std::unordered_map<std::string, bool> seen;
      std::vector<OutRow> unique;
      std::string key;
      for (auto& r : rows_) {
        key.clear();
        CanonicalKey(key, r.value);
        if (seen.emplace(key, true).second) unique.push_back(std::move(r));
      }
      rows_ = std::move(unique);
    }
    return std::move(rows_);
  }

  const std::vector<bool>& descending() const { return desc_; }

  // Takes what `later` collected over the candidates that follow this one's (a part of a scan
  // read on another thread): its rows, its new groups, and its accumulators merged into the
  // groups both saw. `later`'s values must outlive this collection (Keep its arena).
  void Absorb(Collector& later, Arena& arena) {
    for (auto& r : later.rows_) rows_.push_back(std::move(r));
    later.rows_.clear();
    for (auto& [key, g] : later.groups_) {
      auto it = groups_.find(key);
      if (it == groups_.end()) {
        groups_.emplace(key, std::move(g));
        continue;
      }
      for (size_t i = 0; i < g.accs.size(); ++i) it->second.accs[i].Merge(g.accs[i], arena);
    }
    later.groups_.clear();
    for (auto& a : later.arenas_) arenas_.push_back(std::move(a));
    later.arenas_.clear();
  }
  // Keeps an arena that values of this collection live in.
  void Keep(std::unique_ptr<Arena> arena) { arenas_.push_back(std::move(arena)); }

  // The accumulators of an aggregate query's one group, for results known without reading rows
  // (read from the index).
  std::vector<Accumulator>& SingleGroup(EvalContext& cx) {
    auto it = groups_.find("");
    return (it != groups_.end() ? it->second : NewGroup("", cx, Pos{})).accs;
  }
  // The accumulators of the group the row in cx.env belongs to, for results known without
  // reading its other rows (an index's run of equal keys); a new group keeps that row as its first
  // (whether it is new: its document must then stay pinned).
  std::pair<std::vector<Accumulator>*, bool> GroupOfRow(EvalContext& cx, Pos pos) {
    KeyOfRow(cx);
    auto [g, added] = GroupOfKey(cx, pos);
    return {&g->accs, added};
  }

 private:
  struct Group {
    std::vector<Val> key;
    std::vector<Val> env;
    std::vector<Accumulator> accs;
    Pos first;
  };

  Group& NewGroup(const std::string& canonical, EvalContext& cx, Pos pos) {
    Group& g = groups_[canonical];
    g.env = cx.env;
    g.first = pos;
    for (const auto& a : plan_->aggregates) g.accs.emplace_back(a.kind);
    return g;
  }

  // The group key of the row in cx.env: its values into key_scratch_, its canonical text into
  // canonical_scratch_.
  void KeyOfRow(EvalContext& cx) {
    std::vector<Val>& key = key_scratch_;
    std::string& canonical = canonical_scratch_;
    key.clear();
    canonical.clear();
    for (const auto& g : plan_->group_by) {
      key.push_back(Eval(g, cx));
      CanonicalKey(canonical, key.back());
      canonical += '|';
    }
  }
  // The group of the key KeyOfRow left in the scratch fields, made (with the row in cx.env as its
  // first) when new; whether it is new.
  std::pair<Group*, bool> GroupOfKey(EvalContext& cx, Pos pos) {
    auto it = groups_.find(canonical_scratch_);
    if (it != groups_.end()) return {&it->second, false};
    if (cx.budget != nullptr) {
      cx.budget->held_bytes += sizeof(Group) + 2 * canonical_scratch_.size() + 64 + cx.env.size() * sizeof(Val) +
                               plan_->aggregates.size() * sizeof(Accumulator) + key_scratch_.size() * sizeof(Val);
    }
    Group& g = NewGroup(canonical_scratch_, cx, pos);
    g.key = key_scratch_;
    return {&g, true};
  }

  bool AddToGroup(EvalContext& cx, Pos pos) {
    KeyOfRow(cx);
    // Every argument before any accumulator changes.
    Val one[4];
    std::vector<Val> many;
    std::span<Val> args(one, std::min<size_t>(plan_->aggregates.size(), 4));
    if (plan_->aggregates.size() > 4) {
      many.resize(plan_->aggregates.size());
      args = many;
    }
    for (size_t i = 0; i < plan_->aggregates.size(); ++i) args[i] = Eval(plan_->aggregates[i].arg, cx);
    auto [g, added] = GroupOfKey(cx, pos);
    for (size_t i = 0; i < plan_->aggregates.size(); ++i) g->accs[i].Add(args[i], cx.arena);
    return added;
  }

  std::vector<Val> key_scratch_;
  std::string canonical_scratch_;
  const Plan* plan_;
  std::vector<bool> desc_;
  std::vector<OutRow> rows_;
  std::unordered_map<std::string, Group> groups_;
  std::vector<std::unique_ptr<Arena>> arenas_;  // of the parts absorbed from other threads
};

// OFFSET, LIMIT and TOP applied to rows in their final order.
struct Window {
  int64_t skip = 0;
  std::optional<int64_t> take;
};

inline Window InitialWindow(const Plan& plan) {
  Window w;
  w.skip = plan.offset.value_or(0);
  if (plan.limit) w.take = *plan.limit;
  if (plan.top) w.take = w.take ? std::min(*w.take, *plan.top) : *plan.top;
  return w;
}

// The continuation: where the last page ended. Encoded as base64 JSON so clients treat it as opaque.
//   "p", "k"  the last row returned (its position and sort keys); absent before the first row
//   "s", "t"  what remains of OFFSET and of LIMIT/TOP
//   "c"       a query that collects (ORDER BY, GROUP BY, DISTINCT, aggregates): its scan resumes
//             after this candidate row
//   "x"       ... with what the earlier pages collected, kept by the emulator under this number
//   "y"       the rows after "p" of a result a page computed but could not return whole, kept by the
//             emulator under this number: the next page returns them without reading again (when
//             they are gone, the rest of the token resumes as it would without "y")
//   "f"       a partial page (below) being returned covers the candidates after "c" up to this one
//   "r"       the partition key range ids of the scope's partitions, which the positions number: a
//             page after a split finds the ranges again by their children (AdjustForSplits)
//   "g"       [range id, sequence number] pairs: where the scans of those ranges (and of their
//             children) start, once a split divided a range a page was reading (Scope::floors)
struct Resume {
  bool has_row = true;
  Pos pos;
  std::vector<Val> keys;
  Window window;
  std::optional<Pos> scan;
  std::optional<Pos> segment_end;
  uint64_t state = 0;
  uint64_t kept = 0;                // "y"
  std::vector<std::string> ranges;  // "r": the range ids the positions' partition numbers name
  std::vector<std::pair<std::string, uint64_t>> floors;  // "g": Scope::floors by range id
};


// ---------------------------------------------------------------------------------------------
// Continuations (executor_continuation.cpp)

uint32_t QueryHash(std::string_view text);

std::string EncodeResume(const std::string& ranges, const OutRow* last, const Window& w, std::string_view query,
                         const std::optional<Pos>& scan = std::nullopt,
                         const std::optional<Pos>& segment_end = std::nullopt, uint64_t state = 0,
                         uint64_t kept = 0);

// Where partition `pi`'s scan starts when the page does not resume in it (Scope::floors).
uint64_t FloorOf(const Scope& scope, size_t pi);

CosmosError InvalidContinuation();

Resume DecodeResume(const std::string& token, std::string_view query, size_t key_count, json::Document& holder);

// The key a suspended collection is kept under besides its query: the partitions and keys it read.
std::string ScopeKey(const Scope& scope);

// The "r" and "g" members of a continuation: the scope's range ids and floors.
std::string RangesMember(const Scope& scope);

// A continuation made over other ranges than the scope's (a range was split since): each position
// moves to the first range descended from the one it named, and when that range was split, its
// other descendants start after the position's sequence number (Scope::floors). `adjusted` holds
// the scope when it must change. A range the scope does not descend from makes the token invalid.
const Scope& AdjustForSplits(const Scope& scope, std::optional<Resume>& resume, Scope& adjusted);

// ---------------------------------------------------------------------------------------------
// Suspended pages (executor_suspended.cpp)

// What a page of a collecting query gathered before its deadline, kept for the next page; or the
// rows of a result it computed that did not fit in it (`rows`), kept for the pages that return them.
struct Suspended {
  uint32_t query = 0;   // hash of the query text
  std::string scope;    // the partitions and keys it read
  std::unique_ptr<Arena> arena;
  std::vector<store::ItemPtr> pinned;
  std::unique_ptr<Collector> collector;
  // The constants and parameters of the plans of the pages that collected (rows may point into them).
  std::vector<std::shared_ptr<const void>> keepalive;
  size_t held_bytes = 0;
  // The rows of the result not returned yet, in their final order (their values live in the arena,
  // the collector's arenas, the pinned documents and the plans' constants above).
  std::vector<OutRow> rows;
  size_t bytes() const {
    return arena->used() + held_bytes + pinned.size() * sizeof(store::ItemPtr) + rows.size() * sizeof(OutRow);
  }
};

// The suspended collections of the process: at most kMaxEntries, holding together no more than
// one request's memory budget, each kept kIdle after its page (the oldest go first). A page whose
// collection is gone reads from the start again.
class SuspendedPages {
 public:
  static constexpr size_t kMaxEntries = 64;
  static constexpr std::chrono::seconds kIdle{60};

  static SuspendedPages& Get() {
    static SuspendedPages* p = new SuspendedPages();
    return *p;
  }

  uint64_t NewId() {
    std::lock_guard lock(mu_);
    return next_++;
  }

  void Put(uint64_t id, std::unique_ptr<Suspended> s, size_t cap);
  std::unique_ptr<Suspended> Take(uint64_t id, uint32_t query, const std::string& scope);
  size_t size();

 private:
  SuspendedPages();
  struct Entry {
    std::unique_ptr<Suspended> state;
    std::chrono::steady_clock::time_point at;
    size_t bytes;
  };
  std::mutex mu_;
  std::map<uint64_t, Entry> entries_;  // in the order they were put
  size_t total_ = 0;
  uint64_t next_ = 1;
};

// ---------------------------------------------------------------------------------------------
// Reading partitions (executor_rows.cpp)

// An index lookup is used when it finds at most this many items, or a quarter of the partition.
constexpr size_t kMinLookupCap = 64;

// How far ahead of the document being read a scan asks for the next one's members.
constexpr size_t kPrefetchAhead = 4;

// (The first lines of its member table: the properties a query names are most often among them.)
void PrefetchDocument(const store::Item& item);

void AddFacts(PageFacts& f, const store::Item& item, bool matched);

// Which candidate rows a page reads, for a query that collects: after `from`, up to `to`.
struct ScanRange {
  std::optional<Pos> from;
  std::optional<Pos> to;
};

// The most items an index lookup may leave a vector search before the vector index is read instead.
constexpr size_t kMaxVectorLookup = 2000;

// A vector search: SELECT TOP k ... ORDER BY VectorDistance(<document path>, <constant vector>)
// with neither a join, groups nor DISTINCT, and every document giving a row. Each partition's
// vector index then names the items that can be among the k best (and those whose distance is
// undefined); only those are read, and their exact distances order them.
struct VectorTop {
  store::DocPath path;
  store::VectorQuery query;
  size_t k = 0;
  std::function<bool(const store::Item&)> filter;  // the query's WHERE (none: every item)
};

// Whether a plan calls a user-defined function anywhere (they run in the request's JavaScript
// context, on its own thread only).
bool CallsUdf(const Plan& plan);

// Reads one partition's items for a scan, in sequence order, from what the scope and the index
// lookup choose: a script's view, the items an index lookup or a vector search found, the logical
// partition's items, or all of them. Copies read independently (the parts of a parallel scan).
class PartitionReader {
 public:
  PartitionReader(const Scope& scope, size_t pi, const std::optional<IndexLookup>& lookup,
                  const store::ItemPolicy& policy, const VectorTop* vector_top = nullptr);
  // Reads on after the item numbered `after`.
  void Seek(uint64_t after) {
    after_ = after;
    if (candidates_) next_ = std::upper_bound(candidates_->begin(), candidates_->end(), after) - candidates_->begin();
  }
  // The next items (at most max); none at the end.
  std::vector<store::ItemPtr> Next(size_t max);
  // Whether an item read is in the scope (an index finds the items of every key).
  bool Admits(const store::Item& item) const {
    if (scope_->partition_key && item.pk() != *scope_->partition_key) return false;
    return !scope_->epk_range || (item.epk() >= scope_->epk_range->first && item.epk() < scope_->epk_range->second);
  }
  // About how many items it reads.
  size_t Estimate() const {
    if (scope_->view) return scope_->view->size();
    if (candidates_) return candidates_->size();
    return scope_->partition_key ? part_->CountOfKey(*scope_->partition_key) : part_->Count();
  }
  store::PhysicalPartition& partition() const { return *part_; }

  // Records in `facts` (once) that the scan read partition `pi`: it found a document there
  // (`touched`), or the query is across partitions, or the partition holds the query's logical
  // partition (whatever the index let the scan skip).
  void NoteTouched(PageFacts& facts, size_t pi, bool touched) const;

 private:
  const Scope* scope_;
  store::PhysicalPartition* part_;
  store::ItemPolicy policy_;
  std::shared_ptr<const std::vector<uint64_t>> candidates_;  // null: no index lookup
  size_t next_ = 0;
  uint64_t after_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Running a plan over a page's scope

// The state of one run of a plan over the scope (a page's, or that of a FROM subquery within it),
// which the row loop and the stages it calls share (Run, RunWalk, CollectInParallel, ...).
struct RunState {
  const Plan& plan;
  const Scope& scope;
  EvalContext& cx;                      // the run's env, arena and budget (cx.budget)
  std::vector<store::ItemPtr>& pinned;  // documents the result rows point into
  PageFacts& facts;                     // what the run loaded, for the charge
  const std::optional<Resume>& resume;  // where the previous page ended (none: the first page)
  const std::function<bool(OutRow&)>& emit;  // takes each row of the final result; false: stop
  Collector* collector = nullptr;  // where a query that collects gathers its rows (null: Run's own)
  ScanRange range;                 // the candidate rows a collecting page reads
  // Where a page whose budget is stoppable ended early (null: the run does not stop).
  std::optional<Pos>* stopped = nullptr;
  // Where EmitCollected leaves the rows of the result that `emit` did not take (null: dropped).
  std::vector<OutRow>* rest = nullptr;
};

// What a run reads in each partition: the index lookup and vector search chosen for it, the items'
// policy, and the partitions' readers (made when first needed).
struct PartitionReads {
  std::optional<IndexLookup> lookup;
  std::optional<VectorTop> vector_top;
  store::ItemPolicy policy;
  std::vector<std::optional<PartitionReader>> readers;
  const VectorTop* vtop() const { return vector_top ? &*vector_top : nullptr; }
};

// Orders (groups, de-duplicates) what `collector` holds and hands each row after `after` to `emit`
// (which returns false to stop); the rows from the one it refused on go to run.rest.
void EmitCollected(RunState& run, Collector& collector, const std::optional<OutRow>& after);

// Runs `plan` over the scope's documents and hands each row of the final result, in order, to
// `emit` (which returns false to stop). A streaming query skips the rows at or before `resume` by
// position; one that collects reads the candidates in `range` into `collector` (a fresh one when
// null) and then emits the rows after `resume` by sort key and position. A FROM subquery over
// the container is run to completion first and its values become the outer query's input.
//
// A page whose budget is stoppable may end early (BudgetCheck throws PageStop once the page has
// progressed); `stopped` then receives the position of the last candidate row it completed. A
// streaming page has emitted its rows up to there; one that collects has emitted nothing (its
// caller returns the collection or keeps it).
void Run(RunState& run);

// ---------------------------------------------------------------------------------------------
// Parallel collection (executor_parallel.cpp)

// The threads one query may read its partitions on: the scope's setting (--query-threads), else
// the cores.
inline size_t QueryThreads(const Scope& scope) {
  return scope.parallel.threads != 0 ? scope.parallel.threads : util::ParallelThreads();
}

// Where a parallel collection stopped: every partition before `part`, and `part` up to its item
// numbered `after`, are collected; `touched`: that stretch of `part` had a document in the scope.
struct ParallelDone {
  size_t part = 0;
  uint64_t after = 0;
  bool touched = false;
};

// Reads the scope's partitions for a collection on several threads. The partitions are cut into
// parts (items after `after` up to `through`, by sequence number), claimed in order; each part is
// collected with its own arena and collector, and the parts are absorbed in order, so the
// collection is what one thread reading them in order would have made. The exception is a SUM or
// AVG over floating-point numbers, whose sums are added per part: such a query is cut only between
// partitions, whose sums the service also adds up per partition.
//
// A part that cannot finish (the page's deadline, the thread's share of the memory budget, an
// error) ends the parallel reading: the parts before it are kept and the caller reads on from
// there on its own thread, where the page stops, fails or finishes as it would have. Returns
// nullopt when the collection is not worth spreading (few items, one core) or may not be (UDFs);
// the readers it made are left for the caller.
std::optional<ParallelDone> CollectInParallel(RunState& run, Collector& collector, PartitionReads& reads);

// ---------------------------------------------------------------------------------------------
// Index walks and index aggregates (executor_index.cpp)

// With a WHERE, the k best are taken among the items it accepts (it is evaluated once more for
// them while the index is read; never one that calls a user-defined function).
std::optional<VectorTop> ChooseVectorTop(const Plan& plan, EvalContext& cx);

// An aggregate query made of COUNT, MIN and MAX only, over the documents alone (no JOIN), answered
// from the partitions' indexes without reading a document: COUNT of a constant counts the rows
// (every item, or the items an exact index lookup finds when the WHERE is that one lookup), COUNT
// of an indexed path counts its defined values, MIN and MAX of an indexed path take the first
// defined entry of its index from either end (undefined when some value there is an array or an
// object, as the aggregate is). Paths only without a WHERE and outside a logical partition (the
// index does not know either); only when every stored item is live (no expired item waits for its
// delete). Returns false when the query must read its rows.
bool AggregateFromIndex(RunState& run, Collector& collector);
// GROUP BY one indexed path without a WHERE, whose aggregates are COUNTs of constants and COUNT,
// MIN or MAX of that path: each partition's index of the path read as runs of equal keys (a group
// per key, its first item the group's document, the run's length its count), no document read.
// Returns false (having done nothing) for any other query.
bool GroupsFromIndex(RunState& run, Collector& collector);

// Whether a page of an ORDER BY query walks an index in the order of its ORDER BY items (in
// order, stopping when the page is full) instead of collecting every matching row and sorting:
// one item over an indexed document path, or two or more over document paths a composite index of
// the policy serves (index_use.h, OrderByIndexColumns); nothing that needs every row first (GROUP
// BY, aggregates, DISTINCT), and no suspended collection to resume. Where reading fewer documents
// and sorting them is cheaper (an equality or IN lookup on another path narrows the WHERE, or a
// logical partition that holds little of its partitions), the query collects.
struct Walk {
  // The index's columns: the ORDER BY items' paths, directions turned so that the first column is
  // ascending (an index and its reverse are one index, walked the other way).
  store::IndexColumns columns;
  bool descending = false;  // walked from its end: the first ORDER BY item is descending
  // With `bounded`, only these windows of the index (ascending, disjoint; none: no row): those of a
  // lookup the WHERE offers on the first column's path (an equality, a range, IN, STARTSWITH), or,
  // with an equality or IN there, each of its keys followed by the windows of a lookup on the
  // second column's path, so that a page reads the documents of its own key range, not those before it.
  bool bounded = false;
  std::vector<store::KeyWindow> windows;
};
std::optional<Walk> WalkPath(const Plan& plan, const Scope& scope, const std::optional<Resume>& resume,
                             EvalContext& cx);

// One page of an ORDER BY query that walks `walk`'s index in every partition of the scope and
// merges them: rows come in their final order (sort keys, then partition, document and row), so
// the page ends when it is full and the next one seeks to just after its last row, however far
// into the result that is. `stopped` receives the last row position the page completed when the
// budget ends it before it is full.
void RunWalk(RunState& run, const Walk& walk, std::optional<OutRow>& stopped);

}  // namespace cosmos::query::detail
