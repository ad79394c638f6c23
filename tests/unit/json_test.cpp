// json/: parsing limits, JavaScript number printing, string escaping, property order, Equal().
#include "json/json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace cosmos::json {
namespace {

// Parses `text` (must succeed) and writes it back compactly.
std::string RoundTrip(const std::string& text) {
  Document d;
  EXPECT_EQ(Parse(text, d), ParseStatus::kOk) << text;
  return Write(d);
}

std::string Js(double d) { return FormatNumber(d); }

std::string Nested(int depth, char open = '[', char close = ']') {
  return std::string(static_cast<size_t>(depth), open) + std::string(static_cast<size_t>(depth), close);
}

// ---- numbers --------------------------------------------------------------------------------

struct NumberCase {
  const char* input;
  const char* expected;
};

class JsonNumberTest : public ::testing::TestWithParam<NumberCase> {};

TEST_P(JsonNumberTest, PrintsLikeJavaScript) {
  const auto& c = GetParam();
  EXPECT_EQ(RoundTrip(std::string("[") + c.input + "]"), std::string("[") + c.expected + "]") << c.input;
}

INSTANTIATE_TEST_SUITE_P(
    Numbers, JsonNumberTest,
    ::testing::Values(
        NumberCase{"1", "1"}, NumberCase{"1.5", "1.5"}, NumberCase{"0.1", "0.1"}, NumberCase{"-1.5", "-1.5"},
        NumberCase{"1e21", "1e+21"}, NumberCase{"1E21", "1e+21"}, NumberCase{"1e20", "100000000000000000000"},
        NumberCase{"1e-7", "1e-7"}, NumberCase{"1e-6", "0.000001"}, NumberCase{"1.5e-6", "0.0000015"},
        NumberCase{"123e-20", "1.23e-18"}, NumberCase{"100", "100"}, NumberCase{"1e2", "100"}, NumberCase{"1.0", "1"},
        NumberCase{"-0", "0"}, NumberCase{"-0.0", "0"}, NumberCase{"5e-324", "5e-324"},
        NumberCase{"4.94065645841247e-324", "5e-324"}, NumberCase{"1.7976931348623157e308", "1.7976931348623157e+308"},
        NumberCase{"0.30000000000000004", "0.30000000000000004"},
        NumberCase{"0.1000000000000000055511151231257827", "0.1"}, NumberCase{"9007199254740993", "9007199254740993"},
        NumberCase{"-9007199254740993", "-9007199254740993"},
        NumberCase{"18446744073709551615", "18446744073709551615"},
        NumberCase{"-9223372036854775808", "-9223372036854775808"},
        NumberCase{"9223372036854775807", "9223372036854775807"},
        NumberCase{"18446744073709551616", "18446744073709552000"},
        NumberCase{"123456789012345678901234567890", "1.2345678901234568e+29"},
        NumberCase{"12345678901234567890.123", "12345678901234567000"}, NumberCase{"1e-400", "0"},
        NumberCase{"2.2250738585072014e-308", "2.2250738585072014e-308"}, NumberCase{"123456789.125", "123456789.125"},
        NumberCase{"-1e-7", "-1e-7"}, NumberCase{"1.8446744073709552e+019", "18446744073709552000"}));

TEST(JsonNumbers, IntegersKeepTheirExactType) {
  Document d;
  ASSERT_EQ(Parse(R"({"a":9007199254740993,"b":18446744073709551615,"c":-9223372036854775808})", d), ParseStatus::kOk);
  ASSERT_TRUE(d["a"].IsInt64());
  EXPECT_EQ(d["a"].GetInt64(), 9007199254740993LL);
  ASSERT_TRUE(d["b"].IsUint64());
  EXPECT_EQ(d["b"].GetUint64(), std::numeric_limits<uint64_t>::max());
  ASSERT_TRUE(d["c"].IsInt64());
  EXPECT_EQ(d["c"].GetInt64(), std::numeric_limits<int64_t>::min());
}

TEST(JsonNumbers, WriteDoubleDirect) {
  EXPECT_EQ(Js(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(Js(1.0 / 3.0), "0.3333333333333333");
  EXPECT_EQ(Js(2.0 / 3.0), "0.6666666666666666");
  EXPECT_EQ(Js(1e21), "1e+21");
  EXPECT_EQ(Js(9.999999999999999e20), "999999999999999900000");
  EXPECT_EQ(Js(123456789.0), "123456789");
  EXPECT_EQ(Js(-0.0), "0");
  EXPECT_EQ(Js(0.0), "0");
  EXPECT_EQ(Js(1e-7), "1e-7");
  EXPECT_EQ(Js(0.000001), "0.000001");
  EXPECT_EQ(Js(1.5e300), "1.5e+300");
  EXPECT_EQ(Js(-2.5e-10), "-2.5e-10");
  EXPECT_EQ(Js(std::numeric_limits<double>::denorm_min()), "5e-324");
  EXPECT_EQ(Js(std::numeric_limits<double>::max()), "1.7976931348623157e+308");
  EXPECT_EQ(Js(9007199254740992.0), "9007199254740992");
  // Request charges as the header shows them.
  EXPECT_EQ(Js(1.24), "1.24");
  EXPECT_EQ(Js(10.9), "10.9");
  EXPECT_EQ(Js(2), "2");
  // Not JSON numbers: written as null.
  EXPECT_EQ(Js(std::nan("")), "null");
  EXPECT_EQ(Js(std::numeric_limits<double>::infinity()), "null");
}

// ---- strings --------------------------------------------------------------------------------

TEST(JsonStrings, EscapesControlCharactersQuotesAndBackslash) {
  std::string out;
  WriteString(out, std::string_view("a\0b", 3));
  EXPECT_EQ(out, R"("a\u0000b")");
  out.clear();
  WriteString(out, "\x01\x1f\b\f\n\r\t\"\\/");
  EXPECT_EQ(out, R"("\u0001\u001f\b\f\n\r\t\"\\/")");
  out.clear();
  WriteString(out, "\x7f");
  EXPECT_EQ(out, "\"\x7f\"");
}

TEST(JsonStrings, NonAsciiIsWrittenAsUtf8) {
  EXPECT_EQ(RoundTrip(R"(["\u00e9","\u20ac","\ud83d\ude00","é"])"), "[\"é\",\"€\",\"😀\",\"é\"]");
}

TEST(JsonStrings, EmbeddedNulSurvivesRoundTrip) {
  EXPECT_EQ(RoundTrip(R"({"s":"a\u0000b"})"), R"({"s":"a\u0000b"})");
  Document d;
  ASSERT_EQ(Parse(R"({"s":"a\u0000b"})", d), ParseStatus::kOk);
  EXPECT_EQ(d["s"].GetStringLength(), 3u);
}

TEST(JsonStrings, EscapedSolidusAndUnicodeEscapesAreNormalised) {
  EXPECT_EQ(RoundTrip(R"(["a\/b","\u0041","\u001F"])"), R"(["a/b","A","\u001f"])");
}

// ---- structure ------------------------------------------------------------------------------

TEST(JsonStructure, PropertyOrderIsPreserved) {
  const std::string text =
      R"({"zeta":1,"alpha":2,"mid":3,"b":4,"abcdef":5,"nu":null,"obj":{"z":{"b":1},"a":[3,2,1]},"t":true,"f":false})";
  EXPECT_EQ(RoundTrip(text), text);
}

TEST(JsonStructure, WhitespaceIsDropped) {
  EXPECT_EQ(RoundTrip(" { \"a\" : [ 1 , 2 ] ,\n\t\"b\" : { } , \"c\" : [ ] } \r\n"), R"({"a":[1,2],"b":{},"c":[]})");
}

TEST(JsonStructure, ScalarRoots) {
  EXPECT_EQ(RoundTrip("5"), "5");
  EXPECT_EQ(RoundTrip("\"x\""), "\"x\"");
  EXPECT_EQ(RoundTrip("null"), "null");
  EXPECT_EQ(RoundTrip("true"), "true");
  EXPECT_EQ(RoundTrip("[]"), "[]");
  EXPECT_EQ(RoundTrip("{}"), "{}");
}

// ---- limits ---------------------------------------------------------------------------------

TEST(JsonLimits, MaxDepthIs128) { EXPECT_EQ(kMaxDepth, 128); }

TEST(JsonLimits, Depth128IsAccepted) {
  Document d;
  EXPECT_EQ(Parse(Nested(128), d), ParseStatus::kOk);
  EXPECT_EQ(Write(d), Nested(128));
}

TEST(JsonLimits, Depth129IsTooDeep) {
  Document d;
  EXPECT_EQ(Parse(Nested(129), d), ParseStatus::kTooDeep);
}

TEST(JsonLimits, ObjectsCountTowardsDepth) {
  std::string ok, deep;
  for (int i = 0; i < 127; ++i) ok += "{\"a\":";
  ok += "{}";
  for (int i = 0; i < 127; ++i) ok += "}";
  deep = "[" + ok + "]";
  Document d;
  EXPECT_EQ(Parse(ok, d), ParseStatus::kOk);
  EXPECT_EQ(Parse(deep, d), ParseStatus::kTooDeep);
}

TEST(JsonLimits, BracketsInsideStringsDoNotCount) {
  std::string text = "{\"s\":\"" + std::string(500, '[') + "\\\"" + std::string(500, '{') + "\"}";
  Document d;
  EXPECT_EQ(Parse(text, d), ParseStatus::kOk);
}

TEST(JsonLimits, HundredThousandNestedArraysDoNotCrash) {
  Document d;
  EXPECT_EQ(Parse(Nested(100000), d), ParseStatus::kTooDeep);
  EXPECT_EQ(Parse(std::string(100000, '['), d), ParseStatus::kTooDeep);
  EXPECT_EQ(Parse(Nested(100000, '{', '}'), d), ParseStatus::kTooDeep);
}

// ---- rejection ------------------------------------------------------------------------------

class JsonMalformedTest : public ::testing::TestWithParam<std::string> {};

TEST_P(JsonMalformedTest, IsRejected) {
  Document d;
  EXPECT_EQ(Parse(GetParam(), d), ParseStatus::kMalformed) << ::testing::PrintToString(GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, JsonMalformedTest,
    ::testing::Values(std::string(""), std::string("   "), std::string("{\"a\":1} x"), std::string("{\"a\":1}{}"),
                      std::string("[1] 2"), std::string("{"), std::string("[1,]"), std::string("{'a':1}"),
                      std::string("{\"a\":1,}"), std::string("NaN"), std::string("[Infinity]"),
                      std::string("[-Infinity]"), std::string("[1e400]"), std::string("[-1e400]"),
                      std::string("{\"e\":1e400}"), std::string("[01]"), std::string("[.5]"), std::string("[1.]"),
                      std::string("[+1]"), std::string("\"\xff\""), std::string("\"\xc3\""),
                      std::string("\"\xc0\xaf\""), std::string("\"\xed\xa0\x80\""), std::string("{\"\xfe\":1}"),
                      std::string("\"a\x01z\""), std::string("\"tab\there\""), std::string("[\"\\ud800\"]"),
                      std::string("[\"\\x41\"]"), std::string("[\"\\u12\"]"), std::string("[tru]"),
                      std::string("{\"a\" 1}"), std::string("[1 2]"), std::string("// c\n{}")));

TEST(JsonParse, TrailingWhitespaceIsAccepted) {
  Document d;
  EXPECT_EQ(Parse("{\"a\":1}  \n\t ", d), ParseStatus::kOk);
}

TEST(JsonParse, ParsesOnlyTheGivenLength) {
  const std::string buffer = "{\"a\":1}garbage";
  Document d;
  EXPECT_EQ(Parse(std::string_view(buffer).substr(0, 7), d), ParseStatus::kOk);
  EXPECT_EQ(Write(d), "{\"a\":1}");
}

// ---- Equal ----------------------------------------------------------------------------------

bool Eq(const std::string& a, const std::string& b) {
  Document da, db;
  EXPECT_EQ(Parse(a, da), ParseStatus::kOk) << a;
  EXPECT_EQ(Parse(b, db), ParseStatus::kOk) << b;
  return Equal(da, db);
}

TEST(JsonEqual, NumbersCompareByValue) {
  EXPECT_TRUE(Eq("1", "1.0"));
  EXPECT_TRUE(Eq("1", "1e0"));
  EXPECT_TRUE(Eq("-0", "0"));
  EXPECT_TRUE(Eq("0.5", "5e-1"));
  EXPECT_TRUE(Eq("18446744073709551615", "18446744073709551615"));
  EXPECT_TRUE(Eq("-9223372036854775808", "-9223372036854775808"));
  EXPECT_FALSE(Eq("9007199254740993", "9007199254740994"));
  EXPECT_FALSE(Eq("1", "2"));
  EXPECT_FALSE(Eq("1", "\"1\""));
  EXPECT_FALSE(Eq("0", "false"));
  EXPECT_FALSE(Eq("0", "null"));
}

TEST(JsonEqual, Scalars) {
  EXPECT_TRUE(Eq("null", "null"));
  EXPECT_TRUE(Eq("true", "true"));
  EXPECT_FALSE(Eq("true", "false"));
  EXPECT_TRUE(Eq("\"a\"", "\"a\""));
  EXPECT_FALSE(Eq("\"a\"", "\"b\""));
  EXPECT_FALSE(Eq("\"a\"", "\"ab\""));
  EXPECT_FALSE(Eq(R"("a\u0000b")", R"("a\u0000c")"));
  EXPECT_TRUE(Eq(R"("\u00e9")", "\"é\""));
}

TEST(JsonEqual, ObjectsIgnoreOrderArraysDoNot) {
  EXPECT_TRUE(Eq(R"({"a":1,"b":[1,2]})", R"({"b":[1,2.0],"a":1})"));
  EXPECT_FALSE(Eq(R"({"a":1})", R"({"a":1,"b":2})"));
  EXPECT_FALSE(Eq(R"({"a":1,"b":2})", R"({"a":1})"));
  EXPECT_FALSE(Eq(R"({"a":1})", R"({"b":1})"));
  EXPECT_FALSE(Eq("[1,2]", "[2,1]"));
  EXPECT_FALSE(Eq("[1,2]", "[1,2,3]"));
  EXPECT_TRUE(Eq(R"({"x":{"y":[{"z":null}]}})", R"({"x":{"y":[{"z":null}]}})"));
  EXPECT_FALSE(Eq(R"({"x":{"y":[{"z":null}]}})", R"({"x":{"y":[{"z":0}]}})"));
  EXPECT_FALSE(Eq("{}", "[]"));
  EXPECT_TRUE(Eq("{}", "{}"));
  EXPECT_TRUE(Eq("[]", "[]"));
}

}  // namespace
}  // namespace cosmos::json

namespace cosmos::json {
namespace {

TEST(JsonNames, ARepeatedNameKeepsTheLastValueInTheFirstPlace) {
  Document d;
  ASSERT_EQ(Parse(R"({"a":1,"b":2,"a":3,"c":{"x":[{"y":1,"y":2}],"x":4}})", d), ParseStatus::kOk);
  EXPECT_EQ(Write(d), R"({"a":3,"b":2,"c":{"x":4}})");
  ASSERT_EQ(Parse(R"([{"k":1,"k":2},{"k":3}])", d), ParseStatus::kOk);
  EXPECT_EQ(Write(d), R"([{"k":2},{"k":3}])");
  // Names that merely share the filter's bit are not repeats.
  std::string many = "{";
  for (int i = 0; i < 300; ++i) many += (i ? ",\"" : "\"") + std::to_string(i) + "\":" + std::to_string(i);
  many += "}";
  ASSERT_EQ(Parse(many, d), ParseStatus::kOk);
  EXPECT_EQ(Write(d), many);
  ASSERT_EQ(Parse(many.substr(0, many.size() - 1) + ",\"7\":\"last\"}", d), ParseStatus::kOk);
  EXPECT_EQ(d.MemberCount(), 300u);
  EXPECT_EQ(std::string(d["7"].GetString()), "last");
}

}  // namespace
}  // namespace cosmos::json
