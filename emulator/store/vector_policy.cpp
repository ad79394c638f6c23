#include "store/vector_policy.h"

#include <algorithm>
#include <set>

#include "common/errors.h"
#include "util/util.h"

namespace cosmos::store {

// The service writes these messages with every '/' escaped ("path::\/vector1") inside the
// message's Errors list; the SDKs' tests look for that text.
CosmosError PolicyError(const std::string& text) {
  std::string wrapped = errors::Wrap(text);
  std::string out;
  out.reserve(wrapped.size() + 8);
  for (char c : wrapped) {
    if (c == '/') out += '\\';
    out += c;
  }
  return CosmosError(400, 0, "BadRequest", out);
}

// "/a/b" -> {"a", "b"}; nullopt when it does not start with '/', has an empty segment, ends in '/'
// or uses a wildcard or an array step (a vector path names one property).
std::optional<std::vector<std::string>> PolicyPathSegments(std::string_view path) {
  if (path.size() < 2 || path[0] != '/' || path.back() == '/') return std::nullopt;
  std::vector<std::string> out;
  for (auto part : util::Split(path.substr(1), '/')) {
    if (part.empty() || part == "*" || part == "?" || part.find('[') != std::string_view::npos ||
        part.find(']') != std::string_view::npos)
      return std::nullopt;
    out.emplace_back(part);
  }
  return out;
}

namespace {


std::string Text(const json::Value& v) { return v.IsString() ? std::string(v.GetString(), v.GetStringLength()) : json::Write(v); }

const json::Value* Member(const json::Value& o, const char* name) {
  auto it = o.FindMember(name);
  return it == o.MemberEnd() ? nullptr : &it->value;
}

}  // namespace

std::optional<DistanceFunction> ParseDistanceFunction(std::string_view text) {
  if (util::EqualsIgnoreCase(text, "cosine")) return DistanceFunction::kCosine;
  if (util::EqualsIgnoreCase(text, "dotproduct")) return DistanceFunction::kDotProduct;
  if (util::EqualsIgnoreCase(text, "euclidean")) return DistanceFunction::kEuclidean;
  return std::nullopt;
}

std::optional<VectorDataType> ParseVectorDataType(std::string_view text) {
  if (util::EqualsIgnoreCase(text, "float32")) return VectorDataType::kFloat32;
  if (util::EqualsIgnoreCase(text, "float16")) return VectorDataType::kFloat16;
  if (util::EqualsIgnoreCase(text, "int8")) return VectorDataType::kInt8;
  if (util::EqualsIgnoreCase(text, "uint8")) return VectorDataType::kUint8;
  return std::nullopt;
}

const char* DistanceFunctionName(DistanceFunction f) {
  switch (f) {
    case DistanceFunction::kCosine: return "cosine";
    case DistanceFunction::kDotProduct: return "dotproduct";
    case DistanceFunction::kEuclidean: return "euclidean";
  }
  return "cosine";
}

const VectorEmbedding* VectorPolicy::Find(const std::vector<std::string>& segments) const {
  for (const auto& e : embeddings) {
    if (e.segments == segments) return &e;
  }
  return nullptr;
}

VectorPolicy VectorPolicy::FromJson(const json::Value& v) {
  if (!v.IsObject()) throw errors::InvalidInput();
  VectorPolicy policy;
  const json::Value* list = Member(v, "vectorEmbeddings");
  if (list == nullptr || list->IsNull()) return policy;
  if (!list->IsArray()) throw errors::InvalidInput();
  std::set<std::string> seen;
  for (const auto& e : list->GetArray()) {
    if (!e.IsObject()) throw errors::InvalidInput();
    VectorEmbedding out;
    const json::Value* path = Member(e, "path");
    if (path == nullptr || !path->IsString()) throw errors::InvalidInput();
    out.path = Text(*path);
    auto segments = PolicyPathSegments(out.path);
    if (!segments)
      throw PolicyError("The Vector Embedding Policy has an invalid Path:" + out.path +
                        ". Specify the correct path for vector properties of your documents.");
    out.segments = std::move(*segments);
    if (!seen.insert(out.path).second) throw PolicyError("Duplicate Path :" + out.path + " found in Vector Embedding Policy.");
    // The documented defaults: float32 elements, 1,536 dimensions; cosine when no function is named.
    if (const json::Value* t = Member(e, "dataType")) {
      auto type = t->IsString() ? ParseVectorDataType(Text(*t)) : std::nullopt;
      if (!type)
        throw PolicyError("The Vector Embedding Policy has an invalid DataType:" + Text(*t) +
                          ". Supported types are float32, float16, int8 and uint8.");
      out.data_type = *type;
    }
    out.dimensions = 1536;
    if (const json::Value* d = Member(e, "dimensions")) {
      if (!d->IsNumber()) throw errors::InvalidInput();
      if (!d->IsInt64() || d->GetInt64() < 1)
        throw PolicyError("The Vector Embedding Policy has Dimensions:" + json::Write(*d) +
                          " which is less than the minimum supported value: 1.");
      if (d->GetInt64() > kMaxEmbeddingDimensions)
        throw PolicyError("The Vector Embedding Policy has Dimensions:" + std::to_string(d->GetInt64()) +
                          " which is more than the maximum supported value: " + std::to_string(kMaxEmbeddingDimensions) +
                          ".");
      out.dimensions = static_cast<int>(d->GetInt64());
    }
    if (const json::Value* f = Member(e, "distanceFunction")) {
      auto fn = f->IsString() ? ParseDistanceFunction(Text(*f)) : std::nullopt;
      if (!fn)
        throw PolicyError("The Vector Embedding Policy has an invalid DistanceFunction:" + Text(*f) +
                          ". Supported functions are cosine, dotproduct and euclidean.");
      out.distance = *fn;
    }
    policy.embeddings.push_back(std::move(out));
  }
  return policy;
}

void CheckVectorIndexes(const json::Value& indexes, VectorPolicy* policy) {
  if (!indexes.IsArray()) throw errors::InvalidInput();
  std::set<std::string> seen;
  for (const auto& ix : indexes.GetArray()) {
    if (!ix.IsObject()) throw errors::InvalidInput();
    const json::Value* path = Member(ix, "path");
    const json::Value* type = Member(ix, "type");
    if (path == nullptr || !path->IsString() || type == nullptr || !type->IsString()) throw errors::InvalidInput();
    const std::string p = Text(*path), t = Text(*type);
    if (!seen.insert(p).second) throw PolicyError("Duplicate Path :" + p + " found in Vector Indexing Policy.");
    if (t != "flat" && t != "quantizedFlat" && t != "diskANN")
      throw PolicyError("Index Type::" + t + " is invalid. The vector index types are flat, quantizedFlat and diskANN.");
    auto segments = PolicyPathSegments(p);
    const VectorEmbedding* e = policy != nullptr && segments ? policy->Find(*segments) : nullptr;
    if (e == nullptr) throw PolicyError("The Vector Indexing Policy's path::" + p + " not matching in Embedding's path.");
    if (t == "flat" && e->dimensions > kMaxFlatIndexDimensions)
      throw PolicyError("The Vector Indexing Policy's path::" + p + " has Dimensions:" + std::to_string(e->dimensions) +
                        " which is more than the maximum supported value: " + std::to_string(kMaxFlatIndexDimensions) +
                        " for the index type flat.");
    if (const json::Value* q = Member(ix, "quantizationByteSize"); q != nullptr && t != "flat") {
      const int64_t max = std::min<int64_t>(e->dimensions, 512);
      if (!q->IsInt64() || q->GetInt64() < 1 || q->GetInt64() > max)
        throw PolicyError("The Vector Indexing Policy parameter QuantizationByteSize value :: " + json::Write(*q) +
                          " is out of range. The allowed range is between 1 and " + std::to_string(max) + ".");
    }
    if (const json::Value* l = Member(ix, "indexingSearchListSize"); l != nullptr && t == "diskANN") {
      if (!l->IsInt64() || l->GetInt64() < 25 || l->GetInt64() > 500)
        throw PolicyError("The Vector Indexing Policy parameter IndexingSearchListSize value :: " + json::Write(*l) +
                          " is out of range. The allowed range is between 25 and 500.");
    }
    if (const json::Value* q = Member(ix, "quantizerType")) {
      if (!q->IsString() || (Text(*q) != "product" && Text(*q) != "spherical")) throw errors::InvalidInput();
    }
    for (auto& embedding : policy->embeddings) {
      if (&embedding != e) continue;
      embedding.index = t == "flat"            ? VectorIndexType::kFlat
                        : t == "quantizedFlat" ? VectorIndexType::kQuantizedFlat
                                               : VectorIndexType::kDiskAnn;
    }
    // The Java SDK spells the shard key in the plural.
    for (const char* key : {"vectorIndexShardKey", "vectorIndexShardKeys"}) {
      const json::Value* shard = Member(ix, key);
      if (shard == nullptr) continue;
      if (!shard->IsArray()) throw errors::InvalidInput();
      if (shard->Size() > 1)
        throw PolicyError("The number of shard paths defined in the Vector Indexing Policy: " +
                      std::to_string(shard->Size()) + " exceeds the maximum: 1.");
      for (const auto& s : shard->GetArray()) {
        if (!s.IsString()) throw errors::InvalidInput();
        const std::string sp = Text(s);
        if (sp.empty() || sp[0] != '/') throw PolicyError("The Vector Indexing Policy has an invalid Shard Path: " + sp + ".");
      }
    }
  }
}

}  // namespace cosmos::store
