#include "store/indexing.h"


#include "common/errors.h"

namespace cosmos::store {
namespace {

CosmosError Invalid(const std::string& why) { return errors::BadRequest("The indexing policy is invalid: " + why); }

// "/a/\"b c\"/[]/?" -> {"a","b c","[]","?"}
std::vector<std::string> SplitIndexPath(const std::string& path) {
  if (path.empty() || path[0] != '/') throw Invalid("the path '" + path + "' must start with '/'.");
  std::vector<std::string> out;
  size_t i = 1;
  while (i < path.size()) {
    std::string seg;
    if (path[i] == '"') {
      size_t end = path.find('"', i + 1);
      if (end == std::string::npos) throw Invalid("the path '" + path + "' has an unterminated quote.");
      seg = path.substr(i + 1, end - i - 1);
      i = end + 1;
    } else {
      size_t end = path.find('/', i);
      if (end == std::string::npos) end = path.size();
      seg = path.substr(i, end - i);
      i = end;
    }
    if (seg.empty()) throw Invalid("the path '" + path + "' has an empty segment.");
    out.push_back(std::move(seg));
    ++i;
  }
  if (out.empty()) throw Invalid("the path '" + path + "' is empty.");
  const std::string& last = out.back();
  if (last != "*" && last != "?") throw Invalid("the path '" + path + "' must end with '/?' or '/*'.");
  return out;
}

std::vector<std::string> SplitPlainPath(const std::string& path) {
  std::vector<std::string> out;
  size_t i = 1;
  while (i < path.size()) {
    size_t end = path.find('/', i);
    if (end == std::string::npos) end = path.size();
    std::string seg = path.substr(i, end - i);
    if (seg.size() >= 2 && seg.front() == '"' && seg.back() == '"') seg = seg.substr(1, seg.size() - 2);
    out.push_back(seg);
    i = end + 1;
  }
  return out;
}

// Does pattern (ending in ? or *) match the leaf at `path` (array elements shown as "[]")?
// Returns the specificity (number of literal segments) or -1.
int Match(const std::vector<std::string>& pattern, const std::vector<std::string>& path) {
  size_t n = pattern.size() - 1;  // segments before the terminal ? or *
  bool star = pattern.back() == "*";
  if (path.size() < n) return -1;
  if (!star && path.size() != n) return -1;
  for (size_t i = 0; i < n; ++i) {
    if (pattern[i] == path[i]) continue;
    if (pattern[i] == "*") continue;
    return -1;
  }
  return static_cast<int>(n) * 2 + (star ? 0 : 1);
}

const json::Value* Resolve(const json::Value& doc, const std::vector<std::string>& path) {
  const json::Value* cur = &doc;
  for (auto& seg : path) {
    if (!cur->IsObject()) return nullptr;
    auto it = cur->FindMember(json::Value(rapidjson::StringRef(seg.data(), static_cast<rapidjson::SizeType>(seg.size()))));
    if (it == cur->MemberEnd()) return nullptr;
    cur = &it->value;
  }
  return cur;
}

// The most specific matching pattern decides: indexed when an included path matches more
// specifically than every excluded one.
bool Covered(const IndexingPolicy& p, const std::vector<std::string>& path) {
  int best_inc = -1, best_exc = -1;
  for (auto& pat : p.included) best_inc = std::max(best_inc, Match(pat, path));
  for (auto& pat : p.excluded) best_exc = std::max(best_exc, Match(pat, path));
  return best_inc >= 0 && best_inc > best_exc;
}

bool IsSystemProperty(std::string_view name) {
  return name == "_rid" || name == "_self" || name == "_etag" || name == "_attachments";
}

}  // namespace

IndexingPolicy IndexingPolicy::FromJson(const json::Value* v) {
  IndexingPolicy p;
  auto& a = p.raw.GetAllocator();
  p.raw.SetObject();
  if (v && !v->IsNull() && !v->IsObject()) throw Invalid("indexingPolicy must be an object.");
  const bool given = v && v->IsObject();
  if (given) {
    auto m = v->FindMember("indexingMode");
    if (m != v->MemberEnd()) {
      if (!m->value.IsString()) throw Invalid("indexingMode must be a string.");
      std::string mode = m->value.GetString();
      for (auto& c : mode) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (mode == "lazy") mode = "consistent";
      if (mode != "consistent" && mode != "none") throw Invalid("indexingMode must be consistent or none.");
      p.mode = mode;
    }
    auto au = v->FindMember("automatic");
    if (au != v->MemberEnd()) {
      if (!au->value.IsBool()) throw Invalid("automatic must be a boolean.");
      p.automatic = au->value.GetBool();
    }
  }
  p.raw.AddMember("indexingMode", json::Value(p.mode.c_str(), a), a);
  p.raw.AddMember("automatic", p.automatic, a);
  auto read_paths = [&](const char* key, std::vector<std::vector<std::string>>& dest, bool add_default) {
    json::Value arr(rapidjson::kArrayType);
    const json::Value* src = nullptr;
    if (given) {
      auto it = v->FindMember(key);
      if (it != v->MemberEnd()) {
        if (!it->value.IsArray()) throw Invalid(std::string(key) + " must be an array.");
        src = &it->value;
      }
    }
    if (src) {
      for (auto& e : src->GetArray()) {
        if (!e.IsObject() || !e.HasMember("path") || !e["path"].IsString())
          throw Invalid(std::string(key) + " entries must be objects with a string path.");
        auto path = e.FindMember("path");
        dest.push_back(SplitIndexPath(path->value.GetString()));
        json::Value entry(rapidjson::kObjectType);
        entry.AddMember("path", json::Value(path->value.GetString(), a), a);
        arr.PushBack(entry, a);
      }
    } else if (add_default) {
      dest.push_back({"*"});
      json::Value entry(rapidjson::kObjectType);
      entry.AddMember("path", "/*", a);
      arr.PushBack(entry, a);
    }
    return arr;
  };
  if (p.mode == "none") {
    json::Value inc = read_paths("includedPaths", p.included, false);
    json::Value exc = read_paths("excludedPaths", p.excluded, false);
    p.raw.AddMember("includedPaths", inc, a);
    p.raw.AddMember("excludedPaths", exc, a);
  } else {
    json::Value inc = read_paths("includedPaths", p.included, true);
    json::Value exc = read_paths("excludedPaths", p.excluded, false);
    bool has_etag = false;
    for (auto& e : p.excluded) has_etag |= (e.size() == 2 && e[0] == "_etag");
    if (!has_etag) {
      p.excluded.push_back({"_etag", "?"});
      json::Value entry(rapidjson::kObjectType);
      entry.AddMember("path", "/\"_etag\"/?", a);
      exc.PushBack(entry, a);
    }
    p.raw.AddMember("includedPaths", inc, a);
    p.raw.AddMember("excludedPaths", exc, a);
  }
  if (given) {
    auto ci = v->FindMember("compositeIndexes");
    if (ci != v->MemberEnd()) {
      if (!ci->value.IsArray()) throw Invalid("compositeIndexes must be an array.");
      json::Value copy(ci->value, a);
      for (auto& idx : ci->value.GetArray()) {
        if (!idx.IsArray() || idx.Size() < 2) throw Invalid("a composite index needs at least two paths.");
        std::vector<std::vector<std::string>> paths;
        for (auto& e : idx.GetArray()) {
          if (!e.IsObject() || !e.HasMember("path") || !e["path"].IsString() || e["path"].GetString()[0] != '/')
            throw Invalid("composite index entries must be objects with a path.");
          auto path = e.FindMember("path");
          paths.push_back(SplitPlainPath(path->value.GetString()));
        }
        p.composites.push_back(std::move(paths));
      }
      p.raw.AddMember("compositeIndexes", copy, a);
    }
    for (const char* k : {"spatialIndexes", "vectorIndexes", "fullTextIndexes"}) {
      auto it = v->FindMember(k);
      if (it != v->MemberEnd() && it->value.IsArray() && !it->value.Empty())
        throw errors::NotImplemented(std::string("indexingPolicy.") + k);
    }
  }
  return p;
}

bool IndexingPolicy::IsIndexed(const std::vector<std::string>& path) const {
  if (mode == "none" || path.empty()) return false;
  if (path.size() == 1 && (path[0] == "id" || path[0] == "_ts")) return true;
  return Covered(*this, path);
}

int IndexingPolicy::CountTerms(const json::Value& doc) const {
  if (mode == "none") return 0;
  int terms = 0;
  // Iterative walk with an explicit stack of (value, path), so deep documents never recurse.
  struct Item {
    const json::Value* v;
    std::vector<std::string> path;
  };
  std::vector<Item> stack;
  for (auto& m : doc.GetObject()) {
    if (IsSystemProperty(std::string_view(m.name.GetString(), m.name.GetStringLength()))) continue;
    stack.push_back({&m.value, {std::string(m.name.GetString(), m.name.GetStringLength())}});
  }
  auto indexed = [&](const std::vector<std::string>& p) { return Covered(*this, p); };
  while (!stack.empty()) {
    Item it = std::move(stack.back());
    stack.pop_back();
    const json::Value& v = *it.v;
    if (v.IsObject() && !v.ObjectEmpty()) {
      for (auto& m : v.GetObject()) {
        auto p = it.path;
        p.emplace_back(m.name.GetString(), m.name.GetStringLength());
        stack.push_back({&m.value, std::move(p)});
      }
    } else if (v.IsArray() && !v.Empty()) {
      for (auto& e : v.GetArray()) {
        auto p = it.path;
        p.emplace_back("[]");
        stack.push_back({&e, std::move(p)});
      }
    } else if (indexed(it.path)) {
      ++terms;
    }
  }
  for (auto& comp : composites) {
    bool all = true;
    for (auto& p : comp) {
      const json::Value* v = Resolve(doc, p);
      if (!v || v->IsObject() || v->IsArray()) {
        all = false;
        break;
      }
    }
    if (all) ++terms;
  }
  return terms;
}

}  // namespace cosmos::store
