// Matrix products in bf16 precision (Precision.h): A and B are rounded to
// bf16 into workspace slots, then oneDNN's matmul multiplies them with fp32
// accumulation into the fp32 C (alpha as its output scale, beta as a sum
// post-op). On AVX512_BF16 that is vdpbf16ps, two bf16 products per fp32
// lane; on AMX, tiles. Primitives are cached per thread and shape, as the
// convolutions' are, so a step allocates nothing after its first.
#include "kernels/Blas.h"

#include "common/Check.h"
#include "kernels/Onednn.h"
#include "kernels/Precision.h"
#include "kernels/Workspace.h"

#include <cstring>

namespace dxrt {

namespace {

using dnnl::memory;

// Products of a run: 3 per dense layer and batch size, one per im2col
// convolution direction; past this the least recently used is replaced.
constexpr int kCacheSize = 64;

struct Key {
  int64_t v[7];
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

// op(A) is [M, K], op(B) [K, N]; their bf16 copies are compact: A's rows
// (or, transposed, columns) K apart, and so on.
void build(Entry &e, bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, float beta, int64_t ldc) {
  const Onednn &o = onednn();
  const auto bf16 = memory::data_type::bf16, f32 = memory::data_type::f32;
  memory::desc a({M, K}, bf16, ta ? memory::dims{1, M} : memory::dims{K, 1});
  memory::desc b({K, N}, bf16, tb ? memory::dims{1, K} : memory::dims{N, 1});
  memory::desc c({M, N}, f32, memory::dims{ldc, 1});
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

Entry &entry(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, float beta, int64_t ldc) {
  Cache &c = cache();
  const Key key{{int64_t(ta), int64_t(tb), M, N, K, ldc, 0}, alpha, beta};
  bool hit = false;
  Entry &e = onednn_cache_slot(c.entries, c.clock, key, hit);
  if (hit) return e;
  e = Entry();
  try {
    build(e, ta, tb, M, N, K, alpha, beta, ldc);
  } catch (const dnnl::error &err) {
    fatal(__FILE__, __LINE__,
          str("sgemm (bf16): oneDNN has no bf16 matmul for [", M, ", ", K, "] x [", K, ", ", N, "]: ", err.what()),
          "compile with --precision fp32");
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

} // namespace

void gemm_bf16(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const float *A, int64_t lda,
               const float *B, int64_t ldb, float beta, float *C, int64_t ldc, const uint16_t *a_bf16,
               const uint16_t *b_bf16) {
  const char *k = "sgemm (bf16)";
  const void *a = a_bf16 ? a_bf16 : ta ? rounded(A, K, M, lda, kSlotGemmA) : rounded(A, M, K, lda, kSlotGemmA);
  const void *b = b_bf16 ? b_bf16 : tb ? rounded(B, N, K, ldb, kSlotGemmB) : rounded(B, K, N, ldb, kSlotGemmB);
  Entry &e = entry(ta, tb, M, N, K, alpha, beta, ldc);
  onednn_set_data(k, e.a, const_cast<void *>(a));
  onednn_set_data(k, e.b, const_cast<void *>(b));
  onednn_set_data(k, e.c, C);
  const dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, e.a.get()}, {DNNL_ARG_WEIGHTS, e.b.get()}, {DNNL_ARG_DST, e.c.get()}};
  onednn_execute(k, e.p, 3, args, e.scratchpad, e.scratchpad_bytes);
}

} // namespace dxrt
