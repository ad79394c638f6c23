// The route table: every (verb, path pattern) the emulator serves, in one place.
#pragma once

#include <string_view>
#include <vector>

#include "http/context.h"

namespace cosmos::http {

using HandlerFn = Result (*)(Services&, RequestContext&);

struct Route {
  std::vector<std::string_view> pattern;  // literal segments, "{}" for an id
  beast_http::verb verb;
  HandlerFn handler;
};

enum class RouteMatch { kFound, kNoSuchPath, kWrongVerb };

// Finds the handler for the decoded path segments and verb.
RouteMatch FindRoute(const std::vector<std::string>& segments, beast_http::verb verb, HandlerFn& out);

}  // namespace cosmos::http
