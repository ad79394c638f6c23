// AnalyzeIndexUse: which WHERE filters the index answers (rules in index_use.h).
#include "query/index_use.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/errors.h"
#include "store/order_key.h"

namespace cosmos::query {
namespace {

using Path = std::vector<std::string>;

// Alias chains are short; the guard only protects against a malformed plan.
constexpr int kMaxDepth = 64;

bool IsComparison(sql::BinaryOp op) {
  switch (op) {
    case sql::BinaryOp::kEq:
    case sql::BinaryOp::kNe:
    case sql::BinaryOp::kLt:
    case sql::BinaryOp::kLe:
    case sql::BinaryOp::kGt:
    case sql::BinaryOp::kGe: return true;
    default: return false;
  }
}

bool IsTypeCheck(std::string_view fn) {
  for (std::string_view name : {"IS_DEFINED", "IS_NULL", "IS_BOOL", "IS_NUMBER", "IS_STRING", "IS_ARRAY",
                                "IS_OBJECT", "IS_PRIMITIVE"}) {
    if (fn == name) return true;
  }
  return false;
}

bool IsSpatialMatch(std::string_view fn) { return fn == "ST_WITHIN" || fn == "ST_INTERSECTS"; }

bool IsStringMatch(std::string_view fn) {
  return fn == "STARTSWITH" || fn == "ENDSWITH" || fn == "CONTAINS" || fn == "StringEquals";
}

class Analyzer {
 public:
  Analyzer(const Plan& plan, const store::IndexingPolicy& policy) : plan_(plan), policy_(policy) {}

  // Index lookups of a usable predicate; nullopt when the index cannot answer it.
  std::optional<size_t> Usable(const Node& n) const {
    // Evaluated once before any lookup: no index needed, nothing narrowed.
    if (IsConstant(n)) return 0;
    switch (n.op) {
      case Node::Op::kAnd: {
        // A constant conjunct leaves the candidates to the other one.
        if (IsConstant(n.kids[0])) return Usable(n.kids[1]);
        if (IsConstant(n.kids[1])) return Usable(n.kids[0]);
        auto a = Usable(n.kids[0]);
        auto b = Usable(n.kids[1]);
        if (a && b) return std::max(*a, *b);
        return a ? a : b;
      }
      case Node::Op::kOr: {
        auto a = Usable(n.kids[0]);
        if (!a) return std::nullopt;
        auto b = Usable(n.kids[1]);
        if (!b) return std::nullopt;
        return *a + *b;
      }
      case Node::Op::kUnary:
        if (n.uop == sql::UnaryOp::kNot) return Usable(n.kids[0]);
        return std::nullopt;
      case Node::Op::kBinary:
        if (!IsComparison(n.bop)) return std::nullopt;
        if ((IndexedPath(n.kids[0]) && IsConstant(n.kids[1])) || (IsConstant(n.kids[0]) && IndexedPath(n.kids[1])))
          return 1;
        // ST_DISTANCE(path, constant) compared with a constant: the spatial index answers it.
        if ((SpatialDistance(n.kids[0]) && IsConstant(n.kids[1])) ||
            (IsConstant(n.kids[0]) && SpatialDistance(n.kids[1])))
          return 1;
        return std::nullopt;
      case Node::Op::kIn:
        if (!IndexedPath(n.kids[0]) || !ConstantFrom(n, 1)) return std::nullopt;
        return std::max<size_t>(1, n.kids.size() - 1);
      case Node::Op::kBetween:
        if (IndexedPath(n.kids[0]) && ConstantFrom(n, 1)) return 1;
        return std::nullopt;
      case Node::Op::kCall: {
        if (n.fn == nullptr || n.kids.empty()) return std::nullopt;
        const std::string_view fn = n.fn->name;
        if (IsTypeCheck(fn)) return IndexedPath(n.kids[0]) ? std::optional<size_t>(1) : std::nullopt;
        if (IsSpatialMatch(fn) && n.kids.size() == 2) {
          return SpatialArgs(n) ? std::optional<size_t>(1) : std::nullopt;
        }
        if (IsStringMatch(fn) && n.kids.size() >= 2) {
          return IndexedPath(n.kids[0]) && ConstantFrom(n, 1) ? std::optional<size_t>(1) : std::nullopt;
        }
        if (fn == "ARRAY_CONTAINS" && n.kids.size() >= 2) {
          // The index holds the array's elements (path/[]), not the array.
          auto p = PathOf(n.kids[0], -1, 0);
          if (!p || p->empty() || !ConstantFrom(n, 1)) return std::nullopt;
          p->push_back("[]");
          return policy_.IsIndexed(*p) ? std::optional<size_t>(1) : std::nullopt;
        }
        return std::nullopt;
      }
      case Node::Op::kVar:
      case Node::Op::kMember:
      case Node::Op::kIndex:
        // A bare boolean property.
        return IndexedPath(n) ? std::optional<size_t>(1) : std::nullopt;
      default: return std::nullopt;
    }
  }

  // The property path from the root document that `n` reads, or nullopt (see PathOf).
  std::optional<Path> DocumentPath(const Node& n) const { return PathOf(n, -1, 0); }

  // The exact path (names and array positions) from the root document that `n` reads, when the
  // policy indexes it; nullopt for anything else (an alias that iterates an array stands for many
  // values, not one).
  std::optional<store::DocPath> IndexedDocPath(const Node& n) const {
    auto p = StepsOf(n, -1, 0);
    if (!p || p->empty()) return std::nullopt;
    Path names;
    for (const auto& step : *p) names.push_back(step.index >= 0 ? "[]" : step.name);
    if (!policy_.IsIndexed(names)) return std::nullopt;
    return p;
  }

  // The exact path from the root document that `n` reads (nullopt through an iterating alias).
  std::optional<store::DocPath> ExactPath(const Node& n) const {
    auto p = StepsOf(n, -1, 0);
    if (!p || p->empty()) return std::nullopt;
    return p;
  }

  // A constant the executor may evaluate once, before reading documents: no RAND (a new value per
  // row) and no user-defined function (JavaScript run for nothing when no document exists).
  bool IsEvaluableConstant(const Node& n) const {
    if (!IsConstant(n)) return false;
    if (n.op == Node::Op::kUdf) return false;
    if (n.op == Node::Op::kCall && n.fn != nullptr && std::string_view(n.fn->name) == "RAND") return false;
    for (const auto& k : n.kids) {
      if (!IsEvaluableConstant(k)) return false;
    }
    return true;
  }

  // Known before the query reads a document: literals, parameters and expressions of them only.
  bool IsConstant(const Node& n) const {
    switch (n.op) {
      case Node::Op::kConst: return true;
      case Node::Op::kVar:
      case Node::Op::kAggregate:
      case Node::Op::kSubquery:
      case Node::Op::kExists:
      case Node::Op::kArraySubquery: return false;
      default: return ConstantFrom(n, 0);
    }
  }

 private:
  // A document path a spatial index covers.
  bool SpatialPath(const Node& n) const {
    auto p = PathOf(n, -1, 0);
    return p && !p->empty() && policy_.IsSpatiallyIndexed(*p);
  }

  // A two-argument spatial call of a spatially indexed path and a constant, in either order.
  bool SpatialArgs(const Node& n) const {
    return (SpatialPath(n.kids[0]) && IsConstant(n.kids[1])) || (IsConstant(n.kids[0]) && SpatialPath(n.kids[1]));
  }

  bool SpatialDistance(const Node& n) const {
    return n.op == Node::Op::kCall && n.fn != nullptr && n.fn->name == std::string_view("ST_DISTANCE") &&
           n.kids.size() == 2 && SpatialArgs(n);
  }

  // A document path the policy indexes.
  bool IndexedPath(const Node& n) const {
    auto p = PathOf(n, -1, 0);
    return p && !p->empty() && policy_.IsIndexed(*p);
  }

  // kids[from..] are all constants.
  bool ConstantFrom(const Node& n, size_t from) const {
    for (size_t i = from; i < n.kids.size(); ++i) {
      if (!IsConstant(n.kids[i])) return false;
    }
    return true;
  }

  const Source* SourceOf(int slot) const {
    for (const auto& s : plan_.sources) {
      if (s.slot == slot) return &s;
    }
    return nullptr;
  }

  // The property path from the root document that `n` reads ("[]" for array elements), or nullopt
  // when `n` is not a document path. `self` is the slot that stands for the root document while a
  // container source's own path is resolved (it is bound over the source's slot).
  std::optional<Path> PathOf(const Node& n, int self, int depth) const {
    if (depth > kMaxDepth) return std::nullopt;
    switch (n.op) {
      case Node::Op::kVar: {
        if (n.slot == self) return Path{};
        const Source* src = SourceOf(n.slot);
        if (src == nullptr) return std::nullopt;
        switch (src->kind) {
          case Source::Kind::kContainer: return Path{};
          case Source::Kind::kContainerPath: return PathOf(src->expr, src->slot, depth + 1);
          case Source::Kind::kIterate: {
            auto p = PathOf(src->expr, src->iterate_container ? src->slot : -1, depth + 1);
            if (p) p->push_back("[]");
            return p;
          }
          case Source::Kind::kValue: return PathOf(src->expr, -1, depth + 1);
          case Source::Kind::kSubquery: return std::nullopt;
        }
        return std::nullopt;
      }
      case Node::Op::kMember: {
        auto p = PathOf(n.kids[0], self, depth + 1);
        if (p) p->push_back(n.name);
        return p;
      }
      case Node::Op::kIndex: {
        const Node& key = n.kids[1];
        if (key.op != Node::Op::kConst) return std::nullopt;
        std::string seg;
        if (key.constant.IsString()) {
          seg = std::string(key.constant.AsString());
        } else if (key.constant.IsInteger() && (!key.constant.json().IsInt64() || key.constant.AsInt64() >= 0)) {
          seg = "[]";
        } else {
          return std::nullopt;
        }
        auto p = PathOf(n.kids[0], self, depth + 1);
        if (p) p->push_back(std::move(seg));
        return p;
      }
      default: return std::nullopt;
    }
  }

  // As PathOf, with the steps kept exact; nullopt through an iterating alias or a subquery.
  std::optional<store::DocPath> StepsOf(const Node& n, int self, int depth) const {
    if (depth > kMaxDepth) return std::nullopt;
    switch (n.op) {
      case Node::Op::kVar: {
        if (n.slot == self) return store::DocPath{};
        const Source* src = SourceOf(n.slot);
        if (src == nullptr) return std::nullopt;
        switch (src->kind) {
          case Source::Kind::kContainer: return store::DocPath{};
          case Source::Kind::kContainerPath: return StepsOf(src->expr, src->slot, depth + 1);
          case Source::Kind::kValue: return StepsOf(src->expr, -1, depth + 1);
          default: return std::nullopt;
        }
      }
      case Node::Op::kMember: {
        auto p = StepsOf(n.kids[0], self, depth + 1);
        if (p) p->push_back({n.name, -1});
        return p;
      }
      case Node::Op::kIndex: {
        const Node& key = n.kids[1];
        if (key.op != Node::Op::kConst) return std::nullopt;
        store::PathStep step;
        if (key.constant.IsString()) {
          step.name = std::string(key.constant.AsString());
        } else if (key.constant.IsNumber() && key.constant.AsNumber() >= 0 &&
                   key.constant.AsNumber() == std::floor(key.constant.AsNumber()) &&
                   key.constant.AsNumber() < 4294967296.0) {
          step.index = static_cast<int64_t>(key.constant.AsNumber());
        } else {
          return std::nullopt;
        }
        auto p = StepsOf(n.kids[0], self, depth + 1);
        if (p) p->push_back(std::move(step));
        return p;
      }
      default: return std::nullopt;
    }
  }

  const Plan& plan_;
  const store::IndexingPolicy& policy_;
};

using store::KeyRange;
using store::OrderTag;
using store::TagKey;

// The tag range [first, last] of a scalar's type for the comparison operators (which compare only
// two numbers, two strings or two booleans).
std::optional<std::pair<OrderTag, OrderTag>> ComparableTags(Val v) {
  if (v.IsNumber()) return std::pair{OrderTag::kNumber, OrderTag::kNumber};
  if (v.IsString()) return std::pair{OrderTag::kString, OrderTag::kString};
  if (v.IsBool()) return std::pair{OrderTag::kFalse, OrderTag::kTrue};
  return std::nullopt;
}

std::string AfterTag(OrderTag t) { return TagKey(static_cast<OrderTag>(static_cast<uint8_t>(t) + 1)); }

// A constant the index can look up: a scalar, and no NaN (which equals and orders with nothing).
bool Scalar(Val v) {
  if (v.IsNumber()) return !std::isnan(v.AsNumber());
  return v.IsNull() || v.IsBool() || v.IsString();
}

std::string Key(Val v) { return store::OrderKey(v.ptr()); }

// Numbers from 2^53 up compare as doubles against doubles but exactly against integers, which an
// order key cannot both do: their bounds keep only the double's part of the key (the tag and 8
// bytes), so that the ranges find every number of that double value (more than match, never fewer).
constexpr size_t kDoublePart = 9;
bool Big(Val v) { return v.IsNumber() && std::fabs(v.AsNumber()) >= 9007199254740992.0; }
std::string LowKey(Val v) {
  std::string k = Key(v);
  if (Big(v)) k.resize(kDoublePart);
  return k;
}
std::string HighKey(Val v) {
  std::string k = Key(v);
  if (Big(v)) {
    k.resize(kDoublePart);
    k.push_back('\xFF');
  }
  return k;
}
KeyRange PointRange(Val v) { return Big(v) ? KeyRange::Prefix(LowKey(v)) : KeyRange::Point(Key(v)); }

// The ranges of `path op constant`.
std::optional<std::vector<KeyRange>> CompareRanges(sql::BinaryOp op, Val c) {
  if (c.IsUndefined()) return std::vector<KeyRange>{};  // compares with nothing
  if (!Scalar(c)) {
    // NaN: left to the documents' evaluation; arrays and objects: deep equality is no key, and
    // they do not order.
    if (c.IsNumber() || op == sql::BinaryOp::kEq) return std::nullopt;
    return std::vector<KeyRange>{};
  }
  if (op == sql::BinaryOp::kEq) return std::vector<KeyRange>{PointRange(c)};
  auto tags = ComparableTags(c);
  if (!tags) return std::vector<KeyRange>{};  // null does not order
  KeyRange r;
  switch (op) {
    case sql::BinaryOp::kLt:
    case sql::BinaryOp::kLe:
      r.lo = TagKey(tags->first);
      r.hi = HighKey(c);
      r.hi_inclusive = op == sql::BinaryOp::kLe || Big(c);
      break;
    case sql::BinaryOp::kGt:
    case sql::BinaryOp::kGe:
      r.lo = LowKey(c);
      r.lo_inclusive = op == sql::BinaryOp::kGe || Big(c);
      r.hi = AfterTag(tags->second);
      r.hi_inclusive = false;
      break;
    default: return std::nullopt;
  }
  return std::vector<KeyRange>{r};
}

sql::BinaryOp Flip(sql::BinaryOp op) {
  switch (op) {
    case sql::BinaryOp::kLt: return sql::BinaryOp::kGt;
    case sql::BinaryOp::kLe: return sql::BinaryOp::kGe;
    case sql::BinaryOp::kGt: return sql::BinaryOp::kLt;
    case sql::BinaryOp::kGe: return sql::BinaryOp::kLe;
    default: return op;
  }
}

// The tags a type check accepts (IS_DEFINED: every one but undefined).
std::optional<std::vector<std::pair<OrderTag, OrderTag>>> TypeCheckTags(std::string_view fn) {
  using P = std::pair<OrderTag, OrderTag>;
  if (fn == "IS_DEFINED") return std::vector<P>{{OrderTag::kNull, OrderTag::kObject}};
  if (fn == "IS_NULL") return std::vector<P>{{OrderTag::kNull, OrderTag::kNull}};
  if (fn == "IS_BOOL") return std::vector<P>{{OrderTag::kFalse, OrderTag::kTrue}};
  if (fn == "IS_NUMBER") return std::vector<P>{{OrderTag::kNumber, OrderTag::kNumber}};
  if (fn == "IS_STRING") return std::vector<P>{{OrderTag::kString, OrderTag::kString}};
  if (fn == "IS_ARRAY") return std::vector<P>{{OrderTag::kArray, OrderTag::kArray}};
  if (fn == "IS_OBJECT") return std::vector<P>{{OrderTag::kObject, OrderTag::kObject}};
  if (fn == "IS_PRIMITIVE") return std::vector<P>{{OrderTag::kNull, OrderTag::kString}};
  return std::nullopt;
}

std::vector<KeyRange> TagRanges(const std::vector<std::pair<OrderTag, OrderTag>>& tags) {
  std::vector<KeyRange> out;
  for (const auto& [first, last] : tags) out.push_back({TagKey(first), true, AfterTag(last), false, false});
  return out;
}

// The tags a type check refuses (its NOT).
std::vector<std::pair<OrderTag, OrderTag>> Complement(const std::vector<std::pair<OrderTag, OrderTag>>& tags) {
  std::vector<std::pair<OrderTag, OrderTag>> out;
  uint8_t next = static_cast<uint8_t>(OrderTag::kUndefined);
  for (const auto& [first, last] : tags) {
    if (static_cast<uint8_t>(first) > next) out.push_back({static_cast<OrderTag>(next), static_cast<OrderTag>(static_cast<uint8_t>(first) - 1)});
    next = static_cast<uint8_t>(last) + 1;
  }
  if (next <= static_cast<uint8_t>(OrderTag::kObject)) out.push_back({static_cast<OrderTag>(next), OrderTag::kObject});
  return out;
}

class LookupChooser {
 public:
  LookupChooser(const Analyzer& a, EvalContext& cx) : a_(a), cx_(cx) {}

  // The best lookup among the conjuncts of `n`.
  std::optional<IndexLookup> Best(const Node& n, int depth = 0) {
    if (depth > kMaxDepth) return std::nullopt;
    if (n.op == Node::Op::kAnd) {
      auto l = Best(n.kids[0], depth + 1);
      auto r = Best(n.kids[1], depth + 1);
      if (l && r) return r->rank < l->rank ? r : l;
      return l ? l : r;
    }
    return One(n, depth);
  }

  // Every lookup the conjuncts of `n` offer over `path`.
  void All(const Node& n, const store::DocPath& path, std::vector<IndexLookup>& out, int depth = 0) {
    if (depth > kMaxDepth) return;
    if (n.op == Node::Op::kAnd) {
      All(n.kids[0], path, out, depth + 1);
      All(n.kids[1], path, out, depth + 1);
      return;
    }
    if (auto one = One(n, depth); one && one->path == path) out.push_back(std::move(*one));
  }

 private:
  std::optional<Val> Const(const Node& n) {
    if (!a_.IsEvaluableConstant(n)) return std::nullopt;
    try {
      return Eval(n, cx_);
    } catch (...) {
      return std::nullopt;  // the documents' evaluation reports it, if any document is read
    }
  }

  std::optional<IndexLookup> Make(const Node& path, std::optional<std::vector<KeyRange>> ranges, int rank) {
    if (!ranges) return std::nullopt;
    auto p = a_.IndexedDocPath(path);
    if (!p) return std::nullopt;
    IndexLookup l{std::move(*p), std::move(*ranges), rank};
    l.exact = !widened_;
    return l;
  }

  std::optional<IndexLookup> One(const Node& n, int depth) {
    widened_ = false;
    switch (n.op) {
      case Node::Op::kBinary: {
        if (!IsComparison(n.bop) || n.bop == sql::BinaryOp::kNe) return std::nullopt;
        const int rank = n.bop == sql::BinaryOp::kEq ? 1 : 3;
        if (auto c = Const(n.kids[1])) {
          widened_ = Big(*c);
          if (auto l = Make(n.kids[0], CompareRanges(n.bop, *c), rank)) return l;
        }
        if (auto c = Const(n.kids[0])) {
          widened_ = Big(*c);
          return Make(n.kids[1], CompareRanges(Flip(n.bop), *c), rank);
        }
        return std::nullopt;
      }
      case Node::Op::kIn: {
        if (n.negated) return std::nullopt;
        std::vector<KeyRange> ranges;
        for (size_t i = 1; i < n.kids.size(); ++i) {
          auto c = Const(n.kids[i]);
          if (!c) return std::nullopt;
          if (c->IsUndefined()) continue;
          if (!Scalar(*c)) return std::nullopt;
          ranges.push_back(PointRange(*c));
          if (Big(*c)) widened_ = true;
        }
        std::sort(ranges.begin(), ranges.end(), [](const KeyRange& x, const KeyRange& y) { return x.lo < y.lo; });
        ranges.erase(std::unique(ranges.begin(), ranges.end(), [](const KeyRange& x, const KeyRange& y) { return x.lo == y.lo; }),
                     ranges.end());
        return Make(n.kids[0], std::move(ranges), 1);
      }
      case Node::Op::kBetween: {
        if (n.negated) return std::nullopt;
        auto lo = Const(n.kids[1]);
        auto hi = Const(n.kids[2]);
        if (!lo || !hi) return std::nullopt;
        const bool nan = (lo->IsNumber() && std::isnan(lo->AsNumber())) || (hi->IsNumber() && std::isnan(hi->AsNumber()));
        if (nan) return std::nullopt;
        auto tl = ComparableTags(*lo), th = ComparableTags(*hi);
        // Both ends must compare with the value (same type): otherwise nothing matches.
        if (!tl || !th || *tl != *th) return Make(n.kids[0], std::vector<KeyRange>{}, 2);
        if (Big(*lo) || Big(*hi)) widened_ = true;
        return Make(n.kids[0], std::vector<KeyRange>{{LowKey(*lo), true, HighKey(*hi), true, false}}, 2);
      }
      case Node::Op::kCall: {
        if (n.fn == nullptr || n.kids.empty()) return std::nullopt;
        const std::string_view fn = n.fn->name;
        if (auto tags = TypeCheckTags(fn); tags && n.kids.size() == 1) return Make(n.kids[0], TagRanges(*tags), 4);
        if (fn == "STARTSWITH" && (n.kids.size() == 2 || n.kids.size() == 3)) {
          auto prefix = Const(n.kids[1]);
          if (!prefix) return std::nullopt;
          if (n.kids.size() == 3) {
            auto ignore_case = Const(n.kids[2]);
            if (!ignore_case || !ignore_case->IsBool() || ignore_case->AsBool()) return std::nullopt;
          }
          if (!prefix->IsString()) return Make(n.kids[0], std::vector<KeyRange>{}, 3);
          return Make(n.kids[0], std::vector<KeyRange>{KeyRange::Prefix(store::StringPrefixKey(prefix->AsString()))}, 3);
        }
        return std::nullopt;
      }
      case Node::Op::kUnary: {
        if (n.uop != sql::UnaryOp::kNot) return std::nullopt;
        const Node& k = n.kids[0];
        if (k.op != Node::Op::kCall || k.fn == nullptr || k.kids.size() != 1) return std::nullopt;
        auto tags = TypeCheckTags(k.fn->name);
        if (!tags) return std::nullopt;
        return Make(k.kids[0], TagRanges(Complement(*tags)), 5);
      }
      case Node::Op::kOr: {
        auto l = One(n.kids[0], depth + 1);
        auto r = l ? One(n.kids[1], depth + 1) : std::nullopt;
        if (!l || !r || l->path != r->path) return std::nullopt;
        l->ranges.insert(l->ranges.end(), r->ranges.begin(), r->ranges.end());
        l->rank = std::max(l->rank, r->rank);
        l->disjoint = false;
        l->exact = l->exact && r->exact;
        return l;  // overlapping ranges find an item twice: the lookup removes the duplicates
      }
      case Node::Op::kVar:
      case Node::Op::kMember:
      case Node::Op::kIndex:
        return Make(n, std::vector<KeyRange>{KeyRange::Point(TagKey(OrderTag::kTrue))}, 4);
      default: return std::nullopt;
    }
  }

  const Analyzer& a_;
  EvalContext& cx_;
  bool widened_ = false;  // the lookup being made finds more than its conjunct matches
};

}  // namespace

std::optional<IndexLookup> ChooseIndexLookup(const Plan& plan, const store::IndexingPolicy& policy,
                                             EvalContext& cx) {
  if (!plan.where || plan.sources.empty() || policy.mode == "none") return std::nullopt;
  Analyzer analyzer(plan, policy);
  if (analyzer.IsConstant(*plan.where)) return std::nullopt;
  auto lookup = LookupChooser(analyzer, cx).Best(*plan.where);
  if (lookup) lookup->whole = lookup->exact && plan.where->op != Node::Op::kAnd;
  return lookup;
}

std::vector<IndexLookup> IndexLookupsOn(const Plan& plan, const store::IndexingPolicy& policy, EvalContext& cx,
                                        const store::DocPath& path) {
  std::vector<IndexLookup> out;
  if (!plan.where || plan.sources.empty() || policy.mode == "none") return out;
  Analyzer analyzer(plan, policy);
  if (analyzer.IsConstant(*plan.where)) return out;
  LookupChooser(analyzer, cx).All(*plan.where, path, out);
  return out;
}

std::optional<store::DocPath> IndexedPathOf(const Plan& plan, const store::IndexingPolicy& policy, const Node& n) {
  if (policy.mode == "none") return std::nullopt;
  return Analyzer(plan, policy).IndexedDocPath(n);
}

std::optional<store::DocPath> DocumentPathOf(const Plan& plan, const Node& n) {
  static const store::IndexingPolicy kNoPolicy;
  return Analyzer(plan, kNoPolicy).ExactPath(n);
}

std::optional<VectorOrder> VectorOrderOf(const Plan& plan) {
  if (plan.order_by.empty()) return std::nullopt;
  const Node& call = plan.order_by.front().expr;
  if (call.op != Node::Op::kCall || call.fn == nullptr || call.kids.size() < 2 ||
      (std::string_view(call.fn->name) != "VectorDistance" && std::string_view(call.fn->name) != "_VectorScore"))
    return std::nullopt;
  std::optional<VectorOrder> found;
  for (int side = 0; side < 2; ++side) {
    auto path = DocumentPathOf(plan, call.kids[side]);
    if (!path) continue;
    const bool constant = IsEvaluableConstant(plan, call.kids[1 - side]);
    if (!found || constant) found = VectorOrder{&call, std::move(*path), &call.kids[1 - side]};
    if (constant) break;
  }
  return found;
}

bool IsEvaluableConstant(const Plan& plan, const Node& n) {
  static const store::IndexingPolicy kNoPolicy;
  return Analyzer(plan, kNoPolicy).IsEvaluableConstant(n);
}

IndexUse AnalyzeIndexUse(const Plan& plan, const store::IndexingPolicy& policy) {
  Analyzer analyzer(plan, policy);
  const bool filtered = plan.where && !analyzer.IsConstant(*plan.where);
  if (policy.mode == "none") {
    // Nothing is indexed: a filter or an aggregate reads every document.
    if (filtered || (plan.aggregate_query && !plan.sources.empty())) return {false, 1};
    return {};
  }
  if (!filtered) return {};
  auto lookups = analyzer.Usable(*plan.where);
  if (!lookups) return {false, 1};
  return {true, std::max<size_t>(1, *lookups)};
}

std::optional<store::IndexColumns> OrderByIndexColumns(const Plan& plan, const store::IndexingPolicy& policy) {
  if (plan.order_by.empty() || plan.sources.empty() || policy.mode == "none") return std::nullopt;
  Analyzer analyzer(plan, policy);
  store::IndexColumns columns;
  std::vector<Path> names;
  std::vector<bool> descending;
  for (const auto& key : plan.order_by) {
    auto path = analyzer.IndexedDocPath(key.expr);
    if (!path) return std::nullopt;
    if (plan.order_by.size() > 1) {
      // A computed property has its own index, which no composite index of document paths holds.
      auto name = analyzer.DocumentPath(key.expr);
      if (!key.computed.empty() || !name || name->empty()) return std::nullopt;
      names.push_back(std::move(*name));
      descending.push_back(key.descending);
    }
    columns.push_back(store::IndexColumn{std::move(*path), key.descending});
  }
  if (columns.size() > 1 && !policy.HasCompositeFor(names, descending)) return std::nullopt;
  return columns;
}

void CheckIndexSupport(const Plan& plan, const store::IndexingPolicy& policy, bool scan_allowed) {
  if (plan.sources.empty()) return;
  Analyzer analyzer(plan, policy);
  if (policy.mode == "none" && plan.where && !analyzer.IsConstant(*plan.where) && !scan_allowed) {
    throw errors::BadRequest(
        "An invalid query has been specified with filters against path(s) excluded from indexing. Consider adding "
        "allow scan header in the request.");
  }
  if (plan.order_by.empty()) return;
  std::vector<Path> paths;
  std::vector<bool> descending;
  for (const auto& key : plan.order_by) {
    // A computed property orders by its own path, which only an included path naming it indexes
    // (the root's /* does not cover computed properties).
    auto p = key.computed.empty() ? analyzer.DocumentPath(key.expr) : std::optional<Path>(Path{key.computed});
    if (!p || p->empty()) return;
    paths.push_back(std::move(*p));
    descending.push_back(key.descending);
  }
  const auto excluded = [] {
    return errors::BadRequest("The index path corresponding to the specified order-by item is excluded.");
  };
  if (paths.size() == 1) {
    if (!policy.IsIndexed(paths[0])) throw excluded();
    if (!plan.order_by[0].computed.empty() &&
        std::none_of(policy.included.begin(), policy.included.end(),
                     [&](const std::vector<std::string>& inc) { return !inc.empty() && inc[0] == paths[0][0]; }))
      throw excluded();
    return;
  }
  if (policy.mode == "none") throw excluded();
  // An aggregate without GROUP BY answers one value, which no order changes: the service runs it
  // without a composite index for its ORDER BY items (the JS SDK's aggregate query test expects
  // `SELECT VALUE AVG(r.key) ... ORDER BY r.key, r.field` to answer the average).
  if (plan.aggregate_query) return;
  if (!policy.HasCompositeFor(paths, descending)) {
    throw errors::BadRequest(
        "The order by query does not have a corresponding composite index that it can be served from.");
  }
}

}  // namespace cosmos::query
