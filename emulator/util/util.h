// Small shared helpers: encodings, hashing, time and identifiers. No Cosmos concepts here.
#pragma once

#include <array>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cosmos::util {

std::string Base64Encode(std::string_view bytes);
// Returns nullopt on malformed input.
std::optional<std::string> Base64Decode(std::string_view text);

// HMAC-SHA256 of `message` under `key`, raw 32 bytes.
std::string HmacSha256(std::string_view key, std::string_view message);

// True when the two strings are equal, in time independent of where they differ.
bool ConstantTimeEqual(std::string_view a, std::string_view b);

// The value of a hexadecimal digit (either case), or -1.
int HexValue(char c);

// Percent-decoding only: '+' stays '+'. Returns nullopt on a malformed escape.
std::optional<std::string> PercentDecode(std::string_view s);
// Encodes everything but unreserved characters (RFC 3986).
std::string PercentEncode(std::string_view s);

std::string ToLower(std::string_view s);
bool EqualsIgnoreCase(std::string_view a, std::string_view b);
// The pieces of `s` between separators (an empty string gives one empty piece).
std::vector<std::string_view> Split(std::string_view s, char separator);
// `s` without leading and trailing spaces and tabs.
std::string_view Trim(std::string_view s);

// RFC 1123 dates, e.g. "Sat, 21 Nov 2026 05:28:38 GMT" (case-insensitive when parsing). Parsing gives
// seconds since 1970 rather than a clock time point: any four-digit year is valid, and years past 2262
// do not fit the system clock's nanoseconds.
std::optional<int64_t> ParseRfc1123(std::string_view s);
std::string FormatRfc1123(std::chrono::system_clock::time_point t);
std::string FormatRfc1123(int64_t unix_seconds);

// Random version-4 UUID text.
std::string NewUuid();
// A UUID's 16 bytes in the order its text spells them, read from its 36-character form
// (8-4-4-4-12 hexadecimal digits, either case; nullopt for anything else) and written back in that
// form in lower case.
using UuidBytes = std::array<uint8_t, 16>;
std::optional<UuidBytes> ParseUuid(std::string_view text);
std::string FormatUuid(const UuidBytes& bytes);

// The integer a whole string spells (decimal, optional '-' for signed types); nullopt when the
// text is empty, has anything else in it, or is out of the type's range.
template <typename T>
std::optional<T> ParseInteger(std::string_view text) {
  T v{};
  auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ec != std::errc() || r.ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

int64_t UnixSeconds();
// Milliseconds since the Unix epoch (the instant date-time query functions see).
int64_t UnixMillis();

// Decodes the UTF-8 code point at s[i] and advances i; a malformed sequence gives U+FFFD for one byte.
char32_t DecodeUtf8(std::string_view s, size_t& i);
// Appends the UTF-8 encoding of a code point.
void AppendUtf8(std::string& out, char32_t cp);
// Whether every byte of `s` is below 0x80 (read eight bytes at a time).
bool IsAscii(std::string_view s);

// Requests a server answers on its I/O thread must not wait (for a transaction, a lock held for
// long): code that would wait checks MayBlock first and, on such a thread, throws WouldBlock
// before it has changed anything, and the server runs the request again on a worker.
struct WouldBlock {};
bool MayBlock();
class NoWaitScope {  // MayBlock() is false on this thread while one lives
 public:
  NoWaitScope();
  ~NoWaitScope();
  NoWaitScope(const NoWaitScope&) = delete;
  NoWaitScope& operator=(const NoWaitScope&) = delete;

 private:
  bool previous_;
};

// A hint to the processor inside a loop that waits for another thread (a spin before a lock).
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace cosmos::util
