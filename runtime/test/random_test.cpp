// Philox-4x32-10: the published known answers, determinism, the layout of
// streams, and the distributions.
#include "dxrt/kernels.h"
#include "kernels/Philox.h"

#include <gtest/gtest.h>
#include <cmath>
#include <vector>

using namespace dxrt;

namespace {

dxrt_memref1 m1(std::vector<float> &v) { return {v.data(), v.data(), 0, {int64_t(v.size())}, {1}}; }

void uniform(std::vector<float> &v, int64_t seed, int64_t step, int64_t rank, int64_t stream) {
  dxrt_memref1 d = m1(v);
  _mlir_ciface_dxrt_random_uniform(&d, seed, step, rank, stream);
}

void normal(std::vector<float> &v, int64_t seed, int64_t step, int64_t rank, int64_t stream) {
  dxrt_memref1 d = m1(v);
  _mlir_ciface_dxrt_random_normal(&d, seed, step, rank, stream);
}

} // namespace

TEST(Philox, Random123KnownAnswers) {
  EXPECT_EQ(philox4x32_10({0, 0, 0, 0}, {0, 0}), (PhiloxBlock{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}),
            (PhiloxBlock{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}),
            (PhiloxBlock{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(Philox, SameKeySameNumbers) {
  std::vector<float> a(1001), b(1001);
  uniform(a, 7, 3, 1, 5);
  uniform(b, 7, 3, 1, 5);
  EXPECT_EQ(a, b);
  normal(a, 7, 3, 1, 5);
  normal(b, 7, 3, 1, 5);
  EXPECT_EQ(a, b);
}

TEST(Philox, EveryKeyFieldChangesTheStream) {
  std::vector<float> base(64), other(64);
  uniform(base, 1, 2, 3, 4);
  const int64_t keys[4][4] = {{9, 2, 3, 4}, {1, 9, 3, 4}, {1, 2, 9, 4}, {1, 2, 3, 9}};
  for (auto &k : keys) {
    uniform(other, k[0], k[1], k[2], k[3]);
    EXPECT_NE(base, other);
  }
}

TEST(Philox, HonoursTheDescriptorOffset) {
  std::vector<float> whole(10), part(13, -1.0f);
  uniform(whole, 3, 1, 0, 9);
  dxrt_memref1 d = {part.data(), part.data(), 3, {10}, {1}};
  _mlir_ciface_dxrt_random_uniform(&d, 3, 1, 0, 9);
  EXPECT_EQ(part[2], -1.0f);
  EXPECT_EQ(std::vector<float>(part.begin() + 3, part.end()), whole);
}

TEST(PhiloxDeathTest, StridedOutputAbortsNamingTheKernel) {
  std::vector<float> v(10);
  dxrt_memref1 d = {v.data(), v.data(), 0, {5}, {2}};
  EXPECT_DEATH(_mlir_ciface_dxrt_random_normal(&d, 1, 1, 0, 0), "dxrt_random_normal: argument 'out' is not contiguous");
}

TEST(Philox, ElementIDependsOnlyOnI) {
  // A prefix of a longer fill equals a shorter fill, and a fill from an
  // offset equals the tail: element i is the same however it is computed.
  std::vector<float> longer(103), shorter(37), tail(50);
  RngKey key{11, 4, 0, 2};
  fill_normal(key, 0, 103, longer.data());
  fill_normal(key, 0, 37, shorter.data());
  fill_normal(key, 53, 50, tail.data());
  for (int i = 0; i < 37; ++i) EXPECT_EQ(longer[size_t(i)], shorter[size_t(i)]);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(longer[size_t(53 + i)], tail[size_t(i)]);
}

TEST(Philox, UniformsLieInTheUnitIntervalWithTheRightMoments) {
  const int64_t n = 200000;
  std::vector<float> u(static_cast<size_t>(n));
  uniform(u, 1, 1, 0, 0);
  double s = 0, s2 = 0;
  for (float v : u) {
    ASSERT_GE(v, 0.0f);
    ASSERT_LT(v, 1.0f);
    s += v;
    s2 += double(v) * v;
  }
  EXPECT_NEAR(s / n, 0.5, 0.005);
  EXPECT_NEAR(s2 / n - (s / n) * (s / n), 1.0 / 12, 0.002);
}

TEST(Philox, NormalsHaveZeroMeanAndUnitVariance) {
  const int64_t n = 200000;
  std::vector<float> z(static_cast<size_t>(n));
  normal(z, 2, 1, 0, 0);
  double s = 0, s2 = 0, s4 = 0;
  for (float v : z) {
    ASSERT_TRUE(std::isfinite(v));
    s += v;
    s2 += double(v) * v;
    s4 += double(v) * v * v * v;
  }
  EXPECT_NEAR(s / n, 0.0, 0.01);
  EXPECT_NEAR(s2 / n, 1.0, 0.02);
  EXPECT_NEAR(s4 / n, 3.0, 0.1); // kurtosis of a Gaussian
}
