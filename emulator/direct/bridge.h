// Direct mode's bridge into the gateway (docs/direct-mode.md): an RNTBD request (after the
// connection's context negotiation, which the server answers itself) becomes the HTTP request the
// SDK would have sent in Gateway mode, runs through the same pipeline (routing, authentication,
// handlers, charges, faults), and its answer becomes an RNTBD response. What RNTBD adds on top is
// done here: the replica the client addressed (the ReplicaPath token, from the address feed,
// handlers/addresses.cpp) is checked for staleness, and every answer carries the LSN and replica
// tokens the SDKs' consistency layer needs (notes: rntbd-spec.md §5-7, direct-mode-client.md §3).
#pragma once

#include "http/context.h"
#include "rntbd/message.h"
#include "server/server.h"

namespace cosmos::direct {

// Answers one request. The server echoes the activity id and TransportRequestID itself; the
// answer's drop_connection / delay_ms carry what a fault rule asked of the HTTP answer
// (server::kDropHeader, server::kDelayMsHeader). Safe to call from many threads at once.
rntbd::Response Handle(http::Services& services, const rntbd::Request& request,
                       const server::Connection& connection);

// Whether the request may be answered on the connection's I/O thread: what http::AnswersAtOnce says
// of the HTTP request it becomes (a point read, or a one-item write without triggers when
// `item_writes` may be answered there). Malformed requests: false (a worker answers their error).
bool AnswersAtOnce(const rntbd::Request& request, const http::Config& config, bool item_writes);

}  // namespace cosmos::direct
