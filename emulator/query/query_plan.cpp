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

// The alias the first FROM source binds (the document variable of the query).
std::string RootAlias(const Query& q) {
  if (q.from.empty()) return {};
  const sql::FromItem& f = q.from.front();
  if (f.alias) return *f.alias;
  if (!f.path) return {};
  const Expr& p = *f.path;
  if (p.kind == ExprKind::kName || p.kind == ExprKind::kMember) return p.name;
  if (p.kind == ExprKind::kIndex && p.args[1]->kind == ExprKind::kLiteral) return p.args[1]->literal.text;
  return {};
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
// Constant expressions

// True when `e` has no variables, subqueries, UDFs or functions of the clock or chance.
bool IsConstant(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kName:
    case ExprKind::kUdfCall:
    case ExprKind::kSubquery:
    case ExprKind::kExists:
    case ExprKind::kArraySubquery:
    case ExprKind::kAggregateSubquery:
      return false;
    case ExprKind::kCall: {
      const std::string n = util::ToLower(e.name);
      if (AggregateOf(e) || n == "rand" || n.rfind("getcurrent", 0) == 0) return false;
      break;
    }
    default:
      break;
  }
  for (const auto& a : e.args) {
    if (!IsConstant(*a)) return false;
  }
  return true;
}

// A constant's value, computed by the query engine itself.
struct ConstantValue {
  bool defined = false;
  bool is_true = false;
  bool is_array = false;
  PkComponent component;              // the value as a partition key component
  std::vector<PkComponent> elements;  // array elements
};

// The constant a JSON value is.
ConstantValue FromJson(const json::Value& v) {
  ConstantValue c;
  c.defined = true;
  c.is_true = v.IsBool() && v.GetBool();
  c.component = PkComponent::FromJson(v);
  if (v.IsArray()) {
    c.is_array = true;
    for (const auto& el : v.GetArray()) c.elements.push_back(PkComponent::FromJson(el));
  }
  return c;
}

// The value of a constant expression; nullopt when it cannot be computed (the caller then assumes
// nothing). Undefined results come back with defined = false.
std::optional<ConstantValue> Evaluate(const Expr& e, const json::Value* params) {
  // Parameters and literals need no engine.
  if (e.kind == ExprKind::kParameter) {
    auto v = FindParameter(params, e.name);
    if (!v || *v == nullptr) return std::nullopt;
    return FromJson(**v);
  }
  if (e.kind == ExprKind::kLiteral) {
    ConstantValue c;
    const auto& l = e.literal;
    switch (l.kind) {
      case sql::Literal::Kind::kUndefined:
        return c;
      case sql::Literal::Kind::kNull:
        c.component = PkComponent::Null();
        break;
      case sql::Literal::Kind::kBool:
        c.component = PkComponent::Bool(l.boolean);
        c.is_true = l.boolean;
        break;
      case sql::Literal::Kind::kNumber:
        c.component = PkComponent::Number(l.number);
        break;
      case sql::Literal::Kind::kString:
        c.component = PkComponent::String(l.text);
        break;
    }
    c.defined = true;
    return c;
  }
  sql::SyntaxError error;
  auto parsed = sql::Parse("SELECT VALUE " + sql::ToString(e), error);
  if (!parsed) return std::nullopt;
  try {
    Arena arena;
    auto plan = Bind(*parsed, params, arena);
    EvalContext cx{arena, FunctionContext{arena, 0}, std::vector<Val>(static_cast<size_t>(plan->slot_count)), nullptr, nullptr};
    const Val v = Eval(plan->value, cx);
    if (v.IsUndefined()) return ConstantValue{};
    return FromJson(v.json());
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// ---------------------------------------------------------------------------------------------
// Query ranges

// Equality of key components (numbers by value).
bool SameComponent(const PkComponent& a, const PkComponent& b) {
  if (a.kind != b.kind) return false;
  if (a.kind == PkComponent::Kind::kNumber) return a.number == b.number;
  return a.text == b.text;
}

// Values for some partition key paths (nullopt: the path is unconstrained).
using Tuple = std::vector<std::optional<PkComponent>>;

// The keys a filter allows: every key (all), or the union of the tuples (none at all when empty).
struct KeySet {
  bool all = true;
  std::vector<Tuple> tuples;
};

constexpr size_t kMaxTuples = 4096;

// Equality of tuples, path by path.
bool SameTuple(const Tuple& a, const Tuple& b) {
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].has_value() != b[i].has_value()) return false;
    if (a[i] && !SameComponent(*a[i], *b[i])) return false;
  }
  return true;
}

// Adds a tuple to a union unless already there.
void AddTuple(std::vector<Tuple>& out, Tuple t) {
  for (const auto& u : out) {
    if (SameTuple(u, t)) return;
  }
  out.push_back(std::move(t));
}

// Every key; no key at all.
KeySet All() { return KeySet{}; }
KeySet None() { return KeySet{false, {}}; }

// Keys both sets allow: tuples merged pairwise, conflicting values dropped.
KeySet And(const KeySet& a, const KeySet& b) {
  if (a.all) return b;
  if (b.all) return a;
  KeySet out = None();
  for (const auto& ta : a.tuples) {
    for (const auto& tb : b.tuples) {
      Tuple t = ta;
      bool conflict = false;
      for (size_t i = 0; i < t.size() && !conflict; ++i) {
        if (!tb[i]) continue;
        if (t[i] && !SameComponent(*t[i], *tb[i])) conflict = true;
        t[i] = tb[i];
      }
      if (!conflict) AddTuple(out.tuples, std::move(t));
      if (out.tuples.size() > kMaxTuples) return All();
    }
  }
  return out;
}

// Keys either set allows.
KeySet Or(const KeySet& a, const KeySet& b) {
  if (a.all || b.all) return All();
  KeySet out = a;
  for (const auto& t : b.tuples) AddTuple(out.tuples, t);
  if (out.tuples.size() > kMaxTuples) return All();
  return out;
}

// Finds the keys a WHERE clause allows, from equalities (=, IN, LIKE without wildcards, boolean
// paths, IS_BOOL/IS_NULL, ABS, ARRAY_CONTAINS) on the partition key paths under AND and OR.
class RangeFinder {
 public:
  RangeFinder(const store::PartitionKeyDefinition& pk, const json::Value* params) : pk_(pk), params_(params) {}

  KeySet Extract(const Expr& e, const std::string& root) {
    if (IsConstant(e)) {
      auto c = Evaluate(e, params_);
      if (!c) return All();
      return c->is_true ? All() : None();
    }
    switch (e.kind) {
      case ExprKind::kBinary:
        if (e.binary_op == sql::BinaryOp::kAnd) return And(Extract(*e.args[0], root), Extract(*e.args[1], root));
        if (e.binary_op == sql::BinaryOp::kOr) return Or(Extract(*e.args[0], root), Extract(*e.args[1], root));
        if (e.binary_op == sql::BinaryOp::kEq) {
          for (int side = 0; side < 2; ++side) {
            const Expr& lhs = *e.args[side];
            const Expr& rhs = *e.args[1 - side];
            if (!IsConstant(rhs)) continue;
            if (auto path = PkPath(lhs, root)) return Equal(*path, rhs);
            if (lhs.kind == ExprKind::kCall && util::ToLower(lhs.name) == "abs" && lhs.args.size() == 1) {
              if (auto path = PkPath(*lhs.args[0], root)) return Absolute(*path, rhs);
            }
          }
        }
        break;
      case ExprKind::kIn: {
        auto path = PkPath(*e.args[0], root);
        if (e.negated || !path) break;
        KeySet out = None();
        for (size_t i = 1; i < e.args.size(); ++i) {
          if (!IsConstant(*e.args[i])) return All();
          out = Or(out, Equal(*path, *e.args[i]));
        }
        return out;
      }
      case ExprKind::kLike: {
        auto path = PkPath(*e.args[0], root);
        if (e.negated || !path || !IsConstant(*e.args[1])) break;
        auto pattern = Evaluate(*e.args[1], params_);
        if (!pattern || pattern->component.kind != PkComponent::Kind::kString) break;
        if (auto literal = LikeLiteral(pattern->component.text, e.escape)) {
          return Points(*path, {PkComponent::String(*literal)});
        }
        break;
      }
      case ExprKind::kMember:
      case ExprKind::kIndex:
        if (auto path = PkPath(e, root)) return Points(*path, {PkComponent::Bool(true)});
        break;
      case ExprKind::kUnary:
        if (e.unary_op == sql::UnaryOp::kNot) {
          if (auto path = PkPath(*e.args[0], root)) return Points(*path, {PkComponent::Bool(false)});
        }
        break;
      case ExprKind::kCall: {
        const std::string n = util::ToLower(e.name);
        if (n == "is_bool" && e.args.size() == 1) {
          if (auto path = PkPath(*e.args[0], root)) {
            return Points(*path, {PkComponent::Bool(false), PkComponent::Bool(true)});
          }
        } else if (n == "is_null" && e.args.size() == 1) {
          if (auto path = PkPath(*e.args[0], root)) return Points(*path, {PkComponent::Null()});
        } else if ((n == "array_contains" || n == "_try_array_contains") && e.args.size() >= 2) {
          auto path = PkPath(*e.args[1], root);
          if (!path || !IsConstant(*e.args[0])) break;
          if (e.args.size() > 2) {
            auto partial = Evaluate(*e.args[2], params_);
            if (!partial || !partial->defined || partial->component.kind != PkComponent::Kind::kFalse) break;
          }
          auto array = Evaluate(*e.args[0], params_);
          if (!array || !array->is_array) break;
          return Points(*path, array->elements);
        }
        break;
      }
      default:
        break;
    }
    return Subqueries(e, root);
  }

 private:
  // The partition key path index `e` reads (root.a.b or root["a"]["b"]), if any.
  std::optional<size_t> PkPath(const Expr& e, const std::string& root) const {
    std::vector<std::string> names;
    const Expr* cur = &e;
    while (cur->kind != ExprKind::kName) {
      if (cur->kind == ExprKind::kMember) {
        names.push_back(cur->name);
      } else if (cur->kind == ExprKind::kIndex && cur->args[1]->kind == ExprKind::kLiteral &&
                 cur->args[1]->literal.kind == sql::Literal::Kind::kString) {
        names.push_back(cur->args[1]->literal.text);
      } else {
        return std::nullopt;
      }
      cur = cur->args[0].get();
    }
    if (cur->name != root || names.empty()) return std::nullopt;
    std::reverse(names.begin(), names.end());
    for (size_t i = 0; i < pk_.parts.size(); ++i) {
      if (pk_.parts[i] == names) return i;
    }
    return std::nullopt;
  }

  KeySet Points(size_t path, const std::vector<PkComponent>& values) const {
    KeySet out = None();
    for (const auto& v : values) {
      Tuple t(pk_.parts.size());
      t[path] = v;
      AddTuple(out.tuples, std::move(t));
    }
    return out;
  }

  // path = constant. Arrays and objects are no key value: the service narrows them to undefined.
  KeySet Equal(size_t path, const Expr& value) const {
    auto c = Evaluate(value, params_);
    if (!c) return All();
    if (!c->defined) return None();
    return Points(path, {c->component});
  }

  // ABS(path) = n: the key is n or -n.
  KeySet Absolute(size_t path, const Expr& value) const {
    auto c = Evaluate(value, params_);
    if (!c) return All();
    if (!c->defined || c->component.kind != PkComponent::Kind::kNumber || c->component.number < 0) return None();
    return Points(path, {PkComponent::Number(-c->component.number), PkComponent::Number(c->component.number)});
  }

  // A LIKE pattern without wildcards, unescaped; nullopt when it has % or _.
  static std::optional<std::string> LikeLiteral(const std::string& pattern, const std::optional<std::string>& escape) {
    std::string out;
    for (size_t i = 0; i < pattern.size(); ++i) {
      const char c = pattern[i];
      if (escape && escape->size() == 1 && c == (*escape)[0] && i + 1 < pattern.size()) {
        out.push_back(pattern[++i]);
        continue;
      }
      if (c == '%' || c == '_' || c == '[') return std::nullopt;
      out.push_back(c);
    }
    return out;
  }

  // A filter the finder does not understand allows every key, but a scalar subquery inside it that
  // reads the same document still narrows the keys by its own WHERE clause.
  KeySet Subqueries(const Expr& e, const std::string& root) {
    KeySet out = All();
    if (e.kind == ExprKind::kSubquery && e.query) {
      const Query& sub = *e.query;
      if (sub.from.size() == 1 && sub.from[0].path && !sub.from[0].iterator &&
          sub.from[0].path->kind == ExprKind::kName && sub.from[0].path->name == root &&
          (!sub.from[0].alias || *sub.from[0].alias == root) && sub.where) {
        out = And(out, Extract(*sub.where, root));
      }
      return out;
    }
    for (const auto& a : e.args) out = And(out, Subqueries(*a, root));
    return out;
  }

  const store::PartitionKeyDefinition& pk_;
  const json::Value* params_;
};

// The EPK ranges of a key set under the container's partition key definition.
std::vector<EpkRange> ToRanges(const KeySet& keys, const store::PartitionKeyDefinition& pk) {
  const EpkRange full{std::string(store::kMinEpk), std::string(store::kMaxEpk), true, false};
  if (keys.all || pk.parts.empty()) return {full};
  if (keys.tuples.empty()) return {EpkRange{"", "", true, true}};
  std::vector<EpkRange> out;
  for (const auto& t : keys.tuples) {
    size_t prefix = 0;
    while (prefix < t.size() && t[prefix]) ++prefix;
    for (size_t i = prefix; i < t.size(); ++i) {
      if (t[i]) return {full};  // a gap in the key: no narrowing
    }
    std::vector<PkComponent> comps;
    for (size_t i = 0; i < prefix; ++i) comps.push_back(*t[i]);
    if (prefix == t.size()) {
      const std::string epk = store::EffectivePartitionKey(pk, comps);
      out.push_back({epk, epk, true, true});
    } else if (pk.kind == "MultiHash" && prefix > 0) {
      // A hierarchical key prefix: every full key under it sorts in [prefix, prefix + "FF").
      const std::string epk = store::EffectivePartitionKey(pk, comps);
      out.push_back({epk, epk + std::string(store::kMaxEpk), true, false});
    } else {
      return {full};
    }
  }
  std::sort(out.begin(), out.end(),
            [](const EpkRange& a, const EpkRange& b) { return a.min != b.min ? a.min < b.min : a.max < b.max; });
  out.erase(std::unique(out.begin(), out.end(),
                        [](const EpkRange& a, const EpkRange& b) {
                          return a.min == b.min && a.max == b.max && a.min_inclusive == b.min_inclusive &&
                                 a.max_inclusive == b.max_inclusive;
                        }),
            out.end());
  return out;
}

}  // namespace

std::vector<EpkRange> QueryRanges(const sql::Query& q, const json::Value* params,
                                  const store::PartitionKeyDefinition& pk) {
  if (q.from.empty()) return {EpkRange{"", "", true, true}};
  KeySet keys = All();
  const sql::FromItem& first = q.from.front();
  if (q.where && first.path && !first.iterator && first.path->kind == ExprKind::kName) {
    keys = RangeFinder(pk, params).Extract(*q.where, RootAlias(q));
  }
  return ToRanges(keys, pk);
}

namespace {

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
std::string HybridPlanJson(const Query& q, const json::Value* params, const store::PartitionKeyDefinition& pk,
                           const store::VectorPolicy* vectors, bool skip_order_by_rewrite) {
  if (q.group_by.size() || q.distinct)
    throw At(q.loc, "SC2240", "ORDER BY RANK cannot be combined with GROUP BY or DISTINCT.");
  if (q.select == sql::SelectKind::kValue ? ContainsAggregate(*q.value) : false)
    throw At(q.loc, "SC2240", "ORDER BY RANK cannot be combined with aggregates.");
  for (const auto& p : q.projections) {
    if (ContainsAggregate(*p.expr)) throw At(q.loc, "SC2240", "ORDER BY RANK cannot be combined with aggregates.");
  }
  std::optional<int64_t> top, offset, limit;
  if (q.top) top = ResolveCount(*q.top, params, "TOP");
  if (q.offset) offset = ResolveCount(*q.offset, params, "OFFSET");
  if (q.limit) limit = ResolveCount(*q.limit, params, "LIMIT");
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

  std::string out = "{\"partitionedQueryExecutionInfoVersion\":2,\"queryRanges\":[";
  const auto ranges = QueryRanges(q, params, pk);
  RangeList(out, ranges);
  out += "],\"hybridSearchQueryInfo\":{\"globalStatisticsQuery\":";
  std::vector<std::string> statistics;
  for (const auto& c : components) {
    if (!c.full_text) continue;
    const std::string path = sql::ToString(*c.call->args[0]);
    std::vector<std::string> hits;
    for (const Expr* t : SearchTerms(*c.call)) hits.push_back("COUNTIF(FullTextContains(" + path + ", " + sql::ToString(*t) + "))");
    statistics.push_back("{\"totalWordCount\": SUM(_FullTextWordCount(" + path + ")), \"hitCounts\": [" + Join(hits, ", ") + "]}");
  }
  Str(out, "SELECT COUNT(1) AS documentCount, [" + Join(statistics, ", ") + "] AS fullTextStatistics" +
               Clauses(q, std::string(), false, false, 0));
  out += ",\"componentQueryInfos\":[";
  for (size_t i = 0; i < components.size(); ++i) {
    const RankComponent& c = components[i];
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
    if (i) out += ',';
    out += "{\"distinctType\":\"None\",\"top\":";
    out += size && top ? std::to_string(*size) : "null";
    out += ",\"offset\":";
    out += size && !top ? "0" : "null";
    out += ",\"limit\":";
    out += size && !top ? std::to_string(*size) : "null";
    out += ",\"orderBy\":";
    StrList(out, skip_order_by_rewrite ? std::vector<std::string>{}
                                       : std::vector<std::string>{c.descending ? "Descending" : "Ascending"});
    out += ",\"orderByExpressions\":";
    StrList(out, skip_order_by_rewrite ? std::vector<std::string>{} : std::vector<std::string>{c.score});
    out += ",\"groupByExpressions\":[],\"groupByAliases\":[],\"aggregates\":[],\"groupByAliasToAggregateType\":{},"
           "\"rewrittenQuery\":";
    Str(out, text);
    out += ",\"hasSelectValue\":";
    out += q.select == sql::SelectKind::kValue ? "true" : "false";
    out += ",\"dCountInfo\":null,\"hasNonStreamingOrderBy\":";
    out += skip_order_by_rewrite ? "false" : "true";
    out += '}';
  }
  out += "],\"componentWithoutPayloadQueryInfos\":[],\"projectionQueryInfo\":null,\"componentWeights\":[";
  for (size_t i = 0; i < weights.size(); ++i) {
    if (i) out += ',';
    // Floating-point numbers, as the service writes them ("1.0"): the Java SDK reads the list as
    // doubles and fails on an integer (HybridSearchQueryInfo.getComponentWeights).
    const double w = std::fabs(weights[i]);
    out += sql::FormatNumber(w);
    if (std::isfinite(w) && w == std::floor(w) && std::fabs(w) < 1e15) out += ".0";
  }
  out += "]";
  if (offset) out += ",\"skip\":" + std::to_string(*offset);
  if (top || limit) out += ",\"take\":" + std::to_string(top ? *top : *limit);
  out += ",\"requiresGlobalStatistics\":";
  out += statistics.empty() ? "false" : "true";
  out += "}}";
  return out;
}

}  // namespace

std::string QueryPlanJson(const sql::Query& q, const json::Value* params, const store::PartitionKeyDefinition& pk,
                          const store::VectorPolicy* vectors, bool hybrid_skip_order_by_rewrite) {
  const sql::PlanNumberStyle plan_numbers;
  CheckQueryFunctions(q);
  CheckSubqueryClauses(q);
  if (q.order_by_rank) return HybridPlanJson(q, params, pk, vectors, hybrid_skip_order_by_rewrite);
  std::optional<int64_t> top, offset, limit;
  if (q.top) top = ResolveCount(*q.top, params, "TOP");
  if (q.offset) offset = ResolveCount(*q.offset, params, "OFFSET");
  if (q.limit) limit = ResolveCount(*q.limit, params, "LIMIT");

  const bool value_select = q.select == sql::SelectKind::kValue;
  const bool grouped = !q.group_by.empty();
  std::vector<std::string> group_texts;
  for (const auto& g : q.group_by) group_texts.push_back(sql::ToString(*g));
  if (grouped && q.select == sql::SelectKind::kStar) {
    throw At(q.loc, "SC2041", "'SELECT *' is not allowed with GROUP BY.");
  }
  bool list_aggregates = false;
  if (value_select) CheckAggregateProjection(*q.value);
  for (const auto& p : q.projections) {
    CheckAggregateProjection(*p.expr);
    list_aggregates = list_aggregates || AggregateOf(*p.expr).has_value();
  }
  if (grouped) {
    if (value_select) CheckGrouped(*q.value, group_texts);
  }
  if (grouped || list_aggregates) {
    for (const auto& p : q.projections) CheckGrouped(*p.expr, group_texts);
  }
  const std::optional<AggregateFn> value_kind = value_select ? AggregateOf(*q.value) : std::nullopt;
  const bool value_aggregate = value_kind.has_value();
  const AggregateFn value_agg = value_kind.value_or(AggregateFn::kCount);
  const bool aggregating = grouped || value_aggregate || list_aggregates;
  bool vector_order = false;  // ORDER BY VectorDistance: the SDK collects every range's top rows, then merges
  if (!aggregating) {
    for (const auto& s : q.order_by) {
      if (IsRankScore(*s.expr)) {
        vector_order = true;
        continue;
      }
      if (!IsDocumentPath(*s.expr)) {
        throw CosmosError(400, 0, "BadRequest",
                          "Message: {\"errors\":[{\"severity\":\"Error\",\"code\":2206,\"message\":\"Unsupported ORDER "
                          "BY clause. ORDER BY item expression could not be mapped to a document path.\"}]}");
      }
    }
  }

  // The ranges: no FROM reads nothing; otherwise the keys the WHERE clause allows.
  std::vector<EpkRange> ranges = QueryRanges(q, params, pk);
  const std::string root = RootAlias(q);
  const bool single_point = ranges.size() == 1 && !ranges[0].min.empty() && ranges[0].min == ranges[0].max;
  if (q.from.empty()) top = offset = limit = std::nullopt;

  // queryInfo.
  std::string distinct = "None";
  if (q.distinct) distinct = q.order_by.empty() || aggregating ? "Unordered" : "Ordered";
  std::vector<std::string> order_by, order_by_expressions, aggregates, aliases;
  std::vector<std::pair<std::string, std::optional<std::string>>> alias_types;
  const std::string where = q.where ? sql::ToString(*q.where) : std::string();
  std::string rewritten;

  if (aggregating) {
    // Per range: groups (or the one aggregate row) with their partial aggregates; the SDK merges.
    std::string payload;
    if (value_select) {
      if (value_aggregate) {
        aggregates.push_back(AggregateOperator(value_agg));
        payload = "[" + AggregateItem(*q.value, value_agg) + "]";
      } else {
        payload = sql::ToString(*q.value);
      }
    } else {
      const auto names = ProjectionNames(q);
      std::vector<std::string> members;
      for (size_t i = 0; i < q.projections.size(); ++i) {
        const Expr& e = *q.projections[i].expr;
        const auto kind = AggregateOf(e);
        aliases.push_back(names[i]);
        alias_types.emplace_back(names[i], kind ? std::optional<std::string>(AggregateOperator(*kind)) : std::nullopt);
        members.push_back(QuoteKey(names[i]) + ": " + (kind ? AggregateItem(e, *kind) : sql::ToString(e)));
      }
      payload = "{" + Join(members, ", ") + "}";
    }
    if (grouped) {
      std::vector<std::string> items;
      for (const auto& g : group_texts) items.push_back("{\"item\": " + g + "}");
      rewritten = "SELECT [" + Join(items, ", ") + "] AS groupByItems, " + payload + " AS payload";
    } else if (value_select) {
      rewritten = "SELECT VALUE " + payload;
    } else {
      rewritten = "SELECT " + payload + " AS payload";
    }
    rewritten += Clauses(q, where, true, true, 0);
  } else if (!q.order_by.empty()) {
    // Per range: the rows sorted, each with its sort keys and _rid; the SDK merges the ranges.
    std::vector<std::string> items;
    const std::string container_alias =
        !q.from.empty() && q.from.front().path && q.from.front().path->kind == ExprKind::kName ? root : std::string();
    for (const auto& s : q.order_by) {
      bool descending = s.descending;
      if (IsRankScore(*s.expr) && !s.explicit_direction && !IsVectorDistance(*s.expr)) descending = true;
      if (IsVectorDistance(*s.expr) && !s.explicit_direction)
        descending = VectorDistanceFunction(*s.expr, params, vectors, container_alias) != store::DistanceFunction::kEuclidean;
      order_by.push_back(descending ? "Descending" : "Ascending");
      order_by_expressions.push_back(sql::ToString(*s.expr));
      items.push_back("{\"item\": " + order_by_expressions.back() + "}");
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
    rewritten = "SELECT ";
    if (top && !q.distinct) rewritten += "TOP " + std::to_string(*top) + " ";
    rewritten += root + "._rid, [" + Join(items, ", ") + "] AS orderByItems, " + payload + " AS payload";
    rewritten += Clauses(q, filter, false, true, 0);
    if (offset && limit && !q.distinct) rewritten += "\nOFFSET 0 LIMIT " + std::to_string(*offset + *limit);
  } else if (offset && single_point && !q.distinct) {
    // One logical partition answers OFFSET/LIMIT itself.
    offset = limit = std::nullopt;
  } else if (q.distinct && (top || offset)) {
    // The SDK applies TOP/OFFSET/LIMIT after removing duplicates across the ranges.
    rewritten = SelectClause(q, true, false) + Clauses(q, where, true, true, 0);
  } else if (offset && limit) {
    // Every range returns its first offset + limit rows; the SDK skips and takes.
    rewritten = SelectClause(q, true, true) + Clauses(q, where, true, true, 0) + "\nOFFSET 0 LIMIT " +
                std::to_string(*offset + *limit);
  }

  std::string out = "{\"partitionedQueryExecutionInfoVersion\":2,\"queryInfo\":{\"distinctType\":";
  Str(out, distinct);
  out += ",\"top\":";
  Count(out, top);
  out += ",\"offset\":";
  Count(out, offset);
  out += ",\"limit\":";
  Count(out, limit);
  out += ",\"orderBy\":";
  StrList(out, order_by);
  out += ",\"orderByExpressions\":";
  StrList(out, order_by_expressions);
  out += ",\"groupByExpressions\":";
  StrList(out, group_texts);
  out += ",\"groupByAliases\":";
  StrList(out, aliases);
  out += ",\"aggregates\":";
  StrList(out, aggregates);
  out += ",\"groupByAliasToAggregateType\":{";
  for (size_t i = 0; i < alias_types.size(); ++i) {
    if (i) out += ',';
    Str(out, alias_types[i].first);
    out += ':';
    if (alias_types[i].second) {
      Str(out, *alias_types[i].second);
    } else {
      out += "null";
    }
  }
  out += "},\"rewrittenQuery\":";
  Str(out, rewritten);
  out += ",\"hasSelectValue\":";
  out += value_select ? "true" : "false";
  out += ",\"dCountInfo\":null,\"hasNonStreamingOrderBy\":";
  out += vector_order ? "true" : "false";
  out += "},\"queryRanges\":[";
  RangeList(out, ranges);
  out += "],\"hybridSearchQueryInfo\":null}";
  return out;
}

}  // namespace cosmos::query
