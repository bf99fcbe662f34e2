// 3-D max and average pooling over NCDHW, PyTorch's semantics in floor mode
// (F.max_pool3d, F.avg_pool3d with count_include_pad):
//  max: padding is -inf. Each window is scanned in (d, h, w) order and its
//       pick updated when `v > pick || isnan(v)`, PyTorch's CPU rule: the
//       first maximal element, or where the window holds NaNs the last NaN
//       (the 2-D kernels of Pool.cpp keep the first NaN instead); the
//       gradient goes to the pick.
//  avg: padding counts as zeros and the divisor is kd*kh*kw.
// The common window (2x2x2, stride 2, no front/top/left padding: the
// windows tile the volume) has loops of its own: no data-dependent branch
// (the pick is a chain of selects) and no accumulation (windows do not
// overlap, so the gradient writes each element of dx once), which GCC
// vectorizes; they are compiled for AVX-512, AVX2 and the baseline and
// chosen at load time (target_clones). The max gradient's loop, which GCC
// does not vectorize, has AVX-512 intrinsics (as Pool.cpp's 2x2 loops),
// chosen at the first call where the CPU has them. Other windows run the
// general loops, whose max picks are swept a tap at a time across each
// output row (row_picks); the gradient recomputes them (no saved indices).
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

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define DXRT_POOL3D_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define DXRT_POOL3D_CLONES
#endif

// ---- the general loops ----

// Index (in the volume) of the window's pick at (oz, oh, ow), or -1 when the
// window lies entirely in the padding. PyTorch's loop: the pick starts at
// the window's first element with the value -inf, and each element that is
// larger or NaN replaces it; by selects (conditional moves), since which
// element wins is a coin toss on activations.
inline int64_t argmax_window(const Pool3dGeometry &g, const float *vol, int64_t oz, int64_t oh, int64_t ow) {
  const int64_t z0 = oz * g.sd - g.pf, h0 = oh * g.sh - g.pt, w0 = ow * g.sw - g.pl;
  const int64_t z1 = std::min(z0 + g.kd, g.d), h1 = std::min(h0 + g.kh, g.h), w1 = std::min(w0 + g.kw, g.w);
  const int64_t zs = std::max<int64_t>(z0, 0), hs = std::max<int64_t>(h0, 0), ws = std::max<int64_t>(w0, 0);
  if (zs >= z1 || hs >= h1 || ws >= w1) return -1;
  int64_t best = (zs * g.h + hs) * g.w + ws;
  float bestv = -std::numeric_limits<float>::infinity();
  for (int64_t iz = zs; iz < z1; ++iz)
    for (int64_t ih = hs; ih < h1; ++ih) {
      const int64_t row = (iz * g.h + ih) * g.w;
      for (int64_t iw = ws; iw < w1; ++iw) {
        const float v = vol[row + iw];
        const bool take = (v > bestv) | (v != v);
        best = take ? row + iw : best;
        bestv = take ? v : bestv;
      }
    }
  return best;
}

inline float window_sum(const Pool3dGeometry &g, const float *vol, int64_t oz, int64_t oh, int64_t ow) {
  const int64_t z0 = oz * g.sd - g.pf, h0 = oh * g.sh - g.pt, w0 = ow * g.sw - g.pl;
  const int64_t z1 = std::min(z0 + g.kd, g.d), h1 = std::min(h0 + g.kh, g.h), w1 = std::min(w0 + g.kw, g.w);
  float s = 0.0f;
  for (int64_t iz = std::max<int64_t>(z0, 0); iz < z1; ++iz)
    for (int64_t ih = std::max<int64_t>(h0, 0); ih < h1; ++ih) {
      const float *row = vol + (iz * g.h + ih) * g.w;
      for (int64_t iw = std::max<int64_t>(w0, 0); iw < w1; ++iw) s += row[iw];
    }
  return s;
}

// One tap of the windows [a, b) of a row, whose elements are row[ow * sw]:
// argmax_window's update, tap t's position kept as a float (selects of one
// width, which GCC vectorizes across the windows).
DXRT_POOL3D_CLONES void take_tap(const float *__restrict row, int64_t sw, float t, float *__restrict bestv,
                                 float *__restrict bestt, int64_t a, int64_t b) {
  for (int64_t ow = a; ow < b; ++ow) {
    const float v = row[ow * sw];
    const bool take = (v > bestv[ow]) | (v != v);
    bestv[ow] = take ? v : bestv[ow];
    bestt[ow] = take ? t : bestt[ow];
  }
}

// The picks of the output row (oz, oh) into at[0, wo): argmax_window's,
// with the windows wholly inside the row along w swept a tap at a time
// across the row (no per-window loop overhead, vectorized), the others
// one by one.
// A row's picks: this thread's buffer of n.
int64_t *picks(int64_t n) {
  thread_local std::vector<int64_t> at;
  if (at.size() < size_t(n)) at.resize(size_t(n));
  return at.data();
}

void row_picks(const Pool3dGeometry &g, const float *vol, int64_t oz, int64_t oh, int64_t *at) {
  thread_local std::vector<float> buffer;
  thread_local std::vector<int64_t> offsets;
  const int64_t z0 = oz * g.sd - g.pf, h0 = oh * g.sh - g.pt;
  const int64_t zs = std::max<int64_t>(z0, 0), hs = std::max<int64_t>(h0, 0);
  const int64_t z1 = std::min(z0 + g.kd, g.d), h1 = std::min(h0 + g.kh, g.h);
  // Windows [a, b) start at w0 = ow * sw - pl >= 0 and end by w.
  int64_t a = (g.pl + g.sw - 1) / g.sw, b = g.w >= g.kw ? (g.w - g.kw + g.pl) / g.sw + 1 : 0;
  b = std::min(b, g.wo);
  if (zs >= z1 || hs >= h1 || a >= b) {
    for (int64_t ow = 0; ow < g.wo; ++ow) at[ow] = argmax_window(g, vol, oz, oh, ow);
    return;
  }
  for (int64_t ow = 0; ow < a; ++ow) at[ow] = argmax_window(g, vol, oz, oh, ow);
  for (int64_t ow = b; ow < g.wo; ++ow) at[ow] = argmax_window(g, vol, oz, oh, ow);
  buffer.resize(size_t(2 * g.wo));
  float *bestv = buffer.data(), *bestt = bestv + g.wo;
  std::fill(bestv + a, bestv + b, -std::numeric_limits<float>::infinity());
  std::fill(bestt + a, bestt + b, 0.0f); // the first element, as argmax_window
  offsets.clear();
  for (int64_t iz = zs; iz < z1; ++iz)
    for (int64_t ih = hs; ih < h1; ++ih) {
      const int64_t row = (iz * g.h + ih) * g.w;
      for (int64_t j = 0; j < g.kw; ++j) {
        take_tap(vol + row - g.pl + j, g.sw, float(offsets.size()), bestv, bestt, a, b);
        offsets.push_back(row - g.pl + j);
      }
    }
  for (int64_t ow = a; ow < b; ++ow) at[ow] = offsets[size_t(bestt[ow])] + ow * g.sw;
}

void forward_general(const Pool3dGeometry &g, int64_t kind, const float *x, float *y) {
  const int64_t in = g.d * g.h * g.w, out = g.od * g.ho * g.wo;
  const float inv = 1.0f / float(g.kd * g.kh * g.kw);
  for (int64_t p = 0; p < g.planes; ++p) {
    const float *vol = x + p * in;
    float *o = y + p * out;
    for (int64_t oz = 0; oz < g.od; ++oz)
      for (int64_t oh = 0; oh < g.ho; ++oh, o += g.wo) {
        if (kind == kMax) {
          int64_t *at = picks(g.wo);
          row_picks(g, vol, oz, oh, at);
          for (int64_t ow = 0; ow < g.wo; ++ow)
            o[ow] = at[ow] < 0 ? -std::numeric_limits<float>::infinity() : vol[at[ow]];
        } else {
          for (int64_t ow = 0; ow < g.wo; ++ow) o[ow] = window_sum(g, vol, oz, oh, ow) * inv;
        }
      }
  }
}

void grad_general(const Pool3dGeometry &g, int64_t kind, const float *x, const float *dy, float *dx) {
  const int64_t in = g.d * g.h * g.w, out = g.od * g.ho * g.wo;
  const float inv = 1.0f / float(g.kd * g.kh * g.kw);
  std::fill(dx, dx + g.planes * in, 0.0f);
  for (int64_t p = 0; p < g.planes; ++p) {
    const float *vol = x + p * in, *d = dy + p * out;
    float *o = dx + p * in;
    for (int64_t oz = 0; oz < g.od; ++oz)
      for (int64_t oh = 0; oh < g.ho; ++oh) {
        if (kind == kMax) {
          int64_t *at = picks(g.wo);
          row_picks(g, vol, oz, oh, at);
          for (int64_t ow = 0; ow < g.wo; ++ow, ++d)
            if (at[ow] >= 0) o[at[ow]] += *d;
          continue;
        }
        for (int64_t ow = 0; ow < g.wo; ++ow, ++d) {
          const float q = *d * inv;
          const int64_t z0 = oz * g.sd - g.pf, h0 = oh * g.sh - g.pt, w0 = ow * g.sw - g.pl;
          const int64_t z1 = std::min(z0 + g.kd, g.d), h1 = std::min(h0 + g.kh, g.h), w1 = std::min(w0 + g.kw, g.w);
          for (int64_t iz = std::max<int64_t>(z0, 0); iz < z1; ++iz)
            for (int64_t ih = std::max<int64_t>(h0, 0); ih < h1; ++ih) {
              float *row = o + (iz * g.h + ih) * g.w;
              for (int64_t iw = std::max<int64_t>(w0, 0); iw < w1; ++iw) row[iw] += q;
            }
        }
      }
  }
}

// ---- 2x2x2, stride 2 ----

inline bool is_2x2x2(const Pool3dGeometry &g) {
  // Every window inside the volume (back/bottom/right padding may be given
  // and add no window: 'same' on an odd size pads there).
  return g.kd == 2 && g.kh == 2 && g.kw == 2 && g.sd == 2 && g.sh == 2 && g.sw == 2 && g.pf == 0 && g.pt == 0 &&
         g.pl == 0 && 2 * g.od <= g.d && 2 * g.ho <= g.h && 2 * g.wo <= g.w;
}

// The four rows of the output row (oz, oh): (2oz, 2oh), (2oz, 2oh+1),
// (2oz+1, 2oh), (2oz+1, 2oh+1), in the scan order.
struct Rows {
  const float *__restrict r0, *__restrict r1, *__restrict r2, *__restrict r3;
};

// The window's eight values in scan order: the pick's value (PyTorch's
// rule, as argmax_window), by selects.
inline float pick8(const float (&v)[8]) {
  float best = v[0];
  for (int i = 1; i < 8; ++i) best = (v[i] > best) | (v[i] != v[i]) ? v[i] : best;
  return best;
}

// d where `keep` is all ones, +0 where it is 0.
inline float masked(float d, uint32_t keep) { return std::bit_cast<float>(std::bit_cast<uint32_t>(d) & keep); }

// Whether v could be the pick of a window whose value is m, as a mask:
// equal to m (+0 and -0 too, as argmax_window), or a NaN (then m is NaN
// too, and equal to nothing; without NaNs in the window m is no NaN). The
// masks come from selects and are combined by bit operations: the position
// as a select beside the value, bool arithmetic, or arrays left control
// flow, conversions or memory in the loop, which GCC then did not vectorize.
inline uint32_t candidate(float v, float m) { return (v == m) | (v != v) ? ~0u : 0u; }

inline void load8(const Rows &r, int64_t ow, float (&v)[8]) {
  const int64_t j = 2 * ow;
  v[0] = r.r0[j], v[1] = r.r0[j + 1], v[2] = r.r1[j], v[3] = r.r1[j + 1];
  v[4] = r.r2[j], v[5] = r.r2[j + 1], v[6] = r.r3[j], v[7] = r.r3[j + 1];
}

DXRT_POOL3D_CLONES void forward_row_max(Rows r, float *__restrict o, int64_t wo) {
  for (int64_t ow = 0; ow < wo; ++ow) {
    float v[8];
    load8(r, ow, v);
    o[ow] = pick8(v);
  }
}

DXRT_POOL3D_CLONES void forward_row_avg(Rows r, float *__restrict o, int64_t wo) {
  for (int64_t ow = 0; ow < wo; ++ow) {
    float v[8];
    load8(r, ow, v);
    float s = 0.0f; // the general loop's order of summation
    for (int i = 0; i < 8; ++i) s += v[i];
    o[ow] = s * 0.125f;
  }
}

// The output rows of dx that the window row covers, as Rows.
struct OutRows {
  float *__restrict o0, *__restrict o1, *__restrict o2, *__restrict o3;
};

// The scalar rule, branch-free; GCC 12 does not vectorize it (a mask
// conversion it has no instruction for), hence the AVX-512 loop below.
void grad_row_max(Rows rows, const float *__restrict d, OutRows out, int64_t wo) {
  // Locals, not the structs' members: the structs sit in memory, which
  // GCC assumes the stores may change.
  const float *__restrict r0 = rows.r0, *__restrict r1 = rows.r1, *__restrict r2 = rows.r2, *__restrict r3 = rows.r3;
  float *__restrict o0 = out.o0, *__restrict o1 = out.o1, *__restrict o2 = out.o2, *__restrict o3 = out.o3;
  for (int64_t ow = 0; ow < wo; ++ow) {
    const int64_t j = 2 * ow;
    const float v[8] = {r0[j], r0[j + 1], r1[j], r1[j + 1], r2[j], r2[j + 1], r3[j], r3[j + 1]};
    const float m = pick8(v);
    // The pick: the first candidate, or where m is NaN the last one (each
    // NaN replaces the pick).
    const uint32_t nan = m != m ? ~0u : 0u;
    const uint32_t e0 = candidate(v[0], m), e1 = candidate(v[1], m), e2 = candidate(v[2], m),
                   e3 = candidate(v[3], m), e4 = candidate(v[4], m), e5 = candidate(v[5], m),
                   e6 = candidate(v[6], m), e7 = candidate(v[7], m);
    const uint32_t b1 = e0, b2 = b1 | e1, b3 = b2 | e2, b4 = b3 | e3, b5 = b4 | e4, b6 = b5 | e5, b7 = b6 | e6;
    const uint32_t a6 = e7, a5 = a6 | e6, a4 = a5 | e5, a3 = a4 | e4, a2 = a3 | e3, a1 = a2 | e2, a0 = a1 | e1;
    // first_i = e_i & ~b_i, last_i = e_i & ~a_i: whichever m asks for.
    const uint32_t f = ~nan;
    const float g = d[ow];
    o0[j] = masked(g, e0 & ((f & 0xffffffffu) | (nan & ~a0)));
    o0[j + 1] = masked(g, e1 & ((f & ~b1) | (nan & ~a1)));
    o1[j] = masked(g, e2 & ((f & ~b2) | (nan & ~a2)));
    o1[j + 1] = masked(g, e3 & ((f & ~b3) | (nan & ~a3)));
    o2[j] = masked(g, e4 & ((f & ~b4) | (nan & ~a4)));
    o2[j + 1] = masked(g, e5 & ((f & ~b5) | (nan & ~a5)));
    o3[j] = masked(g, e6 & ((f & ~b6) | (nan & ~a6)));
    o3[j + 1] = masked(g, e7 & ((f & ~b7) | nan));
  }
}

DXRT_POOL3D_CLONES void grad_row_avg(const float *__restrict d, OutRows o, int64_t wo) {
  for (int64_t ow = 0; ow < wo; ++ow) {
    const float q = d[ow] * 0.125f;
    const int64_t j = 2 * ow;
    o.o0[j] = q, o.o0[j + 1] = q, o.o1[j] = q, o.o1[j + 1] = q;
    o.o2[j] = q, o.o2[j + 1] = q, o.o3[j] = q, o.o3[j + 1] = q;
  }
}

#if defined(__x86_64__)
#define DXRT_POOL3D_AVX512 1

// ---- AVX-512: 16 windows from 32 floats of each of the four rows ----
// As Pool.cpp's 2x2 loops: the rest of a row is one more block of n < 16
// windows with masked loads and stores.
using namespace avx512; // Block16, block16, split16, store_pairs16, isnan16 (PoolAvx512.h)

// grad_row_max's rule on 16 windows: the pick's value by masked blends,
// then each element's mask (the first candidate, or the last NaN).
DXRT_AVX512 inline void grad_max16(const float *r0, const float *r1, const float *r2, const float *r3,
                                   const float *dy, float *o0, float *o1, float *o2, float *o3, const Block16 &t) {
  __m512 v[8];
  split16(r0, t, v[0], v[1]);
  split16(r1, t, v[2], v[3]);
  split16(r2, t, v[4], v[5]);
  split16(r3, t, v[6], v[7]);
  __mmask16 nan_at[8];
  __m512 m = v[0];
  nan_at[0] = isnan16(v[0]);
  for (int i = 1; i < 8; ++i) {
    nan_at[i] = isnan16(v[i]);
    m = _mm512_mask_blend_ps(__mmask16(_mm512_cmp_ps_mask(v[i], m, _CMP_GT_OQ) | nan_at[i]), m, v[i]);
  }
  const __mmask16 nan = isnan16(m);
  __mmask16 e[8], keep[8], before = 0, after = 0;
  for (int i = 0; i < 8; ++i) e[i] = __mmask16(_mm512_cmp_ps_mask(v[i], m, _CMP_EQ_OQ) | nan_at[i]);
  for (int i = 0; i < 8; ++i) keep[i] = __mmask16(e[i] & ~before & ~nan), before = __mmask16(before | e[i]);
  for (int i = 7; i >= 0; --i) keep[i] = __mmask16(keep[i] | (e[i] & ~after & nan)), after = __mmask16(after | e[i]);
  const __m512 d = _mm512_maskz_loadu_ps(t.out, dy);
  store_pairs16(o0, _mm512_maskz_mov_ps(keep[0], d), _mm512_maskz_mov_ps(keep[1], d), t);
  store_pairs16(o1, _mm512_maskz_mov_ps(keep[2], d), _mm512_maskz_mov_ps(keep[3], d), t);
  store_pairs16(o2, _mm512_maskz_mov_ps(keep[4], d), _mm512_maskz_mov_ps(keep[5], d), t);
  store_pairs16(o3, _mm512_maskz_mov_ps(keep[6], d), _mm512_maskz_mov_ps(keep[7], d), t);
}

DXRT_AVX512 void grad_row_max_avx512(Rows r, const float *d, OutRows o, int64_t wo) {
  const Block16 full = block16(16);
  int64_t ow = 0;
  for (; ow + 16 <= wo; ow += 16)
    grad_max16(r.r0 + 2 * ow, r.r1 + 2 * ow, r.r2 + 2 * ow, r.r3 + 2 * ow, d + ow, o.o0 + 2 * ow, o.o1 + 2 * ow,
               o.o2 + 2 * ow, o.o3 + 2 * ow, full);
  if (ow < wo)
    grad_max16(r.r0 + 2 * ow, r.r1 + 2 * ow, r.r2 + 2 * ow, r.r3 + 2 * ow, d + ow, o.o0 + 2 * ow, o.o1 + 2 * ow,
               o.o2 + 2 * ow, o.o3 + 2 * ow, block16(wo - ow));
}
#endif

using GradRowMax = void (*)(Rows, const float *, OutRows, int64_t);

// The max gradient's row loop of a path: "avx512f" where the CPU has it,
// "scalar"; nullptr for another name.
GradRowMax grad_row_max_path(const char *name) {
#ifdef DXRT_POOL3D_AVX512
  if (std::strcmp(name, "avx512f") == 0) return __builtin_cpu_supports("avx512f") ? grad_row_max_avx512 : nullptr;
#endif
  return std::strcmp(name, "scalar") == 0 ? grad_row_max : nullptr;
}

GradRowMax best_grad_row_max() {
  static const GradRowMax best = [] {
    GradRowMax f = grad_row_max_path("avx512f");
    return f ? f : grad_row_max;
  }();
  return best;
}

void forward_2x2x2(const Pool3dGeometry &g, int64_t kind, const float *x, float *y) {
  const int64_t plane = g.h * g.w, in = g.d * plane, out = g.od * g.ho * g.wo;
  for (int64_t p = 0; p < g.planes; ++p)
    for (int64_t oz = 0; oz < g.od; ++oz)
      for (int64_t oh = 0; oh < g.ho; ++oh) {
        const float *r0 = x + p * in + 2 * oz * plane + 2 * oh * g.w;
        Rows r{r0, r0 + g.w, r0 + plane, r0 + plane + g.w};
        float *o = y + p * out + (oz * g.ho + oh) * g.wo;
        if (kind == kMax) forward_row_max(r, o, g.wo);
        else forward_row_avg(r, o, g.wo);
      }
}

// Elements outside every window (the last slice, row or column of an odd
// size) get 0.
void grad_2x2x2(const Pool3dGeometry &g, int64_t kind, const float *x, const float *dy, float *dx,
                GradRowMax row_max) {
  const int64_t plane = g.h * g.w, in = g.d * plane, out = g.od * g.ho * g.wo;
  for (int64_t p = 0; p < g.planes; ++p) {
    float *vol = dx + p * in;
    for (int64_t oz = 0; oz < g.od; ++oz) {
      for (int64_t oh = 0; oh < g.ho; ++oh) {
        const int64_t at = 2 * oz * plane + 2 * oh * g.w;
        const float *r0 = x + p * in + at;
        Rows r{r0, r0 + g.w, r0 + plane, r0 + plane + g.w};
        float *o0 = vol + at;
        OutRows o{o0, o0 + g.w, o0 + plane, o0 + plane + g.w};
        const float *d = dy + p * out + (oz * g.ho + oh) * g.wo;
        if (kind == kMax) row_max(r, d, o, g.wo);
        else grad_row_avg(d, o, g.wo);
        if (g.w > 2 * g.wo)
          for (float *row : {o.o0, o.o1, o.o2, o.o3}) std::fill(row + 2 * g.wo, row + g.w, 0.0f);
      }
      if (g.h > 2 * g.ho)
        for (int64_t iz = 2 * oz; iz < 2 * oz + 2; ++iz)
          std::fill(vol + iz * plane + 2 * g.ho * g.w, vol + (iz + 1) * plane, 0.0f);
    }
    std::fill(vol + 2 * g.od * plane, vol + in, 0.0f);
  }
}

} // namespace

std::vector<const char *> dxrt::pool3d_2x2x2_grad_paths() {
  std::vector<const char *> names;
  for (const char *name : {"avx512f", "scalar"})
    if (grad_row_max_path(name)) names.push_back(name);
  return names;
}

bool dxrt::pool3d_2x2x2_max_grad(const char *path, int64_t planes, int64_t d, int64_t h, int64_t w, const float *x,
                                 const float *dy, float *dx) {
  GradRowMax row = grad_row_max_path(path);
  if (!row) return false;
  const Pool3dGeometry g{planes, d, h, w, d / 2, h / 2, w / 2, 2, 2, 2, 2, 2, 2, 0, 0, 0};
  grad_2x2x2(g, kMax, x, dy, dx, row);
  return true;
}

extern "C" void _mlir_ciface_dxrt_pool3d_forward(dxrt_memref5 *xd, dxrt_memref5 *yd, int64_t kind, int64_t kd,
                                                 int64_t kh, int64_t kw, int64_t sd, int64_t sh, int64_t sw,
                                                 int64_t pf, int64_t pk, int64_t pt, int64_t pb, int64_t pl,
                                                 int64_t pr) {
  const char *k = "dxrt_pool3d_forward";
  Tensor5 x = view(xd, k, "x"), y = view(yd, k, "y");
  Pool3dGeometry g = pool3d_geometry(k, x, y, kind, kd, kh, kw, sd, sh, sw, pf, pk, pt, pb, pl, pr);
  if (is_2x2x2(g)) forward_2x2x2(g, kind, x.p, y.p);
  else forward_general(g, kind, x.p, y.p);
}

extern "C" void _mlir_ciface_dxrt_pool3d_grad(dxrt_memref5 *dyd, dxrt_memref5 *xd, dxrt_memref5 *dxd, int64_t kind,
                                              int64_t kd, int64_t kh, int64_t kw, int64_t sd, int64_t sh, int64_t sw,
                                              int64_t pf, int64_t pk, int64_t pt, int64_t pb, int64_t pl,
                                              int64_t pr) {
  const char *k = "dxrt_pool3d_grad";
  Tensor5 dy = view(dyd, k, "dy"), x = view(xd, k, "x"), dx = view(dxd, k, "dx");
  DXRT_KERNEL_CHECK(dx.n == x.n && dx.c == x.c && dx.d == x.d && dx.h == x.h && dx.w == x.w, k,
                    str("dx is [", dx.n, ", ", dx.c, ", ", dx.d, ", ", dx.h, ", ", dx.w, "] but x is [", x.n, ", ",
                        x.c, ", ", x.d, ", ", x.h, ", ", x.w, "]"));
  Pool3dGeometry g = pool3d_geometry(k, x, dy, kind, kd, kh, kw, sd, sh, sw, pf, pk, pt, pb, pl, pr);
  if (is_2x2x2(g)) grad_2x2x2(g, kind, x.p, dy.p, dx.p, best_grad_row_max());
  else grad_general(g, kind, x.p, dy.p, dx.p);
}
