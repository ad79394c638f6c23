// Indexing policy: normalisation of what the user gives, and the number of index terms a document
// produces under it (the write-charge input "T" of docs/request-units). Rules and error texts:
// docs/indexing.md.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "json/json.h"

namespace cosmos::store {

// A write's x-ms-indexing-directive (a batch operation's "indexingDirective").
enum class IndexingDirective { kDefault, kInclude, kExclude };
// "Default", "Include" or "Exclude" in any case (the JavaScript SDK sends them lower-case); nullopt
// for anything else.
std::optional<IndexingDirective> ParseIndexingDirective(std::string_view text);

struct IndexingPolicy {
  std::string mode = "consistent";  // "consistent" | "none" ("lazy" is accepted as consistent by the service)
  bool automatic = true;
  std::vector<std::vector<std::string>> included;  // each path split into segments ("*", "?", "[]", names)
  std::vector<std::vector<std::string>> excluded;
  std::vector<std::vector<std::vector<std::string>>> composites;  // each composite index: list of paths
  std::vector<std::vector<bool>> composite_descending;            // per composite path: order is descending
  std::vector<std::vector<std::string>> spatial;                  // spatial index paths (ending "?" or "*")
  json::Document raw;                                             // the normalised policy as returned

  // Parses and normalises a user policy; a null/absent policy yields the default. Throws 400 when
  // invalid. `geospatial_config` is the container's geospatialConfig (null: Geography); a Geometry
  // container needs a boundingBox on every spatial index.
  static IndexingPolicy FromJson(const json::Value* v, const json::Value* geospatial_config = nullptr);
  // Number of index terms `doc` writes: one per indexed leaf (each array element counts), the
  // system `_ts` included, `_rid` `_self` `_etag` `_attachments` not; one per applicable composite
  // index; one per valid GeoJSON object (Point, LineString, Polygon, MultiPolygon) a spatial index covers.
  int CountTerms(const json::Value& doc) const;
  // Whether a range/equality index covers the leaf value at `path` (property names from the root,
  // "[]" for an array element): the most specific matching included/excluded path decides, as in
  // CountTerms. Never with mode "none"; /id and /_ts always in consistent mode.
  bool IsIndexed(const std::vector<std::string>& path) const;
  // Whether a spatial index covers the value at `path` (same path form). Never with mode "none".
  bool IsSpatiallyIndexed(const std::vector<std::string>& path) const;
  // Whether a composite index serves ORDER BY over exactly these paths with these directions: same
  // paths in the same sequence, every direction equal to the index's or every one reversed.
  bool HasCompositeFor(const std::vector<std::vector<std::string>>& paths, const std::vector<bool>& descending) const;
  // Whether an item written with `directive` enters the index: Include does, Exclude does not,
  // Default follows `automatic` (false: opt-in indexing, only Include enters). In mode none nothing
  // is indexed and queries scan every item, so only Exclude marks an item as left out.
  bool IndexesWrite(IndexingDirective directive) const;
};

}  // namespace cosmos::store
