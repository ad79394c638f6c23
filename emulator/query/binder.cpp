// Bind: resolves the names of a parsed query against its FROM aliases, functions against the
// registry, parameters against the request, and aggregates to accumulator slots.
#include <algorithm>
#include <limits>
#include <unordered_set>

#include "common/errors.h"
#include "query/plan.h"
#include "query/rules.h"
#include "util/text_analysis.h"
#include "util/util.h"

namespace cosmos::query {

namespace {

using sql::Expr;
using sql::ExprKind;
using rules::At;

// The executor's accumulator for an aggregate call.
std::optional<Agg> ExecutableAggregate(const Expr& e) {
  const auto fn = rules::AggregateOf(e);
  if (!fn) return std::nullopt;
  switch (*fn) {
    case rules::AggregateFn::kCount: return Agg::kCount;
    case rules::AggregateFn::kSum: return Agg::kSum;
    case rules::AggregateFn::kAvg: return Agg::kAvg;
    case rules::AggregateFn::kMin: return Agg::kMin;
    case rules::AggregateFn::kMax: return Agg::kMax;
    case rules::AggregateFn::kMakeList: return Agg::kMakeList;
    case rules::AggregateFn::kMakeSet: return Agg::kMakeSet;
    case rules::AggregateFn::kCountIf: return Agg::kCountIf;
  }
  return std::nullopt;
}

class Binder {
 public:
  Binder(const json::Value* params, Arena& arena, const BindContext& container)
      : params_(params),
        arena_(arena),
        udfs_(container.udfs),
        vectors_(container.vectors),
        full_text_(container.full_text),
        computed_(container.computed != nullptr && !container.computed->list.empty() ? container.computed : nullptr) {}

  std::shared_ptr<Plan> BindQuery(const sql::Query& q, bool top_level);
  int slot_count() const { return next_slot_; }

 private:
  struct Scope {
    std::vector<std::pair<std::string, int>> names;  // alias -> slot
  };
  enum class Clause { kSelect, kOther, kGroupBy };

  Node BindExpr(const Expr& e);
  Node Constant(Val v) {
    Node n;
    n.op = Node::Op::kConst;
    n.constant = v;
    return n;
  }
  Val Parameter(const std::string& name, const sql::Location& loc);
  std::optional<int> Resolve(const std::string& name) const;
  // True when `e` reads nothing of a row: no FROM alias, subquery, user-defined function or aggregate.
  bool IsConstant(const Expr& e) const;
  Source BindFrom(const sql::FromItem& item, bool first, bool top_level, int slot);
  Node BindPath(const Expr& path, int root_slot);
  // A computed property `c.name` (or c["name"]) of a document read FROM the container: its
  // expression bound with its own alias standing for that document; nullopt for anything else.
  std::optional<Node> BindComputed(const Expr& e);
  // The computed property `e` names that way, or null.
  const store::ComputedProperty* ComputedOf(const Expr& e) const;
  void BindVectorDistance(const Expr& e, Node& n);
  void BindFullText(const Expr& e, Node& n);

  const json::Value* params_;
  Arena& arena_;
  const Udfs* udfs_;
  const store::VectorPolicy* vectors_;
  const store::FullTextPolicy* full_text_;
  const store::ComputedProperties* computed_;  // null: none (or while one's expression is bound)
  std::vector<int> container_slots_;  // slots that hold the container's documents (FROM c)
  std::vector<Scope> scopes_;
  int next_slot_ = 0;
  Plan* plan_ = nullptr;  // the query whose SELECT is being bound (owner of aggregates)
  Clause clause_ = Clause::kOther;
};

std::optional<int> Binder::Resolve(const std::string& name) const {
  for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
    for (const auto& [alias, slot] : s->names) {
      if (alias == name) return slot;
    }
  }
  return std::nullopt;
}

Val Binder::Parameter(const std::string& name, const sql::Location& loc) {
  auto v = rules::FindParameter(params_, name);
  if (!v) throw At(loc, "SC2001", "Identifier '" + name + "' could not be resolved.");
  return *v == nullptr ? Val() : Val(**v);
}

Node Binder::BindPath(const Expr& path, int root_slot) {
  if (path.kind == ExprKind::kName) {
    Node n;
    n.op = Node::Op::kVar;
    n.slot = root_slot;
    return n;
  }
  Node n;
  if (path.kind == ExprKind::kMember) {
    n.op = Node::Op::kMember;
    n.name = path.name;
    n.kids.push_back(BindPath(*path.args[0], root_slot));
  } else {
    n.op = Node::Op::kIndex;
    n.kids.push_back(BindPath(*path.args[0], root_slot));
    n.kids.push_back(BindExpr(*path.args[1]));
  }
  return n;
}

// The root identifier of a FROM path (c in c.a.b).
const Expr& PathRoot(const Expr& e) { return e.kind == ExprKind::kName ? e : PathRoot(*e.args[0]); }

std::string ImpliedAlias(const Expr& path) {
  if (path.kind == ExprKind::kMember) return path.name;
  if (path.kind == ExprKind::kIndex && path.args[1]->kind == ExprKind::kLiteral &&
      path.args[1]->literal.kind == sql::Literal::Kind::kString)
    return path.args[1]->literal.text;
  if (path.kind == ExprKind::kName) return path.name;
  return {};
}

Source Binder::BindFrom(const sql::FromItem& item, bool first, bool top_level, int slot) {
  Source src;
  src.slot = slot;
  if (item.subquery) {
    // Without an alias (JOIN (SELECT ...)) the rows still multiply the input, but nothing can name them.
    src.kind = Source::Kind::kSubquery;
    src.alias = item.alias.value_or(std::string());
    src.iterate_rows = item.iterator;
    // A FROM subquery at the top reads the container; a JOIN subquery sees the aliases bound so far.
    src.sub = BindQuery(*item.subquery, first && top_level);
    return src;
  }
  const Expr& root = PathRoot(*item.path);
  const bool container_root = first && top_level && !Resolve(root.name);
  if (!container_root && !Resolve(root.name)) {
    throw At(root.loc, "SC2001", "Identifier '" + root.name + "' could not be resolved.");
  }
  if (item.iterator) {
    src.kind = Source::Kind::kIterate;
    src.alias = *item.alias;
  } else {
    src.kind = container_root ? Source::Kind::kContainerPath : Source::Kind::kValue;
    src.alias = item.alias ? *item.alias : ImpliedAlias(*item.path);
  }
  if (container_root) {
    src.iterate_container = true;
    // The path is evaluated with the document in this source's own slot.
    src.expr = BindPath(*item.path, slot);
    if (src.kind == Source::Kind::kContainerPath && item.path->kind == ExprKind::kName) {
      src.kind = Source::Kind::kContainer;
      container_slots_.push_back(slot);
    }
  } else {
    src.expr = BindExpr(*item.path);
  }
  return src;
}

std::shared_ptr<Plan> Binder::BindQuery(const sql::Query& q, bool top_level) {
  auto plan = std::make_shared<Plan>();
  Plan* outer_plan = plan_;
  Clause outer_clause = clause_;
  plan->first_slot = next_slot_;
  scopes_.emplace_back();
  if (q.from.empty()) {
    // SELECT without FROM: one row with no variables.
  }
  for (size_t i = 0; i < q.from.size(); ++i) {
    int slot = next_slot_++;
    Source src = BindFrom(q.from[i], i == 0, top_level, slot);
    if (!src.alias.empty()) {
      for (const auto& [alias, _] : scopes_.back().names) {
        if (alias == src.alias) {
          throw At(q.from[i].loc, "SC2003", "Duplicate alias '" + src.alias + "' in the FROM clause.");
        }
      }
      scopes_.back().names.emplace_back(src.alias, slot);
    }
    plan->sources.push_back(std::move(src));
  }
  plan_ = plan.get();
  clause_ = Clause::kOther;
  if (q.where) plan->where = BindExpr(*q.where);
  clause_ = Clause::kGroupBy;
  for (const auto& g : q.group_by) {
    plan->group_by.push_back(BindExpr(*g));
    plan->group_by_text.push_back(sql::ToString(*g));
  }
  clause_ = Clause::kSelect;
  plan->distinct = q.distinct;
  switch (q.select) {
    case sql::SelectKind::kStar:
      if (q.from.size() > 1 || q.from.empty()) {
        throw At(q.loc, "SC2001", "'SELECT *' is only valid with a single input set.");
      }
      if (!q.group_by.empty()) throw At(q.star_loc, "SC2041", "'SELECT *' is not allowed with GROUP BY.");
      plan->select = Plan::Select::kStar;
      break;
    case sql::SelectKind::kValue:
      plan->select = Plan::Select::kValue;
      plan->value = BindExpr(*q.value);
      break;
    case sql::SelectKind::kList: {
      plan->select = Plan::Select::kList;
      int unnamed = 0;
      std::unordered_set<std::string> names;
      for (const auto& p : q.projections) {
        std::string name;
        if (p.alias) {
          name = *p.alias;
        } else if (p.expr->kind == ExprKind::kMember || p.expr->kind == ExprKind::kName) {
          name = p.expr->name;
        } else if (p.expr->kind == ExprKind::kIndex && p.expr->args[1]->kind == ExprKind::kLiteral &&
                   p.expr->args[1]->literal.kind == sql::Literal::Kind::kString) {
          name = p.expr->args[1]->literal.text;
        } else {
          name = "$" + std::to_string(++unnamed);
        }
        if (!names.insert(name).second) {
          throw At(p.expr->loc, "SC2003", "Duplicate alias '" + name + "' in the SELECT clause.");
        }
        plan->projections.emplace_back(std::move(name), BindExpr(*p.expr));
      }
      break;
    }
  }
  clause_ = Clause::kOther;
  if (q.order_by_rank) {
    // The gateway answers these with their query plan (handlers/query.cpp); the plan's component
    // queries are what a partition runs.
    throw At(q.order_by.front().expr->loc, "SC2240",
             "ORDER BY RANK runs through the query plan's hybrid search information (its global statistics and "
             "component queries), as the SDKs drive it; a partition does not run it as one query.");
  }
  for (const auto& s : q.order_by) {
    if (rules::IsRankScore(*s.expr)) {
      // Without ASC or DESC, the closest first: descending but for Euclidean distance; the best
      // full-text score first.
      Node key = BindExpr(*s.expr);
      bool descending = s.descending;
      if (!s.explicit_direction && !rules::IsVectorDistance(*s.expr)) {
        descending = true;
      } else if (!s.explicit_direction) {
        const bool container = !plan->sources.empty() && plan->sources.front().kind == Source::Kind::kContainer;
        descending = rules::VectorDistanceFunction(*s.expr, params_, vectors_,
                                                   container ? plan->sources.front().alias : std::string()) !=
                     store::DistanceFunction::kEuclidean;
      }
      plan->order_by.push_back({std::move(key), descending, std::string()});
      plan->order_by_text.push_back(sql::ToString(*s.expr));
      continue;
    }
    switch (rules::ClassifyOrderBy(*s.expr, q)) {
      case rules::OrderByTarget::kDocument: break;
      case rules::OrderByTarget::kNotDocument:
        throw errors::BadRequest(
            "Unsupported ORDER BY clause. ORDER BY item expression could not be mapped to a document path.");
      case rules::OrderByTarget::kCorrelated:
        throw errors::BadRequest("Order-by over correlated collections is not supported.");
    }
    const store::ComputedProperty* cp = ComputedOf(*s.expr);
    plan->order_by.push_back({BindExpr(*s.expr), s.descending, cp != nullptr ? cp->name : std::string()});
    plan->order_by_text.push_back(sql::ToString(*s.expr));
  }
  if (q.top) plan->top = rules::ResolveCount(*q.top, params_, "TOP");
  if (q.offset) {
    plan->offset = rules::ResolveCount(*q.offset, params_, "OFFSET");
    plan->limit = rules::ResolveCount(*q.limit, params_, "LIMIT");
  }
  plan->aggregate_query = q.group_by.empty() && !plan->aggregates.empty();
  if (!q.group_by.empty() || plan->aggregate_query) {
    if (q.select == sql::SelectKind::kValue) rules::CheckGrouped(*q.value, plan->group_by_text);
    for (const auto& p : q.projections) rules::CheckGrouped(*p.expr, plan->group_by_text);
  }
  scopes_.pop_back();
  plan_ = outer_plan;
  clause_ = outer_clause;
  return plan;
}

bool Binder::IsConstant(const Expr& e) const {
  switch (e.kind) {
    case ExprKind::kName: return !Resolve(e.name) && (e.name == "NaN" || e.name == "Infinity");
    case ExprKind::kSubquery:
    case ExprKind::kExists:
    case ExprKind::kArraySubquery:
    case ExprKind::kAggregateSubquery:
    case ExprKind::kUdfCall: return false;
    case ExprKind::kCall:
      if (rules::AggregateOf(e)) return false;
      break;
    default: break;
  }
  for (const auto& a : e.args) {
    if (!IsConstant(*a)) return false;
  }
  return true;
}

Node Binder::BindExpr(const Expr& e) {
  Node n;
  auto kids = [&](size_t from = 0) {
    for (size_t i = from; i < e.args.size(); ++i) n.kids.push_back(BindExpr(*e.args[i]));
  };
  switch (e.kind) {
    case ExprKind::kLiteral:
      switch (e.literal.kind) {
        case sql::Literal::Kind::kUndefined: return Constant(Val());
        case sql::Literal::Kind::kNull: return Constant(Arena::Null());
        case sql::Literal::Kind::kBool: return Constant(Arena::Bool(e.literal.boolean));
        case sql::Literal::Kind::kNumber:
          return Constant(e.literal.integer ? arena_.Int(*e.literal.integer) : arena_.Number(e.literal.number));
        case sql::Literal::Kind::kString: return Constant(arena_.String(e.literal.text));
      }
      break;
    case ExprKind::kParameter: return Constant(Parameter(e.name, e.loc));
    case ExprKind::kName: {
      auto slot = Resolve(e.name);
      // NaN and Infinity are the numbers of those names wherever no alias takes the name
      // (learn.microsoft.com "TOSTRING": TOSTRING(NaN) is "NaN", TOSTRING(Infinity) "Infinity").
      if (!slot && e.name == "NaN") return Constant(arena_.Number(std::numeric_limits<double>::quiet_NaN()));
      if (!slot && e.name == "Infinity") return Constant(arena_.Number(std::numeric_limits<double>::infinity()));
      if (!slot) throw At(e.loc, "SC2001", "Identifier '" + e.name + "' could not be resolved.");
      n.op = Node::Op::kVar;
      n.slot = *slot;
      return n;
    }
    case ExprKind::kMember:
      if (auto cp = BindComputed(e)) return std::move(*cp);
      n.op = Node::Op::kMember;
      n.name = e.name;
      kids();
      return n;
    case ExprKind::kIndex:
      if (auto cp = BindComputed(e)) return std::move(*cp);
      // The service indexes only by a constant (a literal or a parameter): a member indexer that
      // reads the row, such as [1, 2, 3][c.x], is its SC2990 (issue 39; the message is ours).
      if (!IsConstant(*e.args[1])) {
        throw At(e.args[1]->loc, "SC2990",
                 "The member indexer expression '" + sql::ToString(*e.args[1]) +
                     "' is not supported: an indexer must be a constant, such as a literal or a parameter.");
      }
      n.op = Node::Op::kIndex;
      break;
    case ExprKind::kUnary:
      n.op = Node::Op::kUnary;
      n.uop = e.unary_op;
      break;
    case ExprKind::kBinary:
      n.op = e.binary_op == sql::BinaryOp::kAnd ? Node::Op::kAnd
             : e.binary_op == sql::BinaryOp::kOr ? Node::Op::kOr
                                                 : Node::Op::kBinary;
      n.bop = e.binary_op;
      break;
    case ExprKind::kIn:
      n.op = Node::Op::kIn;
      n.negated = e.negated;
      break;
    case ExprKind::kLike:
      n.op = Node::Op::kLike;
      n.negated = e.negated;
      n.escape = e.escape;
      if (e.escape && e.escape->size() != 1) {
        throw At(e.loc, "SC2069", "The ESCAPE clause of LIKE must be a single character.");
      }
      break;
    case ExprKind::kBetween:
      n.op = Node::Op::kBetween;
      n.negated = e.negated;
      break;
    case ExprKind::kCoalesce: n.op = Node::Op::kCoalesce; break;
    case ExprKind::kConditional: n.op = Node::Op::kConditional; break;
    case ExprKind::kArray: n.op = Node::Op::kArray; break;
    case ExprKind::kObject:
      n.op = Node::Op::kObject;
      n.keys = e.keys;
      break;
    case ExprKind::kCall: {
      if (auto agg = ExecutableAggregate(e)) {
        if (clause_ != Clause::kSelect || plan_ == nullptr) {
          throw At({e.loc.start, e.loc.start + e.name.size()}, "SC2101",
                   "Aggregates are only valid in the SELECT clause.");
        }
        rules::CheckAggregateArity(e);
        if (rules::ContainsAggregate(*e.args[0]) || rules::ContainsSubquery(*e.args[0])) {
          throw At(e.loc, "SC2101",
                   "Cannot perform an aggregate function on an expression containing an aggregate or a subquery.");
        }
        plan_->aggregates.push_back(Aggregate{*agg, BindExpr(*e.args[0])});
        n.op = Node::Op::kAggregate;
        n.slot = static_cast<int>(plan_->aggregates.size()) - 1;
        return n;
      }
      n.op = Node::Op::kCall;
      n.fn = &rules::ResolveFunction(e);
      if (n.fn->name == "FullTextScore" || n.fn->name == "RRF") {
        throw At(e.loc, "SC2240",
                 "The " + std::string(n.fn->name) + " function is only allowed in the ORDER BY RANK clause" +
                     (n.fn->name == "FullTextScore" ? " or as an argument of RRF." : "."));
      }
      kids();
      if (n.fn->name == "VectorDistance" || n.fn->name == "_VectorScore") BindVectorDistance(e, n);
      if (n.fn->name.starts_with("FullTextContains") || n.fn->name.starts_with("_FullText")) BindFullText(e, n);
      return n;
    }
    case ExprKind::kUdfCall:
      if (!udfs_) throw At(e.loc, "SC2005", "'udf." + e.name + "' is not a recognized user-defined function name.");
      n.op = Node::Op::kUdf;
      n.name = e.name;
      n.unresolved = !udfs_->Has(e.name);
      n.loc = e.loc;
      break;
    case ExprKind::kSubquery:
    case ExprKind::kExists:
    case ExprKind::kArraySubquery: {
      n.op = e.kind == ExprKind::kSubquery ? Node::Op::kSubquery
             : e.kind == ExprKind::kExists ? Node::Op::kExists
                                           : Node::Op::kArraySubquery;
      const int saved_slot = next_slot_;
      n.sub = BindQuery(*e.query, false);
      next_slot_ = std::max(next_slot_, saved_slot);
      return n;
    }
    case ExprKind::kAggregateSubquery:
      throw At(e.loc, "SC2240", "The " + e.name + "(subquery) expression is not supported by this emulator.");
  }
  kids();
  return n;
}

// VectorDistance: constant options are checked here, and a call on a path the container's vector
// embedding policy declares gets that path's distance function as a fifth argument (after
// undefined for the options it leaves out), which the function uses when the query names none.
void Binder::BindVectorDistance(const Expr& e, Node& n) {
  if (e.args.size() > 2 && e.args[2]->kind == ExprKind::kLiteral && e.args[2]->literal.kind != sql::Literal::Kind::kBool)
    throw errors::BadRequest("The third argument of VectorDistance (bruteForce) must be a boolean.");
  if (e.args.size() > 3) {
    const Expr& options = *e.args[3];
    if (options.kind != ExprKind::kObject && options.kind != ExprKind::kParameter)
      throw errors::BadRequest("The fourth argument of VectorDistance must be an object of options, such as "
                               "{'distanceFunction': 'cosine', 'dataType': 'float32'}.");
    for (size_t i = 0; options.kind == ExprKind::kObject && i < options.keys.size(); ++i) {
      const Expr& value = *options.args[i];
      const bool text = value.kind == ExprKind::kLiteral && value.literal.kind == sql::Literal::Kind::kString;
      if (util::EqualsIgnoreCase(options.keys[i], "distanceFunction") &&
          (!text || !store::ParseDistanceFunction(value.literal.text)))
        throw errors::BadRequest("The distanceFunction given to VectorDistance, " + sql::ToString(value) +
                                 ", is not valid: use cosine, dotproduct or euclidean.");
      if (util::EqualsIgnoreCase(options.keys[i], "dataType") && (!text || !store::ParseVectorDataType(value.literal.text)))
        throw errors::BadRequest("The dataType given to VectorDistance, " + sql::ToString(value) +
                                 ", is not valid: use float32, float16, int8 or uint8.");
      // A negative search list size multiplier is the service's SC2213 (issue 39; its message text
      // is not in any recording we have, so this one is ours).
      const bool negated = value.kind == ExprKind::kUnary && value.unary_op == sql::UnaryOp::kMinus &&
                           value.args[0]->kind == ExprKind::kLiteral &&
                           value.args[0]->literal.kind == sql::Literal::Kind::kNumber &&
                           value.args[0]->literal.number > 0;
      const bool negative_literal = value.kind == ExprKind::kLiteral &&
                                    value.literal.kind == sql::Literal::Kind::kNumber && value.literal.number < 0;
      if (util::EqualsIgnoreCase(options.keys[i], "searchListSizeMultiplier") && (negated || negative_literal))
        throw At(value.loc, "SC2213",
                 "The searchListSizeMultiplier given to VectorDistance, " + sql::ToString(value) +
                     ", is not valid: it must be a positive integer.");
    }
  }
  if (vectors_ == nullptr) return;
  for (size_t i = 0; i < 2 && i < e.args.size(); ++i) {
    auto path = rules::PropertyPath(*e.args[i], params_);
    if (!path || path->empty()) continue;
    const Expr* root = e.args[i].get();
    while (root->kind != ExprKind::kName) root = root->args[0].get();
    auto slot = Resolve(root->name);
    if (!slot || std::find(container_slots_.begin(), container_slots_.end(), *slot) == container_slots_.end()) continue;
    if (const store::VectorEmbedding* embedding = vectors_->Find(*path)) {
      while (n.kids.size() < 4) n.kids.push_back(Constant(Val()));
      n.kids.push_back(Constant(arena_.String(store::DistanceFunctionName(embedding->distance))));
      return;
    }
  }
}

const store::ComputedProperty* Binder::ComputedOf(const Expr& e) const {
  if (computed_ == nullptr || e.args.empty() || e.args[0]->kind != ExprKind::kName) return nullptr;
  std::string_view name;
  if (e.kind == ExprKind::kMember) {
    name = e.name;
  } else if (e.kind == ExprKind::kIndex && e.args.size() == 2 && e.args[1]->kind == ExprKind::kLiteral &&
             e.args[1]->literal.kind == sql::Literal::Kind::kString) {
    name = e.args[1]->literal.text;
  } else {
    return nullptr;
  }
  const store::ComputedProperty* cp = computed_->Find(name);
  if (cp == nullptr) return nullptr;
  auto slot = Resolve(e.args[0]->name);
  if (!slot || std::find(container_slots_.begin(), container_slots_.end(), *slot) == container_slots_.end())
    return nullptr;
  return cp;
}

std::optional<Node> Binder::BindComputed(const Expr& e) {
  const store::ComputedProperty* cp = ComputedOf(e);
  if (cp == nullptr) return std::nullopt;
  const int slot = *Resolve(e.args[0]->name);
  // Its FROM alias names the same document; nothing else of the query is visible to it, and it
  // cannot name another computed property (its definition was checked standing alone).
  const sql::Query& q = *cp->ast;
  Scope own;
  own.names.emplace_back(q.from[0].alias ? *q.from[0].alias : ImpliedAlias(*q.from[0].path), slot);
  std::vector<Scope> outer;
  outer.swap(scopes_);
  scopes_.push_back(std::move(own));
  const store::ComputedProperties* saved = computed_;
  computed_ = nullptr;
  const Clause saved_clause = clause_;
  clause_ = Clause::kOther;
  Node n;
  try {
    n = BindExpr(*q.value);
  } catch (...) {
    computed_ = saved;
    clause_ = saved_clause;
    scopes_.swap(outer);
    throw;
  }
  computed_ = saved;
  clause_ = saved_clause;
  scopes_.swap(outer);
  return n;
}

// The full-text functions: the language of the document path they search (the container's
// full-text policy: the path's language, else the policy's default, else en-US) as a last argument.
void Binder::BindFullText(const Expr& e, Node& n) {
  util::TextLanguage language = util::TextLanguage::kEnglish;
  if (full_text_ != nullptr) {
    language = full_text_->default_language;
    auto path = e.args.empty() ? std::nullopt : rules::PropertyPath(*e.args[0]);
    if (path && !path->empty()) {
      const Expr* root = e.args[0].get();
      while (root->kind != ExprKind::kName) root = root->args[0].get();
      auto slot = Resolve(root->name);
      if (slot && std::find(container_slots_.begin(), container_slots_.end(), *slot) != container_slots_.end()) {
        if (const store::FullTextPath* p = full_text_->Find(*path)) language = p->language;
      }
    }
  }
  n.kids.push_back(Constant(arena_.String(util::TextLanguageName(language))));
}

}  // namespace

std::shared_ptr<const Plan> Bind(const sql::Query& query, const json::Value* params, Arena& arena,
                                 const BindContext& container) {
  rules::CheckSubqueryClauses(query);
  Binder b(params, arena, container);
  auto plan = b.BindQuery(query, true);
  plan->slot_count = b.slot_count();
  return plan;
}

}  // namespace cosmos::query
