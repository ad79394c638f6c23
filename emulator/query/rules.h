// The service's rules on a query's syntax tree that both the binder (which runs queries) and the
// query plan (which describes them to SDKs) enforce: one implementation, so the two never disagree
// on what a query means or which error it earns.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/errors.h"
#include "json/json.h"
#include "query/functions/function.h"
#include "sqlparser/ast.h"
#include "store/vector_policy.h"

namespace cosmos::query::rules {

// A query error at a location of the query text.
CosmosError At(const sql::Location& loc, const std::string& code, const std::string& message);

// ASCII upper case (function names in messages).
std::string Upper(std::string_view s);

// The aggregates the service knows.
enum class AggregateFn { kCount, kSum, kAvg, kMin, kMax, kMakeList, kMakeSet, kCountIf };

// The aggregate a call names, if it is a call of one.
std::optional<AggregateFn> AggregateOf(const sql::Expr& e);
// True when `e` holds an aggregate call (subqueries aggregate per item and are not looked into).
bool ContainsAggregate(const sql::Expr& e);
// True when `e` holds a subquery of any form.
bool ContainsSubquery(const sql::Expr& e);

// An aggregate call takes exactly one argument (SC2050).
void CheckAggregateArity(const sql::Expr& call);
// The registry entry of a system function call; 400 SC2005 when unknown, SC2050 for a wrong
// argument count.
const FunctionDef& ResolveFunction(const sql::Expr& call);

// With GROUP BY (or aggregates), a property reference in the select list must be a grouping
// expression or sit inside an aggregate (SC2102). `grouped` holds the GROUP BY expressions as text.
void CheckGrouped(const sql::Expr& e, const std::vector<std::string>& grouped);

// TOP (SC2203), ORDER BY (SC2202) and OFFSET LIMIT (SC2204) are refused in every subquery: FROM
// and JOIN sources, scalar subqueries, EXISTS, ARRAY and ALL/FIRST/LAST. The service reports them all
// at once, in the order they are written, with the clause's location.
void CheckSubqueryClauses(const sql::Query& q);

// ORDER BY items must be document paths: an alias followed by properties and literal indexes.
bool IsDocumentPath(const sql::Expr& e);

// What an ORDER BY item of `q` sorts by, followed through the FROM sources its path starts from:
// a path of the items themselves (kDocument; through a FROM subquery, a projection that is itself
// such a path), something the items do not hold (kNotDocument: a computed value, a function, an
// aggregate, "Unsupported ORDER BY clause. ORDER BY item expression could not be mapped to a
// document path.", 2206), or a value of a collection inside each item: a JOIN's iteration, or a
// JOIN subquery's row (kCorrelated: "Order-by over correlated collections is not supported.", as
// the .NET SDK's LINQ repro of `JOIN (SELECT DISTINCT VALUE v0 FROM root JOIN v0 IN
// root["Parents"]) AS v2 ... ORDER BY v2` records against the service).
enum class OrderByTarget { kDocument, kNotDocument, kCorrelated };
OrderByTarget ClassifyOrderBy(const sql::Expr& e, const sql::Query& q);

// A call of VectorDistance or _VectorScore (which ORDER BY takes besides document paths: vector
// search, and the vector components of a hybrid search plan).
bool IsVectorDistance(const sql::Expr& e);
// IsVectorDistance, or a call of _FullTextScore (a full-text component of a hybrid search plan):
// the scores ORDER BY takes besides document paths.
bool IsRankScore(const sql::Expr& e);

// The distance function a VectorDistance call scores with: its options' distanceFunction (a literal
// object or a parameter), else the vector embedding policy's for the path of `container_alias`
// among its first two arguments, else cosine. An ORDER BY on it without ASC or DESC puts the closest
// first: descending for cosine and dot product, ascending for Euclidean distance.
store::DistanceFunction VectorDistanceFunction(const sql::Expr& call, const json::Value* params,
                                               const store::VectorPolicy* vectors, std::string_view container_alias);

// The property names after the alias of a document path written with names and string indexes
// (c.a.b, c["a"].b, and c[@p] when `params` gives @p a string): {"a", "b"}; nullopt for anything
// else (a number index, an expression).
std::optional<std::vector<std::string>> PropertyPath(const sql::Expr& e, const json::Value* params = nullptr);

// The request's parameter `name`: nullopt when the request does not declare it, null inside when it
// is declared without a value (undefined).
std::optional<const json::Value*> FindParameter(const json::Value* params, std::string_view name);

// How large a count may be. The service runs any count up to 4294967295 (its plan rewrites
// `OFFSET n LIMIT m` to `OFFSET 0 LIMIT n+m` for every range, so a query it runs may carry more than
// 2147483647); the SDKs refuse a plan whose TOP, OFFSET or LIMIT is above 2147483647
// (ArgumentOutOfRangeException in the .NET SDK's query-plan baselines), which the query plan
// answers as a 400 so that no client gets a plan it cannot run.
enum class CountCeiling { kService, kSdkPlan };

// A TOP, OFFSET or LIMIT count with its parameter resolved; 400 (SC2060 TOP, SC2061 LIMIT, SC2062
// OFFSET) for anything but an integer from 0 to the ceiling, SC2001 for an undeclared parameter.
int64_t ResolveCount(const sql::Count& c, const json::Value* params, const char* clause,
                     CountCeiling ceiling = CountCeiling::kService);

}  // namespace cosmos::query::rules
