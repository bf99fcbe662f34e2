// Convolution kernels against a double-precision reference, whose own
// gradients are checked by finite differences; and the float kernels'
// gradients by finite differences too. Each runs on both backends (oneDNN
// and im2col + GEMM, kernels/Conv2d.h), and ConvBackendsTest compares the
// two on layer-sized shapes; ConvDirectTest the direct kernel for few input
// channels with oneDNN and the reference.
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

struct Conv {
  int64_t n, c, h, w, f, kh, kw, sh, sw, pt, pb, pl, pr, dh, dw, groups;
  int64_t ho() const { return (h + pt + pb - dh * (kh - 1) - 1) / sh + 1; }
  int64_t wo() const { return (w + pl + pr - dw * (kw - 1) - 1) / sw + 1; }
  int64_t xs() const { return n * c * h * w; }
  int64_t ws() const { return f * (c / groups) * kh * kw; }
  int64_t ys() const { return n * f * ho() * wo(); }
};

std::ostream &operator<<(std::ostream &os, const Conv &p) {
  return os << "x[" << p.n << "," << p.c << "," << p.h << "," << p.w << "] f" << p.f << " k" << p.kh << "x" << p.kw
            << " s" << p.sh << "," << p.sw << " p" << p.pt << "," << p.pb << "," << p.pl << "," << p.pr << " d" << p.dh
            << "," << p.dw << " g" << p.groups;
}

// y[n, f, oh, ow] = sum over the group's channels and the window, in double.
template <typename T>
std::vector<double> ref_forward(const Conv &p, const std::vector<T> &x, const std::vector<T> &w) {
  const int64_t cg = p.c / p.groups, fg = p.f / p.groups, HO = p.ho(), WO = p.wo();
  std::vector<double> y(size_t(p.ys()), 0.0);
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t f = 0; f < p.f; ++f)
      for (int64_t oh = 0; oh < HO; ++oh)
        for (int64_t ow = 0; ow < WO; ++ow) {
          double s = 0;
          const int64_t g = f / fg;
          for (int64_t ci = 0; ci < cg; ++ci)
            for (int64_t i = 0; i < p.kh; ++i)
              for (int64_t j = 0; j < p.kw; ++j) {
                int64_t ih = oh * p.sh - p.pt + i * p.dh, iw = ow * p.sw - p.pl + j * p.dw;
                if (ih < 0 || ih >= p.h || iw < 0 || iw >= p.w) continue;
                s += double(x[((n * p.c + g * cg + ci) * p.h + ih) * p.w + iw]) *
                     double(w[((f * cg + ci) * p.kh + i) * p.kw + j]);
              }
          y[((n * p.f + f) * HO + oh) * WO + ow] = s;
        }
  return y;
}

// The adjoints of ref_forward, written out as loops.
void ref_backward(const Conv &p, const std::vector<double> &x, const std::vector<double> &w,
                  const std::vector<double> &dy, std::vector<double> &dx, std::vector<double> &dw) {
  const int64_t cg = p.c / p.groups, fg = p.f / p.groups, HO = p.ho(), WO = p.wo();
  dx.assign(size_t(p.xs()), 0.0);
  dw.assign(size_t(p.ws()), 0.0);
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t f = 0; f < p.f; ++f)
      for (int64_t oh = 0; oh < HO; ++oh)
        for (int64_t ow = 0; ow < WO; ++ow) {
          const double d = dy[size_t(((n * p.f + f) * HO + oh) * WO + ow)];
          const int64_t g = f / fg;
          for (int64_t ci = 0; ci < cg; ++ci)
            for (int64_t i = 0; i < p.kh; ++i)
              for (int64_t j = 0; j < p.kw; ++j) {
                int64_t ih = oh * p.sh - p.pt + i * p.dh, iw = ow * p.sw - p.pl + j * p.dw;
                if (ih < 0 || ih >= p.h || iw < 0 || iw >= p.w) continue;
                size_t xi = size_t(((n * p.c + g * cg + ci) * p.h + ih) * p.w + iw);
                size_t wi = size_t(((f * cg + ci) * p.kh + i) * p.kw + j);
                dx[xi] += d * w[wi];
                dw[wi] += d * x[xi];
              }
        }
}

template <typename T> std::vector<T> rnd(int64_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> v(static_cast<size_t>(n));
  for (T &x : v) x = T(u(g));
  return v;
}

dxrt_memref4 m4(std::vector<float> &v, int64_t a, int64_t b, int64_t c, int64_t d) {
  return {v.data(), v.data(), 0, {a, b, c, d}, {b * c * d, c * d, d, 1}};
}

double dot(const std::vector<double> &a, const std::vector<double> &b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

struct Case {
  Conv p;
  dxrt::ConvBackend backend;
};

// Runs the kernels on the case's backend, then returns to oneDNN, the default.
class ConvTest : public ::testing::TestWithParam<Case> {
protected:
  void SetUp() override { dxrt::set_conv_backend(GetParam().backend); }
  void TearDown() override { dxrt::set_conv_backend(dxrt::ConvBackend::kOnednn); }
};

TEST_P(ConvTest, ForwardMatchesReference) {
  const Conv p = GetParam().p;
  auto x = rnd<float>(p.xs(), 1), w = rnd<float>(p.ws(), 2);
  std::vector<float> y(size_t(p.ys()), 99.0f);
  dxrt_memref4 xd = m4(x, p.n, p.c, p.h, p.w), wd = m4(w, p.f, p.c / p.groups, p.kh, p.kw),
               yd = m4(y, p.n, p.f, p.ho(), p.wo());
  _mlir_ciface_dxrt_conv2d_forward(&xd, &wd, &yd, p.sh, p.sw, p.pt, p.pb, p.pl, p.pr, p.dh, p.dw, p.groups);
  std::vector<double> ref = ref_forward(p, x, w);
  for (size_t i = 0; i < y.size(); ++i) ASSERT_NEAR(y[i], ref[i], 1e-4) << "element " << i;
}

TEST_P(ConvTest, GradientsMatchReference) {
  const Conv p = GetParam().p;
  auto x = rnd<float>(p.xs(), 3), w = rnd<float>(p.ws(), 4), dy = rnd<float>(p.ys(), 5);
  std::vector<float> dx(size_t(p.xs()), 99.0f), dw(size_t(p.ws()), 99.0f);
  dxrt_memref4 xd = m4(x, p.n, p.c, p.h, p.w), wd = m4(w, p.f, p.c / p.groups, p.kh, p.kw),
               dyd = m4(dy, p.n, p.f, p.ho(), p.wo()), dxd = m4(dx, p.n, p.c, p.h, p.w),
               dwd = m4(dw, p.f, p.c / p.groups, p.kh, p.kw);
  _mlir_ciface_dxrt_conv2d_grad_input(&dyd, &wd, &dxd, p.sh, p.sw, p.pt, p.pb, p.pl, p.pr, p.dh, p.dw, p.groups);
  _mlir_ciface_dxrt_conv2d_grad_weight(&dyd, &xd, &dwd, p.sh, p.sw, p.pt, p.pb, p.pl, p.pr, p.dh, p.dw, p.groups);
  std::vector<double> rdx, rdw;
  ref_backward(p, std::vector<double>(x.begin(), x.end()), std::vector<double>(w.begin(), w.end()),
               std::vector<double>(dy.begin(), dy.end()), rdx, rdw);
  for (size_t i = 0; i < dx.size(); ++i) ASSERT_NEAR(dx[i], rdx[i], 1e-4) << "dx element " << i;
  for (size_t i = 0; i < dw.size(); ++i) ASSERT_NEAR(dw[i], rdw[i], 1e-4) << "dw element " << i;
}

// dxrt_conv2d_backward (both gradients from one dy, reordered once) gives
// the two separate kernels' results bit for bit, on every case and backend.
TEST_P(ConvTest, FusedBackwardMatchesSeparateKernelsExactly) {
  const Conv p = GetParam().p;
  auto x = rnd<float>(p.xs(), 12), w = rnd<float>(p.ws(), 13), dy = rnd<float>(p.ys(), 14);
  std::vector<float> dx(size_t(p.xs()), 99.0f), dw(size_t(p.ws()), 99.0f), fdx = dx, fdw = dw;
  dxrt_memref4 xd = m4(x, p.n, p.c, p.h, p.w), wd = m4(w, p.f, p.c / p.groups, p.kh, p.kw),
               dyd = m4(dy, p.n, p.f, p.ho(), p.wo()), dxd = m4(dx, p.n, p.c, p.h, p.w),
               dwd = m4(dw, p.f, p.c / p.groups, p.kh, p.kw), fdxd = m4(fdx, p.n, p.c, p.h, p.w),
               fdwd = m4(fdw, p.f, p.c / p.groups, p.kh, p.kw);
  _mlir_ciface_dxrt_conv2d_grad_input(&dyd, &wd, &dxd, p.sh, p.sw, p.pt, p.pb, p.pl, p.pr, p.dh, p.dw, p.groups);
  _mlir_ciface_dxrt_conv2d_grad_weight(&dyd, &xd, &dwd, p.sh, p.sw, p.pt, p.pb, p.pl, p.pr, p.dh, p.dw, p.groups);
  // Twice: the second call finds the primitives (and dy's shared copy) cached.
  for (int round = 0; round < 2; ++round) {
    std::fill(fdx.begin(), fdx.end(), 77.0f);
    std::fill(fdw.begin(), fdw.end(), 77.0f);
    _mlir_ciface_dxrt_conv2d_backward(&dyd, &xd, &wd, &fdxd, &fdwd, p.sh, p.sw, p.pt, p.pb, p.pl, p.pr, p.dh, p.dw,
                                      p.groups);
    ASSERT_EQ(0, std::memcmp(dx.data(), fdx.data(), dx.size() * sizeof(float))) << "dx, round " << round;
    ASSERT_EQ(0, std::memcmp(dw.data(), fdw.data(), dw.size() * sizeof(float))) << "dw, round " << round;
  }
}

// The reference's adjoints are the derivatives of L = <conv(x, w), r>, by
// central differences in double.
TEST_P(ConvTest, ReferenceGradientsMatchFiniteDifferencesInDouble) {
  const Conv p = GetParam().p;
  auto x = rnd<double>(p.xs(), 6), w = rnd<double>(p.ws(), 7), r = rnd<double>(p.ys(), 8);
  std::vector<double> dx, dw;
  ref_backward(p, x, w, r, dx, dw);
  const double eps = 1e-6;
  for (size_t i = 0; i < x.size(); i += 1 + x.size() / 40) {
    auto xp = x, xm = x;
    xp[i] += eps;
    xm[i] -= eps;
    double fd = (dot(ref_forward(p, xp, w), r) - dot(ref_forward(p, xm, w), r)) / (2 * eps);
    ASSERT_NEAR(dx[i], fd, 1e-6 * std::max(1.0, std::fabs(fd))) << "dx element " << i;
  }
  for (size_t i = 0; i < w.size(); i += 1 + w.size() / 40) {
    auto wp = w, wm = w;
    wp[i] += eps;
    wm[i] -= eps;
    double fd = (dot(ref_forward(p, x, wp), r) - dot(ref_forward(p, x, wm), r)) / (2 * eps);
    ASSERT_NEAR(dw[i], fd, 1e-6 * std::max(1.0, std::fabs(fd))) << "dw element " << i;
  }
}

// The float kernels' gradients against central differences of the float
// forward kernel (relative error < 1e-2; float rounding limits it).
TEST_P(ConvTest, KernelGradientsMatchFiniteDifferencesInFloat) {
  const Conv p = GetParam().p;
  auto x = rnd<float>(p.xs(), 9), w = rnd<float>(p.ws(), 10), r = rnd<float>(p.ys(), 11);
  std::vector<float> y(size_t(p.ys())), dx(size_t(p.xs())), dw(size_t(p.ws()));
  auto loss = [&](std::vector<float> &xv, std::vector<float> &wv) {
    dxrt_memref4 xd = m4(xv, p.n, p.c, p.h, p.w), wd = m4(wv, p.f, p.c / p.groups, p.kh, p.kw),
                 yd = m4(y, p.n, p.f, p.ho(), p.wo());
    _mlir_ciface_dxrt_conv2d_forward(&xd, &wd, &yd, p.sh, p.sw, p.pt, p.pb, p.pl, p.pr, p.dh, p.dw, p.groups);
    double s = 0;
    for (size_t i = 0; i < y.size(); ++i) s += double(y[i]) * r[i];
    return s;
  };
  dxrt_memref4 xd = m4(x, p.n, p.c, p.h, p.w), wd = m4(w, p.f, p.c / p.groups, p.kh, p.kw),
               rd = m4(r, p.n, p.f, p.ho(), p.wo()), dxd = m4(dx, p.n, p.c, p.h, p.w),
               dwd = m4(dw, p.f, p.c / p.groups, p.kh, p.kw);
  _mlir_ciface_dxrt_conv2d_grad_input(&rd, &wd, &dxd, p.sh, p.sw, p.pt, p.pb, p.pl, p.pr, p.dh, p.dw, p.groups);
  _mlir_ciface_dxrt_conv2d_grad_weight(&rd, &xd, &dwd, p.sh, p.sw, p.pt, p.pb, p.pl, p.pr, p.dh, p.dw, p.groups);
  const float eps = 1e-2f;
  for (size_t i = 0; i < x.size(); i += 1 + x.size() / 20) {
    float keep = x[i];
    x[i] = keep + eps;
    double lp = loss(x, w);
    x[i] = keep - eps;
    double lm = loss(x, w);
    x[i] = keep;
    double fd = (lp - lm) / (2 * eps);
    ASSERT_NEAR(dx[i], fd, 1e-2 * std::max(1.0, std::fabs(fd))) << "dx element " << i;
  }
  for (size_t i = 0; i < w.size(); i += 1 + w.size() / 20) {
    float keep = w[i];
    w[i] = keep + eps;
    double lp = loss(x, w);
    w[i] = keep - eps;
    double lm = loss(x, w);
    w[i] = keep;
    double fd = (lp - lm) / (2 * eps);
    ASSERT_NEAR(dw[i], fd, 1e-2 * std::max(1.0, std::fabs(fd))) << "dw element " << i;
  }
}

//                                     n  c  h  w  f kh kw sh sw pt pb pl pr dh dw groups
const std::pair<const char *, Conv> kConvs[] = {{"same3x3", {2, 3, 7, 6, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
                                                {"strided", {2, 2, 9, 8, 3, 3, 2, 2, 3, 0, 0, 0, 0, 1, 1, 1}},
                                                {"asymmetric_pad", {1, 2, 8, 9, 3, 3, 3, 2, 1, 0, 1, 2, 0, 1, 1, 1}},
                                                {"dilated", {2, 2, 9, 9, 2, 3, 3, 1, 2, 2, 2, 1, 3, 2, 3, 1}},
                                                {"grouped", {2, 4, 6, 5, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2}},
                                                {"depthwise", {1, 3, 5, 5, 3, 3, 3, 2, 2, 1, 0, 0, 1, 1, 1, 3}},
                                                {"everything", {1, 6, 7, 7, 6, 2, 3, 1, 2, 1, 0, 2, 1, 2, 1, 3}},
                                                {"pointwise", {3, 4, 5, 6, 5, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1}},
                                                {"pointwise_grouped", {2, 4, 5, 6, 4, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 2}},
                                                {"pointwise_strided", {2, 3, 6, 6, 2, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1, 1}}};

const dxrt::ConvBackend kBackends[] = {dxrt::ConvBackend::kOnednn, dxrt::ConvBackend::kIm2col};

// Every shape on every backend, in that order.
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

INSTANTIATE_TEST_SUITE_P(Shapes, ConvTest, ::testing::ValuesIn(conv_values()), case_name);

// ---- oneDNN against im2col on layer-sized shapes ----
// Where oneDNN picks its blocked JIT kernels (channels in blocks of 16), its
// own GEMM (plain layouts), or hands the case to im2col; both backends must
// agree with the double reference, and with each other.

//                                            n   c   h   w    f kh kw sh sw pt pb pl pr dh dw groups
const std::pair<const char *, Conv> kLayers[] = {{"cnn_first", {4, 1, 28, 28, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
                                                 {"cnn_second", {4, 32, 14, 14, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
                                                 {"rgb_stem", {2, 3, 32, 32, 16, 7, 7, 2, 2, 3, 3, 3, 3, 1, 1, 1}},
                                                 {"stride2_odd", {2, 32, 15, 15, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1}},
                                                 {"pointwise", {2, 64, 14, 14, 128, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1}},
                                                 {"pointwise_s2", {2, 64, 14, 14, 32, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1, 1}},
                                                 {"dilated", {2, 16, 20, 20, 16, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1}},
                                                 {"dilated_asym", {2, 16, 17, 19, 32, 3, 3, 1, 2, 2, 1, 3, 0, 2, 3, 1}},
                                                 {"asym_pad", {2, 16, 9, 10, 24, 3, 3, 1, 1, 0, 2, 1, 0, 1, 1, 1}},
                                                 {"grouped", {2, 32, 12, 12, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 4}},
                                                 {"depthwise", {2, 32, 16, 16, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 32}},
                                                 {"depthwise_s2", {2, 48, 15, 15, 48, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 48}},
                                                 {"odd_channels", {2, 5, 11, 11, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
                                                 {"k5", {1, 8, 16, 16, 16, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 1}}};

dxrt::ConvGeometry geometry(const Conv &p) {
  // n, c, h, w, f, kh, kw, ho, wo, stride, padding, dilation, groups, per-group channels and filters
  return {p.n, p.c, p.h, p.w, p.f, p.kh, p.kw, p.ho(), p.wo(), p.sh, p.sw,
          p.pt, p.pb, p.pl, p.pr, p.dh, p.dw, p.groups, p.c / p.groups, p.f / p.groups};
}

// The three directions on one backend.
struct Results {
  std::vector<float> y, dx, dw;
};

Results run_all(const Conv &p, dxrt::ConvBackend backend, std::vector<float> &x, std::vector<float> &w,
                std::vector<float> &dy) {
  dxrt::set_conv_backend(backend);
  Results r{std::vector<float>(size_t(p.ys()), 99.0f), std::vector<float>(size_t(p.xs()), 99.0f),
            std::vector<float>(size_t(p.ws()), 99.0f)};
  dxrt_memref4 xd = m4(x, p.n, p.c, p.h, p.w), wd = m4(w, p.f, p.c / p.groups, p.kh, p.kw),
               yd = m4(r.y, p.n, p.f, p.ho(), p.wo()), dyd = m4(dy, p.n, p.f, p.ho(), p.wo()),
               dxd = m4(r.dx, p.n, p.c, p.h, p.w), dwd = m4(r.dw, p.f, p.c / p.groups, p.kh, p.kw);
  _mlir_ciface_dxrt_conv2d_forward(&xd, &wd, &yd, p.sh, p.sw, p.pt, p.pb, p.pl, p.pr, p.dh, p.dw, p.groups);
  _mlir_ciface_dxrt_conv2d_grad_input(&dyd, &wd, &dxd, p.sh, p.sw, p.pt, p.pb, p.pl, p.pr, p.dh, p.dw, p.groups);
  _mlir_ciface_dxrt_conv2d_grad_weight(&dyd, &xd, &dwd, p.sh, p.sw, p.pt, p.pb, p.pl, p.pr, p.dh, p.dw, p.groups);
  dxrt::set_conv_backend(dxrt::ConvBackend::kOnednn);
  return r;
}

// |a[i] - ref[i]| <= tol * (1 + |ref[i]|), tol from the number of terms of each
// sum (float rounding grows with it).
void expect_close(const std::vector<float> &a, const std::vector<double> &ref, int64_t terms, const char *what) {
  const double tol = 1e-6 * double(std::max<int64_t>(terms, 16));
  ASSERT_EQ(a.size(), ref.size()) << what;
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_NEAR(a[i], ref[i], tol * (1 + std::fabs(ref[i]))) << what << " element " << i;
}

void expect_close(const std::vector<float> &a, const std::vector<float> &b, int64_t terms, const char *what) {
  expect_close(a, std::vector<double>(b.begin(), b.end()), terms, what);
}

class ConvBackendsTest : public ::testing::TestWithParam<Conv> {};

TEST_P(ConvBackendsTest, OnednnAndIm2colAgreeWithTheReference) {
  const Conv p = GetParam();
  auto x = rnd<float>(p.xs(), 21), w = rnd<float>(p.ws(), 22), dy = rnd<float>(p.ys(), 23);
  Results one = run_all(p, dxrt::ConvBackend::kOnednn, x, w, dy);
  Results gemm = run_all(p, dxrt::ConvBackend::kIm2col, x, w, dy);
  std::vector<double> ref_dx, ref_dw;
  ref_backward(p, std::vector<double>(x.begin(), x.end()), std::vector<double>(w.begin(), w.end()),
               std::vector<double>(dy.begin(), dy.end()), ref_dx, ref_dw);
  const std::vector<double> ref_y = ref_forward(p, x, w);
  const int64_t k_fwd = p.c / p.groups * p.kh * p.kw, k_dx = p.f / p.groups * p.kh * p.kw,
                k_dw = p.n * p.ho() * p.wo();
  expect_close(one.y, ref_y, k_fwd, "oneDNN y");
  expect_close(gemm.y, ref_y, k_fwd, "im2col y");
  expect_close(one.y, gemm.y, k_fwd, "oneDNN vs im2col y");
  expect_close(one.dx, ref_dx, k_dx, "oneDNN dx");
  expect_close(gemm.dx, ref_dx, k_dx, "im2col dx");
  expect_close(one.dx, gemm.dx, k_dx, "oneDNN vs im2col dx");
  expect_close(one.dw, ref_dw, k_dw, "oneDNN dw");
  expect_close(gemm.dw, ref_dw, k_dw, "im2col dw");
  expect_close(one.dw, gemm.dw, k_dw, "oneDNN vs im2col dw");
}

// These layers are what oneDNN is for: none falls back to im2col.
TEST_P(ConvBackendsTest, OnednnRunsEveryDirection) {
  const Conv p = GetParam();
  const dxrt::ConvGeometry g = geometry(p);
  for (auto dir : {dxrt::ConvDir::kForward, dxrt::ConvDir::kGradInput, dxrt::ConvDir::kGradWeight}) {
    const char *impl = dxrt::conv2d_onednn_impl(dir, g);
    EXPECT_NE(impl, nullptr) << "direction " << int(dir);
    RecordProperty(std::string("impl") + std::to_string(int(dir)), impl ? impl : "im2col");
  }
}

// The fused backward on layer shapes: the two kernels' results bit for bit,
// and where both directions run oneDNN's blocked JIT kernels on whole
// channel blocks, dy is reordered once.
TEST_P(ConvBackendsTest, FusedBackwardMatchesSeparateKernelsExactly) {
  const Conv p = GetParam();
  auto x = rnd<float>(p.xs(), 24), w = rnd<float>(p.ws(), 25), dy = rnd<float>(p.ys(), 26);
  Results sep = run_all(p, dxrt::ConvBackend::kOnednn, x, w, dy);
  std::vector<float> dx(size_t(p.xs()), 77.0f), dw(size_t(p.ws()), 77.0f);
  dxrt_memref4 xd = m4(x, p.n, p.c, p.h, p.w), wd = m4(w, p.f, p.c / p.groups, p.kh, p.kw),
               dyd = m4(dy, p.n, p.f, p.ho(), p.wo()), dxd = m4(dx, p.n, p.c, p.h, p.w),
               dwd = m4(dw, p.f, p.c / p.groups, p.kh, p.kw);
  _mlir_ciface_dxrt_conv2d_backward(&dyd, &xd, &wd, &dxd, &dwd, p.sh, p.sw, p.pt, p.pb, p.pl, p.pr, p.dh, p.dw,
                                    p.groups);
  ASSERT_EQ(0, std::memcmp(sep.dx.data(), dx.data(), dx.size() * sizeof(float))) << "dx";
  ASSERT_EQ(0, std::memcmp(sep.dw.data(), dw.data(), dw.size() * sizeof(float))) << "dw";
  const dxrt::ConvGeometry g = geometry(p);
  const char *in = dxrt::conv2d_onednn_impl(dxrt::ConvDir::kGradInput, g),
             *wt = dxrt::conv2d_onednn_impl(dxrt::ConvDir::kGradWeight, g);
  bool blocked_jit = in && wt && std::string(in).rfind("jit:", 0) == 0 && std::string(wt).rfind("jit:", 0) == 0;
  RecordProperty("shares_dy", dxrt::conv2d_backward_onednn_shares_dy(g) ? "yes" : "no");
  // Plain channel blocks on both sides (16 on AVX-512, 8 on AVX2): both
  // primitives want dy in the same blocked layout.
  if (blocked_jit && p.c % 16 == 0 && p.f % 16 == 0 && p.groups == 1) {
    EXPECT_TRUE(dxrt::conv2d_backward_onednn_shares_dy(g)) << in << ", " << wt;
  }
}

// The forward and the weight gradient of one x (a transposed convolution's
// backward pass) on layer shapes: the two kernels' results bit for bit, twice
// (the second call finds the primitives cached), and where both directions
// run oneDNN's blocked JIT kernels on whole channel blocks, x is reordered
// once.
TEST_P(ConvBackendsTest, ForwardAndWeightGradientOfOneXMatchSeparateKernelsExactly) {
  const Conv p = GetParam();
  auto x = rnd<float>(p.xs(), 27), w = rnd<float>(p.ws(), 28), dy = rnd<float>(p.ys(), 29);
  Results sep = run_all(p, dxrt::ConvBackend::kOnednn, x, w, dy);
  for (int round = 0; round < 2; ++round) {
    std::vector<float> y(size_t(p.ys()), 77.0f), dw(size_t(p.ws()), 77.0f);
    dxrt_memref4 xd = m4(x, p.n, p.c, p.h, p.w), wd = m4(w, p.f, p.c / p.groups, p.kh, p.kw),
                 dyd = m4(dy, p.n, p.f, p.ho(), p.wo()), yd = m4(y, p.n, p.f, p.ho(), p.wo()),
                 dwd = m4(dw, p.f, p.c / p.groups, p.kh, p.kw);
    _mlir_ciface_dxrt_conv2d_forward_grad_weight(&xd, &wd, &dyd, &yd, &dwd, p.sh, p.sw, p.pt, p.pb, p.pl, p.pr, p.dh,
                                                 p.dw, p.groups);
    ASSERT_EQ(0, std::memcmp(sep.y.data(), y.data(), y.size() * sizeof(float))) << "y, round " << round;
    ASSERT_EQ(0, std::memcmp(sep.dw.data(), dw.data(), dw.size() * sizeof(float))) << "dw, round " << round;
  }
  const dxrt::ConvGeometry g = geometry(p);
  const char *fw = dxrt::conv2d_onednn_impl(dxrt::ConvDir::kForward, g),
             *wt = dxrt::conv2d_onednn_impl(dxrt::ConvDir::kGradWeight, g);
  bool blocked_jit = fw && wt && std::string(fw).rfind("jit:", 0) == 0 && std::string(wt).rfind("jit:", 0) == 0;
  RecordProperty("shares_x", dxrt::conv2d_forward_grad_weight_onednn_shares_x(g) ? "yes" : "no");
  if (blocked_jit && p.c % 16 == 0 && p.f % 16 == 0 && p.groups == 1) {
    EXPECT_TRUE(dxrt::conv2d_forward_grad_weight_onednn_shares_x(g)) << fw << ", " << wt;
  }
}

// The shapes of a named table, and the test name of each: its name there.
template <size_t N> std::vector<Conv> shapes(const std::pair<const char *, Conv> (&table)[N]) {
  std::vector<Conv> v;
  for (const auto &c : table) v.push_back(c.second);
  return v;
}
template <size_t N> auto shape_names(const std::pair<const char *, Conv> (&table)[N]) {
  return [&table](const ::testing::TestParamInfo<Conv> &info) { return std::string(table[info.index].first); };
}

INSTANTIATE_TEST_SUITE_P(Layers, ConvBackendsTest, ::testing::ValuesIn(shapes(kLayers)), shape_names(kLayers));

// Cached primitives take new pointers on every call: shapes interleaved, on
// fresh buffers each time, give what a first call gives.
TEST(ConvBackends, CachedPrimitivesFollowTheirTensors) {
  const Conv a = kLayers[1].second, b = kLayers[3].second;
  for (int round = 0; round < 3; ++round)
    for (const Conv &p : {a, b}) {
      auto x = rnd<float>(p.xs(), 30 + unsigned(round)), w = rnd<float>(p.ws(), 40 + unsigned(round)),
           dy = rnd<float>(p.ys(), 50 + unsigned(round));
      Results one = run_all(p, dxrt::ConvBackend::kOnednn, x, w, dy);
      Results gemm = run_all(p, dxrt::ConvBackend::kIm2col, x, w, dy);
      expect_close(one.y, gemm.y, p.c / p.groups * p.kh * p.kw, "y");
      expect_close(one.dx, gemm.dx, p.f / p.groups * p.kh * p.kw, "dx");
      expect_close(one.dw, gemm.dw, p.n * p.ho() * p.wo(), "dw");
    }
}

// Winograd F(4x4, 3x3) (DXRT_CONV_ALGORITHM=winograd forces it wherever
// oneDNN has it): the three directions agree with the float64 reference at
// the direct kernels' tolerance, and on an AVX-512 CPU oneDNN's Winograd
// kernel is what runs them.
const std::pair<const char *, Conv> kWinogradLayers[] = {
    {"cnn_second", {4, 32, 14, 14, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
    {"c64_11x11", {2, 64, 11, 11, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
    {"odd_channels", {2, 24, 12, 13, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
    {"no_padding", {2, 32, 10, 10, 32, 3, 3, 1, 1, 0, 0, 0, 0, 1, 1, 1}}};

// oneDNN's three directions on (x, w, dy) against the float64 reference, at
// the direct kernels' tolerance; returns them.
Results onednn_against_reference(const Conv &p, std::vector<float> &x, std::vector<float> &w,
                                 std::vector<float> &dy) {
  Results one = run_all(p, dxrt::ConvBackend::kOnednn, x, w, dy);
  std::vector<double> ref_dx, ref_dw;
  ref_backward(p, std::vector<double>(x.begin(), x.end()), std::vector<double>(w.begin(), w.end()),
               std::vector<double>(dy.begin(), dy.end()), ref_dx, ref_dw);
  expect_close(one.y, ref_forward(p, x, w), p.c * p.kh * p.kw, "y");
  expect_close(one.dx, ref_dx, p.f * p.kh * p.kw, "dx");
  expect_close(one.dw, ref_dw, p.n * p.ho() * p.wo(), "dw");
  return one;
}

// No direction of the geometry runs a Winograd kernel.
void expect_no_winograd(const dxrt::ConvGeometry &g) {
  for (auto dir : {dxrt::ConvDir::kForward, dxrt::ConvDir::kGradInput, dxrt::ConvDir::kGradWeight}) {
    const char *impl = dxrt::conv2d_onednn_impl(dir, g);
    if (impl) {
      EXPECT_EQ(std::string(impl).find("wino"), std::string::npos) << "direction " << int(dir) << ": " << impl;
    }
  }
}

class ConvWinogradTest : public ::testing::TestWithParam<Conv> {
protected:
  void SetUp() override { dxrt::set_conv_algorithm(dxrt::ConvAlgorithm::kWinograd); }
  void TearDown() override { dxrt::set_conv_algorithm(dxrt::ConvAlgorithm::kAuto); }
};

TEST_P(ConvWinogradTest, AgreesWithTheReference) {
  const Conv p = GetParam();
  auto x = rnd<float>(p.xs(), 61), w = rnd<float>(p.ws(), 62), dy = rnd<float>(p.ys(), 63);
  Results one = onednn_against_reference(p, x, w, dy);
  // The fused backward (one dy for both gradients) gives the same bits.
  std::vector<float> dx(size_t(p.xs()), 77.0f), dw(size_t(p.ws()), 77.0f);
  dxrt_memref4 xd = m4(x, p.n, p.c, p.h, p.w), wd = m4(w, p.f, p.c, p.kh, p.kw), dyd = m4(dy, p.n, p.f, p.ho(), p.wo()),
               dxd = m4(dx, p.n, p.c, p.h, p.w), dwd = m4(dw, p.f, p.c, p.kh, p.kw);
  _mlir_ciface_dxrt_conv2d_backward(&dyd, &xd, &wd, &dxd, &dwd, p.sh, p.sw, p.pt, p.pb, p.pl, p.pr, p.dh, p.dw,
                                    p.groups);
  ASSERT_EQ(0, std::memcmp(one.dx.data(), dx.data(), dx.size() * sizeof(float))) << "dx";
  ASSERT_EQ(0, std::memcmp(one.dw.data(), dw.data(), dw.size() * sizeof(float))) << "dw";
  // So does the forward with the weight gradient of one x.
  std::vector<float> y(size_t(p.ys()), 77.0f), dw2(size_t(p.ws()), 77.0f);
  dxrt_memref4 yd = m4(y, p.n, p.f, p.ho(), p.wo()), dw2d = m4(dw2, p.f, p.c, p.kh, p.kw);
  _mlir_ciface_dxrt_conv2d_forward_grad_weight(&xd, &wd, &dyd, &yd, &dw2d, p.sh, p.sw, p.pt, p.pb, p.pl, p.pr, p.dh,
                                               p.dw, p.groups);
  ASSERT_EQ(0, std::memcmp(one.y.data(), y.data(), y.size() * sizeof(float))) << "y";
  ASSERT_EQ(0, std::memcmp(one.dw.data(), dw2.data(), dw2.size() * sizeof(float))) << "dw of the forward pair";
}

TEST_P(ConvWinogradTest, RunsOnednnsWinogradKernelOnAvx512) {
  if (!__builtin_cpu_supports("avx512f")) GTEST_SKIP() << "oneDNN's Winograd kernels need AVX-512";
  const dxrt::ConvGeometry g = geometry(GetParam());
  for (auto dir : {dxrt::ConvDir::kForward, dxrt::ConvDir::kGradInput, dxrt::ConvDir::kGradWeight}) {
    const char *impl = dxrt::conv2d_onednn_impl(dir, g);
    ASSERT_NE(impl, nullptr) << "direction " << int(dir);
    EXPECT_NE(std::string(impl).find("wino"), std::string::npos) << "direction " << int(dir) << ": " << impl;
  }
  dxrt::set_conv_algorithm(dxrt::ConvAlgorithm::kDirect);
  expect_no_winograd(g);
}

INSTANTIATE_TEST_SUITE_P(Layers, ConvWinogradTest, ::testing::ValuesIn(shapes(kWinogradLayers)),
                         shape_names(kWinogradLayers));

// oneDNN 2.6's Winograd input gradient is wrong with unequal padding (dx off
// by more than 100% at pads 0, 1, 1, 0): such geometries run direct even
// when Winograd is forced.
TEST(ConvWinograd, UnequalPaddingRunsDirect) {
  dxrt::set_conv_algorithm(dxrt::ConvAlgorithm::kWinograd);
  const Conv p{2, 16, 9, 10, 32, 3, 3, 1, 1, 0, 1, 1, 0, 1, 1, 1};
  auto x = rnd<float>(p.xs(), 64), w = rnd<float>(p.ws(), 65), dy = rnd<float>(p.ys(), 66);
  onednn_against_reference(p, x, w, dy);
  expect_no_winograd(geometry(p));
  dxrt::set_conv_algorithm(dxrt::ConvAlgorithm::kAuto);
}

// Which geometries the default (kAuto) tries Winograd on.
TEST(ConvWinograd, AutoTriesItWhereItPays) {
  auto pays = [](const Conv &p) { return dxrt::conv2d_winograd_pays(geometry(p)); };
  EXPECT_TRUE(pays({64, 32, 14, 14, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}));  // Fashion CNN's second layer
  EXPECT_TRUE(pays({64, 64, 11, 11, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}));  // the CVAE's
  EXPECT_FALSE(pays({64, 3, 32, 32, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}));  // few input channels
  EXPECT_FALSE(pays({64, 16, 32, 32, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1})); // 256 channel pairs
  EXPECT_FALSE(pays({64, 128, 2, 2, 128, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1})); // 2x2 output
  EXPECT_FALSE(pays({64, 64, 16, 16, 64, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1})); // stride 2
  EXPECT_FALSE(pays({64, 64, 16, 16, 64, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1})); // dilated
  EXPECT_FALSE(pays({64, 64, 16, 16, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 4})); // grouped
  EXPECT_FALSE(pays({64, 64, 16, 16, 64, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 1})); // 5x5
  EXPECT_FALSE(pays({64, 64, 16, 16, 64, 3, 3, 1, 1, 0, 1, 0, 1, 1, 1, 1})); // unequal padding
}

TEST(ConvDeathTest, WrongOutputSizeAbortsNamingTheKernel) {
  std::vector<float> x(1 * 1 * 5 * 5), w(1 * 1 * 3 * 3), y(1 * 1 * 5 * 5);
  dxrt_memref4 xd = m4(x, 1, 1, 5, 5), wd = m4(w, 1, 1, 3, 3), yd = m4(y, 1, 1, 5, 5);
  EXPECT_DEATH(_mlir_ciface_dxrt_conv2d_forward(&xd, &wd, &yd, 1, 1, 0, 0, 0, 0, 1, 1, 1),
               "dxrt_conv2d_forward: output is \\[1, 1, 5, 5\\], expected \\[1, 1, 3, 3\\]");
}

TEST(ConvDeathTest, GroupsMustDivideChannels) {
  std::vector<float> x(1 * 3 * 5 * 5), w(2 * 1 * 3 * 3), y(1 * 2 * 3 * 3);
  dxrt_memref4 xd = m4(x, 1, 3, 5, 5), wd = m4(w, 2, 1, 3, 3), yd = m4(y, 1, 2, 3, 3);
  EXPECT_DEATH(_mlir_ciface_dxrt_conv2d_forward(&xd, &wd, &yd, 1, 1, 0, 0, 0, 0, 1, 1, 2),
               "dxrt_conv2d_forward: groups = 2 must divide");
}

} // namespace

// ---- the direct kernels for few input channels (kernels/Conv2dDirect.cpp) ----
// Output widths around the 16-float vector (tails), asymmetric padding,
// several kernel sizes (the 1x1, 3x3 and 5x5 ones compiled for their size,
// others generic) and filter counts around the forward's block of 8; the
// forward and the weight gradient against the double reference, and against
// oneDNN with the direct kernels turned off.

//                                               n  c   h   w   f kh kw sh sw pt pb pl pr dh dw groups
const std::pair<const char *, Conv> kDirect[] = {{"gray_3x3", {3, 1, 20, 20, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
                                                 {"gray_wide", {2, 1, 9, 37, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
                                                 {"rgb_5x5", {2, 1, 13, 17, 17, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 1}},
                                                 {"rgb_3x3", {2, 3, 11, 16, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
                                                 {"two_1x1", {2, 2, 5, 5, 3, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1}},
                                                 {"asym_valid", {1, 2, 7, 33, 7, 2, 3, 1, 1, 0, 2, 3, 0, 1, 1, 1}},
                                                 {"narrow", {4, 1, 3, 3, 1, 3, 3, 1, 1, 0, 0, 0, 0, 1, 1, 1}},
                                                 {"fashion_first", {5, 1, 28, 28, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
                                                 {"tall_7x1", {2, 3, 12, 20, 5, 7, 1, 1, 1, 3, 3, 0, 0, 1, 1, 1}},
                                                 {"gray_5x3", {2, 1, 12, 35, 6, 5, 3, 1, 1, 2, 1, 0, 2, 1, 1, 1}},
                                                 {"gray_1x1", {3, 1, 6, 17, 4, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1}}};

class ConvDirectTest : public ::testing::TestWithParam<Conv> {
protected:
  void TearDown() override { dxrt::set_conv_direct(true); }
};

// The dispatch takes the weight gradient direct for one input channel only
// (Conv2dDirect.cpp says why); the kernel itself takes every such geometry.
TEST_P(ConvDirectTest, TakesForwardAndWeightGradAndMatchesTheReferenceAndOnednn) {
  const Conv p = GetParam();
  const dxrt::ConvGeometry g = geometry(p);
  ASSERT_TRUE(dxrt::conv2d_direct_applies(dxrt::ConvDir::kForward, g));
  ASSERT_EQ(dxrt::conv2d_direct_applies(dxrt::ConvDir::kGradWeight, g), p.c == 1);
  EXPECT_FALSE(dxrt::conv2d_direct_applies(dxrt::ConvDir::kGradInput, g)); // oneDNN's
  auto x = rnd<float>(p.xs(), 31), w = rnd<float>(p.ws(), 32), dy = rnd<float>(p.ys(), 33);
  dxrt::set_conv_direct(true);
  Results direct = run_all(p, dxrt::ConvBackend::kOnednn, x, w, dy);
  dxrt::set_conv_direct(false);
  Results onednn = run_all(p, dxrt::ConvBackend::kOnednn, x, w, dy);
  std::vector<double> ref_dx, ref_dw;
  ref_backward(p, std::vector<double>(x.begin(), x.end()), std::vector<double>(w.begin(), w.end()),
               std::vector<double>(dy.begin(), dy.end()), ref_dx, ref_dw);
  const int64_t taps = p.c * p.kh * p.kw, pixels = p.n * p.ho() * p.wo();
  expect_close(direct.y, ref_forward(p, x, w), taps, "direct y");
  expect_close(direct.y, onednn.y, taps, "direct vs oneDNN y");
  expect_close(direct.dw, ref_dw, pixels, "direct dw");
  expect_close(direct.dw, onednn.dw, pixels, "direct vs oneDNN dw");
  // The kernels' own outputs, called directly, are what the dispatch gave.
  std::vector<float> own_y(size_t(p.ys()), 99.0f), own_dw(size_t(p.ws()), 99.0f);
  dxrt::conv2d_direct(dxrt::ConvDir::kForward, g, x.data(), w.data(), own_y.data());
  dxrt::conv2d_direct(dxrt::ConvDir::kGradWeight, g, x.data(), own_dw.data(), dy.data());
  EXPECT_EQ(own_y, direct.y);
  if (p.c == 1) EXPECT_EQ(own_dw, direct.dw);
  else expect_close(own_dw, ref_dw, pixels, "direct dw, called");
  // Every variant this CPU can run (the dispatch picks one), against the reference.
  for (const char *isa : {"avx512f", "avx2", "baseline"}) {
    std::vector<float> vy(size_t(p.ys()), 99.0f), vdw(size_t(p.ws()), 99.0f);
    if (!dxrt::conv2d_direct_isa(isa, dxrt::ConvDir::kForward, g, x.data(), w.data(), vy.data())) continue;
    ASSERT_TRUE(dxrt::conv2d_direct_isa(isa, dxrt::ConvDir::kGradWeight, g, x.data(), vdw.data(), dy.data()));
    expect_close(vy, ref_forward(p, x, w), taps, isa);
    expect_close(vdw, ref_dw, pixels, isa);
  }
  EXPECT_EQ(direct.dx, onednn.dx); // the input gradient is oneDNN's either way
}

// Lanes past a row's end add nothing, even where the input there is
// infinite: an infinity in x reaches only the taps whose window holds it.
TEST(ConvDirect, WeightGradTailIgnoresValuesPastTheRow) {
  //           n  c  h  w   f kh kw sh sw pt pb pl pr dh dw groups
  const Conv p{1, 1, 4, 20, 2, 3, 3, 1, 1, 0, 0, 0, 0, 1, 1, 1}; // wo = 18: a tail of 2
  auto x = rnd<float>(p.xs(), 61), dy = rnd<float>(p.ys(), 62);
  // Column 19 is read only by the window of output column 17 at kw = 2.
  for (int64_t h = 0; h < p.h; ++h) x[size_t(h * p.w + 19)] = INFINITY;
  for (float &d : dy) d = std::fabs(d) + 0.1f; // one sign: the infinities do not cancel into NaN
  std::vector<float> dw(size_t(p.ws()), 99.0f);
  dxrt::conv2d_direct(dxrt::ConvDir::kGradWeight, geometry(p), x.data(), dw.data(), dy.data());
  for (int64_t f = 0; f < p.f; ++f)
    for (int64_t kh = 0; kh < 3; ++kh)
      for (int64_t kw = 0; kw < 3; ++kw) {
        const float v = dw[size_t((f * 3 + kh) * 3 + kw)];
        if (kw == 2) EXPECT_TRUE(std::isinf(v)) << f << " " << kh << " " << kw;
        else EXPECT_TRUE(std::isfinite(v)) << f << " " << kh << " " << kw << ": " << v;
      }
}

INSTANTIATE_TEST_SUITE_P(FewChannels, ConvDirectTest, ::testing::ValuesIn(shapes(kDirect)), shape_names(kDirect));

TEST(ConvDirect, LeavesOtherGeometriesToOnednn) {
  //                          n  c   h   w   f kh kw sh sw pt pb pl pr dh dw groups
  const Conv many_taps = {1, 4, 8, 8, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1};   // 36 taps
  const Conv strided = {1, 1, 8, 8, 4, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1};     // stride 2
  const Conv dilated = {1, 1, 9, 9, 4, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1};     // dilation 2
  const Conv grouped = {1, 2, 8, 8, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2};     // two groups
  for (const Conv &p : {many_taps, strided, dilated, grouped})
    for (auto dir : {dxrt::ConvDir::kForward, dxrt::ConvDir::kGradWeight})
      EXPECT_FALSE(dxrt::conv2d_direct_applies(dir, geometry(p))) << p;
  const Conv first_layer = {64, 1, 64, 64, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}; // the microscopy CNN's
  EXPECT_TRUE(dxrt::conv2d_direct_applies(dxrt::ConvDir::kForward, geometry(first_layer)));
  EXPECT_TRUE(dxrt::conv2d_direct_applies(dxrt::ConvDir::kGradWeight, geometry(first_layer)));
  EXPECT_FALSE(dxrt::conv2d_direct_applies(dxrt::ConvDir::kGradInput, geometry(first_layer)));
}
