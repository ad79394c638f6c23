// The query plan the SDKs ask for (x-ms-cosmos-is-query-plan-request): queryInfo (DISTINCT, TOP,
// OFFSET/LIMIT, ORDER BY, GROUP BY, aggregates), the rewritten per-range query the .NET and Java
// SDKs execute, and the query ranges (narrowed by partition-key equality filters).
#pragma once

#include <string>

#include "json/json.h"
#include "sqlparser/ast.h"
#include "store/partition_key.h"

namespace cosmos::query {

// The plan as the service's JSON. Throws CosmosError 400 for queries the service refuses to plan.
std::string QueryPlanJson(const sql::Query& query, const json::Value* params, const store::PartitionKeyDefinition& pk);

}  // namespace cosmos::query
