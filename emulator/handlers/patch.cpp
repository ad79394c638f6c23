#include "handlers/patch.h"

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "common/errors.h"
#include "util/util.h"

namespace cosmos::handlers {
namespace {

constexpr size_t kMaxPatchOperations = 10;

CosmosError Bad(const std::string& why) { return errors::BadRequest(why); }

// JSON Pointer (RFC 6901) segments of "/a/b~1c/0".
std::vector<std::string> Segments(const std::string& path) {
  if (path.empty() || path[0] != '/') throw Bad("The patch path '" + path + "' must start with '/'.");
  std::vector<std::string> out;
  size_t i = 1;
  while (true) {
    size_t end = path.find('/', i);
    std::string seg = path.substr(i, end == std::string::npos ? std::string::npos : end - i);
    std::string decoded;
    for (size_t k = 0; k < seg.size(); ++k) {
      if (seg[k] == '~' && k + 1 < seg.size() && (seg[k + 1] == '0' || seg[k + 1] == '1')) {
        decoded.push_back(seg[k + 1] == '0' ? '~' : '/');
        ++k;
      } else {
        decoded.push_back(seg[k]);
      }
    }
    out.push_back(std::move(decoded));
    if (end == std::string::npos) break;
    i = end + 1;
  }
  return out;
}

std::optional<size_t> Index(const std::string& seg) { return util::ParseInteger<size_t>(seg); }

json::Value Key(const std::string& s, json::Allocator& a) {
  return json::Value(s.c_str(), static_cast<rapidjson::SizeType>(s.size()), a);
}

// The container holding the last segment; throws when an intermediate does not exist.
json::Value& Parent(json::Value& doc, const std::vector<std::string>& segs, const std::string& path) {
  json::Value* cur = &doc;
  for (size_t i = 0; i + 1 < segs.size(); ++i) {
    const std::string& s = segs[i];
    if (cur->IsObject()) {
      auto it = cur->FindMember(rapidjson::StringRef(s.data(), static_cast<rapidjson::SizeType>(s.size())));
      if (it == cur->MemberEnd()) throw Bad("The patch path '" + path + "' has a parent that does not exist.");
      cur = &it->value;
    } else if (cur->IsArray()) {
      auto idx = Index(s);
      if (!idx || *idx >= cur->Size()) throw Bad("The patch path '" + path + "' has an invalid array index.");
      cur = &(*cur)[static_cast<rapidjson::SizeType>(*idx)];
    } else {
      throw Bad("The patch path '" + path + "' goes through a value that is not an object or array.");
    }
  }
  return *cur;
}

json::Value* Find(json::Value& parent, const std::string& last) {
  if (parent.IsObject()) {
    auto it = parent.FindMember(rapidjson::StringRef(last.data(), static_cast<rapidjson::SizeType>(last.size())));
    return it == parent.MemberEnd() ? nullptr : &it->value;
  }
  if (parent.IsArray()) {
    auto idx = Index(last);
    if (!idx || *idx >= parent.Size()) return nullptr;
    return &parent[static_cast<rapidjson::SizeType>(*idx)];
  }
  return nullptr;
}

// Removes and returns the value at path; throws when absent.
json::Value Take(json::Value& doc, const std::string& path) {
  auto segs = Segments(path);
  json::Value& parent = Parent(doc, segs, path);
  const std::string& last = segs.back();
  if (parent.IsObject()) {
    auto it = parent.FindMember(rapidjson::StringRef(last.data(), static_cast<rapidjson::SizeType>(last.size())));
    if (it == parent.MemberEnd()) throw Bad("The patch path '" + path + "' does not exist.");
    json::Value v(std::move(it->value));
    parent.EraseMember(it);
    return v;
  }
  if (parent.IsArray()) {
    auto idx = Index(last);
    if (!idx || *idx >= parent.Size()) throw Bad("The patch path '" + path + "' does not exist.");
    json::Value v(std::move(parent[static_cast<rapidjson::SizeType>(*idx)]));
    parent.Erase(parent.Begin() + *idx);
    return v;
  }
  throw Bad("The patch path '" + path + "' does not exist.");
}

enum class InsertMode { kAdd, kSet, kReplace };

void Put(json::Value& doc, json::Allocator& a, const std::string& path, json::Value value, InsertMode mode) {
  auto segs = Segments(path);
  json::Value& parent = Parent(doc, segs, path);
  const std::string& last = segs.back();
  if (parent.IsObject()) {
    auto it = parent.FindMember(rapidjson::StringRef(last.data(), static_cast<rapidjson::SizeType>(last.size())));
    if (it != parent.MemberEnd()) {
      it->value = std::move(value);
    } else {
      if (mode == InsertMode::kReplace) throw Bad("The patch path '" + path + "' does not exist; replace needs it.");
      parent.AddMember(Key(last, a), value, a);
    }
    return;
  }
  if (parent.IsArray()) {
    size_t size = parent.Size();
    if (last == "-" && mode == InsertMode::kAdd) {
      parent.PushBack(value, a);
      return;
    }
    auto idx = Index(last);
    if (!idx) throw Bad("The patch path '" + path + "' has an invalid array index.");
    if (mode == InsertMode::kAdd) {
      if (*idx > size) throw Bad("The patch path '" + path + "' has an array index beyond the end of the array.");
      parent.PushBack(json::Value(), a);
      for (size_t i = size; i > *idx; --i)
        parent[static_cast<rapidjson::SizeType>(i)] = std::move(parent[static_cast<rapidjson::SizeType>(i - 1)]);
      parent[static_cast<rapidjson::SizeType>(*idx)] = std::move(value);
      return;
    }
    if (*idx >= size) throw Bad("The patch path '" + path + "' has an array index beyond the end of the array.");
    parent[static_cast<rapidjson::SizeType>(*idx)] = std::move(value);
    return;
  }
  throw Bad("The patch path '" + path + "' goes through a value that is not an object or array.");
}

void Increment(json::Value& doc, json::Allocator& a, const std::string& path, const json::Value& by) {
  if (!by.IsNumber()) throw Bad("The value of an incr operation must be a number.");
  auto segs = Segments(path);
  json::Value& parent = Parent(doc, segs, path);
  json::Value* target = Find(parent, segs.back());
  if (!target) {
    Put(doc, a, path, json::Value(by, a), InsertMode::kAdd);
    return;
  }
  if (!target->IsNumber()) throw Bad("The patch path '" + path + "' is not a number; incr needs a number.");
  if (target->IsInt64() && by.IsInt64()) {
    int64_t x = target->GetInt64(), y = by.GetInt64(), z;
    if (!__builtin_add_overflow(x, y, &z)) {
      target->SetInt64(z);
      return;
    }
  }
  target->SetDouble(target->GetDouble() + by.GetDouble());
}

bool StartsWith(const std::vector<std::string>& path, const std::vector<std::string>& prefix) {
  if (path.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (path[i] != prefix[i]) return false;
  }
  return true;
}

}  // namespace

void ValidatePatchOperations(const json::Value& ops, const std::vector<std::vector<std::string>>& pk_paths) {
  if (!ops.IsArray() || ops.Empty()) throw Bad("The patch request must carry a non-empty array of operations.");
  if (ops.Size() > kMaxPatchOperations)
    throw Bad("The number of patch operations can't exceed " + std::to_string(kMaxPatchOperations) + ".");
  for (auto& op : ops.GetArray()) {
    if (!op.IsObject()) throw Bad("Each patch operation must be an object.");
    auto kind = op.FindMember("op");
    auto path = op.FindMember("path");
    if (kind == op.MemberEnd() || !kind->value.IsString()) throw Bad("Each patch operation needs a string 'op'.");
    if (path == op.MemberEnd() || !path->value.IsString()) throw Bad("Each patch operation needs a string 'path'.");
    std::string k = kind->value.GetString();
    if (k != "add" && k != "set" && k != "replace" && k != "remove" && k != "incr" && k != "move")
      throw Bad("The patch operation '" + k + "' is not supported; use add, set, replace, remove, incr or move.");
    bool needs_value = k == "add" || k == "set" || k == "replace" || k == "incr";
    if (needs_value && !op.HasMember("value")) throw Bad("The patch operation '" + k + "' needs a 'value'.");
    if (k == "move" && (!op.HasMember("from") || !op["from"].IsString()))
      throw Bad("The patch operation 'move' needs a string 'from'.");
    std::vector<std::vector<std::string>> touched = {Segments(path->value.GetString())};
    if (k == "move") touched.push_back(Segments(op["from"].GetString()));
    for (auto& segs : touched) {
      if (segs.size() == 1 && segs[0].empty()) throw Bad("A patch operation cannot target the document root.");
      if (segs[0] == "id" || segs[0] == "_rid" || segs[0] == "_self" || segs[0] == "_etag" || segs[0] == "_ts" ||
          segs[0] == "_attachments")
        throw Bad("The patch path '/" + segs[0] + "' is a system property and cannot be patched.");
      for (auto& pk : pk_paths) {
        if (StartsWith(segs, pk) || StartsWith(pk, segs))
          throw Bad("The patch operation cannot change the partition key of a document.");
      }
    }
  }
}

void ApplyPatch(json::Value& doc, json::Allocator& a, const json::Value& ops) {
  for (auto& op : ops.GetArray()) {
    std::string k = op["op"].GetString();
    std::string path = op["path"].GetString();
    if (k == "add") {
      Put(doc, a, path, json::Value(op["value"], a), InsertMode::kAdd);
    } else if (k == "set") {
      Put(doc, a, path, json::Value(op["value"], a), InsertMode::kSet);
    } else if (k == "replace") {
      Put(doc, a, path, json::Value(op["value"], a), InsertMode::kReplace);
    } else if (k == "remove") {
      Take(doc, path);
    } else if (k == "incr") {
      Increment(doc, a, path, op["value"]);
    } else if (k == "move") {
      json::Value v = Take(doc, op["from"].GetString());
      Put(doc, a, path, std::move(v), InsertMode::kAdd);
    }
  }
}

}  // namespace cosmos::handlers
