// Vector search: VectorDistance(a, b [, bruteForce [, {distanceFunction, dataType, ...}]]).
//
// The score of two vectors of numbers of the same length: cosine similarity (-1..1, higher is
// closer), dot product (higher is closer) or Euclidean distance (lower is closer). The function is
// the query's option, else the container's vector embedding policy for the path the call names
// (the binder passes it as a fifth argument), else cosine. Anything that is not two such vectors
// (another type, a non-number element, different or zero lengths, a vector of zero length under
// cosine) gives undefined, as the service gives no value. Computed in double precision over the
// numbers as stored: the result is exact for every data type, and search is exhaustive whatever
// the vector index (docs/vector-search.md).
#include <cmath>

#include "query/functions/function.h"
#include "store/vector_policy.h"
#include "util/util.h"

namespace cosmos::query {

namespace {

std::optional<store::DistanceFunction> OptionDistance(const Val& options) {
  if (!options.IsObject()) return std::nullopt;
  for (const auto& m : options.json().GetObject()) {
    std::string_view key(m.name.GetString(), m.name.GetStringLength());
    if (util::EqualsIgnoreCase(key, "distanceFunction") && m.value.IsString())
      return store::ParseDistanceFunction({m.value.GetString(), m.value.GetStringLength()});
  }
  return std::nullopt;
}

}  // namespace

std::optional<store::DistanceFunction> VectorDistanceFunctionOf(std::span<const Val> args) {
  store::DistanceFunction fn = store::DistanceFunction::kCosine;
  if (args.size() > 4 && args[4].IsString()) {
    if (auto policy = store::ParseDistanceFunction(args[4].AsString())) fn = *policy;
  }
  if (args.size() > 3 && args[3].IsDefined()) {
    if (!args[3].IsObject()) return std::nullopt;
    if (auto chosen = OptionDistance(args[3])) fn = *chosen;
  }
  return fn;
}

namespace {

Val VectorDistance(FunctionContext& ctx, std::span<const Val> args) {
  if (!args[0].IsArray() || !args[1].IsArray()) return Val();
  const auto& a = args[0].json();
  const auto& b = args[1].json();
  const rapidjson::SizeType n = a.Size();
  if (n == 0 || n != b.Size()) return Val();
  const auto chosen = VectorDistanceFunctionOf(args);
  if (!chosen) return Val();
  const store::DistanceFunction fn = *chosen;
  double dot = 0, aa = 0, bb = 0, sq = 0;
  for (rapidjson::SizeType i = 0; i < n; ++i) {
    if (!a[i].IsNumber() || !b[i].IsNumber()) return Val();
    const double x = a[i].GetDouble(), y = b[i].GetDouble();
    dot += x * y;
    aa += x * x;
    bb += y * y;
    sq += (x - y) * (x - y);
  }
  double result = 0;
  switch (fn) {
    case store::DistanceFunction::kCosine:
      if (aa == 0 || bb == 0) return Val();
      result = dot / std::sqrt(aa * bb);
      break;
    case store::DistanceFunction::kDotProduct: result = dot; break;
    case store::DistanceFunction::kEuclidean: result = std::sqrt(sq); break;
  }
  if (!std::isfinite(result)) return Val();
  return ctx.arena.Number(result);
}

constexpr FunctionDef kVector[] = {
    {"VectorDistance", 2, 4, VectorDistance},
    // What the query plan of a hybrid search scores vectors with in its component queries.
    {"_VectorScore", 2, 4, VectorDistance},
};

}  // namespace

std::span<const FunctionDef> VectorFunctions() { return kVector; }

}  // namespace cosmos::query
