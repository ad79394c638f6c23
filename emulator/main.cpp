// cosmos-emulator: settings (flags, our variables, the official images' variables) -> certificate
// -> listeners (gateway, health, explorer) -> serve.
#include <arpa/inet.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string_view>
#include <cstring>
#include <exception>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/errors.h"
#include "direct/bridge.h"
#include "faults/faults.h"
#include "http/context.h"
#include "http/emulator_pages.h"
#include "http/entra.h"
#include "http/headers.h"
#include "http/pipeline.h"
#include "http/rbac.h"
#include "json/json.h"
#include "scripting/engine.h"
#include "server/server.h"
#include "server/tls.h"
#include "persist/state.h"
#include "seed/seed.h"
#include "settings/settings.h"
#include "store/store.h"
#include "sqlparser/ast.h"
#include "util/util.h"

namespace {

using cosmos::settings::LogLevel;
using cosmos::settings::Settings;

std::mutex g_log_mutex;

// One line to stdout (readiness and information) or stderr (warnings and errors), whole.
void Line(std::ostream& out, const std::string& text, const char* end = "\n") {
  std::lock_guard<std::mutex> lock(g_log_mutex);
  out << text << end << std::flush;
}

[[noreturn]] void Fail(const std::string& message) {
  std::cerr << "cosmos-emulator: " << message << "\n";
  std::exit(2);
}

// The settings of the emulator running as PID 1 (the container's), read from its command line
// and environment, so the image's HEALTHCHECK follows the port however it was set.
bool SettingsOfPid1(Settings& out) {
  if (getpid() == 1) return false;
  char exe[4096];
  ssize_t n = readlink("/proc/1/exe", exe, sizeof exe - 1);
  if (n <= 0) return false;
  std::string path(exe, static_cast<size_t>(n));
  if (path.size() < 15 || path.compare(path.size() - 15, 15, "cosmos-emulator") != 0) return false;
  auto read_nul_list = [](const char* file) {
    std::ifstream in(file, std::ios::binary);
    std::vector<std::string> items;
    for (std::string item; std::getline(in, item, '\0');) items.push_back(item);
    return items;
  };
  std::vector<std::string> args = read_nul_list("/proc/1/cmdline");
  std::vector<std::string> env = read_nul_list("/proc/1/environ");
  if (args.empty()) return false;
  args.erase(args.begin());
  try {
    out = cosmos::settings::Parse(args, [&env](const char* name) -> const char* {
      const size_t len = std::strlen(name);
      for (const auto& e : env) {
        if (e.size() > len && e.compare(0, len, name) == 0 && e[len] == '=') return e.c_str() + len + 1;
      }
      return nullptr;
    });
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

// GET /ready on the health port, else on the gateway port (over TLS when it serves only HTTPS;
// the certificate is not checked: this is the emulator probing itself).
int HealthCheck(const Settings& own) {
  namespace asio = boost::asio;
  namespace beast = boost::beast;
  Settings s = own;
  SettingsOfPid1(s);
  try {
    asio::io_context ioc;
    const bool use_health_port = s.health_port.has_value();
    const uint16_t port = use_health_port ? *s.health_port : s.port;
    asio::ip::tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), port);
    beast::http::request<beast::http::empty_body> req{beast::http::verb::get, "/ready", 11};
    req.set(beast::http::field::host, "127.0.0.1");
    beast::flat_buffer buffer;
    beast::http::response<beast::http::string_body> res;
    const auto exchange = [&](auto& stream) {
      beast::http::write(stream, req);
      beast::http::read(stream, buffer, res);
    };
    beast::tcp_stream tcp(ioc);
    tcp.expires_after(std::chrono::seconds(3));
    tcp.connect(endpoint);
    if (!use_health_port && s.protocol == cosmos::server::Protocol::kHttps) {
      asio::ssl::context ctx(asio::ssl::context::tls_client);
      ctx.set_verify_mode(asio::ssl::verify_none);
      beast::ssl_stream<beast::tcp_stream> stream(std::move(tcp), ctx);
      stream.handshake(asio::ssl::stream_base::client);
      exchange(stream);
    } else {
      exchange(tcp);
    }
    return res.result_int() == 200 ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "cosmos-emulator: health check failed: " << e.what() << "\n";
    return 1;
  }
}

// The names the made certificate covers: loopback, the host name, this machine's addresses (so
// another container can reach it by address), and what the settings add.
std::vector<std::string> CertificateNames(const Settings& s) {
  std::vector<std::string> names = {"localhost", "127.0.0.1", "::1"};
  char host[256] = "";
  if (gethostname(host, sizeof host - 1) == 0 && host[0]) names.emplace_back(host);
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) == 0) {
    for (ifaddrs* a = list; a; a = a->ifa_next) {
      if (!a->ifa_addr) continue;
      char text[INET6_ADDRSTRLEN] = "";
      if (a->ifa_addr->sa_family == AF_INET) {
        inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, text, sizeof text);
      } else if (a->ifa_addr->sa_family == AF_INET6) {
        auto* in6 = reinterpret_cast<sockaddr_in6*>(a->ifa_addr);
        if (IN6_IS_ADDR_LINKLOCAL(&in6->sin6_addr)) continue;  // needs a zone id; not a usable name
        inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof text);
      }
      if (text[0]) names.emplace_back(text);
    }
    freeifaddrs(list);
  }
  for (const auto& n : s.cert_names) names.push_back(n);
  if (!s.public_endpoint.host.empty()) names.push_back(s.public_endpoint.host);  // the configured endpoint
  std::vector<std::string> unique;
  for (const auto& n : names) {
    if (std::find(unique.begin(), unique.end(), n) == unique.end()) unique.push_back(n);
  }
  return unique;
}

// The names a kept certificate must still hold to be reused: not the host name or the
// addresses, which a container gets anew at every start.
std::vector<std::string> RequiredCertificateNames(const Settings& s) {
  std::vector<std::string> names = {"localhost", "127.0.0.1", "::1"};
  for (const auto& n : s.cert_names) names.push_back(n);
  if (!s.public_endpoint.host.empty()) names.push_back(s.public_endpoint.host);
  return names;
}

// The names of the certificate kept in `dir` when it holds every one of `required`, else none.
std::vector<std::string> KeptCertificateNames(const std::string& dir, const std::vector<std::string>& required) {
  std::ifstream in(dir + "/emulator-cert.pem");
  if (!in) return {};
  std::ostringstream pem;
  pem << in.rdbuf();
  std::vector<std::string> names;
  for (const auto& san : cosmos::server::SubjectAltNames(pem.str())) names.push_back(san.substr(san.find(':') + 1));
  for (const auto& r : required) {
    if (std::find(names.begin(), names.end(), r) == names.end()) return {};
  }
  return names;
}

// With no data directory named: the first of `candidates` that is a mount point (a volume), as
// the official images keep their data wherever a volume is mounted for it (/data for vNext,
// /tmp/cosmos/appdata for the classic image); empty when none is.
std::string MountedDataDirectory(const std::vector<std::string>& candidates) {
  std::ifstream in("/proc/self/mountinfo");
  std::vector<std::string> mounts;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string id, parent, dev, root, point;
    if (fields >> id >> parent >> dev >> root >> point) mounts.push_back(point);
  }
  for (const auto& c : candidates) {
    if (std::find(mounts.begin(), mounts.end(), c) != mounts.end()) return c;
  }
  return "";
}

bool EndsWith(const std::string& s, const char* suffix) {
  const size_t n = std::strlen(suffix);
  if (s.size() < n) return false;
  return cosmos::util::EqualsIgnoreCase(std::string_view(s).substr(s.size() - n), suffix);
}

// The certificate to serve and a line saying where it came from. Exits 2 when a supplied one
// cannot be used.
cosmos::server::Certificate LoadCertificate(const Settings& s, std::string& origin) {
  using namespace cosmos::server;
  try {
    if (!s.cert_path.empty()) {
      if (!s.cert_key_path.empty()) {
        origin = "certificate " + s.cert_path + " with key " + s.cert_key_path;
        return LoadPemFiles(s.cert_path, s.cert_key_path);
      }
      if (!s.cert_secret.empty() || EndsWith(s.cert_path, ".pfx") || EndsWith(s.cert_path, ".p12")) {
        origin = "certificate " + s.cert_path + " (PKCS#12)";
        return LoadPfx(s.cert_path, s.cert_secret);
      }
      origin = "certificate and key " + s.cert_path;
      return LoadPemFiles(s.cert_path, s.cert_path);
    }
    const auto names = CertificateNames(s);
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    if (!s.data_path.empty()) {
      // The kept one stays while it names what clients connect by (loopback and the configured
      // names), even when the host name or addresses changed (a container re-created on a
      // volume): a certificate trusted once stays trusted. Else a new one for every name.
      const auto now = std::chrono::system_clock::now();
      const std::vector<std::string> kept = KeptCertificateNames(s.data_path, RequiredCertificateNames(s));
      bool made = false;
      Certificate c = LoadOrMakeInDirectory(s.data_path, kept.empty() ? names : kept, now, &made);
      if (made && !kept.empty()) c = LoadOrMakeInDirectory(s.data_path, names, now, &made);
      std::string served;  // the names of the certificate served: the kept one's when it was kept
      for (const auto& n : made || kept.empty() ? names : kept) served += (served.empty() ? "" : ", ") + n;
      origin = std::string(made ? "made a self-signed certificate, kept in " : "reusing the certificate kept in ") +
               s.data_path + " (" + served + ")";
      return c;
    }
    origin = "made a self-signed certificate for " + list;
    return MakeSelfSigned(names, std::chrono::system_clock::now());
  } catch (const TlsError& e) {
    Fail(e.what());
  }
}

void ExportCertificate(const std::string& path, const std::string& pem) {
  // Create the parent directories (the classic image's path is deep).
  for (size_t i = 1; i < path.size(); ++i) {
    if (path[i] == '/') ::mkdir(path.substr(0, i).c_str(), 0755);
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << pem;
  if (!out.good()) Fail("cannot write the certificate to " + path);
}

std::string Url(const char* scheme, const std::string& host, uint16_t port) {
  std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return std::string(scheme) + "://" + h + ":" + std::to_string(port);
}

// How many errors a failed or skipping seed lists, one line each, before it gives only their count.
constexpr size_t kSeedErrorsShown = 20;

std::string Count(size_t n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); }

std::string Fixed(double v, int decimals) {
  std::ostringstream out;
  out.precision(decimals);
  out << std::fixed << v;
  return out.str();
}

// Loads --seed before anything is served (docs/seeding.md): progress on stderr once a second; a
// seed that cannot be used, or (--seed-errors fail) any bad item, stops the start with exit code 2
// and nothing loaded.
cosmos::seed::SeedReport SeedAccount(cosmos::http::Services& services, const Settings& s) {
  namespace seed = cosmos::seed;
  const LogLevel level = s.log_level;
  seed::SeedOptions options;
  options.on_error = s.seed_skip_errors ? seed::OnError::kSkip : seed::OnError::kFail;
  if (level >= LogLevel::kInfo) {
    options.progress = [](const seed::Progress& p) {
      Line(std::cerr, std::string("cosmos-emulator: seed: ") + p.step + " " + p.container + " (" + p.source +
                          "): " + std::to_string(p.done) + " of " + std::to_string(p.total) + " items, " +
                          std::to_string(static_cast<long long>(p.per_second)) + " items/s");
    };
  }
  if (level >= LogLevel::kWarn) options.notice = [](const std::string& text) { Line(std::cerr, "cosmos-emulator: " + text); };
  seed::SeedReport report;
  try {
    report = seed::Seed(services, s.seed_path, options);
  } catch (const seed::SeedError& e) {
    Fail(std::string("seed: ") + e.what());
  } catch (const std::exception& e) {
    Fail(std::string("seed: ") + e.what());
  }
  const seed::Outcome& o = report.outcome;
  const bool skipping = s.seed_skip_errors && o.applied;
  if (o.error_count > 0 && (level >= LogLevel::kWarn || !skipping)) {
    for (size_t i = 0; i < o.errors.size() && i < kSeedErrorsShown; ++i)
      Line(std::cerr, std::string("cosmos-emulator: seed: ") + (skipping ? "skipped " : "") + o.errors[i].Where() +
                          ": " + o.errors[i].message);
    if (o.error_count > kSeedErrorsShown)
      Line(std::cerr, "cosmos-emulator: seed: ... and " + std::to_string(o.error_count - kSeedErrorsShown) + " more");
  }
  if (!o.applied) {
    Fail("seed: " + Count(o.error_count, "item", "items") + " cannot be loaded; nothing was loaded" +
         " (--seed-errors skip loads the others)");
  }
  if (!skipping && o.error_count > 0) Fail("seed: " + Count(o.error_count, "item", "items") + " could not be written");
  if (skipping && o.error_count > 0 && level >= LogLevel::kWarn)
    Line(std::cerr, "cosmos-emulator: seed: skipped " + Count(o.error_count, "item", "items") + " (--seed-errors skip)");
#ifdef __GLIBC__
  malloc_trim(0);  // what reading and checking the files used goes back to the system
#endif
  return report;
}

std::string SeedSummary(const cosmos::seed::SeedReport& r) {
  const auto& o = r.outcome;
  std::string line = "cosmos-emulator: seeded " + Count(o.loaded, "item", "items") + " (" + std::to_string(o.created) +
                     " created, " + std::to_string(o.replaced) + " replaced";
  if (o.error_count > 0) line += ", " + std::to_string(o.error_count) + " skipped";
  line += ") into " + Count(r.containers, "container", "containers") + " from " + Count(r.files, "file", "files") +
          " (" + Fixed(static_cast<double>(r.bytes) / 1e6, 1) + " MB) in " + Fixed(r.seconds, 2) + " s (" +
          std::to_string(static_cast<long long>(r.seconds > 0 ? static_cast<double>(o.loaded) / r.seconds : 0)) +
          " items/s)";
  if (r.databases_created + r.containers_created > 0)
    line += "; created " + Count(r.databases_created, "database", "databases") + " and " +
            Count(r.containers_created, "container", "containers");
  return line;
}

}  // namespace

// Scans visit items scattered over the heap, one or two pages each: with malloc's memory in huge
// pages (transparent huge pages, glibc's `glibc.malloc.hugetlb=1` tunable) a full scan spends about
// a fifth less time waiting for address translation. Tunables are read when a process starts, so
// the emulator starts itself again once with it set. COSMOS_HUGE_PAGES=0 keeps the plain heap.
static void UseHugePages(char** argv) {
  const char* off = std::getenv("COSMOS_HUGE_PAGES");
  if (off != nullptr && std::string_view(off) == "0") return;
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  std::string value = tunables != nullptr ? tunables : "";
  if (value.find("glibc.malloc.hugetlb") != std::string::npos) return;  // set: by us, or by the user
  value += value.empty() ? "glibc.malloc.hugetlb=1" : ":glibc.malloc.hugetlb=1";
  if (setenv("GLIBC_TUNABLES", value.c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);  // returns only on failure: go on with the plain heap
}

namespace {

// --issue-token: the token the SDKs' own emulator tests make (kid CosmosEmulatorPrimaryMaster, the
// master key's text as the signature segment, audience https://localhost.localhost), for
// --principal, valid from now for --expires-in seconds. The emulator accepts it unless it was given
// --aad-keys (docs/entra-id.md).
std::string TestToken(const Settings& s) {
  const auto b64url = [](std::string_view bytes) {
    std::string out = cosmos::util::Base64Encode(bytes);
    while (!out.empty() && out.back() == '=') out.pop_back();
    for (char& c : out) c = c == '+' ? '-' : c == '/' ? '_' : c;
    return out;
  };
  const int64_t now = cosmos::util::UnixSeconds();
  const std::string claims = "{\"aud\":\"https://localhost.localhost\",\"iss\":\"https://sts.fake-issuer.net/cosmos-emulator\","
                             "\"iat\":" + std::to_string(now) + ",\"nbf\":" + std::to_string(now) +
                             ",\"exp\":" + std::to_string(now + s.expires_in) + ",\"oid\":" +
                             cosmos::json::Quote(s.principal) + ",\"tid\":\"EmulatorFederation\"}";
  return b64url(R"({"typ":"JWT","alg":"RS256","kid":"CosmosEmulatorPrimaryMaster"})") + "." + b64url(claims) + "." +
         b64url(s.key);
}

// Settings and logging: flags and variables read, --help and --health-check answered, the data
// directory settled. A value when the process ends here (its exit code).
std::optional<int> ReadSettings(int argc, char** argv, Settings& s) {
  try {
    s = cosmos::settings::Parse(std::vector<std::string>(argv + 1, argv + argc),
                                [](const char* name) { return std::getenv(name); });
  } catch (const cosmos::settings::SettingsError& e) {
    std::cerr << "cosmos-emulator: " << e.what() << " (see --help)\n";
    return 2;
  }
  if (s.help) {
    std::cout << cosmos::settings::Usage();
    return 0;
  }
  if (s.health_check) return HealthCheck(s);
  if (s.issue_token) {
    std::cout << TestToken(s) << "\n";
    return 0;
  }
  if (!s.data_path_named && !s.data_dir_if_mounted.empty()) {
    if (std::string mounted = MountedDataDirectory(s.data_dir_if_mounted); !mounted.empty()) s.data_path = mounted;
  }
  if (s.log_level >= LogLevel::kTrace) {
    s.server.on_refused = [](const std::string& why) { Line(std::cout, "cosmos-emulator: connection " + why); };
  }
  if (s.log_level >= LogLevel::kWarn) {
    s.server.on_warning = [](const std::string& text) { Line(std::cerr, "cosmos-emulator: " + text); };
  }
  return std::nullopt;
}

// What the listeners serve, from the settings.
struct Listeners {
  explicit Listeners(const Settings& s)
      : explorer_protocol(s.explorer_protocol.value_or(s.protocol)),
        explorer(s.explorer && s.explorer_port.has_value()),
        needs_tls(s.protocol != cosmos::server::Protocol::kHttp || s.direct_port.has_value() ||
                  (explorer && explorer_protocol != cosmos::server::Protocol::kHttp)) {}
  cosmos::server::Protocol explorer_protocol;
  bool explorer;   // the explorer page has a port of its own
  bool needs_tls;  // some listener serves HTTPS
  // The listeners' indexes, for Server::port (the gateway's is 0).
  size_t health_index = 0, explorer_index = 0, direct_index = 0, compute_index = 0;
};

cosmos::http::Config MakeConfig(const Settings& s) {
  cosmos::http::Config config;
  config.master_key_b64 = s.key;
  config.master_key = *cosmos::util::Base64Decode(s.key);
  for (auto [from, to] : {std::pair{&s.secondary_key, &config.secondary_key}, std::pair{&s.readonly_key, &config.readonly_key},
                          std::pair{&s.secondary_readonly_key, &config.secondary_readonly_key}}) {
    if (!from->empty()) *to = *cosmos::util::Base64Decode(*from);
  }
  config.consistency = s.consistency;
  config.script_timeout_ms = s.script_timeout_ms;
  config.script_memory_bytes = s.script_memory_mb << 20;
  config.query_page_timeout_ms = s.query_page_timeout_ms;
  config.query_memory_bytes = s.query_memory_mb << 20;
  config.query_indexes = s.query_indexes;
  config.query_threads = s.query_threads;
  config.public_scheme = s.public_endpoint.scheme;
  config.public_host = s.public_endpoint.host;
  config.public_port = s.public_endpoint.port;
  config.explorer = s.explorer;
  config.protocol = cosmos::settings::ProtocolName(s.protocol);
  return config;
}

// The certificate: loaded or made, served, and exported when asked. `origin` says where it came from.
std::shared_ptr<boost::asio::ssl::context> SetUpTls(const Settings& s, cosmos::http::Config& config, std::string& origin) {
  cosmos::server::Certificate cert = LoadCertificate(s, origin);
  std::shared_ptr<boost::asio::ssl::context> tls;
  try {
    tls = cosmos::server::MakeServerContext(cert);
  } catch (const cosmos::server::TlsError& e) {
    Fail(e.what());
  }
  config.certificate_pem = cosmos::server::TrustPem(cert.cert_pem);
  if (!s.cert_export_path.empty()) ExportCertificate(s.cert_export_path, config.certificate_pem);
  return tls;
}

// --faults: the rules to start with; exits 2 when they cannot be read or used.
void LoadFaults(cosmos::faults::Injector& faults, const std::string& path) {
  if (path.empty()) return;
  try {
    std::ifstream in(path, std::ios::binary);
    if (!in) Fail("--faults: cannot read " + path);
    std::ostringstream text;
    text << in.rdbuf();
    faults.AddAll(text.str());
  } catch (const cosmos::CosmosError& e) {
    Fail("--faults: " + path + ": " + e.what());
  }
}

// Entra ID: --aad-keys and --aad-issuer into the config, --rbac into the roles; exits 2 when a
// file cannot be read or used.
std::string ReadWholeFile(const std::string& flag, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) Fail(flag + ": cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Returns --rbac's document (checked: exits 2 when it is not a valid one), empty without --rbac.
std::string SetUpEntraId(const Settings& s, cosmos::http::Config& config, cosmos::http::RbacRoles& roles) {
  if (!s.aad_keys_path.empty()) {
    try {
      config.aad_keys = cosmos::http::AadKeys::Load(ReadWholeFile("--aad-keys", s.aad_keys_path));
    } catch (const std::runtime_error& e) {
      Fail("--aad-keys: " + s.aad_keys_path + ": " + e.what());
    }
  }
  config.aad_issuer = s.aad_issuer;
  config.disable_local_auth = s.disable_local_auth;
  if (s.rbac_path.empty()) return {};
  std::string document = ReadWholeFile("--rbac", s.rbac_path);
  try {
    roles.Replace(document);
  } catch (const cosmos::CosmosError& e) {
    Fail("--rbac: " + s.rbac_path + ": " + e.what());
  }
  return document;
}

// The roles in force once the data directory is recovered (http::StartRoles), and where they came
// from, for the start line; exits 2 when they cannot be used.
std::string SetUpRoles(const Settings& s, cosmos::http::Services& services, const std::string& rbac_document) {
  try {
    switch (cosmos::http::StartRoles(services, rbac_document)) {
      case cosmos::http::RolesOrigin::kGiven:
        return " (--rbac " + s.rbac_path + (s.data_path.empty() ? ")" : ", kept in " + s.data_path + ")");
      case cosmos::http::RolesOrigin::kKept:
        return " (kept in " + s.data_path + ")";
      case cosmos::http::RolesOrigin::kDefault:
        break;
    }
  } catch (const std::exception& e) {
    Fail((rbac_document.empty() ? "the roles kept in " + s.data_path : "--rbac: " + s.rbac_path) +
         " cannot be used: " + e.what());
  }
  return " (no --rbac)";
}

// Persistence recovery: what the data directory holds, recovered before anything is served; none
// without a data directory.
std::unique_ptr<cosmos::persist::Persistence> RecoverData(cosmos::store::Account& account, const Settings& s,
                                                          cosmos::persist::RecoveryReport& recovery) {
  if (s.data_path.empty()) return nullptr;
  const LogLevel level = s.log_level;
  cosmos::persist::Options options;
  options.dir = s.data_path;
  options.durability =
      s.durability == "process" ? cosmos::persist::Durability::kProcess : cosmos::persist::Durability::kFsync;
  options.recovery = s.recover_salvage ? cosmos::persist::Recovery::kSalvage : cosmos::persist::Recovery::kRefuse;
  options.warn = [level](const std::string& text) {
    if (level >= LogLevel::kWarn) Line(std::cerr, "cosmos-emulator: " + text);
  };
  std::unique_ptr<cosmos::persist::Persistence> persistence;
  try {
    persistence = std::make_unique<cosmos::persist::Persistence>(account, options, recovery);
  } catch (const cosmos::persist::PersistError& e) {
    Fail(e.what());
  }
  if (s.recover_salvage) {  // said whatever the log level: the user asked to drop what is damaged
    for (const auto& dropped : recovery.salvaged) Line(std::cout, "cosmos-emulator: --recover salvage: " + dropped);
    if (!recovery.set_aside.empty())
      Line(std::cout, "cosmos-emulator: --recover salvage: the damaged files are in " + recovery.set_aside);
    if (recovery.salvaged.empty())
      Line(std::cout, "cosmos-emulator: --recover salvage: nothing in " + s.data_path + " was damaged; nothing was dropped");
  }
  return persistence;
}

// The gateway's handler; at --log-level debug it also prints one line per request.
// `compute`: the SQL compute endpoint's (--compute-port), which addresses every item id.
cosmos::server::RequestHandler Gateway(cosmos::http::Services& services, LogLevel level, bool compute = false) {
  if (level < LogLevel::kDebug) {
    return [&services, compute](const cosmos::server::Request& req, const cosmos::server::Connection& c) {
      return cosmos::http::Handle(services, req, c.secure, c.cancelled, compute);
    };
  }
  return [&services, compute](const cosmos::server::Request& req, const cosmos::server::Connection& c) {
    const auto start = std::chrono::steady_clock::now();
    cosmos::server::Response res = cosmos::http::Handle(services, req, c.secure, c.cancelled, compute);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::ostringstream line;
    line.precision(3);
    line << "cosmos-emulator: " << (c.secure ? "https " : "http ") << req.method_string() << " " << req.target() << " "
         << res.result_int();
    if (auto it = res.find(cosmos::http::headers::kRequestCharge); it != res.end()) line << " " << it->value() << " RU";
    line << " " << std::fixed << ms << " ms";
    Line(std::cout, line.str());
    return res;
  };
}

// Direct mode on the gateway's port too: it is on, and the gateway's port serves TLS.
bool DirectOnGatewayPort(const Settings& s) {
  return s.direct_port.has_value() && s.protocol != cosmos::server::Protocol::kHttp;
}

// Serving: the gateway, the Direct, compute, health and explorer ports bound; exits 2 when one
// cannot be. `gateway`, `compute` and `config` are used by the listeners until the server stops.
void Listen(cosmos::server::Server& server, const Settings& s, cosmos::http::Config& config,
            const cosmos::server::RequestHandler& gateway, const cosmos::server::RequestHandler& compute,
            const cosmos::server::RntbdHandler& direct, Listeners& listeners) {
  try {
    // The probes are answered on the I/O threads; everything else on the workers.
    const auto all = [](const cosmos::server::Request&) { return true; };
    // Item writes wait for the disk with --durability fsync: those go to a worker.
    const bool item_writes_at_once = s.data_path.empty() || s.durability == "process";
    const cosmos::server::AnswersAtOnce gateway_at_once = [item_writes_at_once](const cosmos::http::Request& req) {
      return cosmos::http::AnswersAtOnce(req, item_writes_at_once);
    };
    const cosmos::server::RntbdAnswersAtOnce direct_at_once = [&config, item_writes_at_once](const cosmos::rntbd::Request& r) {
      return cosmos::direct::AnswersAtOnce(r, config, item_writes_at_once);
    };
    // With Direct mode on and TLS on the gateway's port, that port serves RNTBD too: the address
    // feed names it to a client that reached the gateway through a port mapping (docs/direct-mode.md).
    config.direct_on_gateway_port = DirectOnGatewayPort(s);
    if (config.direct_on_gateway_port)
      server.Listen(s.host, s.port, s.protocol, gateway, gateway_at_once, direct, direct_at_once);
    else
      server.Listen(s.host, s.port, s.protocol, gateway, gateway_at_once);
    config.gateway_port = std::to_string(server.port(0));
    if (s.direct_port) {  // the address feed names this port
      try {
        listeners.direct_index = server.ListenRntbd(s.host, *s.direct_port, direct, direct_at_once);
      } catch (const boost::system::system_error& e) {
        // The default port taken (another emulator): any free one; the clients learn it from the
        // address feed. A port that was asked for stops the start instead.
        if (s.direct_port_given || e.code() != boost::asio::error::address_in_use) throw;
        listeners.direct_index = server.ListenRntbd(s.host, 0, direct, direct_at_once);
        if (s.log_level >= LogLevel::kWarn)
          Line(std::cout, "cosmos-emulator: port " + std::to_string(*s.direct_port) + " is taken: Direct mode on port " +
                              std::to_string(server.port(listeners.direct_index)) + " instead");
      }
      config.direct_port = server.port(listeners.direct_index);
    }
    if (s.compute_port) listeners.compute_index = server.Listen(s.host, *s.compute_port, s.protocol, compute, gateway_at_once);
    if (s.health_port) {
      listeners.health_index =
          server.Listen(s.host, *s.health_port, cosmos::server::Protocol::kHttp,
                        [&config](const cosmos::server::Request& req, const cosmos::server::Connection&) {
                          return cosmos::http::HandleHealthPort(config, req);
                        },
                        all);
    }
    if (listeners.explorer) {
      // It proxies the gateway, so a client may take it for the gateway: with TLS it serves RNTBD
      // too, as the address feed then names it.
      const bool direct_too = config.direct_on_gateway_port && listeners.explorer_protocol != cosmos::server::Protocol::kHttp;
      listeners.explorer_index = server.Listen(
          s.host, *s.explorer_port, listeners.explorer_protocol,
          [&config, &gateway](const cosmos::server::Request& req, const cosmos::server::Connection& c) {
            return cosmos::http::HandleExplorerPort(config, req, c.secure, [&] { return gateway(req, c); });
          },
          gateway_at_once, direct_too ? direct : cosmos::server::RntbdHandler{},
          direct_too ? direct_at_once : cosmos::server::RntbdAnswersAtOnce{});
    }
  } catch (const std::exception& e) {
    Fail("cannot listen on " + s.host + ": " + e.what());
  }
}

// What the start did, for the lines printed before "Started".
struct StartReport {
  std::string cert_origin;
  const cosmos::persist::Persistence* persistence = nullptr;
  cosmos::persist::RecoveryReport recovery;
  std::optional<cosmos::seed::SeedReport> seeded;
  std::string roles;  // the Entra ID roles in force (RbacRoles::Summary)
};

// The settings in force, where the certificate came from, what was recovered and seeded (info),
// then what was cut off and the notices (warn).
void PrintStartReport(const Settings& s, const cosmos::http::Config& config, const cosmos::server::Server& server,
                      const Listeners& listeners, const StartReport& start) {
  const LogLevel level = s.log_level;
  const auto& recovery = start.recovery;
  if (level >= LogLevel::kInfo) {
    std::string line = "cosmos-emulator: consistency " + config.consistency;
    if (s.partition_count) line += ", " + std::to_string(*s.partition_count) + " partitions per container";
    if (s.rate_limit) line += ", rate limiting on";
    line += ", " + std::to_string(s.server.workers ? s.server.workers : cosmos::server::DefaultWorkers()) +
            " workers, up to " + std::to_string(server.max_connections()) + " connections";
    Line(std::cout, line);
    if (!start.cert_origin.empty()) Line(std::cout, "cosmos-emulator: " + start.cert_origin);
    Line(std::cout, "cosmos-emulator: Entra ID tokens: " +
                        (config.aad_keys ? "signatures verified with " + std::to_string(config.aad_keys->size()) +
                                               " keys from " + s.aad_keys_path
                                         : std::string("any signature accepted (no --aad-keys)")) +
                        (config.aad_issuer.empty() ? "" : ", issuer " + config.aad_issuer) + "; " + start.roles);
    if (config.disable_local_auth)
      Line(std::cout, "cosmos-emulator: local authorization disabled: master keys and resource tokens answer 401 "
                      "(the /_emulator endpoints still take the master key)");
    if (start.persistence) {
      std::ostringstream line;
      line.precision(1);
      line << "cosmos-emulator: data kept in " << s.data_path << " (durability " << s.durability << "): recovered "
           << recovery.databases << " databases, " << recovery.containers << " containers, " << recovery.items
           << " items from " << recovery.snapshot_records << " snapshot and " << recovery.log_records
           << " log records in " << std::fixed << recovery.milliseconds << " ms";
      Line(std::cout, line.str());
    }
    if (start.seeded) Line(std::cout, SeedSummary(*start.seeded));
    if (!s.cert_export_path.empty() && listeners.needs_tls)
      Line(std::cout, "cosmos-emulator: certificate written to " + s.cert_export_path);
  }
  if (level >= LogLevel::kWarn) {
    if (recovery.discarded_bytes > 0)
      Line(std::cout, "cosmos-emulator: the log's last " + std::to_string(recovery.discarded_bytes) +
                          " bytes were cut off (" + recovery.discarded_reason +
                          "): a write in progress when the emulator stopped, never acknowledged");
    for (const auto& n : s.notices) Line(std::cout, "cosmos-emulator: " + n);  // before "Started", in order
  }
}

// The lines the official images print and their harnesses wait for: Node's module waits for
// "Now listening on: ", Go's and .NET's for "Started", Python's for "Started" at the end of
// the output and Java's for "Started" followed by CRLF.
void PrintReady(const Settings& s, const cosmos::server::Server& server, const Listeners& listeners) {
  const uint16_t port = server.port(0);
  if (s.protocol != cosmos::server::Protocol::kHttp) Line(std::cout, "Now listening on: " + Url("https", s.host, port));
  if (s.protocol != cosmos::server::Protocol::kHttps) Line(std::cout, "Now listening on: " + Url("http", s.host, port));
  if (s.compute_port && s.log_level >= LogLevel::kInfo)
    Line(std::cout, "SQL compute endpoint on: " + Url(s.protocol == cosmos::server::Protocol::kHttp ? "http" : "https",
                                                      s.host, server.port(listeners.compute_index)) + "/");
  if (s.health_port && s.log_level >= LogLevel::kInfo)
    Line(std::cout, "Health probes on: " + Url("http", s.host, server.port(listeners.health_index)) + "/ready");
  if (listeners.explorer && s.log_level >= LogLevel::kInfo)
    Line(std::cout, std::string("Explorer page on: ") +
                        Url(listeners.explorer_protocol == cosmos::server::Protocol::kHttp ? "http" : "https", s.host,
                            server.port(listeners.explorer_index)) + "/");
  // The address feed's port first: the gateway's when it serves RNTBD too.
  if (s.direct_port && s.log_level >= LogLevel::kInfo) {
    const bool on_gateway = DirectOnGatewayPort(s);
    Line(std::cout, "Direct mode on: " + Url("rntbd", s.host, on_gateway ? port : server.port(listeners.direct_index)));
    if (on_gateway)
      Line(std::cout, "Direct mode also on: " + Url("rntbd", s.host, server.port(listeners.direct_index)));
  }
  Line(std::cout, "Started", "\r\n");
}

// Shutdown, once the server has stopped: a snapshot, so that the next start reads one.
void Shutdown(cosmos::persist::Persistence* persistence, LogLevel level) {
  if (persistence) {
    try {
      persistence->Checkpoint();  // the next start reads one snapshot
    } catch (const std::exception& e) {
      Line(std::cerr, std::string("cosmos-emulator: checkpoint at stop failed (the log keeps everything): ") + e.what());
    }
  }
  if (level >= LogLevel::kInfo) Line(std::cout, "cosmos-emulator: Stopped");
}

}  // namespace

int main(int argc, char** argv) {
  UseHugePages(argv);
  Settings s;
  if (std::optional<int> exit_code = ReadSettings(argc, argv, s)) return *exit_code;
  const LogLevel level = s.log_level;
  Listeners listeners(s);
  cosmos::http::Config config = MakeConfig(s);
  StartReport start;
  std::shared_ptr<boost::asio::ssl::context> tls;
  if (listeners.needs_tls) tls = SetUpTls(s, config, start.cert_origin);

  cosmos::scripting::Initialize();  // the JavaScript engine starts before any worker thread
  cosmos::store::Account account;
  account.set_partition_count_override(s.partition_count);
  cosmos::throughput::SystemClock clock;
  cosmos::throughput::RateLimiter limiter(clock);
  limiter.set_enabled(s.rate_limit);
  cosmos::stats::Report stats([level](const std::string& line) {
    if (level >= LogLevel::kWarn) Line(std::cerr, "cosmos-emulator: " + line);
  });
  cosmos::util::WallClock wall_clock;
  cosmos::faults::Injector faults;
  LoadFaults(faults, s.faults_path);
  cosmos::http::RbacRoles roles;
  const std::string rbac_document = SetUpEntraId(s, config, roles);
  cosmos::http::Services services{account, config, limiter, stats, wall_clock, &faults};
  services.rbac = &roles;
  cosmos::seed::ServeImport(services);  // POST /_emulator/import
  account.set_clock(&wall_clock);  // databases', containers' and offers' _ts read the clock items' do

  // Persistence: recover what the data directory holds before anything is served.
  std::unique_ptr<cosmos::persist::Persistence> persistence = RecoverData(account, s, start.recovery);
  start.persistence = persistence.get();
  const std::string roles_origin = SetUpRoles(s, services, rbac_document);
  // Seeding: loaded before anything listens, so that no client sees part of it.
  if (!s.seed_path.empty()) start.seeded = SeedAccount(services, s);

  cosmos::server::Server server(s.server, tls, [](int status, const std::string& reason, unsigned version) {
    const char* code = status == 413 ? "RequestEntityTooLarge" : status >= 500 ? "InternalServerError" : "BadRequest";
    return cosmos::http::ErrorResponse(status, code, reason, version, false);
  });
  const cosmos::server::RequestHandler gateway = Gateway(services, level);
  const cosmos::server::RequestHandler compute = Gateway(services, level, true);
  const cosmos::server::RntbdHandler direct = [&services](const cosmos::rntbd::Request& req,
                                                         const cosmos::server::Connection& c) {
    return cosmos::direct::Handle(services, req, c);
  };
  Listen(server, s, config, gateway, compute, direct, listeners);
  // The activity ids' generator takes its seed from OpenSSL now, on this thread, not in the first
  // request (util::NewUuid).
  (void)cosmos::util::NewUuid();
  start.roles = roles.Summary() + roles_origin;
  if (level != LogLevel::kQuiet) {
    PrintStartReport(s, config, server, listeners, start);
    PrintReady(s, server, listeners);
  }
  // The SQL parser's shared prediction cache, filled beside the server from its first moment by
  // parsing the common query shapes once (ANTLR learns each decision on first use, a third of the
  // first query after a large seed; done before "Started" it would add a third to the start).
  std::jthread warm_parser([] {  // (joined when it goes out of scope, whatever happens)
    for (const char* text : {"SELECT * FROM c WHERE c.a = 'x' AND (c.b > 1 OR c.b IN (2, 3)) ORDER BY c.n DESC",
                             "SELECT TOP 10 c.id, c['x'] AS y FROM c JOIN t IN c.tags WHERE ARRAY_CONTAINS(c.t, @p) "
                             "AND STARTSWITH(c.s, 'a') OFFSET 0 LIMIT 5",
                             "SELECT VALUE COUNT(1) FROM c", "SELECT c.a, COUNT(1) AS n, SUM(c.b) AS s FROM c GROUP BY c.a",
                             "SELECT DISTINCT VALUE c.a FROM c WHERE NOT IS_DEFINED(c.z) AND c.n BETWEEN 1 AND 9"}) {
      cosmos::sql::SyntaxError ignored;
      (void)cosmos::sql::Parse(text, ignored);
    }
  });
  server.Run(true);
  warm_parser.join();
  Shutdown(persistence.get(), level);
  return 0;
}
