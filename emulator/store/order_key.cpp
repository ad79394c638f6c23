#include "store/order_key.h"

#include <bit>
#include <cmath>

namespace cosmos::store {
namespace {

void Put(std::string& out, OrderTag tag) { out.push_back(static_cast<char>(tag)); }

void PutBigEndian(std::string& out, uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<char>((v >> shift) & 0xFF));
}

void PutStringBody(std::string& out, std::string_view s) {
  for (char c : s) {
    out.push_back(c);
    if (c == '\0') out.push_back('\xFF');
  }
}

void PutStringEnd(std::string& out) {
  out.push_back('\0');
  out.push_back('\0');
}

// 2^53: from here on not every integer is a double.
constexpr double kExactLimit = 9007199254740992.0;

void PutNumber(std::string& out, const json::Value& v) {
  double d = v.GetDouble();
  if (d == 0) d = 0;  // -0 orders as 0
  uint64_t bits = std::bit_cast<uint64_t>(d);
  bits = (bits & (1ull << 63)) != 0 ? ~bits : bits | (1ull << 63);
  Put(out, OrderTag::kNumber);
  PutBigEndian(out, bits);
  if (!(std::fabs(d) >= kExactLimit)) return;
  if (v.IsInt64()) {
    out.push_back('\x00');
    PutBigEndian(out, static_cast<uint64_t>(v.GetInt64()) ^ (1ull << 63));
  } else if (v.IsUint64()) {  // above INT64_MAX
    out.push_back('\x01');
    PutBigEndian(out, v.GetUint64());
  }
}

void Append(std::string& out, const json::Value& v) {
  switch (v.GetType()) {
    case rapidjson::kNullType: Put(out, OrderTag::kNull); return;
    case rapidjson::kFalseType: Put(out, OrderTag::kFalse); return;
    case rapidjson::kTrueType: Put(out, OrderTag::kTrue); return;
    case rapidjson::kNumberType: PutNumber(out, v); return;
    case rapidjson::kStringType:
      Put(out, OrderTag::kString);
      PutStringBody(out, {v.GetString(), v.GetStringLength()});
      PutStringEnd(out);
      return;
    case rapidjson::kArrayType:
      Put(out, OrderTag::kArray);
      for (const auto& e : v.GetArray()) Append(out, e);
      out.push_back('\0');
      return;
    case rapidjson::kObjectType:
      Put(out, OrderTag::kObject);
      for (const auto& m : v.GetObject()) {
        out.push_back('\x01');
        PutStringBody(out, {m.name.GetString(), m.name.GetStringLength()});
        PutStringEnd(out);
        Append(out, m.value);
      }
      out.push_back('\0');
      return;
  }
}

}  // namespace

void AppendOrderKey(std::string& out, const json::Value* v) {
  if (v == nullptr) {
    Put(out, OrderTag::kUndefined);
    return;
  }
  Append(out, *v);
}

std::string StringPrefixKey(std::string_view prefix) {
  std::string k;
  Put(k, OrderTag::kString);
  PutStringBody(k, prefix);
  return k;
}

}  // namespace cosmos::store
