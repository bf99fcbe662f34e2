// The launch shape of libdxrt_cuda's own kernels (the .cu files): 256
// threads a block, the grid capped at 65535 blocks; the kernels walk their
// elements with grid-stride loops, so that any size launches.
#pragma once

#include <cstdint>

namespace dxrt::cuda {

constexpr int kThreads = 256;

inline unsigned blocks_for(int64_t n) {
  int64_t b = (n + kThreads - 1) / kThreads;
  return unsigned(b < 65535 ? (b < 1 ? 1 : b) : 65535);
}

} // namespace dxrt::cuda

