// Fault injection (docs/faults.md): rules that make chosen requests fail as the service fails them
// (429 with a retry-after, 503, 408, 410 with a substatus, 449, 500, 404/1002), arrive late, or lose
// their connection, so applications can test their retry logic against the SDKs' real code paths.
// Rules come from POST /_emulator/faults or a file at start-up (--faults FILE). Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "json/json.h"

namespace cosmos::faults {

// What a matching rule does to a request.
struct Fault {
  enum class Kind { kError, kDelay, kDrop };
  Kind kind = Kind::kError;
  int status = 0;
  int substatus = 0;
  std::string code;     // the body's "code" (TooManyRequests, ServiceUnavailable, ...)
  std::string message;  // the body's "message", as the pipeline writes it
  int64_t retry_after_ms = 0;  // 429: x-ms-retry-after-ms
  int64_t delay_ms = 0;        // kDelay: the answer waits this long
  std::string rule_id;
};

// A request as rules see it.
struct Target {
  std::string_view operation_type;  // "ReadItem", "QueryItem", ... (IsOperationType)
  std::string_view path;            // by names, e.g. "/dbs/db/colls/c/docs/id" (rid paths resolved)
  // The partition key ranges the request reaches; empty when it is not routed to a partition (a
  // metadata request).
  std::vector<std::string_view> ranges;
};

// The operation types rules may name, in the names of the SDKs' fault-injection libraries: ReadItem,
// QueryItem, CreateItem, UpsertItem, ReplaceItem, DeleteItem, PatchItem, Batch, ReadFeed,
// ChangeFeed, ExecuteStoredProcedure, MetadataDatabaseAccount, MetadataContainer,
// MetadataPartitionKeyRange, MetadataQueryPlan, Metadata (any other). Each operation's is a fact of
// its route (http/routes.cpp).
bool IsOperationType(std::string_view name);

class Injector {
 public:
  Injector();

  // Adds a rule (the JSON object of docs/faults.md) and returns it as GET lists it; replaces a rule
  // of the same id. Throws CosmosError 400 with what is wrong.
  std::string Add(const json::Value& rule);
  // Adds each rule of a JSON array (a file's contents); throws 400 naming the rule.
  void AddAll(std::string_view json_text);
  // {"rules":[...]}: each rule as added, with "hits" (faults injected) and "active".
  std::string ListJson() const;
  // Removes one rule; false when there is none of that id.
  bool Remove(std::string_view id);
  void Clear();

  // Whether any rule is kept: false lets a request skip describing itself to Match.
  bool any() const { return any_.load(std::memory_order_relaxed); }

  // The fault for a request, if an enabled rule matches it (counting the hit); nullopt otherwise.
  std::optional<Fault> Match(const Target& target);

 private:
  struct Rule {
    std::string id;
    std::string json;  // as added (normalised)
    std::vector<std::string> operation_types;  // empty: all
    std::string path;                          // glob; empty: all
    std::vector<std::string> ranges;           // empty: all
    Fault fault;
    double rate = 1.0;
    std::optional<uint64_t> hit_limit;
    int64_t start_ms = 0;  // steady clock: active from
    std::optional<int64_t> end_ms;
    bool enabled = true;
    uint64_t hits = 0;
  };
  Rule Parse(const json::Value& v) const;

  mutable std::mutex mu_;
  std::vector<Rule> rules_;
  std::mt19937_64 random_;
  std::atomic<bool> any_{false};
};

// True when `path` matches `glob`: segments separated by '/', "*" matching one whole segment and
// "**" any number of them (including none); other segments compare exactly.
bool PathMatches(std::string_view glob, std::string_view path);

}  // namespace cosmos::faults
