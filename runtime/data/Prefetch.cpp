#include "data/Prefetch.h"

#include "common/Check.h"
#include "data/ImageFolder.h"

#include <csignal>
#include <pthread.h>

namespace dxrt {

Prefetcher::Prefetcher(const Split &split, int threads, size_t x_floats) : split_(split), back_(x_floats) {
  DXRT_CHECK(split.decoded(), str("the ", split.name, " split has no images to decode"), "");
  DXRT_CHECK(threads >= 1, str("--data-threads must be at least 1, not ", threads), "");
  index_.reserve(x_floats / size_t(std::max<int64_t>(split.sample_floats, 1)));
  for (int t = 0; t < threads; ++t) threads_.emplace_back([this] { work(); });
}

Prefetcher::~Prefetcher() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    quit_ = true;
    cancel_ = true; // a sample being decoded finishes; the rest of its batch is skipped
  }
  work_cv_.notify_all();
  for (std::thread &t : threads_) t.join();
}

void Prefetcher::work() {
  // Signals are for the training thread: the handlers only set flags, but a
  // decode thread has no business receiving them.
  sigset_t mask;
  sigemptyset(&mask);
  for (int s : {SIGTERM, SIGUSR1, SIGINT}) sigaddset(&mask, s);
  pthread_sigmask(SIG_BLOCK, &mask, nullptr);
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      work_cv_.wait(lock, [&] { return quit_ || generation_ != seen; });
      if (quit_) return;
      seen = generation_;
    }
    const int64_t n = int64_t(index_.size()), f = split_.sample_floats;
    const AugmentKey *key = key_ ? &*key_ : nullptr;
    for (int64_t t; !cancel_ && (t = next_++) < n;) {
      try {
        image_sample(*split_.images, index_[size_t(t)], key, back_.data() + t * f);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu_);
        if (!error_) error_ = std::current_exception();
        cancel_ = true;
      }
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (--busy_ == 0) done_cv_.notify_all();
  }
}

void Prefetcher::start(const BatchRequest &r) {
  DXRT_CHECK(size_t((r.hi - r.lo) * split_.sample_floats) <= back_.size(),
             str("a batch of ", r.hi - r.lo, " samples does not fit the input buffer"), "");
  {
    std::lock_guard<std::mutex> lock(mu_);
    index_.clear();
    for (int64_t i = r.lo; i < r.hi; ++i) index_.push_back(r.order ? (*r.order)[size_t(i)] : i);
    key_ = r.key;
    lo_ = r.lo;
    next_ = 0;
    cancel_ = false;
    error_ = nullptr;
    busy_ = int(threads_.size());
    ++generation_;
    in_flight_ = true;
  }
  work_cv_.notify_all();
}

void Prefetcher::wait() {
  std::unique_lock<std::mutex> lock(mu_);
  done_cv_.wait(lock, [&] { return busy_ == 0; });
  in_flight_ = false;
  if (std::exception_ptr e = std::exchange(error_, nullptr)) std::rethrow_exception(e);
}

bool Prefetcher::pending_is(const BatchRequest &r) const {
  if (!in_flight_ || key_ != r.key || lo_ != r.lo || int64_t(index_.size()) != r.hi - r.lo) return false;
  for (int64_t i = r.lo; i < r.hi; ++i)
    if (index_[size_t(i - r.lo)] != (r.order ? (*r.order)[size_t(i)] : i)) return false;
  return true;
}

void Prefetcher::request(const BatchRequest &r) {
  if (in_flight_) {
    cancel_ = true;
    try {
      wait();
    } catch (const std::exception &) {
      // The dropped batch's error does not matter; r is decoded afresh.
    }
  }
  start(r);
}

void Prefetcher::take(const BatchRequest &r, Floats &x, int64_t *y) {
  DXRT_CHECK(x.size() == back_.size(), "the prefetch buffer does not match the arena's input buffer", "");
  if (!pending_is(r)) request(r);
  wait();
  std::swap(x, back_);
  if (y && split_.has_labels)
    for (int64_t i = r.lo; i < r.hi; ++i) y[i - r.lo] = split_.y[size_t(index_[size_t(i - r.lo)])];
}

} // namespace dxrt
