#include "http/context.h"

#include "util/util.h"

namespace cosmos::http {

bool RequestContext::BoolHeader(std::string_view name) const {
  auto v = Header(name);
  return v && util::EqualsIgnoreCase(*v, "true");
}

}  // namespace cosmos::http
