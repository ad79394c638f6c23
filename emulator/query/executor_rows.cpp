// The row loop: the rows of the FROM/JOIN sources with WHERE applied (ForEachRow), a plan run in
// memory (RunInMemory, for subqueries), the partitions' readers, and Run, which reads the page's
// scope row by row and streams its rows or collects them (EmitCollected orders what it collected).
#include <algorithm>
#include <functional>
#include <iterator>
#include <vector>

#include "common/errors.h"
#include "query/executor_internal.h"

namespace cosmos::query {

namespace detail {

bool Passes(const Node& where, EvalContext& cx) {
  Arena::RowScratch scratch(cx.arena);
  return Eval(where, cx).IsTrue();
}

// Enumerates the rows of the FROM/JOIN sources from `index` on, with WHERE applied.
void ForEachRow(const Plan& plan, size_t index, EvalContext& cx, const std::function<void()>& row,
                Cursor* cursor) {
  if (index == plan.sources.size()) {
    if (cursor != nullptr && ++cursor->ord > cursor->stop_after) return;
    if (cx.budget != nullptr) cx.budget->Tick();
    if (cursor != nullptr && cursor->ord <= cursor->arm_after) {  // a row the page resumes after
      cursor->completed = cursor->ord;
      return;
    }
    if (!plan.where || Passes(*plan.where, cx)) row();
    if (cursor != nullptr) {
      cursor->completed = cursor->ord;
      if (cx.budget != nullptr && cursor->ord > cursor->arm_after) cx.budget->armed = true;
    }
    return;
  }
  const Source& src = plan.sources[index];
  switch (src.kind) {
    case Source::Kind::kContainer: ForEachRow(plan, index + 1, cx, row, cursor); return;
    case Source::Kind::kContainerPath: {
      // env[slot] holds the document; replace it by the path's value.
      Val v = Eval(src.expr, cx);
      if (v.IsUndefined()) return;
      cx.env[src.slot] = v;
      ForEachRow(plan, index + 1, cx, row, cursor);
      return;
    }
    case Source::Kind::kIterate: {
      Val coll = Eval(src.expr, cx);
      if (!coll.IsArray()) return;
      for (const auto& e : coll.json().GetArray()) {
        cx.env[src.slot] = Val(e);
        ForEachRow(plan, index + 1, cx, row, cursor);
      }
      return;
    }
    case Source::Kind::kValue: {
      Val v = Eval(src.expr, cx);
      if (v.IsUndefined()) return;
      cx.env[src.slot] = v;
      ForEachRow(plan, index + 1, cx, row, cursor);
      return;
    }
    case Source::Kind::kSubquery: {
      std::vector<Val> values;
      RunInMemory(*src.sub, cx, [&](Val v) {
        if (!src.iterate_rows) {
          values.push_back(v);
        } else if (v.IsArray()) {
          for (const auto& e : v.json().GetArray()) values.push_back(Val(e));
        }
      });
      for (Val v : values) {
        cx.env[src.slot] = v;
        ForEachRow(plan, index + 1, cx, row, cursor);
      }
      return;
    }
  }
}

// (The first lines of its member table: the properties a query names are most often among them.)
void PrefetchDocument(const store::Item& item) {
  if (!item.body.IsObject()) return;
  const char* at = reinterpret_cast<const char*>(&*item.body.MemberBegin());
  const size_t bytes = std::min<size_t>(item.body.MemberCount() * sizeof(json::Value::Member), 256);
  for (size_t off = 0; off < bytes; off += 64) __builtin_prefetch(at + off);
}

void AddFacts(PageFacts& f, const store::Item& item, bool matched) {
  double kb = item.kb();
  if (matched) {
    ++f.docs_loaded;
    f.kb_loaded += kb;
  } else {
    ++f.docs_scanned;
    f.kb_scanned += kb;
  }
}

}  // namespace detail

void RunInMemory(const Plan& plan, EvalContext& cx, const std::function<void(Val)>& out) {
  using namespace detail;
  if (cx.env.size() < static_cast<size_t>(plan.first_slot + plan.sources.size())) {
    cx.env.resize(plan.first_slot + plan.sources.size());
  }
  Window w = InitialWindow(plan);
  auto emit = [&](Val v) {
    if (v.IsUndefined()) return;
    if (w.skip > 0) {
      --w.skip;
      return;
    }
    if (w.take && *w.take == 0) return;
    if (w.take) --*w.take;
    out(v);
  };
  if (Streaming(plan)) {
    ForEachRow(plan, 0, cx, [&] { emit(Project(plan, cx)); });
    return;
  }
  // The subquery's rows and groups count against the page's budget while its collector lives, and
  // no longer: a subquery in a WHERE runs once per row of the query.
  struct HeldWhileCollecting {
    BudgetCheck* budget;
    size_t before;
    ~HeldWhileCollecting() {
      if (budget != nullptr) budget->held_bytes = before;
    }
  } held{cx.budget, cx.budget != nullptr ? cx.budget->held_bytes : 0};
  Collector collector(plan);
  uint64_t ord = 0;
  ForEachRow(plan, 0, cx, [&] { collector.Add(cx, Pos{0, 0, ord++}, 0); });
  for (const auto& r : collector.Finish(cx)) emit(r.value);
}

namespace detail {

namespace {

// Up to `max` items of a feed-ordered view with seq > after.
std::vector<store::ItemPtr> ViewChunk(const std::vector<store::ItemPtr>& view, uint64_t after, size_t max) {
  auto it = std::upper_bound(view.begin(), view.end(), after,
                             [](uint64_t seq, const store::ItemPtr& item) { return seq < item->seq; });
  std::vector<store::ItemPtr> out;
  for (; it != view.end() && out.size() < max; ++it) out.push_back(*it);
  return out;
}

}  // namespace

PartitionReader::PartitionReader(const Scope& scope, size_t pi, const std::optional<IndexLookup>& lookup,
                                 const store::ItemPolicy& policy, const VectorTop* vector_top)
    : scope_(&scope), part_(scope.partitions[pi]), policy_(policy) {
  if (lookup) {
    // More candidates than a quarter of the partition (or than the logical partition's items)
    // read no faster than the scan would.
    size_t cap = std::max<size_t>(kMinLookupCap, part_->Count() / 4);
    if (scope.partition_key) cap = std::min(cap, part_->CountOfKey(*scope.partition_key));
    auto found =
        lookup->ranges.empty() ? std::vector<uint64_t>{} : part_->IndexLookup(lookup->path, lookup->ranges, cap);
    // A vector search computes every distance of what it reads from the documents: past a few
    // thousand, ruling items out through the vector index (the WHERE evaluated on each) is cheaper.
    if (found && (vector_top == nullptr || found->size() <= kMaxVectorLookup))
      candidates_ = std::make_shared<const std::vector<uint64_t>>(std::move(*found));
  }
  // A vector search the WHERE's index lookup (if any) did not narrow enough.
  if (!candidates_ && vector_top != nullptr && scope.view == nullptr) {
    auto found = part_->VectorCandidates(
        vector_top->path, vector_top->query, vector_top->k,
        [this, vector_top](const store::Item& item) {
          return Admits(item) && (!vector_top->filter || vector_top->filter(item));
        },
        scope.now, policy_);
    if (found) candidates_ = std::make_shared<const std::vector<uint64_t>>(std::move(*found));
  }
}

std::vector<store::ItemPtr> PartitionReader::Next(size_t max) {
  const Scope& s = *scope_;
  if (s.view) {
    // A script's view holds its logical partition whole: what the index left out stays unread.
    while (true) {
      auto chunk = ViewChunk(*s.view, after_, max);
      if (chunk.empty()) return chunk;
      after_ = chunk.back()->seq;
      if (policy_.indexed_only) std::erase_if(chunk, [](const store::ItemPtr& item) { return item->unindexed; });
      if (!chunk.empty()) return chunk;
    }
  }
  auto chunk = candidates_     ? part_->ItemsBySeq(*candidates_, next_, max, s.now, policy_)
               : s.partition_key ? part_->FeedOfKey(*s.partition_key, after_, max, s.now, policy_)
                                 : part_->Feed(after_, max, s.now, policy_);
  if (!chunk.empty()) after_ = chunk.back()->seq;
  return chunk;
}

void PartitionReader::NoteTouched(PageFacts& facts, size_t pi, bool touched) const {
  if (!touched && candidates_ && scope_->partition_key && !scope_->view)
    touched = part_->HasLiveItems(*scope_->partition_key, scope_->now, policy_);
  if (!touched && scope_->partition_key) return;
  auto& list = facts.partitions_touched;
  if (std::find(list.begin(), list.end(), pi) == list.end()) list.push_back(pi);
}

bool CallsUdf(const Node& n) {
  if (n.op == Node::Op::kUdf) return true;
  for (const auto& k : n.kids)
    if (CallsUdf(k)) return true;
  return n.sub != nullptr && CallsUdf(*n.sub);
}

// Whether a plan calls a user-defined function anywhere (they run in the request's JavaScript
// context, on its own thread only).
bool CallsUdf(const Plan& plan) {
  if ((plan.where && CallsUdf(*plan.where)) || CallsUdf(plan.value)) return true;
  for (const auto& p : plan.projections)
    if (CallsUdf(p.second)) return true;
  for (const auto& g : plan.group_by)
    if (CallsUdf(g)) return true;
  for (const auto& a : plan.aggregates)
    if (CallsUdf(a.arg)) return true;
  for (const auto& k : plan.order_by)
    if (CallsUdf(k.expr)) return true;
  for (const auto& src : plan.sources)
    if (CallsUdf(src.expr) || (src.sub != nullptr && CallsUdf(*src.sub))) return true;
  return false;
}

void EmitCollected(RunState& run, Collector& collector, const std::optional<OutRow>& after) {
  std::vector<OutRow> rows = collector.Finish(run.cx);
  const auto& desc = collector.descending();
  const Plan& plan = run.plan;
  PageFacts& facts = run.facts;
  // ORDER BY alone walks the order index: it loads only the documents it returns (plus the one
  // that tells it more remain). GROUP BY, DISTINCT and aggregates read every match.
  const bool index_walk = plan.group_by.empty() && !plan.aggregate_query && !plan.distinct;
  if (index_walk) {
    facts.docs_loaded = 0;
    facts.kb_loaded = 0;
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    OutRow& r = rows[i];
    if (after && CompareRows(desc, r, *after) <= 0) continue;
    const bool emitted = run.emit(r);
    if (index_walk) {
      ++facts.docs_loaded;
      facts.kb_loaded += r.kb;
    }
    if (!emitted) {
      if (run.rest != nullptr) run.rest->assign(std::make_move_iterator(rows.begin() + i), std::make_move_iterator(rows.end()));
      break;
    }
  }
}

namespace {

// Run over a root source (the container's documents, or the values of a FROM subquery): where its
// reading starts and ends, and whether it has stopped.
struct RowScan {
  RunState& run;
  Collector& collector;
  const Source& root;
  const bool streaming;
  BudgetCheck* const budget;
  const bool stoppable;
  // Where reading starts: a streaming page after its last row, one that collects after its scan.
  const Pos* const start;
  const Pos* const end;
  bool stop = false;
  bool past_end = false;  // the candidates after range.to are not read

  RowScan(RunState& r, Collector& c, bool streaming_run)
      : run(r),
        collector(c),
        root(r.plan.sources.front()),
        streaming(streaming_run),
        budget(r.cx.budget),
        stoppable(r.stopped != nullptr && budget != nullptr && budget->stoppable),
        start(streaming ? (r.resume ? &r.resume->pos : nullptr) : (r.range.from ? &*r.range.from : nullptr)),
        end(streaming ? nullptr : (r.range.to ? &*r.range.to : nullptr)) {}

  bool Beyond(uint64_t part, uint64_t seq) const {
    return end != nullptr && Pos{part, seq, 0} > Pos{end->part, end->seq, 0};
  }

  // One root input (a document, or a value of a FROM subquery) bound in env: enumerate its rows.
  void Visit(uint64_t part, uint64_t seq, const store::ItemPtr& item, size_t first_source) {
    const Plan& plan = run.plan;
    EvalContext& cx = run.cx;
    Cursor cursor;
    bool matched = false;
    bool pin = false;
    const Pos doc{part, seq, 0};
    // Completing a candidate is progress only past the position the page resumes from.
    if (start != nullptr) {
      const Pos at{start->part, start->seq, 0};
      cursor.arm_after = doc < at ? UINT64_MAX : doc == at ? start->ord : 0;
    }
    if (end != nullptr && doc == Pos{end->part, end->seq, 0}) cursor.stop_after = end->ord;
    auto each = [&] {
      const Pos pos{part, seq, cursor.ord};
      matched = true;
      if (stop) return;
      const double kb = item ? item->kb() : 0;
      if (!streaming) {
        if (collector.Add(cx, pos, kb)) pin = true;
        return;
      }
      if (run.resume && pos <= run.resume->pos) return;
      OutRow r{{}, pos, Project(plan, cx)};
      if (r.value.IsUndefined()) return;
      r.kb = kb;
      pin = true;
      if (!run.emit(r)) {
        stop = true;
        if (stoppable) throw PageStop{};  // the page is complete: leave the document's other rows
      }
    };
    if (!stoppable) {
      ForEachRow(plan, first_source, cx, each, &cursor);
    } else {
      try {
        ForEachRow(plan, first_source, cx, each, &cursor);
      } catch (const PageStop&) {
        *run.stopped = Pos{part, seq, cursor.completed};
        stop = true;
      }
    }
    if (pin && item) run.pinned.push_back(item);
    // The document a page resumes in was loaded (and charged) by the previous page.
    const bool resumed_here = start != nullptr && part == start->part && seq == start->seq;
    if (item && !resumed_here) AddFacts(run.facts, *item, matched || !plan.where);
  }

  // Between two root inputs, a page may end after the one it has just completed (every row of it
  // handled: the next page resumes after its last possible row).
  void Between(uint64_t part, uint64_t seq) {
    if (start != nullptr && Pos{part, seq, UINT64_MAX} <= *start) return;
    budget->armed = true;
    try {
      budget->Tick();
    } catch (const PageStop&) {
      *run.stopped = Pos{part, seq, UINT64_MAX};
      stop = true;
    }
  }

  void FromSubquery() {
    std::vector<Val> values;
    // The FROM subquery runs to completion on every page (its values have no position of their own).
    const bool was_stoppable = budget != nullptr && budget->stoppable;
    if (budget != nullptr) budget->stoppable = false;
    const std::optional<Resume> no_resume;
    const std::function<bool(OutRow&)> collect = [&](OutRow& r) {
      if (!root.iterate_rows) {
        values.push_back(r.value);
      } else if (r.value.IsArray()) {
        for (const auto& e : r.value.json().GetArray()) values.push_back(Val(e));
      }
      return true;
    };
    RunState sub{*root.sub, run.scope, run.cx, run.pinned, run.facts, no_resume, collect, nullptr, ScanRange{}, nullptr};
    Run(sub);
    if (budget != nullptr) {
      budget->stoppable = was_stoppable;
      budget->armed = false;
    }
    for (size_t i = 0; i < values.size() && !stop; ++i) {
      if (start != nullptr && Pos{0, i + 1, UINT64_MAX} <= *start) continue;
      if (Beyond(0, i + 1)) break;
      run.cx.env[root.slot] = values[i];
      Visit(0, i + 1, nullptr, 1);
      if (!stop && stoppable) Between(0, i + 1);
    }
  }

  // Reads the partitions' documents. Returns true when the indexes answered the query (its rows
  // are emitted: nothing follows).
  bool FromPartitions(const std::optional<OutRow>& resume_row) {
    const Plan& plan = run.plan;
    const Scope& scope = run.scope;
    EvalContext& cx = run.cx;
    // COUNT, MIN and MAX answered by the index, or the groups of an indexed path counted from its
    // runs of equal keys: no document is read (a group's first document gives its key).
    if (!start && !end && !streaming) {
      const bool was_stoppable = budget != nullptr && budget->stoppable;
      if (budget != nullptr) budget->stoppable = false;
      if (AggregateFromIndex(run, collector) || GroupsFromIndex(run, collector)) {
        EmitCollected(run, collector, resume_row);
        return true;
      }
      if (budget != nullptr) budget->stoppable = was_stoppable;
    }
    // What each partition reads: the items an index lookup found (when the WHERE offers one and it
    // finds few enough), else the logical partition's items (a query scoped to one), else all.
    PartitionReads reads;
    if (scope.indexing != nullptr && scope.view == nullptr) reads.lookup = ChooseIndexLookup(plan, *scope.indexing, cx);
    if (!streaming && scope.indexing != nullptr && scope.view == nullptr) reads.vector_top = ChooseVectorTop(plan, cx);
    reads.policy = store::ItemPolicy{scope.default_ttl, std::nullopt, scope.indexed_only};
    reads.readers.resize(scope.partitions.size());
    size_t first = start != nullptr ? start->part : 0;
    // A page that starts a partition (seq 0: the previous page ended at the end of the one before)
    // reads it from its floor, as every later partition is read.
    uint64_t first_after =
        start != nullptr ? (start->seq == 0 ? FloorOf(scope, start->part) : start->seq - 1) : 0;
    bool first_touched = false;
    // A collection read from the start may read its partitions on several cores.
    if (!streaming && start == nullptr && end == nullptr) {
      if (auto done = CollectInParallel(run, collector, reads)) {
        first = done->part;
        first_after = done->after;
        first_touched = done->touched;
      }
    }
    for (size_t pi = first; pi < scope.partitions.size() && !stop && !past_end; ++pi) {
      if (!reads.readers[pi]) reads.readers[pi].emplace(scope, pi, reads.lookup, reads.policy, reads.vtop());
      PartitionReader& reader = *reads.readers[pi];
      bool touched = pi == first && first_touched;
      reader.Seek(pi == first ? first_after : FloorOf(scope, pi));
      while (!stop && !past_end) {
        auto chunk = reader.Next(512);
        if (chunk.empty()) break;
        for (size_t ci = 0; ci < chunk.size(); ++ci) {
          // Items lie anywhere in memory: ask for a later one's members while this one is read.
          if (ci + kPrefetchAhead < chunk.size()) PrefetchDocument(*chunk[ci + kPrefetchAhead]);
          const auto& item = chunk[ci];
          if (Beyond(pi, item->seq)) {
            past_end = true;
            break;
          }
          if (!reader.Admits(*item)) continue;
          touched = true;
          cx.env[root.slot] = Val(item->body);
          Visit(pi, item->seq, item, 0);
          if (stop) break;
          if (stoppable) Between(pi, item->seq);
          if (stop) break;
        }
      }
      reader.NoteTouched(run.facts, pi, touched);
      // A streaming page across partitions (the gateway's own cross-partition answer, no partition
      // key range named) holds the rows of one partition: it ends at the partition's end, full or
      // not (even empty), and the next page starts the next partition, as the service's gateway
      // answers one partition key range per page. So each page pays one partition's query base,
      // as the same query sent range by range does (docs/request-units.md).
      if (streaming && !stop && !past_end && run.stopped != nullptr && !scope.partition_key && scope.view == nullptr &&
          pi + 1 < scope.partitions.size()) {
        *run.stopped = Pos{pi + 1, 0, 0};
        stop = true;
      }
    }
    return false;
  }
};

}  // namespace

void Run(RunState& run) {
  const Plan& plan = run.plan;
  EvalContext& cx = run.cx;
  const bool streaming = Streaming(plan);
  std::optional<Collector> own;
  if (run.collector == nullptr) own.emplace(plan);
  Collector& collector = run.collector != nullptr ? *run.collector : *own;
  std::optional<OutRow> resume_row;
  if (run.resume && run.resume->has_row) resume_row = OutRow{run.resume->keys, run.resume->pos, Val()};

  if (plan.sources.empty()) {
    // SELECT without FROM: one row, evaluated once.
    if (run.resume) return;
    if (streaming) {
      if (!plan.where || Eval(*plan.where, cx).IsTrue()) {
        OutRow r{{}, Pos{}, Project(plan, cx)};
        if (r.value.IsDefined()) run.emit(r);
      }
      return;
    }
    ForEachRow(plan, 0, cx, [&] { collector.Add(cx, Pos{}, 0); });
    EmitCollected(run, collector, std::nullopt);
    return;
  }

  RowScan scan(run, collector, streaming);
  if (scan.root.kind == Source::Kind::kSubquery) {
    scan.FromSubquery();
  } else if (scan.FromPartitions(resume_row)) {
    return;
  }
  if (streaming || (run.stopped != nullptr && run.stopped->has_value())) return;
  if (scan.budget != nullptr) scan.budget->stoppable = false;  // the rows are all read: nothing stops their output
  EmitCollected(run, collector, resume_row);
}

}  // namespace detail

void BudgetCheck::Check() {
  if (budget_.cancelled != nullptr && budget_.cancelled->load(std::memory_order_relaxed)) {
    throw CosmosError(408, 0, "RequestTimeout", errors::Wrap("The request was cancelled."));
  }
  const bool over_memory = arena_->used() + held_bytes > budget_.memory_bytes;
  // What a query holds for its final order, groups or duplicates cannot be answered in part.
  if (over_memory && (collects || !stoppable)) throw errors::QueryMemoryExceeded(budget_.memory_bytes);
  // A page ends (with a continuation) once it has progressed; a streaming page's memory is its arena.
  if (CanStop() && (over_memory || std::chrono::steady_clock::now() >= budget_.deadline)) throw PageStop{};
}

}  // namespace cosmos::query
