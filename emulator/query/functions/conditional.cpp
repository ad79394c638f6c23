// Conditional functions: IIF.
#include "query/functions/function.h"

namespace cosmos::query {

namespace {

// The second argument when the first is the boolean true; the third for anything else (false,
// other types, undefined).
Val Iif(FunctionContext&, std::span<const Val> args) { return args[0].IsTrue() ? args[1] : args[2]; }

constexpr FunctionDef kConditionalFunctions[] = {
    {"IIF", 3, 3, Iif},
};

}  // namespace

std::span<const FunctionDef> ConditionalFunctions() { return kConditionalFunctions; }

}  // namespace cosmos::query
