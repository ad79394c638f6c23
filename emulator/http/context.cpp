#include "http/context.h"

#include <stdexcept>

#include "util/util.h"

namespace cosmos::http {

bool RequestContext::BoolHeader(std::string_view name) const {
  auto v = Header(name);
  return v && util::EqualsIgnoreCase(*v, "true");
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
