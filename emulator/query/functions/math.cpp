// PLACEHOLDER: filled in by the math family work.
#include "query/functions/function.h"

namespace cosmos::query {

std::span<const FunctionDef> MathFunctions() { return {}; }

}  // namespace cosmos::query
