// util/: base64, HMAC-SHA256, percent coding, RFC 1123 dates, constant-time compare, ids.
#include "util/util.h"

#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <set>
#include <string>
#include <thread>

namespace cosmos::util {
namespace {

std::string Hex(const std::string& bytes) {
  static const char* k = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(k[c >> 4]);
    out.push_back(k[c & 0xF]);
  }
  return out;
}

std::chrono::system_clock::time_point At(int64_t unix_seconds) {
  return std::chrono::system_clock::time_point(std::chrono::seconds(unix_seconds));
}

int64_t Seconds(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

// ---- base64 ---------------------------------------------------------------------------------

TEST(Base64, Rfc4648Vectors) {
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("foo"), "Zm9v");
  EXPECT_EQ(Base64Encode("foob"), "Zm9vYg==");
  EXPECT_EQ(Base64Encode("fooba"), "Zm9vYmE=");
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64Decode(""), std::string());
  EXPECT_EQ(Base64Decode("Zg=="), "f");
  EXPECT_EQ(Base64Decode("Zm8="), "fo");
  EXPECT_EQ(Base64Decode("Zm9v"), "foo");
  EXPECT_EQ(Base64Decode("Zm9vYg=="), "foob");
  EXPECT_EQ(Base64Decode("Zm9vYmE="), "fooba");
  EXPECT_EQ(Base64Decode("Zm9vYmFy"), "foobar");
}

TEST(Base64, BinaryRoundTripEveryLength) {
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  for (size_t n = 0; n <= all.size(); ++n) {
    std::string in = all.substr(0, n);
    auto enc = Base64Encode(in);
    EXPECT_EQ(enc.size(), 4 * ((n + 2) / 3));
    auto dec = Base64Decode(enc);
    ASSERT_TRUE(dec.has_value()) << n;
    EXPECT_EQ(*dec, in) << n;
  }
}

TEST(Base64, EmulatorKeyDecodesTo64Bytes) {
  auto key = Base64Decode("C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==");
  ASSERT_TRUE(key.has_value());
  EXPECT_EQ(key->size(), 64u);
  EXPECT_EQ(Hex(key->substr(0, 4)), "0b6cbac8");
}

TEST(Base64, MalformedInputIsRejected) {
  EXPECT_FALSE(Base64Decode("Zm9").has_value());
  EXPECT_FALSE(Base64Decode("Zm9vY").has_value());
  EXPECT_FALSE(Base64Decode("Zm9v!A==").has_value());
  EXPECT_FALSE(Base64Decode("Zm*v").has_value());
}

// ---- HMAC -----------------------------------------------------------------------------------

TEST(HmacSha256, Rfc4231TestCase1) {
  EXPECT_EQ(Hex(HmacSha256(std::string(20, '\x0b'), "Hi There")),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
}

TEST(HmacSha256, Rfc4231TestCase2) {
  EXPECT_EQ(Hex(HmacSha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(HmacSha256, Rfc4231TestCase6KeyLargerThanBlock) {
  EXPECT_EQ(Hex(HmacSha256(std::string(131, '\xaa'), "Test Using Larger Than Block-Size Key - Hash Key First")),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

TEST(HmacSha256, IsRaw32Bytes) { EXPECT_EQ(HmacSha256("k", "").size(), 32u); }

// Each thread keeps a keyed context for the last few keys: more keys than it keeps, used again and
// again in turn, and the same key on another thread, must still give each key's own MAC.
TEST(HmacSha256, KeysUsedInTurnAndOnOtherThreadsKeepTheirOwnMac) {
  const std::string case1 = "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7";
  const std::string case2 = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(Hex(HmacSha256(std::string(20, '\x0b'), "Hi There")), case1) << round;
    for (int k = 0; k < 6; ++k) HmacSha256("key" + std::to_string(k), "message");
    EXPECT_EQ(Hex(HmacSha256("Jefe", "what do ya want for nothing?")), case2) << round;
    EXPECT_EQ(Hex(HmacSha256("Jefe", "what do ya want for nothing?")), case2) << round;
  }
  std::string other;
  std::thread([&] { other = Hex(HmacSha256("Jefe", "what do ya want for nothing?")); }).join();
  EXPECT_EQ(other, case2);
}

// ---- percent coding -------------------------------------------------------------------------

TEST(PercentDecode, DecodesEscapes) {
  EXPECT_EQ(PercentDecode(""), std::string());
  EXPECT_EQ(PercentDecode("abc"), "abc");
  EXPECT_EQ(PercentDecode("a%20b"), "a b");
  EXPECT_EQ(PercentDecode("%2F%2f"), "//");
  EXPECT_EQ(PercentDecode("%25"), "%");
  EXPECT_EQ(PercentDecode("%C3%A9"), "é");
  EXPECT_EQ(PercentDecode("type%3Dmaster%26ver%3D1.0%26sig%3Dab%2Bc%2Fd%3D"), "type=master&ver=1.0&sig=ab+c/d=");
  EXPECT_EQ(PercentDecode("%00"), std::string(1, '\0'));
}

TEST(PercentDecode, PlusStaysPlus) {
  EXPECT_EQ(PercentDecode("a+b"), "a+b");
  EXPECT_EQ(PercentDecode("+"), "+");
}

TEST(PercentDecode, MalformedEscapesAreRejected) {
  EXPECT_FALSE(PercentDecode("%").has_value());
  EXPECT_FALSE(PercentDecode("%4").has_value());
  EXPECT_FALSE(PercentDecode("abc%").has_value());
  EXPECT_FALSE(PercentDecode("abc%4").has_value());
  EXPECT_FALSE(PercentDecode("%zz").has_value());
  EXPECT_FALSE(PercentDecode("%4g").has_value());
  EXPECT_FALSE(PercentDecode("%g4").has_value());
  EXPECT_FALSE(PercentDecode("%%41").has_value());
}

TEST(PercentEncode, KeepsOnlyUnreserved) {
  EXPECT_EQ(PercentEncode("AZaz09-_.~"), "AZaz09-_.~");
  EXPECT_EQ(PercentEncode("a b/c"), "a%20b%2Fc");
  EXPECT_EQ(PercentEncode("+=&"), "%2B%3D%26");
  EXPECT_EQ(PercentEncode("é"), "%C3%A9");
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  EXPECT_EQ(PercentDecode(PercentEncode(all)), all);
}

TEST(Text, LowerAndCaseInsensitiveCompare) {
  EXPECT_EQ(ToLower("GET Dbs/MyDb"), "get dbs/mydb");
  EXPECT_TRUE(EqualsIgnoreCase("TRUE", "true"));
  EXPECT_TRUE(EqualsIgnoreCase("", ""));
  EXPECT_FALSE(EqualsIgnoreCase("true", "tru"));
  EXPECT_FALSE(EqualsIgnoreCase("true", "trUe "));
}

// ---- RFC 1123 -------------------------------------------------------------------------------

TEST(Rfc1123, ParsesKnownDate) {
  auto t = ParseRfc1123("Sat, 21 Nov 2026 05:28:38 GMT");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(*t, 1795238918);
}

// Go's time.RFC1123 writes a UTC time with "UTC" (the Go SDK's change-feed start time).
TEST(Rfc1123, TakesUtcForGmt) {
  EXPECT_EQ(ParseRfc1123("Sat, 21 Nov 2026 05:28:38 UTC"), std::optional<int64_t>(1795238918));
  EXPECT_FALSE(ParseRfc1123("Sat, 21 Nov 2026 05:28:38 CET").has_value());
  EXPECT_FALSE(ParseRfc1123("Sat, 21 Nov 2026 05:28:38 +00").has_value());
}

// RFC 1123's day has one or two digits; Java's RFC_1123_DATE_TIME writes one before the 10th.
TEST(Rfc1123, TakesADayOfOneDigit) {
  EXPECT_EQ(ParseRfc1123("Tue, 1 Dec 2026 00:04:33 GMT"), ParseRfc1123("Tue, 01 Dec 2026 00:04:33 GMT"));
  EXPECT_EQ(ParseRfc1123("Tue, 1 Dec 2026 00:04:33 GMT"), std::optional<int64_t>(1796083473));
  EXPECT_FALSE(ParseRfc1123("Tue,  1 Dec 2026 00:04:33 GMT").has_value());
  EXPECT_FALSE(ParseRfc1123("Tue, x Dec 2026 00:04:33 GMT").has_value());
}

TEST(Rfc1123, ParsingIsCaseInsensitive) {
  auto lower = ParseRfc1123("sat, 21 nov 2026 05:28:38 gmt");
  auto upper = ParseRfc1123("SAT, 21 NOV 2026 05:28:38 GMT");
  ASSERT_TRUE(lower.has_value());
  ASSERT_TRUE(upper.has_value());
  EXPECT_EQ(*lower, 1795238918);
  EXPECT_EQ(*upper, 1795238918);
}

TEST(Rfc1123, Formats) {
  EXPECT_EQ(FormatRfc1123(At(0)), "Thu, 01 Jan 1970 00:00:00 GMT");
  EXPECT_EQ(FormatRfc1123(At(1795238918)), "Sat, 21 Nov 2026 05:28:38 GMT");
  EXPECT_EQ(FormatRfc1123(At(951782400)), "Tue, 29 Feb 2000 00:00:00 GMT");
  EXPECT_EQ(FormatRfc1123(At(1791622915)), "Sat, 10 Oct 2026 09:01:55 GMT");
}

TEST(Rfc1123, RoundTrip) {
  for (int64_t s : {int64_t{0}, int64_t{86399}, int64_t{951782400}, int64_t{1700000000}, int64_t{1795238918},
                    int64_t{4102444799}}) {
    auto text = FormatRfc1123(At(s));
    auto back = ParseRfc1123(text);
    ASSERT_TRUE(back.has_value()) << text;
    EXPECT_EQ(*back, s) << text;
    auto lower_back = ParseRfc1123(ToLower(text));
    ASSERT_TRUE(lower_back.has_value()) << text;
    EXPECT_EQ(*lower_back, s) << text;
  }
}

TEST(Rfc1123, YearsPastTheSystemClocksRangeParse) {
  // The system clock counts nanoseconds and ends in 2262; a header may name any four-digit year.
  EXPECT_EQ(ParseRfc1123("Fri, 31 Dec 9999 23:59:59 GMT"), std::optional<int64_t>(253402300799));
  EXPECT_EQ(ParseRfc1123("Thu, 01 Jan 4044 00:00:00 GMT"), std::optional<int64_t>(65449123200));
  EXPECT_EQ(FormatRfc1123(int64_t{253402300799}), "Fri, 31 Dec 9999 23:59:59 GMT");
}

TEST(Rfc1123, RejectsOtherForms) {
  EXPECT_FALSE(ParseRfc1123("").has_value());
  EXPECT_FALSE(ParseRfc1123("Sat, 21 Nov 2026 05:28:38 PST").has_value());
  EXPECT_FALSE(ParseRfc1123("Sat, 21 Xyz 2026 05:28:38 GMT").has_value());
  EXPECT_FALSE(ParseRfc1123("Sat, 32 Nov 2026 05:28:38 GMT").has_value());
  EXPECT_FALSE(ParseRfc1123("Sat, 00 Nov 2026 05:28:38 GMT").has_value());
  EXPECT_FALSE(ParseRfc1123("Sat, 21 Nov 2026 24:28:38 GMT").has_value());
  EXPECT_FALSE(ParseRfc1123("Sat, 21 Nov 2026 05:60:38 GMT").has_value());
  EXPECT_FALSE(ParseRfc1123("Sat, 21 Nov 2026 05:28:38 GMT ").has_value());
  EXPECT_FALSE(ParseRfc1123("2026-11-21T05:28:38.000000Z").has_value());
  EXPECT_FALSE(ParseRfc1123("Sat 21 Nov 2026 05:28:38 GMT ").has_value());
  EXPECT_FALSE(ParseRfc1123("Sat, 2x Nov 2026 05:28:38 GMT").has_value());
}

// ---- misc -----------------------------------------------------------------------------------

TEST(ConstantTimeEqual, ComparesContentAndLength) {
  EXPECT_TRUE(ConstantTimeEqual("", ""));
  EXPECT_TRUE(ConstantTimeEqual("abc", "abc"));
  EXPECT_FALSE(ConstantTimeEqual("abc", "abd"));
  EXPECT_FALSE(ConstantTimeEqual("abc", "xbc"));
  EXPECT_FALSE(ConstantTimeEqual("abc", "ab"));
  EXPECT_FALSE(ConstantTimeEqual("ab", "abc"));
  EXPECT_FALSE(ConstantTimeEqual(std::string_view("a\0b", 3), std::string_view("a\0c", 3)));
}

TEST(NewUuid, IsRandomVersion4) {
  const std::regex re("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$");
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    auto u = NewUuid();
    EXPECT_TRUE(std::regex_match(u, re)) << u;
    seen.insert(u);
  }
  EXPECT_EQ(seen.size(), 100u);
}

TEST(UnixSeconds, MatchesSystemClock) {
  auto now = Seconds(std::chrono::system_clock::now());
  EXPECT_LE(std::llabs(UnixSeconds() - now), 1);
}

}  // namespace
}  // namespace cosmos::util
