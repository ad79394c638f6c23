// PLACEHOLDER: filled in by the date_time family work.
#include "query/functions/function.h"

namespace cosmos::query {

std::span<const FunctionDef> DateTimeFunctions() { return {}; }

}  // namespace cosmos::query
