// The query plan the SDKs ask for (x-ms-cosmos-is-query-plan-request): queryInfo (DISTINCT, TOP,
// OFFSET/LIMIT, ORDER BY, GROUP BY, aggregates), the rewritten per-range query the .NET and Java
// SDKs execute, and the query ranges (narrowed by partition-key equality filters).
#pragma once

#include <string>
#include <vector>

#include "json/json.h"
#include "sqlparser/ast.h"
#include "store/partition_key.h"
#include "store/vector_policy.h"

namespace cosmos::query {

// One queryRanges entry: EPK bounds.
struct EpkRange {
  std::string min;
  std::string max;
  bool min_inclusive = true;
  bool max_inclusive = false;
};

// The EPK ranges a query can touch: narrowed by equality / IN filters on the partition key (or
// a prefix of a hierarchical key); ["", "FF") when the filter does not narrow; one empty point
// range for a query without FROM.
std::vector<EpkRange> QueryRanges(const sql::Query& query, const json::Value* params,
                                  const store::PartitionKeyDefinition& pk);

// The plan as the service's JSON. Throws CosmosError 400 for queries the service refuses to plan.
// `vectors`: the container's vector embedding policy (the direction of ORDER BY VectorDistance).
// `hybrid_skip_order_by_rewrite`: the client lists HybridSearchSkipOrderByRewrite among its
// supported query features (ORDER BY RANK components are then plain TOP queries).
std::string QueryPlanJson(const sql::Query& query, const json::Value* params, const store::PartitionKeyDefinition& pk,
                          const store::VectorPolicy* vectors = nullptr, bool hybrid_skip_order_by_rewrite = false);

}  // namespace cosmos::query
