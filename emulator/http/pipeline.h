// The request pipeline, in one function: context -> route -> authenticate -> handler -> serialise,
// with every failure turned into the service's {"code","message"} answer.
#pragma once

#include "http/context.h"

namespace cosmos::http {

// Pure function from request to response; safe to call from many threads at once.
// `secure`: the request came over TLS (the account document's endpoints follow it).
Response Handle(Services& services, const Request& request, bool secure = false);

// Builds an error response (used by the server for requests it could not even parse).
Response ErrorResponse(int status, const std::string& code, const std::string& message, unsigned version,
                       bool keep_alive);

}  // namespace cosmos::http
