// PLACEHOLDER: filled in by the spatial family work.
#include "query/functions/function.h"

namespace cosmos::query {

std::span<const FunctionDef> SpatialFunctions() { return {}; }

}  // namespace cosmos::query
