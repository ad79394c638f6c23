// Date and time functions, checked against the examples of the service's documentation and the edge
// cases it describes (invalid input gives undefined).
#include <gtest/gtest.h>

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "json/json.h"
#include "query/functions/function.h"
#include "function_test.h"

namespace cosmos::query {
namespace {

class DateTimeTest : public FunctionTest {
 protected:
  Val S(std::string_view s) { return arena_.String(s); }
  std::string Run(std::string_view name, std::vector<Val> args) { return Str(Call(name, std::move(args))); }
};

TEST_F(DateTimeTest, AllDocumentedFunctionsAreRegistered) {
  for (const char* name : {"GetCurrentDateTime", "GetCurrentDateTimeStatic", "GetCurrentTicks", "GetCurrentTicksStatic",
                           "GetCurrentTimestamp", "GetCurrentTimestampStatic", "DateTimeAdd", "DateTimeBin",
                           "DateTimeDiff", "DateTimeFromParts", "DateTimePart", "DateTimeToTicks",
                           "DateTimeToTimestamp", "TicksToDateTime", "TimestampToDateTime", "Now", "Ago", "Day",
                           "Month", "Year", "DateTimeFormat"}) {
    EXPECT_NE(FindFunction(name), nullptr) << name;
  }
  EXPECT_NE(FindFunction("DATETIMEADD"), nullptr);
  EXPECT_NE(FindFunction("getcurrentticksstatic"), nullptr);
}

TEST_F(DateTimeTest, CurrentFunctionsUseTheQueryInstant) {
  now_ms_ = 1597360794300;  // 2020-08-13T23:19:54.300Z
  EXPECT_EQ(Run("GetCurrentDateTime", {}), "\"2020-08-13T23:19:54.3000000Z\"");
  EXPECT_EQ(Run("GetCurrentDateTimeStatic", {}), "\"2020-08-13T23:19:54.3000000Z\"");
  EXPECT_EQ(Run("GetCurrentTicks", {}), "15973607943000000");
  EXPECT_EQ(Run("GetCurrentTicksStatic", {}), "15973607943000000");
  EXPECT_EQ(Run("GetCurrentTimestamp", {}), "1597360794300");
  EXPECT_EQ(Run("GetCurrentTimestampStatic", {}), "1597360794300");
  EXPECT_TRUE(Call("GetCurrentTicks", {}).IsInteger());
  // The same instant on every call.
  EXPECT_EQ(Run("GetCurrentDateTime", {}), Run("GetCurrentDateTime", {}));
  now_ms_ = 0;
  EXPECT_EQ(Run("GetCurrentDateTime", {}), "\"1970-01-01T00:00:00.0000000Z\"");
  now_ms_ = -1;
  EXPECT_EQ(Run("GetCurrentDateTime", {}), "\"1969-12-31T23:59:59.9990000Z\"");
}

TEST_F(DateTimeTest, NowAndAgo) {
  now_ms_ = 1728915630666;  // 2024-10-14T14:20:30.666Z
  EXPECT_EQ(Run("Now", {}), "\"2024-10-14T14:20:30.6660000Z\"");
  EXPECT_EQ(Run("Now", {S("dd"), J("1")}), "\"2024-10-15T14:20:30.6660000Z\"");
  EXPECT_EQ(Run("Now", {S("hh"), J("-2")}), "\"2024-10-14T12:20:30.6660000Z\"");
  EXPECT_EQ(Run("Now", {S("dd")}), "undefined");
  // The documented AGO cases.
  EXPECT_EQ(Run("Ago", {S("yyyy"), J("1")}), "\"2023-10-14T14:20:30.6660000Z\"");
  EXPECT_EQ(Run("Ago", {S("yyyy"), J("-1")}), "\"2025-10-14T14:20:30.6660000Z\"");
  EXPECT_EQ(Run("Ago", {S("ss"), J("30")}), "\"2024-10-14T14:20:00.6660000Z\"");
  EXPECT_EQ(Run("Ago", {S("ms"), J("4")}), "\"2024-10-14T14:20:30.6620000Z\"");
  EXPECT_EQ(Run("Ago", {S("week"), J("1")}), "undefined");
  EXPECT_EQ(Run("Ago", {S("dd"), J("1.5")}), "undefined");
}

TEST_F(DateTimeTest, DateTimeAddDocumentedExamples) {
  Val d = S("2020-07-03T00:00:00.0000000");
  EXPECT_EQ(Run("DateTimeAdd", {S("yyyy"), J("1"), d}), "\"2021-07-03T00:00:00.0000000Z\"");
  EXPECT_EQ(Run("DateTimeAdd", {S("mm"), J("1"), d}), "\"2020-08-03T00:00:00.0000000Z\"");
  EXPECT_EQ(Run("DateTimeAdd", {S("dd"), J("1"), d}), "\"2020-07-04T00:00:00.0000000Z\"");
  EXPECT_EQ(Run("DateTimeAdd", {S("hh"), J("1"), d}), "\"2020-07-03T01:00:00.0000000Z\"");
  EXPECT_EQ(Run("DateTimeAdd", {S("yyyy"), J("-1"), d}), "\"2019-07-03T00:00:00.0000000Z\"");
  EXPECT_EQ(Run("DateTimeAdd", {S("mm"), J("-1"), d}), "\"2020-06-03T00:00:00.0000000Z\"");
  EXPECT_EQ(Run("DateTimeAdd", {S("dd"), J("-1"), d}), "\"2020-07-02T00:00:00.0000000Z\"");
  EXPECT_EQ(Run("DateTimeAdd", {S("hh"), J("-1"), d}), "\"2020-07-02T23:00:00.0000000Z\"");
  EXPECT_EQ(Run("DateTimeAdd", {S("ss"), J("-25"), d}), "\"2020-07-02T23:59:35.0000000Z\"");
}

TEST_F(DateTimeTest, DateTimeAddPartsAndAbbreviations) {
  Val d = S("2020-01-01T00:00:00.0000000Z");
  for (const char* p : {"year", "yyyy", "yy", "YEAR"})
    EXPECT_EQ(Run("DateTimeAdd", {S(p), J("2"), d}), "\"2022-01-01T00:00:00.0000000Z\"") << p;
  for (const char* p : {"month", "mm", "m"})
    EXPECT_EQ(Run("DateTimeAdd", {S(p), J("14"), d}), "\"2021-03-01T00:00:00.0000000Z\"") << p;
  for (const char* p : {"day", "dd", "d"})
    EXPECT_EQ(Run("DateTimeAdd", {S(p), J("366"), d}), "\"2021-01-01T00:00:00.0000000Z\"") << p;
  for (const char* p : {"hour", "hh"})
    EXPECT_EQ(Run("DateTimeAdd", {S(p), J("25"), d}), "\"2020-01-02T01:00:00.0000000Z\"") << p;
  for (const char* p : {"minute", "mi", "n"})
    EXPECT_EQ(Run("DateTimeAdd", {S(p), J("61"), d}), "\"2020-01-01T01:01:00.0000000Z\"") << p;
  for (const char* p : {"second", "ss", "s"})
    EXPECT_EQ(Run("DateTimeAdd", {S(p), J("3601"), d}), "\"2020-01-01T01:00:01.0000000Z\"") << p;
  for (const char* p : {"millisecond", "ms"})
    EXPECT_EQ(Run("DateTimeAdd", {S(p), J("1001"), d}), "\"2020-01-01T00:00:01.0010000Z\"") << p;
  for (const char* p : {"microsecond", "mcs"})
    EXPECT_EQ(Run("DateTimeAdd", {S(p), J("1000001"), d}), "\"2020-01-01T00:00:01.0000010Z\"") << p;
  for (const char* p : {"nanosecond", "ns"})
    EXPECT_EQ(Run("DateTimeAdd", {S(p), J("1500"), d}), "\"2020-01-01T00:00:00.0000015Z\"") << p;
  // Below one tick (100 ns) nothing is added.
  EXPECT_EQ(Run("DateTimeAdd", {S("ns"), J("99"), d}), "\"2020-01-01T00:00:00.0000000Z\"");
  EXPECT_EQ(Run("DateTimeAdd", {S("ns"), J("-100"), d}), "\"2019-12-31T23:59:59.9999999Z\"");
}

TEST_F(DateTimeTest, DateTimeAddClampsTheDayOfMonth) {
  EXPECT_EQ(Run("DateTimeAdd", {S("mm"), J("1"), S("2021-01-31T10:00:00Z")}), "\"2021-02-28T10:00:00.0000000Z\"");
  EXPECT_EQ(Run("DateTimeAdd", {S("mm"), J("1"), S("2020-01-31T10:00:00Z")}), "\"2020-02-29T10:00:00.0000000Z\"");
  EXPECT_EQ(Run("DateTimeAdd", {S("mm"), J("-1"), S("2021-03-31T00:00:00Z")}), "\"2021-02-28T00:00:00.0000000Z\"");
  EXPECT_EQ(Run("DateTimeAdd", {S("mm"), J("3"), S("2021-01-31T00:00:00Z")}), "\"2021-04-30T00:00:00.0000000Z\"");
  EXPECT_EQ(Run("DateTimeAdd", {S("yyyy"), J("1"), S("2020-02-29T00:00:00Z")}), "\"2021-02-28T00:00:00.0000000Z\"");
  EXPECT_EQ(Run("DateTimeAdd", {S("yyyy"), J("4"), S("2020-02-29T00:00:00Z")}), "\"2024-02-29T00:00:00.0000000Z\"");
  EXPECT_EQ(Run("DateTimeAdd", {S("mm"), J("-13"), S("2020-01-15T00:00:00Z")}), "\"2018-12-15T00:00:00.0000000Z\"");
}

TEST_F(DateTimeTest, DateTimeAddInvalidInputIsUndefined) {
  Val d = S("2020-07-03T00:00:00.0000000Z");
  EXPECT_EQ(Run("DateTimeAdd", {S("fortnight"), J("1"), d}), "undefined");
  EXPECT_EQ(Run("DateTimeAdd", {J("1"), J("1"), d}), "undefined");
  EXPECT_EQ(Run("DateTimeAdd", {S("dd"), J("1.5"), d}), "undefined");
  EXPECT_EQ(Run("DateTimeAdd", {S("dd"), S("1"), d}), "undefined");
  EXPECT_EQ(Run("DateTimeAdd", {S("dd"), J("null"), d}), "undefined");
  EXPECT_EQ(Run("DateTimeAdd", {S("dd"), Val(), d}), "undefined");
  EXPECT_EQ(Run("DateTimeAdd", {S("dd"), J("1"), S("2020-07-03T00:00:00+01:00")}), "undefined");
  EXPECT_EQ(Run("DateTimeAdd", {S("dd"), J("1"), J("1593734400000")}), "undefined");
  // An integral double is an integer.
  EXPECT_EQ(Run("DateTimeAdd", {S("dd"), J("2.0"), d}), "\"2020-07-05T00:00:00.0000000Z\"");
  // Out of the representable range.
  EXPECT_EQ(Run("DateTimeAdd", {S("yyyy"), J("1"), S("9999-06-01T00:00:00Z")}), "undefined");
  EXPECT_EQ(Run("DateTimeAdd", {S("dd"), J("-1"), S("0001-01-01T00:00:00Z")}), "undefined");
  EXPECT_EQ(Run("DateTimeAdd", {S("ms"), J("9223372036854775807"), d}), "undefined");
  EXPECT_EQ(Run("DateTimeAdd", {S("yyyy"), J("1e300"), d}), "undefined");
  EXPECT_EQ(Run("DateTimeAdd", {S("ms"), J("1"), S("9999-12-31T23:59:59.9999999Z")}), "undefined");
}

TEST_F(DateTimeTest, AcceptedInputForms) {
  auto ticks = [&](std::string_view s) { return Run("DateTimeToTicks", {S(s)}); };
  // The forms documented for IS_DATETIME.
  EXPECT_EQ(ticks("2023-03-06"), "16780608000000000");
  EXPECT_EQ(ticks("2023-03-06Z"), "16780608000000000");
  EXPECT_EQ(ticks("2023-03-06T15:29:59"), "16781165990000000");
  EXPECT_EQ(ticks("2023-03-06 15:29:59"), "16781165990000000");
  EXPECT_EQ(ticks("2023-03-06T15:29:59Z"), "16781165990000000");
  EXPECT_EQ(ticks("2023-03-06T15:29:59.9"), "16781165999000000");
  EXPECT_EQ(ticks("2023-03-06T15:29:59.9Z"), "16781165999000000");
  EXPECT_EQ(ticks("2023-03-06T15:29:59.1234567"), "16781165991234567");
  EXPECT_EQ(ticks("2023-03-06T15:29:59.1234567Z"), "16781165991234567");
  // Everything else.
  for (const char* bad : {"", "2023", "2023-03", "2023-3-06", "23-03-06", "2023/03/06", "2023-03-06T",
                          "2023-03-06X15:29:59", "2023-03-06T15:29", "2023-03-06T15:29:5", "2023-03-06T15:29:59.",
                          "2023-03-06T15:29:59.12345678", "2023-03-06T15:29:59ZZ", "2023-03-06T15:29:59+00:00",
                          "2023-03-06T15:29:59z", " 2023-03-06", "2023-03-06 ", "2023-13-01", "2023-00-01",
                          "2023-02-29", "2023-04-31", "2023-03-00", "2023-03-06T24:00:00", "2023-03-06T23:60:00",
                          "2023-03-06T23:59:60", "0000-01-01", "2023-03-06ZT10:00:00", "２０２３-03-06"}) {
    EXPECT_EQ(ticks(bad), "undefined") << bad;
  }
  EXPECT_EQ(ticks("2024-02-29"), "17091648000000000");
  EXPECT_EQ(ticks("0001-01-01T00:00:00Z"), "-621355968000000000");
  EXPECT_EQ(ticks("9999-12-31T23:59:59.9999999Z"), "2534023007999999999");
}

TEST_F(DateTimeTest, DateTimeBinDocumentedExamples) {
  Val d = S("2021-01-08T18:35:00.0000000");
  EXPECT_EQ(Run("DateTimeBin", {d, S("dd")}), "\"2021-01-08T00:00:00.0000000Z\"");
  EXPECT_EQ(Run("DateTimeBin", {d, S("hh")}), "\"2021-01-08T18:00:00.0000000Z\"");
  EXPECT_EQ(Run("DateTimeBin", {d, S("ss")}), "\"2021-01-08T18:35:00.0000000Z\"");
  EXPECT_EQ(Run("DateTimeBin", {d, S("hh"), J("5")}), "\"2021-01-08T15:00:00.0000000Z\"");
  EXPECT_EQ(Run("DateTimeBin", {d, S("dd"), J("7")}), "\"2021-01-07T00:00:00.0000000Z\"");
  EXPECT_EQ(Run("DateTimeBin", {d, S("dd"), J("7"), S("1601-01-01T00:00:00.0000000")}),
            "\"2021-01-04T00:00:00.0000000Z\"");
}

TEST_F(DateTimeTest, DateTimeBinEdges) {
  Val d = S("2021-01-08T18:35:27.1234567Z");
  EXPECT_EQ(Run("DateTimeBin", {d, S("mi"), J("15")}), "\"2021-01-08T18:30:00.0000000Z\"");
  EXPECT_EQ(Run("DateTimeBin", {d, S("ms"), J("100")}), "\"2021-01-08T18:35:27.1000000Z\"");
  EXPECT_EQ(Run("DateTimeBin", {d, S("mcs")}), "\"2021-01-08T18:35:27.1234560Z\"");
  EXPECT_EQ(Run("DateTimeBin", {d, S("ns")}), "\"2021-01-08T18:35:27.1234567Z\"");
  EXPECT_EQ(Run("DateTimeBin", {d, S("ns"), J("1000")}), "\"2021-01-08T18:35:27.1234560Z\"");
  // Before the bin start the bins extend backwards (floor).
  EXPECT_EQ(Run("DateTimeBin", {S("1969-12-31T23:00:00Z"), S("dd")}), "\"1969-12-31T00:00:00.0000000Z\"");
  EXPECT_EQ(Run("DateTimeBin", {S("2021-01-08T10:00:00Z"), S("hh"), J("4"), S("2021-01-08T09:30:00Z")}),
            "\"2021-01-08T09:30:00.0000000Z\"");
  EXPECT_EQ(Run("DateTimeBin", {S("2021-01-08T09:00:00Z"), S("hh"), J("4"), S("2021-01-08T09:30:00Z")}),
            "\"2021-01-08T05:30:00.0000000Z\"");
  // Invalid part (years and months cannot be binned), size or start.
  EXPECT_EQ(Run("DateTimeBin", {d, S("yyyy")}), "undefined");
  EXPECT_EQ(Run("DateTimeBin", {d, S("mm")}), "undefined");
  EXPECT_EQ(Run("DateTimeBin", {d, S("week")}), "undefined");
  EXPECT_EQ(Run("DateTimeBin", {d, S("dd"), J("0")}), "undefined");
  EXPECT_EQ(Run("DateTimeBin", {d, S("dd"), J("-1")}), "undefined");
  EXPECT_EQ(Run("DateTimeBin", {d, S("dd"), J("1.5")}), "undefined");
  EXPECT_EQ(Run("DateTimeBin", {d, S("dd"), S("1")}), "undefined");
  EXPECT_EQ(Run("DateTimeBin", {d, S("dd"), J("1"), S("1600-12-31T00:00:00Z")}), "undefined");
  EXPECT_EQ(Run("DateTimeBin", {d, S("dd"), J("1"), S("nope")}), "undefined");
  EXPECT_EQ(Run("DateTimeBin", {S("nope"), S("dd")}), "undefined");
  // A bin start before 0001 is impossible; a result before it is undefined.
  EXPECT_EQ(Run("DateTimeBin", {S("1601-01-02T00:00:00Z"), S("dd"), J("1000000"), S("1700-01-01T00:00:00Z")}),
            "undefined");
}

TEST_F(DateTimeTest, DateTimeDiffDocumentedExamples) {
  Val a = S("2019-02-04T16:00:00.0000000"), b = S("2018-03-05T05:00:00.0000000");
  EXPECT_EQ(Run("DateTimeDiff", {S("yyyy"), a, b}), "-1");
  EXPECT_EQ(Run("DateTimeDiff", {S("mm"), a, b}), "-11");
  EXPECT_EQ(Run("DateTimeDiff", {S("dd"), a, b}), "-336");
  EXPECT_EQ(Run("DateTimeDiff", {S("hh"), a, b}), "-8075");
  EXPECT_EQ(Run("DateTimeDiff", {S("ss"), a, b}), "-29070000");
  EXPECT_EQ(Run("DateTimeDiff", {S("yyyy"), b, a}), "1");
  EXPECT_EQ(Run("DateTimeDiff", {S("mm"), b, a}), "11");
  EXPECT_EQ(Run("DateTimeDiff", {S("dd"), b, a}), "336");
  EXPECT_EQ(Run("DateTimeDiff", {S("hh"), b, a}), "8075");
  EXPECT_EQ(Run("DateTimeDiff", {S("ss"), b, a}), "29070000");
}

TEST_F(DateTimeTest, DateTimeDiffCountsBoundariesCrossed) {
  EXPECT_EQ(Run("DateTimeDiff", {S("yyyy"), S("2020-12-31T23:59:59.9999999Z"), S("2021-01-01T00:00:00Z")}), "1");
  EXPECT_EQ(Run("DateTimeDiff", {S("yyyy"), S("2020-01-01T00:00:00Z"), S("2020-12-31T23:59:59Z")}), "0");
  EXPECT_EQ(Run("DateTimeDiff", {S("mm"), S("2020-01-31T00:00:00Z"), S("2020-02-01T00:00:00Z")}), "1");
  EXPECT_EQ(Run("DateTimeDiff", {S("dd"), S("2020-01-01T23:59:59Z"), S("2020-01-02T00:00:00Z")}), "1");
  EXPECT_EQ(Run("DateTimeDiff", {S("dd"), S("2020-01-01T00:00:00Z"), S("2020-01-01T23:59:59Z")}), "0");
  EXPECT_EQ(Run("DateTimeDiff", {S("hh"), S("1969-12-31T23:59:59Z"), S("1970-01-01T00:00:00Z")}), "1");
  EXPECT_EQ(Run("DateTimeDiff", {S("mi"), S("2020-01-01T00:00:59Z"), S("2020-01-01T00:01:00Z")}), "1");
  EXPECT_EQ(Run("DateTimeDiff", {S("ms"), S("2020-01-01T00:00:00.0009999Z"), S("2020-01-01T00:00:00.001Z")}), "1");
  EXPECT_EQ(Run("DateTimeDiff", {S("mcs"), S("2020-01-01T00:00:00.0000009Z"), S("2020-01-01T00:00:00.000001Z")}),
            "1");
  EXPECT_EQ(Run("DateTimeDiff", {S("ns"), S("2020-01-01T00:00:00Z"), S("2020-01-01T00:00:00.0000012Z")}), "1200");
  EXPECT_TRUE(Call("DateTimeDiff", {S("dd"), S("2020-01-01"), S("2021-01-01")}).IsInteger());
  // Nanoseconds across the whole range do not fit an int64; the number is still returned.
  EXPECT_EQ(Run("DateTimeDiff", {S("ns"), S("0001-01-01"), S("9999-12-31")}), "315537811200000000000");
  EXPECT_EQ(Run("DateTimeDiff", {S("week"), S("2020-01-01"), S("2021-01-01")}), "undefined");
  EXPECT_EQ(Run("DateTimeDiff", {S("dd"), S("2020-01-01"), S("2021-13-01")}), "undefined");
  EXPECT_EQ(Run("DateTimeDiff", {S("dd"), J("1"), S("2021-01-01")}), "undefined");
}

TEST_F(DateTimeTest, DateTimeFromParts) {
  EXPECT_EQ(Run("DateTimeFromParts", {J("2017"), J("4"), J("20")}), "\"2017-04-20T00:00:00.0000000Z\"");
  EXPECT_EQ(Run("DateTimeFromParts", {J("2017"), J("4"), J("20"), J("0"), J("0"), J("0"), J("0")}),
            "\"2017-04-20T00:00:00.0000000Z\"");
  EXPECT_EQ(Run("DateTimeFromParts", {J("2017"), J("4"), J("20"), J("13"), J("15"), J("20"), J("3456789")}),
            "\"2017-04-20T13:15:20.3456789Z\"");
  EXPECT_EQ(Run("DateTimeFromParts", {J("2017"), J("4"), J("20"), J("13"), J("15")}),
            "\"2017-04-20T13:15:00.0000000Z\"");
  EXPECT_EQ(Run("DateTimeFromParts", {J("-2000"), J("-1"), J("-1")}), "undefined");
  EXPECT_EQ(Run("DateTimeFromParts", {J("2017"), J("2"), J("29")}), "undefined");
  EXPECT_EQ(Run("DateTimeFromParts", {J("2016"), J("2"), J("29")}), "\"2016-02-29T00:00:00.0000000Z\"");
  EXPECT_EQ(Run("DateTimeFromParts", {J("2017"), J("4"), J("20"), J("24")}), "undefined");
  EXPECT_EQ(Run("DateTimeFromParts", {J("2017"), J("4"), J("20"), J("1"), J("60")}), "undefined");
  EXPECT_EQ(Run("DateTimeFromParts", {J("2017"), J("4"), J("20"), J("1"), J("1"), J("60")}), "undefined");
  EXPECT_EQ(Run("DateTimeFromParts", {J("2017"), J("4"), J("20"), J("1"), J("1"), J("1"), J("10000000")}),
            "undefined");
  EXPECT_EQ(Run("DateTimeFromParts", {J("10000"), J("1"), J("1")}), "undefined");
  EXPECT_EQ(Run("DateTimeFromParts", {J("2017"), J("4.5"), J("20")}), "undefined");
  EXPECT_EQ(Run("DateTimeFromParts", {S("2017"), J("4"), J("20")}), "undefined");
  EXPECT_EQ(Run("DateTimeFromParts", {J("1"), J("1"), J("1")}), "\"0001-01-01T00:00:00.0000000Z\"");
}

TEST_F(DateTimeTest, DateTimePartDocumentedExamples) {
  Val d = S("2016-05-29T08:30:00.1301617");
  EXPECT_EQ(Run("DateTimePart", {S("yyyy"), d}), "2016");
  EXPECT_EQ(Run("DateTimePart", {S("mm"), d}), "5");
  EXPECT_EQ(Run("DateTimePart", {S("dd"), d}), "29");
  EXPECT_EQ(Run("DateTimePart", {S("hh"), d}), "8");
  EXPECT_EQ(Run("DateTimePart", {S("mi"), d}), "30");
  EXPECT_EQ(Run("DateTimePart", {S("ss"), d}), "0");
  EXPECT_EQ(Run("DateTimePart", {S("ms"), d}), "130");
  EXPECT_EQ(Run("DateTimePart", {S("mcs"), d}), "130161");
  EXPECT_EQ(Run("DateTimePart", {S("ns"), d}), "130161700");
  EXPECT_EQ(Run("DateTimePart", {S("m"), S("2020-01-02T03:04:05.6789123Z")}), "1");
  EXPECT_EQ(Run("DateTimePart", {S("week"), d}), "undefined");
  EXPECT_EQ(Run("DateTimePart", {S("dd"), S("2016-05-32")}), "undefined");
  EXPECT_EQ(Run("Year", {d}), "2016");
  EXPECT_EQ(Run("Month", {d}), "5");
  EXPECT_EQ(Run("Day", {d}), "29");
  EXPECT_EQ(Run("Day", {J("20160529")}), "undefined");
}

TEST_F(DateTimeTest, TicksAndTimestampsCountFromTheUnixEpoch) {
  EXPECT_EQ(Run("DateTimeToTicks", {S("2015-05-19T12:00:00.0000000")}), "14320368000000000");
  EXPECT_EQ(Run("DateTimeToTimestamp", {S("2015-05-19T12:00:00.0000000")}), "1432036800000");
  EXPECT_EQ(Run("DateTimeToTicks", {S("1970-01-01T00:00:00.0000001Z")}), "1");
  EXPECT_EQ(Run("DateTimeToTicks", {S("1969-12-31T23:59:59.9999999Z")}), "-1");
  EXPECT_EQ(Run("DateTimeToTimestamp", {S("1970-01-01T00:00:00.0019999Z")}), "1");
  EXPECT_EQ(Run("DateTimeToTimestamp", {S("1601-01-01T00:00:00Z")}), "-11644473600000");
  EXPECT_EQ(Run("DateTimeToTicks", {S("not a date")}), "undefined");
  EXPECT_EQ(Run("DateTimeToTimestamp", {J("{}")}), "undefined");

  EXPECT_EQ(Run("TicksToDateTime", {J("15973607943002652")}), "\"2020-08-13T23:19:54.3002652Z\"");
  EXPECT_EQ(Run("TicksToDateTime", {J("0")}), "\"1970-01-01T00:00:00.0000000Z\"");
  EXPECT_EQ(Run("TicksToDateTime", {J("-116444736000000000")}), "\"1601-01-01T00:00:00.0000000Z\"");
  EXPECT_EQ(Run("TicksToDateTime", {J("-621355968000000000")}), "\"0001-01-01T00:00:00.0000000Z\"");
  EXPECT_EQ(Run("TicksToDateTime", {J("-621355968000000001")}), "undefined");
  EXPECT_EQ(Run("TicksToDateTime", {J("2534023007999999999")}), "\"9999-12-31T23:59:59.9999999Z\"");
  EXPECT_EQ(Run("TicksToDateTime", {J("2534023008000000000")}), "undefined");
  EXPECT_EQ(Run("TicksToDateTime", {J("1e300")}), "undefined");
  EXPECT_EQ(Run("TicksToDateTime", {S("0")}), "undefined");

  EXPECT_EQ(Run("TimestampToDateTime", {J("1597360794300")}), "\"2020-08-13T23:19:54.3000000Z\"");
  EXPECT_EQ(Run("TimestampToDateTime", {J("0")}), "\"1970-01-01T00:00:00.0000000Z\"");
  EXPECT_EQ(Run("TimestampToDateTime", {J("-11644473600000")}), "\"1601-01-01T00:00:00.0000000Z\"");
  EXPECT_EQ(Run("TimestampToDateTime", {J("1.5")}), "\"1970-01-01T00:00:00.0015000Z\"");
  EXPECT_EQ(Run("TimestampToDateTime", {J("253402300800000")}), "undefined");
  EXPECT_EQ(Run("TimestampToDateTime", {J("true")}), "undefined");
}

TEST_F(DateTimeTest, RoundTripsAcrossTheCalendar) {
  // Every 97th day over the whole range: format, parse back, and agree with DateTimeFromParts.
  for (int64_t day = 0; day < 3652059; day += 97) {
    int64_t ticks = day * 864000000000LL + 123456789LL - 621355968000000000LL;
    Val s = Call("TicksToDateTime", {arena_.Int(ticks)});
    ASSERT_TRUE(s.IsString());
    ASSERT_EQ(Run("DateTimeToTicks", {s}), std::to_string(ticks));
    Val y = Call("Year", {s}), m = Call("Month", {s}), d = Call("Day", {s});
    ASSERT_EQ(Run("DateTimeFromParts", {y, m, d, J("0"), J("0"), J("12"), J("3456789")}), Str(s));
  }
}

TEST_F(DateTimeTest, DateTimeFormatCustomSpecifiers) {
  Val d = S("2024-10-10 14:40:20");
  // The documented cases.
  EXPECT_EQ(Run("DateTimeFormat", {d, S("yyyyMMdd")}), "\"20241010\"");
  EXPECT_EQ(Run("DateTimeFormat", {d, S("yyyy-MM-dd [HH:mm:ss]")}), "\"2024-10-10 [14:40:20]\"");
  EXPECT_EQ(Run("DateTimeFormat", {d, S("To\\da\\y i\\s: yyyy-MM-ddTHH:mm:ss.fff")}),
            "\"Today is: 2024-10-10T14:40:20.000\"");
  EXPECT_EQ(Run("DateTimeFormat", {d, S("To\\da\\y i\\s: yyyy-MM-ddTHH:mm:ss.FFF")}),
            "\"Today is: 2024-10-10T14:40:20.\"");
  Val e = S("2009-06-01T01:02:03.1230400Z");
  EXPECT_EQ(Run("DateTimeFormat", {e, S("d/M/yy h:m:s tt")}), "\"1/6/09 1:2:3 AM\"");
  EXPECT_EQ(Run("DateTimeFormat", {e, S("ddd dddd MMM MMMM")}), "\"Mon Monday Jun June\"");
  EXPECT_EQ(Run("DateTimeFormat", {e, S("fffffff FFFFFFF FF f")}), "\"1230400 12304 12 1\"");
  EXPECT_EQ(Run("DateTimeFormat", {e, S("'yyyy' \"MM\" %d")}), "\"yyyy MM 1\"");
  EXPECT_EQ(Run("DateTimeFormat", {S("2009-06-15T13:45:30Z"), S("hh HH t yyyyy")}), "\"01 13 P 02009\"");
  EXPECT_EQ(Run("DateTimeFormat", {e, S("ffffffff")}), "undefined");
  EXPECT_EQ(Run("DateTimeFormat", {e, S("'unterminated")}), "undefined");
  EXPECT_EQ(Run("DateTimeFormat", {e, S("d")}), "undefined");
  EXPECT_EQ(Run("DateTimeFormat", {e, S("yyyy K")}), "undefined");
  EXPECT_EQ(Run("DateTimeFormat", {e, S("HH:mm zzz")}), "undefined");
  EXPECT_EQ(Run("DateTimeFormat", {S("2009-06-32"), S("yyyy")}), "undefined");
  EXPECT_EQ(Run("DateTimeFormat", {e, J("1")}), "undefined");
}

}  // namespace
}  // namespace cosmos::query
