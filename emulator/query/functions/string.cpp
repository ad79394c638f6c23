// PLACEHOLDER: filled in by the string family work.
#include "query/functions/function.h"

namespace cosmos::query {

std::span<const FunctionDef> StringFunctions() { return {}; }

}  // namespace cosmos::query
