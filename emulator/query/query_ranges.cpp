// The query ranges: the effective partition key ranges a query can touch, from the equalities (and
// IN, LIKE without wildcards, ...) its WHERE clause sets on the partition key paths under AND and
// OR, with the constant expressions they compare against evaluated by the query engine.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>

#include "common/errors.h"
#include "query/eval.h"
#include "query/functions/function.h"
#include "query/plan.h"
#include "query/query_plan.h"
#include "query/query_plan_internal.h"
#include "query/rules.h"
#include "sqlparser/printer.h"
#include "store/epk.h"
#include "util/util.h"

namespace cosmos::query {

namespace detail {

// The alias the first FROM source binds (the document variable of the query).
std::string RootAlias(const sql::Query& q) {
  if (q.from.empty()) return {};
  const sql::FromItem& f = q.from.front();
  if (f.alias) return *f.alias;
  if (!f.path) return {};
  const sql::Expr& p = *f.path;
  if (p.kind == sql::ExprKind::kName || p.kind == sql::ExprKind::kMember) return p.name;
  if (p.kind == sql::ExprKind::kIndex && p.args[1]->kind == sql::ExprKind::kLiteral) return p.args[1]->literal.text;
  return {};
}

}  // namespace detail

namespace {

using sql::Expr;
using sql::ExprKind;
using sql::Query;
using store::PkComponent;
using namespace rules;

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
// nothing). Undefined results come back with defined = false. `geometry`: the spatial functions are
// planar (the container's geospatialConfig type is Geometry).
std::optional<ConstantValue> Evaluate(const Expr& e, const json::Value* params, bool geometry) {
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
    EvalContext cx{arena, FunctionContext{arena, 0, nullptr, geometry}, std::vector<Val>(static_cast<size_t>(plan->slot_count)), nullptr, nullptr};
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
  RangeFinder(const store::PartitionKeyDefinition& pk, const json::Value* params, bool geometry)
      : pk_(pk), params_(params), geometry_(geometry) {}

  KeySet Extract(const Expr& e, const std::string& root) {
    if (IsConstant(e)) {
      auto c = Evaluate(e, params_, geometry_);
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
        auto pattern = Evaluate(*e.args[1], params_, geometry_);
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
            auto partial = Evaluate(*e.args[2], params_, geometry_);
            if (!partial || !partial->defined || partial->component.kind != PkComponent::Kind::kFalse) break;
          }
          auto array = Evaluate(*e.args[0], params_, geometry_);
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
    auto c = Evaluate(value, params_, geometry_);
    if (!c) return All();
    if (!c->defined) return None();
    return Points(path, {c->component});
  }

  // ABS(path) = n: the key is n or -n.
  KeySet Absolute(size_t path, const Expr& value) const {
    auto c = Evaluate(value, params_, geometry_);
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
  const bool geometry_;
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
                                  const store::PartitionKeyDefinition& pk, bool geometry) {
  if (q.from.empty()) return {EpkRange{"", "", true, true}};
  KeySet keys = All();
  const sql::FromItem& first = q.from.front();
  if (q.where && first.path && !first.iterator && first.path->kind == ExprKind::kName) {
    keys = RangeFinder(pk, params, geometry).Extract(*q.where, detail::RootAlias(q));
  }
  return ToRanges(keys, pk);
}

}  // namespace cosmos::query
