// Suspended pages: the collections that pages of collecting queries (ORDER BY, GROUP BY, DISTINCT,
// aggregates) gathered before their deadline, kept by the process for the pages that continue them.
#include <malloc.h>

#include "query/executor_internal.h"

namespace cosmos::query {

namespace detail {

void SuspendedPages::Put(uint64_t id, std::unique_ptr<Suspended> s, size_t cap) {
  std::vector<std::unique_ptr<Suspended>> dropped;  // freed outside the lock
  {
    std::lock_guard lock(mu_);
    const auto now = std::chrono::steady_clock::now();
    const size_t bytes = s->bytes();
    total_ += bytes;
    entries_.emplace(id, Entry{std::move(s), now, bytes});
    while (!entries_.empty()) {
      auto oldest = entries_.begin();
      if (entries_.size() <= kMaxEntries && total_ <= cap && now - oldest->second.at < kIdle) break;
      if (oldest->first == id && entries_.size() == 1) break;  // the newest stays even alone over the cap
      total_ -= oldest->second.bytes;
      dropped.push_back(std::move(oldest->second.state));
      entries_.erase(oldest);
    }
  }
  if (!dropped.empty()) {
    dropped.clear();
    malloc_trim(0);
  }
}

std::unique_ptr<Suspended> SuspendedPages::Take(uint64_t id, uint32_t query, const std::string& scope) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(id);
  if (it == entries_.end() || it->second.state->query != query || it->second.state->scope != scope) return nullptr;
  auto s = std::move(it->second.state);
  total_ -= it->second.bytes;
  entries_.erase(it);
  return s;
}

size_t SuspendedPages::size() {
  std::lock_guard lock(mu_);
  return entries_.size();
}

SuspendedPages::SuspendedPages() {
  // Numbers from one process do not name another's collections.
  next_ = (static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) & 0xFFFFFFFFull) << 20 | 1;
}

}  // namespace detail

size_t SuspendedCollections() { return detail::SuspendedPages::Get().size(); }

}  // namespace cosmos::query
