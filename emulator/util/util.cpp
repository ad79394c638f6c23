#include "util/util.h"

#include <openssl/evp.h>
#include <openssl/core_names.h>
#include <openssl/hmac.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include <array>
#include <atomic>
#include <cctype>
#include <cstring>
#include <ctime>
#include <functional>
#include <random>
#include <thread>

namespace cosmos::util {

std::string Base64Encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3), '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

std::optional<std::string> Base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out(3 * text.size() / 4, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
  if (n < 0) return std::nullopt;
  size_t pad = 0;
  if (!text.empty() && text.back() == '=') ++pad;
  if (text.size() > 1 && text[text.size() - 2] == '=') ++pad;
  out.resize(static_cast<size_t>(n) - pad);
  return out;
}

namespace {

// OpenSSL 3's one-shot HMAC() looks the algorithm up in the provider store and keys a new context
// on every call, which cost more than the rest of a point read's authentication. Every request is
// signed with one of a handful of keys, so each thread keeps a context per key, keyed once and
// reset (EVP_MAC_init with no key keeps the key) for each message.
struct KeyedMac {
  std::string key;
  EVP_MAC_CTX* ctx = nullptr;
  KeyedMac() = default;
  KeyedMac(const KeyedMac&) = delete;
  KeyedMac& operator=(const KeyedMac&) = delete;
  ~KeyedMac() { EVP_MAC_CTX_free(ctx); }
};

EVP_MAC_CTX* MacFor(std::string_view key) {
  static EVP_MAC* const hmac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);  // for the life of the process
  if (hmac == nullptr) return nullptr;
  thread_local std::array<KeyedMac, 4> slots;  // master, secondary and the two read-only keys
  thread_local size_t next = 0;
  for (auto& slot : slots) {
    if (slot.ctx != nullptr && slot.key == key) return slot.ctx;
  }
  KeyedMac& slot = slots[next];
  next = (next + 1) % slots.size();
  EVP_MAC_CTX_free(slot.ctx);
  slot.ctx = EVP_MAC_CTX_new(hmac);
  slot.key.assign(key);
  char digest[] = "SHA256";
  const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                               OSSL_PARAM_construct_end()};
  if (slot.ctx == nullptr ||
      EVP_MAC_init(slot.ctx, reinterpret_cast<const unsigned char*>(key.data()), key.size(), params) != 1) {
    EVP_MAC_CTX_free(slot.ctx);
    slot.ctx = nullptr;
  }
  return slot.ctx;
}

}  // namespace

std::string HmacSha256(std::string_view key, std::string_view message) {
  unsigned char md[EVP_MAX_MD_SIZE];
  size_t len = 0;
  EVP_MAC_CTX* ctx = MacFor(key);
  if (ctx != nullptr && EVP_MAC_init(ctx, nullptr, 0, nullptr) == 1 &&
      EVP_MAC_update(ctx, reinterpret_cast<const unsigned char*>(message.data()), message.size()) == 1 &&
      EVP_MAC_final(ctx, md, &len, sizeof md) == 1)
    return std::string(reinterpret_cast<char*>(md), len);
  unsigned int one_shot = 0;  // the context could not be made: the one-shot form
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(message.data()),
       message.size(), md, &one_shot);
  return std::string(reinterpret_cast<char*>(md), one_shot);
}

bool ConstantTimeEqual(std::string_view a, std::string_view b) {
  // Length is not secret (signatures have a fixed size); contents are compared without early exit.
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<std::string> PercentDecode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out.push_back(s[i]);
      continue;
    }
    if (i + 2 >= s.size()) return std::nullopt;
    int hi = HexValue(s[i + 1]);
    int lo = HexValue(s[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

std::string PercentEncode(std::string_view s) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
  return out;
}

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string_view> Split(std::string_view s, char separator) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (;;) {
    size_t end = s.find(separator, start);
    if (end == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

namespace {
constexpr std::array<const char*, 7> kDays = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
constexpr std::array<const char*, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
}  // namespace

std::optional<int64_t> ParseRfc1123(std::string_view s) {
  // "Sat, 21 Nov 2026 05:28:38 GMT", or the same ending in "UTC" as Go's time.RFC1123 writes a UTC
  // time (the service's HTTP date parser takes both; the Go SDK sends it as If-Modified-Since).
  // The day has one or two digits (RFC 1123 keeps RFC 822's "1*2DIGIT"): Java's
  // DateTimeFormatter.RFC_1123_DATE_TIME writes "Tue, 1 Dec 2026 ...", read here as " 01".
  std::string padded;
  if (s.size() == 28 && s[4] == ' ' && std::isdigit(static_cast<unsigned char>(s[5])) && s[6] == ' ') {
    padded.reserve(29);
    padded.append(s.substr(0, 5)).append("0").append(s.substr(5));
    s = padded;
  }
  if (s.size() != 29) return std::nullopt;
  char t[29];  // lower-cased
  for (size_t i = 0; i < 29; ++i) t[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[i])));
  auto digits = [&](size_t pos, size_t n) -> int {
    int v = 0;
    for (size_t i = pos; i < pos + n; ++i) {
      if (!std::isdigit(static_cast<unsigned char>(t[i]))) return -1;
      v = v * 10 + (t[i] - '0');
    }
    return v;
  };
  if (t[3] != ',' || t[4] != ' ' || t[7] != ' ' || t[11] != ' ' || t[16] != ' ' || t[19] != ':' || t[22] != ':' ||
      (std::string_view(t + 25, 4) != " gmt" && std::string_view(t + 25, 4) != " utc"))
    return std::nullopt;
  int day = digits(5, 2), year = digits(12, 4), hh = digits(17, 2), mm = digits(20, 2), ss = digits(23, 2);
  int month = -1;
  for (int i = 0; i < 12; ++i) {
    if (EqualsIgnoreCase(std::string_view(t + 8, 3), kMonths[static_cast<size_t>(i)])) month = i;
  }
  if (day < 1 || day > 31 || year < 1970 || hh < 0 || hh > 23 || mm < 0 || mm > 59 || ss < 0 || ss > 60 || month < 0)
    return std::nullopt;
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month;
  tm.tm_mday = day;
  tm.tm_hour = hh;
  tm.tm_min = mm;
  tm.tm_sec = ss;
  return static_cast<int64_t>(timegm(&tm));
}

std::string FormatRfc1123(std::chrono::system_clock::time_point t) {
  return FormatRfc1123(static_cast<int64_t>(std::chrono::system_clock::to_time_t(t)));
}

std::string FormatRfc1123(int64_t unix_seconds) {
  const auto secs = static_cast<time_t>(unix_seconds);
  // Responses format the current second over and over: remember the last one per thread.
  thread_local time_t cached_secs = -1;
  thread_local std::string cached;
  if (secs == cached_secs) return cached;
  std::tm tm{};
  if (gmtime_r(&secs, &tm) == nullptr) tm = std::tm{};  // a year past int's range: zeros, not garbage
  char buf[40];
  std::snprintf(buf, sizeof buf, "%s, %02d %s %04d %02d:%02d:%02d GMT", kDays[static_cast<size_t>(tm.tm_wday)],
                tm.tm_mday, kMonths[static_cast<size_t>(tm.tm_mon)], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
                tm.tm_sec);
  cached_secs = secs;
  cached = buf;
  return cached;
}

std::optional<UuidBytes> ParseUuid(std::string_view text) {
  if (text.size() != 36) return std::nullopt;
  UuidBytes b{};
  size_t pos = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) {
      if (text[pos++] != '-') return std::nullopt;
    }
    const int hi = HexValue(text[pos++]);
    const int lo = HexValue(text[pos++]);
    if (hi < 0 || lo < 0) return std::nullopt;
    b[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return b;
}

std::string FormatUuid(const UuidBytes& b) {
  static constexpr char kHex[] = "0123456789abcdef";
  char buf[36];
  size_t n = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) buf[n++] = '-';
    buf[n++] = kHex[b[i] >> 4];
    buf[n++] = kHex[b[i] & 0x0F];
  }
  return std::string(buf, n);
}

std::string NewUuid() {
  // Activity ids need uniqueness, not secrecy: a per-thread generator, each seeded from one value
  // taken from OpenSSL once per process and the thread's own number. (Asking OpenSSL on every
  // thread made each worker's first request set up that thread's random generator: 3 ms, a fifth
  // of the first query after a seed of 1,000,000 items.)
  static const uint64_t process_seed = [] {
    uint64_t seed = 0;
    RAND_bytes(reinterpret_cast<unsigned char*>(&seed), sizeof seed);
    return seed;
  }();
  static std::atomic<uint64_t> threads{0};
  thread_local std::mt19937_64 rng = [] {
    // splitmix64 of the thread's number, so that neighbouring threads' seeds share no bits.
    uint64_t z = process_seed + (threads.fetch_add(1, std::memory_order_relaxed) + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return std::mt19937_64(z ^ (z >> 31));
  }();
  UuidBytes b;
  uint64_t hi = rng(), lo = rng();
  std::memcpy(b.data(), &hi, 8);
  std::memcpy(b.data() + 8, &lo, 8);
  b[6] = static_cast<uint8_t>((b[6] & 0x0F) | 0x40);
  b[8] = static_cast<uint8_t>((b[8] & 0x3F) | 0x80);
  return FormatUuid(b);
}

int64_t UnixSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

int64_t UnixMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool IsAscii(std::string_view s) {
  uint64_t highs = 0;
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, sizeof w);
    highs |= w;
  }
  for (; i < s.size(); ++i) highs |= static_cast<unsigned char>(s[i]);
  return (highs & 0x8080808080808080ull) == 0;
}

char32_t DecodeUtf8(std::string_view s, size_t& i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char b0 = byte(i);
  if (b0 < 0x80) {
    ++i;
    return b0;
  }
  int extra = b0 >= 0xF0 && b0 <= 0xF4 ? 3 : b0 >= 0xE0 && b0 < 0xF0 ? 2 : b0 >= 0xC2 && b0 < 0xE0 ? 1 : -1;
  if (extra < 0 || i + static_cast<size_t>(extra) >= s.size()) {  // bad lead byte or truncated sequence
    ++i;
    return 0xFFFD;
  }
  char32_t cp = b0 & (extra == 1 ? 0x1F : extra == 2 ? 0x0F : 0x07);
  for (int k = 1; k <= extra; ++k) {
    unsigned char b = byte(i + static_cast<size_t>(k));
    if ((b & 0xC0) != 0x80) {
      ++i;
      return 0xFFFD;
    }
    cp = (cp << 6) | (b & 0x3F);
  }
  static constexpr char32_t kMin[] = {0, 0x80, 0x800, 0x10000};
  if (cp < kMin[extra] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    ++i;
    return 0xFFFD;
  }
  i += static_cast<size_t>(extra) + 1;
  return cp;
}

void AppendUtf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}


namespace {
thread_local bool no_wait = false;
}  // namespace

bool MayBlock() { return !no_wait; }
NoWaitScope::NoWaitScope() : previous_(no_wait) { no_wait = true; }
NoWaitScope::~NoWaitScope() { no_wait = previous_; }

}  // namespace cosmos::util
