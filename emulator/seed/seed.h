// Seeding: loading items from files at start-up (--seed PATH, docs/seeding.md), and loading more
// into a running emulator (POST /_emulator/import). The manifest names, for each container, its
// database, partition key, throughput and the data files; the items go in through seed::Loader.
#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "http/context.h"
#include "seed/loader.h"
#include "store/store.h"

namespace cosmos::seed {

// A seed that cannot be used at all (the manifest, a file, a container's settings); what() is
// one line. Start-up stops with exit code 2.
class SeedError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One entry of the manifest: a container, how to create it when it does not exist, and its data.
struct ContainerEntry {
  std::string database;
  std::string container;
  std::string partition_key_json;  // the "partitionKey" object as given (the REST create body's)
  store::PartitionKeyDefinition partition_key;
  bool version_given = false;                       // "version" was in partitionKey
  std::optional<store::Throughput> throughput;      // the container's own
  std::optional<store::Throughput> database_throughput;  // shared by the database's containers
  std::optional<int> partition_count;
  // The "indexingPolicy" as the service normalises it (store::IndexingPolicy::FromJson), when given.
  std::optional<std::string> indexing_policy_json;
  std::vector<std::string> data;  // files or directories, as given
};

struct Manifest {
  std::string file;      // the manifest's path
  std::string base_dir;  // relative data paths start here
  std::vector<ContainerEntry> containers;
};

// The manifest of `path`: PATH/manifest.json for a directory, else the file itself. Throws
// SeedError.
Manifest ReadManifest(const std::string& path);
// Parses a manifest's text (`file` and `base_dir` as in Manifest). Throws SeedError.
Manifest ParseManifest(std::string_view text, const std::string& file, const std::string& base_dir);

// The data files of one entry's path (relative to `base_dir`): the file itself, or a directory's
// .json, .jsonl and .ndjson files in name order (not its subdirectories). `ignored` receives the
// directory's other files. Throws SeedError.
std::vector<std::string> DataFiles(const std::string& base_dir, const std::string& path, const std::string& manifest,
                                   std::vector<std::string>* ignored = nullptr);
// How a file's items are read, from its name: .jsonl and .ndjson are JSON lines, .json is JSON;
// nullopt for anything else.
std::optional<Format> FormatOf(std::string_view file);

struct SeedOptions {
  OnError on_error = OnError::kFail;
  unsigned threads = 0;  // 0: one per core
  size_t max_errors_kept = 1000;
  std::function<void(const Progress&)> progress;  // about once a second
  std::function<void(const std::string&)> notice;  // things worth a line (files ignored)
};

struct SeedReport {
  size_t files = 0;
  size_t bytes = 0;
  size_t databases_created = 0;
  size_t containers_created = 0;
  size_t containers = 0;
  Outcome outcome;
  double seconds = 0;
};

// Loads the seed at `path` into the account: checks the manifest against what exists, reads and
// checks every item, then creates the missing databases and containers (as the REST API creates
// them, recorded in the data directory as the pipeline records them) and writes the items as
// upserts. In fail mode, when an item is bad, nothing is created or written and the report holds
// the errors (outcome.applied false). Throws SeedError for a manifest, file or container problem.
SeedReport Seed(http::Services& s, const std::string& path, const SeedOptions& options);

// POST /_emulator/import: `target` is the request target (path and query string), `body` the items
// (JSON lines, or a JSON array). Answers the JSON response; throws CosmosError for a request it
// refuses (400, 404). docs/seeding.md.
using ImportResult = http::ImportAnswer;
ImportResult Import(http::Services& s, std::string_view target, std::string_view body);

// Serves POST /_emulator/import through `s` (the gateway calls Import for it).
inline void ServeImport(http::Services& s) { s.import = &Import; }

}  // namespace cosmos::seed
