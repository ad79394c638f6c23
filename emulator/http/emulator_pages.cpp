#include "http/emulator_pages.h"

#include <cstdio>
#include <functional>

#include "common/well_known_key.h"
#include "http/explorer_assets.h"
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

// Whether the unauthenticated page may show the master key: only the published well-known one. A
// key of the user's own stays off it (the Data Explorer asks for it instead).
bool PageShowsKey(const Config& config) {
  return config.master_key_b64 == kWellKnownKey;
}

// The account's connection details as an HTML table: what an SDK needs.
std::string ConnectionTable(const Config& config, const std::string& endpoint) {
  const std::string key =
      PageShowsKey(config) ? Escape(config.master_key_b64) : "(the key the emulator was started with)";
  const std::string url = Escape(endpoint);
  std::string html = "<table>\n<tr><th>Endpoint</th><td><code id=\"endpoint\">" + url + "</code></td></tr>\n";
  html += "<tr><th>Key</th><td><code id=\"key\">" + key + "</code></td></tr>\n";
  html += "<tr><th>Connection string</th><td><code id=\"connection-string\">AccountEndpoint=" + url +
          ";AccountKey=" + key + ";</code></td></tr>\n";
  if (config.disable_local_auth)
    html += "<tr><th>Local authorization</th><td id=\"local-authorization\">disabled: requests signed with a key answer "
            "401; sign in with a Microsoft Entra ID token (<a href=\"https://aka.ms/cosmos-native-rbac\">"
            "https://aka.ms/cosmos-native-rbac</a>)</td></tr>\n";
  html += "<tr><th>Consistency</th><td>" + Escape(config.consistency) + "</td></tr>\n";
  html += "<tr><th>Protocol</th><td>" + Escape(config.protocol) + "</td></tr>\n";
  if (!config.certificate_pem.empty()) {
    html += "<tr><th>Certificate</th><td><a href=\"/_explorer/emulator.pem\">emulator.pem</a> (trust it to connect "
            "over HTTPS)</td></tr>\n";
  }
  html += "<tr><th>Health</th><td><a href=\"/ready\">/ready</a>, <a href=\"/alive\">/alive</a></td></tr>\n";
  html += "<tr><th>Request units</th><td><a href=\"/_emulator/stats\">/_emulator/stats</a></td></tr>\n</table>\n";
  return html;
}

// What the Data Explorer reads at start (a JSON island in its page): the gateway endpoint, the key
// when it is the well-known one (null otherwise), and the account's settings (disableLocalAuth
// among them: the page then signs with a token instead of the key).
std::string ExplorerConfig(const Config& config, const std::string& endpoint) {
  std::string body = "{\"endpoint\":";
  json::WriteString(body, endpoint);
  body += ",\"key\":";
  if (PageShowsKey(config)) {
    json::WriteString(body, config.master_key_b64);
  } else {
    body += "null";
  }
  body += ",\"consistency\":";
  json::WriteString(body, config.consistency);
  body += ",\"protocol\":";
  json::WriteString(body, config.protocol);
  body += ",\"certificate\":";
  body += config.certificate_pem.empty() ? "false" : "true";
  // The account's disableLocalAuth: keys answer 401, and the page asks for an Entra ID token.
  body += ",\"disableLocalAuth\":";
  body += config.disable_local_auth ? "true" : "false";
  body += "}";
  // Inside <script>, "</" could end the element early.
  std::string safe;
  for (size_t i = 0; i < body.size(); ++i) {
    safe += body[i];
    if (body[i] == '<' && i + 1 < body.size() && body[i + 1] == '/') safe += "\\";
  }
  return safe;
}

const EmbeddedFile* FindExplorerFile(std::string_view name) {
  for (const auto& f : ExplorerFiles()) {
    if (f.path == name) return &f;
  }
  return nullptr;
}

void ReplaceOnce(std::string& text, std::string_view marker, const std::string& with) {
  auto at = text.find(marker);
  if (at != std::string::npos) text.replace(at, marker.size(), with);
}

// The Data Explorer's page with this emulator's details filled in; without the bundled page (a
// build with -DCOSMOS_BUILD_EXPLORER=OFF), the connection details alone.
std::string Page(const Config& config, const std::string& endpoint) {
  if (const auto* index = FindExplorerFile("index.html")) {
    std::string html(index->data);
    ReplaceOnce(html, "<!--connection-->", ConnectionTable(config, endpoint));
    ReplaceOnce(html, "<!--config-->",
                "<script id=\"config\" type=\"application/json\">" + ExplorerConfig(config, endpoint) + "</script>");
    return html;
  }
  return R"(<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>cosmos-emulator</title>
<style>body{font-family:system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#222}
code{background:#f3f3f3;padding:.1rem .3rem;border-radius:3px;word-break:break-all}th{text-align:left;padding-right:1rem;vertical-align:top}
td,th{padding:.3rem 0}</style></head><body>
<h1>cosmos-emulator is running</h1>
<p>An Azure Cosmos DB (API for NoSQL) emulator. Point an SDK at the endpoint below with the key.
This build has no Data Explorer (built with -DCOSMOS_BUILD_EXPLORER=OFF).</p>
)" + ConnectionTable(config, endpoint) +
         "</body></html>\n";
}

const char* ContentTypeOf(std::string_view name) {
  if (name.ends_with(".js")) return "text/javascript; charset=utf-8";
  if (name.ends_with(".css")) return "text/css; charset=utf-8";
  if (name.ends_with(".html")) return "text/html; charset=utf-8";
  if (name.ends_with(".svg")) return "image/svg+xml";
  return "application/octet-stream";
}

// A strong validator for an embedded file: FNV-1a over its bytes.
std::string EtagOf(std::string_view data) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : data) h = (h ^ c) * 1099511628211ull;
  char text[24];
  std::snprintf(text, sizeof text, "\"%016llx\"", static_cast<unsigned long long>(h));
  return text;
}

bool AcceptsGzip(const Request& req) {
  auto h = req.find(beast_http::field::accept_encoding);
  if (h == req.end()) return false;
  // "gzip" listed and not refused with q=0.
  for (auto part : util::Split(std::string_view(h->value().data(), h->value().size()), ',')) {
    auto item = util::Trim(part);
    auto semi = item.find(';');
    auto coding = util::Trim(item.substr(0, semi));
    if (!util::EqualsIgnoreCase(coding, "gzip")) continue;
    if (semi == std::string_view::npos) return true;
    auto q = util::Trim(item.substr(semi + 1));
    return !(q == "q=0" || q == "q=0.0" || q == "q=0.00" || q == "q=0.000");
  }
  return false;
}

void Set(Response& res, unsigned status, const char* content_type, std::string body) {
  res.result(status);
  res.set(beast_http::field::server, "cosmos-emulator");
  res.set(beast_http::field::date, util::FormatRfc1123(std::chrono::system_clock::now()));
  res.set(beast_http::field::content_type, content_type);
  res.set(beast_http::field::cache_control, "no-store");
  res.set("X-Content-Type-Options", "nosniff");
  res.body() = std::move(body);
  res.prepare_payload();
}

// The page's headers: the browser runs the bundled script alone (no inline script, no eval),
// talks to this origin and the gateway only, and the page cannot be framed by another site
// (clickjacking: with the well-known key the page can change the account).
void SetPage(Response& res, const std::string& endpoint, const Config& config) {
  Set(res, 200, "text/html; charset=utf-8", Page(config, endpoint));
  res.set("Content-Security-Policy",
          "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
          "font-src 'self'; connect-src 'self' " + endpoint + "; object-src 'none'; base-uri 'none'; "
          "form-action 'self'; frame-ancestors 'none'");
  res.set("X-Frame-Options", "DENY");
  res.set("Referrer-Policy", "no-referrer");
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

// One of the bundled files (app.js, app.css), with a validator (304 when the browser has it) and
// the gzip copy when the browser takes it.
void ServeExplorerFile(const Request& req, std::string_view name, Response& res) {
  const EmbeddedFile* file = name == "index.html" || name.ends_with(".gz") ? nullptr : FindExplorerFile(name);
  if (!file) {
    Set(res, 404, "application/json",
        ExplorerFiles().empty()
            ? "{\"code\":\"NotFound\",\"message\":\"This emulator was built without the Data Explorer.\"}"
            : "{\"code\":\"NotFound\",\"message\":\"The Data Explorer has no such file.\"}");
    return;
  }
  const std::string etag = EtagOf(file->data);
  const EmbeddedFile* gz = AcceptsGzip(req) ? FindExplorerFile(std::string(name) + ".gz") : nullptr;
  if (auto inm = req.find(beast_http::field::if_none_match);
      inm != req.end() && std::string_view(inm->value().data(), inm->value().size()) == etag) {
    Set(res, 304, ContentTypeOf(name), "");
    res.content_length(boost::none);
  } else {
    Set(res, 200, ContentTypeOf(name), std::string(gz ? gz->data : file->data));
    if (gz) res.set(beast_http::field::content_encoding, "gzip");
  }
  // Kept by the browser, checked on every load: a new build is picked up at once.
  res.set(beast_http::field::cache_control, "no-cache");
  res.set(beast_http::field::etag, etag);
  res.set(beast_http::field::vary, "Accept-Encoding");
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
  if (path == "/_explorer" || path.starts_with("/_explorer/")) {
    if (!config.explorer) {
      Set(res, 404, "application/json",
          "{\"code\":\"NotFound\",\"message\":\"The emulator's page is disabled (ENABLE_EXPLORER=false).\"}");
      return true;
    }
    if (path == "/_explorer/index.html" || path == "/_explorer/" || path == "/_explorer") {
      SetPage(res, PublicEndpointFor(config, HostHeader(req), secure), config);
      return true;
    }
    ServeExplorerFile(req, path.substr(std::string_view("/_explorer/").size()), res);
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

Response HandleExplorerPort(const Config& config, const Request& req, bool secure,
                            const std::function<Response()>& gateway) {
  Response res{beast_http::status::ok, req.version()};
  res.keep_alive(req.keep_alive());
  const std::string_view path = PathOf(req);
  if (req.method() == beast_http::verb::get && (path == "/" || path == "/index.html")) {
    // The page names the gateway, not this port.
    SetPage(res, GatewayEndpoint(config, HostHeader(req), secure, true), config);
    return res;
  }
  if (ServeEmulatorPage(config, req, secure, res)) return res;
  // The page's own requests: the REST API, answered as the gateway answers them (same keys, same
  // handlers), so that the page needs no cross-origin access to the gateway's port.
  return gateway();
}

}  // namespace cosmos::http
