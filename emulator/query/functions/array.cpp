// Array functions: ARRAY_CONCAT ... ARRAY_SLICE, the ARRAY_AVG/MAX/MEDIAN/MIN/SUM reductions, CHOOSE,
// ObjectToArray and the set functions (SETDIFFERENCE, SETEQUAL, SetIntersect, SetUnion).
//
// An argument of the wrong type gives undefined. Elements are compared with Equals (deep equality,
// 1 = 1.0). Results that are elements of an argument point into it; new arrays live in the arena.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "query/functions/function.h"

namespace cosmos::query {

namespace {

// The elements of an array value as Vals.
std::vector<Val> Elements(Val array) {
  std::vector<Val> out;
  out.reserve(array.json().Size());
  for (const json::Value& e : array.json().GetArray()) out.emplace_back(e);
  return out;
}

bool Contains(const std::vector<Val>& values, Val v) {
  return std::any_of(values.begin(), values.end(), [&](Val e) { return Equals(e, v); });
}

// An index or count argument: a number with an integral value (1 or 1.0), within int64.
bool AsIndex(Val v, int64_t& out) {
  if (!v.IsNumber()) return false;
  if (v.json().IsInt64()) {
    out = v.AsInt64();
    return true;
  }
  double d = v.AsNumber();
  if (std::trunc(d) != d || std::fabs(d) >= 0x1.0p63) return false;  // fractional, NaN, infinite, too large
  out = static_cast<int64_t>(d);
  return true;
}

Val NewArray(FunctionContext& ctx, const std::vector<Val>& values) {
  json::Value* out = ctx.arena.NewArray();
  for (Val v : values) ctx.arena.Append(out, v);
  return Val(out);
}

// ARRAY_CONCAT(a, b, ...): every argument must be an array.
Val ArrayConcat(FunctionContext& ctx, std::span<const Val> args) {
  std::vector<Val> all;
  for (Val a : args) {
    if (!a.IsArray()) return Val();
    for (const json::Value& e : a.json().GetArray()) all.emplace_back(e);
  }
  return NewArray(ctx, all);
}

// Partial match: `needle`, an object, has each of its properties equal in `hay`; other needles need equality.
bool PartialMatch(Val hay, Val needle) {
  if (!needle.IsObject()) return Equals(hay, needle);
  if (!hay.IsObject()) return false;
  for (const auto& m : needle.json().GetObject()) {
    auto it = hay.json().FindMember(m.name);
    if (it == hay.json().MemberEnd() || !Equals(Val(it->value), Val(m.value))) return false;
  }
  return true;
}

// ARRAY_CONTAINS(array, value [, partial]): partial (a boolean, default false) matches objects by subset.
Val ArrayContains(FunctionContext&, std::span<const Val> args) {
  bool partial = false;
  if (args.size() == 3 && args[2].IsDefined()) {
    if (!args[2].IsBool()) return Val();
    partial = args[2].AsBool();
  }
  if (!args[0].IsArray() || args[1].IsUndefined()) return Val();
  for (const json::Value& e : args[0].json().GetArray()) {
    if (partial ? PartialMatch(Val(e), args[1]) : Equals(Val(e), args[1])) return Arena::True();
  }
  return Arena::False();
}

// ARRAY_CONTAINS_ANY / _ALL: three-valued logic over "array contains value", where an undefined value
// is unknown: ANY is true on any match, else undefined if a value was undefined, else false; ALL is
// false on any miss, else undefined if a value was undefined, else true.
template <bool kAll>
Val ArrayContainsSome(FunctionContext&, std::span<const Val> args) {
  if (!args[0].IsArray()) return Val();
  std::vector<Val> hay = Elements(args[0]);
  bool unknown = false;
  for (Val v : args.subspan(1)) {
    if (v.IsUndefined()) {
      unknown = true;
    } else if (Contains(hay, v) != kAll) {
      return Arena::Bool(!kAll);
    }
  }
  return unknown ? Val() : Arena::Bool(kAll);
}

Val ArrayLength(FunctionContext& ctx, std::span<const Val> args) {
  if (!args[0].IsArray()) return Val();
  return ctx.arena.Int(args[0].json().Size());
}

// ARRAY_SLICE(array, start [, length]): a negative start counts from the end (clamped to the first
// element); length is a maximum count, and a negative one selects nothing.
Val ArraySlice(FunctionContext& ctx, std::span<const Val> args) {
  int64_t start, length = INT64_MAX;
  if (!args[0].IsArray() || !AsIndex(args[1], start)) return Val();
  if (args.size() == 3 && !AsIndex(args[2], length)) return Val();
  std::vector<Val> all = Elements(args[0]);
  int64_t size = static_cast<int64_t>(all.size());
  if (start < 0) start = std::max<int64_t>(0, size + start);
  start = std::min(start, size);
  int64_t end = start + std::clamp<int64_t>(length, 0, size - start);
  return NewArray(ctx, std::vector<Val>(all.begin() + start, all.begin() + end));
}

// The numbers of an array, for the numeric reductions; false when an element is not a number.
bool Numbers(Val array, std::vector<Val>& out) {
  if (!array.IsArray()) return false;
  out = Elements(array);
  return std::all_of(out.begin(), out.end(), [](Val v) { return v.IsNumber(); });
}

// ARRAY_SUM: an exact int64 while every element is an integer and the sum fits; double otherwise.
Val ArraySum(FunctionContext& ctx, std::span<const Val> args) {
  std::vector<Val> nums;
  if (!Numbers(args[0], nums)) return Val();
  int64_t exact = 0;
  bool integral = true;
  double sum = 0;
  for (Val v : nums) {
    integral = integral && v.IsInteger() && v.json().IsInt64() && !__builtin_add_overflow(exact, v.AsInt64(), &exact);
    sum += v.AsNumber();
  }
  return integral ? ctx.arena.Int(exact) : ctx.arena.Number(sum);
}

// ARRAY_AVG: the mean as a double; undefined for an empty array.
Val ArrayAvg(FunctionContext& ctx, std::span<const Val> args) {
  std::vector<Val> nums;
  if (!Numbers(args[0], nums) || nums.empty()) return Val();
  double sum = 0;
  for (Val v : nums) sum += v.AsNumber();
  return ctx.arena.Number(sum / static_cast<double>(nums.size()));
}

// ARRAY_MEDIAN: the middle element, or the mean of the two middle ones; undefined for an empty array.
Val ArrayMedian(FunctionContext& ctx, std::span<const Val> args) {
  std::vector<Val> nums;
  if (!Numbers(args[0], nums) || nums.empty()) return Val();
  std::stable_sort(nums.begin(), nums.end(), [](Val a, Val b) { return CompareForOrder(a, b) < 0; });
  size_t mid = nums.size() / 2;
  if (nums.size() % 2 == 1) return nums[mid];
  return ctx.arena.Number((nums[mid - 1].AsNumber() + nums[mid].AsNumber()) / 2);
}

// ARRAY_MAX / ARRAY_MIN over null, booleans, numbers and strings, ordered null < false < true <
// numbers < strings; undefined for an empty array or one holding arrays or objects.
template <int kSign>
Val ArrayExtreme(FunctionContext&, std::span<const Val> args) {
  if (!args[0].IsArray()) return Val();
  Val best;
  for (Val v : Elements(args[0])) {
    if (v.IsArray() || v.IsObject()) return Val();
    if (best.IsUndefined() || kSign * CompareForOrder(v, best) > 0) best = v;
  }
  return best;
}

// CHOOSE(index, e1, e2, ...): the expression at the 1-based index; undefined out of range.
Val Choose(FunctionContext&, std::span<const Val> args) {
  int64_t index;
  if (!AsIndex(args[0], index) || index < 1 || index >= static_cast<int64_t>(args.size())) return Val();
  return args[index];
}

// ObjectToArray(object [, keyName [, valueName]]): one {k, v} object per property, in property order.
Val ObjectToArray(FunctionContext& ctx, std::span<const Val> args) {
  if (!args[0].IsObject()) return Val();
  for (Val name : args.subspan(1)) {
    if (!name.IsString()) return Val();
  }
  std::string_view key = args.size() > 1 ? args[1].AsString() : "k";
  std::string_view value = args.size() > 2 ? args[2].AsString() : "v";
  json::Value* out = ctx.arena.NewArray();
  for (const auto& m : args[0].json().GetObject()) {
    json::Value* pair = ctx.arena.NewObject();
    ctx.arena.Set(pair, key, ctx.arena.String({m.name.GetString(), m.name.GetStringLength()}));
    ctx.arena.Set(pair, value, Val(m.value));
    ctx.arena.Append(out, Val(pair));
  }
  return Val(out);
}

// Appends to `out` each element of `from` that `keep` accepts and `out` does not already hold.
template <typename Keep>
void AddDistinct(std::vector<Val>& out, const std::vector<Val>& from, Keep keep) {
  for (Val v : from) {
    if (keep(v) && !Contains(out, v)) out.push_back(v);
  }
}

// The set functions: both arguments must be arrays; results hold no duplicates.
using SetOp = Val (*)(FunctionContext&, const std::vector<Val>&, const std::vector<Val>&);

template <SetOp Op>
Val SetFunction(FunctionContext& ctx, std::span<const Val> args) {
  if (!args[0].IsArray() || !args[1].IsArray()) return Val();
  return Op(ctx, Elements(args[0]), Elements(args[1]));
}

// The elements of `a` that are not in `b`, in the order of `a`.
Val Difference(FunctionContext& ctx, const std::vector<Val>& a, const std::vector<Val>& b) {
  std::vector<Val> out;
  AddDistinct(out, a, [&](Val v) { return !Contains(b, v); });
  return NewArray(ctx, out);
}

// True when both hold the same distinct elements, in any order and number of repeats.
Val Equal(FunctionContext&, const std::vector<Val>& a, const std::vector<Val>& b) {
  auto within = [](const std::vector<Val>& x, const std::vector<Val>& y) {
    return std::all_of(x.begin(), x.end(), [&](Val v) { return Contains(y, v); });
  };
  return Arena::Bool(within(a, b) && within(b, a));
}

// The elements of `b` that are also in `a`, in the order of `b` (as the documented examples show).
Val Intersect(FunctionContext& ctx, const std::vector<Val>& a, const std::vector<Val>& b) {
  std::vector<Val> out;
  AddDistinct(out, b, [&](Val v) { return Contains(a, v); });
  return NewArray(ctx, out);
}

// The distinct elements of `a`, then those of `b` not seen yet.
Val Union(FunctionContext& ctx, const std::vector<Val>& a, const std::vector<Val>& b) {
  std::vector<Val> out;
  auto all = [](Val) { return true; };
  AddDistinct(out, a, all);
  AddDistinct(out, b, all);
  return NewArray(ctx, out);
}

constexpr FunctionDef kArrayFunctions[] = {
    {"ARRAY_AVG", 1, 1, ArrayAvg},
    {"ARRAY_CONCAT", 2, -1, ArrayConcat},
    {"ARRAY_CONTAINS", 2, 3, ArrayContains},
    {"ARRAY_CONTAINS_ALL", 2, -1, ArrayContainsSome<true>},
    {"ARRAY_CONTAINS_ANY", 2, -1, ArrayContainsSome<false>},
    // The internal form the service's plans use (QueryPlanBaselineTests.ManyRanges "_TRY_ARRAY_CONTAINS":
    // the same partition-key ranges as ARRAY_CONTAINS); it evaluates as ARRAY_CONTAINS.
    {"_TRY_ARRAY_CONTAINS", 2, 3, ArrayContains},
    {"ARRAY_LENGTH", 1, 1, ArrayLength},
    {"ARRAY_MAX", 1, 1, ArrayExtreme<1>},
    {"ARRAY_MEDIAN", 1, 1, ArrayMedian},
    {"ARRAY_MIN", 1, 1, ArrayExtreme<-1>},
    {"ARRAY_SLICE", 2, 3, ArraySlice},
    {"ARRAY_SUM", 1, 1, ArraySum},
    {"CHOOSE", 2, -1, Choose},
    {"ObjectToArray", 1, 3, ObjectToArray},
    {"SETDIFFERENCE", 2, 2, SetFunction<Difference>},
    {"SETEQUAL", 2, 2, SetFunction<Equal>},
    {"SetIntersect", 2, 2, SetFunction<Intersect>},
    {"SetUnion", 2, 2, SetFunction<Union>},
};

}  // namespace

std::span<const FunctionDef> ArrayFunctions() { return kArrayFunctions; }

}  // namespace cosmos::query
