#include "store/unique_keys.h"

#include "common/errors.h"

namespace cosmos::store {
namespace {

// The service's limits: 10 unique keys per container, 16 paths per unique key.
constexpr size_t kMaxKeys = 10;
constexpr size_t kMaxPathsPerKey = 16;

CosmosError InvalidUniqueKeys(const std::string& why) { return errors::BadRequest("The unique key policy is invalid: " + why); }

// "/address/\"zip code\"" -> {"address", "zip code"}; wildcards and array steps are refused.
std::vector<std::string> SplitUniquePath(const std::string& path) {
  if (path.size() < 2 || path[0] != '/') throw InvalidUniqueKeys("the path '" + path + "' must start with '/' and name a property.");
  std::vector<std::string> out;
  size_t i = 1;
  while (i <= path.size()) {
    std::string seg;
    if (i < path.size() && path[i] == '"') {
      size_t end = path.find('"', i + 1);
      if (end == std::string::npos) throw InvalidUniqueKeys("the path '" + path + "' has an unterminated quote.");
      seg = path.substr(i + 1, end - i - 1);
      i = end + 1;
      if (i < path.size() && path[i] != '/') throw InvalidUniqueKeys("the path '" + path + "' is malformed.");
    } else {
      size_t end = path.find('/', i);
      if (end == std::string::npos) end = path.size();
      seg = path.substr(i, end - i);
      i = end;
      if (seg == "*" || seg == "?" || seg == "[]")
        throw InvalidUniqueKeys("the path '" + path + "' may not contain wildcards or array steps.");
    }
    if (seg.empty()) throw InvalidUniqueKeys("the path '" + path + "' has an empty segment.");
    out.push_back(std::move(seg));
    ++i;
  }
  return out;
}

}  // namespace

UniqueKeyPolicy UniqueKeyPolicy::FromJson(const json::Value* v) {
  UniqueKeyPolicy p;
  auto& a = p.raw.GetAllocator();
  p.raw.SetObject();
  json::Value list(rapidjson::kArrayType);
  if (v && !v->IsNull()) {
    if (!v->IsObject()) throw InvalidUniqueKeys("uniqueKeyPolicy must be an object.");
    auto keys = v->FindMember("uniqueKeys");
    if (keys != v->MemberEnd() && !keys->value.IsNull()) {
      if (!keys->value.IsArray()) throw InvalidUniqueKeys("uniqueKeys must be an array.");
      if (keys->value.Size() > kMaxKeys)
        throw InvalidUniqueKeys("a container may have at most " + std::to_string(kMaxKeys) + " unique keys.");
      for (auto& key : keys->value.GetArray()) {
        // (MemberEnd of a value that is not an object is an assertion, so the kind is checked first.)
        if (!key.IsObject()) throw InvalidUniqueKeys("every unique key needs a non-empty 'paths' array.");
        auto paths = key.FindMember("paths");
        if (paths == key.MemberEnd() || !paths->value.IsArray() || paths->value.Empty())
          throw InvalidUniqueKeys("every unique key needs a non-empty 'paths' array.");
        if (paths->value.Size() > kMaxPathsPerKey)
          throw InvalidUniqueKeys("a unique key may have at most " + std::to_string(kMaxPathsPerKey) + " paths.");
        std::vector<std::vector<std::string>> split;
        json::Value out_paths(rapidjson::kArrayType);
        for (auto& path : paths->value.GetArray()) {
          if (!path.IsString()) throw InvalidUniqueKeys("unique key paths must be strings.");
          split.push_back(SplitUniquePath(std::string(path.GetString(), path.GetStringLength())));
          for (size_t i = 0; i + 1 < split.size(); ++i) {
            if (split[i] == split.back()) throw InvalidUniqueKeys("the path '" + std::string(path.GetString()) + "' appears twice in one unique key.");
          }
          out_paths.PushBack(json::Value(path, a), a);
        }
        for (auto& existing : p.keys) {
          if (existing == split) throw InvalidUniqueKeys("the same unique key is declared twice.");
        }
        p.keys.push_back(std::move(split));
        json::Value entry(rapidjson::kObjectType);
        entry.AddMember("paths", out_paths, a);
        list.PushBack(entry, a);
      }
    }
  }
  p.raw.AddMember("uniqueKeys", list, a);
  return p;
}

std::vector<std::string> UniqueKeyPolicy::Tuples(const json::Value& doc) const {
  std::vector<std::string> out;
  out.reserve(keys.size());
  for (size_t k = 0; k < keys.size(); ++k) {
    std::string t = std::to_string(k) + ":[";
    for (size_t i = 0; i < keys[k].size(); ++i) {
      if (i) t += ',';
      const json::Value* v = json::AtPath(doc, keys[k][i]);
      t += v ? json::Write(*v) : "null";
    }
    t += ']';
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace cosmos::store
