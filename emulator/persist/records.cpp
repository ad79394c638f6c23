#include "persist/records.h"

namespace cosmos::persist::records {

const json::Value& Member(const json::Value& v, const char* key) {
  if (!v.IsObject()) throw Unreadable(std::string("expected an object holding \"") + key + "\"");
  auto it = v.FindMember(key);
  if (it == v.MemberEnd()) throw Unreadable(std::string("\"") + key + "\" is missing");
  return it->value;
}
std::string GetStr(const json::Value& v, const char* key) {
  const auto& m = Member(v, key);
  if (!m.IsString()) throw Unreadable(std::string("\"") + key + "\" is not a string");
  return std::string(m.GetString(), m.GetStringLength());
}
int64_t GetInt(const json::Value& v, const char* key) {
  const auto& m = Member(v, key);
  if (!m.IsInt64()) throw Unreadable(std::string("\"") + key + "\" is not an integer");
  return m.GetInt64();
}

uint64_t GetU64(const json::Value& v, const char* key) {
  const auto& m = Member(v, key);
  if (!m.IsUint64()) throw Unreadable(std::string("\"") + key + "\" is not an unsigned integer");
  return m.GetUint64();
}
bool GetBool(const json::Value& v, const char* key, bool otherwise) {
  auto it = v.FindMember(key);
  if (it == v.MemberEnd()) return otherwise;
  if (!it->value.IsBool()) throw Unreadable(std::string("\"") + key + "\" is not a boolean");
  return it->value.GetBool();
}

}  // namespace cosmos::persist::records
