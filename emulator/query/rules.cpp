#include "query/rules.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "util/util.h"

namespace cosmos::query::rules {

using sql::Expr;
using sql::ExprKind;

CosmosError At(const sql::Location& loc, const std::string& code, const std::string& message) {
  return errors::QueryError(code, loc.start, loc.end, message);
}

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::optional<AggregateFn> AggregateOf(const Expr& e) {
  if (e.kind != ExprKind::kCall) return std::nullopt;
  const std::string n = util::ToLower(e.name);
  if (n == "count") return AggregateFn::kCount;
  if (n == "sum") return AggregateFn::kSum;
  if (n == "avg") return AggregateFn::kAvg;
  if (n == "min") return AggregateFn::kMin;
  if (n == "max") return AggregateFn::kMax;
  if (n == "makelist") return AggregateFn::kMakeList;
  if (n == "makeset") return AggregateFn::kMakeSet;
  if (n == "countif") return AggregateFn::kCountIf;
  return std::nullopt;
}

bool ContainsAggregate(const Expr& e) {
  if (AggregateOf(e)) return true;
  return std::any_of(e.args.begin(), e.args.end(), [](const auto& a) { return ContainsAggregate(*a); });
}

bool ContainsSubquery(const Expr& e) {
  if (e.query) return true;
  return std::any_of(e.args.begin(), e.args.end(), [](const auto& a) { return ContainsSubquery(*a); });
}

void CheckAggregateArity(const Expr& call) {
  if (call.args.size() != 1) {
    throw At(call.loc, "SC2050", "The " + Upper(call.name) + " function requires 1 argument(s).");
  }
}

const FunctionDef& ResolveFunction(const Expr& call) {
  const FunctionDef* fn = FindFunction(call.name);
  if (fn == nullptr) {
    throw At({call.loc.start, call.loc.start + call.name.size()}, "SC2005",
             "'" + call.name + "' is not a recognized built-in function name.");
  }
  const int argc = static_cast<int>(call.args.size());
  if (argc < fn->min_args || (fn->max_args >= 0 && argc > fn->max_args)) {
    std::string count = fn->min_args == fn->max_args ? std::to_string(fn->min_args)
                        : fn->max_args < 0           ? "at least " + std::to_string(fn->min_args)
                                           : std::to_string(fn->min_args) + " to " + std::to_string(fn->max_args);
    throw At(call.loc, "SC2050", "The " + Upper(call.name) + " function requires " + count + " argument(s).");
  }
  return *fn;
}

void CheckGrouped(const Expr& e, const std::vector<std::string>& grouped) {
  if (AggregateOf(e)) return;
  if (std::find(grouped.begin(), grouped.end(), sql::ToString(e)) != grouped.end()) return;
  // Only a path from a FROM alias is a property reference; a member or index of anything else (an
  // object or array built from group keys, a function's result) is checked through its parts.
  const Expr* root = &e;
  while ((root->kind == ExprKind::kMember || root->kind == ExprKind::kIndex) && !root->args.empty()) {
    root = root->args[0].get();
  }
  if (root->kind == ExprKind::kName) {
    throw At(e.loc, "SC2102",
             "Property reference '" + sql::ToString(e) +
                 "' is invalid in the select list because it is not contained in either an aggregate function or "
                 "the GROUP BY clause.");
  }
  for (const auto& a : e.args) CheckGrouped(*a, grouped);
}

namespace {

struct ClauseError {
  sql::Location loc;
  const char* code;
  const char* message;
};

void SubqueryClauses(const sql::Query& q, bool subquery, std::vector<ClauseError>& out);

void SubqueryClauses(const Expr& e, std::vector<ClauseError>& out) {
  if (e.query) SubqueryClauses(*e.query, true, out);
  for (const auto& a : e.args) SubqueryClauses(*a, out);
}

void SubqueryClauses(const sql::Query& q, bool subquery, std::vector<ClauseError>& out) {
  if (subquery) {
    if (q.top) out.push_back({q.top_loc, "SC2203", "'TOP' is not supported in subqueries."});
    if (!q.order_by.empty()) out.push_back({q.order_by_loc, "SC2202", "'ORDER BY' is not supported in subqueries."});
    if (q.offset) {
      out.push_back({q.offset_limit_loc, "SC2204", "'OFFSET LIMIT' clause is not supported in subqueries."});
    }
  }
  if (q.value) SubqueryClauses(*q.value, out);
  for (const auto& p : q.projections) SubqueryClauses(*p.expr, out);
  for (const auto& f : q.from) {
    if (f.path) SubqueryClauses(*f.path, out);
    if (f.subquery) SubqueryClauses(*f.subquery, true, out);
  }
  if (q.where) SubqueryClauses(*q.where, out);
  for (const auto& g : q.group_by) SubqueryClauses(*g, out);
  for (const auto& s : q.order_by) SubqueryClauses(*s.expr, out);
}

}  // namespace

void CheckSubqueryClauses(const sql::Query& q) {
  std::vector<ClauseError> errors;
  SubqueryClauses(q, false, errors);
  if (errors.empty()) return;
  std::stable_sort(errors.begin(), errors.end(),
                   [](const ClauseError& a, const ClauseError& b) { return a.loc.start < b.loc.start; });
  std::string body = "Message: {\"errors\":[";
  for (size_t i = 0; i < errors.size(); ++i) {
    if (i) body += ',';
    body += "{\"severity\":\"Error\",\"location\":{\"start\":" + std::to_string(errors[i].loc.start) +
            ",\"end\":" + std::to_string(errors[i].loc.end) + "},\"code\":\"" + errors[i].code +
            "\",\"message\":";
    json::WriteString(body, errors[i].message);
    body += '}';
  }
  body += "]}";
  throw CosmosError(400, 0, "BadRequest", body);
}

bool IsDocumentPath(const Expr& e) {
  if (e.kind == ExprKind::kName) return true;
  if (e.kind == ExprKind::kMember) return IsDocumentPath(*e.args[0]);
  if (e.kind == ExprKind::kIndex) return e.args[1]->kind == ExprKind::kLiteral && IsDocumentPath(*e.args[0]);
  return false;
}

namespace {

// One step of a document path after its root name: a member name, or a constant index.
struct PathStep {
  const Expr* e;  // kMember or kIndex
  // The member name the step selects, when it selects one (a member, or a string index).
  std::optional<std::string> Name() const {
    if (e->kind == ExprKind::kMember) return e->name;
    const Expr& i = *e->args[1];
    if (i.kind == ExprKind::kLiteral && i.literal.kind == sql::Literal::Kind::kString) return i.literal.text;
    return std::nullopt;
  }
};

// Splits a document path into its root name and its steps, outermost last.
const Expr& SplitPath(const Expr& e, std::vector<PathStep>& steps) {
  const Expr* root = &e;
  std::vector<PathStep> reversed;
  while (root->kind == ExprKind::kMember || root->kind == ExprKind::kIndex) {
    reversed.push_back({root});
    root = root->args[0].get();
  }
  steps.assign(reversed.rbegin(), reversed.rend());
  return *root;
}

std::string SourceAlias(const sql::FromItem& item) {
  if (item.alias) return *item.alias;
  if (!item.path) return {};
  const Expr& p = *item.path;
  if (p.kind == ExprKind::kName || p.kind == ExprKind::kMember) return p.name;
  if (p.kind == ExprKind::kIndex) return PathStep{&p}.Name().value_or(std::string());
  return {};
}

// The name a projection's value has in its row (as the binder names it).
std::optional<std::string> ProjectionName(const sql::Projection& p) {
  if (p.alias) return *p.alias;
  const Expr& e = *p.expr;
  if (e.kind == ExprKind::kName || e.kind == ExprKind::kMember) return e.name;
  if (e.kind == ExprKind::kIndex) return PathStep{&e}.Name();
  return std::nullopt;
}

OrderByTarget ClassifyPath(const std::string& root, std::vector<PathStep> steps, const sql::Query& q);

// `steps` applied to a row of the subquery `sub`.
OrderByTarget ClassifyRow(const sql::Query& sub, std::vector<PathStep> steps) {
  const Expr* value = nullptr;
  if (sub.select == sql::SelectKind::kValue) {
    value = sub.value.get();
  } else if (sub.select == sql::SelectKind::kStar) {
    if (sub.from.empty()) return OrderByTarget::kNotDocument;
    return ClassifyPath(SourceAlias(sub.from.front()), std::move(steps), sub);
  } else {
    // A row built of projections: the first step names one of them.
    if (steps.empty()) return OrderByTarget::kNotDocument;
    const std::optional<std::string> name = steps.front().Name();
    if (!name) return OrderByTarget::kNotDocument;
    for (const auto& p : sub.projections) {
      if (ProjectionName(p) == name) {
        value = p.expr.get();
        break;
      }
    }
    if (value == nullptr) return OrderByTarget::kNotDocument;
    steps.erase(steps.begin());
  }
  if (!IsDocumentPath(*value) || ContainsAggregate(*value)) return OrderByTarget::kNotDocument;
  std::vector<PathStep> inner;
  const Expr& root = SplitPath(*value, inner);
  inner.insert(inner.end(), steps.begin(), steps.end());
  return ClassifyPath(root.name, std::move(inner), sub);
}

OrderByTarget ClassifyPath(const std::string& root, std::vector<PathStep> steps, const sql::Query& q) {
  for (size_t i = 0; i < q.from.size(); ++i) {
    const sql::FromItem& item = q.from[i];
    if (SourceAlias(item) != root) continue;
    if (i > 0) {
      // A JOIN: its values are those of a collection inside each item.
      if (item.subquery && ClassifyRow(*item.subquery, std::move(steps)) == OrderByTarget::kNotDocument) {
        return OrderByTarget::kNotDocument;
      }
      return OrderByTarget::kCorrelated;
    }
    return item.subquery ? ClassifyRow(*item.subquery, std::move(steps)) : OrderByTarget::kDocument;
  }
  // Not a FROM alias (the binder refuses an unknown name on its own).
  return OrderByTarget::kDocument;
}

}  // namespace

OrderByTarget ClassifyOrderBy(const Expr& e, const sql::Query& q) {
  if (!IsDocumentPath(e)) return OrderByTarget::kNotDocument;
  std::vector<PathStep> steps;
  const Expr& root = SplitPath(e, steps);
  return ClassifyPath(root.name, std::move(steps), q);
}

bool IsVectorDistance(const Expr& e) {
  return e.kind == ExprKind::kCall &&
         (util::EqualsIgnoreCase(e.name, "VectorDistance") || util::EqualsIgnoreCase(e.name, "_VectorScore"));
}

bool IsRankScore(const Expr& e) {
  return IsVectorDistance(e) || (e.kind == ExprKind::kCall && util::EqualsIgnoreCase(e.name, "_FullTextScore"));
}

store::DistanceFunction VectorDistanceFunction(const Expr& call, const json::Value* params,
                                               const store::VectorPolicy* vectors, std::string_view container_alias) {
  if (call.args.size() > 3) {
    const Expr& options = *call.args[3];
    const json::Value* given = nullptr;
    if (options.kind == ExprKind::kParameter) {
      auto p = FindParameter(params, options.name);
      if (p && *p && (*p)->IsObject()) given = *p;
    }
    for (size_t i = 0; options.kind == ExprKind::kObject && i < options.keys.size(); ++i) {
      const Expr& v = *options.args[i];
      if (util::EqualsIgnoreCase(options.keys[i], "distanceFunction") && v.kind == ExprKind::kLiteral &&
          v.literal.kind == sql::Literal::Kind::kString) {
        if (auto f = store::ParseDistanceFunction(v.literal.text)) return *f;
      }
    }
    for (auto m = given ? given->MemberBegin() : json::Value::ConstMemberIterator(); given && m != given->MemberEnd(); ++m) {
      if (util::EqualsIgnoreCase({m->name.GetString(), m->name.GetStringLength()}, "distanceFunction") &&
          m->value.IsString()) {
        if (auto f = store::ParseDistanceFunction({m->value.GetString(), m->value.GetStringLength()})) return *f;
      }
    }
  }
  for (size_t i = 0; vectors != nullptr && !container_alias.empty() && i < 2 && i < call.args.size(); ++i) {
    auto path = PropertyPath(*call.args[i], params);
    if (!path || path->empty()) continue;
    const Expr* root = call.args[i].get();
    while (root->kind != ExprKind::kName) root = root->args[0].get();
    if (root->name != container_alias) continue;
    if (const store::VectorEmbedding* e = vectors->Find(*path)) return e->distance;
  }
  return store::DistanceFunction::kCosine;
}

std::optional<std::vector<std::string>> PropertyPath(const Expr& e, const json::Value* params) {
  if (e.kind == ExprKind::kName) return std::vector<std::string>{};
  std::optional<std::vector<std::string>> base;
  if (e.kind == ExprKind::kMember) {
    base = PropertyPath(*e.args[0], params);
    if (base) base->push_back(e.name);
  } else if (e.kind == ExprKind::kIndex && e.args[1]->kind == ExprKind::kLiteral &&
             e.args[1]->literal.kind == sql::Literal::Kind::kString) {
    base = PropertyPath(*e.args[0], params);
    if (base) base->push_back(e.args[1]->literal.text);
  } else if (e.kind == ExprKind::kIndex && e.args[1]->kind == ExprKind::kParameter) {
    // c[@p] with @p a string (how the LangChain and LlamaIndex vector stores name their path).
    auto value = FindParameter(params, e.args[1]->name);
    if (value && *value != nullptr && (*value)->IsString()) {
      base = PropertyPath(*e.args[0], params);
      if (base) base->emplace_back((*value)->GetString(), (*value)->GetStringLength());
    }
  }
  return base;
}

std::optional<const json::Value*> FindParameter(const json::Value* params, std::string_view name) {
  if (params == nullptr || !params->IsArray()) return std::nullopt;
  for (const auto& p : params->GetArray()) {
    if (!p.IsObject()) continue;
    auto n = p.FindMember("name");
    if (n == p.MemberEnd() || !n->value.IsString() ||
        name != std::string_view(n->value.GetString(), n->value.GetStringLength())) {
      continue;
    }
    auto v = p.FindMember("value");
    return v == p.MemberEnd() ? nullptr : &v->value;
  }
  return std::nullopt;
}

int64_t ResolveCount(const sql::Count& c, const json::Value* params, const char* clause, CountCeiling ceiling) {
  const std::string what = clause;
  const std::string code = what == "TOP" ? "SC2060" : what == "LIMIT" ? "SC2061" : "SC2062";
  const std::string message = what == "TOP" ? "The count value provided for a TOP clause must be an integer."
                                            : "The " + what + " count value exceeds the maximum allowed value.";
  double v = 0;
  if (c.value) {
    v = *c.value;
  } else {
    auto found = FindParameter(params, c.parameter);
    if (!found) throw At(c.loc, "SC2001", "Identifier '" + c.parameter + "' could not be resolved.");
    if (*found == nullptr || !(*found)->IsNumber()) throw At(c.loc, code, message);
    v = (*found)->GetDouble();
  }
  if (!(v >= 0) || v != std::floor(v) || v > static_cast<double>(std::numeric_limits<uint32_t>::max())) {
    throw At(c.loc, code, message);
  }
  if (ceiling == CountCeiling::kSdkPlan && v > static_cast<double>(std::numeric_limits<int32_t>::max())) {
    throw At(c.loc, code,
             "The " + what + " value " + sql::FormatNumber(v) + " exceeds the maximum the SDKs accept (2147483647).");
  }
  return static_cast<int64_t>(v);
}

}  // namespace cosmos::query::rules
