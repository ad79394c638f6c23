// A vector index: the vectors found at one document path of a partition's items, kept as 8-bit
// codes (a scale per vector) so that ORDER BY VectorDistance(...) with TOP k can rule out, from
// 1 byte per dimension, every item that cannot be among the k best, and read only the others.
// The rule-out is exact: each code's rounding is bounded, so an item is dropped only when even its
// best possible distance is beaten by k items' worst possible ones. The query then computes the
// exact distances of the items left (docs/vector-search.md, "How a vector search runs").
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <absl/container/btree_set.h>
#include <unordered_map>

#include "store/path_index.h"
#include "store/vector_policy.h"

namespace cosmos::store {

// The query side of a search: the constant vector, how distances are scored and which end of the
// order the query takes.
struct VectorQuery {
  std::vector<double> vector;
  DistanceFunction function = DistanceFunction::kCosine;
  bool descending = true;  // higher scores first (cosine and dot product, unless the query says ASC)
};

// For tests: the kernels that add up q[i] * code[i] which this CPU can run, by name (the index
// uses the widest).
std::vector<std::pair<std::string, float (*)(const float*, const int8_t*, uint32_t)>> DotKernels();

class VectorIndex : public SecondaryIndex {
 public:
  explicit VectorIndex(DocPath path) : path_(std::move(path)) {}
  const DocPath& path() const { return path_; }

  void Reserve(size_t items) override;
  void Add(const Item& item) override;
  void Remove(const Item& item) override;
  size_t size() const { return where_.size() + others_.size(); }

  // The sequence numbers (ascending) of the items `admit` accepts that may be among the `k` best
  // for `q` (ties included), and of every accepted item without a vector of `q`'s length (their
  // distance is undefined, which the query orders itself). nullopt when the index cannot narrow
  // the search (no vector of that length, or a query vector it does not bound).
  std::optional<std::vector<uint64_t>> Candidates(const VectorQuery& q, size_t k,
                                                  const std::function<bool(const Item&)>& admit) const;

 private:
  struct Row {
    const Item* item;
    uint64_t seq;
    double sum_squares;  // of the vector's numbers, added up in order as VectorDistance does
    double scale;        // a number is scale * its code, within scale / 2
  };
  // The vectors of one length: codes of row r at [r * dims, (r + 1) * dims).
  struct Group {
    uint32_t dims = 0;
    std::vector<Row> rows;
    std::vector<int8_t> codes;
  };

  const DocPath path_;
  std::vector<Group> groups_;
  std::unordered_map<uint64_t, std::pair<uint32_t, uint32_t>> where_;  // seq -> (group, row)
  absl::btree_set<uint64_t> others_;  // items whose value at the path is no such vector
  size_t expected_ = 0;               // items the index is about to be filled with
};

}  // namespace cosmos::store
