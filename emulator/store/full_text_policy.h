// A container's full-text policy (fullTextPolicy) and the full-text indexes of its indexing
// policy: parsed and checked with the service's errors. The policy names the language of the
// text at each document path, which the full-text functions analyse it with
// (docs/full-text-search.md).
#pragma once

#include <string>
#include <vector>

#include "json/json.h"
#include "util/text_analysis.h"

namespace cosmos::store {

struct FullTextPath {
  std::string path;                   // as given, e.g. "/abstract"
  std::vector<std::string> segments;  // property names from the root
  util::TextLanguage language = util::TextLanguage::kEnglish;  // the path's, else the default
};

struct FullTextPolicy {
  util::TextLanguage default_language = util::TextLanguage::kEnglish;
  std::vector<FullTextPath> paths;

  // The policy's entry for exactly this path (property names from the root), or null.
  const FullTextPath* Find(const std::vector<std::string>& segments) const;

  // Parses a fullTextPolicy value; throws the service's 400 when it is invalid.
  static FullTextPolicy FromJson(const json::Value& v);
};

// Checks indexingPolicy.fullTextIndexes (the array as given) against the full-text policy (null
// when the container has none): each index names a path, written as a path, that the policy
// declares. Throws the service's 400.
void CheckFullTextIndexes(const json::Value& indexes, const FullTextPolicy* policy);

}  // namespace cosmos::store
