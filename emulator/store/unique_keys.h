// Unique key policy: the container's unique keys, fixed at creation, and the value tuples an item
// holds for them. Uniqueness is kept per logical partition by PhysicalPartition.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "json/json.h"

namespace cosmos::store {

struct UniqueKeyPolicy {
  // Each unique key: its paths, each split into property names from the root.
  std::vector<std::vector<std::vector<std::string>>> keys;
  json::Document raw;  // the policy as returned ({"uniqueKeys":[{"paths":[...]}]})

  // Parses a container's uniqueKeyPolicy; null/absent or no keys yields an empty policy (raw
  // still holds the normalised form). Throws 400 when invalid.
  static UniqueKeyPolicy FromJson(const json::Value* v);
  bool empty() const { return keys.empty(); }
  // One entry per unique key: "<key index>:<JSON array of the values at its paths>", a missing
  // value counting as null (so at most one item per logical partition may lack it).
  std::vector<std::string> Tuples(const json::Value& doc) const;
  // Whether two policies declare the same keys (a container replace may not change them).
  bool SameKeys(const UniqueKeyPolicy& other) const { return keys == other.keys; }
};
using UniqueKeysPtr = std::shared_ptr<const UniqueKeyPolicy>;

}  // namespace cosmos::store
