// Evaluates bound expressions with Cosmos semantics (undefined propagation, three-valued logic,
// integer vs floating arithmetic), and runs subqueries in memory.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_set>
#include <vector>

#include "query/plan.h"

namespace cosmos::query {

// What one query request may spend. The executor checks it every few hundred rows; a page ends
// early (with a continuation) at the deadline, a query that must hold its rows (ORDER BY, DISTINCT,
// GROUP BY, aggregates) answers 400 past the memory budget, and any query stops when `cancelled` is
// set (for whoever learns that the client has gone).
struct QueryBudget {
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  size_t memory_bytes = SIZE_MAX;
  const std::atomic<bool>* cancelled = nullptr;
};

// Thrown by BudgetCheck when a stoppable page has used its budget; caught by the executor, which
// ends the page after the last candidate row it completed.
struct PageStop {};

// The executor's view of a QueryBudget during one page: cheap checks (the clock and the flag every
// 256 ticks), the bytes the executor holds besides the arena, and whether the page may stop now.
class BudgetCheck {
 public:
  BudgetCheck(const QueryBudget& budget, const Arena& arena, size_t* report = nullptr)
      : budget_(budget), arena_(&arena), report_(report) {}
  BudgetCheck(const BudgetCheck&) = delete;
  BudgetCheck& operator=(const BudgetCheck&) = delete;
  // Reports what the page held at its end (the arena is declared before, so it is still there).
  ~BudgetCheck() {
    if (report_ != nullptr) *report_ = arena_->used() + held_bytes;
  }

  // One unit of work (a candidate row, a document). Throws PageStop when the page may stop and the
  // budget is spent, CosmosError 400 when a query that holds its rows holds more than its memory
  // budget, 408 when cancelled.
  void Tick() {
    if ((++ticks_ & 255) == 0) Check();
  }
  void Check();
  // Whether the page could end now (stoppable, progressed, and allowed by `may_stop`): a
  // user-defined function it calls may then be stopped at the deadline.
  bool CanStop() const { return stoppable && armed && (may_stop == nullptr || may_stop()); }
  const QueryBudget& budget() const { return budget_; }

  size_t held_bytes = 0;   // rows and groups held by the collector (the arena is counted apart)
  bool stoppable = false;  // the page can end here with a continuation
  bool collects = false;   // it holds its rows: past the memory budget it fails rather than stops
  bool armed = false;      // the page has completed work past where it resumed (so it progresses)
  // When set, the page may stop only while this returns true (a partial GROUP BY page holds a group).
  std::function<bool()> may_stop;

 private:
  const QueryBudget& budget_;
  const Arena* arena_;
  size_t* report_;
  uint32_t ticks_ = 0;
};

struct EvalContext {
  Arena& arena;
  FunctionContext fn;
  std::vector<Val> env;                  // variable slots
  const std::vector<Val>* aggs = nullptr;  // accumulator results, when projecting a group
  BudgetCheck* budget = nullptr;         // null: unbounded (tests, scripts' own queries)
};

Val Eval(const Node& n, EvalContext& cx);

// Runs a (sub)query in memory with the variables bound in cx.env; calls `out` per result value.
// Top-level container scans are the executor's job (executor.h); this handles every other source.
void RunInMemory(const Plan& plan, EvalContext& cx, const std::function<void(Val)>& out);

// Shared by the executor: the pieces of a query after the FROM/WHERE stage.
struct Accumulator {
  explicit Accumulator(Agg k) : kind(k) {}
  Agg kind = Agg::kCount;
  int64_t count = 0;        // COUNT, AVG denominators
  bool invalid = false;     // SUM/AVG saw a non-number
  bool int_sum = true;      // SUM so far exact in int64
  int64_t isum = 0;
  double dsum = 0;
  Val best;                 // MIN/MAX (arena-owned copy)
  bool best_invalid = false;
  json::Value* list = nullptr;           // MAKELIST/MAKESET: the values so far (arena-owned array)
  std::unordered_set<std::string> seen;  // MAKESET: canonical keys of the values in `list`
  void Add(Val v, Arena& arena);
  // Adds what `later` accumulated over the inputs that follow this one's (a part of a scan read
  // on another thread); its values must outlive this accumulator.
  void Merge(Accumulator& later, Arena& arena);
  Val Result(Arena& arena) const;
};

// The projected value of one row (SELECT *, VALUE or a list).
Val Project(const Plan& plan, EvalContext& cx);

// Canonical text of a value for DISTINCT and GROUP BY: equal values (1 and 1.0, objects with the
// same properties in any order) give the same text.
void CanonicalKey(std::string& out, Val v);

}  // namespace cosmos::query
