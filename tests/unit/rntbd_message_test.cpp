// RNTBD's wire codec against the bytes the Java SDK 4.81.0 writes and reads (the examples of
// docs/direct-mode.md's protocol notes), every token type through an encode and a decode, and the
// malformed frames the decoder must refuse with FrameError.
#include "rntbd/message.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "rntbd/constants.h"

namespace cosmos::rntbd {
namespace {

// Bytes from hex digits (spaces ignored).
std::string Hex(std::string_view hex) {
  std::string out;
  int hi = -1;
  for (char c : hex) {
    if (c == ' ' || c == '\n') continue;
    const int v = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
    if (hi < 0) {
      hi = v;
    } else {
      out.push_back(static_cast<char>(hi << 4 | v));
      hi = -1;
    }
  }
  return out;
}

const std::string kActivityText = "00112233-4455-6677-8899-aabbccddeeff";
const std::string kActivityWire = Hex("33 22 11 00 55 44 77 66 88 99 aa bb cc dd ee ff");

Guid ActivityId() { return *ParseGuid(kActivityText); }

// A request head frame (Document, Create, activity id 0) around `tokens`, its length counting itself.
std::string Head(const std::string& tokens) {
  const uint32_t n = static_cast<uint32_t>(24 + tokens.size());
  std::string out{static_cast<char>(n & 0xFF), static_cast<char>(n >> 8 & 0xFF), static_cast<char>(n >> 16 & 0xFF),
                  static_cast<char>(n >> 24)};
  return out + Hex("03 00 01 00") + std::string(16, '\0') + tokens;
}

template <class F>
bool ThrowsFrameError(F f) {
  try {
    f();
  } catch (const FrameError&) {
    return true;
  }
  return false;
}

void ExpectToken(const Token& t, uint16_t id, TokenType type, int64_t integer) {
  EXPECT_EQ(t.id, id);
  EXPECT_EQ(t.type, type) << "token " << id;
  EXPECT_EQ(t.integer, integer) << "token " << id;
}

void ExpectToken(const Token& t, uint16_t id, TokenType type, const std::string& bytes) {
  EXPECT_EQ(t.id, id);
  EXPECT_EQ(t.type, type) << "token " << id;
  EXPECT_EQ(t.bytes, bytes) << "token " << id;
}

const std::string kUserAgent = "azsdk-java-cosmos/4.81.0 Linux/6.18.44-fc-v782 JRE/17.0.15";  // 58 bytes

TEST(RntbdMessage, ContextRequestDecodes) {
  const std::string bytes = Hex("6b 00 00 00 00 00 00 00") + kActivityWire + Hex("00 00 02 01 00 00 00") +
                            Hex("01 00 07 0a") + "2020-07-15" + Hex("02 00 07 3a") + kUserAgent;
  ASSERT_EQ(bytes.size(), 107u);
  EXPECT_EQ(HeadLength(bytes.substr(0, 4)), 107u);
  const Request r = DecodeRequestHead(bytes);
  EXPECT_EQ(r.resource_type, kConnectionType);
  EXPECT_EQ(r.operation_type, kConnectionType);
  EXPECT_EQ(GuidText(r.activity_id), kActivityText);
  ASSERT_EQ(r.tokens.list.size(), 3u);
  ExpectToken(r.tokens.list[0], context_token::kProtocolVersion, TokenType::kULong, 1);
  ExpectToken(r.tokens.list[1], context_token::kClientVersion, TokenType::kSmallString, "2020-07-15");
  ExpectToken(r.tokens.list[2], context_token::kUserAgent, TokenType::kSmallString, kUserAgent);
  // Token 2 is the user agent here, not PayloadPresent: a string has no integer value.
  EXPECT_FALSE(HasPayload(r));
  // The encoder adds no PayloadPresent to a context request: the same bytes again.
  EXPECT_EQ(Encode(r), bytes);
}

TEST(RntbdMessage, ContextAnswerEncodesExactly) {
  Response answer;
  answer.activity_id = ActivityId();
  answer.context = true;
  answer.tokens.list = {Token::ULong(context_token::kProtocolVersion, 1),
                        Token::SmallString(context_token::kServerAgent, "RNTBD-Server"),
                        Token::SmallString(context_token::kServerVersion, "2.14.0.0")};
  const std::string expected = Hex("3b 00 00 00 c8 00 00 00") + kActivityWire + Hex("00 00 02 01 00 00 00") +
                               Hex("02 00 07 0c") + "RNTBD-Server" + Hex("03 00 07 08") + "2.14.0.0";
  ASSERT_EQ(expected.size(), 59u);
  EXPECT_EQ(Encode(answer), expected);

  const Response back = DecodeResponse(expected);
  EXPECT_TRUE(back.context);
  EXPECT_EQ(back.status, 200u);
  EXPECT_FALSE(back.body);
  ASSERT_EQ(back.tokens.list.size(), 3u);
  ExpectToken(back.tokens.list[2], context_token::kServerVersion, TokenType::kSmallString, "2.14.0.0");
}

TEST(RntbdMessage, ContextRefusalCarriesItsBody) {
  Response refusal;
  refusal.status = 400;
  refusal.context = true;
  refusal.body = R"({"code":"BadRequest","message":"nope"})";
  const std::string bytes = Encode(refusal);
  EXPECT_EQ(bytes.size(), 24 + 4 + refusal.body->size());
  const Response back = DecodeResponse(bytes);
  EXPECT_TRUE(back.context);
  EXPECT_EQ(back.body, refusal.body);
  EXPECT_TRUE(back.tokens.list.empty());
}

// The Create request of the protocol notes (§3.1), 260 bytes.
std::string CreateRequest() {
  return Hex("f6 00 00 00 03 00 01 00") + kActivityWire +                                     //
         Hex("01 00 08 25 00") + "type%3dmaster%26ver%3d1.0%26sig%3dabc" +                   //
         Hex("02 00 00 01") + Hex("03 00 07 1d") + "Tue, 01 Jul 2025 00:00:00 GMT" +          //
         Hex("04 00 02 ff ff ff ff") + Hex("05 00 08 06 00") + "0:-1#5" +                      //
         Hex("10 00 00 02") + Hex("13 00 08 30 00") + "/apps/a1/services/s1/partitions/p1/replicas/123p" +
         Hex("15 00 08 03 00") + "db1" + Hex("16 00 08 02 00") + "c1" +                        //
         Hex("28 00 07 0a") + "2020-07-15" + Hex("2b 00 08 07 00") + R"(["pk1"])" +           //
         Hex("35 00 08 04 00") + "abc=" + Hex("4d 00 02 01 00 00 00") + Hex("82 00 00 01") +  //
         Hex("a2 00 02 01 00 00 00") + Hex("0a 00 00 00") + R"({"id":"x"})";
}

TEST(RntbdMessage, CreateRequestDecodes) {
  const std::string bytes = CreateRequest();
  ASSERT_EQ(bytes.size(), 260u);
  const uint32_t head_size = HeadLength(bytes.substr(0, 4));
  ASSERT_EQ(head_size, 246u);
  Request r = DecodeRequestHead(bytes.substr(0, head_size));
  EXPECT_EQ(r.resource_type, resource::kDocument);
  EXPECT_EQ(r.operation_type, operation::kCreate);
  EXPECT_EQ(GuidText(r.activity_id), kActivityText);
  const auto& t = r.tokens.list;
  ASSERT_EQ(t.size(), 15u);
  namespace rt = request_token;
  ExpectToken(t[0], rt::kAuthorizationToken, TokenType::kString, "type%3dmaster%26ver%3d1.0%26sig%3dabc");
  ExpectToken(t[1], rt::kPayloadPresent, TokenType::kByte, 1);
  ExpectToken(t[2], rt::kDate, TokenType::kSmallString, "Tue, 01 Jul 2025 00:00:00 GMT");
  ExpectToken(t[3], rt::kPageSize, TokenType::kULong, 0xFFFFFFFF);  // zero-extended
  ExpectToken(t[4], rt::kSessionToken, TokenType::kString, "0:-1#5");
  ExpectToken(t[5], rt::kConsistencyLevel, TokenType::kByte, 2);
  ExpectToken(t[6], rt::kReplicaPath, TokenType::kString, "/apps/a1/services/s1/partitions/p1/replicas/123p");
  ExpectToken(t[7], rt::kDatabaseName, TokenType::kString, "db1");
  ExpectToken(t[8], rt::kCollectionName, TokenType::kString, "c1");
  ExpectToken(t[9], rt::kClientVersion, TokenType::kSmallString, "2020-07-15");
  ExpectToken(t[10], rt::kPartitionKey, TokenType::kString, R"(["pk1"])");
  ExpectToken(t[11], rt::kCollectionRid, TokenType::kString, "abc=");
  ExpectToken(t[12], rt::kTransportRequestID, TokenType::kULong, 1);
  ExpectToken(t[13], rt::kReturnPreference, TokenType::kByte, 1);
  ExpectToken(t[14], rt::kSDKSupportedCapabilities, TokenType::kULong, 1);
  ASSERT_TRUE(HasPayload(r));
  const uint32_t body_size = BodyLength(bytes.substr(head_size, 4), 2u << 20);
  ASSERT_EQ(body_size, 10u);
  r.body = bytes.substr(head_size + 4, body_size);
  EXPECT_EQ(*r.body, R"({"id":"x"})");
  EXPECT_EQ(r.tokens.Find(rt::kDatabaseName)->bytes, "db1");
  // The caller's PayloadPresent stays where it was: the same 260 bytes again.
  EXPECT_EQ(Encode(r), bytes);
}

TEST(RntbdMessage, CreatedResponseEncodesExactly) {
  Response response;
  response.status = 201;
  response.activity_id = ActivityId();
  namespace rt = response_token;
  response.tokens.list = {Token::LongLong(rt::kLSN, 5), Token::Double(rt::kRequestCharge, 1.0),
                          Token::String(rt::kPartitionKeyRangeId, "0"), Token::ULong(rt::kTransportRequestID, 1),
                          Token::String(rt::kSessionToken, "-1#5")};
  response.body = R"({"id":"x"})";
  const std::string expected = Hex(R"(48 00 00 00 c9 00 00 00 33 22 11 00 55 44 77 66 88 99 aa bb cc dd ee ff
      00 00 00 01
      13 00 05 05 00 00 00 00 00 00 00
      15 00 0e 00 00 00 00 00 00 f0 3f
      21 00 08 01 00 30
      35 00 02 01 00 00 00
      3e 00 08 04 00 2d 31 23 35
      0a 00 00 00 7b 22 69 64 22 3a 22 78 22 7d)");
  ASSERT_EQ(expected.size(), 86u);
  EXPECT_EQ(Encode(response), expected);

  const Response back = DecodeResponse(expected);
  EXPECT_FALSE(back.context);
  EXPECT_EQ(back.status, 201u);
  EXPECT_EQ(back.activity_id, response.activity_id);
  EXPECT_EQ(back.body, response.body);
  ASSERT_EQ(back.tokens.list.size(), 6u);
  ExpectToken(back.tokens.list[0], rt::kPayloadPresent, TokenType::kByte, 1);
  EXPECT_EQ(back.tokens.Find(rt::kRequestCharge)->real, 1.0);
  ExpectToken(*back.tokens.Find(rt::kSessionToken), rt::kSessionToken, TokenType::kString, "-1#5");
  // The decoded answer encodes to itself (its PayloadPresent is not written twice).
  EXPECT_EQ(Encode(back), expected);
}

TEST(RntbdMessage, ResponseWithoutBodySaysSo) {
  Response response;
  response.status = 404;
  response.tokens.list = {Token::ULong(response_token::kTransportRequestID, 9)};
  const std::string bytes = Encode(response);
  EXPECT_EQ(bytes, Hex("23 00 00 00 94 01 00 00") + std::string(16, '\0') + Hex("00 00 00 00 35 00 02 09 00 00 00"));
  const Response back = DecodeResponse(bytes);
  EXPECT_FALSE(back.body);
  EXPECT_FALSE(back.context);
  // An empty body is a body: PayloadPresent 1 and a frame of length 0.
  response.body = "";
  EXPECT_EQ(DecodeResponse(Encode(response)).body, "");
}

TEST(RntbdMessage, GuidInDotNetOrder) {
  const std::optional<Guid> g = ParseGuid(kActivityText);
  ASSERT_TRUE(g);
  EXPECT_EQ(std::string(g->begin(), g->end()), kActivityWire);
  EXPECT_EQ(GuidText(*g), kActivityText);
  EXPECT_EQ(ParseGuid("00112233-4455-6677-8899-AABBCCDDEEFF"), g);  // upper case is read, written lower
  EXPECT_EQ(GuidText(Guid{}), "00000000-0000-0000-0000-000000000000");
  EXPECT_FALSE(ParseGuid(""));
  EXPECT_FALSE(ParseGuid("00112233-4455-6677-8899-aabbccddeef"));
  EXPECT_FALSE(ParseGuid("00112233-4455-6677-8899-aabbccddeeff0"));
  EXPECT_FALSE(ParseGuid("00112233x4455-6677-8899-aabbccddeeff"));
  EXPECT_FALSE(ParseGuid("0011223g-4455-6677-8899-aabbccddeeff"));
  EXPECT_FALSE(ParseGuid("{0112233-4455-6677-8899-aabbccddeef}"));
}

TEST(RntbdMessage, FindReturnsTheLastOfARepeatedId) {
  Tokens tokens;
  tokens.list = {Token::ULong(7, 1), Token::Byte(8, 2), Token::ULong(7, 3)};
  EXPECT_EQ(tokens.Find(7)->integer, 3);
  EXPECT_EQ(tokens.Find(8)->integer, 2);
  EXPECT_EQ(tokens.Find(9), nullptr);
}

Token Make(uint16_t id, TokenType type, int64_t integer, double real = 0, std::string bytes = {}) {
  return Token{id, type, integer, real, std::move(bytes)};
}

TEST(RntbdMessage, EveryTokenTypeRoundTrips) {
  std::string binary = Hex("00 01 ff 7f 80 00");
  const std::vector<Token> tokens = {
      Make(0x10, TokenType::kByte, 0xFF),
      Make(0x11, TokenType::kUShort, 0xFFFF),
      Make(0x12, TokenType::kULong, 0xFFFFFFFF),
      Make(0x13, TokenType::kLong, -2),
      Make(0x14, TokenType::kULongLong, -1),  // 0xFFFFFFFFFFFFFFFF, kept as its bit pattern
      Make(0x15, TokenType::kLongLong, std::numeric_limits<int64_t>::min()),
      Make(0x16, TokenType::kGuid, 0, 0, kActivityWire),
      Make(0x17, TokenType::kSmallString, 0, 0, std::string(255, 's')),
      Make(0x18, TokenType::kString, 0, 0, std::string(65535, 'S')),
      Make(0x19, TokenType::kULongString, 0, 0, std::string(70000, 'L')),
      Make(0x1A, TokenType::kSmallBytes, 0, 0, binary),
      Make(0x1B, TokenType::kBytes, 0, 0, ""),
      Make(0x1C, TokenType::kULongBytes, 0, 0, binary + binary),
      Make(0x1D, TokenType::kFloat, 0, -1.5),
      Make(0x1E, TokenType::kDouble, 0, 0.1),
      Make(0xFFFF, TokenType::kInvalid, 0),
  };
  Request request;
  request.resource_type = resource::kDocument;
  request.operation_type = operation::kUpsert;
  request.activity_id = ActivityId();
  request.tokens.list = tokens;
  request.body = "body";
  const std::string bytes = Encode(request);
  const uint32_t head_size = HeadLength(bytes);
  const Request back = DecodeRequestHead(std::string_view(bytes).substr(0, head_size));
  EXPECT_EQ(back.resource_type, resource::kDocument);
  EXPECT_EQ(back.operation_type, operation::kUpsert);
  EXPECT_EQ(back.activity_id, request.activity_id);
  // The encoder put PayloadPresent first.
  ASSERT_EQ(back.tokens.list.size(), tokens.size() + 1);
  ExpectToken(back.tokens.list[0], request_token::kPayloadPresent, TokenType::kByte, 1);
  for (size_t i = 0; i < tokens.size(); ++i) {
    const Token& got = back.tokens.list[i + 1];
    EXPECT_EQ(got.id, tokens[i].id);
    EXPECT_EQ(got.type, tokens[i].type);
    EXPECT_EQ(got.integer, tokens[i].integer) << "token " << got.id;
    EXPECT_EQ(got.real, tokens[i].real) << "token " << got.id;
    EXPECT_EQ(got.bytes, tokens[i].bytes) << "token " << got.id;
  }
  EXPECT_TRUE(HasPayload(back));
  EXPECT_EQ(BodyLength(std::string_view(bytes).substr(head_size, 4), 4), 4u);
  EXPECT_EQ(bytes.substr(head_size + 4), "body");
  EXPECT_EQ(bytes.size(), head_size + 8u);
}

TEST(RntbdMessage, FixedWidthValuesOnTheWire) {
  Request request;
  request.resource_type = resource::kDocument;
  request.operation_type = operation::kRead;
  request.tokens.list = {Make(1, TokenType::kLong, -2), Make(2, TokenType::kUShort, 0x1234),
                         Make(3, TokenType::kFloat, 0, 1.0), Make(4, TokenType::kInvalid, 0)};
  // Token 2 is the caller's: no PayloadPresent is added (nor a body frame: there is no body).
  EXPECT_EQ(Encode(request).substr(24), Hex("01 00 03 fe ff ff ff  02 00 01 34 12  03 00 0d 00 00 80 3f  04 00 ff"));
  // A double too large for a float is its infinity (after the PayloadPresent the encoder adds).
  request.tokens.list = {Make(1, TokenType::kFloat, 0, -1e300)};
  EXPECT_EQ(Encode(request).substr(24), Hex("02 00 00 00  01 00 0d 00 00 80 ff"));
  // Without one, PayloadPresent 0.
  request.tokens.list = {};
  EXPECT_EQ(Encode(request), Hex("1c 00 00 00 03 00 03 00") + std::string(16, '\0') + Hex("02 00 00 00"));
}

TEST(RntbdMessage, EncodeRefusesAValueItsTypeCannotCarry) {
  Response response;
  response.tokens.list = {Token::String(response_token::kContinuationToken, std::string(65536, 'c'))};
  EXPECT_THROW(Encode(response), std::length_error);
  response.tokens.list = {Token::SmallString(response_token::kSchemaVersion, std::string(256, 'v'))};
  EXPECT_THROW(Encode(response), std::length_error);
  response.tokens.list = {Make(response_token::kCorrelatedActivityId, TokenType::kGuid, 0, 0, "short")};
  EXPECT_THROW(Encode(response), std::length_error);
  response.tokens.list = {Token::String(response_token::kContinuationToken, std::string(65535, 'c'))};
  EXPECT_EQ(Encode(response).size(), 24u + 4 + 5 + 65535);
}

TEST(RntbdMessage, HeadLengthOutOfRangeIsAFrameError) {
  EXPECT_TRUE(ThrowsFrameError([] { HeadLength(Hex("17 00 00 00")); }));  // 23
  EXPECT_TRUE(ThrowsFrameError([] { HeadLength(Hex("00 00 00 00")); }));
  EXPECT_TRUE(ThrowsFrameError([] { HeadLength(Hex("01 00 10 00")); }));  // 1 MiB + 1
  EXPECT_TRUE(ThrowsFrameError([] { HeadLength(Hex("ff ff ff ff")); }));
  EXPECT_TRUE(ThrowsFrameError([] { HeadLength(Hex("18 00 00")); }));  // three bytes
  EXPECT_EQ(HeadLength(Hex("18 00 00 00")), 24u);
  EXPECT_EQ(HeadLength(Hex("00 00 10 00")), kMaxHeadFrame);
}

TEST(RntbdMessage, MalformedHeadIsAFrameError) {
  const auto bad = [](const std::string& head) { return ThrowsFrameError([&] { DecodeRequestHead(head); }); };
  EXPECT_FALSE(bad(Head(Hex("4d 00 02 01 00 00 00"))));
  EXPECT_TRUE(bad(Head(Hex("4d 00 02 01 00"))));              // a ULong with 2 of its 4 bytes
  EXPECT_TRUE(bad(Head(Hex("4d 00"))));                        // an id without its type
  EXPECT_TRUE(bad(Head(Hex("4d"))));                           // half an id
  EXPECT_TRUE(bad(Head(Hex("4d 00 10"))));                     // unknown type 0x10
  EXPECT_TRUE(bad(Head(Hex("4d 00 80 00 00 00 00"))));         // unknown type 0x80
  EXPECT_TRUE(bad(Head(Hex("4d 00 0f"))));                     // unknown type 0x0f
  EXPECT_TRUE(bad(Head(Hex("05 00 08 0a 00") + "abc")));       // a String of 10 with 3 bytes
  EXPECT_TRUE(bad(Head(Hex("05 00 07 04") + "abc")));          // a SmallString of 4 with 3
  EXPECT_TRUE(bad(Head(Hex("05 00 09 ff ff ff ff") + "abc")));  // a ULongString of 4 GiB
  EXPECT_TRUE(bad(Head(Hex("05 00 0c 04 00 00 00") + "abc")));  // ULongBytes
  EXPECT_TRUE(bad(Head(Hex("05 00 06") + std::string(15, 'g'))));  // a Guid of 15 bytes
  EXPECT_TRUE(bad(Head(Hex("05 00 0e 00 00 00 00 00 00 f0"))));   // a Double of 7
  // The length field disagreeing with the frame given.
  const std::string good = Head(Hex("4d 00 02 01 00 00 00"));
  EXPECT_TRUE(bad(good + "x"));
  EXPECT_TRUE(bad(good.substr(0, good.size() - 1)));
  EXPECT_TRUE(bad(good.substr(0, 3)));
  EXPECT_TRUE(bad(""));
}

TEST(RntbdMessage, BodyLengthOverTheLimitIsAFrameError) {
  const uint32_t max = 2u << 20;
  EXPECT_EQ(BodyLength(Hex("00 00 20 00"), max), max);
  EXPECT_EQ(BodyLength(Hex("00 00 00 00"), max), 0u);
  EXPECT_TRUE(ThrowsFrameError([&] { BodyLength(Hex("01 00 20 00"), max); }));
  EXPECT_TRUE(ThrowsFrameError([&] { BodyLength(Hex("ff ff ff ff"), max); }));
  EXPECT_TRUE(ThrowsFrameError([&] { BodyLength(Hex("00 00"), max); }));
}

TEST(RntbdMessage, MalformedResponseIsAFrameError) {
  Response response;
  response.tokens.list = {Token::ULong(response_token::kTransportRequestID, 1)};
  response.body = "{}";
  const std::string good = Encode(response);
  ASSERT_EQ(DecodeResponse(good).body, "{}");
  const auto bad = [](const std::string& m) { return ThrowsFrameError([&] { DecodeResponse(m); }); };
  EXPECT_TRUE(bad(good + "x"));                            // a stray byte
  EXPECT_TRUE(bad(good.substr(0, good.size() - 1)));       // the body cut short
  EXPECT_TRUE(bad(good.substr(0, good.size() - 6)));       // PayloadPresent 1 and no body frame
  EXPECT_TRUE(bad(good.substr(0, 20)));                    // the head cut short
  EXPECT_TRUE(bad(Hex("17 00 00 00") + std::string(19, '\0')));
  EXPECT_TRUE(bad(""));
  response.body.reset();
  EXPECT_TRUE(bad(Encode(response) + Hex("00 00 00 00")));  // PayloadPresent 0 and a body frame
}

}  // namespace
}  // namespace cosmos::rntbd
