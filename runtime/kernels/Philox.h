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
#pragma once

#include <array>
#include <cstdint>

namespace dxrt {

using PhiloxBlock = std::array<uint32_t, 4>;

inline PhiloxBlock philox4x32_10(PhiloxBlock ctr, std::array<uint32_t, 2> key) {
  constexpr uint32_t M0 = 0xD2511F53u, M1 = 0xCD9E8D57u, W0 = 0x9E3779B9u, W1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    uint64_t p0 = uint64_t(M0) * ctr[0], p1 = uint64_t(M1) * ctr[2];
    ctr = {uint32_t(p1 >> 32) ^ ctr[1] ^ key[0], uint32_t(p1), uint32_t(p0 >> 32) ^ ctr[3] ^ key[1], uint32_t(p0)};
    key[0] += W0;
    key[1] += W1;
  }
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
  PhiloxBlock block(uint64_t index) const {
    return philox4x32_10({uint32_t(index), step, stream, rank}, {uint32_t(seed), uint32_t(seed >> 32)});
  }
};

// 24 random bits -> a float uniform in [0, 1).
inline float to_uniform(uint32_t x) { return float(x >> 8) * (1.0f / 16777216.0f); }

// Elements [first, first + n) of the stream, as uniforms in [0, 1) or as
// standard normals (Box-Muller on lanes (0, 1) and (2, 3) of each block).
void fill_uniform(const RngKey &key, uint64_t first, int64_t n, float *out);
void fill_normal(const RngKey &key, uint64_t first, int64_t n, float *out);
// A 64-bit random integer: element i of the stream (lanes 0-1 or 2-3 of a block).
uint64_t random_u64(const RngKey &key, uint64_t i);

} // namespace dxrt
