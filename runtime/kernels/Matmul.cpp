// Matrix products on oneDNN's matmul primitive, cached per thread and shape
// as the convolutions' primitives are, so a step allocates nothing after its
// first:
//
// - bf16 precision (Precision.h): A and B are rounded to bf16 into workspace
//   slots (or are bf16 already: a stored product input), and the matmul
//   multiplies them with fp32 accumulation into the fp32 C. On AVX512_BF16
//   that is vdpbf16ps, two bf16 products per fp32 lane; on AMX, tiles.
// - fp32 products C = A B^T with 16 rows or more (a dense layer's forward,
//   an im2col convolution's weight gradient; Blas.cpp): the matmul reads A
//   and B where they are. oneDNN's sgemm copies a transposed B slowly; its
//   brgemm matmul does not. Measured on one AVX-512 core (2026-12-05),
//   64 x 128 x 3136 took 0.47 ms against sgemm's 0.60, 64 x 256 x 784 0.235
//   against 0.245, and 16 x 128 x 3136 0.145 against 0.269; with fewer rows
//   sgemm was faster (8 x 256 x 784: 0.030 against 0.044 ms). Products with
//   B not transposed ran at the same speed on both.
//
// alpha is the matmul's output scale and beta a sum post-op.
#include "kernels/Blas.h"

#include "common/Check.h"
#include "kernels/Onednn.h"
#include "kernels/Precision.h"
#include "kernels/Workspace.h"

#include <cstring>

namespace dxrt {

namespace {

using dnnl::memory;

// Products of a run, per shape and batch size (training and evaluation):
// in bf16 3 per dense layer and one per im2col convolution direction, in
// fp32 a dense layer's forward; past this the least recently used is
// replaced (and made again when next used), as in the convolutions' cache
// (Conv2dOnednn.cpp), whose size this is.
constexpr int kCacheSize = 256;

struct Key {
  int64_t v[9];
  float alpha, beta;
  bool operator==(const Key &o) const { return std::memcmp(this, &o, sizeof *this) == 0; }
};

struct Entry {
  Key key{};
  bool used = false;
  uint64_t last_use = 0;
  dnnl::primitive p;
  memory a, b, c, scratchpad;
  size_t scratchpad_bytes = 0;
};

struct Cache {
  Entry entries[kCacheSize];
  uint64_t clock = 0;
};

Cache &cache() {
  thread_local Cache *c = new Cache; // never freed, as the engine (Onednn.cpp)
  return *c;
}

// A product's shape: op(A) is [M, K], op(B) [K, N], the rows of A, B and C
// lda, ldb and ldc apart (bf16 copies are compact: lda = K, or M
// transposed, and so on); A and B in `type` (bf16 or f32), C in f32.
struct Product {
  bool ta, tb;
  int64_t M, N, K, lda, ldb, ldc;
  memory::data_type type;
};

void build(Entry &e, const Product &g, float alpha, float beta) {
  const Onednn &o = onednn();
  memory::desc a({g.M, g.K}, g.type, g.ta ? memory::dims{1, g.lda} : memory::dims{g.lda, 1});
  memory::desc b({g.K, g.N}, g.type, g.tb ? memory::dims{1, g.ldb} : memory::dims{g.ldb, 1});
  memory::desc c({g.M, g.N}, memory::data_type::f32, memory::dims{g.ldc, 1});
  dnnl::primitive_attr attr = onednn_user_scratchpad();
  if (alpha != 1.0f) attr.set_output_scales(0, {alpha});
  if (beta != 0.0f) {
    dnnl::post_ops po;
    po.append_sum(beta);
    attr.set_post_ops(po);
  }
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, b, c), attr, o.engine);
  e.p = dnnl::matmul(pd);
  e.a = memory(a, o.engine, nullptr);
  e.b = memory(b, o.engine, nullptr);
  e.c = memory(c, o.engine, nullptr);
  e.scratchpad_bytes = onednn_scratchpad(pd, &e.scratchpad);
}

Entry &entry(const Product &g, float alpha, float beta) {
  Cache &c = cache();
  const Key key{{int64_t(g.ta), int64_t(g.tb), g.M, g.N, g.K, g.lda, g.ldb, g.ldc, int64_t(g.type)}, alpha, beta};
  bool hit = false;
  Entry &e = onednn_cache_slot(c.entries, c.clock, key, hit);
  if (hit) return e;
  e = Entry();
  try {
    build(e, g, alpha, beta);
  } catch (const dnnl::error &err) {
    const bool bf16 = g.type == memory::data_type::bf16;
    fatal(__FILE__, __LINE__,
          str(bf16 ? "sgemm (bf16): oneDNN has no bf16 matmul for [" : "sgemm: oneDNN has no fp32 matmul for [", g.M,
              ", ", g.K, "] x [", g.K, ", ", g.N, "]: ", err.what()),
          bf16 ? "compile with --precision fp32" : "set DXRT_GEMM=openblas");
  }
  e.key = key;
  e.used = true;
  e.last_use = ++c.clock;
  return e;
}

// rows x cols floats, rows `ld` apart, rounded into a compact bf16 copy.
uint16_t *rounded(const float *src, int64_t rows, int64_t cols, int64_t ld, int slot) {
  uint16_t *dst = reinterpret_cast<uint16_t *>(workspace(size_t((rows * cols + 1) / 2), slot));
  if (ld == cols) to_bf16(src, dst, rows * cols);
  else
    for (int64_t r = 0; r < rows; ++r) to_bf16(src + r * ld, dst + r * cols, cols);
  return dst;
}

void run(const char *k, Entry &e, const void *a, const void *b, float *C) {
  onednn_set_data(k, e.a, const_cast<void *>(a));
  onednn_set_data(k, e.b, const_cast<void *>(b));
  onednn_set_data(k, e.c, C);
  const dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, e.a.get()}, {DNNL_ARG_WEIGHTS, e.b.get()}, {DNNL_ARG_DST, e.c.get()}};
  onednn_execute(k, e.p, 3, args, e.scratchpad, e.scratchpad_bytes);
}

} // namespace

void gemm_bf16(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float *A, int64_t lda,
               const float *B, int64_t ldb, float beta, float *C, int64_t ldc, const uint16_t *a_bf16,
               const uint16_t *b_bf16) {
  const void *a = a_bf16 ? a_bf16 : ta ? rounded(A, K, M, lda, kSlotGemmA) : rounded(A, M, K, lda, kSlotGemmA);
  const void *b = b_bf16 ? b_bf16 : tb ? rounded(B, N, K, ldb, kSlotGemmB) : rounded(B, K, N, ldb, kSlotGemmB);
  const Product g{ta, tb, M, N, K, ta ? M : K, tb ? K : N, ldc, memory::data_type::bf16};
  run("sgemm (bf16)", entry(g, alpha, beta), a, b, C);
}

void gemm_matmul_f32(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float *A, int64_t lda,
                     const float *B, int64_t ldb, float beta, float *C, int64_t ldc) {
  const Product g{ta, tb, M, N, K, lda, ldb, ldc, memory::data_type::f32};
  run("sgemm", entry(g, alpha, beta), A, B, C);
}

} // namespace dxrt
