#include "query/eval.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "common/errors.h"
#include "json/json.h"
#include "util/util.h"

namespace cosmos::query {

namespace {

using sql::BinaryOp;

// JavaScript's ToInt32, which the bitwise operators apply.
int32_t ToInt32(double d) {
  if (!std::isfinite(d)) return 0;
  double t = std::trunc(d);
  double m = std::fmod(t, 4294967296.0);
  if (m < 0) m += 4294967296.0;
  return static_cast<int32_t>(static_cast<uint32_t>(m));
}

Val Arithmetic(BinaryOp op, Val a, Val b, Arena& arena) {
  if (!a.IsNumber() || !b.IsNumber()) return Val();
  if (a.IsInteger() && b.IsInteger() && a.json().IsInt64() && b.json().IsInt64()) {
    int64_t x = a.AsInt64(), y = b.AsInt64(), r = 0;
    switch (op) {
      case BinaryOp::kAdd:
        if (!__builtin_add_overflow(x, y, &r)) return arena.Int(r);
        break;
      case BinaryOp::kSub:
        if (!__builtin_sub_overflow(x, y, &r)) return arena.Int(r);
        break;
      case BinaryOp::kMul:
        if (!__builtin_mul_overflow(x, y, &r)) return arena.Int(r);
        break;
      case BinaryOp::kMod:
        if (y != 0 && !(x == std::numeric_limits<int64_t>::min() && y == -1)) return arena.Int(x % y);
        break;
      case BinaryOp::kDiv:
        if (y != 0 && x % y == 0 && !(x == std::numeric_limits<int64_t>::min() && y == -1)) return arena.Int(x / y);
        break;
      default: break;
    }
  }
  double x = a.AsNumber(), y = b.AsNumber();
  switch (op) {
    case BinaryOp::kAdd: return arena.Number(x + y);
    case BinaryOp::kSub: return arena.Number(x - y);
    case BinaryOp::kMul: return arena.Number(x * y);
    case BinaryOp::kDiv: return arena.Number(x / y);
    case BinaryOp::kMod: return arena.Number(std::fmod(x, y));
    default: return Val();
  }
}

Val Bitwise(BinaryOp op, Val a, Val b, Arena& arena) {
  if (!a.IsNumber() || !b.IsNumber()) return Val();
  int32_t x = ToInt32(a.AsNumber()), y = ToInt32(b.AsNumber());
  uint32_t shift = static_cast<uint32_t>(y) & 31u;
  switch (op) {
    case BinaryOp::kBitAnd: return arena.Int(x & y);
    case BinaryOp::kBitOr: return arena.Int(x | y);
    case BinaryOp::kBitXor: return arena.Int(x ^ y);
    case BinaryOp::kShl: return arena.Int(static_cast<int32_t>(static_cast<uint32_t>(x) << shift));
    case BinaryOp::kShr: return arena.Int(x >> shift);
    case BinaryOp::kShrZero: return arena.Int(static_cast<int64_t>(static_cast<uint32_t>(x) >> shift));
    default: return Val();
  }
}

Val Compare(BinaryOp op, Val a, Val b) {
  if (a.IsUndefined() || b.IsUndefined()) return Val();
  if (op == BinaryOp::kEq || op == BinaryOp::kNe) {
    // Two defined values of different types are unequal (false for =, true for !=), as the
    // service's engine answers (the .NET SDK's LINQ baselines keep `x != null` rows whose x is
    // a number or string); only an undefined operand makes the comparison undefined.
    bool eq = Equals(a, b);
    return Arena::Bool(op == BinaryOp::kEq ? eq : !eq);
  }
  bool ok = false;
  int c = CompareScalars(a, b, ok);
  if (!ok) return Val();
  switch (op) {
    case BinaryOp::kLt: return Arena::Bool(c < 0);
    case BinaryOp::kLe: return Arena::Bool(c <= 0);
    case BinaryOp::kGt: return Arena::Bool(c > 0);
    case BinaryOp::kGe: return Arena::Bool(c >= 0);
    default: return Val();
  }
}

std::vector<uint32_t> CodePoints(std::string_view s) {
  std::vector<uint32_t> out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) out.push_back(util::DecodeUtf8(s, i));
  return out;
}

// One element of a LIKE pattern: any run (%), any one character (_), a set ([...]), a literal.
struct LikeToken {
  enum Kind { kAny, kOne, kSet, kChar } kind;
  LikeToken(Kind k, uint32_t c = 0) : kind(k), ch(c) {}
  uint32_t ch = 0;
  bool negate = false;
  std::vector<std::pair<uint32_t, uint32_t>> ranges;
  bool Matches(uint32_t c) const {
    switch (kind) {
      case kOne: return true;
      case kChar: return c == ch;
      case kSet: {
        bool in = std::any_of(ranges.begin(), ranges.end(), [&](auto r) { return c >= r.first && c <= r.second; });
        return in != negate;
      }
      case kAny: return true;
    }
    return false;
  }
};

std::vector<LikeToken> CompileLike(std::string_view pattern, std::optional<uint32_t> escape) {
  std::vector<uint32_t> p = CodePoints(pattern);
  std::vector<LikeToken> out;
  for (size_t i = 0; i < p.size(); ++i) {
    uint32_t c = p[i];
    if (escape && c == *escape && i + 1 < p.size()) {
      out.emplace_back(LikeToken::kChar, p[++i]);
    } else if (c == '%') {
      if (out.empty() || out.back().kind != LikeToken::kAny) out.emplace_back(LikeToken::kAny);
    } else if (c == '_') {
      out.emplace_back(LikeToken::kOne);
    } else if (c == '[') {
      size_t close = i + 1;
      if (close < p.size() && p[close] == '^') ++close;
      if (close < p.size()) ++close;  // a ']' right after '[' or '[^' is a member
      while (close < p.size() && p[close] != ']') ++close;
      if (close >= p.size()) {
        out.emplace_back(LikeToken::kChar, c);
        continue;
      }
      LikeToken t(LikeToken::kSet);
      size_t j = i + 1;
      if (p[j] == '^') {
        t.negate = true;
        ++j;
      }
      for (; j < close; ++j) {
        if (j + 2 < close && p[j + 1] == '-') {
          t.ranges.emplace_back(p[j], p[j + 2]);
          j += 2;
        } else {
          t.ranges.emplace_back(p[j], p[j]);
        }
      }
      out.push_back(std::move(t));
      i = close;
    } else {
      out.emplace_back(LikeToken::kChar, c);
    }
  }
  return out;
}

// Wildcard matching with single-point backtracking on the last '%': linear in practice, no recursion.
bool LikeMatch(const std::vector<LikeToken>& pat, const std::vector<uint32_t>& s) {
  size_t pi = 0, si = 0, star = std::string::npos, mark = 0;
  while (si < s.size()) {
    if (pi < pat.size() && pat[pi].kind != LikeToken::kAny && pat[pi].Matches(s[si])) {
      ++pi;
      ++si;
    } else if (pi < pat.size() && pat[pi].kind == LikeToken::kAny) {
      star = pi++;
      mark = si;
    } else if (star != std::string::npos) {
      pi = star + 1;
      si = ++mark;
    } else {
      return false;
    }
  }
  while (pi < pat.size() && pat[pi].kind == LikeToken::kAny) ++pi;
  return pi == pat.size();
}

Val Like(const Node& n, Val a, Val pattern) {
  if (!a.IsString() || !pattern.IsString()) return Val();
  std::optional<uint32_t> escape;
  if (n.escape && !n.escape->empty()) {
    size_t i = 0;
    escape = util::DecodeUtf8(*n.escape, i);
  }
  bool m = LikeMatch(CompileLike(pattern.AsString(), escape), CodePoints(a.AsString()));
  return Arena::Bool(m != n.negated);
}

Val Member(Val base, std::string_view name) {
  if (!base.IsObject()) return Val();
  const json::Value& o = base.json();
  auto it = o.FindMember(json::Value(rapidjson::StringRef(name.data(), static_cast<rapidjson::SizeType>(name.size()))));
  return it == o.MemberEnd() ? Val() : Val(it->value);
}

// The same, trying first where `hint` says the last object had it. An object's names are unique
// (parsed documents drop repeated names, Arena::Set replaces), so the member found there is the
// one a walk would find.
// (Not inlined: Eval recurses as deep as the query nests, and its frame must stay small.)
[[gnu::noinline]] Val Member(Val base, std::string_view name, const MemberHint& hint) {
  if (!base.IsObject()) return Val();
  const json::Value& o = base.json();
  const uint32_t at = hint.at.load(std::memory_order_relaxed);
  if (at < o.MemberCount()) {
    const auto& m = o.MemberBegin()[at];
    if (m.name.GetStringLength() == name.size() && std::memcmp(m.name.GetString(), name.data(), name.size()) == 0)
      return Val(m.value);
  }
  auto it = o.FindMember(json::Value(rapidjson::StringRef(name.data(), static_cast<rapidjson::SizeType>(name.size()))));
  if (it == o.MemberEnd()) return Val();
  const auto found = static_cast<uint32_t>(it - o.MemberBegin());
  if (found != at) hint.at.store(found, std::memory_order_relaxed);
  return Val(it->value);
}

Val Index(Val base, Val index) {
  if (base.IsArray() && index.IsNumber()) {
    double d = index.AsNumber();
    if (d < 0 || d != std::floor(d) || d >= static_cast<double>(base.json().Size())) return Val();
    return Val(base.json()[static_cast<rapidjson::SizeType>(d)]);
  }
  if (base.IsObject() && index.IsString()) return Member(base, index.AsString());
  return Val();
}

}  // namespace

Val Eval(const Node& n, EvalContext& cx) {
  switch (n.op) {
    case Node::Op::kConst: return n.constant;
    case Node::Op::kVar: return cx.env[n.slot];
    case Node::Op::kMember: return Member(Eval(n.kids[0], cx), n.name, n.hint);
    case Node::Op::kIndex: return Index(Eval(n.kids[0], cx), Eval(n.kids[1], cx));
    case Node::Op::kUnary: {
      Val v = Eval(n.kids[0], cx);
      switch (n.uop) {
        case sql::UnaryOp::kNot: return v.IsBool() ? Arena::Bool(!v.AsBool()) : Val();
        case sql::UnaryOp::kPlus: return v.IsNumber() ? v : Val();
        case sql::UnaryOp::kMinus:
          if (!v.IsNumber()) return Val();
          if (v.IsInteger() && v.json().IsInt64() && v.AsInt64() != std::numeric_limits<int64_t>::min()) {
            return cx.arena.Int(-v.AsInt64());
          }
          return cx.arena.Number(-v.AsNumber());
        case sql::UnaryOp::kBitNot: return v.IsNumber() ? cx.arena.Int(~ToInt32(v.AsNumber())) : Val();
      }
      return Val();
    }
    case Node::Op::kBinary: {
      Val a = Eval(n.kids[0], cx);
      Val b = Eval(n.kids[1], cx);
      switch (n.bop) {
        case BinaryOp::kAdd:
        case BinaryOp::kSub:
        case BinaryOp::kMul:
        case BinaryOp::kDiv:
        case BinaryOp::kMod: return Arithmetic(n.bop, a, b, cx.arena);
        case BinaryOp::kBitAnd:
        case BinaryOp::kBitOr:
        case BinaryOp::kBitXor:
        case BinaryOp::kShl:
        case BinaryOp::kShr:
        case BinaryOp::kShrZero: return Bitwise(n.bop, a, b, cx.arena);
        case BinaryOp::kConcat: {
          if (!a.IsString() || !b.IsString()) return Val();
          std::string s(a.AsString());
          s += b.AsString();
          return cx.arena.String(s);
        }
        default: return Compare(n.bop, a, b);
      }
    }
    case Node::Op::kAnd: {
      Val a = Eval(n.kids[0], cx);
      if (a.IsBool() && !a.AsBool()) return Arena::False();
      Val b = Eval(n.kids[1], cx);
      if (b.IsBool() && !b.AsBool()) return Arena::False();
      return a.IsTrue() && b.IsTrue() ? Arena::True() : Val();
    }
    case Node::Op::kOr: {
      Val a = Eval(n.kids[0], cx);
      if (a.IsTrue()) return Arena::True();
      Val b = Eval(n.kids[1], cx);
      if (b.IsTrue()) return Arena::True();
      return a.IsBool() && b.IsBool() ? Arena::False() : Val();
    }
    case Node::Op::kIn: {
      Val a = Eval(n.kids[0], cx);
      if (a.IsUndefined()) return Val();
      bool found = false;
      for (size_t i = 1; i < n.kids.size() && !found; ++i) found = Equals(a, Eval(n.kids[i], cx));
      return Arena::Bool(found != n.negated);
    }
    case Node::Op::kLike: return Like(n, Eval(n.kids[0], cx), Eval(n.kids[1], cx));
    case Node::Op::kBetween: {
      Val a = Eval(n.kids[0], cx), lo = Eval(n.kids[1], cx), hi = Eval(n.kids[2], cx);
      bool ok1 = false, ok2 = false;
      int c1 = CompareScalars(a, lo, ok1);
      int c2 = CompareScalars(a, hi, ok2);
      if (!ok1 || !ok2) return Val();
      return Arena::Bool((c1 >= 0 && c2 <= 0) != n.negated);
    }
    case Node::Op::kCoalesce: {
      Val a = Eval(n.kids[0], cx);
      return a.IsDefined() ? a : Eval(n.kids[1], cx);
    }
    case Node::Op::kConditional: {
      // Like IIF: anything but true takes the second branch.
      return Eval(n.kids[Eval(n.kids[0], cx).IsTrue() ? 1 : 2], cx);
    }
    case Node::Op::kCall: {
      Val args[8];
      std::vector<Val> many;
      std::span<const Val> span;
      if (n.kids.size() <= 8) {
        for (size_t i = 0; i < n.kids.size(); ++i) args[i] = Eval(n.kids[i], cx);
        span = std::span<const Val>(args, n.kids.size());
      } else {
        for (const auto& k : n.kids) many.push_back(Eval(k, cx));
        span = many;
      }
      return n.fn->fn(cx.fn, span);
    }
    case Node::Op::kUdf: {
      if (n.unresolved) {
        throw errors::QueryError("SC2005", n.loc.start, n.loc.end,
                                 "'udf." + n.name + "' is not a recognized user-defined function name.");
      }
      std::vector<Val> args;
      args.reserve(n.kids.size());
      for (const auto& k : n.kids) args.push_back(Eval(k, cx));
      if (!cx.fn.udfs) throw errors::BadRequest("User-defined functions are not available here.");
      // The call ends at the page's deadline only when the page could end there; a function
      // stopped so ends the page before this row (the next page runs it again).
      UdfLimits limits;
      if (cx.budget != nullptr) {
        limits.cancelled = cx.budget->budget().cancelled;
        if (cx.budget->CanStop()) limits.deadline = cx.budget->budget().deadline;
      }
      try {
        return cx.fn.udfs->Call(n.name, args, cx.arena, limits);
      } catch (const UdfDeadline&) {
        throw PageStop{};
      }
    }
    case Node::Op::kAggregate: return cx.aggs != nullptr ? (*cx.aggs)[n.slot] : Val();
    case Node::Op::kArray: {
      json::Value* arr = cx.arena.NewArray();
      for (const auto& k : n.kids) cx.arena.Append(arr, Eval(k, cx));
      return Val(arr);
    }
    case Node::Op::kObject: {
      json::Value* obj = cx.arena.NewObject();
      for (size_t i = 0; i < n.kids.size(); ++i) cx.arena.Set(obj, n.keys[i], Eval(n.kids[i], cx));
      return Val(obj);
    }
    case Node::Op::kSubquery: {
      Val first;
      bool have = false;
      RunInMemory(*n.sub, cx, [&](Val v) {
        if (!have) first = v;
        have = true;
      });
      return first;
    }
    case Node::Op::kExists: {
      bool any = false;
      RunInMemory(*n.sub, cx, [&](Val) { any = true; });
      return Arena::Bool(any);
    }
    case Node::Op::kArraySubquery: {
      json::Value* arr = cx.arena.NewArray();
      RunInMemory(*n.sub, cx, [&](Val v) { cx.arena.Append(arr, v); });
      return Val(arr);
    }
  }
  return Val();
}

void Accumulator::Add(Val v, Arena& arena) {
  if (v.IsUndefined()) return;
  switch (kind) {
    case Agg::kCount: ++count; return;
    case Agg::kCountIf:
      if (v.IsBool() && v.AsBool()) ++count;
      return;
    case Agg::kSum:
    case Agg::kAvg:
      if (!v.IsNumber()) {
        invalid = true;
        return;
      }
      ++count;
      if (int_sum) {
        int64_t sum = 0;
        if (v.IsInteger() && v.json().IsInt64() && !__builtin_add_overflow(isum, v.AsInt64(), &sum)) {
          isum = sum;
          return;
        }
        int_sum = false;
        dsum = static_cast<double>(isum);
      }
      dsum += v.AsNumber();
      return;
    case Agg::kMin:
    case Agg::kMax: {
      if (v.IsArray() || v.IsObject()) {
        best_invalid = true;
        return;
      }
      ++count;
      int c = best.IsUndefined() ? 0 : CompareForOrder(v, best);
      if (best.IsUndefined() || (kind == Agg::kMin ? c < 0 : c > 0)) best = arena.Copy(v);
      return;
    }
    case Agg::kMakeList:
    case Agg::kMakeSet: {
      // Every defined value, in input order; MAKESET keeps the first of equal values.
      if (kind == Agg::kMakeSet) {
        std::string key;
        CanonicalKey(key, v);
        if (!seen.insert(std::move(key)).second) return;
      }
      if (list == nullptr) list = arena.NewArray();
      arena.Append(list, v);
      return;
    }
  }
}

void Accumulator::Merge(Accumulator& later, Arena& arena) {
  switch (kind) {
    case Agg::kCount:
    case Agg::kCountIf: count += later.count; return;
    case Agg::kSum:
    case Agg::kAvg: {
      invalid = invalid || later.invalid;
      count += later.count;
      int64_t sum = 0;
      if (int_sum && later.int_sum && !__builtin_add_overflow(isum, later.isum, &sum)) {
        isum = sum;
        return;
      }
      const double a = int_sum ? static_cast<double>(isum) : dsum;
      const double b = later.int_sum ? static_cast<double>(later.isum) : later.dsum;
      int_sum = false;
      dsum = a + b;
      return;
    }
    case Agg::kMin:
    case Agg::kMax: {
      best_invalid = best_invalid || later.best_invalid;
      count += later.count;
      if (later.best.IsUndefined()) return;
      // Of equal values the earlier input's stays, as Add keeps the first.
      const int c = best.IsUndefined() ? 0 : CompareForOrder(later.best, best);
      if (best.IsUndefined() || (kind == Agg::kMin ? c < 0 : c > 0)) best = later.best;
      return;
    }
    case Agg::kMakeList:
    case Agg::kMakeSet: {
      if (later.list == nullptr) return;
      for (const auto& e : later.list->GetArray()) {
        if (kind == Agg::kMakeSet) {
          std::string key;
          CanonicalKey(key, Val(e));
          if (!seen.insert(std::move(key)).second) continue;
        }
        if (list == nullptr) list = arena.NewArray();
        arena.Append(list, Val(e));
      }
      return;
    }
  }
}

Val Accumulator::Result(Arena& arena) const {
  switch (kind) {
    case Agg::kCount:
    case Agg::kCountIf: return arena.Int(count);
    case Agg::kSum:
      if (invalid) return Val();
      return int_sum ? arena.Int(isum) : arena.Number(dsum);
    case Agg::kAvg:
      if (invalid || count == 0) return Val();
      return arena.Number((int_sum ? static_cast<double>(isum) : dsum) / static_cast<double>(count));
    case Agg::kMin:
    case Agg::kMax: return best_invalid ? Val() : best;
    case Agg::kMakeList:
    case Agg::kMakeSet: return Val(list != nullptr ? list : arena.NewArray());
  }
  return Val();
}

Val Project(const Plan& plan, EvalContext& cx) {
  switch (plan.select) {
    case Plan::Select::kStar: return cx.env[plan.sources.front().slot];
    case Plan::Select::kValue: return Eval(plan.value, cx);
    case Plan::Select::kList: {
      json::Value* obj = cx.arena.NewObject();
      for (const auto& [name, expr] : plan.projections) cx.arena.Set(obj, name, Eval(expr, cx));
      return Val(obj);
    }
  }
  return Val();
}

void CanonicalKey(std::string& out, Val v) {
  switch (v.type()) {
    case Type::kUndefined: out += 'u'; return;
    case Type::kNull: out += 'n'; return;
    case Type::kBoolean: out += v.AsBool() ? 't' : 'f'; return;
    case Type::kNumber:
      out += '#';
      if (v.IsInteger() && v.json().IsInt64() &&
          std::abs(static_cast<double>(v.AsInt64())) >= 9007199254740992.0) {
        out += std::to_string(v.AsInt64());
      } else {
        json::WriteDouble(out, v.AsNumber());
      }
      return;
    case Type::kString: {  // its length, then its bytes: no escaping to look for (only equality matters)
      const std::string_view text = v.AsString();
      out += '"';
      out += std::to_string(text.size());
      out += ':';
      out += text;
      return;
    }
    case Type::kArray:
      out += '[';
      for (const auto& e : v.json().GetArray()) {
        CanonicalKey(out, Val(e));
        out += ',';
      }
      out += ']';
      return;
    case Type::kObject: {
      std::vector<const json::Value::Member*> members;
      for (const auto& m : v.json().GetObject()) members.push_back(&m);
      std::sort(members.begin(), members.end(), [](auto* a, auto* b) {
        return std::string_view(a->name.GetString(), a->name.GetStringLength()) <
               std::string_view(b->name.GetString(), b->name.GetStringLength());
      });
      out += '{';
      for (auto* m : members) {
        json::WriteString(out, std::string_view(m->name.GetString(), m->name.GetStringLength()));
        out += ':';
        CanonicalKey(out, Val(m->value));
        out += ',';
      }
      out += '}';
      return;
    }
  }
}

}  // namespace cosmos::query
