// See DeviceKernels.h: the conversions around bf16 matrix products. The
// rounding is kernels/Bf16Round.h's, the function the CPU's scalar path runs
// and runtime/test/bf16_test.cpp checks against VCVTNEPS2BF16, so a GPU's
// bf16 operand has the bits a CPU's has. One thread per element,
// grid-stride loops (Grid.h).
#include "DeviceKernels.h"
#include "Grid.h"
#include "kernels/Bf16Round.h"

#include <cuda_runtime.h>

namespace dxrt::cuda {

namespace {

__global__ void to_bf16_kernel(const float *src, uint16_t *dst, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    dst[i] = round_bf16_bits(src[i]);
}

__global__ void from_bf16_kernel(const uint16_t *src, float *dst, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    dst[i] = bf16_bits_to_float(src[i]);
}

__global__ void round_to_bf16_kernel(const float *src, float *dst, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    dst[i] = bf16_bits_to_float(round_bf16_bits(src[i]));
}

} // namespace

int to_bf16(const float *src, uint16_t *dst, int64_t n, CUstream_st *stream) {
  if (n == 0) return 0;
  to_bf16_kernel<<<blocks_for(n), kThreads, 0, stream>>>(src, dst, n);
  return int(cudaGetLastError());
}

int from_bf16(const uint16_t *src, float *dst, int64_t n, CUstream_st *stream) {
  if (n == 0) return 0;
  from_bf16_kernel<<<blocks_for(n), kThreads, 0, stream>>>(src, dst, n);
  return int(cudaGetLastError());
}


int round_to_bf16(const float *src, float *dst, int64_t n, CUstream_st *stream) {
  if (n == 0) return 0;
  round_to_bf16_kernel<<<blocks_for(n), kThreads, 0, stream>>>(src, dst, n);
  return int(cudaGetLastError());
}

} // namespace dxrt::cuda
