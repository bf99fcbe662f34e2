#include "kernels/Blas.h"

#include "common/Check.h"

#include <cblas.h>
#include <climits>
#include <cstdlib>

namespace dxrt {

int blas_init() {
  if (!std::getenv("OPENBLAS_NUM_THREADS")) openblas_set_num_threads(1);
  return openblas_get_num_threads();
}

void sgemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float *A, int64_t lda,
           const float *B, int64_t ldb, float beta, float *C, int64_t ldc) {
  if (M == 0 || N == 0) return;
  if (K == 0) {
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) C[i * ldc + j] = beta == 0.0f ? 0.0f : beta * C[i * ldc + j];
    return;
  }
  DXRT_KERNEL_CHECK(M <= INT_MAX && N <= INT_MAX && K <= INT_MAX && lda <= INT_MAX && ldb <= INT_MAX &&
                        ldc <= INT_MAX,
                    "sgemm", str("a dimension of the product [", M, ", ", K, "] x [", K, ", ", N,
                                 "] exceeds the 32-bit BLAS interface"));
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, int(M), int(N), int(K),
              alpha, A, int(lda), B, int(ldb), beta, C, int(ldc));
}

} // namespace dxrt
