#include "query/parse_cache.h"

#include <mutex>
#include <string>
#include <unordered_map>

#include "common/errors.h"
#include "json/json.h"

namespace cosmos::query {

namespace {
constexpr size_t kMaxEntries = 4096;
constexpr size_t kMaxCachedText = 16 * 1024;
constexpr size_t kMaxQueryText = 512 * 1024;  // the service's limit on the SQL text
}  // namespace

std::shared_ptr<const sql::Query> ParseQuery(std::string_view text) {
  if (text.size() > kMaxQueryText) {
    throw errors::BadRequest("The SQL query text exceeds the maximum allowed length of " +
                             std::to_string(kMaxQueryText) + " characters.");
  }
  // A body that was not JSON is taken as the query text itself; text that is not UTF-8 is refused
  // as the service refuses a payload it cannot read (ANTLR's input stream would throw: 500).
  if (!json::ValidUtf8(text)) throw errors::MalformedPayload();
  static std::mutex mu;
  static std::unordered_map<std::string, std::shared_ptr<const sql::Query>> cache;
  if (text.size() <= kMaxCachedText) {
    std::lock_guard lock(mu);
    if (auto it = cache.find(std::string(text)); it != cache.end()) return it->second;
  }
  sql::SyntaxError error;
  std::shared_ptr<const sql::Query> q = sql::Parse(text, error);
  if (!q && error.code.empty()) throw errors::BadRequest(error.message);
  if (!q) throw errors::QueryError(error.code, error.loc.start, error.loc.end, error.message);
  if (text.size() <= kMaxCachedText) {
    std::lock_guard lock(mu);
    if (cache.size() >= kMaxEntries) cache.clear();  // simple bound; parsing again is cheap
    cache.emplace(std::string(text), q);
  }
  return q;
}

}  // namespace cosmos::query
