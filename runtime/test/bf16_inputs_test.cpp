// The bf16 twins (kernels.h, Bf16Input.h): a product's input x (_bf16x), a
// gradient dy (_bf16dy) or both (_bf16xdy) stored in bf16 by dxc's
// dx-bf16-product-inputs. Each must give, bit for bit, what its fp32 kernel
// gives on those operands widened to floats, on every path: oneDNN reading
// the bf16 operands as they are (bf16 precision), and the operands widened
// for the fp32 kernels (im2col, the direct kernel, fp32 precision); NCHW and
// channel-blocked activations; and oneDNN must then reorder them no more (in
// bf16 precision, one reorder fewer than with an fp32 operand).
#include "TestUtil.h"
#include "dxrt/kernels.h"
#include "kernels/Bf16Round.h"
#include "kernels/Conv2d.h"
#include "kernels/Precision.h"

#include <gtest/gtest.h>
#include <cstring>
#include <random>
#include <vector>

namespace {

// n random values rounded to bf16: the bits, and the same values as floats.
struct Bf16Tensor {
  std::vector<uint16_t> bits;
  std::vector<float> wide;
};

Bf16Tensor random_bf16(size_t n, uint32_t seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  Bf16Tensor t;
  for (size_t i = 0; i < n; ++i) {
    t.bits.push_back(dxrt::round_bf16_bits(u(g)));
    t.wide.push_back(dxrt::bf16_bits_to_float(t.bits.back()));
  }
  return t;
}

using dxtest::random_floats;

// A descriptor of a contiguous array with these sizes, its element type
// that of T (float or uint16_t) and the descriptor type D.
template <class D, class T> D desc(std::vector<T> &v, std::initializer_list<int64_t> sizes) {
  D d;
  d.allocated = d.aligned = v.data();
  d.offset = 0;
  int i = 0;
  for (int64_t s : sizes) d.sizes[i++] = s;
  int64_t stride = 1;
  for (int k = i - 1; k >= 0; --k) d.strides[k] = stride, stride *= d.sizes[k];
  return d;
}

bool same_bits(const std::vector<float> &a, const std::vector<float> &b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Which path the kernels take: bf16 precision on oneDNN, bf16 precision on
// im2col (x widened), fp32 precision (x widened).
enum class Path { kBf16Onednn, kBf16Im2col, kFp32 };

class Bf16Inputs : public ::testing::TestWithParam<Path> {
protected:
  void SetUp() override {
    if (GetParam() != Path::kFp32) {
      if (!dxrt::cpu_has_bf16()) GTEST_SKIP() << "this CPU has no AVX512_BF16 / AMX-BF16";
      dxrt::set_matmul_precision("test", "bf16");
    }
    if (GetParam() == Path::kBf16Im2col) dxrt::set_conv_backend(dxrt::ConvBackend::kIm2col);
  }
  void TearDown() override {
    dxrt::set_matmul_precision("test", "fp32");
    dxrt::set_conv_backend(dxrt::ConvBackend::kOnednn);
  }
};

TEST_P(Bf16Inputs, DenseForwardAndWeightGradient) {
  const int64_t B = 8, K = 100, N = 24;
  Bf16Tensor x = random_bf16(size_t(B * K), 1);
  std::vector<float> w = random_floats(size_t(N * K), 2), dy = random_floats(size_t(B * N), 3);
  std::vector<float> y1(size_t(B * N)), y2(y1.size()), dw1(w.size()), dw2(w.size());
  auto xb = desc<dxrt_memref2_bf16>(x.bits, {B, K});
  auto xf = desc<dxrt_memref2>(x.wide, {B, K});
  auto wd = desc<dxrt_memref2>(w, {N, K}), dyd = desc<dxrt_memref2>(dy, {B, N});
  auto y1d = desc<dxrt_memref2>(y1, {B, N}), y2d = desc<dxrt_memref2>(y2, {B, N});
  auto dw1d = desc<dxrt_memref2>(dw1, {N, K}), dw2d = desc<dxrt_memref2>(dw2, {N, K});
  _mlir_ciface_dxrt_dense_forward_bf16x(&xb, &wd, &y1d);
  _mlir_ciface_dxrt_dense_forward(&xf, &wd, &y2d);
  EXPECT_TRUE(same_bits(y1, y2));
  _mlir_ciface_dxrt_dense_grad_weight_bf16x(&dyd, &xb, &dw1d);
  _mlir_ciface_dxrt_dense_grad_weight(&dyd, &xf, &dw2d);
  EXPECT_TRUE(same_bits(dw1, dw2));
}

// A 3x3 convolution (stride 1, padding 1) of C -> F channels: the four
// kernels that read x, NCHW.
TEST_P(Bf16Inputs, ConvolutionNchw) {
  for (int64_t c : {int64_t(1), int64_t(16)}) { // 1: the direct kernel's geometry (forward, weight gradient)
    SCOPED_TRACE(c);
    const int64_t n = 4, h = 10, w = 10, f = 32;
    Bf16Tensor x = random_bf16(size_t(n * c * h * w), 4);
    std::vector<float> wt = random_floats(size_t(f * c * 9), 5), dy = random_floats(size_t(n * f * h * w), 6);
    auto xb = desc<dxrt_memref4_bf16>(x.bits, {n, c, h, w});
    auto xf = desc<dxrt_memref4>(x.wide, {n, c, h, w});
    auto wd = desc<dxrt_memref4>(wt, {f, c, 3, 3}), dyd = desc<dxrt_memref4>(dy, {n, f, h, w});
    std::vector<float> y[2], dw[2], dx[2];
    dxrt_memref4 yd[2], dwd[2], dxd[2];
    for (int i = 0; i < 2; ++i) {
      y[i].assign(dy.size(), 0), dw[i].assign(wt.size(), 0), dx[i].assign(x.wide.size(), 0);
      yd[i] = desc<dxrt_memref4>(y[i], {n, f, h, w});
      dwd[i] = desc<dxrt_memref4>(dw[i], {f, c, 3, 3});
      dxd[i] = desc<dxrt_memref4>(dx[i], {n, c, h, w});
    }
    _mlir_ciface_dxrt_conv2d_forward_bf16x(&xb, &wd, &yd[0], 1, 1, 1, 1, 1, 1, 1, 1, 1);
    _mlir_ciface_dxrt_conv2d_forward(&xf, &wd, &yd[1], 1, 1, 1, 1, 1, 1, 1, 1, 1);
    EXPECT_TRUE(same_bits(y[0], y[1])) << "forward";
    _mlir_ciface_dxrt_conv2d_grad_weight_bf16x(&dyd, &xb, &dwd[0], 1, 1, 1, 1, 1, 1, 1, 1, 1);
    _mlir_ciface_dxrt_conv2d_grad_weight(&dyd, &xf, &dwd[1], 1, 1, 1, 1, 1, 1, 1, 1, 1);
    EXPECT_TRUE(same_bits(dw[0], dw[1])) << "grad_weight";
    _mlir_ciface_dxrt_conv2d_backward_bf16x(&dyd, &xb, &wd, &dxd[0], &dwd[0], 1, 1, 1, 1, 1, 1, 1, 1, 1);
    _mlir_ciface_dxrt_conv2d_backward(&dyd, &xf, &wd, &dxd[1], &dwd[1], 1, 1, 1, 1, 1, 1, 1, 1, 1);
    EXPECT_TRUE(same_bits(dx[0], dx[1])) << "backward dx";
    EXPECT_TRUE(same_bits(dw[0], dw[1])) << "backward dw";
    _mlir_ciface_dxrt_conv2d_forward_grad_weight_bf16x(&xb, &wd, &dyd, &yd[0], &dwd[0], 1, 1, 1, 1, 1, 1, 1, 1, 1);
    _mlir_ciface_dxrt_conv2d_forward_grad_weight(&xf, &wd, &dyd, &yd[1], &dwd[1], 1, 1, 1, 1, 1, 1, 1, 1, 1);
    EXPECT_TRUE(same_bits(y[0], y[1])) << "forward_grad_weight y";
    EXPECT_TRUE(same_bits(dw[0], dw[1])) << "forward_grad_weight dw";
  }
}

// The _blocked twins: activations in blocks of 16 and of 8 channels, and
// NCHW passed as [N, C, H, W, 1]; a stride-2 layer.
TEST_P(Bf16Inputs, ConvolutionBlocked) {
  for (int64_t b : {int64_t(16), int64_t(8), int64_t(1)}) {
    SCOPED_TRACE(b);
    const int64_t n = 2, c = 32, h = 9, w = 9, f = 16, s = 2, ho = 5, wo = 5;
    Bf16Tensor x = random_bf16(size_t(n * c * h * w), 7);
    std::vector<float> wt = random_floats(size_t(f * c * 9), 8), dy = random_floats(size_t(n * f * ho * wo), 9);
    auto xb = desc<dxrt_memref5_bf16>(x.bits, {n, c / b, h, w, b});
    auto xf = desc<dxrt_memref5>(x.wide, {n, c / b, h, w, b});
    auto wd = desc<dxrt_memref4>(wt, {f, c, 3, 3});
    auto dyd = desc<dxrt_memref5>(dy, {n, f / b, ho, wo, b});
    std::vector<float> y[2], dw[2], dx[2];
    dxrt_memref5 yd[2], dxd[2];
    dxrt_memref4 dwd[2];
    for (int i = 0; i < 2; ++i) {
      y[i].assign(dy.size(), 0), dw[i].assign(wt.size(), 0), dx[i].assign(x.wide.size(), 0);
      yd[i] = desc<dxrt_memref5>(y[i], {n, f / b, ho, wo, b});
      dwd[i] = desc<dxrt_memref4>(dw[i], {f, c, 3, 3});
      dxd[i] = desc<dxrt_memref5>(dx[i], {n, c / b, h, w, b});
    }
    _mlir_ciface_dxrt_conv2d_forward_blocked_bf16x(&xb, &wd, &yd[0], s, s, 1, 1, 1, 1, 1, 1, 1);
    _mlir_ciface_dxrt_conv2d_forward_blocked(&xf, &wd, &yd[1], s, s, 1, 1, 1, 1, 1, 1, 1);
    EXPECT_TRUE(same_bits(y[0], y[1])) << "forward";
    _mlir_ciface_dxrt_conv2d_grad_weight_blocked_bf16x(&dyd, &xb, &dwd[0], s, s, 1, 1, 1, 1, 1, 1, 1);
    _mlir_ciface_dxrt_conv2d_grad_weight_blocked(&dyd, &xf, &dwd[1], s, s, 1, 1, 1, 1, 1, 1, 1);
    EXPECT_TRUE(same_bits(dw[0], dw[1])) << "grad_weight";
    _mlir_ciface_dxrt_conv2d_backward_blocked_bf16x(&dyd, &xb, &wd, &dxd[0], &dwd[0], s, s, 1, 1, 1, 1, 1, 1, 1);
    _mlir_ciface_dxrt_conv2d_backward_blocked(&dyd, &xf, &wd, &dxd[1], &dwd[1], s, s, 1, 1, 1, 1, 1, 1, 1);
    EXPECT_TRUE(same_bits(dx[0], dx[1])) << "backward dx";
    EXPECT_TRUE(same_bits(dw[0], dw[1])) << "backward dw";
    _mlir_ciface_dxrt_conv2d_forward_grad_weight_blocked_bf16x(&xb, &wd, &dyd, &yd[0], &dwd[0], s, s, 1, 1, 1, 1, 1,
                                                                1, 1);
    _mlir_ciface_dxrt_conv2d_forward_grad_weight_blocked(&xf, &wd, &dyd, &yd[1], &dwd[1], s, s, 1, 1, 1, 1, 1, 1, 1);
    EXPECT_TRUE(same_bits(y[0], y[1])) << "forward_grad_weight y";
    EXPECT_TRUE(same_bits(dw[0], dw[1])) << "forward_grad_weight dw";
  }
}

// The dy twins (and the twins with both x and dy in bf16) of the dense
// layer's gradients.
TEST_P(Bf16Inputs, DenseGradientsBf16Dy) {
  const int64_t B = 8, K = 100, N = 24;
  Bf16Tensor x = random_bf16(size_t(B * K), 11), dy = random_bf16(size_t(B * N), 12);
  std::vector<float> w = random_floats(size_t(N * K), 13);
  std::vector<float> got(size_t(N * K)), want(got.size()), dx1(size_t(B * K)), dx2(dx1.size());
  auto xb = desc<dxrt_memref2_bf16>(x.bits, {B, K}), dyb = desc<dxrt_memref2_bf16>(dy.bits, {B, N});
  auto xf = desc<dxrt_memref2>(x.wide, {B, K}), dyf = desc<dxrt_memref2>(dy.wide, {B, N});
  auto wd = desc<dxrt_memref2>(w, {N, K});
  auto gotd = desc<dxrt_memref2>(got, {N, K}), wantd = desc<dxrt_memref2>(want, {N, K});
  auto dx1d = desc<dxrt_memref2>(dx1, {B, K}), dx2d = desc<dxrt_memref2>(dx2, {B, K});
  _mlir_ciface_dxrt_dense_grad_input_bf16dy(&dyb, &wd, &dx1d);
  _mlir_ciface_dxrt_dense_grad_input(&dyf, &wd, &dx2d);
  EXPECT_TRUE(same_bits(dx1, dx2)) << "grad_input";
  _mlir_ciface_dxrt_dense_grad_weight(&dyf, &xf, &wantd);
  _mlir_ciface_dxrt_dense_grad_weight_bf16dy(&dyb, &xf, &gotd);
  EXPECT_TRUE(same_bits(got, want)) << "grad_weight dy";
  std::fill(got.begin(), got.end(), 0.0f);
  _mlir_ciface_dxrt_dense_grad_weight_bf16xdy(&dyb, &xb, &gotd);
  EXPECT_TRUE(same_bits(got, want)) << "grad_weight x and dy";
}

// The kernels that read dy, with dy (and x) in bf16, against the fp32
// kernels on the widened operands: geometry (n, c, h, w, f, stride) and the
// channel block b of the activations (0: the NCHW entry points).
void check_dy_twins(int64_t n, int64_t c, int64_t h, int64_t w, int64_t f, int64_t s, int64_t b) {
  const int64_t ho = (h + 2 - 3) / s + 1, wo = (w + 2 - 3) / s + 1;
  Bf16Tensor x = random_bf16(size_t(n * c * h * w), 14), dy = random_bf16(size_t(n * f * ho * wo), 15);
  std::vector<float> wt = random_floats(size_t(f * c * 9), 16);
  std::vector<float> dw[2], dx[2];
  for (int i = 0; i < 2; ++i) dw[i].assign(wt.size(), 0), dx[i].assign(x.wide.size(), 0);
  auto wd = desc<dxrt_memref4>(wt, {f, c, 3, 3});
  dxrt_memref4 dwd[2] = {desc<dxrt_memref4>(dw[0], {f, c, 3, 3}), desc<dxrt_memref4>(dw[1], {f, c, 3, 3})};
  auto fresh = [&] {
    for (int i = 0; i < 2; ++i)
      std::fill(dw[i].begin(), dw[i].end(), 0.0f), std::fill(dx[i].begin(), dx[i].end(), 0.0f);
  };
  if (b == 0) {
    auto xb = desc<dxrt_memref4_bf16>(x.bits, {n, c, h, w}), dyb = desc<dxrt_memref4_bf16>(dy.bits, {n, f, ho, wo});
    auto xf = desc<dxrt_memref4>(x.wide, {n, c, h, w}), dyf = desc<dxrt_memref4>(dy.wide, {n, f, ho, wo});
    dxrt_memref4 dxd[2] = {desc<dxrt_memref4>(dx[0], {n, c, h, w}), desc<dxrt_memref4>(dx[1], {n, c, h, w})};
    _mlir_ciface_dxrt_conv2d_grad_input_bf16dy(&dyb, &wd, &dxd[0], s, s, 1, 1, 1, 1, 1, 1, 1);
    _mlir_ciface_dxrt_conv2d_grad_input(&dyf, &wd, &dxd[1], s, s, 1, 1, 1, 1, 1, 1, 1);
    EXPECT_TRUE(same_bits(dx[0], dx[1])) << "grad_input";
    _mlir_ciface_dxrt_conv2d_grad_weight(&dyf, &xf, &dwd[1], s, s, 1, 1, 1, 1, 1, 1, 1);
    _mlir_ciface_dxrt_conv2d_grad_weight_bf16dy(&dyb, &xf, &dwd[0], s, s, 1, 1, 1, 1, 1, 1, 1);
    EXPECT_TRUE(same_bits(dw[0], dw[1])) << "grad_weight dy";
    _mlir_ciface_dxrt_conv2d_grad_weight_bf16xdy(&dyb, &xb, &dwd[0], s, s, 1, 1, 1, 1, 1, 1, 1);
    EXPECT_TRUE(same_bits(dw[0], dw[1])) << "grad_weight x and dy";
    fresh();
    _mlir_ciface_dxrt_conv2d_backward(&dyf, &xf, &wd, &dxd[1], &dwd[1], s, s, 1, 1, 1, 1, 1, 1, 1);
    _mlir_ciface_dxrt_conv2d_backward_bf16dy(&dyb, &xf, &wd, &dxd[0], &dwd[0], s, s, 1, 1, 1, 1, 1, 1, 1);
    EXPECT_TRUE(same_bits(dx[0], dx[1]) && same_bits(dw[0], dw[1])) << "backward dy";
    _mlir_ciface_dxrt_conv2d_backward_bf16xdy(&dyb, &xb, &wd, &dxd[0], &dwd[0], s, s, 1, 1, 1, 1, 1, 1, 1);
    EXPECT_TRUE(same_bits(dx[0], dx[1]) && same_bits(dw[0], dw[1])) << "backward x and dy";
    // _forward_grad_weight: y = conv(x, w) and dw from dy, here with x the
    // transposed convolution's gradient and dy its input.
    std::vector<float> y[2] = {std::vector<float>(dy.wide.size()), std::vector<float>(dy.wide.size())};
    dxrt_memref4 yd[2] = {desc<dxrt_memref4>(y[0], {n, f, ho, wo}), desc<dxrt_memref4>(y[1], {n, f, ho, wo})};
    _mlir_ciface_dxrt_conv2d_forward_grad_weight(&xf, &wd, &dyf, &yd[1], &dwd[1], s, s, 1, 1, 1, 1, 1, 1, 1);
    _mlir_ciface_dxrt_conv2d_forward_grad_weight_bf16dy(&xf, &wd, &dyb, &yd[0], &dwd[0], s, s, 1, 1, 1, 1, 1, 1, 1);
    EXPECT_TRUE(same_bits(y[0], y[1]) && same_bits(dw[0], dw[1])) << "forward_grad_weight dy";
    _mlir_ciface_dxrt_conv2d_forward_grad_weight_bf16xdy(&xb, &wd, &dyb, &yd[0], &dwd[0], s, s, 1, 1, 1, 1, 1, 1, 1);
    EXPECT_TRUE(same_bits(y[0], y[1]) && same_bits(dw[0], dw[1])) << "forward_grad_weight x and dy";
    return;
  }
  auto xb = desc<dxrt_memref5_bf16>(x.bits, {n, c / b, h, w, b});
  auto dyb = desc<dxrt_memref5_bf16>(dy.bits, {n, f / b, ho, wo, b});
  auto xf = desc<dxrt_memref5>(x.wide, {n, c / b, h, w, b}), dyf = desc<dxrt_memref5>(dy.wide, {n, f / b, ho, wo, b});
  dxrt_memref5 dxd[2] = {desc<dxrt_memref5>(dx[0], {n, c / b, h, w, b}),
                         desc<dxrt_memref5>(dx[1], {n, c / b, h, w, b})};
  _mlir_ciface_dxrt_conv2d_grad_input_blocked_bf16dy(&dyb, &wd, &dxd[0], s, s, 1, 1, 1, 1, 1, 1, 1);
  _mlir_ciface_dxrt_conv2d_grad_input_blocked(&dyf, &wd, &dxd[1], s, s, 1, 1, 1, 1, 1, 1, 1);
  EXPECT_TRUE(same_bits(dx[0], dx[1])) << "grad_input";
  _mlir_ciface_dxrt_conv2d_grad_weight_blocked(&dyf, &xf, &dwd[1], s, s, 1, 1, 1, 1, 1, 1, 1);
  _mlir_ciface_dxrt_conv2d_grad_weight_blocked_bf16dy(&dyb, &xf, &dwd[0], s, s, 1, 1, 1, 1, 1, 1, 1);
  EXPECT_TRUE(same_bits(dw[0], dw[1])) << "grad_weight dy";
  _mlir_ciface_dxrt_conv2d_grad_weight_blocked_bf16xdy(&dyb, &xb, &dwd[0], s, s, 1, 1, 1, 1, 1, 1, 1);
  EXPECT_TRUE(same_bits(dw[0], dw[1])) << "grad_weight x and dy";
  fresh();
  _mlir_ciface_dxrt_conv2d_backward_blocked(&dyf, &xf, &wd, &dxd[1], &dwd[1], s, s, 1, 1, 1, 1, 1, 1, 1);
  _mlir_ciface_dxrt_conv2d_backward_blocked_bf16dy(&dyb, &xf, &wd, &dxd[0], &dwd[0], s, s, 1, 1, 1, 1, 1, 1, 1);
  EXPECT_TRUE(same_bits(dx[0], dx[1]) && same_bits(dw[0], dw[1])) << "backward dy";
  _mlir_ciface_dxrt_conv2d_backward_blocked_bf16xdy(&dyb, &xb, &wd, &dxd[0], &dwd[0], s, s, 1, 1, 1, 1, 1, 1, 1);
  EXPECT_TRUE(same_bits(dx[0], dx[1]) && same_bits(dw[0], dw[1])) << "backward x and dy";
  std::vector<float> y[2] = {std::vector<float>(dy.wide.size()), std::vector<float>(dy.wide.size())};
  dxrt_memref5 yd[2] = {desc<dxrt_memref5>(y[0], {n, f / b, ho, wo, b}),
                        desc<dxrt_memref5>(y[1], {n, f / b, ho, wo, b})};
  _mlir_ciface_dxrt_conv2d_forward_grad_weight_blocked(&xf, &wd, &dyf, &yd[1], &dwd[1], s, s, 1, 1, 1, 1, 1, 1, 1);
  _mlir_ciface_dxrt_conv2d_forward_grad_weight_blocked_bf16dy(&xf, &wd, &dyb, &yd[0], &dwd[0], s, s, 1, 1, 1, 1, 1, 1,
                                                              1);
  EXPECT_TRUE(same_bits(y[0], y[1]) && same_bits(dw[0], dw[1])) << "forward_grad_weight dy";
  _mlir_ciface_dxrt_conv2d_forward_grad_weight_blocked_bf16xdy(&xb, &wd, &dyb, &yd[0], &dwd[0], s, s, 1, 1, 1, 1, 1, 1,
                                                               1);
  EXPECT_TRUE(same_bits(y[0], y[1]) && same_bits(dw[0], dw[1])) << "forward_grad_weight x and dy";
}

TEST_P(Bf16Inputs, ConvolutionNchwBf16Dy) {
  for (int64_t c : {int64_t(1), int64_t(16)}) { // 1: the direct kernel's geometry (weight gradient)
    SCOPED_TRACE(c);
    check_dy_twins(4, c, 10, 10, 32, 1, 0);
  }
}

TEST_P(Bf16Inputs, ConvolutionBlockedBf16Dy) {
  for (int64_t b : {int64_t(16), int64_t(8), int64_t(1)}) {
    SCOPED_TRACE(b);
    check_dy_twins(2, 32, 9, 9, 16, 2, b);
  }
}

// The point of a bf16 x or dy on oneDNN: where the primitive computes in its
// layout, an fp32 operand is reordered (rounded) into a bf16 copy and a bf16
// one is read as it is; in another layout both are reordered.
TEST(Bf16InputsOnednn, ReadsBf16WithoutReorder) {
  if (!dxrt::cpu_has_bf16()) GTEST_SKIP() << "this CPU has no AVX512_BF16 / AMX-BF16";
  dxrt::set_matmul_precision("test", "bf16");
  dxrt::ConvGeometry g = dxrt::conv_geometry("test", dxrt::Tensor4{nullptr, 2, 32, 9, 9},
                                             dxrt::Tensor4{nullptr, 16, 32, 3, 3}, dxrt::Tensor4{nullptr, 2, 16, 9, 9},
                                             1, 1, 1, 1, 1, 1, 1, 1, 1);
  for (int block : {0, int(dxrt::kBlock8)}) {
    const int sides = dxrt::kXSideBlocked | dxrt::kYSideBlocked | block;
    for (dxrt::ConvDir dir : {dxrt::ConvDir::kForward, dxrt::ConvDir::kGradWeight}) {
      const int f32 = dxrt::conv2d_onednn_reorders(dir, g, sides), bf = dxrt::conv2d_onednn_reorders(dir, g, sides | dxrt::kXSideBf16);
      if (f32 < 0 || std::strcmp(dxrt::conv2d_onednn_impl(dir, g, sides), dxrt::conv2d_onednn_impl(dir, g, sides | dxrt::kXSideBf16)) != 0)
        continue; // oneDNN runs this layout another way here: nothing to compare
      // bf16 means AVX-512 (AVX512_BF16 or AMX), where oneDNN computes in
      // blocks of 16: an x in blocks of 8 is reordered either way.
      EXPECT_EQ(bf, block == 0 ? f32 - 1 : f32) << "direction " << int(dir) << ", blocked " << sides;
    }
    // dy in bf16: the input and the weight gradient read it.
    for (dxrt::ConvDir dir : {dxrt::ConvDir::kGradInput, dxrt::ConvDir::kGradWeight}) {
      const int f32 = dxrt::conv2d_onednn_reorders(dir, g, sides),
                bf = dxrt::conv2d_onednn_reorders(dir, g, sides | dxrt::kYSideBf16);
      if (f32 < 0 || std::strcmp(dxrt::conv2d_onednn_impl(dir, g, sides),
                                 dxrt::conv2d_onednn_impl(dir, g, sides | dxrt::kYSideBf16)) != 0)
        continue;
      EXPECT_EQ(bf, block == 0 ? f32 - 1 : f32) << "dy, direction " << int(dir) << ", blocked " << sides;
    }
  }
  dxrt::set_matmul_precision("test", "fp32");
}

INSTANTIATE_TEST_SUITE_P(Paths, Bf16Inputs, ::testing::Values(Path::kBf16Onednn, Path::kBf16Im2col, Path::kFp32),
                         [](const ::testing::TestParamInfo<Path> &i) {
                           return i.param == Path::kBf16Onednn ? std::string("Bf16Onednn")
                                  : i.param == Path::kBf16Im2col ? std::string("Bf16Im2col")
                                                                 : std::string("Fp32");
                         });

} // namespace
