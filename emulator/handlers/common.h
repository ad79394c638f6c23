// Helpers shared by handlers: resolving parents, validating ids and bodies, building feeds.
#pragma once

#include <atomic>
#include <chrono>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/errors.h"
#include "http/context.h"
#include "json/json.h"
#include "charge/charge.h"
#include "store/indexing.h"
#include "store/partition_key.h"
#include "store/store.h"

namespace cosmos::handlers {

namespace headers = http::headers;  // header names (http/headers.h)

// A missing database or container is a metadata lookup that failed: 404, charged as the service does.
CosmosError MetadataNotFound();

store::DatabasePtr ResolveDatabase(http::Services& s, const std::string& id);
store::ContainerPtr ResolveContainer(http::Services& s, const std::string& db, const std::string& coll);
// The container the request's path names ("db", "coll"), its ranges held until the request has
// answered (a split waits for it).
store::ContainerPtr ResolveContainer(http::Services& s, const http::RequestContext& ctx);

// Parses a JSON body; throws 400 (malformed, too deep).
json::Document ParseBody(const std::string& body);
// Parses the body as a JSON object; throws 400 (malformed, too deep, not an object).
json::Document ParseObjectBody(const std::string& body);

// x-ms-max-item-count: nullopt when absent; a nullopt inside for -1 (no limit asked); else the
// positive count. Throws 400 for anything else.
std::optional<std::optional<size_t>> MaxItemCount(const http::RequestContext& ctx);

// For a query that names no partition: 400 unless it says x-ms-documentdb-query-enablecrosspartition
// (a container with the system key has one logical partition, and needs neither).
void CheckCrossPartitionAllowed(const http::RequestContext& ctx, const store::Container& c);

// Whether the request asks for no body on a successful write (Prefer: return=minimal): single item
// writes then answer their status and headers only, batches only the operations' statuses.
bool ReturnsMinimal(const http::RequestContext& ctx);

// What one feed page (read feed, change feed) may do before it answers what it has with a
// continuation: about 4 MB of documents (the service's response limit) and the query page time
// (--query-page-timeout-ms); a request whose client went away stops (408).
struct FeedBudget {
  static constexpr size_t kPageBytes = 4u << 20;
  FeedBudget(const http::Services& s, const http::RequestContext& ctx);
  bool TimeUp() const { return std::chrono::steady_clock::now() >= deadline; }
  // Throws 408 when the client went away.
  void CheckCancelled() const;
  std::chrono::steady_clock::time_point deadline;
  const std::atomic<bool>* cancelled = nullptr;
};

// Validates a resource id: a non-empty string without / \ ? #, of at most 255 characters for
// databases and containers (kResourceName) or 1,023 bytes for items (kItem).
enum class IdKind { kResourceName, kItem };
void ValidateId(const json::Value& doc, IdKind kind = IdKind::kResourceName);
std::string IdOf(const json::Value& doc);


// A query request's body: {"query": "...", "parameters": [{"name": "@p", "value": ...}]}, or a
// bare query text (the service takes both). Throws 400 when malformed or a parameter is unnamed.
struct QueryBody {
  std::string text;
  json::Document doc;  // owns the parameters
  const json::Value* params = nullptr;
};
QueryBody ParseQueryBody(const std::string& body);

// A query over metadata resources (offers, users, permissions) given as (id, JSON) in list order:
// they are loaded into a transient partition that the query engine reads like a container's.
// Continuations record the position in that order, so paging is stable while the list does not
// change between pages. Answers the feed {"_rid":rid,"<key>":[...]} charged as a metadata read.
http::Result QueryResources(http::Services& s, http::RequestContext& ctx, const char* key, const std::string& rid,
                            const std::vector<std::pair<std::string, std::string>>& resources);

// {"_rid":rid,"<key>":[items...],"_count":n} from already-serialised items.
std::string FeedJson(const std::string& rid, const char* key, const std::vector<std::string>& items);

// Pages an already-serialised feed by x-ms-max-item-count and x-ms-continuation (an index into
// the list); sets the continuation header on `r` when more remain. Throws 400 on bad values.
std::vector<std::string> Page(const http::RequestContext& ctx, std::vector<std::string> all, http::Result& r);

// The most physical partitions the emulator's own container-create header may ask for.
inline constexpr int kMaxPartitionCount = 1024;

// Manual RU/s, or an autoscale maximum, as the service accepts them (store::Throughput's limits);
// 400 with the service's message otherwise.
store::Throughput CheckedThroughput(int64_t ru, bool autoscale);
// Offer throughput from x-ms-offer-throughput / x-ms-cosmos-offer-autopilot-settings; 400 when invalid.
std::optional<store::Throughput> ThroughputFromHeaders(const http::RequestContext& ctx);

// Headers every item response carries: session token and the container it belongs to.
void ItemHeaders(http::Result& r, const http::RequestContext& ctx, const store::Container& c,
                 const store::PhysicalPartition& p, uint64_t lsn);
// The same for a response that read several partitions: one session token per range, comma-joined.
void SessionHeaders(http::Result& r, const http::RequestContext& ctx, const store::Container& c,
                    const std::vector<store::PhysicalPartition*>& parts);

// Records what the request uses (for the rate limiter and the RU report), checks a read's session
// token against the partitions, and refuses it with 429 when rate limiting is on and a partition
// has spent its budget (unless `check_budget` is false: the handler throttles parts of the request
// itself). The request is named in the report as its route names it (OperationFacts::report_name).
void Admit(http::Services& s, http::RequestContext& ctx, const store::ContainerPtr& c,
           std::vector<store::PhysicalPartition*> parts, bool check_budget = true);

// The partitions a feed or query request addresses, and which of their items it may see.
struct Routed {
  std::vector<store::PhysicalPartition*> partitions;
  std::optional<std::string> pk;                          // a full key: only its items
  std::optional<std::pair<std::string, std::string>> epk;  // [min, max): only items whose EPK is in it
  bool all = false;                                        // every partition, unfiltered
  bool Contains(const store::Item& item) const;
};
// 410/1002: the partition key range `range` does not exist (split, or never did); the SDKs then
// refresh their routing map.
CosmosError RangeGone(std::string_view range);
// The If-Match header: nullopt when absent or empty.
std::optional<std::string> IfMatchHeader(const http::RequestContext& ctx);

// Routes by x-ms-documentdb-partitionkey (a full key, or a prefix of a hierarchical key), by
// x-ms-documentdb-partitionkeyrangeid (410/1002 when the range does not exist), by
// x-ms-start-epk/x-ms-end-epk, or to every partition. The caller then admits the request.
Routed RouteRequest(const http::RequestContext& ctx, const store::ContainerPtr& c);
// The partition key of x-ms-documentdb-partitionkey; 400 when absent (unless the container has none).
store::PartitionKeyValue HeaderKey(const http::RequestContext& ctx, const store::Container& c);
// Strong and Bounded Staleness reads cost double: the account's level, unless the request weakens it.
charge::Consistency ReadConsistency(const http::Services& s, const http::RequestContext& ctx);

// Runs a write; a failure that happened after the request reached the partition (other than 413)
// is charged as the service charges a rejected write.
template <typename F>
auto ChargedWrite(F&& f) {
  try {
    return f();
  } catch (CosmosError& e) {
    if (e.charge == 0 && e.status != 413) e.charge = charge::RejectedWrite();
    throw;
  }
}

// Runs a metadata write (users, permissions, client encryption keys); a failure once the request
// reached the store (conflict, precondition) is charged as a rejected write.
template <typename F>
auto MetadataWrite(F&& f) {
  try {
    return f();
  } catch (CosmosError& e) {
    if (e.charge == 0 && (e.status == 409 || e.status == 412)) e.charge = charge::RejectedWrite();
    throw;
  }
}

// The write-charge facts of a stored image (size and index terms under the container's policy).
charge::ItemFacts Facts(const store::Item& item, const store::ContainerSettings& st);
// An item's own "ttl": absent/null -> nullopt; -1 or a positive integer; 400 otherwise.
std::optional<int64_t> ItemTtl(const json::Value& doc);
// The stored image of `user`: its properties in the order given, then the system properties.
// 413 when it exceeds `max_bytes`. The same as FinishItem(DraftItem(...)).
store::ItemPtr MakeItem(http::Services& s, const store::Container& c, const json::Value& user, const std::string& pk,
                        const std::string& epk, uint64_t seq, uint64_t lsn, size_t max_bytes,
                        store::IndexingDirective directive = store::IndexingDirective::kDefault);
// What of a stored image does not depend on where or when it is written: the user's properties
// (system properties dropped) in the order given, in the item's draft; id, keys and ttl. Bulk
// loads (seed/) prepare items on several threads (PrepareItem), and only StampItem runs under the lock.
store::DraftPtr DraftItem(const json::Value& user, const std::string& pk, const std::string& epk);
// Completes a draft written at (seq, lsn) now: _rid, _self, _etag, _attachments and _ts after the
// user's properties, then seals the item; 413 when its text exceeds `max_bytes`. Whether the item
// enters the index: the write's directive under the container's policy (IndexingPolicy::IndexesWrite).
// The same as StampItem(PrepareItem(...)).
store::ItemPtr FinishItem(http::Services& s, const store::Container& c, store::DraftPtr item, uint64_t seq,
                          uint64_t lsn, size_t max_bytes,
                          store::IndexingDirective directive = store::IndexingDirective::kDefault);
// FinishItem in two steps, so that the work of building and sealing the image is done before the
// partition's lock is taken. PrepareItem adds the system properties to a draft and seals it,
// holding open what only the write decides (the rid, from its sequence number, in _rid and _self;
// _ts and _etag, from its time): texts of the lengths the write's will have. StampItem, under the
// lock, writes those in place for a write at (seq, lsn) now; 413 when the text exceeds
// `max_bytes`. A prepared item is stamped once.
store::DraftPtr PrepareItem(http::Services& s, const store::Container& c, store::DraftPtr draft,
                            store::IndexingDirective directive = store::IndexingDirective::kDefault);
store::ItemPtr StampItem(http::Services& s, const store::Container& c, store::DraftPtr prepared,
                         uint64_t seq, uint64_t lsn, size_t max_bytes);
// A write's x-ms-indexing-directive, or a batch operation's indexingDirective (absent: Default);
// 400 for another value.
store::IndexingDirective IndexingDirectiveOf(const std::optional<std::string_view>& text);

}  // namespace cosmos::handlers
