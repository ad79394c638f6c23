// The request pipeline, in one function: context -> route -> authenticate -> handler -> serialise,
// with every failure turned into the service's {"code","message"} answer.
#pragma once

#include "http/context.h"

namespace cosmos::http {

// Pure function from request to response; safe to call from many threads at once.
// `secure`: the request came over TLS (the account document's endpoints follow it). `cancelled`:
// the server's flag for a client that went away (RequestContext::cancelled()); may be null.
Response Handle(Services& services, const Request& request, bool secure = false,
                const std::atomic<bool>* cancelled = nullptr);

// The requests Handle answers at once, waiting on nothing (GET /_health, /ready, /alive, /status):
// the server answers them on its I/O threads, so they answer while every worker is busy.
bool AnswersAtOnce(const Request& request);

// Builds an error response (used by the server for requests it could not even parse).
Response ErrorResponse(int status, const std::string& code, const std::string& message, unsigned version,
                       bool keep_alive);

}  // namespace cosmos::http
