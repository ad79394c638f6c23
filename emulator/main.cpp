// cosmos-emulator: flags and environment -> configuration -> server.
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>

#include "http/context.h"
#include "http/pipeline.h"
#include "scripting/engine.h"
#include "server/server.h"
#include "store/store.h"
#include "util/util.h"

namespace {

constexpr const char* kWellKnownKey =
    "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

constexpr const char* kUsage = R"(cosmos-emulator: an Azure Cosmos DB (NoSQL API) emulator

Usage: cosmos-emulator [options]

Options (each also read from the environment variable shown; a flag wins over the environment):
  --host ADDR            bind address                        COSMOS_EMULATOR_HOST     (default 127.0.0.1)
  --port N               TCP port                            COSMOS_EMULATOR_PORT     (default 8081)
  --key BASE64           account master key                  COSMOS_EMULATOR_KEY      (default: the well-known
                                                                                       emulator key)
  --threads N            worker threads, 0 = one per core    COSMOS_EMULATOR_THREADS  (default 0)
  --consistency LEVEL    account default consistency:        COSMOS_EMULATOR_CONSISTENCY (default Session)
                         Strong, BoundedStaleness, Session, ConsistentPrefix, Eventual
  --max-body-bytes N     largest request body accepted (413) COSMOS_EMULATOR_MAX_BODY_BYTES (default 16777216)
  --header-timeout-ms N  idle keep-alive / header read limit COSMOS_EMULATOR_HEADER_TIMEOUT_MS (default 120000)
  --body-timeout-ms N    request body read limit             COSMOS_EMULATOR_BODY_TIMEOUT_MS (default 30000)
  --partition-count N    physical partitions of every new     COSMOS_EMULATOR_PARTITION_COUNT (default: as the
                         container (1-1024)                  service: max(1, ceil(RU/s / 6,000)))
  --rate-limit on|off    429 when a partition spends its     COSMOS_EMULATOR_RATE_LIMIT (default off)
                         share of the provisioned RU/s
  --script-timeout-ms N  wall-clock limit of one stored       COSMOS_EMULATOR_SCRIPT_TIMEOUT_MS (default 5000)
                         procedure, trigger or UDF call (408)
  --script-memory-mb N   memory one script execution may      COSMOS_EMULATOR_SCRIPT_MEMORY_MB (default 512)
                         allocate before it is stopped
  --health-check         probe GET /_health on 127.0.0.1:PORT and exit 0 when it answers 200
  --help                 show this text

The emulator logs a line containing "Started" once it accepts requests. GET /_health answers 200
without authentication. SIGINT or SIGTERM stop it cleanly.
)";

struct Options {
  cosmos::server::Options server;
  std::string key = kWellKnownKey;
  std::string consistency = "Session";
  bool health_check = false;
  std::optional<int> partition_count;
  bool rate_limit = false;
  int script_timeout_ms = 5000;
  size_t script_memory_mb = 512;
};

[[noreturn]] void Fail(const std::string& message) {
  std::cerr << "cosmos-emulator: " << message << "\n(see --help)\n";
  std::exit(2);
}

uint64_t ParseNumber(const std::string& name, const std::string& value, uint64_t max) {
  try {
    size_t used = 0;
    unsigned long long v = std::stoull(value, &used);
    if (used != value.size() || v > max) throw std::out_of_range(name);
    return v;
  } catch (const std::exception&) {
    Fail("invalid value '" + value + "' for " + name);
  }
}

void Apply(Options& o, const std::string& name, const std::string& value) {
  if (name == "host") {
    o.server.host = value;
  } else if (name == "port") {
    o.server.port = static_cast<uint16_t>(ParseNumber("--port", value, 65535));
  } else if (name == "key") {
    if (!cosmos::util::Base64Decode(value) || value.empty()) Fail("--key must be base64");
    o.key = value;
  } else if (name == "threads") {
    o.server.threads = static_cast<unsigned>(ParseNumber("--threads", value, 256));
  } else if (name == "consistency") {
    for (const char* level : {"Strong", "BoundedStaleness", "Session", "ConsistentPrefix", "Eventual"}) {
      if (cosmos::util::EqualsIgnoreCase(value, level)) {
        o.consistency = level;
        return;
      }
    }
    Fail("invalid consistency level '" + value + "'");
  } else if (name == "max-body-bytes") {
    o.server.body_limit = ParseNumber("--max-body-bytes", value, 1ull << 32);
  } else if (name == "header-timeout-ms") {
    o.server.header_timeout = std::chrono::milliseconds(ParseNumber("--header-timeout-ms", value, 86400000));
  } else if (name == "body-timeout-ms") {
    o.server.body_timeout = std::chrono::milliseconds(ParseNumber("--body-timeout-ms", value, 86400000));
  } else if (name == "partition-count") {
    uint64_t n = ParseNumber("--partition-count", value, 1024);
    if (n == 0) Fail("--partition-count must be from 1 to 1024");
    o.partition_count = static_cast<int>(n);
  } else if (name == "rate-limit") {
    if (cosmos::util::EqualsIgnoreCase(value, "on") || cosmos::util::EqualsIgnoreCase(value, "true")) {
      o.rate_limit = true;
    } else if (cosmos::util::EqualsIgnoreCase(value, "off") || cosmos::util::EqualsIgnoreCase(value, "false")) {
      o.rate_limit = false;
    } else {
      Fail("--rate-limit must be on or off");
    }
  } else if (name == "script-timeout-ms") {
    uint64_t n = ParseNumber("--script-timeout-ms", value, 3600000);
    if (n == 0) Fail("--script-timeout-ms must be at least 1");
    o.script_timeout_ms = static_cast<int>(n);
  } else if (name == "script-memory-mb") {
    uint64_t n = ParseNumber("--script-memory-mb", value, 65536);
    if (n < 16) Fail("--script-memory-mb must be at least 16");
    o.script_memory_mb = n;
  } else {
    Fail("unknown option --" + name);
  }
}

Options ParseOptions(int argc, char** argv) {
  Options o;
  static const char* kNames[] = {"host", "port", "key", "threads", "consistency", "max-body-bytes",
                                 "header-timeout-ms", "body-timeout-ms", "partition-count", "rate-limit",
                                 "script-timeout-ms", "script-memory-mb"};
  for (const char* name : kNames) {
    std::string env = std::string("COSMOS_EMULATOR_") + name;
    for (auto& c : env) c = c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (const char* v = std::getenv(env.c_str()); v && *v) Apply(o, name, v);
  }
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      std::exit(0);
    }
    if (arg == "--health-check") {
      o.health_check = true;
      continue;
    }
    if (arg.rfind("--", 0) != 0) Fail("unexpected argument '" + arg + "'");
    std::string name = arg.substr(2), value;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    } else {
      if (i + 1 >= argc) Fail("missing value for " + arg);
      value = argv[++i];
    }
    Apply(o, name, value);
  }
  return o;
}

int HealthCheck(const Options& o) {
  namespace asio = boost::asio;
  namespace beast = boost::beast;
  try {
    asio::io_context ioc;
    beast::tcp_stream stream(ioc);
    stream.expires_after(std::chrono::seconds(3));
    stream.connect(asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), o.server.port));
    beast::http::request<beast::http::empty_body> req{beast::http::verb::get, "/_health", 11};
    req.set(beast::http::field::host, "127.0.0.1");
    beast::http::write(stream, req);
    beast::flat_buffer buffer;
    beast::http::response<beast::http::string_body> res;
    beast::http::read(stream, buffer, res);
    return res.result_int() == 200 ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "cosmos-emulator: health check failed: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options options = ParseOptions(argc, argv);
  if (options.health_check) return HealthCheck(options);

  cosmos::http::Config config;
  config.master_key_b64 = options.key;
  config.master_key = *cosmos::util::Base64Decode(options.key);
  config.consistency = options.consistency;
  config.script_timeout_ms = options.script_timeout_ms;
  config.script_memory_bytes = options.script_memory_mb << 20;
  cosmos::scripting::Initialize();  // the JavaScript engine starts before any worker thread
  cosmos::store::Account account;
  account.set_partition_count_override(options.partition_count);
  cosmos::throughput::SystemClock clock;
  cosmos::throughput::RateLimiter limiter(clock);
  limiter.set_enabled(options.rate_limit);
  cosmos::stats::Report stats([](const std::string& line) { std::cerr << "cosmos-emulator: " << line << std::endl; });
  cosmos::util::WallClock wall_clock;
  cosmos::http::Services services{account, config, limiter, stats, wall_clock};

  cosmos::server::Server server(
      options.server, [&services](const cosmos::server::Request& req) { return cosmos::http::Handle(services, req); },
      [](int status, const std::string& reason, unsigned version) {
        return cosmos::http::ErrorResponse(status, status == 413 ? "RequestEntityTooLarge" : "BadRequest", reason,
                                           version, false);
      });
  try {
    server.Start();
  } catch (const std::exception& e) {
    std::cerr << "cosmos-emulator: cannot listen on " << options.server.host << ":" << options.server.port << ": "
              << e.what() << "\n";
    return 1;
  }
  std::cout << "cosmos-emulator: Started on http://" << options.server.host << ":" << server.port()
            << "/ (consistency " << config.consistency;
  if (options.partition_count) std::cout << ", " << *options.partition_count << " partitions per container";
  if (options.rate_limit) std::cout << ", rate limiting on";
  std::cout << ")" << std::endl;
  server.Run(true);
  std::cout << "cosmos-emulator: Stopped" << std::endl;
  return 0;
}
