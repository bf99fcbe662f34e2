// The one rounding of fp32 to bf16 that every bf16 input of a matrix
// product goes through, on the CPU and on the GPU: VCVTNEPS2BF16's. Round
// to nearest, ties to even; a NaN stays a (quiet) NaN; a denormal flushes to
// a zero of its sign. The CPU's vector code (Precision.cpp) is that
// instruction; its scalar fallback and the CUDA conversion kernel
// (runtime/cuda/DeviceKernels.cu) are this function, so a bf16 operand has
// the same bits on both targets (runtime/test/bf16_test.cpp checks the
// function against the instruction).
#pragma once

#include <cstdint>
#include <cstring>

#ifdef __CUDACC__
#define DXRT_BF16_HOST_DEVICE __host__ __device__
#else
#define DXRT_BF16_HOST_DEVICE
#endif

namespace dxrt {

// The bits of a float and back: memcpy on the host, the intrinsics on the device.
DXRT_BF16_HOST_DEVICE inline uint32_t float_bits(float f) {
#ifdef __CUDA_ARCH__
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
#endif
}

DXRT_BF16_HOST_DEVICE inline float bits_float(uint32_t u) {
#ifdef __CUDA_ARCH__
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, 4);
  return f;
#endif
}

DXRT_BF16_HOST_DEVICE inline uint16_t round_bf16_bits(float f) {
  uint32_t u = float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40u); // NaN: quiet, sign and payload kept
  if ((u & 0x7f800000u) == 0) return uint16_t((u >> 16) & 0x8000u);        // zero or denormal: a signed zero
  u += 0x7fffu + ((u >> 16) & 1u);                                         // to nearest, ties to even
  return uint16_t(u >> 16);
}

DXRT_BF16_HOST_DEVICE inline float bf16_bits_to_float(uint16_t b) { return bits_float(uint32_t(b) << 16); }

} // namespace dxrt
