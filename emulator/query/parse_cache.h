// Parsed queries by text: SDKs send the same query for every page, and applications the same few
// query shapes with different parameters, so each text is parsed once.
#pragma once

#include <memory>
#include <string_view>

#include "sqlparser/ast.h"

namespace cosmos::query {

// Returns the syntax tree of `text`; throws CosmosError 400 with the service's SC code and
// location for a syntax error. Thread-safe.
std::shared_ptr<const sql::Query> ParseQuery(std::string_view text);

}  // namespace cosmos::query
