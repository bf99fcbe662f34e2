// Max and average pooling over NCHW, PyTorch's semantics in floor mode:
//  max: padding is -inf; a NaN in a window wins; the gradient goes to the
//       first maximal element of the window (row-major order).
//  avg: padding counts as zeros and the divisor is kh*kw (count_include_pad).
#include "dxrt/kernels.h"
#include "kernels/Descriptor.h"
#include "kernels/Pool.h"
#include "kernels/PoolAvx512.h"
#include "kernels/Shapes.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

using namespace dxrt;

namespace {

// Index (in the plane) of the first maximal element of the window at (oh, ow),
// or -1 when the window lies entirely in the padding.
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
  const float inv = 1.0f / float(kh * kw);
  for (int64_t p = 0; p < g.planes; ++p) {
    const float *plane = x.p + p * g.h * g.w;
    float *out = y.p + p * g.ho * g.wo;
    for (int64_t oh = 0; oh < g.ho; ++oh)
      for (int64_t ow = 0; ow < g.wo; ++ow) {
        if (kind == kMax) {
          int64_t i = argmax_window(g, plane, oh, ow);
          out[oh * g.wo + ow] = i < 0 ? -std::numeric_limits<float>::infinity() : plane[i];
        } else {
          int64_t h0 = oh * g.sh - g.pt, w0 = ow * g.sw - g.pl;
          float s = 0.0f;
          for (int64_t ih = std::max<int64_t>(h0, 0); ih < std::min(h0 + g.kh, g.h); ++ih)
            for (int64_t iw = std::max<int64_t>(w0, 0); iw < std::min(w0 + g.kw, g.w); ++iw) s += plane[ih * g.w + iw];
          out[oh * g.wo + ow] = s * inv;
        }
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
  std::fill(dx.p, dx.p + dx.numel(), 0.0f);
  const float inv = 1.0f / float(kh * kw);
  for (int64_t p = 0; p < g.planes; ++p) {
    const float *plane = x.p + p * g.h * g.w;
    const float *grad = dy.p + p * g.ho * g.wo;
    float *out = dx.p + p * g.h * g.w;
    for (int64_t oh = 0; oh < g.ho; ++oh)
      for (int64_t ow = 0; ow < g.wo; ++ow) {
        float d = grad[oh * g.wo + ow];
        if (kind == kMax) {
          int64_t i = argmax_window(g, plane, oh, ow);
          if (i >= 0) out[i] += d;
        } else {
          int64_t h0 = oh * g.sh - g.pt, w0 = ow * g.sw - g.pl;
          for (int64_t ih = std::max<int64_t>(h0, 0); ih < std::min(h0 + g.kh, g.h); ++ih)
            for (int64_t iw = std::max<int64_t>(w0, 0); iw < std::min(w0 + g.kw, g.w); ++iw)
              out[ih * g.w + iw] += d * inv;
        }
      }
  }
}
