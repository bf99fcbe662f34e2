// Pooling kernels against naive loops, PyTorch's conventions, and finite
// differences.
#include "dxrt/kernels.h"
#include "kernels/Pool.h"

#include <gtest/gtest.h>
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

struct Pool {
  int64_t kind, n, c, h, w, kh, kw, sh, sw, pt, pb, pl, pr;
  int64_t ho() const { return (h + pt + pb - kh) / sh + 1; }
  int64_t wo() const { return (w + pl + pr - kw) / sw + 1; }
};

dxrt_memref4 m4(std::vector<float> &v, int64_t a, int64_t b, int64_t c, int64_t d) {
  return {v.data(), v.data(), 0, {a, b, c, d}, {b * c * d, c * d, d, 1}};
}

std::vector<float> forward(const Pool &p, std::vector<float> &x) {
  std::vector<float> y(size_t(p.n * p.c * p.ho() * p.wo()));
  dxrt_memref4 xd = m4(x, p.n, p.c, p.h, p.w), yd = m4(y, p.n, p.c, p.ho(), p.wo());
  _mlir_ciface_dxrt_pool_forward(&xd, &yd, p.kind, p.kh, p.kw, p.sh, p.sw, p.pt, p.pb, p.pl, p.pr);
  return y;
}

std::vector<float> grad(const Pool &p, std::vector<float> &x, std::vector<float> &dy) {
  std::vector<float> dx(x.size(), 99.0f);
  dxrt_memref4 xd = m4(x, p.n, p.c, p.h, p.w), dyd = m4(dy, p.n, p.c, p.ho(), p.wo()), dxd = m4(dx, p.n, p.c, p.h, p.w);
  _mlir_ciface_dxrt_pool_grad(&dyd, &xd, &dxd, p.kind, p.kh, p.kw, p.sh, p.sw, p.pt, p.pb, p.pl, p.pr);
  return dx;
}

// Naive reference: windows over the zero- or -inf-padded plane.
std::vector<double> reference(const Pool &p, const std::vector<float> &x) {
  std::vector<double> y;
  for (int64_t pl = 0; pl < p.n * p.c; ++pl)
    for (int64_t oh = 0; oh < p.ho(); ++oh)
      for (int64_t ow = 0; ow < p.wo(); ++ow) {
        double m = -std::numeric_limits<double>::infinity(), s = 0;
        for (int64_t i = 0; i < p.kh; ++i)
          for (int64_t j = 0; j < p.kw; ++j) {
            int64_t ih = oh * p.sh - p.pt + i, iw = ow * p.sw - p.pl + j;
            bool in = ih >= 0 && ih < p.h && iw >= 0 && iw < p.w;
            double v = in ? x[size_t((pl * p.h + ih) * p.w + iw)] : 0.0;
            if (in) m = std::max(m, v);
            s += v;
          }
        y.push_back(p.kind == 0 ? m : s / double(p.kh * p.kw));
      }
  return y;
}

std::vector<float> distinct(size_t n, unsigned seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = float(i) * 0.01f - 1.0f;
  std::shuffle(v.begin(), v.end(), std::mt19937(seed));
  return v;
}

class PoolTest : public ::testing::TestWithParam<Pool> {};

TEST_P(PoolTest, ForwardMatchesReference) {
  Pool p = GetParam();
  auto x = distinct(size_t(p.n * p.c * p.h * p.w), 1);
  auto y = forward(p, x);
  auto ref = reference(p, x);
  ASSERT_EQ(y.size(), ref.size());
  for (size_t i = 0; i < y.size(); ++i) ASSERT_NEAR(y[i], ref[i], 1e-6) << "element " << i;
}

// L = <pool(x), r>: with distinct inputs max pooling is differentiable.
TEST_P(PoolTest, GradientMatchesFiniteDifferences) {
  Pool p = GetParam();
  auto x = distinct(size_t(p.n * p.c * p.h * p.w), 2);
  std::vector<float> r(size_t(p.n * p.c * p.ho() * p.wo()));
  std::mt19937 g(3);
  for (float &v : r) v = std::uniform_real_distribution<float>(-1, 1)(g);
  auto dx = grad(p, x, r);
  auto loss = [&](const std::vector<float> &xv) {
    auto ref = reference(p, xv);
    double s = 0;
    for (size_t i = 0; i < ref.size(); ++i) s += ref[i] * r[i];
    return s;
  };
  const float eps = 1e-3f; // below half the spacing of the distinct values
  for (size_t i = 0; i < x.size(); ++i) {
    auto xp = x, xm = x;
    xp[i] += eps;
    xm[i] -= eps;
    double fd = (loss(xp) - loss(xm)) / (double(xp[i]) - double(xm[i]));
    ASSERT_NEAR(dx[i], fd, 1e-3) << "element " << i;
  }
}

//                                            kind n  c  h  w kh kw sh sw pt pb pl pr
const std::pair<const char *, Pool> kPools[] = {{"max2x2", {0, 2, 3, 6, 6, 2, 2, 2, 2, 0, 0, 0, 0}},
                                                {"max2x2_odd", {0, 2, 2, 7, 5, 2, 2, 2, 2, 0, 0, 0, 0}},
                                                {"avg2x2_odd", {1, 2, 2, 5, 7, 2, 2, 2, 2, 0, 0, 0, 0}},
                                                {"max_padded", {0, 1, 2, 7, 5, 3, 3, 2, 1, 1, 1, 1, 1}},
                                                {"max_asymmetric", {0, 1, 2, 6, 7, 3, 2, 1, 2, 0, 2, 1, 0}},
                                                {"avg2x2", {1, 2, 3, 6, 6, 2, 2, 2, 2, 0, 0, 0, 0}},
                                                {"avg_padded", {1, 1, 2, 7, 5, 3, 3, 2, 1, 1, 1, 1, 1}},
                                                {"avg_asymmetric", {1, 1, 2, 6, 7, 3, 2, 1, 2, 0, 2, 1, 0}}};

std::vector<Pool> pool_values() {
  std::vector<Pool> v;
  for (const auto &p : kPools) v.push_back(p.second);
  return v;
}

void PrintTo(const Pool &p, std::ostream *os) { *os << "kind " << p.kind << " window " << p.kh << "x" << p.kw; }

INSTANTIATE_TEST_SUITE_P(Shapes, PoolTest, ::testing::ValuesIn(pool_values()),
                         [](const ::testing::TestParamInfo<Pool> &info) { return std::string(kPools[info.index].first); });

TEST(Pool, AverageCountsPaddingAsZeros) {
  Pool p{1, 1, 1, 2, 2, 2, 2, 1, 1, 1, 0, 1, 0}; // 2x2 window, pad top/left 1
  std::vector<float> x = {4, 8, 12, 16};
  auto y = forward(p, x);
  ASSERT_EQ(y.size(), 4u);
  EXPECT_FLOAT_EQ(y[0], 4.0f / 4);           // one real element, divisor 4
  EXPECT_FLOAT_EQ(y[3], (4 + 8 + 12 + 16) / 4.0f);
}

TEST(Pool, MaxPadsWithMinusInfinity) {
  Pool p{0, 1, 1, 2, 2, 2, 2, 1, 1, 1, 0, 1, 0};
  std::vector<float> x = {-5, -6, -7, -8};
  auto y = forward(p, x);
  EXPECT_FLOAT_EQ(y[0], -5.0f); // not 0 from the padding
}

TEST(Pool, MaxGradientGoesToTheFirstMaximum) {
  Pool p{0, 1, 1, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0};
  std::vector<float> x = {1, 3, 3, 3}, dy = {1};
  auto dx = grad(p, x, dy);
  EXPECT_EQ(dx, (std::vector<float>{0, 1, 0, 0}));
}

// The 2x2 loops and the general ones: a NaN in a window wins, and its
// gradient goes to the first NaN (PyTorch's CPU kernel: the last; see
// Pool.cpp).
TEST(Pool, MaxNaNWins) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int64_t k : {2, 3}) {
    SCOPED_TRACE(k);
    Pool p{0, 1, 1, 4, 4, k, k, 2, 2, 0, 0, 0, 0};
    std::vector<float> x = {1, nan, 9, 2, //
                            nan, 5, 3, 4, //
                            0, 1, 2, 3,   //
                            4, 5, 6, 7};
    auto y = forward(p, x);
    EXPECT_TRUE(std::isnan(y[0]));
    std::vector<float> dy(y.size(), 1.0f);
    auto dx = grad(p, x, dy);
    EXPECT_EQ(dx[1], 1.0f) << "the first NaN, row-major";
    EXPECT_EQ(dx[4], 0.0f);
  }
}

// The 2x2 loops are vectorized (kernels/Pool.cpp): rows wide enough for
// whole vectors of windows plus a remainder, with ties, NaNs and infinities
// everywhere, against the rule written out (the first NaN of a window, else
// its first maximum, row-major).
TEST(Pool, TwoByTwoLoopsOnWideRowsFollowTheRule) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const float values[] = {0.0f, -0.0f, 1.0f, 2.0f, 2.0f, -3.0f, inf, -inf, nan, 7.5f};
  Pool p{0, 2, 3, 6, 139, 2, 2, 2, 2, 0, 0, 0, 0}; // 69 windows per row, the last column in none
  std::mt19937 g(5);
  std::vector<float> x(size_t(p.n * p.c * p.h * p.w));
  for (float &v : x) v = values[g() % 10];
  std::vector<float> dy(size_t(p.n * p.c * p.ho() * p.wo()));
  for (size_t i = 0; i < dy.size(); ++i) dy[i] = 1.0f + float(i);
  auto y = forward(p, x);
  auto dx = grad(p, x, dy);
  std::vector<float> want_dx(x.size(), 0.0f);
  for (int64_t pl = 0; pl < p.n * p.c; ++pl)
    for (int64_t oh = 0; oh < p.ho(); ++oh)
      for (int64_t ow = 0; ow < p.wo(); ++ow) {
        size_t at[4], best = 0;
        for (int k = 0; k < 4; ++k) at[k] = size_t((pl * p.h + 2 * oh + k / 2) * p.w + 2 * ow + k % 2);
        for (int k = 1; k < 4; ++k)
          if (!std::isnan(x[at[best]]) && (std::isnan(x[at[k]]) || x[at[k]] > x[at[best]])) best = size_t(k);
        size_t o = size_t((pl * p.ho() + oh) * p.wo() + ow);
        float want = x[at[best]];
        if (std::isnan(want)) {
          ASSERT_TRUE(std::isnan(y[o])) << "window " << o;
        } else {
          ASSERT_EQ(y[o], want) << "window " << o;
        }
        want_dx[at[best]] = dy[o];
      }
  for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(dx[i], want_dx[i]) << "element " << i;
}

// Floats that make ties (both zeros, repeats), NaNs (quiet and signalling,
// both signs, several payloads), infinities, subnormals, and random bits.
std::vector<float> nasty(size_t n, unsigned seed) {
  const uint32_t special[] = {0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x40000000, 0x7f800000,
                              0xff800000, 0x7fc00000, 0xffc00000, 0x7fc12345, 0xffd00001, 0x7f800001,
                              0xff812345, 0x00000001, 0x80000003, 0x7f7fffff};
  std::mt19937 g(seed);
  std::vector<float> v(n);
  for (float &f : v) {
    uint32_t r = g();
    if (r % 8 < 5)
      f = std::bit_cast<float>(special[(r >> 8) % 16]);
    else if (r % 8 < 7)
      f = float(int((r >> 8) % 5) - 2);
    else
      f = std::bit_cast<float>(uint32_t(g()));
  }
  return v;
}

// Where the bits of two results first differ, or "" when they do not.
std::string first_difference(const std::vector<float> &got, const std::vector<float> &want) {
  for (size_t i = 0; i < got.size(); ++i) {
    uint32_t a = std::bit_cast<uint32_t>(got[i]), b = std::bit_cast<uint32_t>(want[i]);
    if (a != b) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "element %zu: 0x%08x, scalar 0x%08x", i, unsigned(a), unsigned(b));
      return buf;
    }
  }
  return "";
}

// Each vector implementation of the 2x2 loops (kernels/Pool.h) gives the
// scalar one's bits, on widths with and without whole vectors of windows
// and a remainder, and on odd heights and widths.
TEST(Pool, TwoByTwoPathsMatchScalarBitForBit) {
  std::vector<const char *> paths = dxrt::pool_2x2_paths();
  ASSERT_STREQ(paths.back(), "scalar");
  EXPECT_FALSE(dxrt::pool_2x2_forward("sse9", 0, 1, 2, 2, nullptr, nullptr));
  if (paths.size() == 1) GTEST_SKIP() << "this CPU runs the scalar loops only";
  const int64_t planes = 3;
  unsigned seed = 10;
  for (int64_t h = 2; h <= 5; ++h)
    for (int64_t w = 2; w <= 70; ++w) {
      auto x = nasty(size_t(planes * h * w), ++seed);
      auto dy = nasty(size_t(planes * (h / 2) * (w / 2)), ++seed);
      for (int64_t kind : {0, 1}) {
        const float sentinel = std::bit_cast<float>(uint32_t(0x7fbadbad));
        std::vector<float> y0(dy.size(), sentinel), dx0(x.size(), sentinel);
        ASSERT_TRUE(dxrt::pool_2x2_forward("scalar", kind, planes, h, w, x.data(), y0.data()));
        ASSERT_TRUE(dxrt::pool_2x2_grad("scalar", kind, planes, h, w, x.data(), dy.data(), dx0.data()));
        for (const char *path : paths) {
          SCOPED_TRACE(std::string(path) + (kind == 0 ? " max " : " avg ") + std::to_string(h) + "x" +
                       std::to_string(w));
          std::vector<float> y(y0.size(), sentinel), dx(dx0.size(), sentinel);
          ASSERT_TRUE(dxrt::pool_2x2_forward(path, kind, planes, h, w, x.data(), y.data()));
          ASSERT_EQ(first_difference(y, y0), "") << "forward";
          ASSERT_TRUE(dxrt::pool_2x2_grad(path, kind, planes, h, w, x.data(), dy.data(), dx.data()));
          ASSERT_EQ(first_difference(dx, dx0), "") << "gradient";
        }
        // The kernels run the first path.
        Pool p{kind, 1, planes, h, w, 2, 2, 2, 2, 0, 0, 0, 0};
        ASSERT_EQ(first_difference(forward(p, x), y0), "") << "dxrt_pool_forward " << h << "x" << w;
        ASSERT_EQ(first_difference(grad(p, x, dy), dx0), "") << "dxrt_pool_grad " << h << "x" << w;
      }
    }
}

// An average over NaNs has the first one's payload on every path, whichever
// order the compiler gives the operands of its additions.
TEST(Pool, TwoByTwoAverageKeepsTheFirstNaN) {
  const uint32_t nans[] = {0x7fc00001, 0xffc00002, 0x7f800003, 0xff812345};
  const int64_t h = 2, w = 70; // 35 windows: vectors and a scalar remainder
  std::vector<float> x(size_t(h * w));
  for (int64_t i = 0; i < w; ++i) {
    x[size_t(i)] = std::bit_cast<float>(nans[i % 4]);
    x[size_t(w + i)] = std::bit_cast<float>(nans[(i + 1) % 4]);
  }
  for (const char *path : dxrt::pool_2x2_paths()) {
    SCOPED_TRACE(path);
    std::vector<float> y(size_t(w / 2));
    ASSERT_TRUE(dxrt::pool_2x2_forward(path, 1, 1, h, w, x.data(), y.data()));
    for (int64_t ow = 0; ow < w / 2; ++ow) {
      volatile float first = x[size_t(2 * ow)], zero = 0.0f; // the platform's quieting, not the compiler's
      float want = (first + zero) * 0.25f;
      ASSERT_EQ(std::bit_cast<uint32_t>(y[size_t(ow)]), std::bit_cast<uint32_t>(want)) << "window " << ow;
    }
  }
}

// Max pooling over every other window (kernels/Pool.cpp: separable loops
// per instruction set, picked by DXRT_POOL_GENERAL) against argmax_window's
// rule written out: a window's value is the bits of its first NaN, else of
// its first maximal element (row-major), -inf when it lies in the padding;
// its gradient is added to that element, in (oh, ow) order.
struct MaxRule {
  std::vector<float> y, dx;
};
MaxRule max_rule(const Pool &p, const std::vector<float> &x, const std::vector<float> &dy) {
  MaxRule r{std::vector<float>(dy.size()), std::vector<float>(x.size(), 0.0f)};
  for (int64_t pl = 0; pl < p.n * p.c; ++pl)
    for (int64_t oh = 0; oh < p.ho(); ++oh)
      for (int64_t ow = 0; ow < p.wo(); ++ow) {
        int64_t best = -1;
        for (int64_t i = 0; i < p.kh; ++i)
          for (int64_t j = 0; j < p.kw; ++j) {
            int64_t ih = oh * p.sh - p.pt + i, iw = ow * p.sw - p.pl + j;
            if (ih < 0 || ih >= p.h || iw < 0 || iw >= p.w) continue;
            int64_t at = (pl * p.h + ih) * p.w + iw;
            float v = x[size_t(at)];
            if (best < 0 || (!std::isnan(x[size_t(best)]) && (std::isnan(v) || v > x[size_t(best)]))) best = at;
          }
        size_t o = size_t((pl * p.ho() + oh) * p.wo() + ow);
        r.y[o] = best < 0 ? -std::numeric_limits<float>::infinity() : x[size_t(best)];
        if (best >= 0) r.dx[size_t(best)] += dy[o];
      }
  return r;
}

// Planes of ties: a few levels, both zeros, infinities, NaNs of several
// payloads and signs, by plane: (0) finite levels only, (1) with infinities
// and a rare NaN, (2) mostly -inf (a real -inf next to the -inf padding),
// (3) NaNs everywhere.
std::vector<float> tied(const Pool &p, unsigned seed) {
  const float inf = std::numeric_limits<float>::infinity();
  const float levels[] = {-1.0f, 0.0f, -0.0f, 1.0f, 2.0f, 0.5f};
  const uint32_t nans[] = {0x7fc00000, 0xffc00000, 0x7fc12345, 0xffd00001, 0x7f800001};
  std::mt19937 g(seed);
  std::vector<float> x(size_t(p.n * p.c * p.h * p.w));
  const size_t plane = size_t(p.h * p.w);
  for (size_t i = 0; i < x.size(); ++i) {
    uint32_t r = g() % 40;
    float level = levels[g() % 6], nan = std::bit_cast<float>(nans[g() % 5]);
    switch ((i / plane) % 4) {
    case 0: x[i] = level; break;
    case 1: x[i] = r == 0 ? nan : r < 6 ? (r % 2 ? inf : -inf) : level; break;
    case 2: x[i] = r < 30 ? -inf : r == 30 ? nan : level; break;
    default: x[i] = r < 8 ? nan : r < 12 ? inf : level; break;
    }
  }
  return x;
}

// The paths to run: each one this CPU has, then the default.
std::vector<std::string> max_paths_here() {
  std::vector<std::string> v = {"windows", "generic"};
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx2")) v.push_back("avx2");
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("avx512f")) v.push_back("avx512f");
#endif
  v.push_back("");
  return v;
}

TEST(Pool, GeneralMaxPathsFollowTheRuleBitForBit) {
  //                                               kind n  c   h   w kh kw sh sw pt pb pl pr
  const std::pair<const char *, Pool> geometries[] = {
      {"3x3 s1 p1", {0, 2, 4, 9, 37, 3, 3, 1, 1, 1, 1, 1, 1}},
      {"3x3 s1 p1 wide", {0, 1, 4, 5, 70, 3, 3, 1, 1, 1, 1, 1, 1}},
      {"3x3 s2 p1", {0, 2, 4, 10, 37, 3, 3, 2, 2, 1, 1, 1, 1}},
      {"3x3 s2 p0", {0, 2, 4, 11, 36, 3, 3, 2, 2, 0, 0, 0, 0}},
      {"2x2 s1 p0", {0, 2, 4, 7, 35, 2, 2, 1, 1, 0, 0, 0, 0}},
      {"2x2 s2 p1", {0, 2, 4, 7, 35, 2, 2, 2, 2, 1, 1, 1, 1}},
      {"2x2 s2 same, odd", {0, 1, 4, 7, 33, 2, 2, 2, 2, 0, 1, 0, 1}},
      {"2x2 s3", {0, 1, 4, 8, 29, 2, 2, 3, 3, 0, 0, 0, 0}},
      {"5x5 s3 p2", {0, 2, 4, 13, 40, 5, 5, 3, 3, 2, 2, 2, 2}},
      {"7x7 s4 p3", {0, 1, 4, 15, 50, 7, 7, 4, 4, 3, 3, 3, 3}},
      {"1x3 s1 p(0,0,1,1)", {0, 2, 4, 5, 33, 1, 3, 1, 1, 0, 0, 1, 1}},
      {"3x1 s(2,1) p(1,1,0,0)", {0, 2, 4, 9, 20, 3, 1, 2, 1, 1, 1, 0, 0}},
      {"3x2 s(1,2) p(0,2,1,0)", {0, 1, 4, 6, 17, 3, 2, 1, 2, 0, 2, 1, 0}},
      {"kh > h", {0, 2, 4, 2, 19, 5, 3, 1, 2, 2, 2, 1, 0}},
      {"kw > w", {0, 2, 4, 3, 2, 3, 5, 1, 1, 1, 1, 2, 2}},
      {"1x1 planes 3x3 s1 p1", {0, 4, 4, 1, 1, 3, 3, 1, 1, 1, 1, 1, 1}},
      {"1x1 planes 3x3 s2 p1", {0, 4, 4, 1, 1, 3, 3, 2, 2, 1, 1, 1, 1}},
      {"windows in the padding", {0, 1, 4, 3, 5, 3, 3, 1, 1, 4, 3, 4, 5}},
      {"global 6x40", {0, 2, 4, 6, 40, 6, 40, 1, 1, 0, 0, 0, 0}},
      // Planes of several blocks of output rows (the scratch of a block is about 48 KiB).
      {"3x3 s1 p1 40x300", {0, 1, 4, 40, 300, 3, 3, 1, 1, 1, 1, 1, 1}},
      {"3x3 s2 p1 41x301", {0, 1, 4, 41, 301, 3, 3, 2, 2, 1, 1, 1, 1}},
  };
  unsigned seed = 100;
  for (const auto &[name, p] : geometries) {
    SCOPED_TRACE(name);
    auto x = tied(p, ++seed);
    std::vector<float> dy(size_t(p.n * p.c * p.ho() * p.wo()));
    std::mt19937 g(++seed);
    for (float &v : dy) v = std::uniform_real_distribution<float>(-1, 1)(g); // sums whose bits depend on the order
    MaxRule want = max_rule(p, x, dy);
    for (const std::string &path : max_paths_here()) {
      SCOPED_TRACE("DXRT_POOL_GENERAL=" + path);
      if (path.empty())
        unsetenv("DXRT_POOL_GENERAL");
      else
        setenv("DXRT_POOL_GENERAL", path.c_str(), 1);
      EXPECT_EQ(first_difference(forward(p, x), want.y), "") << "forward";
      EXPECT_EQ(first_difference(grad(p, x, dy), want.dx), "") << "gradient";
    }
  }
  unsetenv("DXRT_POOL_GENERAL");
}

TEST(Pool, OverlappingWindowsAccumulate) {
  Pool p{0, 1, 1, 1, 3, 1, 2, 1, 1, 0, 0, 0, 0}; // windows {0,1} and {1,2}
  std::vector<float> x = {0, 5, 1}, dy = {2, 3};
  auto dx = grad(p, x, dy);
  EXPECT_EQ(dx, (std::vector<float>{0, 5, 0}));
}

TEST(PoolDeathTest, UnknownGeneralPathAbortsNamingTheVariable) {
  Pool p{0, 1, 1, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1};
  std::vector<float> x(9);
  setenv("DXRT_POOL_GENERAL", "sse9", 1);
  EXPECT_DEATH(forward(p, x), "DXRT_POOL_GENERAL=sse9 names no max pooling path");
  unsetenv("DXRT_POOL_GENERAL");
}

TEST(PoolDeathTest, BadKindAbortsNamingTheKernel) {
  std::vector<float> x(4), y(1);
  dxrt_memref4 xd = m4(x, 1, 1, 2, 2), yd = m4(y, 1, 1, 1, 1);
  EXPECT_DEATH(_mlir_ciface_dxrt_pool_forward(&xd, &yd, 7, 2, 2, 2, 2, 0, 0, 0, 0), "dxrt_pool_forward: kind = 7");
}

} // namespace
