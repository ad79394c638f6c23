// Helpers shared by handlers: resolving parents, validating ids and bodies, building feeds.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/errors.h"
#include "http/context.h"
#include "json/json.h"
#include "charge/charge.h"
#include "store/partition_key.h"
#include "store/store.h"

namespace cosmos::handlers {

// A missing database or container is a metadata lookup that failed: 404, charged as the service does.
CosmosError MetadataNotFound();

store::DatabasePtr ResolveDatabase(http::Services& s, const std::string& id);
store::ContainerPtr ResolveContainer(http::Services& s, const std::string& db, const std::string& coll);

// Parses a JSON body; throws 400 (malformed, too deep).
json::Document ParseBody(const std::string& body);
// Parses the body as a JSON object; throws 400 (malformed, too deep, not an object).
json::Document ParseObjectBody(const std::string& body);

// x-ms-max-item-count: nullopt when absent; a nullopt inside for -1 (no limit asked); else the
// positive count. Throws 400 for anything else.
std::optional<std::optional<size_t>> MaxItemCount(const http::RequestContext& ctx);

// Validates a resource id: a non-empty string without / \ ? #, of at most 255 characters for
// databases and containers (kResourceName) or 1,023 bytes for items (kItem).
enum class IdKind { kResourceName, kItem };
void ValidateId(const json::Value& doc, IdKind kind = IdKind::kResourceName);
std::string IdOf(const json::Value& doc);

// {"_rid":rid,"<key>":[items...],"_count":n} from already-serialised items.
std::string FeedJson(const std::string& rid, const char* key, const std::vector<std::string>& items);

// Pages an already-serialised feed by x-ms-max-item-count and x-ms-continuation (an index into
// the list); sets the continuation header on `r` when more remain. Throws 400 on bad values.
std::vector<std::string> Page(const http::RequestContext& ctx, std::vector<std::string> all, http::Result& r);

// Offer throughput from x-ms-offer-throughput / x-ms-cosmos-offer-autopilot-settings; 400 when invalid.
std::optional<int> ThroughputFromHeaders(const http::RequestContext& ctx);

// Headers every item response carries: session token and the container it belongs to.
void ItemHeaders(http::Result& r, const http::RequestContext& ctx, const store::Container& c,
                 const store::PhysicalPartition& p, uint64_t lsn);
// The partition key of x-ms-documentdb-partitionkey; 400 when absent (unless the container has none).
store::PartitionKeyValue HeaderKey(const http::RequestContext& ctx, const store::Container& c);
// Strong and Bounded Staleness reads cost double: the account's level, unless the request weakens it.
charge::Consistency ReadConsistency(const http::Services& s, const http::RequestContext& ctx);

}  // namespace cosmos::handlers
