// See DeviceKernels.h: Philox random fills, one thread per block of four
// elements (one Philox evaluation each), grid-stride loops (Grid.h). The
// generator, the uniform map and Box-Muller are Philox.h's own functions,
// compiled for the device, so that element i is the CPU's element i:
//
// - uniform: bit for bit (integer Philox, then a 24-bit integer times 2^-24,
//   exact on both sides).
// - normal: the same double-precision Box-Muller, rounded to float. sqrt and
//   the products are correctly rounded on both sides and nothing is fused
//   (no product feeds an addition); log, cos and sin are CUDA's (log within
//   1 ulp, cos/sin within 2 ulp of the double result) against glibc's
//   (within 1 ulp), so the doubles can differ in their last bits. That
//   changes the float only when the double lies within a few double ulps of
//   a float rounding boundary (about one element in 10^8): the floats are
//   equal or one float ulp apart. The GPU test allows 2 float ulps.
#include "DeviceKernels.h"
#include "Grid.h"

#include <cuda_runtime.h>

namespace dxrt::cuda {

namespace {

__global__ void uniform_kernel(RngKey key, float *out, int64_t n) {
  const int64_t blocks = (n + 3) / 4;
  for (int64_t q = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; q < blocks; q += int64_t(gridDim.x) * blockDim.x) {
    uint32_t w[4];
    key.words(uint64_t(q), w);
    for (int64_t lane = 0, i = 4 * q; lane < 4 && i < n; ++lane, ++i) out[i] = to_uniform(w[lane]);
  }
}

__global__ void normal_kernel(RngKey key, float *out, int64_t n) {
  const int64_t blocks = (n + 3) / 4;
  for (int64_t q = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; q < blocks; q += int64_t(gridDim.x) * blockDim.x) {
    uint32_t w[4];
    key.words(uint64_t(q), w);
    double z[4];
    box_muller(w[0], w[1], z[0], z[1]);
    box_muller(w[2], w[3], z[2], z[3]);
    for (int64_t lane = 0, i = 4 * q; lane < 4 && i < n; ++lane, ++i) out[i] = float(z[lane]);
  }
}

} // namespace

int random_uniform(const RngKey &key, float *out, int64_t n, CUstream_st *stream) {
  if (n == 0) return 0;
  uniform_kernel<<<blocks_for((n + 3) / 4), kThreads, 0, stream>>>(key, out, n);
  return int(cudaGetLastError());
}

int random_normal(const RngKey &key, float *out, int64_t n, CUstream_st *stream) {
  if (n == 0) return 0;
  normal_kernel<<<blocks_for((n + 3) / 4), kThreads, 0, stream>>>(key, out, n);
  return int(cudaGetLastError());
}

} // namespace dxrt::cuda
