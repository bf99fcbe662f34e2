// How the ranks keep one model.
//
//   allreduce     every step, each rank scales its gradient (the mean over
//                 its b_r samples) by b_r / B, B the global batch, and the
//                 ranks sum: the result is the gradient of the mean loss over
//                 the global batch, as one process with batch B would compute
//                 it. The sum runs in place, in buckets of a few MiB, so MPI
//                 pipelines large models without a second copy, and (on
//                 the CPU) while the backward pass computes the rest. Batchnorm's
//                 new running statistics are averaged the same way.
//   average:K     local SGD: each rank updates on its own gradient, and every
//                 K steps (and before each evaluation) the ranks average their
//                 parameters and buffers.
//
// A world of one does no communication in either mode.
#pragma once

#include "comm/World.h"

#include <cstdint>
#include <string>

namespace dxrt {

struct SyncSpec {
  std::string mode = "allreduce"; // allreduce or average
  int64_t every = 0;              // K of average:K
  std::string str() const;        // "allreduce", "average every 8 steps"
};

// Parses "allreduce", "average:8" or "average every 8"; throws dxrt::Error.
SyncSpec parse_sync(const std::string &text);

class ModelSync {
public:
  ModelSync(World &world, SyncSpec spec, int64_t bucket_bytes);
  const SyncSpec &spec() const { return spec_; }
  bool averaging() const { return spec_.mode == "average"; }

  // A step's gradients: grads[0, n) <- sum over ranks of weight * grads, in
  // buckets taken from the end of the arena (the last layers' gradients are
  // final first), each an in-place MPI_Iallreduce; then side[0, n_side)
  // (the loss, signal flags) summed unscaled. begin_gradients before the
  // step arms dxrt_grads_ready with `overlap`: the generated step then calls
  // grads_ready(first) whenever grads[first, n) are final, which starts
  // every bucket inside that range, so the sums run while the backward
  // pass computes the rest. finish_gradients after the step starts the
  // buckets still waiting and waits for all. Without overlap, or without a
  // begin_gradients (reduce_gradients), the same buckets are started in
  // the same order after the step: the same sums, bit for bit.
  void begin_gradients(float *grads, int64_t n, float weight, bool overlap);
  void grads_ready(int64_t first);
  void finish_gradients(float *side, int64_t n_side);
  void reduce_gradients(float *grads, int64_t n, float weight, float *side, int64_t n_side);
  // x <- sum over ranks of weight * x (a weighted mean when the weights sum to 1).
  void weighted_sum(float *x, int64_t n, float weight);
  // x <- the mean of x over the ranks.
  void average(float *x, int64_t n);

  // Seconds spent in collectives since the last take_comm_time(); a device
  // backend that runs its own collectives (NCCL) adds its time here.
  double take_comm_time();
  void add_comm_time(double s) { comm_s_ += s, wait_s_ += s; }
  // Seconds the steps waited for collectives after their own work (the
  // part of take_comm_time that the backward pass did not hide).
  double take_wait_time();
  // Seconds, summed over the steps since the last take_overlap_window(),
  // from the first bucket started by grads_ready to finish_gradients: the
  // backward pass's time left after its last layers' gradients were final,
  // in which the all-reduce could hide (0 for a step that started no bucket
  // before finish_gradients: --overlap off, reduce_gradients, one rank).
  double take_overlap_window();
  int64_t buckets(int64_t n) const;
  // The buckets of n floats with --bucket-mb's bytes, as buckets(n) counts them.
  static int64_t bucket_count(int64_t n, int64_t bucket_bytes);
  int64_t bucket_floats() const { return bucket_floats_; }

private:
  struct Buckets {
    int64_t k = 1, per = 1; // k buckets of per floats (the last may be shorter)
  };
  Buckets partition(int64_t n) const;
  void reduce_in_buckets(float *x, int64_t n);
  void start_bucket();
  World &world_;
  SyncSpec spec_;
  int64_t bucket_floats_;
  double comm_s_ = 0, wait_s_ = 0, window_s_ = 0;
  // The step's gradients while they are reduced.
  float *grads_ = nullptr;
  int64_t n_ = 0, next_ = -1; // next_: the next bucket to start, from k - 1 down
  float weight_ = 1;
  Buckets buckets_;
  double started_at_ = -1;
};

} // namespace dxrt
