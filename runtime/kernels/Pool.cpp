// Max and average pooling over NCHW, PyTorch's semantics in floor mode:
//  max: padding is -inf; a NaN in a window wins; the gradient goes to the
//       first maximal element of the window (row-major order), or to the
//       first NaN. (PyTorch 1.13's CPU kernel gives it to the last NaN, as
//       Pool3d.cpp does: the two differ only for windows with several NaNs,
//       where training has already failed.)
//  avg: padding counts as zeros and the divisor is kh*kw (count_include_pad).
#include "dxrt/kernels.h"
#include "kernels/Descriptor.h"
#include "kernels/Pool.h"
#include "kernels/PoolAvx512.h"
#include "kernels/Shapes.h"
#include "kernels/Workspace.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

using namespace dxrt;

namespace {

// Index (in the plane) of the first maximal element of the window at (oh, ow),
// or -1 when the window lies entirely in the padding: the rule. Max pooling
// runs the separable loops below, which give the same elements; these loops
// remain as the path "windows" (DXRT_POOL_GENERAL, tests and benchmarks).
inline int64_t argmax_window(const PoolGeometry &g, const float *plane, int64_t oh, int64_t ow) {
  int64_t h0 = oh * g.sh - g.pt, w0 = ow * g.sw - g.pl;
  int64_t best = -1;
  float bestv = -std::numeric_limits<float>::infinity();
  for (int64_t ih = std::max<int64_t>(h0, 0); ih < std::min(h0 + g.kh, g.h); ++ih)
    for (int64_t iw = std::max<int64_t>(w0, 0); iw < std::min(w0 + g.kw, g.w); ++iw) {
      float v = plane[ih * g.w + iw];
      bool take = best < 0 || (!std::isnan(bestv) && (v > bestv || std::isnan(v))); // the first NaN stays
      if (take) {
        best = ih * g.w + iw;
        bestv = v;
      }
    }
  return best;
}

// The common 2x2, stride-2, unpadded window (LeNet-style CNNs) has loops of
// its own, with the same results as the general ones.
inline bool is_2x2(const PoolGeometry &g) {
  // Every window inside the plane: no bottom/right padding ('same' on an odd size pads there).
  return g.kh == 2 && g.kw == 2 && g.sh == 2 && g.sw == 2 && g.pt == 0 && g.pl == 0 && 2 * g.ho <= g.h &&
         2 * g.wo <= g.w;
}

// On activations, which of four values is the largest is a coin toss (the
// branches of argmax_window mispredict about half the time), so the 2x2
// loops have no data-dependent branch: `v > best ? v : best` is a max, NaNs
// are found by comparison, and the gradient's "first maximal element" comes
// from masks. The scalar loops below are the rule, the fallback and the
// vector loops' tails; the AVX-512 and AVX2 loops give the same bits, with
// explicit de-interleaving (GCC's vectorization of the stride-2 accesses left
// the max gradient 3-4x slower than the bytes it moves).
// Same values as the general loops (a zero gradient may keep its sign here).

inline float max_of(float best, float v) { return v > best ? v : best; }

// argmax_window's value for the window (a, b, c, d) in row-major order: the
// first NaN if there is one, else the maximum.
inline float window_max(float a, float b, float c, float d) {
  float m = max_of(max_of(max_of(a, b), c), d);
  float first_nan = a != a ? a : b != b ? b : c != c ? c : d;
  bool nan = (a != a) | (b != b) | (c != c) | (d != d);
  return nan ? first_nan : m;
}

// a + b, but a's NaN whenever a is NaN, on every path: x86 returns the first
// operand's NaN of two, and compilers swap the operands of + at will.
inline float add_first_nan(float a, float b) { return a + (a != a ? 0.0f : b); }

// Windows [ow, wo) of the row pair (r0, r1) into o.
inline void forward_row(int64_t kind, const float *__restrict r0, const float *__restrict r1, float *__restrict o,
                        int64_t ow, int64_t wo) {
  if (kind == kMax) {
    for (; ow < wo; ++ow) o[ow] = window_max(r0[2 * ow], r0[2 * ow + 1], r1[2 * ow], r1[2 * ow + 1]);
  } else {
    // The general loop's order of summation.
    for (; ow < wo; ++ow) {
      float ab = add_first_nan(r0[2 * ow], r0[2 * ow + 1]);
      o[ow] = add_first_nan(add_first_nan(ab, r1[2 * ow]), r1[2 * ow + 1]) * 0.25f;
    }
  }
}

// d where `keep` is all ones, +0 where it is 0.
inline float masked(float d, uint32_t keep) { return std::bit_cast<float>(std::bit_cast<uint32_t>(d) & keep); }

// The gradient of windows [ow, wo) of the row pair (r0, r1) into (o0, o1).
inline void grad_row(int64_t kind, const float *__restrict r0, const float *__restrict r1, const float *__restrict d,
                     float *__restrict o0, float *__restrict o1, int64_t ow, int64_t wo) {
  if (kind == kAvg) {
    for (; ow < wo; ++ow) {
      float q = d[ow] * 0.25f;
      o0[2 * ow] = q;
      o0[2 * ow + 1] = q;
      o1[2 * ow] = q;
      o1[2 * ow + 1] = q;
    }
  } else {
    for (; ow < wo; ++ow) {
      float a = r0[2 * ow], b = r0[2 * ow + 1], c = r1[2 * ow], e = r1[2 * ow + 1];
      float m = window_max(a, b, c, e);
      // The element that gives the window its value: equal to the maximum
      // (+0 and -0 too, which argmax_window does not tell apart either),
      // or the first NaN (m is then NaN and equals nothing); the first wins.
      bool nan = m != m;
      uint32_t k0 = -uint32_t(nan ? a != a : a == m);
      uint32_t k1 = -uint32_t(nan ? b != b : b == m) & ~k0;
      uint32_t k2 = -uint32_t(nan ? c != c : c == m) & ~(k0 | k1);
      uint32_t k3 = ~(k0 | k1 | k2);
      o0[2 * ow] = masked(d[ow], k0);
      o0[2 * ow + 1] = masked(d[ow], k1);
      o1[2 * ow] = masked(d[ow], k2);
      o1[2 * ow + 1] = masked(d[ow], k3);
    }
  }
}

// Windows do not overlap, so each element of dx inside one is written once;
// those outside every window (the last row or column of an odd size) get 0.
inline void zero_right(const PoolGeometry &g, float *o0, float *o1) {
  if (g.w > 2 * g.wo) {
    std::fill(o0 + 2 * g.wo, o0 + g.w, 0.0f);
    std::fill(o1 + 2 * g.wo, o1 + g.w, 0.0f);
  }
}
inline void zero_bottom(const PoolGeometry &g, float *out) { std::fill(out + 2 * g.ho * g.w, out + g.h * g.w, 0.0f); }

void forward_scalar(const PoolGeometry &g, int64_t kind, const float *plane, float *out) {
  for (int64_t oh = 0; oh < g.ho; ++oh)
    forward_row(kind, plane + 2 * oh * g.w, plane + (2 * oh + 1) * g.w, out + oh * g.wo, 0, g.wo);
}

void grad_scalar(const PoolGeometry &g, int64_t kind, const float *plane, const float *grad, float *out) {
  for (int64_t oh = 0; oh < g.ho; ++oh) {
    float *o0 = out + 2 * oh * g.w, *o1 = o0 + g.w;
    grad_row(kind, plane + 2 * oh * g.w, plane + (2 * oh + 1) * g.w, grad + oh * g.wo, o0, o1, 0, g.wo);
    zero_right(g, o0, o1);
  }
  zero_bottom(g, out);
}

#if defined(__x86_64__)
#define DXRT_POOL_X86 1
#define DXRT_AVX2 __attribute__((target("avx2")))

// ---- AVX2: 8 windows from 16 floats of each row ----
// In-lane shuffles put the windows in the order 0 1 4 5 2 3 6 7, which
// _mm256_unpack{lo,hi}_ps undo for free; perm0213 converts y and dy.
DXRT_AVX2 inline void split8(const float *p, __m256 &even, __m256 &odd) {
  __m256 lo = _mm256_loadu_ps(p), hi = _mm256_loadu_ps(p + 8);
  even = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0));
  odd = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(3, 1, 3, 1));
}
DXRT_AVX2 inline __m256 perm0213(__m256 v) {
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(v), _MM_SHUFFLE(3, 1, 2, 0)));
}
DXRT_AVX2 inline __m256 isnan8(__m256 v) { return _mm256_cmp_ps(v, v, _CMP_UNORD_Q); }
// window_max: _mm256_max_ps(v, best) is `v > best ? v : best`; the NaNs are
// blended last to first so that the first wins.
DXRT_AVX2 inline __m256 max8(__m256 a, __m256 b, __m256 c, __m256 d, __m256 na, __m256 nb, __m256 nc, __m256 nd) {
  __m256 m = _mm256_max_ps(d, _mm256_max_ps(c, _mm256_max_ps(b, a)));
  m = _mm256_blendv_ps(m, d, nd);
  m = _mm256_blendv_ps(m, c, nc);
  m = _mm256_blendv_ps(m, b, nb);
  return _mm256_blendv_ps(m, a, na);
}
DXRT_AVX2 inline void forward_max8(const float *r0, const float *r1, float *o) {
  __m256 a, b, c, d;
  split8(r0, a, b);
  split8(r1, c, d);
  _mm256_storeu_ps(o, perm0213(max8(a, b, c, d, isnan8(a), isnan8(b), isnan8(c), isnan8(d))));
}
DXRT_AVX2 inline __m256 add_first_nan8(__m256 a, __m256 b) { return _mm256_add_ps(a, _mm256_andnot_ps(isnan8(a), b)); }
DXRT_AVX2 inline void forward_avg8(const float *r0, const float *r1, float *o) {
  __m256 a, b, c, d;
  split8(r0, a, b);
  split8(r1, c, d);
  __m256 s = add_first_nan8(add_first_nan8(add_first_nan8(a, b), c), d);
  _mm256_storeu_ps(o, perm0213(_mm256_mul_ps(s, _mm256_set1_ps(0.25f))));
}
DXRT_AVX2 inline void store_pairs8(float *o, __m256 even, __m256 odd) {
  _mm256_storeu_ps(o, _mm256_unpacklo_ps(even, odd));
  _mm256_storeu_ps(o + 8, _mm256_unpackhi_ps(even, odd));
}
DXRT_AVX2 inline void grad_max8(const float *r0, const float *r1, const float *dy, float *o0, float *o1) {
  __m256 a, b, c, e;
  split8(r0, a, b);
  split8(r1, c, e);
  __m256 na = isnan8(a), nb = isnan8(b), nc = isnan8(c);
  __m256 m = max8(a, b, c, e, na, nb, nc, isnan8(e));
  // grad_row's masks: when m is NaN it equals nothing, otherwise no element is NaN.
  __m256 k0 = _mm256_or_ps(_mm256_cmp_ps(a, m, _CMP_EQ_OQ), na);
  __m256 k1 = _mm256_andnot_ps(k0, _mm256_or_ps(_mm256_cmp_ps(b, m, _CMP_EQ_OQ), nb));
  __m256 k01 = _mm256_or_ps(k0, k1);
  __m256 k2 = _mm256_andnot_ps(k01, _mm256_or_ps(_mm256_cmp_ps(c, m, _CMP_EQ_OQ), nc));
  __m256 k3 = _mm256_andnot_ps(_mm256_or_ps(k01, k2), _mm256_castsi256_ps(_mm256_set1_epi32(-1)));
  __m256 d = perm0213(_mm256_loadu_ps(dy));
  store_pairs8(o0, _mm256_and_ps(k0, d), _mm256_and_ps(k1, d));
  store_pairs8(o1, _mm256_and_ps(k2, d), _mm256_and_ps(k3, d));
}
DXRT_AVX2 inline void grad_avg8(const float *dy, float *o0, float *o1) {
  __m256 q = _mm256_mul_ps(perm0213(_mm256_loadu_ps(dy)), _mm256_set1_ps(0.25f));
  store_pairs8(o0, q, q);
  store_pairs8(o1, q, q);
}

DXRT_AVX2 void forward_avx2(const PoolGeometry &g, int64_t kind, const float *plane, float *out) {
  for (int64_t oh = 0; oh < g.ho; ++oh) {
    const float *r0 = plane + 2 * oh * g.w, *r1 = r0 + g.w;
    float *o = out + oh * g.wo;
    int64_t ow = 0;
    if (kind == kMax)
      for (; ow + 8 <= g.wo; ow += 8) forward_max8(r0 + 2 * ow, r1 + 2 * ow, o + ow);
    else
      for (; ow + 8 <= g.wo; ow += 8) forward_avg8(r0 + 2 * ow, r1 + 2 * ow, o + ow);
    forward_row(kind, r0, r1, o, ow, g.wo);
  }
}

DXRT_AVX2 void grad_avx2(const PoolGeometry &g, int64_t kind, const float *plane, const float *grad, float *out) {
  for (int64_t oh = 0; oh < g.ho; ++oh) {
    const float *r0 = plane + 2 * oh * g.w, *r1 = r0 + g.w, *d = grad + oh * g.wo;
    float *o0 = out + 2 * oh * g.w, *o1 = o0 + g.w;
    int64_t ow = 0;
    if (kind == kMax)
      for (; ow + 8 <= g.wo; ow += 8) grad_max8(r0 + 2 * ow, r1 + 2 * ow, d + ow, o0 + 2 * ow, o1 + 2 * ow);
    else
      for (; ow + 8 <= g.wo; ow += 8) grad_avg8(d + ow, o0 + 2 * ow, o1 + 2 * ow);
    grad_row(kind, r0, r1, d, o0, o1, ow, g.wo);
    zero_right(g, o0, o1);
  }
  zero_bottom(g, out);
}

// ---- AVX-512: 16 windows from 32 floats of each row; the rest of a row masked ----
// Blocks of n <= 16 windows (PoolAvx512.h): full blocks use all-ones masks,
// and the rest of a row is one more block, so the small planes of CNNs
// (14x14, 7x7) run vector code too.
using namespace avx512; // Block16, block16, split16, store_pairs16, isnan16 (PoolAvx512.h)
// _mm512_max_ps, without GCC 12's false -Wmaybe-uninitialized on it.
DXRT_AVX512 inline __m512 max_ps16(__m512 v, __m512 best) { return _mm512_maskz_max_ps(__mmask16(0xffff), v, best); }
// As max8.
DXRT_AVX512 inline __m512 max16(__m512 a, __m512 b, __m512 c, __m512 d, __mmask16 na, __mmask16 nb, __mmask16 nc,
                                __mmask16 nd) {
  __m512 m = max_ps16(d, max_ps16(c, max_ps16(b, a)));
  m = _mm512_mask_blend_ps(nd, m, d);
  m = _mm512_mask_blend_ps(nc, m, c);
  m = _mm512_mask_blend_ps(nb, m, b);
  return _mm512_mask_blend_ps(na, m, a);
}
DXRT_AVX512 inline __m512 add_first_nan16(__m512 a, __m512 b) {
  return _mm512_add_ps(a, _mm512_maskz_mov_ps(_mm512_knot(isnan16(a)), b));
}
DXRT_AVX512 inline void forward16(int64_t kind, const float *r0, const float *r1, float *o, const Block16 &t) {
  __m512 a, b, c, d;
  split16(r0, t, a, b);
  split16(r1, t, c, d);
  __m512 v = kind == kMax ? max16(a, b, c, d, isnan16(a), isnan16(b), isnan16(c), isnan16(d))
                          : _mm512_mul_ps(add_first_nan16(add_first_nan16(add_first_nan16(a, b), c), d),
                                          _mm512_set1_ps(0.25f));
  _mm512_mask_storeu_ps(o, t.out, v);
}
DXRT_AVX512 inline void grad16(int64_t kind, const float *r0, const float *r1, const float *dy, float *o0, float *o1,
                               const Block16 &t) {
  __m512 d = _mm512_maskz_loadu_ps(t.out, dy);
  if (kind == kAvg) {
    __m512 q = _mm512_mul_ps(d, _mm512_set1_ps(0.25f));
    store_pairs16(o0, q, q, t);
    store_pairs16(o1, q, q, t);
    return;
  }
  __m512 a, b, c, e;
  split16(r0, t, a, b);
  split16(r1, t, c, e);
  __mmask16 na = isnan16(a), nb = isnan16(b), nc = isnan16(c);
  __m512 m = max16(a, b, c, e, na, nb, nc, isnan16(e));
  // As grad_max8.
  __mmask16 k0 = _mm512_cmp_ps_mask(a, m, _CMP_EQ_OQ) | na;
  __mmask16 k1 = (_mm512_cmp_ps_mask(b, m, _CMP_EQ_OQ) | nb) & ~k0;
  __mmask16 k2 = (_mm512_cmp_ps_mask(c, m, _CMP_EQ_OQ) | nc) & ~(k0 | k1);
  __mmask16 k3 = ~(k0 | k1 | k2);
  store_pairs16(o0, _mm512_maskz_mov_ps(k0, d), _mm512_maskz_mov_ps(k1, d), t);
  store_pairs16(o1, _mm512_maskz_mov_ps(k2, d), _mm512_maskz_mov_ps(k3, d), t);
}

DXRT_AVX512 void forward_avx512(const PoolGeometry &g, int64_t kind, const float *plane, float *out) {
  const Block16 full = block16(16);
  for (int64_t oh = 0; oh < g.ho; ++oh) {
    const float *r0 = plane + 2 * oh * g.w, *r1 = r0 + g.w;
    float *o = out + oh * g.wo;
    int64_t ow = 0;
    for (; ow + 16 <= g.wo; ow += 16) forward16(kind, r0 + 2 * ow, r1 + 2 * ow, o + ow, full);
    if (ow < g.wo) forward16(kind, r0 + 2 * ow, r1 + 2 * ow, o + ow, block16(g.wo - ow));
  }
}

DXRT_AVX512 void grad_avx512(const PoolGeometry &g, int64_t kind, const float *plane, const float *grad, float *out) {
  const Block16 full = block16(16);
  for (int64_t oh = 0; oh < g.ho; ++oh) {
    const float *r0 = plane + 2 * oh * g.w, *r1 = r0 + g.w, *d = grad + oh * g.wo;
    float *o0 = out + 2 * oh * g.w, *o1 = o0 + g.w;
    int64_t ow = 0;
    for (; ow + 16 <= g.wo; ow += 16) grad16(kind, r0 + 2 * ow, r1 + 2 * ow, d + ow, o0 + 2 * ow, o1 + 2 * ow, full);
    if (ow < g.wo) grad16(kind, r0 + 2 * ow, r1 + 2 * ow, d + ow, o0 + 2 * ow, o1 + 2 * ow, block16(g.wo - ow));
    zero_right(g, o0, o1);
  }
  zero_bottom(g, out);
}
#endif

struct Path2x2 {
  const char *name;
  void (*forward)(const PoolGeometry &g, int64_t kind, const float *plane, float *out);
  void (*grad)(const PoolGeometry &g, int64_t kind, const float *plane, const float *grad, float *out);
};

// The paths this CPU runs, best first; decided once.
const std::vector<Path2x2> &paths_2x2() {
  static const std::vector<Path2x2> paths = [] {
    std::vector<Path2x2> v;
#ifdef DXRT_POOL_X86
    bool avx2 = __builtin_cpu_supports("avx2");
    if (avx2 && __builtin_cpu_supports("avx512f")) v.push_back({"avx512f", forward_avx512, grad_avx512});
    if (avx2) v.push_back({"avx2", forward_avx2, grad_avx2});
#endif
    v.push_back({"scalar", forward_scalar, grad_scalar});
    return v;
  }();
  return paths;
}

const Path2x2 *find_path_2x2(const char *name) {
  for (const Path2x2 &p : paths_2x2())
    if (std::strcmp(p.name, name) == 0) return &p;
  return nullptr;
}

PoolGeometry geometry_2x2(int64_t planes, int64_t h, int64_t w) {
  return {planes, h, w, h / 2, w / 2, 2, 2, 2, 2, 0, 0};
}

// ---- Max pooling over every other window: separable ----
//
// argmax_window's element is the window's first NaN, else its first maximal
// element, in row-major order; so it can be found a row at a time. The
// horizontal pass finds it in each input row over each window's columns;
// the vertical pass, over the rows of a window that exist, keeps the first
// row whose element is a NaN or greater than those of the rows before (and
// no NaN came before). Both passes apply argmax_window's test, `takes`, in
// the same order, over the windows of a row in the lanes of vectors, without
// data-dependent branches: the same value (the bits of the same element:
// the first NaN's payload, the first zero's sign) and the same element for
// the gradient. The gradient is then scattered in (oh, ow) order, the same
// additions in the same order as argmax_window's loops.
//
// The horizontal pass reads each input row padded with -inf, so every
// window of the row reads kw floats: with stride s the padded row P is
// split into its s phases, P[s*k + r] at Q[r*Lp + k], so that element j of
// the windows ow, ow + 1, ... lies at Q[off[j] + ow], ... with
// off[j] = (j % s)*Lp + j/s: contiguous loads whatever the stride. A padding
// -inf before the row is taken only when the window's real elements in the
// row are all -inf (and none is NaN): the value has the same bits, and the
// gradient's element is the row's first real one, column 0, so columns are
// clamped at 0. Padding after the row is never taken over a real element
// (it would have to be greater). Windows without a column in the plane
// (only when the left or right padding is at least the window) are -inf and
// get no gradient; rows outside the plane are not read at all.
//
// The loops work on blocks of 16 windows along a row; rows of padded input
// and of horizontal results have room for whole blocks (their extra lanes
// are computed and dropped). They run on blocks of output rows: first the
// padded rows of the block's input rows (stage A), then their horizontal
// results (B), then each output row (C), so that loads do not read rows
// just stored (store-forwarding stalls, which dominated rows of 24 floats
// padded and read one at a time). Each instruction set's loops are inlined
// into one function per pass (max_separable): no call per row.

constexpr float kNegInf = -std::numeric_limits<float>::infinity();
constexpr int64_t kLanes = 16;

inline int64_t round_up_lanes(int64_t n) { return (n + kLanes - 1) / kLanes * kLanes; }

// argmax_window's test, `takes`, for the next element v of a window after
// the element so far, best: v takes its place when best is not NaN and v is
// greater or NaN, !(v <= best) && best == best.

struct MaxPlan {
  int64_t s;        // the stride along a row, g.sw
  int64_t Lp;       // the length of each phase of a padded row: wo + (kw - 1)/s, rounded up to whole blocks
  int64_t qstride;  // a padded row in the scratch: its s phases and a block of -inf (reads of whole blocks)
  int64_t ws;       // a row of horizontal results: wo rounded up to whole blocks
  int64_t block;    // output rows per block
  int64_t hrows;    // the input rows of a block, at most
  int64_t owa, owb; // the windows [owa, owb) of a row have a column in the plane
};

// The scratch of a block of output rows: at most about this many floats
// (48 KiB), so that it stays in the L1/L2 cache.
constexpr int64_t kBlockFloats = 12288;

MaxPlan max_plan(const PoolGeometry &g) {
  MaxPlan p;
  p.s = g.sw;
  p.Lp = round_up_lanes(g.wo + (g.kw - 1) / g.sw);
  p.qstride = p.s * p.Lp + kLanes;
  p.ws = round_up_lanes(g.wo);
  const int64_t fit = kBlockFloats / (p.qstride + 2 * p.ws); // padded row, results, indices
  p.block = std::min(g.ho, fit > g.kh ? (fit - g.kh) / g.sh + 1 : int64_t(1));
  p.hrows = std::min(g.h, (p.block - 1) * g.sh + g.kh);
  p.owa = 0;
  while (p.owa < g.wo && p.owa * g.sw - g.pl + g.kw <= 0) ++p.owa; // the window ends before column 0
  p.owb = p.owa;
  while (p.owb < g.wo && p.owb * g.sw - g.pl < g.w) ++p.owb; // the window starts before column w
  return p;
}

// The separable loops index planes, padded rows and windows in int32 and
// keep a few padded rows of scratch; geometries beyond that (paddings of
// millions) take argmax_window's loops.
bool max_plan_fits(const PoolGeometry &g) {
  const int64_t big = int64_t(1) << 26;
  if (g.h > big || g.w > big || g.h * g.w > std::numeric_limits<int32_t>::max()) return false;
  if (g.wo > big || g.kw > big || g.sw > big || g.pl > big || (g.wo + g.kw + 2 * kLanes) * g.sw > big) return false;
  MaxPlan p = max_plan(g);
  return p.hrows * (p.qstride + p.ws) <= big;
}

// A thread's int32 scratch (offsets, indices); float scratch is workspace().
int32_t *int_scratch(size_t n) {
  thread_local std::vector<int32_t> b;
  if (b.size() < n) b.resize(n);
  return b.data();
}

// A block's padded rows Q (hrows x qstride, -inf to begin with), their
// horizontal results H and their elements' indices in the plane HI (hrows x
// ws), the indices of an output row's elements, and the offsets off[j] of
// a window's elements in a padded row.
struct MaxScratch {
  float *Q, *H;
  int32_t *HI, *idx, *off;
};

MaxScratch max_scratch(const PoolGeometry &g, const MaxPlan &p) {
  MaxScratch b;
  const int64_t nq = p.hrows * p.qstride, nh = p.hrows * p.ws;
  b.Q = workspace(size_t(nq + nh));
  b.H = b.Q + nq;
  std::fill(b.Q, b.Q + nq, kNegInf);
  b.HI = int_scratch(size_t(nh + p.ws + g.kw));
  b.idx = b.HI + nh;
  b.off = b.idx + p.ws;
  for (int64_t j = 0; j < g.kw; ++j) b.off[j] = int32_t((j % p.s) * p.Lp + j / p.s);
  return b;
}

// ---- The loops of the three stages, on GCC's generic vectors ----
// A block of 16 windows is 16/N vectors of N floats of GCC's vector
// extensions, kBytes = 4N bytes: 16 by default (SSE2; NEON elsewhere),
// path "generic"; 32 inlined into target("avx2") functions, path "avx2".
// (GCC 12 splits a vector of 16 floats into scalars without AVX-512, and
// unrolls loops over 16 scalar lanes into compares and branches.)
template <int kBytes> struct Vec {
  typedef float F __attribute__((vector_size(kBytes)));
  typedef int32_t I __attribute__((vector_size(kBytes)));
  static constexpr int64_t N = kBytes / 4, S = kLanes / N; // floats per vector, vectors per block
};

// Stage A: row (of w floats) padded with pl -inf before it and split into
// its s phases in q: q[r*Lp + k] = the padded row's element s*k + r.
[[gnu::always_inline]] inline void pad_row_generic(const float *__restrict row, int64_t w, int64_t pl, int64_t s,
                                                   int64_t Lp, float *__restrict q) {
  for (int64_t r = 0; r < s; ++r) {
    float *__restrict qr = q + r * Lp;
    // k in [ka, kb): column s*k + r - pl in [0, w).
    int64_t ka = pl - r <= 0 ? 0 : (pl - r + s - 1) / s, kb = w + pl - r <= 0 ? 0 : (w + pl - r + s - 1) / s;
    ka = std::min(ka, Lp);
    kb = std::clamp(kb, ka, Lp);
    std::fill(qr, qr + ka, kNegInf);
    if (s == 1 && kb > ka)
      std::copy(row + (ka - pl), row + (kb - pl), qr + ka);
    else if (s > 1)
      for (int64_t k = ka; k < kb; ++k) qr[k] = row[s * k + r - pl];
    std::fill(qr + kb, qr + Lp, kNegInf);
  }
}

// Stage B: the windows [0, n) (n whole blocks) of a padded row q: hv their values.
template <int kBytes>
[[gnu::always_inline]] inline void hmax_generic(const float *q, const int32_t *off, int64_t kw, int64_t n, float *hv) {
  using V = Vec<kBytes>;
  for (int64_t i = 0; i < n; i += kLanes) {
    typename V::F best[V::S], v;
    for (int64_t u = 0; u < V::S; ++u) std::memcpy(&best[u], q + i + u * V::N, kBytes);
    for (int64_t j = 1; j < kw; ++j)
      for (int64_t u = 0; u < V::S; ++u) {
        std::memcpy(&v, q + off[j] + i + u * V::N, kBytes);
        typename V::I t = ~(v <= best[u]) & (best[u] == best[u]); // takes
        best[u] = t ? v : best[u];
      }
    for (int64_t u = 0; u < V::S; ++u) std::memcpy(hv + i + u * V::N, &best[u], kBytes);
  }
}

// The same, and hi their elements' indices in the plane: row0 (the row's
// first) + the column, clamped at 0 (see above).
template <int kBytes>
[[gnu::always_inline]] inline void hargmax_generic(const float *q, const int32_t *off, int64_t kw, int64_t n,
                                                   int32_t s, int32_t pl, int32_t row0, float *hv, int32_t *hi) {
  using V = Vec<kBytes>;
  typename V::I lane_s;
  for (int32_t l = 0; l < int32_t(V::N); ++l) lane_s[l] = l * s;
  for (int64_t i = 0; i < n; i += kLanes) {
    typename V::F best[V::S], v;
    typename V::I at[V::S];
    for (int64_t u = 0; u < V::S; ++u) {
      std::memcpy(&best[u], q + i + u * V::N, kBytes);
      at[u] = typename V::I{};
    }
    for (int64_t j = 1; j < kw; ++j)
      for (int64_t u = 0; u < V::S; ++u) {
        std::memcpy(&v, q + off[j] + i + u * V::N, kBytes);
        typename V::I t = ~(v <= best[u]) & (best[u] == best[u]); // takes
        best[u] = t ? v : best[u];
        at[u] = t ? typename V::I{} + int32_t(j) : at[u];
      }
    for (int64_t u = 0; u < V::S; ++u) {
      typename V::I col = lane_s + (int32_t(i + u * V::N) * s - pl) + at[u];
      typename V::I index = (col > 0 ? col : typename V::I{}) + row0;
      std::memcpy(hv + i + u * V::N, &best[u], kBytes);
      std::memcpy(hi + i + u * V::N, &index, kBytes);
    }
  }
}

// Stage C: over `rows` rows of horizontal results (stride apart) into
// out [0, n) (n any).
template <int kBytes>
[[gnu::always_inline]] inline void vmax_generic(const float *h, int64_t stride, int64_t rows, int64_t n, float *out) {
  using V = Vec<kBytes>;
  for (int64_t i = 0; i < n; i += kLanes) {
    typename V::F best[V::S], v;
    for (int64_t u = 0; u < V::S; ++u) std::memcpy(&best[u], h + i + u * V::N, kBytes);
    for (int64_t r = 1; r < rows; ++r)
      for (int64_t u = 0; u < V::S; ++u) {
        std::memcpy(&v, h + r * stride + i + u * V::N, kBytes);
        typename V::I t = ~(v <= best[u]) & (best[u] == best[u]); // takes
        best[u] = t ? v : best[u];
      }
    if (n - i >= kLanes) {
      for (int64_t u = 0; u < V::S; ++u) std::memcpy(out + i + u * V::N, &best[u], kBytes);
    } else {
      float rest[kLanes];
      for (int64_t u = 0; u < V::S; ++u) std::memcpy(rest + u * V::N, &best[u], kBytes);
      std::copy(rest, rest + (n - i), out + i);
    }
  }
}

// The same for the elements' indices, into out [0, n) (n whole blocks).
template <int kBytes>
[[gnu::always_inline]] inline void vargmax_generic(const float *h, const int32_t *hi, int64_t stride, int64_t rows,
                                                   int64_t n, int32_t *out) {
  using V = Vec<kBytes>;
  for (int64_t i = 0; i < n; i += kLanes) {
    typename V::F best[V::S], v;
    typename V::I at[V::S], a;
    for (int64_t u = 0; u < V::S; ++u) {
      std::memcpy(&best[u], h + i + u * V::N, kBytes);
      std::memcpy(&at[u], hi + i + u * V::N, kBytes);
    }
    for (int64_t r = 1; r < rows; ++r)
      for (int64_t u = 0; u < V::S; ++u) {
        std::memcpy(&v, h + r * stride + i + u * V::N, kBytes);
        std::memcpy(&a, hi + r * stride + i + u * V::N, kBytes);
        typename V::I t = ~(v <= best[u]) & (best[u] == best[u]); // takes
        best[u] = t ? v : best[u];
        at[u] = t ? a : at[u];
      }
    for (int64_t u = 0; u < V::S; ++u) std::memcpy(out + i + u * V::N, &at[u], kBytes);
  }
}

// The instruction sets' loops: static functions, inlined into
// max_separable's instances in functions of the same target.
struct MaxLoopsGeneric {
  static void pad_row(const float *row, int64_t w, int64_t pl, int64_t s, int64_t Lp, float *q) {
    pad_row_generic(row, w, pl, s, Lp, q);
  }
  static void hmax(const float *q, const int32_t *off, int64_t kw, int64_t n, float *hv) {
    hmax_generic<16>(q, off, kw, n, hv);
  }
  static void hargmax(const float *q, const int32_t *off, int64_t kw, int64_t n, int32_t s, int32_t pl, int32_t row0,
                      float *hv, int32_t *hi) {
    hargmax_generic<16>(q, off, kw, n, s, pl, row0, hv, hi);
  }
  static void vmax(const float *h, int64_t stride, int64_t rows, int64_t n, float *out) {
    vmax_generic<16>(h, stride, rows, n, out);
  }
  static void vargmax(const float *h, const int32_t *hi, int64_t stride, int64_t rows, int64_t n, int32_t *out) {
    vargmax_generic<16>(h, hi, stride, rows, n, out);
  }
};

#ifdef DXRT_POOL_X86
struct MaxLoopsAvx2 {
  DXRT_AVX2 static void pad_row(const float *row, int64_t w, int64_t pl, int64_t s, int64_t Lp, float *q) {
    pad_row_generic(row, w, pl, s, Lp, q);
  }
  DXRT_AVX2 static void hmax(const float *q, const int32_t *off, int64_t kw, int64_t n, float *hv) {
    hmax_generic<32>(q, off, kw, n, hv);
  }
  DXRT_AVX2 static void hargmax(const float *q, const int32_t *off, int64_t kw, int64_t n, int32_t s, int32_t pl,
                                int32_t row0, float *hv, int32_t *hi) {
    hargmax_generic<32>(q, off, kw, n, s, pl, row0, hv, hi);
  }
  DXRT_AVX2 static void vmax(const float *h, int64_t stride, int64_t rows, int64_t n, float *out) {
    vmax_generic<32>(h, stride, rows, n, out);
  }
  DXRT_AVX2 static void vargmax(const float *h, const int32_t *hi, int64_t stride, int64_t rows, int64_t n,
                                int32_t *out) {
    vargmax_generic<32>(h, hi, stride, rows, n, out);
  }
};

// AVX-512: a block of 16 windows is a vector, each one's element so far in
// a register through the whole window.
DXRT_AVX512 inline __mmask16 takes16(__m512 v, __m512 best) {
  return _mm512_mask_cmp_ps_mask(_mm512_cmp_ps_mask(best, best, _CMP_ORD_Q), v, best, _CMP_NLE_UQ);
}
// row[c0 + l] for the lanes l with c0 + l in [0, w), -inf in the others
// (masked lanes are not read: the address may lie outside the row).
DXRT_AVX512 inline __m512 load_padded16(const float *row, int64_t w, int64_t c0) {
  const int64_t lo = std::clamp<int64_t>(-c0, 0, kLanes), hi = std::clamp<int64_t>(w - c0, 0, kLanes);
  const __mmask16 m = hi > lo ? __mmask16(((1u << hi) - 1) & ~((1u << lo) - 1)) : __mmask16(0);
  const float *p = reinterpret_cast<const float *>(reinterpret_cast<uintptr_t>(row) + uintptr_t(c0 * 4));
  return _mm512_mask_loadu_ps(_mm512_set1_ps(kNegInf), m, p);
}

struct MaxLoopsAvx512 {
  DXRT_AVX512 static void pad_row(const float *row, int64_t w, int64_t pl, int64_t s, int64_t Lp, float *q) {
    if (s == 1) {
      for (int64_t k = 0; k < Lp; k += kLanes) _mm512_storeu_ps(q + k, load_padded16(row, w, k - pl));
    } else if (s == 2) {
      const __m512i ie = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
      const __m512i io = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
      for (int64_t k = 0; k < Lp; k += kLanes) {
        __m512 lo = load_padded16(row, w, 2 * k - pl), hi = load_padded16(row, w, 2 * k + kLanes - pl);
        _mm512_storeu_ps(q + k, _mm512_permutex2var_ps(lo, ie, hi));
        _mm512_storeu_ps(q + Lp + k, _mm512_permutex2var_ps(lo, io, hi));
      }
    } else {
      pad_row_generic(row, w, pl, s, Lp, q);
    }
  }
  DXRT_AVX512 static void hmax(const float *q, const int32_t *off, int64_t kw, int64_t n, float *hv) {
    for (int64_t i = 0; i < n; i += kLanes) {
      __m512 best = _mm512_loadu_ps(q + i);
      for (int64_t j = 1; j < kw; ++j) {
        __m512 v = _mm512_loadu_ps(q + off[j] + i);
        best = _mm512_mask_mov_ps(best, takes16(v, best), v);
      }
      _mm512_storeu_ps(hv + i, best);
    }
  }
  DXRT_AVX512 static void hargmax(const float *q, const int32_t *off, int64_t kw, int64_t n, int32_t s, int32_t pl,
                                  int32_t row0, float *hv, int32_t *hi) {
    const __m512i lane_s = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                              _mm512_set1_epi32(s));
    for (int64_t i = 0; i < n; i += kLanes) {
      __m512 best = _mm512_loadu_ps(q + i);
      __m512i at = _mm512_setzero_si512();
      for (int64_t j = 1; j < kw; ++j) {
        __m512 v = _mm512_loadu_ps(q + off[j] + i);
        __mmask16 t = takes16(v, best);
        best = _mm512_mask_mov_ps(best, t, v);
        at = _mm512_mask_mov_epi32(at, t, _mm512_set1_epi32(int32_t(j)));
      }
      __m512i col = _mm512_add_epi32(_mm512_add_epi32(lane_s, _mm512_set1_epi32(int32_t(i) * s - pl)), at);
      col = _mm512_maskz_max_epi32(__mmask16(0xffff), col, _mm512_setzero_si512()); // as max_ps16
      _mm512_storeu_ps(hv + i, best);
      _mm512_storeu_si512(hi + i, _mm512_add_epi32(col, _mm512_set1_epi32(row0)));
    }
  }
  DXRT_AVX512 static void vmax(const float *h, int64_t stride, int64_t rows, int64_t n, float *out) {
    for (int64_t i = 0; i < n; i += kLanes) {
      __m512 best = _mm512_loadu_ps(h + i);
      for (int64_t r = 1; r < rows; ++r) {
        __m512 v = _mm512_loadu_ps(h + r * stride + i);
        best = _mm512_mask_mov_ps(best, takes16(v, best), v);
      }
      _mm512_mask_storeu_ps(out + i, n - i >= kLanes ? __mmask16(0xffff) : __mmask16((1u << (n - i)) - 1), best);
    }
  }
  DXRT_AVX512 static void vargmax(const float *h, const int32_t *hi, int64_t stride, int64_t rows, int64_t n,
                                  int32_t *out) {
    for (int64_t i = 0; i < n; i += kLanes) {
      __m512 best = _mm512_loadu_ps(h + i);
      __m512i at = _mm512_loadu_si512(hi + i);
      for (int64_t r = 1; r < rows; ++r) {
        __m512 v = _mm512_loadu_ps(h + r * stride + i);
        __mmask16 t = takes16(v, best);
        best = _mm512_mask_mov_ps(best, t, v);
        at = _mm512_mask_loadu_epi32(at, t, hi + r * stride + i);
      }
      _mm512_storeu_si512(out + i, at);
    }
  }
};
#endif

// Max pooling of every plane of x [planes, h, w]: the values into out
// [planes, ho, wo] (kGrad false), or the gradient dy [planes, ho, wo] into
// out [planes, h, w] (kGrad true). Inlined into a function per instruction
// set, with its loops.
template <class Loops, bool kGrad>
[[gnu::always_inline]] inline void max_separable(const PoolGeometry &g, const float *x, const float *dy, float *out) {
  const MaxPlan p = max_plan(g);
  const MaxScratch b = max_scratch(g, p);
  for (int64_t pi = 0; pi < g.planes; ++pi) {
    const float *plane = x + pi * g.h * g.w;
    float *y = nullptr, *dx = nullptr; // [ho, wo] or [h, w]
    const float *grad = nullptr;
    if constexpr (kGrad) {
      dx = out + pi * g.h * g.w;
      grad = dy + pi * g.ho * g.wo;
      std::fill(dx, dx + g.h * g.w, 0.0f);
    } else {
      y = out + pi * g.ho * g.wo;
    }
    for (int64_t oh0 = 0; oh0 < g.ho; oh0 += p.block) {
      const int64_t oh1 = std::min(g.ho, oh0 + p.block);
      const int64_t r0 = std::max<int64_t>(oh0 * g.sh - g.pt, 0), r1 = std::min(g.h, (oh1 - 1) * g.sh - g.pt + g.kh);
      for (int64_t r = r0; r < r1; ++r) // A
        Loops::pad_row(plane + r * g.w, g.w, g.pl, p.s, p.Lp, b.Q + (r - r0) * p.qstride);
      for (int64_t r = r0; r < r1; ++r) { // B
        const float *q = b.Q + (r - r0) * p.qstride;
        float *hv = b.H + (r - r0) * p.ws;
        if constexpr (kGrad)
          Loops::hargmax(q, b.off, g.kw, p.ws, int32_t(p.s), int32_t(g.pl), int32_t(r * g.w), hv,
                         b.HI + (r - r0) * p.ws);
        else
          Loops::hmax(q, b.off, g.kw, p.ws, hv);
      }
      for (int64_t oh = oh0; oh < oh1; ++oh) { // C
        const int64_t h0 = oh * g.sh - g.pt;
        const int64_t a = std::max<int64_t>(h0, 0), e = std::min(h0 + g.kh, g.h);
        const int64_t first = (a - r0) * p.ws;
        if constexpr (kGrad) {
          if (e <= a) continue; // the window lies in the padding
          Loops::vargmax(b.H + first, b.HI + first, p.ws, e - a, p.ws, b.idx);
          const float *d = grad + oh * g.wo;
          for (int64_t ow = p.owa; ow < p.owb; ++ow) dx[b.idx[ow]] += d[ow];
        } else if (e <= a) {
          std::fill(y + oh * g.wo, y + (oh + 1) * g.wo, kNegInf);
        } else {
          Loops::vmax(b.H + first, p.ws, e - a, g.wo, y + oh * g.wo);
        }
      }
    }
  }
}

void max_forward_generic(const PoolGeometry &g, const float *x, float *y) {
  max_separable<MaxLoopsGeneric, false>(g, x, nullptr, y);
}
void max_grad_generic(const PoolGeometry &g, const float *x, const float *dy, float *dx) {
  max_separable<MaxLoopsGeneric, true>(g, x, dy, dx);
}
#ifdef DXRT_POOL_X86
DXRT_AVX2 void max_forward_avx2(const PoolGeometry &g, const float *x, float *y) {
  max_separable<MaxLoopsAvx2, false>(g, x, nullptr, y);
}
DXRT_AVX2 void max_grad_avx2(const PoolGeometry &g, const float *x, const float *dy, float *dx) {
  max_separable<MaxLoopsAvx2, true>(g, x, dy, dx);
}
DXRT_AVX512 void max_forward_avx512(const PoolGeometry &g, const float *x, float *y) {
  max_separable<MaxLoopsAvx512, false>(g, x, nullptr, y);
}
DXRT_AVX512 void max_grad_avx512(const PoolGeometry &g, const float *x, const float *dy, float *dx) {
  max_separable<MaxLoopsAvx512, true>(g, x, dy, dx);
}
#endif

// argmax_window's loops, window by window: the rule, and the reference of
// the tests and the benchmark.
void max_forward_windows(const PoolGeometry &g, const float *x, float *y) {
  for (int64_t p = 0; p < g.planes; ++p) {
    const float *plane = x + p * g.h * g.w;
    float *out = y + p * g.ho * g.wo;
    for (int64_t oh = 0; oh < g.ho; ++oh)
      for (int64_t ow = 0; ow < g.wo; ++ow) {
        int64_t i = argmax_window(g, plane, oh, ow);
        out[oh * g.wo + ow] = i < 0 ? kNegInf : plane[i];
      }
  }
}

void max_grad_windows(const PoolGeometry &g, const float *x, const float *dy, float *dx) {
  std::fill(dx, dx + g.planes * g.h * g.w, 0.0f);
  for (int64_t p = 0; p < g.planes; ++p) {
    const float *plane = x + p * g.h * g.w;
    const float *grad = dy + p * g.ho * g.wo;
    float *out = dx + p * g.h * g.w;
    for (int64_t oh = 0; oh < g.ho; ++oh)
      for (int64_t ow = 0; ow < g.wo; ++ow) {
        int64_t i = argmax_window(g, plane, oh, ow);
        if (i >= 0) out[i] += grad[oh * g.wo + ow];
      }
  }
}

struct MaxPath {
  const char *name;
  void (*forward)(const PoolGeometry &g, const float *x, float *y);
  void (*grad)(const PoolGeometry &g, const float *x, const float *dy, float *dx);
};

// The max pooling paths for windows other than 2x2 this CPU runs, best
// first: the separable loops per instruction set, then argmax_window's
// ("windows"). DXRT_POOL_GENERAL=<name> picks one (tests, benchmarks).
const std::vector<MaxPath> &max_paths() {
  static const std::vector<MaxPath> paths = [] {
    std::vector<MaxPath> v;
#ifdef DXRT_POOL_X86
    bool avx2 = __builtin_cpu_supports("avx2");
    if (avx2 && __builtin_cpu_supports("avx512f"))
      v.push_back({"avx512f", max_forward_avx512, max_grad_avx512});
    if (avx2) v.push_back({"avx2", max_forward_avx2, max_grad_avx2});
#endif
    v.push_back({"generic", max_forward_generic, max_grad_generic});
    v.push_back({"windows", max_forward_windows, max_grad_windows});
    return v;
  }();
  return paths;
}

// Read at every call (the tests switch paths); a few hundred nanoseconds
// against a kernel of microseconds at least.
const MaxPath &max_path(const PoolGeometry &g) {
  const std::vector<MaxPath> &paths = max_paths();
  const char *v = std::getenv("DXRT_POOL_GENERAL");
  const MaxPath *path = &paths.front();
  if (v && *v) {
    path = nullptr;
    std::string names;
    for (const MaxPath &p : paths) {
      if (std::strcmp(p.name, v) == 0) path = &p;
      names += names.empty() ? p.name : std::string(", ") + p.name;
    }
    if (!path)
      fatal(__FILE__, __LINE__, str("DXRT_POOL_GENERAL=", v, " names no max pooling path this CPU runs"),
            str("set it to one of ", names, ", or unset it"));
  }
  return max_plan_fits(g) ? *path : paths.back();
}

} // namespace

std::vector<const char *> dxrt::pool_2x2_paths() {
  std::vector<const char *> names;
  for (const Path2x2 &p : paths_2x2()) names.push_back(p.name);
  return names;
}

bool dxrt::pool_2x2_forward(const char *path, int64_t kind, int64_t planes, int64_t h, int64_t w, const float *x,
                            float *y) {
  const Path2x2 *p = find_path_2x2(path);
  if (!p) return false;
  PoolGeometry g = geometry_2x2(planes, h, w);
  for (int64_t i = 0; i < planes; ++i) p->forward(g, kind, x + i * h * w, y + i * g.ho * g.wo);
  return true;
}

bool dxrt::pool_2x2_grad(const char *path, int64_t kind, int64_t planes, int64_t h, int64_t w, const float *x,
                         const float *dy, float *dx) {
  const Path2x2 *p = find_path_2x2(path);
  if (!p) return false;
  PoolGeometry g = geometry_2x2(planes, h, w);
  for (int64_t i = 0; i < planes; ++i) p->grad(g, kind, x + i * h * w, dy + i * g.ho * g.wo, dx + i * h * w);
  return true;
}

extern "C" void _mlir_ciface_dxrt_pool_forward(dxrt_memref4 *xd, dxrt_memref4 *yd, int64_t kind, int64_t kh,
                                               int64_t kw, int64_t sh, int64_t sw, int64_t pt, int64_t pb, int64_t pl,
                                               int64_t pr) {
  const char *k = "dxrt_pool_forward";
  Tensor4 x = view(xd, k, "x"), y = view(yd, k, "y");
  PoolGeometry g = pool_geometry(k, x, y, kind, kh, kw, sh, sw, pt, pb, pl, pr);
  if (is_2x2(g)) {
    auto forward_2x2 = paths_2x2().front().forward;
    for (int64_t p = 0; p < g.planes; ++p) forward_2x2(g, kind, x.p + p * g.h * g.w, y.p + p * g.ho * g.wo);
    return;
  }
  if (kind == kMax) {
    if (g.ho > 0 && g.wo > 0) max_path(g).forward(g, x.p, y.p);
    return;
  }
  const float inv = 1.0f / float(kh * kw);
  for (int64_t p = 0; p < g.planes; ++p) {
    const float *plane = x.p + p * g.h * g.w;
    float *out = y.p + p * g.ho * g.wo;
    for (int64_t oh = 0; oh < g.ho; ++oh)
      for (int64_t ow = 0; ow < g.wo; ++ow) {
        int64_t h0 = oh * g.sh - g.pt, w0 = ow * g.sw - g.pl;
        float s = 0.0f;
        for (int64_t ih = std::max<int64_t>(h0, 0); ih < std::min(h0 + g.kh, g.h); ++ih)
          for (int64_t iw = std::max<int64_t>(w0, 0); iw < std::min(w0 + g.kw, g.w); ++iw) s += plane[ih * g.w + iw];
        out[oh * g.wo + ow] = s * inv;
      }
  }
}

extern "C" void _mlir_ciface_dxrt_pool_grad(dxrt_memref4 *dyd, dxrt_memref4 *xd, dxrt_memref4 *dxd, int64_t kind,
                                            int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t pt, int64_t pb,
                                            int64_t pl, int64_t pr) {
  const char *k = "dxrt_pool_grad";
  Tensor4 dy = view(dyd, k, "dy"), x = view(xd, k, "x"), dx = view(dxd, k, "dx");
  DXRT_KERNEL_CHECK(dx.n == x.n && dx.c == x.c && dx.h == x.h && dx.w == x.w, k,
                    str("dx is [", dx.n, ", ", dx.c, ", ", dx.h, ", ", dx.w, "] but x is [", x.n, ", ", x.c, ", ",
                        x.h, ", ", x.w, "]"));
  PoolGeometry g = pool_geometry(k, x, dy, kind, kh, kw, sh, sw, pt, pb, pl, pr);
  if (is_2x2(g)) {
    auto grad_2x2 = paths_2x2().front().grad;
    for (int64_t p = 0; p < g.planes; ++p)
      grad_2x2(g, kind, x.p + p * g.h * g.w, dy.p + p * g.ho * g.wo, dx.p + p * g.h * g.w);
    return;
  }
  if (kind == kMax && g.ho > 0 && g.wo > 0) {
    max_path(g).grad(g, x.p, dy.p, dx.p);
    return;
  }
  std::fill(dx.p, dx.p + dx.numel(), 0.0f);
  if (kind == kMax) return;
  const float inv = 1.0f / float(kh * kw);
  for (int64_t p = 0; p < g.planes; ++p) {
    const float *grad = dy.p + p * g.ho * g.wo;
    float *out = dx.p + p * g.h * g.w;
    for (int64_t oh = 0; oh < g.ho; ++oh)
      for (int64_t ow = 0; ow < g.wo; ++ow) {
        float d = grad[oh * g.wo + ow];
        int64_t h0 = oh * g.sh - g.pt, w0 = ow * g.sw - g.pl;
        for (int64_t ih = std::max<int64_t>(h0, 0); ih < std::min(h0 + g.kh, g.h); ++ih)
          for (int64_t iw = std::max<int64_t>(w0, 0); iw < std::min(w0 + g.kw, g.w); ++iw)
            out[ih * g.w + iw] += d * inv;
      }
  }
}
