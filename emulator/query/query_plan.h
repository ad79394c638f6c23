// The query plan the SDKs ask for (x-ms-cosmos-is-query-plan-request): queryInfo (DISTINCT, TOP,
// OFFSET/LIMIT, ORDER BY, GROUP BY, aggregates), the rewritten per-range query the .NET and Java
// SDKs execute, and the query ranges (narrowed by partition-key equality filters).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
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
// range for a query without FROM; one empty point range for a filter that is constantly false.
// `geometry`: the container's geospatialConfig type is Geometry (constant spatial calls are planar).
std::vector<EpkRange> QueryRanges(const sql::Query& query, const json::Value* params,
                                  const store::PartitionKeyDefinition& pk, bool geometry = false);

// queryInfo: what a client needs to merge the results of a query's partition key ranges, and the
// query each range runs. Also the shape of each component query of a hybrid search.
struct QueryInfo {
  std::string distinct_type = "None";  // None, Unordered or Ordered
  std::optional<int64_t> top;
  std::optional<int64_t> offset;
  std::optional<int64_t> limit;
  std::vector<std::string> order_by;  // Ascending or Descending, per ORDER BY item
  std::vector<std::string> order_by_expressions;
  std::vector<std::string> group_by_expressions;
  std::vector<std::string> group_by_aliases;
  std::vector<std::string> aggregates;
  // groupByAliasToAggregateType: per projection alias, its aggregate (none: not an aggregate).
  std::vector<std::pair<std::string, std::optional<std::string>>> alias_aggregates;
  std::string rewritten_query;  // empty: each range runs the query as it is
  bool has_select_value = false;
  bool has_non_streaming_order_by = false;

  // Whether the client merges what the ranges return: DISTINCT, TOP, OFFSET/LIMIT, ORDER BY,
  // GROUP BY or aggregates.
  bool NeedsClientMerge() const;
};

// hybridSearchQueryInfo (ORDER BY RANK): the global statistics query, one query per ranked
// component, the components' weights, and the skip and take the client applies to the fused ranks.
struct HybridSearchInfo {
  std::string global_statistics_query;
  std::vector<QueryInfo> components;
  std::vector<double> weights;  // as RRF gives them (the plan lists their magnitudes)
  std::optional<int64_t> skip;
  std::optional<int64_t> take;
  bool requires_global_statistics = false;
};

// The plan the SDKs ask for: queryInfo (absent for ORDER BY RANK, whose plan is a hybrid search),
// the query ranges, and the hybrid search.
struct QueryPlan {
  std::optional<QueryInfo> info;
  std::vector<EpkRange> ranges;
  std::optional<HybridSearchInfo> hybrid;

  // Whether the client merges the ranges' results (the gateway then refuses to run the query
  // across partitions itself: 400/1004). A hybrid search plan has no queryInfo: false.
  bool NeedsClientMerge() const { return info && info->NeedsClientMerge(); }
};

// The plan of a query. Throws CosmosError 400 for queries the service refuses to plan.
// `vectors`: the container's vector embedding policy (the direction of ORDER BY VectorDistance).
// `hybrid_skip_order_by_rewrite`: the client lists HybridSearchSkipOrderByRewrite among its
// supported query features (ORDER BY RANK components are then plain TOP queries). `geometry`: the
// container's geospatialConfig type is Geometry (QueryRanges).
QueryPlan BuildQueryPlan(const sql::Query& query, const json::Value* params, const store::PartitionKeyDefinition& pk,
                         const store::VectorPolicy* vectors = nullptr, bool hybrid_skip_order_by_rewrite = false,
                         bool geometry = false);

// The plan as the service's JSON.
std::string QueryPlanJson(const QueryPlan& plan);

// BuildQueryPlan, as JSON.
std::string QueryPlanJson(const sql::Query& query, const json::Value* params, const store::PartitionKeyDefinition& pk,
                          const store::VectorPolicy* vectors = nullptr, bool hybrid_skip_order_by_rewrite = false,
                          bool geometry = false);

}  // namespace cosmos::query
