// Date and time functions: GetCurrent* (and their Static forms), Now, Ago, DateTimeAdd, DateTimeBin,
// DateTimeDiff, DateTimeFormat, DateTimeFromParts, DateTimePart, Day/Month/Year, DateTimeToTicks,
// DateTimeToTimestamp, TicksToDateTime and TimestampToDateTime.
//
// Instants are held as .NET-style ticks (100 ns) since 0001-01-01T00:00:00Z, proleptic Gregorian, UTC,
// covering 0001-01-01 to 9999-12-31. The service's *ticks* and *timestamps* count from the Unix epoch
// (DateTimeToTicks("2015-05-19T12:00:00.0000000") is 14320368000000000). Every result string has the
// form YYYY-MM-DDThh:mm:ss.fffffffZ. Input strings follow the grammar the service documents for
// IS_DATETIME: YYYY-MM-DD, optionally followed by 'Z', or by 'T' or ' ' and hh:mm:ss, then an optional
// '.' with 1 to 7 digits, then an optional 'Z'. Anything else, an impossible calendar date, a wrong
// argument type or a result outside the range gives undefined. "Now" is always ctx.now_ms, so every
// call in one query sees the same instant (the Static forms are therefore identical).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "query/functions/function.h"

namespace cosmos::query {

namespace {

__extension__ typedef __int128 Int128;  // exact intermediate arithmetic on tick counts

constexpr int64_t kTicksPerMicrosecond = 10;
constexpr int64_t kTicksPerMillisecond = 10'000;
constexpr int64_t kTicksPerSecond = 10'000'000;
constexpr int64_t kTicksPerMinute = 60 * kTicksPerSecond;
constexpr int64_t kTicksPerHour = 60 * kTicksPerMinute;
constexpr int64_t kTicksPerDay = 24 * kTicksPerHour;
constexpr int64_t kUnixEpochTicks = 621'355'968'000'000'000;    // 1970-01-01T00:00:00Z
constexpr int64_t kMaxTicks = 3'155'378'975'999'999'999;       // 9999-12-31T23:59:59.9999999Z
constexpr int64_t kWindowsEpochTicks = 504'911'232'000'000'000;  // 1601-01-01T00:00:00Z

enum class Part { kYear, kMonth, kDay, kHour, kMinute, kSecond, kMillisecond, kMicrosecond, kNanosecond };

struct Civil {
  int year, month, day, hour, minute, second;
  int64_t fraction;  // ticks within the second, 0..9'999'999
};

bool IsLeap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int y, int m) {
  static constexpr std::array<int, 12> kDays = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

// Days from 0001-01-01 to the given proleptic Gregorian date (valid input assumed).
int64_t DaysFromCivil(int y, int m, int d) {
  int64_t yy = y - 1;
  int64_t days = yy * 365 + yy / 4 - yy / 100 + yy / 400;
  for (int i = 1; i < m; ++i) days += DaysInMonth(y, i);
  return days + d - 1;
}

// The calendar fields of a tick count in [0, kMaxTicks].
Civil ToCivil(int64_t ticks) {
  Civil c{};
  int64_t days = ticks / kTicksPerDay;
  int64_t rem = ticks % kTicksPerDay;
  // 400-year cycles of 146097 days, then centuries, 4-year groups and years.
  int64_t n400 = days / 146097;
  days %= 146097;
  int64_t n100 = days / 36524;
  if (n100 == 4) n100 = 3;
  days -= n100 * 36524;
  int64_t n4 = days / 1461;
  days %= 1461;
  int64_t n1 = days / 365;
  if (n1 == 4) n1 = 3;
  days -= n1 * 365;
  c.year = static_cast<int>(n400 * 400 + n100 * 100 + n4 * 4 + n1 + 1);
  c.month = 1;
  while (days >= DaysInMonth(c.year, c.month)) days -= DaysInMonth(c.year, c.month++);
  c.day = static_cast<int>(days) + 1;
  c.hour = static_cast<int>(rem / kTicksPerHour);
  rem %= kTicksPerHour;
  c.minute = static_cast<int>(rem / kTicksPerMinute);
  rem %= kTicksPerMinute;
  c.second = static_cast<int>(rem / kTicksPerSecond);
  c.fraction = rem % kTicksPerSecond;
  return c;
}

// Ticks of a calendar date and time; nullopt when a field is out of its range.
std::optional<int64_t> FromCivil(int64_t y, int64_t mo, int64_t d, int64_t h, int64_t mi, int64_t s, int64_t f) {
  if (y < 1 || y > 9999 || mo < 1 || mo > 12 || d < 1 || d > DaysInMonth(static_cast<int>(y), static_cast<int>(mo)))
    return std::nullopt;
  if (h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 59 || f < 0 || f >= kTicksPerSecond) return std::nullopt;
  return DaysFromCivil(static_cast<int>(y), static_cast<int>(mo), static_cast<int>(d)) * kTicksPerDay +
         h * kTicksPerHour + mi * kTicksPerMinute + s * kTicksPerSecond + f;
}

// Parses the documented date-time forms (see the file comment) into ticks.
std::optional<int64_t> ParseDateTime(std::string_view s) {
  size_t pos = 0;
  auto digits = [&](size_t n, int64_t& out) {
    if (pos + n > s.size()) return false;
    out = 0;
    for (size_t i = 0; i < n; ++i) {
      char c = s[pos + i];
      if (c < '0' || c > '9') return false;
      out = out * 10 + (c - '0');
    }
    pos += n;
    return true;
  };
  auto expect = [&](char c) {
    if (pos >= s.size() || s[pos] != c) return false;
    ++pos;
    return true;
  };
  int64_t y, mo, d, h = 0, mi = 0, sec = 0, frac = 0;
  if (!digits(4, y) || !expect('-') || !digits(2, mo) || !expect('-') || !digits(2, d)) return std::nullopt;
  if (pos < s.size()) {
    if (s[pos] == 'Z') {
      ++pos;
    } else {
      if (s[pos] != 'T' && s[pos] != ' ') return std::nullopt;
      ++pos;
      if (!digits(2, h) || !expect(':') || !digits(2, mi) || !expect(':') || !digits(2, sec)) return std::nullopt;
      if (pos < s.size() && s[pos] == '.') {
        ++pos;
        size_t start = pos;
        int64_t scale = kTicksPerSecond;
        while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9' && pos - start < 7) {
          scale /= 10;
          frac += (s[pos] - '0') * scale;
          ++pos;
        }
        if (pos == start) return std::nullopt;
      }
      if (pos < s.size() && s[pos] == 'Z') ++pos;
    }
  }
  if (pos != s.size()) return std::nullopt;
  return FromCivil(y, mo, d, h, mi, sec, frac);
}

void AppendPadded(std::string& out, int64_t v, int width) {
  std::string digits = std::to_string(v);
  if (static_cast<int>(digits.size()) < width) out.append(width - digits.size(), '0');
  out += digits;
}

// The canonical output form YYYY-MM-DDThh:mm:ss.fffffffZ.
std::string FormatTicks(int64_t ticks) {
  Civil c = ToCivil(ticks);
  std::string out;
  out.reserve(28);
  AppendPadded(out, c.year, 4);
  out += '-';
  AppendPadded(out, c.month, 2);
  out += '-';
  AppendPadded(out, c.day, 2);
  out += 'T';
  AppendPadded(out, c.hour, 2);
  out += ':';
  AppendPadded(out, c.minute, 2);
  out += ':';
  AppendPadded(out, c.second, 2);
  out += '.';
  AppendPadded(out, c.fraction, 7);
  out += 'Z';
  return out;
}

Val TicksResult(FunctionContext& ctx, std::optional<int64_t> ticks) {
  if (!ticks || *ticks < 0 || *ticks > kMaxTicks) return Val();
  return ctx.arena.String(FormatTicks(*ticks));
}

std::optional<int64_t> ArgDateTime(Val v) {
  if (!v.IsString()) return std::nullopt;
  return ParseDateTime(v.AsString());
}

// A number holding an integral value that fits int64 (an integral double such as 2.0 counts).
std::optional<int64_t> ArgInteger(Val v) {
  if (!v.IsNumber()) return std::nullopt;
  if (v.IsInteger()) {
    if (!v.json().IsInt64()) return std::nullopt;
    return v.AsInt64();
  }
  double d = v.AsNumber();
  if (!std::isfinite(d) || d != std::trunc(d) || d < -9.2e18 || d > 9.2e18) return std::nullopt;
  return static_cast<int64_t>(d);
}

// A number truncated toward zero to an int64 (for tick and millisecond counts).
std::optional<int64_t> ArgTruncated(Val v) {
  if (!v.IsNumber()) return std::nullopt;
  if (v.IsInteger()) {
    if (!v.json().IsInt64()) return std::nullopt;
    return v.AsInt64();
  }
  double d = v.AsNumber();
  if (!std::isfinite(d) || d < -9.2e18 || d > 9.2e18) return std::nullopt;
  return static_cast<int64_t>(std::trunc(d));
}

// The documented date part names and abbreviations (matched without regard to case).
std::optional<Part> ArgPart(Val v) {
  if (!v.IsString()) return std::nullopt;
  std::string p;
  for (char c : v.AsString()) p += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (p == "year" || p == "yyyy" || p == "yy") return Part::kYear;
  if (p == "month" || p == "mm" || p == "m") return Part::kMonth;
  if (p == "day" || p == "dd" || p == "d") return Part::kDay;
  if (p == "hour" || p == "hh") return Part::kHour;
  if (p == "minute" || p == "mi" || p == "n") return Part::kMinute;
  if (p == "second" || p == "ss" || p == "s") return Part::kSecond;
  if (p == "millisecond" || p == "ms") return Part::kMillisecond;
  if (p == "microsecond" || p == "mcs") return Part::kMicrosecond;
  if (p == "nanosecond" || p == "ns") return Part::kNanosecond;
  return std::nullopt;
}

// Ticks in one unit of a fixed-length part (day and shorter; nanoseconds are below one tick).
int64_t UnitTicks(Part p) {
  switch (p) {
    case Part::kDay: return kTicksPerDay;
    case Part::kHour: return kTicksPerHour;
    case Part::kMinute: return kTicksPerMinute;
    case Part::kSecond: return kTicksPerSecond;
    case Part::kMillisecond: return kTicksPerMillisecond;
    case Part::kMicrosecond: return kTicksPerMicrosecond;
    default: return 0;
  }
}

std::optional<int64_t> Checked(Int128 v) {
  if (v < 0 || v > kMaxTicks) return std::nullopt;
  return static_cast<int64_t>(v);
}

// Adds `n` months to `ticks`, clamping the day to the target month's length as .NET's AddMonths does.
std::optional<int64_t> AddMonths(int64_t ticks, Int128 n) {
  Civil c = ToCivil(ticks);
  Int128 total = static_cast<Int128>(c.year) * 12 + (c.month - 1) + n;
  if (total < 12 || total > 9999 * 12 + 11) return std::nullopt;
  int y = static_cast<int>(total / 12);
  int m = static_cast<int>(total % 12) + 1;
  int d = std::min(c.day, DaysInMonth(y, m));
  return DaysFromCivil(y, m, d) * kTicksPerDay + ticks % kTicksPerDay;
}

// DateTimeAdd semantics: whole years and months keep the time of day and clamp the day; shorter parts
// add fixed durations; nanoseconds are truncated to whole ticks.
std::optional<int64_t> AddPart(int64_t ticks, Part part, int64_t n) {
  switch (part) {
    case Part::kYear: return AddMonths(ticks, static_cast<Int128>(n) * 12);
    case Part::kMonth: return AddMonths(ticks, n);
    case Part::kNanosecond: return Checked(static_cast<Int128>(ticks) + n / 100);
    default: return Checked(static_cast<Int128>(ticks) + static_cast<Int128>(n) * UnitTicks(part));
  }
}

int64_t NowTicks(const FunctionContext& ctx) { return kUnixEpochTicks + ctx.now_ms * kTicksPerMillisecond; }

// The value of one part of an instant, as DateTimePart returns it (sub-second parts are within the second).
int64_t PartValue(int64_t ticks, Part part) {
  Civil c = ToCivil(ticks);
  switch (part) {
    case Part::kYear: return c.year;
    case Part::kMonth: return c.month;
    case Part::kDay: return c.day;
    case Part::kHour: return c.hour;
    case Part::kMinute: return c.minute;
    case Part::kSecond: return c.second;
    case Part::kMillisecond: return c.fraction / kTicksPerMillisecond;
    case Part::kMicrosecond: return c.fraction / kTicksPerMicrosecond;
    case Part::kNanosecond: return c.fraction * 100;
  }
  return 0;
}

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0); }

// ---- current time ----

Val GetCurrentDateTime(FunctionContext& ctx, std::span<const Val>) { return TicksResult(ctx, NowTicks(ctx)); }

Val GetCurrentTicks(FunctionContext& ctx, std::span<const Val>) {
  return ctx.arena.Int(ctx.now_ms * kTicksPerMillisecond);
}

Val GetCurrentTimestamp(FunctionContext& ctx, std::span<const Val>) { return ctx.arena.Int(ctx.now_ms); }

// NOW() or NOW(part, n): the query's instant, optionally moved by n parts.
Val Now(FunctionContext& ctx, std::span<const Val> args) {
  if (args.empty()) return TicksResult(ctx, NowTicks(ctx));
  if (args.size() != 2) return Val();
  auto part = ArgPart(args[0]);
  auto n = ArgInteger(args[1]);
  if (!part || !n) return Val();
  return TicksResult(ctx, AddPart(NowTicks(ctx), *part, *n));
}

// AGO(part, n): the query's instant moved back by n parts.
Val Ago(FunctionContext& ctx, std::span<const Val> args) {
  auto part = ArgPart(args[0]);
  auto n = ArgInteger(args[1]);
  if (!part || !n || *n == std::numeric_limits<int64_t>::min()) return Val();
  return TicksResult(ctx, AddPart(NowTicks(ctx), *part, -*n));
}

// ---- arithmetic ----

Val DateTimeAdd(FunctionContext& ctx, std::span<const Val> args) {
  auto part = ArgPart(args[0]);
  auto n = ArgInteger(args[1]);
  auto t = ArgDateTime(args[2]);
  if (!part || !n || !t) return Val();
  return TicksResult(ctx, AddPart(*t, *part, *n));
}

// DateTimeBin(date_time, part [, bin_size [, bin_start]]): floors the instant to a multiple of
// bin_size parts counted from bin_start (default the Unix epoch); parts from day down to nanosecond.
Val DateTimeBin(FunctionContext& ctx, std::span<const Val> args) {
  auto t = ArgDateTime(args[0]);
  auto part = ArgPart(args[1]);
  if (!t || !part || *part == Part::kYear || *part == Part::kMonth) return Val();
  int64_t size = 1;
  if (args.size() > 2) {
    auto s = ArgInteger(args[2]);
    if (!s || *s <= 0) return Val();
    size = *s;
  }
  int64_t origin = kUnixEpochTicks;
  if (args.size() > 3) {
    auto o = ArgDateTime(args[3]);
    if (!o || *o < kWindowsEpochTicks) return Val();
    origin = *o;
  }
  // Work in nanoseconds so that nanosecond bins need no special case.
  Int128 unit_ns = *part == Part::kNanosecond ? 1 : static_cast<Int128>(UnitTicks(*part)) * 100;
  Int128 width = unit_ns * size;
  Int128 diff = (static_cast<Int128>(*t) - origin) * 100;
  Int128 q = diff / width;
  if (diff % width != 0 && diff < 0) --q;
  Int128 result_ns = static_cast<Int128>(origin) * 100 + q * width;
  Int128 result = result_ns / 100;
  if (result_ns % 100 != 0 && result_ns < 0) --result;
  return TicksResult(ctx, Checked(result));
}

// DateTimeDiff(part, start, end): the number of part boundaries crossed going from start to end.
Val DateTimeDiff(FunctionContext& ctx, std::span<const Val> args) {
  auto part = ArgPart(args[0]);
  auto start = ArgDateTime(args[1]);
  auto end = ArgDateTime(args[2]);
  if (!part || !start || !end) return Val();
  Civil a = ToCivil(*start), b = ToCivil(*end);
  switch (*part) {
    case Part::kYear: return ctx.arena.Int(b.year - a.year);
    case Part::kMonth: return ctx.arena.Int((b.year * 12 + b.month) - (a.year * 12 + a.month));
    case Part::kNanosecond: {
      Int128 ns = (static_cast<Int128>(*end) - *start) * 100;
      if (ns > std::numeric_limits<int64_t>::max() || ns < std::numeric_limits<int64_t>::min())
        return ctx.arena.Number(static_cast<double>(ns));
      return ctx.arena.Int(static_cast<int64_t>(ns));
    }
    default: {
      int64_t unit = UnitTicks(*part);
      return ctx.arena.Int(FloorDiv(*end, unit) - FloorDiv(*start, unit));
    }
  }
}

// DateTimeFromParts(year, month, day [, hour [, minute [, second [, fraction in ticks]]]]).
Val DateTimeFromParts(FunctionContext& ctx, std::span<const Val> args) {
  std::array<int64_t, 7> f = {0, 0, 0, 0, 0, 0, 0};
  for (size_t i = 0; i < args.size() && i < f.size(); ++i) {
    auto v = ArgInteger(args[i]);
    if (!v) return Val();
    f[i] = *v;
  }
  return TicksResult(ctx, FromCivil(f[0], f[1], f[2], f[3], f[4], f[5], f[6]));
}

Val DateTimePart(FunctionContext& ctx, std::span<const Val> args) {
  auto part = ArgPart(args[0]);
  auto t = ArgDateTime(args[1]);
  if (!part || !t) return Val();
  return ctx.arena.Int(PartValue(*t, *part));
}

template <Part P>
Val SinglePart(FunctionContext& ctx, std::span<const Val> args) {
  auto t = ArgDateTime(args[0]);
  if (!t) return Val();
  return ctx.arena.Int(PartValue(*t, P));
}

// ---- conversions ----

Val DateTimeToTicks(FunctionContext& ctx, std::span<const Val> args) {
  auto t = ArgDateTime(args[0]);
  if (!t) return Val();
  return ctx.arena.Int(*t - kUnixEpochTicks);
}

Val DateTimeToTimestamp(FunctionContext& ctx, std::span<const Val> args) {
  auto t = ArgDateTime(args[0]);
  if (!t) return Val();
  return ctx.arena.Int((*t - kUnixEpochTicks) / kTicksPerMillisecond);
}

Val TicksToDateTime(FunctionContext& ctx, std::span<const Val> args) {
  auto n = ArgTruncated(args[0]);
  if (!n) return Val();
  return TicksResult(ctx, Checked(static_cast<Int128>(*n) + kUnixEpochTicks));
}

Val TimestampToDateTime(FunctionContext& ctx, std::span<const Val> args) {
  if (!args[0].IsNumber()) return Val();
  Int128 ticks;
  if (args[0].IsInteger()) {
    if (!args[0].json().IsInt64()) return Val();
    ticks = static_cast<Int128>(args[0].AsInt64()) * kTicksPerMillisecond;
  } else {
    double ms = args[0].AsNumber();
    if (!std::isfinite(ms) || std::fabs(ms) > 1e15) return Val();
    ticks = static_cast<Int128>(std::trunc(ms * kTicksPerMillisecond));
  }
  return TicksResult(ctx, Checked(ticks + kUnixEpochTicks));
}

// ---- DateTimeFormat: .NET custom date and time format specifiers, invariant culture ----

constexpr std::array<std::string_view, 12> kMonthNames = {"January", "February", "March",     "April",
                                                          "May",     "June",     "July",      "August",
                                                          "September", "October", "November", "December"};
constexpr std::array<std::string_view, 7> kDayNames = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                                       "Thursday", "Friday", "Saturday"};

// Formats `ticks` with a .NET-style custom format string (invariant culture, as the documented examples
// show: yyyy, MM, dd, HH, mm, ss, f/F fractions, quoted and escaped literals); nullopt for a malformed
// pattern, the era and time-zone specifiers, or a standard (single-character) format, whose expansions
// the service does not document. Unlike .NET, an empty F fraction keeps the '.' before it, as documented.
std::optional<std::string> FormatCustom(int64_t ticks, std::string_view fmt) {
  if (fmt.size() <= 1) return std::nullopt;
  Civil c = ToCivil(ticks);
  int weekday = static_cast<int>((ticks / kTicksPerDay + 1) % 7);  // 0001-01-01 was a Monday
  std::string out;
  size_t i = 0;
  while (i < fmt.size()) {
    char ch = fmt[i];
    size_t run = 1;
    while (i + run < fmt.size() && fmt[i + run] == ch) ++run;
    switch (ch) {
      case 'd':
        if (run == 1 || run == 2) AppendPadded(out, c.day, static_cast<int>(run));
        else if (run == 3) out += kDayNames[weekday].substr(0, 3);
        else out += kDayNames[weekday];
        break;
      case 'f':
      case 'F': {
        if (run > 7) return std::nullopt;
        std::string digits;
        AppendPadded(digits, c.fraction, 7);
        digits.resize(run);
        if (ch == 'F') {
          while (!digits.empty() && digits.back() == '0') digits.pop_back();
        }
        out += digits;
        break;
      }
      case 'h': AppendPadded(out, c.hour % 12 == 0 ? 12 : c.hour % 12, run >= 2 ? 2 : 1); break;
      case 'H': AppendPadded(out, c.hour, run >= 2 ? 2 : 1); break;
      case 'm': AppendPadded(out, c.minute, run >= 2 ? 2 : 1); break;
      case 's': AppendPadded(out, c.second, run >= 2 ? 2 : 1); break;
      case 'M':
        if (run <= 2) AppendPadded(out, c.month, static_cast<int>(run));
        else if (run == 3) out += kMonthNames[c.month - 1].substr(0, 3);
        else out += kMonthNames[c.month - 1];
        break;
      case 't': out += run == 1 ? (c.hour < 12 ? "A" : "P") : (c.hour < 12 ? "AM" : "PM"); break;
      case 'y':
        if (run <= 2) AppendPadded(out, c.year % 100, static_cast<int>(run));
        else AppendPadded(out, c.year, static_cast<int>(run));
        break;
      case 'g':
      case 'K':
      case 'z':
        return std::nullopt;  // era and time-zone specifiers: the service's output is not documented
      case ':': out.append(run, ':'); break;
      case '/': out.append(run, '/'); break;
      case '\'':
      case '"': {
        // A quoted literal: one character at a time until the matching quote; backslash escapes.
        size_t j = i + 1;
        while (j < fmt.size() && fmt[j] != ch) {
          if (fmt[j] == '\\') {
            if (++j >= fmt.size()) return std::nullopt;
          }
          out += fmt[j++];
        }
        if (j >= fmt.size()) return std::nullopt;
        run = j - i + 1;
        break;
      }
      case '\\':
        if (i + 1 >= fmt.size()) return std::nullopt;
        out += fmt[i + 1];
        run = 2;
        break;
      case '%':
        // '%' makes the next single specifier stand alone; it adds nothing itself.
        if (i + 1 >= fmt.size() || fmt[i + 1] == '%') return std::nullopt;
        run = 1;
        break;
      default: out.append(run, ch); break;
    }
    i += run;
  }
  return out;
}

Val DateTimeFormat(FunctionContext& ctx, std::span<const Val> args) {
  auto t = ArgDateTime(args[0]);
  if (!t || !args[1].IsString()) return Val();
  auto s = FormatCustom(*t, args[1].AsString());
  if (!s) return Val();
  return ctx.arena.String(*s);
}

constexpr FunctionDef kDateTimeFunctions[] = {
    {"Ago", 2, 2, Ago},
    {"DateTimeAdd", 3, 3, DateTimeAdd},
    {"DateTimeBin", 2, 4, DateTimeBin},
    {"DateTimeDiff", 3, 3, DateTimeDiff},
    {"DateTimeFormat", 2, 2, DateTimeFormat},
    {"DateTimeFromParts", 3, 7, DateTimeFromParts},
    {"DateTimePart", 2, 2, DateTimePart},
    {"DateTimeToTicks", 1, 1, DateTimeToTicks},
    {"DateTimeToTimestamp", 1, 1, DateTimeToTimestamp},
    {"Day", 1, 1, SinglePart<Part::kDay>},
    {"GetCurrentDateTime", 0, 0, GetCurrentDateTime},
    {"GetCurrentDateTimeStatic", 0, 0, GetCurrentDateTime},
    {"GetCurrentTicks", 0, 0, GetCurrentTicks},
    {"GetCurrentTicksStatic", 0, 0, GetCurrentTicks},
    {"GetCurrentTimestamp", 0, 0, GetCurrentTimestamp},
    {"GetCurrentTimestampStatic", 0, 0, GetCurrentTimestamp},
    {"Month", 1, 1, SinglePart<Part::kMonth>},
    {"Now", 0, 2, Now},
    {"TicksToDateTime", 1, 1, TicksToDateTime},
    {"TimestampToDateTime", 1, 1, TimestampToDateTime},
    {"Year", 1, 1, SinglePart<Part::kYear>},
};

}  // namespace

std::span<const FunctionDef> DateTimeFunctions() { return kDateTimeFunctions; }

}  // namespace cosmos::query
