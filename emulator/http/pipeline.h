// The request pipeline, in one function: context -> route -> authenticate -> handler -> serialise,
// with every failure turned into the service's {"code","message"} answer.
#pragma once

#include "http/context.h"

namespace cosmos::http {

// Pure function from request to response; safe to call from many threads at once.
// `secure`: the request came over TLS (the account document's endpoints follow it). `cancelled`:
// the server's flag for a client that went away (RequestContext::cancelled()); may be null.
// `compute_endpoint`: it came to the SQL compute endpoint (--compute-port) rather than the gateway.
Response Handle(Services& services, const Request& request, bool secure = false,
                const std::atomic<bool>* cancelled = nullptr, bool compute_endpoint = false);

// The requests the server answers on its I/O threads: GET /_health, /ready, /alive and /status,
// which wait on nothing (so they answer while every worker is busy), point reads of items, and with
// `item_writes` creates, upserts, replaces, patches and deletes of one item without triggers (a
// write that would wait throws util::WouldBlock and goes to a worker). `item_writes` is false when
// a write waits for the disk (--durability fsync).
bool AnswersAtOnce(const Request& request, bool item_writes = true);

// Builds an error response (used by the server for requests it could not even parse).
Response ErrorResponse(int status, const std::string& code, const std::string& message, unsigned version,
                       bool keep_alive);

}  // namespace cosmos::http
