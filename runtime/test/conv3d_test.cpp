// The 3-D convolution kernels (dxrt_conv3d_*: the 2-D code with a depth
// axis, kernels/Im2col.h) against a double-precision reference whose
// gradients are checked by finite differences, on both backends (oneDNN
// on 5-D descriptors, im2col + GEMM).
#include "dxrt/kernels.h"
#include "kernels/Conv2d.h"

#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

struct Conv3 {
  int64_t n, c, d, h, w, f, kd, kh, kw, sd, sh, sw, pf, pk, pt, pb, pl, pr, dd, dh, dw, groups;
  static int64_t out(int64_t in, int64_t lo, int64_t hi, int64_t k, int64_t s, int64_t dil) {
    return (in + lo + hi - dil * (k - 1) - 1) / s + 1;
  }
  int64_t od() const { return out(d, pf, pk, kd, sd, dd); }
  int64_t ho() const { return out(h, pt, pb, kh, sh, dh); }
  int64_t wo() const { return out(w, pl, pr, kw, sw, dw); }
  int64_t cg() const { return c / groups; }
  int64_t xs() const { return n * c * d * h * w; }
  int64_t ws() const { return f * cg() * kd * kh * kw; }
  int64_t ys() const { return n * f * od() * ho() * wo(); }
};

std::ostream &operator<<(std::ostream &os, const Conv3 &p) {
  return os << "x[" << p.n << "," << p.c << "," << p.d << "," << p.h << "," << p.w << "] f" << p.f << " k" << p.kd
            << "x" << p.kh << "x" << p.kw << " s" << p.sd << "," << p.sh << "," << p.sw << " p" << p.pf << ","
            << p.pk << "," << p.pt << "," << p.pb << "," << p.pl << "," << p.pr << " d" << p.dd << "," << p.dh << ","
            << p.dw << " g" << p.groups;
}

// Calls body(xi, wi, yi) for every product term of the convolution: y[yi]
// += x[xi] * w[wi]. The forward and both adjoints are this one loop nest.
template <typename F> void for_each_term(const Conv3 &p, F &&body) {
  const int64_t cg = p.cg(), fg = p.f / p.groups, OD = p.od(), HO = p.ho(), WO = p.wo();
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t f = 0; f < p.f; ++f)
      for (int64_t oz = 0; oz < OD; ++oz)
        for (int64_t oh = 0; oh < HO; ++oh)
          for (int64_t ow = 0; ow < WO; ++ow) {
            const size_t yi = size_t((((n * p.f + f) * OD + oz) * HO + oh) * WO + ow);
            const int64_t g = f / fg;
            for (int64_t ci = 0; ci < cg; ++ci)
              for (int64_t a = 0; a < p.kd; ++a)
                for (int64_t i = 0; i < p.kh; ++i)
                  for (int64_t j = 0; j < p.kw; ++j) {
                    int64_t iz = oz * p.sd - p.pf + a * p.dd, ih = oh * p.sh - p.pt + i * p.dh,
                            iw = ow * p.sw - p.pl + j * p.dw;
                    if (iz < 0 || iz >= p.d || ih < 0 || ih >= p.h || iw < 0 || iw >= p.w) continue;
                    size_t xi = size_t((((n * p.c + g * cg + ci) * p.d + iz) * p.h + ih) * p.w + iw);
                    size_t wi = size_t((((f * cg + ci) * p.kd + a) * p.kh + i) * p.kw + j);
                    body(xi, wi, yi);
                  }
          }
}

template <typename T>
std::vector<double> ref_forward(const Conv3 &p, const std::vector<T> &x, const std::vector<T> &w) {
  std::vector<double> y(size_t(p.ys()), 0.0);
  for_each_term(p, [&](size_t xi, size_t wi, size_t yi) { y[yi] += double(x[xi]) * double(w[wi]); });
  return y;
}

template <typename T>
void ref_backward(const Conv3 &p, const std::vector<T> &x, const std::vector<T> &w, const std::vector<T> &dy,
                  std::vector<double> &dx, std::vector<double> &dw) {
  dx.assign(size_t(p.xs()), 0.0);
  dw.assign(size_t(p.ws()), 0.0);
  for_each_term(p, [&](size_t xi, size_t wi, size_t yi) {
    dx[xi] += double(dy[yi]) * double(w[wi]);
    dw[wi] += double(dy[yi]) * double(x[xi]);
  });
}

template <typename T> std::vector<T> rnd(int64_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> v(static_cast<size_t>(n));
  for (T &x : v) x = T(u(g));
  return v;
}

dxrt_memref5 m5(std::vector<float> &v, int64_t a, int64_t b, int64_t c, int64_t d, int64_t e) {
  return {v.data(), v.data(), 0, {a, b, c, d, e}, {b * c * d * e, c * d * e, d * e, e, 1}};
}

// The descriptors of one case's tensors.
struct Memrefs {
  dxrt_memref5 x, w, y;
};
Memrefs memrefs(const Conv3 &p, std::vector<float> &x, std::vector<float> &w, std::vector<float> &y) {
  return {m5(x, p.n, p.c, p.d, p.h, p.w), m5(w, p.f, p.cg(), p.kd, p.kh, p.kw),
          m5(y, p.n, p.f, p.od(), p.ho(), p.wo())};
}

void forward(const Conv3 &p, std::vector<float> &x, std::vector<float> &w, std::vector<float> &y) {
  Memrefs m = memrefs(p, x, w, y);
  _mlir_ciface_dxrt_conv3d_forward(&m.x, &m.w, &m.y, p.sd, p.sh, p.sw, p.pf, p.pk, p.pt, p.pb, p.pl, p.pr, p.dd,
                                   p.dh, p.dw, p.groups);
}
void grad_input(const Conv3 &p, std::vector<float> &dy, std::vector<float> &w, std::vector<float> &dx) {
  Memrefs m = memrefs(p, dx, w, dy);
  _mlir_ciface_dxrt_conv3d_grad_input(&m.y, &m.w, &m.x, p.sd, p.sh, p.sw, p.pf, p.pk, p.pt, p.pb, p.pl, p.pr, p.dd,
                                      p.dh, p.dw, p.groups);
}
void grad_weight(const Conv3 &p, std::vector<float> &dy, std::vector<float> &x, std::vector<float> &dw) {
  Memrefs m = memrefs(p, x, dw, dy);
  _mlir_ciface_dxrt_conv3d_grad_weight(&m.y, &m.x, &m.w, p.sd, p.sh, p.sw, p.pf, p.pk, p.pt, p.pb, p.pl, p.pr,
                                       p.dd, p.dh, p.dw, p.groups);
}
void backward(const Conv3 &p, std::vector<float> &dy, std::vector<float> &x, std::vector<float> &w,
              std::vector<float> &dx, std::vector<float> &dw) {
  Memrefs m = memrefs(p, x, w, dy), g = memrefs(p, dx, dw, dy);
  _mlir_ciface_dxrt_conv3d_backward(&m.y, &m.x, &m.w, &g.x, &g.w, p.sd, p.sh, p.sw, p.pf, p.pk, p.pt, p.pb, p.pl,
                                    p.pr, p.dd, p.dh, p.dw, p.groups);
}

// |a[i] - ref[i]| <= tol * (1 + |ref[i]|), tol from the number of terms of
// each sum, as conv_test.cpp's expect_close.
void expect_close(const std::vector<float> &a, const std::vector<double> &ref, int64_t terms, const char *what) {
  const double tol = 1e-6 * double(std::max<int64_t>(terms, 16));
  ASSERT_EQ(a.size(), ref.size()) << what;
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_NEAR(a[i], ref[i], tol * (1 + std::fabs(ref[i]))) << what << " element " << i;
}

dxrt::ConvGeometry geometry(const Conv3 &p) {
  dxrt::ConvGeometry g{p.n,  p.c,  p.h,  p.w,  p.f,  p.kh, p.kw,     p.ho(),  p.wo(),          p.sh,
                       p.sw, p.pt, p.pb, p.pl, p.pr, p.dh, p.dw, p.groups, p.cg(), p.f / p.groups};
  g.d = p.d, g.kd = p.kd, g.od = p.od(), g.sd = p.sd, g.pf = p.pf, g.pk = p.pk, g.dd = p.dd, g.spatial = 3;
  return g;
}

//                                        n  c  d  h   w  f kd kh kw sd sh sw pf pk pt pb pl pr dd dh dw  g
const std::pair<const char *, Conv3> kConvs[] = {
    {"pointwise", {3, 4, 3, 4, 5, 8, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1}},
    {"pointwise_strided", {1, 4, 5, 4, 6, 8, 1, 1, 1, 2, 1, 2, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1}},
    {"same_asymmetric", {1, 4, 5, 6, 7, 8, 3, 3, 3, 1, 1, 1, 0, 1, 1, 2, 1, 1, 1, 1, 1, 1}},
    {"same_batch3", {3, 4, 4, 5, 6, 8, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
    {"strided", {3, 4, 7, 6, 9, 8, 3, 3, 3, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
    {"dilated", {1, 4, 7, 8, 6, 8, 3, 3, 3, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1}},
    {"dilated_depth_only", {2, 4, 9, 5, 5, 8, 3, 3, 3, 1, 1, 1, 2, 1, 1, 1, 1, 1, 2, 1, 1, 1}},
    {"grouped", {3, 4, 5, 5, 6, 8, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2}},
    {"depthwise", {1, 4, 5, 6, 6, 4, 3, 3, 3, 2, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 4}},
    {"first_layer", {3, 1, 8, 9, 10, 8, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
    {"non_cubic", {1, 4, 6, 9, 7, 8, 2, 3, 1, 1, 2, 3, 1, 0, 0, 2, 0, 1, 2, 1, 1, 1}},
    {"layer", {2, 16, 8, 8, 8, 32, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
    {"layer_stride2", {2, 16, 9, 8, 8, 16, 3, 3, 3, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}}};

const dxrt::ConvBackend kBackends[] = {dxrt::ConvBackend::kOnednn, dxrt::ConvBackend::kIm2col};

struct Case {
  Conv3 p;
  dxrt::ConvBackend backend;
};

void PrintTo(const Case &c, std::ostream *os) {
  *os << c.p << (c.backend == dxrt::ConvBackend::kOnednn ? " onednn" : " im2col");
}

std::vector<Case> conv_values() {
  std::vector<Case> v;
  for (const auto &c : kConvs)
    for (dxrt::ConvBackend b : kBackends) v.push_back({c.second, b});
  return v;
}

std::string case_name(const ::testing::TestParamInfo<Case> &info) {
  const char *backend = info.param.backend == dxrt::ConvBackend::kOnednn ? "onednn" : "im2col";
  return std::string(kConvs[info.index / std::size(kBackends)].first) + "_" + backend;
}

// Runs the kernels on the case's backend, then returns to oneDNN, the default.
class Conv3dTest : public ::testing::TestWithParam<Case> {
protected:
  void SetUp() override { dxrt::set_conv_backend(GetParam().backend); }
  void TearDown() override { dxrt::set_conv_backend(dxrt::ConvBackend::kOnednn); }
};

TEST_P(Conv3dTest, ForwardMatchesReference) {
  const Conv3 p = GetParam().p;
  auto x = rnd<float>(p.xs(), 1), w = rnd<float>(p.ws(), 2);
  std::vector<float> y(size_t(p.ys()), 99.0f);
  forward(p, x, w, y);
  expect_close(y, ref_forward(p, x, w), p.cg() * p.kd * p.kh * p.kw, "y");
}

TEST_P(Conv3dTest, GradInputMatchesReference) {
  const Conv3 p = GetParam().p;
  auto x = rnd<float>(p.xs(), 3), w = rnd<float>(p.ws(), 4), dy = rnd<float>(p.ys(), 5);
  std::vector<float> dx(size_t(p.xs()), 99.0f); // overwritten
  grad_input(p, dy, w, dx);
  std::vector<double> rdx, rdw;
  ref_backward(p, x, w, dy, rdx, rdw);
  expect_close(dx, rdx, p.f / p.groups * p.kd * p.kh * p.kw, "dx");
}

TEST_P(Conv3dTest, GradWeightMatchesReference) {
  const Conv3 p = GetParam().p;
  auto x = rnd<float>(p.xs(), 3), w = rnd<float>(p.ws(), 4), dy = rnd<float>(p.ys(), 5);
  std::vector<float> dw(size_t(p.ws()), 99.0f); // overwritten
  grad_weight(p, dy, x, dw);
  std::vector<double> rdx, rdw;
  ref_backward(p, x, w, dy, rdx, rdw);
  expect_close(dw, rdw, p.n * p.od() * p.ho() * p.wo(), "dw");
}

// dxrt_conv3d_backward gives the two separate kernels' results bit for bit
// (twice: the second call finds the primitives, and dy's shared copy, cached).
TEST_P(Conv3dTest, BackwardMatchesSeparateKernelsExactly) {
  const Conv3 p = GetParam().p;
  auto x = rnd<float>(p.xs(), 12), w = rnd<float>(p.ws(), 13), dy = rnd<float>(p.ys(), 14);
  std::vector<float> dx(size_t(p.xs()), 99.0f), dw(size_t(p.ws()), 99.0f), fdx = dx, fdw = dw;
  grad_input(p, dy, w, dx);
  grad_weight(p, dy, x, dw);
  for (int round = 0; round < 2; ++round) {
    std::fill(fdx.begin(), fdx.end(), 77.0f);
    std::fill(fdw.begin(), fdw.end(), 77.0f);
    backward(p, dy, x, w, fdx, fdw);
    ASSERT_EQ(0, std::memcmp(dx.data(), fdx.data(), dx.size() * sizeof(float))) << "dx, round " << round;
    ASSERT_EQ(0, std::memcmp(dw.data(), fdw.data(), dw.size() * sizeof(float))) << "dw, round " << round;
  }
}

// dxrt_conv3d_forward_grad_weight (y and dw of one x, a transposed
// convolution's backward pass) gives the two separate kernels' results bit
// for bit, twice.
TEST_P(Conv3dTest, ForwardAndWeightGradientOfOneXMatchSeparateKernelsExactly) {
  const Conv3 p = GetParam().p;
  auto x = rnd<float>(p.xs(), 15), w = rnd<float>(p.ws(), 16), dy = rnd<float>(p.ys(), 17);
  std::vector<float> y(size_t(p.ys()), 99.0f), dw(size_t(p.ws()), 99.0f), fy = y, fdw = dw;
  forward(p, x, w, y);
  grad_weight(p, dy, x, dw);
  for (int round = 0; round < 2; ++round) {
    std::fill(fy.begin(), fy.end(), 77.0f);
    std::fill(fdw.begin(), fdw.end(), 77.0f);
    Memrefs m = memrefs(p, x, w, dy), out = memrefs(p, x, fdw, fy);
    _mlir_ciface_dxrt_conv3d_forward_grad_weight(&m.x, &m.w, &m.y, &out.y, &out.w, p.sd, p.sh, p.sw, p.pf, p.pk, p.pt,
                                                 p.pb, p.pl, p.pr, p.dd, p.dh, p.dw, p.groups);
    ASSERT_EQ(0, std::memcmp(y.data(), fy.data(), y.size() * sizeof(float))) << "y, round " << round;
    ASSERT_EQ(0, std::memcmp(dw.data(), fdw.data(), dw.size() * sizeof(float))) << "dw, round " << round;
  }
}

// The reference's adjoints are the derivatives of L = <conv(x, w), r>, by
// central differences in double.
void check_reference_gradients(const Conv3 &p) {
  auto x = rnd<double>(p.xs(), 6), w = rnd<double>(p.ws(), 7), r = rnd<double>(p.ys(), 8);
  std::vector<double> dx, dw;
  ref_backward(p, x, w, r, dx, dw);
  auto loss = [&](const std::vector<double> &xv, const std::vector<double> &wv) {
    std::vector<double> y = ref_forward(p, xv, wv);
    double s = 0;
    for (size_t i = 0; i < y.size(); ++i) s += y[i] * r[i];
    return s;
  };
  const double eps = 1e-6;
  for (size_t i = 0; i < x.size(); i += 1 + x.size() / 10) {
    auto xp = x, xm = x;
    xp[i] += eps;
    xm[i] -= eps;
    double fd = (loss(xp, w) - loss(xm, w)) / (2 * eps);
    ASSERT_NEAR(dx[i], fd, 1e-6 * std::max(1.0, std::fabs(fd))) << "dx element " << i;
  }
  for (size_t i = 0; i < w.size(); i += 1 + w.size() / 10) {
    auto wp = w, wm = w;
    wp[i] += eps;
    wm[i] -= eps;
    double fd = (loss(x, wp) - loss(x, wm)) / (2 * eps);
    ASSERT_NEAR(dw[i], fd, 1e-6 * std::max(1.0, std::fabs(fd))) << "dw element " << i;
  }
}

TEST(Conv3d, ReferenceGradientsMatchFiniteDifferencesInDouble) {
  for (const auto &c : kConvs) {
    SCOPED_TRACE(c.first);
    check_reference_gradients(c.second);
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, Conv3dTest, ::testing::ValuesIn(conv_values()), case_name);

// Which oneDNN implementation runs each direction (or im2col), recorded for
// the report; the 3-D direct kernel does not exist.
TEST(Conv3d, OnednnImplementationsAndNoDirectKernel) {
  for (const auto &c : kConvs) {
    const dxrt::ConvGeometry g = geometry(c.second);
    for (auto dir : {dxrt::ConvDir::kForward, dxrt::ConvDir::kGradInput, dxrt::ConvDir::kGradWeight}) {
      const char *impl = dxrt::conv2d_onednn_impl(dir, g);
      RecordProperty(std::string(c.first) + "_" + std::to_string(int(dir)), impl ? impl : "im2col");
      EXPECT_FALSE(dxrt::conv2d_direct_applies(dir, g)) << c.first;
      if (std::string(c.first).rfind("layer", 0) == 0) {
        EXPECT_NE(impl, nullptr) << c.first << " direction " << int(dir);
      }
    }
    RecordProperty(std::string(c.first) + "_shares_dy", dxrt::conv2d_backward_onednn_shares_dy(g) ? "yes" : "no");
  }
  // Whole channel blocks on both sides, both blocked JIT kernels: dxrt_conv3d_backward reorders dy once.
  const dxrt::ConvGeometry layer = geometry(kConvs[std::size(kConvs) - 2].second);
  const char *in = dxrt::conv2d_onednn_impl(dxrt::ConvDir::kGradInput, layer),
             *wt = dxrt::conv2d_onednn_impl(dxrt::ConvDir::kGradWeight, layer);
  if (in && wt && std::string(in).rfind("jit:", 0) == 0 && std::string(wt).rfind("jit:", 0) == 0) {
    EXPECT_TRUE(dxrt::conv2d_backward_onednn_shares_dy(layer)) << in << ", " << wt;
  }
}

// A 3-D convolution of depth 1 is the 2-D one (oneDNN runs other kernels on
// 5-D descriptors: equal up to rounding).
TEST(Conv3d, DepthOneIsTheTwoDimensionalConvolution) {
  //             n  c  d  h  w  f kd kh kw sd sh sw pf pk pt pb pl pr dd dh dw  g
  const Conv3 p{2, 4, 1, 7, 6, 8, 1, 3, 3, 1, 2, 1, 0, 0, 1, 0, 1, 1, 1, 1, 2, 2};
  auto x = rnd<float>(p.xs(), 41), w = rnd<float>(p.ws(), 42), dy = rnd<float>(p.ys(), 43);
  for (dxrt::ConvBackend b : kBackends) {
    dxrt::set_conv_backend(b);
    std::vector<float> y3(size_t(p.ys())), y2(y3.size()), dx3(size_t(p.xs())), dx2(dx3.size()),
        dw3(size_t(p.ws())), dw2(dw3.size());
    forward(p, x, w, y3);
    backward(p, dy, x, w, dx3, dw3);
    dxrt_memref4 xd = {x.data(), x.data(), 0, {p.n, p.c, p.h, p.w}, {p.c * p.h * p.w, p.h * p.w, p.w, 1}},
                 wd = {w.data(), w.data(), 0, {p.f, p.cg(), p.kh, p.kw}, {p.cg() * p.kh * p.kw, p.kh * p.kw, p.kw, 1}},
                 yd = {y2.data(), y2.data(), 0, {p.n, p.f, p.ho(), p.wo()},
                       {p.f * p.ho() * p.wo(), p.ho() * p.wo(), p.wo(), 1}},
                 dyd = {dy.data(), dy.data(), 0, {p.n, p.f, p.ho(), p.wo()},
                        {p.f * p.ho() * p.wo(), p.ho() * p.wo(), p.wo(), 1}},
                 dxd = xd, dwd = wd;
    dxd.allocated = dxd.aligned = dx2.data();
    dwd.allocated = dwd.aligned = dw2.data();
    _mlir_ciface_dxrt_conv2d_forward(&xd, &wd, &yd, p.sh, p.sw, p.pt, p.pb, p.pl, p.pr, p.dh, p.dw, p.groups);
    _mlir_ciface_dxrt_conv2d_backward(&dyd, &xd, &wd, &dxd, &dwd, p.sh, p.sw, p.pt, p.pb, p.pl, p.pr, p.dh, p.dw,
                                      p.groups);
    expect_close(y3, std::vector<double>(y2.begin(), y2.end()), 32, "y");
    expect_close(dx3, std::vector<double>(dx2.begin(), dx2.end()), 32, "dx");
    expect_close(dw3, std::vector<double>(dw2.begin(), dw2.end()), 128, "dw");
  }
  dxrt::set_conv_backend(dxrt::ConvBackend::kOnednn);
}

// An empty batch: no output, and a zero weight gradient (im2col on both backends).
TEST(Conv3d, EmptyBatchZeroesTheWeightGradient) {
  //             n  c  d  h  w  f kd kh kw sd sh sw pf pk pt pb pl pr dd dh dw  g
  const Conv3 p{0, 2, 4, 4, 4, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  std::vector<float> x, dy, dx, dw(size_t(p.ws()), 99.0f);
  grad_weight(p, dy, x, dw);
  EXPECT_EQ(dw, std::vector<float>(dw.size(), 0.0f));
}

TEST(Conv3dDeathTest, WrongOutputSizeAbortsNamingTheKernel) {
  std::vector<float> x(125), w(27), y(125);
  dxrt_memref5 xd = m5(x, 1, 1, 5, 5, 5), wd = m5(w, 1, 1, 3, 3, 3), yd = m5(y, 1, 1, 5, 5, 5);
  EXPECT_DEATH(_mlir_ciface_dxrt_conv3d_forward(&xd, &wd, &yd, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1),
               "dxrt_conv3d_forward: output is \\[1, 1, 5, 5, 5\\], expected \\[1, 1, 3, 3, 3\\]");
  EXPECT_DEATH(_mlir_ciface_dxrt_conv3d_grad_input(&yd, &wd, &xd, 2, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1),
               "dxrt_conv3d_grad_input: output is \\[1, 1, 5, 5, 5\\], expected \\[1, 1, 2, 3, 3\\]");
  EXPECT_DEATH(_mlir_ciface_dxrt_conv3d_grad_weight(&yd, &xd, &wd, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 1),
               "dxrt_conv3d_grad_weight: output is \\[1, 1, 5, 5, 5\\], expected \\[1, 1, 5, 5, 3\\]");
}

TEST(Conv3dDeathTest, BackwardChecksTheGradientShapes) {
  std::vector<float> x(125), w(27), dy(27), dx(100), dw(27);
  dxrt_memref5 xd = m5(x, 1, 1, 5, 5, 5), wd = m5(w, 1, 1, 3, 3, 3), dyd = m5(dy, 1, 1, 3, 3, 3),
               dxd = m5(dx, 1, 1, 4, 5, 5), dwd = m5(dw, 1, 1, 3, 3, 3);
  EXPECT_DEATH(_mlir_ciface_dxrt_conv3d_backward(&dyd, &xd, &wd, &dxd, &dwd, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1),
               "dxrt_conv3d_backward: dx is \\[1, 1, 4, 5, 5\\] but x is \\[1, 1, 5, 5, 5\\]");
}

TEST(Conv3dDeathTest, AttributesAndGroupsAreChecked) {
  std::vector<float> x(3 * 125), w(2 * 27), y(2 * 27);
  dxrt_memref5 xd = m5(x, 1, 3, 5, 5, 5), wd = m5(w, 2, 1, 3, 3, 3), yd = m5(y, 1, 2, 3, 3, 3);
  EXPECT_DEATH(_mlir_ciface_dxrt_conv3d_forward(&xd, &wd, &yd, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 2),
               "dxrt_conv3d_forward: groups = 2 must divide");
  EXPECT_DEATH(_mlir_ciface_dxrt_conv3d_forward(&xd, &wd, &yd, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1),
               "dxrt_conv3d_forward: stride \\(0, 1, 1\\) must be positive");
  EXPECT_DEATH(_mlir_ciface_dxrt_conv3d_forward(&xd, &wd, &yd, 1, 1, 1, -1, 0, 0, 0, 0, 0, 1, 1, 1, 1),
               "dxrt_conv3d_forward: padding \\(-1, 0, 0, 0, 0, 0\\) must not be negative");
  EXPECT_DEATH(_mlir_ciface_dxrt_conv3d_forward(&xd, &wd, &yd, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1),
               "dxrt_conv3d_forward: w is \\[2, 1, 3, 3, 3\\] but x has 3 channels");
}

} // namespace
