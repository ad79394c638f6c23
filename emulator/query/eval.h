// Evaluates bound expressions with Cosmos semantics (undefined propagation, three-valued logic,
// integer vs floating arithmetic), and runs subqueries in memory.
#pragma once

#include <functional>
#include <string>
#include <unordered_set>
#include <vector>

#include "query/plan.h"

namespace cosmos::query {

struct EvalContext {
  Arena& arena;
  FunctionContext fn;
  std::vector<Val> env;                  // variable slots
  const std::vector<Val>* aggs = nullptr;  // accumulator results, when projecting a group
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
  Val Result(Arena& arena) const;
};

// The projected value of one row (SELECT *, VALUE or a list).
Val Project(const Plan& plan, EvalContext& cx);

// Canonical text of a value for DISTINCT and GROUP BY: equal values (1 and 1.0, objects with the
// same properties in any order) give the same text.
void CanonicalKey(std::string& out, Val v);

}  // namespace cosmos::query
