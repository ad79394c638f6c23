// Fuzz target: RNTBD's wire codec (emulator/rntbd/message.h) on bytes as a connection delivers
// them. The input is cut into requests the way the server reads a stream (the head frame's length,
// the head, PayloadPresent, the body frame's length and body); each request is encoded again and
// must decode to the same request. The whole input is also read as a response, which must encode
// and decode to itself. FrameError is the only exception the decoders may throw; anything else,
// a sanitizer report or a round trip that differs is a finding.
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "rntbd/message.h"

namespace {

using namespace cosmos::rntbd;

constexpr uint32_t kMaxBody = 2u << 20;  // the server's body limit
constexpr uint16_t kRequestPayloadPresent = 0x0002;

[[noreturn]] void Finding(const char* what) {
  std::fprintf(stderr, "fuzz finding: %s\n", what);
  std::fflush(stderr);
  std::raise(SIGABRT);
  std::_Exit(1);
}

bool SameToken(const Token& a, const Token& b) {
  // A float NaN may come back another NaN (widened to double and narrowed again).
  const bool same_real = a.real == b.real || (std::isnan(a.real) && std::isnan(b.real));
  return a.id == b.id && a.type == b.type && a.integer == b.integer && same_real && a.bytes == b.bytes;
}

bool SameTokens(const std::vector<Token>& a, const std::vector<Token>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!SameToken(a[i], b[i])) return false;
  }
  return true;
}

// `r` (decoded from the input) encoded, then decoded as the server would: the same request, with
// the PayloadPresent token the encoder adds to a request without one.
void CheckRequestRoundTrip(const Request& r, uint32_t head_size) {
  if (ParseGuid(GuidText(r.activity_id)) != r.activity_id) Finding("GUID text round trip");
  // The added PayloadPresent (4 bytes) could take a head at the limit over it.
  if (head_size > kMaxHeadFrame - 4) return;
  const std::string bytes = Encode(r);
  const std::string_view in(bytes);
  Request back;
  try {
    back = DecodeRequestHead(in.substr(0, HeadLength(in)));
  } catch (const FrameError& e) {
    Finding(e.what());
  }
  std::vector<Token> expected;
  const bool context = r.resource_type == kConnectionType && r.operation_type == kConnectionType;
  if (!context && !r.tokens.Find(kRequestPayloadPresent)) {
    expected.push_back(Token::Byte(kRequestPayloadPresent, r.body ? 1 : 0));
  }
  expected.insert(expected.end(), r.tokens.list.begin(), r.tokens.list.end());
  if (back.resource_type != r.resource_type || back.operation_type != r.operation_type ||
      back.activity_id != r.activity_id || !SameTokens(back.tokens.list, expected)) {
    Finding("request head round trip");
  }
  if (HasPayload(back) != r.body.has_value()) Finding("request PayloadPresent round trip");
  const std::string_view rest = in.substr(HeadLength(in));
  if (r.body) {
    if (rest.size() < 4 || BodyLength(rest, kMaxBody) != r.body->size() || rest.substr(4) != *r.body) {
      Finding("request body round trip");
    }
  } else if (!rest.empty()) {
    Finding("request without a body encoded with a body frame");
  }
}

// The input read as a stream of requests; stops at the first incomplete message.
void ReadRequests(std::string_view in) {
  while (in.size() >= 4) {
    const uint32_t head_size = HeadLength(in.substr(0, 4));
    if (in.size() < head_size) return;  // the server would wait for more
    Request r = DecodeRequestHead(in.substr(0, head_size));
    in.remove_prefix(head_size);
    if (HasPayload(r)) {
      if (in.size() < 4) return;
      const uint32_t n = BodyLength(in.substr(0, 4), kMaxBody);
      if (in.size() - 4 < n) return;
      r.body = std::string(in.substr(4, n));
      in.remove_prefix(4 + size_t{n});
    }
    CheckRequestRoundTrip(r, head_size);
  }
}

// The input read as one response: what decodes encodes to a message that decodes the same.
void ReadResponse(std::string_view in) {
  const Response r = DecodeResponse(in);
  Response back;
  try {
    back = DecodeResponse(Encode(r));
  } catch (const FrameError& e) {
    Finding(e.what());
  }
  if (back.status != r.status || back.activity_id != r.activity_id || back.context != r.context ||
      back.body != r.body || !SameTokens(back.tokens.list, r.tokens.list)) {
    Finding("response round trip");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  try {
    ReadRequests(in);
  } catch (const FrameError&) {
    // The connection would be closed.
  }
  try {
    ReadResponse(in);
  } catch (const FrameError&) {
  }
  return 0;
}
