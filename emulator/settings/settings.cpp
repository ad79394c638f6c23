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

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// "a, b,,c" -> {"a", "b", "c"}.
std::vector<std::string> List(const std::string& value) {
  std::vector<std::string> items;
  std::stringstream list(value);
  for (std::string item; std::getline(list, item, ',');) {
    item = Trim(item);
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

}  // namespace

// The settings being made. The options' apply functions set them through the checks below, whose
// messages start with the setting's name as it was given (`source`: "--port" or "PORT").
class Parser {
 public:
  explicit Parser(Settings& settings) : s(settings) {}

  void Apply(const Option& o, const std::string& value, const std::string& from) {
    source = from;
    o.apply(*this, value);
  }

  void Finish() {
    // The classic image's switch keeps the data where that image does.
    if (persist_default && s.data_path.empty()) s.data_path = "/tmp/cosmos/appdata";
    // The public endpoint: GATEWAY_PUBLIC_ENDPOINT, else the classic image's IP override.
    if (gateway_endpoint) {
      s.public_endpoint = *gateway_endpoint;
    } else if (!ip_override.empty()) {
      s.public_endpoint.host = ip_override;
    }
    if (!ip_override.empty()) s.cert_names.push_back(ip_override);
    if (!s.public_endpoint.host.empty()) s.cert_names.push_back(s.public_endpoint.host);
    // Each key is one kind: the same key as two kinds would leave a read-only key able to write.
    const std::pair<const char*, const std::string*> keys[] = {{"--key", &s.key},
                                                              {"--secondary-key", &s.secondary_key},
                                                              {"--readonly-key", &s.readonly_key},
                                                              {"--secondary-readonly-key", &s.secondary_readonly_key}};
    for (size_t i = 0; i < std::size(keys); ++i) {
      for (size_t j = i + 1; j < std::size(keys); ++j) {
        if (!keys[i].second->empty() && !keys[j].second->empty() &&
            *util::Base64Decode(*keys[i].second) == *util::Base64Decode(*keys[j].second))
          throw SettingsError(std::string(keys[j].first) + ": the same key as " + keys[i].first +
                              "; every key of the account must differ");
      }
    }
    // A gateway on a free port (tests running side by side) gets Direct mode on one too; a gateway
    // serving plain HTTP only (PROTOCOL=http: no TLS, no certificate) none, since RNTBD is TLS only.
    if (!direct_port_given && s.port == 0) s.direct_port = 0;
    if (!direct_port_given && s.protocol == server::Protocol::kHttp) s.direct_port = std::nullopt;
    s.direct_port_given = direct_port_given;
    if (s.issue_token && s.principal.empty())
      throw SettingsError("--issue-token needs --principal (the object id the token names)");
    if (!s.cert_key_path.empty() && s.cert_path.empty())
      throw SettingsError("--cert-key needs --cert (the certificate it belongs to)");
  }

  [[noreturn]] void Fail(const std::string& why) { throw SettingsError(source + ": " + why); }

  uint64_t Number(const std::string& value, uint64_t max) {
    try {
      size_t used = 0;
      unsigned long long v = std::stoull(value, &used);
      if (used == value.size() && v <= max && !value.empty() && value[0] != '-') return v;
    } catch (const std::exception&) {
    }
    Fail("invalid value '" + value + "' (a whole number up to " + std::to_string(max) + ")");
  }

  // A number from `min` to `max`; below `min`, `below` is the message.
  uint64_t AtLeast(const std::string& value, uint64_t min, uint64_t max, const char* below) {
    const uint64_t n = Number(value, max);
    if (n < min) Fail(below);
    return n;
  }

  std::chrono::milliseconds Milliseconds(const std::string& value) {
    return std::chrono::milliseconds(Number(value, 86400000));
  }

  uint16_t Port(const std::string& value) { return static_cast<uint16_t>(Number(value, 65535)); }

  std::optional<uint16_t> OptionalPort(const std::string& value) {
    if (util::EqualsIgnoreCase(value, "off") || util::EqualsIgnoreCase(value, "none")) return std::nullopt;
    return Port(value);
  }

  bool Bool(const std::string& value) {
    const std::string v = Lower(value);
    if (v == "true" || v == "1" || v == "yes" || v == "on") return true;
    if (v == "false" || v == "0" || v == "no" || v == "off") return false;
    Fail("invalid value '" + value + "' (true or false)");
  }

  // One of two words (any case, blanks trimmed): true for `second`.
  bool Choice(const std::string& value, const char* first, const char* second) {
    const std::string v = Lower(Trim(value));
    if (v != first && v != second) Fail(std::string("must be ") + first + " or " + second);
    return v == second;
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

  std::string KeyFromFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) Fail("cannot read the key file '" + path + "'");
    std::ostringstream text;
    text << in.rdbuf();
    return Key(Trim(text.str()));
  }

  std::string Consistency(const std::string& value) {
    for (const char* level : {"Strong", "BoundedStaleness", "Session", "ConsistentPrefix", "Eventual"}) {
      if (util::EqualsIgnoreCase(value, level)) return level;
    }
    Fail("invalid consistency level '" + value + "'");
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

  // The vNext image's telemetry switches: nothing is ever sent; `true` is said once at start.
  void Telemetry(const std::string& value) {
    if (Bool(value)) s.notices.push_back(source + "=" + value + ": accepted; this emulator never sends or exports telemetry");
  }

  Settings& s;
  std::string source;
  // Settled in Finish, whatever order they came in.
  std::optional<PublicEndpoint> gateway_endpoint;
  std::string ip_override;
  bool persist_default = false;
  bool direct_port_given = false;
};

namespace {

using S = Section;
using V = const std::string&;

// The table. Each row: the flag, another flag for it, the value's placeholder, the --help group,
// the official images' variables, the --help lines, where else it is read from, and what it sets.
// Rows are in --help's order, and the variables are read in this order (our COSMOS_EMULATOR_*
// ones first, then the official ones: key before key-file, so a key file wins over a key given
// the same way).
constexpr Option kOptions[] = {
    // Serving
    {.name = "host", .value = "ADDR", .section = S::kServing,
     .help = "bind address (default 127.0.0.1)",
     .apply = [](Parser& p, V v) { p.s.host = v; }},
    {.name = "port", .value = "N", .section = S::kServing, .official = "PORT",
     .help = "gateway port (default 8081)",
     .apply = [](Parser& p, V v) { p.s.port = p.Port(v); }},
    {.name = "protocol", .value = "P", .section = S::kServing, .official = "PROTOCOL",
     .help = "https, http or both: both tells TLS from plain HTTP\n"
             "by each connection's first byte (default both)",
     .apply = [](Parser& p, V v) { p.s.protocol = p.ProtocolOf(v); }},
    {.name = "health-port", .value = "N|off", .section = S::kServing,
     .help = "/ready, /alive and /status over HTTP on a port of\n"
             "their own (default off; 8080 in the container image)",
     .apply = [](Parser& p, V v) { p.s.health_port = p.OptionalPort(v); }},
    {.name = "direct-port", .value = "N|off", .section = S::kServing,
     .help = "Direct mode (RNTBD over TLS, the Java and .NET SDKs'\n"
             "default) on this port (default 10253, the classic\n"
             "emulator's, or a free one when that is taken; any\n"
             "free port when --port is 0; off with --protocol http)",
     .apply = [](Parser& p, V v) { p.s.direct_port = p.OptionalPort(v); p.direct_port_given = true; }},
    {.name = "compute-port", .value = "N|off", .section = S::kServing,
     .help = "the gateway again on this port as the Windows\n"
             "emulator's SQL compute endpoint (its 8903), which\n"
             "addresses every item id in a path (default off)",
     .apply = [](Parser& p, V v) { p.s.compute_port = p.OptionalPort(v); }},
    {.name = "enable-explorer", .value = "B", .section = S::kServing, .official = "ENABLE_EXPLORER",
     .help = "serve the emulator's page at /_explorer/index.html\n"
             "(default true)",
     .apply = [](Parser& p, V v) { p.s.explorer = p.Bool(v); }},
    {.name = "explorer-port", .value = "N|off", .section = S::kServing, .official = "EXPLORER_PORT",
     .help = "also serve that page on a port of its own (default off)",
     .apply = [](Parser& p, V v) { p.s.explorer_port = p.OptionalPort(v); }},
    {.name = "explorer-protocol", .value = "P", .section = S::kServing, .official = "EXPLORER_PROTOCOL",
     .help = "protocol of the explorer port (default: --protocol)",
     .apply = [](Parser& p, V v) { p.s.explorer_protocol = p.ProtocolOf(v); }},
    {.name = "gateway-endpoint", .value = "E", .section = S::kServing, .official = "GATEWAY_PUBLIC_ENDPOINT",
     .help = "where clients are sent (the account's locations):\n"
             "host, host:port or scheme://host:port (default: the\n"
             "scheme and Host of each request)",
     .apply = [](Parser& p, V v) { p.gateway_endpoint = p.Endpoint(v); }},
    // server::Server::Run starts the I/O threads; the workers are its thread pool, and
    // http::AnswersAtOnce says which requests the I/O threads answer themselves.
    {.name = "threads", .value = "N", .section = S::kServing,
     .help = "I/O threads: sockets, TLS, HTTP parsing, and the requests\n"
             "answered at once (the probes, point reads, and one-item\n"
             "writes that need not wait for the disk); 0 = one per core\n"
             "(default 0)",
     .apply = [](Parser& p, V v) { p.s.server.threads = static_cast<unsigned>(p.Number(v, 256)); }},
    {.name = "workers", .value = "N", .section = S::kServing,
     .help = "threads that run every other request (queries, feeds,\n"
             "scripts, batches), so one that waits (a lock, a script,\n"
             "a long query) holds no I/O thread; 0 = four per core,\n"
             "at least 8 (default 0)",
     .apply = [](Parser& p, V v) { p.s.server.workers = static_cast<unsigned>(p.Number(v, 1024)); }},
    {.name = "max-connections", .value = "N", .section = S::kServing,
     .help = "connections open at once; more clients wait until one\n"
             "closes (default 0: the open-file limit less a reserve)",
     .apply = [](Parser& p, V v) { p.s.server.max_connections = static_cast<size_t>(p.Number(v, 1u << 24)); }},
    {.name = "max-body-bytes", .value = "N", .section = S::kServing,
     .help = "largest request body accepted, 413 above (default 16777216)",
     .apply = [](Parser& p, V v) { p.s.server.body_limit = p.Number(v, 1ull << 32); }},
    {.name = "header-timeout-ms", .value = "N", .section = S::kServing,
     .help = "idle keep-alive and header read limit (default 120000)",
     .apply = [](Parser& p, V v) { p.s.server.header_timeout = p.Milliseconds(v); }},
    {.name = "body-timeout-ms", .value = "N", .section = S::kServing,
     .help = "request body read limit (default 30000)",
     .apply = [](Parser& p, V v) { p.s.server.body_timeout = p.Milliseconds(v); }},
    {.name = "handshake-timeout-ms", .value = "N", .section = S::kServing,
     .help = "first byte and TLS handshake limit (default 10000)",
     .apply = [](Parser& p, V v) { p.s.server.handshake_timeout = p.Milliseconds(v); }},

    // Certificate (HTTPS)
    {.name = "cert", .alias = "cert-path", .value = "FILE", .section = S::kCertificate, .official = "CERT_PATH",
     .help = "PEM certificate (and key, unless --cert-key), or a\n"
             "PKCS#12 file (.pfx/.p12) with --cert-secret",
     .apply = [](Parser& p, V v) { p.s.cert_path = v; }},
    {.name = "cert-key", .value = "FILE", .section = S::kCertificate,
     .help = "PEM private key of --cert",
     .apply = [](Parser& p, V v) { p.s.cert_key_path = v; }},
    {.name = "cert-secret", .value = "TEXT", .section = S::kCertificate, .official = "CERT_SECRET",
     .help = "password of the PKCS#12 file",
     .apply = [](Parser& p, V v) { p.s.cert_secret = v; }},
    {.name = "cert-san", .value = "LIST", .section = S::kCertificate,
     .help = "more names and addresses for the made certificate,\n"
             "comma-separated (localhost, 127.0.0.1, ::1 and the\n"
             "host name are always in it)",
     .apply = [](Parser& p, V v) {
       for (auto& name : List(v)) p.s.cert_names.push_back(std::move(name));  // each one adds
     }},
    {.name = "cert-export", .value = "FILE", .section = S::kCertificate,
     .help = "also write the served certificate (PEM) to FILE\n"
             "The certificate is served at /_explorer/emulator.pem;\n"
             "with --data-dir, the made one is kept there and reused.",
     .apply = [](Parser& p, V v) { p.s.cert_export_path = v; }},

    // Persistence. --data-path is vNext's flag; COSMOS_EMULATOR_DATA_DIR wins over ..._DATA_PATH.
    {.name = "data-dir", .alias = "data-path", .value = "DIR", .section = S::kPersistence, .official = "DATA_PATH",
     .help = "keep everything in DIR: a write-ahead log and\n"
             "snapshots, recovered at the next start (docs/persistence.md);\n"
             "also --data-path. AZURE_COSMOS_EMULATOR_ENABLE_DATA_PERSISTENCE=true\n"
             "without a directory keeps it in /tmp/cosmos/appdata (the\n"
             "classic image's place)",
     .reads = kOption | kAliasEnv,
     .apply = [](Parser& p, V v) {
       p.s.data_path = v;
       p.s.data_path_named = !v.empty();
     }},
    {.name = "data-dir-if-mounted", .value = "LIST", .section = S::kPersistence,
     .help = "with no --data-dir: the first of these directories\n"
             "(comma-separated) that is a mount point keeps the data;\n"
             "the image sets /data,/tmp/cosmos/appdata (a volume there)",
     .apply = [](Parser& p, V v) { p.s.data_dir_if_mounted = List(v); }},
    {.name = "durability", .value = "D", .section = S::kPersistence,
     .help = "fsync (default): a write is answered once it is on disk;\n"
             "process: once the operating system has it (survives\n"
             "the emulator being killed, not the machine losing power)",
     .apply = [](Parser& p, V v) { p.s.durability = p.Choice(v, "fsync", "process") ? "process" : "fsync"; }},
    {.name = "recover", .value = "R", .section = S::kPersistence,
     .help = "refuse (default): a damaged data directory stops the\n"
             "start (exit 2) and no file is changed; salvage: keep\n"
             "the longest valid prefix, move the damaged files to\n"
             "DIR/damaged-<time>/ and print what was dropped. A torn\n"
             "last record is always cut off (never acknowledged)",
     .apply = [](Parser& p, V v) { p.s.recover_salvage = p.Choice(v, "refuse", "salvage"); }},

    // Seeding
    {.name = "seed", .value = "PATH", .section = S::kSeeding,
     .help = "load items at start, before anything is served: PATH is a\n"
             "directory holding manifest.json, or a manifest file naming\n"
             "each container (database, partition key, throughput) and\n"
             "its data files (.json, .jsonl, .ndjson)",
     .apply = [](Parser& p, V v) {
       if (v.empty()) p.Fail("names no directory or file");
       p.s.seed_path = v;
     }},
    {.name = "seed-errors", .value = "E", .section = S::kSeeding,
     .help = "fail (default): a bad item stops the start (exit 2) and\n"
             "nothing is loaded; skip: load the others, list the bad ones",
     .apply = [](Parser& p, V v) { p.s.seed_skip_errors = p.Choice(v, "fail", "skip"); }},

    // Fault injection
    {.name = "faults", .value = "FILE", .section = S::kFaults,
     .help = "fault-injection rules to start with (a JSON array of the\n"
             "rules POST /_emulator/faults takes); a bad rule stops the\n"
             "start (exit 2)",
     .apply = [](Parser& p, V v) {
       if (v.empty()) p.Fail("names no file");
       p.s.faults_path = v;
     }},

    // Account and behaviour
    {.name = "key", .value = "BASE64", .section = S::kAccount, .official = "AZURE_COSMOS_EMULATOR_KEY",
     .help = "account master key (default: the well-known key)",
     .apply = [](Parser& p, V v) { p.s.key = p.Key(v); }},
    {.name = "key-file", .value = "FILE", .section = S::kAccount, .official = "KEY_FILE",
     .help = "read the master key from FILE",
     .apply = [](Parser& p, V v) { p.s.key = p.KeyFromFile(v); }},
    {.name = "secondary-key", .value = "BASE64", .section = S::kAccount,
     .help = "a second master key, as good as --key (default: none)",
     .apply = [](Parser& p, V v) { p.s.secondary_key = p.Key(v); }},
    {.name = "readonly-key", .value = "BASE64", .section = S::kAccount,
     .help = "the primary read-only key: reads, queries and the change\n"
             "feed; a write answers 401 (default: none)",
     .apply = [](Parser& p, V v) { p.s.readonly_key = p.Key(v); }},
    {.name = "secondary-readonly-key", .value = "BASE64", .section = S::kAccount,
     .help = "the secondary read-only key (default: none)",
     .apply = [](Parser& p, V v) { p.s.secondary_readonly_key = p.Key(v); }},
    {.name = "aad-keys", .value = "FILE", .section = S::kAccount,
     .help = "Entra ID tokens' signatures must verify with these keys\n"
             "(a JWKS document or PEM public keys/certificates; RS256,\n"
             "ES256). Default: any signature is accepted",
     .apply = [](Parser& p, V v) {
       if (v.empty()) p.Fail("names no file");
       p.s.aad_keys_path = v;
     }},
    {.name = "aad-issuer", .value = "ISS", .section = S::kAccount,
     .help = "Entra ID tokens must name this issuer (iss; default: any)",
     .apply = [](Parser& p, V v) { p.s.aad_issuer = v; }},
    {.name = "disable-local-auth", .value = "B", .section = S::kAccount,
     .help = "true: master keys and resource tokens answer 401, as an\n"
             "account with disableLocalAuth; only Entra ID tokens serve\n"
             "(the /_emulator endpoints still take the master key)",
     .apply = [](Parser& p, V v) { p.s.disable_local_auth = p.Bool(v); }},
    {.name = "rbac", .value = "FILE", .section = S::kAccount,
     .help = "data-plane role definitions and assignments of Entra ID\n"
             "principals (docs/entra-id.md); default: every principal\n"
             "is a Cosmos DB Built-in Data Contributor on the account",
     .apply = [](Parser& p, V v) {
       if (v.empty()) p.Fail("names no file");
       p.s.rbac_path = v;
     }},
    {.name = "consistency", .value = "LEVEL", .section = S::kAccount,
     .help = "Strong, BoundedStaleness, Session (default),\n"
             "ConsistentPrefix or Eventual",
     .apply = [](Parser& p, V v) { p.s.consistency = p.Consistency(v); }},
    {.name = "partition-count", .value = "N", .section = S::kAccount, .official = "AZURE_COSMOS_EMULATOR_PARTITION_COUNT",
     .help = "physical partitions of every new container, 1-1024\n"
             "(default: as the service, ceil(RU/s / 6,000))",
     .apply = [](Parser& p, V v) {
       // The Python Testcontainers module passes the text "None" when it has no count.
       if (v.empty() || v == "None") return;
       p.s.partition_count = static_cast<int>(p.AtLeast(v, 1, 1024, "must be from 1 to 1024"));
     }},
    {.name = "rate-limit", .value = "on|off", .section = S::kAccount,
     .help = "429 when a partition spends its share of the\n"
             "provisioned RU/s (default off)",
     .apply = [](Parser& p, V v) { p.s.rate_limit = p.Bool(v); }},
    {.name = "script-timeout-ms", .value = "N", .section = S::kAccount,
     .help = "wall-clock limit of one script call, 408 (default 5000)",
     .apply = [](Parser& p, V v) {
       p.s.script_timeout_ms = static_cast<int>(p.AtLeast(v, 1, 3600000, "must be at least 1"));
     }},
    {.name = "script-memory-mb", .value = "N", .section = S::kAccount,
     .help = "memory one script execution may allocate (default 512)",
     .apply = [](Parser& p, V v) { p.s.script_memory_mb = p.AtLeast(v, 16, 65536, "must be at least 16"); }},
    {.name = "query-page-timeout-ms", .value = "N", .section = S::kAccount,
     .help = "time one query page may run; past it the page ends\n"
             "with a continuation, as the service's (default 5000)",
     .apply = [](Parser& p, V v) {
       p.s.query_page_timeout_ms = static_cast<int>(p.AtLeast(v, 1, 3600000, "must be at least 1"));
     }},
    {.name = "query-memory-mb", .value = "N", .section = S::kAccount,
     .help = "memory one query request may hold for ORDER BY,\n"
             "DISTINCT, GROUP BY and aggregates; past it 400 (default 512)",
     .apply = [](Parser& p, V v) { p.s.query_memory_mb = p.AtLeast(v, 1, 65536, "must be at least 1"); }},
    {.name = "query-indexes", .value = "on|off", .section = S::kAccount,
     .help = "off: every query reads its partitions whole instead of\n"
             "using the indexes; the results are the same (default on)",
     .apply = [](Parser& p, V v) { p.s.query_indexes = p.Bool(v); }},
    {.name = "query-threads", .value = "N", .section = S::kAccount,
     .help = "threads one ORDER BY, DISTINCT, GROUP BY or aggregate\n"
             "query reads its partitions on (default 0: one per core)",
     .apply = [](Parser& p, V v) { p.s.query_threads = static_cast<unsigned>(p.Number(v, 256)); }},
    {.name = "log-level", .value = "L", .section = S::kAccount, .official = "LOG_LEVEL",
     .help = "quiet, error, warn, info (default), debug (one line\n"
             "per request) or trace (also refused connections)",
     .apply = [](Parser& p, V v) { p.s.log_level = p.Level(v); }},

    // Commands: flags without a value, and no variable.
    {.name = "health-check", .section = S::kCommands,
     .help = "probe the running emulator's /ready and exit 0 when it answers 200",
     .reads = kFlag,
     .apply = [](Parser& p, V) { p.s.health_check = true; }},
    {.name = "issue-token", .section = S::kCommands,
     .help = "print an Entra ID token for --principal that the emulator\n"
             "accepts (its key as the signature, as the SDKs' tests make\n"
             "it) and exit",
     .reads = kFlag,
     .apply = [](Parser& p, V) { p.s.issue_token = true; }},
    {.name = "principal", .value = "OID", .section = S::kCommands,
     .help = "--issue-token: the principal's object id (oid)",
     .reads = kFlag,
     .apply = [](Parser& p, V v) {
       if (v.empty()) p.Fail("names no principal");
       p.s.principal = v;
     }},
    {.name = "expires-in", .value = "S", .section = S::kCommands,
     .help = "--issue-token: seconds the token is valid (default 3600)",
     .reads = kFlag,
     .apply = [](Parser& p, V v) {
       p.s.expires_in = static_cast<int64_t>(p.AtLeast(v, 1, 366LL * 24 * 3600, "must be at least 1"));
     }},
    {.name = "help", .section = S::kCommands,  // also -h
     .help = "show this text",
     .reads = kFlag,
     .apply = [](Parser& p, V) { p.s.help = true; }},

    // The official images' names for what has no option of ours. The classic image's variables
    // are not flags (--enable-data-persistence is an unknown option).
    {.name = "ip-address-override", .official = "AZURE_COSMOS_EMULATOR_IP_ADDRESS_OVERRIDE", .reads = 0,
     .apply = [](Parser& p, V v) {
       if (!v.empty()) p.ip_override = Trim(v);
     }},
    {.name = "enable-data-persistence", .official = "AZURE_COSMOS_EMULATOR_ENABLE_DATA_PERSISTENCE", .reads = 0,
     .apply = [](Parser& p, V v) {
       // The classic image's switch: data kept in /tmp/cosmos/appdata (where that image keeps it)
       // unless DATA_PATH or --data-dir says where.
       p.persist_default = !v.empty() && p.Bool(v);
     }},
    {.name = "enable-mongodb-endpoint", .official = "AZURE_COSMOS_EMULATOR_ENABLE_MONGODB_ENDPOINT", .reads = 0,
     .apply = [](Parser& p, V v) {
       if (v.empty()) return;
       p.Fail("this emulator serves the API for NoSQL only, not MongoDB; unset it");
     }},
    // vNext's telemetry switches, variables and flags.
    {.name = "enable-telemetry", .value = "B", .official = "ENABLE_TELEMETRY", .reads = kFlag,
     .apply = [](Parser& p, V v) { p.Telemetry(v); }},
    {.name = "enable-otlp", .value = "B", .official = "ENABLE_OTLP_EXPORTER", .reads = kFlag,
     .apply = [](Parser& p, V v) { p.Telemetry(v); }},
    {.name = "enable-console", .value = "B", .official = "ENABLE_CONSOLE_EXPORTER", .reads = kFlag,
     .apply = [](Parser& p, V v) { p.Telemetry(v); }},
};

// COSMOS_EMULATOR_ + the flag's name upper-cased, '-' as '_'.
std::string EnvName(std::string_view flag) {
  std::string env = "COSMOS_EMULATOR_" + std::string(flag);
  for (auto& c : env) c = c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return env;
}

// The words of a space-separated list.
std::vector<std::string> Words(std::string_view list) {
  std::vector<std::string> words;
  std::istringstream in{std::string(list)};
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

// The option a flag names (its name or alias), or none.
const Option* FlagOption(std::string_view name) {
  for (const Option& o : kOptions) {
    if ((o.reads & kFlag) && (o.name == name || (!o.alias.empty() && o.alias == name))) return &o;
  }
  return nullptr;
}

void ReadVariables(Parser& p, const GetEnv& getenv) {
  // Ours first (set and not empty), then the official names (set, even empty: what harnesses set
  // wins over an image's defaults); the flags come after both.
  for (const Option& o : kOptions) {
    std::vector<std::string> names;
    if (o.reads & kAliasEnv) names.push_back(EnvName(o.alias));  // before the name's: that one wins
    if (o.reads & kOurEnv) names.push_back(EnvName(o.name));
    for (const auto& env : names) {
      if (const char* v = getenv(env.c_str()); v && *v) p.Apply(o, v, env);
    }
  }
  for (const Option& o : kOptions) {
    for (const auto& env : Words(o.official)) {
      if (const char* v = getenv(env.c_str())) p.Apply(o, v, env);
    }
  }
}

void ReadFlags(Parser& p, const std::vector<std::string>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i] == "-h" ? std::string("--help") : args[i];
    if (arg.rfind("--", 0) != 0) throw SettingsError("unexpected argument '" + arg + "'");
    std::string name = arg.substr(2), value;
    const auto eq = name.find('=');
    if (eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    // The name first: an unknown flag is unknown, with or without a value after it.
    const Option* o = FlagOption(name);
    // A flag that takes no value is given as it is (--help=x is no flag of ours).
    if (!o || (o->value.empty() && eq != std::string::npos)) throw SettingsError("unknown option --" + name);
    if (!o->value.empty() && eq == std::string::npos) {
      if (i + 1 >= args.size()) throw SettingsError("missing value for " + arg);
      value = args[++i];
    }
    p.Apply(*o, value, "--" + name);
  }
}

// Where --help puts an option's text, and the official variable's right-hand column.
constexpr size_t kHelpColumn = 27;
constexpr size_t kOfficialColumn = 81;

const char* SectionTitle(Section s) {
  switch (s) {
    case Section::kServing:
      return "Serving";
    case Section::kCertificate:
      return "Certificate (HTTPS)";
    case Section::kPersistence:
      return "Persistence (off by default: data lives in memory)";
    case Section::kSeeding:
      return "Seeding (docs/seeding.md)";
    case Section::kFaults:
      return "Fault injection (docs/faults.md)";
    case Section::kAccount:
      return "Account and behaviour";
    case Section::kCommands:
    case Section::kHidden:
      break;
  }
  return "";
}

// "  --name VALUE   first help line      OFFICIAL\n" and the other help lines under the first.
void PrintOption(std::string& out, const Option& o) {
  std::string line = "  --" + std::string(o.name);
  if (!o.value.empty()) line += " " + std::string(o.value);
  if (line.size() < kHelpColumn) {
    line.resize(kHelpColumn, ' ');
  } else if (line.size() + 2 <= kHelpColumn + 4) {
    line += "  ";  // a little past the column rather than a line of its own
  } else {
    out += line + "\n";
    line.assign(kHelpColumn, ' ');
  }
  std::vector<std::string> help;
  std::istringstream in{std::string(o.help)};
  for (std::string l; std::getline(in, l);) help.push_back(l);
  for (size_t i = 0; i < help.size(); ++i) {
    if (i > 0) line.assign(kHelpColumn, ' ');
    line += help[i];
    if (i == 0 && !o.official.empty()) {
      line.resize(std::max(kOfficialColumn, line.size() + 1), ' ');
      const auto names = Words(o.official);
      for (size_t n = 0; n < names.size(); ++n) line += (n ? ", " : "") + names[n];
    }
    out += line + "\n";
  }
}

std::string MakeUsage() {
  std::string out = R"(cosmos-emulator: an Azure Cosmos DB (NoSQL API) emulator

Usage: cosmos-emulator [options]

Every option is also read from COSMOS_EMULATOR_<NAME> (upper case, '-' as '_'); the official
emulator images' variables are read too (docs/settings.md). A flag wins over a variable.
)";
  for (Section s : {Section::kServing, Section::kCertificate, Section::kPersistence, Section::kSeeding,
                    Section::kFaults, Section::kAccount, Section::kCommands}) {
    out += "\n";
    if (*SectionTitle(s)) out += std::string(SectionTitle(s)) + "\n";
    for (const Option& o : kOptions) {
      if (o.section == s) PrintOption(out, o);
    }
  }
  out += R"(
Once it accepts requests the emulator prints "Now listening on: <url>" for each scheme and then
a line "Started". SIGINT or SIGTERM stop it cleanly.
)";
  return out;
}

}  // namespace

std::span<const Option> Options() { return kOptions; }

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
  ReadVariables(p, getenv);
  ReadFlags(p, args);
  p.Finish();
  return s;
}

const std::string& Usage() {
  static const std::string text = MakeUsage();
  return text;
}

}  // namespace cosmos::settings
