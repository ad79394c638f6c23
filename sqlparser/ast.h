// The syntax tree of a Cosmos DB NoSQL query: our own types, independent of ANTLR.
// Produced by Parse(); consumed by the binder (emulator/query), which never sees grammar nodes.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cosmos::sql {

// Character offsets in the query text, [start, end), as the service reports them in errors.
struct Location {
  size_t start = 0;
  size_t end = 0;
};

struct Query;
struct Expr;
using ExprPtr = std::unique_ptr<Expr>;
using QueryPtr = std::unique_ptr<Query>;

enum class ExprKind {
  kLiteral,            // literal
  kParameter,          // name ("@p")
  kName,               // name: an identifier (a FROM alias, or an unknown name the binder refuses)
  kMember,             // args[0].name
  kIndex,              // args[0][args[1]]
  kUnary,              // unary_op args[0]
  kBinary,             // args[0] binary_op args[1] (includes AND, OR)
  kIn,                 // args[0] [NOT] IN (args[1..])
  kLike,               // args[0] [NOT] LIKE args[1] [ESCAPE escape]
  kBetween,            // args[0] [NOT] BETWEEN args[1] AND args[2]
  kCoalesce,           // args[0] ?? args[1]
  kConditional,        // args[0] ? args[1] : args[2]
  kCall,               // name(args): a system function
  kUdfCall,            // udf.name(args)
  kArray,              // [args...]
  kObject,             // {keys[i]: args[i]}
  kSubquery,           // (query): a scalar subquery
  kExists,             // EXISTS(query)
  kArraySubquery,      // ARRAY(query)
  kAggregateSubquery,  // name(query) with name ALL, FIRST or LAST
};

enum class UnaryOp { kMinus, kPlus, kBitNot, kNot };

enum class BinaryOp {
  kMul, kDiv, kMod, kAdd, kSub, kShl, kShr, kShrZero, kLt, kLe, kGt, kGe, kEq, kNe,
  kBitAnd, kBitXor, kBitOr, kConcat, kAnd, kOr,
};

struct Literal {
  enum class Kind { kUndefined, kNull, kBool, kNumber, kString };
  Kind kind = Kind::kUndefined;
  bool boolean = false;
  double number = 0;
  std::optional<int64_t> integer;  // set when the number literal is an integer that fits int64
  std::string text;                // string value (decoded), or the number as written
};

struct Expr {
  ExprKind kind = ExprKind::kLiteral;
  Location loc;
  Literal literal;                     // kLiteral
  std::string name;                    // kParameter, kName, kMember, kCall, kUdfCall, kAggregateSubquery
  UnaryOp unary_op = UnaryOp::kMinus;  // kUnary
  BinaryOp binary_op = BinaryOp::kAdd; // kBinary
  bool negated = false;                // NOT IN, NOT LIKE, NOT BETWEEN
  std::optional<std::string> escape;   // kLike
  std::vector<ExprPtr> args;
  std::vector<std::string> keys;       // kObject
  QueryPtr query;                      // kSubquery, kExists, kArraySubquery, kAggregateSubquery
};

// A TOP, OFFSET or LIMIT count: a literal or a parameter.
struct Count {
  std::optional<double> value;
  std::string parameter;  // "@name" when given as a parameter
  Location loc;
};

struct Projection {
  ExprPtr expr;
  std::optional<std::string> alias;
};

// One FROM or JOIN source: `source [AS alias]` or `alias IN source`. The source is a path from
// an identifier (kName/kMember/kIndex chain) or a subquery.
struct FromItem {
  bool iterator = false;               // alias IN source
  std::optional<std::string> alias;    // explicit alias
  ExprPtr path;                        // null when subquery is set
  QueryPtr subquery;
  Location loc;
};

struct SortItem {
  ExprPtr expr;
  bool descending = false;
  bool explicit_direction = false;  // ASC or DESC was written
};

enum class SelectKind { kStar, kValue, kList };

struct Query {
  Location loc;
  bool distinct = false;
  std::optional<Count> top;
  SelectKind select = SelectKind::kStar;
  Location star_loc;                    // where `*` is, for kStar
  ExprPtr value;                        // kValue
  std::vector<Projection> projections;  // kList
  std::vector<FromItem> from;           // FROM item, then each JOIN
  ExprPtr where;
  std::vector<ExprPtr> group_by;
  bool order_by_rank = false;
  std::vector<SortItem> order_by;
  std::optional<Count> offset;
  std::optional<Count> limit;
  // Where the clauses are written (set when present), for the errors the service reports on them.
  Location top_loc;           // TOP and its count
  Location order_by_loc;      // ORDER BY and its items
  Location offset_limit_loc;  // OFFSET ... LIMIT ...
};

// A query the parser refused: the service's code (SC1001 near a token, SC1010 invalid token,
// SC1002 unexpected end), the location and the message.
struct SyntaxError {
  std::string code;
  Location loc;
  std::string message;
};

// Parses `text`. Returns the tree, or fills `error` and returns null.
QueryPtr Parse(std::string_view text, SyntaxError& error);

// The query written back in the normal form the service's SDK parser prints (fully parenthesised
// operators, double-quoted strings, explicit ASC): used by tests and in rewritten queries.
std::string ToString(const Query& q);
std::string ToString(const Expr& e);

// A number written the way the service's query text prints it.
std::string FormatNumber(double d);

}  // namespace cosmos::sql
