#include "http/emulator_pages.h"

#include "json/json.h"
#include "util/util.h"

namespace cosmos::http {
namespace {

// Host and port of a Host header ("h:1", "[::1]:1", "h"); IPv6 hosts without brackets.
void SplitHost(std::string_view header, std::string& host, std::string& port) {
  if (!header.empty() && header[0] == '[') {
    auto close = header.find(']');
    if (close != std::string_view::npos) {
      host = std::string(header.substr(1, close - 1));
      if (close + 2 < header.size() && header[close + 1] == ':') port = std::string(header.substr(close + 2));
      return;
    }
  }
  auto colon = header.rfind(':');
  if (colon != std::string_view::npos && header.find(':') == colon) {
    host = std::string(header.substr(0, colon));
    port = std::string(header.substr(colon + 1));
  } else {
    host = std::string(header);
  }
}

std::string JoinEndpoint(const std::string& scheme, const std::string& host, const std::string& port) {
  std::string url = scheme + "://";
  url += host.find(':') != std::string::npos ? "[" + host + "]" : host;
  if (!port.empty()) url += ":" + port;
  return url + "/";
}

// The vNext image's health document; its harnesses (Testcontainers for .NET) read
// checks.gateway and checks.postgres. "postgres" is that contract's name for the store check:
// here the in-memory store, healthy whenever the gateway answers.
std::string HealthJson(const Config& config) {
  std::string body = "{\"alive\":true,\"checks\":{\"explorer\":";
  body += config.explorer ? "\"healthy\"" : "\"disabled\"";
  body += ",\"gateway\":\"healthy\",\"postgres\":\"healthy\",\"store\":\"healthy\"},\"overall\":true,\"protocol\":";
  json::WriteString(body, config.protocol);
  body += ",\"ready\":true,\"status\":\"healthy\",\"emulator\":\"cosmos-emulator\"}";
  return body;
}

std::string Escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string Page(const Config& config, const std::string& endpoint) {
  const std::string key = Escape(config.master_key_b64);
  const std::string url = Escape(endpoint);
  std::string html = R"(<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>cosmos-emulator</title>
<style>body{font-family:system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#222}
code{background:#f3f3f3;padding:.1rem .3rem;border-radius:3px;word-break:break-all}th{text-align:left;padding-right:1rem;vertical-align:top}
td,th{padding:.3rem 0}</style></head><body>
<h1>cosmos-emulator is running</h1>
<p>An Azure Cosmos DB (API for NoSQL) emulator. Point an SDK at the endpoint below with the key.</p>
<table>
<tr><th>Endpoint</th><td><code id="endpoint">)";
  html += url;
  html += R"(</code></td></tr>
<tr><th>Key</th><td><code id="key">)";
  html += key;
  html += R"(</code></td></tr>
<tr><th>Connection string</th><td><code id="connection-string">AccountEndpoint=)";
  html += url + ";AccountKey=" + key + ";";
  html += R"(</code></td></tr>
<tr><th>Consistency</th><td>)";
  html += Escape(config.consistency);
  html += R"(</td></tr>
<tr><th>Protocol</th><td>)";
  html += Escape(config.protocol);
  html += "</td></tr>\n";
  if (!config.certificate_pem.empty()) {
    html += R"(<tr><th>Certificate</th><td><a href="/_explorer/emulator.pem">emulator.pem</a> (trust it to connect over HTTPS)</td></tr>
)";
  }
  html += R"(<tr><th>Health</th><td><a href="/ready">/ready</a>, <a href="/alive">/alive</a></td></tr>
<tr><th>Request units</th><td><a href="/_emulator/stats">/_emulator/stats</a></td></tr>
</table>
</body></html>
)";
  return html;
}

void Set(Response& res, unsigned status, const char* content_type, std::string body) {
  res.result(status);
  res.set(beast_http::field::server, "cosmos-emulator");
  res.set(beast_http::field::date, util::FormatRfc1123(std::chrono::system_clock::now()));
  res.set(beast_http::field::content_type, content_type);
  res.set(beast_http::field::cache_control, "no-store");
  res.body() = std::move(body);
  res.prepare_payload();
}

std::string_view PathOf(const Request& req) {
  std::string_view target(req.target().data(), req.target().size());
  return target.substr(0, target.find('?'));
}

bool ServeProbe(const Config& config, std::string_view path, Response& res) {
  if (path != "/ready" && path != "/alive" && path != "/status") return false;
  Set(res, 200, "application/json", HealthJson(config));
  return true;
}

}  // namespace

namespace {

// The gateway's endpoint for a request that came with `host_header` over a connection (`secure`):
// the configured public host, port and scheme, else the request's host and the connection's
// scheme; with the port the request came to, or (`via_explorer_port`) the gateway's, with the
// gateway's own protocol when it serves only one.
std::string GatewayEndpoint(const Config& config, std::string_view host_header, bool secure, bool via_explorer_port) {
  std::string host, port;
  SplitHost(host_header, host, port);
  if (host.empty()) host = "127.0.0.1";
  std::string scheme = secure ? "https" : "http";
  if (via_explorer_port) {
    if (!config.gateway_port.empty()) port = config.gateway_port;
    if (config.protocol != "both") scheme = config.protocol;
  }
  if (!config.public_host.empty()) host = config.public_host;
  if (!config.public_port.empty()) port = config.public_port;
  if (!config.public_scheme.empty()) scheme = config.public_scheme;
  return JoinEndpoint(scheme, host, port);
}

std::string_view HostHeader(const Request& req) {
  auto host = req.find(beast_http::field::host);
  return host == req.end() ? std::string_view() : std::string_view(host->value().data(), host->value().size());
}

}  // namespace

std::string PublicEndpointFor(const Config& config, std::string_view host_header, bool secure) {
  return GatewayEndpoint(config, host_header, secure, false);
}

bool ServeEmulatorPage(const Config& config, const Request& req, bool secure, Response& res) {
  if (req.method() != beast_http::verb::get) return false;
  const std::string_view path = PathOf(req);
  if (ServeProbe(config, path, res)) return true;
  if (path == "/_explorer/emulator.pem") {
    if (config.certificate_pem.empty()) {
      Set(res, 404, "application/json",
          "{\"code\":\"NotFound\",\"message\":\"This emulator serves HTTP only (PROTOCOL=http): it has no certificate.\"}");
      return true;
    }
    Set(res, 200, "application/x-pem-file", config.certificate_pem);
    return true;
  }
  if (path == "/_explorer/index.html" || path == "/_explorer/" || path == "/_explorer") {
    if (!config.explorer) {
      Set(res, 404, "application/json",
          "{\"code\":\"NotFound\",\"message\":\"The emulator's page is disabled (ENABLE_EXPLORER=false).\"}");
      return true;
    }
    Set(res, 200, "text/html; charset=utf-8", Page(config, PublicEndpointFor(config, HostHeader(req), secure)));
    return true;
  }
  return false;
}

Response HandleHealthPort(const Config& config, const Request& req) {
  Response res{beast_http::status::ok, req.version()};
  res.keep_alive(req.keep_alive());
  if (req.method() == beast_http::verb::get && ServeProbe(config, PathOf(req), res)) return res;
  Set(res, 404, "application/json", "{\"code\":\"NotFound\",\"message\":\"This port serves /ready, /alive and /status.\"}");
  return res;
}

Response HandleExplorerPort(const Config& config, const Request& req, bool secure) {
  Response res{beast_http::status::ok, req.version()};
  res.keep_alive(req.keep_alive());
  const std::string_view path = PathOf(req);
  if (req.method() == beast_http::verb::get && (path == "/" || path == "/index.html")) {
    // The page names the gateway, not this port.
    Set(res, 200, "text/html; charset=utf-8", Page(config, GatewayEndpoint(config, HostHeader(req), secure, true)));
    return res;
  }
  if (ServeEmulatorPage(config, req, secure, res)) return res;
  Set(res, 404, "application/json", "{\"code\":\"NotFound\",\"message\":\"This port serves the emulator's page.\"}");
  return res;
}

}  // namespace cosmos::http
