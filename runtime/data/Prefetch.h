// Decoding an image split's batches on a small pool of threads, one batch
// ahead of the step that trains on it (double buffering): while step k
// computes on the batch in the arena, the pool decodes the batch of step k+1
// into a second buffer of the same size; taking it swaps the two buffers.
// Nothing is allocated per batch.
//
// The pool's threads only decode images: they never call BLAS or oneDNN, so
// they start no OpenBLAS or OpenMP threads of their own. A batch's samples are
// exactly what gather() would give (the draws depend on (seed, epoch, sample)
// only), whichever thread decodes them.
//
// Errors (a corrupt file) are rethrown by take(); the destructor cancels the
// batch in flight and joins the threads, so an exception or a stop signal in
// the trainer never leaves them running.
#pragma once

#include "data/Dataset.h"
#include "model/Arenas.h"

#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace dxrt {

// Samples order[lo..hi) of a split (file order when order is null); with a
// key, the training transform drawn for it, else the evaluation transform.
struct BatchRequest {
  const std::vector<int64_t> *order = nullptr;
  int64_t lo = 0, hi = 0;
  std::optional<AugmentKey> key;
};

class Prefetcher {
public:
  // x_floats: the size of the arena's input buffer the batches swap with.
  Prefetcher(const Split &split, int threads, size_t x_floats);
  ~Prefetcher();
  Prefetcher(const Prefetcher &) = delete;
  Prefetcher &operator=(const Prefetcher &) = delete;

  // Starts decoding r into the back buffer and returns at once. A request not
  // taken yet is dropped.
  void request(const BatchRequest &r);
  // Leaves batch r in x (swapping it with the back buffer) and its labels in
  // y (when not null): the requested batch if it is r, waiting for it; else r
  // decoded now on the pool. Throws the first error of its samples.
  void take(const BatchRequest &r, Floats &x, int64_t *y);

private:
  void start(const BatchRequest &r);
  void wait(); // for the batch in flight; rethrows its error
  bool pending_is(const BatchRequest &r) const;
  void work();

  const Split &split_;
  Floats back_;
  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::condition_variable work_cv_, done_cv_;
  // The batch: its sample indices (copied, so the caller's order may go),
  // key, and progress. Written under mu_ before generation_ moves on.
  std::vector<int64_t> index_;
  std::optional<AugmentKey> key_;
  int64_t lo_ = 0;
  uint64_t generation_ = 0;
  int busy_ = 0; // threads still on this generation's batch
  bool quit_ = false, in_flight_ = false;
  std::atomic<int64_t> next_{0};
  std::atomic<bool> cancel_{false};
  std::exception_ptr error_;
};

} // namespace dxrt
