// The mathematical functions, with the documented examples and the integer-vs-double results.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <string>
#include <vector>

#include "query/functions/function.h"
#include "function_test.h"

namespace cosmos::query {
namespace {

class MathFunctionTest : public FunctionTest {
 protected:
};

std::string Text(Val v) {
  if (v.IsUndefined()) return "undefined";
  if (v.IsNumber() && !std::isfinite(v.AsNumber())) return std::to_string(v.AsNumber());
  return json::Write(v.json());
}

// An exact int64 result.
testing::AssertionResult IsInt(Val v, int64_t want) {
  if (!v.IsInteger() || !v.json().IsInt64()) return testing::AssertionFailure() << "not an int64: " << Text(v);
  if (v.AsInt64() != want) return testing::AssertionFailure() << v.AsInt64() << " != " << want;
  return testing::AssertionSuccess();
}

// An exact double result (NaN matches NaN).
testing::AssertionResult IsDouble(Val v, double want) {
  if (!v.IsNumber() || !v.json().IsDouble()) return testing::AssertionFailure() << "not a double: " << Text(v);
  double got = v.AsNumber();
  if (got == want || (std::isnan(got) && std::isnan(want))) return testing::AssertionSuccess();
  return testing::AssertionFailure() << testing::PrintToString(got) << " != " << testing::PrintToString(want);
}

constexpr double kPi = 3.141592653589793;
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

TEST_F(MathFunctionTest, NamesAreRegisteredCaseInsensitively) {
  for (const char* name : {"abs", "Atn2", "intadd", "INTBITLEFTSHIFT", "numberbin", "NumberBin", "log10", "Rand"}) {
    EXPECT_NE(FindFunction(name), nullptr) << name;
  }
}

TEST_F(MathFunctionTest, NonNumbersGiveUndefined) {
  for (const char* name :
       {"ABS",   "ACOS",      "ASIN",    "ATAN",  "CEILING", "COS", "COT",  "DEGREES", "EXP", "FLOOR", "LOG",
        "LOG10", "NumberBin", "RADIANS", "ROUND", "SIGN",    "SIN", "SQRT", "SQUARE",  "TAN", "TRUNC"}) {
    for (Val arg : {J("null"), J("true"), J("\"1\""), J("[1]"), J("{}"), Val()}) {
      EXPECT_TRUE(Call(name, {arg}).IsUndefined()) << name << "(" << Text(arg) << ")";
    }
  }
  EXPECT_TRUE(Call("POWER", {J("null"), J("3")}).IsUndefined());
  EXPECT_TRUE(Call("POWER", {J("2"), J("null")}).IsUndefined());
  EXPECT_TRUE(Call("ATN2", {J("1"), J("\"2\"")}).IsUndefined());
  EXPECT_TRUE(Call("LOG", {J("8"), J("\"2\"")}).IsUndefined());
  EXPECT_TRUE(Call("NumberBin", {J("8"), Val()}).IsUndefined());
}

TEST_F(MathFunctionTest, AbsKeepsIntegers) {
  EXPECT_TRUE(IsInt(Call("ABS", {J("-1")}), 1));
  EXPECT_TRUE(IsInt(Call("ABS", {J("0")}), 0));
  EXPECT_TRUE(IsInt(Call("ABS", {J("1")}), 1));
  EXPECT_TRUE(IsInt(Call("ABS", {J("-5")}), 5));
  EXPECT_TRUE(IsDouble(Call("ABS", {J("-2.5")}), 2.5));
  EXPECT_TRUE(IsDouble(Call("ABS", {J("-9223372036854775808")}), 9223372036854775808.0));
}

TEST_F(MathFunctionTest, CeilingFloorRoundTrunc) {
  EXPECT_TRUE(IsDouble(Call("CEILING", {J("123.45")}), 124));
  EXPECT_TRUE(IsDouble(Call("CEILING", {J("-45.72")}), -45));
  EXPECT_TRUE(IsInt(Call("CEILING", {J("0")}), 0));
  EXPECT_TRUE(IsDouble(Call("FLOOR", {J("62.6")}), 62));
  EXPECT_TRUE(IsDouble(Call("FLOOR", {J("-145.12")}), -146));
  EXPECT_TRUE(IsDouble(Call("FLOOR", {J("0.2989")}), 0));
  EXPECT_TRUE(IsDouble(Call("FLOOR", {J("0.0")}), 0));
  EXPECT_TRUE(IsInt(Call("FLOOR", {J("-7")}), -7));
  EXPECT_TRUE(IsDouble(Call("TRUNC", {J("2.37")}), 2));
  EXPECT_TRUE(IsDouble(Call("TRUNC", {J("-2.78")}), -2));
  EXPECT_TRUE(IsInt(Call("TRUNC", {J("2")}), 2));
  EXPECT_TRUE(IsDouble(Call("TRUNC", {J("0.0000714")}), 0));
  EXPECT_TRUE(IsDouble(Call("TRUNC", {Call("PI", {})}), 3));
  EXPECT_TRUE(IsInt(Call("ROUND", {J("9223372036854775807")}), kMax));
}

TEST_F(MathFunctionTest, RoundHalfAwayFromZero) {
  EXPECT_TRUE(IsDouble(Call("ROUND", {J("2.4")}), 2));
  EXPECT_TRUE(IsDouble(Call("ROUND", {J("2.6")}), 3));
  EXPECT_TRUE(IsDouble(Call("ROUND", {J("2.5")}), 3));
  EXPECT_TRUE(IsDouble(Call("ROUND", {J("-2.4")}), -2));
  EXPECT_TRUE(IsDouble(Call("ROUND", {J("-2.6")}), -3));
  EXPECT_TRUE(IsDouble(Call("ROUND", {J("-6.5000")}), -7));
  EXPECT_TRUE(IsDouble(Call("ROUND", {J("-0.5")}), -1));
  EXPECT_TRUE(IsDouble(Call("ROUND", {J("0.5")}), 1));
  EXPECT_TRUE(IsDouble(Call("ROUND", {J("6.5000")}), 7));
  EXPECT_TRUE(IsInt(Call("ROUND", {J("-3")}), -3));
}

TEST_F(MathFunctionTest, Sign) {
  EXPECT_TRUE(IsInt(Call("SIGN", {J("-2")}), -1));
  EXPECT_TRUE(IsInt(Call("SIGN", {J("-1")}), -1));
  EXPECT_TRUE(IsInt(Call("SIGN", {J("0")}), 0));
  EXPECT_TRUE(IsInt(Call("SIGN", {J("1")}), 1));
  EXPECT_TRUE(IsInt(Call("SIGN", {J("2")}), 1));
  EXPECT_TRUE(IsDouble(Call("SIGN", {J("-0.25")}), -1));
  EXPECT_TRUE(IsDouble(Call("SIGN", {J("0.0")}), 0));
  EXPECT_TRUE(IsDouble(Call("SIGN", {J("1e300")}), 1));
}

TEST_F(MathFunctionTest, SquareAndSqrt) {
  EXPECT_TRUE(IsInt(Call("SQUARE", {J("0")}), 0));
  EXPECT_TRUE(IsInt(Call("SQUARE", {J("1")}), 1));
  EXPECT_TRUE(IsInt(Call("SQUARE", {J("2")}), 4));
  EXPECT_TRUE(IsInt(Call("SQUARE", {J("-3")}), 9));
  EXPECT_TRUE(IsDouble(Call("SQUARE", {J("2.5")}), 6.25));
  EXPECT_TRUE(IsDouble(Call("SQUARE", {J("3037000500")}), 9.22337203700025e18));  // beyond int64
  EXPECT_TRUE(IsDouble(Call("SQRT", {J("0")}), 0));
  EXPECT_TRUE(IsDouble(Call("SQRT", {J("1")}), 1));
  EXPECT_TRUE(IsDouble(Call("SQRT", {J("4")}), 2));
  EXPECT_TRUE(IsDouble(Call("SQRT", {J("17")}), 4.123105625617661));
  EXPECT_TRUE(IsDouble(Call("SQRT", {J("25")}), 5));
  EXPECT_TRUE(IsDouble(Call("SQRT", {J("-1.0")}), NAN));
}

TEST_F(MathFunctionTest, Power) {
  EXPECT_TRUE(IsInt(Call("POWER", {J("1"), J("1")}), 1));
  EXPECT_TRUE(IsInt(Call("POWER", {J("2"), J("2")}), 4));
  EXPECT_TRUE(IsInt(Call("POWER", {J("3"), J("3")}), 27));
  EXPECT_TRUE(IsInt(Call("POWER", {J("4"), J("4")}), 256));
  EXPECT_TRUE(IsInt(Call("POWER", {J("5"), J("5")}), 3125));
  EXPECT_TRUE(IsInt(Call("POWER", {J("0"), J("2")}), 0));
  EXPECT_TRUE(IsInt(Call("POWER", {J("-2"), J("3")}), -8));
  EXPECT_TRUE(IsInt(Call("POWER", {J("7"), J("0")}), 1));
  EXPECT_TRUE(IsInt(Call("POWER", {J("2"), J("62")}), int64_t{1} << 62));
  EXPECT_TRUE(IsDouble(Call("POWER", {J("2"), J("64")}), 18446744073709551616.0));
  EXPECT_TRUE(IsDouble(Call("POWER", {J("2"), J("-1")}), 0.5));
  EXPECT_TRUE(IsDouble(Call("POWER", {J("2"), J("0.5")}), 1.4142135623730951));
  EXPECT_TRUE(IsDouble(Call("POWER", {J("2.5"), J("2")}), 6.25));
}

TEST_F(MathFunctionTest, ExpAndLogarithms) {
  EXPECT_TRUE(IsDouble(Call("EXP", {J("0")}), 1));
  EXPECT_TRUE(IsDouble(Call("EXP", {J("10")}), 22026.465794806718));
  EXPECT_TRUE(IsDouble(Call("EXP", {J("20")}), 485165195.4097903));
  EXPECT_TRUE(IsDouble(Call("LOG", {J("5")}), 1.6094379124341003));
  EXPECT_TRUE(IsDouble(Call("LOG", {J("2"), J("10")}), 0.3010299956639812));
  EXPECT_TRUE(IsDouble(Call("LOG", {J("8"), J("2")}), 3));
  EXPECT_TRUE(IsDouble(Call("LOG", {Call("EXP", {J("3")})}), 3));
  EXPECT_TRUE(IsDouble(Call("LOG", {J("0")}), -INFINITY));
  EXPECT_TRUE(IsDouble(Call("LOG10", {J("5")}), 0.6989700043360189));
  EXPECT_TRUE(IsDouble(Call("LOG10", {J("2")}), 0.3010299956639812));
  EXPECT_TRUE(IsDouble(Call("LOG10", {J("100")}), 2));
  EXPECT_TRUE(IsDouble(Call("LOG10", {J("-1")}), NAN));
}

TEST_F(MathFunctionTest, Trigonometry) {
  EXPECT_TRUE(IsDouble(Call("ACOS", {J("-1")}), kPi));
  EXPECT_TRUE(IsDouble(Call("ASIN", {J("1")}), kPi / 2));
  EXPECT_TRUE(IsDouble(Call("ATAN", {J("-45.01")}), -1.5485826962062663));
  EXPECT_TRUE(IsDouble(Call("ATN2", {J("35.175643"), J("129.44")}), 0.265344532064832));
  EXPECT_TRUE(IsDouble(Call("ATN2", {J("1"), J("-1")}), 3 * kPi / 4));  // y first, x second
  EXPECT_TRUE(IsDouble(Call("COS", {J("14.78")}), -0.5994654261946543));
  EXPECT_TRUE(IsDouble(Call("COT", {J("124.1332")}), -0.040311998371148884));
  EXPECT_TRUE(IsDouble(Call("SIN", {J("45.175643")}), 0.929607286611012));
  EXPECT_TRUE(IsDouble(Call("TAN", {J("124.1332")}), -24.80651023035602));
  EXPECT_TRUE(IsDouble(Call("TAN", {Call("PI", {})}), std::tan(kPi)));
  EXPECT_TRUE(IsDouble(Call("ACOS", {J("2")}), NAN));
}

TEST_F(MathFunctionTest, DegreesRadiansPi) {
  EXPECT_TRUE(IsDouble(Call("PI", {}), kPi));
  EXPECT_TRUE(IsDouble(Call("DEGREES", {J("1.5707963267948966")}), 90));
  EXPECT_TRUE(IsDouble(Call("DEGREES", {J("3.141592653589793")}), 180));
  EXPECT_TRUE(IsDouble(Call("DEGREES", {J("4.71238898038469")}), 270));
  EXPECT_TRUE(IsDouble(Call("DEGREES", {J("6.283185307179586")}), 360));
  EXPECT_TRUE(IsDouble(Call("RADIANS", {J("90")}), 1.5707963267948966));
  EXPECT_TRUE(IsDouble(Call("RADIANS", {J("180")}), 3.141592653589793));
  EXPECT_TRUE(IsDouble(Call("RADIANS", {J("270")}), 4.71238898038469));
  EXPECT_TRUE(IsDouble(Call("RADIANS", {J("360")}), 6.283185307179586));
}

TEST_F(MathFunctionTest, RandIsADoubleInUnitInterval) {
  bool differs = false;
  double first = Call("RAND", {}).AsNumber();
  for (int i = 0; i < 1000; ++i) {
    Val v = Call("RAND", {});
    ASSERT_TRUE(v.IsNumber() && v.json().IsDouble());
    EXPECT_GE(v.AsNumber(), 0.0);
    EXPECT_LT(v.AsNumber(), 1.0);
    differs = differs || v.AsNumber() != first;
  }
  EXPECT_TRUE(differs);
}

TEST_F(MathFunctionTest, NumberBin) {
  EXPECT_TRUE(IsDouble(Call("NumberBin", {J("37.752"), J("-100")}), 100));
  EXPECT_TRUE(IsDouble(Call("NumberBin", {J("37.752"), J("10")}), 30));
  EXPECT_TRUE(IsDouble(Call("NumberBin", {J("37.752"), J("1")}), 37));
  EXPECT_TRUE(Call("NumberBin", {J("37.752"), J("0")}).IsUndefined());
  EXPECT_TRUE(Call("NumberBin", {J("37"), J("0.0")}).IsUndefined());
  EXPECT_TRUE(IsDouble(Call("NumberBin", {J("37.752"), J("0.1")}), 37.7));
  EXPECT_TRUE(IsDouble(Call("NumberBin", {J("37.752"), J("0.01")}), 37.75));
  EXPECT_TRUE(IsDouble(Call("NumberBin", {J("37.752")}), 37));
  EXPECT_TRUE(IsDouble(Call("NumberBin", {J("-0.5")}), -1));
  EXPECT_TRUE(IsInt(Call("NumberBin", {J("37")}), 37));
  EXPECT_TRUE(IsInt(Call("NumberBin", {J("37"), J("10")}), 30));
  EXPECT_TRUE(IsInt(Call("NumberBin", {J("-37"), J("10")}), -40));
  EXPECT_TRUE(IsInt(Call("NumberBin", {J("37"), J("-100")}), 100));
  EXPECT_TRUE(IsInt(Call("NumberBin", {J("40"), J("10")}), 40));
  EXPECT_TRUE(IsDouble(Call("NumberBin", {J("37"), J("2.5")}), 35));
}

TEST_F(MathFunctionTest, IntegerArithmetic) {
  EXPECT_TRUE(IsInt(Call("IntAdd", {J("1234"), J("5678")}), 6912));
  EXPECT_TRUE(IsInt(Call("IntAdd", {J("-1234"), J("-5678")}), -6912));
  EXPECT_TRUE(IsInt(Call("IntAdd", {J("9223372036854775807"), J("1")}), kMin));  // wraps
  EXPECT_TRUE(IsInt(Call("IntSub", {J("5678"), J("1234")}), 4444));
  EXPECT_TRUE(IsInt(Call("IntSub", {J("-9223372036854775808"), J("1")}), kMax));
  EXPECT_TRUE(IsInt(Call("IntMul", {J("5"), J("-6")}), -30));
  EXPECT_TRUE(IsInt(Call("IntMul", {J("9223372036854775807"), J("2")}), -2));
  EXPECT_TRUE(IsInt(Call("IntDiv", {J("10"), J("2")}), 5));
  EXPECT_TRUE(IsInt(Call("IntDiv", {J("10"), J("-2")}), -5));
  EXPECT_TRUE(IsInt(Call("IntDiv", {J("-10"), J("-2")}), 5));
  EXPECT_TRUE(IsInt(Call("IntDiv", {J("10"), J("10")}), 1));
  EXPECT_TRUE(IsInt(Call("IntDiv", {J("7"), J("2")}), 3));
  EXPECT_TRUE(IsInt(Call("IntDiv", {J("-7"), J("2")}), -3));
  EXPECT_TRUE(Call("IntDiv", {J("10"), J("0")}).IsUndefined());
  EXPECT_TRUE(Call("IntDiv", {J("10"), J("0.1")}).IsUndefined());
  EXPECT_TRUE(IsInt(Call("IntDiv", {J("-9223372036854775808"), J("-1")}), kMin));
  EXPECT_TRUE(IsInt(Call("IntMod", {J("12"), J("5")}), 2));
  EXPECT_TRUE(IsInt(Call("IntMod", {J("12"), J("-5")}), 2));
  EXPECT_TRUE(IsInt(Call("IntMod", {J("-12"), J("-5")}), -2));
  EXPECT_TRUE(IsInt(Call("IntMod", {J("15"), J("5")}), 0));
  EXPECT_TRUE(Call("IntMod", {J("12"), J("0")}).IsUndefined());
  EXPECT_TRUE(Call("IntMod", {J("12"), J("0.2")}).IsUndefined());
  EXPECT_TRUE(IsInt(Call("IntMod", {J("-9223372036854775808"), J("-1")}), 0));
}

TEST_F(MathFunctionTest, IntegerBitwise) {
  EXPECT_TRUE(IsInt(Call("IntBitAnd", {J("12"), J("10")}), 8));
  EXPECT_TRUE(IsInt(Call("IntBitOr", {J("12"), J("10")}), 14));
  EXPECT_TRUE(IsInt(Call("IntBitXor", {J("12"), J("10")}), 6));
  EXPECT_TRUE(IsInt(Call("IntBitNot", {J("65")}), -66));
  EXPECT_TRUE(IsInt(Call("IntBitNot", {J("0")}), -1));
  EXPECT_TRUE(Call("IntBitNot", {J("0.1")}).IsUndefined());
  EXPECT_TRUE(IsInt(Call("IntBitLeftShift", {J("16"), J("4")}), 256));
  EXPECT_TRUE(Call("IntBitLeftShift", {J("16"), J("0.4")}).IsUndefined());
  EXPECT_TRUE(IsInt(Call("IntBitLeftShift", {J("1"), J("63")}), kMin));
  EXPECT_TRUE(IsInt(Call("IntBitRightShift", {J("16"), J("4")}), 1));
  EXPECT_TRUE(Call("IntBitRightShift", {J("16"), J("0.4")}).IsUndefined());
  EXPECT_TRUE(IsInt(Call("IntBitRightShift", {J("-16"), J("2")}), -4));  // arithmetic shift
}

TEST_F(MathFunctionTest, IntegerFunctionsNeedInt64Arguments) {
  for (const char* name : {"IntAdd", "IntBitAnd", "IntBitLeftShift", "IntBitOr", "IntBitRightShift", "IntBitXor",
                           "IntDiv", "IntMod", "IntMul", "IntSub"}) {
    for (Val bad : {J("1.0"), J("1.5"), J("18446744073709551615"), J("\"1\""), J("null"), J("true"), Val()}) {
      EXPECT_TRUE(Call(name, {bad, J("1")}).IsUndefined()) << name << "(" << Text(bad) << ", 1)";
      EXPECT_TRUE(Call(name, {J("1"), bad}).IsUndefined()) << name << "(1, " << Text(bad) << ")";
    }
  }
  EXPECT_TRUE(Call("IntBitNot", {J("18446744073709551615")}).IsUndefined());
}

}  // namespace
}  // namespace cosmos::query
