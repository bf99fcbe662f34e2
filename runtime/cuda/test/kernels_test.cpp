// Each device kernel against libdxrt's CPU kernel on random data. The CPU
// convolution is its im2col + OpenBLAS backend (the one DXRT_CONV=im2col
// runs; runtime/test/conv_test.cpp checks it against oneDNN), called
// directly so that this binary does not need libdnnl on the GPU machine.
#include "GpuTestUtil.h"
#include "cuda/Context.h"
#include "dxrt/cuda_kernels.h"
#include "kernels/Conv2d.h"
#include "kernels/Descriptor.h"

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
  std::vector<float> x = random_vec(size_t(m * k), 1), w = random_vec(size_t(n * k), 2), dy = random_vec(size_t(m * n), 3);
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
  std::vector<float> x = random_vec(xn, 11), w = random_vec(wn, 12), dy = random_vec(yn, 13);
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
}

// The second run of a shape reuses the cached plan and grows no scratch.
TEST(ConvCache, SecondStepAllocatesNothing) {
  std::vector<float> x = random_vec(2 * 3 * 9 * 9, 1), w = random_vec(4 * 3 * 3 * 3, 2);
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
  std::vector<float> x = random_vec(xn, 21), dy = random_vec(yn, 22);
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

} // namespace
