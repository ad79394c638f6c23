#include "store/epk.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace cosmos::store {

namespace {

// Type markers of the hash input and of the binary encoding.
constexpr uint8_t kMarkerUndefined = 0x00;
constexpr uint8_t kMarkerNull = 0x01;
constexpr uint8_t kMarkerFalse = 0x02;
constexpr uint8_t kMarkerTrue = 0x03;
constexpr uint8_t kMarkerNumber = 0x05;
constexpr uint8_t kMarkerString = 0x08;

// V1 keeps the first 100 characters of a string (UTF-16 code units, as the service counts them).
constexpr size_t kV1MaxStringChars = 100;
// The binary encoding appends at most this many string bytes before the terminator.
constexpr size_t kMaxStringBytesToAppend = 100;

uint32_t Rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }
uint64_t Rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

uint32_t Fmix32(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bU;
  h ^= h >> 13;
  h *= 0xc2b2ae35U;
  h ^= h >> 16;
  return h;
}

uint64_t Fmix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

// Little-endian loads (the reference algorithm reads blocks little-endian on x86).
uint32_t Load32(const unsigned char* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16 |
         static_cast<uint32_t>(p[3]) << 24;
}

uint64_t Load64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// The IEEE bits of a double as the service sees them: every NaN is .NET's canonical NaN.
uint64_t DoubleBits(double d) {
  if (std::isnan(d)) return 0xFFF8000000000000ULL;
  return std::bit_cast<uint64_t>(d);
}

void AppendDoubleLittleEndian(std::string& out, double d) {
  uint64_t bits = DoubleBits(d);
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((bits >> (8 * i)) & 0xFF));
}

// Decodes one UTF-8 sequence at s[i] (advancing i); invalid bytes decode as themselves.
uint32_t NextCodePoint(std::string_view s, size_t& i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  int len = b0 < 0x80 ? 1 : (b0 >> 5) == 0x6 ? 2 : (b0 >> 4) == 0xE ? 3 : (b0 >> 3) == 0x1E ? 4 : 1;
  if (i + len > s.size()) len = 1;
  uint32_t cp = len == 1 ? b0 : len == 2 ? (b0 & 0x1F) : len == 3 ? (b0 & 0x0F) : (b0 & 0x07);
  for (int k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  i += len;
  return cp;
}

// The first `max_units` UTF-16 code units of a UTF-8 string, re-encoded as UTF-8. A surrogate pair
// cut in half leaves a lone high surrogate, which UTF-8 encoding replaces with U+FFFD.
std::string TruncateUtf16(std::string_view s, size_t max_units) {
  size_t units = 0, i = 0;
  while (i < s.size()) {
    size_t start = i;
    const uint32_t cp = NextCodePoint(s, i);
    const size_t need = cp >= 0x10000 ? 2 : 1;
    if (units + need > max_units) {
      if (units < max_units) return std::string(s.substr(0, start)) + "\xEF\xBF\xBD";
      return std::string(s.substr(0, start));
    }
    units += need;
  }
  return std::string(s);
}

// The order-preserving 64-bit image of a double: positive numbers get the sign bit set, negative
// numbers are negated, so unsigned comparison follows numeric order.
uint64_t OrderedDoubleBits(double d) {
  const uint64_t bits = DoubleBits(d);
  constexpr uint64_t kSign = 0x8000000000000000ULL;
  return bits < kSign ? bits ^ kSign : ~bits + 1;
}

// A number in the binary encoding: marker, the first byte of the ordered image whole, then 7-bit
// groups each shifted left one bit with the low bit set on every group but the last.
void AppendEncodedNumber(std::string& out, double d) {
  out.push_back(static_cast<char>(kMarkerNumber));
  uint64_t payload = OrderedDoubleBits(d);
  out.push_back(static_cast<char>(payload >> 56));
  payload <<= 8;
  uint8_t pending = 0;
  bool first = true;
  do {
    if (!first) out.push_back(static_cast<char>(pending));
    first = false;
    pending = static_cast<uint8_t>((payload >> 56) | 0x01);
    payload <<= 7;
  } while (payload != 0);
  out.push_back(static_cast<char>(pending & 0xFE));
}

void AppendMarker(std::string& out, const PkComponent& c) {
  switch (c.kind) {
    case PkComponent::Kind::kUndefined:
      out.push_back(static_cast<char>(kMarkerUndefined));
      break;
    case PkComponent::Kind::kNull:
      out.push_back(static_cast<char>(kMarkerNull));
      break;
    case PkComponent::Kind::kFalse:
      out.push_back(static_cast<char>(kMarkerFalse));
      break;
    case PkComponent::Kind::kTrue:
      out.push_back(static_cast<char>(kMarkerTrue));
      break;
    case PkComponent::Kind::kNumber:
      out.push_back(static_cast<char>(kMarkerNumber));
      break;
    case PkComponent::Kind::kString:
      out.push_back(static_cast<char>(kMarkerString));
      break;
  }
}

// The 16 bytes of a V2 hash, most significant (h2) first, with the top two bits cleared.
std::string V2Bytes(const Hash128& h) {
  const uint64_t high = h.h2 & 0x3FFFFFFFFFFFFFFFULL;
  std::string bytes;
  for (int i = 7; i >= 0; --i) bytes.push_back(static_cast<char>((high >> (8 * i)) & 0xFF));
  for (int i = 7; i >= 0; --i) bytes.push_back(static_cast<char>((h.h1 >> (8 * i)) & 0xFF));
  return bytes;
}

}  // namespace

uint32_t MurmurHash3_32(std::string_view data, uint32_t seed) {
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  const size_t len = data.size();
  const size_t blocks = len / 4;
  constexpr uint32_t c1 = 0xcc9e2d51U, c2 = 0x1b873593U;
  uint32_t h = seed;
  for (size_t i = 0; i < blocks; ++i) {
    uint32_t k = Load32(p + 4 * i);
    k *= c1;
    k = Rotl32(k, 15);
    k *= c2;
    h ^= k;
    h = Rotl32(h, 13);
    h = h * 5 + 0xe6546b64U;
  }
  const unsigned char* tail = p + 4 * blocks;
  uint32_t k = 0;
  switch (len & 3) {
    case 3:
      k ^= static_cast<uint32_t>(tail[2]) << 16;
      [[fallthrough]];
    case 2:
      k ^= static_cast<uint32_t>(tail[1]) << 8;
      [[fallthrough]];
    case 1:
      k ^= tail[0];
      k *= c1;
      k = Rotl32(k, 15);
      k *= c2;
      h ^= k;
  }
  h ^= static_cast<uint32_t>(len);
  return Fmix32(h);
}

Hash128 MurmurHash3_128(std::string_view data, uint64_t seed) {
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  const size_t len = data.size();
  const size_t blocks = len / 16;
  constexpr uint64_t c1 = 0x87c37b91114253d5ULL, c2 = 0x4cf5ad432745937fULL;
  uint64_t h1 = seed, h2 = seed;
  for (size_t i = 0; i < blocks; ++i) {
    uint64_t k1 = Load64(p + 16 * i);
    uint64_t k2 = Load64(p + 16 * i + 8);
    k1 *= c1;
    k1 = Rotl64(k1, 31);
    k1 *= c2;
    h1 ^= k1;
    h1 = Rotl64(h1, 27);
    h1 += h2;
    h1 = h1 * 5 + 0x52dce729;
    k2 *= c2;
    k2 = Rotl64(k2, 33);
    k2 *= c1;
    h2 ^= k2;
    h2 = Rotl64(h2, 31);
    h2 += h1;
    h2 = h2 * 5 + 0x38495ab5;
  }
  const unsigned char* tail = p + 16 * blocks;
  const size_t rest = len & 15;
  uint64_t k1 = 0, k2 = 0;
  for (size_t i = rest; i > 8; --i) k2 = (k2 << 8) | tail[i - 1];
  for (size_t i = std::min<size_t>(rest, 8); i > 0; --i) k1 = (k1 << 8) | tail[i - 1];
  if (rest > 8) {
    k2 *= c2;
    k2 = Rotl64(k2, 33);
    k2 *= c1;
    h2 ^= k2;
  }
  if (rest > 0) {
    k1 *= c1;
    k1 = Rotl64(k1, 31);
    k1 *= c2;
    h1 ^= k1;
  }
  h1 ^= len;
  h2 ^= len;
  h1 += h2;
  h2 += h1;
  h1 = Fmix64(h1);
  h2 = Fmix64(h2);
  h1 += h2;
  h2 += h1;
  return {h1, h2};
}

PkComponent PkComponent::FromJson(const json::Value& v) {
  if (v.IsNull()) return Null();
  if (v.IsBool()) return Bool(v.GetBool());
  if (v.IsNumber()) return Number(v.GetDouble());
  if (v.IsString()) return String(std::string(v.GetString(), v.GetStringLength()));
  return Undefined();
}

PkComponent PkComponent::FromCanonical(const std::optional<std::string>& canonical) {
  if (!canonical) return Undefined();
  const std::string& t = *canonical;
  if (t == "null") return Null();
  if (t == "true") return Bool(true);
  if (t == "false") return Bool(false);
  json::Document d;
  if (json::Parse(t, d) != json::ParseStatus::kOk) return Undefined();
  return FromJson(d);
}

std::vector<PkComponent> Components(const PartitionKeyValue& key) {
  std::vector<PkComponent> out;
  out.reserve(key.components.size());
  for (const auto& c : key.components) out.push_back(PkComponent::FromCanonical(c));
  return out;
}

void AppendHashInputV1(std::string& out, const PkComponent& c, StringSuffix suffix) {
  AppendMarker(out, c);
  if (c.kind == PkComponent::Kind::kNumber) {
    AppendDoubleLittleEndian(out, c.number);
  } else if (c.kind == PkComponent::Kind::kString) {
    out += TruncateUtf16(c.text, kV1MaxStringChars);
    if (suffix == StringSuffix::kService) out.push_back('\0');
  }
}

void AppendHashInputV2(std::string& out, const PkComponent& c, StringSuffix suffix) {
  AppendMarker(out, c);
  if (c.kind == PkComponent::Kind::kNumber) {
    AppendDoubleLittleEndian(out, c.number);
  } else if (c.kind == PkComponent::Kind::kString) {
    out += c.text;
    if (suffix == StringSuffix::kService) out.push_back(static_cast<char>(0xFF));
  }
}

void AppendBinaryEncoding(std::string& out, const PkComponent& c, bool truncate) {
  if (c.kind == PkComponent::Kind::kNumber) {
    AppendEncodedNumber(out, c.number);
    return;
  }
  AppendMarker(out, c);
  if (c.kind != PkComponent::Kind::kString) return;
  const std::string bytes = truncate ? TruncateUtf16(c.text, kV1MaxStringChars) : c.text;
  const bool short_string = bytes.size() <= kMaxStringBytesToAppend;
  const size_t n = short_string ? bytes.size() : kMaxStringBytesToAppend + 1;
  for (size_t i = 0; i < n; ++i) {
    auto b = static_cast<uint8_t>(bytes[i]);
    if (b < 0xFF) ++b;
    out.push_back(static_cast<char>(b));
  }
  if (short_string) out.push_back('\0');
}

uint32_t HashV1(const std::vector<PkComponent>& components, StringSuffix suffix) {
  std::string input;
  for (const auto& c : components) AppendHashInputV1(input, c, suffix);
  return MurmurHash3_32(input);
}

Hash128 HashV2(const std::vector<PkComponent>& components, StringSuffix suffix) {
  std::string input;
  for (const auto& c : components) AppendHashInputV2(input, c, suffix);
  return MurmurHash3_128(input);
}

std::string HexUpper(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char ch : bytes) {
    const auto b = static_cast<uint8_t>(ch);
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 0xF]);
  }
  return out;
}

std::string EffectivePartitionKeyV1(const std::vector<PkComponent>& components) {
  if (components.empty()) return std::string(kMinEpk);
  std::string bytes;
  AppendEncodedNumber(bytes, static_cast<double>(HashV1(components)));
  for (const auto& c : components) AppendBinaryEncoding(bytes, c, true);
  return HexUpper(bytes);
}

std::string EffectivePartitionKeyV2(const std::vector<PkComponent>& components) {
  if (components.empty()) return std::string(kMinEpk);
  return HexUpper(V2Bytes(HashV2(components)));
}

std::string EffectivePartitionKeyMultiHash(const std::vector<PkComponent>& components) {
  std::string out;
  for (const auto& c : components) out += EffectivePartitionKeyV2({c});
  return out;
}

std::string EffectivePartitionKeyRange(const std::vector<PkComponent>& components) {
  std::string bytes;
  for (const auto& c : components) AppendBinaryEncoding(bytes, c, false);
  return HexUpper(bytes);
}

std::string EffectivePartitionKey(const PartitionKeyDefinition& def, const std::vector<PkComponent>& components) {
  if (components.empty()) return std::string(kMinEpk);
  if (def.kind == "MultiHash") return EffectivePartitionKeyMultiHash(components);
  if (def.kind == "Range") return EffectivePartitionKeyRange(components);
  return def.version >= 2 ? EffectivePartitionKeyV2(components) : EffectivePartitionKeyV1(components);
}

std::string EffectivePartitionKey(const PartitionKeyDefinition& def, const PartitionKeyValue& key) {
  return EffectivePartitionKey(def, Components(key));
}

std::vector<std::string> RangeBoundaries(const PartitionKeyDefinition& def, int n) {
  if (def.kind == "Range") n = 1;
  n = std::max(n, 1);
  const auto un = static_cast<unsigned>(n);
  __extension__ typedef unsigned __int128 U128;  // GCC/Clang's 128-bit integer (not ISO C++)
  // The V2 step: floor((2^126 - 1) / n).
  const U128 step = ((static_cast<U128>(1) << 126) - 1) / un;
  std::vector<std::string> out{std::string(kMinEpk)};
  for (unsigned i = 1; i < un; ++i) {
    if (def.kind == "MultiHash" || def.version >= 2) {
      // i steps round the ring, written as a V2 EPK: 32 hex digits, high half first.
      const U128 v = step * i;
      char buf[33];
      std::snprintf(buf, sizeof buf, "%016llX%016llX", static_cast<unsigned long long>(v >> 64),
                    static_cast<unsigned long long>(v));
      out.emplace_back(buf);
    } else {
      // floor((2^32 - 1) * i / n), encoded as V1 writes the hash (the service's boundaries).
      std::string bytes;
      AppendEncodedNumber(bytes, static_cast<double>(0xFFFFFFFFull * i / un));
      out.push_back(HexUpper(bytes));
    }
  }
  out.emplace_back(kMaxEpk);
  return out;
}

std::optional<std::string> SplitPoint(const PartitionKeyDefinition& def, std::string_view min, std::string_view max) {
  if (def.kind == "Range") return std::nullopt;
  __extension__ typedef unsigned __int128 U128;
  if (def.kind == "MultiHash" || def.version >= 2) {
    // A boundary is 32 hex digits (the first component's, for MultiHash); the ring ends at 2^126.
    auto value = [](std::string_view hex) -> std::optional<U128> {
      if (hex.size() > 32) hex = hex.substr(0, 32);
      U128 v = 0;
      for (size_t i = 0; i < 32; ++i) {
        const char c = i < hex.size() ? hex[i] : '0';
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) return std::nullopt;
        v = (v << 4) | static_cast<U128>(d);
      }
      return v;
    };
    const U128 top = (static_cast<U128>(1) << 126) - 1;  // as RangeBoundaries divides the ring
    auto lo = min.empty() ? std::optional<U128>(0) : value(min);
    auto hi = max == kMaxEpk ? std::optional<U128>(top) : value(max);
    if (!lo || !hi || *hi <= *lo) return std::nullopt;
    const U128 mid = *lo + (*hi - *lo) / 2;
    if (mid <= *lo) return std::nullopt;
    char buf[33];
    std::snprintf(buf, sizeof buf, "%016llX%016llX", static_cast<unsigned long long>(mid >> 64),
                  static_cast<unsigned long long>(mid));
    return std::string(buf);
  }
  // V1: boundaries are hash values (0 .. 2^32) in the order-preserving number encoding; the value
  // of one is found by bisection over what encodes at or above it.
  auto encode = [](uint64_t v) {
    std::string bytes;
    AppendEncodedNumber(bytes, static_cast<double>(v));
    return HexUpper(bytes);
  };
  auto value = [&](std::string_view hex) {
    uint64_t lo = 0, hi = 1ull << 32;
    while (lo < hi) {
      const uint64_t m = lo + (hi - lo) / 2;
      if (encode(m) < hex) lo = m + 1; else hi = m;
    }
    return lo;
  };
  const uint64_t lo = min.empty() ? 0 : value(min);
  const uint64_t hi = max == kMaxEpk ? (1ull << 32) - 1 : value(max);
  const uint64_t mid = lo + (hi - lo) / 2;
  if (hi <= lo || mid <= lo) return std::nullopt;
  std::string at = encode(mid);
  if (!(std::string_view(at) > min && std::string_view(at) < max)) return std::nullopt;
  return at;
}

}  // namespace cosmos::store
