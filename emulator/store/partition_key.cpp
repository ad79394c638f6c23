#include "store/partition_key.h"

#include <cctype>

#include "common/errors.h"

namespace cosmos::store {
namespace {

// The service's answer for a key path it cannot parse; `pos` is where parsing stopped (0-based).
CosmosError BadKeyPath(const std::string& path, size_t pos) {
  return errors::BadRequest("The partition key component definition path '" + path +
                            "' could not be accepted, failed near position '" + std::to_string(pos) +
                            "'. Partition key paths must contain only valid characters and not contain a trailing "
                            "slash or wildcard character.");
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// A character an unquoted property name may hold: letters, digits, '_', '-', and any non-ASCII
// byte (UTF-8 letters). Spaces, wildcards and other punctuation need the name in quotes.
bool IsNameChar(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u >= 0x80 || std::isalnum(u) || c == '_' || c == '-';
}

// Splits "/a/b" or "/\"odd name\"/c" into property names; throws BadKeyPath. Unquoted names hold
// only IsNameChar characters; a space ends a name and the position reported is the next
// character after it, as the service reports ('/a b' fails near position 3).
std::vector<std::string> SplitPath(const std::string& path) {
  if (path.empty() || path[0] != '/') throw BadKeyPath(path, 0);
  std::vector<std::string> out;
  size_t i = 1;
  while (true) {
    if (i >= path.size()) throw BadKeyPath(path, i);  // "/" alone or a trailing "/"
    std::string seg;
    if (path[i] == '"' || path[i] == '\'') {
      const char q = path[i];
      const size_t end = path.find(q, i + 1);
      if (end == std::string::npos) throw BadKeyPath(path, path.size());
      seg = path.substr(i + 1, end - i - 1);
      if (seg.empty()) throw BadKeyPath(path, i);
      i = end + 1;
    } else {
      const size_t from = i;
      while (i < path.size() && IsNameChar(path[i])) ++i;
      seg = path.substr(from, i - from);
      if (seg.empty()) throw BadKeyPath(path, i);  // an empty segment, a wildcard, punctuation
    }
    if (i < path.size() && path[i] != '/') {
      size_t at = i;
      while (at < path.size() && IsSpace(path[at])) ++at;
      throw BadKeyPath(path, at);
    }
    out.push_back(std::move(seg));
    if (i >= path.size()) return out;
    ++i;  // skip '/'
  }
}

}  // namespace

PartitionKeyDefinition PartitionKeyDefinition::FromJson(const json::Value& v) {
  auto bad = [](const std::string& why) { return errors::BadRequest("The partition key definition is invalid: " + why); };
  if (!v.IsObject()) throw bad("partitionKey must be an object.");
  PartitionKeyDefinition def;
  auto paths = v.FindMember("paths");
  if (paths == v.MemberEnd() || !paths->value.IsArray() || paths->value.Empty())
    throw bad("paths must be a non-empty array.");
  if (paths->value.Size() > 3) throw bad("at most 3 paths are allowed.");
  for (auto& p : paths->value.GetArray()) {
    if (!p.IsString()) throw bad("each path must be a string.");
    std::string path(p.GetString(), p.GetStringLength());
    def.parts.push_back(SplitPath(path));
    def.paths.push_back(path);
  }
  auto kind = v.FindMember("kind");
  if (kind != v.MemberEnd()) {
    if (!kind->value.IsString()) throw bad("kind must be a string.");
    def.kind = kind->value.GetString();
    if (def.kind != "Hash" && def.kind != "MultiHash") {
      if (def.kind == "Range") throw errors::NotImplemented("Range partitioning");
      throw bad("kind must be Hash or MultiHash.");
    }
  } else if (def.paths.size() > 1) {
    def.kind = "MultiHash";
  }
  if (def.kind == "Hash" && def.paths.size() > 1) throw bad("a Hash partition key has exactly one path.");
  auto version = v.FindMember("version");
  if (version != v.MemberEnd() && !version->value.IsNull()) {
    // A number, or the enum's name as the Java SDK writes it ("V2"); kept and answered as the number.
    const auto& given = version->value;
    if (given.IsInt() && (given.GetInt() == 1 || given.GetInt() == 2)) {
      def.version = given.GetInt();
    } else if (given.IsString() && (std::string_view(given.GetString(), given.GetStringLength()) == "V1" ||
                                    std::string_view(given.GetString(), given.GetStringLength()) == "V2")) {
      def.version = given.GetString()[1] - '0';
    } else {
      throw bad("version must be 1 or 2.");
    }
  }
  if (def.kind == "MultiHash") def.version = 2;
  auto sys = v.FindMember("systemKey");
  if (sys != v.MemberEnd() && sys->value.IsBool()) def.system_key = sys->value.GetBool();
  return def;
}

void PartitionKeyDefinition::ToJson(json::Value& out, json::Allocator& a) const {
  out.SetObject();
  json::Value arr(rapidjson::kArrayType);
  for (auto& p : paths) arr.PushBack(json::Value(p.c_str(), static_cast<rapidjson::SizeType>(p.size()), a), a);
  out.AddMember("paths", arr, a);
  out.AddMember("kind", json::Value(kind.c_str(), a), a);
  out.AddMember("version", version, a);
  if (system_key) out.AddMember("systemKey", true, a);
}

std::optional<std::string> CanonicalComponent(const json::Value& v) {
  std::string s;
  if (v.IsNumber()) {
    json::WriteDouble(s, v.GetDouble());
    return s;
  }
  if (v.IsString() || v.IsBool() || v.IsNull()) {
    json::Write(s, v);
    return s;
  }
  return std::nullopt;  // objects, arrays: not a partition key value
}

std::string PartitionKeyValue::Canonical() const {
  std::string s = "[";
  for (size_t i = 0; i < components.size(); ++i) {
    if (i) s.push_back(',');
    s += components[i] ? *components[i] : "{}";
  }
  s.push_back(']');
  return s;
}

const json::Value* FindKeyPath(const json::Value& doc, const std::vector<std::string>& names) {
  const json::Value* cur = &doc;
  for (auto& name : names) {
    if (!cur->IsObject()) return nullptr;
    auto it = cur->FindMember(json::Value(rapidjson::StringRef(name.data(), static_cast<rapidjson::SizeType>(name.size()))));
    if (it == cur->MemberEnd()) return nullptr;
    cur = &it->value;
  }
  return cur;
}

PartitionKeyValue ExtractPartitionKey(const PartitionKeyDefinition& def, const json::Value& doc) {
  PartitionKeyValue out;
  for (auto& parts : def.parts) {
    const json::Value* cur = FindKeyPath(doc, parts);
    out.components.push_back(cur ? CanonicalComponent(*cur) : std::nullopt);
  }
  return out;
}

PartitionKeyValue ParsePartitionKeyHeader(const PartitionKeyDefinition& def, std::string_view header,
                                          bool allow_prefix) {
  json::SmallDocument small;
  json::Document& d = small.doc();
  if (json::Parse(header, d) != json::ParseStatus::kOk || !d.IsArray()) throw errors::PartitionKeyMalformed(std::string(header));
  PartitionKeyValue out;
  if (d.Empty() && def.system_key) {
    out.components.push_back(std::nullopt);
    return out;
  }
  for (auto& c : d.GetArray()) {
    if (c.IsObject() && c.ObjectEmpty()) {
      out.components.push_back(std::nullopt);
      continue;
    }
    auto canon = CanonicalComponent(c);
    if (!canon) throw errors::PartitionKeyMalformed(std::string(header));
    out.components.push_back(std::move(canon));
  }
  if (out.components.size() != def.paths.size()) {
    if (out.components.size() < def.paths.size()) {
      if (allow_prefix && def.kind == "MultiHash" && !out.components.empty()) return out;
      throw errors::PartitionKeyComponents();
    }
    throw errors::BadRequest(
        "The partition key supplied in x-ms-partitionkey header has more components than defined in the the "
        "collection.",
        1001);
  }
  return out;
}

}  // namespace cosmos::store
