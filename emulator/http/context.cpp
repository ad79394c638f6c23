#include "http/context.h"

#include <stdexcept>

#include "http/routes.h"
#include "util/util.h"

namespace cosmos::http {

bool RequestContext::BoolHeader(std::string_view name) const {
  auto v = Header(name);
  return v && util::EqualsIgnoreCase(*v, "true");
}

std::optional<std::string> RequestContext::QueryParam(std::string_view name) const {
  std::string_view target(raw_.target().data(), raw_.target().size());
  const std::string_view query = TargetQuery(target);
  if (query.empty()) return std::nullopt;
  for (std::string_view pair : util::Split(query, '&')) {
    const size_t eq = pair.find('=');
    auto key = util::PercentDecode(pair.substr(0, eq));
    if (!key || *key != name) continue;
    return util::PercentDecode(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1));
  }
  return std::nullopt;
}

}  // namespace cosmos::http

namespace cosmos::http {

const std::string& RequestContext::Param(std::string_view name) const {
  for (const auto& [k, v] : params_) {
    if (k == name) return v;
  }
  throw std::logic_error("route has no parameter " + std::string(name));
}

}  // namespace cosmos::http
