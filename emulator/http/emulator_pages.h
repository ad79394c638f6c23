// What the emulator serves about itself, unauthenticated: the health probes the official images'
// harnesses use (/ready, /alive, /status), the certificate (/_explorer/emulator.pem) and the
// emulator's page (/_explorer/index.html), and the endpoint clients are sent to.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "http/context.h"

namespace cosmos::http {

// The gateway URL clients should use ("https://host:port/"): the configured public endpoint,
// each part it leaves empty taken from the request (`secure`, its Host header).
std::string PublicEndpointFor(const Config& config, std::string_view host_header, bool secure);

// Serves GET /ready, /alive, /status, /_explorer/emulator.pem and the Data Explorer
// (/_explorer/, /_explorer/index.html, /_explorer/app.js, ...) into `res` (status, headers, body);
// false for any other request.
bool ServeEmulatorPage(const Config& config, const Request& req, bool secure, Response& res);

// The health port: the probes only; 404 for anything else.
Response HandleHealthPort(const Config& config, const Request& req);

// The explorer port: the Data Explorer at / and /index.html (and under /_explorer/), the
// certificate, the probes; every other request is the REST API, answered by `gateway`.
Response HandleExplorerPort(const Config& config, const Request& req, bool secure,
                            const std::function<Response()>& gateway);

}  // namespace cosmos::http
