#include "settings/settings.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <sstream>
#include <utility>

#include "util/util.h"

namespace cosmos::settings {
namespace {

// Our variables: COSMOS_EMULATOR_ + the flag's name upper-cased, '-' as '_'.
constexpr const char* kOurNames[] = {
    "host", "port", "protocol", "health-port", "enable-explorer", "explorer-port", "explorer-protocol", "key",
    "key-file", "secondary-key", "readonly-key", "secondary-readonly-key", "threads", "workers", "max-connections", "consistency", "max-body-bytes", "header-timeout-ms", "body-timeout-ms",
    "handshake-timeout-ms", "partition-count", "rate-limit", "script-timeout-ms", "script-memory-mb",
    "query-page-timeout-ms", "query-memory-mb", "query-indexes", "query-threads",
    "log-level", "cert", "cert-key", "cert-secret", "cert-san", "data-path", "data-dir", "data-dir-if-mounted", "durability", "recover", "cert-export", "gateway-endpoint", "seed", "seed-errors", "faults"};

// The official images' variables and the flag each one sets.
struct Official {
  const char* env;
  const char* flag;
};
constexpr Official kOfficialNames[] = {
    // the classic Linux image
    {"AZURE_COSMOS_EMULATOR_PARTITION_COUNT", "partition-count"},
    {"AZURE_COSMOS_EMULATOR_KEY", "key"},
    {"AZURE_COSMOS_EMULATOR_IP_ADDRESS_OVERRIDE", "ip-address-override"},
    {"AZURE_COSMOS_EMULATOR_ENABLE_DATA_PERSISTENCE", "enable-data-persistence"},
    {"AZURE_COSMOS_EMULATOR_ENABLE_MONGODB_ENDPOINT", "enable-mongodb-endpoint"},
    // the vNext (preview) image
    {"PORT", "port"},
    {"PROTOCOL", "protocol"},
    {"KEY_FILE", "key-file"},
    {"DATA_PATH", "data-path"},
    {"CERT_PATH", "cert-path"},
    {"CERT_SECRET", "cert-secret"},
    {"LOG_LEVEL", "log-level"},
    {"GATEWAY_PUBLIC_ENDPOINT", "gateway-endpoint"},
    {"ENABLE_EXPLORER", "enable-explorer"},
    {"EXPLORER_PORT", "explorer-port"},
    {"EXPLORER_PROTOCOL", "explorer-protocol"},
    {"ENABLE_TELEMETRY", "enable-telemetry"},
    {"ENABLE_OTLP_EXPORTER", "enable-otlp"},
    {"ENABLE_CONSOLE_EXPORTER", "enable-console"},
};

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

class Parser {
 public:
  explicit Parser(Settings& s) : s_(s) {}

  // `source` names the setting in messages: "--port" or "PORT".
  void Apply(const std::string& name, const std::string& value, const std::string& source) {
    source_ = source;
    if (name == "host") {
      s_.host = value;
    } else if (name == "port") {
      s_.port = static_cast<uint16_t>(Number(value, 65535));
    } else if (name == "protocol") {
      s_.protocol = ProtocolOf(value);
    } else if (name == "health-port") {
      s_.health_port = OptionalPort(value);
    } else if (name == "enable-explorer") {
      s_.explorer = Bool(value);
    } else if (name == "explorer-port") {
      s_.explorer_port = OptionalPort(value);
    } else if (name == "explorer-protocol") {
      s_.explorer_protocol = ProtocolOf(value);
    } else if (name == "key") {
      s_.key = Key(value);
    } else if (name == "key-file") {
      std::ifstream in(value, std::ios::binary);
      if (!in) Fail("cannot read the key file '" + value + "'");
      std::ostringstream text;
      text << in.rdbuf();
      s_.key = Key(Trim(text.str()));
    } else if (name == "secondary-key") {
      s_.secondary_key = Key(value);
    } else if (name == "readonly-key") {
      s_.readonly_key = Key(value);
    } else if (name == "secondary-readonly-key") {
      s_.secondary_readonly_key = Key(value);
    } else if (name == "threads") {
      s_.server.threads = static_cast<unsigned>(Number(value, 256));
    } else if (name == "workers") {
      s_.server.workers = static_cast<unsigned>(Number(value, 1024));
    } else if (name == "max-connections") {
      s_.server.max_connections = static_cast<size_t>(Number(value, 1u << 24));
    } else if (name == "consistency") {
      for (const char* level : {"Strong", "BoundedStaleness", "Session", "ConsistentPrefix", "Eventual"}) {
        if (util::EqualsIgnoreCase(value, level)) {
          s_.consistency = level;
          return;
        }
      }
      Fail("invalid consistency level '" + value + "'");
    } else if (name == "max-body-bytes") {
      s_.server.body_limit = Number(value, 1ull << 32);
    } else if (name == "header-timeout-ms") {
      s_.server.header_timeout = std::chrono::milliseconds(Number(value, 86400000));
    } else if (name == "body-timeout-ms") {
      s_.server.body_timeout = std::chrono::milliseconds(Number(value, 86400000));
    } else if (name == "handshake-timeout-ms") {
      s_.server.handshake_timeout = std::chrono::milliseconds(Number(value, 86400000));
    } else if (name == "partition-count") {
      // The Python Testcontainers module passes the text "None" when it has no count.
      if (value.empty() || value == "None") return;
      uint64_t n = Number(value, 1024);
      if (n == 0) Fail("must be from 1 to 1024");
      s_.partition_count = static_cast<int>(n);
    } else if (name == "rate-limit") {
      s_.rate_limit = Bool(value);
    } else if (name == "script-timeout-ms") {
      uint64_t n = Number(value, 3600000);
      if (n == 0) Fail("must be at least 1");
      s_.script_timeout_ms = static_cast<int>(n);
    } else if (name == "script-memory-mb") {
      uint64_t n = Number(value, 65536);
      if (n < 16) Fail("must be at least 16");
      s_.script_memory_mb = n;
    } else if (name == "query-page-timeout-ms") {
      uint64_t n = Number(value, 3600000);
      if (n == 0) Fail("must be at least 1");
      s_.query_page_timeout_ms = static_cast<int>(n);
    } else if (name == "query-memory-mb") {
      uint64_t n = Number(value, 65536);
      if (n == 0) Fail("must be at least 1");
      s_.query_memory_mb = n;
    } else if (name == "query-indexes") {
      s_.query_indexes = Bool(value);
    } else if (name == "query-threads") {
      s_.query_threads = static_cast<unsigned>(Number(value, 256));
    } else if (name == "log-level") {
      s_.log_level = Level(value);
    } else if (name == "cert" || name == "cert-path") {
      s_.cert_path = value;
    } else if (name == "cert-key") {
      s_.cert_key_path = value;
    } else if (name == "cert-secret") {
      s_.cert_secret = value;
    } else if (name == "cert-san") {
      std::stringstream list(value);
      for (std::string item; std::getline(list, item, ',');) {
        item = Trim(item);
        if (!item.empty()) s_.cert_names.push_back(item);
      }
    } else if (name == "data-path" || name == "data-dir") {
      s_.data_path = value;
      s_.data_path_named = !value.empty();
    } else if (name == "data-dir-if-mounted") {
      s_.data_dir_if_mounted.clear();
      std::stringstream list(value);
      for (std::string item; std::getline(list, item, ',');) {
        item = Trim(item);
        if (!item.empty()) s_.data_dir_if_mounted.push_back(item);
      }
    } else if (name == "durability") {
      const std::string v = Lower(Trim(value));
      if (v != "fsync" && v != "process") Fail("must be fsync or process");
      s_.durability = v;
    } else if (name == "recover") {
      const std::string v = Lower(Trim(value));
      if (v != "refuse" && v != "salvage") Fail("must be refuse or salvage");
      s_.recover_salvage = v == "salvage";
    } else if (name == "seed") {
      if (value.empty()) Fail("names no directory or file");
      s_.seed_path = value;
    } else if (name == "seed-errors") {
      const std::string v = Lower(Trim(value));
      if (v != "fail" && v != "skip") Fail("must be fail or skip");
      s_.seed_skip_errors = v == "skip";
    } else if (name == "faults") {
      if (value.empty()) Fail("names no file");
      s_.faults_path = value;
    } else if (name == "cert-export") {
      s_.cert_export_path = value;
    } else if (name == "gateway-endpoint") {
      gateway_endpoint_ = Endpoint(value);
    } else if (name == "ip-address-override") {
      if (!value.empty()) ip_override_ = Trim(value);
    } else if (name == "enable-data-persistence") {
      // The classic image's switch: data kept in /tmp/cosmos/appdata (where that image keeps it)
      // unless DATA_PATH or --data-dir says where.
      persist_default_ = !value.empty() && Bool(value);
    } else if (name == "enable-mongodb-endpoint") {
      if (value.empty()) return;
      Fail("this emulator serves the API for NoSQL only, not MongoDB; unset it");
    } else if (name == "enable-telemetry" || name == "enable-otlp" || name == "enable-console") {
      if (Bool(value))
        s_.notices.push_back(source + "=" + value + ": accepted; this emulator never sends or exports telemetry");
    } else {
      throw SettingsError("unknown option --" + name);
    }
  }

  void Finish() {
    // The classic image's switch keeps the data where that image does.
    if (persist_default_ && s_.data_path.empty()) s_.data_path = "/tmp/cosmos/appdata";
    // The public endpoint: GATEWAY_PUBLIC_ENDPOINT, else the classic image's IP override.
    if (gateway_endpoint_) {
      s_.public_endpoint = *gateway_endpoint_;
    } else if (!ip_override_.empty()) {
      s_.public_endpoint.host = ip_override_;
    }
    if (!ip_override_.empty()) s_.cert_names.push_back(ip_override_);
    if (!s_.public_endpoint.host.empty()) s_.cert_names.push_back(s_.public_endpoint.host);
    // Each key is one kind: the same key as two kinds would leave a read-only key able to write.
    const std::pair<const char*, const std::string*> keys[] = {{"--key", &s_.key},
                                                              {"--secondary-key", &s_.secondary_key},
                                                              {"--readonly-key", &s_.readonly_key},
                                                              {"--secondary-readonly-key", &s_.secondary_readonly_key}};
    for (size_t i = 0; i < std::size(keys); ++i) {
      for (size_t j = i + 1; j < std::size(keys); ++j) {
        if (!keys[i].second->empty() && !keys[j].second->empty() &&
            *util::Base64Decode(*keys[i].second) == *util::Base64Decode(*keys[j].second))
          throw SettingsError(std::string(keys[j].first) + ": the same key as " + keys[i].first +
                              "; every key of the account must differ");
      }
    }
    if (!s_.cert_key_path.empty() && s_.cert_path.empty())
      throw SettingsError("--cert-key needs --cert (the certificate it belongs to)");
  }

 private:
  [[noreturn]] void Fail(const std::string& why) { throw SettingsError(source_ + ": " + why); }

  uint64_t Number(const std::string& value, uint64_t max) {
    try {
      size_t used = 0;
      unsigned long long v = std::stoull(value, &used);
      if (used == value.size() && v <= max && !value.empty() && value[0] != '-') return v;
    } catch (const std::exception&) {
    }
    Fail("invalid value '" + value + "' (a whole number up to " + std::to_string(max) + ")");
  }

  std::optional<uint16_t> OptionalPort(const std::string& value) {
    if (util::EqualsIgnoreCase(value, "off") || util::EqualsIgnoreCase(value, "none")) return std::nullopt;
    return static_cast<uint16_t>(Number(value, 65535));
  }

  bool Bool(const std::string& value) {
    const std::string v = Lower(value);
    if (v == "true" || v == "1" || v == "yes" || v == "on") return true;
    if (v == "false" || v == "0" || v == "no" || v == "off") return false;
    Fail("invalid value '" + value + "' (true or false)");
  }

  server::Protocol ProtocolOf(const std::string& value) {
    const std::string v = Lower(value);
    if (v == "both") return server::Protocol::kBoth;
    // vNext's https-insecure is HTTPS with its self-signed certificate, which this is too.
    if (v == "https" || v == "https-insecure") return server::Protocol::kHttps;
    if (v == "http") return server::Protocol::kHttp;
    Fail("invalid value '" + value + "' (https, http or both)");
  }

  LogLevel Level(const std::string& value) {
    const std::string v = Lower(value);
    if (v == "quiet" || v == "none") return LogLevel::kQuiet;
    if (v == "error") return LogLevel::kError;
    if (v == "warn" || v == "warning") return LogLevel::kWarn;
    if (v == "info" || v == "information") return LogLevel::kInfo;
    if (v == "debug") return LogLevel::kDebug;
    if (v == "trace") return LogLevel::kTrace;
    Fail("invalid value '" + value + "' (quiet, error, warn, info, debug or trace)");
  }

  std::string Key(const std::string& value) {
    if (value.empty() || !util::Base64Decode(value)) Fail("the key must be base64");
    return value;
  }

  // "https://host:port/", "host:port", "host", "[::1]:8081".
  PublicEndpoint Endpoint(std::string value) {
    PublicEndpoint e;
    if (auto p = value.find("://"); p != std::string::npos) {
      e.scheme = Lower(value.substr(0, p));
      if (e.scheme != "http" && e.scheme != "https") Fail("the endpoint's scheme must be http or https");
      value = value.substr(p + 3);
    }
    if (auto slash = value.find('/'); slash != std::string::npos) value = value.substr(0, slash);
    std::string port;
    if (!value.empty() && value[0] == '[') {
      auto close = value.find(']');
      if (close == std::string::npos) Fail("invalid endpoint '" + value + "'");
      if (close + 1 < value.size()) {
        if (value[close + 1] != ':') Fail("invalid endpoint '" + value + "'");
        port = value.substr(close + 2);
      }
      e.host = value.substr(1, close - 1);
    } else if (auto colon = value.find(':'); colon != std::string::npos && value.find(':', colon + 1) == std::string::npos) {
      e.host = value.substr(0, colon);
      port = value.substr(colon + 1);
    } else {
      e.host = value;
    }
    if (!port.empty()) e.port = std::to_string(Number(port, 65535));
    if (e.host.empty()) Fail("the endpoint names no host");
    return e;
  }

  Settings& s_;
  std::string source_;
  std::optional<PublicEndpoint> gateway_endpoint_;
  std::string ip_override_;
  bool persist_default_ = false;
};

std::string EnvName(const std::string& flag) {
  std::string env = "COSMOS_EMULATOR_" + flag;
  for (auto& c : env) c = c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return env;
}

}  // namespace

const char* ProtocolName(server::Protocol p) {
  switch (p) {
    case server::Protocol::kHttps:
      return "https";
    case server::Protocol::kHttp:
      return "http";
    case server::Protocol::kBoth:
      break;
  }
  return "both";
}

Settings Parse(const std::vector<std::string>& args, const GetEnv& getenv) {
  Settings s;
  s.key = std::string(kWellKnownKey);
  Parser p(s);
  // Ours first, then the official names (what harnesses set wins over an image's defaults),
  // then the flags.
  for (const char* name : kOurNames) {
    const std::string env = EnvName(name);
    if (const char* v = getenv(env.c_str()); v && *v) p.Apply(name, v, env);
  }
  for (const auto& o : kOfficialNames) {
    if (const char* v = getenv(o.env)) p.Apply(o.flag, v, o.env);
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      s.help = true;
      continue;
    }
    if (arg == "--health-check") {
      s.health_check = true;
      continue;
    }
    if (arg.rfind("--", 0) != 0) throw SettingsError("unexpected argument '" + arg + "'");
    std::string name = arg.substr(2), value;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    } else {
      if (i + 1 >= args.size()) throw SettingsError("missing value for " + arg);
      value = args[++i];
    }
    // Flags of the official images under their own names.
    if (name == "enable-data-persistence" || name == "ip-address-override" || name == "enable-mongodb-endpoint")
      throw SettingsError("unknown option --" + name);
    p.Apply(name, value, "--" + name);
  }
  p.Finish();
  return s;
}

const char* Usage() {
  return R"(cosmos-emulator: an Azure Cosmos DB (NoSQL API) emulator

Usage: cosmos-emulator [options]

Every option is also read from COSMOS_EMULATOR_<NAME> (upper case, '-' as '_'); the official
emulator images' variables are read too (docs/settings.md). A flag wins over a variable.

Serving
  --host ADDR              bind address (default 127.0.0.1)
  --port N                 gateway port (default 8081)                          PORT
  --protocol P             https, http or both: both tells TLS from plain HTTP   PROTOCOL
                           by each connection's first byte (default both)
  --health-port N|off      /ready, /alive and /status over HTTP on a port of
                           their own (default off; 8080 in the container image)
  --enable-explorer B      serve the emulator's page at /_explorer/index.html    ENABLE_EXPLORER
                           (default true)
  --explorer-port N|off    also serve that page on a port of its own (default off) EXPLORER_PORT
  --explorer-protocol P    protocol of the explorer port (default: --protocol)   EXPLORER_PROTOCOL
  --gateway-endpoint E     where clients are sent (the account's locations):     GATEWAY_PUBLIC_ENDPOINT
                           host, host:port or scheme://host:port (default: the
                           scheme and Host of each request)
  --threads N              I/O threads (sockets, TLS, parsing), 0 = one per core
                           (default 0)
  --workers N              threads that run requests, so one that waits (a lock,
                           a script, a long query) holds no I/O thread; 0 = four
                           per core, at least 8 (default 0)
  --max-connections N      connections open at once; more clients wait until one
                           closes (default 0: the open-file limit less a reserve)
  --max-body-bytes N       largest request body accepted, 413 above (default 16777216)
  --header-timeout-ms N    idle keep-alive and header read limit (default 120000)
  --body-timeout-ms N      request body read limit (default 30000)
  --handshake-timeout-ms N first byte and TLS handshake limit (default 10000)

Certificate (HTTPS)
  --cert FILE              PEM certificate (and key, unless --cert-key), or a     CERT_PATH
                           PKCS#12 file (.pfx/.p12) with --cert-secret
  --cert-key FILE          PEM private key of --cert
  --cert-secret TEXT       password of the PKCS#12 file                          CERT_SECRET
  --cert-san LIST          more names and addresses for the made certificate,
                           comma-separated (localhost, 127.0.0.1, ::1 and the
                           host name are always in it)
  --cert-export FILE       also write the served certificate (PEM) to FILE
                           The certificate is served at /_explorer/emulator.pem;
                           with --data-dir, the made one is kept there and reused.

Persistence (off by default: data lives in memory)
  --data-dir DIR           keep everything in DIR: a write-ahead log and          DATA_PATH
                           snapshots, recovered at the next start (docs/persistence.md);
                           also --data-path. AZURE_COSMOS_EMULATOR_ENABLE_DATA_PERSISTENCE=true
                           without a directory keeps it in /tmp/cosmos/appdata (the
                           classic image's place)
  --data-dir-if-mounted LIST  with no --data-dir: the first of these directories
                           (comma-separated) that is a mount point keeps the data;
                           the image sets /data,/tmp/cosmos/appdata (a volume there)
  --durability D           fsync (default): a write is answered once it is on disk;
                           process: once the operating system has it (survives
                           the emulator being killed, not the machine losing power)
  --recover R              refuse (default): a damaged data directory stops the
                           start (exit 2) and no file is changed; salvage: keep
                           the longest valid prefix, move the damaged files to
                           DIR/damaged-<time>/ and print what was dropped. A torn
                           last record is always cut off (never acknowledged)

Seeding (docs/seeding.md)
  --seed PATH              load items at start, before anything is served: PATH is a
                           directory holding manifest.json, or a manifest file naming
                           each container (database, partition key, throughput) and
                           its data files (.json, .jsonl, .ndjson)
  --seed-errors E          fail (default): a bad item stops the start (exit 2) and
                           nothing is loaded; skip: load the others, list the bad ones

Fault injection (docs/faults.md)
  --faults FILE            fault-injection rules to start with (a JSON array of the
                           rules POST /_emulator/faults takes); a bad rule stops the
                           start (exit 2)

Account and behaviour
  --key BASE64             account master key (default: the well-known key)      AZURE_COSMOS_EMULATOR_KEY
  --key-file FILE          read the master key from FILE                         KEY_FILE
  --secondary-key BASE64   a second master key, as good as --key (default: none)
  --readonly-key BASE64    the primary read-only key: reads, queries and the change
                           feed; a write answers 401 (default: none)
  --secondary-readonly-key BASE64
                           the secondary read-only key (default: none)
  --consistency LEVEL      Strong, BoundedStaleness, Session (default),
                           ConsistentPrefix or Eventual
  --partition-count N      physical partitions of every new container, 1-1024    AZURE_COSMOS_EMULATOR_PARTITION_COUNT
                           (default: as the service, ceil(RU/s / 6,000))
  --rate-limit on|off      429 when a partition spends its share of the
                           provisioned RU/s (default off)
  --script-timeout-ms N    wall-clock limit of one script call, 408 (default 5000)
  --script-memory-mb N     memory one script execution may allocate (default 512)
  --query-page-timeout-ms N  time one query page may run; past it the page ends
                           with a continuation, as the service's (default 5000)
  --query-memory-mb N      memory one query request may hold for ORDER BY,
                           DISTINCT, GROUP BY and aggregates; past it 400 (default 512)
  --query-threads N        threads one ORDER BY, DISTINCT, GROUP BY or aggregate
                           query reads its partitions on (default 0: one per core)
  --log-level L            quiet, error, warn, info (default), debug (one line    LOG_LEVEL
                           per request) or trace (also refused connections)

  --health-check           probe the running emulator's /ready and exit 0 when it answers 200
  --help                   show this text

Once it accepts requests the emulator prints "Now listening on: <url>" for each scheme and then
a line "Started". SIGINT or SIGTERM stop it cleanly.
)";
}

}  // namespace cosmos::settings
