// PLACEHOLDER: filled in by the type_checking family work.
#include "query/functions/function.h"

namespace cosmos::query {

std::span<const FunctionDef> TypeCheckingFunctions() { return {}; }

}  // namespace cosmos::query
