// The RU report behind GET /_emulator/stats: per container, what each kind of operation and each
// query shape (normalised text) cost, how many partitions queries touched, and which fanned out to
// every partition. Thread-safe.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "store/store.h"

namespace cosmos::stats {

// What one request used, as the handler saw it.
struct Usage {
  store::ContainerPtr container;
  std::string database;                               // id
  std::string operation;                              // "create", "read", "query", ...
  std::string query;                                  // normalised text (queries only)
  std::vector<store::PhysicalPartition*> partitions;  // the partitions it touched (or was refused by)
  size_t addressed = 0;     // partitions the request was sent to (a page may stop before touching all)
  bool by_range = false;    // addressed one range by x-ms-documentdb-partitionkeyrangeid (SDK fan-out)
  bool first_page = true;   // a query or feed request without continuation
  bool consumed = false;    // the handler already spent the charge against the throughput (bulk)
  bool injected = false;    // answered by a fault-injection rule (docs/faults.md)
};

class Report {
 public:
  // `warn` receives one line the first time a query shape fans out across every partition of a
  // container that has more than one.
  explicit Report(std::function<void(const std::string&)> warn = nullptr) : warn_(std::move(warn)) {}

  void Record(const Usage& u, double charge, int status);
  // {"containers":[...]}; see docs/emulator-stats.md.
  std::string ToJson() const;
  void Reset();
  // Drops what was recorded for a deleted database (every container of it), or for one deleted
  // container of it.
  void ForgetDatabase(const std::string& database);
  void ForgetContainer(const std::string& database, const std::string& container);

  // Query shapes kept per container: past this many, the shape with the least total charge is
  // folded into one entry for the rest (kOtherShapes), so the report stays bounded.
  static constexpr size_t kMaxShapes = 100;
  static constexpr const char* kOtherShapes = "(other query shapes)";

 private:
  struct Tally {
    uint64_t requests = 0;
    uint64_t executions = 0;  // first pages (queries and feeds)
    uint64_t throttled = 0;   // 429s
    uint64_t failed = 0;      // other statuses >= 400
    uint64_t injected = 0;    // answered by a fault-injection rule (counted in throttled or failed too)
    double total = 0;
    double max = 0;
    std::set<std::string> ranges;           // range ids touched
    std::set<std::string> ranges_by_range;  // range ids addressed one at a time, by range id
    size_t max_partitions = 0;              // most partitions one request touched
    bool addressed_all = false;             // one request went to every partition
    bool FannedOut(size_t partitions) const;
    void Add(const Usage& u, double charge, int status);
    void Merge(const Tally& other);
  };
  struct ContainerStats {
    std::string database;
    std::string container;
    size_t partitions = 0;
    Tally all;
    std::map<std::string, Tally> operations;
    std::map<std::string, Tally> queries;
    // Per physical partition (range id): requests that touched it, and its share of their charges
    // (a request that touched n partitions counts 1/n of its charge on each).
    struct PartitionShare {
      uint64_t requests = 0;
      double total = 0;
    };
    std::map<std::string, PartitionShare> partition_shares;
    std::set<std::string> warned;
  };

  std::function<void(const std::string&)> warn_;
  mutable std::mutex mu_;
  std::vector<std::string> order_;                  // container rids, first-seen order
  std::map<std::string, ContainerStats> by_rid_;
};

}  // namespace cosmos::stats
