// RNTBD messages on the wire (message.h; the protocol: docs/direct-mode.md). The decoders run on
// what any client sends: every read is bounds-checked and the only exception they throw is
// FrameError. The encoders trust their caller but refuse a value its type cannot carry.
#include "rntbd/message.h"
#include "util/util.h"

#include <bit>
#include <cstring>
#include <limits>

namespace cosmos::rntbd {
namespace {

// The response token the encoder adds (response_token::kPayloadPresent in constants.h) and its
// request counterpart (request_token::kPayloadPresent): repeated here so that this file needs
// nothing but its header.
constexpr uint16_t kResponsePayloadPresent = 0x0000;
constexpr uint16_t kRequestPayloadPresent = 0x0002;

// Reads little-endian values from untrusted bytes; FrameError past the end.
class WireReader {
 public:
  explicit WireReader(std::string_view data) : data_(data) {}

  size_t Left() const { return data_.size() - pos_; }
  bool AtEnd() const { return pos_ == data_.size(); }

  std::string_view Take(size_t n) {
    if (n > Left()) throw FrameError("RNTBD frame truncated: " + std::to_string(n) + " bytes needed, " +
                                     std::to_string(Left()) + " left");
    std::string_view out = data_.substr(pos_, n);
    pos_ += n;
    return out;
  }
  // An unsigned little-endian integer of `n` bytes (n <= 8).
  uint64_t Unsigned(size_t n) {
    std::string_view b = Take(n);
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= uint64_t{static_cast<uint8_t>(b[i])} << (8 * i);
    return v;
  }
  uint8_t U8() { return static_cast<uint8_t>(Unsigned(1)); }
  uint16_t U16() { return static_cast<uint16_t>(Unsigned(2)); }
  uint32_t U32() { return static_cast<uint32_t>(Unsigned(4)); }
  uint64_t U64() { return Unsigned(8); }

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

void PutUnsigned(std::string& out, uint64_t v, size_t n) {
  for (size_t i = 0; i < n; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

uint32_t ReadLength(std::string_view first4) {
  if (first4.size() < 4) throw FrameError("RNTBD length prefix truncated");
  return WireReader(first4).U32();
}

// A string or byte token's value: its length (`width` bytes) and that many bytes.
std::string ReadCounted(WireReader& in, size_t width) {
  const uint64_t n = in.Unsigned(width);
  // Checked before anything is allocated: a 4-byte length can claim 4 GiB.
  if (n > in.Left()) throw FrameError("RNTBD token value runs past its frame");
  return std::string(in.Take(static_cast<size_t>(n)));
}

// One token's value, by its type byte (already read into `t.type`).
void ReadValue(WireReader& in, Token& t) {
  switch (t.type) {
    case TokenType::kByte: t.integer = in.U8(); return;
    case TokenType::kUShort: t.integer = in.U16(); return;
    case TokenType::kULong: t.integer = in.U32(); return;
    case TokenType::kLong: t.integer = static_cast<int32_t>(in.U32()); return;  // sign-extended
    case TokenType::kULongLong:  // the bit pattern, as the Java client reads it
    case TokenType::kLongLong: t.integer = static_cast<int64_t>(in.U64()); return;
    case TokenType::kGuid: t.bytes = std::string(in.Take(16)); return;
    case TokenType::kSmallString:
    case TokenType::kSmallBytes: t.bytes = ReadCounted(in, 1); return;
    case TokenType::kString:
    case TokenType::kBytes: t.bytes = ReadCounted(in, 2); return;
    case TokenType::kULongString:
    case TokenType::kULongBytes: t.bytes = ReadCounted(in, 4); return;
    case TokenType::kFloat: t.real = std::bit_cast<float>(in.U32()); return;
    case TokenType::kDouble: t.real = std::bit_cast<double>(in.U64()); return;
    case TokenType::kInvalid: return;  // no value bytes
  }
  // The client never sends 0x0F..0xFE (its own decoder misreads them: docs/direct-mode.md).
  throw FrameError("RNTBD token of unknown type " + std::to_string(static_cast<int>(t.type)));
}

// Tokens until the end of `in` (a token stream has no terminator).
Tokens ReadTokens(WireReader& in) {
  Tokens tokens;
  while (!in.AtEnd()) {
    Token t;
    t.id = in.U16();
    t.type = static_cast<TokenType>(in.U8());
    ReadValue(in, t);
    tokens.list.push_back(std::move(t));
  }
  return tokens;
}

// A string or byte value with its length in `width` bytes; std::length_error when it is longer
// than the width can say.
void PutCounted(std::string& out, const std::string& v, size_t width) {
  const uint64_t max = width == 4 ? std::numeric_limits<uint32_t>::max() : (uint64_t{1} << (8 * width)) - 1;
  if (v.size() > max) {
    throw std::length_error("RNTBD token value of " + std::to_string(v.size()) + " bytes exceeds its type's " +
                            std::to_string(max));
  }
  PutUnsigned(out, v.size(), width);
  out += v;
}

// A double as a float; out of range, the infinity of its sign (a plain conversion is undefined there).
float Narrow(double d) {
  if (d > std::numeric_limits<float>::max()) return std::numeric_limits<float>::infinity();
  if (d < std::numeric_limits<float>::lowest()) return -std::numeric_limits<float>::infinity();
  return static_cast<float>(d);
}

void PutValue(std::string& out, const Token& t) {
  const auto u = static_cast<uint64_t>(t.integer);  // fixed-width types keep their low bytes
  switch (t.type) {
    case TokenType::kByte: PutUnsigned(out, u, 1); return;
    case TokenType::kUShort: PutUnsigned(out, u, 2); return;
    case TokenType::kULong:
    case TokenType::kLong: PutUnsigned(out, u, 4); return;
    case TokenType::kULongLong:
    case TokenType::kLongLong: PutUnsigned(out, u, 8); return;
    case TokenType::kGuid:
      if (t.bytes.size() != 16) {
        throw std::length_error("RNTBD Guid token of " + std::to_string(t.bytes.size()) + " bytes");
      }
      out += t.bytes;
      return;
    case TokenType::kSmallString:
    case TokenType::kSmallBytes: PutCounted(out, t.bytes, 1); return;
    case TokenType::kString:
    case TokenType::kBytes: PutCounted(out, t.bytes, 2); return;
    case TokenType::kULongString:
    case TokenType::kULongBytes: PutCounted(out, t.bytes, 4); return;
    case TokenType::kFloat: PutUnsigned(out, std::bit_cast<uint32_t>(Narrow(t.real)), 4); return;
    case TokenType::kDouble: PutUnsigned(out, std::bit_cast<uint64_t>(t.real), 8); return;
    case TokenType::kInvalid: return;
  }
  throw std::invalid_argument("RNTBD token of unknown type " + std::to_string(static_cast<int>(t.type)));
}

void PutToken(std::string& out, const Token& t) {
  PutUnsigned(out, t.id, 2);
  PutUnsigned(out, static_cast<uint8_t>(t.type), 1);
  PutValue(out, t);
}

// `head` holds the head frame with 4 placeholder bytes first: they become its length, which counts
// itself. Then the body frame, when there is a body (its length does not count itself).
std::string FinishMessage(std::string head, const std::optional<std::string>& body) {
  if (head.size() > std::numeric_limits<uint32_t>::max()) throw std::length_error("RNTBD head frame over 4 GiB");
  std::string length;
  PutUnsigned(length, head.size(), 4);
  head.replace(0, 4, length);
  if (body) {
    if (body->size() > std::numeric_limits<uint32_t>::max()) throw std::length_error("RNTBD body over 4 GiB");
    PutUnsigned(head, body->size(), 4);
    head += *body;
  }
  return head;
}

bool HasToken(const Tokens& tokens, uint16_t id) { return tokens.Find(id) != nullptr; }

Guid ReadGuid(WireReader& in) {
  Guid g;
  std::memcpy(g.data(), in.Take(16).data(), 16);
  return g;
}

void PutGuid(std::string& out, const Guid& g) { out.append(reinterpret_cast<const char*>(g.data()), g.size()); }

// The wire position of the text's n-th byte in .NET's order: Data1 (text bytes 0..3), Data2 (4..5)
// and Data3 (6..7) are little-endian, the last eight bytes are as written. It is its own inverse.
constexpr size_t GuidWireIndex(size_t n) {
  if (n < 4) return 3 - n;
  if (n < 6) return 9 - n;
  if (n < 8) return 13 - n;
  return n;
}

}  // namespace

const Token* Tokens::Find(uint16_t id) const {
  for (auto it = list.rbegin(); it != list.rend(); ++it) {
    if (it->id == id) return &*it;
  }
  return nullptr;
}

uint32_t HeadLength(std::string_view first4) {
  const uint32_t n = ReadLength(first4);
  if (n < kHeadFrameSize) throw FrameError("RNTBD head frame length " + std::to_string(n) + " below 24");
  if (n > kMaxHeadFrame) throw FrameError("RNTBD head frame length " + std::to_string(n) + " over the limit");
  return n;
}

Request DecodeRequestHead(std::string_view head) {
  if (HeadLength(head) != head.size()) {
    throw FrameError("RNTBD head frame length disagrees with the " + std::to_string(head.size()) + " bytes given");
  }
  WireReader in(head);
  in.Take(4);  // the length, checked above
  Request r;
  r.resource_type = in.U16();
  r.operation_type = in.U16();
  r.activity_id = ReadGuid(in);
  r.tokens = ReadTokens(in);
  return r;
}

bool HasPayload(const Request& head) {
  // A PayloadPresent of a type without an integer value (never sent) reads as 0.
  const Token* t = head.tokens.Find(kRequestPayloadPresent);
  return t && t->integer != 0;
}

uint32_t BodyLength(std::string_view first4, uint32_t max) {
  const uint32_t n = ReadLength(first4);
  if (n > max) throw FrameError("RNTBD body length " + std::to_string(n) + " over " + std::to_string(max));
  return n;
}

std::string Encode(const Response& response) {
  std::string out(4, '\0');  // the length, filled in by FinishMessage
  PutUnsigned(out, response.status, 4);
  PutGuid(out, response.activity_id);
  // PayloadPresent first (its place in the service's answers), unless the caller wrote one.
  if (!response.context && !HasToken(response.tokens, kResponsePayloadPresent)) {
    PutToken(out, Token::Byte(kResponsePayloadPresent, response.body ? 1 : 0));
  }
  for (const Token& t : response.tokens.list) PutToken(out, t);
  return FinishMessage(std::move(out), response.body);
}

std::string Encode(const Request& request) {
  std::string out(4, '\0');
  PutUnsigned(out, request.resource_type, 2);
  PutUnsigned(out, request.operation_type, 2);
  PutGuid(out, request.activity_id);
  // Every request but the context request carries PayloadPresent (docs/direct-mode.md).
  const bool context = request.resource_type == kConnectionType && request.operation_type == kConnectionType;
  if (!context && !HasToken(request.tokens, kRequestPayloadPresent)) {
    PutToken(out, Token::Byte(kRequestPayloadPresent, request.body ? 1 : 0));
  }
  for (const Token& t : request.tokens.list) PutToken(out, t);
  return FinishMessage(std::move(out), request.body);
}

Response DecodeResponse(std::string_view message) {
  // A response's head frame may exceed a request's limit (the client accepts up to 2^31 - 1).
  const uint32_t head_size = ReadLength(message);
  if (head_size < kHeadFrameSize || head_size > message.size()) {
    throw FrameError("RNTBD response head length " + std::to_string(head_size) + " out of range");
  }
  WireReader in(message.substr(0, head_size));
  in.Take(4);
  Response r;
  r.status = in.U32();
  r.activity_id = ReadGuid(in);
  r.tokens = ReadTokens(in);
  // Token 0 is PayloadPresent (a Byte) in an answer to a request, and ProtocolVersion (a ULong) or
  // absent in the context answer, which has a body frame only when it refuses the connection.
  const Token* present = r.tokens.Find(kResponsePayloadPresent);
  r.context = !present || present->type != TokenType::kByte;
  WireReader rest(message.substr(head_size));
  const bool body = r.context ? !rest.AtEnd() : present->integer != 0;
  if (body) {
    const uint32_t n = rest.U32();
    if (n != rest.Left()) throw FrameError("RNTBD response body frame disagrees with the bytes after it");
    r.body = std::string(rest.Take(n));
  }
  if (!rest.AtEnd()) throw FrameError("RNTBD response followed by " + std::to_string(rest.Left()) + " stray bytes");
  return r;
}

std::string GuidText(const Guid& guid) {
  util::UuidBytes b;
  for (size_t n = 0; n < b.size(); ++n) b[n] = guid[GuidWireIndex(n)];
  return util::FormatUuid(b);
}

std::optional<Guid> ParseGuid(std::string_view text) {
  const auto b = util::ParseUuid(text);
  if (!b) return std::nullopt;
  Guid g{};
  for (size_t n = 0; n < g.size(); ++n) g[GuidWireIndex(n)] = (*b)[n];
  return g;
}

}  // namespace cosmos::rntbd
