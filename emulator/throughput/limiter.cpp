#include "throughput/limiter.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "common/errors.h"

namespace cosmos::throughput {
namespace {

// Brings the bucket up to `now`: refills at `budget` RU/s, up to one second's worth.
void Refill(store::RuBucket& b, double budget, int64_t now) {
  if (!b.started) {
    b.started = true;
    b.tokens = budget;
  } else if (now > b.at_ms) {
    b.tokens = std::min(budget, b.tokens + budget * static_cast<double>(now - b.at_ms) / 1000.0);
  }
  b.at_ms = std::max(b.at_ms, now);
}

}  // namespace

int64_t SystemClock::NowMs() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void RateLimiter::Admit(const store::Container& c, const std::vector<store::PhysicalPartition*>& parts) const {
  if (!enabled_ || parts.empty()) return;
  const auto& offer = c.budget_offer();
  if (!offer) return;
  const double budget = offer->PartitionBudget();
  const int64_t now = clock_.NowMs();
  int64_t wait = 0;
  for (auto* p : parts) {
    auto& b = p->bucket();
    std::lock_guard lock(b.mu);
    Refill(b, budget, now);
    if (b.tokens > 0) continue;  // admitted while RU remain
    // Refused: retry once the bucket holds more than zero again. Requests already told to retry
    // are queued first, each given the time one typical request needs, so that concurrent callers
    // do not all come back at the same instant and starve each other.
    int64_t at = now + static_cast<int64_t>(std::floor(-b.tokens * 1000.0 / budget)) + 1;
    if (b.promised_ms > now) {
      at = std::max(at, b.promised_ms + static_cast<int64_t>(std::ceil(b.mean_charge * 1000.0 / budget)));
    }
    b.promised_ms = at;
    wait = std::max(wait, at - now);
  }
  if (wait > 0) throw errors::TooManyRequests(wait);
}

void RateLimiter::Consume(const store::Container& c, const std::vector<store::PhysicalPartition*>& parts,
                          double charge) const {
  if (!enabled_ || parts.empty() || charge <= 0) return;
  const auto& offer = c.budget_offer();
  if (!offer) return;
  const double budget = offer->PartitionBudget();
  const int64_t now = clock_.NowMs();
  const double share = charge / static_cast<double>(parts.size());
  for (auto* p : parts) {
    auto& b = p->bucket();
    std::lock_guard lock(b.mu);
    Refill(b, budget, now);
    b.tokens -= share;
    b.mean_charge = b.mean_charge == 0 ? share : 0.8 * b.mean_charge + 0.2 * share;
  }
}

}  // namespace cosmos::throughput
