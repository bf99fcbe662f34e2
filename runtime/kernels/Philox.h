// Philox-4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
// 3", SC'11): a counter-based generator. Output = bijection(counter, key), so
// element i of any stream can be computed directly, on any rank, in any order.
//
// DeepEx's layout: key = the 64-bit seed; element i of the stream keyed by
// (seed, step, rank, stream) is lane i % 4 of the block with counter
//   {i / 4, step, stream, rank}   (32 bits each)
// Reserved keys of the runtime:
//   step 0, rank 0, stream p          parameter p's initialisation
//   step = epoch, rank kRuntimeRank   data-order shuffle (stream 1)
//   step = split, rank kRuntimeRank   synthetic data (streams 2, 3; split 0 train, 1 test)
// Generated code uses steps >= 1 (the global step) and its own op streams.
//
// The generator itself (philox4x32_10_words, RngKey::words, to_uniform,
// box_muller) is also device code when nvcc compiles this header
// (runtime/cuda/RandomKernels.cu), so that the device draws exactly the CPU's
// bits: it uses no std::array and no std:: math there.
#pragma once

#include <array>
#include <cstdint>
#include <math.h>

#ifdef __CUDACC__
#define DXRT_HOST_DEVICE __host__ __device__
#else
#define DXRT_HOST_DEVICE
#endif

namespace dxrt {

using PhiloxBlock = std::array<uint32_t, 4>;

// The ten rounds on the counter c, in place, under the key (k0, k1).
DXRT_HOST_DEVICE inline void philox4x32_10_words(uint32_t c[4], uint32_t k0, uint32_t k1) {
  constexpr uint32_t M0 = 0xD2511F53u, M1 = 0xCD9E8D57u, W0 = 0x9E3779B9u, W1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    uint64_t p0 = uint64_t(M0) * c[0], p1 = uint64_t(M1) * c[2];
    uint32_t c0 = uint32_t(p1 >> 32) ^ c[1] ^ k0, c2 = uint32_t(p0 >> 32) ^ c[3] ^ k1;
    c[0] = c0;
    c[1] = uint32_t(p1);
    c[2] = c2;
    c[3] = uint32_t(p0);
    k0 += W0;
    k1 += W1;
  }
}

inline PhiloxBlock philox4x32_10(PhiloxBlock ctr, std::array<uint32_t, 2> key) {
  philox4x32_10_words(ctr.data(), key[0], key[1]);
  return ctr;
}

// The rank field of runtime-owned streams that must agree on every rank.
constexpr uint32_t kRuntimeRank = 0xFFFFFFFFu;
// Runtime streams (rank = kRuntimeRank).
constexpr uint32_t kStreamShuffle = 1, kStreamSyntheticX = 2, kStreamSyntheticY = 3;
// Image augmentation draws (data/Augment.h): step = epoch, keyed by sample index.
constexpr uint32_t kStreamAugment = 4;

struct RngKey {
  uint64_t seed;
  uint32_t step, rank, stream;
  // Block `index` of the stream, into w.
  DXRT_HOST_DEVICE void words(uint64_t index, uint32_t w[4]) const {
    w[0] = uint32_t(index);
    w[1] = step;
    w[2] = stream;
    w[3] = rank;
    philox4x32_10_words(w, uint32_t(seed), uint32_t(seed >> 32));
  }
  PhiloxBlock block(uint64_t index) const {
    PhiloxBlock b;
    words(index, b.data());
    return b;
  }
};

// 24 random bits -> a float uniform in [0, 1) (exact: a 24-bit integer times 2^-24).
DXRT_HOST_DEVICE inline float to_uniform(uint32_t x) { return float(x >> 8) * (1.0f / 16777216.0f); }

// Box-Muller in double on two words (lanes 0 and 1, or 2 and 3, of a
// block): two standard normals, which the caller rounds to float. ::log,
// ::sqrt, ::cos, ::sin are glibc's on the host and CUDA's libdevice on the
// device; sqrt is correctly rounded on both, log/cos/sin may differ in the
// last bit of the double (CUDA: log 1 ulp, cos/sin 2 ulp), which survives
// the rounding to float only rarely (see runtime/cuda/RandomKernels.cu).
// No product here feeds an addition, so nothing can be fused into an FMA.
DXRT_HOST_DEVICE inline void box_muller(uint32_t a, uint32_t b, double &z0, double &z1) {
  constexpr double two_pi = 6.283185307179586, inv32 = 1.0 / 4294967296.0;
  double u1 = (double(a) + 1.0) * inv32; // (0, 1]: log is finite
  double theta = two_pi * double(b) * inv32;
  double r = ::sqrt(-2.0 * ::log(u1));
  z0 = r * ::cos(theta);
  z1 = r * ::sin(theta);
}

// Elements [first, first + n) of the stream, as uniforms in [0, 1) or as
// standard normals (Box-Muller on lanes (0, 1) and (2, 3) of each block).
void fill_uniform(const RngKey &key, uint64_t first, int64_t n, float *out);
void fill_normal(const RngKey &key, uint64_t first, int64_t n, float *out);
// A 64-bit random integer: element i of the stream (lanes 0-1 or 2-3 of a block).
uint64_t random_u64(const RngKey &key, uint64_t i);

} // namespace dxrt
