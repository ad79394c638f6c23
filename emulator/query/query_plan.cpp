#include "query/query_plan.h"

#include "util/util.h"

namespace cosmos::query {

namespace {

void Str(std::string& out, const std::string& s) { json::WriteString(out, s); }

const char* AggregateName(const std::string& fn) {
  std::string n = util::ToLower(fn);
  if (n == "count") return "Count";
  if (n == "sum") return "Sum";
  if (n == "avg") return "Average";
  if (n == "min") return "Min";
  if (n == "max") return "Max";
  return nullptr;
}

void CollectAggregates(const sql::Expr& e, std::vector<std::string>& out) {
  if (e.kind == sql::ExprKind::kCall) {
    if (const char* a = AggregateName(e.name)) {
      out.push_back(a);
      return;
    }
  }
  if (e.query) return;  // aggregates inside subqueries are evaluated per item
  for (const auto& k : e.args) CollectAggregates(*k, out);
}

}  // namespace

std::string QueryPlanJson(const sql::Query& q, const json::Value* params, const store::PartitionKeyDefinition& pk) {
  (void)params;
  (void)pk;
  std::vector<std::string> aggregates;
  if (q.select == sql::SelectKind::kValue) CollectAggregates(*q.value, aggregates);
  for (const auto& p : q.projections) CollectAggregates(*p.expr, aggregates);

  std::string out = "{\"partitionedQueryExecutionInfoVersion\":2,\"queryInfo\":{\"distinctType\":";
  out += q.distinct ? (q.order_by.empty() ? "\"Unordered\"" : "\"Ordered\"") : "\"None\"";
  auto count = [&](const std::optional<sql::Count>& c) {
    if (!c || !c->value) return std::string("null");
    return sql::FormatNumber(*c->value);
  };
  out += ",\"top\":" + count(q.top) + ",\"offset\":" + count(q.offset) + ",\"limit\":" + count(q.limit);
  out += ",\"orderBy\":[";
  for (size_t i = 0; i < q.order_by.size(); ++i) {
    if (i) out += ',';
    out += q.order_by[i].descending ? "\"Descending\"" : "\"Ascending\"";
  }
  out += "],\"orderByExpressions\":[";
  for (size_t i = 0; i < q.order_by.size(); ++i) {
    if (i) out += ',';
    Str(out, sql::ToString(*q.order_by[i].expr));
  }
  out += "],\"groupByExpressions\":[";
  for (size_t i = 0; i < q.group_by.size(); ++i) {
    if (i) out += ',';
    Str(out, sql::ToString(*q.group_by[i]));
  }
  out += "],\"groupByAliases\":[],\"aggregates\":[";
  if (q.group_by.empty()) {
    for (size_t i = 0; i < aggregates.size(); ++i) {
      if (i) out += ',';
      Str(out, aggregates[i]);
    }
  }
  out += "],\"groupByAliasToAggregateType\":{},\"rewrittenQuery\":\"\",\"hasSelectValue\":";
  out += q.select == sql::SelectKind::kValue ? "true" : "false";
  out += ",\"dCountInfo\":null,\"hasNonStreamingOrderBy\":false},\"queryRanges\":[{\"min\":\"\",\"max\":\"FF\","
         "\"isMinInclusive\":true,\"isMaxInclusive\":false}],\"hybridSearchQueryInfo\":null}";
  return out;
}

}  // namespace cosmos::query
