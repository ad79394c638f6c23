// Optional rate limiting: each physical partition may spend its share of the provisioned RU/s
// per second; past that, requests are refused with 429/3200 and a retry-after, and cost nothing.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "store/store.h"

namespace cosmos::throughput {

// Milliseconds since an arbitrary epoch. Tests inject a manual clock; nothing sleeps.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual int64_t NowMs() const = 0;
};

class SystemClock : public Clock {
 public:
  int64_t NowMs() const override;
};

class ManualClock : public Clock {
 public:
  explicit ManualClock(int64_t start_ms = 0) : now_(start_ms) {}
  int64_t NowMs() const override { return now_.load(); }
  void Advance(int64_t ms) { now_ += ms; }

 private:
  std::atomic<int64_t> now_;
};

// The budget of every physical partition is a bucket refilled at offer RU/s / partitions sharing
// the offer, holding at most one second's worth (no burst capacity). A request is admitted while
// every partition it touches has RU left; its charge is then spent, split evenly over them, and may
// take a bucket below zero (the service lets the request that crosses the line finish).
class RateLimiter {
 public:
  explicit RateLimiter(const Clock& clock) : clock_(clock) {}
  void set_enabled(bool on) { enabled_ = on; }
  bool enabled() const { return enabled_; }

  // Throws CosmosError 429/3200 with x-ms-retry-after-ms when any partition has spent its budget:
  // the time until the bucket holds RU again, or, when earlier refused requests are already
  // waiting, until after them (one typical request's worth of RU each). No-op when disabled.
  void Admit(const store::Container& c, const std::vector<store::PhysicalPartition*>& parts) const;
  // Spends `charge` RU over `parts`. No-op when disabled.
  void Consume(const store::Container& c, const std::vector<store::PhysicalPartition*>& parts, double charge) const;

 private:
  const Clock& clock_;
  std::atomic<bool> enabled_{false};
};

}  // namespace cosmos::throughput
