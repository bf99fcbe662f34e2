// The memory a model trains in: the parameter, gradient, buffer and optimizer
// state arenas of docs/abi.md, plus the batch and output staging buffers.
// Everything is allocated once, before the first step, 64-byte aligned.
#pragma once

#include "model/Metadata.h"

#include <cstdint>
#include <cstdlib>
#include <new>
#include <vector>

namespace dxrt {

template <typename T> struct Aligned64 {
  using value_type = T;
  Aligned64() = default;
  template <typename U> Aligned64(const Aligned64<U> &) {}
  T *allocate(size_t n) {
    size_t bytes = (n * sizeof(T) + 63) / 64 * 64;
    void *p = std::aligned_alloc(64, bytes ? bytes : 64);
    if (!p) throw std::bad_alloc();
    return static_cast<T *>(p);
  }
  void deallocate(T *p, size_t) { std::free(p); }
  template <typename U> bool operator==(const Aligned64<U> &) const { return true; }
};

using Floats = std::vector<float, Aligned64<float>>;
using Labels = std::vector<int64_t, Aligned64<int64_t>>;

// Floats after the gradients that ride along in their all-reduce: the
// step's loss and the ranks' signal flags (train/ModelSync.h).
constexpr int64_t kGradSide = 3;

struct Arenas {
  // grads holds params.size() gradients, then kGradSide side values.
  Floats params, grads, buffers, new_buffers, state;
  Floats x, outputs; // one batch of inputs, one batch of every output (output k after outputs 0..k-1)
  Labels labels;     // one batch of class labels (label_elems per sample)
  Floats targets;    // one batch of continuous targets (target_floats per sample; empty without)
  int64_t max_batch; // samples the batch buffers hold

  // Sizes every arena from the metadata for batches of up to max_batch samples.
  Arenas(const Metadata &meta, int64_t max_batch);
  int64_t bytes() const;
};

// Fills an arena as its entries' `init` says (uniform_fan_in, zeros, ones),
// deterministically from the seed: entry i draws from Philox stream
// stream_base + i at step 0, rank 0. Throws dxrt::Error on an unknown init.
void init_arena(const std::vector<ArenaEntry> &entries, float *arena, uint64_t seed, uint32_t stream_base);

// Stream bases: parameters use streams 0.., buffers kBufferStreams + i.
constexpr uint32_t kBufferStreams = 1u << 24;

} // namespace dxrt
