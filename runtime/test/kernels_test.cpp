// Dense kernels against naive loops, and descriptor validation.
#include "TestUtil.h"
#include "dxrt/kernels.h"

#include <gtest/gtest.h>
#include <vector>

namespace {

dxrt_memref2 m2(std::vector<float> &v, int64_t r, int64_t c, int64_t offset = 0) {
  return {v.data(), v.data(), offset, {r, c}, {c, 1}};
}

using dxtest::random_floats;

TEST(Dense, ForwardAndGradientsMatchNaiveLoops) {
  const int64_t M = 7, K = 13, N = 5;
  auto x = random_floats(M * K, 1), w = random_floats(N * K, 2), dy = random_floats(M * N, 3);
  std::vector<float> y(M * N), dx(M * K), dw(N * K, 42.0f);
  dxrt_memref2 xd = m2(x, M, K), wd = m2(w, N, K), yd = m2(y, M, N), dyd = m2(dy, M, N), dxd = m2(dx, M, K),
               dwd = m2(dw, N, K);
  _mlir_ciface_dxrt_dense_forward(&xd, &wd, &yd);
  _mlir_ciface_dxrt_dense_grad_input(&dyd, &wd, &dxd);
  _mlir_ciface_dxrt_dense_grad_weight(&dyd, &xd, &dwd);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double s = 0;
      for (int64_t k = 0; k < K; ++k) s += double(x[i * K + k]) * w[j * K + k];
      EXPECT_NEAR(y[i * N + j], s, 1e-5);
    }
  for (int64_t i = 0; i < M; ++i)
    for (int64_t k = 0; k < K; ++k) {
      double s = 0;
      for (int64_t j = 0; j < N; ++j) s += double(dy[i * N + j]) * w[j * K + k];
      EXPECT_NEAR(dx[i * K + k], s, 1e-5);
    }
  for (int64_t j = 0; j < N; ++j)
    for (int64_t k = 0; k < K; ++k) {
      double s = 0;
      for (int64_t i = 0; i < M; ++i) s += double(dy[i * N + j]) * x[i * K + k];
      EXPECT_NEAR(dw[j * K + k], s, 1e-5); // overwritten, not accumulated
    }
}

TEST(Dense, HonoursDescriptorOffset) {
  const int64_t M = 2, K = 3, N = 2;
  std::vector<float> x = {9, 9, 1, 2, 3, 4, 5, 6}; // offset 2
  std::vector<float> w = {1, 0, 0, 0, 1, 0}, y(M * N);
  dxrt_memref2 xd = m2(x, M, K, 2), wd = m2(w, N, K), yd = m2(y, M, N);
  _mlir_ciface_dxrt_dense_forward(&xd, &wd, &yd);
  EXPECT_EQ(y, (std::vector<float>{1, 2, 4, 5}));
}

TEST(Dense, EmptyBatchIsANoOp) {
  std::vector<float> x(1), w(6), y(1), dw(6, 7.0f);
  dxrt_memref2 xd = m2(x, 0, 3), wd = m2(w, 2, 3), yd = m2(y, 0, 2), dwd = m2(dw, 2, 3);
  _mlir_ciface_dxrt_dense_forward(&xd, &wd, &yd);
  _mlir_ciface_dxrt_dense_grad_weight(&yd, &xd, &dwd);
  for (float v : dw) EXPECT_EQ(v, 0.0f); // K = 0: dw = 0
}

TEST(DenseDeathTest, NonContiguousDescriptorAbortsNamingTheKernel) {
  std::vector<float> x(20), w(6), y(8);
  dxrt_memref2 xd = {x.data(), x.data(), 0, {4, 3}, {5, 1}}; // row stride 5 != 3
  dxrt_memref2 wd = m2(w, 2, 3), yd = m2(y, 4, 2);
  EXPECT_DEATH(_mlir_ciface_dxrt_dense_forward(&xd, &wd, &yd),
               "dxrt_dense_forward: argument 'x' is not contiguous: dimension 0 has stride 5, expected 3");
}

TEST(DenseDeathTest, ShapeMismatchAbortsNamingTheKernel) {
  std::vector<float> x(12), w(8), y(8);
  dxrt_memref2 xd = m2(x, 4, 3), wd = m2(w, 2, 4), yd = m2(y, 4, 2);
  EXPECT_DEATH(_mlir_ciface_dxrt_dense_forward(&xd, &wd, &yd), "dxrt_dense_forward: x is \\[4, 3\\] but w is \\[2, 4\\]");
}

} // namespace
