#include "common/Progress.h"

#include <cstdio>
#include <unistd.h>

namespace dxgen {

Progress::Progress(std::string what, int64_t total, bool quiet)
    : what_(std::move(what)), total_(total > 0 ? total : 1), quiet_(quiet), tty_(isatty(2) != 0),
      start_(std::chrono::steady_clock::now()) {
  next_report_ = tty_ ? 1 : (total_ + 9) / 10;
}

Progress::~Progress() {
  if (!finished_ && done_.load() >= total_) finish();
}

void Progress::add(int64_t n) {
  const int64_t done = done_.fetch_add(n) + n;
  int64_t next = next_report_.load();
  // The final line is finish()'s.
  if (quiet_ || done < next || done >= total_) return;
  // Whoever moves the threshold prints; the others go on.
  const int64_t step = tty_ ? (total_ + 199) / 200 : (total_ + 9) / 10;
  if (next_report_.compare_exchange_strong(next, done + step)) print(done, false);
}

void Progress::finish() {
  if (finished_) return;
  finished_ = true;
  if (!quiet_) print(done_.load(), true);
}

void Progress::print(int64_t done, bool final) {
  std::lock_guard<std::mutex> lock(print_mutex_);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double frac = done > total_ ? 1.0 : double(done) / double(total_);
  if (tty_) {
    const int width = 30, filled = int(frac * width + 0.5);
    std::string bar(size_t(filled), '#');
    bar.append(size_t(width - filled), '.');
    std::fprintf(stderr, "\r%s [%s] %3.0f%% %.1f s%s", what_.c_str(), bar.c_str(), 100 * frac, s, final ? "\n" : "");
  } else {
    std::fprintf(stderr, "%s: %3.0f%% (%lld of %lld) %.1f s\n", what_.c_str(), 100 * frac, (long long)done,
                 (long long)total_, s);
  }
  std::fflush(stderr);
}

} // namespace dxgen
