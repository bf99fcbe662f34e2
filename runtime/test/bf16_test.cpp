// bf16 precision (kernels/Precision.h): the rounding itself, and products and
// convolutions that must equal a double reference computed on the
// bf16-rounded inputs (to fp32 accumulation's error), while differing from
// the reference on the unrounded inputs (so the rounding did happen).
#include "TestUtil.h"
#include "dxrt/kernels.h"
#include "kernels/Bf16Round.h"
#include "kernels/Blas.h"
#include "kernels/Conv2d.h"
#include "kernels/Precision.h"

#include <gtest/gtest.h>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace {

using dxrt::bf16_to_float;

uint16_t bits(float f) {
  uint16_t b;
  dxrt::to_bf16(&f, &b, 1);
  return b;
}

float rounded(float f) { return bf16_to_float(bits(f)); }

using dxtest::random_floats;

std::vector<float> rounded(const std::vector<float> &v) {
  std::vector<float> r(v.size());
  for (size_t i = 0; i < v.size(); ++i) r[i] = rounded(v[i]);
  return r;
}

// Sets bf16 for one test (skipped where the CPU has none), fp32 after.
class Bf16 : public ::testing::Test {
protected:
  void SetUp() override {
    if (!dxrt::cpu_has_bf16()) GTEST_SKIP() << "this CPU has no AVX512_BF16 / AMX-BF16";
    dxrt::set_matmul_precision("test", "bf16");
  }
  void TearDown() override { dxrt::set_matmul_precision("test", "fp32"); }
};

TEST(Bf16Rounding, NearestEvenNanInfinityAndDenormals) {
  EXPECT_EQ(bits(1.0f), 0x3f80);
  EXPECT_EQ(bits(-2.0f), 0xc000);
  // 1 + 2^-8 lies halfway between 1 and 1 + 2^-7: to the even one, 1.
  EXPECT_EQ(bits(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  // 1 + 3 * 2^-8 lies halfway between 1 + 2^-7 and 1 + 2^-6: to the even one.
  EXPECT_EQ(bits(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
  // Just above halfway: up.
  EXPECT_EQ(bits(std::nextafter(1.0f + std::ldexp(1.0f, -8), 2.0f)), 0x3f81);
  EXPECT_EQ(bits(std::numeric_limits<float>::infinity()), 0x7f80);
  EXPECT_TRUE(std::isnan(rounded(std::numeric_limits<float>::quiet_NaN())));
  // The largest float rounds up to infinity, as IEEE's round to nearest does.
  EXPECT_EQ(bits(std::numeric_limits<float>::max()), 0x7f80);
  // Denormals flush to (signed) zero, as VCVTNEPS2BF16 does.
  EXPECT_EQ(bits(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(bits(-std::numeric_limits<float>::denorm_min()), 0x8000);
}

TEST(Bf16Rounding, EveryLengthAndTailAgreeWithOneAtATime) {
  // The vector path (32, 16, then a masked tail) against single conversions.
  std::vector<float> v = random_floats(100, 1, -1e3f, 1e3f);
  v[7] = std::numeric_limits<float>::quiet_NaN();
  v[40] = -std::numeric_limits<float>::infinity();
  for (int64_t n : {0, 1, 15, 16, 17, 31, 32, 33, 47, 48, 63, 64, 65, 100}) {
    std::vector<uint16_t> out(size_t(n) + 1, 0xabcd);
    dxrt::to_bf16(v.data(), out.data(), n);
    for (int64_t i = 0; i < n; ++i) {
      uint16_t one = bits(v[size_t(i)]);
      if (std::isnan(v[size_t(i)])) EXPECT_TRUE(std::isnan(bf16_to_float(out[size_t(i)])));
      else EXPECT_EQ(out[size_t(i)], one) << "n " << n << " i " << i;
    }
    EXPECT_EQ(out[size_t(n)], 0xabcd) << "wrote past the end at n " << n;
    // round_to_bf16: the same values as floats, in place too.
    std::vector<float> as_float(size_t(n) + 1, 7.0f), in_place(v.begin(), v.begin() + n);
    dxrt::round_to_bf16(v.data(), as_float.data(), n);
    dxrt::round_to_bf16(in_place.data(), in_place.data(), n);
    for (int64_t i = 0; i < n; ++i) {
      const float want = rounded(v[size_t(i)]);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(as_float[size_t(i)]) && std::isnan(in_place[size_t(i)]));
        continue;
      }
      EXPECT_EQ(as_float[size_t(i)], want) << "n " << n << " i " << i;
      EXPECT_EQ(in_place[size_t(i)], want) << "n " << n << " i " << i;
    }
    EXPECT_EQ(as_float[size_t(n)], 7.0f) << "wrote past the end at n " << n;
  }
}

// Bf16Round.h's function is what the CUDA conversion kernel and the scalar
// fallback run; the vector path is VCVTNEPS2BF16. Every 4099th bit pattern
// of the 2^32 (all exponents, signs, NaN payloads, denormals) and the edges
// must give the same bits both ways, so that a bf16 operand is the same on
// the CPU and on the GPU.
TEST(Bf16Rounding, SharedFunctionEqualsTheInstructionBitForBit) {
  if (!dxrt::cpu_has_bf16()) GTEST_SKIP() << "this CPU has no AVX512_BF16 / AMX-BF16";
  std::vector<float> v;
  for (uint64_t u = 0; u <= 0xffffffffull; u += 4099) v.push_back(dxrt::bits_float(uint32_t(u)));
  for (uint32_t u : {0x00000000u, 0x80000000u, 0x007fffffu, 0x00800000u, 0x7f7fffffu, 0x7f800000u, 0xff800000u,
                     0x7f800001u, 0x7fc00000u, 0xffffffffu, 0x3f808000u, 0x3f818000u, 0x3f807fffu})
    v.push_back(dxrt::bits_float(u));
  std::vector<uint16_t> out(v.size());
  dxrt::to_bf16(v.data(), out.data(), int64_t(v.size()));
  int64_t differ = 0;
  for (size_t i = 0; i < v.size(); ++i)
    if (out[i] != dxrt::round_bf16_bits(v[i]) && differ++ < 5)
      ADD_FAILURE() << std::hex << "0x" << dxrt::float_bits(v[i]) << ": instruction 0x" << out[i] << ", function 0x"
                    << dxrt::round_bf16_bits(v[i]);
  EXPECT_EQ(differ, 0) << "of " << v.size();
  EXPECT_EQ(dxrt::bf16_bits_to_float(0x3f80), 1.0f);
}

TEST(Bf16Precision, RefusesUnknownNames) {
  EXPECT_THROW(dxrt::set_matmul_precision("test", "fp16"), dxrt::Error);
  EXPECT_EQ(dxrt::matmul_precision(), dxrt::Precision::kFp32);
}

// C = alpha op(A) op(B) + beta C in double, row-major with leading dims.
std::vector<double> ref_gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, double alpha, const std::vector<float> &A,
                             int64_t lda, const std::vector<float> &B, int64_t ldb, double beta,
                             const std::vector<float> &C, int64_t ldc) {
  std::vector<double> out(C.begin(), C.end());
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double s = 0;
      for (int64_t k = 0; k < K; ++k)
        s += double(ta ? A[size_t(k * lda + i)] : A[size_t(i * lda + k)]) *
             double(tb ? B[size_t(j * ldb + k)] : B[size_t(k * ldb + j)]);
      out[size_t(i * ldc + j)] = alpha * s + beta * double(C[size_t(i * ldc + j)]);
    }
  return out;
}

double max_rel_error(const std::vector<float> &got, const std::vector<double> &want) {
  double scale = 0, err = 0;
  for (double w : want) scale = std::max(scale, std::fabs(w));
  for (size_t i = 0; i < got.size(); ++i) err = std::max(err, std::fabs(double(got[i]) - want[i]));
  return err / scale;
}

TEST_F(Bf16, GemmReadsRoundedInputsAndAccumulatesInFp32) {
  const int64_t M = 37, N = 29, K = 301;
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (auto [alpha, beta] : {std::pair{1.0f, 0.0f}, std::pair{0.5f, 1.0f}}) {
        // Leading dims with padding, as a sub-matrix's.
        const int64_t lda = (ta ? M : K) + 3, ldb = (tb ? K : N) + 5, ldc = N + 2;
        std::vector<float> A = random_floats(size_t((ta ? K : M) * lda), 2), B = random_floats(size_t((tb ? N : K) * ldb), 3),
                           C = random_floats(size_t(M * ldc), 4);
        std::vector<float> got = C;
        dxrt::sgemm(ta, tb, M, N, K, alpha, A.data(), lda, B.data(), ldb, beta, got.data(), ldc);
        const double exact_rounded = max_rel_error(got, ref_gemm(ta, tb, M, N, K, alpha, rounded(A), lda, rounded(B), ldb, beta, C, ldc));
        const double exact_fp32 = max_rel_error(got, ref_gemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc));
        SCOPED_TRACE(::testing::Message() << "ta " << ta << " tb " << tb << " alpha " << alpha << " beta " << beta);
        // fp32 accumulation of 301 products: ~1e-6 of the largest value.
        EXPECT_LT(exact_rounded, 2e-6);
        // Against the unrounded inputs the error is bf16's (2^-9 per input).
        EXPECT_GT(exact_fp32, 1e-4);
        EXPECT_LT(exact_fp32, 2e-2);
      }
}

dxrt_memref2 m2(std::vector<float> &v, int64_t rows, int64_t cols) {
  return {v.data(), v.data(), 0, {rows, cols}, {cols, 1}};
}

TEST_F(Bf16, DenseLayerAllThreeProducts) {
  const int64_t B = 16, K = 200, N = 24;
  std::vector<float> x = random_floats(size_t(B * K), 5), w = random_floats(size_t(N * K), 6),
                     dy = random_floats(size_t(B * N), 7), y(size_t(B * N)), dx(size_t(B * K)), dw(size_t(N * K));
  dxrt_memref2 xd = m2(x, B, K), wd = m2(w, N, K), yd = m2(y, B, N), dyd = m2(dy, B, N), dxd = m2(dx, B, K),
               dwd = m2(dw, N, K);
  _mlir_ciface_dxrt_dense_forward(&xd, &wd, &yd);
  _mlir_ciface_dxrt_dense_grad_input(&dyd, &wd, &dxd);
  _mlir_ciface_dxrt_dense_grad_weight(&dyd, &xd, &dwd);
  const std::vector<float> zy(y.size()), zx(dx.size()), zw(dw.size());
  EXPECT_LT(max_rel_error(y, ref_gemm(false, true, B, N, K, 1, rounded(x), K, rounded(w), K, 0, zy, N)), 2e-6);
  EXPECT_LT(max_rel_error(dx, ref_gemm(false, false, B, K, N, 1, rounded(dy), N, rounded(w), K, 0, zx, K)), 2e-6);
  EXPECT_LT(max_rel_error(dw, ref_gemm(true, false, N, K, B, 1, rounded(dy), N, rounded(x), K, 0, zw, K)), 2e-6);
}

struct ConvCase {
  int64_t n, c, h, w, f, k, stride, pad, groups;
};

dxrt_memref4 m4(std::vector<float> &v, int64_t a, int64_t b, int64_t c, int64_t d) {
  return {v.data(), v.data(), 0, {a, b, c, d}, {b * c * d, c * d, d, 1}};
}

// y = conv(x, w), dx = conv_x^T(dy, w), dw = conv_w^T(dy, x) in double, on
// the given (already rounded or not) inputs.
void ref_conv(const ConvCase &p, const std::vector<float> &x, const std::vector<float> &w,
              const std::vector<float> &dy, std::vector<double> &y, std::vector<double> &dx, std::vector<double> &dw) {
  const int64_t ho = (p.h + 2 * p.pad - p.k) / p.stride + 1, wo = (p.w + 2 * p.pad - p.k) / p.stride + 1;
  const int64_t cg = p.c / p.groups, fg = p.f / p.groups;
  y.assign(size_t(p.n * p.f * ho * wo), 0);
  dx.assign(x.size(), 0);
  dw.assign(w.size(), 0);
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t f = 0; f < p.f; ++f)
      for (int64_t oh = 0; oh < ho; ++oh)
        for (int64_t ow = 0; ow < wo; ++ow) {
          const size_t yi = size_t(((n * p.f + f) * ho + oh) * wo + ow);
          const double d = dy[yi];
          double s = 0;
          for (int64_t ci = 0; ci < cg; ++ci)
            for (int64_t i = 0; i < p.k; ++i)
              for (int64_t j = 0; j < p.k; ++j) {
                const int64_t ih = oh * p.stride - p.pad + i, iw = ow * p.stride - p.pad + j;
                if (ih < 0 || ih >= p.h || iw < 0 || iw >= p.w) continue;
                const size_t xi = size_t(((n * p.c + (f / fg) * cg + ci) * p.h + ih) * p.w + iw);
                const size_t wi = size_t(((f * cg + ci) * p.k + i) * p.k + j);
                s += double(x[xi]) * w[wi];
                dx[xi] += d * w[wi];
                dw[wi] += d * x[xi];
              }
          y[yi] = s;
        }
}

class Bf16Conv : public Bf16, public ::testing::WithParamInterface<ConvCase> {};

TEST_P(Bf16Conv, ThreeDirectionsReadRoundedInputs) {
  const ConvCase p = GetParam();
  const int64_t ho = (p.h + 2 * p.pad - p.k) / p.stride + 1, wo = (p.w + 2 * p.pad - p.k) / p.stride + 1;
  std::vector<float> x = random_floats(size_t(p.n * p.c * p.h * p.w), 8),
                     w = random_floats(size_t(p.f * (p.c / p.groups) * p.k * p.k), 9),
                     dy = random_floats(size_t(p.n * p.f * ho * wo), 10);
  std::vector<float> y(dy.size()), dx(x.size()), dw(w.size());
  dxrt_memref4 xd = m4(x, p.n, p.c, p.h, p.w), wd = m4(w, p.f, p.c / p.groups, p.k, p.k), yd = m4(y, p.n, p.f, ho, wo),
               dyd = m4(dy, p.n, p.f, ho, wo), dxd = m4(dx, p.n, p.c, p.h, p.w),
               dwd = m4(dw, p.f, p.c / p.groups, p.k, p.k);
  const int64_t s = p.stride, q = p.pad;
  _mlir_ciface_dxrt_conv2d_forward(&xd, &wd, &yd, s, s, q, q, q, q, 1, 1, p.groups);
  _mlir_ciface_dxrt_conv2d_backward(&dyd, &xd, &wd, &dxd, &dwd, s, s, q, q, q, q, 1, 1, p.groups);
  std::vector<double> ry, rdx, rdw, fy, fdx, fdw;
  ref_conv(p, rounded(x), rounded(w), rounded(dy), ry, rdx, rdw);
  ref_conv(p, x, w, dy, fy, fdx, fdw);
  for (auto [name, got, want, unrounded] :
       {std::tuple{"y", &y, &ry, &fy}, std::tuple{"dx", &dx, &rdx, &fdx}, std::tuple{"dw", &dw, &rdw, &fdw}}) {
    SCOPED_TRACE(name);
    EXPECT_LT(max_rel_error(*got, *want), 5e-6);
    EXPECT_GT(max_rel_error(*got, *unrounded), 1e-4);
  }
}

// A layer oneDNN runs blocked in bf16, a strided and a grouped one, and a
// one-channel first layer (the direct kernel, Conv2dDirect.cpp, rounding its
// inputs: forward and weight gradient; the input gradient on oneDNN).
INSTANTIATE_TEST_SUITE_P(Layers, Bf16Conv,
                         ::testing::Values(ConvCase{4, 16, 12, 12, 32, 3, 1, 1, 1}, ConvCase{3, 32, 11, 9, 16, 3, 2, 1, 1},
                                           ConvCase{2, 32, 8, 8, 32, 3, 1, 1, 4}, ConvCase{4, 1, 14, 14, 8, 5, 1, 2, 1}));

} // namespace
