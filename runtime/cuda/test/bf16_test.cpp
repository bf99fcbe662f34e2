// bf16 precision on the GPU (kernels/Precision.h, Gemm.cpp, Conv.cpp,
// Bf16Kernels.cu). The conversion kernel rounds as the CPU does, bit for
// bit; a dense product equals a double reference on the bf16-rounded
// inputs to fp32 accumulation's error, and differs from the fp32 product
// (so the rounding happened); a convolution and both its gradients equal
// the CPU's fp32 kernel on the rounded inputs to one bf16 rounding of the
// result (cuDNN's PSEUDO_BFLOAT16 writes bf16, Conv.cpp); the twins that
// read bf16 operands give their kernel's bits. Skipped without a
// device, or on one older than sm_80 (no bf16 tensor cores).
#include "GpuTestUtil.h"
#include "cuda/Context.h"
#include "cuda/DeviceKernels.h"
#include "dxrt/cuda_kernels.h"
#include "kernels/Bf16Round.h"
#include "kernels/Conv2d.h"
#include "kernels/Descriptor.h"
#include "kernels/Precision.h"

#include <cmath>
#include <limits>

using namespace dxtest;

namespace {

bool have_bf16_device() {
  if (!have_device()) return false;
  cudaDeviceProp prop{};
  return cudaGetDeviceProperties(&prop, 0) == cudaSuccess && prop.major >= 8;
}

std::vector<float> rounded(const std::vector<float> &v) {
  std::vector<float> r(v.size());
  for (size_t i = 0; i < v.size(); ++i) r[i] = dxrt::bf16_bits_to_float(dxrt::round_bf16_bits(v[i]));
  return r;
}

class GpuBf16 : public ::testing::Test {
protected:
  void SetUp() override {
    if (!have_bf16_device()) GTEST_SKIP() << "no CUDA device of sm_80 or newer";
    dxrt::set_matmul_precision("test", "bf16", "cuda");
  }
  void TearDown() override { dxrt::set_matmul_precision("test", "fp32", "cuda"); }
};

TEST_F(GpuBf16, ConversionKernelRoundsAsTheCpuBitForBit) {
  std::vector<float> v;
  for (uint64_t u = 0; u <= 0xffffffffull; u += 4099) v.push_back(dxrt::bits_float(uint32_t(u)));
  for (uint32_t u : {0x00000000u, 0x80000000u, 0x007fffffu, 0x7f7fffffu, 0x7f800000u, 0xff800000u, 0x7f800001u,
                     0xffffffffu, 0x3f808000u, 0x3f818000u})
    v.push_back(dxrt::bits_float(u));
  const int64_t n = int64_t(v.size());
  DeviceVec src(v), back(v.size());
  uint16_t *bits = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void **>(&bits), v.size() * 2), cudaSuccess);
  ASSERT_EQ(dxrt::cuda::to_bf16(src.p, bits, n, nullptr), 0);
  ASSERT_EQ(dxrt::cuda::from_bf16(bits, back.p, n, nullptr), 0);
  std::vector<uint16_t> got(v.size());
  ASSERT_EQ(cudaMemcpy(got.data(), bits, v.size() * 2, cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(bits);
  const std::vector<float> widened = back.get();
  int64_t differ = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    const uint16_t want = dxrt::round_bf16_bits(v[i]);
    if ((got[i] != want || dxrt::float_bits(widened[i]) != uint32_t(want) << 16) && differ++ < 5)
      ADD_FAILURE() << std::hex << "0x" << dxrt::float_bits(v[i]) << ": GPU 0x" << got[i] << ", CPU 0x" << want;
  }
  EXPECT_EQ(differ, 0) << "of " << v.size();
}

TEST_F(GpuBf16, DenseIsTheProductOfTheRoundedInputs) {
  const int64_t m = 64, k = 300, n = 48;
  std::vector<float> x = random_floats(size_t(m * k), 1), w = random_floats(size_t(n * k), 2);
  const std::vector<float> xr = rounded(x), wr = rounded(w);
  std::vector<float> ref(size_t(m * n)), unrounded(size_t(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0, u = 0;
      for (int64_t l = 0; l < k; ++l) {
        s += double(xr[size_t(i * k + l)]) * wr[size_t(j * k + l)];
        u += double(x[size_t(i * k + l)]) * w[size_t(j * k + l)];
      }
      ref[size_t(i * n + j)] = float(s);
      unrounded[size_t(i * n + j)] = float(u);
    }
  DeviceVec gx(x), gw(w), gy(size_t(m * n));
  dxrt_memref2 xd = m2(gx.p, m, k), wd = m2(gw.p, n, k), yd = m2(gy.p, m, n);
  _mlir_ciface_dxrt_cuda_dense_forward(&xd, &wd, &yd);
  const std::vector<float> y = gy.get();
  expect_close(y, ref, 1e-5); // fp32 accumulation of exact bf16 products
  double worst = 0;
  for (size_t i = 0; i < y.size(); ++i) worst = std::max(worst, std::fabs(double(y[i]) - unrounded[i]));
  EXPECT_GT(worst, 1e-4) << "the product equals the unrounded one: were the inputs rounded?";
}

// A 3x3 'same' convolution with 32 -> 64 channels (tensor-core sizes) and an
// odd one with asymmetric padding (the padded copy, then the bf16 copy).
struct Bf16ConvCase {
  const char *name;
  int64_t n, c, h, w, f, k, pt, pb, pl, pr;
};

class GpuBf16Conv : public GpuBf16, public ::testing::WithParamInterface<Bf16ConvCase> {};

TEST_P(GpuBf16Conv, ForwardAndGradsAreTheCpusOnRoundedInputsToOneBf16Rounding) {
  const Bf16ConvCase &p = GetParam();
  const int64_t ho = dxrt::conv_out_size(p.h, p.pt, p.pb, p.k, 1, 1), wo = dxrt::conv_out_size(p.w, p.pl, p.pr, p.k, 1, 1);
  const size_t xn = size_t(p.n * p.c * p.h * p.w), wn = size_t(p.f * p.c * p.k * p.k), yn = size_t(p.n * p.f * ho * wo);
  std::vector<float> x = random_floats(xn, 21), w = random_floats(wn, 22), dy = random_floats(yn, 23);
  std::vector<float> xr = rounded(x), wr = rounded(w), dyr = rounded(dy), y(yn), dx(xn), dw(wn);
  dxrt::Tensor4 tx{xr.data(), p.n, p.c, p.h, p.w}, tw{wr.data(), p.f, p.c, p.k, p.k}, ty{y.data(), p.n, p.f, ho, wo};
  dxrt::ConvGeometry g = dxrt::conv_geometry("test", tx, tw, ty, 1, 1, p.pt, p.pb, p.pl, p.pr, 1, 1, 1);
  dxrt::conv2d_im2col(dxrt::ConvDir::kForward, g, xr.data(), wr.data(), y.data());
  dxrt::conv2d_im2col(dxrt::ConvDir::kGradInput, g, dx.data(), wr.data(), dyr.data());
  dxrt::conv2d_im2col(dxrt::ConvDir::kGradWeight, g, xr.data(), dw.data(), dyr.data());

  DeviceVec gx(x), gw(w), gdy(dy), gy(yn), gdx(xn), gdw(wn);
  dxrt_memref4 xd = m4(gx.p, p.n, p.c, p.h, p.w), wd = m4(gw.p, p.f, p.c, p.k, p.k), yd = m4(gy.p, p.n, p.f, ho, wo),
               dyd = m4(gdy.p, p.n, p.f, ho, wo), dxd = m4(gdx.p, p.n, p.c, p.h, p.w), dwd = m4(gdw.p, p.f, p.c, p.k, p.k);
  _mlir_ciface_dxrt_cuda_conv2d_forward(&xd, &wd, &yd, 1, 1, p.pt, p.pb, p.pl, p.pr, 1, 1, 1);
  _mlir_ciface_dxrt_cuda_conv2d_grad_input(&dyd, &wd, &dxd, 1, 1, p.pt, p.pb, p.pl, p.pr, 1, 1, 1);
  _mlir_ciface_dxrt_cuda_conv2d_grad_weight(&dyd, &xd, &dwd, 1, 1, p.pt, p.pb, p.pl, p.pr, 1, 1, 1);
  // Each result is bf16 (or, where cuDNN has no bf16 kernel for the shape,
  // fp32 on the rounded operands): within 2^-8 of its value, plus what the
  // order of the sums changes.
  auto check = [](const std::vector<float> &gpu, const std::vector<float> &cpu, const char *what) {
    ASSERT_EQ(gpu.size(), cpu.size());
    double scale = 1e-3;
    for (float c : cpu) scale = std::max(scale, double(std::fabs(c)));
    int64_t bad = 0;
    for (size_t i = 0; i < cpu.size(); ++i) {
      const double d = std::fabs(double(gpu[i]) - cpu[i]);
      if (!(d <= std::ldexp(std::fabs(cpu[i]), -8) + 1e-5 * scale) && bad++ < 3)
        ADD_FAILURE() << what << " element " << i << ": GPU " << gpu[i] << ", CPU on rounded inputs " << cpu[i];
    }
    EXPECT_EQ(bad, 0) << what << ": elements outside one bf16 rounding, of " << cpu.size();
  };
  check(gy.get(), y, "y");
  check(gdx.get(), dx, "dx");
  check(gdw.get(), dw, "dw");
}

INSTANTIATE_TEST_SUITE_P(Shapes, GpuBf16Conv,
                         ::testing::Values(Bf16ConvCase{"same3x3_32to64", 4, 32, 14, 14, 64, 3, 1, 1, 1, 1},
                                           Bf16ConvCase{"asymmetric", 2, 3, 9, 7, 5, 3, 2, 0, 0, 1}),
                         [](const ::testing::TestParamInfo<Bf16ConvCase> &i) { return std::string(i.param.name); });

// The bf16 twins (Gemm.cpp, Conv.cpp; kernels.h), which read x, dy or both
// as bf16 bits: bit for bit the fp32 kernel's result on the same values as
// floats, in bf16 precision (cuBLAS and cuDNN read the bits where they are,
// or a widened copy where x needs padding) and in fp32 precision (widened).
// Every plan and algorithm is the fp32 kernel's: the same geometry, the
// same cache entry.

// v's values rounded to bf16, as device bits, freed at the end of the test.
struct DeviceBits {
  uint16_t *p = nullptr;
  explicit DeviceBits(const std::vector<float> &v) {
    std::vector<uint16_t> bits(v.size());
    for (size_t i = 0; i < v.size(); ++i) bits[i] = dxrt::round_bf16_bits(v[i]);
    DXRT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void **>(&p), std::max<size_t>(v.size(), 1) * 2));
    if (!v.empty()) DXRT_CUDA_CHECK(cudaMemcpy(p, bits.data(), v.size() * 2, cudaMemcpyHostToDevice));
  }
  DeviceBits(const DeviceBits &) = delete;
  DeviceBits &operator=(const DeviceBits &) = delete;
  ~DeviceBits() { cudaFree(p); }
};

dxrt_memref2_bf16 b2(uint16_t *p, int64_t r, int64_t c) { return {p, p, 0, {r, c}, {c, 1}}; }
dxrt_memref4_bf16 b4(uint16_t *p, int64_t a, int64_t b, int64_t c, int64_t d) {
  return {p, p, 0, {a, b, c, d}, {b * c * d, c * d, d, 1}};
}

void expect_same_bits(const std::vector<float> &twin, const std::vector<float> &kernel, const char *what) {
  ASSERT_EQ(twin.size(), kernel.size());
  int64_t differ = 0;
  for (size_t i = 0; i < twin.size(); ++i)
    if (dxrt::float_bits(twin[i]) != dxrt::float_bits(kernel[i]) && differ++ < 3)
      ADD_FAILURE() << what << " element " << i << ": twin " << twin[i] << ", fp32 kernel " << kernel[i];
  EXPECT_EQ(differ, 0) << what << ": elements that differ, of " << twin.size();
}

class GpuBf16Twins : public ::testing::TestWithParam<const char *> {
protected:
  void SetUp() override {
    if (!have_bf16_device()) GTEST_SKIP() << "no CUDA device of sm_80 or newer";
    dxrt::set_matmul_precision("test", GetParam(), "cuda");
  }
  void TearDown() override { dxrt::set_matmul_precision("test", "fp32", "cuda"); }
};

TEST_P(GpuBf16Twins, DenseTwinsGiveTheKernelsBitsOnTheRoundedOperands) {
  const int64_t m = 64, k = 300, n = 48;
  const std::vector<float> x = rounded(random_floats(size_t(m * k), 31)), w = random_floats(size_t(n * k), 32),
                           dy = rounded(random_floats(size_t(m * n), 33));
  DeviceVec gx(x), gw(w), gdy(dy);
  DeviceBits bx(x), bdy(dy);
  dxrt_memref2 xd = m2(gx.p, m, k), wd = m2(gw.p, n, k), dyd = m2(gdy.p, m, n);
  dxrt_memref2_bf16 xb = b2(bx.p, m, k), dyb = b2(bdy.p, m, n);
  DeviceVec y(size_t(m * n)), y16(size_t(m * n)), dx(size_t(m * k)), dx16(size_t(m * k));
  dxrt_memref2 yd = m2(y.p, m, n), y16d = m2(y16.p, m, n), dxd = m2(dx.p, m, k), dx16d = m2(dx16.p, m, k);
  _mlir_ciface_dxrt_cuda_dense_forward(&xd, &wd, &yd);
  _mlir_ciface_dxrt_cuda_dense_forward_bf16x(&xb, &wd, &y16d);
  expect_same_bits(y16.get(), y.get(), "forward_bf16x");
  _mlir_ciface_dxrt_cuda_dense_grad_input(&dyd, &wd, &dxd);
  _mlir_ciface_dxrt_cuda_dense_grad_input_bf16dy(&dyb, &wd, &dx16d);
  expect_same_bits(dx16.get(), dx.get(), "grad_input_bf16dy");
  DeviceVec dw(size_t(n * k)), dwx(size_t(n * k)), dwdy(size_t(n * k)), dwxdy(size_t(n * k));
  dxrt_memref2 dwd = m2(dw.p, n, k), dwxd = m2(dwx.p, n, k), dwdyd = m2(dwdy.p, n, k), dwxdyd = m2(dwxdy.p, n, k);
  _mlir_ciface_dxrt_cuda_dense_grad_weight(&dyd, &xd, &dwd);
  _mlir_ciface_dxrt_cuda_dense_grad_weight_bf16x(&dyd, &xb, &dwxd);
  _mlir_ciface_dxrt_cuda_dense_grad_weight_bf16dy(&dyb, &xd, &dwdyd);
  _mlir_ciface_dxrt_cuda_dense_grad_weight_bf16xdy(&dyb, &xb, &dwxdyd);
  const std::vector<float> want = dw.get();
  expect_same_bits(dwx.get(), want, "grad_weight_bf16x");
  expect_same_bits(dwdy.get(), want, "grad_weight_bf16dy");
  expect_same_bits(dwxdy.get(), want, "grad_weight_bf16xdy");
}

// The 'same' case reads bf16 x and dy where they are; the asymmetric one
// pads x (widened first) and, in bf16 precision, may compute fp32 on
// rounded copies where cuDNN has no bf16 kernel.
TEST_P(GpuBf16Twins, ConvolutionTwinsGiveTheKernelsBitsOnTheRoundedOperands) {
  for (const Bf16ConvCase &p : {Bf16ConvCase{"same3x3_32to64", 4, 32, 14, 14, 64, 3, 1, 1, 1, 1},
                                Bf16ConvCase{"asymmetric", 2, 3, 9, 7, 5, 3, 2, 0, 0, 1}}) {
    SCOPED_TRACE(p.name);
    const int64_t ho = dxrt::conv_out_size(p.h, p.pt, p.pb, p.k, 1, 1),
                  wo = dxrt::conv_out_size(p.w, p.pl, p.pr, p.k, 1, 1);
    const size_t xn = size_t(p.n * p.c * p.h * p.w), wn = size_t(p.f * p.c * p.k * p.k),
                 yn = size_t(p.n * p.f * ho * wo);
    const std::vector<float> x = rounded(random_floats(xn, 41)), w = random_floats(wn, 42), dy = rounded(random_floats(yn, 43));
    DeviceVec gx(x), gw(w), gdy(dy);
    DeviceBits bx(x), bdy(dy);
    dxrt_memref4 xd = m4(gx.p, p.n, p.c, p.h, p.w), wd = m4(gw.p, p.f, p.c, p.k, p.k),
                 dyd = m4(gdy.p, p.n, p.f, ho, wo);
    dxrt_memref4_bf16 xb = b4(bx.p, p.n, p.c, p.h, p.w), dyb = b4(bdy.p, p.n, p.f, ho, wo);
    auto y4 = [&](DeviceVec &v) { return m4(v.p, p.n, p.f, ho, wo); };
    auto x4 = [&](DeviceVec &v) { return m4(v.p, p.n, p.c, p.h, p.w); };
    auto w4 = [&](DeviceVec &v) { return m4(v.p, p.f, p.c, p.k, p.k); };
#define PADS 1, 1, p.pt, p.pb, p.pl, p.pr, 1, 1, 1
    DeviceVec y(yn), dx(xn), dw(wn);
    dxrt_memref4 yd = y4(y), dxd = x4(dx), dwd = w4(dw);
    _mlir_ciface_dxrt_cuda_conv2d_forward(&xd, &wd, &yd, PADS);
    _mlir_ciface_dxrt_cuda_conv2d_grad_input(&dyd, &wd, &dxd, PADS);
    _mlir_ciface_dxrt_cuda_conv2d_grad_weight(&dyd, &xd, &dwd, PADS);
    const std::vector<float> want_y = y.get(), want_dx = dx.get(), want_dw = dw.get();

    DeviceVec ty(yn), tdx(xn), tdw(wn);
    dxrt_memref4 tyd = y4(ty), tdxd = x4(tdx), tdwd = w4(tdw);
    _mlir_ciface_dxrt_cuda_conv2d_forward_bf16x(&xb, &wd, &tyd, PADS);
    expect_same_bits(ty.get(), want_y, "forward_bf16x");
    _mlir_ciface_dxrt_cuda_conv2d_grad_input_bf16dy(&dyb, &wd, &tdxd, PADS);
    expect_same_bits(tdx.get(), want_dx, "grad_input_bf16dy");
    _mlir_ciface_dxrt_cuda_conv2d_grad_weight_bf16x(&dyd, &xb, &tdwd, PADS);
    expect_same_bits(tdw.get(), want_dw, "grad_weight_bf16x");
    _mlir_ciface_dxrt_cuda_conv2d_grad_weight_bf16dy(&dyb, &xd, &tdwd, PADS);
    expect_same_bits(tdw.get(), want_dw, "grad_weight_bf16dy");
    _mlir_ciface_dxrt_cuda_conv2d_grad_weight_bf16xdy(&dyb, &xb, &tdwd, PADS);
    expect_same_bits(tdw.get(), want_dw, "grad_weight_bf16xdy");
    _mlir_ciface_dxrt_cuda_conv2d_backward_bf16x(&dyd, &xb, &wd, &tdxd, &tdwd, PADS);
    expect_same_bits(tdx.get(), want_dx, "backward_bf16x dx");
    expect_same_bits(tdw.get(), want_dw, "backward_bf16x dw");
    _mlir_ciface_dxrt_cuda_conv2d_backward_bf16dy(&dyb, &xd, &wd, &tdxd, &tdwd, PADS);
    expect_same_bits(tdx.get(), want_dx, "backward_bf16dy dx");
    expect_same_bits(tdw.get(), want_dw, "backward_bf16dy dw");
    _mlir_ciface_dxrt_cuda_conv2d_backward_bf16xdy(&dyb, &xb, &wd, &tdxd, &tdwd, PADS);
    expect_same_bits(tdx.get(), want_dx, "backward_bf16xdy dx");
    expect_same_bits(tdw.get(), want_dw, "backward_bf16xdy dw");
    _mlir_ciface_dxrt_cuda_conv2d_forward_grad_weight_bf16x(&xb, &wd, &dyd, &tyd, &tdwd, PADS);
    expect_same_bits(ty.get(), want_y, "forward_grad_weight_bf16x y");
    expect_same_bits(tdw.get(), want_dw, "forward_grad_weight_bf16x dw");
    _mlir_ciface_dxrt_cuda_conv2d_forward_grad_weight_bf16dy(&xd, &wd, &dyb, &tyd, &tdwd, PADS);
    expect_same_bits(ty.get(), want_y, "forward_grad_weight_bf16dy y");
    expect_same_bits(tdw.get(), want_dw, "forward_grad_weight_bf16dy dw");
    _mlir_ciface_dxrt_cuda_conv2d_forward_grad_weight_bf16xdy(&xb, &wd, &dyb, &tyd, &tdwd, PADS);
    expect_same_bits(ty.get(), want_y, "forward_grad_weight_bf16xdy y");
    expect_same_bits(tdw.get(), want_dw, "forward_grad_weight_bf16xdy dw");
#undef PADS
  }
}

INSTANTIATE_TEST_SUITE_P(Precisions, GpuBf16Twins, ::testing::Values("bf16", "fp32"),
                         [](const ::testing::TestParamInfo<const char *> &i) { return std::string(i.param); });

TEST(GpuBf16Precision, Fp32AgainAfterwards) {
  dxrt::set_matmul_precision("test", "fp32", "cuda");
  EXPECT_EQ(dxrt::matmul_precision(), dxrt::Precision::kFp32);
  // On the CUDA target the host CPU's bf16 instructions do not matter.
  EXPECT_NO_THROW(dxrt::set_matmul_precision("test", "bf16", "cuda"));
  dxrt::set_matmul_precision("test", "fp32", "cuda");
}

} // namespace
