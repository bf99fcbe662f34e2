// The one place that runs matrix products (dense layers, im2col
// convolutions). They go to oneDNN's sgemm on one thread (its matmul
// primitive for C = A B^T of 16 rows or more, Matmul.cpp), or with
// DXRT_GEMM=openblas to OpenBLAS (single-threaded unless the user sets
// OPENBLAS_NUM_THREADS). Kernels run on the calling thread: parallelism
// comes from MPI ranks.
#pragma once

#include <cstdint>
#include <thread>

namespace dxrt {

// Sets the GEMM library up (oneDNN: one thread; OpenBLAS: one thread unless
// OPENBLAS_NUM_THREADS is set); returns the number of threads a product
// uses. Called by the driver at start; exits on a bad DXRT_GEMM.
int blas_init();

// oneDNN generates every sgemm kernel of the CPU's ISA with its JIT on its
// first product, whatever the shape: 40-45 ms on one AVX-512 core, a quarter
// of the Fashion MLP's first 200 steps. A GemmWarmup does that on a thread of
// its own while the caller goes on (the driver: while it reads the data), and
// wait() or the destructor joins it. oneDNN's initialisation is a
// std::call_once, so a product on another thread meanwhile waits for it and
// it never runs twice. A scope object, not a static: an error unwinds
// through it and joins the thread before anything of oneDNN is torn down.
// Nothing to do with OpenBLAS (no JIT) or in bf16 (no sgemm).
class GemmWarmup {
public:
  GemmWarmup();
  ~GemmWarmup();
  GemmWarmup(const GemmWarmup &) = delete;
  GemmWarmup &operator=(const GemmWarmup &) = delete;
  void wait();

private:
  std::thread thread_;
};

// "onednn", or OpenBLAS's kernel name ("Prescott", "SkylakeX", ...).
const char *gemm_library();

// C[M,N] = alpha * op(A) op(B) + beta * C, row-major; op = transpose if ta/tb.
// lda/ldb/ldc are row strides. Zero-sized products are handled here
// (K = 0 gives beta * C). In bf16 precision (Precision.h) the product reads
// A and B rounded to bf16 and accumulates in fp32 (gemm_bf16), whichever
// library DXRT_GEMM names.
void sgemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float *A, int64_t lda,
           const float *B, int64_t ldb, float beta, float *C, int64_t ldc);

// The bf16 product: oneDNN's matmul on bf16 copies of A and B (Matmul.cpp).
// a_bf16 / b_bf16, where given, are A / B already in bf16 and compact (lda /
// ldb their row length), read as they are instead of A / B (the dense
// _bf16x kernels: a stored product input). M, N and K must be positive.
void gemm_bf16(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float *A, int64_t lda,
               const float *B, int64_t ldb, float beta, float *C, int64_t ldc, const uint16_t *a_bf16 = nullptr,
               const uint16_t *b_bf16 = nullptr);

// An fp32 product on oneDNN's matmul primitive instead of its sgemm
// (Matmul.cpp): sgemm() takes it where it is faster. M, N and K must be
// positive.
void gemm_matmul_f32(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float *A, int64_t lda,
                     const float *B, int64_t ldb, float beta, float *C, int64_t ldc);

} // namespace dxrt
