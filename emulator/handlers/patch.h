// Partial document update: the six patch operations applied to a document in place.
#pragma once

#include <string>
#include <vector>

#include "json/json.h"

namespace cosmos::handlers {

// Validates the operations array (1..10 entries, known ops, paths); throws 400 when invalid.
void ValidatePatchOperations(const json::Value& ops, const std::vector<std::vector<std::string>>& pk_paths);
// Applies the operations to `doc` (allocator `a`) in order; throws 400 when one cannot apply.
void ApplyPatch(json::Value& doc, json::Allocator& a, const json::Value& ops);

}  // namespace cosmos::handlers
