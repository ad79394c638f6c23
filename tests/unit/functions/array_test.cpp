// The array functions, with the documented examples and the undefined-on-wrong-type cases.
#include <gtest/gtest.h>

#include <cmath>
#include <deque>
#include <string>
#include <vector>

#include "query/functions/function.h"
#include "function_test.h"

namespace cosmos::query {
namespace {

class ArrayFunctionTest : public FunctionTest {
 protected:
  // The result of Call as compact JSON text, or "undefined"; doubles are marked "double ".
  std::string Text(std::string_view name, std::vector<Val> args) {
    Val v = Call(name, std::move(args));
    if (v.IsUndefined()) return "undefined";
    if (v.IsNumber() && v.json().IsDouble()) return "double " + json::Write(v.json());
    return json::Write(v.json());
  }
};

TEST_F(ArrayFunctionTest, Concat) {
  EXPECT_EQ(Text("ARRAY_CONCAT", {J(R"(["apples", "strawberries"])"), J(R"(["bananas"])")}),
            R"(["apples","strawberries","bananas"])");
  EXPECT_EQ(Text("ARRAY_CONCAT", {J("[1]"), J("[]"), J("[[2],{\"a\":3}]"), J("[null]")}), R"([1,[2],{"a":3},null])");
  EXPECT_EQ(Text("ARRAY_CONCAT", {J("[]"), J("[]")}), "[]");
  EXPECT_EQ(Text("ARRAY_CONCAT", {J("[1]"), J("2")}), "undefined");
  EXPECT_EQ(Text("ARRAY_CONCAT", {J("[1]"), J("[2]"), Val()}), "undefined");
  EXPECT_EQ(Text("ARRAY_CONCAT", {J("null"), J("[2]")}), "undefined");
}

TEST_F(ArrayFunctionTest, ContainsDocumentedExamples) {
  Val clothes = J(R"(["coats", "jackets", "sweatshirts"])");
  Val shirts = J(R"([{"category": "shirts", "color": "blue"}])");
  EXPECT_EQ(Text("ARRAY_CONTAINS", {clothes, J(R"("coats")")}), "true");
  EXPECT_EQ(Text("ARRAY_CONTAINS", {clothes, J(R"("hoodies")")}), "false");
  EXPECT_EQ(Text("ARRAY_CONTAINS", {shirts, J(R"({"category": "shirts", "color": "blue"})")}), "true");
  EXPECT_EQ(Text("ARRAY_CONTAINS", {shirts, J(R"({"category": "shirts"})")}), "false");
  EXPECT_EQ(Text("ARRAY_CONTAINS", {shirts, J(R"({"category": "shirts"})"), J("true")}), "true");
  EXPECT_EQ(Text("ARRAY_CONTAINS", {shirts, J(R"({"category": "shorts", "color": "blue"})"), J("true")}), "false");
  EXPECT_EQ(Text("ARRAY_CONTAINS", {shirts, J(R"({"category": "shirts"})"), J("false")}), "false");
}

TEST_F(ArrayFunctionTest, ContainsDetails) {
  EXPECT_EQ(Text("ARRAY_CONTAINS", {J("[1, 2, 3]"), J("2.0")}), "true");  // numbers compare by value
  EXPECT_EQ(Text("ARRAY_CONTAINS", {J("[[1, 2], 3]"), J("[1, 2]")}), "true");
  EXPECT_EQ(Text("ARRAY_CONTAINS", {J("[[1, 2], 3]"), J("[1]"), J("true")}), "false");  // partial is for objects
  EXPECT_EQ(Text("ARRAY_CONTAINS", {J("[3, \"a\"]"), J("\"a\""), J("true")}), "true");
  EXPECT_EQ(Text("ARRAY_CONTAINS", {J(R"([{"a": {"b": 1, "c": 2}}])"), J(R"({"a": {"b": 1}})"), J("true")}), "false");
  EXPECT_EQ(Text("ARRAY_CONTAINS", {J(R"([{"a": 1}])"), J("{}"), J("true")}), "true");
  EXPECT_EQ(Text("ARRAY_CONTAINS", {J(R"([1, {"a": 1}])"), J(R"({"a": 1, "b": 2})"), J("true")}), "false");
  EXPECT_EQ(Text("ARRAY_CONTAINS", {J("[null]"), J("null")}), "true");
  EXPECT_EQ(Text("ARRAY_CONTAINS", {J("[]"), J("1")}), "false");
  EXPECT_EQ(Text("ARRAY_CONTAINS", {J("[1]"), J("1"), Val()}), "true");  // undefined flag: full match
  EXPECT_EQ(Text("ARRAY_CONTAINS", {J("[1]"), J("1"), J("1")}), "undefined");
  EXPECT_EQ(Text("ARRAY_CONTAINS", {J("[1]"), J("1"), J("\"true\"")}), "undefined");
  EXPECT_EQ(Text("ARRAY_CONTAINS", {J("[1]"), Val()}), "undefined");
  EXPECT_EQ(Text("ARRAY_CONTAINS", {J("\"abc\""), J("\"a\"")}), "undefined");
  EXPECT_EQ(Text("ARRAY_CONTAINS", {Val(), J("1")}), "undefined");
}

TEST_F(ArrayFunctionTest, ContainsAny) {
  EXPECT_EQ(Text("ARRAY_CONTAINS_ANY", {J(R"([1, true, "3", [1,2,3]])"), J("1"), J("true"), J("\"3\""), J("[1,2,3]")}),
            "true");
  EXPECT_EQ(Text("ARRAY_CONTAINS_ANY", {J("[1, 2, 3, 4]"), J("2"), J("3"), J("4"), J("5")}), "true");
  EXPECT_EQ(Text("ARRAY_CONTAINS_ANY", {J("[1, 2, 3, 4]"), J("1"), Val()}), "true");
  EXPECT_EQ(Text("ARRAY_CONTAINS_ANY", {J("[1, 2, 3, 4]"), J("5"), J("6"), J("7"), J("8")}), "false");
  EXPECT_EQ(Text("ARRAY_CONTAINS_ANY", {J("[]"), J("1"), J("2"), J("3")}), "false");
  EXPECT_EQ(Text("ARRAY_CONTAINS_ANY", {J("[1, 2, 3, 4]"), J("5"), Val()}), "undefined");
  EXPECT_EQ(Text("ARRAY_CONTAINS_ANY", {J("[1, 2, 3, 4]"), Val(), J("5")}), "undefined");
  EXPECT_EQ(Text("ARRAY_CONTAINS_ANY", {J(R"([{"a": 1}])"), J(R"({"a": 1})")}), "true");
  EXPECT_EQ(Text("ARRAY_CONTAINS_ANY", {J("{}"), J("1")}), "undefined");
}

TEST_F(ArrayFunctionTest, ContainsAll) {
  EXPECT_EQ(Text("ARRAY_CONTAINS_ALL", {J(R"([1, true, "3", [1,2,3]])"), J("1"), J("true"), J("\"3\""), J("[1,2,3]")}),
            "true");
  EXPECT_EQ(Text("ARRAY_CONTAINS_ALL", {J("[1, 2, 3, 4]"), J("2"), J("3"), J("4"), J("5")}), "false");
  EXPECT_EQ(Text("ARRAY_CONTAINS_ALL", {J("[1, 2, 3, 4]"), J("1"), Val()}), "undefined");
  EXPECT_EQ(Text("ARRAY_CONTAINS_ALL", {J("[1, 2, 3, 4]"), J("5"), J("6"), J("7"), J("8")}), "false");
  EXPECT_EQ(Text("ARRAY_CONTAINS_ALL", {J("[]"), J("1"), J("2"), J("3")}), "false");
  EXPECT_EQ(Text("ARRAY_CONTAINS_ALL", {J("[1, 2, 3, 4]"), J("5"), Val()}), "false");
  EXPECT_EQ(Text("ARRAY_CONTAINS_ALL", {J("[1, 2, 3, 4]"), J("4"), J("1.0")}), "true");
  EXPECT_EQ(Text("ARRAY_CONTAINS_ALL", {J("null"), J("1")}), "undefined");
}

TEST_F(ArrayFunctionTest, Length) {
  EXPECT_EQ(Text("ARRAY_LENGTH", {J("[70, 86, 92, 99, 85, 90, 82]")}), "7");
  EXPECT_EQ(Text("ARRAY_LENGTH", {J("[]")}), "0");
  EXPECT_EQ(Text("ARRAY_LENGTH", {J("null")}), "undefined");
  EXPECT_EQ(Text("ARRAY_LENGTH", {J("\"abc\"")}), "undefined");
  EXPECT_EQ(Text("ARRAY_LENGTH", {Val()}), "undefined");
}

TEST_F(ArrayFunctionTest, SliceDocumentedExamples) {
  Val scores = J("[70, 86, 92, 99, 85, 90, 82]");
  EXPECT_EQ(Text("ARRAY_SLICE", {scores, J("0")}), "[70,86,92,99,85,90,82]");
  EXPECT_EQ(Text("ARRAY_SLICE", {scores, J("1")}), "[86,92,99,85,90,82]");
  EXPECT_EQ(Text("ARRAY_SLICE", {scores, J("-1")}), "[82]");
  EXPECT_EQ(Text("ARRAY_SLICE", {scores, J("-2")}), "[90,82]");
  EXPECT_EQ(Text("ARRAY_SLICE", {scores, J("0"), J("3")}), "[70,86,92]");
  EXPECT_EQ(Text("ARRAY_SLICE", {scores, J("0"), J("12")}), "[70,86,92,99,85,90,82]");
  EXPECT_EQ(Text("ARRAY_SLICE", {scores, J("3"), J("5")}), "[99,85,90,82]");
  EXPECT_EQ(Text("ARRAY_SLICE", {scores, J("-2"), J("1")}), "[90]");
  Val fruit = J(R"(["apples", "strawberries", "bananas"])");
  EXPECT_EQ(Text("ARRAY_SLICE", {fruit, J("1")}), R"(["strawberries","bananas"])");
  EXPECT_EQ(Text("ARRAY_SLICE", {fruit, J("1"), J("1")}), R"(["strawberries"])");
  EXPECT_EQ(Text("ARRAY_SLICE", {fruit, J("-2"), J("1")}), R"(["strawberries"])");
  EXPECT_EQ(Text("ARRAY_SLICE", {fruit, J("-2"), J("2")}), R"(["strawberries","bananas"])");
  EXPECT_EQ(Text("ARRAY_SLICE", {fruit, J("1"), J("0")}), "[]");
  EXPECT_EQ(Text("ARRAY_SLICE", {fruit, J("1"), J("1000")}), R"(["strawberries","bananas"])");
  EXPECT_EQ(Text("ARRAY_SLICE", {fruit, J("1"), J("-100")}), "[]");
}

TEST_F(ArrayFunctionTest, SliceBounds) {
  Val abc = J(R"(["a", "b", "c"])");
  EXPECT_EQ(Text("ARRAY_SLICE", {abc, J("3")}), "[]");
  EXPECT_EQ(Text("ARRAY_SLICE", {abc, J("100"), J("2")}), "[]");
  EXPECT_EQ(Text("ARRAY_SLICE", {abc, J("-100")}), R"(["a","b","c"])");
  EXPECT_EQ(Text("ARRAY_SLICE", {abc, J("-100"), J("2")}), R"(["a","b"])");
  EXPECT_EQ(Text("ARRAY_SLICE", {abc, J("-9223372036854775808"), J("9223372036854775807")}), R"(["a","b","c"])");
  EXPECT_EQ(Text("ARRAY_SLICE", {abc, J("1.0"), J("1.0")}), R"(["b"])");
  EXPECT_EQ(Text("ARRAY_SLICE", {J("[]"), J("0")}), "[]");
  EXPECT_EQ(Text("ARRAY_SLICE", {abc, J("0.5")}), "undefined");
  EXPECT_EQ(Text("ARRAY_SLICE", {abc, J("0"), J("1.5")}), "undefined");
  EXPECT_EQ(Text("ARRAY_SLICE", {abc, J("\"1\"")}), "undefined");
  EXPECT_EQ(Text("ARRAY_SLICE", {abc, J("0"), J("null")}), "undefined");
  EXPECT_EQ(Text("ARRAY_SLICE", {abc, Val()}), "undefined");
  EXPECT_EQ(Text("ARRAY_SLICE", {J("\"abc\""), J("0")}), "undefined");
}

TEST_F(ArrayFunctionTest, SetIntersect) {
  EXPECT_EQ(Text("SetIntersect", {J("[1, 2, 3, 4]"), J("[3, 4, 5, 6]")}), "[3,4]");
  EXPECT_EQ(Text("SetIntersect", {J("[1, 2, 3, 4]"), J("[]")}), "[]");
  EXPECT_EQ(Text("SetIntersect", {J("[1, 2, 3, 4]"), J("[1, 1, 1, 1]")}), "[1]");
  EXPECT_EQ(Text("SetIntersect", {J("[1, 2, 3, 4]"), J(R"(["A", "B"])")}), "[]");
  EXPECT_EQ(Text("SetIntersect", {J(R"([1, 2, "A", "B"])"), J(R"(["A", 1])")}), R"(["A",1])");
  EXPECT_EQ(Text("SetIntersect", {J(R"(["Finch", "Mine Shaft", "Rhino"])"), J(R"(["Rhino", "Finch"])")}),
            R"(["Rhino","Finch"])");
  EXPECT_EQ(Text("SetIntersect", {J(R"([{"a":1}, [2]])"), J(R"([[2], {"a":1}, {"a":2}])")}), R"([[2],{"a":1}])");
  EXPECT_EQ(Text("SetIntersect", {J("[1]"), J("1")}), "undefined");
  EXPECT_EQ(Text("SetIntersect", {Val(), J("[1]")}), "undefined");
}

TEST_F(ArrayFunctionTest, SetUnion) {
  EXPECT_EQ(Text("SetUnion", {J("[1, 2, 3, 4]"), J("[3, 4, 5, 6]")}), "[1,2,3,4,5,6]");
  EXPECT_EQ(Text("SetUnion", {J("[1, 2, 3, 4]"), J("[]")}), "[1,2,3,4]");
  EXPECT_EQ(Text("SetUnion", {J("[1, 2, 3, 4]"), J("[1, 1, 1, 1]")}), "[1,2,3,4]");
  EXPECT_EQ(Text("SetUnion", {J(R"([1, 2, "A", "B"])"), J(R"(["A", 1])")}), R"([1,2,"A","B"])");
  EXPECT_EQ(Text("SetUnion",
                 {J(R"(["Cutty Sark", "Horizon", "Russet", "Fuscous"])"), J(R"(["Fuscous", "Horizon", "Tacha"])")}),
            R"(["Cutty Sark","Horizon","Russet","Fuscous","Tacha"])");
  EXPECT_EQ(Text("SetUnion", {J("[1, 1, 2]"), J("[2, 1.0, 3]")}), "[1,2,3]");
  EXPECT_EQ(Text("SetUnion", {J("[1]"), J("null")}), "undefined");
}

TEST_F(ArrayFunctionTest, SetDifference) {
  EXPECT_EQ(Text("SETDIFFERENCE", {J("[1, 2, 3]"), J("[1, 2, 6, 7]")}), "[3]");
  EXPECT_EQ(Text("SETDIFFERENCE", {J("[1, 2, 6, 7]"), J("[1, 2, 3]")}), "[6,7]");
  EXPECT_EQ(Text("SETDIFFERENCE", {J("[1, 2, 3, 4]"), J("[1, 2, 3, 4, 5, 6]")}), "[]");
  EXPECT_EQ(Text("SETDIFFERENCE", {J("[]"), J("[1, 2, 3]")}), "[]");
  EXPECT_EQ(Text("SETDIFFERENCE", {J("[1, 2, 3]"), J("[]")}), "[1,2,3]");
  EXPECT_EQ(Text("SETDIFFERENCE", {J("[1, 1, 1, 1]"), J("[2, 3, 4]")}), "[1]");
  EXPECT_EQ(Text("SETDIFFERENCE", {J("{}"), J("[]")}), "undefined");
}

TEST_F(ArrayFunctionTest, SetEqual) {
  EXPECT_EQ(Text("SETEQUAL", {J("[1, 2, 3]"), J("[1, 2, 3]")}), "true");
  EXPECT_EQ(Text("SETEQUAL", {J("[1, 2, 3]"), J("[3, 2, 1]")}), "true");
  EXPECT_EQ(Text("SETEQUAL", {J("[1, 2, 3, 3]"), J("[1, 2, 2, 3, 1, 2]")}), "true");
  EXPECT_EQ(Text("SETEQUAL", {J("[]"), J("[1, 2, 3]")}), "false");
  EXPECT_EQ(Text("SETEQUAL", {J(R"([1, true, "abc"])"), J(R"([true, 1, "abc"])")}), "true");
  EXPECT_EQ(Text("SETEQUAL", {J("[1, 1, 1, 1]"), J("[2, 3, 4]")}), "false");
  EXPECT_EQ(Text("SETEQUAL", {J("[]"), J("[]")}), "true");
  EXPECT_EQ(Text("SETEQUAL", {J("[]"), J("\"\"")}), "undefined");
}

TEST_F(ArrayFunctionTest, Sum) {
  EXPECT_EQ(Text("ARRAY_SUM", {J("[1, 2, 3, 4]")}), "10");
  EXPECT_EQ(Text("ARRAY_SUM", {J("[1.0, 2.0, 3.3, 4.7]")}), "double 11");
  EXPECT_EQ(Text("ARRAY_SUM", {J("[1, -2.7, 3, -4]")}), "double -2.7");
  EXPECT_EQ(Text("ARRAY_SUM", {J("[9223372036854775807, 1]")}), "double 9223372036854776000");
  EXPECT_EQ(Text("ARRAY_SUM", {J("[]")}), "0");
  EXPECT_EQ(Text("ARRAY_SUM", {J(R"(["abc", "ABC"])")}), "undefined");
  EXPECT_EQ(Text("ARRAY_SUM", {J(R"([12, "abc", true, false, null])")}), "undefined");
  EXPECT_EQ(Text("ARRAY_SUM", {J("5")}), "undefined");
}

TEST_F(ArrayFunctionTest, Avg) {
  EXPECT_EQ(Text("ARRAY_AVG", {J("[1, 2, 3, 4]")}), "double 2.5");
  EXPECT_EQ(Text("ARRAY_AVG", {J("[1.0, 2.0, 3.3, 4.7]")}), "double 2.75");
  EXPECT_EQ(Text("ARRAY_AVG", {J("[1, -2.7, 3, -4]")}), "double -0.675");
  EXPECT_EQ(Text("ARRAY_AVG", {J("[2, 4]")}), "double 3");
  EXPECT_EQ(Text("ARRAY_AVG", {J(R"(["abc", "ABC", "aBc", "AbC"])")}), "undefined");
  EXPECT_EQ(Text("ARRAY_AVG", {J(R"([12, "abc", true, false, null])")}), "undefined");
  EXPECT_EQ(Text("ARRAY_AVG", {J("[]")}), "undefined");
  EXPECT_EQ(Text("ARRAY_AVG", {J("null")}), "undefined");
}

TEST_F(ArrayFunctionTest, Median) {
  EXPECT_EQ(Text("ARRAY_MEDIAN", {J("[1, 2, 3, 4]")}), "double 2.5");
  EXPECT_EQ(Text("ARRAY_MEDIAN", {J("[1.0, 2.0, 3.3, 4.7, 7.8]")}), "double 3.3");
  EXPECT_EQ(Text("ARRAY_MEDIAN", {J("[1, -2.7, 3, -4]")}), "double -0.8500000000000001");
  EXPECT_EQ(Text("ARRAY_MEDIAN", {J("[5, 1, 3]")}), "3");
  EXPECT_EQ(Text("ARRAY_MEDIAN", {J(R"(["abc", "ABC", "aBc", "AbC"])")}), "undefined");
  EXPECT_EQ(Text("ARRAY_MEDIAN", {J(R"([12, "abc", true, false, null])")}), "undefined");
  EXPECT_EQ(Text("ARRAY_MEDIAN", {J("[]")}), "undefined");
}

TEST_F(ArrayFunctionTest, MaxAndMin) {
  EXPECT_EQ(Text("ARRAY_MAX", {J("[1, 2, 3, 4]")}), "4");
  EXPECT_EQ(Text("ARRAY_MAX", {J(R"(["abc", "ABC", "aBc", "AbC"])")}), R"("abc")");
  EXPECT_EQ(Text("ARRAY_MAX", {J("[true, false]")}), "true");
  EXPECT_EQ(Text("ARRAY_MAX", {J("[null, null]")}), "null");
  EXPECT_EQ(Text("ARRAY_MAX", {J(R"([12, "abc", true, false, null])")}), R"("abc")");
  EXPECT_EQ(Text("ARRAY_MAX", {J("[1.5, 2, -7]")}), "2");
  EXPECT_EQ(Text("ARRAY_MIN", {J("[1, 2, 3, 4]")}), "1");
  EXPECT_EQ(Text("ARRAY_MIN", {J(R"(["abc", "ABC", "aBc", "AbC"])")}), R"("ABC")");
  EXPECT_EQ(Text("ARRAY_MIN", {J("[true, false]")}), "false");
  EXPECT_EQ(Text("ARRAY_MIN", {J(R"([12, "abc", true, false, null])")}), "null");
  EXPECT_EQ(Text("ARRAY_MIN", {J(R"([12, "abc", true, false])")}), "false");
  EXPECT_EQ(Text("ARRAY_MIN", {J("[1.5, 2, -7]")}), "-7");
  for (const char* name : {"ARRAY_MAX", "ARRAY_MIN"}) {
    EXPECT_EQ(Text(name, {J("[]")}), "undefined") << name;
    EXPECT_EQ(Text(name, {J("[1, [2]]")}), "undefined") << name;
    EXPECT_EQ(Text(name, {J(R"([1, {"a": 2}])")}), "undefined") << name;
    EXPECT_EQ(Text(name, {J("\"abc\"")}), "undefined") << name;
  }
}

TEST_F(ArrayFunctionTest, Choose) {
  Val list[] = {J(R"("abc")"), J("1"), J("true"), J("[1]")};
  auto choose = [&](const char* index) { return Text("CHOOSE", {J(index), list[0], list[1], list[2], list[3]}); };
  EXPECT_EQ(choose("0"), "undefined");
  EXPECT_EQ(choose("1"), R"("abc")");
  EXPECT_EQ(choose("2"), "1");
  EXPECT_EQ(choose("3"), "true");
  EXPECT_EQ(choose("4"), "[1]");
  EXPECT_EQ(choose("5"), "undefined");
  EXPECT_EQ(choose("-1"), "undefined");
  EXPECT_EQ(choose("2.0"), "1");
  EXPECT_EQ(choose("1.5"), "undefined");
  EXPECT_EQ(choose("\"1\""), "undefined");
  EXPECT_EQ(Text("CHOOSE", {J("1"), Val(), J("2")}), "undefined");
  EXPECT_EQ(Text("CHOOSE", {Val(), J("2")}), "undefined");
}

TEST_F(ArrayFunctionTest, ObjectToArray) {
  Val obj = J(R"({"a": "12345", "b": "67890"})");
  EXPECT_EQ(Text("ObjectToArray", {obj}), R"([{"k":"a","v":"12345"},{"k":"b","v":"67890"}])");
  EXPECT_EQ(Text("ObjectToArray", {obj, J(R"("name")")}), R"([{"name":"a","v":"12345"},{"name":"b","v":"67890"}])");
  EXPECT_EQ(Text("ObjectToArray", {obj, J(R"("key")"), J(R"("value")")}),
            R"([{"key":"a","value":"12345"},{"key":"b","value":"67890"}])");
  EXPECT_EQ(Text("ObjectToArray", {J(R"({"x": {"y": [1]}, "z": null})")}),
            R"([{"k":"x","v":{"y":[1]}},{"k":"z","v":null}])");
  EXPECT_EQ(Text("ObjectToArray", {J("{}")}), "[]");
  EXPECT_EQ(Text("ObjectToArray", {J("[1]")}), "undefined");
  EXPECT_EQ(Text("ObjectToArray", {Val()}), "undefined");
  EXPECT_EQ(Text("ObjectToArray", {obj, J("1")}), "undefined");
  EXPECT_EQ(Text("ObjectToArray", {obj, J(R"("key")"), Val()}), "undefined");
}

TEST_F(ArrayFunctionTest, ResultsOutliveTheirInputs) {
  Val result;
  {
    json::Document d;
    ASSERT_EQ(json::Parse("[1, 2, 3]", d), json::ParseStatus::kOk);
    result = Call("ARRAY_SLICE", {Val(d), J("1")});
  }
  EXPECT_EQ(json::Write(result.json()), "[2,3]");
}

}  // namespace
}  // namespace cosmos::query
