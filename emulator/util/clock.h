// The emulator's wall clock: item timestamps (_ts), time-to-live and change-feed start times all
// read it. It follows the system clock shifted forward by what Advance added (tests and the
// /_emulator/clock endpoint move time on to expire items), or stands still at a fixed instant.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>

namespace cosmos::util {

class WallClock {
 public:
  // Follows the system clock; with `fixed_unix_ms`, stands at that instant until advanced.
  explicit WallClock(std::optional<int64_t> fixed_unix_ms = std::nullopt);

  int64_t UnixMs() const;
  int64_t UnixSeconds() const { return UnixMs() / 1000; }
  // Moves time forward by `ms` (>= 0) for everything that reads this clock.
  void Advance(int64_t ms);
  // Moves time forward by `ms` (>= 0) unless that would take the total offset past
  // `max_offset_ms`; returns whether it moved. Concurrent callers never overshoot the bound.
  bool AdvanceWithin(int64_t ms, int64_t max_offset_ms);
  // How far Advance has moved this clock from its base.
  int64_t offset_ms() const { return offset_ms_.load(); }

 private:
  const std::optional<int64_t> fixed_;
  std::atomic<int64_t> offset_ms_{0};
};

}  // namespace cosmos::util
