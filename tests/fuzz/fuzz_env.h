// The in-process emulator the fuzz targets drive: the whole request pipeline (http::Handle) on a
// store seeded with a database, a container and items of every JSON type; requests are signed
// with the master key so that fuzzed input reaches the handlers, not only the authentication.
#pragma once

#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http/auth.h"
#include "http/context.h"
#include "http/pipeline.h"
#include "scripting/engine.h"
#include "stats/report.h"
#include "store/store.h"
#include "throughput/limiter.h"
#include "util/clock.h"
#include "util/util.h"

namespace cosmos::fuzz {

namespace bh = boost::beast::http;

// The instant the emulator's clock starts at and every request is dated: 2023-11-14T22:13:20Z.
inline constexpr int64_t kEpochMs = 1'700'000'000'000;

inline constexpr const char* kKey =
    "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

using Headers = std::vector<std::pair<std::string, std::string>>;

// Ends the run as a crash libFuzzer reports (and keeps the input of). Not std::abort: SpiderMonkey's
// library exports its own abort(), which crashes on purpose with a null write, and the report then
// reads as a SEGV in mozalloc_abort.
[[noreturn]] inline void Finding(const char* what) {
  std::fprintf(stderr, "fuzz finding: %s\n", what);
  std::fflush(stderr);
  std::raise(SIGABRT);
  std::_Exit(1);
}

class Env {
 public:
  Env() : limiter_(clock_), services_{account_, config_, limiter_, stats_, wall_clock_} {
    config_.master_key_b64 = kKey;
    config_.master_key = *util::Base64Decode(kKey);
    config_.script_timeout_ms = 200;
    // Requests are dated kEpochMs (below), whatever the real time: their signatures, and the paths
    // encoding and checking them take, are then the same in every run.
    config_.clock_skew_seconds = 1 << 30;
    config_.script_memory_bytes = 64u << 20;
    Seed();
  }

  // The store grows as inputs create things; a fresh one every so often keeps runs bounded.
  void MaybeReset() {
    if (++requests_ % 5000 != 0) return;
    for (const auto& db : account_.Databases()) account_.DeleteDatabase(db->id());
    Seed();
  }

  http::Response Send(bh::verb verb, std::string_view target, std::string body, const Headers& headers,
                      bool sign = true) {
    http::Request req{verb, boost::beast::string_view(target.data(), target.size()), 11};
    req.set(bh::field::host, "localhost:8081");
    const std::string date =
        util::FormatRfc1123(std::chrono::system_clock::time_point(std::chrono::milliseconds(kEpochMs)));
    req.set("x-ms-date", date);
    req.set("x-ms-version", "2020-07-15");
    if (sign) {
      const std::string verb_text(bh::to_string(verb));
      auto addr = http::AddressFor(verb_text, Segments(target));
      req.set(bh::field::authorization,
              util::PercentEncode("type=master&ver=1.0&sig=" + http::Sign(config_.master_key, verb_text, addr, date)));
    }
    for (const auto& [k, v] : headers) req.set(k, v);
    req.body() = std::move(body);
    req.prepare_payload();
    wall_clock_.Advance(1);
    http::Response res = http::Handle(services_, req);
    // An exception the handlers did not turn into a service error reaches the pipeline's last
    // catch as a 500: no input should get there, so it is a finding like a crash.
    if (res.result_int() == 500) {
      std::fprintf(stderr, "500 answer to %s %.*s: %s\n", std::string(bh::to_string(verb)).c_str(),
                   static_cast<int>(target.size()), target.data(), res.body().c_str());
      Finding("a 500 answer");
    }
    return res;
  }

  // Path segments as the signature names them (percent-decoded, query string dropped).
  static std::vector<std::string> Segments(std::string_view target) {
    if (auto q = target.find('?'); q != std::string_view::npos) target = target.substr(0, q);
    std::vector<std::string> out;
    size_t i = 0;
    while (i <= target.size()) {
      size_t end = target.find('/', i);
      if (end == std::string_view::npos) end = target.size();
      if (end > i) {
        auto decoded = util::PercentDecode(target.substr(i, end - i));
        out.push_back(decoded ? *decoded : std::string(target.substr(i, end - i)));
      }
      i = end + 1;
    }
    return out;
  }

 private:
  void Seed() {
    Send(bh::verb::post, "/dbs", R"({"id":"db"})", {});
    Send(bh::verb::post, "/dbs/db/colls",
         R"({"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash"},"changeFeedPolicy":{"retentionDuration":10},)"
         R"("indexingPolicy":{"compositeIndexes":[[{"path":"/n"},{"path":"/s","order":"descending"}]]}})",
         {{"x-ms-offer-throughput", "12000"}});
    const char* items[] = {
        R"({"id":"1","pk":"a","n":1,"s":"one","b":true,"arr":[1,2,3],"o":{"x":1,"y":[{"z":"q"}]}})",
        R"({"id":"2","pk":"a","n":2.5,"s":"two","b":false,"arr":[],"o":{"x":null}})",
        R"({"id":"3","pk":"b","n":-7,"s":"","arr":["x",{"k":1}],"o":{}})",
        R"({"id":"4","pk":"b","n":9007199254740993,"s":"ÿ€𝄞","nul":null,"arr":[[1],[2,[3]]]})",
        R"({"id":"5","pk":"c","s":"5","n":"5","arr":[true,false,null]})",
        R"({"id":"6","pk":1,"n":1e308,"s":"Z","geo":{"type":"Point","coordinates":[1.5,2.5]}})",
        R"({"id":"7","pk":null,"n":0,"s":"a\"b\\c"})",
        R"({"id":"8","n":-0.0,"s":"ab","tags":["x","y","x"]})",
    };
    for (const char* item : items) {
      Send(bh::verb::post, "/dbs/db/colls/c/docs", item, {{"x-ms-documentdb-partitionkey", PartitionKeyOf(item)}});
    }
    Send(bh::verb::post, "/dbs/db/colls/c/udfs", R"({"id":"twice","body":"function twice(x) { return x * 2; }"})", {});
  }

  static std::string PartitionKeyOf(std::string_view item) {
    auto p = item.find("\"pk\":");
    if (p == std::string_view::npos) return "[{}]";
    auto end = item.find_first_of(",}", p + 5);
    return "[" + std::string(item.substr(p + 5, end - p - 5)) + "]";
  }

  store::Account account_;
  http::Config config_;
  throughput::SystemClock clock_;
  throughput::RateLimiter limiter_;
  stats::Report stats_;
  // The emulator's clock (item timestamps, time to live, change-feed start times) starts at a fixed
  // instant and moves 1 ms per request, so that a run from a fixed seed sees the same times every
  // time; real time would change which paths inputs take (an item expiring or not).
  util::WallClock wall_clock_{kEpochMs};
  http::Services services_;
  uint64_t requests_ = 0;
};

// One Env per process; the scripting engine is started first.
inline Env& TheEnv() {
  static Env* env = [] {
    scripting::Initialize();
    return new Env();
  }();
  return *env;
}

}  // namespace cosmos::fuzz
