#include "query/parse_cache.h"

#include <mutex>
#include <string>
#include <unordered_map>

#include "common/errors.h"

namespace cosmos::query {

namespace {
constexpr size_t kMaxEntries = 4096;
constexpr size_t kMaxCachedText = 16 * 1024;
}  // namespace

std::shared_ptr<const sql::Query> ParseQuery(std::string_view text) {
  static std::mutex mu;
  static std::unordered_map<std::string, std::shared_ptr<const sql::Query>> cache;
  if (text.size() <= kMaxCachedText) {
    std::lock_guard lock(mu);
    if (auto it = cache.find(std::string(text)); it != cache.end()) return it->second;
  }
  sql::SyntaxError error;
  std::shared_ptr<const sql::Query> q = sql::Parse(text, error);
  if (!q) throw errors::QueryError(error.code, error.loc.start, error.loc.end, error.message);
  if (text.size() <= kMaxCachedText) {
    std::lock_guard lock(mu);
    if (cache.size() >= kMaxEntries) cache.clear();  // simple bound; parsing again is cheap
    cache.emplace(std::string(text), q);
  }
  return q;
}

}  // namespace cosmos::query
