// Scratch memory for kernels (im2col columns). It grows on first use and is
// then reused, so a training step allocates nothing after the first one.
#pragma once

#include <cstddef>
#include <vector>

namespace dxrt {

// A per-thread buffer of at least n floats; `slot` tells apart buffers a
// kernel needs at the same time.
inline float *workspace(size_t n, int slot = 0) {
  thread_local std::vector<float> buffers[2];
  std::vector<float> &b = buffers[slot];
  if (b.size() < n) b.resize(n);
  return b.data();
}

} // namespace dxrt
