// The one place that runs matrix products (dense layers, im2col
// convolutions). They go to oneDNN's sgemm on one thread, or with
// DXRT_GEMM=openblas to OpenBLAS (single-threaded unless the user sets
// OPENBLAS_NUM_THREADS). Kernels run on the calling thread: parallelism
// comes from MPI ranks.
#pragma once

#include <cstdint>

namespace dxrt {

// Sets the GEMM library up (oneDNN: one thread; OpenBLAS: one thread unless
// OPENBLAS_NUM_THREADS is set); returns the number of threads a product
// uses. Called by the driver at start; exits on a bad DXRT_GEMM.
int blas_init();

// "onednn", or OpenBLAS's kernel name ("Prescott", "SkylakeX", ...).
const char *gemm_library();

// C[M,N] = alpha * op(A) op(B) + beta * C, row-major; op = transpose if ta/tb.
// lda/ldb/ldc are row strides. Zero-sized products are handled here
// (K = 0 gives beta * C). In bf16 precision (Precision.h) the product reads
// A and B rounded to bf16 and accumulates in fp32 (gemm_bf16), whichever
// library DXRT_GEMM names.
void sgemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float *A, int64_t lda,
           const float *B, int64_t ldb, float beta, float *C, int64_t ldc);

// The bf16 product: oneDNN's matmul on bf16 copies of A and B (GemmBf16.cpp).
void gemm_bf16(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float *A, int64_t lda,
               const float *B, int64_t ldb, float beta, float *C, int64_t ldc);

} // namespace dxrt
