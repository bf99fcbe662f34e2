// Convolution kernels against a double-precision reference, whose own
// gradients are checked by finite differences; and the float kernels'
// gradients by finite differences too.
#include "dxrt/kernels.h"

#include <gtest/gtest.h>
#include <cmath>
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

class ConvTest : public ::testing::TestWithParam<Conv> {};

TEST_P(ConvTest, ForwardMatchesReference) {
  const Conv p = GetParam();
  auto x = rnd<float>(p.xs(), 1), w = rnd<float>(p.ws(), 2);
  std::vector<float> y(size_t(p.ys()), 99.0f);
  dxrt_memref4 xd = m4(x, p.n, p.c, p.h, p.w), wd = m4(w, p.f, p.c / p.groups, p.kh, p.kw),
               yd = m4(y, p.n, p.f, p.ho(), p.wo());
  _mlir_ciface_dxrt_conv2d_forward(&xd, &wd, &yd, p.sh, p.sw, p.pt, p.pb, p.pl, p.pr, p.dh, p.dw, p.groups);
  std::vector<double> ref = ref_forward(p, x, w);
  for (size_t i = 0; i < y.size(); ++i) ASSERT_NEAR(y[i], ref[i], 1e-4) << "element " << i;
}

TEST_P(ConvTest, GradientsMatchReference) {
  const Conv p = GetParam();
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

// The reference's adjoints are the derivatives of L = <conv(x, w), r>, by
// central differences in double.
TEST_P(ConvTest, ReferenceGradientsMatchFiniteDifferencesInDouble) {
  const Conv p = GetParam();
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
  const Conv p = GetParam();
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

std::vector<Conv> conv_values() {
  std::vector<Conv> v;
  for (const auto &c : kConvs) v.push_back(c.second);
  return v;
}

INSTANTIATE_TEST_SUITE_P(Shapes, ConvTest, ::testing::ValuesIn(conv_values()),
                         [](const ::testing::TestParamInfo<Conv> &info) { return std::string(kConvs[info.index].first); });

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
