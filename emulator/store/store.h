// The in-memory account: databases, containers, physical partitions and items. Knows no HTTP.
// Items are immutable snapshots shared by pointer, so readers never hold a lock while answering.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "json/json.h"
#include "store/indexing.h"
#include "store/partition_key.h"

namespace cosmos::store {

// One stored version of an item, with its system properties already in `body` and `text`.
struct Item {
  std::string id;
  std::string pk;  // canonical partition key text
  json::Document body;
  std::string text;  // compact JSON of body, as returned to clients
  std::string rid;
  std::string etag;  // quoted, as in _etag
  int64_t ts = 0;
  uint64_t lsn = 0;
  uint64_t seq = 0;         // creation order within the partition (read-feed order)
  std::optional<int64_t> ttl;  // the item's own "ttl" property, when it has one
};
using ItemPtr = std::shared_ptr<const Item>;

// What a write did, for the response and the charge.
struct WriteResult {
  ItemPtr item;           // the new image (null for deletes)
  ItemPtr previous;       // the replaced or deleted image, if any
  bool created = false;   // upsert: true when it inserted
  uint64_t lsn = 0;
};

enum class WriteKind { kCreate, kReplace, kUpsert, kDelete };

struct Preconditions {
  std::optional<std::string> if_match;  // quoted etag or "*"
};

// A physical partition: one partition key range with its own lock and log sequence number.
class PhysicalPartition {
 public:
  explicit PhysicalPartition(std::string range_id) : range_id_(std::move(range_id)) {}
  const std::string& range_id() const { return range_id_; }

  ItemPtr Read(const std::string& pk, const std::string& id, int64_t now, std::optional<int64_t> default_ttl) const;
  uint64_t lsn() const;

  // Applies one write under the partition lock. `make` builds the new stored item from the
  // current image (null when absent) and the values (rid, seq, lsn) the partition assigns.
  using Maker = std::function<ItemPtr(const ItemPtr& current, uint64_t seq, uint64_t lsn)>;
  WriteResult Write(WriteKind kind, const std::string& pk, const std::string& id, const Preconditions& pre,
                    int64_t now, std::optional<int64_t> default_ttl, const Maker& make);

  // Items in feed order with seq > after_seq, at most max_items (0 = all).
  std::vector<ItemPtr> Feed(uint64_t after_seq, size_t max_items, int64_t now,
                            std::optional<int64_t> default_ttl) const;
  size_t Count() const;

 private:
  static std::string Key(const std::string& pk, const std::string& id);
  ItemPtr Live(const ItemPtr& item, int64_t now, std::optional<int64_t> default_ttl) const;

  const std::string range_id_;
  mutable std::shared_mutex mu_;
  std::unordered_map<std::string, ItemPtr> by_key_;
  std::map<uint64_t, ItemPtr> by_seq_;
  uint64_t lsn_ = 0;
  uint64_t next_seq_ = 1;
};

// Container settings that can change with a replace.
struct ContainerSettings {
  IndexingPolicy indexing;
  std::optional<int64_t> default_ttl;  // nullopt: TTL off; -1: on without default; n: seconds
  json::Document extra;               // other properties kept as given (conflictResolutionPolicy, ...)
};

class Container {
 public:
  Container(std::string id, std::string rid, std::string db_rid, PartitionKeyDefinition pk, ContainerSettings settings,
            int64_t ts, std::string etag, std::optional<int> throughput);

  const std::string& id() const { return id_; }
  const std::string& rid() const { return rid_; }
  const std::string& self() const { return self_; }
  const PartitionKeyDefinition& partition_key() const { return pk_; }
  std::optional<int> throughput() const { return throughput_; }

  // Snapshot of the settings (indexing policy, TTL).
  std::shared_ptr<const ContainerSettings> settings() const;
  void Replace(ContainerSettings settings, int64_t ts, std::string etag);
  std::string etag() const;

  // The container's JSON representation, as returned by create/read/list.
  std::string ToJson() const;

  PhysicalPartition& PartitionFor(const PartitionKeyValue& pk);
  const std::vector<std::unique_ptr<PhysicalPartition>>& partitions() const { return partitions_; }
  PhysicalPartition* PartitionById(const std::string& range_id);

  // Next item resource id (16 bytes base64: container rid bytes + item sequence).
  std::string ItemRid(uint64_t seq) const;

 private:
  const std::string id_;
  const std::string rid_;
  const std::string rid_bytes_;  // rid_ decoded: the prefix of every item rid
  const std::string db_rid_;
  const std::string self_;
  const PartitionKeyDefinition pk_;
  const std::optional<int> throughput_;
  mutable std::mutex settings_mu_;
  std::shared_ptr<const ContainerSettings> settings_;
  int64_t ts_;
  std::string etag_;
  std::vector<std::unique_ptr<PhysicalPartition>> partitions_;
};
using ContainerPtr = std::shared_ptr<Container>;

class Database {
 public:
  Database(std::string id, std::string rid, int64_t ts, std::string etag, std::optional<int> throughput)
      : id_(std::move(id)), rid_(std::move(rid)), ts_(ts), etag_(std::move(etag)), throughput_(throughput) {}
  const std::string& id() const { return id_; }
  const std::string& rid() const { return rid_; }
  std::optional<int> throughput() const { return throughput_; }
  const std::string& etag() const { return etag_; }
  std::string ToJson() const;

  ContainerPtr FindContainer(const std::string& id) const;
  std::vector<ContainerPtr> Containers() const;
  // Throws Conflict when the id exists.
  void AddContainer(ContainerPtr c);
  bool RemoveContainer(const std::string& id);
  uint32_t NextContainerNumber() { return ++container_counter_; }

 private:
  const std::string id_;
  const std::string rid_;
  const int64_t ts_;
  const std::string etag_;
  const std::optional<int> throughput_;
  mutable std::shared_mutex mu_;
  std::vector<ContainerPtr> containers_;  // creation order
  std::atomic<uint32_t> container_counter_{0};
};
using DatabasePtr = std::shared_ptr<Database>;

// The whole account. Thread-safe.
class Account {
 public:
  DatabasePtr CreateDatabase(const std::string& id, std::optional<int> throughput);
  DatabasePtr FindDatabase(const std::string& id) const;
  std::vector<DatabasePtr> Databases() const;
  bool DeleteDatabase(const std::string& id);

  ContainerPtr CreateContainer(Database& db, const std::string& id, PartitionKeyDefinition pk,
                               ContainerSettings settings, std::optional<int> throughput);

  // A new etag value, quoted, unique across the account.
  std::string NewEtag(int64_t ts);

 private:
  mutable std::shared_mutex mu_;
  std::vector<DatabasePtr> databases_;  // creation order
  std::atomic<uint32_t> db_counter_{0};
  std::atomic<uint64_t> etag_counter_{0};
};

}  // namespace cosmos::store
