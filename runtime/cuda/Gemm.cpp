// The dense kernels on cuBLAS. cuBLAS is column-major, and a row-major
// [r, c] matrix is a column-major [c, r] one (its transpose) with the same
// leading dimension c, so each row-major product below is computed as its
// transpose: y = x w^T  <=>  y^T = w x^T, and so on.
//
// In bf16 precision (kernels/Precision.h) A and B are rounded to bf16 copies
// in the scratch (the CPU's rounding, Bf16Kernels.cu) and cublasGemmEx
// multiplies them on the tensor cores with fp32 accumulation into the fp32
// C: the CPU's semantics (Matmul.cpp), up to the order of summation.
//
// The _bf16x / _bf16dy / _bf16xdy twins (kernels.h; dxc's
// dx-bf16-product-inputs stores those operands in bf16) hand a bf16 operand
// to cublasGemmEx as it is: its bits are what the copy would hold. In fp32
// precision it is widened (exact) and cublasSgemm runs, as on the CPU.
#include "cuda/Check.h"
#include "cuda/Context.h"
#include "cuda/DeviceKernels.h"
#include "cuda/Kernel.h"
#include "dxrt/cuda_kernels.h"
#include "kernels/Bf16Input.h"
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

// A product operand on the device: fp32, or bf16 bits (a twin's x or dy)
// with the leading dimension an fp32 one would have.
struct Operand {
  const void *p;
  bool bf16;
  const float *f32() const { return static_cast<const float *>(p); }
  const uint16_t *bits() const { return static_cast<const uint16_t *>(p); }
};
Operand fp32(const float *p) { return {p, false}; }

// gemm() in bf16 precision: op(A) is m x kk, op(B) kk x n (column-major).
// An fp32 operand is rounded into a bf16 copy in the scratch; a bf16 one is
// read where it is.
void gemm_bf16(cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n, int64_t kk, Operand a, int64_t lda,
               Operand b, int64_t ldb, float *c, int64_t ldc) {
  Context &ctx = context();
  const int64_t na = ta == CUBLAS_OP_N ? span(m, kk, lda) : span(kk, m, lda);
  const int64_t nb = tb == CUBLAS_OP_N ? span(kk, n, ldb) : span(n, kk, ldb);
  const size_t a_bytes = a.bf16 ? 0 : aligned256(size_t(na) * sizeof(uint16_t));
  const size_t b_bytes = b.bf16 ? 0 : size_t(nb) * sizeof(uint16_t);
  char *base = static_cast<char *>(scratch(a_bytes + b_bytes + 1));
  uint16_t *a_copy = reinterpret_cast<uint16_t *>(base), *b_copy = reinterpret_cast<uint16_t *>(base + a_bytes);
  if (!a.bf16) DXRT_CUDA_CHECK(cuda::to_bf16(a.f32(), a_copy, na, ctx.stream));
  if (!b.bf16) DXRT_CUDA_CHECK(cuda::to_bf16(b.f32(), b_copy, nb, ctx.stream));
  const uint16_t *a16 = a.bf16 ? a.bits() : a_copy, *b16 = b.bf16 ? b.bits() : b_copy;
  const float one = 1.0f, zero = 0.0f;
  DXRT_CUBLAS_CHECK(cublasGemmEx(ctx.cublas, ta, tb, int(m), int(n), int(kk), &one, a16, CUDA_R_16BF, int(lda), b16,
                                 CUDA_R_16BF, int(ldb), &zero, c, CUDA_R_32F, int(ldc), CUBLAS_COMPUTE_32F,
                                 CUBLAS_GEMM_DEFAULT));
}

// gemm() in fp32 precision; a bf16 operand is widened into the scratch first.
void gemm_fp32(cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n, int64_t kk, Operand a, int64_t lda,
               Operand b, int64_t ldb, float *c, int64_t ldc) {
  Context &ctx = context();
  const int64_t na = ta == CUBLAS_OP_N ? span(m, kk, lda) : span(kk, m, lda);
  const int64_t nb = tb == CUBLAS_OP_N ? span(kk, n, ldb) : span(n, kk, ldb);
  const size_t a_bytes = a.bf16 ? aligned256(size_t(na) * sizeof(float)) : 0;
  const size_t b_bytes = b.bf16 ? size_t(nb) * sizeof(float) : 0;
  const float *af = a.f32(), *bf = b.f32();
  if (a.bf16 || b.bf16) {
    char *base = static_cast<char *>(scratch(a_bytes + b_bytes + 1));
    if (a.bf16) {
      float *wide = reinterpret_cast<float *>(base);
      DXRT_CUDA_CHECK(cuda::from_bf16(a.bits(), wide, na, ctx.stream));
      af = wide;
    }
    if (b.bf16) {
      float *wide = reinterpret_cast<float *>(base + a_bytes);
      DXRT_CUDA_CHECK(cuda::from_bf16(b.bits(), wide, nb, ctx.stream));
      bf = wide;
    }
  }
  const float one = 1.0f, zero = 0.0f;
  DXRT_CUBLAS_CHECK(
      cublasSgemm(ctx.cublas, ta, tb, int(m), int(n), int(kk), &one, af, int(lda), bf, int(ldb), &zero, c, int(ldc)));
}

// C (row-major [m, n]) = op(A) op(B), called with column-major arguments.
// cuBLAS's int dimensions bound each matrix; an empty inner dimension still
// defines C (zeros), which cuBLAS would leave unwritten.
void gemm(const char *k, cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n, int64_t kk, Operand a,
          int64_t lda, Operand b, int64_t ldb, float *c, int64_t ldc) {
  DXRT_KERNEL_CHECK(m <= INT_MAX && n <= INT_MAX && kk <= INT_MAX && lda <= INT_MAX && ldb <= INT_MAX, k,
                    str("a GEMM of ", m, " x ", n, " x ", kk, " is beyond cuBLAS's 32-bit dimensions"));
  if (m == 0 || n == 0) return;
  Context &ctx = context();
  if (kk == 0) {
    DXRT_CUDA_CHECK(cudaMemsetAsync(c, 0, size_t(m * n) * sizeof(float), ctx.stream));
    return;
  }
  if (matmul_precision() == Precision::kBf16) return gemm_bf16(ta, tb, m, n, kk, a, lda, b, ldb, c, ldc);
  gemm_fp32(ta, tb, m, n, kk, a, lda, b, ldb, c, ldc);
}

using Operand2 = ProductOperand<dxrt_memref2>;

// The three products, each for its fp32 kernel and its twins: x and dy are
// fp32 descriptors (ProductOperand, Bf16Input.h), over bf16 data where
// flagged. Only their sizes and device pointers are read here.
void forward(const char *k, const Operand2 &xo, dxrt_memref2 *wd, dxrt_memref2 *yd) {
  Mat x = view(&xo.d, k, "x"), w = view(wd, k, "w"), y = view(yd, k, "y");
  check_dense_forward(k, x, w, y);
  // y^T [N, M] = w [N, K] . x^T [K, M]; w is column-major [K, N], so transposed.
  guard(k, [&] {
    gemm(k, CUBLAS_OP_T, CUBLAS_OP_N, w.rows, x.rows, x.cols, fp32(w.p), w.cols, {x.p, xo.bf16}, x.cols, y.p, y.cols);
  });
}

void grad_input(const char *k, const Operand2 &dyo, dxrt_memref2 *wd, dxrt_memref2 *dxd) {
  Mat dy = view(&dyo.d, k, "dy"), w = view(wd, k, "w"), dx = view(dxd, k, "dx");
  check_dense_grad_input(k, dy, w, dx);
  // dx^T [K, M] = w^T [K, N] . dy^T [N, M]: both are what cuBLAS sees already.
  guard(k, [&] {
    gemm(k, CUBLAS_OP_N, CUBLAS_OP_N, w.cols, dy.rows, dy.cols, fp32(w.p), w.cols, {dy.p, dyo.bf16}, dy.cols, dx.p,
         dx.cols);
  });
}

void grad_weight(const char *k, const Operand2 &dyo, const Operand2 &xo, dxrt_memref2 *dwd) {
  Mat dy = view(&dyo.d, k, "dy"), x = view(&xo.d, k, "x"), dw = view(dwd, k, "dw");
  check_dense_grad_weight(k, dy, x, dw);
  // dw^T [K, N] = x^T [K, M] . dy [M, N]; dy is column-major [N, M], so transposed.
  guard(k, [&] {
    gemm(k, CUBLAS_OP_N, CUBLAS_OP_T, x.cols, dy.cols, dy.rows, {x.p, xo.bf16}, x.cols, {dy.p, dyo.bf16}, dy.cols, dw.p,
         dw.cols);
  });
}

} // namespace

extern "C" void _mlir_ciface_dxrt_cuda_dense_forward(dxrt_memref2 *xd, dxrt_memref2 *wd, dxrt_memref2 *yd) {
  const char *k = "dxrt_cuda_dense_forward";
  forward(k, fp32_operand(xd, k, "x"), wd, yd);
}

extern "C" void _mlir_ciface_dxrt_cuda_dense_grad_input(dxrt_memref2 *dyd, dxrt_memref2 *wd, dxrt_memref2 *dxd) {
  const char *k = "dxrt_cuda_dense_grad_input";
  grad_input(k, fp32_operand(dyd, k, "dy"), wd, dxd);
}

extern "C" void _mlir_ciface_dxrt_cuda_dense_grad_weight(dxrt_memref2 *dyd, dxrt_memref2 *xd, dxrt_memref2 *dwd) {
  const char *k = "dxrt_cuda_dense_grad_weight";
  grad_weight(k, fp32_operand(dyd, k, "dy"), fp32_operand(xd, k, "x"), dwd);
}

extern "C" void _mlir_ciface_dxrt_cuda_dense_forward_bf16x(dxrt_memref2_bf16 *xd, dxrt_memref2 *wd, dxrt_memref2 *yd) {
  const char *k = "dxrt_cuda_dense_forward_bf16x";
  forward(k, bf16_operand<dxrt_memref2>(xd, k, "x"), wd, yd);
}

extern "C" void _mlir_ciface_dxrt_cuda_dense_grad_input_bf16dy(dxrt_memref2_bf16 *dyd, dxrt_memref2 *wd,
                                                               dxrt_memref2 *dxd) {
  const char *k = "dxrt_cuda_dense_grad_input_bf16dy";
  grad_input(k, bf16_operand<dxrt_memref2>(dyd, k, "dy"), wd, dxd);
}

extern "C" void _mlir_ciface_dxrt_cuda_dense_grad_weight_bf16x(dxrt_memref2 *dyd, dxrt_memref2_bf16 *xd,
                                                               dxrt_memref2 *dwd) {
  const char *k = "dxrt_cuda_dense_grad_weight_bf16x";
  grad_weight(k, fp32_operand(dyd, k, "dy"), bf16_operand<dxrt_memref2>(xd, k, "x"), dwd);
}

extern "C" void _mlir_ciface_dxrt_cuda_dense_grad_weight_bf16dy(dxrt_memref2_bf16 *dyd, dxrt_memref2 *xd,
                                                                dxrt_memref2 *dwd) {
  const char *k = "dxrt_cuda_dense_grad_weight_bf16dy";
  grad_weight(k, bf16_operand<dxrt_memref2>(dyd, k, "dy"), fp32_operand(xd, k, "x"), dwd);
}

extern "C" void _mlir_ciface_dxrt_cuda_dense_grad_weight_bf16xdy(dxrt_memref2_bf16 *dyd, dxrt_memref2_bf16 *xd,
                                                                 dxrt_memref2 *dwd) {
  const char *k = "dxrt_cuda_dense_grad_weight_bf16xdy";
  grad_weight(k, bf16_operand<dxrt_memref2>(dyd, k, "dy"), bf16_operand<dxrt_memref2>(xd, k, "x"), dwd);
}
