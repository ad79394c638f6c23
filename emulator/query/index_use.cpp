// AnalyzeIndexUse: which WHERE filters the index answers (rules in index_use.h).
#include "query/index_use.h"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/errors.h"

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

  const Plan& plan_;
  const store::IndexingPolicy& policy_;
};

}  // namespace

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
    auto p = analyzer.DocumentPath(key.expr);
    if (!p || p->empty()) return;
    paths.push_back(std::move(*p));
    descending.push_back(key.descending);
  }
  const auto excluded = [] {
    return errors::BadRequest("The index path corresponding to the specified order-by item is excluded.");
  };
  if (paths.size() == 1) {
    if (!policy.IsIndexed(paths[0])) throw excluded();
    return;
  }
  if (policy.mode == "none") throw excluded();
  if (!policy.HasCompositeFor(paths, descending)) {
    throw errors::BadRequest(
        "The order by query does not have a corresponding composite index that it can be served from.");
  }
}

}  // namespace cosmos::query
