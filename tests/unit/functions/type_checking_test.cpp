// The type checking functions: always a boolean, for every type including undefined.
#include <gtest/gtest.h>

#include <cmath>
#include <deque>
#include <string>
#include <vector>

#include "query/functions/function.h"
#include "function_test.h"

namespace cosmos::query {
namespace {

class TypeCheckingFunctionTest : public FunctionTest {
 protected:
  // Calls a one-argument registered function and returns its boolean result as text.
  std::string Check(std::string_view name, Val arg) {
    const FunctionDef* def = FindFunction(name);
    if (def == nullptr) return "no such function";
    EXPECT_EQ(def->min_args, 1);
    EXPECT_EQ(def->max_args, 1);
    std::vector<Val> args{arg};
    FunctionContext ctx = Context();
    Val result = def->fn(ctx, args);
    if (!result.IsBool()) return "not a boolean";
    return result.AsBool() ? "true" : "false";
  }

  // Applies `name` to one value of each kind; the answers, in order, as "tftff...".
  std::string Row(std::string_view name) {
    std::string out;
    for (Val v : {Val(), J("null"), J("true"), J("false"), J("0"), J("-5"), J("1.5"), J("\"\""), J("\"abc\""), J("[]"),
                  J("[1,2]"), J("{}"), J("{\"a\":1}")}) {
      std::string r = Check(name, v);
      out += r == "true" ? 't' : (r == "false" ? 'f' : '?');
    }
    return out;
  }
};

// Columns: undefined, null, true, false, 0, -5, 1.5, "", "abc", [], [1,2], {}, {"a":1}.
TEST_F(TypeCheckingFunctionTest, EachKindOfValue) {
  EXPECT_EQ(Row("IS_ARRAY"), "fffffffffttff");
  EXPECT_EQ(Row("IS_BOOL"), "ffttfffffffff");
  EXPECT_EQ(Row("IS_DEFINED"), "ftttttttttttt");
  EXPECT_EQ(Row("IS_FINITE_NUMBER"), "fffftttffffff");
  EXPECT_EQ(Row("IS_INTEGER"), "ffffttfffffff");
  EXPECT_EQ(Row("IS_NULL"), "ftfffffffffff");
  EXPECT_EQ(Row("IS_NUMBER"), "fffftttffffff");
  EXPECT_EQ(Row("IS_OBJECT"), "ffffffffffftt");
  EXPECT_EQ(Row("IS_PRIMITIVE"), "fttttttttffff");
  EXPECT_EQ(Row("IS_STRING"), "fffffffttffff");
}

TEST_F(TypeCheckingFunctionTest, LookupIsCaseInsensitive) {
  EXPECT_EQ(Check("is_number", J("1")), "true");
  EXPECT_EQ(Check("Is_Defined", Val()), "false");
}

TEST_F(TypeCheckingFunctionTest, IsInteger) {
  EXPECT_EQ(Check("IS_INTEGER", J("3454.123")), "false");
  EXPECT_EQ(Check("IS_INTEGER", J("5523432")), "true");
  EXPECT_EQ(Check("IS_INTEGER", J("-9223372036854775808")), "true");
  EXPECT_EQ(Check("IS_INTEGER", J("9223372036854775807")), "true");
  EXPECT_EQ(Check("IS_INTEGER", J("18446744073709551615")), "false");  // beyond int64
  EXPECT_EQ(Check("IS_INTEGER", arena_.Int(7)), "true");
  EXPECT_EQ(Check("IS_INTEGER", arena_.Number(7)), "false");
}

TEST_F(TypeCheckingFunctionTest, IsFiniteNumber) {
  EXPECT_EQ(Check("IS_FINITE_NUMBER", J("1234.567")), "true");
  EXPECT_EQ(Check("IS_FINITE_NUMBER", arena_.Number(8.9 / 0.0)), "false");
  EXPECT_EQ(Check("IS_FINITE_NUMBER", arena_.Number(-HUGE_VAL)), "false");
  EXPECT_EQ(Check("IS_FINITE_NUMBER", arena_.Number(NAN)), "false");
  EXPECT_EQ(Check("IS_FINITE_NUMBER", J("18446744073709551615")), "true");
}

TEST_F(TypeCheckingFunctionTest, DocumentedExamples) {
  // IS_NUMBER / IS_PRIMITIVE on a property read: {"quantity": 0}.quantity, {"name": "x"}.name, {}.category.
  Val obj = J(R"({"quantity": 0, "name": "Tecozow coat", "onSale": false})");
  EXPECT_EQ(Check("IS_NUMBER", Val(obj.json()["quantity"])), "true");
  EXPECT_EQ(Check("IS_NUMBER", Val(obj.json()["name"])), "false");
  EXPECT_EQ(Check("IS_PRIMITIVE", Val(obj.json()["name"])), "true");
  EXPECT_EQ(Check("IS_PRIMITIVE", Val(obj.json()["onSale"])), "true");
  EXPECT_EQ(Check("IS_PRIMITIVE", Val()), "false");
  EXPECT_EQ(Check("IS_PRIMITIVE", J(R"(["green", "red", "yellow"])")), "false");
}

}  // namespace
}  // namespace cosmos::query
