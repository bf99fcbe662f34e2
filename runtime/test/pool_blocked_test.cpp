// The dxrt_pool_*_blocked kernels (kernels/PoolBlocked.cpp) against the
// NCHW kernels (kernels/Pool.cpp) on the same data: max and average,
// forward and gradient, for windows that tile (2x2 stride 2, PyTorch's
// common case), overlap (3x3 stride 2 pad 1; stride 1), leave a row and a
// column out or gaps between them, or lie partly in the padding; on data
// with ties and NaNs.
// The _pre kernels (a per-channel map relu?(x * scale + shift) applied as
// they read x, for dxc's dx-fuse-pool-input) against the plain kernels on
// the mapped tensor, bit for bit, in every implementation.
// In nChw16c and nChw8c, every implementation (AVX-512 for nChw16c, AVX2,
// lane by lane) must give the NCHW kernels' values (a zero may differ in
// sign: the NCHW 2x2 loops store where these add to +0); and
// [N, C, H, W, 1] activations run the NCHW kernels.
#include "dxrt/kernels.h"
#include "kernels/BlockedLayout.h"
#include "kernels/Pool.h"

#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <random>
#include <string>
#include <vector>

namespace {

struct Geometry {
  const char *name;
  int64_t n, c, h, w, k, s, pt, pb, pl, pr;
  int64_t ho() const { return (h + pt + pb - k) / s + 1; }
  int64_t wo() const { return (w + pl + pr - k) / s + 1; }
};

const Geometry kGeometries[] = {
    {"tile2x2", 2, 32, 14, 14, 2, 2, 0, 0, 0, 0},      {"odd2x2", 2, 16, 7, 9, 2, 2, 0, 0, 0, 0},
    {"overlap3x3s2", 2, 32, 11, 12, 3, 2, 1, 1, 1, 1}, {"overlap3x3s1", 1, 16, 6, 7, 3, 1, 1, 1, 1, 1},
    {"asymmetric", 2, 16, 8, 8, 3, 2, 0, 1, 1, 0},     {"large4x4", 1, 48, 9, 9, 4, 3, 1, 1, 2, 2},
    {"gaps2x2s3", 1, 16, 9, 10, 2, 3, 0, 0, 0, 0},     {"padded2x2", 2, 16, 7, 7, 2, 2, 1, 0, 1, 0},
};

// Values from a few levels (ties in most windows), some NaNs, a -0.
std::vector<float> data(int64_t n, unsigned seed, bool nans) {
  std::mt19937 g(seed);
  std::uniform_int_distribution<int> level(-3, 3);
  std::vector<float> v(static_cast<size_t>(n));
  for (float &e : v) e = 0.5f * float(level(g));
  if (nans)
    for (size_t i = 7; i < v.size(); i += 97) v[i] = std::nanf("");
  if (v.size() > 3) v[3] = -0.0f;
  return v;
}

dxrt_memref4 m4(std::vector<float> &v, int64_t a, int64_t b, int64_t c, int64_t d) {
  return {v.data(), v.data(), 0, {a, b, c, d}, {b * c * d, c * d, d, 1}};
}
dxrt_memref5 m5(std::vector<float> &v, int64_t a, int64_t b, int64_t c, int64_t d, int64_t e) {
  return {v.data(), v.data(), 0, {a, b, c, d, e}, {b * c * d * e, c * d * e, d * e, e, 1}};
}

std::vector<float> blocked(const std::vector<float> &nchw, int64_t n, int64_t c, int64_t hw, int64_t block) {
  std::vector<float> out(nchw.size());
  dxrt::nchw_to_blocked(nchw.data(), out.data(), n, c, hw, block);
  return out;
}
std::vector<float> unblocked(const std::vector<float> &b, int64_t n, int64_t c, int64_t hw, int64_t block) {
  std::vector<float> out(b.size());
  dxrt::blocked_to_nchw(b.data(), out.data(), n, c, hw, block);
  return out;
}

// Equal values, NaN as NaN (a zero's sign may differ, see the top).
void expect_same(const std::vector<float> &got, const std::vector<float> &want, const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const bool ok = std::isnan(want[i]) ? std::isnan(got[i]) : got[i] == want[i];
    if (!ok && bad++ < 5) ADD_FAILURE() << what << " element " << i << ": " << got[i] << ", NCHW " << want[i];
  }
  EXPECT_EQ(bad, 0) << what;
}

// Whether pool_blocked_run must run the path for the block here.
bool cpu_has(const char *path, int64_t block) {
  if (std::string(path) == "avx512f") return block == 16 && __builtin_cpu_supports("avx512f");
  if (std::string(path) == "avx2") return __builtin_cpu_supports("avx2");
  return true;
}

class PoolBlocked : public ::testing::TestWithParam<std::tuple<Geometry, int64_t, bool, int64_t>> {};

TEST_P(PoolBlocked, EqualsTheNchwKernels) {
  const auto [g, kind, nans, block] = GetParam();
  const int64_t ho = g.ho(), wo = g.wo(), hw = g.h * g.w, ohw = ho * wo;
  std::vector<float> x = data(g.n * g.c * hw, 1, nans), dy = data(g.n * g.c * ohw, 2, nans);
  // The NCHW kernels: the reference.
  std::vector<float> y(size_t(g.n * g.c * ohw)), dx(x.size(), 99.0f);
  dxrt_memref4 xd = m4(x, g.n, g.c, g.h, g.w), yd = m4(y, g.n, g.c, ho, wo), dyd = m4(dy, g.n, g.c, ho, wo),
               dxd = m4(dx, g.n, g.c, g.h, g.w);
  _mlir_ciface_dxrt_pool_forward(&xd, &yd, kind, g.k, g.k, g.s, g.s, g.pt, g.pb, g.pl, g.pr);
  _mlir_ciface_dxrt_pool_grad(&dyd, &xd, &dxd, kind, g.k, g.k, g.s, g.s, g.pt, g.pb, g.pl, g.pr);

  // The entry points on blocked data.
  std::vector<float> xb = blocked(x, g.n, g.c, hw, block), dyb = blocked(dy, g.n, g.c, ohw, block);
  std::vector<float> yb(y.size(), 77.0f), dxb(x.size(), 77.0f);
  const int64_t cb = g.c / block;
  dxrt_memref5 xbd = m5(xb, g.n, cb, g.h, g.w, block), ybd = m5(yb, g.n, cb, ho, wo, block),
               dybd = m5(dyb, g.n, cb, ho, wo, block), dxbd = m5(dxb, g.n, cb, g.h, g.w, block);
  _mlir_ciface_dxrt_pool_forward_blocked(&xbd, &ybd, kind, g.k, g.k, g.s, g.s, g.pt, g.pb, g.pl, g.pr);
  _mlir_ciface_dxrt_pool_grad_blocked(&dybd, &xbd, &dxbd, kind, g.k, g.k, g.s, g.s, g.pt, g.pb, g.pl, g.pr);
  expect_same(unblocked(yb, g.n, g.c, ohw, block), y, "forward");
  expect_same(unblocked(dxb, g.n, g.c, hw, block), dx, "gradient");

  // Each implementation by name.
  dxrt::PoolGeometry pg{1, g.h, g.w, ho, wo, g.k, g.k, g.s, g.s, g.pt, g.pl};
  for (const char *path : {"avx512f", "avx2", "scalar"}) {
    std::vector<float> py(y.size(), 55.0f), pdx(x.size(), 55.0f);
    if (!dxrt::pool_blocked_run(path, block, false, kind, pg, g.n * cb, xb.data(), nullptr, py.data())) {
      EXPECT_STRNE(path, "scalar") << "the scalar path always runs";
      EXPECT_FALSE(cpu_has(path, block)) << path << " refused on a CPU that has it";
      continue;
    }
    EXPECT_TRUE(cpu_has(path, block)) << path << " ran on a CPU without it, or for a block it does not take";
    ASSERT_TRUE(dxrt::pool_blocked_run(path, block, true, kind, pg, g.n * cb, xb.data(), dyb.data(), pdx.data()));
    expect_same(unblocked(py, g.n, g.c, ohw, block), y, std::string(path) + " forward");
    expect_same(unblocked(pdx, g.n, g.c, hw, block), dx, std::string(path) + " gradient");
  }

  // [N, C, H, W, 1]: the NCHW kernels on the same memory.
  std::vector<float> y1(y.size(), 33.0f), dx1(x.size(), 33.0f);
  dxrt_memref5 x1 = m5(x, g.n, g.c, g.h, g.w, 1), y1d = m5(y1, g.n, g.c, ho, wo, 1), dy1 = m5(dy, g.n, g.c, ho, wo, 1),
               dx1d = m5(dx1, g.n, g.c, g.h, g.w, 1);
  _mlir_ciface_dxrt_pool_forward_blocked(&x1, &y1d, kind, g.k, g.k, g.s, g.s, g.pt, g.pb, g.pl, g.pr);
  _mlir_ciface_dxrt_pool_grad_blocked(&dy1, &x1, &dx1d, kind, g.k, g.k, g.s, g.s, g.pt, g.pb, g.pl, g.pr);
  expect_same(y1, y, "NCHW forward");
  expect_same(dx1, dx, "NCHW gradient");
}

INSTANTIATE_TEST_SUITE_P(Geometries, PoolBlocked,
                         ::testing::Combine(::testing::ValuesIn(kGeometries), ::testing::Values(0, 1),
                                            ::testing::Bool(), ::testing::Values(16, 8)),
                         [](const auto &i) {
                           return std::string(std::get<0>(i.param).name) +
                                  (std::get<1>(i.param) == 0 ? "_max" : "_avg") +
                                  (std::get<2>(i.param) ? "_nan" : "") + "_nchw" +
                                  std::to_string(std::get<3>(i.param)) + "c";
                         });

TEST(PoolBlockedDeathTest, MixedLayoutsAbortNamingTheKernel) {
  std::vector<float> x(2 * 16 * 4 * 4), y(2 * 16 * 2 * 2);
  dxrt_memref5 xb = m5(x, 2, 1, 4, 4, 16), y1 = m5(y, 2, 16, 2, 2, 1);
  EXPECT_DEATH(_mlir_ciface_dxrt_pool_forward_blocked(&xb, &y1, 0, 2, 2, 2, 2, 0, 0, 0, 0),
               "dxrt_pool_forward_blocked.*one layout, but x is in blocks of 16 channels and y of 1");
  dxrt_memref5 x8 = m5(x, 2, 2, 4, 4, 8), y16 = m5(y, 2, 1, 2, 2, 16);
  EXPECT_DEATH(_mlir_ciface_dxrt_pool_forward_blocked(&x8, &y16, 0, 2, 2, 2, 2, 0, 0, 0, 0),
               "dxrt_pool_forward_blocked.*x is in blocks of 8 channels and y of 16");
  dxrt_memref5 bad = m5(x, 2, 4, 4, 4, 4);
  EXPECT_DEATH(_mlir_ciface_dxrt_pool_forward_blocked(&bad, &y1, 0, 2, 2, 2, 2, 0, 0, 0, 0),
               "dxrt_pool_forward_blocked.*neither nChw16c, nChw8c nor NCHW");
}

// ---- dxrt_pool_*_blocked_pre ----

// The map the kernels apply, as the generated code computes it: the product
// rounded, then the sum; relu = maximumf(v, +0) (a NaN stays).
std::vector<float> mapped(const std::vector<float> &xb, int64_t block, int64_t cb, int64_t hw,
                          const std::vector<float> &scale, const std::vector<float> &shift, bool relu) {
  std::vector<float> out(xb.size());
  for (size_t i = 0; i < xb.size(); ++i) {
    const int64_t c = (int64_t(i) / (hw * block)) % cb * block + int64_t(i) % block;
    volatile float product = xb[i] * scale[size_t(c)];
    float v = product + shift[size_t(c)];
    if (relu && !std::isnan(v)) v = v > 0.0f ? v : 0.0f;
    out[i] = v;
  }
  return out;
}

// The same bits, any NaN for a NaN.
void expect_bits(const std::vector<float> &got, const std::vector<float> &want, const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    uint32_t a, b;
    std::memcpy(&a, &got[i], 4), std::memcpy(&b, &want[i], 4);
    const bool ok = std::isnan(want[i]) ? std::isnan(got[i]) : a == b;
    if (!ok && bad++ < 5) ADD_FAILURE() << what << " element " << i << ": " << got[i] << ", want " << want[i];
  }
  EXPECT_EQ(bad, 0) << what;
}

class PoolBlockedPre : public ::testing::TestWithParam<std::tuple<Geometry, int64_t, bool, int64_t, bool>> {};

TEST_P(PoolBlockedPre, EqualsThePlainKernelsOnTheMappedInput) {
  const auto [g, kind, nans, block, relu] = GetParam();
  const int64_t ho = g.ho(), wo = g.wo(), hw = g.h * g.w, ohw = ho * wo, cb = g.c / block;
  std::vector<float> xb = blocked(data(g.n * g.c * hw, 3, nans), g.n, g.c, hw, block);
  std::vector<float> dyb = blocked(data(g.n * g.c * ohw, 4, nans), g.n, g.c, ohw, block);
  // Negative, zero and fractional scales; shifts with a -0.
  std::vector<float> scale(size_t(g.c)), shift(size_t(g.c));
  for (int64_t c = 0; c < g.c; ++c) {
    scale[size_t(c)] = 0.375f * float(c % 7 - 3) + (c % 4 == 1 ? 0.1f : 0.0f);
    shift[size_t(c)] = c % 5 == 0 ? -0.0f : 0.25f * float(c % 9 - 4);
  }
  std::vector<float> m = mapped(xb, block, cb, hw, scale, shift, relu);
  // The plain kernels on the map's result: the reference.
  std::vector<float> y(size_t(g.n * g.c * ohw), 11.0f), dx(xb.size(), 11.0f);
  dxrt_memref5 md = m5(m, g.n, cb, g.h, g.w, block), yd = m5(y, g.n, cb, ho, wo, block),
               dyd = m5(dyb, g.n, cb, ho, wo, block), dxd = m5(dx, g.n, cb, g.h, g.w, block);
  _mlir_ciface_dxrt_pool_forward_blocked(&md, &yd, kind, g.k, g.k, g.s, g.s, g.pt, g.pb, g.pl, g.pr);
  _mlir_ciface_dxrt_pool_grad_blocked(&dyd, &md, &dxd, kind, g.k, g.k, g.s, g.s, g.pt, g.pb, g.pl, g.pr);

  // The entry points, scale and shift as [C/B, B].
  std::vector<float> py(y.size(), 77.0f), pdx(dx.size(), 77.0f);
  dxrt_memref5 xd = m5(xb, g.n, cb, g.h, g.w, block), pyd = m5(py, g.n, cb, ho, wo, block),
               pdxd = m5(pdx, g.n, cb, g.h, g.w, block);
  dxrt_memref2 sd = {scale.data(), scale.data(), 0, {cb, block}, {block, 1}};
  dxrt_memref2 td = {shift.data(), shift.data(), 0, {cb, block}, {block, 1}};
  _mlir_ciface_dxrt_pool_forward_blocked_pre(&xd, &sd, &td, &pyd, kind, g.k, g.k, g.s, g.s, g.pt, g.pb, g.pl, g.pr,
                                             relu);
  _mlir_ciface_dxrt_pool_grad_blocked_pre(&dyd, &xd, &sd, &td, &pdxd, kind, g.k, g.k, g.s, g.s, g.pt, g.pb, g.pl, g.pr,
                                          relu);
  expect_bits(py, y, "forward");
  expect_bits(pdx, dx, "gradient");

  // Each implementation by name.
  dxrt::PoolGeometry pg{1, g.h, g.w, ho, wo, g.k, g.k, g.s, g.s, g.pt, g.pl};
  for (const char *path : {"avx512f", "avx2", "scalar"}) {
    std::vector<float> ry(y.size(), 55.0f), rdx(dx.size(), 55.0f), qy(y.size(), 66.0f), qdx(dx.size(), 66.0f);
    if (!dxrt::pool_blocked_run(path, block, false, kind, pg, g.n * cb, m.data(), nullptr, ry.data())) {
      EXPECT_FALSE(dxrt::pool_blocked_run_pre(path, block, false, kind, pg, g.n * cb, cb, xb.data(), scale.data(),
                                              shift.data(), relu, nullptr, qy.data()))
          << path << " ran with a map but not without";
      continue;
    }
    ASSERT_TRUE(dxrt::pool_blocked_run(path, block, true, kind, pg, g.n * cb, m.data(), dyb.data(), rdx.data()));
    ASSERT_TRUE(dxrt::pool_blocked_run_pre(path, block, false, kind, pg, g.n * cb, cb, xb.data(), scale.data(),
                                           shift.data(), relu, nullptr, qy.data()));
    ASSERT_TRUE(dxrt::pool_blocked_run_pre(path, block, true, kind, pg, g.n * cb, cb, xb.data(), scale.data(),
                                           shift.data(), relu, dyb.data(), qdx.data()));
    expect_bits(qy, ry, std::string(path) + " forward");
    expect_bits(qdx, rdx, std::string(path) + " gradient");
  }
}

INSTANTIATE_TEST_SUITE_P(Geometries, PoolBlockedPre,
                         ::testing::Combine(::testing::ValuesIn(kGeometries), ::testing::Values(0, 1),
                                            ::testing::Bool(), ::testing::Values(16, 8), ::testing::Bool()),
                         [](const auto &i) {
                           return std::string(std::get<0>(i.param).name) +
                                  (std::get<1>(i.param) == 0 ? "_max" : "_avg") + (std::get<2>(i.param) ? "_nan" : "") +
                                  "_nchw" + std::to_string(std::get<3>(i.param)) + "c" +
                                  (std::get<4>(i.param) ? "_relu" : "");
                         });

TEST(PoolBlockedDeathTest, PreChecksItsVectorsAndFlag) {
  std::vector<float> x(2 * 32 * 4 * 4), y(2 * 32 * 2 * 2), v(32), dy(y.size()), dx(x.size());
  dxrt_memref5 xd = m5(x, 2, 2, 4, 4, 16), yd = m5(y, 2, 2, 2, 2, 16), dyd = m5(dy, 2, 2, 2, 2, 16),
               dxd = m5(dx, 2, 2, 4, 4, 16);
  dxrt_memref2 full = {v.data(), v.data(), 0, {2, 16}, {16, 1}}, half = {v.data(), v.data(), 0, {1, 16}, {16, 1}};
  EXPECT_DEATH(_mlir_ciface_dxrt_pool_forward_blocked_pre(&xd, &half, &full, &yd, 0, 2, 2, 2, 2, 0, 0, 0, 0, 1),
               "dxrt_pool_forward_blocked_pre.*scale has 16 elements for 32 channels");
  EXPECT_DEATH(_mlir_ciface_dxrt_pool_grad_blocked_pre(&dyd, &xd, &full, &half, &dxd, 0, 2, 2, 2, 2, 0, 0, 0, 0, 0),
               "dxrt_pool_grad_blocked_pre.*shift has 16 elements for 32 channels");
  EXPECT_DEATH(_mlir_ciface_dxrt_pool_forward_blocked_pre(&xd, &full, &full, &yd, 0, 2, 2, 2, 2, 0, 0, 0, 0, 2),
               "dxrt_pool_forward_blocked_pre.*relu = 2 is neither 0 nor 1");
  dxrt_memref5 x1 = m5(x, 2, 32, 4, 4, 1), y1 = m5(y, 2, 32, 2, 2, 1);
  EXPECT_DEATH(_mlir_ciface_dxrt_pool_forward_blocked_pre(&x1, &full, &full, &y1, 0, 2, 2, 2, 2, 0, 0, 0, 0, 0),
               "dxrt_pool_forward_blocked_pre.*one channel-blocked layout");
}

} // namespace
