// Patch conditions ("FROM c WHERE <predicate>") evaluated against one document, with Cosmos
// semantics: = and != between values of different types are false and true, ordering comparisons
// of mismatched types are undefined, and only a true predicate passes.
//
// This covers the predicate subset patch conditions use (comparisons, AND/OR/NOT, property paths,
// literals, parentheses, the type-check functions, ARRAY_CONTAINS/STARTSWITH/ENDSWITH/CONTAINS).
// The full SQL engine (sqlparser/ + query/ bind-plan-execute) replaces the parser here when it lands;
// anything outside the subset is refused with 400, never guessed.
#pragma once

#include <string_view>

#include "json/json.h"

namespace cosmos::query {

// Returns whether `doc` satisfies the condition; throws CosmosError 400 for a condition that does
// not parse or uses something outside the supported subset.
bool EvaluatePatchCondition(std::string_view condition, const json::Value& doc);

}  // namespace cosmos::query
