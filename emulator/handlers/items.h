// Item writes shared by the item routes (document.cpp) and transactional batch and bulk
// (batch.cpp): where an item lives, how a whole-item write or a patch is validated and applied,
// and what it is charged.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "handlers/common.h"

namespace cosmos::handlers {

// The container, logical partition and physical partition an item request addresses.
struct Target {
  store::ContainerPtr c;
  std::string pk;  // canonical partition key
  std::string epk;
  std::shared_ptr<const store::ContainerSettings> settings;
  store::PhysicalPartition* partition = nullptr;
};
// The target of partition key `key` in `c` (not admitted against the throughput).
Target TargetOf(store::ContainerPtr c, const store::PartitionKeyValue& key);

// Where a write goes: straight to the partition, or into a transaction (a script's or a batch's).
using PartitionWrite = std::function<store::WriteResult(store::WriteKind, const std::string& id,
                                                        const store::Preconditions&, const store::PhysicalPartition::Maker&)>;
PartitionWrite Direct(http::Services& s, const Target& t);
PartitionWrite Into(http::Services& s, store::Transaction& tx);

// An item a whole-item write carries, checked as every such write checks it, wherever it comes
// from (the item routes, batch and bulk, stored procedures, seeding and import): its id
// (ValidateId, IdKind::kItem), then what the caller expects of its id and key (`expect`: the URL's
// id, the target's partition key; it throws its own 400), then its own ttl (ItemTtl; the stored
// image reads it again when it is built).
struct CheckedItem {
  std::string id;
  store::PartitionKeyValue key;  // from the definition's paths (undefined components when absent)
  std::string pk;                // key.Canonical()
};
using ItemExpectation = std::function<void(const CheckedItem&)>;
CheckedItem CheckItemWrite(const store::PartitionKeyDefinition& def, const json::Value& doc,
                           const ItemExpectation& expect = nullptr);

// Writes `body` as a whole item (create, upsert or replace) after validating it: id, partition key
// (400/1001 when it is not the target's), ttl; `addressed_id`: the id a replace addresses (a body
// with another id renames the item; 409 when that id is taken). A failure after the write reached
// the partition is charged as the service does.
store::WriteResult WriteItem(http::Services& s, const Target& t, store::WriteKind kind, const json::Value& body,
                             const std::optional<std::string>& addressed_id, const store::Preconditions& pre,
                             const PartitionWrite& write,
                             store::IndexingDirective directive = store::IndexingDirective::kDefault);

// A patch request's body: the operations, and the condition when one was given.
struct PatchRequest {
  json::Document doc;  // owns the operations
  const json::Value* ops = nullptr;
  std::optional<std::string> condition;
};
// Reads `[ops...]` or `{"condition":..., "operations":[...]}` from `body`; 400 when malformed.
PatchRequest ParsePatchRequest(json::Document body, const store::PartitionKeyDefinition& pk);
// Applies a patch to item `id` (404 when missing, 412 when the condition is false); `unindexed`:
// the new version is left out of the index (the write's directive under the policy).
store::WriteResult PatchItem(http::Services& s, const std::string& id, const PatchRequest& patch,
                             const store::Preconditions& pre, const PartitionWrite& write, bool unindexed = false);

// The status and charge of a successful write.
std::pair<int, double> WriteOutcome(store::WriteKind kind, const store::WriteResult& w,
                                    const store::ContainerSettings& st);

}  // namespace cosmos::handlers
