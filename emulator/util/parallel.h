// Work spread over the machine's cores for one request: a few long units (the partitions of a
// scan) claimed in order by the calling thread and a small pool of helper threads.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>

namespace cosmos::util {

// Threads that may work on one call of ParallelFor, the caller included: the number of cores
// (at least 1). The helpers are shared by every request; a busy pool only means the caller does
// more of its units itself.
size_t ParallelThreads();

// Runs unit(i) for every i in [0, n) on the calling thread and the helper threads; units are
// claimed in ascending order. Once `stop` is set no further unit starts. Returns when every unit
// that started has finished. `unit` must not throw.
void ParallelFor(size_t n, const std::function<void(size_t)>& unit, const std::atomic<bool>* stop = nullptr);

}  // namespace cosmos::util
