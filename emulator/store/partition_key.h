// Partition key definitions, extraction of a key from a document, and the canonical key text that
// identifies a logical partition.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "json/json.h"

namespace cosmos::store {

struct PartitionKeyDefinition {
  std::vector<std::string> paths;               // as given, e.g. "/pk"
  std::vector<std::vector<std::string>> parts;  // each path split into property names
  std::string kind = "Hash";                    // "Hash" or "MultiHash"
  int version = 1;
  bool system_key = false;

  // Parses {"paths":[...],"kind":...,"version":...}; throws CosmosError(400) when invalid.
  static PartitionKeyDefinition FromJson(const json::Value& v);
  void ToJson(json::Value& out, json::Allocator& a) const;
};

// One component of a logical partition key: a JSON scalar, or None (the document lacks the property).
struct PartitionKeyValue {
  std::vector<std::optional<std::string>> components;  // canonical JSON text; nullopt = None

  // Canonical text: identical for equal keys ("[\"a\"]", "[5]", "[{}]" for None).
  std::string Canonical() const;
};

// The value at one key path (its property names, as in PartitionKeyDefinition::parts) in a
// document; null when the document has none there.
const json::Value* FindKeyPath(const json::Value& doc, const std::vector<std::string>& names);

// Reads the key from a document body per the definition.
PartitionKeyValue ExtractPartitionKey(const PartitionKeyDefinition& def, const json::Value& doc);

// Parses the x-ms-documentdb-partitionkey header value; throws CosmosError(400, 1001) when malformed
// or when its component count disagrees with the definition. `allow_prefix`: a hierarchical
// (MultiHash) key may give only its first components (queries and feeds address the prefix).
PartitionKeyValue ParsePartitionKeyHeader(const PartitionKeyDefinition& def, std::string_view header,
                                          bool allow_prefix = false);

// Canonical JSON text of a partition key component (numbers compared as doubles).
std::optional<std::string> CanonicalComponent(const json::Value& v);

}  // namespace cosmos::store
