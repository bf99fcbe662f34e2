// parallel_for over independent tasks on `threads` threads. Tasks are taken
// in order from a shared counter; results must depend only on the task index
// (each task seeds its own Rng stream), so the output is the same for any
// thread count. The first exception a task throws is rethrown after all
// threads stop.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace dxgen {

// 0 = the machine's hardware threads.
inline int resolve_threads(int threads) {
  if (threads > 0) return threads;
  return std::max(1u, std::thread::hardware_concurrency());
}

template <class F> void parallel_for(int64_t tasks, int threads, F &&task) {
  threads = int(std::min<int64_t>(resolve_threads(threads), std::max<int64_t>(tasks, 1)));
  std::atomic<int64_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto worker = [&] {
    for (int64_t i; (i = next.fetch_add(1)) < tasks;) {
      try {
        task(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        next = tasks; // stop handing out work
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread &t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

} // namespace dxgen
