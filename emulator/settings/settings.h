// The emulator's settings: our flags and COSMOS_EMULATOR_* variables, and the official emulators'
// names for the same things (the classic image's AZURE_COSMOS_EMULATOR_*, the vNext image's PORT,
// PROTOCOL, KEY_FILE, ... and its flags), so a harness written for either image starts this one.
// docs/settings.md lists every name, what it maps to and what it refuses.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/well_known_key.h"
#include "server/server.h"

namespace cosmos::settings {

using cosmos::kWellKnownKey;  // common/well_known_key.h: the default --key

// A setting that cannot be honoured; what() is the one-line reason (exit code 2).
class SettingsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class LogLevel { kQuiet, kError, kWarn, kInfo, kDebug, kTrace };

// Where clients are told the gateway is (the account's locations); empty parts come from the
// request (its scheme and Host header).
struct PublicEndpoint {
  std::string scheme;  // "http", "https" or empty
  std::string host;    // host name or IP literal (IPv6 without brackets), or empty
  std::string port;    // digits or empty
};

struct Settings {
  server::Options server;
  std::string host = "127.0.0.1";
  uint16_t port = 8081;
  server::Protocol protocol = server::Protocol::kBoth;
  std::optional<uint16_t> health_port;       // /ready, /alive, /status over plain HTTP
  std::optional<uint16_t> direct_port = 10253;  // Direct mode (RNTBD over TLS); nullopt: off
  // The Direct port was given (flag or variable): when it is taken the start fails. The default,
  // when taken (another emulator), gives way to a free port, which the address feed names.
  bool direct_port_given = false;
  // The Windows emulator's SQL compute endpoint (/EnableSqlComputeEndpoint, its port 8903): the
  // gateway again, on a port of its own, addressing every item id in a path; nullopt: off.
  std::optional<uint16_t> compute_port;
  bool explorer = true;                      // /_explorer/index.html
  std::optional<uint16_t> explorer_port;     // the explorer page on a port of its own
  std::optional<server::Protocol> explorer_protocol;  // default: protocol
  std::string key;                           // base64 master key
  // The account's other keys (base64; empty: none). The official emulators have one key only, so
  // none of these is set unless asked for (docs/settings.md).
  std::string secondary_key;
  std::string readonly_key;
  std::string secondary_readonly_key;
  // Microsoft Entra ID tokens (docs/entra-id.md): a JWKS or PEM file of the keys their signatures
  // must verify with (empty: signatures are not checked), the issuer they must name (empty: any),
  // and the data-plane roles of their principals (empty: every principal is a Data Contributor).
  std::string aad_keys_path;
  std::string aad_issuer;
  std::string rbac_path;
  // The account's disableLocalAuth: master keys and resource tokens answer 401, only tokens serve.
  bool disable_local_auth = false;
  std::string consistency = "Session";
  std::optional<int> partition_count;
  bool rate_limit = false;
  int script_timeout_ms = 5000;
  size_t script_memory_mb = 512;
  int query_page_timeout_ms = 5000;
  size_t query_memory_mb = 512;
  bool query_indexes = true;  // false: queries read their partitions whole (results never differ)
  unsigned query_threads = 0;  // threads one collecting query reads on; 0: one per core
  LogLevel log_level = LogLevel::kInfo;
  // Certificate: supplied (PEM pair, or PFX with its password), else kept in data_path, else made.
  std::string cert_path;
  std::string cert_key_path;
  std::string cert_secret;
  std::vector<std::string> cert_names;  // names and addresses besides the defaults
  // Persistence: everything (and the made certificate) kept in data_path; empty: memory only.
  std::string data_path;
  // Whether a data directory was named (--data-dir, DATA_PATH), not only switched on; when not,
  // the first of `data_dir_if_mounted` that is a mount point keeps the data (the image's volumes).
  bool data_path_named = false;
  std::vector<std::string> data_dir_if_mounted;
  bool recover_salvage = false;  // --recover salvage: keep what damage leaves (persist::Recovery)
  std::string durability = "fsync";  // "fsync": acknowledged once on disk; "process": once written
  std::string cert_export_path;         // also write the served certificate (PEM) here
  // Seeding (docs/seeding.md): a directory holding manifest.json, or a manifest file; empty: none.
  std::string seed_path;
  bool seed_skip_errors = false;  // --seed-errors skip: load the good items, report the others
  std::string faults_path;        // --faults: fault-injection rules to start with (docs/faults.md)
  PublicEndpoint public_endpoint;
  bool health_check = false;  // --health-check: probe a running emulator and exit
  // --issue-token: print an Entra ID token for `principal` that this emulator accepts, valid for
  // `expires_in` seconds from now, and exit (docs/entra-id.md).
  bool issue_token = false;
  std::string principal;
  int64_t expires_in = 3600;
  bool help = false;
  // Lines to log at start: settings accepted that change nothing here, and why.
  std::vector<std::string> notices;
};

// Reads the environment (through `getenv`) and then `args` (argv without the program name): our
// COSMOS_EMULATOR_* names first, then the official ones, then the flags, each later one winning (a
// flag over a variable, an official name over ours). Throws SettingsError.
using GetEnv = std::function<const char*(const char*)>;
Settings Parse(const std::vector<std::string>& args, const GetEnv& getenv);

// The --help text, made from the option table.
const std::string& Usage();

// The option table: one row for each setting, from which the parser looks names up, --help is
// printed and the variables read are listed (docs/settings.md is the user's side; the Docs tests
// check README.md and docs/settings.md against it).
class Parser;  // settings.cpp: the settings being made, and the checks that turn text into values
using Apply = void (*)(Parser& p, const std::string& value);

// --help's groups, in its order; kHidden: accepted, not in --help (the official images' names).
enum class Section { kServing, kCertificate, kPersistence, kSeeding, kFaults, kAccount, kCommands, kHidden };

// Where an option is read from besides the official variables.
enum Reads : unsigned {
  kFlag = 1,      // --NAME (and --ALIAS)
  kOurEnv = 2,    // COSMOS_EMULATOR_<NAME>: the name upper-cased, '-' as '_'
  kAliasEnv = 4,  // COSMOS_EMULATOR_<ALIAS> too
  kOption = kFlag | kOurEnv,
};

struct Option {
  std::string_view name{};  // the flag without "--"
  std::string_view alias{};  // another flag for the same option (an official image's), or empty
  std::string_view value{};  // what --help shows for the value ("N", "N|off"); empty: takes none
  Section section = Section::kHidden;
  std::string_view official{};  // the official images' variables for it, space-separated
  std::string_view help{};  // the --help text, lines separated by '\n'
  unsigned reads = kOption;
  Apply apply = nullptr;
};

// Every row, in --help's order; the variables are read in this order too (ours, then official).
std::span<const Option> Options();

// "https", "http", "both".
const char* ProtocolName(server::Protocol p);

}  // namespace cosmos::settings
