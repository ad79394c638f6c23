// Bulk loading of items into existing containers, for seeding at start-up (--seed) and for
// POST /_emulator/import. docs/seeding.md describes the formats and the rules.
//
// A load runs in two steps. Check() reads every item of every source and checks it (valid JSON,
// an object, a valid id, the partition key values, the 2 MB limit, an id given twice in the load),
// on one thread per core, writing nothing. Apply() then writes the good items in input order as
// upserts, the way a REST upsert writes them (handlers::PrepareItem and StampItem build the stored
// image, PhysicalPartition::Write stores and journals it): the same system properties, journal
// records and limits. Other threads parse ahead while the calling thread writes. In fail mode
// Apply() refuses to run when Check() found an error, so a failed load writes nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "http/context.h"
#include "store/store.h"

namespace cosmos::seed {

// What a bad item does to the load: stop it before anything is written, or skip that item.
enum class OnError { kFail, kSkip };

// How a source holds its items: one per line (JSON lines), or one JSON value (an item, or an
// array of items).
enum class Format { kLines, kJson };

// The text of one file (or request body) and how to read it. The text must outlive the loader.
struct Source {
  std::string name;  // in messages: the file as the manifest names it; empty for a request body
  std::string_view text;
  Format format = Format::kLines;
};

// One item that cannot be loaded, and where it is.
struct ItemError {
  std::string source;
  size_t line = 0;  // 1-based line where the item starts
  size_t item = 0;  // 1-based position in a JSON array; 0 when the source is not an array
  std::string message;
  // "orders.jsonl:17", "orders.json:12 (item 5)", or "line 17" for a request body.
  std::string Where() const;
};

struct Outcome {
  size_t items = 0;     // items read (blank lines are not items)
  size_t loaded = 0;    // written: created + replaced
  size_t created = 0;
  size_t replaced = 0;  // an item of that id and partition key was there and was replaced
  size_t error_count = 0;
  std::vector<ItemError> errors;  // in input order; at most Options::max_errors_kept of them
  bool applied = false;           // Apply() ran
};

// What the load is doing, once a second while it runs.
struct Progress {
  const char* step = "";  // "checking" or "loading"
  std::string container;  // "db/coll"
  std::string source;     // the file being read
  size_t done = 0;
  size_t total = 0;
  double per_second = 0;  // items per second since the step began
};

class Loader {
 public:
  struct Options {
    OnError on_error = OnError::kFail;
    unsigned threads = 0;  // 0: one per core
    size_t max_errors_kept = 1000;
    std::function<void(const Progress&)> progress;  // called about once a second; may be empty
  };

  Loader(http::Services& services, Options options);
  ~Loader();
  Loader(const Loader&) = delete;
  Loader& operator=(const Loader&) = delete;

  // Adds the items of `sources`, for container `c` ("db/coll" in messages).
  void Add(store::ContainerPtr c, std::string label, std::vector<Source> sources);
  // Reads and checks every item; writes nothing. Call once, after every Add.
  const Outcome& Check();
  // Writes every good item (upserts). Call once, after Check(); in fail mode only when Check()
  // found no error (it throws std::logic_error otherwise). An item that fails to be written after
  // passing the checks (the disk refused a journal record) is counted as an error.
  const Outcome& Apply();
  const Outcome& outcome() const { return outcome_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  Outcome outcome_;
};

// "Message: {\"Errors\":[\"text\"]}" (the service's wrapping of most messages) -> "text"; any
// other message as it is.
std::string PlainMessage(const std::string& message);

}  // namespace cosmos::seed
