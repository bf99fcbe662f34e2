// The order in which samples are visited, and which of them each rank takes.
//
// Every epoch visits a permutation of the training set keyed by (seed, epoch)
// alone, so every rank computes the same one. The permutation is cut into
// global batches of per_rank * accumulate * world samples (the last one may
// be smaller), and each global batch into world * accumulate nearly equal
// contiguous slices: slice r * accumulate + m is micro-batch m of rank r.
// So -np 2 with batch 32 and -np 1 with batch 64 see the same global batches
// in the same order, and -np 1 with batch 32 and accumulate 2 even sees the
// same slices as -np 2 with batch 32.
#pragma once

#include "data/Dataset.h"

#include <cstdint>
#include <vector>

namespace dxrt {

// A permutation of [0, n), the same on every rank for a given (seed, epoch).
std::vector<int64_t> epoch_order(int64_t n, uint64_t seed, int64_t epoch);

struct BatchPlan {
  int64_t n = 0, per_rank = 1, world = 1, rank = 0, accumulate = 1;
  int64_t global_batch() const { return per_rank * accumulate * world; }
  int64_t steps() const { return (n + global_batch() - 1) / global_batch(); }
  // Positions [lo, hi) in the epoch's order of this rank's micro-batch m of
  // step s (0-based step within the epoch).
  void shard(int64_t s, int64_t m, int64_t *lo, int64_t *hi) const;
  void shard(int64_t s, int64_t *lo, int64_t *hi) const { shard(s, 0, lo, hi); }
  // The size of the global batch of step s.
  int64_t global_size(int64_t s) const;
};

// Copies samples order[lo..hi) of the split into x (their labels into y
// when the split has labels and y is not null, label_elems per sample; their
// targets into t when it has targets and t is not null). A mapped split's samples are
// converted and normalised here, touching only their pages of the file;
// throws dxrt::Error for a non-finite input. An image split's samples are
// decoded here (on this thread; the trainer prefetches them on a pool, see
// data/Prefetch.h) with the training transform, its random crops and flips
// drawn for (key, sample index). Allocates nothing (image splits: once
// their per-thread buffers have grown).
void gather(const Split &split, const std::vector<int64_t> &order, int64_t lo, int64_t hi, float *x, int64_t *y,
            float *t, const AugmentKey &key);
// The same for samples lo..hi in file order, for evaluation: image splits
// use the evaluation transform (no random draws).
void gather_range(const Split &split, int64_t lo, int64_t hi, float *x, int64_t *y, float *t);

} // namespace dxrt
