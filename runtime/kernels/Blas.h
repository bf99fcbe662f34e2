// The one place that talks to OpenBLAS. Kernels run on the calling thread:
// parallelism comes from MPI ranks, so BLAS is single-threaded unless the
// user sets OPENBLAS_NUM_THREADS.
#pragma once

#include <cstdint>

namespace dxrt {

// Sets OpenBLAS to one thread unless OPENBLAS_NUM_THREADS is set; returns the
// number of threads OpenBLAS will use. Called by the driver at start.
int blas_init();

// C[M,N] = alpha * op(A) op(B) + beta * C, row-major; op = transpose if ta/tb.
// lda/ldb/ldc are row strides. Zero-sized products are handled here
// (K = 0 gives beta * C).
void sgemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float *A, int64_t lda,
           const float *B, int64_t ldb, float beta, float *C, int64_t ldc);

} // namespace dxrt
