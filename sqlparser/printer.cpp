// Writes a syntax tree back as query text in the normal form of the service's SDK parser.
#include <charconv>
#include <cmath>

#include "ast.h"
#include "printer.h"

namespace cosmos::sql {

namespace {

void Quote(std::string& out, const std::string& s) {
  out.push_back('"');
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default: out.push_back(c);
    }
  }
  out.push_back('"');
}

const char* BinaryText(BinaryOp op) {
  switch (op) {
    case BinaryOp::kMul: return "*";
    case BinaryOp::kDiv: return "/";
    case BinaryOp::kMod: return "%";
    case BinaryOp::kAdd: return "+";
    case BinaryOp::kSub: return "-";
    case BinaryOp::kShl: return "<<";
    case BinaryOp::kShr: return ">>";
    case BinaryOp::kShrZero: return ">>>";
    case BinaryOp::kLt: return "<";
    case BinaryOp::kLe: return "<=";
    case BinaryOp::kGt: return ">";
    case BinaryOp::kGe: return ">=";
    case BinaryOp::kEq: return "=";
    case BinaryOp::kNe: return "!=";
    case BinaryOp::kBitAnd: return "&";
    case BinaryOp::kBitXor: return "^";
    case BinaryOp::kBitOr: return "|";
    case BinaryOp::kConcat: return "||";
    case BinaryOp::kAnd: return "AND";
    case BinaryOp::kOr: return "OR";
  }
  return "?";
}

void WriteQuery(std::string& out, const Query& q, bool with_where = true);

void WriteList(std::string& out, const std::vector<ExprPtr>& list, size_t from = 0);

thread_local bool placeholders = false;  // set by ToShape

void WriteExpr(std::string& out, const Expr& e) {
  switch (e.kind) {
    case ExprKind::kLiteral:
      if (placeholders && (e.literal.kind == Literal::Kind::kNumber || e.literal.kind == Literal::Kind::kString)) {
        out += '?';
        break;
      }
      switch (e.literal.kind) {
        case Literal::Kind::kUndefined: out += "undefined"; break;
        case Literal::Kind::kNull: out += "null"; break;
        case Literal::Kind::kBool: out += e.literal.boolean ? "true" : "false"; break;
        case Literal::Kind::kNumber: out += FormatNumber(e.literal.number); break;
        case Literal::Kind::kString: Quote(out, e.literal.text); break;
      }
      break;
    case ExprKind::kParameter:
    case ExprKind::kName: out += e.name; break;
    case ExprKind::kMember:
      WriteExpr(out, *e.args[0]);
      out += '.';
      out += e.name;
      break;
    case ExprKind::kIndex: {
      WriteExpr(out, *e.args[0]);
      out += '[';
      // A constant index is a property name or a position: part of the path, so of the shape.
      const bool saved = placeholders;
      if (e.args[1]->kind == ExprKind::kLiteral) placeholders = false;
      WriteExpr(out, *e.args[1]);
      placeholders = saved;
      out += ']';
      break;
    }
    case ExprKind::kUnary:
      out += '(';
      out += e.unary_op == UnaryOp::kMinus ? "-" : e.unary_op == UnaryOp::kPlus ? "+" : e.unary_op == UnaryOp::kBitNot ? "~" : "NOT";
      out += ' ';
      WriteExpr(out, *e.args[0]);
      out += ')';
      break;
    case ExprKind::kBinary:
      out += '(';
      WriteExpr(out, *e.args[0]);
      out += ' ';
      out += BinaryText(e.binary_op);
      out += ' ';
      WriteExpr(out, *e.args[1]);
      out += ')';
      break;
    case ExprKind::kIn:
      out += '(';
      WriteExpr(out, *e.args[0]);
      out += e.negated ? " NOT IN (" : " IN (";
      WriteList(out, e.args, 1);
      out += "))";
      break;
    case ExprKind::kLike:
      out += '(';
      WriteExpr(out, *e.args[0]);
      out += e.negated ? " NOT  LIKE " : " LIKE ";
      WriteExpr(out, *e.args[1]);
      if (e.escape) {
        out += " ESCAPE ";
        Quote(out, *e.escape);
      }
      out += ')';
      break;
    case ExprKind::kBetween:
      out += '(';
      WriteExpr(out, *e.args[0]);
      out += e.negated ? " NOT BETWEEN " : " BETWEEN ";
      WriteExpr(out, *e.args[1]);
      out += " AND ";
      WriteExpr(out, *e.args[2]);
      out += ')';
      break;
    case ExprKind::kCoalesce:
      out += '(';
      WriteExpr(out, *e.args[0]);
      out += " ?? ";
      WriteExpr(out, *e.args[1]);
      out += ')';
      break;
    case ExprKind::kConditional:
      out += '(';
      WriteExpr(out, *e.args[0]);
      out += " ? ";
      WriteExpr(out, *e.args[1]);
      out += " : ";
      WriteExpr(out, *e.args[2]);
      out += ')';
      break;
    case ExprKind::kCall:
    case ExprKind::kUdfCall:
      if (e.kind == ExprKind::kUdfCall) out += "udf.";
      out += e.name;
      out += '(';
      WriteList(out, e.args);
      out += ')';
      break;
    case ExprKind::kArray:
      out += '[';
      WriteList(out, e.args);
      out += ']';
      break;
    case ExprKind::kObject:
      out += '{';
      for (size_t i = 0; i < e.args.size(); ++i) {
        if (i > 0) out += ", ";
        Quote(out, e.keys[i]);
        out += ": ";
        WriteExpr(out, *e.args[i]);
      }
      out += '}';
      break;
    case ExprKind::kSubquery:
    case ExprKind::kExists:
    case ExprKind::kArraySubquery:
    case ExprKind::kAggregateSubquery:
      if (e.kind == ExprKind::kExists) out += "EXISTS";
      if (e.kind == ExprKind::kArraySubquery) out += "ARRAY";
      if (e.kind == ExprKind::kAggregateSubquery) out += e.name;
      out += '(';
      WriteQuery(out, *e.query);
      out += ')';
      break;
  }
}

void WriteList(std::string& out, const std::vector<ExprPtr>& list, size_t from) {
  for (size_t i = from; i < list.size(); ++i) {
    if (i > from) out += ", ";
    WriteExpr(out, *list[i]);
  }
}

void WriteCount(std::string& out, const Count& c) {
  out += c.value ? FormatNumber(*c.value) : c.parameter;
}

void WriteFrom(std::string& out, const FromItem& item) {
  if (item.iterator) {
    out += *item.alias;
    out += " IN ";
  }
  if (item.subquery) {
    out += '(';
    WriteQuery(out, *item.subquery);
    out += ')';
  } else {
    WriteExpr(out, *item.path);
  }
  if (!item.iterator && item.alias) {
    out += " AS ";
    out += *item.alias;
  }
}

void WriteQuery(std::string& out, const Query& q, bool with_where) {
  out += "SELECT ";
  if (q.distinct) out += "DISTINCT ";
  if (q.top) {
    out += "TOP ";
    WriteCount(out, *q.top);
    out += ' ';
  }
  switch (q.select) {
    case SelectKind::kStar: out += '*'; break;
    case SelectKind::kValue:
      out += "VALUE ";
      WriteExpr(out, *q.value);
      break;
    case SelectKind::kList:
      for (size_t i = 0; i < q.projections.size(); ++i) {
        if (i > 0) out += ", ";
        WriteExpr(out, *q.projections[i].expr);
        if (q.projections[i].alias) {
          out += " AS ";
          out += *q.projections[i].alias;
        }
      }
      break;
  }
  for (size_t i = 0; i < q.from.size(); ++i) {
    out += i == 0 ? " FROM " : " JOIN ";
    WriteFrom(out, q.from[i]);
  }
  if (q.where && with_where) {
    out += " WHERE ";
    WriteExpr(out, *q.where);
  }
  if (!q.group_by.empty()) {
    out += " GROUP BY ";
    WriteList(out, q.group_by);
    out += ' ';
  }
  if (!q.order_by.empty()) {
    out += q.order_by_rank ? " ORDER BY RANK " : " ORDER BY ";
    for (size_t i = 0; i < q.order_by.size(); ++i) {
      if (i > 0) out += ", ";
      WriteExpr(out, *q.order_by[i].expr);
      if (!q.order_by_rank || q.order_by[i].explicit_direction) out += q.order_by[i].descending ? " DESC" : " ASC";
    }
  }
  if (q.offset) {
    out += " OFFSET ";
    WriteCount(out, *q.offset);
    out += " LIMIT ";
    WriteCount(out, *q.limit);
  }
}

}  // namespace

namespace {
thread_local bool plan_numbers = false;  // set by PlanNumberStyle
}  // namespace

PlanNumberStyle::PlanNumberStyle() : saved_(plan_numbers) { plan_numbers = true; }
PlanNumberStyle::~PlanNumberStyle() { plan_numbers = saved_; }

std::string FormatNumber(double d) {
  if (d == 0) return "0";
  char buf[64];
  const bool whole = std::trunc(d) == d && std::fabs(d) < 1e21;
  auto r = plan_numbers && !whole ? std::to_chars(buf, buf + sizeof buf, d, std::chars_format::general, 17)
                                  : std::to_chars(buf, buf + sizeof buf, d);
  return std::string(buf, r.ptr);
}

std::string ToString(const Query& q) {
  std::string out;
  WriteQuery(out, q);
  return out;
}

std::string ToShape(const Query& q) {
  const bool saved = placeholders;
  placeholders = true;
  std::string out;
  WriteQuery(out, q);
  placeholders = saved;
  return out;
}

std::string ToStringWithoutWhere(const Query& q) {
  std::string out;
  WriteQuery(out, q, false);
  return out;
}

std::string ToString(const Expr& e) {
  std::string out;
  WriteExpr(out, e);
  return out;
}

}  // namespace cosmos::sql
