// The settings: our flags and variables, and the official images' names mapped to them
// (docs/settings.md).
#include "settings/settings.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace cosmos::settings {
namespace {

using server::Protocol;

Settings ParseWith(std::vector<std::string> args, std::map<std::string, std::string> env = {}) {
  return Parse(args, [&env](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

std::string ErrorOf(std::vector<std::string> args, std::map<std::string, std::string> env = {}) {
  try {
    ParseWith(std::move(args), std::move(env));
  } catch (const SettingsError& e) {
    return e.what();
  }
  return "";
}

TEST(Settings, DefaultsServeBothProtocolsOn8081WithTheWellKnownKey) {
  Settings s = ParseWith({});
  EXPECT_EQ(s.port, 8081);
  EXPECT_EQ(s.protocol, Protocol::kBoth);
  EXPECT_EQ(s.key, "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==");
  EXPECT_TRUE(s.explorer);
  EXPECT_FALSE(s.health_port);
  EXPECT_FALSE(s.explorer_port);
  EXPECT_EQ(s.log_level, LogLevel::kInfo);
  EXPECT_TRUE(s.notices.empty());
}

// Direct mode's port: the classic emulator's 10253; a free one beside a gateway on a free port
// (tests side by side); off; or what is given, whatever the gateway's.
TEST(Settings, DirectPortFollowsTheClassicEmulatorOrAFreeGatewayPort) {
  EXPECT_EQ(ParseWith({}).direct_port, std::optional<uint16_t>(10253));
  EXPECT_FALSE(ParseWith({}).direct_port_given);  // taken, it gives way to a free port
  EXPECT_TRUE(ParseWith({"--direct-port", "10253"}).direct_port_given);
  EXPECT_EQ(ParseWith({"--port", "0"}).direct_port, std::optional<uint16_t>(0));
  EXPECT_EQ(ParseWith({"--direct-port", "off"}).direct_port, std::nullopt);
  EXPECT_EQ(ParseWith({"--port", "0", "--direct-port", "10300"}).direct_port, std::optional<uint16_t>(10300));
  EXPECT_EQ(ParseWith({}, {{"COSMOS_EMULATOR_DIRECT_PORT", "10254"}}).direct_port, std::optional<uint16_t>(10254));
  // RNTBD is TLS only: a gateway serving plain HTTP only has none unless asked for.
  EXPECT_EQ(ParseWith({"--protocol", "http"}).direct_port, std::nullopt);
  EXPECT_EQ(ParseWith({"--protocol", "http", "--direct-port", "10253"}).direct_port, std::optional<uint16_t>(10253));
  // The SQL compute endpoint: off unless asked for, by flag or variable.
  EXPECT_EQ(ParseWith({}).compute_port, std::nullopt);
  EXPECT_EQ(ParseWith({"--compute-port", "8903"}).compute_port, std::optional<uint16_t>(8903));
  EXPECT_EQ(ParseWith({"--compute-port", "off"}).compute_port, std::nullopt);
  EXPECT_EQ(ParseWith({}, {{"COSMOS_EMULATOR_COMPUTE_PORT", "8904"}}).compute_port, std::optional<uint16_t>(8904));
}

TEST(Settings, SeedPathAndErrorMode) {
  Settings none = ParseWith({});
  EXPECT_EQ(none.seed_path, "");
  EXPECT_FALSE(none.seed_skip_errors);
  Settings s = ParseWith({"--seed", "/seed/dir", "--seed-errors", "skip"});
  EXPECT_EQ(s.seed_path, "/seed/dir");
  EXPECT_TRUE(s.seed_skip_errors);
  Settings env = ParseWith({}, {{"COSMOS_EMULATOR_SEED", "/m.json"}, {"COSMOS_EMULATOR_SEED_ERRORS", "SKIP"}});
  EXPECT_EQ(env.seed_path, "/m.json");
  EXPECT_TRUE(env.seed_skip_errors);
  // A flag wins over the variable.
  Settings both = ParseWith({"--seed=/flag", "--seed-errors=fail"},
                            {{"COSMOS_EMULATOR_SEED", "/env"}, {"COSMOS_EMULATOR_SEED_ERRORS", "skip"}});
  EXPECT_EQ(both.seed_path, "/flag");
  EXPECT_FALSE(both.seed_skip_errors);
  EXPECT_EQ(ErrorOf({"--seed-errors", "ignore"}), "--seed-errors: must be fail or skip");
  EXPECT_EQ(ErrorOf({}, {{"COSMOS_EMULATOR_SEED_ERRORS", "x"}}), "COSMOS_EMULATOR_SEED_ERRORS: must be fail or skip");
  EXPECT_EQ(ErrorOf({"--seed="}), "--seed: names no directory or file");
  EXPECT_EQ(ErrorOf({"--seed"}), "missing value for --seed");
}

TEST(Settings, VNextVariablesMapToOurs) {
  Settings s = ParseWith({}, {{"PORT", "9000"},
                              {"PROTOCOL", "https"},
                              {"LOG_LEVEL", "debug"},
                              {"ENABLE_EXPLORER", "false"},
                              {"EXPLORER_PORT", "1300"},
                              {"EXPLORER_PROTOCOL", "http"},
                              {"DATA_PATH", "/data"},
                              {"CERT_PATH", "/c/domain.pfx"},
                              {"CERT_SECRET", "secret"},
                              {"GATEWAY_PUBLIC_ENDPOINT", "cosmos"}});
  EXPECT_EQ(s.port, 9000);
  EXPECT_EQ(s.protocol, Protocol::kHttps);
  EXPECT_EQ(s.log_level, LogLevel::kDebug);
  EXPECT_FALSE(s.explorer);
  EXPECT_EQ(s.explorer_port, 1300);
  EXPECT_EQ(s.explorer_protocol, Protocol::kHttp);
  EXPECT_EQ(s.data_path, "/data");
  EXPECT_EQ(s.cert_path, "/c/domain.pfx");
  EXPECT_EQ(s.cert_secret, "secret");
  EXPECT_EQ(s.public_endpoint.host, "cosmos");
  EXPECT_EQ(s.public_endpoint.scheme, "");
  EXPECT_EQ(s.public_endpoint.port, "");
  EXPECT_EQ(s.cert_names, std::vector<std::string>{"cosmos"});
}

TEST(Settings, VNextFlagsAsTheGoModulePassesThem) {
  Settings s = ParseWith({"--enable-explorer", "false", "--protocol", "http", "--port", "8082"});
  EXPECT_FALSE(s.explorer);
  EXPECT_EQ(s.protocol, Protocol::kHttp);
  EXPECT_EQ(s.port, 8082);
  EXPECT_EQ(ParseWith({"--protocol=https-insecure"}).protocol, Protocol::kHttps);
  EXPECT_EQ(ParseWith({"--log-level", "quiet"}).log_level, LogLevel::kQuiet);
}

TEST(Settings, ClassicVariablesMapToOurs) {
  Settings s = ParseWith({}, {{"AZURE_COSMOS_EMULATOR_PARTITION_COUNT", "3"},
                              {"AZURE_COSMOS_EMULATOR_KEY", "a2V5"},
                              {"AZURE_COSMOS_EMULATOR_IP_ADDRESS_OVERRIDE", "10.1.2.3"},
                              {"AZURE_COSMOS_EMULATOR_ENABLE_DATA_PERSISTENCE", "false"}});
  EXPECT_EQ(s.partition_count, 3);
  EXPECT_EQ(s.key, "a2V5");
  EXPECT_EQ(s.public_endpoint.host, "10.1.2.3");
  EXPECT_EQ(s.cert_names, (std::vector<std::string>{"10.1.2.3", "10.1.2.3"}));
}

TEST(Settings, WhatThePythonModuleSendsIsAccepted) {
  // testcontainers-python: str(None) when it has no count, strtobool's 0/1 for persistence.
  Settings s = ParseWith({}, {{"AZURE_COSMOS_EMULATOR_PARTITION_COUNT", "None"},
                              {"AZURE_COSMOS_EMULATOR_ENABLE_DATA_PERSISTENCE", "0"},
                              {"AZURE_COSMOS_EMULATOR_IP_ADDRESS_OVERRIDE", "172.17.0.1"}});
  EXPECT_FALSE(s.partition_count);
  EXPECT_EQ(s.public_endpoint.host, "172.17.0.1");
}

TEST(Settings, AskingForWhatIsNotThereRefusesToStart) {
  EXPECT_EQ(ErrorOf({}, {{"AZURE_COSMOS_EMULATOR_ENABLE_MONGODB_ENDPOINT", "4.0"}}),
            "AZURE_COSMOS_EMULATOR_ENABLE_MONGODB_ENDPOINT: this emulator serves the API for NoSQL only, not MongoDB; "
            "unset it");
}

TEST(Settings, PersistenceIsOffUnlessADirectoryIsNamed) {
  EXPECT_EQ(ParseWith({}).data_path, "");
  EXPECT_EQ(ParseWith({}).durability, "fsync");
  // The classic image's switch keeps the data where that image does (Aspire's WithDataVolume mounts
  // its volume there); DATA_PATH or --data-dir say where.
  EXPECT_EQ(ParseWith({}, {{"AZURE_COSMOS_EMULATOR_ENABLE_DATA_PERSISTENCE", "true"}}).data_path, "/tmp/cosmos/appdata");
  EXPECT_EQ(ParseWith({}, {{"AZURE_COSMOS_EMULATOR_ENABLE_DATA_PERSISTENCE", "1"}}).data_path, "/tmp/cosmos/appdata");
  EXPECT_FALSE(ParseWith({}, {{"AZURE_COSMOS_EMULATOR_ENABLE_DATA_PERSISTENCE", "1"}}).data_path_named);
  EXPECT_TRUE(ParseWith({"--data-dir", "/d"}).data_path_named);
  EXPECT_EQ(ParseWith({}, {{"COSMOS_EMULATOR_DATA_DIR_IF_MOUNTED", "/data, /tmp/cosmos/appdata"}}).data_dir_if_mounted,
            (std::vector<std::string>{"/data", "/tmp/cosmos/appdata"}));
  EXPECT_EQ(ParseWith({}, {{"AZURE_COSMOS_EMULATOR_ENABLE_DATA_PERSISTENCE", "false"}}).data_path, "");
  EXPECT_EQ(ParseWith({}, {{"AZURE_COSMOS_EMULATOR_ENABLE_DATA_PERSISTENCE", "true"}, {"DATA_PATH", "/var/x"}}).data_path,
            "/var/x");
  EXPECT_EQ(ParseWith({"--data-dir", "/d"}, {{"DATA_PATH", "/var/x"}}).data_path, "/d");
  EXPECT_EQ(ParseWith({"--data-path", "/e"}).data_path, "/e");
  EXPECT_EQ(ParseWith({}, {{"COSMOS_EMULATOR_DATA_DIR", "/f"}}).data_path, "/f");
  EXPECT_EQ(ParseWith({"--durability", "process"}).durability, "process");
  EXPECT_EQ(ParseWith({"--durability", "FSYNC"}).durability, "fsync");
  EXPECT_EQ(ErrorOf({"--durability", "never"}), "--durability: must be fsync or process");
  EXPECT_FALSE(ParseWith({}).recover_salvage);
  EXPECT_TRUE(ParseWith({"--recover", "salvage"}).recover_salvage);
  EXPECT_FALSE(ParseWith({"--recover", "refuse"}).recover_salvage);
  EXPECT_TRUE(ParseWith({}, {{"COSMOS_EMULATOR_RECOVER", "Salvage"}}).recover_salvage);
  EXPECT_EQ(ErrorOf({"--recover", "guess"}), "--recover: must be refuse or salvage");
}

TEST(Settings, TelemetryIsAcceptedAndSaidToBeNeverSent) {
  Settings s = ParseWith({}, {{"ENABLE_TELEMETRY", "true"}, {"ENABLE_OTLP_EXPORTER", "false"}});
  ASSERT_EQ(s.notices.size(), 1u);
  EXPECT_EQ(s.notices[0], "ENABLE_TELEMETRY=true: accepted; this emulator never sends or exports telemetry");
  EXPECT_EQ(ParseWith({"--enable-otlp", "true"}).notices.size(), 1u);
}

TEST(Settings, FlagsWinOverVariablesAndOfficialNamesOverOurs) {
  EXPECT_EQ(ParseWith({"--port", "7000"}, {{"PORT", "7001"}, {"COSMOS_EMULATOR_PORT", "7002"}}).port, 7000);
  EXPECT_EQ(ParseWith({}, {{"PORT", "7001"}, {"COSMOS_EMULATOR_PORT", "7002"}}).port, 7001);
  EXPECT_EQ(ParseWith({}, {{"COSMOS_EMULATOR_PORT", "7002"}}).port, 7002);
  EXPECT_EQ(ParseWith({}, {{"COSMOS_EMULATOR_HEALTH_PORT", "8080"}}).health_port, 8080);
  EXPECT_FALSE(ParseWith({"--health-port", "off"}, {{"COSMOS_EMULATOR_HEALTH_PORT", "8080"}}).health_port);
}

TEST(Settings, KeyFileIsReadAndTrimmed) {
  const std::string path = ::testing::TempDir() + "/settings_key.txt";
  std::ofstream(path) << "  a2V5LWZpbGU=\n";
  EXPECT_EQ(ParseWith({}, {{"KEY_FILE", path}}).key, "a2V5LWZpbGU=");
  EXPECT_EQ(ErrorOf({"--key-file", path + ".missing"}), "--key-file: cannot read the key file '" + path + ".missing'");
  std::ofstream(path) << "not base64!";
  EXPECT_EQ(ErrorOf({}, {{"KEY_FILE", path}}), "KEY_FILE: the key must be base64");
  std::remove(path.c_str());
}

TEST(Settings, TheAccountsOtherKeysAreNoneUnlessSet) {
  Settings d = ParseWith({});
  EXPECT_EQ(d.secondary_key, "");
  EXPECT_EQ(d.readonly_key, "");
  EXPECT_EQ(d.secondary_readonly_key, "");
  Settings s = ParseWith({"--secondary-key", "c2Vjb25kYXJ5", "--readonly-key=cmVhZG9ubHk="},
                         {{"COSMOS_EMULATOR_SECONDARY_READONLY_KEY", "c2Vjb25kYXJ5LXJv"},
                          {"COSMOS_EMULATOR_READONLY_KEY", "b3ZlcnJpZGRlbg=="}});
  EXPECT_EQ(s.secondary_key, "c2Vjb25kYXJ5");
  EXPECT_EQ(s.readonly_key, "cmVhZG9ubHk=");  // the flag wins over the variable
  EXPECT_EQ(s.secondary_readonly_key, "c2Vjb25kYXJ5LXJv");
  EXPECT_EQ(ErrorOf({"--readonly-key", "not base64!"}), "--readonly-key: the key must be base64");
  EXPECT_EQ(ErrorOf({}, {{"COSMOS_EMULATOR_SECONDARY_KEY", "%%"}}), "COSMOS_EMULATOR_SECONDARY_KEY: the key must be base64");
  // One key cannot be two kinds: a read-only key equal to a master key would write.
  EXPECT_EQ(ErrorOf({"--readonly-key", s.key}),
            "--readonly-key: the same key as --key; every key of the account must differ");
  EXPECT_EQ(ErrorOf({"--secondary-key", "c2Vjb25kYXJ5", "--secondary-readonly-key", "c2Vjb25kYXJ5"}),
            "--secondary-readonly-key: the same key as --secondary-key; every key of the account must differ");
}

TEST(Settings, GatewayEndpointForms) {
  auto e = ParseWith({"--gateway-endpoint", "https://cosmos.example:9443/"}).public_endpoint;
  EXPECT_EQ(e.scheme, "https");
  EXPECT_EQ(e.host, "cosmos.example");
  EXPECT_EQ(e.port, "9443");
  e = ParseWith({"--gateway-endpoint", "[fd00::5]:8081"}).public_endpoint;
  EXPECT_EQ(e.host, "fd00::5");
  EXPECT_EQ(e.port, "8081");
  e = ParseWith({}, {{"GATEWAY_PUBLIC_ENDPOINT", "cosmos:8081"}, {"AZURE_COSMOS_EMULATOR_IP_ADDRESS_OVERRIDE", "10.0.0.9"}})
          .public_endpoint;
  EXPECT_EQ(e.host, "cosmos");  // the public endpoint wins over the IP override
  EXPECT_EQ(ErrorOf({"--gateway-endpoint", "ftp://x"}), "--gateway-endpoint: the endpoint's scheme must be http or https");
}

TEST(Settings, BadValuesNameTheSetting) {
  EXPECT_EQ(ErrorOf({}, {{"PORT", "80a"}}), "PORT: invalid value '80a' (a whole number up to 65535)");
  EXPECT_EQ(ErrorOf({"--protocol", "spdy"}), "--protocol: invalid value 'spdy' (https, http or both)");
  EXPECT_EQ(ErrorOf({}, {{"ENABLE_EXPLORER", "maybe"}}), "ENABLE_EXPLORER: invalid value 'maybe' (true or false)");
  EXPECT_EQ(ErrorOf({"--log-level", "loud"}),
            "--log-level: invalid value 'loud' (quiet, error, warn, info, debug or trace)");
  EXPECT_EQ(ErrorOf({"--nope", "1"}), "unknown option --nope");
  EXPECT_EQ(ErrorOf({"--port"}), "missing value for --port");
  EXPECT_EQ(ErrorOf({"--cert-key", "k.pem"}), "--cert-key needs --cert (the certificate it belongs to)");
  EXPECT_EQ(ErrorOf({"--enable-data-persistence", "true"}), "unknown option --enable-data-persistence");
}

TEST(Settings, WorkersAndConnectionCap) {
  Settings d = ParseWith({});
  EXPECT_EQ(d.server.workers, 0u);  // four per core, at least 8
  EXPECT_EQ(d.server.max_connections, 0u);  // from the open-file limit
  Settings s = ParseWith({"--workers", "3"}, {{"COSMOS_EMULATOR_MAX_CONNECTIONS", "500"}, {"COSMOS_EMULATOR_WORKERS", "9"}});
  EXPECT_EQ(s.server.workers, 3u);
  EXPECT_EQ(s.server.max_connections, 500u);
  EXPECT_EQ(ErrorOf({"--max-connections", "-1"}),
            "--max-connections: invalid value '-1' (a whole number up to 16777216)");
  EXPECT_EQ(ErrorOf({"--workers", "2000"}), "--workers: invalid value '2000' (a whole number up to 1024)");
}

TEST(Settings, QueryThreadsAndIndexes) {
  Settings d = ParseWith({});
  EXPECT_EQ(d.query_threads, 0u);  // one per core
  EXPECT_TRUE(d.query_indexes);
  Settings s = ParseWith({"--query-threads", "1", "--query-indexes", "off"});
  EXPECT_EQ(s.query_threads, 1u);
  EXPECT_FALSE(s.query_indexes);
  EXPECT_EQ(ErrorOf({"--query-threads", "300"}), "--query-threads: invalid value '300' (a whole number up to 256)");
}

TEST(Settings, AnUnknownFlagIsUnknownWithOrWithoutAValue) {
  // The name is looked up before its value is asked for.
  EXPECT_EQ(ErrorOf({"--bogus"}), "unknown option --bogus");
  EXPECT_EQ(ErrorOf({"--bogus=1"}), "unknown option --bogus");
  EXPECT_EQ(ErrorOf({"--port", "9000", "--bogus"}), "unknown option --bogus");
  // The classic image's variables are not flags.
  EXPECT_EQ(ErrorOf({"--enable-mongodb-endpoint"}), "unknown option --enable-mongodb-endpoint");
  EXPECT_EQ(ErrorOf({"--ip-address-override", "10.0.0.1"}), "unknown option --ip-address-override");
  // A known flag still needs its value; the flags that take none do not take one.
  EXPECT_EQ(ErrorOf({"--port", "1", "--seed-errors"}), "missing value for --seed-errors");
  EXPECT_EQ(ErrorOf({"--help=yes"}), "unknown option --help");
  EXPECT_EQ(ErrorOf({"bogus"}), "unexpected argument 'bogus'");
}

TEST(Settings, HelpAndHealthCheckTakeNoValue) {
  EXPECT_TRUE(ParseWith({"--help"}).help);
  EXPECT_TRUE(ParseWith({"-h"}).help);
  EXPECT_TRUE(ParseWith({"--health-check"}).health_check);
  Settings s = ParseWith({"--health-check", "--port", "9001", "--help"});
  EXPECT_TRUE(s.health_check);
  EXPECT_TRUE(s.help);
  EXPECT_EQ(s.port, 9001);
}

TEST(Settings, VNextFlagNamesAreAliases) {
  EXPECT_EQ(ParseWith({"--cert-path", "/c.pfx"}).cert_path, "/c.pfx");
  EXPECT_EQ(ErrorOf({"--cert-path"}), "missing value for --cert-path");
  // COSMOS_EMULATOR_DATA_PATH is read, and COSMOS_EMULATOR_DATA_DIR wins over it.
  EXPECT_EQ(ParseWith({}, {{"COSMOS_EMULATOR_DATA_PATH", "/p"}}).data_path, "/p");
  EXPECT_EQ(ParseWith({}, {{"COSMOS_EMULATOR_DATA_PATH", "/p"}, {"COSMOS_EMULATOR_DATA_DIR", "/d"}}).data_path, "/d");
  // Not a variable of ours: --cert-path is vNext's flag, CERT_PATH its variable.
  EXPECT_EQ(ParseWith({}, {{"COSMOS_EMULATOR_CERT_PATH", "/x.pem"}}).cert_path, "");
  EXPECT_EQ(ParseWith({}, {{"COSMOS_EMULATOR_CERT", "/x.pem"}}).cert_path, "/x.pem");
}

// Microsoft Entra ID (docs/entra-id.md): the key file, the issuer and the roles file.
TEST(Settings, EntraIdFiles) {
  Settings s = ParseWith({"--aad-keys", "/k.json", "--aad-issuer", "https://sts.example/t", "--rbac", "/r.json"}, {});
  EXPECT_EQ(s.aad_keys_path, "/k.json");
  EXPECT_EQ(s.aad_issuer, "https://sts.example/t");
  EXPECT_EQ(s.rbac_path, "/r.json");
  EXPECT_EQ(ParseWith({}, {{"COSMOS_EMULATOR_RBAC", "/e.json"}}).rbac_path, "/e.json");
  EXPECT_TRUE(ParseWith({}, {}).aad_keys_path.empty());
  EXPECT_THROW(ParseWith({"--rbac", ""}, {}), SettingsError);
  EXPECT_FALSE(ParseWith({}, {}).disable_local_auth);
  Settings t = ParseWith({"--issue-token", "--principal", "abc", "--expires-in", "60"}, {});
  EXPECT_TRUE(t.issue_token);
  EXPECT_EQ(t.principal, "abc");
  EXPECT_EQ(t.expires_in, 60);
  EXPECT_EQ(ParseWith({"--issue-token", "--principal", "abc"}, {}).expires_in, 3600);
  EXPECT_THROW(ParseWith({"--issue-token"}, {}), SettingsError);
  EXPECT_THROW(ParseWith({"--issue-token", "--principal", "a", "--expires-in", "0"}, {}), SettingsError);
  EXPECT_TRUE(ParseWith({"--disable-local-auth", "true"}, {}).disable_local_auth);
  EXPECT_TRUE(ParseWith({}, {{"COSMOS_EMULATOR_DISABLE_LOCAL_AUTH", "1"}}).disable_local_auth);
}

// The variables read, derived from the option table: the same names as the lists the parser had
// before the table (ours, and the official images').
TEST(Settings, TheTableReadsTheSameVariables) {
  std::set<std::string> ours, official;
  for (const Option& o : Options()) {
    auto env = [](std::string_view flag) {
      std::string e = "COSMOS_EMULATOR_" + std::string(flag);
      for (auto& c : e) c = c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      return e;
    };
    if (o.reads & kOurEnv) ours.insert(env(o.name));
    if (o.reads & kAliasEnv) ours.insert(env(o.alias));
    std::istringstream words{std::string(o.official)};
    for (std::string w; words >> w;) official.insert(w);
  }
  std::set<std::string> expected_ours;
  for (const char* name :
       {"host", "port", "protocol", "direct-port", "compute-port", "health-port", "enable-explorer", "explorer-port", "explorer-protocol", "key",
        "key-file", "secondary-key", "readonly-key", "secondary-readonly-key", "threads", "workers", "max-connections",
        "consistency", "max-body-bytes", "header-timeout-ms", "body-timeout-ms", "handshake-timeout-ms",
        "partition-count", "rate-limit", "script-timeout-ms", "script-memory-mb", "query-page-timeout-ms",
        "query-memory-mb", "query-indexes", "query-threads", "log-level", "cert", "cert-key", "cert-secret", "cert-san",
        "data-path", "data-dir", "data-dir-if-mounted", "durability", "recover", "cert-export", "gateway-endpoint",
        "seed", "seed-errors", "faults", "aad-keys", "aad-issuer", "rbac", "disable-local-auth"}) {
    std::string e = std::string("COSMOS_EMULATOR_") + name;
    for (auto& c : e) c = c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    expected_ours.insert(e);
  }
  EXPECT_EQ(ours, expected_ours);
  EXPECT_EQ(official, (std::set<std::string>{
                          "AZURE_COSMOS_EMULATOR_PARTITION_COUNT", "AZURE_COSMOS_EMULATOR_KEY",
                          "AZURE_COSMOS_EMULATOR_IP_ADDRESS_OVERRIDE", "AZURE_COSMOS_EMULATOR_ENABLE_DATA_PERSISTENCE",
                          "AZURE_COSMOS_EMULATOR_ENABLE_MONGODB_ENDPOINT", "PORT", "PROTOCOL", "KEY_FILE", "DATA_PATH",
                          "CERT_PATH", "CERT_SECRET", "LOG_LEVEL", "GATEWAY_PUBLIC_ENDPOINT", "ENABLE_EXPLORER",
                          "EXPLORER_PORT", "EXPLORER_PROTOCOL", "ENABLE_TELEMETRY", "ENABLE_OTLP_EXPORTER",
                          "ENABLE_CONSOLE_EXPORTER"}));
}

// --help shows every option of the table but the official images' own names, each once, with its
// official variable on its first line; --query-indexes was missing from the hand-written text.
TEST(Settings, HelpListsEveryOption) {
  const std::string& help = Usage();
  for (const Option& o : Options()) {
    const std::string flag = "  --" + std::string(o.name) + (o.value.empty() ? "" : " " + std::string(o.value));
    const size_t at = help.find("\n" + flag);
    if (o.section == Section::kHidden) {
      EXPECT_EQ(at, std::string::npos) << flag;
      continue;
    }
    ASSERT_NE(at, std::string::npos) << flag << " is not in --help";
    EXPECT_EQ(help.find("\n" + flag, at + 1), std::string::npos) << flag << " is twice in --help";
    const std::string first_line = help.substr(at + 1, help.find('\n', at + 1) - at - 1);
    if (!o.official.empty() && first_line.size() > flag.size() + 1) {
      EXPECT_NE(first_line.find(std::string(o.official)), std::string::npos) << first_line;
    }
  }
  EXPECT_NE(help.find("\n  --query-indexes on|off "), std::string::npos);
  EXPECT_NE(help.find("\n  --port N                 gateway port (default 8081)"), std::string::npos);
  EXPECT_NE(help.find("\nServing\n  --host ADDR"), std::string::npos);
}

TEST(Settings, CertificateNamesAccumulate) {
  Settings s = ParseWith({"--cert-san", "cosmos, 10.0.0.5", "--cert-san", "db.local"});
  EXPECT_EQ(s.cert_names, (std::vector<std::string>{"cosmos", "10.0.0.5", "db.local"}));
}

}  // namespace
}  // namespace cosmos::settings
