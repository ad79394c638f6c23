#include "json/json.h"

#include <unordered_map>

#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <charconv>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <vector>

namespace cosmos::json {
namespace {

int Hex4(std::string_view text, size_t pos) {
  if (pos + 4 > text.size()) return -1;
  int v = 0;
  for (size_t i = pos; i < pos + 4; ++i) {
    char c = text[i];
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

enum class Scan { kOk, kTooDeep, kMalformed };

// Eight bytes at a time: whether a word holds a byte of a kind, by the usual bit tricks (exact
// about whether there is one, not about which byte it is).
constexpr uint64_t kOnes = 0x0101010101010101ull;
constexpr uint64_t kHighs = 0x8080808080808080ull;
inline uint64_t Word(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, sizeof w);
  return w;
}
inline uint64_t HasZero(uint64_t w) { return (w - kOnes) & ~w & kHighs; }
inline uint64_t HasByte(uint64_t w, unsigned char b) { return HasZero(w ^ (kOnes * b)); }
// A byte below 0x20 (when no byte has its high bit set; callers check that too).
inline uint64_t HasControl(uint64_t w) { return (w - kOnes * 0x20) & ~w & kHighs; }

// One pass before parsing: nesting depth of arrays/objects (outside strings), raw NUL bytes, and
// \u escapes that are lone UTF-16 surrogates (they cannot be stored as valid UTF-8). `ascii`
// tells whether every byte is below 0x80 (such text needs no UTF-8 validation).
Scan Prescan(std::string_view text, int limit, bool& ascii) {
  int depth = 0;
  bool in_string = false;
  unsigned char seen = 0;
  uint64_t seen_words = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (in_string) {
      // Most of a string is neither a quote, a backslash nor a NUL: skip it a word at a time.
      while (i + 8 <= text.size()) {
        const uint64_t w = Word(text.data() + i);
        if (HasZero(w) | HasByte(w, '"') | HasByte(w, '\\')) break;
        seen_words |= w;
        i += 8;
      }
      if (i == text.size()) break;
    }
    char c = text[i];
    seen |= static_cast<unsigned char>(c);
    if (c == '\0') return Scan::kMalformed;
    if (in_string) {
      if (c == '\\') {
        if (i + 1 < text.size() && text[i + 1] == 'u') {
          int u = Hex4(text, i + 2);
          if (u >= 0xDC00 && u <= 0xDFFF) return Scan::kMalformed;  // low surrogate without a high one
          if (u >= 0xD800 && u <= 0xDBFF) {
            int low = (i + 7 < text.size() && text[i + 6] == '\\' && text[i + 7] == 'u') ? Hex4(text, i + 8) : -1;
            if (low < 0xDC00 || low > 0xDFFF) return Scan::kMalformed;
            i += 6;  // the pair's second escape is consumed below
          }
          i += 5;
        } else {
          ++i;
        }
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    switch (c) {
      case '"':
        in_string = true;
        break;
      case '[':
      case '{':
        if (++depth > limit) return Scan::kTooDeep;
        break;
      case ']':
      case '}':
        --depth;
        break;
      default:
        break;
    }
  }
  ascii = (seen & 0x80) == 0 && (seen_words & kHighs) == 0;
  return Scan::kOk;
}

// Forwards SAX events to a Document, converting numbers itself: integers stay exact (int64/uint64),
// others are read with strtod (correctly rounded; underflow gives 0 or a subnormal as in
// JavaScript); a number too large for a double is an error, as on the service.
struct NumberHandler {
  Document& d;
  // Duplicate member names, found as the text is read: each open object's names as 64-bit hashes
  // (`hashes` from `starts[depth]` on) and a 64-bit filter of them; a name whose filter bit is set
  // is compared with the object's hashes. When one repeats, the document is walked once
  // (DropRepeatedNames); documents without repeats and with objects of up to 256 names never are.
  uint64_t filter[kMaxDepth + 2] = {};
  size_t starts[kMaxDepth + 2] = {};
  std::vector<uint64_t> hashes = {};
  int depth = 0;
  bool maybe_repeated = false;
  bool Null() { return d.Null(); }
  bool Bool(bool b) { return d.Bool(b); }
  bool Int(int i) { return d.Int(i); }
  bool Uint(unsigned i) { return d.Uint(i); }
  bool Int64(int64_t i) { return d.Int64(i); }
  bool Uint64(uint64_t i) { return d.Uint64(i); }
  bool Double(double v) { return d.Double(v); }
  bool String(const char* s, rapidjson::SizeType n, bool copy) { return d.String(s, n, copy); }
  bool StartObject() {
    if (++depth < kMaxDepth + 2) {
      filter[depth] = 0;
      starts[depth] = hashes.size();
    }
    return d.StartObject();
  }
  bool Key(const char* s, rapidjson::SizeType n, bool copy) {
    if (depth < kMaxDepth + 2) {
      uint64_t h = 1469598103934665603ull;  // FNV-1a
      for (rapidjson::SizeType i = 0; i < n; ++i) h = (h ^ static_cast<unsigned char>(s[i])) * 1099511628211ull;
      const uint64_t bit = 1ull << (h & 63);
      if ((filter[depth] & bit) != 0 && !maybe_repeated) {
        // An object of many names is left to the walk (a hash map), so the scan stays short.
        if (hashes.size() - starts[depth] >= 256) maybe_repeated = true;
        for (size_t i = starts[depth]; i < hashes.size() && !maybe_repeated; ++i) maybe_repeated = hashes[i] == h;
      }
      filter[depth] |= bit;
      hashes.push_back(h);
    }
    return d.Key(s, n, copy);
  }
  bool EndObject(rapidjson::SizeType n) {
    if (depth < kMaxDepth + 2) hashes.resize(starts[depth]);
    --depth;
    return d.EndObject(n);
  }
  bool StartArray() { return d.StartArray(); }
  bool EndArray(rapidjson::SizeType n) { return d.EndArray(n); }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool) {
    std::string_view text(s, n);
    if (text.find_first_of(".eE") == std::string_view::npos) {
      int64_t i = 0;
      auto r = std::from_chars(text.data(), text.data() + text.size(), i);
      if (r.ec == std::errc() && r.ptr == text.data() + text.size()) return d.Int64(i);
      uint64_t u = 0;
      r = std::from_chars(text.data(), text.data() + text.size(), u);
      if (r.ec == std::errc() && r.ptr == text.data() + text.size()) return d.Uint64(u);
    }
    std::string copy(text);
    errno = 0;
    char* end = nullptr;
    double v = std::strtod(copy.c_str(), &end);
    if (end != copy.c_str() + copy.size() || std::isinf(v) || std::isnan(v)) return false;
    return d.Double(v);
  }
};

// Iterative writer: an explicit stack, so output never recurses either.
struct Frame {
  const Value* v;
  size_t index;
};

void WriteScalar(std::string& out, const Value& v) {
  switch (v.GetType()) {
    case rapidjson::kNullType:
      out += "null";
      break;
    case rapidjson::kFalseType:
      out += "false";
      break;
    case rapidjson::kTrueType:
      out += "true";
      break;
    case rapidjson::kStringType:
      WriteString(out, std::string_view(v.GetString(), v.GetStringLength()));
      break;
    case rapidjson::kNumberType: {
      char buf[32];
      if (v.IsInt64()) {
        auto r = std::to_chars(buf, buf + sizeof buf, v.GetInt64());
        out.append(buf, r.ptr);
      } else if (v.IsUint64()) {
        auto r = std::to_chars(buf, buf + sizeof buf, v.GetUint64());
        out.append(buf, r.ptr);
      } else {
        WriteDouble(out, v.GetDouble());
      }
      break;
    }
    default:
      break;
  }
}

// An object that names a member twice keeps the last value only, in the place of the first: what
// JavaScript's JSON.parse, Python's json and .NET's readers make of the text, so the item is filed
// under the partition key and id every SDK reads back. Depth is bounded by the parse.
void DropRepeatedNames(Value& v, Allocator& alloc) {
  if (v.IsArray()) {
    for (auto& e : v.GetArray()) DropRepeatedNames(e, alloc);
    return;
  }
  if (!v.IsObject()) return;
  for (auto& m : v.GetObject()) DropRepeatedNames(m.value, alloc);
  if (v.MemberCount() < 2) return;
  std::unordered_map<std::string_view, size_t> first;  // name -> its index in `kept`
  std::vector<std::pair<Value*, Value*>> kept;
  bool repeated = false;
  for (auto& m : v.GetObject()) {
    std::string_view name(m.name.GetString(), m.name.GetStringLength());
    auto [it, fresh] = first.emplace(name, kept.size());
    if (fresh) {
      kept.emplace_back(&m.name, &m.value);
    } else {
      kept[it->second].second = &m.value;
      repeated = true;
    }
  }
  if (!repeated) return;
  Value out(rapidjson::kObjectType);
  for (auto& [name, value] : kept) out.AddMember(std::move(*name), std::move(*value), alloc);
  v = std::move(out);
}

}  // namespace

ParseStatus Parse(std::string_view text, Document& out) {
  bool ascii = false;
  switch (Prescan(text, kMaxDepth, ascii)) {
    case Scan::kTooDeep: return ParseStatus::kTooDeep;
    case Scan::kMalformed: return ParseStatus::kMalformed;
    case Scan::kOk: break;
  }
  constexpr unsigned kFlags = rapidjson::kParseIterativeFlag | rapidjson::kParseNumbersAsStringsFlag;
  bool ok = false;
  bool maybe_repeated = false;
  auto generate = [&](Document& d) {
    // The reader keeps a string's bytes on its stack while it reads it: one kept per thread (its
    // stack is reused, not grown again from 256 bytes for every body), but not for a large text,
    // whose stack no later parse would need.
    thread_local rapidjson::Reader kept;
    std::optional<rapidjson::Reader> own;
    rapidjson::Reader& reader = text.size() <= kKeptPerThreadBytes ? kept : own.emplace();
    NumberHandler handler{d};
    auto note = [&] { maybe_repeated = handler.maybe_repeated; };
    // Trailing non-whitespace is an error. Text of ASCII bytes alone is valid UTF-8: RapidJSON's
    // validation, byte by byte, was most of the time a parse took.
    if (ascii) {
      // Read from a NUL-terminated copy, the stream RapidJSON scans strings of 16 bytes at a time
      // (RAPIDJSON_SSE2, CMakeLists.txt); a NUL in the text ends that stream early, so the parse
      // must have read all of it.
      thread_local std::string copy;
      copy.assign(text.data(), text.size());
      rapidjson::StringStream ss(copy.c_str());
      ok = !reader.Parse<kFlags>(ss, handler).IsError() && ss.Tell() == text.size();
      if (copy.capacity() > kKeptPerThreadBytes) std::string().swap(copy);
    } else {
      rapidjson::MemoryStream ms(text.data(), text.size());
      ok = !reader.Parse<kFlags | rapidjson::kParseValidateEncodingFlag>(ms, handler).IsError();
    }
    note();
    return ok;
  };
  out.SetNull();
  out.Populate(generate);
  if (ok && maybe_repeated) DropRepeatedNames(out, out.GetAllocator());
  return ok ? ParseStatus::kOk : ParseStatus::kMalformed;
}

size_t Utf8SequenceLength(std::string_view s, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b0 = byte(i);
  if (b0 < 0x80) return 1;
  const size_t extra = b0 >= 0xF0 && b0 <= 0xF4 ? 3 : b0 >= 0xE0 && b0 < 0xF0 ? 2 : b0 >= 0xC2 && b0 < 0xE0 ? 1 : 0;
  if (extra == 0 || i + extra >= s.size()) return 0;
  uint32_t cp = b0 & (extra == 1 ? 0x1F : extra == 2 ? 0x0F : 0x07);
  for (size_t k = 1; k <= extra; ++k) {
    const unsigned char b = byte(i + k);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  static constexpr uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
  if (cp < kMin[extra] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return extra + 1;
}

bool ValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = Utf8SequenceLength(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

void WriteString(std::string& out, std::string_view s) {
  static const char* kHex = "0123456789abcdef";
  out.push_back('"');
  size_t run_start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    // Printable ASCII other than a quote or a backslash is copied as it is: skip it a word at a time.
    while (i + 8 <= s.size()) {
      const uint64_t w = Word(s.data() + i);
      if ((w & kHighs) | HasControl(w) | HasByte(w, '"') | HasByte(w, '\\')) break;
      i += 8;
    }
    if (i == s.size()) break;
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      // Well-formed UTF-8 is copied; a malformed byte (text echoed from a request that was not
      // UTF-8) becomes U+FFFD, so that what is written is always valid JSON.
      const size_t n = Utf8SequenceLength(s, i);
      if (n > 0) {
        i += n - 1;
        continue;
      }
      out.append(s.data() + run_start, i - run_start);
      run_start = i + 1;
      out += "\\ufffd";
      continue;
    }
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + run_start, i - run_start);
    run_start = i + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        out += "\\u00";
        out.push_back(kHex[c >> 4]);
        out.push_back(kHex[c & 0xF]);
    }
  }
  out.append(s.data() + run_start, s.size() - run_start);
  out.push_back('"');
}

void WriteDouble(std::string& out, double d) {
  if (std::isnan(d) || std::isinf(d)) {  // not representable in JSON; callers reject these earlier
    out += "null";
    return;
  }
  if (d == 0) {
    out.push_back('0');  // JavaScript prints -0 as "0"
    return;
  }
  // Shortest round-trip digits in scientific form: [-]d[.ddd]e(+|-)XX
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<size_t>(r.ptr - buf));
  if (sci.front() == '-') {
    out.push_back('-');
    sci.remove_prefix(1);
  }
  size_t e_pos = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e_pos)) {
    if (c != '.') digits.push_back(c);
  }
  int exp10 = 0;
  std::string_view exp_text = sci.substr(e_pos + 1);
  if (exp_text.front() == '+') exp_text.remove_prefix(1);
  std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exp10);
  // ECMAScript Number::toString: value = 0.d1..dk * 10^n
  const int k = static_cast<int>(digits.size());
  const int n = exp10 + 1;
  if (k <= n && n <= 21) {
    out += digits;
    out.append(static_cast<size_t>(n - k), '0');
  } else if (0 < n && n <= 21) {
    out.append(digits, 0, static_cast<size_t>(n));
    out.push_back('.');
    out.append(digits, static_cast<size_t>(n), std::string::npos);
  } else if (-6 < n && n <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-n), '0');
    out += digits;
  } else {
    out.push_back(digits[0]);
    if (k > 1) {
      out.push_back('.');
      out.append(digits, 1, std::string::npos);
    }
    out.push_back('e');
    int e = n - 1;
    out.push_back(e < 0 ? '-' : '+');
    out += std::to_string(e < 0 ? -e : e);
  }
}

std::string Quote(std::string_view s) {
  std::string out;
  WriteString(out, s);
  return out;
}

std::string FormatNumber(double d) {
  std::string s;
  WriteDouble(s, d);
  return s;
}

void Write(std::string& out, const Value& root) {
  if (!root.IsObject() && !root.IsArray()) {
    WriteScalar(out, root);
    return;
  }
  std::vector<Frame> stack;
  stack.reserve(16);
  stack.push_back({&root, 0});
  out.push_back(root.IsObject() ? '{' : '[');
  while (!stack.empty()) {
    Frame& f = stack.back();
    const Value& v = *f.v;
    const Value* child = nullptr;
    if (v.IsObject()) {
      if (f.index == v.MemberCount()) {
        out.push_back('}');
        stack.pop_back();
        continue;
      }
      auto m = v.MemberBegin() + static_cast<rapidjson::SizeType>(f.index);
      if (f.index++ > 0) out.push_back(',');
      WriteString(out, std::string_view(m->name.GetString(), m->name.GetStringLength()));
      out.push_back(':');
      child = &m->value;
    } else {
      if (f.index == v.Size()) {
        out.push_back(']');
        stack.pop_back();
        continue;
      }
      if (f.index > 0) out.push_back(',');
      child = &v[static_cast<rapidjson::SizeType>(f.index++)];
    }
    if (child->IsObject()) {
      out.push_back('{');
      stack.push_back({child, 0});
    } else if (child->IsArray()) {
      out.push_back('[');
      stack.push_back({child, 0});
    } else {
      WriteScalar(out, *child);
    }
  }
}

std::string Write(const Value& v) {
  std::string s;
  Write(s, v);
  return s;
}

bool Equal(const Value& a, const Value& b) {
  if (a.IsNumber() && b.IsNumber()) {
    if (a.IsInt64() && b.IsInt64()) return a.GetInt64() == b.GetInt64();
    if (a.IsUint64() && b.IsUint64()) return a.GetUint64() == b.GetUint64();
    return a.GetDouble() == b.GetDouble();
  }
  if (a.GetType() != b.GetType()) return false;
  switch (a.GetType()) {
    case rapidjson::kStringType:
      return a.GetStringLength() == b.GetStringLength() &&
             std::memcmp(a.GetString(), b.GetString(), a.GetStringLength()) == 0;
    case rapidjson::kArrayType:
      if (a.Size() != b.Size()) return false;
      for (rapidjson::SizeType i = 0; i < a.Size(); ++i) {
        if (!Equal(a[i], b[i])) return false;
      }
      return true;
    case rapidjson::kObjectType: {
      if (a.MemberCount() != b.MemberCount()) return false;
      for (auto& m : a.GetObject()) {
        auto it = b.FindMember(m.name);
        if (it == b.MemberEnd() || !Equal(m.value, it->value)) return false;
      }
      return true;
    }
    default:
      return true;
  }
}

const Value* AtPath(const Value& root, const std::vector<std::string>& path) {
  const Value* cur = &root;
  for (const auto& name : path) {
    if (!cur->IsObject()) return nullptr;
    auto it = cur->FindMember(Value(rapidjson::StringRef(name.data(), static_cast<rapidjson::SizeType>(name.size()))));
    if (it == cur->MemberEnd()) return nullptr;
    cur = &it->value;
  }
  return cur;
}

}  // namespace cosmos::json
