// Each device kernel against libdxrt's CPU kernel on random data. The CPU
// convolution is its im2col + OpenBLAS backend (the one DXRT_CONV=im2col
// runs; runtime/test/conv_test.cpp checks it against oneDNN), called
// directly so that this binary does not need libdnnl on the GPU machine.
// The 3-D convolution and pooling kernels are checked against naive host
// loops written here from the definitions (PyTorch's F.conv3d, max_pool3d
// and avg_pool3d with count_include_pad); those suites skip without a device.
#include "GpuTestUtil.h"
#include "cuda/Context.h"
#include "dxrt/cuda_kernels.h"
#include "kernels/Conv2d.h"
#include "kernels/Descriptor.h"

#include <cmath>
#include <string>

using namespace dxtest;

namespace {

// ---- dense ----

struct DenseCase {
  int64_t m, k, n;
};

class Dense : public ::testing::TestWithParam<DenseCase> {};

TEST_P(Dense, ForwardAndGradsMatchCpu) {
  auto [m, k, n] = GetParam();
  std::vector<float> x = random_floats(size_t(m * k), 1), w = random_floats(size_t(n * k), 2), dy = random_floats(size_t(m * n), 3);
  // CPU
  std::vector<float> y(size_t(m * n)), dx(size_t(m * k)), dw(size_t(n * k));
  dxrt_memref2 xd = m2(x.data(), m, k), wd = m2(w.data(), n, k), yd = m2(y.data(), m, n), dyd = m2(dy.data(), m, n),
               dxd = m2(dx.data(), m, k), dwd = m2(dw.data(), n, k);
  _mlir_ciface_dxrt_dense_forward(&xd, &wd, &yd);
  _mlir_ciface_dxrt_dense_grad_input(&dyd, &wd, &dxd);
  _mlir_ciface_dxrt_dense_grad_weight(&dyd, &xd, &dwd);
  // GPU
  DeviceVec gx(x), gw(w), gdy(dy), gy(y.size()), gdx(dx.size()), gdw(dw.size());
  dxrt_memref2 gxd = m2(gx.p, m, k), gwd = m2(gw.p, n, k), gyd = m2(gy.p, m, n), gdyd = m2(gdy.p, m, n),
               gdxd = m2(gdx.p, m, k), gdwd = m2(gdw.p, n, k);
  _mlir_ciface_dxrt_cuda_dense_forward(&gxd, &gwd, &gyd);
  _mlir_ciface_dxrt_cuda_dense_grad_input(&gdyd, &gwd, &gdxd);
  _mlir_ciface_dxrt_cuda_dense_grad_weight(&gdyd, &gxd, &gdwd);
  expect_close(gy.get(), y);
  expect_close(gdx.get(), dx);
  expect_close(gdw.get(), dw);
}

INSTANTIATE_TEST_SUITE_P(Shapes, Dense,
                         ::testing::Values(DenseCase{1, 1, 1}, DenseCase{32, 784, 128}, DenseCase{7, 13, 5},
                                           DenseCase{256, 512, 10}, DenseCase{3, 1000, 1}));

TEST(DenseEdge, EmptyInnerDimensionGivesZeros) {
  DeviceVec gx(size_t(0)), gw(size_t(0)), gy(size_t(15));
  dxrt_memref2 xd = m2(gx.p, 5, 0), wd = m2(gw.p, 3, 0), yd = m2(gy.p, 5, 3);
  _mlir_ciface_dxrt_cuda_dense_forward(&xd, &wd, &yd);
  expect_same(gy.get(), std::vector<float>(15, 0.0f));
}

// ---- conv2d ----

struct ConvCase {
  const char *name;
  int64_t n, c, h, w, f, kh, kw, sh, sw, pt, pb, pl, pr, dh, dw, groups;
};

class Conv : public ::testing::TestWithParam<ConvCase> {};

TEST_P(Conv, ForwardAndGradsMatchCpu) {
  const ConvCase &p = GetParam();
  int64_t ho = dxrt::conv_out_size(p.h, p.pt, p.pb, p.kh, p.sh, p.dh);
  int64_t wo = dxrt::conv_out_size(p.w, p.pl, p.pr, p.kw, p.sw, p.dw);
  int64_t cg = p.c / p.groups;
  size_t xn = size_t(p.n * p.c * p.h * p.w), wn = size_t(p.f * cg * p.kh * p.kw), yn = size_t(p.n * p.f * ho * wo);
  std::vector<float> x = random_floats(xn, 11), w = random_floats(wn, 12), dy = random_floats(yn, 13);
  std::vector<float> y(yn), dx(xn), dw(wn);
  dxrt::Tensor4 tx{x.data(), p.n, p.c, p.h, p.w}, tw{w.data(), p.f, cg, p.kh, p.kw}, ty{y.data(), p.n, p.f, ho, wo};
  dxrt::ConvGeometry g =
      dxrt::conv_geometry("test", tx, tw, ty, p.sh, p.sw, p.pt, p.pb, p.pl, p.pr, p.dh, p.dw, p.groups);
  dxrt::conv2d_im2col(dxrt::ConvDir::kForward, g, x.data(), w.data(), y.data());
  dxrt::conv2d_im2col(dxrt::ConvDir::kGradInput, g, dx.data(), w.data(), dy.data());
  dxrt::conv2d_im2col(dxrt::ConvDir::kGradWeight, g, x.data(), dw.data(), dy.data());

  DeviceVec gx(x), gw(w), gdy(dy), gy(yn), gdx(xn), gdw(wn);
  dxrt_memref4 xd = m4(gx.p, p.n, p.c, p.h, p.w), wd = m4(gw.p, p.f, cg, p.kh, p.kw), yd = m4(gy.p, p.n, p.f, ho, wo),
               dyd = m4(gdy.p, p.n, p.f, ho, wo), dxd = m4(gdx.p, p.n, p.c, p.h, p.w),
               dwd = m4(gdw.p, p.f, cg, p.kh, p.kw);
  _mlir_ciface_dxrt_cuda_conv2d_forward(&xd, &wd, &yd, p.sh, p.sw, p.pt, p.pb, p.pl, p.pr, p.dh, p.dw, p.groups);
  _mlir_ciface_dxrt_cuda_conv2d_grad_input(&dyd, &wd, &dxd, p.sh, p.sw, p.pt, p.pb, p.pl, p.pr, p.dh, p.dw, p.groups);
  _mlir_ciface_dxrt_cuda_conv2d_grad_weight(&dyd, &xd, &dwd, p.sh, p.sw, p.pt, p.pb, p.pl, p.pr, p.dh, p.dw,
                                            p.groups);
  expect_close(gy.get(), y);
  expect_close(gdx.get(), dx);
  expect_close(gdw.get(), dw);
  // The fused twin (dxrt_cuda_conv2d_backward): the two kernels' values.
  DeviceVec fdx(xn), fdw(wn);
  dxrt_memref4 fdxd = m4(fdx.p, p.n, p.c, p.h, p.w), fdwd = m4(fdw.p, p.f, cg, p.kh, p.kw);
  _mlir_ciface_dxrt_cuda_conv2d_backward(&dyd, &xd, &wd, &fdxd, &fdwd, p.sh, p.sw, p.pt, p.pb, p.pl, p.pr, p.dh, p.dw,
                                         p.groups);
  expect_close(fdx.get(), dx);
  expect_close(fdw.get(), dw);
  // The forward with the weight gradient of one x (dxrt_cuda_conv2d_forward_grad_weight).
  DeviceVec fy(yn), fdw2(wn);
  dxrt_memref4 fyd = m4(fy.p, p.n, p.f, ho, wo), fdw2d = m4(fdw2.p, p.f, cg, p.kh, p.kw);
  _mlir_ciface_dxrt_cuda_conv2d_forward_grad_weight(&xd, &wd, &dyd, &fyd, &fdw2d, p.sh, p.sw, p.pt, p.pb, p.pl, p.pr,
                                                    p.dh, p.dw, p.groups);
  expect_close(fy.get(), y);
  expect_close(fdw2.get(), dw);
}

// The second run of a shape reuses the cached plan and grows no scratch.
TEST(ConvCache, SecondStepAllocatesNothing) {
  std::vector<float> x = random_floats(2 * 3 * 9 * 9, 1), w = random_floats(4 * 3 * 3 * 3, 2);
  DeviceVec gx(x), gw(w), gy(size_t(2 * 4 * 9 * 9));
  dxrt_memref4 xd = m4(gx.p, 2, 3, 9, 9), wd = m4(gw.p, 4, 3, 3, 3), yd = m4(gy.p, 2, 4, 9, 9);
  // Asymmetric padding: the padded copy lives in the scratch too.
  _mlir_ciface_dxrt_cuda_conv2d_forward(&xd, &wd, &yd, 1, 1, 2, 0, 0, 2, 1, 1, 1);
  dxrt_cuda_synchronize();
  int64_t grows = dxrt_cuda_scratch_grows();
  for (int i = 0; i < 3; ++i) _mlir_ciface_dxrt_cuda_conv2d_forward(&xd, &wd, &yd, 1, 1, 2, 0, 0, 2, 1, 1, 1);
  dxrt_cuda_synchronize();
  EXPECT_EQ(dxrt_cuda_scratch_grows(), grows);
}

INSTANTIATE_TEST_SUITE_P(
    Geometries, Conv,
    ::testing::Values(ConvCase{"same3x3", 2, 3, 8, 8, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1},
                      ConvCase{"lenet5x5", 8, 16, 14, 14, 32, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 1},
                      ConvCase{"stride2_same_even", 2, 4, 10, 10, 6, 3, 3, 2, 2, 0, 1, 0, 1, 1, 1, 1},
                      ConvCase{"asymmetric_top_left", 1, 2, 7, 7, 3, 3, 3, 1, 1, 2, 0, 1, 0, 1, 1, 1},
                      ConvCase{"asymmetric_bottom_right", 2, 3, 6, 5, 2, 2, 2, 1, 1, 0, 1, 0, 1, 1, 1, 1},
                      ConvCase{"dilation2", 2, 3, 10, 10, 5, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1},
                      ConvCase{"stride2_dilation2", 2, 3, 11, 12, 4, 3, 3, 2, 2, 1, 1, 1, 1, 2, 2, 1},
                      ConvCase{"groups2", 2, 4, 8, 8, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2},
                      ConvCase{"depthwise", 2, 8, 9, 9, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 8},
                      ConvCase{"pointwise_stride2", 4, 8, 7, 7, 16, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1, 1},
                      ConvCase{"rect_kernel", 2, 3, 9, 11, 5, 3, 1, 1, 2, 1, 1, 0, 0, 1, 1, 1},
                      ConvCase{"empty_batch", 0, 3, 8, 8, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}),
    [](const ::testing::TestParamInfo<ConvCase> &i) { return std::string(i.param.name); });

// ---- pooling ----

struct PoolCase {
  const char *name;
  int64_t kind, n, c, h, w, kh, kw, sh, sw, pt, pb, pl, pr;
  bool ties_and_nan;
};

class Pool : public ::testing::TestWithParam<PoolCase> {};

TEST_P(Pool, ForwardAndGradMatchCpuExactly) {
  const PoolCase &p = GetParam();
  int64_t ho = dxrt::conv_out_size(p.h, p.pt, p.pb, p.kh, p.sh, 1), wo = dxrt::conv_out_size(p.w, p.pl, p.pr, p.kw, p.sw, 1);
  size_t xn = size_t(p.n * p.c * p.h * p.w), yn = size_t(p.n * p.c * ho * wo);
  std::vector<float> x = random_floats(xn, 21), dy = random_floats(yn, 22);
  if (p.ties_and_nan) {
    // Few distinct values (ties decide "the first maximal element") and a NaN.
    for (float &v : x) v = std::round(v * 2.0f);
    x[xn / 3] = NAN;
  }
  std::vector<float> y(yn), dx(xn);
  dxrt_memref4 xd = m4(x.data(), p.n, p.c, p.h, p.w), yd = m4(y.data(), p.n, p.c, ho, wo),
               dyd = m4(dy.data(), p.n, p.c, ho, wo), dxd = m4(dx.data(), p.n, p.c, p.h, p.w);
  _mlir_ciface_dxrt_pool_forward(&xd, &yd, p.kind, p.kh, p.kw, p.sh, p.sw, p.pt, p.pb, p.pl, p.pr);
  _mlir_ciface_dxrt_pool_grad(&dyd, &xd, &dxd, p.kind, p.kh, p.kw, p.sh, p.sw, p.pt, p.pb, p.pl, p.pr);

  DeviceVec gx(x), gdy(dy), gy(yn), gdx(xn);
  dxrt_memref4 gxd = m4(gx.p, p.n, p.c, p.h, p.w), gyd = m4(gy.p, p.n, p.c, ho, wo),
               gdyd = m4(gdy.p, p.n, p.c, ho, wo), gdxd = m4(gdx.p, p.n, p.c, p.h, p.w);
  _mlir_ciface_dxrt_cuda_pool_forward(&gxd, &gyd, p.kind, p.kh, p.kw, p.sh, p.sw, p.pt, p.pb, p.pl, p.pr);
  _mlir_ciface_dxrt_cuda_pool_grad(&gdyd, &gxd, &gdxd, p.kind, p.kh, p.kw, p.sh, p.sw, p.pt, p.pb, p.pl, p.pr);
  expect_same(gy.get(), y);
  if (p.kind == 0) {
    expect_same(gdx.get(), dx);
  } else {
    expect_close(gdx.get(), dx, 1e-6); // the CPU's 2x2 path writes d*0.25, the general one sums
  }
}

INSTANTIATE_TEST_SUITE_P(
    Windows, Pool,
    ::testing::Values(PoolCase{"max2x2", 0, 4, 3, 28, 28, 2, 2, 2, 2, 0, 0, 0, 0, false},
                      PoolCase{"avg2x2", 1, 4, 3, 28, 28, 2, 2, 2, 2, 0, 0, 0, 0, false},
                      PoolCase{"max2x2_odd_ties_nan", 0, 2, 3, 9, 7, 2, 2, 2, 2, 0, 0, 0, 0, true},
                      PoolCase{"max3x3_s2_pad1_overlap", 0, 2, 4, 11, 11, 3, 3, 2, 2, 1, 1, 1, 1, false},
                      PoolCase{"max3x3_overlap_ties_nan", 0, 2, 4, 10, 10, 3, 3, 1, 1, 1, 1, 1, 1, true},
                      PoolCase{"avg3x3_s2_pad1", 1, 2, 4, 11, 11, 3, 3, 2, 2, 1, 1, 1, 1, false},
                      PoolCase{"max_same_asymmetric", 0, 2, 3, 7, 7, 2, 2, 2, 2, 0, 1, 0, 1, false},
                      PoolCase{"avg_rect", 1, 2, 3, 9, 12, 3, 2, 3, 2, 0, 0, 1, 1, false},
                      PoolCase{"max_window_in_padding", 0, 1, 2, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, false}),
    [](const ::testing::TestParamInfo<PoolCase> &i) { return std::string(i.param.name); });

// ---- conv3d ----

struct Conv3dCase {
  const char *name;
  int64_t n, c, d, h, w, f, kd, kh, kw, sd, sh, sw, pf, pk, pt, pb, pl, pr, dd, dh, dw, groups;
  int64_t od() const { return dxrt::conv_out_size(d, pf, pk, kd, sd, dd); }
  int64_t oh() const { return dxrt::conv_out_size(h, pt, pb, kh, sh, dh); }
  int64_t ow() const { return dxrt::conv_out_size(w, pl, pr, kw, sw, dw); }
};

// y = conv3d(x, w), dx and dw from dy, by the definition: one loop over
// every (output, tap) pair, in double.
void conv3d_reference(const Conv3dCase &p, const std::vector<float> &x, const std::vector<float> &w,
                      const std::vector<float> &dy, std::vector<float> &y, std::vector<float> &dx,
                      std::vector<float> &dw) {
  const int64_t od = p.od(), oh = p.oh(), ow = p.ow(), cg = p.c / p.groups, fg = p.f / p.groups;
  std::vector<double> yy(y.size()), dxx(dx.size()), dww(dw.size());
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t f = 0; f < p.f; ++f)
      for (int64_t a = 0; a < od; ++a)
        for (int64_t b = 0; b < oh; ++b)
          for (int64_t e = 0; e < ow; ++e) {
            size_t yi = size_t((((n * p.f + f) * od + a) * oh + b) * ow + e);
            for (int64_t ci = 0; ci < cg; ++ci) {
              int64_t c = f / fg * cg + ci;
              for (int64_t i = 0; i < p.kd; ++i)
                for (int64_t j = 0; j < p.kh; ++j)
                  for (int64_t l = 0; l < p.kw; ++l) {
                    int64_t id = a * p.sd - p.pf + i * p.dd, ih = b * p.sh - p.pt + j * p.dh,
                            iw = e * p.sw - p.pl + l * p.dw;
                    if (id < 0 || id >= p.d || ih < 0 || ih >= p.h || iw < 0 || iw >= p.w) continue;
                    size_t xi = size_t((((n * p.c + c) * p.d + id) * p.h + ih) * p.w + iw);
                    size_t wi = size_t((((f * cg + ci) * p.kd + i) * p.kh + j) * p.kw + l);
                    yy[yi] += double(x[xi]) * w[wi];
                    dxx[xi] += double(dy[yi]) * w[wi];
                    dww[wi] += double(dy[yi]) * x[xi];
                  }
            }
          }
  for (size_t i = 0; i < y.size(); ++i) y[i] = float(yy[i]);
  for (size_t i = 0; i < dx.size(); ++i) dx[i] = float(dxx[i]);
  for (size_t i = 0; i < dw.size(); ++i) dw[i] = float(dww[i]);
}

class Conv3d : public ::testing::TestWithParam<Conv3dCase> {};

TEST_P(Conv3d, ForwardAndGradsMatchReference) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const Conv3dCase &p = GetParam();
  const int64_t od = p.od(), oh = p.oh(), ow = p.ow(), cg = p.c / p.groups;
  size_t xn = size_t(p.n * p.c * p.d * p.h * p.w), wn = size_t(p.f * cg * p.kd * p.kh * p.kw),
         yn = size_t(p.n * p.f * od * oh * ow);
  std::vector<float> x = random_floats(xn, 31), w = random_floats(wn, 32), dy = random_floats(yn, 33);
  std::vector<float> y(yn), dx(xn), dw(wn);
  conv3d_reference(p, x, w, dy, y, dx, dw);

  DeviceVec gx(x), gw(w), gdy(dy), gy(yn), gdx(xn), gdw(wn);
  dxrt_memref5 xd = m5(gx.p, p.n, p.c, p.d, p.h, p.w), wd = m5(gw.p, p.f, cg, p.kd, p.kh, p.kw),
               yd = m5(gy.p, p.n, p.f, od, oh, ow), dyd = m5(gdy.p, p.n, p.f, od, oh, ow),
               dxd = m5(gdx.p, p.n, p.c, p.d, p.h, p.w), dwd = m5(gdw.p, p.f, cg, p.kd, p.kh, p.kw);
  _mlir_ciface_dxrt_cuda_conv3d_forward(&xd, &wd, &yd, p.sd, p.sh, p.sw, p.pf, p.pk, p.pt, p.pb, p.pl, p.pr, p.dd,
                                        p.dh, p.dw, p.groups);
  _mlir_ciface_dxrt_cuda_conv3d_grad_input(&dyd, &wd, &dxd, p.sd, p.sh, p.sw, p.pf, p.pk, p.pt, p.pb, p.pl, p.pr,
                                           p.dd, p.dh, p.dw, p.groups);
  _mlir_ciface_dxrt_cuda_conv3d_grad_weight(&dyd, &xd, &dwd, p.sd, p.sh, p.sw, p.pf, p.pk, p.pt, p.pb, p.pl, p.pr,
                                            p.dd, p.dh, p.dw, p.groups);
  expect_close(gy.get(), y);
  expect_close(gdx.get(), dx);
  expect_close(gdw.get(), dw);
  // The fused twin (dxrt_cuda_conv3d_backward): the two kernels' values.
  DeviceVec fdx(xn), fdw(wn);
  dxrt_memref5 fdxd = m5(fdx.p, p.n, p.c, p.d, p.h, p.w), fdwd = m5(fdw.p, p.f, cg, p.kd, p.kh, p.kw);
  _mlir_ciface_dxrt_cuda_conv3d_backward(&dyd, &xd, &wd, &fdxd, &fdwd, p.sd, p.sh, p.sw, p.pf, p.pk, p.pt, p.pb,
                                         p.pl, p.pr, p.dd, p.dh, p.dw, p.groups);
  expect_close(fdx.get(), dx);
  expect_close(fdw.get(), dw);
  // The forward with the weight gradient of one x (dxrt_cuda_conv3d_forward_grad_weight).
  DeviceVec fy(yn), fdw2(wn);
  dxrt_memref5 fyd = m5(fy.p, p.n, p.f, od, oh, ow), fdw2d = m5(fdw2.p, p.f, cg, p.kd, p.kh, p.kw);
  _mlir_ciface_dxrt_cuda_conv3d_forward_grad_weight(&xd, &wd, &dyd, &fyd, &fdw2d, p.sd, p.sh, p.sw, p.pf, p.pk, p.pt,
                                                    p.pb, p.pl, p.pr, p.dd, p.dh, p.dw, p.groups);
  expect_close(fy.get(), y);
  expect_close(fdw2.get(), dw);
}

INSTANTIATE_TEST_SUITE_P(
    Geometries, Conv3d,
    ::testing::Values(
        Conv3dCase{"same3x3x3", 2, 3, 6, 6, 6, 4, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        Conv3dCase{"cosmoflow_like", 1, 4, 16, 16, 16, 8, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
        Conv3dCase{"stride2_same_even", 2, 2, 8, 8, 8, 3, 3, 3, 3, 2, 2, 2, 0, 1, 0, 1, 0, 1, 1, 1, 1, 1},
        Conv3dCase{"asymmetric_front", 1, 2, 5, 6, 7, 3, 3, 3, 3, 1, 1, 1, 2, 0, 1, 1, 1, 1, 1, 1, 1, 1},
        Conv3dCase{"asymmetric_unreached", 2, 2, 6, 6, 6, 2, 2, 2, 2, 2, 2, 2, 0, 1, 0, 1, 0, 1, 1, 1, 1, 1},
        Conv3dCase{"dilation2", 1, 3, 9, 9, 9, 4, 3, 3, 3, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1},
        Conv3dCase{"mixed_stride_dilation", 2, 2, 9, 10, 11, 3, 3, 3, 3, 2, 1, 2, 1, 1, 1, 1, 1, 1, 2, 1, 2, 1},
        Conv3dCase{"groups2", 2, 4, 5, 5, 5, 6, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2},
        Conv3dCase{"depthwise", 1, 6, 5, 6, 7, 6, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 6},
        Conv3dCase{"pointwise_stride2", 2, 8, 5, 5, 5, 4, 1, 1, 1, 2, 2, 2, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1},
        Conv3dCase{"rect_kernel", 2, 3, 4, 7, 9, 5, 3, 1, 2, 1, 2, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1},
        Conv3dCase{"depth_one", 2, 3, 1, 8, 8, 4, 1, 3, 3, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1},
        Conv3dCase{"empty_batch", 0, 3, 4, 4, 4, 4, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}),
    [](const ::testing::TestParamInfo<Conv3dCase> &i) { return std::string(i.param.name); });

// The second run of a 3-D shape reuses the cached plan and grows no scratch.
TEST(Conv3dCache, SecondStepAllocatesNothing) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  std::vector<float> x = random_floats(2 * 3 * 6 * 7 * 7, 1), w = random_floats(4 * 3 * 3 * 3 * 3, 2);
  DeviceVec gx(x), gw(w), gy(size_t(2 * 4 * 6 * 7 * 7));
  dxrt_memref5 xd = m5(gx.p, 2, 3, 6, 7, 7), wd = m5(gw.p, 4, 3, 3, 3, 3), yd = m5(gy.p, 2, 4, 6, 7, 7);
  // Asymmetric padding: the padded copy lives in the scratch too.
  _mlir_ciface_dxrt_cuda_conv3d_forward(&xd, &wd, &yd, 1, 1, 1, 2, 0, 2, 0, 0, 2, 1, 1, 1, 1);
  dxrt_cuda_synchronize();
  int64_t grows = dxrt_cuda_scratch_grows();
  for (int i = 0; i < 3; ++i)
    _mlir_ciface_dxrt_cuda_conv3d_forward(&xd, &wd, &yd, 1, 1, 1, 2, 0, 2, 0, 0, 2, 1, 1, 1, 1);
  dxrt_cuda_synchronize();
  EXPECT_EQ(dxrt_cuda_scratch_grows(), grows);
}

// The shape checks run before any CUDA call: no device needed.
TEST(Conv3dDeathTest, WrongOutputShapeAbortsNamingTheKernel) {
  float x[2 * 4 * 4 * 4] = {}, w[3 * 2 * 27] = {}, y[3 * 8] = {};
  dxrt_memref5 xd = m5(x, 1, 2, 4, 4, 4), wd = m5(w, 3, 2, 3, 3, 3), yd = m5(y, 1, 3, 2, 2, 2);
  EXPECT_DEATH(_mlir_ciface_dxrt_cuda_conv3d_forward(&xd, &wd, &yd, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1),
               "dxrt_cuda_conv3d_forward: .*output is \\[1, 3, 2, 2, 2\\], expected \\[1, 3, 4, 2, 2\\]");
}

// ---- pool3d ----

struct Pool3dCase {
  const char *name;
  int64_t kind, n, c, d, h, w, kd, kh, kw, sd, sh, sw, pf, pk, pt, pb, pl, pr;
  bool ties_and_nan;
  int64_t od() const { return dxrt::conv_out_size(d, pf, pk, kd, sd, 1); }
  int64_t oh() const { return dxrt::conv_out_size(h, pt, pb, kh, sh, 1); }
  int64_t ow() const { return dxrt::conv_out_size(w, pl, pr, kw, sw, 1); }
};

// max_pool3d / avg_pool3d (count_include_pad) by the definition, in float
// and in window order: max takes the first maximal element in (d, h, w)
// order, a NaN being the maximum (the first NaN stays), and routes the
// gradient there; average multiplies its sum by 1/(kd*kh*kw) and spreads
// dy*(1/(kd*kh*kw)) over the window; the gradients are summed in window
// order (what the device gathers, so the results are exact).
void pool3d_reference(const Pool3dCase &p, const std::vector<float> &x, const std::vector<float> &dy,
                      std::vector<float> &y, std::vector<float> &dx) {
  const int64_t od = p.od(), oh = p.oh(), ow = p.ow();
  const float inv = 1.0f / float(p.kd * p.kh * p.kw);
  std::fill(dx.begin(), dx.end(), 0.0f);
  for (int64_t q = 0; q < p.n * p.c; ++q)
    for (int64_t a = 0; a < od; ++a)
      for (int64_t b = 0; b < oh; ++b)
        for (int64_t e = 0; e < ow; ++e) {
          size_t yi = size_t(((q * od + a) * oh + b) * ow + e);
          int64_t best = -1;
          float bestv = -INFINITY, sum = 0.0f;
          for (int64_t i = 0; i < p.kd; ++i)
            for (int64_t j = 0; j < p.kh; ++j)
              for (int64_t l = 0; l < p.kw; ++l) {
                int64_t id = a * p.sd - p.pf + i, ih = b * p.sh - p.pt + j, iw = e * p.sw - p.pl + l;
                if (id < 0 || id >= p.d || ih < 0 || ih >= p.h || iw < 0 || iw >= p.w) continue;
                int64_t xi = ((q * p.d + id) * p.h + ih) * p.w + iw;
                float v = x[size_t(xi)];
                if (best < 0 || (!std::isnan(bestv) && (v > bestv || std::isnan(v)))) {
                  best = xi;
                  bestv = v;
                }
                sum += v;
                if (p.kind == 1) dx[size_t(xi)] += dy[yi] * inv;
              }
          if (p.kind == 0) {
            y[yi] = bestv;
            if (best >= 0) dx[size_t(best)] += dy[yi];
          } else {
            y[yi] = sum * inv;
          }
        }
}

class Pool3d : public ::testing::TestWithParam<Pool3dCase> {};

TEST_P(Pool3d, ForwardAndGradMatchReferenceExactly) {
  if (!have_device()) GTEST_SKIP() << "no CUDA device";
  const Pool3dCase &p = GetParam();
  const int64_t od = p.od(), oh = p.oh(), ow = p.ow();
  size_t xn = size_t(p.n * p.c * p.d * p.h * p.w), yn = size_t(p.n * p.c * od * oh * ow);
  std::vector<float> x = random_floats(xn, 41), dy = random_floats(yn, 42);
  if (p.ties_and_nan) {
    // Few distinct values (ties decide "the first maximal element") and a NaN.
    for (float &v : x) v = std::round(v * 2.0f);
    x[xn / 3] = NAN;
  }
  std::vector<float> y(yn), dx(xn);
  pool3d_reference(p, x, dy, y, dx);

  DeviceVec gx(x), gdy(dy), gy(yn), gdx(xn);
  dxrt_memref5 xd = m5(gx.p, p.n, p.c, p.d, p.h, p.w), yd = m5(gy.p, p.n, p.c, od, oh, ow),
               dyd = m5(gdy.p, p.n, p.c, od, oh, ow), dxd = m5(gdx.p, p.n, p.c, p.d, p.h, p.w);
  _mlir_ciface_dxrt_cuda_pool3d_forward(&xd, &yd, p.kind, p.kd, p.kh, p.kw, p.sd, p.sh, p.sw, p.pf, p.pk, p.pt, p.pb,
                                        p.pl, p.pr);
  _mlir_ciface_dxrt_cuda_pool3d_grad(&dyd, &xd, &dxd, p.kind, p.kd, p.kh, p.kw, p.sd, p.sh, p.sw, p.pf, p.pk, p.pt,
                                     p.pb, p.pl, p.pr);
  expect_same(gy.get(), y);
  expect_same(gdx.get(), dx);
  // Deterministic: a second gradient is the same bits.
  DeviceVec gdx2(xn);
  dxrt_memref5 dx2d = m5(gdx2.p, p.n, p.c, p.d, p.h, p.w);
  _mlir_ciface_dxrt_cuda_pool3d_grad(&dyd, &xd, &dx2d, p.kind, p.kd, p.kh, p.kw, p.sd, p.sh, p.sw, p.pf, p.pk, p.pt,
                                     p.pb, p.pl, p.pr);
  expect_same(gdx2.get(), gdx.get());
}

INSTANTIATE_TEST_SUITE_P(
    Windows, Pool3d,
    ::testing::Values(
        Pool3dCase{"max2x2x2", 0, 2, 3, 8, 8, 8, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0, false},
        Pool3dCase{"avg2x2x2", 1, 2, 3, 8, 8, 8, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0, false},
        Pool3dCase{"max2_odd_ties_nan", 0, 2, 2, 5, 7, 6, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0, true},
        Pool3dCase{"max3_s2_pad1_overlap", 0, 2, 2, 9, 9, 9, 3, 3, 3, 2, 2, 2, 1, 1, 1, 1, 1, 1, false},
        Pool3dCase{"max3_s1_overlap_ties_nan", 0, 1, 2, 6, 6, 6, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true},
        Pool3dCase{"avg3_s2_pad1", 1, 2, 2, 9, 9, 9, 3, 3, 3, 2, 2, 2, 1, 1, 1, 1, 1, 1, false},
        Pool3dCase{"avg3_s1_overlap", 1, 1, 2, 6, 7, 8, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, false},
        Pool3dCase{"max_same_asymmetric", 0, 1, 2, 7, 7, 7, 2, 2, 2, 2, 2, 2, 0, 1, 0, 1, 0, 1, false},
        Pool3dCase{"avg_rect", 1, 2, 2, 6, 9, 12, 2, 3, 2, 2, 3, 2, 0, 0, 1, 1, 0, 1, false},
        Pool3dCase{"max_planar_1x3x3", 0, 2, 3, 4, 9, 9, 1, 3, 3, 1, 2, 2, 0, 0, 1, 1, 1, 1, false},
        Pool3dCase{"max_window_in_padding", 0, 1, 1, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, false},
        Pool3dCase{"avg_window_in_padding", 1, 1, 1, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, false},
        Pool3dCase{"empty_output", 0, 1, 2, 1, 4, 4, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0, false}),
    [](const ::testing::TestParamInfo<Pool3dCase> &i) { return std::string(i.param.name); });

TEST(Pool3dDeathTest, WrongOutputShapeAbortsNamingTheKernel) {
  float x[64] = {}, y[8] = {};
  dxrt_memref5 xd = m5(x, 1, 1, 4, 4, 4), yd = m5(y, 1, 1, 2, 2, 2);
  EXPECT_DEATH(_mlir_ciface_dxrt_cuda_pool3d_forward(&xd, &yd, 0, 3, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0),
               "dxrt_cuda_pool3d_forward: .*output is \\[1, 1, 2, 2, 2\\], expected \\[1, 1, 1, 2, 2\\]");
}

TEST(Pool3dDeathTest, GradOfAnotherShapeAbortsNamingTheKernel) {
  float x[64] = {}, dy[8] = {}, dx[32] = {};
  dxrt_memref5 xd = m5(x, 1, 1, 4, 4, 4), dyd = m5(dy, 1, 1, 2, 2, 2), dxd = m5(dx, 1, 1, 2, 4, 4);
  EXPECT_DEATH(_mlir_ciface_dxrt_cuda_pool3d_grad(&dyd, &xd, &dxd, 1, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0),
               "dxrt_cuda_pool3d_grad: dx is \\[1, 1, 2, 4, 4\\] but x is \\[1, 1, 4, 4, 4\\]");
}

} // namespace
