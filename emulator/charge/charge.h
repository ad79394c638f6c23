// Every request-unit formula, in one place. Handlers report facts (sizes, index terms, outcomes);
// these functions turn them into the charge. See docs/request-units.md for the model.
#pragma once

#include <cstddef>
#include <vector>

namespace cosmos::charge {

// Facts about one item an operation touched.
struct ItemFacts {
  double kb = 0;   // minified stored JSON including system properties, in KB (bytes / 1024)
  int terms = 0;   // index terms the indexing policy produces for it
  double vectors = 0;  // what its vector indexes add (VectorIndexWrite per vector indexed)
};

// Vector indexes (docs/request-units.md, "Vector search"): what kind of search a path's index
// gives. Exhaustive: flat, no vector index, or VectorDistance's bruteForce; quantized:
// quantizedFlat; graph: diskANN.
enum class VectorSearchKind { kExhaustive, kQuantized, kGraph };
// Indexing one vector of `dims` numbers on a write.
double VectorIndexWrite(VectorSearchKind kind, int dims);
// The search part of one page of ORDER BY VectorDistance: over `vectors` vectors of `dims`
// numbers held by the `partitions` physical partitions the page read.
double VectorSearch(VectorSearchKind kind, size_t partitions, size_t vectors, size_t dims);

enum class Consistency { kWeak, kStrong };  // Strong and Bounded Staleness double read charges

double Round2(double ru);

double PointRead(const ItemFacts& item, Consistency c = Consistency::kWeak);
double PointReadNotFound();
double Create(const ItemFacts& item);
// Replace, upsert of an existing item and patch: charged on the new image.
double Replace(const ItemFacts& new_image);
// Delete: charged on the stored image.
double Delete(const ItemFacts& stored);

// One page of a read feed: the query-page formula over the items returned, all loaded.
double FeedPage(size_t docs, double kb, Consistency c = Consistency::kWeak);

// One change feed request (a page or a 304): a base per request plus a point read of every
// item returned; `kbs` holds the size of each returned item in KB.
double ChangeFeed(const std::vector<double>& kbs, Consistency c = Consistency::kWeak);

// One page of a query: what the executed plan loaded and scanned, per physical partition touched.
struct QueryFacts {
  size_t partitions = 0;     // physical partitions the page touched
  size_t docs_loaded = 0;    // items fetched through an index
  double kb_loaded = 0;
  size_t docs_scanned = 0;   // items read without a usable index
  double kb_scanned = 0;
  size_t index_lookups = 1;  // IN / OR values
  bool aggregate = false;    // an aggregate without GROUP BY
  double vector_search = 0;  // VectorSearch, for ORDER BY VectorDistance
};
double QueryPage(const QueryFacts& f, Consistency c = Consistency::kWeak);
// A query without FROM touches no partition: the service's flat charge.
double QueryWithoutFrom();

// A stored procedure or trigger: a fixed overhead plus a share of the standalone charges of the
// operations it ran (`inner`).
double StoredProcedure(double inner);

// Writes that fail after reaching the partition (conflict, precondition, bad document).
double RejectedWrite();
// Requests refused before reaching a partition (malformed headers, routing errors).
inline constexpr double kRefused = 0;

// Metadata operations on databases and containers (the service's flat charges).
double MetadataRead();
double MetadataWrite();
double MetadataNotFound();
// The account document (GET /) is free.
inline constexpr double kAccountRead = 0;

}  // namespace cosmos::charge
