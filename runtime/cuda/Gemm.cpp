// The dense kernels on cuBLAS. cuBLAS is column-major, and a row-major
// [r, c] matrix is a column-major [c, r] one (its transpose) with the same
// leading dimension c, so each row-major product below is computed as its
// transpose: y = x w^T  <=>  y^T = w x^T, and so on.
//
// In bf16 precision (kernels/Precision.h) A and B are rounded to bf16 copies
// in the scratch (the CPU's rounding, Bf16Kernels.cu) and cublasGemmEx
// multiplies them on the tensor cores with fp32 accumulation into the fp32
// C: the CPU's semantics (GemmBf16.cpp), up to the order of summation.
#include "cuda/Check.h"
#include "cuda/Context.h"
#include "cuda/DeviceKernels.h"
#include "cuda/Kernel.h"
#include "kernels/Descriptor.h"
#include "kernels/Precision.h"
#include "kernels/Shapes.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <climits>

using namespace dxrt;
using namespace dxrt::cuda;

namespace {

// The floats a column-major operand of `rows` x `cols` with leading dimension
// ld spans: its bf16 copy keeps the same ld.
int64_t span(int64_t rows, int64_t cols, int64_t ld) { return cols == 0 ? 0 : ld * (cols - 1) + rows; }

size_t aligned256(size_t bytes) { return (bytes + 255) & ~size_t(255); }

// gemm() in bf16 precision: op(A) is m x kk, op(B) kk x n (column-major).
void gemm_bf16(cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n, int64_t kk, const float *a,
               int64_t lda, const float *b, int64_t ldb, float *c, int64_t ldc) {
  Context &ctx = context();
  const int64_t na = ta == CUBLAS_OP_N ? span(m, kk, lda) : span(kk, m, lda);
  const int64_t nb = tb == CUBLAS_OP_N ? span(kk, n, ldb) : span(n, kk, ldb);
  const size_t a_bytes = aligned256(size_t(na) * sizeof(uint16_t));
  char *base = static_cast<char *>(scratch(a_bytes + size_t(nb) * sizeof(uint16_t)));
  uint16_t *a16 = reinterpret_cast<uint16_t *>(base), *b16 = reinterpret_cast<uint16_t *>(base + a_bytes);
  DXRT_CUDA_CHECK(cuda::to_bf16(a, a16, na, ctx.stream));
  DXRT_CUDA_CHECK(cuda::to_bf16(b, b16, nb, ctx.stream));
  const float one = 1.0f, zero = 0.0f;
  DXRT_CUBLAS_CHECK(cublasGemmEx(ctx.cublas, ta, tb, int(m), int(n), int(kk), &one, a16, CUDA_R_16BF, int(lda), b16,
                                 CUDA_R_16BF, int(ldb), &zero, c, CUDA_R_32F, int(ldc), CUBLAS_COMPUTE_32F,
                                 CUBLAS_GEMM_DEFAULT));
}

// C (row-major [m, n]) = op(A) op(B), called with column-major arguments.
// cuBLAS's int dimensions bound each matrix; an empty inner dimension still
// defines C (zeros), which cuBLAS would leave unwritten.
void gemm(const char *k, cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n, int64_t kk,
          const float *a, int64_t lda, const float *b, int64_t ldb, float *c, int64_t ldc) {
  DXRT_KERNEL_CHECK(m <= INT_MAX && n <= INT_MAX && kk <= INT_MAX && lda <= INT_MAX && ldb <= INT_MAX, k,
                    str("a GEMM of ", m, " x ", n, " x ", kk, " is beyond cuBLAS's 32-bit dimensions"));
  if (m == 0 || n == 0) return;
  Context &ctx = context();
  if (kk == 0) {
    DXRT_CUDA_CHECK(cudaMemsetAsync(c, 0, size_t(m * n) * sizeof(float), ctx.stream));
    return;
  }
  if (matmul_precision() == Precision::kBf16) return gemm_bf16(ta, tb, m, n, kk, a, lda, b, ldb, c, ldc);
  const float one = 1.0f, zero = 0.0f;
  DXRT_CUBLAS_CHECK(cublasSgemm(ctx.cublas, ta, tb, int(m), int(n), int(kk), &one, a, int(lda), b, int(ldb), &zero, c,
                                int(ldc)));
}

} // namespace

extern "C" void _mlir_ciface_dxrt_cuda_dense_forward(dxrt_memref2 *xd, dxrt_memref2 *wd, dxrt_memref2 *yd) {
  const char *k = "dxrt_cuda_dense_forward";
  Mat x = view(xd, k, "x"), w = view(wd, k, "w"), y = view(yd, k, "y");
  check_dense_forward(k, x, w, y);
  // y^T [N, M] = w [N, K] . x^T [K, M]; w is column-major [K, N], so transposed.
  guard(k, [&] { gemm(k, CUBLAS_OP_T, CUBLAS_OP_N, w.rows, x.rows, x.cols, w.p, w.cols, x.p, x.cols, y.p, y.cols); });
}

extern "C" void _mlir_ciface_dxrt_cuda_dense_grad_input(dxrt_memref2 *dyd, dxrt_memref2 *wd, dxrt_memref2 *dxd) {
  const char *k = "dxrt_cuda_dense_grad_input";
  Mat dy = view(dyd, k, "dy"), w = view(wd, k, "w"), dx = view(dxd, k, "dx");
  check_dense_grad_input(k, dy, w, dx);
  // dx^T [K, M] = w^T [K, N] . dy^T [N, M]: both are what cuBLAS sees already.
  guard(k, [&] { gemm(k, CUBLAS_OP_N, CUBLAS_OP_N, w.cols, dy.rows, dy.cols, w.p, w.cols, dy.p, dy.cols, dx.p, dx.cols); });
}

extern "C" void _mlir_ciface_dxrt_cuda_dense_grad_weight(dxrt_memref2 *dyd, dxrt_memref2 *xd, dxrt_memref2 *dwd) {
  const char *k = "dxrt_cuda_dense_grad_weight";
  Mat dy = view(dyd, k, "dy"), x = view(xd, k, "x"), dw = view(dwd, k, "dw");
  check_dense_grad_weight(k, dy, x, dw);
  // dw^T [K, N] = x^T [K, M] . dy [M, N]; dy is column-major [N, M], so transposed.
  guard(k, [&] { gemm(k, CUBLAS_OP_N, CUBLAS_OP_T, x.cols, dy.cols, dy.rows, x.p, x.cols, dy.p, dy.cols, dw.p, dw.cols); });
}
