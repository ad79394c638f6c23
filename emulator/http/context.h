// The typed request a handler sees, and the typed result it returns. Handlers never touch Beast.
#pragma once

#include <boost/beast/http.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stats/report.h"
#include "store/store.h"
#include "throughput/limiter.h"
#include "util/clock.h"

namespace cosmos::http {

namespace beast_http = boost::beast::http;
using Request = beast_http::request<beast_http::string_body>;
using Response = beast_http::response<beast_http::string_body>;

struct Config {
  std::string master_key_b64;
  std::string master_key;  // decoded bytes
  std::string consistency = "Session";
  size_t max_item_bytes = 2 * 1024 * 1024;
  int clock_skew_seconds = 15 * 60;
  int script_timeout_ms = 5000;                // stored procedures, triggers, each UDF call
  size_t script_memory_bytes = 512u << 20;     // what one script execution may allocate
};

// Everything a handler may use besides the request.
struct Services {
  store::Account& account;
  const Config& config;
  const throughput::RateLimiter& limiter;
  stats::Report& stats;
  util::WallClock& clock;  // item timestamps, time to live, change-feed start times
};

// One parsed request. Header lookups are case-insensitive.
class RequestContext {
 public:
  RequestContext(const Request& raw, std::vector<std::string> segments) : raw_(raw), segments_(std::move(segments)) {}

  const Request& raw() const { return raw_; }
  beast_http::verb verb() const { return raw_.method(); }
  const std::vector<std::string>& segments() const { return segments_; }
  // The path segment at `i` (ids are already percent-decoded).
  const std::string& seg(size_t i) const { return segments_.at(i); }
  const std::string& body() const { return raw_.body(); }

  std::optional<std::string_view> Header(std::string_view name) const {
    auto it = raw_.find(boost::beast::string_view(name.data(), name.size()));
    if (it == raw_.end()) return std::nullopt;
    return std::string_view(it->value().data(), it->value().size());
  }
  // "true"/"True"/"TRUE" -> true; absent or anything else -> false.
  bool BoolHeader(std::string_view name) const;

  // What the request used (container, partitions, operation), filled in by the handler once it
  // has routed the request; the pipeline charges it to the rate limiter and the RU report.
  stats::Usage usage;

 private:
  const Request& raw_;
  std::vector<std::string> segments_;
};

// What a handler produced; the pipeline adds the common headers.
struct Result {
  int status = 200;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  double charge = 0;
};

}  // namespace cosmos::http
