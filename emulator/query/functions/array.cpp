// PLACEHOLDER: filled in by the array family work.
#include "query/functions/function.h"

namespace cosmos::query {

std::span<const FunctionDef> ArrayFunctions() { return {}; }

}  // namespace cosmos::query
