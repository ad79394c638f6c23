// IIF: the second argument only when the first is the boolean true.
#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <vector>

#include "query/functions/function.h"
#include "function_test.h"

namespace cosmos::query {
namespace {

class ConditionalFunctionTest : public FunctionTest {
 protected:
  // IIF(cond, a, b) through the registry.
  Val Iif(Val cond, Val a, Val b) { return Call("iif", {cond, a, b}); }
};

TEST_F(ConditionalFunctionTest, Registered) {
  const FunctionDef* def = FindFunction("IIF");
  ASSERT_NE(def, nullptr);
  EXPECT_EQ(def->name, "IIF");
  EXPECT_EQ(def->min_args, 3);
  EXPECT_EQ(def->max_args, 3);
}

TEST_F(ConditionalFunctionTest, OnlyBooleanTrueSelectsTheSecond) {
  Val a = J("123"), b = J("456");
  EXPECT_EQ(Iif(J("true"), a, b).ptr(), a.ptr());
  EXPECT_EQ(Iif(J("false"), a, b).ptr(), b.ptr());
  for (const char* cond :
       {"123", "1", "0", "\"ABC\"", "\"true\"", "[1,2,3]", "[true]", R"({"name":"Alice","age":20})", "null"}) {
    EXPECT_EQ(Iif(J(cond), a, b).ptr(), b.ptr()) << cond;
  }
  EXPECT_EQ(Iif(Val(), a, b).ptr(), b.ptr());
}

TEST_F(ConditionalFunctionTest, ResultsMayBeUndefinedOrAnyType) {
  EXPECT_TRUE(Iif(J("true"), Val(), J("1")).IsUndefined());
  EXPECT_TRUE(Iif(J("false"), J("1"), Val()).IsUndefined());
  Val obj = J(R"({"a":[1,2]})");
  EXPECT_EQ(Iif(J("true"), obj, Val()).ptr(), obj.ptr());
}

}  // namespace
}  // namespace cosmos::query
