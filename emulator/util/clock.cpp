#include "util/clock.h"

#include "util/util.h"

namespace cosmos::util {

WallClock::WallClock(std::optional<int64_t> fixed_unix_ms) : fixed_(fixed_unix_ms) {}

int64_t WallClock::UnixMs() const { return (fixed_ ? *fixed_ : UnixMillis()) + offset_ms_.load(); }

void WallClock::Advance(int64_t ms) {
  if (ms > 0) offset_ms_ += ms;
}

bool WallClock::AdvanceWithin(int64_t ms, int64_t max_offset_ms) {
  if (ms < 0) return false;
  int64_t current = offset_ms_.load();
  do {
    if (current > max_offset_ms || ms > max_offset_ms - current) return false;
  } while (!offset_ms_.compare_exchange_weak(current, current + ms));
  return true;
}

}  // namespace cosmos::util
