// Helpers shared by handlers: resolving parents, validating ids and bodies, building feeds.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "http/context.h"
#include "json/json.h"
#include "store/store.h"

namespace cosmos::handlers {

store::DatabasePtr ResolveDatabase(http::Services& s, const std::string& id);
store::ContainerPtr ResolveContainer(http::Services& s, const std::string& db, const std::string& coll);

// Parses the body as a JSON object; throws 400 (malformed, too deep, not an object).
json::Document ParseObjectBody(const std::string& body);

// Validates a resource id: a non-empty string of at most 255 characters without / \ ? #.
void ValidateId(const json::Value& doc);
std::string IdOf(const json::Value& doc);

// {"_rid":rid,"<key>":[items...],"_count":n} from already-serialised items.
std::string FeedJson(const std::string& rid, const char* key, const std::vector<std::string>& items);

// Offer throughput from x-ms-offer-throughput / x-ms-cosmos-offer-autopilot-settings; 400 when invalid.
std::optional<int> ThroughputFromHeaders(const http::RequestContext& ctx);

}  // namespace cosmos::handlers
