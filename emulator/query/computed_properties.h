// Checks a container's `computedProperties` as the service does, and builds them.
#pragma once

#include <memory>

#include "json/json.h"
#include "store/computed_properties.h"
#include "store/indexing.h"

namespace cosmos::query {

// The definitions in `v` (an array of {"name", "query"}), checked in order; throws CosmosError 400
// with the service's message for the first one that is wrong (docs/computed-properties.md). Null
// when the array is empty. `indexing` is the container's indexing policy: a computed property may
// not have a spatial index.
std::shared_ptr<const store::ComputedProperties> ComputedPropertiesFromJson(const json::Value& v,
                                                                            const store::IndexingPolicy& indexing);

}  // namespace cosmos::query
