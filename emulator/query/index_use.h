// Whether a query's WHERE filter can be answered from the container's index, and how many index
// lookups it takes: the input that decides between the "loaded through an index" and the "scanned
// without a usable index" terms of the query charge (docs/request-units.md, "The model").
//
// The service's index holds, for each indexed property path, the leaf values found there. It can
// therefore answer predicates that compare one document path with a value known before the query
// runs; everything else must be evaluated on each loaded document. The rules:
//
//   - A document path is a member/index chain (c.a.b, c["a"], c.arr[0]) over the root container
//     source, or over a FROM/JOIN alias bound to a path of the root; an alias that iterates an
//     array (JOIN t IN c.tags) stands for its elements, path tags/[] (array indexes also map to
//     "[]", as the index does not distinguish positions). It is usable when the policy indexes it
//     (IndexingPolicy::IsIndexed).
//   - A constant is a literal, a parameter, or an expression built from them only (e.g. -1, 'a' ||
//     'b', GetCurrentTimestamp()): the service evaluates it once, before the index lookup.
//   - Usable predicates: path op constant for = != < <= > >= (either side); path [NOT] IN
//     (constants), one lookup per value; path [NOT] BETWEEN constant AND constant; a bare path
//     (a boolean property); NOT of a usable predicate (same lookups); the type checks IS_DEFINED,
//     IS_NULL, IS_BOOL, IS_NUMBER, IS_STRING, IS_ARRAY, IS_OBJECT, IS_PRIMITIVE of a path;
//     STARTSWITH, ENDSWITH, CONTAINS, StringEquals(path, constant[, constant]);
//     ARRAY_CONTAINS(path, constant[, constant]), which looks up the array's elements (path/[]).
//   - AND is usable when any conjunct is: the index narrows the candidates and the rest is checked
//     on them; lookups are the largest of the usable conjuncts'.
//   - OR is usable only when every branch is (one unindexed branch forces a scan); lookups add up.
//   - Spatial predicates on a path a spatial index covers (IndexingPolicy::IsSpatiallyIndexed):
//     ST_WITHIN(path, constant), ST_INTERSECTS(path, constant) (either argument order), and
//     ST_DISTANCE(path, constant) compared with a constant. Without a spatial index they scan.
//   - A constant filter (WHERE true, as the SDKs' rewritten ORDER BY queries send) needs no lookup
//     and narrows nothing: alone it is no filter, in an AND it leaves the other conjunct to decide.
//   - Anything else is not: functions of paths (LOWER(c.x) = 'a'), arithmetic on paths, two paths
//     compared with each other, LIKE, subqueries, ... Indexing mode "none" indexes nothing: every
//     filter, and every aggregate, reads the documents.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "query/eval.h"
#include "query/plan.h"
#include "store/indexing.h"
#include "store/path_index.h"

namespace cosmos::query {

struct IndexUse {
  bool filter_uses_index = true;  // no WHERE, or the WHERE can be answered from the index
  size_t lookups = 1;             // index lookups (IN / OR values); >= 1
};

// The index use of the top-level query of `plan` under `policy`.
IndexUse AnalyzeIndexUse(const Plan& plan, const store::IndexingPolicy& policy);

// How the executor narrows the documents a query reads with a path index (store/path_index.h): a
// conjunct of the WHERE that every row must satisfy and that names one document path of the root
// source with constants, turned into the order-key ranges the path's value must fall in. Whatever
// it selects is still filtered by the whole WHERE, so the index changes what is read, never the
// result. Usable conjuncts: path = constant, path IN (constants), path < <= > >= constant (either
// side), path BETWEEN constant AND constant, STARTSWITH(path, constant[, false]), a bare path (true),
// IS_DEFINED / IS_NULL / IS_BOOL / IS_NUMBER / IS_STRING / IS_ARRAY / IS_OBJECT / IS_PRIMITIVE of
// a path and NOT of those, and OR of usable conjuncts over the same path; constants are scalars
// (null, booleans, numbers other than NaN, strings). The path must be indexed by `policy`.
struct IndexLookup {
  store::DocPath path;
  std::vector<store::KeyRange> ranges;  // may be empty: no document can match
  int rank = 0;                         // how selective it is likely to be: lower is better
  bool whole = false;     // the lookup is the whole WHERE and exact: exactly the documents it finds match
  bool disjoint = true;   // no document is found by two ranges (counting entries counts documents)
  bool exact = true;      // it finds exactly the documents its conjunct matches (not more)
};

// The most selective lookup the top-level WHERE of `plan` offers, or nullopt. Constants are
// evaluated in `cx` (literals, parameters and functions of them; never RAND or a UDF).
std::optional<IndexLookup> ChooseIndexLookup(const Plan& plan, const store::IndexingPolicy& policy,
                                             EvalContext& cx);

// The lookups the top-level conjuncts of the WHERE offer over `path`: every document the WHERE
// matches has its value of `path` in the ranges of each of them.
std::vector<IndexLookup> IndexLookupsOn(const Plan& plan, const store::IndexingPolicy& policy, EvalContext& cx,
                                        const store::DocPath& path);

// The indexed document path `n` reads (an aggregate's argument), or nullopt.
std::optional<store::DocPath> IndexedPathOf(const Plan& plan, const store::IndexingPolicy& policy, const Node& n);
// The exact document path `n` reads from the root document, whatever the policy indexes, or nullopt.
std::optional<store::DocPath> DocumentPathOf(const Plan& plan, const Node& n);
// A query ordered first by VectorDistance (or _VectorScore) over a document path: the call, that
// path, and the other vector argument. The path is the argument whose other side is a constant the
// executor may evaluate, else the first that is a document path; nullopt for anything else.
struct VectorOrder {
  const Node* call = nullptr;
  store::DocPath path;
  const Node* other = nullptr;
};
std::optional<VectorOrder> VectorOrderOf(const Plan& plan);
// Whether `n` is a constant the executor may evaluate once (see ChooseIndexLookup).
bool IsEvaluableConstant(const Plan& plan, const Node& n);

// The index whose order is the ORDER BY's: for one item, its document path when the policy indexes
// it; for two or more, their document paths when a composite index of the policy has exactly those
// paths (all directions as the query's or all reversed, as the service requires). The columns keep
// the query's directions. The executor can then walk that index instead of collecting and sorting.
std::optional<store::IndexColumns> OrderByIndexColumns(const Plan& plan, const store::IndexingPolicy& policy);

// The queries the service's backend refuses under `policy` (docs/indexing.md), as it words them
// (400, no substatus): ORDER BY over two or more paths without a composite index of exactly those
// paths (all directions equal or all reversed); ORDER BY over one path the policy does not index
// (an excluded path, or any path in mode "none"); in mode "none", a filter without the scan
// header (`scan_allowed`: x-ms-documentdb-query-enable-scan). ORDER BY items that are not paths of
// the container's documents are not judged here.
void CheckIndexSupport(const Plan& plan, const store::IndexingPolicy& policy, bool scan_allowed);

}  // namespace cosmos::query
