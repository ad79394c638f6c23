// The in-process emulator the end-to-end benchmarks drive: what main() wires together (a manual
// clock for the limiter), signed requests built as tests/http/http_test_util.h builds them
// (docs/protocol.md §2), sent through http::Handle without sockets.
#pragma once

#include <chrono>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "http/auth.h"
#include "http/context.h"
#include "http/pipeline.h"
#include "stats/report.h"
#include "store/store.h"
#include "throughput/limiter.h"
#include "util/clock.h"
#include "util/util.h"

namespace cosmos::bench {

namespace bh = boost::beast::http;

inline constexpr const char* kEmulatorKey =
    "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

struct Env {
  store::Account account;
  http::Config config;
  throughput::ManualClock clock{1'000'000};
  throughput::RateLimiter limiter{clock};
  stats::Report stats{[](const std::string&) {}};
  util::WallClock wall;
  http::Services services{account, config, limiter, stats, wall};
  int containers = 0;

  Env() {
    config.master_key_b64 = kEmulatorKey;
    config.master_key = *util::Base64Decode(kEmulatorKey);
  }

  http::Request Build(bh::verb verb, const std::string& target, std::string body = "",
                      const std::vector<std::pair<std::string, std::string>>& headers = {}) const {
    http::Request req{verb, target, 11};
    req.set(bh::field::host, "localhost:8081");
    req.set("x-ms-version", "2020-07-15");
    const std::string date = util::FormatRfc1123(std::chrono::system_clock::now());
    req.set("x-ms-date", date);
    std::vector<std::string> segments;
    for (size_t i = 0; i < target.size();) {
      size_t end = target.find('/', i);
      if (end == std::string::npos) end = target.size();
      if (end > i) segments.push_back(target.substr(i, end - i));  // no escapes in these targets
      i = end + 1;
    }
    const std::string verb_text(bh::to_string(verb));
    const auto addr = http::AddressFor(verb_text, segments);
    req.set(bh::field::authorization,
            util::PercentEncode("type=master&ver=1.0&sig=" + http::Sign(config.master_key, verb_text, addr, date)));
    if (!body.empty() || verb == bh::verb::post || verb == bh::verb::put) req.set(bh::field::content_type, "application/json");
    for (const auto& [k, v] : headers) req.set(k, v);
    req.body() = std::move(body);
    req.prepare_payload();
    return req;
  }
  int Send(const http::Request& req) { return static_cast<int>(http::Handle(services, req).result_int()); }
};

// The process's one environment, with the database "bench" made.
inline Env& E2E() {
  static Env* env = [] {
    auto* e = new Env;
    if (e->Send(e->Build(bh::verb::post, "/dbs", R"({"id":"bench"})")) != 201) std::abort();
    return e;
  }();
  return *env;
}

// A response header as text ("" when absent).
inline std::string HeaderOf(const http::Response& res, const char* name) {
  auto it = res.find(name);
  if (it == res.end()) return "";
  return std::string(it->value().data(), it->value().size());
}

inline double ChargeOf(const http::Response& res) {
  return std::strtod(HeaderOf(res, "x-ms-request-charge").c_str(), nullptr);
}

// "<what> answered <status>: <body start>", for a benchmark's SkipWithError.
inline std::string Failure(const char* what, const http::Response& res) {
  return std::string(what) + " answered " + std::to_string(res.result_int()) + ": " + res.body().substr(0, 400);
}

}  // namespace cosmos::bench
