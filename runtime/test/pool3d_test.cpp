// The 3-D pooling kernels (kernels/Pool3d.cpp) against naive loops written
// from PyTorch's rules, and finite differences.
#include "dxrt/kernels.h"
#include "kernels/Pool.h"

#include <gtest/gtest.h>
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

struct Pool3 {
  int64_t kind, n, c, d, h, w, kd, kh, kw, sd, sh, sw, pf, pk, pt, pb, pl, pr;
  int64_t od() const { return (d + pf + pk - kd) / sd + 1; }
  int64_t ho() const { return (h + pt + pb - kh) / sh + 1; }
  int64_t wo() const { return (w + pl + pr - kw) / sw + 1; }
  int64_t xs() const { return n * c * d * h * w; }
  int64_t ys() const { return n * c * od() * ho() * wo(); }
};

dxrt_memref5 m5(std::vector<float> &v, int64_t a, int64_t b, int64_t c, int64_t d, int64_t e) {
  return {v.data(), v.data(), 0, {a, b, c, d, e}, {b * c * d * e, c * d * e, d * e, e, 1}};
}

std::vector<float> forward(const Pool3 &p, std::vector<float> &x) {
  std::vector<float> y(size_t(p.ys()), 99.0f);
  dxrt_memref5 xd = m5(x, p.n, p.c, p.d, p.h, p.w), yd = m5(y, p.n, p.c, p.od(), p.ho(), p.wo());
  _mlir_ciface_dxrt_pool3d_forward(&xd, &yd, p.kind, p.kd, p.kh, p.kw, p.sd, p.sh, p.sw, p.pf, p.pk, p.pt, p.pb, p.pl,
                                   p.pr);
  return y;
}

std::vector<float> grad(const Pool3 &p, std::vector<float> &x, std::vector<float> &dy) {
  std::vector<float> dx(x.size(), 99.0f); // the kernel overwrites it
  dxrt_memref5 xd = m5(x, p.n, p.c, p.d, p.h, p.w), dyd = m5(dy, p.n, p.c, p.od(), p.ho(), p.wo()),
               dxd = m5(dx, p.n, p.c, p.d, p.h, p.w);
  _mlir_ciface_dxrt_pool3d_grad(&dyd, &xd, &dxd, p.kind, p.kd, p.kh, p.kw, p.sd, p.sh, p.sw, p.pf, p.pk, p.pt, p.pb,
                                p.pl, p.pr);
  return dx;
}

// The reference: for each window, in (d, h, w) scan order, PyTorch's CPU
// rule for max (take v when v > pick or v is NaN; the pick starts at the
// window's first element) and the zero-padded sum over kd*kh*kw for
// average. Returns y, and in `at` the pick's index in x (max) or -1.
std::vector<double> reference(const Pool3 &p, const std::vector<float> &x, std::vector<int64_t> *at = nullptr) {
  std::vector<double> y;
  if (at) at->clear();
  for (int64_t pl = 0; pl < p.n * p.c; ++pl)
    for (int64_t oz = 0; oz < p.od(); ++oz)
      for (int64_t oh = 0; oh < p.ho(); ++oh)
        for (int64_t ow = 0; ow < p.wo(); ++ow) {
          int64_t best = -1;
          double s = 0;
          for (int64_t a = 0; a < p.kd; ++a)
            for (int64_t i = 0; i < p.kh; ++i)
              for (int64_t j = 0; j < p.kw; ++j) {
                int64_t iz = oz * p.sd - p.pf + a, ih = oh * p.sh - p.pt + i, iw = ow * p.sw - p.pl + j;
                if (iz < 0 || iz >= p.d || ih < 0 || ih >= p.h || iw < 0 || iw >= p.w) continue;
                int64_t idx = ((pl * p.d + iz) * p.h + ih) * p.w + iw;
                float v = x[size_t(idx)];
                s += double(v);
                if (best < 0 || v > x[size_t(best)] || std::isnan(v)) best = idx;
              }
          if (at) at->push_back(best);
          if (p.kind == 0) y.push_back(best < 0 ? -INFINITY : double(x[size_t(best)]));
          else y.push_back(s / double(p.kd * p.kh * p.kw));
        }
  return y;
}

// The gradient the reference's rule gives (dx of L = <pool(x), dy>).
std::vector<double> reference_grad(const Pool3 &p, const std::vector<float> &x, const std::vector<float> &dy) {
  std::vector<int64_t> at;
  reference(p, x, &at);
  std::vector<double> dx(x.size(), 0.0);
  size_t o = 0;
  for (int64_t pl = 0; pl < p.n * p.c; ++pl)
    for (int64_t oz = 0; oz < p.od(); ++oz)
      for (int64_t oh = 0; oh < p.ho(); ++oh)
        for (int64_t ow = 0; ow < p.wo(); ++ow, ++o) {
          if (p.kind == 0) {
            if (at[o] >= 0) dx[size_t(at[o])] += dy[o];
            continue;
          }
          for (int64_t a = 0; a < p.kd; ++a)
            for (int64_t i = 0; i < p.kh; ++i)
              for (int64_t j = 0; j < p.kw; ++j) {
                int64_t iz = oz * p.sd - p.pf + a, ih = oh * p.sh - p.pt + i, iw = ow * p.sw - p.pl + j;
                if (iz < 0 || iz >= p.d || ih < 0 || ih >= p.h || iw < 0 || iw >= p.w) continue;
                dx[size_t(((pl * p.d + iz) * p.h + ih) * p.w + iw)] += double(dy[o]) / double(p.kd * p.kh * p.kw);
              }
        }
  return dx;
}

std::vector<float> distinct(size_t n, unsigned seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = float(i) * 0.01f - 1.0f;
  std::shuffle(v.begin(), v.end(), std::mt19937(seed));
  return v;
}

std::vector<float> uniform(size_t n, unsigned seed) {
  std::vector<float> v(n);
  std::mt19937 g(seed);
  for (float &f : v) f = std::uniform_real_distribution<float>(-1, 1)(g);
  return v;
}

class Pool3dTest : public ::testing::TestWithParam<Pool3> {};

TEST_P(Pool3dTest, ForwardMatchesReference) {
  const Pool3 p = GetParam();
  auto x = distinct(size_t(p.xs()), 1);
  auto y = forward(p, x);
  auto ref = reference(p, x);
  ASSERT_EQ(y.size(), ref.size());
  for (size_t i = 0; i < y.size(); ++i) ASSERT_NEAR(y[i], ref[i], 1e-6) << "element " << i;
}

TEST_P(Pool3dTest, GradMatchesReference) {
  const Pool3 p = GetParam();
  auto x = distinct(size_t(p.xs()), 2);
  auto dy = uniform(size_t(p.ys()), 3);
  auto dx = grad(p, x, dy);
  auto ref = reference_grad(p, x, dy);
  for (size_t i = 0; i < dx.size(); ++i) ASSERT_NEAR(dx[i], ref[i], 1e-6) << "element " << i;
}

// L = <pool(x), r>: average pooling is linear, and max pooling
// differentiable at distinct inputs.
TEST_P(Pool3dTest, GradientMatchesFiniteDifferences) {
  const Pool3 p = GetParam();
  auto x = distinct(size_t(p.xs()), 4);
  auto r = uniform(size_t(p.ys()), 5);
  auto dx = grad(p, x, r);
  auto loss = [&](const std::vector<float> &xv) {
    auto y = reference(p, xv);
    double s = 0;
    for (size_t i = 0; i < y.size(); ++i) s += y[i] * r[i];
    return s;
  };
  const float eps = 1e-3f; // below half the spacing of the distinct values
  for (size_t i = 0; i < x.size(); i += 1 + x.size() / 200) {
    auto xp = x, xm = x;
    xp[i] += eps;
    xm[i] -= eps;
    double fd = (loss(xp) - loss(xm)) / (double(xp[i]) - double(xm[i]));
    ASSERT_NEAR(dx[i], fd, 1e-3) << "element " << i;
  }
}

//                                               kind n  c  d  h   w kd kh kw sd sh sw pf pk pt pb pl pr
const std::pair<const char *, Pool3> kPools[] = {
    {"max2x2x2", {0, 2, 3, 4, 6, 8, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0}},
    {"max2x2x2_odd", {0, 1, 2, 5, 7, 9, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0}},
    {"max2x2x2_wide", {0, 1, 2, 2, 4, 70, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0}},
    {"avg2x2x2", {1, 2, 3, 4, 6, 8, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0}},
    {"avg2x2x2_odd", {1, 1, 2, 5, 7, 9, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0}},
    {"avg2x2x2_wide", {1, 1, 2, 2, 4, 70, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0}},
    {"max2x2x2_back_pad", {0, 1, 2, 4, 5, 5, 2, 2, 2, 2, 2, 2, 0, 1, 0, 1, 0, 1}},
    {"max_padded", {0, 1, 2, 5, 7, 6, 3, 3, 3, 2, 2, 2, 1, 1, 1, 1, 1, 1}},
    {"max_overlapping", {0, 2, 1, 4, 5, 6, 3, 2, 3, 1, 1, 2, 0, 0, 1, 0, 1, 1}},
    {"max_asymmetric", {0, 1, 2, 6, 5, 7, 2, 3, 2, 3, 1, 2, 1, 0, 0, 2, 1, 0}},
    {"max_stride_gt_kernel", {0, 1, 2, 7, 7, 8, 2, 2, 2, 3, 3, 3, 0, 0, 0, 0, 0, 0}},
    {"avg_padded", {1, 1, 2, 5, 7, 6, 3, 3, 3, 2, 2, 2, 1, 1, 1, 1, 1, 1}},
    {"avg_overlapping", {1, 2, 1, 4, 5, 6, 3, 2, 3, 1, 1, 2, 0, 0, 1, 0, 1, 1}},
    {"avg_asymmetric", {1, 1, 2, 6, 5, 7, 2, 3, 2, 3, 1, 2, 1, 0, 0, 2, 1, 0}},
    {"avg_stride_gt_kernel", {1, 1, 2, 7, 7, 8, 2, 2, 2, 3, 3, 3, 0, 0, 0, 0, 0, 0}}};

std::vector<Pool3> pool_values() {
  std::vector<Pool3> v;
  for (const auto &p : kPools) v.push_back(p.second);
  return v;
}

INSTANTIATE_TEST_SUITE_P(Shapes, Pool3dTest, ::testing::ValuesIn(pool_values()),
                         [](const ::testing::TestParamInfo<Pool3> &info) { return std::string(kPools[info.index].first); });

// One window over the whole volume (the general loops) and a volume of
// 2x2x2 windows (their own loops): both follow the rules.
const Pool3 kOneWindow{0, 1, 1, 2, 2, 2, 2, 2, 2, 1, 1, 1, 0, 0, 0, 0, 0, 0}; // stride 1: general loops
const Pool3 kTiled{0, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0};     // the 2x2x2 loops

TEST(Pool3d, MaxGradientGoesToTheFirstMaximum) {
  for (const Pool3 &p : {kOneWindow, kTiled}) {
    SCOPED_TRACE(p.sd);
    std::vector<float> same(8, 3.0f), dy = {1};
    EXPECT_EQ(grad(p, same, dy), (std::vector<float>{1, 0, 0, 0, 0, 0, 0, 0})) << "all equal";
    // Ties across h and d after the first element: (0,0,1) comes first in scan order.
    std::vector<float> x = {1, 3, 3, 2, 3, 2, 2, 3};
    EXPECT_EQ(grad(p, x, dy), (std::vector<float>{0, 1, 0, 0, 0, 0, 0, 0}));
    // +0 and -0 are equal: the first of them.
    std::vector<float> zeros = {-1, -0.0f, 0.0f, -2, 0.0f, -0.0f, -3, -4};
    EXPECT_EQ(grad(p, zeros, dy), (std::vector<float>{0, 1, 0, 0, 0, 0, 0, 0}));
    EXPECT_TRUE(std::signbit(forward(p, zeros)[0]));
  }
}

// PyTorch's CPU rule: a NaN in a window is its maximum, and with several the
// last one (each NaN replaces the pick) gets the gradient.
TEST(Pool3d, MaxNaNWins) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  for (const Pool3 &p : {kOneWindow, kTiled}) {
    SCOPED_TRACE(p.sd);
    std::vector<float> dy = {1};
    std::vector<float> one = {1, 2, inf, 4, nan, 6, 7, 8};
    EXPECT_TRUE(std::isnan(forward(p, one)[0]));
    EXPECT_EQ(grad(p, one, dy), (std::vector<float>{0, 0, 0, 0, 1, 0, 0, 0}));
    std::vector<float> two = {1, nan, 3, inf, 5, nan, 7, 8};
    EXPECT_TRUE(std::isnan(forward(p, two)[0]));
    EXPECT_EQ(grad(p, two, dy), (std::vector<float>{0, 0, 0, 0, 0, 1, 0, 0}));
    std::vector<float> first = {nan, 1, 2, 3, 4, 5, 6, 7};
    EXPECT_TRUE(std::isnan(forward(p, first)[0]));
    EXPECT_EQ(grad(p, first, dy), (std::vector<float>{1, 0, 0, 0, 0, 0, 0, 0}));
    std::vector<float> minus_inf(8, -inf);
    EXPECT_EQ(forward(p, minus_inf)[0], -inf);
    EXPECT_EQ(grad(p, minus_inf, dy), (std::vector<float>{1, 0, 0, 0, 0, 0, 0, 0}));
  }
}

// The 2x2x2 loops on rows wide enough for vectors of windows and a remainder,
// with ties, NaNs, infinities and signed zeros everywhere, and odd sizes,
// against the reference's rule, bit for bit (a NaN as a NaN).
TEST(Pool3d, TwoByTwoByTwoLoopsFollowTheRule) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const float values[] = {0.0f, -0.0f, 1.0f, 2.0f, 2.0f, -3.0f, inf, -inf, nan, 7.5f};
  for (int64_t kind : {0, 1}) {
    SCOPED_TRACE(kind);
    const Pool3 p{kind, 2, 2, 5, 5, 139, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0};
    std::mt19937 g(7);
    std::vector<float> x(size_t(p.xs()));
    for (float &v : x) v = values[g() % 10];
    std::vector<float> dy(size_t(p.ys()));
    for (size_t i = 0; i < dy.size(); ++i) dy[i] = 1.0f + float(i % 1000);
    auto y = forward(p, x);
    auto ref = reference(p, x);
    for (size_t i = 0; i < y.size(); ++i) {
      if (std::isnan(ref[i])) ASSERT_TRUE(std::isnan(y[i])) << "window " << i;
      else if (kind == 0) ASSERT_EQ(std::bit_cast<uint32_t>(y[i]), std::bit_cast<uint32_t>(float(ref[i]))) << i;
      else ASSERT_EQ(y[i], float(ref[i])) << "window " << i; // eighths of small integers: exact
    }
    auto dx = grad(p, x, dy);
    auto want = reference_grad(p, x, dy);
    for (size_t i = 0; i < dx.size(); ++i) ASSERT_EQ(dx[i], float(want[i])) << "element " << i;
  }
}

// Each implementation of the 2x2x2 max gradient (kernels/Pool.h), on widths
// with and without whole vectors of windows and a remainder, odd sizes,
// and ties, NaNs, infinities and signed zeros, against the reference bit
// for bit.
TEST(Pool3d, TwoByTwoByTwoGradPathsFollowTheRule) {
  std::vector<const char *> paths = dxrt::pool3d_2x2x2_grad_paths();
  ASSERT_STREQ(paths.back(), "scalar");
  EXPECT_FALSE(dxrt::pool3d_2x2x2_max_grad("sse9", 1, 2, 2, 2, nullptr, nullptr, nullptr));
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const float values[] = {0.0f, -0.0f, 1.0f, 2.0f, 2.0f, -3.0f, inf, -inf, nan, 7.5f};
  std::mt19937 g(11);
  for (int64_t d : {2, 3})
    for (int64_t h : {2, 5})
      for (int64_t w = 2; w <= 70; w += (w < 36 ? 1 : 17)) {
        const Pool3 p{0, 1, 2, d, h, w, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0};
        std::vector<float> x(size_t(p.xs())), dy(size_t(p.ys()));
        for (float &v : x) v = values[g() % 10];
        for (size_t i = 0; i < dy.size(); ++i) dy[i] = 1.0f + float(i);
        auto want = reference_grad(p, x, dy);
        for (const char *path : paths) {
          SCOPED_TRACE(std::string(path) + " " + std::to_string(d) + "x" + std::to_string(h) + "x" + std::to_string(w));
          std::vector<float> dx(x.size(), 99.0f);
          ASSERT_TRUE(dxrt::pool3d_2x2x2_max_grad(path, p.n * p.c, d, h, w, x.data(), dy.data(), dx.data()));
          for (size_t i = 0; i < dx.size(); ++i) ASSERT_EQ(dx[i], float(want[i])) << "element " << i;
        }
      }
}

// Windows partly in the front/top/left padding: zeros, and the divisor
// stays kd*kh*kw.
TEST(Pool3d, AverageCountsPaddingAsZeros) {
  //            kind n  c  d  h  w kd kh kw sd sh sw pf pk pt pb pl pr
  const Pool3 p{1, 1, 1, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 0, 1, 0, 1, 0};
  std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8};
  auto y = forward(p, x);
  ASSERT_EQ(y.size(), 8u);
  EXPECT_FLOAT_EQ(y[0], 1.0f / 8); // one real element, divisor 8
  EXPECT_FLOAT_EQ(y[7], 36.0f / 8);
  std::vector<float> dy(8, 0.0f);
  dy[0] = 8;
  EXPECT_EQ(grad(p, x, dy), (std::vector<float>{1, 0, 0, 0, 0, 0, 0, 0}));
}

TEST(Pool3d, MaxPadsWithMinusInfinity) {
  const Pool3 p{0, 1, 1, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 0, 1, 0, 1, 0};
  std::vector<float> x = {-5, -6, -7, -8, -1, -2, -3, -4};
  auto y = forward(p, x);
  EXPECT_FLOAT_EQ(y[0], -5.0f); // not 0 from the padding
}

TEST(Pool3d, OverlappingWindowsAccumulate) {
  const Pool3 p{0, 1, 1, 1, 1, 3, 1, 1, 2, 1, 1, 1, 0, 0, 0, 0, 0, 0}; // windows {0,1} and {1,2}
  std::vector<float> x = {0, 5, 1}, dy = {2, 3};
  EXPECT_EQ(grad(p, x, dy), (std::vector<float>{0, 5, 0}));
}

// Elements in no window (a stride larger than the window, odd sizes) get
// 0, whatever dx held.
TEST(Pool3d, GradientOverwritesElementsInNoWindow) {
  for (const Pool3 &p : {Pool3{0, 1, 1, 3, 3, 3, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0},
                         Pool3{1, 1, 1, 3, 3, 3, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0},
                         Pool3{1, 1, 1, 5, 5, 5, 1, 1, 1, 3, 3, 3, 0, 0, 0, 0, 0, 0}}) {
    auto x = distinct(size_t(p.xs()), 9);
    std::vector<float> dy(size_t(p.ys()), 1.0f);
    auto dx = grad(p, x, dy);
    auto want = reference_grad(p, x, dy);
    for (size_t i = 0; i < dx.size(); ++i) ASSERT_EQ(dx[i], float(want[i])) << "element " << i;
  }
}

TEST(Pool3dDeathTest, BadArgumentsAbortNamingTheKernel) {
  std::vector<float> x(8), y(1), dx(4);
  dxrt_memref5 xd = m5(x, 1, 1, 2, 2, 2), yd = m5(y, 1, 1, 1, 1, 1), dxd = m5(dx, 1, 1, 1, 2, 2);
  EXPECT_DEATH(_mlir_ciface_dxrt_pool3d_forward(&xd, &yd, 7, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0),
               "dxrt_pool3d_forward: kind = 7");
  EXPECT_DEATH(_mlir_ciface_dxrt_pool3d_forward(&xd, &yd, 0, 1, 2, 2, 1, 2, 2, 0, 0, 0, 0, 0, 0),
               "dxrt_pool3d_forward: output is \\[1, 1, 1, 1, 1\\], expected \\[1, 1, 2, 1, 1\\]");
  EXPECT_DEATH(_mlir_ciface_dxrt_pool3d_forward(&xd, &yd, 0, 0, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0),
               "dxrt_pool3d_forward: window 0x2x2 must be positive");
  EXPECT_DEATH(_mlir_ciface_dxrt_pool3d_grad(&yd, &xd, &dxd, 0, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0),
               "dxrt_pool3d_grad: dx is \\[1, 1, 1, 2, 2\\] but x is \\[1, 1, 2, 2, 2\\]");
  EXPECT_DEATH(_mlir_ciface_dxrt_pool3d_grad(&yd, &xd, &xd, 1, 2, 2, 2, 2, 2, 2, 0, 0, 0, -1, 0, 0),
               "dxrt_pool3d_grad: padding \\(0, 0, 0, -1, 0, 0\\) must not be negative");
}

} // namespace
