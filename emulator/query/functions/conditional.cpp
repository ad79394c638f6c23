// PLACEHOLDER: filled in by the conditional family work.
#include "query/functions/function.h"

namespace cosmos::query {

std::span<const FunctionDef> ConditionalFunctions() { return {}; }

}  // namespace cosmos::query
