// The emulator's wall clock: item timestamps (_ts), time-to-live and change-feed start times all
// read it. It follows the system clock shifted forward by what Advance added (tests and the
// /_emulator/clock endpoint move time on to expire items), or stands still at a fixed instant.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>

namespace cosmos::util {

// A moment on the emulator's clock, to the millisecond: what the store measures item expiry
// against. A whole number converts implicitly to the start of that Unix second (tests, and times
// kept in seconds); a clock reading keeps its milliseconds (WallClock::Now, FromMs).
struct Instant {
  int64_t ms = 0;  // Unix milliseconds

  constexpr Instant() = default;
  constexpr Instant(int64_t unix_seconds) : ms(unix_seconds * 1000) {}  // NOLINT(google-explicit-constructor)
  static constexpr Instant FromMs(int64_t unix_ms) {
    Instant at;
    at.ms = unix_ms;
    return at;
  }
  // The whole Unix second it falls in (what `_ts` and the change log's times hold).
  constexpr int64_t seconds() const { return ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000); }
};

class WallClock {
 public:
  // Follows the system clock; with `fixed_unix_ms`, stands at that instant until advanced.
  explicit WallClock(std::optional<int64_t> fixed_unix_ms = std::nullopt);

  int64_t UnixMs() const;
  int64_t UnixSeconds() const { return UnixMs() / 1000; }
  Instant Now() const { return Instant::FromMs(UnixMs()); }
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
