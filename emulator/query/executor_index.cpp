// Index walks and index aggregates: the stages that read the partitions' indexes instead of (or
// before) their documents. A vector search reads the vector index for its top k (ChooseVectorTop);
// COUNT, MIN and MAX may be answered from the indexes (AggregateFromIndex); an ORDER BY page may
// walk the index of its sort path, or the composite index of its sort paths, in every partition
// and merge them (WalkPath, RunWalk).
#include <algorithm>
#include <climits>
#include <exception>

#include "query/executor_internal.h"
#include "store/order_key.h"
#include "store/path_index.h"
#include "util/parallel.h"

namespace cosmos::query::detail {

std::optional<VectorTop> ChooseVectorTop(const Plan& plan, EvalContext& cx) {
  if (plan.order_by.size() != 1 || plan.sources.size() != 1 || plan.sources[0].kind != Source::Kind::kContainer ||
      !plan.group_by.empty() || plan.aggregate_query || plan.distinct || plan.select == Plan::Select::kValue ||
      (plan.where && CallsUdf(plan)))
    return std::nullopt;
  auto order = VectorOrderOf(plan);
  // One argument a document path, the other a constant vector; the options constant too.
  if (!order || !IsEvaluableConstant(plan, *order->other)) return std::nullopt;
  const Node& call = *order->call;
  int64_t take = -1;
  if (plan.top) take = *plan.top;
  if (plan.limit) take = take < 0 ? *plan.limit : std::min(take, *plan.limit);
  const int64_t k = take + plan.offset.value_or(0);
  if (take <= 0 || k <= 0 || k > 100000) return std::nullopt;
  VectorTop top;
  top.k = static_cast<size_t>(k);
  top.query.descending = plan.order_by[0].descending;
  top.path = std::move(order->path);
  std::vector<Val> args(call.kids.size());
  for (size_t i = 2; i < call.kids.size(); ++i) {
    if (!IsEvaluableConstant(plan, call.kids[i])) return std::nullopt;
    args[i] = Eval(call.kids[i], cx);
  }
  const auto fn = VectorDistanceFunctionOf(args);
  if (!fn) return std::nullopt;
  top.query.function = *fn;
  const Val v = Eval(*order->other, cx);
  if (!v.IsArray()) return std::nullopt;
  for (const auto& e : v.json().GetArray()) {
    if (!e.IsNumber()) return std::nullopt;
    top.query.vector.push_back(e.GetDouble());
  }
  if (plan.where) {
    const Node* where = &*plan.where;
    const int slot = plan.sources[0].slot;
    top.filter = [&cx, where, slot](const store::Item& item) {
      cx.env[slot] = Val(item.body);
      return Passes(*where, cx);
    };
  }
  return top;
}

namespace {

// Whether `n` reads a variable (a row's source) anywhere outside aggregate arguments.
bool ReadsRow(const Node& n, int depth = 0) {
  if (depth > 1000) return true;
  if (n.op == Node::Op::kVar || n.op == Node::Op::kSubquery || n.op == Node::Op::kExists ||
      n.op == Node::Op::kArraySubquery || n.op == Node::Op::kUdf) {
    return true;
  }
  for (const auto& k : n.kids) {
    if (ReadsRow(k, depth + 1)) return true;
  }
  return false;
}

// Whether the scope's indexes may answer for its documents: a container's partitions read whole
// (no change-feed view, no EPK sub-range) under a policy that indexes.
bool IndexesAnswer(const Scope& scope) {
  return scope.indexing != nullptr && scope.view == nullptr && !scope.epk_range && scope.indexing->mode != "none";
}

// Whether every item stored in the scope's partitions is one queries see (none waits for its
// expiry to delete it, none is left out of the index where queries skip such items): counts read
// from an index are then counts of what a query would read.
bool EveryItemLive(const Scope& scope) {
  const store::ItemPolicy item_policy{scope.default_ttl, std::nullopt, scope.indexed_only};
  for (const auto* part : scope.partitions) {
    if (!part->AllLive(scope.now, item_policy)) return false;
  }
  return true;
}

}  // namespace

bool AggregateFromIndex(RunState& run, Collector& collector) {
  const Plan& plan = run.plan;
  const Scope& scope = run.scope;
  EvalContext& cx = run.cx;
  PageFacts& facts = run.facts;
  if (!IndexesAnswer(scope)) return false;
  if (!plan.aggregate_query || !plan.group_by.empty() || plan.distinct || plan.sources.size() != 1 ||
      plan.sources.front().kind != Source::Kind::kContainer || plan.aggregates.empty()) {
    return false;
  }
  if (plan.select == Plan::Select::kValue ? ReadsRow(plan.value) : plan.select != Plan::Select::kList) return false;
  for (const auto& [name, node] : plan.projections) {
    if (ReadsRow(node)) return false;
  }
  std::optional<IndexLookup> lookup;
  if (plan.where) {
    lookup = ChooseIndexLookup(plan, *scope.indexing, cx);
    if (!lookup || !lookup->whole || !lookup->disjoint || scope.partition_key) return false;
  }
  // Per aggregate: every row (a defined constant), no row (undefined), or a path's values.
  struct Counted {
    Agg kind = Agg::kCount;
    bool every = false;
    std::optional<store::DocPath> path;
  };
  std::vector<Counted> counted;
  for (const auto& a : plan.aggregates) {
    Counted c;
    c.kind = a.kind;
    if (a.kind != Agg::kCount && a.kind != Agg::kMin && a.kind != Agg::kMax) return false;
    if (a.kind == Agg::kCount && IsEvaluableConstant(plan, a.arg)) {
      try {
        c.every = Eval(a.arg, cx).IsDefined();
      } catch (...) {
        return false;
      }
    } else {
      c.path = IndexedPathOf(plan, *scope.indexing, a.arg);
      if (!c.path || lookup || scope.partition_key) return false;
    }
    counted.push_back(std::move(c));
  }
  if (!EveryItemLive(scope)) return false;
  const store::ItemPolicy item_policy{scope.default_ttl, std::nullopt, scope.indexed_only};
  std::vector<Accumulator>& accs = collector.SingleGroup(cx);
  const std::vector<store::KeyRange> defined{{store::TagKey(store::OrderTag::kNull), true, std::nullopt, true, false}};
  const std::vector<store::KeyRange> containers{{store::TagKey(store::OrderTag::kArray), true, std::nullopt, true, false}};
  const std::pair<std::string, uint64_t> after_undefined{store::TagKey(store::OrderTag::kUndefined), UINT64_MAX};
  for (size_t pi = 0; pi < scope.partitions.size(); ++pi) {
    const store::PhysicalPartition& part = *scope.partitions[pi];
    const size_t rows = lookup ? (lookup->ranges.empty() ? 0 : part.IndexCount(lookup->path, lookup->ranges))
                        : scope.partition_key ? part.CountOfKey(*scope.partition_key)
                                              : part.Count();
    for (size_t i = 0; i < counted.size(); ++i) {
      const Counted& c = counted[i];
      if (c.kind == Agg::kCount) {
        accs[i].count += static_cast<int64_t>(c.path ? part.IndexCount(*c.path, defined) : c.every ? rows : 0);
        continue;
      }
      if (!part.IndexLookup(*c.path, containers, 0)) {  // an array or object is there
        accs[i].best_invalid = true;
        continue;
      }
      const bool max = c.kind == Agg::kMax;
      auto hits = part.IndexWalk(*c.path, max, max ? std::nullopt : std::optional(after_undefined), 1,
                                 scope.now, item_policy);
      if (!hits.empty()) accs[i].Add(Val(store::Resolve(hits.front().item->body, *c.path)), cx.arena);
    }
    if (!scope.partition_key || rows > 0) facts.partitions_touched.push_back(pi);
  }
  return true;
}

bool GroupsFromIndex(RunState& run, Collector& collector) {
  const Plan& plan = run.plan;
  const Scope& scope = run.scope;
  EvalContext& cx = run.cx;
  if (!IndexesAnswer(scope) || scope.partition_key) return false;
  if (plan.group_by.size() != 1 || plan.where || plan.distinct || plan.sources.size() != 1 ||
      plan.sources.front().kind != Source::Kind::kContainer) {
    return false;
  }
  const auto path = IndexedPathOf(plan, *scope.indexing, plan.group_by.front());
  if (!path) return false;
  // Per aggregate: a constant (COUNT adds the run's length when it is defined), or the grouped
  // path itself (one value a run: COUNT adds the length when it is defined, MIN and MAX take it).
  for (const auto& a : plan.aggregates) {
    const bool constant = IsEvaluableConstant(plan, a.arg);
    if (a.kind == Agg::kCount ? !constant && DocumentPathOf(plan, a.arg) != path
                              : (a.kind != Agg::kMin && a.kind != Agg::kMax) || constant ||
                                    DocumentPathOf(plan, a.arg) != path) {
      return false;
    }
  }
  if (!EveryItemLive(scope)) return false;
  // Each partition's runs, read on the cores there are (ten partitions take no longer than one),
  // then made groups in partition order.
  const size_t n = scope.partitions.size();
  std::vector<std::vector<store::PhysicalPartition::KeyRun>> runs_of(n);
  std::vector<std::exception_ptr> failed(n);
  const auto read = [&](size_t pi) {
    try {
      runs_of[pi] = scope.partitions[pi]->IndexRuns(*path);
    } catch (...) {
      failed[pi] = std::current_exception();
    }
  };
  if (QueryThreads(scope) > 1 && n > 1) {
    util::ParallelFor(n, read);
  } else {
    for (size_t pi = 0; pi < n; ++pi) read(pi);
  }
  for (const auto& f : failed) {
    if (f) std::rethrow_exception(f);
  }
  const int slot = plan.sources.front().slot;
  for (size_t pi = 0; pi < n; ++pi) {
    for (const auto& r : runs_of[pi]) {
      cx.env[slot] = Val(r.first->body);
      auto [accs, added] = collector.GroupOfRow(cx, Pos{pi, r.first->seq, 0});
      if (added) run.pinned.push_back(r.first);
      for (size_t i = 0; i < plan.aggregates.size(); ++i) {
        const Val v = Eval(plan.aggregates[i].arg, cx);
        if (plan.aggregates[i].kind != Agg::kCount) {
          (*accs)[i].Add(v, cx.arena);
        } else if (v.IsDefined()) {
          (*accs)[i].count += static_cast<int64_t>(r.count);
        }
      }
      if (cx.budget != nullptr) cx.budget->Tick();
    }
    run.facts.partitions_touched.push_back(pi);
  }
  return true;
}

namespace {

// A lookup's ranges as windows of an index whose first column is the lookup's path: in key order,
// without empty ones, overlapping ones (an OR's ranges may overlap) made one.
std::vector<store::KeyWindow> WindowsOf(const std::vector<store::KeyRange>& ranges) {
  std::vector<store::KeyWindow> windows;
  for (const auto& r : ranges) windows.push_back(store::WindowOf(r));
  std::sort(windows.begin(), windows.end(),
            [](const store::KeyWindow& a, const store::KeyWindow& b) { return a.from < b.from; });
  std::vector<store::KeyWindow> merged;
  for (auto& w : windows) {
    if (w.to && *w.to <= w.from) continue;
    if (!merged.empty() && (!merged.back().to || *merged.back().to >= w.from)) {
      if (merged.back().to && (!w.to || *w.to > *merged.back().to)) merged.back().to = std::move(w.to);
      continue;
    }
    merged.push_back(std::move(w));
  }
  return merged;
}

// The keys in both lists of windows (each in key order and disjoint).
std::vector<store::KeyWindow> Intersect(const std::vector<store::KeyWindow>& a, const std::vector<store::KeyWindow>& b) {
  std::vector<store::KeyWindow> out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    store::KeyWindow w{std::max(a[i].from, b[j].from), std::nullopt};
    if (a[i].to && b[j].to) {
      w.to = std::min(*a[i].to, *b[j].to);
    } else {
      w.to = a[i].to ? a[i].to : b[j].to;
    }
    if (!w.to || w.from < *w.to) out.push_back(w);
    // The window that ends first is done.
    const bool a_first = a[i].to && (!b[j].to || *a[i].to <= *b[j].to);
    (a_first ? i : j)++;
  }
  return out;
}

// The keys `ranges` gives when each is one value (an equality, an IN), in key order without
// repeats; nullopt when one is a range or a prefix.
std::optional<std::vector<std::string>> PointsOf(const std::vector<store::KeyRange>& ranges) {
  std::vector<std::string> keys;
  for (const auto& r : ranges) {
    if (r.prefix || !r.lo_inclusive || !r.hi || !r.hi_inclusive || *r.hi != r.lo) return std::nullopt;
    keys.push_back(r.lo);
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

// An equality (or IN) on the first ORDER BY path and a filter on the second (WHERE c.a = @x AND
// c.b > @y ORDER BY c.a, c.b): the windows of the composite index that hold both. A column's key
// is complete and prefix-free, so the first column's key followed by a window of the second
// column's keys is a window of the index, and for several first keys these windows come in key
// order. Only when the second column is walked ascending (its keys are not inverted).
std::optional<std::vector<store::KeyWindow>> SecondColumnWindows(const Plan& plan, const Scope& scope, EvalContext& cx,
                                                                 const store::IndexColumns& columns,
                                                                 const std::vector<IndexLookup>& on_first) {
  if (columns.size() < 2 || columns[1].descending || on_first.size() != 1) return std::nullopt;
  const auto firsts = PointsOf(on_first.front().ranges);
  if (!firsts) return std::nullopt;
  const auto on_second = IndexLookupsOn(plan, *scope.indexing, cx, columns[1].path);
  if (on_second.empty()) return std::nullopt;
  std::vector<store::KeyWindow> second = WindowsOf(on_second.front().ranges);
  for (size_t i = 1; i < on_second.size(); ++i) second = Intersect(second, WindowsOf(on_second[i].ranges));
  std::vector<store::KeyWindow> windows;
  for (const auto& first : *firsts) {
    const std::optional<std::string> first_end = store::WindowOf(store::KeyRange::Prefix(first)).to;
    for (const auto& w : second) {
      windows.push_back(store::KeyWindow{first + w.from, w.to ? std::optional<std::string>(first + *w.to) : first_end});
    }
  }
  return windows;
}

}  // namespace

std::optional<Walk> WalkPath(const Plan& plan, const Scope& scope, const std::optional<Resume>& resume,
                             EvalContext& cx) {
  if (scope.indexing == nullptr || scope.view != nullptr || plan.sources.empty() || !plan.group_by.empty() ||
      plan.aggregate_query || !plan.aggregates.empty() || plan.distinct || plan.order_by.empty()) {
    return std::nullopt;
  }
  const Source::Kind root = plan.sources.front().kind;
  if (root != Source::Kind::kContainer && root != Source::Kind::kContainerPath) return std::nullopt;
  if (resume && resume->scan) return std::nullopt;
  auto columns = OrderByIndexColumns(plan, *scope.indexing);
  if (!columns) return std::nullopt;
  // Lookups on the first ORDER BY path bound the walk (the equality-prefix and range-filter shapes
  // a composite index serves); an equality elsewhere that is likelier to narrow more makes reading
  // its matches and sorting them cheaper.
  const auto on_first = IndexLookupsOn(plan, *scope.indexing, cx, columns->front().path);
  int first_rank = INT_MAX;
  for (const auto& l : on_first) first_rank = std::min(first_rank, l.rank);
  if (auto best = ChooseIndexLookup(plan, *scope.indexing, cx); best && best->rank == 1 && first_rank > best->rank) {
    return std::nullopt;
  }
  if (scope.partition_key) {
    size_t own = 0, all = 0;
    for (const auto* p : scope.partitions) {
      own += p->CountOfKey(*scope.partition_key);
      all += p->Count();
    }
    if (own * 8 <= all) return std::nullopt;
  }
  Walk walk;
  walk.columns = std::move(*columns);
  walk.descending = store::TurnFirstAscending(walk.columns);
  if (!on_first.empty()) {
    walk.bounded = true;
    walk.windows = WindowsOf(on_first.front().ranges);
    for (size_t i = 1; i < on_first.size(); ++i) walk.windows = Intersect(walk.windows, WindowsOf(on_first[i].ranges));
    if (auto both = SecondColumnWindows(plan, scope, cx, walk.columns, on_first)) walk.windows = std::move(*both);
  }
  return walk;
}

void RunWalk(RunState& run, const Walk& walk, std::optional<OutRow>& stopped) {
  const Plan& plan = run.plan;
  const Scope& scope = run.scope;
  EvalContext& cx = run.cx;
  const std::optional<Resume>& resume = run.resume;
  const auto& emit = run.emit;
  auto& pinned = run.pinned;
  PageFacts& facts = run.facts;
  const Source& root = plan.sources.front();
  const bool desc = walk.descending;
  const store::ItemPolicy item_policy{scope.default_ttl, std::nullopt, scope.indexed_only};
  std::string resume_key;
  if (resume && resume->has_row) {
    for (size_t i = 0; i < walk.columns.size() && i < resume->keys.size(); ++i) {
      store::AppendColumnKey(resume_key, resume->keys[i].ptr(), walk.columns[i].descending);
    }
  }
  // The row's sort keys, as the ORDER BY items give them.
  auto sort_keys = [&] {
    std::vector<Val> keys;
    keys.reserve(plan.order_by.size());
    for (const auto& k : plan.order_by) keys.push_back(Eval(k.expr, cx));
    return keys;
  };

  struct PartCursor {
    std::optional<std::pair<std::string, uint64_t>> after;  // the last entry read
    std::vector<store::PhysicalPartition::IndexHit> hits;
    size_t at = 0;
    size_t batch = 16;
    size_t window = 0;  // of a bounded walk: how many windows it has read to their end
    bool done = false;
  };
  std::vector<PartCursor> cursors(scope.partitions.size());
  for (size_t pi = 0; pi < cursors.size(); ++pi) {
    if (!resume || !resume->has_row) continue;
    // Rows of the resume key come after the resume row only in later partitions, or later in its own.
    const uint64_t rp = resume->pos.part;
    const uint64_t seq =
        pi < rp ? UINT64_MAX : pi == rp ? (resume->pos.seq == 0 ? 0 : resume->pos.seq - 1) : FloorOf(scope, pi);
    cursors[pi].after = std::pair{resume_key, seq};
  }
  auto head = [&](size_t pi) -> const store::PhysicalPartition::IndexHit* {
    PartCursor& c = cursors[pi];
    while (c.at == c.hits.size() && !c.done) {
      // A bounded walk reads its windows one after the other, in the walk's direction.
      const store::KeyWindow* within = nullptr;
      if (walk.bounded) {
        if (c.window == walk.windows.size()) {
          c.done = true;
          break;
        }
        within = &walk.windows[desc ? walk.windows.size() - 1 - c.window : c.window];
      }
      c.hits = scope.partitions[pi]->IndexWalk(walk.columns, desc, c.after, c.batch, scope.now, item_policy, within);
      c.at = 0;
      const bool ended = c.hits.size() < c.batch;  // the index, or the window, has no more
      c.batch = std::min<size_t>(c.batch * 4, 1024);
      if (!c.hits.empty()) c.after = std::pair{c.hits.back().key, c.hits.back().item->seq};
      if (ended) {
        if (walk.bounded) {
          ++c.window;
        } else {
          c.done = true;
        }
      }
    }
    return c.at < c.hits.size() ? &c.hits[c.at] : nullptr;
  };
  // Whether partition a's head comes before partition b's.
  auto before = [&](size_t a, const store::PhysicalPartition::IndexHit& x, size_t b,
                    const store::PhysicalPartition::IndexHit& y) {
    int c = x.key.compare(y.key);
    if (c != 0) return desc ? c > 0 : c < 0;
    return a != b ? a < b : x.item->seq < y.item->seq;
  };

  BudgetCheck* budget = cx.budget;
  const bool stoppable = budget != nullptr && budget->stoppable;
  bool stop = false;
  while (!stop) {
    size_t best = SIZE_MAX;
    const store::PhysicalPartition::IndexHit* hit = nullptr;
    for (size_t pi = 0; pi < cursors.size(); ++pi) {
      const auto* h = head(pi);
      if (h != nullptr && (hit == nullptr || before(pi, *h, best, *hit))) {
        best = pi;
        hit = h;
      }
    }
    if (hit == nullptr) break;
    const store::ItemPtr item = hit->item;
    ++cursors[best].at;
    if (scope.partition_key && item->pk() != *scope.partition_key) continue;
    if (scope.epk_range && !(item->epk() >= scope.epk_range->first && item->epk() < scope.epk_range->second)) continue;

    cx.env[root.slot] = Val(item->body);
    const bool resumed_here = resume && resume->has_row && best == resume->pos.part && item->seq == resume->pos.seq;
    const double kb = item->kb();
    bool matched = false;
    bool pin = false;
    Cursor rows;
    if (resumed_here) rows.arm_after = resume->pos.ord;
    try {
      ForEachRow(plan, 0, cx, [&] {
        matched = true;
        if (stop) return;
        OutRow r{sort_keys(), Pos{best, item->seq, rows.ord}, Project(plan, cx)};
        if (r.value.IsUndefined()) return;
        r.kb = kb;
        pin = true;
        if (!emit(r)) stop = true;
      }, &rows);
    } catch (const PageStop&) {
      // The deadline within the document's rows: the next page resumes after the last one completed.
      cx.env[root.slot] = Val(item->body);
      stopped = OutRow{sort_keys(), Pos{best, item->seq, rows.completed}, Val()};
      pin = true;
      stop = true;
    }
    if (pin) pinned.push_back(item);
    if (!resumed_here) AddFacts(facts, *item, matched || !plan.where);
    if (stop || !stoppable) continue;
    // Between two documents the page may end at its deadline: the next one resumes after this one.
    budget->armed = true;
    try {
      budget->Tick();
    } catch (const PageStop&) {
      cx.env[root.slot] = Val(item->body);
      stopped = OutRow{sort_keys(), Pos{best, item->seq, UINT64_MAX}, Val()};
      pinned.push_back(item);
      stop = true;
    }
  }
  for (size_t pi = 0; pi < scope.partitions.size(); ++pi) {
    if (scope.partition_key &&
        !scope.partitions[pi]->HasLiveItems(*scope.partition_key, scope.now, item_policy)) {
      continue;
    }
    facts.partitions_touched.push_back(pi);
  }
}

}  // namespace cosmos::query::detail
