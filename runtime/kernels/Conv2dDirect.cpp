// Direct convolution for few input channels (a network's first layer: one
// grayscale or three RGB channels), straight on NCHW: the forward and the
// weight gradient. oneDNN computes such a layer in its blocked layout and
// reorders the large tensor (y, or dy for the weight gradient) between it
// and NCHW; with C * KH * KW <= 27 the reorder costs more than the
// arithmetic (microscopy's first layer, [64, 1, 64, 64] -> 16 channels:
// forward 3.8 ms through oneDNN, 2.1 ms here). Here the large tensor is
// read or written once, in its own layout.
//
// Each image's input planes are copied with their zero padding into a small
// buffer first, so every tap is an unmasked vector load at a fixed offset:
//   y[f][ho][wo] = sum over c, kh, kw of w[f][c][kh][kw] * xp[c][ho + kh][wo + kw]
//   dw[f][c][kh][kw] = sum over n, ho, wo of dy[n][f][ho][wo] * xp[n][c][ho + kh][wo + kw]
// The vectors run along wo (16 floats): the forward computes 8 filters at a
// time from one input load per tap; the weight gradient keeps one vector of
// partial sums per tap in registers while it streams a filter's dy plane
// once (an earlier version looped over taps outside the pixels and re-read
// dy once per tap, which lost to oneDNN). One source is compiled for
// AVX-512, AVX2 and the baseline and chosen at run time (GCC vector
// extensions).
//
// In bf16 precision (Precision.h) the kernel reads its inputs as the bf16
// kernels do, rounded, and still accumulates in fp32: x is rounded as it is
// copied into the padded planes, w into a small copy, and for the weight
// gradient each image's dy into a per-thread copy (256 KiB for 16 planes of
// 64x64, read back from cache). Such a layer is memory-bound, so this keeps
// the direct kernel's speed while the numbers are those of bf16.
#include "kernels/Conv2d.h"
#include "kernels/Precision.h"

#include <algorithm>
#include <cstring>
#include <immintrin.h>
#include <string>
#include <vector>

namespace dxrt {

namespace {

constexpr int kLanes = 16;
typedef float Vec __attribute__((vector_size(kLanes * sizeof(float))));

// A macro, not a function returning a Vec: GCC warns that passing 64-byte
// vectors by value changes the ABI between the variants.
#define DXRT_LOAD(v, p) std::memcpy(&(v), (p), sizeof(Vec))

// The padded planes of one image: C planes of hp rows of wp floats; wp
// leaves room for the last vector of a row to read past the output width.
// Passed by value into the loops: a reference to the thread-local buffer
// would make GCC recompute the buffer's address (a __tls_get_addr call)
// inside them rather than keep it in a register.
struct Planes {
  const float *data;
  int64_t hp, wp;
  const float *plane(int64_t c) const { return data + c * hp * wp; }
};

// x's image copied with its padding into this thread's buffer; with
// `round`, rounded to bf16.
Planes pad_image(const ConvGeometry &g, const float *x, bool round) {
  thread_local std::vector<float> buffer;
  const int64_t wo_round = (g.wo + kLanes - 1) / kLanes * kLanes;
  const int64_t hp = g.h + g.pt + g.pb, wp = std::max(g.w + g.pl + g.pr, wo_round + g.kw - 1);
  buffer.assign(size_t(g.c * hp * wp), 0.0f);
  float *data = buffer.data();
  for (int64_t c = 0; c < g.c; ++c)
    for (int64_t i = 0; i < g.h; ++i) {
      float *dst = data + (c * hp + i + g.pt) * wp + g.pl;
      const float *src = x + (c * g.h + i) * g.w;
      if (round) round_to_bf16(src, dst, g.w);
      else std::memcpy(dst, src, size_t(g.w) * sizeof(float));
    }
  return {data, hp, wp};
}

// A row's tail of n < kLanes floats: a masked store where the ISA has one,
// else lane by lane (a copy of variable size would be a call to memcpy, as
// slow as the rest of the row). load reads n <= kLanes floats and leaves
// the other lanes 0, branch-free where the ISA has masked loads (a branch
// between a full and a partial load in the weight gradient's inner loop
// makes GCC keep its accumulators in memory).
struct TailAvx512 {
  __attribute__((target("avx512f"))) static inline void store(float *p, const Vec &v, int64_t n) {
    _mm512_mask_storeu_ps(p, __mmask16((1u << n) - 1), __m512(v));
  }
  __attribute__((target("avx512f"))) static inline void load(Vec &v, const float *p, int64_t n) {
    v = Vec(_mm512_maskz_loadu_ps(__mmask16((1u << n) - 1), p));
  }
};
struct TailLanes {
  static inline __attribute__((always_inline)) void store(float *p, const Vec &v, int64_t n) {
    for (int64_t l = 0; l < n; ++l) p[l] = v[l];
  }
  static inline __attribute__((always_inline)) void load(Vec &v, const float *p, int64_t n) {
    if (n == kLanes) {
      DXRT_LOAD(v, p);
      return;
    }
    v = Vec{};
    for (int64_t l = 0; l < n; ++l) v[l] = p[l];
  }
};
struct TailAvx2 : TailLanes {
  __attribute__((target("avx2"))) static inline void load(Vec &v, const float *p, int64_t n) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256 lo = _mm256_maskload_ps(p, _mm256_cmpgt_epi32(_mm256_set1_epi32(int(n)), lane));
    const __m256 hi = _mm256_maskload_ps(p + 8, _mm256_cmpgt_epi32(_mm256_set1_epi32(int(n) - 8), lane));
    std::memcpy(&v, &lo, sizeof lo);
    std::memcpy(reinterpret_cast<char *>(&v) + sizeof lo, &hi, sizeof hi);
  }
};

// Filters [f0, f0 + FB) of one image: FB accumulators per output vector, one
// input load per tap shared by them.
template <int FB, class Tail>
inline __attribute__((always_inline)) void forward_filters(const ConvGeometry &g, const Planes p, const float *w,
                                                           float *y, int64_t f0) {
  const int64_t taps = g.c * g.kh * g.kw;
  const float *wf = w + f0 * taps;
  for (int64_t ho = 0; ho < g.ho; ++ho)
    for (int64_t wo = 0; wo < g.wo; wo += kLanes) {
      Vec acc[FB];
      for (int j = 0; j < FB; ++j) acc[j] = Vec{};
      int64_t t = 0;
      for (int64_t c = 0; c < g.c; ++c)
        for (int64_t kh = 0; kh < g.kh; ++kh) {
          const float *row = p.plane(c) + (ho + kh) * p.wp + wo;
          for (int64_t kw = 0; kw < g.kw; ++kw, ++t) {
            Vec xv;
            DXRT_LOAD(xv, row + kw);
            for (int j = 0; j < FB; ++j) acc[j] += wf[j * taps + t] * xv;
          }
        }
      float *out = y + (f0 * g.ho + ho) * g.wo + wo;
      if (wo + kLanes <= g.wo)
        for (int j = 0; j < FB; ++j) std::memcpy(out + j * g.ho * g.wo, &acc[j], sizeof(Vec));
      else
        for (int j = 0; j < FB; ++j) Tail::store(out + j * g.ho * g.wo, acc[j], g.wo - wo);
    }
}

template <class Tail>
inline __attribute__((always_inline)) void forward_impl(const ConvGeometry &g, const float *x, const float *w,
                                                        float *y, bool round) {
  thread_local std::vector<float> rounded_w;
  if (round) {
    rounded_w.resize(size_t(g.f * g.c * g.kh * g.kw));
    round_to_bf16(w, rounded_w.data(), int64_t(rounded_w.size()));
    w = rounded_w.data();
  }
  for (int64_t n = 0; n < g.n; ++n) {
    const Planes p = pad_image(g, x + n * g.c * g.h * g.w, round);
    float *yn = y + n * g.f * g.ho * g.wo;
    int64_t f = 0;
    for (; f + 8 <= g.f; f += 8) forward_filters<8, Tail>(g, p, w, yn, f);
    for (; f < g.f; ++f) forward_filters<1, Tail>(g, p, w, yn, f);
  }
}

__attribute__((target("avx512f"))) void forward_avx512(const ConvGeometry &g, const float *x, const float *w, float *y,
                                                       bool round) {
  forward_impl<TailAvx512>(g, x, w, y, round);
}
__attribute__((target("avx2,fma"))) void forward_avx2(const ConvGeometry &g, const float *x, const float *w, float *y,
                                                     bool round) {
  forward_impl<TailLanes>(g, x, w, y, round);
}
void forward_baseline(const ConvGeometry &g, const float *x, const float *w, float *y, bool round) {
  forward_impl<TailLanes>(g, x, w, y, round);
}

// ---- the weight gradient ----

typedef int32_t Mask __attribute__((vector_size(kLanes * sizeof(int32_t))));

// sum[t * kLanes + l] += acc[t][l]: the partial sums kept per lane (unaligned
// memory, as everything these kernels touch).
inline __attribute__((always_inline)) void add_lanes(float *sum, const Vec *acc, int64_t n) {
#pragma GCC unroll 32
  for (int64_t t = 0; t < n; ++t) {
    Vec s;
    DXRT_LOAD(s, sum + t * kLanes);
    s += acc[t];
    std::memcpy(sum + t * kLanes, &s, sizeof s);
  }
}

// The taps' partial sums of one filter over one image, a vector each: its
// dy plane read once, each dy vector multiplied with the C x KH x KW input
// vectors under its taps, added lane by lane to sum[tap] (reduced across
// lanes once, at the end: a horizontal sum per plane would cost as much as
// a small plane's arithmetic). C, KH and KW are compile-time constants for
// the common first layers (the accumulators then live in registers: 27 of
// them for RGB 3x3); 0 reads them from g. A row's last vector reads dy
// masked: its lanes past the row are 0 and add 0 * x = 0 (the caller makes
// sure x is finite there).
template <int C, int KH, int KW, class Tail>
inline __attribute__((always_inline)) void weight_grad_filter(const ConvGeometry &g, const Planes p,
                                                              const float *dyf, float *sum) {
  const int64_t c_n = C ? C : g.c, kh_n = KH ? KH : g.kh, kw_n = KW ? KW : g.kw, ho_n = g.ho, wo_n = g.wo;
  const int64_t vectors = (wo_n + kLanes - 1) / kLanes, tail = wo_n - (vectors - 1) * kLanes, wp = p.wp;
  const int64_t plane = p.hp * p.wp;
  // Loops over the taps are unrolled whole (#pragma): with a constant index
  // at every access GCC keeps acc in registers, else in memory, stored to
  // on every iteration.
  Vec acc[C && KH && KW ? C * KH * KW : kDirectMaxTaps];
#pragma GCC unroll 32
  for (int64_t t = 0; t < c_n * kh_n * kw_n; ++t) acc[t] = Vec{};
  for (int64_t ho = 0; ho < ho_n; ++ho) {
    const float *dyr = dyf + ho * wo_n, *xr = p.data + ho * wp;
    for (int64_t v = 0; v < vectors; ++v) {
      Vec d;
      Tail::load(d, dyr + v * kLanes, v + 1 < vectors ? kLanes : tail);
      for (int64_t c = 0; c < c_n; ++c)
        for (int64_t kh = 0; kh < kh_n; ++kh)
          for (int64_t kw = 0; kw < kw_n; ++kw) {
            Vec xv;
            DXRT_LOAD(xv, xr + c * plane + kh * wp + v * kLanes + kw);
            acc[(c * kh_n + kh) * kw_n + kw] += d * xv;
          }
    }
  }
  add_lanes(sum, acc, c_n * kh_n * kw_n);
}

// The same where x holds an infinity or NaN: each row's last vector masks
// x too, so that a lane past the row adds 0, not 0 * inf = NaN (an
// infinity reaches only the taps whose window holds it). Rarely run.
template <class Tail>
inline __attribute__((always_inline)) void weight_grad_filter_masked(const ConvGeometry &g, const Planes p,
                                                                     const float *dyf, float *sum) {
  const int64_t full = g.wo / kLanes * kLanes, tail = g.wo - full, taps = g.c * g.kh * g.kw;
  Vec acc[kDirectMaxTaps];
  for (int64_t t = 0; t < taps; ++t) acc[t] = Vec{};
  Mask live;
  for (int l = 0; l < kLanes; ++l) live[l] = l < tail ? -1 : 0;
  for (int64_t ho = 0; ho < g.ho; ++ho) {
    const float *dyr = dyf + ho * g.wo;
    for (int64_t wo = 0; wo < g.wo; wo += kLanes) {
      const bool last = wo == full;
      Vec d;
      if (last) Tail::load(d, dyr + wo, tail);
      else DXRT_LOAD(d, dyr + wo);
      for (int64_t c = 0; c < g.c; ++c)
        for (int64_t kh = 0; kh < g.kh; ++kh)
          for (int64_t kw = 0; kw < g.kw; ++kw) {
            Vec xv;
            DXRT_LOAD(xv, p.plane(c) + (ho + kh) * p.wp + wo + kw);
            if (last) xv = Vec(Mask(xv) & live);
            acc[(c * g.kh + kh) * g.kw + kw] += d * xv;
          }
    }
  }
  add_lanes(sum, acc, taps);
}

// Whether n floats are all finite (no infinity, no NaN): their exponent
// bits are not all ones. Integer operations, so the loop vectorizes.
bool all_finite(const float *x, int64_t n) {
  uint32_t bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, x + i, sizeof bits);
    bad |= uint32_t((bits & 0x7f800000u) == 0x7f800000u);
  }
  return bad == 0;
}

// Image by image: its planes padded once, then each filter's dy plane read
// once; the sums in float vectors, their lanes added in double at the end.
template <int C, int KH, int KW, class Tail>
inline __attribute__((always_inline)) void weight_grad_loop(const ConvGeometry &g, const float *x, float *dw,
                                                            const float *dy, bool round) {
  thread_local std::vector<float> sum_buffer, rounded_dy;
  const int64_t taps = g.c * g.kh * g.kw, dy_image = g.f * g.ho * g.wo;
  sum_buffer.assign(size_t(g.f * taps * kLanes), 0.0f);
  float *sums = sum_buffer.data();
  if (round) rounded_dy.resize(size_t(dy_image));
  for (int64_t n = 0; n < g.n; ++n) {
    const float *xn = x + n * g.c * g.h * g.w;
    const Planes p = pad_image(g, xn, round);
    // Rounding can overflow a huge finite value to infinity: test what the loops read.
    const bool finite = round ? all_finite(p.data, g.c * p.hp * p.wp) : all_finite(xn, g.c * g.h * g.w);
    const float *dyn = dy + n * dy_image;
    if (round) {
      round_to_bf16(dyn, rounded_dy.data(), dy_image);
      dyn = rounded_dy.data();
    }
    for (int64_t f = 0; f < g.f; ++f) {
      const float *dyf = dyn + f * g.ho * g.wo;
      float *s = sums + f * taps * kLanes;
      if (finite) weight_grad_filter<C, KH, KW, Tail>(g, p, dyf, s);
      else weight_grad_filter_masked<Tail>(g, p, dyf, s);
    }
  }
  for (int64_t i = 0; i < g.f * taps; ++i) {
    double total = 0;
    for (int l = 0; l < kLanes; ++l) total += sums[i * kLanes + l];
    dw[i] = float(total);
  }
}

template <class Tail>
inline __attribute__((always_inline)) void weight_grad_impl(const ConvGeometry &g, const float *x, float *dw,
                                                            const float *dy, bool round) {
  if (g.kh == 3 && g.kw == 3 && g.c == 1) return weight_grad_loop<1, 3, 3, Tail>(g, x, dw, dy, round);
  if (g.kh == 5 && g.kw == 5 && g.c == 1) return weight_grad_loop<1, 5, 5, Tail>(g, x, dw, dy, round);
  weight_grad_loop<0, 0, 0, Tail>(g, x, dw, dy, round);
}

__attribute__((target("avx512f"))) void weight_grad_avx512(const ConvGeometry &g, const float *x, float *dw,
                                                           const float *dy, bool round) {
  weight_grad_impl<TailAvx512>(g, x, dw, dy, round);
}
__attribute__((target("avx2,fma"))) void weight_grad_avx2(const ConvGeometry &g, const float *x, float *dw,
                                                          const float *dy, bool round) {
  weight_grad_impl<TailAvx2>(g, x, dw, dy, round);
}
void weight_grad_baseline(const ConvGeometry &g, const float *x, float *dw, const float *dy, bool round) {
  weight_grad_impl<TailLanes>(g, x, dw, dy, round);
}

// ---- dispatch ----

// Both directions of one ISA. Forward: (x, w, y); weight gradient: (x, dw,
// dy); with `round`, the inputs rounded to bf16 first.
struct Variant {
  void (*forward)(const ConvGeometry &, const float *, const float *, float *, bool);
  void (*weight_grad)(const ConvGeometry &, const float *, float *, const float *, bool);
};

constexpr Variant kAvx512 = {forward_avx512, weight_grad_avx512}, kAvx2 = {forward_avx2, weight_grad_avx2},
                  kBaseline = {forward_baseline, weight_grad_baseline};

const Variant &variant() {
  static const Variant &v = __builtin_cpu_supports("avx512f")                                       ? kAvx512
                            : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? kAvx2
                                                                                              : kBaseline;
  return v;
}

void run_variant(const Variant &v, ConvDir dir, const ConvGeometry &g, float *x, float *w, float *y) {
  const bool round = matmul_precision() == Precision::kBf16;
  if (dir == ConvDir::kForward) v.forward(g, x, w, y, round);
  else v.weight_grad(g, x, w, y, round);
}

#undef DXRT_LOAD

} // namespace

bool conv2d_direct_applies(ConvDir dir, const ConvGeometry &g) {
  // 2-D only: the loops know no depth axis (a 3-D convolution runs on oneDNN).
  const bool geometry = g.spatial == 2 && g.groups == 1 && g.sh == 1 && g.sw == 1 && g.dh == 1 && g.dw == 1 &&
                        g.c * g.kh * g.kw <= kDirectMaxTaps && g.n > 0 && g.c > 0 && g.f > 0 && g.ho > 0 && g.wo > 0;
  // The weight gradient of one input channel only: with three (RGB 3x3,
  // 27 taps) its 27 input loads per dy vector, two thirds of them across
  // cache lines, lose to oneDNN when dy is in cache (batch 64, 32x32 -> 32:
  // 1.9 vs 1.6 ms; it wins only with dy cold, 2.2 vs 3.2 ms).
  if (dir == ConvDir::kGradWeight) return geometry && g.c == 1;
  return dir == ConvDir::kForward && geometry;
}

bool conv2d_direct_isa(const char *isa, ConvDir dir, const ConvGeometry &g, float *x, float *w, float *y) {
  const std::string name = isa;
  if (name == "avx512f" && __builtin_cpu_supports("avx512f")) run_variant(kAvx512, dir, g, x, w, y);
  else if (name == "avx2" && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) run_variant(kAvx2, dir, g, x, w, y);
  else if (name == "baseline") run_variant(kBaseline, dir, g, x, w, y);
  else return false;
  return true;
}

void conv2d_direct(ConvDir dir, const ConvGeometry &g, float *x, float *w, float *y) {
  DXRT_KERNEL_CHECK(dir != ConvDir::kGradInput, "conv2d_direct", "the input gradient is not direct");
  run_variant(variant(), dir, g, x, w, y);
}

} // namespace dxrt
