#include "util/clock.h"

#include "util/util.h"

namespace cosmos::util {

WallClock::WallClock(std::optional<int64_t> fixed_unix_ms) : fixed_(fixed_unix_ms) {}

int64_t WallClock::UnixMs() const { return (fixed_ ? *fixed_ : UnixMillis()) + offset_ms_.load(); }

void WallClock::Advance(int64_t ms) {
  if (ms > 0) offset_ms_ += ms;
}

}  // namespace cosmos::util
