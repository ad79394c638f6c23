// The string system functions, checked against the examples and rules of the service's documentation.
#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "common/errors.h"
#include "json/json.h"
#include "query/functions/function.h"
#include "util/util.h"

namespace cosmos::query {
namespace {

class StringFunctionsTest : public ::testing::Test {
 protected:
  // Calls a function of the string table by name (case-insensitive), checking the argument count
  // the way the engine does, and renders the result: JSON text, or "undefined".
  std::string Call(std::string_view name, std::initializer_list<Val> args) {
    const FunctionDef* def = Find(name);
    if (!def) return "no such function";
    auto n = static_cast<int>(args.size());
    if (n < def->min_args || (def->max_args >= 0 && n > def->max_args)) return "bad argument count";
    std::vector<Val> list(args);
    Val v = def->fn(ctx_, list);
    if (v.IsUndefined()) return "undefined";
    return json::Write(v.json());
  }

  // The raw result of a call, for feeding into another call.
  Val StringResult(std::string_view name, std::initializer_list<Val> args) {
    std::vector<Val> list(args);
    return Find(name)->fn(ctx_, list);
  }

  static const FunctionDef* Find(std::string_view name) {
    for (const FunctionDef& def : StringFunctions()) {
      if (util::EqualsIgnoreCase(def.name, name)) return &def;
    }
    return nullptr;
  }

  Val S(std::string_view s) { return arena_.String(s); }
  Val I(int64_t i) { return arena_.Int(i); }
  Val D(double d) { return arena_.Number(d); }
  // Any JSON value, parsed from text.
  Val J(std::string_view text) {
    json::Document doc;
    EXPECT_EQ(json::Parse(text, doc), json::ParseStatus::kOk) << text;
    return arena_.Copy(Val(static_cast<const json::Value&>(doc)));
  }
  static Val U() { return Val(); }

  Arena arena_;
  FunctionContext ctx_{arena_, 0};
};

// Names and arities

TEST_F(StringFunctionsTest, TableHasDocumentedNamesAndArities) {
  struct Expect {
    const char* name;
    int min, max;
  };
  const Expect expected[] = {
      {"CONCAT", 2, -1},        {"CONTAINS", 2, 3},        {"ENDSWITH", 2, 3},     {"INDEX_OF", 2, 3},
      {"LEFT", 2, 2},           {"LENGTH", 1, 1},          {"LOWER", 1, 1},        {"LTRIM", 1, 2},
      {"RegexMatch", 2, 3},     {"REPLACE", 3, 3},         {"REPLICATE", 2, 2},    {"REVERSE", 1, 1},
      {"RIGHT", 2, 2},          {"RTRIM", 1, 2},           {"STARTSWITH", 2, 3},   {"StringEquals", 2, 3},
      {"StringJoin", 2, 2},     {"StringSplit", 2, 2},     {"StringToArray", 1, 1}, {"StringToBoolean", 1, 1},
      {"StringToNull", 1, 1},   {"StringToNumber", 1, 1},  {"StringToObject", 1, 1}, {"SUBSTRING", 3, 3},
      {"ToString", 1, 1},       {"TRIM", 1, 2},            {"UPPER", 1, 1},
  };
  EXPECT_EQ(StringFunctions().size(), std::size(expected));
  for (const Expect& e : expected) {
    const FunctionDef* def = Find(e.name);
    ASSERT_NE(def, nullptr) << e.name;
    EXPECT_EQ(def->name, e.name);
    EXPECT_EQ(def->min_args, e.min) << e.name;
    EXPECT_EQ(def->max_args, e.max) << e.name;
  }
}

TEST_F(StringFunctionsTest, RegistryFindsThemCaseInsensitively) {
  ASSERT_NE(FindFunction("regexmatch"), nullptr);
  EXPECT_EQ(FindFunction("regexmatch")->name, "RegexMatch");
  ASSERT_NE(FindFunction("stringtonumber"), nullptr);
  ASSERT_NE(FindFunction("Index_Of"), nullptr);
}

// CONCAT

TEST_F(StringFunctionsTest, Concat) {
  EXPECT_EQ(Call("CONCAT", {S("Ferpal"), S("Ropes")}), "\"FerpalRopes\"");
  EXPECT_EQ(Call("CONCAT", {S("66403"), S("-"), S("gear-climb-ropes")}), "\"66403-gear-climb-ropes\"");
  EXPECT_EQ(Call("CONCAT", {S(""), S("")}), "\"\"");
  EXPECT_EQ(Call("CONCAT", {S("a"), I(1)}), "undefined");
  EXPECT_EQ(Call("CONCAT", {S("a"), S("b"), U()}), "undefined");
  EXPECT_EQ(Call("CONCAT", {S("a")}), "bad argument count");
}

// CONTAINS, STARTSWITH, ENDSWITH, StringEquals

TEST_F(StringFunctionsTest, ContainsDocumentedExamples) {
  EXPECT_EQ(Call("CONTAINS", {S("AdventureWorks"), S("Adventure")}), "true");
  EXPECT_EQ(Call("CONTAINS", {S("AdventureWorks"), S("Works")}), "true");
  EXPECT_EQ(Call("CONTAINS", {S("AdventureWorks"), S("adventure")}), "false");
  EXPECT_EQ(Call("CONTAINS", {S("AdventureWorks"), S("adventure"), J("false")}), "false");
  EXPECT_EQ(Call("CONTAINS", {S("AdventureWorks"), S("works"), J("true")}), "true");
  EXPECT_EQ(Call("CONTAINS", {S("AdventureWorks"), S("Contoso")}), "false");
  EXPECT_EQ(Call("CONTAINS", {S("abc"), S("")}), "true");
}

TEST_F(StringFunctionsTest, ContainsWrongTypesAreUndefined) {
  EXPECT_EQ(Call("CONTAINS", {I(123), S("1")}), "undefined");
  EXPECT_EQ(Call("CONTAINS", {S("abc"), U()}), "undefined");
  EXPECT_EQ(Call("CONTAINS", {S("abc"), S("a"), I(1)}), "undefined");
  EXPECT_EQ(Call("CONTAINS", {S("abc"), S("a"), U()}), "undefined");
}

TEST_F(StringFunctionsTest, StartsWithEndsWith) {
  EXPECT_EQ(Call("STARTSWITH", {S("AdventureWorks"), S("Adventure")}), "true");
  EXPECT_EQ(Call("STARTSWITH", {S("AdventureWorks"), S("adventure")}), "false");
  EXPECT_EQ(Call("STARTSWITH", {S("AdventureWorks"), S("adventure"), J("true")}), "true");
  EXPECT_EQ(Call("STARTSWITH", {S("AdventureWorks"), S("Works")}), "false");
  EXPECT_EQ(Call("ENDSWITH", {S("AdventureWorks"), S("Works")}), "true");
  EXPECT_EQ(Call("ENDSWITH", {S("AdventureWorks"), S("works")}), "false");
  EXPECT_EQ(Call("ENDSWITH", {S("AdventureWorks"), S("works"), J("true")}), "true");
  EXPECT_EQ(Call("ENDSWITH", {S("AdventureWorks"), S("Adventure")}), "false");
  EXPECT_EQ(Call("ENDSWITH", {S("abc"), J("null")}), "undefined");
}

TEST_F(StringFunctionsTest, StringEquals) {
  EXPECT_EQ(Call("StringEquals", {S("AdventureWorks"), S("AdventureWorks")}), "true");
  EXPECT_EQ(Call("StringEquals", {S("AdventureWorks"), S("adventureworks")}), "false");
  EXPECT_EQ(Call("StringEquals", {S("AdventureWorks"), S("adventureworks"), J("true")}), "true");
  EXPECT_EQ(Call("StringEquals", {S("a"), S("ab"), J("true")}), "false");
  EXPECT_EQ(Call("StringEquals", {I(1), I(1)}), "undefined");
}

TEST_F(StringFunctionsTest, IgnoreCaseCoversNonAsciiLetters) {
  EXPECT_EQ(Call("StringEquals", {S("ÉCOLE"), S("école"), J("true")}), "true");
  EXPECT_EQ(Call("CONTAINS", {S("Добрый ДЕНЬ"), S("день"), J("true")}), "true");
  EXPECT_EQ(Call("StringEquals", {S("ΣΊΣΥΦΟΣ"), S("σίσυφος"), J("true")}), "true");
  EXPECT_EQ(Call("StringEquals", {S("ΣΊΣΥΦΟΣ"), S("σίσυφοσ"), J("true")}), "true");  // final sigma
  EXPECT_EQ(Call("StringEquals", {S("école"), S("ecole"), J("true")}), "false");      // accents matter
}

// INDEX_OF

TEST_F(StringFunctionsTest, IndexOfDocumentedExamples) {
  EXPECT_EQ(Call("INDEX_OF", {S("AdventureWorks"), S("A")}), "0");
  EXPECT_EQ(Call("INDEX_OF", {S("AdventureWorks"), S("s")}), "13");
  EXPECT_EQ(Call("INDEX_OF", {S("AdventureWorks"), S("Adventure")}), "0");
  EXPECT_EQ(Call("INDEX_OF", {S("AdventureWorks"), S("Works")}), "9");
  EXPECT_EQ(Call("INDEX_OF", {S("AdventureWorks"), S("tureW")}), "5");
  EXPECT_EQ(Call("INDEX_OF", {S("AdventureWorks"), S("Cosmos")}), "-1");
  EXPECT_EQ(Call("INDEX_OF", {S("AdventureWorks"), S("Works"), I(5)}), "9");
  EXPECT_EQ(Call("INDEX_OF", {S("AdventureWorks"), S("Adventure"), I(5)}), "-1");
  EXPECT_EQ(Call("INDEX_OF", {S("AdventureWorks"), S("aD")}), "-1");
}

TEST_F(StringFunctionsTest, IndexOfStartEdges) {
  EXPECT_EQ(Call("INDEX_OF", {S("abc"), S("c"), D(2.0)}), "2");
  EXPECT_EQ(Call("INDEX_OF", {S("abc"), S("c"), I(3)}), "-1");
  EXPECT_EQ(Call("INDEX_OF", {S("abc"), S("c"), I(100)}), "-1");
  EXPECT_EQ(Call("INDEX_OF", {S("abc"), S(""), I(3)}), "3");
  EXPECT_EQ(Call("INDEX_OF", {S("abc"), S("c"), D(1.5)}), "undefined");
  EXPECT_EQ(Call("INDEX_OF", {S("abc"), S("c"), I(-1)}), "undefined");
  EXPECT_EQ(Call("INDEX_OF", {S("abc"), S("c"), S("1")}), "undefined");
  EXPECT_EQ(Call("INDEX_OF", {S("abc"), I(1)}), "undefined");
}

TEST_F(StringFunctionsTest, IndexOfCountsUtf16Units) {
  EXPECT_EQ(Call("INDEX_OF", {S("héllo"), S("llo")}), "2");
  EXPECT_EQ(Call("INDEX_OF", {S("😀x😀y"), S("y")}), "5");
  EXPECT_EQ(Call("INDEX_OF", {S("😀x😀y"), S("😀"), I(1)}), "3");
}

// LEFT, RIGHT, SUBSTRING

TEST_F(StringFunctionsTest, LeftDocumentedExamples) {
  EXPECT_EQ(Call("LEFT", {S("AdventureWorks"), I(0)}), "\"\"");
  EXPECT_EQ(Call("LEFT", {S("AdventureWorks"), I(1)}), "\"A\"");
  EXPECT_EQ(Call("LEFT", {S("AdventureWorks"), I(5)}), "\"Adven\"");
  EXPECT_EQ(Call("LEFT", {S("AdventureWorks"), I(14)}), "\"AdventureWorks\"");
  EXPECT_EQ(Call("LEFT", {S("AdventureWorks"), I(100)}), "\"AdventureWorks\"");
}

TEST_F(StringFunctionsTest, LeftEdges) {
  EXPECT_EQ(Call("LEFT", {S("abc"), I(-1)}), "\"\"");
  EXPECT_EQ(Call("LEFT", {S("abc"), D(2.0)}), "\"ab\"");
  EXPECT_EQ(Call("LEFT", {S("abc"), D(1.5)}), "undefined");
  EXPECT_EQ(Call("LEFT", {S("abc"), D(1e300)}), "\"abc\"");
  EXPECT_EQ(Call("LEFT", {S("abc"), S("1")}), "undefined");
  EXPECT_EQ(Call("LEFT", {I(123), I(1)}), "undefined");
  EXPECT_EQ(Call("LEFT", {S("héllo"), I(2)}), "\"hé\"");
}

TEST_F(StringFunctionsTest, RightDocumentedExamplesAndEdges) {
  EXPECT_EQ(Call("RIGHT", {S("AdventureWorks"), I(0)}), "\"\"");
  EXPECT_EQ(Call("RIGHT", {S("AdventureWorks"), I(1)}), "\"s\"");
  EXPECT_EQ(Call("RIGHT", {S("AdventureWorks"), I(5)}), "\"Works\"");
  EXPECT_EQ(Call("RIGHT", {S("AdventureWorks"), I(14)}), "\"AdventureWorks\"");
  EXPECT_EQ(Call("RIGHT", {S("AdventureWorks"), I(100)}), "\"AdventureWorks\"");
  EXPECT_EQ(Call("RIGHT", {S("abc"), I(-1)}), "\"\"");
  EXPECT_EQ(Call("RIGHT", {S("abc"), D(1.5)}), "undefined");
  EXPECT_EQ(Call("RIGHT", {S(""), I(2)}), "\"\"");
  EXPECT_EQ(Call("RIGHT", {S("héllo"), I(4)}), "\"éllo\"");
}

TEST_F(StringFunctionsTest, SubstringDocumentedExamples) {
  EXPECT_EQ(Call("SUBSTRING", {S("AdventureWorks"), I(0), I(9)}), "\"Adventure\"");
  EXPECT_EQ(Call("SUBSTRING", {S("AdventureWorks"), I(9), I(5)}), "\"Works\"");
  EXPECT_EQ(Call("SUBSTRING", {S("AdventureWorks"), I(0), I(14)}), "\"AdventureWorks\"");
  EXPECT_EQ(Call("SUBSTRING", {S("AdventureWorks"), I(0), I(-1)}), "\"\"");
}

TEST_F(StringFunctionsTest, SubstringEdges) {
  EXPECT_EQ(Call("SUBSTRING", {S("abc"), I(1), I(100)}), "\"bc\"");
  EXPECT_EQ(Call("SUBSTRING", {S("abc"), I(3), I(1)}), "\"\"");
  EXPECT_EQ(Call("SUBSTRING", {S("abc"), I(-1), I(2)}), "\"\"");
  EXPECT_EQ(Call("SUBSTRING", {S("abc"), D(1.0), D(1.0)}), "\"b\"");
  EXPECT_EQ(Call("SUBSTRING", {S("abc"), D(0.5), I(1)}), "undefined");
  EXPECT_EQ(Call("SUBSTRING", {S("abc"), I(0), S("1")}), "undefined");
  EXPECT_EQ(Call("SUBSTRING", {J("null"), I(0), I(1)}), "undefined");
}

TEST_F(StringFunctionsTest, SubstringCountsUtf16Units) {
  EXPECT_EQ(Call("SUBSTRING", {S("héllo"), I(1), I(3)}), "\"éll\"");
  EXPECT_EQ(Call("SUBSTRING", {S("a😀b"), I(1), I(2)}), "\"😀\"");
  EXPECT_EQ(Call("SUBSTRING", {S("a😀b"), I(3), I(1)}), "\"b\"");
  // Cutting through a surrogate pair leaves one unit, which becomes U+FFFD.
  EXPECT_EQ(Call("SUBSTRING", {S("a😀b"), I(0), I(2)}), "\"a\xEF\xBF\xBD\"");
}

// LENGTH

TEST_F(StringFunctionsTest, Length) {
  EXPECT_EQ(Call("LENGTH", {S("AdventureWorks")}), "14");
  EXPECT_EQ(Call("LENGTH", {S("")}), "0");
  EXPECT_EQ(Call("LENGTH", {S("héllo")}), "5");
  EXPECT_EQ(Call("LENGTH", {S("日本語")}), "3");
  EXPECT_EQ(Call("LENGTH", {S("😀")}), "2");
  EXPECT_EQ(Call("LENGTH", {S("a😀b")}), "4");
  EXPECT_EQ(Call("LENGTH", {I(5)}), "undefined");
  EXPECT_EQ(Call("LENGTH", {J("[1,2]")}), "undefined");
  EXPECT_EQ(Call("LENGTH", {U()}), "undefined");
}

// Strings are checked for ASCII eight bytes at a time: one "é" anywhere in a longer string, at a
// word's first or last byte or in the tail, still counts as one unit and is still case-mapped.
TEST_F(StringFunctionsTest, ANonAsciiCharacterAnywhereInALongStringIsSeen) {
  for (size_t at = 0; at <= 20; ++at) {
    const std::string s = std::string(at, 'a') + "é" + std::string(20 - at, 'a');
    EXPECT_EQ(Call("LENGTH", {S(s)}), "21") << at;
    EXPECT_EQ(Call("UPPER", {S(s)}), "\"" + std::string(at, 'A') + "É" + std::string(20 - at, 'A') + "\"") << at;
    EXPECT_EQ(Call("CONTAINS", {S(s), S("AÉ"), Arena::True()}), at > 0 ? "true" : "false") << at;
  }
  // Every ASCII character maps as before through the table.
  std::string all, upper, lower;
  for (int c = 1; c < 128; ++c) {
    all += static_cast<char>(c);
    upper += static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c);
    lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  }
  EXPECT_EQ(StringResult("UPPER", {S(all)}).AsString(), upper);
  EXPECT_EQ(StringResult("LOWER", {S(all)}).AsString(), lower);
}

TEST_F(StringFunctionsTest, MalformedUtf8BecomesReplacementCharacters) {
  EXPECT_EQ(Call("LENGTH", {S("a\xC3")}), "2");  // truncated sequence
  EXPECT_EQ(Call("UPPER", {S("\xFF" "a")}), "\"\xEF\xBF\xBD" "A\"");
  EXPECT_EQ(Call("REVERSE", {S("\xE2\x82")}), "\"\xEF\xBF\xBD\xEF\xBF\xBD\"");
  EXPECT_EQ(Call("SUBSTRING", {S("\xC0\x80x"), I(2), I(1)}), "\"x\"");  // overlong form
  EXPECT_EQ(Call("RegexMatch", {S("\xFF"), S(".")}), "undefined");
}

// LOWER, UPPER

TEST_F(StringFunctionsTest, LowerUpperAscii) {
  EXPECT_EQ(Call("LOWER", {S("AdventureWorks")}), "\"adventureworks\"");
  EXPECT_EQ(Call("UPPER", {S("AdventureWorks")}), "\"ADVENTUREWORKS\"");
  EXPECT_EQ(Call("UPPER", {S("a1-b_2!")}), "\"A1-B_2!\"");
  EXPECT_EQ(Call("LOWER", {I(1)}), "undefined");
  EXPECT_EQ(Call("UPPER", {J("null")}), "undefined");
}

TEST_F(StringFunctionsTest, LowerUpperUnicode) {
  EXPECT_EQ(Call("UPPER", {S("héllo wörld ñ ÿ")}), "\"HÉLLO WÖRLD Ñ Ÿ\"");
  EXPECT_EQ(Call("LOWER", {S("ÀÉÎÕÜ ÇØ Ÿ")}), "\"àéîõü çø ÿ\"");
  EXPECT_EQ(Call("UPPER", {S("straße")}), "\"STRAßE\"");  // one-to-one mapping: ß stays
  EXPECT_EQ(Call("UPPER", {S("ąčęėįšųūž")}), "\"ĄČĘĖĮŠŲŪŽ\"");
  EXPECT_EQ(Call("LOWER", {S("ŁÓDŹ")}), "\"łódź\"");
  EXPECT_EQ(Call("UPPER", {S("αβγ ωσς ά")}), "\"ΑΒΓ ΩΣΣ Ά\"");
  EXPECT_EQ(Call("LOWER", {S("ΑΒΓ Ω Ά")}), "\"αβγ ω ά\"");
  EXPECT_EQ(Call("UPPER", {S("привет ёж")}), "\"ПРИВЕТ ЁЖ\"");
  EXPECT_EQ(Call("LOWER", {S("ПРИВЕТ ЁЖ ЄЇ")}), "\"привет ёж єї\"");
  EXPECT_EQ(Call("UPPER", {S("ẁẃ ạ ỳ")}), "\"ẀẂ Ạ Ỳ\"");
  EXPECT_EQ(Call("UPPER", {S("日本😀")}), "\"日本😀\"");
  EXPECT_EQ(Call("LOWER", {S("ＡＢＣ")}), "\"ａｂｃ\"");
}

// LTRIM, RTRIM, TRIM

TEST_F(StringFunctionsTest, LtrimDocumentedExamples) {
  EXPECT_EQ(Call("LTRIM", {S("  AdventureWorks")}), "\"AdventureWorks\"");
  EXPECT_EQ(Call("LTRIM", {S("  AdventureWorks  ")}), "\"AdventureWorks  \"");
  EXPECT_EQ(Call("LTRIM", {S("AdventureWorks  ")}), "\"AdventureWorks  \"");
  EXPECT_EQ(Call("LTRIM", {S("AdventureWorks")}), "\"AdventureWorks\"");
  EXPECT_EQ(Call("LTRIM", {S("AdventureWorks"), S("Works")}), "\"AdventureWorks\"");
  EXPECT_EQ(Call("LTRIM", {S("AdventureWorks"), S("Adventure")}), "\"Works\"");
  EXPECT_EQ(Call("LTRIM", {S("AdventureWorks"), S("AdventureWorks")}), "\"\"");
  EXPECT_EQ(Call("LTRIM", {S("AdventureWorks"), S("")}), "\"AdventureWorks\"");
}

TEST_F(StringFunctionsTest, RtrimDocumentedExamples) {
  EXPECT_EQ(Call("RTRIM", {S("  AdventureWorks")}), "\"  AdventureWorks\"");
  EXPECT_EQ(Call("RTRIM", {S("  AdventureWorks  ")}), "\"  AdventureWorks\"");
  EXPECT_EQ(Call("RTRIM", {S("AdventureWorks  ")}), "\"AdventureWorks\"");
  EXPECT_EQ(Call("RTRIM", {S("AdventureWorks"), S("Works")}), "\"Adventure\"");
  EXPECT_EQ(Call("RTRIM", {S("AdventureWorks"), S("Adventure")}), "\"AdventureWorks\"");
  EXPECT_EQ(Call("RTRIM", {S("AdventureWorks"), S("AdventureWorks")}), "\"\"");
  EXPECT_EQ(Call("RTRIM", {S("AdventureWorks"), S("")}), "\"AdventureWorks\"");
}

TEST_F(StringFunctionsTest, TrimDocumentedExamples) {
  EXPECT_EQ(Call("TRIM", {S("   AdventureWorks")}), "\"AdventureWorks\"");
  EXPECT_EQ(Call("TRIM", {S("AdventureWorks   ")}), "\"AdventureWorks\"");
  EXPECT_EQ(Call("TRIM", {S("   AdventureWorks   ")}), "\"AdventureWorks\"");
  EXPECT_EQ(Call("TRIM", {S("---AdventureWorks---")}), "\"---AdventureWorks---\"");
  EXPECT_EQ(Call("TRIM", {S("___AdventureWorks___"), S("_")}), "\"AdventureWorks\"");
  EXPECT_EQ(Call("TRIM", {S("---AdventureWorks---"), S("-")}), "\"AdventureWorks\"");
  EXPECT_EQ(Call("TRIM", {S("-- AdventureWorks --"), S("-")}), "\" AdventureWorks \"");
  EXPECT_EQ(Call("TRIM", {S("-_-AdventureWorks-_-"), S("-_")}), "\"AdventureWorks\"");
}

TEST_F(StringFunctionsTest, TrimWhiteSpaceAndNonAscii) {
  EXPECT_EQ(Call("TRIM", {S("\t\n\r x \t")}), "\"x\"");
  EXPECT_EQ(Call("TRIM", {S("\xC2\xA0x\xE3\x80\x80")}), "\"x\"");  // no-break space, ideographic space
  EXPECT_EQ(Call("TRIM", {S("   ")}), "\"\"");
  EXPECT_EQ(Call("TRIM", {S("ééxéé"), S("é")}), "\"x\"");
  EXPECT_EQ(Call("RTRIM", {S("x😀😀"), S("😀")}), "\"x\"");
  EXPECT_EQ(Call("LTRIM", {S("😀é😀x"), S("é😀")}), "\"x\"");
  EXPECT_EQ(Call("TRIM", {I(1)}), "undefined");
  EXPECT_EQ(Call("TRIM", {S(" x "), I(1)}), "undefined");
  EXPECT_EQ(Call("LTRIM", {S(" x "), U()}), "undefined");
}

// REPLACE

TEST_F(StringFunctionsTest, Replace) {
  EXPECT_EQ(Call("REPLACE", {S("AdventureWorksLT"), S("LT"), S("LT2")}), "\"AdventureWorksLT2\"");
  EXPECT_EQ(Call("REPLACE", {S("a.b.c"), S("."), S("")}), "\"abc\"");
  EXPECT_EQ(Call("REPLACE", {S("aaa"), S("aa"), S("b")}), "\"ba\"");
  EXPECT_EQ(Call("REPLACE", {S("abc"), S("x"), S("y")}), "\"abc\"");
  EXPECT_EQ(Call("REPLACE", {S("héhé"), S("é"), S("e")}), "\"hehe\"");
  EXPECT_EQ(Call("REPLACE", {S("abc"), S(""), S("y")}), "undefined");
  EXPECT_EQ(Call("REPLACE", {S("abc"), S("b"), I(1)}), "undefined");
}

// REPLICATE

TEST_F(StringFunctionsTest, Replicate) {
  EXPECT_EQ(Call("REPLICATE", {S("Cosmic"), I(3)}), "\"CosmicCosmicCosmic\"");
  EXPECT_EQ(Call("REPLICATE", {S("a"), I(0)}), "\"\"");
  EXPECT_EQ(Call("REPLICATE", {S(""), I(1000000)}), "\"\"");
  EXPECT_EQ(Call("REPLICATE", {S("ab"), D(2.9)}), "\"abab\"");  // fractional counts truncate
  EXPECT_EQ(Call("REPLICATE", {S("a"), I(-1)}), "undefined");
  EXPECT_EQ(Call("REPLICATE", {S("a"), D(std::numeric_limits<double>::infinity())}), "undefined");
  EXPECT_EQ(Call("REPLICATE", {S("a"), D(std::nan(""))}), "undefined");
  EXPECT_EQ(Call("REPLICATE", {S("a"), S("2")}), "undefined");
  EXPECT_EQ(Call("REPLICATE", {I(1), I(2)}), "undefined");
}

TEST_F(StringFunctionsTest, ReplicateMaximumLengthIsTenThousandCharacters) {
  EXPECT_EQ(Call("LENGTH", {StringResult("REPLICATE", {S("a"), I(10000)})}), "10000");
  EXPECT_EQ(Call("REPLICATE", {S("a"), I(10001)}), "undefined");
  EXPECT_EQ(Call("LENGTH", {StringResult("REPLICATE", {S("abcd"), I(2500)})}), "10000");
  EXPECT_EQ(Call("REPLICATE", {S("abc"), I(3334)}), "undefined");
  EXPECT_EQ(Call("REPLICATE", {S("😀"), I(5001)}), "undefined");  // 2 UTF-16 units each
  EXPECT_EQ(Call("REPLICATE", {S("a"), D(1e300)}), "undefined");
}

// REVERSE

TEST_F(StringFunctionsTest, Reverse) {
  EXPECT_EQ(Call("REVERSE", {S("AdventureWorks")}), "\"skroWerutnevdA\"");
  EXPECT_EQ(Call("REVERSE", {S("")}), "\"\"");
  EXPECT_EQ(Call("REVERSE", {S("héllo")}), "\"olléh\"");
  EXPECT_EQ(Call("REVERSE", {S("a😀b")}), "\"b😀a\"");
  EXPECT_EQ(Call("REVERSE", {I(12)}), "undefined");
}

// StringTo*

TEST_F(StringFunctionsTest, StringToArray) {
  EXPECT_EQ(Call("StringToArray", {S("[]")}), "[]");
  EXPECT_EQ(Call("StringToArray", {S("[ \"coats\", \"gloves\", \"hats\" ]")}), "[\"coats\",\"gloves\",\"hats\"]");
  EXPECT_EQ(Call("StringToArray", {S("[ { \"types\": [ \"coats\", \"gloves\" ] }, [ \"hats\" ], 76, false, null ]")}),
            "[{\"types\":[\"coats\",\"gloves\"]},[\"hats\"],76,false,null]");
  EXPECT_EQ(Call("StringToArray", {S("[ [ \"coats\", \"gloves\" ], [ \"hats\" ] ]")}),
            "[[\"coats\",\"gloves\"],[\"hats\"]]");
  EXPECT_EQ(Call("StringToArray", {S("[ 'coats', 'gloves', 'hats' ]")}), "undefined");
  EXPECT_EQ(Call("StringToArray", {U()}), "undefined");
  EXPECT_EQ(Call("StringToArray", {J("null")}), "undefined");
  EXPECT_EQ(Call("StringToArray", {S("{}")}), "undefined");
  EXPECT_EQ(Call("StringToArray", {S("[1,]")}), "undefined");
  EXPECT_EQ(Call("StringToArray", {S("[1] x")}), "undefined");
  EXPECT_EQ(Call("StringToArray", {S("  [1]\n")}), "[1]");
}

TEST_F(StringFunctionsTest, StringToBoolean) {
  EXPECT_EQ(Call("StringToBoolean", {S("true")}), "true");
  EXPECT_EQ(Call("StringToBoolean", {S("true  ")}), "true");
  EXPECT_EQ(Call("StringToBoolean", {S("  false")}), "false");
  EXPECT_EQ(Call("StringToBoolean", {S("  false  ")}), "false");
  EXPECT_EQ(Call("StringToBoolean", {J("true")}), "undefined");
  EXPECT_EQ(Call("StringToBoolean", {U()}), "undefined");
  EXPECT_EQ(Call("StringToBoolean", {J("null")}), "undefined");
  EXPECT_EQ(Call("StringToBoolean", {S("TRUE")}), "undefined");
  EXPECT_EQ(Call("StringToBoolean", {S("1")}), "undefined");
  EXPECT_EQ(Call("StringToBoolean", {S("\"true\"")}), "undefined");
}

TEST_F(StringFunctionsTest, StringToNull) {
  EXPECT_EQ(Call("StringToNull", {S("null")}), "null");
  EXPECT_EQ(Call("StringToNull", {S("  null ")}), "null");
  EXPECT_EQ(Call("StringToNull", {S("NULL")}), "undefined");
  EXPECT_EQ(Call("StringToNull", {S("")}), "undefined");
  EXPECT_EQ(Call("StringToNull", {J("null")}), "undefined");
  EXPECT_EQ(Call("StringToNull", {S("undefined")}), "undefined");
}

TEST_F(StringFunctionsTest, StringToNumber) {
  EXPECT_EQ(Call("StringToNumber", {S("100")}), "100");
  EXPECT_EQ(Call("StringToNumber", {S("3.14")}), "3.14");
  EXPECT_EQ(Call("StringToNumber", {S("   60   ")}), "60");
  EXPECT_EQ(Call("StringToNumber", {S("-1.79769e+308")}), "-1.79769e+308");
  EXPECT_EQ(Call("StringToNumber", {S("1.000000")}), "1");
  EXPECT_EQ(Call("StringToNumber", {S("Hello")}), "undefined");
  EXPECT_EQ(Call("StringToNumber", {U()}), "undefined");
  EXPECT_EQ(Call("StringToNumber", {J("null")}), "undefined");
  EXPECT_EQ(Call("StringToNumber", {D(std::nan(""))}), "undefined");
  EXPECT_EQ(Call("StringToNumber", {S("NaN")}), "undefined");
  EXPECT_EQ(Call("StringToNumber", {S("Infinity")}), "undefined");
  EXPECT_EQ(Call("StringToNumber", {S("0xF")}), "undefined");
  EXPECT_EQ(Call("StringToNumber", {S("+1")}), "undefined");
  EXPECT_EQ(Call("StringToNumber", {S("'1'")}), "undefined");
  EXPECT_EQ(Call("StringToNumber", {S("\"1\"")}), "undefined");
  EXPECT_EQ(Call("StringToNumber", {S("1 2")}), "undefined");
  EXPECT_EQ(Call("StringToNumber", {S("[1]")}), "undefined");
}

TEST_F(StringFunctionsTest, StringToObject) {
  EXPECT_EQ(Call("StringToObject", {S("{}")}), "{}");
  EXPECT_EQ(Call("StringToObject", {S("{ \"name\": \"Tumble\", \"n\": [1, {\"a\": null}] }")}),
            "{\"name\":\"Tumble\",\"n\":[1,{\"a\":null}]}");
  EXPECT_EQ(Call("StringToObject", {S("{ 'name': 'Tumble' }")}), "undefined");
  EXPECT_EQ(Call("StringToObject", {S("{ name: \"Tumble\" }")}), "undefined");
  EXPECT_EQ(Call("StringToObject", {S("[]")}), "undefined");
  EXPECT_EQ(Call("StringToObject", {J("{}")}), "undefined");
}

TEST_F(StringFunctionsTest, StringToResultsOutliveTheirText) {
  Val result;
  {
    Val text = S("{\"deep\":{\"list\":[\"a\",\"b\"]}}");
    std::vector<Val> args{text};
    result = Find("StringToObject")->fn(ctx_, args);
  }
  ASSERT_TRUE(result.IsObject());
  EXPECT_EQ(json::Write(result.json()), "{\"deep\":{\"list\":[\"a\",\"b\"]}}");
}

// ToString

TEST_F(StringFunctionsTest, ToStringDocumentedExamples) {
  EXPECT_EQ(Call("ToString", {I(125)}), "\"125\"");
  EXPECT_EQ(Call("ToString", {D(0.1234)}), "\"0.1234\"");
  EXPECT_EQ(Call("ToString", {J("false")}), "\"false\"");
  EXPECT_EQ(Call("ToString", {J("[ 1, 2, 3 ]")}), "\"[1,2,3]\"");
  EXPECT_EQ(Call("ToString", {J("{ \"department\": \"Bicycles\" }")}), "\"{\\\"department\\\":\\\"Bicycles\\\"}\"");
  EXPECT_EQ(Call("ToString", {S("Hello World")}), "\"Hello World\"");
  EXPECT_EQ(Call("ToString", {U()}), "undefined");
  EXPECT_EQ(Call("ToString", {D(std::nan(""))}), "\"NaN\"");
  EXPECT_EQ(Call("ToString", {D(std::numeric_limits<double>::infinity())}), "\"Infinity\"");
  EXPECT_EQ(Call("ToString", {D(-std::numeric_limits<double>::infinity())}), "\"-Infinity\"");
}

TEST_F(StringFunctionsTest, ToStringNumbersAndScalars) {
  EXPECT_EQ(Call("ToString", {J("null")}), "\"null\"");
  EXPECT_EQ(Call("ToString", {J("true")}), "\"true\"");
  EXPECT_EQ(Call("ToString", {D(1.0)}), "\"1\"");
  EXPECT_EQ(Call("ToString", {D(-0.0)}), "\"0\"");
  EXPECT_EQ(Call("ToString", {D(1e21)}), "\"1e+21\"");
  EXPECT_EQ(Call("ToString", {D(1.5e-7)}), "\"1.5e-7\"");
  EXPECT_EQ(Call("ToString", {I(-9007199254740993)}), "\"-9007199254740993\"");
  EXPECT_EQ(Call("ToString", {J("[\"a\",{\"b\":\"c\\\"d\"}]")}), "\"[\\\"a\\\",{\\\"b\\\":\\\"c\\\\\\\"d\\\"}]\"");
  EXPECT_EQ(Call("ToString", {J("[]")}), "\"[]\"");
}

// RegexMatch

TEST_F(StringFunctionsTest, RegexMatchDocumentedExamples) {
  EXPECT_EQ(Call("RegexMatch", {S("abcd"), S("ABC")}), "false");
  EXPECT_EQ(Call("RegexMatch", {S("abcd"), S("ABC"), S("i")}), "true");
  EXPECT_EQ(Call("RegexMatch", {S("abcd"), S("ab."), S("")}), "true");
  EXPECT_EQ(Call("RegexMatch", {S("abcd"), S("ab c"), S("x")}), "true");
  EXPECT_EQ(Call("RegexMatch", {S("abcd"), S("aB c"), S("ix")}), "true");
  EXPECT_EQ(Call("RegexMatch", {S("03a"), S("[0-9]")}), "true");
  EXPECT_EQ(Call("RegexMatch", {S("salt3824908"), S("salt{1}")}), "true");
  EXPECT_EQ(Call("RegexMatch", {S("shame"), S("s...."), S("i")}), "true");
}

TEST_F(StringFunctionsTest, RegexMatchModifiers) {
  EXPECT_EQ(Call("RegexMatch", {S("one\ntwo"), S("^two$")}), "false");
  EXPECT_EQ(Call("RegexMatch", {S("one\ntwo"), S("^two$"), S("m")}), "true");
  EXPECT_EQ(Call("RegexMatch", {S("one\ntwo"), S("one.two")}), "false");
  EXPECT_EQ(Call("RegexMatch", {S("one\ntwo"), S("one.two"), S("s")}), "true");
  EXPECT_EQ(Call("RegexMatch", {S("ONE\nTWO"), S("one.two"), S("si")}), "true");
  EXPECT_EQ(Call("RegexMatch", {S("abc"), S("^abc$"), S("mixs")}), "true");
}

TEST_F(StringFunctionsTest, RegexMatchIsUnicodeAware) {
  EXPECT_EQ(Call("RegexMatch", {S("😀"), S("^.$")}), "true");
  EXPECT_EQ(Call("RegexMatch", {S("ÉCOLE"), S("école"), S("i")}), "true");
  EXPECT_EQ(Call("RegexMatch", {S("héllo"), S("h.llo")}), "true");
}

TEST_F(StringFunctionsTest, RegexMatchInvalidInputsAreUndefined) {
  EXPECT_EQ(Call("RegexMatch", {S("abc"), S("(")}), "undefined");
  EXPECT_EQ(Call("RegexMatch", {S("abc"), S("[a-")}), "undefined");
  EXPECT_EQ(Call("RegexMatch", {S("abc"), S("a"), S("g")}), "undefined");
  EXPECT_EQ(Call("RegexMatch", {S("abc"), S("a"), S("I")}), "undefined");
  EXPECT_EQ(Call("RegexMatch", {S("abc"), S("a"), I(1)}), "undefined");
  EXPECT_EQ(Call("RegexMatch", {I(1), S("1")}), "undefined");
  EXPECT_EQ(Call("RegexMatch", {S("abc"), U()}), "undefined");
  // A cached failure stays a failure; a good pattern after it still works.
  EXPECT_EQ(Call("RegexMatch", {S("abc"), S("(")}), "undefined");
  EXPECT_EQ(Call("RegexMatch", {S("abc"), S("b")}), "true");
}

TEST_F(StringFunctionsTest, RegexMatchCatastrophicPatternFailsFast) {
  std::string subject(40, 'a');
  subject += '!';
  const FunctionDef* def = Find("RegexMatch");
  std::vector<Val> args{S(subject), S("^(a+)+$")};
  try {
    def->fn(ctx_, args);
    FAIL() << "expected the match limit to stop the match";
  } catch (const CosmosError& e) {
    EXPECT_EQ(e.status, 400);
  }
}

TEST_F(StringFunctionsTest, RegexMatchCacheKeepsManyPatternsApart) {
  for (int i = 0; i < 100; ++i) {
    std::string pattern = "^x" + std::to_string(i) + "$";
    EXPECT_EQ(Call("RegexMatch", {S("x" + std::to_string(i)), S(pattern)}), "true") << i;
    EXPECT_EQ(Call("RegexMatch", {S("x" + std::to_string(i + 1)), S(pattern)}), "false") << i;
  }
}

// StringJoin, StringSplit

TEST_F(StringFunctionsTest, StringJoinDocumentedExamples) {
  EXPECT_EQ(Call("StringJoin", {J("[\"Iropa\", \"Mountain\", \"Bike\"]"), S(" ")}), "\"Iropa Mountain Bike\"");
  EXPECT_EQ(Call("StringJoin", {J("[\"Iropa\", \"Mountain\", \"Bike\"]"), S("")}), "\"IropaMountainBike\"");
  EXPECT_EQ(Call("StringJoin", {J("[\"Iropa\", \"Mountain\", \"Bike\"]"), U()}), "undefined");
  EXPECT_EQ(Call("StringJoin", {J("[\"6\", \"7\", \"4\", \"3\"]"), S("A")}), "\"6A7A4A3\"");
  EXPECT_EQ(Call("StringJoin", {J("[\"Adventure\", \"LT\"]"), S("Works")}), "\"AdventureWorksLT\"");
}

TEST_F(StringFunctionsTest, StringJoinEdges) {
  EXPECT_EQ(Call("StringJoin", {J("[]"), S(",")}), "\"\"");
  EXPECT_EQ(Call("StringJoin", {J("[\"a\"]"), S(",")}), "\"a\"");
  EXPECT_EQ(Call("StringJoin", {J("[\"a\", 1]"), S(",")}), "undefined");
  EXPECT_EQ(Call("StringJoin", {S("abc"), S(",")}), "undefined");
}

TEST_F(StringFunctionsTest, StringSplitDocumentedExamples) {
  EXPECT_EQ(Call("StringSplit", {S("Handlebar"), S("e")}), "[\"Handl\",\"bar\"]");
  EXPECT_EQ(Call("StringSplit", {S("CARBON_STEEL_BIKE_WHEEL"), S("_")}), "[\"CARBON\",\"STEEL\",\"BIKE\",\"WHEEL\"]");
  EXPECT_EQ(Call("StringSplit", {S("Road Bike"), S(" ")}), "[\"Road\",\"Bike\"]");
  EXPECT_EQ(Call("StringSplit", {S("xenmoun mountain bike"), S("moun")}), "[\"xen\",\" \",\"tain bike\"]");
  EXPECT_EQ(Call("StringSplit", {S("AluminumBikeFrame"), U()}), "undefined");
  EXPECT_EQ(Call("StringSplit", {S("Helmet"), S("")}), "[\"Helmet\"]");
  EXPECT_EQ(Call("StringSplit", {S(""), S("")}), "[\"\"]");
}

TEST_F(StringFunctionsTest, StringSplitEdges) {
  EXPECT_EQ(Call("StringSplit", {S("a,,b,"), S(",")}), "[\"a\",\"\",\"b\",\"\"]");
  EXPECT_EQ(Call("StringSplit", {S(""), S(",")}), "[\"\"]");
  EXPECT_EQ(Call("StringSplit", {S("aé😀éb"), S("é")}), "[\"a\",\"😀\",\"b\"]");
  EXPECT_EQ(Call("StringSplit", {I(1), S(",")}), "undefined");
}

}  // namespace
}  // namespace cosmos::query
