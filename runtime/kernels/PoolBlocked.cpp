// The dxrt_pool_*_blocked kernels: 2-D max and average pooling (Pool.cpp's
// semantics) on activations in nChw16c or nChw8c, [N, C/B, H, W, B]
// (BlockedLayout.h), so that a pooling between two convolutions keeps
// oneDNN's layout (dxc's dx-propagate-layouts; docs/codegen.md). Each pixel
// is one vector of B channels, so a window is a loop over pixels with the
// channels in the lanes: no de-interleaving, any window, stride and padding.
//
// Each lane computes exactly what Pool.cpp's rule does for its channel:
//  max:  the window in row-major order, the first maximal element winning
//        and the first NaN staying (argmax_window); -inf for a window wholly
//        in the padding; the gradient (dx zeroed first) adds dy to the
//        winner, window after window in (oh, ow) order;
//  avg:  a sum from +0 in row-major order over the window's elements inside
//        the plane, times 1/(kh*kw) (count_include_pad); the gradient adds
//        dy * 1/(kh*kw) to every element of the window, in (oh, ow) order.
// runtime/test/pool_blocked_test.cpp checks them against the NCHW kernels.
// nChw16c: AVX-512 where the CPU has it, else AVX2 (the same loops on two
// 8-float vectors per pixel); nChw8c: AVX2 (one vector per pixel); else the
// same rule lane by lane.
#include "dxrt/kernels.h"
#include "kernels/BlockedLayout.h"
#include "kernels/Pool.h"
#include "kernels/Shapes.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

using namespace dxrt;

namespace {

// One window's bounds inside the plane, for output pixel (oh, ow).
struct Window {
  int64_t h0, h1, w0, w1; // [h0, h1) x [w0, w1), clipped to the plane
};
inline Window window(const PoolGeometry &g, int64_t oh, int64_t ow) {
  const int64_t h = oh * g.sh - g.pt, w = ow * g.sw - g.pl;
  return {std::max<int64_t>(h, 0), std::min(h + g.kh, g.h), std::max<int64_t>(w, 0), std::min(w + g.kw, g.w)};
}

// ---- the rule, lane by lane (CPUs without AVX2) ----

void forward_scalar(int64_t B, const PoolGeometry &g, int64_t kind, const float *x, float *y) {
  const float inv = 1.0f / float(g.kh * g.kw);
  for (int64_t oh = 0; oh < g.ho; ++oh)
    for (int64_t ow = 0; ow < g.wo; ++ow) {
      const Window win = window(g, oh, ow);
      float *out = y + (oh * g.wo + ow) * B;
      for (int64_t l = 0; l < B; ++l) {
        bool any = false;
        float v = kind == kMax ? -std::numeric_limits<float>::infinity() : 0.0f;
        for (int64_t ih = win.h0; ih < win.h1; ++ih)
          for (int64_t iw = win.w0; iw < win.w1; ++iw) {
            const float e = x[(ih * g.w + iw) * B + l];
            if (kind == kAvg) v += e;
            else if (!any || (!std::isnan(v) && (e > v || std::isnan(e)))) v = e;
            any = true;
          }
        out[l] = kind == kAvg ? v * inv : v;
      }
    }
}

void grad_scalar(int64_t B, const PoolGeometry &g, int64_t kind, const float *x, const float *dy, float *dx) {
  const float inv = 1.0f / float(g.kh * g.kw);
  std::memset(dx, 0, size_t(g.h * g.w * B) * sizeof(float));
  for (int64_t oh = 0; oh < g.ho; ++oh)
    for (int64_t ow = 0; ow < g.wo; ++ow) {
      const Window win = window(g, oh, ow);
      const float *d = dy + (oh * g.wo + ow) * B;
      for (int64_t l = 0; l < B; ++l) {
        if (kind == kAvg) {
          const float q = d[l] * inv;
          for (int64_t ih = win.h0; ih < win.h1; ++ih)
            for (int64_t iw = win.w0; iw < win.w1; ++iw) dx[(ih * g.w + iw) * B + l] += q;
          continue;
        }
        int64_t best = -1;
        float v = 0;
        for (int64_t ih = win.h0; ih < win.h1; ++ih)
          for (int64_t iw = win.w0; iw < win.w1; ++iw) {
            const float e = x[(ih * g.w + iw) * B + l];
            if (best < 0 || (!std::isnan(v) && (e > v || std::isnan(e)))) best = ih * g.w + iw, v = e;
          }
        if (best >= 0) dx[best * B + l] += d[l];
      }
    }
}

// What the 2x2 loops pool: x itself (kPlain), or relu?(x * scale + shift)
// computed on each vector of x as it is loaded (dxrt_pool_*_blocked_pre, for
// dxc's dx-fuse-pool-input): the product rounded before the sum (this file
// is built with -ffp-contract=off), then relu as arith.maximumf(v, +0): a
// NaN stays, -0 and the negatives become +0.
enum PreOp : int { kPlain = 0, kAffine = 1, kAffineRelu = 2 };

// ---- AVX-512 (nChw16c): the same rule on 16 lanes at once ----

#if defined(__x86_64__)
#define DXRT_AVX512 __attribute__((target("avx512f")))
constexpr int64_t B16 = 16; // the channels of a pixel in the AVX-512 loops

// Whether v replaces best: best is not NaN, and v is greater or NaN.
DXRT_AVX512 inline __mmask16 takes(__m512 best, __m512 v) {
  const __mmask16 best_nan = _mm512_cmp_ps_mask(best, best, _CMP_UNORD_Q);
  return __mmask16(~best_nan & (_mm512_cmp_ps_mask(v, best, _CMP_GT_OQ) | _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q)));
}

// The common 2x2, stride-2, unpadded window in straight-line code (the
// general loops' per-window bookkeeping costs more than the window):
// argmax_window's rule on the elements (a, b; c, e) in row-major order.
inline bool is_2x2(const PoolGeometry &g) {
  return g.kh == 2 && g.kw == 2 && g.sh == 2 && g.sw == 2 && g.pt == 0 && g.pl == 0 && 2 * g.ho <= g.h &&
         2 * g.wo <= g.w;
}
// A row of windows is read in chunks of kChunk windows, the chunk's top row
// (2 kChunk pixels, 8 KiB) and then its bottom row, the partial results
// kept in between: two rows a plane's width apart, read alternately pixel
// by pixel, ran at half the speed of the NCHW kernel from memory (the
// hardware prefetcher follows one ascending stream per page, not two).
constexpr int64_t kChunk = 64;

// The map (PreOp, above) on one vector, and on a vector as it is loaded.
template <int Pre> DXRT_AVX512 inline __m512 pre_op(__m512 v, __m512 s, __m512 t) {
  if constexpr (Pre == kPlain) return v;
  v = _mm512_add_ps(_mm512_mul_ps(v, s), t);
  if constexpr (Pre == kAffineRelu)
    v = _mm512_mask_max_ps(v, _mm512_cmp_ps_mask(v, v, _CMP_ORD_Q), v, _mm512_setzero_ps()); // max(-0, +0) = +0
  return v;
}
template <int Pre> DXRT_AVX512 inline __m512 load_pre(const float *p, __m512 s, __m512 t) {
  return pre_op<Pre>(_mm512_loadu_ps(p), s, t);
}

template <int64_t Kind, int Pre = kPlain>
DXRT_AVX512 void forward_2x2_avx512(const PoolGeometry &g, const float *x, float *y, const float *scale = nullptr,
                                    const float *shift = nullptr) {
  const __m512 quarter = _mm512_set1_ps(0.25f);
  const __m512 s = Pre ? _mm512_loadu_ps(scale) : quarter, t = Pre ? _mm512_loadu_ps(shift) : quarter;
  __m512 part[kChunk];
  for (int64_t oh = 0; oh < g.ho; ++oh) {
    const float *r0 = x + 2 * oh * g.w * B16, *r1 = r0 + g.w * B16;
    float *o = y + oh * g.wo * B16;
    for (int64_t c0 = 0; c0 < g.wo; c0 += kChunk) {
      const int64_t c1 = std::min(c0 + kChunk, g.wo);
      for (int64_t ow = c0; ow < c1; ++ow) {
        const __m512 a = load_pre<Pre>(r0 + 2 * ow * B16, s, t), b = load_pre<Pre>(r0 + (2 * ow + 1) * B16, s, t);
        if constexpr (Kind == kMax) part[ow - c0] = _mm512_mask_mov_ps(a, takes(a, b), b);
        else part[ow - c0] = _mm512_add_ps(_mm512_add_ps(_mm512_setzero_ps(), a), b); // the sum from +0
      }
      for (int64_t ow = c0; ow < c1; ++ow) {
        const __m512 c = load_pre<Pre>(r1 + 2 * ow * B16, s, t), e = load_pre<Pre>(r1 + (2 * ow + 1) * B16, s, t);
        __m512 v = part[ow - c0];
        if constexpr (Kind == kMax) {
          v = _mm512_mask_mov_ps(v, takes(v, c), c);
          v = _mm512_mask_mov_ps(v, takes(v, e), e);
        } else {
          v = _mm512_mul_ps(_mm512_add_ps(_mm512_add_ps(v, c), e), quarter);
        }
        _mm512_storeu_ps(o + ow * B16, v);
      }
    }
  }
}

template <int64_t Kind, int Pre = kPlain>
DXRT_AVX512 void grad_2x2_avx512(const PoolGeometry &g, const float *x, const float *dy, float *dx,
                                 const float *scale = nullptr, const float *shift = nullptr) {
  if (!(2 * g.ho == g.h && 2 * g.wo == g.w)) std::memset(dx, 0, size_t(g.h * g.w * B16) * sizeof(float));
  const __m512 quarter = _mm512_set1_ps(0.25f);
  const __m512 s = Pre ? _mm512_loadu_ps(scale) : quarter, t = Pre ? _mm512_loadu_ps(shift) : quarter;
  __m512 best[kChunk];
  __mmask16 t1[kChunk], w0[kChunk], w1[kChunk];
  for (int64_t oh = 0; oh < g.ho; ++oh) {
    const float *r0 = x + 2 * oh * g.w * B16, *r1 = r0 + g.w * B16;
    float *o0 = dx + 2 * oh * g.w * B16, *o1 = o0 + g.w * B16;
    const float *d = dy + oh * g.wo * B16;
    for (int64_t c0 = 0; c0 < g.wo; c0 += kChunk) {
      const int64_t c1 = std::min(c0 + kChunk, g.wo);
      if constexpr (Kind == kAvg) {
        for (int64_t ow = c0; ow < c1; ++ow) {
          const __m512 v = _mm512_mul_ps(_mm512_loadu_ps(d + ow * B16), quarter);
          _mm512_storeu_ps(o0 + 2 * ow * B16, v), _mm512_storeu_ps(o0 + (2 * ow + 1) * B16, v);
        }
        for (int64_t ow = c0; ow < c1; ++ow) {
          const __m512 v = _mm512_mul_ps(_mm512_loadu_ps(d + ow * B16), quarter);
          _mm512_storeu_ps(o1 + 2 * ow * B16, v), _mm512_storeu_ps(o1 + (2 * ow + 1) * B16, v);
        }
        continue;
      }
      // max_2x2's chain over the top row, then the bottom row: the lanes
      // each element wins; then dx's top row and its bottom row, each in
      // address order.
      __mmask16 w2[kChunk], w3[kChunk];
      for (int64_t ow = c0; ow < c1; ++ow) {
        const __m512 a = load_pre<Pre>(r0 + 2 * ow * B16, s, t), b = load_pre<Pre>(r0 + (2 * ow + 1) * B16, s, t);
        t1[ow - c0] = takes(a, b);
        best[ow - c0] = _mm512_mask_mov_ps(a, t1[ow - c0], b);
      }
      for (int64_t ow = c0; ow < c1; ++ow) {
        const int64_t k = ow - c0;
        const __m512 c = load_pre<Pre>(r1 + 2 * ow * B16, s, t), e = load_pre<Pre>(r1 + (2 * ow + 1) * B16, s, t);
        const __mmask16 t2 = takes(best[k], c);
        const __mmask16 t3 = takes(_mm512_mask_mov_ps(best[k], t2, c), e);
        w0[k] = __mmask16(~(t1[k] | t2 | t3));
        w1[k] = __mmask16(t1[k] & ~(t2 | t3));
        w2[k] = __mmask16(t2 & ~t3);
        w3[k] = t3;
      }
      for (int64_t ow = c0; ow < c1; ++ow) {
        const __m512 dv = _mm512_loadu_ps(d + ow * B16);
        _mm512_storeu_ps(o0 + 2 * ow * B16, _mm512_maskz_mov_ps(w0[ow - c0], dv));
        _mm512_storeu_ps(o0 + (2 * ow + 1) * B16, _mm512_maskz_mov_ps(w1[ow - c0], dv));
      }
      for (int64_t ow = c0; ow < c1; ++ow) {
        const __m512 dv = _mm512_loadu_ps(d + ow * B16);
        _mm512_storeu_ps(o1 + 2 * ow * B16, _mm512_maskz_mov_ps(w2[ow - c0], dv));
        _mm512_storeu_ps(o1 + (2 * ow + 1) * B16, _mm512_maskz_mov_ps(w3[ow - c0], dv));
      }
    }
  }
}

template <int64_t Kind>
DXRT_AVX512 void forward_avx512(const PoolGeometry &g, const float *x, float *y) {
  if (is_2x2(g)) return forward_2x2_avx512<Kind>(g, x, y);
  const __m512 inv = _mm512_set1_ps(1.0f / float(g.kh * g.kw));
  for (int64_t oh = 0; oh < g.ho; ++oh)
    for (int64_t ow = 0; ow < g.wo; ++ow) {
      const Window win = window(g, oh, ow);
      __m512 v = Kind == kMax ? _mm512_set1_ps(-std::numeric_limits<float>::infinity()) : _mm512_setzero_ps();
      bool first = true;
      for (int64_t ih = win.h0; ih < win.h1; ++ih)
        for (int64_t iw = win.w0; iw < win.w1; ++iw) {
          const __m512 e = _mm512_loadu_ps(x + (ih * g.w + iw) * B16);
          if constexpr (Kind == kAvg) v = _mm512_add_ps(v, e);
          else v = first ? e : _mm512_mask_mov_ps(v, takes(v, e), e);
          first = false;
        }
      _mm512_storeu_ps(y + (oh * g.wo + ow) * B16, Kind == kAvg ? _mm512_mul_ps(v, inv) : v);
    }
}

// Windows that do not overlap (stride >= window): each element of dx lies in
// at most one window, so the gradient is stored, not added (the winner's
// lanes get dy, the others +0; for average every element dy/(kh*kw)), and
// dx is zeroed first only where some element lies in no window.
constexpr int64_t kMaxWindow = 64; // window elements tracked at once
inline bool disjoint(const PoolGeometry &g) { return g.sh >= g.kh && g.sw >= g.kw && g.kh * g.kw <= kMaxWindow; }
inline bool covers(const PoolGeometry &g) {
  return g.pt == 0 && g.pl == 0 && g.sh == g.kh && g.sw == g.kw && g.ho * g.kh == g.h && g.wo * g.kw == g.w;
}

template <int64_t Kind>
DXRT_AVX512 void grad_disjoint_avx512(const PoolGeometry &g, const float *x, const float *dy, float *dx) {
  const __m512 inv = _mm512_set1_ps(1.0f / float(g.kh * g.kw));
  if (!covers(g)) std::memset(dx, 0, size_t(g.h * g.w * B16) * sizeof(float));
  __mmask16 took[kMaxWindow];
  int64_t at[kMaxWindow];
  for (int64_t oh = 0; oh < g.ho; ++oh)
    for (int64_t ow = 0; ow < g.wo; ++ow) {
      const Window win = window(g, oh, ow);
      const __m512 d = _mm512_loadu_ps(dy + (oh * g.wo + ow) * B16);
      if constexpr (Kind == kAvg) {
        const __m512 q = _mm512_mul_ps(d, inv);
        for (int64_t ih = win.h0; ih < win.h1; ++ih)
          for (int64_t iw = win.w0; iw < win.w1; ++iw) _mm512_storeu_ps(dx + (ih * g.w + iw) * B16, q);
        continue;
      }
      // The lanes each element takes over (argmax_window's rule); the winner
      // is the last element that took a lane.
      int64_t n = 0;
      __m512 best = _mm512_setzero_ps();
      for (int64_t ih = win.h0; ih < win.h1; ++ih)
        for (int64_t iw = win.w0; iw < win.w1; ++iw, ++n) {
          const __m512 e = _mm512_loadu_ps(x + (ih * g.w + iw) * B16);
          took[n] = n == 0 ? __mmask16(0xffff) : takes(best, e);
          best = _mm512_mask_mov_ps(best, took[n], e);
          at[n] = ih * g.w + iw;
        }
      // Stored in address order (the store streams run forward).
      __mmask16 later = 0;
      for (int64_t k = n - 1; k >= 0; --k) {
        const __mmask16 t = took[k];
        took[k] = __mmask16(t & ~later);
        later = __mmask16(later | t);
      }
      for (int64_t k = 0; k < n; ++k) _mm512_storeu_ps(dx + at[k] * B16, _mm512_maskz_mov_ps(took[k], d));
    }
}

template <int64_t Kind>
DXRT_AVX512 void grad_avx512(const PoolGeometry &g, const float *x, const float *dy, float *dx) {
  if (is_2x2(g)) return grad_2x2_avx512<Kind>(g, x, dy, dx);
  if (disjoint(g)) return grad_disjoint_avx512<Kind>(g, x, dy, dx);
  const __m512 inv = _mm512_set1_ps(1.0f / float(g.kh * g.kw));
  std::memset(dx, 0, size_t(g.h * g.w * B16) * sizeof(float));
  for (int64_t oh = 0; oh < g.ho; ++oh)
    for (int64_t ow = 0; ow < g.wo; ++ow) {
      const Window win = window(g, oh, ow);
      const __m512 d = _mm512_loadu_ps(dy + (oh * g.wo + ow) * B16);
      if constexpr (Kind == kAvg) {
        const __m512 q = _mm512_mul_ps(d, inv);
        for (int64_t ih = win.h0; ih < win.h1; ++ih)
          for (int64_t iw = win.w0; iw < win.w1; ++iw) {
            float *p = dx + (ih * g.w + iw) * B16;
            _mm512_storeu_ps(p, _mm512_add_ps(_mm512_loadu_ps(p), q));
          }
        continue;
      }
      // Each lane's winner as its pixel index in the plane, then dy added
      // there only (a masked add: other lanes keep their bits, -0 included).
      __m512 best = _mm512_setzero_ps();
      __m512i at = _mm512_set1_epi32(-1);
      bool any = false;
      for (int64_t ih = win.h0; ih < win.h1; ++ih)
        for (int64_t iw = win.w0; iw < win.w1; ++iw) {
          const __m512 e = _mm512_loadu_ps(x + (ih * g.w + iw) * B16);
          const __mmask16 t = any ? takes(best, e) : __mmask16(0xffff);
          best = _mm512_mask_mov_ps(best, t, e);
          at = _mm512_mask_mov_epi32(at, t, _mm512_set1_epi32(int(ih * g.w + iw)));
          any = true;
        }
      if (!any) continue;
      for (int64_t ih = win.h0; ih < win.h1; ++ih)
        for (int64_t iw = win.w0; iw < win.w1; ++iw) {
          const __mmask16 mine = _mm512_cmpeq_epi32_mask(at, _mm512_set1_epi32(int(ih * g.w + iw)));
          if (!mine) continue;
          float *p = dx + (ih * g.w + iw) * B16;
          const __m512 cur = _mm512_loadu_ps(p);
          _mm512_storeu_ps(p, _mm512_mask_add_ps(cur, mine, cur, d));
        }
    }
}

bool have_avx512() {
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
}

// ---- AVX2: the same loops on one 8-float vector per pixel (nChw8c, Avx2x8)
// or two (nChw16c, Avx2x16) ----
// They mirror the AVX-512 loops above through a pixel type, except
// for the 2x2 gradient, which writes dx's two rows window by window (with
// masks of 64 bytes, keeping them for two later passes as the AVX-512 loop
// does ran 1.3-1.5x slower). The AVX-512 loops stay as measured on AVX-512
// hardware; one set of loops over a pixel type for both wants that
// hardware to measure it. Masks are vectors of all-ones or zero lanes.
// On AVX2 CPUs dxc plans nChw8c (oneDNN's AVX2 convolutions compute in it);
// nChw16c comes here from programs compiled for an AVX-512 target or on an
// AVX-512 host. Neither may fall back to the lane-by-lane loops, which ran
// 10-15 times slower than the NCHW kernels ([64, 16, 64, 64] max, forward
// 20 ms against 1.1).
#define DXRT_AVX2 __attribute__((target("avx2")))
#define DXRT_AVX2_INLINE __attribute__((target("avx2"), always_inline)) static inline
struct Avx2x16 {
  static constexpr int64_t kLanes = 16;
  struct P { __m256 lo, hi; }; // a pixel's 16 channels
  struct M { __m256 lo, hi; }; // lanes all-ones or zero (or pixel indices, pick())

  DXRT_AVX2_INLINE P load(const float *p) { return {_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8)}; }
  DXRT_AVX2_INLINE void store(float *p, const P &a) { _mm256_storeu_ps(p, a.lo), _mm256_storeu_ps(p + 8, a.hi); }
  DXRT_AVX2_INLINE P splat(float f) { return {_mm256_set1_ps(f), _mm256_set1_ps(f)}; }
  DXRT_AVX2_INLINE P add(const P &a, const P &b) { return {_mm256_add_ps(a.lo, b.lo), _mm256_add_ps(a.hi, b.hi)}; }
  DXRT_AVX2_INLINE P mul(const P &a, const P &b) { return {_mm256_mul_ps(a.lo, b.lo), _mm256_mul_ps(a.hi, b.hi)}; }
  // arith.maximumf(a, +0): a NaN stays (max_ps would return the +0).
  DXRT_AVX2_INLINE __m256 relu8(__m256 a) {
    return _mm256_blendv_ps(_mm256_max_ps(a, _mm256_setzero_ps()), a, _mm256_cmp_ps(a, a, _CMP_UNORD_Q));
  }
  DXRT_AVX2_INLINE P relu(const P &a) { return {relu8(a.lo), relu8(a.hi)}; }
  // v replaces best where best is not NaN and v is greater or NaN:
  // not (v <= best), unordered included, and best ordered.
  DXRT_AVX2_INLINE __m256 takes8(__m256 best, __m256 v) {
    return _mm256_and_ps(_mm256_cmp_ps(v, best, _CMP_NLE_UQ), _mm256_cmp_ps(best, best, _CMP_ORD_Q));
  }
  DXRT_AVX2_INLINE M takes(const P &best, const P &v) { return {takes8(best.lo, v.lo), takes8(best.hi, v.hi)}; }
  // m ? b : a, lane by lane.
  DXRT_AVX2_INLINE P blend(const M &m, const P &a, const P &b) {
    return {_mm256_blendv_ps(a.lo, b.lo, m.lo), _mm256_blendv_ps(a.hi, b.hi, m.hi)};
  }
  DXRT_AVX2_INLINE P maskz(const M &m, const P &d) { return {_mm256_and_ps(m.lo, d.lo), _mm256_and_ps(m.hi, d.hi)}; }
  DXRT_AVX2_INLINE M fill(int32_t bits) {
    const __m256 v = _mm256_castsi256_ps(_mm256_set1_epi32(bits));
    return {v, v};
  }
  DXRT_AVX2_INLINE M either(const M &a, const M &b) { return {_mm256_or_ps(a.lo, b.lo), _mm256_or_ps(a.hi, b.hi)}; }
  // a and not b.
  DXRT_AVX2_INLINE M butNot(const M &a, const M &b) {
    return {_mm256_andnot_ps(b.lo, a.lo), _mm256_andnot_ps(b.hi, a.hi)};
  }
  // The lanes of index vector a equal to v; a with v where m is set.
  DXRT_AVX2_INLINE __m256 equal8(__m256 a, int32_t v) {
    return _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_castps_si256(a), _mm256_set1_epi32(v)));
  }
  DXRT_AVX2_INLINE M equal(const M &a, int32_t v) { return {equal8(a.lo, v), equal8(a.hi, v)}; }
  DXRT_AVX2_INLINE M pick(const M &m, const M &a, int32_t v) {
    const __m256 b = _mm256_castsi256_ps(_mm256_set1_epi32(v));
    return {_mm256_blendv_ps(a.lo, b, m.lo), _mm256_blendv_ps(a.hi, b, m.hi)};
  }
  DXRT_AVX2_INLINE bool any(const M &m) { return !(_mm256_testz_ps(m.lo, m.lo) && _mm256_testz_ps(m.hi, m.hi)); }
};

// nChw8c: a pixel is one vector; the same operations as Avx2x16's.
struct Avx2x8 {
  static constexpr int64_t kLanes = 8;
  struct P { __m256 v; };
  struct M { __m256 v; };

  DXRT_AVX2_INLINE P load(const float *p) { return {_mm256_loadu_ps(p)}; }
  DXRT_AVX2_INLINE void store(float *p, const P &a) { _mm256_storeu_ps(p, a.v); }
  DXRT_AVX2_INLINE P splat(float f) { return {_mm256_set1_ps(f)}; }
  DXRT_AVX2_INLINE P add(const P &a, const P &b) { return {_mm256_add_ps(a.v, b.v)}; }
  DXRT_AVX2_INLINE P mul(const P &a, const P &b) { return {_mm256_mul_ps(a.v, b.v)}; }
  DXRT_AVX2_INLINE P relu(const P &a) { return {Avx2x16::relu8(a.v)}; }
  DXRT_AVX2_INLINE M takes(const P &best, const P &v) { return {Avx2x16::takes8(best.v, v.v)}; }
  DXRT_AVX2_INLINE P blend(const M &m, const P &a, const P &b) { return {_mm256_blendv_ps(a.v, b.v, m.v)}; }
  DXRT_AVX2_INLINE P maskz(const M &m, const P &d) { return {_mm256_and_ps(m.v, d.v)}; }
  DXRT_AVX2_INLINE M fill(int32_t bits) { return {_mm256_castsi256_ps(_mm256_set1_epi32(bits))}; }
  DXRT_AVX2_INLINE M either(const M &a, const M &b) { return {_mm256_or_ps(a.v, b.v)}; }
  DXRT_AVX2_INLINE M butNot(const M &a, const M &b) { return {_mm256_andnot_ps(b.v, a.v)}; }
  DXRT_AVX2_INLINE M equal(const M &a, int32_t v) { return {Avx2x16::equal8(a.v, v)}; }
  DXRT_AVX2_INLINE M pick(const M &m, const M &a, int32_t v) {
    return {_mm256_blendv_ps(a.v, _mm256_castsi256_ps(_mm256_set1_epi32(v)), m.v)};
  }
  DXRT_AVX2_INLINE bool any(const M &m) { return !_mm256_testz_ps(m.v, m.v); }
};

// pre_op's rule (the AVX-512 loops') on a pixel of V.
template <typename V, int Pre>
DXRT_AVX2 inline typename V::P load_pre(const float *p, const typename V::P &s, const typename V::P &t) {
  typename V::P v = V::load(p);
  if constexpr (Pre == kPlain) return v;
  v = V::add(V::mul(v, s), t);
  if constexpr (Pre == kAffineRelu) v = V::relu(v);
  return v;
}

template <typename V, int64_t Kind, int Pre = kPlain>
DXRT_AVX2 void forward_2x2_avx2(const PoolGeometry &g, const float *x, float *y, const float *scale = nullptr,
                                const float *shift = nullptr) {
  constexpr int64_t B = V::kLanes;
  using P = typename V::P;
  const P quarter = V::splat(0.25f), zero = V::splat(0.0f);
  const P s = Pre ? V::load(scale) : zero, t = Pre ? V::load(shift) : zero;
  P part[kChunk];
  for (int64_t oh = 0; oh < g.ho; ++oh) {
    const float *r0 = x + 2 * oh * g.w * B, *r1 = r0 + g.w * B;
    float *o = y + oh * g.wo * B;
    for (int64_t c0 = 0; c0 < g.wo; c0 += kChunk) {
      const int64_t c1 = std::min(c0 + kChunk, g.wo);
      for (int64_t ow = c0; ow < c1; ++ow) {
        const P a = load_pre<V, Pre>(r0 + 2 * ow * B, s, t), b = load_pre<V, Pre>(r0 + (2 * ow + 1) * B, s, t);
        if constexpr (Kind == kMax) part[ow - c0] = V::blend(V::takes(a, b), a, b);
        else part[ow - c0] = V::add(V::add(zero, a), b); // the sum from +0
      }
      for (int64_t ow = c0; ow < c1; ++ow) {
        const P c = load_pre<V, Pre>(r1 + 2 * ow * B, s, t), e = load_pre<V, Pre>(r1 + (2 * ow + 1) * B, s, t);
        P v = part[ow - c0];
        if constexpr (Kind == kMax) {
          v = V::blend(V::takes(v, c), v, c);
          v = V::blend(V::takes(v, e), v, e);
        } else {
          v = V::mul(V::add(V::add(v, c), e), quarter);
        }
        V::store(o + ow * B, v);
      }
    }
  }
}

template <typename V, int64_t Kind, int Pre = kPlain>
DXRT_AVX2 void grad_2x2_avx2(const PoolGeometry &g, const float *x, const float *dy, float *dx,
                             const float *scale = nullptr, const float *shift = nullptr) {
  constexpr int64_t B = V::kLanes;
  using P = typename V::P;
  using M = typename V::M;
  if (!(2 * g.ho == g.h && 2 * g.wo == g.w)) std::memset(dx, 0, size_t(g.h * g.w * B) * sizeof(float));
  const P quarter = V::splat(0.25f);
  const P s = Pre ? V::load(scale) : quarter, t = Pre ? V::load(shift) : quarter;
  P best[kChunk];
  M t1[kChunk];
  for (int64_t oh = 0; oh < g.ho; ++oh) {
    const float *r0 = x + 2 * oh * g.w * B, *r1 = r0 + g.w * B;
    float *o0 = dx + 2 * oh * g.w * B, *o1 = o0 + g.w * B;
    const float *d = dy + oh * g.wo * B;
    for (int64_t c0 = 0; c0 < g.wo; c0 += kChunk) {
      const int64_t c1 = std::min(c0 + kChunk, g.wo);
      if constexpr (Kind == kAvg) {
        for (float *o : {o0, o1})
          for (int64_t ow = c0; ow < c1; ++ow) {
            const P v = V::mul(V::load(d + ow * B), quarter);
            V::store(o + 2 * ow * B, v), V::store(o + (2 * ow + 1) * B, v);
          }
        continue;
      }
      for (int64_t ow = c0; ow < c1; ++ow) {
        const P a = load_pre<V, Pre>(r0 + 2 * ow * B, s, t), b = load_pre<V, Pre>(r0 + (2 * ow + 1) * B, s, t);
        t1[ow - c0] = V::takes(a, b);
        best[ow - c0] = V::blend(t1[ow - c0], a, b);
      }
      for (int64_t ow = c0; ow < c1; ++ow) {
        const int64_t k = ow - c0;
        const P c = load_pre<V, Pre>(r1 + 2 * ow * B, s, t), e = load_pre<V, Pre>(r1 + (2 * ow + 1) * B, s, t);
        const M t2 = V::takes(best[k], c);
        const M t3 = V::takes(V::blend(t2, best[k], c), e);
        const M later = V::either(t2, t3);
        const P dv = V::load(d + ow * B);
        V::store(o0 + 2 * ow * B, V::maskz(V::butNot(V::fill(-1), V::either(t1[k], later)), dv));
        V::store(o0 + (2 * ow + 1) * B, V::maskz(V::butNot(t1[k], later), dv));
        V::store(o1 + 2 * ow * B, V::maskz(V::butNot(t2, t3), dv));
        V::store(o1 + (2 * ow + 1) * B, V::maskz(t3, dv));
      }
    }
  }
}

template <typename V, int64_t Kind>
DXRT_AVX2 void forward_avx2(const PoolGeometry &g, const float *x, float *y) {
  if (is_2x2(g)) return forward_2x2_avx2<V, Kind>(g, x, y);
  constexpr int64_t B = V::kLanes;
  using P = typename V::P;
  const P inv = V::splat(1.0f / float(g.kh * g.kw));
  for (int64_t oh = 0; oh < g.ho; ++oh)
    for (int64_t ow = 0; ow < g.wo; ++ow) {
      const Window win = window(g, oh, ow);
      P v = V::splat(Kind == kMax ? -std::numeric_limits<float>::infinity() : 0.0f);
      bool first = true;
      for (int64_t ih = win.h0; ih < win.h1; ++ih)
        for (int64_t iw = win.w0; iw < win.w1; ++iw) {
          const P e = V::load(x + (ih * g.w + iw) * B);
          if constexpr (Kind == kAvg) v = V::add(v, e);
          else v = first ? e : V::blend(V::takes(v, e), v, e);
          first = false;
        }
      V::store(y + (oh * g.wo + ow) * B, Kind == kAvg ? V::mul(v, inv) : v);
    }
}

template <typename V, int64_t Kind>
DXRT_AVX2 void grad_disjoint_avx2(const PoolGeometry &g, const float *x, const float *dy, float *dx) {
  constexpr int64_t B = V::kLanes;
  using P = typename V::P;
  using M = typename V::M;
  const P inv = V::splat(1.0f / float(g.kh * g.kw));
  if (!covers(g)) std::memset(dx, 0, size_t(g.h * g.w * B) * sizeof(float));
  M took[kMaxWindow];
  int64_t at[kMaxWindow];
  for (int64_t oh = 0; oh < g.ho; ++oh)
    for (int64_t ow = 0; ow < g.wo; ++ow) {
      const Window win = window(g, oh, ow);
      const P d = V::load(dy + (oh * g.wo + ow) * B);
      if constexpr (Kind == kAvg) {
        const P q = V::mul(d, inv);
        for (int64_t ih = win.h0; ih < win.h1; ++ih)
          for (int64_t iw = win.w0; iw < win.w1; ++iw) V::store(dx + (ih * g.w + iw) * B, q);
        continue;
      }
      int64_t n = 0;
      P best = V::splat(0.0f);
      for (int64_t ih = win.h0; ih < win.h1; ++ih)
        for (int64_t iw = win.w0; iw < win.w1; ++iw, ++n) {
          const P e = V::load(x + (ih * g.w + iw) * B);
          took[n] = n == 0 ? V::fill(-1) : V::takes(best, e);
          best = V::blend(took[n], best, e);
          at[n] = ih * g.w + iw;
        }
      M later = V::fill(0);
      for (int64_t k = n - 1; k >= 0; --k) {
        const M t = took[k];
        took[k] = V::butNot(t, later);
        later = V::either(later, t);
      }
      for (int64_t k = 0; k < n; ++k) V::store(dx + at[k] * B, V::maskz(took[k], d));
    }
}

template <typename V, int64_t Kind>
DXRT_AVX2 void grad_avx2(const PoolGeometry &g, const float *x, const float *dy, float *dx) {
  if (is_2x2(g)) return grad_2x2_avx2<V, Kind>(g, x, dy, dx);
  if (disjoint(g)) return grad_disjoint_avx2<V, Kind>(g, x, dy, dx);
  constexpr int64_t B = V::kLanes;
  using P = typename V::P;
  using M = typename V::M;
  const P inv = V::splat(1.0f / float(g.kh * g.kw));
  std::memset(dx, 0, size_t(g.h * g.w * B) * sizeof(float));
  for (int64_t oh = 0; oh < g.ho; ++oh)
    for (int64_t ow = 0; ow < g.wo; ++ow) {
      const Window win = window(g, oh, ow);
      const P d = V::load(dy + (oh * g.wo + ow) * B);
      if constexpr (Kind == kAvg) {
        const P q = V::mul(d, inv);
        for (int64_t ih = win.h0; ih < win.h1; ++ih)
          for (int64_t iw = win.w0; iw < win.w1; ++iw) {
            float *p = dx + (ih * g.w + iw) * B;
            V::store(p, V::add(V::load(p), q));
          }
        continue;
      }
      // Each lane's winner as its pixel index, then dy added there only
      // (a blend: other lanes keep their bits, -0 included).
      P best = V::splat(0.0f);
      M at = V::fill(-1);
      bool any = false;
      for (int64_t ih = win.h0; ih < win.h1; ++ih)
        for (int64_t iw = win.w0; iw < win.w1; ++iw) {
          const P e = V::load(x + (ih * g.w + iw) * B);
          const M t = any ? V::takes(best, e) : V::fill(-1);
          best = V::blend(t, best, e);
          at = V::pick(t, at, int32_t(ih * g.w + iw));
          any = true;
        }
      if (!any) continue;
      for (int64_t ih = win.h0; ih < win.h1; ++ih)
        for (int64_t iw = win.w0; iw < win.w1; ++iw) {
          const M mine = V::equal(at, int32_t(ih * g.w + iw));
          if (!V::any(mine)) continue;
          float *p = dx + (ih * g.w + iw) * B;
          const P cur = V::load(p);
          V::store(p, V::blend(mine, cur, V::add(cur, d)));
        }
    }
}

bool have_avx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}
#else
bool have_avx512() { return false; }
bool have_avx2() { return false; }
#endif

} // namespace

namespace dxrt {

// The plane loops of one direction over every (n, channel block); exposed
// for the tests, which run every implementation by name.
bool pool_blocked_run(const char *path, int64_t block, bool grad, int64_t kind, const PoolGeometry &g,
                      int64_t blocks, const float *x, const float *y_or_dy, float *y_or_dx) {
  const bool avx512 = std::strcmp(path, "avx512f") == 0, avx2 = std::strcmp(path, "avx2") == 0;
  if (!is_channel_block(block) || (avx512 && (block != 16 || !have_avx512())) || (avx2 && !have_avx2())) return false;
  if (!avx512 && !avx2 && std::strcmp(path, "scalar") != 0) return false;
  const int64_t in = g.h * g.w * block, out = g.ho * g.wo * block;
  for (int64_t p = 0; p < blocks; ++p) {
    const float *xp = x + p * in, *dyp = grad ? y_or_dy + p * out : nullptr;
    float *op = y_or_dx + p * (grad ? in : out);
#if defined(__x86_64__)
    if (avx512) {
      if (grad && kind == kMax) grad_avx512<kMax>(g, xp, dyp, op);
      else if (grad) grad_avx512<kAvg>(g, xp, dyp, op);
      else if (kind == kMax) forward_avx512<kMax>(g, xp, op);
      else forward_avx512<kAvg>(g, xp, op);
      continue;
    }
    if (avx2 && block == 16) {
      if (grad && kind == kMax) grad_avx2<Avx2x16, kMax>(g, xp, dyp, op);
      else if (grad) grad_avx2<Avx2x16, kAvg>(g, xp, dyp, op);
      else if (kind == kMax) forward_avx2<Avx2x16, kMax>(g, xp, op);
      else forward_avx2<Avx2x16, kAvg>(g, xp, op);
      continue;
    }
    if (avx2) {
      if (grad && kind == kMax) grad_avx2<Avx2x8, kMax>(g, xp, dyp, op);
      else if (grad) grad_avx2<Avx2x8, kAvg>(g, xp, dyp, op);
      else if (kind == kMax) forward_avx2<Avx2x8, kMax>(g, xp, op);
      else forward_avx2<Avx2x8, kAvg>(g, xp, op);
      continue;
    }
#endif
    if (grad) grad_scalar(block, g, kind, xp, dyp, op);
    else forward_scalar(block, g, kind, xp, op);
  }
  return true;
}

} // namespace dxrt

namespace {

// The first path of pool_blocked_run's that the CPU has for the block.
const char *best_path(int64_t block) {
  return block == 16 && have_avx512() ? "avx512f" : have_avx2() ? "avx2" : "scalar";
}

// An activation passed as NCHW ([N, C, H, W, 1]): the NCHW kernels' memref.
dxrt_memref4 nchw(const Tensor4 &t) { return {t.p, t.p, 0, {t.n, t.c, t.h, t.w}, {t.c * t.h * t.w, t.h * t.w, t.w, 1}}; }

// The plane geometry of one channel block: pool_geometry's checks on the
// NCHW views, then one "plane" per (n, block).
PoolGeometry block_geometry(const PoolGeometry &g, int64_t block) {
  PoolGeometry b = g;
  b.planes = g.planes / block;
  return b;
}

} // namespace

extern "C" void _mlir_ciface_dxrt_pool_forward_blocked(dxrt_memref5 *xd, dxrt_memref5 *yd, int64_t kind, int64_t kh,
                                                       int64_t kw, int64_t sh, int64_t sw, int64_t pt, int64_t pb,
                                                       int64_t pl, int64_t pr) {
  const char *k = "dxrt_pool_forward_blocked";
  Activation x = activation_view(xd, k, "x"), y = activation_view(yd, k, "y");
  DXRT_KERNEL_CHECK(x.block == y.block, k, str("x and y must have one layout, but x is in blocks of ", x.block,
                                                " channels and y of ", y.block));
  if (!x.blocked()) { // all NCHW: the NCHW kernel on the same memory
    dxrt_memref4 x4 = nchw(x.t), y4 = nchw(y.t);
    return _mlir_ciface_dxrt_pool_forward(&x4, &y4, kind, kh, kw, sh, sw, pt, pb, pl, pr);
  }
  const PoolGeometry g = pool_geometry(k, x.t, y.t, kind, kh, kw, sh, sw, pt, pb, pl, pr);
  pool_blocked_run(best_path(x.block), x.block, false, kind, block_geometry(g, x.block), g.planes / x.block, x.t.p,
                   nullptr, y.t.p);
}

extern "C" void _mlir_ciface_dxrt_pool_grad_blocked(dxrt_memref5 *dyd, dxrt_memref5 *xd, dxrt_memref5 *dxd,
                                                    int64_t kind, int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                                                    int64_t pt, int64_t pb, int64_t pl, int64_t pr) {
  const char *k = "dxrt_pool_grad_blocked";
  Activation dy = activation_view(dyd, k, "dy"), x = activation_view(xd, k, "x"), dx = activation_view(dxd, k, "dx");
  DXRT_KERNEL_CHECK(x.block == dy.block && x.block == dx.block, k,
                    str("dy, x and dx must have one layout, but they are in blocks of ", dy.block, ", ", x.block,
                        " and ", dx.block, " channels"));
  DXRT_KERNEL_CHECK(dx.t.n == x.t.n && dx.t.c == x.t.c && dx.t.h == x.t.h && dx.t.w == x.t.w, k,
                    str("dx is [", dx.t.n, ", ", dx.t.c, ", ", dx.t.h, ", ", dx.t.w, "] but x is [", x.t.n, ", ",
                        x.t.c, ", ", x.t.h, ", ", x.t.w, "]"));
  if (!x.blocked()) {
    dxrt_memref4 dy4 = nchw(dy.t), x4 = nchw(x.t), dx4 = nchw(dx.t);
    return _mlir_ciface_dxrt_pool_grad(&dy4, &x4, &dx4, kind, kh, kw, sh, sw, pt, pb, pl, pr);
  }
  const PoolGeometry g = pool_geometry(k, x.t, dy.t, kind, kh, kw, sh, sw, pt, pb, pl, pr);
  pool_blocked_run(best_path(x.block), x.block, true, kind, block_geometry(g, x.block), g.planes / x.block, x.t.p,
                   dy.t.p, dx.t.p);
}

// ---- the pooling of a per-channel map of x, relu?(x * scale + shift)
// (dxrt_pool_*_blocked_pre, for dxc's dx-fuse-pool-input) ----

namespace {

#if defined(__x86_64__)
template <int Pre> DXRT_AVX512 void pre_op_plane_avx512(const float *x, int64_t pixels, const float *scale,
                                                       const float *shift, float *out) {
  const __m512 s = _mm512_loadu_ps(scale), t = _mm512_loadu_ps(shift);
  for (int64_t p = 0; p < pixels; ++p) _mm512_storeu_ps(out + p * B16, load_pre<Pre>(x + p * B16, s, t));
}
#endif

// The map on one plane of `pixels` pixels of B channels into `out` (for the
// loops without a 2x2 twin): pre_op's rule with AVX-512, else lane by lane.
void pre_op_plane(const char *path, const float *x, int64_t pixels, int64_t B, const float *scale,
                  const float *shift, bool relu, float *out) {
#if defined(__x86_64__)
  if (std::strcmp(path, "avx512f") == 0)
    return relu ? pre_op_plane_avx512<kAffineRelu>(x, pixels, scale, shift, out)
                : pre_op_plane_avx512<kAffine>(x, pixels, scale, shift, out);
#endif
  for (int64_t p = 0; p < pixels; ++p)
    for (int64_t l = 0; l < B; ++l) {
      float v = x[p * B + l] * scale[l] + shift[l];
      if (relu && !(v > 0.0f) && !std::isnan(v)) v = 0.0f;
      out[p * B + l] = v;
    }
}

// The per-channel vectors, [C/B, B] (any shape of C elements) in channel order.
const float *channel_vector(const dxrt_memref2 *m, const char *k, const char *arg, int64_t channels) {
  const Mat v = view(m, k, arg);
  DXRT_KERNEL_CHECK(v.rows * v.cols == channels, k,
                    str(arg, " has ", v.rows * v.cols, " elements for ", channels, " channels"));
  return v.p;
}

// One thread's plane buffer: kernels run on the calling thread, and it grows
// on the first step only.
float *plane_buffer(int64_t floats) {
  thread_local std::vector<float> buffer;
  if (int64_t(buffer.size()) < floats) buffer.resize(size_t(floats));
  return buffer.data();
}

// The 2x2 loops of `path` with the map applied as they load x: false where
// the path has none.
template <int Pre>
bool run_2x2_pre(const char *path, int64_t block, bool grad, int64_t kind, const PoolGeometry &g, const float *x,
                 const float *scale, const float *shift, const float *dy, float *out) {
#if defined(__x86_64__)
  if (!is_2x2(g)) return false;
  if (std::strcmp(path, "avx512f") == 0) {
    if (grad && kind == kMax) grad_2x2_avx512<kMax, Pre>(g, x, dy, out, scale, shift);
    else if (grad) grad_2x2_avx512<kAvg, Pre>(g, x, dy, out, scale, shift);
    else if (kind == kMax) forward_2x2_avx512<kMax, Pre>(g, x, out, scale, shift);
    else forward_2x2_avx512<kAvg, Pre>(g, x, out, scale, shift);
    return true;
  }
  if (std::strcmp(path, "avx2") != 0) return false;
  if (block == 16) {
    if (grad && kind == kMax) grad_2x2_avx2<Avx2x16, kMax, Pre>(g, x, dy, out, scale, shift);
    else if (grad) grad_2x2_avx2<Avx2x16, kAvg, Pre>(g, x, dy, out, scale, shift);
    else if (kind == kMax) forward_2x2_avx2<Avx2x16, kMax, Pre>(g, x, out, scale, shift);
    else forward_2x2_avx2<Avx2x16, kAvg, Pre>(g, x, out, scale, shift);
  } else {
    if (grad && kind == kMax) grad_2x2_avx2<Avx2x8, kMax, Pre>(g, x, dy, out, scale, shift);
    else if (grad) grad_2x2_avx2<Avx2x8, kAvg, Pre>(g, x, dy, out, scale, shift);
    else if (kind == kMax) forward_2x2_avx2<Avx2x8, kMax, Pre>(g, x, out, scale, shift);
    else forward_2x2_avx2<Avx2x8, kAvg, Pre>(g, x, out, scale, shift);
  }
  return true;
#else
  return false;
#endif
}

} // namespace

namespace dxrt {

bool pool_blocked_run_pre(const char *path, int64_t block, bool grad, int64_t kind, const PoolGeometry &g,
                          int64_t blocks, int64_t channel_blocks, const float *x, const float *scale,
                          const float *shift, bool relu, const float *y_or_dy, float *y_or_dx) {
  // pool_blocked_run's checks, on no planes.
  if (!pool_blocked_run(path, block, grad, kind, g, 0, x, y_or_dy, y_or_dx)) return false;
  const int64_t in = g.h * g.w * block, out = g.ho * g.wo * block;
  for (int64_t p = 0; p < blocks; ++p) {
    const int64_t cb = p % channel_blocks;
    const float *xp = x + p * in, *s = scale + cb * block, *t = shift + cb * block;
    const float *dyp = grad ? y_or_dy + p * out : nullptr;
    float *op = y_or_dx + p * (grad ? in : out);
    if (relu ? run_2x2_pre<kAffineRelu>(path, block, grad, kind, g, xp, s, t, dyp, op)
             : run_2x2_pre<kAffine>(path, block, grad, kind, g, xp, s, t, dyp, op))
      continue;
    // Other windows: the plane's input made in a buffer that stays in cache.
    float *plane = plane_buffer(in);
    pre_op_plane(path, xp, g.h * g.w, block, s, t, relu, plane);
    pool_blocked_run(path, block, grad, kind, g, 1, plane, dyp, op);
  }
  return true;
}

} // namespace dxrt

extern "C" void _mlir_ciface_dxrt_pool_forward_blocked_pre(dxrt_memref5 *xd, dxrt_memref2 *scaled,
                                                           dxrt_memref2 *shiftd, dxrt_memref5 *yd, int64_t kind,
                                                           int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t pt,
                                                           int64_t pb, int64_t pl, int64_t pr, int64_t relu) {
  const char *k = "dxrt_pool_forward_blocked_pre";
  Activation x = activation_view(xd, k, "x"), y = activation_view(yd, k, "y");
  DXRT_KERNEL_CHECK(x.block == y.block && x.blocked(), k,
                    str("x and y must be in one channel-blocked layout, but x is in blocks of ", x.block,
                        " channels and y of ", y.block));
  DXRT_KERNEL_CHECK(relu == 0 || relu == 1, k, str("relu = ", relu, " is neither 0 nor 1"));
  const float *scale = channel_vector(scaled, k, "scale", x.t.c), *shift = channel_vector(shiftd, k, "shift", x.t.c);
  const PoolGeometry g = pool_geometry(k, x.t, y.t, kind, kh, kw, sh, sw, pt, pb, pl, pr);
  pool_blocked_run_pre(best_path(x.block), x.block, false, kind, block_geometry(g, x.block), g.planes / x.block,
                       x.t.c / x.block, x.t.p, scale, shift, relu != 0, nullptr, y.t.p);
}

extern "C" void _mlir_ciface_dxrt_pool_grad_blocked_pre(dxrt_memref5 *dyd, dxrt_memref5 *xd, dxrt_memref2 *scaled,
                                                        dxrt_memref2 *shiftd, dxrt_memref5 *dxd, int64_t kind,
                                                        int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t pt,
                                                        int64_t pb, int64_t pl, int64_t pr, int64_t relu) {
  const char *k = "dxrt_pool_grad_blocked_pre";
  Activation dy = activation_view(dyd, k, "dy"), x = activation_view(xd, k, "x"), dx = activation_view(dxd, k, "dx");
  DXRT_KERNEL_CHECK(x.block == dy.block && x.block == dx.block && x.blocked(), k,
                    str("dy, x and dx must be in one channel-blocked layout, but they are in blocks of ", dy.block,
                        ", ", x.block, " and ", dx.block, " channels"));
  DXRT_KERNEL_CHECK(same_shape(dx.t, x.t), k, str("dx is ", shape(dx.t), " but x is ", shape(x.t)));
  DXRT_KERNEL_CHECK(relu == 0 || relu == 1, k, str("relu = ", relu, " is neither 0 nor 1"));
  const float *scale = channel_vector(scaled, k, "scale", x.t.c), *shift = channel_vector(shiftd, k, "shift", x.t.c);
  const PoolGeometry g = pool_geometry(k, x.t, dy.t, kind, kh, kw, sh, sw, pt, pb, pl, pr);
  pool_blocked_run_pre(best_path(x.block), x.block, true, kind, block_geometry(g, x.block), g.planes / x.block,
                       x.t.c / x.block, x.t.p, scale, shift, relu != 0, dy.t.p, dx.t.p);
}
