// Printing a query in forms other than its normal form (ast.h's ToString).
#pragma once

#include <string>

#include "sqlparser/ast.h"

namespace cosmos::sql {

// The query's normal form without its outer WHERE clause: what a continuation token is bound to,
// since the SDKs resume an ordered cross-partition query with the rewritten query's filter
// placeholder replaced by a condition on the sort keys of the last row they returned.
std::string ToStringWithoutWhere(const Query& q);

}  // namespace cosmos::sql
