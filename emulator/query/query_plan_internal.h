// Internal to the query plan (query_plan.cpp, query_ranges.cpp): what both use.
#pragma once

#include <string>

#include "sqlparser/ast.h"

namespace cosmos::query::detail {

// The alias the first FROM source binds (the document variable of the query).
std::string RootAlias(const sql::Query& q);

}  // namespace cosmos::query::detail
