// The query plan: what the .NET and Java SDKs need to run a query across partition key ranges and
// merge the results (queryInfo), the per-range query they run (rewrittenQuery) and the ranges of
// effective partition keys the query can touch (queryRanges).
#include "query/query_plan.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>

#include "common/errors.h"
#include "query/eval.h"
#include "query/functions/function.h"
#include "query/plan.h"
#include "query/query_plan_internal.h"
#include "sqlparser/printer.h"
#include "query/rules.h"
#include "store/epk.h"
#include "util/util.h"

namespace cosmos::query {

namespace {

using sql::Expr;
using sql::ExprKind;
using sql::Query;
using store::PkComponent;
using namespace rules;
using detail::RootAlias;

constexpr const char* kOrderByFilter = "({documentdb-formattableorderbyquery-filter})";

// ---------------------------------------------------------------------------------------------
// Aggregates

// The service's name of an aggregate operator in queryInfo.
const char* AggregateOperator(AggregateFn k) {
  switch (k) {
    case AggregateFn::kCount:
      return "Count";
    case AggregateFn::kSum:
      return "Sum";
    case AggregateFn::kAvg:
      return "Average";
    case AggregateFn::kMin:
      return "Min";
    case AggregateFn::kMax:
      return "Max";
    case AggregateFn::kMakeList:
      return "MakeList";
    case AggregateFn::kMakeSet:
      return "MakeSet";
    case AggregateFn::kCountIf:
      return "CountIf";
  }
  return "";
}

// What one range query returns for an aggregate, so the SDK can merge the ranges: AVG travels as
// {sum, count}, MIN/MAX with a count besides the value; the others as themselves.
std::string AggregateItem(const Expr& call, AggregateFn kind) {
  const std::string arg = call.args.empty() ? std::string() : sql::ToString(*call.args[0]);
  switch (kind) {
    case AggregateFn::kAvg:
      return "{\"item\": {\"sum\": SUM(" + arg + "), \"count\": COUNT(" + arg + ")}}";
    case AggregateFn::kMin:
      return "{\"item\": " + sql::ToString(call) + ", \"item2\": {\"min\": MIN(" + arg + "), \"count\": COUNT(" + arg +
             ")}}";
    case AggregateFn::kMax:
      return "{\"item\": " + sql::ToString(call) + ", \"item2\": {\"max\": MAX(" + arg + "), \"count\": COUNT(" + arg +
             ")}}";
    default:
      return "{\"item\": " + sql::ToString(call) + "}";
  }
}

// ---------------------------------------------------------------------------------------------
// Text helpers

// A JSON-style quoted property name, as the service's printer writes object keys.
std::string QuoteKey(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out.push_back(c);
    }
  }
  return out + "\"";
}

// The names the projections of a SELECT list get: the alias, the last property name of a path,
// or $1, $2, ... for the others.
std::vector<std::string> ProjectionNames(const Query& q) {
  std::vector<std::string> names;
  int unnamed = 0;
  for (const auto& p : q.projections) {
    const Expr& e = *p.expr;
    if (p.alias) {
      names.push_back(*p.alias);
    } else if (e.kind == ExprKind::kMember || e.kind == ExprKind::kName) {
      names.push_back(e.name);
    } else if (e.kind == ExprKind::kIndex && e.args[1]->kind == ExprKind::kLiteral &&
               e.args[1]->literal.kind == sql::Literal::Kind::kString) {
      names.push_back(e.args[1]->literal.text);
    } else {
      names.push_back("$" + std::to_string(++unnamed));
    }
  }
  return names;
}

// A TOP/OFFSET/LIMIT count as written (number or @parameter).
std::string CountText(const sql::Count& c) { return c.value ? sql::FormatNumber(*c.value) : c.parameter; }

// The parts joined with `sep`.
std::string Join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

// The SELECT clause of a query as written (DISTINCT and TOP optional).
std::string SelectClause(const Query& q, bool distinct, bool top) {
  std::string s = "SELECT ";
  if (distinct && q.distinct) s += "DISTINCT ";
  if (top && q.top) s += "TOP " + CountText(*q.top) + " ";
  switch (q.select) {
    case sql::SelectKind::kStar:
      s += "*";
      break;
    case sql::SelectKind::kValue:
      s += "VALUE " + sql::ToString(*q.value);
      break;
    case sql::SelectKind::kList: {
      std::vector<std::string> items;
      for (const auto& p : q.projections) items.push_back(sql::ToString(*p.expr) + (p.alias ? " AS " + *p.alias : ""));
      s += Join(items, ", ");
      break;
    }
  }
  return s;
}

std::string FormatQuery(const Query& q, int indent);

// One FROM/JOIN source; subqueries are written on their own lines, indented four spaces.
std::string FromText(const sql::FromItem& item, int indent) {
  std::string s;
  if (item.iterator) s += *item.alias + " IN ";
  if (item.subquery) {
    s += "(\n" + std::string(indent + 4, ' ') + FormatQuery(*item.subquery, indent + 4) + "\n" +
         std::string(indent, ' ') + ")";
  } else {
    s += sql::ToString(*item.path);
  }
  if (!item.iterator && item.alias) s += " AS " + *item.alias;
  return s;
}

// ORDER BY items as the service writes them back: ASC only when the query wrote it.
std::string OrderByItems(const Query& q) {
  std::vector<std::string> items;
  for (const auto& s : q.order_by) {
    std::string t = sql::ToString(*s.expr);
    if (s.explicit_direction || s.descending) t += s.descending ? " DESC" : " ASC";
    items.push_back(std::move(t));
  }
  return Join(items, ", ");
}

// The FROM ... clauses after the SELECT line, each on its own line (where: the WHERE text or "").
std::string Clauses(const Query& q, const std::string& where, bool group_by, bool order_by, int indent) {
  const std::string nl = "\n" + std::string(indent, ' ');
  std::string s;
  for (size_t i = 0; i < q.from.size(); ++i) s += nl + (i == 0 ? "FROM " : "JOIN ") + FromText(q.from[i], indent);
  if (!where.empty()) s += nl + "WHERE " + where;
  if (group_by && !q.group_by.empty()) {
    std::vector<std::string> items;
    for (const auto& g : q.group_by) items.push_back(sql::ToString(*g));
    s += nl + "GROUP BY " + Join(items, ", ");
  }
  if (order_by && !q.order_by.empty()) s += nl + (q.order_by_rank ? "ORDER BY RANK " : "ORDER BY ") + OrderByItems(q);
  return s;
}

// A whole query in the service's multi-line form.
std::string FormatQuery(const Query& q, int indent) {
  std::string s = SelectClause(q, true, true);
  s += Clauses(q, q.where ? sql::ToString(*q.where) : std::string(), true, true, indent);
  if (q.offset && q.limit) {
    s += "\n" + std::string(indent, ' ') + "OFFSET " + CountText(*q.offset) + " LIMIT " + CountText(*q.limit);
  }
  return s;
}

// ---------------------------------------------------------------------------------------------
// Validation

void CheckQueryFunctions(const Query& q);

// Every system function must exist and get a valid number of arguments (UDFs are the service's
// business: the plan accepts them).
void CheckFunctions(const Expr& e) {
  if (e.kind == ExprKind::kCall) {
    if (AggregateOf(e)) {
      CheckAggregateArity(e);
    } else {
      ResolveFunction(e);
    }
  }
  for (const auto& a : e.args) CheckFunctions(*a);
  if (e.query) CheckQueryFunctions(*e.query);
}

// CheckFunctions over every expression of a query and its subqueries.
void CheckQueryFunctions(const Query& q) {
  if (q.value) CheckFunctions(*q.value);
  for (const auto& p : q.projections) CheckFunctions(*p.expr);
  for (const auto& f : q.from) {
    if (f.path) CheckFunctions(*f.path);
    if (f.subquery) CheckQueryFunctions(*f.subquery);
  }
  if (q.where) CheckFunctions(*q.where);
  for (const auto& g : q.group_by) CheckFunctions(*g);
  for (const auto& s : q.order_by) CheckFunctions(*s.expr);
}

// A projection that aggregates must be exactly one aggregate over a plain expression: the SDK
// merges per-range aggregate values and cannot merge anything composed around them.
void CheckAggregateProjection(const Expr& e) {
  if (AggregateOf(e)) {
    if (!e.args.empty() && (ContainsAggregate(*e.args[0]) || ContainsSubquery(*e.args[0]))) {
      throw At(e.loc, "SC2101",
               "Cannot perform an aggregate function on an expression containing an aggregate or a subquery.");
    }
    return;
  }
  if (ContainsAggregate(e))
    throw errors::BadRequest("Compositions of aggregates and other expressions are not allowed.");
}


// ---------------------------------------------------------------------------------------------
// The plan

// JSON writers for the plan.
void Str(std::string& out, const std::string& s) { json::WriteString(out, s); }

void StrList(std::string& out, const std::vector<std::string>& list) {
  out += '[';
  for (size_t i = 0; i < list.size(); ++i) {
    if (i) out += ',';
    Str(out, list[i]);
  }
  out += ']';
}

void Count(std::string& out, const std::optional<int64_t>& v) { out += v ? std::to_string(*v) : "null"; }

// The queryRanges entries, comma separated.
void RangeList(std::string& out, const std::vector<EpkRange>& ranges) {
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (i) out += ',';
    out += "{\"min\":";
    Str(out, ranges[i].min);
    out += ",\"max\":";
    Str(out, ranges[i].max);
    out += ",\"isMinInclusive\":";
    out += ranges[i].min_inclusive ? "true" : "false";
    out += ",\"isMaxInclusive\":";
    out += ranges[i].max_inclusive ? "true" : "false";
    out += '}';
  }
}

// ---------------------------------------------------------------------------------------------
// Hybrid search (ORDER BY RANK)

constexpr const char* kTotalDocumentCount = "{documentdb-formattablehybridsearchquery-totaldocumentcount}";
constexpr const char* kMaxScore = "1.79769e+308";

// One ranked component of ORDER BY RANK: FullTextScore(...) or VectorDistance(...).
struct RankComponent {
  const Expr* call = nullptr;
  bool full_text = false;
  int statistics = 0;        // full text: its entry in the global statistics (0, 1, ...)
  bool descending = true;    // the component's own order (a negative weight reverses it)
  bool reversed = false;     // by a negative weight
  std::string score;         // the expression each partition scores rows with
  std::string fallback;      // what a row without a score counts as
};

// The search terms of FullTextScore(path, t1, t2, ...) or FullTextScore(path, [t1, t2, ...]).
std::vector<const Expr*> SearchTerms(const Expr& call) {
  std::vector<const Expr*> terms;
  if (call.args.size() == 2 && call.args[1]->kind == ExprKind::kArray) {
    for (const auto& t : call.args[1]->args) terms.push_back(t.get());
  } else {
    for (size_t i = 1; i < call.args.size(); ++i) terms.push_back(call.args[i].get());
  }
  return terms;
}

void CheckSearchTerms(const Expr& call) {
  const auto terms = SearchTerms(call);
  if (call.args.size() < 2 || terms.empty())
    throw At(call.loc, "SC2050", "The FullTextScore function requires at least 2 argument(s).");
  for (const Expr* t : terms) {
    const bool text = t->kind == ExprKind::kLiteral && t->literal.kind == sql::Literal::Kind::kString;
    if (!text && t->kind != ExprKind::kParameter)
      throw At(t->loc, "SC2240", "The search terms of FullTextScore must be string literals or parameters.");
  }
  if (terms.size() > 30)
    throw At(call.loc, "SC2240", "FullTextScore accepts at most 30 search terms.");
}

// The components and weights of ORDER BY RANK: RRF(c1, c2, ... [, [w1, w2, ...]]) or one component.
std::vector<RankComponent> RankComponents(const Query& q, const json::Value* params, const store::VectorPolicy* vectors,
                                          std::vector<double>& weights) {
  if (q.order_by.size() != 1)
    throw At(q.order_by[1].expr->loc, "SC2240", "ORDER BY RANK takes one ranking expression: a score or RRF(...).");
  const Expr& rank = *q.order_by.front().expr;
  std::vector<const Expr*> calls;
  const bool rrf = rank.kind == ExprKind::kCall && util::EqualsIgnoreCase(rank.name, "RRF");
  if (rrf) {
    for (const auto& a : rank.args) calls.push_back(a.get());
    if (!calls.empty() && (calls.back()->kind == ExprKind::kArray || calls.back()->kind == ExprKind::kParameter)) {
      const Expr& w = *calls.back();
      calls.pop_back();
      std::vector<double> given;
      if (w.kind == ExprKind::kArray) {
        for (const auto& e : w.args) {
          const Expr* n = e.get();
          const bool minus = n->kind == ExprKind::kUnary && n->unary_op == sql::UnaryOp::kMinus;
          if (minus) n = n->args[0].get();
          if (n->kind != ExprKind::kLiteral || n->literal.kind != sql::Literal::Kind::kNumber)
            throw At(e->loc, "SC2240", "The weights of RRF must be an array of numbers.");
          given.push_back(minus ? -n->literal.number : n->literal.number);
        }
      } else {
        auto p = FindParameter(params, w.name);
        if (!p) throw At(w.loc, "SC2001", "Identifier '" + w.name + "' could not be resolved.");
        if (*p == nullptr || !(*p)->IsArray()) throw At(w.loc, "SC2240", "The weights of RRF must be an array of numbers.");
        for (const auto& e : (*p)->GetArray()) {
          if (!e.IsNumber()) throw At(w.loc, "SC2240", "The weights of RRF must be an array of numbers.");
          given.push_back(e.GetDouble());
        }
      }
      if (given.size() != calls.size())
        throw At(w.loc, "SC2240", "RRF needs one weight for each of its " + std::to_string(calls.size()) + " scores.");
      weights = std::move(given);
    }
    if (calls.empty()) throw At(rank.loc, "SC2050", "The RRF function requires at least 1 argument(s).");
    if (calls.size() > 100) throw At(rank.loc, "SC2240", "RRF accepts at most 100 arguments.");
  } else {
    calls.push_back(&rank);
  }
  const std::string root = RootAlias(q);
  const bool container_root = !q.from.empty() && q.from.front().path && q.from.front().path->kind == ExprKind::kName;
  std::vector<RankComponent> out;
  int statistics = 0;
  for (size_t i = 0; i < calls.size(); ++i) {
    const Expr& call = *calls[i];
    RankComponent c;
    c.call = &call;
    const bool reversed = !weights.empty() && weights[i] < 0;
    c.reversed = reversed;
    if (call.kind == ExprKind::kCall && util::EqualsIgnoreCase(call.name, "FullTextScore")) {
      CheckSearchTerms(call);
      c.full_text = true;
      c.statistics = statistics++;
      std::vector<std::string> terms;
      for (const Expr* t : SearchTerms(call)) terms.push_back(sql::ToString(*t));
      const std::string n = std::to_string(c.statistics);
      c.score = "_FullTextScore(" + sql::ToString(*call.args[0]) + ", [" + Join(terms, ", ") + "], " +
                kTotalDocumentCount + ", {documentdb-formattablehybridsearchquery-totalwordcount-" + n +
                "}, {documentdb-formattablehybridsearchquery-hitcountsarray-" + n + "})";
      c.descending = !reversed;
      c.fallback = c.descending ? "-1" : kMaxScore;
    } else if (IsVectorDistance(call) && util::EqualsIgnoreCase(call.name, "VectorDistance")) {
      std::vector<std::string> args;
      for (const auto& a : call.args) args.push_back(sql::ToString(*a));
      c.score = "_VectorScore(" + Join(args, ", ") + ")";
      const bool closest_high = VectorDistanceFunction(call, params, vectors, container_root ? root : std::string()) !=
                                store::DistanceFunction::kEuclidean;
      c.descending = closest_high != reversed;
      c.fallback = c.descending ? "-" + std::string(kMaxScore) : kMaxScore;
    } else {
      throw At(call.loc, "SC2240",
               rrf ? "The arguments of RRF must be FullTextScore or VectorDistance calls, and an optional array of weights."
                   : "ORDER BY RANK takes FullTextScore, VectorDistance or RRF.");
    }
    out.push_back(std::move(c));
  }
  return out;
}

// The hybridSearchQueryInfo plan: the global statistics query the SDK sums over every range, and
// per component the query each range answers with its best rows (their _rid, payload and every
// component's score); the SDK fuses the ranks (RRF, k = 60) and applies skip and take. Without
// HybridSearchSkipOrderByRewrite among the client's features, the components are ORDER BY queries
// with the filter placeholder; with it, plain TOP queries the SDK only collects.
QueryPlan HybridPlan(const Query& q, const json::Value* params, const store::PartitionKeyDefinition& pk,
                     const store::VectorPolicy* vectors, bool skip_order_by_rewrite, bool geometry) {
  if (q.group_by.size() || q.distinct)
    throw At(q.loc, "SC2240", "ORDER BY RANK cannot be combined with GROUP BY or DISTINCT.");
  if (q.select == sql::SelectKind::kValue ? ContainsAggregate(*q.value) : false)
    throw At(q.loc, "SC2240", "ORDER BY RANK cannot be combined with aggregates.");
  for (const auto& p : q.projections) {
    if (ContainsAggregate(*p.expr)) throw At(q.loc, "SC2240", "ORDER BY RANK cannot be combined with aggregates.");
  }
  std::optional<int64_t> top, offset, limit;
  if (q.top) top = ResolveCount(*q.top, params, "TOP", CountCeiling::kSdkPlan);
  if (q.offset) offset = ResolveCount(*q.offset, params, "OFFSET", CountCeiling::kSdkPlan);
  if (q.limit) limit = ResolveCount(*q.limit, params, "LIMIT", CountCeiling::kSdkPlan);
  std::vector<double> weights;
  std::vector<RankComponent> components = RankComponents(q, params, vectors, weights);
  // One component is not fused: the SDK keeps the order its ranges merge to, so it needs the
  // ORDER BY form whatever the client supports.
  if (components.size() == 1) skip_order_by_rewrite = false;

  const std::string root = RootAlias(q);
  const std::string where = q.where ? sql::ToString(*q.where) : std::string();
  // The rows each range returns per component: twice what the client keeps, at least 120 (the
  // service computes it in 32 bits).
  std::optional<uint32_t> size;
  if (top || limit) {
    const uint64_t wanted = 2 * static_cast<uint64_t>(offset.value_or(0) + (top ? *top : *limit));
    size = static_cast<uint32_t>(std::max<uint64_t>(120, wanted));
  }
  std::string payload;
  switch (q.select) {
    case sql::SelectKind::kStar: payload = root; break;
    case sql::SelectKind::kValue: payload = sql::ToString(*q.value); break;
    case sql::SelectKind::kList: {
      const auto names = ProjectionNames(q);
      std::vector<std::string> members;
      for (size_t i = 0; i < q.projections.size(); ++i)
        members.push_back(QuoteKey(names[i]) + ": " + sql::ToString(*q.projections[i].expr));
      payload = "{" + Join(members, ", ") + "}";
      break;
    }
  }
  std::vector<std::string> scores;
  for (const auto& c : components) {
    std::string s = "(" + c.score + " ?? " + c.fallback + ")";
    if (skip_order_by_rewrite && !c.descending) s = "(-1 * " + s + ")";
    scores.push_back(std::move(s));
  }
  const std::string score_list = "[" + Join(scores, ", ") + "]";

  QueryPlan plan;
  plan.ranges = QueryRanges(q, params, pk, geometry);
  HybridSearchInfo& hybrid = plan.hybrid.emplace();
  std::vector<std::string> statistics;
  for (const auto& c : components) {
    if (!c.full_text) continue;
    const std::string path = sql::ToString(*c.call->args[0]);
    std::vector<std::string> hits;
    for (const Expr* t : SearchTerms(*c.call)) hits.push_back("COUNTIF(FullTextContains(" + path + ", " + sql::ToString(*t) + "))");
    statistics.push_back("{\"totalWordCount\": SUM(_FullTextWordCount(" + path + ")), \"hitCounts\": [" + Join(hits, ", ") + "]}");
  }
  hybrid.global_statistics_query = "SELECT COUNT(1) AS documentCount, [" + Join(statistics, ", ") +
                                   "] AS fullTextStatistics" + Clauses(q, std::string(), false, false, 0);
  for (const RankComponent& c : components) {
    const std::string direction = c.descending ? "DESC" : "ASC";
    // A vector score is written without a direction when it is the closest-first order.
    const std::string order = c.score + (c.full_text || c.reversed ? " " + direction : std::string());
    std::string text = "SELECT ";
    if (size && top) text += "TOP " + std::to_string(*size) + " ";
    if (skip_order_by_rewrite) {
      text += root + "._rid, " + payload + " AS payload, " + score_list + " AS componentScores";
      text += Clauses(q, where, false, false, 0);
    } else {
      text += root + "._rid, [{\"item\": " + c.score + "}] AS orderByItems, {\"payload\": " + payload +
              ", \"componentScores\": " + score_list + "} AS payload";
      text += Clauses(q, where.empty() ? std::string(kOrderByFilter) : "(" + where + " AND " + kOrderByFilter + ")",
                      false, false, 0);
    }
    text += "\nORDER BY " + order;
    if (size && !top) text += "\nOFFSET 0 LIMIT " + std::to_string(*size);
    QueryInfo& info = hybrid.components.emplace_back();
    if (size && top) info.top = *size;
    if (size && !top) {
      info.offset = 0;
      info.limit = *size;
    }
    if (!skip_order_by_rewrite) {
      info.order_by = {c.descending ? "Descending" : "Ascending"};
      info.order_by_expressions = {c.score};
    }
    info.rewritten_query = std::move(text);
    info.has_select_value = q.select == sql::SelectKind::kValue;
    info.has_non_streaming_order_by = !skip_order_by_rewrite;
  }
  hybrid.weights = std::move(weights);
  hybrid.skip = offset;
  if (top || limit) hybrid.take = top ? *top : *limit;
  hybrid.requires_global_statistics = !statistics.empty();
  return plan;
}

// What the checks of a query's SELECT, GROUP BY and ORDER BY found (CheckShape).
struct Shape {
  bool value_select = false;
  bool grouped = false;
  bool value_aggregate = false;
  AggregateFn value_agg = AggregateFn::kCount;
  bool aggregating = false;
  bool vector_order = false;  // ORDER BY VectorDistance: the SDK collects every range's top rows, then merges
  std::vector<std::string> group_texts;
};

// Checks what the SDKs can merge: aggregates alone in their projections, grouped projections made
// of the GROUP BY expressions, ORDER BY items that are document paths (or scores).
Shape CheckShape(const Query& q) {
  Shape s;
  s.value_select = q.select == sql::SelectKind::kValue;
  s.grouped = !q.group_by.empty();
  for (const auto& g : q.group_by) s.group_texts.push_back(sql::ToString(*g));
  if (s.grouped && q.select == sql::SelectKind::kStar) {
    throw At(q.loc, "SC2041", "'SELECT *' is not allowed with GROUP BY.");
  }
  bool list_aggregates = false;
  if (s.value_select) CheckAggregateProjection(*q.value);
  for (const auto& p : q.projections) {
    CheckAggregateProjection(*p.expr);
    list_aggregates = list_aggregates || AggregateOf(*p.expr).has_value();
  }
  if (s.grouped) {
    if (s.value_select) CheckGrouped(*q.value, s.group_texts);
  }
  if (s.grouped || list_aggregates) {
    for (const auto& p : q.projections) CheckGrouped(*p.expr, s.group_texts);
  }
  const std::optional<AggregateFn> value_kind = s.value_select ? AggregateOf(*q.value) : std::nullopt;
  s.value_aggregate = value_kind.has_value();
  s.value_agg = value_kind.value_or(AggregateFn::kCount);
  s.aggregating = s.grouped || s.value_aggregate || list_aggregates;
  if (!s.aggregating) {
    for (const auto& o : q.order_by) {
      if (IsRankScore(*o.expr)) {
        s.vector_order = true;
        continue;
      }
      if (!IsDocumentPath(*o.expr)) {
        throw CosmosError(400, 0, "BadRequest",
                          "Message: {\"errors\":[{\"severity\":\"Error\",\"code\":2206,\"message\":\"Unsupported ORDER "
                          "BY clause. ORDER BY item expression could not be mapped to a document path.\"}]}");
      }
    }
  }
  return s;
}

// A query that aggregates, per range: groups (or the one aggregate row) with their partial
// aggregates; the SDK merges.
void AggregateRewrite(const Query& q, const Shape& s, const std::string& where, QueryInfo& info) {
  std::string payload;
  if (s.value_select) {
    if (s.value_aggregate) {
      info.aggregates.push_back(AggregateOperator(s.value_agg));
      payload = "[" + AggregateItem(*q.value, s.value_agg) + "]";
    } else {
      payload = sql::ToString(*q.value);
    }
  } else {
    const auto names = ProjectionNames(q);
    std::vector<std::string> members;
    for (size_t i = 0; i < q.projections.size(); ++i) {
      const Expr& e = *q.projections[i].expr;
      const auto kind = AggregateOf(e);
      info.group_by_aliases.push_back(names[i]);
      info.alias_aggregates.emplace_back(names[i],
                                         kind ? std::optional<std::string>(AggregateOperator(*kind)) : std::nullopt);
      members.push_back(QuoteKey(names[i]) + ": " + (kind ? AggregateItem(e, *kind) : sql::ToString(e)));
    }
    payload = "{" + Join(members, ", ") + "}";
  }
  std::string& rewritten = info.rewritten_query;
  if (s.grouped) {
    std::vector<std::string> items;
    for (const auto& g : s.group_texts) items.push_back("{\"item\": " + g + "}");
    rewritten = "SELECT [" + Join(items, ", ") + "] AS groupByItems, " + payload + " AS payload";
  } else if (s.value_select) {
    rewritten = "SELECT VALUE " + payload;
  } else {
    rewritten = "SELECT " + payload + " AS payload";
  }
  rewritten += Clauses(q, where, true, true, 0);
}

// An ORDER BY query, per range: the rows sorted, each with its sort keys and _rid; the SDK merges
// the ranges.
void OrderByRewrite(const Query& q, const json::Value* params, const store::VectorPolicy* vectors,
                    const std::string& where, QueryInfo& info) {
  const std::string root = RootAlias(q);
  std::vector<std::string> items;
  const std::string container_alias =
      !q.from.empty() && q.from.front().path && q.from.front().path->kind == ExprKind::kName ? root : std::string();
  for (const auto& s : q.order_by) {
    bool descending = s.descending;
    if (IsRankScore(*s.expr) && !s.explicit_direction && !IsVectorDistance(*s.expr)) descending = true;
    if (IsVectorDistance(*s.expr) && !s.explicit_direction)
      descending = VectorDistanceFunction(*s.expr, params, vectors, container_alias) != store::DistanceFunction::kEuclidean;
    info.order_by.push_back(descending ? "Descending" : "Ascending");
    info.order_by_expressions.push_back(sql::ToString(*s.expr));
    items.push_back("{\"item\": " + info.order_by_expressions.back() + "}");
  }
  std::string payload;
  std::string filter = where.empty() ? std::string(kOrderByFilter) : "(" + where + " AND " + kOrderByFilter + ")";
  switch (q.select) {
    case sql::SelectKind::kStar:
      payload = root;
      break;
    case sql::SelectKind::kValue:
      payload = sql::ToString(*q.value);
      filter = "(" + filter + " AND IS_DEFINED(" + payload + "))";
      break;
    case sql::SelectKind::kList: {
      const auto names = ProjectionNames(q);
      std::vector<std::string> members;
      for (size_t i = 0; i < q.projections.size(); ++i) {
        members.push_back(QuoteKey(names[i]) + ": " + sql::ToString(*q.projections[i].expr));
      }
      payload = "{" + Join(members, ", ") + "}";
      break;
    }
  }
  // With DISTINCT the SDK removes duplicates across the ranges before it applies TOP or
  // OFFSET/LIMIT, so a range must not stop after the first rows it finds.
  std::string& rewritten = info.rewritten_query;
  rewritten = "SELECT ";
  if (info.top && !q.distinct) rewritten += "TOP " + std::to_string(*info.top) + " ";
  rewritten += root + "._rid, [" + Join(items, ", ") + "] AS orderByItems, " + payload + " AS payload";
  rewritten += Clauses(q, filter, false, true, 0);
  if (info.offset && info.limit && !q.distinct)
    rewritten += "\nOFFSET 0 LIMIT " + std::to_string(*info.offset + *info.limit);
}

// JSON of one queryInfo (also of each component query of a hybrid search).
void WriteQueryInfo(std::string& out, const QueryInfo& info) {
  out += "{\"distinctType\":";
  Str(out, info.distinct_type);
  out += ",\"top\":";
  Count(out, info.top);
  out += ",\"offset\":";
  Count(out, info.offset);
  out += ",\"limit\":";
  Count(out, info.limit);
  out += ",\"orderBy\":";
  StrList(out, info.order_by);
  out += ",\"orderByExpressions\":";
  StrList(out, info.order_by_expressions);
  out += ",\"groupByExpressions\":";
  StrList(out, info.group_by_expressions);
  out += ",\"groupByAliases\":";
  StrList(out, info.group_by_aliases);
  out += ",\"aggregates\":";
  StrList(out, info.aggregates);
  out += ",\"groupByAliasToAggregateType\":{";
  for (size_t i = 0; i < info.alias_aggregates.size(); ++i) {
    if (i) out += ',';
    Str(out, info.alias_aggregates[i].first);
    out += ':';
    if (info.alias_aggregates[i].second) {
      Str(out, *info.alias_aggregates[i].second);
    } else {
      out += "null";
    }
  }
  out += "},\"rewrittenQuery\":";
  Str(out, info.rewritten_query);
  out += ",\"hasSelectValue\":";
  out += info.has_select_value ? "true" : "false";
  out += ",\"dCountInfo\":null,\"hasNonStreamingOrderBy\":";
  out += info.has_non_streaming_order_by ? "true" : "false";
  out += '}';
}

// JSON of hybridSearchQueryInfo.
void WriteHybrid(std::string& out, const HybridSearchInfo& hybrid) {
  out += "{\"globalStatisticsQuery\":";
  Str(out, hybrid.global_statistics_query);
  out += ",\"componentQueryInfos\":[";
  for (size_t i = 0; i < hybrid.components.size(); ++i) {
    if (i) out += ',';
    WriteQueryInfo(out, hybrid.components[i]);
  }
  out += "],\"componentWithoutPayloadQueryInfos\":[],\"projectionQueryInfo\":null,\"componentWeights\":[";
  for (size_t i = 0; i < hybrid.weights.size(); ++i) {
    if (i) out += ',';
    // Floating-point numbers, as the service writes them ("1.0"): the Java SDK reads the list as
    // doubles and fails on an integer (HybridSearchQueryInfo.getComponentWeights).
    const double w = std::fabs(hybrid.weights[i]);
    out += sql::FormatNumber(w);
    if (std::isfinite(w) && w == std::floor(w) && std::fabs(w) < 1e15) out += ".0";
  }
  out += "]";
  if (hybrid.skip) out += ",\"skip\":" + std::to_string(*hybrid.skip);
  if (hybrid.take) out += ",\"take\":" + std::to_string(*hybrid.take);
  out += ",\"requiresGlobalStatistics\":";
  out += hybrid.requires_global_statistics ? "true" : "false";
  out += "}";
}

}  // namespace

bool QueryInfo::NeedsClientMerge() const {
  return distinct_type != "None" || top || offset || limit || !order_by.empty() || !group_by_expressions.empty() ||
         !aggregates.empty() || !alias_aggregates.empty();
}

QueryPlan BuildQueryPlan(const sql::Query& q, const json::Value* params, const store::PartitionKeyDefinition& pk,
                         const store::VectorPolicy* vectors, bool hybrid_skip_order_by_rewrite, bool geometry) {
  const sql::PlanNumberStyle plan_numbers;
  CheckQueryFunctions(q);
  CheckSubqueryClauses(q);
  if (q.order_by_rank) return HybridPlan(q, params, pk, vectors, hybrid_skip_order_by_rewrite, geometry);
  QueryPlan plan;
  QueryInfo& info = plan.info.emplace();
  if (q.top) info.top = ResolveCount(*q.top, params, "TOP", CountCeiling::kSdkPlan);
  if (q.offset) info.offset = ResolveCount(*q.offset, params, "OFFSET", CountCeiling::kSdkPlan);
  if (q.limit) info.limit = ResolveCount(*q.limit, params, "LIMIT", CountCeiling::kSdkPlan);
  Shape shape = CheckShape(q);

  // The ranges: no FROM reads nothing; otherwise the keys the WHERE clause allows.
  plan.ranges = QueryRanges(q, params, pk, geometry);
  const std::vector<EpkRange>& ranges = plan.ranges;
  const bool single_point = ranges.size() == 1 && !ranges[0].min.empty() && ranges[0].min == ranges[0].max;
  if (q.from.empty()) info.top = info.offset = info.limit = std::nullopt;

  // queryInfo.
  if (q.distinct) info.distinct_type = q.order_by.empty() || shape.aggregating ? "Unordered" : "Ordered";
  const std::string where = q.where ? sql::ToString(*q.where) : std::string();
  const std::optional<int64_t>& top = info.top;
  std::optional<int64_t>& offset = info.offset;
  std::optional<int64_t>& limit = info.limit;
  if (shape.aggregating) {
    AggregateRewrite(q, shape, where, info);
  } else if (!q.order_by.empty()) {
    OrderByRewrite(q, params, vectors, where, info);
  } else if (offset && single_point && !q.distinct) {
    // One logical partition answers OFFSET/LIMIT itself.
    offset = limit = std::nullopt;
  } else if (q.distinct && (top || offset)) {
    // The SDK applies TOP/OFFSET/LIMIT after removing duplicates across the ranges.
    info.rewritten_query = SelectClause(q, true, false) + Clauses(q, where, true, true, 0);
  } else if (offset && limit) {
    // Every range returns its first offset + limit rows; the SDK skips and takes.
    info.rewritten_query = SelectClause(q, true, true) + Clauses(q, where, true, true, 0) + "\nOFFSET 0 LIMIT " +
                           std::to_string(*offset + *limit);
  }
  info.group_by_expressions = std::move(shape.group_texts);
  info.has_select_value = shape.value_select;
  info.has_non_streaming_order_by = shape.vector_order;
  return plan;
}

std::string QueryPlanJson(const QueryPlan& plan) {
  const sql::PlanNumberStyle plan_numbers;  // the weights of a hybrid search
  std::string out = "{\"partitionedQueryExecutionInfoVersion\":2";
  if (plan.info) {
    out += ",\"queryInfo\":";
    WriteQueryInfo(out, *plan.info);
  }
  out += ",\"queryRanges\":[";
  RangeList(out, plan.ranges);
  out += "],\"hybridSearchQueryInfo\":";
  if (plan.hybrid) {
    WriteHybrid(out, *plan.hybrid);
  } else {
    out += "null";
  }
  out += "}";
  return out;
}

std::string QueryPlanJson(const sql::Query& q, const json::Value* params, const store::PartitionKeyDefinition& pk,
                          const store::VectorPolicy* vectors, bool hybrid_skip_order_by_rewrite, bool geometry) {
  return QueryPlanJson(BuildQueryPlan(q, params, pk, vectors, hybrid_skip_order_by_rewrite, geometry));
}

}  // namespace cosmos::query
