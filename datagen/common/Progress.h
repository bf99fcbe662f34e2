// Progress of a long generation, shared by worker threads: a bar redrawn in
// place on a terminal, a line every 10% otherwise (logs stay short), nothing
// with --quiet. add() is thread-safe and cheap (one atomic add; the printing
// thread is whichever crosses the next threshold).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace dxgen {

class Progress {
public:
  Progress(std::string what, int64_t total, bool quiet);
  ~Progress();
  void add(int64_t n = 1);
  // Prints the final line (with the elapsed time) once.
  void finish();

private:
  void print(int64_t done, bool final);
  std::string what_;
  int64_t total_;
  bool quiet_, tty_;
  std::atomic<int64_t> done_{0};
  std::atomic<int64_t> next_report_{0};
  std::mutex print_mutex_;
  bool finished_ = false;
  std::chrono::steady_clock::time_point start_;
};

} // namespace dxgen
