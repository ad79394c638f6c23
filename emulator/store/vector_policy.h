// A container's vector embedding policy (vectorEmbeddingPolicy) and the vector indexes of its
// indexing policy: parsed and checked with the service's errors. The policy names, per document
// path, the element type, the number of dimensions and the distance function VectorDistance uses
// when a query names none (docs/vector-search.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/errors.h"
#include "json/json.h"

namespace cosmos::store {

// Shared by the search policies (vector, full text):
// A 400 whose message is the service's text with every '/' escaped ("path::\/vector1"), as the
// service writes these policy errors; the SDKs' tests look for that text.
CosmosError PolicyError(const std::string& text);
// "/a/b" -> {"a", "b"}; nullopt when it does not start with '/', has an empty segment, ends in '/'
// or uses a wildcard or an array step (a policy path names one property).
std::optional<std::vector<std::string>> PolicyPathSegments(std::string_view path);

enum class VectorDataType { kFloat32, kFloat16, kInt8, kUint8 };
enum class DistanceFunction { kCosine, kDotProduct, kEuclidean };

// "cosine", "dotproduct", "euclidean" (any case); nullopt otherwise.
std::optional<DistanceFunction> ParseDistanceFunction(std::string_view text);
// "float32", "float16", "int8", "uint8" (any case); nullopt otherwise.
std::optional<VectorDataType> ParseVectorDataType(std::string_view text);
// The policy's spelling: "cosine", "dotproduct", "euclidean".
const char* DistanceFunctionName(DistanceFunction f);

// The vector index the indexing policy gives a path (none: searches compare every vector).
enum class VectorIndexType { kNone, kFlat, kQuantizedFlat, kDiskAnn };

struct VectorEmbedding {
  std::string path;                   // as given, e.g. "/embedding"
  std::vector<std::string> segments;  // property names from the root
  VectorDataType data_type = VectorDataType::kFloat32;
  int dimensions = 0;
  DistanceFunction distance = DistanceFunction::kCosine;
  VectorIndexType index = VectorIndexType::kNone;  // set by CheckVectorIndexes
};

// The most dimensions an embedding may declare, and what each index type serves.
inline constexpr int kMaxEmbeddingDimensions = 4096;
inline constexpr int kMaxFlatIndexDimensions = 505;

struct VectorPolicy {
  std::vector<VectorEmbedding> embeddings;

  // The embedding declared for exactly this path (property names from the root), or null.
  const VectorEmbedding* Find(const std::vector<std::string>& segments) const;

  // Parses a vectorEmbeddingPolicy value; throws the service's 400 when it is invalid.
  static VectorPolicy FromJson(const json::Value& v);
};

// Checks indexingPolicy.vectorIndexes (the array as given) against the embedding policy (null when
// the container has none): every index on a declared path, no path twice, a known type within its
// dimension limit, and the type's options in range. Throws the service's 400. Records each index's
// type in its embedding.
void CheckVectorIndexes(const json::Value& indexes, VectorPolicy* policy);

}  // namespace cosmos::store
