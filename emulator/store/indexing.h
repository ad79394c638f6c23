// Indexing policy: normalisation of what the user gives, and the number of index terms a document
// produces under it (the write-charge input "T" of docs/request-units).
#pragma once

#include <string>
#include <vector>

#include "json/json.h"

namespace cosmos::store {

struct IndexingPolicy {
  std::string mode = "consistent";  // "consistent" | "none" ("lazy" is accepted as consistent by the service)
  bool automatic = true;
  std::vector<std::vector<std::string>> included;  // each path split into segments ("*", "?", "[]", names)
  std::vector<std::vector<std::string>> excluded;
  std::vector<std::vector<std::vector<std::string>>> composites;  // each composite index: list of paths
  json::Document raw;                                             // the normalised policy as returned

  // Parses and normalises a user policy; a null/absent policy yields the default. Throws 400 when invalid.
  static IndexingPolicy FromJson(const json::Value* v);
  // Number of index terms `doc` writes: one per indexed leaf (each array element counts), the
  // system `_ts` included, `_rid` `_self` `_etag` `_attachments` not; one per applicable composite index.
  int CountTerms(const json::Value& doc) const;
  // Whether a range/equality index covers the leaf value at `path` (property names from the root,
  // "[]" for an array element): the most specific matching included/excluded path decides, as in
  // CountTerms. Never with mode "none"; /id and /_ts always in consistent mode.
  bool IsIndexed(const std::vector<std::string>& path) const;
};

}  // namespace cosmos::store
