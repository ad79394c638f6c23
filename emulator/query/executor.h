// Runs a bound query over a container's partitions one page at a time. Pages resume from an
// opaque continuation that records where the previous page ended (the position of its last row
// and, for ordered results, its sort key), so no page re-emits or skips rows by counting.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "query/eval.h"
#include "query/plan.h"
#include "store/store.h"
#include "util/clock.h"

namespace cosmos::query {

// What a query reads: the partitions, in order, and optionally one logical partition.
struct Scope {
  std::vector<store::PhysicalPartition*> partitions;
  std::optional<std::string> partition_key;  // canonical text; only items with this key
  std::optional<std::pair<std::string, std::string>> epk_range;  // [min, max): only items whose EPK is in it
  // Per partition (empty: none): its scan starts after this sequence number. Set for a
  // continuation made before a split: the parent's children keep its items' sequence numbers, and
  // the pages before the split returned those up to it.
  std::vector<uint64_t> floors;
  util::Instant now;                         // for TTL (the emulator clock, to the millisecond)
  std::optional<int64_t> default_ttl;
  // The container indexes (consistent mode): items left out of its index (store::Item::unindexed)
  // are not read. In mode none every query scans, and sees every item.
  bool indexed_only = false;
  // Instead of the partitions' items: these, in feed order (a script's view of its logical
  // partition, its own uncommitted writes included). Scope::partitions then names the one
  // partition they belong to.
  const std::vector<store::ItemPtr>* view = nullptr;
  // The container's indexing policy: the paths whose indexes may narrow what a query reads
  // (index_use.h, ChooseIndexLookup). Null: every query reads its partitions whole.
  const store::IndexingPolicy* indexing = nullptr;
  // A query that collects (ORDER BY without its index, GROUP BY, DISTINCT, aggregates) reads its
  // partitions on up to `threads` threads (0: one per core; 1: the request's own only) when they
  // hold at least `min_items` items, a partition in parts of at least `part_items` items.
  struct Parallel {
    size_t threads = 0;
    size_t min_items = 20000;
    size_t part_items = 25000;
  } parallel;
};

struct PageRequest {
  size_t max_items = 100;
  size_t max_bytes = 4 * 1024 * 1024;
  std::string continuation;  // empty: first page
  std::string query_text;    // binds the continuation to its query
  int64_t now_ms = 0;        // the instant date-time functions see
  Udfs* udfs = nullptr;      // the container's user-defined functions
  bool geometry = false;     // the container's geospatialConfig type is Geometry (planar spatial functions)
  // Time, memory and cancellation (eval.h): a page that reaches the deadline ends with what it has
  // and a continuation, as the service's pages end after 5 s; default: unbounded. A query that
  // collects (ORDER BY, GROUP BY, DISTINCT, aggregates) answers an empty page with a continuation
  // while it has not read everything, keeping what it read for the next page (below), or, with
  // `client_merges`, the partial result over what it read.
  QueryBudget budget;
  // The client merges the pages of this range (the SDKs' pipeline, querying one partition key
  // range: it sums partial aggregates, merges groups and removes duplicates across pages).
  bool client_merges = false;
  // What the plan's constants and parameters live in: a collecting page keeps it with what it read
  // until the next page resumes. Without it such a page is not cut by the deadline.
  std::shared_ptr<const void> keepalive;
};

// Facts for the charge: what the page loaded.
struct PageFacts {
  size_t docs_loaded = 0;     // documents that produced a row (or all visited, without WHERE)
  double kb_loaded = 0;
  size_t docs_scanned = 0;    // documents read that the filter refused
  double kb_scanned = 0;
  std::vector<size_t> partitions_touched;  // indexes into Scope::partitions
};

struct Page {
  std::vector<std::string> rows;  // JSON text of each result
  std::optional<std::string> continuation;
  PageFacts facts;
};

// Throws CosmosError 400 "Invalid Continuation Token" for a token this query did not produce.
Page ExecutePage(const Plan& plan, const Scope& scope, const PageRequest& request);

// How many collections suspended pages keep (at most 64, together within one request's memory
// budget, each for 60 s; a page whose collection was dropped reads from the start again).
size_t SuspendedCollections();

}  // namespace cosmos::query
