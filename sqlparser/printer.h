// Printing a query in forms other than its normal form (ast.h's ToString).
#pragma once

#include <string>

#include "sqlparser/ast.h"

namespace cosmos::sql {

// The query's normal form without its outer WHERE clause: what a continuation token is bound to,
// since the SDKs resume an ordered cross-partition query with the rewritten query's filter
// placeholder replaced by a condition on the sort keys of the last row they returned.
std::string ToStringWithoutWhere(const Query& q);

// The query's shape: its normal form with every string and number constant written as `?`
// (property names in brackets, c["name"] and c.tags[0], stay), so that queries that differ only
// in their values are one shape and no value is shown where shapes are (the RU report).
std::string ToShape(const Query& q);

// While one lives on a thread, numbers that are not whole print as the service's query planner
// writes them back in a plan, with 17 significant digits (-0.005676387343555689 as
// -0.0056763873435556889; 1.5 stays 1.5), instead of the shortest text that reads back the same
// (which the service's SQL parser prints, and the normal form keeps).
class PlanNumberStyle {
 public:
  PlanNumberStyle();
  ~PlanNumberStyle();
  PlanNumberStyle(const PlanNumberStyle&) = delete;
  PlanNumberStyle& operator=(const PlanNumberStyle&) = delete;

 private:
  bool saved_;
};

}  // namespace cosmos::sql
