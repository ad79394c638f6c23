// RNTBD, the binary request protocol of Cosmos DB's Direct mode (docs/direct-mode.md): messages,
// their tokens, and their encoding. A message is a head frame (its length, which counts itself;
// a request's resource and operation types or a response's status; a 16-byte activity id; then
// tokens, each an id, a type byte and a value) and, when its PayloadPresent token says so, a body
// frame (a length, which does not count itself, and the bytes). Integers are little-endian; a
// GUID is in .NET's byte order. This file knows the wire, not what the operations mean.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cosmos::rntbd {

// A frame that breaks the protocol (the connection that sent it is closed).
class FrameError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class TokenType : uint8_t {
  kByte = 0x00,
  kUShort = 0x01,
  kULong = 0x02,
  kLong = 0x03,
  kULongLong = 0x04,
  kLongLong = 0x05,
  kGuid = 0x06,
  kSmallString = 0x07,  // uint8 length
  kString = 0x08,       // uint16 length
  kULongString = 0x09,  // uint32 length
  kSmallBytes = 0x0A,   // uint8 length
  kBytes = 0x0B,        // uint16 length
  kULongBytes = 0x0C,   // uint32 length
  kFloat = 0x0D,
  kDouble = 0x0E,
  kInvalid = 0xFF,  // no value bytes
};

using Guid = std::array<uint8_t, 16>;  // as on the wire (.NET Guid.ToByteArray order)

struct Token {
  uint16_t id = 0;
  TokenType type = TokenType::kInvalid;
  // The value, by type: integer types in `integer` (signed types sign-extended), kFloat and
  // kDouble in `real`, kGuid and the string and byte types in `bytes` (a GUID's 16 wire bytes).
  int64_t integer = 0;
  double real = 0;
  std::string bytes;

  static Token Byte(uint16_t id, uint8_t v) { return Token{id, TokenType::kByte, v, 0, {}}; }
  static Token ULong(uint16_t id, uint32_t v) { return Token{id, TokenType::kULong, v, 0, {}}; }
  static Token LongLong(uint16_t id, int64_t v) { return Token{id, TokenType::kLongLong, v, 0, {}}; }
  static Token Double(uint16_t id, double v) { return Token{id, TokenType::kDouble, 0, v, {}}; }
  static Token String(uint16_t id, std::string v) { return Token{id, TokenType::kString, 0, 0, std::move(v)}; }
  static Token SmallString(uint16_t id, std::string v) {
    return Token{id, TokenType::kSmallString, 0, 0, std::move(v)};
  }
};

struct Tokens {
  std::vector<Token> list;
  // The last token with `id` (a repeated id overrides the earlier one), or null.
  const Token* Find(uint16_t id) const;
};

// The first message on every connection: resource and operation type 0 (Connection).
inline constexpr uint16_t kConnectionType = 0;

struct Request {
  uint16_t resource_type = 0;
  uint16_t operation_type = 0;
  Guid activity_id{};
  Tokens tokens;
  std::optional<std::string> body;  // present when the PayloadPresent token is not 0
};

struct Response {
  uint32_t status = 200;
  Guid activity_id{};
  Tokens tokens;
  // Written as a body frame when present; PayloadPresent (token 0) is added by the encoder
  // (1 with a body, 0 without) unless `context` is set: the context answer has neither.
  std::optional<std::string> body;
  bool context = false;
  // For the server, never written: close the connection instead of answering (a fault rule's
  // dropped connection), or wait this long before writing the answer (a delay rule).
  bool drop_connection = false;
  uint32_t delay_ms = 0;
};

// Head frames are bounded (tokens carry ids, keys, session and continuation tokens, not bodies).
inline constexpr uint32_t kHeadFrameSize = 24;          // length, two types or a status, activity id
inline constexpr uint32_t kMaxHeadFrame = 1u << 20;     // 1 MiB
// The length of the head frame whose first 4 bytes are `first4`; FrameError when it is below 24
// or above kMaxHeadFrame.
uint32_t HeadLength(std::string_view first4);

// A request's head frame, whole (its length prefix included). FrameError when a token runs past
// the frame, has an unknown type byte, or the frame's length disagrees with `head.size()`.
Request DecodeRequestHead(std::string_view head);
// True when the request's PayloadPresent token (id 0x0002) is set: a body frame follows.
bool HasPayload(const Request& head);
// The length of a body frame from its 4-byte prefix; FrameError above `max`.
uint32_t BodyLength(std::string_view first4, uint32_t max);

// The bytes of a response: its head frame and, with a body, the body frame.
std::string Encode(const Response& response);
// The bytes of a request (tests and the benchmark's client).
std::string Encode(const Request& request);
// A whole response message (tests, the benchmark's client): FrameError when malformed.
Response DecodeResponse(std::string_view message);

// The GUID's canonical text (lower case, 8-4-4-4-12) from its wire bytes, and back
// (nullopt when `text` is not one).
std::string GuidText(const Guid& guid);
std::optional<Guid> ParseGuid(std::string_view text);

}  // namespace cosmos::rntbd
