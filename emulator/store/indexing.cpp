#include "store/indexing.h"

#include <algorithm>
#include <cctype>

#include "common/errors.h"

namespace cosmos::store {
namespace {

CosmosError InvalidIndexingPolicy(const std::string& why) { return errors::BadRequest("The indexing policy is invalid: " + why); }

// The service's answer for a path it cannot parse; `pos` is where parsing stopped.
CosmosError BadPath(const std::string& path, size_t pos) {
  return errors::BadRequest("The indexing path '" + path + "' could not be accepted, failed near position '" +
                            std::to_string(pos) +
                            "'. Please ensure that the path is a valid path. Common errors include invalid "
                            "characters or absence of quotes around labels.");
}

// "/a/\"b c\"/[]/?" -> {"a","b c","[]","?"}. `terminal`: the path must end with "/?" or "/*"
// (included, excluded and spatial paths); composite paths must not hold "*" or "?" at all.
std::vector<std::string> SplitPath(const std::string& path, bool terminal) {
  if (path.empty() || path[0] != '/') throw BadPath(path, 0);
  std::vector<std::string> out;
  size_t i = 1;
  while (i < path.size()) {
    std::string seg;
    const size_t seg_start = i;
    if (path[i] == '"') {
      size_t end = path.find('"', i + 1);
      if (end == std::string::npos) throw BadPath(path, i);
      seg = path.substr(i + 1, end - i - 1);
      i = end + 1;
      if (i < path.size() && path[i] != '/') throw BadPath(path, i);
    } else {
      size_t end = path.find('/', i);
      if (end == std::string::npos) end = path.size();
      seg = path.substr(i, end - i);
      i = end;
      if (seg.empty()) throw BadPath(path, seg_start);
      // A wildcard or "?" only ends a path; never inside it, never in a composite path.
      if ((seg == "*" || seg == "?") && (!terminal || i < path.size())) throw BadPath(path, seg_start);
    }
    out.push_back(std::move(seg));
    ++i;
  }
  if (path.size() > 1 && path.back() == '/') throw BadPath(path, path.size() - 1);
  if (out.empty()) throw BadPath(path, path.size());
  if (terminal) {
    const std::string& last = out.back();
    if (last != "*" && last != "?") throw BadPath(path, path.size());
  }
  return out;
}

std::vector<std::string> SplitIndexPath(const std::string& path) { return SplitPath(path, true); }

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

// The most specific matching pattern decides: indexed when an included path matches more
// specifically than every excluded one.
bool Covered(const IndexingPolicy& p, const std::vector<std::string>& path) {
  int best_inc = -1, best_exc = -1;
  for (auto& pat : p.included) best_inc = std::max(best_inc, Match(pat, path));
  for (auto& pat : p.excluded) best_exc = std::max(best_exc, Match(pat, path));
  return best_inc >= 0 && best_inc > best_exc;
}

// A GeoJSON geometry the spatial index holds: a type it knows and an array of coordinates.
bool IsGeoJson(const json::Value& v) {
  if (!v.IsObject()) return false;
  auto t = v.FindMember("type");
  auto c = v.FindMember("coordinates");
  if (t == v.MemberEnd() || !t->value.IsString() || c == v.MemberEnd() || !c->value.IsArray()) return false;
  const std::string_view type(t->value.GetString(), t->value.GetStringLength());
  return type == "Point" || type == "LineString" || type == "Polygon" || type == "MultiPolygon";
}

bool IsSystemProperty(std::string_view name) {
  return name == "_rid" || name == "_self" || name == "_etag" || name == "_attachments";
}

// compositeIndexes (not null): each an array of at least two distinct paths, ascending or
// descending, as the service checks them.
void ReadCompositeIndexes(const json::Value& indexes, IndexingPolicy& p) {
  if (!indexes.IsArray()) throw InvalidIndexingPolicy("compositeIndexes must be an array.");
  for (rapidjson::SizeType i = 0; i < indexes.Size(); ++i) {
    const json::Value& idx = indexes[i];
    if (!idx.IsArray()) throw InvalidIndexingPolicy("each composite index must be an array of paths.");
    if (idx.Size() < 2)
      throw errors::BadRequest("The composite index at 'indexingPolicy.additionalIndexes.composite['" +
                               std::to_string(i) + "']' must have at least 2 paths.");
    std::vector<std::vector<std::string>> paths;
    std::vector<bool> descending;
    std::vector<std::string> seen;
    for (rapidjson::SizeType j = 0; j < idx.Size(); ++j) {
      const json::Value& e = idx[j];
      if (!e.IsObject() || !e.HasMember("path") || !e["path"].IsString())
        throw InvalidIndexingPolicy("composite index entries must be objects with a string path.");
      const std::string path = e["path"].GetString();
      paths.push_back(SplitPath(path, false));
      if (std::find(seen.begin(), seen.end(), path) != seen.end())
        throw errors::BadRequest("The following path '" + path + "' was specified more than once in "
                                 "'additionalIndexes.composite[" + std::to_string(i) + "][" + std::to_string(j) +
                                 "]'. Remove the duplicated field.");
      seen.push_back(path);
      bool desc = false;
      auto order = e.FindMember("order");
      if (order != e.MemberEnd()) {
        std::string o = order->value.IsString() ? order->value.GetString() : json::Write(order->value);
        std::string lower = o;
        for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (lower != "ascending" && lower != "descending")
          throw errors::BadRequest("The composite order '" + o +
                                   "' is invalid. Choose between 'ascending' and 'descending'.");
        desc = lower == "descending";
      }
      descending.push_back(desc);
    }
    p.composites.push_back(std::move(paths));
    p.composite_descending.push_back(std::move(descending));
  }
}

// spatialIndexes (not null): paths with their GeoJSON types, and a bounding box (required when the
// container's geospatialConfig type is Geometry).
void ReadSpatialIndexes(const json::Value& indexes, const json::Value* geospatial_config, IndexingPolicy& p) {
  if (!indexes.IsArray()) throw InvalidIndexingPolicy("spatialIndexes must be an array.");
  const bool geometry = geospatial_config && geospatial_config->IsObject() &&
                        geospatial_config->HasMember("type") && (*geospatial_config)["type"].IsString() &&
                        std::string((*geospatial_config)["type"].GetString()) == "Geometry";
  for (auto& e : indexes.GetArray()) {
    if (!e.IsObject() || !e.HasMember("path") || !e["path"].IsString())
      throw InvalidIndexingPolicy("spatialIndexes entries must be objects with a string path.");
    const std::string path = e["path"].GetString();
    auto segs = SplitIndexPath(path);
    auto types = e.FindMember("types");
    if (types == e.MemberEnd() || !types->value.IsArray() || types->value.Empty())
      throw InvalidIndexingPolicy("the spatial index at path '" + path + "' needs a non-empty types array.");
    for (auto& t : types->value.GetArray()) {
      const std::string name = t.IsString() ? t.GetString() : json::Write(t);
      if (name != "Point" && name != "LineString" && name != "Polygon" && name != "MultiPolygon")
        throw InvalidIndexingPolicy("the spatial type '" + name +
                      "' is not one of 'Point', 'LineString', 'Polygon' and 'MultiPolygon'.");
    }
    auto bb = e.FindMember("boundingBox");
    if (bb != e.MemberEnd() && !bb->value.IsNull()) {
      bool ok = bb->value.IsObject();
      double box[4] = {0, 0, 0, 0};
      const char* names[4] = {"xmin", "ymin", "xmax", "ymax"};
      for (int k = 0; ok && k < 4; ++k) {
        auto m = bb->value.FindMember(names[k]);
        ok = m != bb->value.MemberEnd() && m->value.IsNumber();
        if (ok) box[k] = m->value.GetDouble();
      }
      if (!ok || !(box[0] < box[2]) || !(box[1] < box[3]))
        throw InvalidIndexingPolicy("the boundingBox of the spatial index at path '" + path +
                      "' needs numbers xmin < xmax and ymin < ymax.");
    } else if (geometry) {
      throw InvalidIndexingPolicy("the spatial index at path '" + path +
                    "' needs a boundingBox because the container's geospatialConfig type is Geometry.");
    }
    p.spatial.push_back(std::move(segs));
  }
}

}  // namespace

IndexingPolicy IndexingPolicy::FromJson(const json::Value* v, const json::Value* geospatial_config) {
  IndexingPolicy p;
  auto& a = p.raw.GetAllocator();
  p.raw.SetObject();
  if (v && !v->IsNull() && !v->IsObject()) throw InvalidIndexingPolicy("indexingPolicy must be an object.");
  const bool given = v && v->IsObject();
  bool automatic_given = false;
  if (given) {
    auto m = v->FindMember("indexingMode");
    if (m != v->MemberEnd()) {
      if (!m->value.IsString()) throw InvalidIndexingPolicy("indexingMode must be a string.");
      std::string mode = m->value.GetString();
      for (auto& c : mode) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (mode == "lazy") mode = "consistent";
      if (mode != "consistent" && mode != "none") throw InvalidIndexingPolicy("indexingMode must be consistent or none.");
      p.mode = mode;
    }
    auto au = v->FindMember("automatic");
    if (au != v->MemberEnd()) {
      if (!au->value.IsBool()) throw InvalidIndexingPolicy("automatic must be a boolean.");
      p.automatic = au->value.GetBool();
      automatic_given = true;
    }
  }
  if (p.mode == "none") {
    // Mode none indexes nothing: "automatic" may be left out (it reads back false) but not be true.
    if (automatic_given && p.automatic)
      throw errors::BadRequest("Indexing mode value cannot be 'none' when automatic indexing is specified as 'true'.");
    p.automatic = false;
  }
  p.raw.AddMember("indexingMode", json::Value(p.mode.c_str(), a), a);
  p.raw.AddMember("automatic", p.automatic, a);
  auto read_paths = [&](const char* key, std::vector<std::vector<std::string>>& dest, bool add_default) {
    json::Value arr(rapidjson::kArrayType);
    const json::Value* src = nullptr;
    if (given) {
      auto it = v->FindMember(key);
      if (it != v->MemberEnd()) {
        if (!it->value.IsArray()) throw InvalidIndexingPolicy(std::string(key) + " must be an array.");
        src = &it->value;
      }
    }
    if (src) {
      for (auto& e : src->GetArray()) {
        if (!e.IsObject() || !e.HasMember("path") || !e["path"].IsString())
          throw InvalidIndexingPolicy(std::string(key) + " entries must be objects with a string path.");
        std::string path = e["path"].GetString();
        // The legacy root "/" (indexing policy v1, often with Hash/Range "indexes") is the whole
        // document: the service takes it and stores it as "/*".
        if (path == "/") path = "/*";
        dest.push_back(SplitIndexPath(path));
        json::Value entry(rapidjson::kObjectType);
        entry.AddMember("path", json::Value(path.c_str(), static_cast<rapidjson::SizeType>(path.size()), a), a);
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
  if (!given) return p;

  auto ci = v->FindMember("compositeIndexes");
  if (ci != v->MemberEnd() && !ci->value.IsNull()) {
    ReadCompositeIndexes(ci->value, p);
    p.raw.AddMember("compositeIndexes", json::Value(ci->value, a), a);
  }
  auto si = v->FindMember("spatialIndexes");
  if (si != v->MemberEnd() && !si->value.IsNull()) {
    ReadSpatialIndexes(si->value, geospatial_config, p);
    p.raw.AddMember("spatialIndexes", json::Value(si->value, a), a);
  }

  // Vector indexes are checked against the container's embedding policy (CheckVectorIndexes, by
  // the container's handler) and kept as given.
  if (auto vi = v->FindMember("vectorIndexes"); vi != v->MemberEnd() && !vi->value.IsNull())
    p.raw.AddMember("vectorIndexes", json::Value(vi->value, a), a);
  // Full-text indexes likewise (CheckFullTextIndexes, against the full-text policy).
  if (auto ft = v->FindMember("fullTextIndexes"); ft != v->MemberEnd() && !ft->value.IsNull())
    p.raw.AddMember("fullTextIndexes", json::Value(ft->value, a), a);
  return p;
}

bool IndexingPolicy::IsIndexed(const std::vector<std::string>& path) const {
  if (mode == "none" || path.empty()) return false;
  if (path.size() == 1 && (path[0] == "id" || path[0] == "_ts")) return true;
  return Covered(*this, path);
}

bool IndexingPolicy::IsSpatiallyIndexed(const std::vector<std::string>& path) const {
  if (mode == "none" || path.empty()) return false;
  for (auto& pat : spatial) {
    if (Match(pat, path) >= 0) return true;
  }
  return false;
}

bool IndexingPolicy::HasCompositeFor(const std::vector<std::vector<std::string>>& paths,
                                     const std::vector<bool>& descending) const {
  if (mode == "none") return false;
  for (size_t i = 0; i < composites.size(); ++i) {
    const auto& comp = composites[i];
    if (comp.size() != paths.size() || descending.size() != paths.size()) continue;
    bool same = true, reversed = true;
    for (size_t k = 0; k < comp.size() && (same || reversed); ++k) {
      if (comp[k] != paths[k]) {
        same = reversed = false;
        break;
      }
      const bool d = composite_descending[i][k];
      same = same && d == descending[k];
      reversed = reversed && d != descending[k];
    }
    if (same || reversed) return true;
  }
  return false;
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
    // A geometry under a spatial index adds its cells; its members are range-indexed as usual.
    if (!spatial.empty() && IsGeoJson(v) && IsSpatiallyIndexed(it.path)) ++terms;
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
      const json::Value* v = json::AtPath(doc, p);
      if (!v || v->IsObject() || v->IsArray()) {
        all = false;
        break;
      }
    }
    if (all) ++terms;
  }
  return terms;
}

std::optional<IndexingDirective> ParseIndexingDirective(std::string_view text) {
  std::string lower(text);
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "default") return IndexingDirective::kDefault;
  if (lower == "include") return IndexingDirective::kInclude;
  if (lower == "exclude") return IndexingDirective::kExclude;
  return std::nullopt;
}

bool IndexingPolicy::IndexesWrite(IndexingDirective directive) const {
  switch (directive) {
    case IndexingDirective::kInclude: return true;
    case IndexingDirective::kExclude: return false;
    case IndexingDirective::kDefault: break;
  }
  return mode == "none" || automatic;
}

}  // namespace cosmos::store
