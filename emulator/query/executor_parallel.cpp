// Parallel collection: a query that collects (ORDER BY without its index, GROUP BY, DISTINCT,
// aggregates) and reads its partitions from the start may read them on several threads, each part
// into its own collector, absorbed in order into the page's.
#include <algorithm>
#include <atomic>

#include "query/executor_internal.h"
#include "util/parallel.h"

namespace cosmos::query::detail {

std::optional<ParallelDone> CollectInParallel(RunState& run, Collector& collector, PartitionReads& reads) {
  const Plan& plan = run.plan;
  const Scope& scope = run.scope;
  EvalContext& cx = run.cx;
  auto& readers = reads.readers;
  const size_t threads = QueryThreads(scope);
  if (threads < 2 || scope.view != nullptr || scope.partitions.empty()) return std::nullopt;
  if (cx.fn.udfs != nullptr && CallsUdf(plan)) return std::nullopt;
  size_t total = 0;
  for (size_t pi = 0; pi < scope.partitions.size(); ++pi) {
    readers[pi].emplace(scope, pi, reads.lookup, reads.policy, reads.vtop());
    total += readers[pi]->Estimate();
  }
  if (total < scope.parallel.min_items) return std::nullopt;

  struct Part {
    size_t pi;
    uint64_t after;
    uint64_t through;
  };
  const bool cut = std::none_of(plan.aggregates.begin(), plan.aggregates.end(),
                                [](const Aggregate& a) { return a.kind == Agg::kSum || a.kind == Agg::kAvg; });
  std::vector<Part> parts;
  for (size_t pi = 0; pi < scope.partitions.size(); ++pi) {
    const size_t items = readers[pi]->Estimate();
    size_t n = 1;
    const size_t part_items = std::max<size_t>(scope.parallel.part_items, 1);
    if (cut && items >= 2 * part_items) n = std::min(items / part_items, (4 * threads * items + total - 1) / total);
    // Equal stretches of the partition's sequence numbers (items take them in the order written).
    uint64_t before = 0;  // the number before the first item's
    uint64_t width = 0;
    if (n > 1) {
      if (const auto span = readers[pi]->partition().SeqSpan()) {
        before = span->first - 1;
        width = (span->second - span->first + n) / n;
      } else {
        n = 1;
      }
    }
    for (size_t j = 0; j < n; ++j)
      parts.push_back(Part{pi, j == 0 ? 0 : before + j * width, j + 1 == n ? UINT64_MAX : before + (j + 1) * width});
  }

  struct Result {
    std::unique_ptr<Arena> arena = std::make_unique<Arena>();
    std::unique_ptr<Collector> collector;
    std::vector<store::ItemPtr> pinned;
    PageFacts facts;
    size_t held_bytes = 0;
    bool touched = false;
    bool complete = false;
  };
  std::vector<Result> results(parts.size());
  BudgetCheck* const budget = cx.budget;
  const bool stoppable = budget != nullptr && budget->stoppable;
  const auto deadline = budget != nullptr ? budget->budget().deadline : std::chrono::steady_clock::time_point::max();
  QueryBudget share;
  if (budget != nullptr) {
    share = budget->budget();
    share.deadline = std::chrono::steady_clock::time_point::max();  // checked between chunks, below
    const size_t held = budget->held_bytes + cx.arena.used();
    if (share.memory_bytes != SIZE_MAX) share.memory_bytes = share.memory_bytes > held ? (share.memory_bytes - held) / threads : 0;
  }
  std::atomic<size_t> first_failed{SIZE_MAX};
  std::atomic<bool> failed{false};
  auto fail = [&](size_t u) {
    size_t cur = first_failed.load();
    while (u < cur && !first_failed.compare_exchange_weak(cur, u)) {
    }
    failed = true;
  };
  const Source& root = plan.sources.front();
  util::ParallelFor(parts.size(), [&](size_t u) {
    const Part& part = parts[u];
    Result& r = results[u];
    try {
      Arena& arena = *r.arena;
      r.collector = std::make_unique<Collector>(plan);
      EvalContext wcx{arena, FunctionContext{arena, cx.fn.now_ms, nullptr, cx.fn.geometry}, cx.env, nullptr, nullptr};
      std::optional<BudgetCheck> check;
      if (budget != nullptr) {
        check.emplace(share, arena);
        check->collects = true;
        wcx.budget = &*check;
      }
      PartitionReader reader = *readers[part.pi];
      reader.Seek(part.after);
      for (bool end = false; !end;) {
        // Parts after one that failed are not used; at the deadline the page ends (on the caller's thread).
        if (first_failed.load(std::memory_order_relaxed) < u) return;
        if (stoppable && std::chrono::steady_clock::now() >= deadline) return fail(u);
        auto chunk = reader.Next(512);
        if (chunk.empty()) break;
        for (size_t ci = 0; ci < chunk.size(); ++ci) {
          if (ci + kPrefetchAhead < chunk.size()) PrefetchDocument(*chunk[ci + kPrefetchAhead]);
          const store::ItemPtr& item = chunk[ci];
          if (item->seq > part.through) {
            end = true;
            break;
          }
          if (!reader.Admits(*item)) continue;
          r.touched = true;
          wcx.env[root.slot] = Val(item->body);
          Cursor cursor;
          bool matched = false;
          bool pin = false;
          const double kb = item->kb();
          ForEachRow(plan, 0, wcx, [&] {
            matched = true;
            if (r.collector->Add(wcx, Pos{part.pi, item->seq, cursor.ord}, kb)) pin = true;
          }, &cursor);
          if (pin) r.pinned.push_back(item);
          AddFacts(r.facts, *item, matched || !plan.where);
        }
      }
      r.held_bytes = check ? check->held_bytes : 0;
      r.complete = true;
    } catch (...) {
      fail(u);  // the caller's thread reads this part again and meets the same end
    }
  }, &failed);

  std::vector<bool> touched(scope.partitions.size(), false);
  size_t u = 0;
  for (; u < parts.size() && results[u].complete; ++u) {
    Result& r = results[u];
    if (budget != nullptr) budget->held_bytes += r.held_bytes + r.arena->used();
    collector.Absorb(*r.collector, cx.arena);
    collector.Keep(std::move(r.arena));
    run.pinned.insert(run.pinned.end(), std::make_move_iterator(r.pinned.begin()), std::make_move_iterator(r.pinned.end()));
    run.facts.docs_loaded += r.facts.docs_loaded;
    run.facts.kb_loaded += r.facts.kb_loaded;
    run.facts.docs_scanned += r.facts.docs_scanned;
    run.facts.kb_scanned += r.facts.kb_scanned;
    const size_t pi = parts[u].pi;
    if (r.touched) touched[pi] = true;
    if (u + 1 == parts.size() || parts[u + 1].pi != pi) readers[pi]->NoteTouched(run.facts, pi, touched[pi]);
  }
  if (u > 0 && budget != nullptr) budget->armed = true;
  if (u == parts.size()) return ParallelDone{scope.partitions.size(), 0, false};
  return ParallelDone{parts[u].pi, parts[u].after, touched[parts[u].pi]};
}

}  // namespace cosmos::query::detail
