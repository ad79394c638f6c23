// Mathematical functions: ABS ... TRUNC, NumberBin, and the 64-bit integer family (IntAdd ... IntSub).
//
// A non-number argument gives undefined. Results may be NaN or infinite (e.g. SQRT(-1), LOG(0)); the
// engine refuses to serialise those later. Functions whose result stays integral (ABS, CEILING, FLOOR,
// ROUND, TRUNC, SIGN, SQUARE, POWER, NumberBin) keep an integer input an exact int64 when the result
// fits; everything else computes in double precision.
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <optional>
#include <random>

#include "query/functions/function.h"

namespace cosmos::query {

namespace {

using DoubleFn = double (*)(double);
using IntOp = std::optional<int64_t> (*)(int64_t, int64_t);

constexpr int64_t kMinInt = std::numeric_limits<int64_t>::min();

// The value as an exact int64 when it is held as one (not a double, not an integer beyond int64).
bool AsInt(Val v, int64_t& out) {
  if (!v.IsNumber() || v.json().IsDouble() || !v.json().IsInt64()) return false;
  out = v.AsInt64();
  return true;
}

// A one-argument function computed in double precision.
template <DoubleFn F>
Val Real(FunctionContext& ctx, std::span<const Val> args) {
  if (!args[0].IsNumber()) return Val();
  return ctx.arena.Number(F(args[0].AsNumber()));
}

// Rounding to an integral value: an integer input is already integral and is returned as is.
template <DoubleFn F>
Val Rounding(FunctionContext& ctx, std::span<const Val> args) {
  if (!args[0].IsNumber()) return Val();
  if (args[0].IsInteger()) return args[0];
  return ctx.arena.Number(F(args[0].AsNumber()));
}

double Acos(double x) { return std::acos(x); }
double Asin(double x) { return std::asin(x); }
double Atan(double x) { return std::atan(x); }
double Ceiling(double x) { return std::ceil(x); }
double Cos(double x) { return std::cos(x); }
double Cot(double x) { return 1.0 / std::tan(x); }
double Degrees(double x) { return 180.0 / std::numbers::pi * x; }
double Exp(double x) { return std::exp(x); }
double Floor(double x) { return std::floor(x); }
double Log10(double x) { return std::log10(x); }
double Radians(double x) { return std::numbers::pi * x / 180.0; }
double Round(double x) { return std::round(x); }  // midpoints away from zero, as documented
double Sin(double x) { return std::sin(x); }
double Sqrt(double x) { return std::sqrt(x); }
double Tan(double x) { return std::tan(x); }
double Trunc(double x) { return std::trunc(x); }

// ABS: int64 for integers (except the one whose magnitude does not fit), double otherwise.
Val Abs(FunctionContext& ctx, std::span<const Val> args) {
  int64_t i;
  if (AsInt(args[0], i) && i != kMinInt) return ctx.arena.Int(i < 0 ? -i : i);
  if (!args[0].IsNumber()) return Val();
  return ctx.arena.Number(std::fabs(args[0].AsNumber()));
}

// ATN2(y, x): the angle of the point (x, y), i.e. the arctangent of y/x in the correct quadrant.
Val Atn2(FunctionContext& ctx, std::span<const Val> args) {
  if (!args[0].IsNumber() || !args[1].IsNumber()) return Val();
  return ctx.arena.Number(std::atan2(args[0].AsNumber(), args[1].AsNumber()));
}

// LOG(x): natural logarithm; LOG(x, base): logarithm in that base (computed as log10(x) / log10(base)).
Val Log(FunctionContext& ctx, std::span<const Val> args) {
  if (!args[0].IsNumber()) return Val();
  double x = args[0].AsNumber();
  if (args.size() == 1) return ctx.arena.Number(std::log(x));
  if (!args[1].IsNumber()) return Val();
  return ctx.arena.Number(std::log10(x) / std::log10(args[1].AsNumber()));
}

// Exact integer power by squaring; false when a step overflows int64.
bool IntPower(int64_t base, int64_t exp, int64_t& out) {
  int64_t result = 1;
  while (true) {
    if ((exp & 1) && __builtin_mul_overflow(result, base, &result)) return false;
    exp >>= 1;
    if (exp == 0) break;
    if (__builtin_mul_overflow(base, base, &base)) return false;
  }
  out = result;
  return true;
}

// POWER: exact int64 for an integer base and non-negative integer exponent when it fits; else pow().
Val Power(FunctionContext& ctx, std::span<const Val> args) {
  if (!args[0].IsNumber() || !args[1].IsNumber()) return Val();
  int64_t base, exp, result;
  if (AsInt(args[0], base) && AsInt(args[1], exp) && exp >= 0 && IntPower(base, exp, result)) {
    return ctx.arena.Int(result);
  }
  return ctx.arena.Number(std::pow(args[0].AsNumber(), args[1].AsNumber()));
}

// SIGN: -1, 0 or 1, as an integer for an integer input; NaN stays NaN.
Val Sign(FunctionContext& ctx, std::span<const Val> args) {
  if (!args[0].IsNumber()) return Val();
  double x = args[0].AsNumber();
  if (std::isnan(x)) return ctx.arena.Number(x);
  int sign = x > 0 ? 1 : (x < 0 ? -1 : 0);
  return args[0].IsInteger() ? ctx.arena.Int(sign) : ctx.arena.Number(sign);
}

// SQUARE: exact int64 for an integer whose square fits; double otherwise.
Val Square(FunctionContext& ctx, std::span<const Val> args) {
  int64_t i, result;
  if (AsInt(args[0], i) && !__builtin_mul_overflow(i, i, &result)) return ctx.arena.Int(result);
  if (!args[0].IsNumber()) return Val();
  double x = args[0].AsNumber();
  return ctx.arena.Number(x * x);
}

// floor(x / bin) * bin in int64; false when it overflows.
bool IntBin(int64_t x, int64_t bin, int64_t& out) {
  if (x == kMinInt && bin == -1) return false;
  int64_t q = x / bin;
  if (x % bin != 0 && ((x < 0) != (bin < 0))) --q;
  return !__builtin_mul_overflow(q, bin, &out);
}

// NumberBin(x [, bin]): x rounded down to a multiple of bin (default 1); undefined for a zero bin.
Val NumberBin(FunctionContext& ctx, std::span<const Val> args) {
  if (!args[0].IsNumber()) return Val();
  if (args.size() == 1) return args[0].IsInteger() ? args[0] : ctx.arena.Number(std::floor(args[0].AsNumber()));
  if (!args[1].IsNumber()) return Val();
  double bin = args[1].AsNumber();
  if (bin == 0) return Val();
  int64_t xi, bi, result;
  if (AsInt(args[0], xi) && AsInt(args[1], bi) && IntBin(xi, bi, result)) return ctx.arena.Int(result);
  return ctx.arena.Number(std::floor(args[0].AsNumber() / bin) * bin);
}

Val Pi(FunctionContext& ctx, std::span<const Val>) { return ctx.arena.Number(std::numbers::pi); }

// RAND: a uniformly distributed double in [0, 1).
Val Rand(FunctionContext& ctx, std::span<const Val>) {
  thread_local std::mt19937_64 engine{std::random_device{}()};
  return ctx.arena.Number(static_cast<double>(engine() >> 11) * 0x1.0p-53);
}

// The integer family: both arguments must be int64 integers; arithmetic wraps around like C++
// two's-complement int64 (computed on uint64 to stay well defined). nullopt gives undefined.
template <IntOp Op>
Val IntBinary(FunctionContext& ctx, std::span<const Val> args) {
  int64_t a, b;
  if (!AsInt(args[0], a) || !AsInt(args[1], b)) return Val();
  std::optional<int64_t> result = Op(a, b);
  return result ? ctx.arena.Int(*result) : Val();
}

uint64_t U(int64_t i) { return static_cast<uint64_t>(i); }

std::optional<int64_t> Add(int64_t a, int64_t b) { return static_cast<int64_t>(U(a) + U(b)); }
std::optional<int64_t> Sub(int64_t a, int64_t b) { return static_cast<int64_t>(U(a) - U(b)); }
std::optional<int64_t> Mul(int64_t a, int64_t b) { return static_cast<int64_t>(U(a) * U(b)); }
std::optional<int64_t> And(int64_t a, int64_t b) { return a & b; }
std::optional<int64_t> Or(int64_t a, int64_t b) { return a | b; }
std::optional<int64_t> Xor(int64_t a, int64_t b) { return a ^ b; }
// Shift counts use their low 6 bits, as the x86-64 shift instructions do; right shifts are arithmetic.
std::optional<int64_t> LeftShift(int64_t a, int64_t b) { return static_cast<int64_t>(U(a) << (b & 63)); }
std::optional<int64_t> RightShift(int64_t a, int64_t b) { return a >> (b & 63); }

// Truncating division; undefined when dividing by zero; INT64_MIN / -1 wraps to INT64_MIN.
std::optional<int64_t> Div(int64_t a, int64_t b) {
  if (b == 0) return std::nullopt;
  return b == -1 ? static_cast<int64_t>(0 - U(a)) : a / b;
}

// Remainder with the sign of the dividend; undefined for a zero divisor.
std::optional<int64_t> Mod(int64_t a, int64_t b) {
  if (b == 0) return std::nullopt;
  return b == -1 ? 0 : a % b;
}

Val IntBitNot(FunctionContext& ctx, std::span<const Val> args) {
  int64_t a;
  if (!AsInt(args[0], a)) return Val();
  return ctx.arena.Int(~a);
}

constexpr FunctionDef kMathFunctions[] = {
    {"ABS", 1, 1, Abs},
    {"ACOS", 1, 1, Real<Acos>},
    {"ASIN", 1, 1, Real<Asin>},
    {"ATAN", 1, 1, Real<Atan>},
    {"ATN2", 2, 2, Atn2},
    {"CEILING", 1, 1, Rounding<Ceiling>},
    {"COS", 1, 1, Real<Cos>},
    {"COT", 1, 1, Real<Cot>},
    {"DEGREES", 1, 1, Real<Degrees>},
    {"EXP", 1, 1, Real<Exp>},
    {"FLOOR", 1, 1, Rounding<Floor>},
    {"IntAdd", 2, 2, IntBinary<Add>},
    {"IntBitAnd", 2, 2, IntBinary<And>},
    {"IntBitLeftShift", 2, 2, IntBinary<LeftShift>},
    {"IntBitNot", 1, 1, IntBitNot},
    {"IntBitOr", 2, 2, IntBinary<Or>},
    {"IntBitRightShift", 2, 2, IntBinary<RightShift>},
    {"IntBitXor", 2, 2, IntBinary<Xor>},
    {"IntDiv", 2, 2, IntBinary<Div>},
    {"IntMod", 2, 2, IntBinary<Mod>},
    {"IntMul", 2, 2, IntBinary<Mul>},
    {"IntSub", 2, 2, IntBinary<Sub>},
    {"LOG", 1, 2, Log},
    {"LOG10", 1, 1, Real<Log10>},
    {"NumberBin", 1, 2, NumberBin},
    {"PI", 0, 0, Pi},
    {"POWER", 2, 2, Power},
    {"RADIANS", 1, 1, Real<Radians>},
    {"RAND", 0, 0, Rand},
    {"ROUND", 1, 1, Rounding<Round>},
    {"SIGN", 1, 1, Sign},
    {"SIN", 1, 1, Real<Sin>},
    {"SQRT", 1, 1, Real<Sqrt>},
    {"SQUARE", 1, 1, Square},
    {"TAN", 1, 1, Real<Tan>},
    {"TRUNC", 1, 1, Rounding<Trunc>},
};

}  // namespace

std::span<const FunctionDef> MathFunctions() { return kMathFunctions; }

}  // namespace cosmos::query
