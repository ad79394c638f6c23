#include "json/cosmos_binary.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

// Format facts (byte values, layouts) are those of the Rust SDK's binary_json reader
// (azure_data_cosmos_driver 1.1.0-beta.1), which follows the .NET service implementation. Every
// multi-byte field is little-endian. One value = one type-marker byte, then its payload:
//   00-1F  the integer 0..31 itself            20-3F  system string (fixed table below)
//   40-67  user string (external dictionary)   68-70  unused
//   71-74  base64 text kept as its bytes       75-77  GUID text packed in 16 bytes
//   78-7F  compressed / bit-packed ASCII text  80-BF  string of length marker-0x80 (0x80 also preamble)
//   C0-C2  string, 1/2/4-byte length           C3-C6  reference to a string earlier in the buffer
//   C7-CF  numbers                             D0-D2  null, false, true
//   D3     GUID value   D7-DC sized integers   DD-DF  binary blob, 1/2/4-byte length
//   E0-E7  arrays       E8-EF objects          F0-F3  uniform number arrays (vectors)
// The decoder walks the buffer with a cursor and an explicit stack of open containers, so hostile
// input can neither recurse nor read past the end; a length is checked against the bytes left
// before anything is sized from it.

namespace cosmos::json {
namespace {

// The fixed strings a 0x20..0x3F marker stands for, in marker order (the service's table).
constexpr std::array<std::string_view, 32> kSystemStrings = {
    "$s",         "$t",           "$v",           "_attachments",    "_etag",
    "_rid",       "_self",        "_ts",          "attachments/",    "coordinates",
    "geometry",   "GeometryCollection", "id",     "url",             "Value",
    "label",      "LineString",   "link",         "MultiLineString", "MultiPoint",
    "MultiPolygon", "name",       "Name",         "Type",            "Point",
    "Polygon",    "properties",   "type",         "value",           "Feature",
    "FeatureCollection", "_id",
};

enum Marker : uint8_t {
  kLiteralIntEnd = 0x20,
  kSystemStringEnd = 0x40,
  kUserString2End = 0x68,
  kBase64L1 = 0x71,
  kBase64L2 = 0x72,
  kBase64UrlL1 = 0x73,
  kBase64UrlL2 = 0x74,
  kGuidLower = 0x75,
  kGuidUpper = 0x76,
  kGuidQuoted = 0x77,
  kHexLower = 0x78,
  kHexUpper = 0x79,
  kDateTime = 0x7A,
  kPacked4 = 0x7B,
  kPacked5 = 0x7C,
  kPacked6 = 0x7D,
  kPacked7L1 = 0x7E,
  kPacked7L2 = 0x7F,
  kShortString = 0x80,
  kStrL1 = 0xC0,
  kStrL2 = 0xC1,
  kStrL4 = 0xC2,
  kRef1 = 0xC3,
  kRef4 = 0xC6,
  kNumUint64 = 0xC7,
  kNumUint8 = 0xC8,
  kNumInt16 = 0xC9,
  kNumInt32 = 0xCA,
  kNumInt64 = 0xCB,
  kNumDouble = 0xCC,
  kFloat32 = 0xCD,
  kFloat64 = 0xCE,
  kFloat16 = 0xCF,
  kNull = 0xD0,
  kFalse = 0xD1,
  kTrue = 0xD2,
  kGuid = 0xD3,
  kUint8 = 0xD7,
  kInt8 = 0xD8,
  kInt16 = 0xD9,
  kInt32 = 0xDA,
  kInt64 = 0xDB,
  kUint32 = 0xDC,
  kBinaryL1 = 0xDD,
  kBinaryL4 = 0xDF,
  kArr0 = 0xE0,  // E0 empty, E1 one item, E2-E4 1/2/4-byte length, E5-E7 length and count (same widths)
  kObj0 = 0xE8,  // E8-EF: the same eight forms for objects
  kObjLC4 = 0xEF,
  kNumArrC1 = 0xF0,
  kNumArrC2 = 0xF1,
  kNumArrArrC1 = 0xF2,
  kNumArrArrC2 = 0xF3,
};

// The string forms (0x20..0xC6): what a reference may point at (the SDK's rule; a reference itself is
// excluded, so references never chain).
bool IsStringMarker(uint8_t m) { return m >= kLiteralIntEnd && m < kNumUint64; }
// Everything that reads as a JSON string: the string forms, and the GUID value and binary blobs, which
// JSON has no type for. Any of them may name a property.
bool ReadsAsString(uint8_t m) { return IsStringMarker(m) || m == kGuid || (m >= kBinaryL1 && m <= kBinaryL4); }

constexpr char kHexLowerDigits[] = "0123456789abcdef";
constexpr char kHexUpperDigits[] = "0123456789ABCDEF";
constexpr char kDateTimeChars[] = " 0123456789:-.TZ";

void AppendBase64(std::string& out, std::string_view bytes, bool url) {
  const char* digits = url ? "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
                           : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    uint32_t v = uint32_t(uint8_t(bytes[i])) << 16 | uint32_t(uint8_t(bytes[i + 1])) << 8 | uint8_t(bytes[i + 2]);
    out += digits[v >> 18];
    out += digits[(v >> 12) & 63];
    out += digits[(v >> 6) & 63];
    out += digits[v & 63];
  }
  if (size_t rest = bytes.size() - i; rest > 0) {
    uint32_t v = uint32_t(uint8_t(bytes[i])) << 16 | (rest == 2 ? uint32_t(uint8_t(bytes[i + 1])) << 8 : 0);
    out += digits[v >> 18];
    out += digits[(v >> 12) & 63];
    out += rest == 2 ? digits[(v >> 6) & 63] : '=';
    out += '=';
  }
}

// Strict UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing past U+10FFFF.
bool ValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    uint8_t c = uint8_t(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t n;
    uint8_t lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
      n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return false;
    }
    if (s.size() - i < n) return false;
    uint8_t c1 = uint8_t(s[i + 1]);
    if (c1 < lo || c1 > hi) return false;
    for (size_t k = 2; k < n; ++k) {
      if ((uint8_t(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += n;
  }
  return true;
}

// A JSON string literal of UTF-8 text: quote and backslash escaped, control characters as \u00XX.
void AppendQuoted(std::string& out, std::string_view s) {
  out += '"';
  size_t run = 0;  // start of the pending stretch that needs no escaping
  for (size_t i = 0; i < s.size(); ++i) {
    uint8_t c = uint8_t(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else {
      out += "\\u00";
      out += kHexLowerDigits[c >> 4];
      out += kHexLowerDigits[c & 15];
    }
  }
  out.append(s.data() + run, s.size() - run);
  out += '"';
}

template <typename T>
void AppendInteger(std::string& out, T v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

class Decoder {
 public:
  explicit Decoder(std::string_view in) : in_(in) {
    // References let a few bytes repeat a long string. Documents the service can store are at most
    // 2 MB of text, so this allowance never stops one; it stops a body that repeats a string
    // quadratically many times.
    ref_budget_ = in.size() * 16 + (4u << 20);
  }

  bool Run(std::string& out);
  const std::string& error() const { return error_; }
  bool too_deep() const { return too_deep_; }

 private:
  struct Frame {
    bool object;
    bool bounded;  // ends at a byte offset (else: Arr1/Obj1, exactly one item)
    size_t end = 0;
    bool counted;  // carries a count of items that must agree
    uint64_t count = 0;
    uint64_t items = 0;
  };

  bool Fail(std::string_view what, size_t at) {
    error_ = "Cosmos binary JSON: ";
    error_ += what;
    error_ += " at offset ";
    AppendInteger(error_, at);
    return false;
  }
  bool Truncated(size_t at) { return Fail("truncated value", at); }

  // Reads a little-endian unsigned field of `width` bytes at *pos, advancing it.
  bool ReadUint(size_t& pos, size_t width, uint64_t& v) {
    if (in_.size() - pos < width) return Truncated(pos);
    v = 0;
    for (size_t k = 0; k < width; ++k) v |= uint64_t(uint8_t(in_[pos + k])) << (8 * k);
    pos += width;
    return true;
  }
  bool Take(size_t& pos, uint64_t n, std::string_view& bytes, size_t marker_at) {
    if (n > in_.size() - pos) return Fail("length runs past the end of the body", marker_at);
    bytes = in_.substr(pos, size_t(n));
    pos += size_t(n);
    return true;
  }

  bool ReadString(size_t& pos, std::string_view& s, bool allow_reference);
  bool ReadBase64(size_t& pos, size_t width, bool url, size_t at);
  bool ReadPacked(size_t& pos, unsigned bits, bool has_base, size_t width, size_t at);
  bool ReadNumber(size_t& pos, uint8_t marker, std::string& out, size_t at);
  bool ReadUniformArray(uint8_t marker, std::string& out, size_t depth, size_t at);
  bool AppendDouble(std::string& out, double d, size_t at) {
    if (!std::isfinite(d)) return Fail("NaN or infinite number", at);
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, d);  // shortest text that reads back the same
    out.append(buf, r.ptr);
    return true;
  }
  // A value ended at pos_: count it in its container and check it stayed inside it.
  bool Completed() {
    if (stack_.empty()) return true;
    Frame& f = stack_.back();
    ++f.items;
    if (f.bounded && pos_ > f.end) return Fail("value runs past the end of its container", pos_);
    if (f.counted && f.items > f.count) return Fail("container holds more items than its count says", pos_);
    return true;
  }

  std::string_view in_;
  size_t pos_ = 1;
  std::vector<Frame> stack_;
  std::string scratch_;  // text of a string form that is not stored as-is
  size_t ref_budget_;
  std::string error_;
  bool too_deep_ = false;
};

// The string value at `pos` (any string form), as a view into the body or into scratch_.
bool Decoder::ReadString(size_t& pos, std::string_view& s, bool allow_reference) {
  const size_t at = pos;
  if (pos >= in_.size()) return Truncated(at);
  const uint8_t m = uint8_t(in_[pos++]);
  uint64_t n = 0;
  if (!ReadsAsString(m)) return Fail("property name is not a string", at);
  if (m < kSystemStringEnd) {
    s = kSystemStrings[m - kLiteralIntEnd];
    return true;
  }
  if (m < kUserString2End) {
    // Ids into a string dictionary kept outside the document; the SDKs never send them.
    return Fail("user-string dictionary reference (unsupported: the dictionary is not in the body)", at);
  }
  if (m >= kShortString && m <= kStrL4) {
    if (m >= kStrL1 && !ReadUint(pos, m == kStrL1 ? 1 : m == kStrL2 ? 2 : 4, n)) return false;
    if (m < kStrL1) n = m - kShortString;
    if (!Take(pos, n, s, at)) return false;
    if (!ValidUtf8(s)) return Fail("string is not valid UTF-8", at);
    return true;
  }
  if (m >= kRef1 && m <= kRef4) {
    if (!allow_reference) return Fail("reference string points at another reference", at);
    uint64_t target = 0;
    if (!ReadUint(pos, size_t(m - kRef1 + 1), target)) return false;
    const uint8_t tm = target < in_.size() ? uint8_t(in_[size_t(target)]) : 0;
    if (target >= in_.size() || !IsStringMarker(tm) || (tm >= kRef1 && tm <= kRef4)) {
      return Fail("reference string does not point at a string", at);
    }
    size_t tpos = size_t(target);
    if (!ReadString(tpos, s, false)) return false;
    if (s.size() > ref_budget_) return Fail("reference strings expand past any storable document", at);
    ref_budget_ -= s.size();
    return true;
  }
  scratch_.clear();
  std::string_view bytes;
  switch (m) {
    case kBase64L1:
    case kBase64L2:
    case kBase64UrlL1:
    case kBase64UrlL2:
      if (!ReadBase64(pos, m == kBase64L1 || m == kBase64UrlL1 ? 1 : 2, m >= kBase64UrlL1, at)) return false;
      break;
    case kGuidLower:
    case kGuidUpper:
    case kGuidQuoted: {
      // The 36-character text, two hex digits a byte (low nibble first), dashes in the 8-4-4-4-12 places.
      if (!Take(pos, 16, bytes, at)) return false;
      const char* digits = m == kGuidUpper ? kHexUpperDigits : kHexLowerDigits;
      if (m == kGuidQuoted) scratch_ += '"';
      for (size_t k = 0; k < 16; ++k) {
        if (k == 4 || k == 6 || k == 8 || k == 10) scratch_ += '-';
        scratch_ += digits[uint8_t(bytes[k]) & 15];
        scratch_ += digits[uint8_t(bytes[k]) >> 4];
      }
      if (m == kGuidQuoted) scratch_ += '"';
      break;
    }
    case kHexLower:
    case kHexUpper:
    case kDateTime: {
      // Characters of a 16-letter alphabet, two a byte, low nibble first.
      const char* table = m == kHexLower ? kHexLowerDigits : m == kHexUpper ? kHexUpperDigits : kDateTimeChars;
      if (!ReadUint(pos, 1, n)) return false;
      if (!Take(pos, (n + 1) / 2, bytes, at)) return false;
      for (size_t k = 0; k < bytes.size(); ++k) {
        uint8_t b = uint8_t(bytes[k]);
        scratch_ += table[b & 15];
        if (k + 1 == bytes.size() && n % 2 == 1) {
          if (b >> 4 != 0) return Fail("compressed string has a non-zero padding nibble", at);
        } else {
          scratch_ += table[b >> 4];
        }
      }
      break;
    }
    case kPacked4:
    case kPacked5:
    case kPacked6:
      if (!ReadPacked(pos, unsigned(m - kPacked4 + 4), true, 1, at)) return false;
      break;
    case kPacked7L1:
    case kPacked7L2:
      if (!ReadPacked(pos, 7, false, m == kPacked7L1 ? 1 : 2, at)) return false;
      break;
    case kGuid: {
      // A GUID value: .NET's layout (first three groups little-endian), written in lower case.
      if (!Take(pos, 16, bytes, at)) return false;
      static constexpr int kOrder[16] = {3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15};
      for (size_t k = 0; k < 16; ++k) {
        if (k == 4 || k == 6 || k == 8 || k == 10) scratch_ += '-';
        uint8_t b = uint8_t(bytes[size_t(kOrder[k])]);
        scratch_ += kHexLowerDigits[b >> 4];
        scratch_ += kHexLowerDigits[b & 15];
      }
      break;
    }
    default:
      if (m >= kBinaryL1 && m <= kBinaryL4) {
        // JSON has no bytes: like the SDK's reader, a blob becomes its base64 text.
        if (!ReadUint(pos, m == kBinaryL1 ? 1 : m == kBinaryL1 + 1 ? 2 : 4, n)) return false;
        if (!Take(pos, n, bytes, at)) return false;
        AppendBase64(scratch_, bytes, false);
        break;
      }
      return Fail("unknown type marker", at);  // 0x68..0x70
  }
  s = scratch_;
  return true;
}

// Base64 text stored as its decoded bytes: a count of 4-character groups, a padding byte (the number
// of '=' the text had, or its complement when the text left the padding out), then the bytes.
bool Decoder::ReadBase64(size_t& pos, size_t width, bool url, size_t at) {
  uint64_t groups = 0, padding = 0;
  if (!ReadUint(pos, width, groups) || !ReadUint(pos, 1, padding)) return false;
  const bool omitted = padding > 2;
  const uint64_t pad = omitted ? (~padding & 0xFF) : padding;
  const uint64_t padded = groups * 4;  // groups < 2^16: no overflow
  if (pad > padded) return Fail("base64 padding exceeds the encoded length", at);
  const uint64_t text_len = omitted ? padded - pad : padded;
  std::string_view bytes;
  if (!Take(pos, (padded - pad) * 3 / 4, bytes, at)) return false;
  AppendBase64(scratch_, bytes, url);
  if (text_len > scratch_.size()) return Fail("base64 length disagrees with its bytes", at);
  scratch_.resize(size_t(text_len));
  return true;
}

// Characters packed `bits` apiece into a little-endian bit stream, each added to a base byte. A
// character past 0x7F reads as the code point of that byte (U+0080..U+00FF), as in the SDK's reader.
bool Decoder::ReadPacked(size_t& pos, unsigned bits, bool has_base, size_t width, size_t at) {
  uint64_t n = 0, base = 0;
  if (!ReadUint(pos, width, n)) return false;
  if (has_base && !ReadUint(pos, 1, base)) return false;
  std::string_view bytes;
  if (!Take(pos, (n * bits + 7) / 8, bytes, at)) return false;
  uint64_t bit = 0;
  for (uint64_t k = 0; k < n; ++k, bit += bits) {
    size_t i = size_t(bit / 8);
    uint32_t window = uint8_t(bytes[i]) | (i + 1 < bytes.size() ? uint32_t(uint8_t(bytes[i + 1])) << 8 : 0);
    uint8_t c = uint8_t(((window >> (bit % 8)) & ((1u << bits) - 1)) + base);
    if (c < 0x80) {
      scratch_ += char(c);
    } else {
      scratch_ += char(0xC0 | (c >> 6));
      scratch_ += char(0x80 | (c & 0x3F));
    }
  }
  return true;
}

// A number of the given marker (already consumed) whose payload starts at `pos`.
bool Decoder::ReadNumber(size_t& pos, uint8_t marker, std::string& out, size_t at) {
  uint64_t v = 0;
  switch (marker) {
    case kNumUint8:
    case kUint8:
      if (!ReadUint(pos, 1, v)) return false;
      AppendInteger(out, v);
      return true;
    case kInt8:
      if (!ReadUint(pos, 1, v)) return false;
      AppendInteger(out, int64_t(int8_t(uint8_t(v))));
      return true;
    case kNumInt16:
    case kInt16:
      if (!ReadUint(pos, 2, v)) return false;
      AppendInteger(out, int64_t(int16_t(uint16_t(v))));
      return true;
    case kNumInt32:
    case kInt32:
      if (!ReadUint(pos, 4, v)) return false;
      AppendInteger(out, int64_t(int32_t(uint32_t(v))));
      return true;
    case kUint32:
      if (!ReadUint(pos, 4, v)) return false;
      AppendInteger(out, v);
      return true;
    case kNumInt64:
    case kInt64:
      if (!ReadUint(pos, 8, v)) return false;
      AppendInteger(out, int64_t(v));
      return true;
    case kNumUint64:
      if (!ReadUint(pos, 8, v)) return false;
      AppendInteger(out, v);
      return true;
    case kNumDouble:
    case kFloat64: {
      if (!ReadUint(pos, 8, v)) return false;
      double d;
      std::memcpy(&d, &v, sizeof d);
      return AppendDouble(out, d, at);
    }
    case kFloat32: {
      // Widened to double, as the SDK's reader does: 0.1f reads as 0.10000000149011612.
      if (!ReadUint(pos, 4, v)) return false;
      uint32_t w = uint32_t(v);
      float f;
      std::memcpy(&f, &w, sizeof f);
      return AppendDouble(out, double(f), at);
    }
    case kFloat16:
      // The service has no JSON number for it and the SDK's reader refuses it too.
      return Fail("float16 number (unsupported: no JSON form in the service)", at);
    default:
      return Fail("unknown type marker", at);
  }
}

// Uniform number arrays (embedding vectors): one item-type marker shared by bare payloads. F0/F1 are
// one array (1- or 2-byte count); F2/F3 an array of such arrays, all of one length.
bool Decoder::ReadUniformArray(uint8_t marker, std::string& out, size_t depth, size_t at) {
  const bool nested = marker == kNumArrArrC1 || marker == kNumArrArrC2;
  const size_t width = marker == kNumArrC1 || marker == kNumArrArrC1 ? 1 : 2;
  if (depth + (nested ? 1 : 0) > size_t(kCosmosBinaryMaxDepth)) {
    too_deep_ = true;
    return Fail("nesting deeper than 128", at);
  }
  if (nested) {
    if (pos_ >= in_.size()) return Truncated(pos_);
    if (uint8_t(in_[pos_]) != (width == 1 ? kNumArrC1 : kNumArrC2)) {
      return Fail("array of number arrays has a wrong inner marker", pos_);
    }
    ++pos_;
  }
  const size_t item_at = pos_;
  uint64_t item = 0, inner = 0, outer = 1;
  if (!ReadUint(pos_, 1, item) || !ReadUint(pos_, width, inner)) return false;
  if (nested && !ReadUint(pos_, width, outer)) return false;
  size_t size;
  switch (item) {
    case kUint8:
    case kInt8:
      size = 1;
      break;
    case kInt16:
      size = 2;
      break;
    case kInt32:
    case kUint32:
    case kFloat32:
      size = 4;
      break;
    case kInt64:
    case kFloat64:
      size = 8;
      break;
    default:
      return Fail("uniform array of an item type the service does not use", item_at);
  }
  // Counts are at most 2^16 - 1 each, so this product cannot overflow; checking it first keeps a
  // large count over a short body from doing any work.
  if (inner * outer * size > in_.size() - pos_) return Fail("length runs past the end of the body", at);
  if (nested) out += '[';
  for (uint64_t o = 0; o < outer; ++o) {
    if (o > 0) out += ',';
    out += '[';
    for (uint64_t i = 0; i < inner; ++i) {
      if (i > 0) out += ',';
      if (!ReadNumber(pos_, uint8_t(item), out, item_at)) return false;
    }
    out += ']';
  }
  if (nested) out += ']';
  return true;
}

bool Decoder::Run(std::string& out) {
  if (in_.empty() || uint8_t(in_[0]) != kCosmosBinaryPreamble) return Fail("missing the 0x80 preamble", 0);
  for (;;) {
    if (!stack_.empty()) {
      Frame& f = stack_.back();
      if (f.bounded ? pos_ == f.end : f.items == 1) {
        if (f.counted && f.items != f.count) return Fail("container item count disagrees with its contents", pos_);
        out += f.object ? '}' : ']';
        stack_.pop_back();
        if (!Completed()) return false;
        if (stack_.empty()) break;
        continue;
      }
      if (f.items > 0) out += ',';
      if (f.object) {
        std::string_view name;
        if (!ReadString(pos_, name, true)) return false;
        if (f.bounded && pos_ >= f.end) return Fail("property name without a value", pos_);
        AppendQuoted(out, name);
        out += ':';
      }
    }
    const size_t at = pos_;
    if (pos_ >= in_.size()) return Truncated(at);
    const uint8_t m = uint8_t(in_[pos_++]);
    const size_t depth = stack_.size() + 1;  // the nesting level a container here would open
    if (m < kLiteralIntEnd) {
      AppendInteger(out, int(m));
    } else if (m == kNull) {
      out += "null";
    } else if (m == kFalse) {
      out += "false";
    } else if (m == kTrue) {
      out += "true";
    } else if ((m >= kNumUint64 && m <= kFloat16) || (m >= kUint8 && m <= kUint32)) {
      if (!ReadNumber(pos_, m, out, at)) return false;
    } else if (m >= kArr0 && m <= kObjLC4) {
      if (depth > size_t(kCosmosBinaryMaxDepth)) {
        too_deep_ = true;
        return Fail("nesting deeper than 128", at);
      }
      const bool object = m >= kObj0;
      const uint8_t form = uint8_t(m - (object ? kObj0 : kArr0));  // 0 empty, 1 one item, 2-4 L, 5-7 LC
      if (form == 0) {
        out += object ? "{}" : "[]";
      } else {
        Frame f{object, form >= 2, 0, form >= 5};
        if (form == 1) {
          f.counted = true;
          f.count = 1;
        } else {
          const size_t width = size_t(1) << ((form - 2) % 3);
          uint64_t len = 0;
          if (!ReadUint(pos_, width, len)) return false;
          if (f.counted && !ReadUint(pos_, width, f.count)) return false;
          if (len > in_.size() - pos_) return Fail("container length runs past the end of the body", at);
          f.end = pos_ + size_t(len);
          if (!stack_.empty() && stack_.back().bounded && f.end > stack_.back().end) {
            return Fail("container runs past the end of its parent", at);
          }
        }
        out += object ? '{' : '[';
        stack_.push_back(f);
        continue;
      }
    } else if (m >= kNumArrC1 && m <= kNumArrArrC2) {
      if (!ReadUniformArray(m, out, depth, at)) return false;
    } else if (ReadsAsString(m)) {
      --pos_;
      std::string_view s;
      if (!ReadString(pos_, s, true)) return false;
      AppendQuoted(out, s);
    } else {
      return Fail("unknown type marker", at);  // 0xD4..0xD6, 0xF4..0xFF
    }
    if (!Completed()) return false;
    if (stack_.empty()) break;
  }
  if (pos_ != in_.size()) return Fail("bytes after the end of the document", pos_);
  return true;
}

}  // namespace

bool IsCosmosBinary(std::string_view body) {
  return !body.empty() && uint8_t(body[0]) == kCosmosBinaryPreamble;
}

std::optional<std::string> CosmosBinaryToText(std::string_view body, std::string* error, bool* too_deep) {
  Decoder decoder(body);
  std::string out;
  out.reserve(body.size() + body.size() / 2);
  const bool ok = decoder.Run(out);
  if (too_deep) *too_deep = !ok && decoder.too_deep();
  if (!ok) {
    if (error) *error = decoder.error();
    return std::nullopt;
  }
  return out;
}

}  // namespace cosmos::json
