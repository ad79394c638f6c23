// The string system functions: CONCAT ... UPPER, RegexMatch, StringTo*, ToString, StringJoin, StringSplit.
//
// Strings are UTF-8 inside values, but lengths and positions count UTF-16 code units as the service
// does (like .NET and JavaScript strings): LENGTH("héllo") = 5 and a character outside the BMP
// counts 2. Wrong argument types give undefined, never an error.
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/errors.h"
#include "json/json.h"
#include "query/functions/function.h"
#include "util/util.h"

namespace cosmos::query {
namespace {

using Args = std::span<const Val>;

constexpr char32_t kReplacement = 0xFFFD;

// ---------------------------------------------------------------------------------------------
// UTF-8 / UTF-16

using util::AppendUtf8;
using util::DecodeUtf8;

using util::IsAscii;

std::u16string ToUtf16(std::string_view s) {
  std::u16string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    char32_t cp = DecodeUtf8(s, i);
    if (cp >= 0x10000) {
      cp -= 0x10000;
      out.push_back(static_cast<char16_t>(0xD800 + (cp >> 10)));
      out.push_back(static_cast<char16_t>(0xDC00 + (cp & 0x3FF)));
    } else {
      out.push_back(static_cast<char16_t>(cp));
    }
  }
  return out;
}

// A surrogate left alone by a cut through a pair cannot be UTF-8: it becomes U+FFFD (same length).
std::string FromUtf16(std::u16string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char32_t u = s[i];
    if (u >= 0xD800 && u <= 0xDBFF && i + 1 < s.size() && s[i + 1] >= 0xDC00 && s[i + 1] <= 0xDFFF) {
      AppendUtf8(out, 0x10000 + ((u - 0xD800) << 10) + (s[i + 1] - 0xDC00));
      ++i;
    } else if (u >= 0xD800 && u <= 0xDFFF) {
      AppendUtf8(out, kReplacement);
    } else {
      AppendUtf8(out, u);
    }
  }
  return out;
}

// UTF-16 code units of a UTF-8 string, counted without converting it.
int64_t Utf16Length(std::string_view s) {
  if (IsAscii(s)) return static_cast<int64_t>(s.size());
  int64_t n = 0;
  for (size_t i = 0; i < s.size();) n += DecodeUtf8(s, i) >= 0x10000 ? 2 : 1;
  return n;
}

std::vector<char32_t> CodePoints(std::string_view s) {
  std::vector<char32_t> out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) out.push_back(DecodeUtf8(s, i));
  return out;
}

// ---------------------------------------------------------------------------------------------
// Case mapping: simple (one-to-one) Unicode mappings, as .NET's invariant ToUpper/ToLower apply them.
// Covered: ASCII, Latin-1, Latin Extended-A, the paired blocks of Latin Extended-B/C/D and Latin
// Extended Additional, Greek and Coptic (not polytonic Greek Extended), Cyrillic and its
// supplements, Armenian, Georgian, Glagolitic, Coptic, Roman numerals, circled and fullwidth
// letters, Deseret. Characters outside these blocks are left as they are; "ß" stays "ß".

struct CaseRange {
  char32_t lo, hi;  // uppercase letters lo..hi map to lowercase lo+delta..hi+delta
  int32_t delta;
};
constexpr CaseRange kCaseRanges[] = {
    {0x41, 0x5A, 32},       {0xC0, 0xD6, 32},      {0xD8, 0xDE, 32},      {0x388, 0x38A, 37},
    {0x38E, 0x38F, 63},     {0x391, 0x3A1, 32},    {0x3A3, 0x3AB, 32},    {0x3FD, 0x3FF, -130},
    {0x400, 0x40F, 80},     {0x410, 0x42F, 32},    {0x531, 0x556, 48},    {0x10A0, 0x10C5, 7264},
    {0x2160, 0x216F, 16},   {0x24B6, 0x24CF, 26},  {0x2C00, 0x2C2E, 48},  {0xFF21, 0xFF3A, 32},
    {0x10400, 0x10427, 40},
};

// Blocks of alternating pairs: uppercase at an even offset from lo, its lowercase right after.
constexpr std::pair<char32_t, char32_t> kCasePairs[] = {
    {0x100, 0x12F},   {0x132, 0x137},   {0x139, 0x148},   {0x14A, 0x177},   {0x179, 0x17E},   {0x1A0, 0x1A5},
    {0x1CD, 0x1DC},   {0x1DE, 0x1EF},   {0x1F8, 0x21F},   {0x222, 0x233},   {0x246, 0x24F},   {0x370, 0x373},
    {0x376, 0x377},   {0x3D8, 0x3EF},   {0x460, 0x481},   {0x48A, 0x4BF},   {0x4C1, 0x4CE},   {0x4D0, 0x52F},
    {0x1E00, 0x1E95}, {0x1EA0, 0x1EFF}, {0x2C80, 0x2CE3}, {0xA640, 0xA66D}, {0xA680, 0xA69B}, {0xA722, 0xA72F},
    {0xA732, 0xA76F}, {0xA77E, 0xA787},
};

// Single letters mapped both ways: {uppercase, lowercase}.
constexpr std::pair<char32_t, char32_t> kCaseSingles[] = {
    {0x178, 0xFF},    {0x1C4, 0x1C6},   {0x1C7, 0x1C9},   {0x1CA, 0x1CC},  {0x1F1, 0x1F3},
    {0x1F4, 0x1F5},   {0x37F, 0x3F3},   {0x386, 0x3AC},   {0x38C, 0x3CC},  {0x3CF, 0x3D7},
    {0x3F7, 0x3F8},   {0x3F9, 0x3F2},   {0x3FA, 0x3FB},   {0x4C0, 0x4CF},  {0x10C7, 0x2D27},
    {0x10CD, 0x2D2D},
};

// One-way mappings: letters whose lowercase (or uppercase) maps back to another letter.
constexpr std::pair<char32_t, char32_t> kLowerOnly[] = {
    {0x130, 0x69},  {0x1C5, 0x1C6}, {0x1C8, 0x1C9}, {0x1CB, 0x1CC}, {0x1F2, 0x1F3},
    {0x3F4, 0x3B8}, {0x1E9E, 0xDF}, {0x2126, 0x3C9}, {0x212A, 0x6B}, {0x212B, 0xE5},
};
constexpr std::pair<char32_t, char32_t> kUpperOnly[] = {
    {0xB5, 0x39C},  {0x131, 0x49},  {0x17F, 0x53},  {0x1C5, 0x1C4}, {0x1C8, 0x1C7},  {0x1CB, 0x1CA},
    {0x1F2, 0x1F1}, {0x3C2, 0x3A3}, {0x3D0, 0x392}, {0x3D1, 0x398}, {0x3D5, 0x3A6},  {0x3D6, 0x3A0},
    {0x3F0, 0x39A}, {0x3F1, 0x3A1}, {0x3F5, 0x395}, {0x1E9B, 0x1E60},
};

char32_t ToLowerCp(char32_t c) {
  if (c < 0x80) return c >= 'A' && c <= 'Z' ? c + 32 : c;
  for (const CaseRange& r : kCaseRanges) {
    if (c >= r.lo && c <= r.hi) return static_cast<char32_t>(static_cast<int32_t>(c) + r.delta);
  }
  for (auto [lo, hi] : kCasePairs) {
    if (c >= lo && c <= hi) return (c - lo) % 2 == 0 ? c + 1 : c;
  }
  for (auto [upper, lower] : kCaseSingles) {
    if (c == upper) return lower;
  }
  for (auto [from, to] : kLowerOnly) {
    if (c == from) return to;
  }
  return c;
}

char32_t ToUpperCp(char32_t c) {
  if (c < 0x80) return c >= 'a' && c <= 'z' ? c - 32 : c;
  for (const CaseRange& r : kCaseRanges) {
    auto lo = static_cast<char32_t>(static_cast<int32_t>(r.lo) + r.delta);
    auto hi = static_cast<char32_t>(static_cast<int32_t>(r.hi) + r.delta);
    if (c >= lo && c <= hi) return static_cast<char32_t>(static_cast<int32_t>(c) - r.delta);
  }
  for (auto [lo, hi] : kCasePairs) {
    if (c >= lo && c <= hi) return (c - lo) % 2 == 1 ? c - 1 : c;
  }
  for (auto [upper, lower] : kCaseSingles) {
    if (c == lower) return upper;
  }
  for (auto [from, to] : kUpperOnly) {
    if (c == from) return to;
  }
  return c;
}

template <char32_t (*Map)(char32_t)>
std::string MapCase(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  if (IsAscii(s)) {
    // ASCII maps to ASCII: a table of Map's answers, made once.
    static const auto kAscii = [] {
      std::array<char, 128> t{};
      for (char32_t c = 0; c < 128; ++c) t[c] = static_cast<char>(Map(c));
      return t;
    }();
    out.resize(s.size());
    for (size_t i = 0; i < s.size(); ++i) out[i] = kAscii[static_cast<unsigned char>(s[i])];
    return out;
  }
  for (size_t i = 0; i < s.size();) AppendUtf8(out, Map(DecodeUtf8(s, i)));
  return out;
}

// The form two strings are compared in when case is ignored (uppercase, like OrdinalIgnoreCase).
std::string Fold(std::string_view s) { return MapCase<ToUpperCp>(s); }

// ---------------------------------------------------------------------------------------------
// Argument helpers

constexpr int64_t kClamp = int64_t{1} << 53;  // beyond any string length; keeps arithmetic safe

// An integral number (2 and 2.0 alike), clamped to ±2^53. False for non-numbers, fractions,
// NaN and infinities.
bool IntegerArg(Val v, int64_t& out) {
  if (!v.IsNumber()) return false;
  const json::Value& j = v.json();
  if (j.IsInt64()) {
    out = std::clamp(j.GetInt64(), -kClamp, kClamp);
    return true;
  }
  if (j.IsUint64()) {
    out = kClamp;
    return true;
  }
  double d = j.GetDouble();
  if (!std::isfinite(d) || std::trunc(d) != d) return false;
  out = d >= static_cast<double>(kClamp) ? kClamp : d <= -static_cast<double>(kClamp) ? -kClamp : static_cast<int64_t>(d);
  return true;
}

// The optional ignore-case flag at args[i]: absent means false; present but not a boolean fails.
bool IgnoreCaseArg(Args args, size_t i, bool& out) {
  out = false;
  if (args.size() <= i) return true;
  if (!args[i].IsBool()) return false;
  out = args[i].AsBool();
  return true;
}

// The service's substring over UTF-16 units: out-of-range starts and non-positive lengths give "".
Val Substring16(FunctionContext& ctx, Val str, int64_t start, int64_t length) {
  std::string_view s = str.AsString();
  if (IsAscii(s)) {
    auto n = static_cast<int64_t>(s.size());
    if (start == 0 && length >= n) return str;
    if (start < 0 || start >= n || length <= 0) return ctx.arena.String("");
    return ctx.arena.String(s.substr(static_cast<size_t>(start), static_cast<size_t>(std::min(length, n - start))));
  }
  std::u16string u = ToUtf16(s);
  auto n = static_cast<int64_t>(u.size());
  if (start == 0 && length >= n) return str;
  if (start < 0 || start >= n || length <= 0) return ctx.arena.String("");
  std::u16string_view view(u);
  return ctx.arena.String(
      FromUtf16(view.substr(static_cast<size_t>(start), static_cast<size_t>(std::min(length, n - start)))));
}

// ---------------------------------------------------------------------------------------------
// The functions

Val Concat(FunctionContext& ctx, Args args) {
  std::string out;
  for (Val a : args) {
    if (!a.IsString()) return Val();
    out += a.AsString();
  }
  return ctx.arena.String(out);
}

enum class TextMatch { kContains, kStarts, kEnds, kEquals };

// CONTAINS, STARTSWITH, ENDSWITH and StringEquals: two strings and an optional ignore-case flag.
template <TextMatch kind>
Val Compare(FunctionContext&, Args args) {
  bool ignore_case = false;
  if (!args[0].IsString() || !args[1].IsString() || !IgnoreCaseArg(args, 2, ignore_case)) return Val();
  std::string a_folded, b_folded;
  std::string_view a = args[0].AsString(), b = args[1].AsString();
  if (ignore_case) {
    a_folded = Fold(a);
    b_folded = Fold(b);
    a = a_folded;
    b = b_folded;
  }
  switch (kind) {
    case TextMatch::kContains: return Arena::Bool(a.find(b) != std::string_view::npos);
    case TextMatch::kStarts: return Arena::Bool(a.starts_with(b));
    case TextMatch::kEnds: return Arena::Bool(a.ends_with(b));
    case TextMatch::kEquals: return Arena::Bool(a == b);
  }
  return Val();
}

// INDEX_OF(s, find [, start]): UTF-16 position of the first match at or after start, else -1. A
// negative or fractional start is undefined (the docs are silent); a start past the end gives -1.
Val IndexOf(FunctionContext& ctx, Args args) {
  if (!args[0].IsString() || !args[1].IsString()) return Val();
  int64_t start = 0;
  if (args.size() > 2 && (!IntegerArg(args[2], start) || start < 0)) return Val();
  std::string_view s = args[0].AsString(), find = args[1].AsString();
  if (IsAscii(s)) {
    if (start > static_cast<int64_t>(s.size())) return ctx.arena.Int(-1);
    size_t pos = s.find(find, static_cast<size_t>(start));
    return ctx.arena.Int(pos == std::string_view::npos ? -1 : static_cast<int64_t>(pos));
  }
  std::u16string hay = ToUtf16(s), needle = ToUtf16(find);
  if (start > static_cast<int64_t>(hay.size())) return ctx.arena.Int(-1);
  size_t pos = hay.find(needle, static_cast<size_t>(start));
  return ctx.arena.Int(pos == std::u16string::npos ? -1 : static_cast<int64_t>(pos));
}

Val Left(FunctionContext& ctx, Args args) {
  int64_t n = 0;
  if (!args[0].IsString() || !args[1].IsNumber()) return Val();
  if (args[0].AsString().empty()) return args[0];
  if (!IntegerArg(args[1], n)) return Val();
  return Substring16(ctx, args[0], 0, n);
}

Val Right(FunctionContext& ctx, Args args) {
  int64_t n = 0;
  if (!args[0].IsString() || !IntegerArg(args[1], n)) return Val();
  int64_t len = Utf16Length(args[0].AsString());
  if (len == 0) return args[0];
  return Substring16(ctx, args[0], std::max<int64_t>(len - n, 0), len);
}

Val Substring(FunctionContext& ctx, Args args) {
  int64_t start = 0, length = 0;
  if (!args[0].IsString() || !args[1].IsNumber() || !args[2].IsNumber()) return Val();
  if (args[0].AsString().empty()) return args[0];
  if (!IntegerArg(args[1], start) || !IntegerArg(args[2], length)) return Val();
  return Substring16(ctx, args[0], start, length);
}

Val Length(FunctionContext& ctx, Args args) {
  if (!args[0].IsString()) return Val();
  return ctx.arena.Int(Utf16Length(args[0].AsString()));
}

Val Lower(FunctionContext& ctx, Args args) {
  if (!args[0].IsString()) return Val();
  return ctx.arena.String(MapCase<ToLowerCp>(args[0].AsString()));
}

Val Upper(FunctionContext& ctx, Args args) {
  if (!args[0].IsString()) return Val();
  return ctx.arena.String(MapCase<ToUpperCp>(args[0].AsString()));
}

// Unicode white space, the set trimmed when no characters are given.
bool IsWhiteSpace(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
         c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

enum Side { kLeft = 1, kRight = 2, kBoth = 3 };

// LTRIM/RTRIM/TRIM: removes white space, or any of the characters of the optional second string
// (a set of characters, not a prefix: TRIM("-_-x-_-", "-_") = "x").
template <int side>
Val Trim(FunctionContext& ctx, Args args) {
  if (!args[0].IsString() || (args.size() > 1 && !args[1].IsString())) return Val();
  std::vector<char32_t> set;
  if (args.size() > 1) set = CodePoints(args[1].AsString());
  auto trimmed = [&](char32_t c) {
    return args.size() > 1 ? std::find(set.begin(), set.end(), c) != set.end() : IsWhiteSpace(c);
  };
  std::string_view s = args[0].AsString();
  size_t begin = 0, end = s.size();
  if (side & kLeft) {
    while (begin < end) {
      size_t next = begin;
      if (!trimmed(DecodeUtf8(s, next))) break;
      begin = next;
    }
  }
  if (side & kRight) {
    while (end > begin) {
      size_t start = end - 1;
      while (start > begin && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
      size_t next = start;
      if (!trimmed(DecodeUtf8(s, next))) break;
      end = start;
    }
  }
  if (begin == 0 && end == s.size()) return args[0];
  return ctx.arena.String(s.substr(begin, end - begin));
}

// REPLACE(s, find, with): every occurrence, left to right. An empty `find` gives undefined.
Val Replace(FunctionContext& ctx, Args args) {
  if (!args[0].IsString() || !args[1].IsString() || !args[2].IsString()) return Val();
  std::string_view s = args[0].AsString(), find = args[1].AsString(), with = args[2].AsString();
  if (find.empty()) return Val();
  std::string out;
  size_t from = 0;
  for (size_t pos; (pos = s.find(find, from)) != std::string_view::npos; from = pos + find.size()) {
    out.append(s, from, pos - from);
    out += with;
  }
  if (from == 0) return args[0];
  out.append(s, from, std::string_view::npos);
  return ctx.arena.String(out);
}

constexpr int64_t kMaxReplicateLength = 10000;  // documented maximum result length, in characters

// REPLICATE(s, n): n copies; fractional n is truncated; negative or non-finite n, or a result
// longer than 10,000 characters, gives undefined.
Val Replicate(FunctionContext& ctx, Args args) {
  if (!args[0].IsString() || !args[1].IsNumber()) return Val();
  double d = args[1].AsNumber();
  if (!std::isfinite(d) || d < 0) return Val();
  int64_t count = 0;
  if (args[1].json().IsInt64()) {
    count = args[1].json().GetInt64();
  } else {
    count = d >= static_cast<double>(kClamp) ? kClamp : static_cast<int64_t>(std::trunc(d));
  }
  std::string_view s = args[0].AsString();
  int64_t len = Utf16Length(s);
  if (len > 0 && count > kMaxReplicateLength / len) return Val();
  std::string out;
  out.reserve(s.size() * static_cast<size_t>(len > 0 ? count : 0));
  for (int64_t i = 0; len > 0 && i < count; ++i) out += s;
  return ctx.arena.String(out);
}

// REVERSE: by character, so a pair of UTF-16 surrogates stays one character.
Val Reverse(FunctionContext& ctx, Args args) {
  if (!args[0].IsString()) return Val();
  std::vector<char32_t> cps = CodePoints(args[0].AsString());
  std::string out;
  out.reserve(args[0].AsString().size());
  for (auto it = cps.rbegin(); it != cps.rend(); ++it) AppendUtf8(out, *it);
  return ctx.arena.String(out);
}

// StringTo*: the string must be JSON text (surrounding white space allowed) of the wanted type.
template <Type want>
Val StringTo(FunctionContext& ctx, Args args) {
  if (!args[0].IsString()) return Val();
  json::Document doc;
  if (json::Parse(args[0].AsString(), doc) != json::ParseStatus::kOk) return Val();
  const json::Value& root = doc;
  if (Val(root).type() != want) return Val();
  switch (want) {
    case Type::kNull: return Arena::Null();
    case Type::kBoolean: return Arena::Bool(root.GetBool());
    default: return ctx.arena.Copy(Val(root));
  }
}

void AppendNumber(std::string& out, const json::Value& v) {
  char buf[32];
  if (v.IsInt64()) {
    auto r = std::to_chars(buf, buf + sizeof buf, v.GetInt64());
    out.append(buf, r.ptr);
  } else if (v.IsUint64()) {
    auto r = std::to_chars(buf, buf + sizeof buf, v.GetUint64());
    out.append(buf, r.ptr);
  } else if (std::isnan(v.GetDouble())) {
    out += "NaN";
  } else if (std::isinf(v.GetDouble())) {
    out += v.GetDouble() > 0 ? "Infinity" : "-Infinity";
  } else {
    json::WriteDouble(out, v.GetDouble());
  }
}

// ToString: strings unchanged, numbers as the service prints them (NaN, Infinity included),
// arrays and objects as compact JSON.
Val ToStringFn(FunctionContext& ctx, Args args) {
  Val v = args[0];
  std::string out;
  switch (v.type()) {
    case Type::kUndefined: return Val();
    case Type::kString: return v;
    case Type::kNumber: AppendNumber(out, v.json()); break;
    default: json::Write(out, v.json()); break;
  }
  return ctx.arena.String(out);
}

// StringJoin(array of strings, separator).
Val StringJoin(FunctionContext& ctx, Args args) {
  if (!args[0].IsArray() || !args[1].IsString()) return Val();
  std::string out;
  const json::Value& arr = args[0].json();
  for (rapidjson::SizeType i = 0; i < arr.Size(); ++i) {
    if (!arr[i].IsString()) return Val();
    if (i > 0) out += args[1].AsString();
    out.append(arr[i].GetString(), arr[i].GetStringLength());
  }
  return ctx.arena.String(out);
}

// StringSplit(s, separator): the pieces between separators, empty pieces kept; an empty
// separator gives [s].
Val StringSplit(FunctionContext& ctx, Args args) {
  if (!args[0].IsString() || !args[1].IsString()) return Val();
  std::string_view s = args[0].AsString(), sep = args[1].AsString();
  json::Value* out = ctx.arena.NewArray();
  if (sep.empty()) {
    ctx.arena.Append(out, args[0]);
    return Val(out);
  }
  size_t from = 0;
  for (size_t pos; (pos = s.find(sep, from)) != std::string_view::npos; from = pos + sep.size()) {
    ctx.arena.Append(out, ctx.arena.String(s.substr(from, pos - from)));
  }
  ctx.arena.Append(out, ctx.arena.String(s.substr(from)));
  return Val(out);
}

// ---------------------------------------------------------------------------------------------
// RegexMatch (PCRE2, as the service uses PCRE)

// Work bounds for one match, so a catastrophic pattern fails fast instead of hanging the server.
constexpr uint32_t kRegexMatchLimit = 5'000'000;
constexpr uint32_t kRegexHeapLimitKiB = 64 * 1024;
constexpr size_t kRegexCacheSize = 32;

struct CodeFree {
  void operator()(pcre2_code* c) const { pcre2_code_free(c); }
};
struct MatchDataFree {
  void operator()(pcre2_match_data* m) const { pcre2_match_data_free(m); }
};
struct MatchContextFree {
  void operator()(pcre2_match_context* m) const { pcre2_match_context_free(m); }
};

struct CachedRegex {
  std::string pattern;
  uint32_t options;
  std::shared_ptr<pcre2_code> code;  // null: the pattern does not compile
};

// A compiled pattern from this thread's small cache (queries repeat one pattern on every row).
std::shared_ptr<pcre2_code> Compile(std::string_view pattern, uint32_t options, bool& valid) {
  thread_local std::vector<CachedRegex> cache;
  for (size_t i = 0; i < cache.size(); ++i) {
    if (cache[i].options == options && cache[i].pattern == pattern) {
      if (i > 0) std::swap(cache[i], cache[i - 1]);  // move toward the front
      CachedRegex& hit = cache[i > 0 ? i - 1 : 0];
      valid = hit.code != nullptr;
      return hit.code;
    }
  }
  int error = 0;
  PCRE2_SIZE offset = 0;
  pcre2_code* raw = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), options, &error,
                                  &offset, nullptr);
  std::shared_ptr<pcre2_code> code(raw, CodeFree());
  if (!raw) code.reset();
  if (cache.size() >= kRegexCacheSize) cache.pop_back();
  cache.insert(cache.begin(), CachedRegex{std::string(pattern), options, code});
  valid = code != nullptr;
  return code;
}

// RegexMatch(s, pattern [, modifiers]): modifiers are any of "m", "s", "i", "x". As documented, an
// invalid pattern or modifier gives undefined. A match that exceeds the work bounds is a 400.
Val RegexMatch(FunctionContext&, Args args) {
  if (!args[0].IsString() || !args[1].IsString() || (args.size() > 2 && !args[2].IsString())) return Val();
  uint32_t options = PCRE2_UTF;
  if (args.size() > 2) {
    for (char m : args[2].AsString()) {
      switch (m) {
        case 'm': options |= PCRE2_MULTILINE; break;
        case 's': options |= PCRE2_DOTALL; break;
        case 'i': options |= PCRE2_CASELESS; break;
        case 'x': options |= PCRE2_EXTENDED; break;
        default: return Val();
      }
    }
  }
  bool valid = false;
  std::shared_ptr<pcre2_code> code = Compile(args[1].AsString(), options, valid);
  if (!valid) return Val();

  thread_local std::unique_ptr<pcre2_match_data, MatchDataFree> data(pcre2_match_data_create(1, nullptr));
  thread_local std::unique_ptr<pcre2_match_context, MatchContextFree> mctx([] {
    pcre2_match_context* c = pcre2_match_context_create(nullptr);
    pcre2_set_match_limit(c, kRegexMatchLimit);
    pcre2_set_heap_limit(c, kRegexHeapLimitKiB);
    return c;
  }());
  std::string_view s = args[0].AsString();
  int rc = pcre2_match(code.get(), reinterpret_cast<PCRE2_SPTR>(s.data()), s.size(), 0, 0, data.get(), mctx.get());
  if (rc >= 0) return Arena::True();
  if (rc == PCRE2_ERROR_NOMATCH) return Arena::False();
  if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT) {
    throw errors::BadRequest("RegexMatch: the regular expression exceeded the match limit.");
  }
  return Val();  // e.g. a subject that is not valid UTF-8
}

const FunctionDef kStringFunctions[] = {
    {"CONCAT", 2, -1, Concat},
    {"CONTAINS", 2, 3, Compare<TextMatch::kContains>},
    {"ENDSWITH", 2, 3, Compare<TextMatch::kEnds>},
    {"INDEX_OF", 2, 3, IndexOf},
    {"LEFT", 2, 2, Left},
    {"LENGTH", 1, 1, Length},
    {"LOWER", 1, 1, Lower},
    {"LTRIM", 1, 2, Trim<kLeft>},
    {"RegexMatch", 2, 3, RegexMatch},
    {"REPLACE", 3, 3, Replace},
    {"REPLICATE", 2, 2, Replicate},
    {"REVERSE", 1, 1, Reverse},
    {"RIGHT", 2, 2, Right},
    {"RTRIM", 1, 2, Trim<kRight>},
    {"STARTSWITH", 2, 3, Compare<TextMatch::kStarts>},
    {"StringEquals", 2, 3, Compare<TextMatch::kEquals>},
    {"StringJoin", 2, 2, StringJoin},
    {"StringSplit", 2, 2, StringSplit},
    {"StringToArray", 1, 1, StringTo<Type::kArray>},
    {"StringToBoolean", 1, 1, StringTo<Type::kBoolean>},
    {"StringToNull", 1, 1, StringTo<Type::kNull>},
    {"StringToNumber", 1, 1, StringTo<Type::kNumber>},
    {"StringToObject", 1, 1, StringTo<Type::kObject>},
    {"SUBSTRING", 3, 3, Substring},
    {"ToString", 1, 1, ToStringFn},
    {"TRIM", 1, 2, Trim<kBoth>},
    {"UPPER", 1, 1, Upper},
};

}  // namespace

std::span<const FunctionDef> StringFunctions() { return kStringFunctions; }

}  // namespace cosmos::query
