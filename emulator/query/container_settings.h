// A container's settings read from its JSON: the indexing policy, time to live, unique keys,
// computed properties (compiled by the query language, hence this layer), vector and full-text
// policies, conflict resolution, change-feed retention and geospatial configuration. The container
// handlers read a create or replace body with it; recovery reads the stored document.
#pragma once

#include "json/json.h"
#include "store/store.h"

namespace cosmos::query {

// The settings a create or replace may set; 400 for what is invalid or what this emulator does
// not enforce.
store::ContainerSettings ContainerSettingsFromJson(const json::Value& body);

// The settings of a container from its representation (Container::ToJson), as persistence keeps
// it: ContainerSettingsFromJson and the client encryption policy as it was stored (checked
// against the database's keys when it was set).
store::ContainerSettings StoredContainerSettings(const json::Value& doc);

}  // namespace cosmos::query
