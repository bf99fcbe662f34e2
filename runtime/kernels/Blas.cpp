#include "kernels/Blas.h"

#include "common/Check.h"
#include "kernels/Onednn.h"
#include "kernels/Precision.h"

#include <cblas.h>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <system_error>

namespace dxrt {

namespace {

// OpenBLAS chooses its kernels by CPU model, and falls back to SSE3
// ("Prescott") on CPUs it does not know, which includes virtual machines
// that hide the model: 10-13 GFLOP/s on one AVX-512 core where oneDNN's
// sgemm, which goes by the CPU's feature bits, runs 50-80. So products go
// to oneDNN (one thread, like its convolutions), unless DXRT_GEMM=openblas.
bool use_openblas() {
  static const bool openblas = [] {
    const char *v = std::getenv("DXRT_GEMM");
    if (!v || !*v || std::strcmp(v, "onednn") == 0) return false;
    DXRT_CHECK(std::strcmp(v, "openblas") == 0, str("DXRT_GEMM is '", v, "'"), "set it to onednn (the default) or openblas");
    return true;
  }();
  return openblas;
}

// The fewest rows of A at which sgemm() runs C = A B^T on oneDNN's matmul
// primitive rather than its sgemm (Matmul.cpp).
constexpr int64_t kMatmulMinRows = 16;

} // namespace

int blas_init() {
  if (!use_openblas()) {
    onednn(); // one thread
    return 1;
  }
  if (!std::getenv("OPENBLAS_NUM_THREADS")) openblas_set_num_threads(1);
  return openblas_get_num_threads();
}

GemmWarmup::GemmWarmup() {
  if (use_openblas() || matmul_precision() == Precision::kBf16) return; // no JIT, or no sgemm
  try {
    thread_ = std::thread([] {
      onednn_one_thread();
      // 1x1x1 takes a path of its own that generates nothing; 16x16x16 in
      // each transposition a step uses generates them all. A failure shows
      // on the first real product.
      constexpr int n = 16;
      float a[n * n] = {}, b[n * n] = {}, c[n * n] = {};
      for (const char *t : {"NN", "NT", "TN"}) dnnl_sgemm(t[0], t[1], n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
    });
  } catch (const std::system_error &) {
    // No thread to be had: the first product generates the kernels, as before.
  }
}

void GemmWarmup::wait() {
  if (thread_.joinable()) thread_.join();
}

GemmWarmup::~GemmWarmup() { wait(); }

const char *gemm_library() { return use_openblas() ? openblas_get_corename() : "onednn"; }

void sgemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float *A, int64_t lda,
           const float *B, int64_t ldb, float beta, float *C, int64_t ldc) {
  if (M == 0 || N == 0) return;
  if (K == 0) {
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) C[i * ldc + j] = beta == 0.0f ? 0.0f : beta * C[i * ldc + j];
    return;
  }
  if (matmul_precision() == Precision::kBf16) {
    gemm_bf16(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    return;
  }
  if (!use_openblas()) {
    // C = A B^T of 16 rows or more on the matmul primitive (Matmul.cpp: what
    // was measured, and why).
    if (!ta && tb && M >= kMatmulMinRows) return gemm_matmul_f32(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    dnnl_status_t st = dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    DXRT_KERNEL_CHECK(st == dnnl_success, "sgemm",
                      str("oneDNN's sgemm failed (status ", int(st), ") on [", M, ", ", K, "] x [", K, ", ", N, "]"));
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
