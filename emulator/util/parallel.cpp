#include "util/parallel.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace cosmos::util {

namespace {

// Helper threads, started on first use and kept for the life of the process.
class Helpers {
 public:
  static Helpers& Get() {
    static Helpers* h = new Helpers();  // never destroyed: its threads outlive static destruction
    return *h;
  }
  size_t size() const { return threads_; }
  void Post(std::function<void()> task) {
    {
      std::lock_guard lock(mu_);
      tasks_.push_back(std::move(task));
    }
    cv_.notify_one();
  }

 private:
  Helpers() : threads_(std::max(1u, std::thread::hardware_concurrency()) - 1) {
    for (size_t i = 0; i < threads_; ++i) std::thread([this] { Loop(); }).detach();
  }
  void Loop() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [this] { return !tasks_.empty(); });
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
    }
  }
  const size_t threads_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
};

// One call's units. A helper that starts after every unit was claimed leaves without touching
// `unit`, which lives on the caller's stack only until the call returns.
struct Job {
  std::mutex mu;
  std::condition_variable idle;
  size_t next = 0;
  size_t n = 0;
  size_t running = 0;
  const std::function<void(size_t)>* unit = nullptr;
  const std::atomic<bool>* stop = nullptr;

  void Work() {
    std::unique_lock lock(mu);
    for (;;) {
      if (next >= n || (stop != nullptr && stop->load(std::memory_order_relaxed))) {
        next = n;  // closed: late helpers leave at once
        break;
      }
      const size_t i = next++;
      ++running;
      lock.unlock();
      (*unit)(i);
      lock.lock();
      --running;
    }
    if (running == 0) idle.notify_all();
  }
};

}  // namespace

size_t ParallelThreads() { return Helpers::Get().size() + 1; }

void ParallelFor(size_t n, const std::function<void(size_t)>& unit, const std::atomic<bool>* stop) {
  if (n == 0) return;
  auto job = std::make_shared<Job>();
  job->n = n;
  job->unit = &unit;
  job->stop = stop;
  Helpers& helpers = Helpers::Get();
  for (size_t i = 0; i < std::min(helpers.size(), n - 1); ++i) helpers.Post([job] { job->Work(); });
  job->Work();
  std::unique_lock lock(job->mu);
  job->idle.wait(lock, [&] { return job->running == 0; });
}

}  // namespace cosmos::util
