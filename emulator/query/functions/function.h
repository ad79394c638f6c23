// The system functions of the query language: one registry table, filled by one file per family.
//
// A function receives evaluated arguments and returns a value; wrong argument types give
// undefined, as in the service. Aggregates (COUNT, SUM, ...) are not here: the executor owns them.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "query/value.h"
#include "store/vector_policy.h"

namespace cosmos::query {

// Where one user-defined function call must end besides its own time limit: at the query page's
// deadline (when the page may end there) and when the request is cancelled.
struct UdfLimits {
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  const std::atomic<bool>* cancelled = nullptr;
};

// Thrown by Udfs::Call when the function was stopped at UdfLimits::deadline (the page then ends
// before the row that called it).
struct UdfDeadline {};

// The container's user-defined functions, as a query calls them: udf.name(args).
class Udfs {
 public:
  virtual ~Udfs() = default;
  virtual bool Has(std::string_view name) const = 0;
  // Runs one; the result lives in `arena` (undefined when it returned undefined). Throws
  // CosmosError when the function fails (408 when cancelled), UdfDeadline when it reached
  // `limits.deadline`.
  virtual Val Call(std::string_view name, std::span<const Val> args, Arena& arena, const UdfLimits& limits) = 0;
};

// What a function may use besides its arguments.
struct FunctionContext {
  Arena& arena;
  // The query's start time in Unix milliseconds: every date-time function that reads "now" in one
  // query sees this same instant.
  int64_t now_ms = 0;
  Udfs* udfs = nullptr;
  // The container's geospatialConfig type is Geometry: the spatial functions work on the plane
  // (spatial_plane.h) instead of the earth.
  bool geometry = false;
};

using ScalarFunction = Val (*)(FunctionContext& ctx, std::span<const Val> args);

struct FunctionDef {
  std::string_view name;  // canonical spelling (as documented, e.g. "ARRAY_CONTAINS", "DateTimeAdd")
  int min_args;
  int max_args;            // -1: no upper bound
  ScalarFunction fn;
};

// Case-insensitive lookup in the one registry table; null when the service has no such function.
const FunctionDef* FindFunction(std::string_view name);

// The family tables the registry is built from (functions/<family>.cpp).
std::span<const FunctionDef> TypeCheckingFunctions();  // IS_ARRAY ... IS_STRING, IS_DEFINED, ...
std::span<const FunctionDef> MathFunctions();          // ABS ... TRUNC, NumberBin, Int*
std::span<const FunctionDef> StringFunctions();        // CONCAT ... ToString, RegexMatch, StringTo*
std::span<const FunctionDef> ArrayFunctions();         // ARRAY_CONCAT ... SetIntersect, SetUnion
std::span<const FunctionDef> ConditionalFunctions();   // IIF
std::span<const FunctionDef> ItemFunctions();          // DOCUMENTID
std::span<const FunctionDef> DateTimeFunctions();      // GetCurrentDateTime ... TicksToDateTime
std::span<const FunctionDef> SpatialFunctions();       // ST_DISTANCE, ST_WITHIN, ST_INTERSECTS, ST_ISVALID...
std::span<const FunctionDef> VectorFunctions();        // VectorDistance, _VectorScore
// The distance function a VectorDistance call with these arguments scores with (its options, else
// the policy's function the binder appends, else cosine); nullopt when its options are not an
// object (the call is then undefined for every document).
std::optional<store::DistanceFunction> VectorDistanceFunctionOf(std::span<const Val> args);
std::span<const FunctionDef> FullTextFunctions();      // FullTextContains*, FullTextScore, RRF, _FullText*

}  // namespace cosmos::query
