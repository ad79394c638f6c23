// The one registry table: every family's functions, looked up case-insensitively.
#include <string>
#include <unordered_map>

#include "query/functions/function.h"
#include "util/util.h"

namespace cosmos::query {

namespace {

std::unordered_map<std::string, const FunctionDef*> BuildTable() {
  std::unordered_map<std::string, const FunctionDef*> table;
  for (auto family : {TypeCheckingFunctions(), MathFunctions(), StringFunctions(), ArrayFunctions(),
                      ConditionalFunctions(), ItemFunctions(), DateTimeFunctions(), SpatialFunctions(),
                      VectorFunctions(), FullTextFunctions()}) {
    for (const FunctionDef& def : family) table.emplace(util::ToLower(def.name), &def);
  }
  return table;
}

}  // namespace

const FunctionDef* FindFunction(std::string_view name) {
  static const auto table = BuildTable();
  auto it = table.find(util::ToLower(name));
  return it == table.end() ? nullptr : it->second;
}

}  // namespace cosmos::query
