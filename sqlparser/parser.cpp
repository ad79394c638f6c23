// Turns query text into our syntax tree with the ANTLR-generated parser. The only file that
// includes ANTLR headers besides the generated code.
#include <antlr4-runtime.h>
#include <malloc.h>
#include <pthread.h>

#include <charconv>
#include <cmath>
#include <cstdlib>

#include "CosmosSqlLexer.h"
#include "CosmosSqlParser.h"
#include "ast.h"

namespace cosmos::sql {

namespace {

using P = cosmos_sql_gen::CosmosSqlParser;

// Thrown from the error listener at the first syntax error; caught in Parse().
struct Abort {
  SyntaxError error;
};

// Location of a token: character offsets, end exclusive.
Location TokenLoc(const antlr4::Token* t) {
  if (t->getType() == antlr4::Token::EOF) return {t->getStartIndex(), t->getStartIndex()};
  return {t->getStartIndex(), t->getStopIndex() + 1};
}

Location CtxLoc(antlr4::ParserRuleContext* ctx) {
  Location l = TokenLoc(ctx->getStart());
  if (ctx->getStop() != nullptr && ctx->getStop()->getType() != antlr4::Token::EOF) {
    l.end = ctx->getStop()->getStopIndex() + 1;
  }
  return l;
}

// Reports the first syntax error the way the service words it.
class ErrorListener : public antlr4::BaseErrorListener {
 public:
  void syntaxError(antlr4::Recognizer*, antlr4::Token* offending, size_t line, size_t column, const std::string&,
                   std::exception_ptr) override {
    SyntaxError e;
    if (offending == nullptr) {  // lexer error (not reachable: the lexer has a catch-all token)
      e.code = "SC1010";
      e.loc = {column, column + 1};
      e.message = "Syntax error, invalid token.";
      (void)line;
    } else if (offending->getType() == antlr4::Token::EOF) {
      e.code = "SC1002";
      e.loc = TokenLoc(offending);
      e.message = "Syntax error, unexpected end-of-file.";
    } else if (offending->getType() == cosmos_sql_gen::CosmosSqlLexer::INVALID) {
      e.code = "SC1010";
      e.loc = TokenLoc(offending);
      e.message = "Syntax error, invalid token '" + offending->getText() + "'.";
    } else {
      e.code = "SC1001";
      e.loc = TokenLoc(offending);
      e.message = "Syntax error, incorrect syntax near '" + offending->getText() + "'.";
    }
    throw Abort{std::move(e)};
  }
};

void AppendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Decodes a quoted string token (either quote style) with JSON escapes.
std::string DecodeString(const std::string& token) {
  std::string out;
  const size_t n = token.size() - 1;  // skip the closing quote
  for (size_t i = 1; i < n; ++i) {
    char c = token[i];
    if (c != '\\') {
      out.push_back(c);
      continue;
    }
    char e = token[++i];
    switch (e) {
      case 'b': out.push_back('\b'); break;
      case 'f': out.push_back('\f'); break;
      case 'n': out.push_back('\n'); break;
      case 'r': out.push_back('\r'); break;
      case 't': out.push_back('\t'); break;
      case 'u': {
        uint32_t cp = std::strtoul(token.substr(i + 1, 4).c_str(), nullptr, 16);
        i += 4;
        if (cp >= 0xD800 && cp < 0xDC00 && i + 6 < n && token[i + 1] == '\\' && token[i + 2] == 'u') {
          uint32_t low = std::strtoul(token.substr(i + 3, 4).c_str(), nullptr, 16);
          if (low >= 0xDC00 && low < 0xE000) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            i += 6;
          }
        }
        AppendUtf8(out, cp);
        break;
      }
      default: out.push_back(e); break;  // " ' \ /
    }
  }
  return out;
}

Literal NumberLiteral(const std::string& text, bool negative) {
  Literal lit;
  lit.kind = Literal::Kind::kNumber;
  lit.text = negative ? "-" + text : text;
  if (text.size() > 2 && (text[1] == 'x' || text[1] == 'X')) {  // hexadecimal integer
    uint64_t v = 0;
    auto r = std::from_chars(text.data() + 2, text.data() + text.size(), v, 16);
    lit.number = static_cast<double>(v) * (negative ? -1 : 1);
    if (r.ec == std::errc() && v <= static_cast<uint64_t>(INT64_MAX)) {
      lit.integer = negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
    }
    return lit;
  }
  lit.number = std::strtod(lit.text.c_str(), nullptr);
  if (text.find_first_of(".eE") == std::string::npos) {
    int64_t v = 0;
    auto r = std::from_chars(lit.text.data(), lit.text.data() + lit.text.size(), v);
    if (r.ec == std::errc() && r.ptr == lit.text.data() + lit.text.size()) lit.integer = v;
  }
  return lit;
}

ExprPtr Make(ExprKind kind, Location loc) {
  auto e = std::make_unique<Expr>();
  e->kind = kind;
  e->loc = loc;
  return e;
}

// Bounds the depth of the tree so that every later recursive walk (bind, evaluate, print, plan) is
// safe on a worker thread's stack: each level of the guard is one Scalar, Logical, Binary, Unary or
// Primary node, so no tree is deeper than this (tests/unit/sqlparser_test.cpp runs the deepest
// accepted query through every stage on a 1 MB stack).
constexpr int kMaxTreeDepth = 1000;
// maxLogicalAndPerSqlQuery and maxLogicalOrPerSqlQuery of the account's queryEngineConfiguration.
constexpr int kMaxLogicalPerQuery = 500;

// The service's words past those limits (as DocumentDB answered them: "The SQL query exceeded the
// maximum number of 'AND' operators. The allowed limit is 5"), 400 without a query error code.
SyntaxError LogicalLimitError(const char* op) {
  return SyntaxError{"", {}, std::string("The SQL query exceeded the maximum number of '") + op +
                                 "' operators. The allowed limit is " + std::to_string(kMaxLogicalPerQuery) + "."};
}

class Builder {
 public:
  QueryPtr Query(P::SqlQueryContext* ctx);

 private:
  struct DepthGuard {
    explicit DepthGuard(int& d) : depth(d) {
      if (++depth > kMaxTreeDepth) {
        throw Abort{SyntaxError{"", {}, "The query is too complex: it nests expressions more than " +
                                            std::to_string(kMaxTreeDepth) + " levels deep."}};
      }
    }
    ~DepthGuard() { --depth; }
    int& depth;
  };
  int depth_ = 0;
  int ands_ = 0;
  int ors_ = 0;

  // The account's queryEngineConfiguration limits (maxLogicalAndPerSqlQuery,
  // maxLogicalOrPerSqlQuery): counted over the whole query, subqueries included.
  static void CountLogical(int& count, const char* op) {
    if (++count > kMaxLogicalPerQuery) throw Abort{LogicalLimitError(op)};
  }

  ExprPtr Scalar(P::ScalarContext* ctx);
  ExprPtr Logical(P::LogicalContext* ctx);
  ExprPtr Logical0(P::Logical0Context* ctx);
  ExprPtr Binary(P::BinaryContext* ctx);
  ExprPtr Unary(P::UnaryContext* ctx);
  ExprPtr Primary(P::PrimaryContext* ctx);
  ExprPtr BinaryOf(BinaryOp op, antlr4::ParserRuleContext* ctx, ExprPtr a, ExprPtr b);
  Count CountOf(antlr4::tree::TerminalNode* number, antlr4::tree::TerminalNode* param);
  FromItem From(P::CollectionExprContext* ctx);
  ExprPtr Path(P::PathCollectionContext* ctx);
  std::vector<ExprPtr> Scalars(const std::vector<P::ScalarContext*>& list);
};

std::vector<ExprPtr> Builder::Scalars(const std::vector<P::ScalarContext*>& list) {
  std::vector<ExprPtr> out;
  out.reserve(list.size());
  for (auto* s : list) out.push_back(Scalar(s));
  return out;
}

Count Builder::CountOf(antlr4::tree::TerminalNode* number, antlr4::tree::TerminalNode* param) {
  Count c;
  if (number != nullptr) {
    c.value = std::strtod(number->getText().c_str(), nullptr);
    c.loc = TokenLoc(number->getSymbol());
  } else {
    c.parameter = param->getText();
    c.loc = TokenLoc(param->getSymbol());
  }
  return c;
}

QueryPtr Builder::Query(P::SqlQueryContext* ctx) {
  DepthGuard guard(depth_);
  auto q = std::make_unique<sql::Query>();
  q->loc = CtxLoc(ctx);
  auto* sel = ctx->selectClause();
  q->distinct = sel->K_DISTINCT() != nullptr;
  if (auto* top = sel->topSpec()) {
    q->top = CountOf(top->NUMBER(), top->PARAMETER());
    q->top_loc = CtxLoc(top);
  }
  auto* selection = sel->selection();
  if (dynamic_cast<P::SelectStarContext*>(selection) != nullptr) q->star_loc = CtxLoc(selection);
  if (auto* v = dynamic_cast<P::SelectValueContext*>(selection)) {
    q->select = SelectKind::kValue;
    q->value = Scalar(v->scalar());
  } else if (auto* list = dynamic_cast<P::SelectListContext*>(selection)) {
    q->select = SelectKind::kList;
    for (auto* p : list->projection()) {
      Projection proj;
      proj.expr = Scalar(p->scalar());
      if (p->identifier() != nullptr) proj.alias = p->identifier()->getText();
      q->projections.push_back(std::move(proj));
    }
  }
  if (auto* from = ctx->fromClause()) {
    for (auto* item : from->collectionExpr()) q->from.push_back(From(item));
  }
  if (auto* where = ctx->whereClause()) q->where = Scalar(where->scalar());
  if (auto* group = ctx->groupByClause()) q->group_by = Scalars(group->scalar());
  if (auto* order = ctx->orderByClause()) {
    q->order_by_loc = CtxLoc(order);
    if (auto* rank = dynamic_cast<P::OrderByRankContext*>(order)) {
      q->order_by_rank = true;
      for (auto* s : rank->rankSpec()) {
        ExprPtr call = Make(ExprKind::kCall, CtxLoc(s));
        call->name = s->identifier()->getText();
        call->args = Scalars(s->scalar());
        q->order_by.push_back({std::move(call), s->K_DESC() != nullptr, s->K_ASC() || s->K_DESC()});
      }
    } else {
      for (auto* s : dynamic_cast<P::OrderByPlainContext*>(order)->sortSpec()) {
        q->order_by.push_back({Scalar(s->scalar()), s->K_DESC() != nullptr, s->K_ASC() || s->K_DESC()});
      }
    }
  }
  if (auto* ol = ctx->offsetLimitClause()) {
    q->offset_limit_loc = CtxLoc(ol);
    // OFFSET's value is the first NUMBER/PARAMETER token, LIMIT's the second.
    std::vector<antlr4::tree::TerminalNode*> values;
    for (auto* child : ol->children) {
      auto* t = dynamic_cast<antlr4::tree::TerminalNode*>(child);
      if (t == nullptr) continue;
      size_t type = t->getSymbol()->getType();
      if (type == P::NUMBER || type == P::PARAMETER) values.push_back(t);
    }
    auto count = [&](antlr4::tree::TerminalNode* t) {
      return t->getSymbol()->getType() == P::NUMBER ? CountOf(t, nullptr) : CountOf(nullptr, t);
    };
    q->offset = count(values.at(0));
    q->limit = count(values.at(1));
  }
  return q;
}

ExprPtr Builder::Path(P::PathCollectionContext* ctx) {
  auto* id = ctx->identifier();
  ExprPtr e = Make(ExprKind::kName, CtxLoc(id));
  e->name = id->getText();
  for (auto* step : ctx->pathStep()) {
    Location loc{e->loc.start, CtxLoc(step).end};
    if (step->identifier() != nullptr) {
      ExprPtr m = Make(ExprKind::kMember, loc);
      m->name = step->identifier()->getText();
      m->args.push_back(std::move(e));
      e = std::move(m);
      continue;
    }
    ExprPtr index;
    if (step->NUMBER() != nullptr) {
      index = Make(ExprKind::kLiteral, TokenLoc(step->NUMBER()->getSymbol()));
      index->literal = NumberLiteral(step->NUMBER()->getText(), false);
    } else if (step->STRING() != nullptr) {
      index = Make(ExprKind::kLiteral, TokenLoc(step->STRING()->getSymbol()));
      index->literal.kind = Literal::Kind::kString;
      index->literal.text = DecodeString(step->STRING()->getText());
    } else {
      index = Make(ExprKind::kParameter, TokenLoc(step->PARAMETER()->getSymbol()));
      index->name = step->PARAMETER()->getText();
    }
    ExprPtr ix = Make(ExprKind::kIndex, loc);
    ix->args.push_back(std::move(e));
    ix->args.push_back(std::move(index));
    e = std::move(ix);
  }
  return e;
}

FromItem Builder::From(P::CollectionExprContext* ctx) {
  FromItem item;
  item.loc = CtxLoc(ctx);
  P::CollectionContext* coll = nullptr;
  if (auto* it = dynamic_cast<P::IteratorCollectionContext*>(ctx)) {
    item.iterator = true;
    item.alias = it->identifier()->getText();
    coll = it->collection();
  } else {
    auto* al = dynamic_cast<P::AliasedCollectionContext*>(ctx);
    if (al->identifier() != nullptr) item.alias = al->identifier()->getText();
    coll = al->collection();
  }
  if (auto* path = dynamic_cast<P::PathCollectionContext*>(coll)) {
    item.path = Path(path);
  } else {
    item.subquery = Query(dynamic_cast<P::SubqueryCollectionContext*>(coll)->sqlQuery());
  }
  return item;
}

ExprPtr Builder::BinaryOf(BinaryOp op, antlr4::ParserRuleContext* ctx, ExprPtr a, ExprPtr b) {
  ExprPtr e = Make(ExprKind::kBinary, CtxLoc(ctx));
  e->binary_op = op;
  e->args.push_back(std::move(a));
  e->args.push_back(std::move(b));
  return e;
}

ExprPtr Builder::Scalar(P::ScalarContext* ctx) {
  DepthGuard guard(depth_);
  if (auto* c = dynamic_cast<P::ConditionalContext*>(ctx)) {
    ExprPtr e = Make(ExprKind::kConditional, CtxLoc(ctx));
    e->args = Scalars(c->scalar());
    return e;
  }
  if (auto* c = dynamic_cast<P::CoalesceContext*>(ctx)) {
    ExprPtr e = Make(ExprKind::kCoalesce, CtxLoc(ctx));
    e->args = Scalars(c->scalar());
    return e;
  }
  return Logical(dynamic_cast<P::LogicalExprContext*>(ctx)->logical());
}

ExprPtr Builder::Logical(P::LogicalContext* ctx) {
  DepthGuard guard(depth_);
  if (auto* c = dynamic_cast<P::AndContext*>(ctx)) {
    CountLogical(ands_, "AND");
    return BinaryOf(BinaryOp::kAnd, ctx, Logical(c->logical(0)), Logical(c->logical(1)));
  }
  if (auto* c = dynamic_cast<P::OrContext*>(ctx)) {
    CountLogical(ors_, "OR");
    return BinaryOf(BinaryOp::kOr, ctx, Logical(c->logical(0)), Logical(c->logical(1)));
  }
  return Logical0(dynamic_cast<P::Logical0ExprContext*>(ctx)->logical0());
}

ExprPtr Builder::Logical0(P::Logical0Context* ctx) {
  if (auto* c = dynamic_cast<P::InContext*>(ctx)) {
    ExprPtr e = Make(ExprKind::kIn, CtxLoc(ctx));
    e->negated = c->K_NOT() != nullptr;
    e->args.push_back(Binary(c->binary()));
    for (auto* s : c->scalar()) e->args.push_back(Scalar(s));
    return e;
  }
  if (auto* c = dynamic_cast<P::LikeContext*>(ctx)) {
    ExprPtr e = Make(ExprKind::kLike, CtxLoc(ctx));
    e->negated = c->K_NOT() != nullptr;
    e->args.push_back(Binary(c->binary(0)));
    e->args.push_back(Binary(c->binary(1)));
    if (c->STRING() != nullptr) e->escape = DecodeString(c->STRING()->getText());
    return e;
  }
  if (auto* c = dynamic_cast<P::BetweenContext*>(ctx)) {
    ExprPtr e = Make(ExprKind::kBetween, CtxLoc(ctx));
    e->negated = c->K_NOT() != nullptr;
    for (auto* b : c->binary()) e->args.push_back(Binary(b));
    return e;
  }
  return Binary(dynamic_cast<P::BinaryExprContext*>(ctx)->binary());
}

ExprPtr Builder::Binary(P::BinaryContext* ctx) {
  DepthGuard guard(depth_);
  if (auto* c = dynamic_cast<P::UnaryExprContext*>(ctx)) return Unary(c->unary());
  auto two = [&](auto* c, BinaryOp op) { return BinaryOf(op, ctx, Binary(c->binary(0)), Binary(c->binary(1))); };
  if (auto* c = dynamic_cast<P::MultiplicativeContext*>(ctx)) {
    const std::string op = c->op->getText();
    return two(c, op == "*" ? BinaryOp::kMul : op == "/" ? BinaryOp::kDiv : BinaryOp::kMod);
  }
  if (auto* c = dynamic_cast<P::AdditiveContext*>(ctx)) {
    return two(c, c->op->getText() == "+" ? BinaryOp::kAdd : BinaryOp::kSub);
  }
  if (auto* c = dynamic_cast<P::ShiftContext*>(ctx)) {
    const std::string op = c->op->getText();
    return two(c, op == "<<" ? BinaryOp::kShl : op == ">>" ? BinaryOp::kShr : BinaryOp::kShrZero);
  }
  if (auto* c = dynamic_cast<P::RelationalContext*>(ctx)) {
    const std::string op = c->op->getText();
    return two(c, op == "<"    ? BinaryOp::kLt
                  : op == "<=" ? BinaryOp::kLe
                  : op == ">"  ? BinaryOp::kGt
                               : BinaryOp::kGe);
  }
  if (auto* c = dynamic_cast<P::EqualityContext*>(ctx)) {
    return two(c, c->op->getText() == "=" ? BinaryOp::kEq : BinaryOp::kNe);
  }
  if (auto* c = dynamic_cast<P::BitAndContext*>(ctx)) return two(c, BinaryOp::kBitAnd);
  if (auto* c = dynamic_cast<P::BitXorContext*>(ctx)) return two(c, BinaryOp::kBitXor);
  if (auto* c = dynamic_cast<P::BitOrContext*>(ctx)) return two(c, BinaryOp::kBitOr);
  return two(dynamic_cast<P::ConcatContext*>(ctx), BinaryOp::kConcat);
}

ExprPtr Builder::Unary(P::UnaryContext* ctx) {
  DepthGuard guard(depth_);
  if (auto* c = dynamic_cast<P::PrimaryExprContext*>(ctx)) return Primary(c->primary());
  auto* c = dynamic_cast<P::PrefixContext*>(ctx);
  const std::string op = c->op->getText();
  // "-12" written without a space is a negative literal, as the service prints it.
  if (op == "-") {
    if (auto* prim = dynamic_cast<P::PrimaryExprContext*>(c->unary())) {
      if (auto* lit = dynamic_cast<P::LiteralExprContext*>(prim->primary())) {
        auto* num = lit->literal()->NUMBER();
        if (num != nullptr && num->getSymbol()->getStartIndex() == c->op->getStopIndex() + 1) {
          ExprPtr e = Make(ExprKind::kLiteral, CtxLoc(ctx));
          e->literal = NumberLiteral(num->getText(), true);
          return e;
        }
      }
    }
  }
  ExprPtr e = Make(ExprKind::kUnary, CtxLoc(ctx));
  e->unary_op = op == "-" ? UnaryOp::kMinus : op == "+" ? UnaryOp::kPlus : op == "~" ? UnaryOp::kBitNot : UnaryOp::kNot;
  e->args.push_back(Unary(c->unary()));
  return e;
}

ExprPtr Builder::Primary(P::PrimaryContext* ctx) {
  DepthGuard guard(depth_);
  const Location loc = CtxLoc(ctx);
  if (auto* c = dynamic_cast<P::MemberContext*>(ctx)) {
    ExprPtr e = Make(ExprKind::kMember, loc);
    e->name = c->identifier()->getText();
    e->args.push_back(Primary(c->primary()));
    return e;
  }
  if (auto* c = dynamic_cast<P::IndexerContext*>(ctx)) {
    ExprPtr e = Make(ExprKind::kIndex, loc);
    e->args.push_back(Primary(c->primary()));
    e->args.push_back(Scalar(c->scalar()));
    return e;
  }
  if (auto* c = dynamic_cast<P::LiteralExprContext*>(ctx)) {
    ExprPtr e = Make(ExprKind::kLiteral, loc);
    auto* lit = c->literal();
    if (lit->STRING() != nullptr) {
      e->literal.kind = Literal::Kind::kString;
      e->literal.text = DecodeString(lit->STRING()->getText());
    } else if (lit->NUMBER() != nullptr) {
      e->literal = NumberLiteral(lit->NUMBER()->getText(), false);
    } else if (lit->K_TRUE() != nullptr || lit->K_FALSE() != nullptr) {
      e->literal.kind = Literal::Kind::kBool;
      e->literal.boolean = lit->K_TRUE() != nullptr;
    } else if (lit->K_NULL() != nullptr) {
      e->literal.kind = Literal::Kind::kNull;
    } else {
      e->literal.kind = Literal::Kind::kUndefined;
    }
    return e;
  }
  if (auto* c = dynamic_cast<P::ParameterContext*>(ctx)) {
    ExprPtr e = Make(ExprKind::kParameter, loc);
    e->name = c->PARAMETER()->getText();
    return e;
  }
  if (auto* c = dynamic_cast<P::UdfCallContext*>(ctx)) {
    ExprPtr e = Make(ExprKind::kUdfCall, loc);
    e->name = c->identifier()->getText();
    e->args = Scalars(c->scalar());
    return e;
  }
  if (auto* c = dynamic_cast<P::ExistsContext*>(ctx)) {
    ExprPtr e = Make(ExprKind::kExists, loc);
    e->query = Query(c->sqlQuery());
    return e;
  }
  if (auto* c = dynamic_cast<P::ArraySubqueryContext*>(ctx)) {
    ExprPtr e = Make(ExprKind::kArraySubquery, loc);
    e->query = Query(c->sqlQuery());
    return e;
  }
  if (auto* c = dynamic_cast<P::AggregateSubqueryContext*>(ctx)) {
    ExprPtr e = Make(ExprKind::kAggregateSubquery, loc);
    e->name = c->K_ALL() ? "ALL" : c->K_FIRST() ? "FIRST" : "LAST";
    e->query = Query(c->sqlQuery());
    return e;
  }
  if (auto* c = dynamic_cast<P::CallContext*>(ctx)) {
    ExprPtr e = Make(ExprKind::kCall, loc);
    e->name = c->identifier()->getText();
    e->args = Scalars(c->scalar());
    return e;
  }
  if (auto* c = dynamic_cast<P::NameContext*>(ctx)) {
    ExprPtr e = Make(ExprKind::kName, loc);
    e->name = c->identifier()->getText();
    return e;
  }
  if (auto* c = dynamic_cast<P::ArrayLiteralContext*>(ctx)) {
    ExprPtr e = Make(ExprKind::kArray, loc);
    e->args = Scalars(c->scalar());
    return e;
  }
  if (auto* c = dynamic_cast<P::ObjectLiteralContext*>(ctx)) {
    ExprPtr e = Make(ExprKind::kObject, loc);
    for (auto* prop : c->objectProperty()) {
      e->keys.push_back(prop->STRING() != nullptr ? DecodeString(prop->STRING()->getText())
                                                  : prop->propertyName()->getText());
      e->args.push_back(Scalar(prop->scalar()));
    }
    return e;
  }
  if (auto* c = dynamic_cast<P::SubqueryContext*>(ctx)) {
    ExprPtr e = Make(ExprKind::kSubquery, loc);
    e->query = Query(c->sqlQuery());
    return e;
  }
  return Scalar(dynamic_cast<P::ParensContext*>(ctx)->scalar());
}

}  // namespace

namespace {

QueryPtr ParseOnThisThread(std::string_view text, SyntaxError& error);

// ANTLR's parser recurses once per nesting level; long texts are parsed on a thread with a large
// (lazily committed) stack so that no input can exhaust a server thread's stack.
constexpr size_t kSmallText = 1024;
constexpr size_t kBigStack = 512u * 1024 * 1024;
constexpr size_t kTrimAfterText = 64u * 1024;

struct ParseJob {
  std::string_view text;
  SyntaxError* error;
  QueryPtr result;
  std::exception_ptr failure;
};

void* RunParseJob(void* arg) {
  auto* job = static_cast<ParseJob*>(arg);
  try {
    job->result = ParseOnThisThread(job->text, *job->error);
  } catch (...) {
    job->failure = std::current_exception();
  }
  return nullptr;
}

}  // namespace

// Refuses, before ANTLR sees it, text nested deeper than any real query: parenthesised (or bracketed)
// more than kMaxNesting levels, more than kMaxNesting prefix operators (-, +, ~, NOT) in a row, or
// more than kMaxNesting conditional operators (`a ? b : c`, which nests to the right) between two
// commas. ANTLR's
// prediction is quadratic in such nesting (50,000 NOTs took 15 s and grew its shared DFA cache by
// hundreds of MB), and the tree depth would exceed kMaxTreeDepth anyway.
constexpr int kMaxNesting = 128;

bool IdentifierChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '@' ||
         c == '$' || static_cast<unsigned char>(c) >= 0x80;
}

bool Keyword(std::string_view word, std::string_view lower) {
  if (word.size() != lower.size()) return false;
  for (size_t i = 0; i < word.size(); ++i) {
    if ((word[i] | 0x20) != lower[i]) return false;
  }
  return true;
}

// AND, OR and BETWEEN words outside strings and comments (BETWEEN takes one AND of its own).
struct LogicalWords {
  int ands = 0;
  int ors = 0;
  int betweens = 0;
};

bool TooDeep(std::string_view text, LogicalWords& words) {
  int depth = 0, prefix_run = 0, conditionals = 0;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quote != 0) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '-' && i + 1 < text.size() && text[i + 1] == '-') {  // -- comment to the end of the line
      while (i < text.size() && text[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {  // /* comment */
      const size_t end = text.find("*/", i + 2);
      i = end == std::string_view::npos ? text.size() : end + 1;
      continue;
    }
    switch (c) {
      case '"':
      case '\'': quote = c; prefix_run = 0; break;
      case '(':
      case '[':
      case '{':
        if (++depth > kMaxNesting) return true;
        break;
      case ')':
      case ']':
      case '}': --depth; prefix_run = 0; break;
      case '-':
      case '+':
      case '~':
        if (++prefix_run > kMaxNesting) return true;
        break;
      case '?':
        if (i + 1 < text.size() && text[i + 1] == '?') {  // ??, left-associative
          ++i;
          prefix_run = 0;
          break;
        }
        if (++conditionals > kMaxNesting) return true;
        prefix_run = 0;
        break;
      case ',': conditionals = 0; prefix_run = 0; break;  // conditionals in a list do not nest
      case ' ':
      case '\t':
      case '\r':
      case '\n': break;
      default: {
        if (!IdentifierChar(c)) {
          prefix_run = 0;
          break;
        }
        // A whole word, so that "c.note" or "xnot" is one token.
        size_t end = i + 1;
        while (end < text.size() && IdentifierChar(text[end])) ++end;
        const std::string_view word = text.substr(i, end - i);
        i = end - 1;
        if (Keyword(word, "not")) {
          if (++prefix_run > kMaxNesting) return true;
          break;
        }
        prefix_run = 0;
        if (Keyword(word, "and")) ++words.ands;
        else if (Keyword(word, "or")) ++words.ors;
        else if (Keyword(word, "between")) ++words.betweens;
      }
    }
  }
  return false;
}

QueryPtr Parse(std::string_view text, SyntaxError& error) {
  LogicalWords words;
  if (TooDeep(text, words)) {
    error = SyntaxError{"", {}, "The query is too complex: it nests expressions more than " +
                                    std::to_string(kMaxNesting) + " levels deep."};
    return nullptr;
  }
  // Far more ANDs or ORs than the account allows are refused before ANTLR reads them (10,000 took
  // seconds to parse); the builder counts them exactly (kMaxLogicalPerQuery).
  const char* too_many = words.ands - words.betweens > kMaxLogicalPerQuery ? "AND"
                         : words.ors > kMaxLogicalPerQuery                 ? "OR"
                                                                           : nullptr;
  if (too_many != nullptr) {
    error = LogicalLimitError(too_many);
    return nullptr;
  }
  if (text.size() <= kSmallText) return ParseOnThisThread(text, error);
  ParseJob job{text, &error, nullptr, nullptr};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, kBigStack);
  pthread_t thread;
  int rc = pthread_create(&thread, &attr, RunParseJob, &job);
  pthread_attr_destroy(&attr);
  if (rc != 0) throw std::runtime_error("cannot start the parser thread");
  pthread_join(thread, nullptr);
  // ANTLR's tree for a long text is large and freed at once; give it back to the system.
  if (text.size() >= kTrimAfterText) malloc_trim(0);
  if (job.failure) std::rethrow_exception(job.failure);
  return std::move(job.result);
}

namespace {

QueryPtr ParseOnThisThread(std::string_view text, SyntaxError& error) {
  antlr4::ANTLRInputStream input(text.data(), text.size());
  cosmos_sql_gen::CosmosSqlLexer lexer(&input);
  ErrorListener listener;
  lexer.removeErrorListeners();
  lexer.addErrorListener(&listener);
  antlr4::CommonTokenStream tokens(&lexer);
  P parser(&tokens);
  parser.removeErrorListeners();
  try {
    // Fast SLL prediction first, silently; an input it cannot decide (or a real syntax error) is
    // parsed again with full LL, which reports the first error through the listener.
    parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(antlr4::atn::PredictionMode::SLL);
    parser.setErrorHandler(std::make_shared<antlr4::BailErrorStrategy>());
    P::ProgramContext* program = nullptr;
    try {
      program = parser.program();
    } catch (const antlr4::ParseCancellationException&) {
      tokens.seek(0);
      parser.reset();
      parser.addErrorListener(&listener);
      parser.setErrorHandler(std::make_shared<antlr4::DefaultErrorStrategy>());
      parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(antlr4::atn::PredictionMode::LL);
      program = parser.program();
    }
    return Builder().Query(program->sqlQuery());
  } catch (Abort& abort) {
    error = std::move(abort.error);
    return nullptr;
  }
}

}  // namespace

}  // namespace cosmos::sql
