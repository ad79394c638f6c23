// A container's computed properties (`computedProperties`): top-level names whose value is a query
// expression over the item, evaluated when a query names them and never stored in the item.
// query/computed_properties.h checks a definition and builds this; the binder expands a reference.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace cosmos::sql {
struct Query;
}

namespace cosmos::store {

struct ComputedProperty {
  std::string name;                      // a top-level property name
  std::string query;                     // as given: SELECT VALUE <expression> FROM <alias>
  std::shared_ptr<const sql::Query> ast;  // its parse tree
};

struct ComputedProperties {
  std::vector<ComputedProperty> list;  // in the order given

  const ComputedProperty* Find(std::string_view name) const {
    for (const auto& p : list) {
      if (p.name == name) return &p;
    }
    return nullptr;
  }
};

}  // namespace cosmos::store
