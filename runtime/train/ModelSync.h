// How the ranks keep one model.
//
//   allreduce     every step, each rank scales its gradient (the mean over
//                 its b_r samples) by b_r / B, B the global batch, and the
//                 ranks sum: the result is the gradient of the mean loss over
//                 the global batch, as one process with batch B would compute
//                 it. The sum runs in place, in buckets of a few MiB, so MPI
//                 pipelines large models without a second copy. Batchnorm's
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

  // grads[0, n) <- sum over ranks of weight * grads; the n_side values after
  // them (Arenas puts them there) are summed along with the last bucket,
  // unscaled, so per-step scalars (the loss, signal flags) need no
  // collective of their own.
  void reduce_gradients(float *grads, int64_t n, float weight, int64_t n_side);
  // x <- sum over ranks of weight * x (a weighted mean when the weights sum to 1).
  void weighted_sum(float *x, int64_t n, float weight);
  // x <- the mean of x over the ranks.
  void average(float *x, int64_t n);

  // Seconds spent in collectives since the last take_comm_time(); a device
  // backend that runs its own collectives (NCCL) adds its time here.
  double take_comm_time();
  void add_comm_time(double s) { comm_s_ += s; }
  int64_t buckets(int64_t n) const;
  int64_t bucket_floats() const { return bucket_floats_; }

private:
  void reduce_in_buckets(float *x, int64_t n);
  World &world_;
  SyncSpec spec_;
  int64_t bucket_floats_;
  double comm_s_ = 0;
};

} // namespace dxrt
