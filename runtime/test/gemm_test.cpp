// sgemm (Blas.h) in fp32: every transposition, with padded leading
// dimensions, alpha and beta, against a double reference, on both sides of
// the row count from which C = A B^T runs on oneDNN's matmul primitive
// instead of its sgemm (Matmul.cpp). Both libraries accumulate in fp32, so
// the results agree with the reference to fp32's rounding of a sum.
#include "TestUtil.h"
#include "kernels/Blas.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace {

using dxtest::random_floats;

struct GemmCase {
  int64_t M, N, K;
};

class Gemm : public ::testing::TestWithParam<GemmCase> {
protected:
  void SetUp() override { dxrt::blas_init(); }
};

TEST_P(Gemm, EveryTranspositionMatchesTheDoubleReference) {
  const auto [M, N, K] = GetParam();
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (auto [alpha, beta] : {std::pair{1.0f, 0.0f}, std::pair{0.5f, 1.0f}}) {
        SCOPED_TRACE(::testing::Message() << "ta " << ta << " tb " << tb << " alpha " << alpha << " beta " << beta);
        // Leading dimensions with padding, as a sub-matrix's.
        const int64_t lda = (ta ? M : K) + 3, ldb = (tb ? K : N) + 5, ldc = N + 2;
        const std::vector<float> A = random_floats(size_t((ta ? K : M) * lda), 1),
                                 B = random_floats(size_t((tb ? N : K) * ldb), 2),
                                 C = random_floats(size_t(M * ldc), 3);
        std::vector<float> got = C;
        dxrt::sgemm(ta, tb, M, N, K, alpha, A.data(), lda, B.data(), ldb, beta, got.data(), ldc);
        double worst = 0, scale = 0;
        for (int64_t i = 0; i < M; ++i)
          for (int64_t j = 0; j < ldc; ++j) {
            const size_t at = size_t(i * ldc + j);
            if (j >= N) { // the padding of C's rows is not touched
              ASSERT_EQ(got[at], C[at]) << "C[" << i << ", " << j << "], past the row's " << N << " columns";
              continue;
            }
            double s = 0;
            for (int64_t k = 0; k < K; ++k)
              s += double(ta ? A[size_t(k * lda + i)] : A[size_t(i * lda + k)]) *
                   double(tb ? B[size_t(j * ldb + k)] : B[size_t(k * ldb + j)]);
            const double want = alpha * s + beta * double(C[at]);
            worst = std::max(worst, std::fabs(double(got[at]) - want));
            scale = std::max(scale, std::fabs(want));
          }
        EXPECT_LT(worst, 1e-6 * std::sqrt(double(K)) * scale);
      }
}

// 15 rows: sgemm in every transposition; 16 and more: the matmul primitive
// for C = A B^T. A dense layer's forward at batch 64 (784 -> 256) and a
// long inner dimension (3136, a flattened feature map).
INSTANTIATE_TEST_SUITE_P(Shapes, Gemm,
                         ::testing::Values(GemmCase{1, 10, 33}, GemmCase{15, 29, 301}, GemmCase{16, 29, 301},
                                           GemmCase{64, 256, 784}, GemmCase{37, 128, 3136}),
                         [](const ::testing::TestParamInfo<GemmCase> &i) {
                           return std::to_string(i.param.M) + "x" + std::to_string(i.param.N) + "x" +
                                  std::to_string(i.param.K);
                         });

} // namespace
