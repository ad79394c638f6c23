// A bound query: names resolved to variable slots, functions to registry entries, parameters to
// values, aggregates to accumulator slots. Built by Bind() from the syntax tree; run by the executor.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "query/functions/function.h"
#include "query/value.h"
#include "sqlparser/ast.h"
#include "store/computed_properties.h"
#include "store/full_text_policy.h"
#include "store/vector_policy.h"

namespace cosmos::query {

struct Plan;

enum class Agg { kCount, kSum, kAvg, kMin, kMax, kMakeList, kMakeSet, kCountIf };  // COUNTIF: rows where true

// Where a property was found in the last object a kMember node read: documents of a container
// mostly share a layout, so the next one usually has it at the same place, and one comparison
// replaces a walk of the members. Threads reading in parallel share the node, hence the atomic
// (a stale position only costs the walk). Copies start over.
struct MemberHint {
  static constexpr uint32_t kNone = UINT32_MAX;
  MemberHint() = default;
  MemberHint(const MemberHint&) {}
  MemberHint& operator=(const MemberHint&) { return *this; }
  mutable std::atomic<uint32_t> at{kNone};
};

// One bound expression node.
struct Node {
  enum class Op {
    kConst,      // constant
    kVar,        // env[slot]
    kMember,     // kids[0].name
    kIndex,      // kids[0][kids[1]]
    kUnary,      // uop kids[0]
    kBinary,     // kids[0] bop kids[1] (arithmetic, comparison, bitwise, ||)
    kAnd,
    kOr,
    kIn,         // kids[0] [NOT] IN kids[1..]
    kLike,       // kids[0] [NOT] LIKE kids[1] [ESCAPE escape]
    kBetween,    // kids[0] [NOT] BETWEEN kids[1] AND kids[2]
    kCoalesce,
    kConditional,
    kCall,       // fn(kids)
    kUdf,        // udf.name(kids), run by FunctionContext::udfs
    kAggregate,  // the value of accumulator `slot` (computed by the executor)
    kArray,      // [kids]
    kObject,     // {keys: kids}
    kSubquery,   // first value of sub, or undefined
    kExists,     // sub yields a row
    kArraySubquery,
  };
  Op op = Op::kConst;
  MemberHint hint;  // kMember (in the four bytes `op` leaves before `constant`: Node keeps its size)
  Val constant;
  int slot = 0;
  std::string name;
  sql::UnaryOp uop = sql::UnaryOp::kMinus;
  sql::BinaryOp bop = sql::BinaryOp::kAdd;
  bool negated = false;
  std::optional<std::string> escape;
  const FunctionDef* fn = nullptr;
  std::vector<Node> kids;
  std::vector<std::string> keys;
  std::shared_ptr<const Plan> sub;
  // kUdf: a function the container does not have. The service resolves a UDF when a row calls it,
  // so such a call fails (SC2005 at `loc`) only when evaluated: over an empty container, or where
  // nothing evaluates it, the query runs.
  bool unresolved = false;
  sql::Location loc;
};

// One FROM or JOIN source, binding variable `slot`.
struct Source {
  enum class Kind {
    kContainer,      // the root documents (top-level FROM only)
    kContainerPath,  // a path into each root document (FROM c.path [AS x])
    kIterate,        // each element of an array value (x IN expr)
    kValue,          // one value (JOIN expr AS x, non-iterating)
    kSubquery,       // each row of a subquery
  };
  Kind kind = Kind::kContainer;
  int slot = 0;
  std::string alias;
  Node expr;  // kContainerPath: path over the root slot; kIterate/kValue: the collection expression
  std::shared_ptr<const Plan> sub;
  bool iterate_container = false;  // kIterate whose collection is the container path itself (x IN c.arr at FROM)
  bool iterate_rows = false;       // kSubquery written `x IN (subquery)`: each element of each array row
};

struct Aggregate {
  Agg kind = Agg::kCount;
  Node arg;
};

struct SortKey {
  Node expr;
  bool descending = false;
  std::string computed;  // the computed property the item names (expr is its expression), or empty
};

struct Plan {
  int slot_count = 0;           // top-level plan: variable slots used by the query and its subqueries
  std::vector<Source> sources;  // FROM, then JOINs
  int first_slot = 0;           // slots [first_slot, first_slot + sources.size()) belong to this query
  std::optional<Node> where;

  enum class Select { kStar, kValue, kList } select = Select::kStar;
  Node value;                              // kValue
  std::vector<std::pair<std::string, Node>> projections;  // kList (name, expr)

  bool distinct = false;
  std::optional<int64_t> top;
  std::optional<int64_t> offset;
  std::optional<int64_t> limit;

  std::vector<Node> group_by;
  std::vector<Aggregate> aggregates;  // referenced by kAggregate nodes
  bool aggregate_query = false;       // aggregates without GROUP BY: one output row
  std::vector<SortKey> order_by;

  // Facts for the query plan: the expressions as the service prints them.
  std::vector<std::string> order_by_text;
  std::vector<std::string> group_by_text;
};

// What a query may name of its container besides its documents.
struct BindContext {
  const Udfs* udfs = nullptr;  // the user-defined functions: a udf.name call must name one of them
  const store::VectorPolicy* vectors = nullptr;       // VectorDistance's distance function per path
  const store::FullTextPolicy* full_text = nullptr;   // the language of the full-text functions per path
  const store::ComputedProperties* computed = nullptr;  // c.<name> evaluates the property's expression
};

// Binds a parsed query. `params` is the request's "parameters" array (or null). Throws CosmosError
// 400 with the service's SC codes for unknown names, functions, wrong argument counts and
// unsupported constructs. `arena` owns the constants (parameters and literals).
std::shared_ptr<const Plan> Bind(const sql::Query& query, const json::Value* params, Arena& arena,
                                 const BindContext& container = {});

}  // namespace cosmos::query
