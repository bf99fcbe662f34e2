// Direct convolution for few input channels (a network's first layer: one
// grayscale or three RGB channels): forward and weight gradient straight on
// NCHW, no layout change. oneDNN computes such a layer in its blocked layout
// and reorders the large output (and, for the weight gradient, the large dy)
// to and from NCHW around it; with C * KH * KW <= 27 the reorders cost more
// than the arithmetic (microscopy's first layer, [64, 1, 64, 64] -> 16
// channels: 4.9 + 5.6 ms per step through oneDNN). Here the output is
// written, and dy read, exactly once, in NCHW.
//
// Each image's input planes are copied with their zero padding into a small
// buffer first, so every tap is an unmasked vector load at a fixed offset:
//   forward      y[f][ho][wo] = sum over c, kh, kw of w[f][c][kh][kw] * xp[c][ho + kh][wo + kw]
//   weight grad  dw[f][c][kh][kw] = sum over n, ho, wo of dy[n][f][ho][wo] * xp[n][c][ho + kh][wo + kw]
// The vectors run along wo (16 floats). One source is compiled for AVX-512,
// AVX2 and the baseline and chosen at run time (GCC vector extensions).
#include "kernels/Conv2d.h"

#include <algorithm>
#include <cstring>
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
struct Padded {
  int64_t hp, wp;
  std::vector<float> data;
  const float *plane(int64_t c) const { return data.data() + c * hp * wp; }
};

Padded &padded_buffer() {
  thread_local Padded p;
  return p;
}

void pad_image(const ConvGeometry &g, const float *x, Padded &p) {
  const int64_t wo_round = (g.wo + kLanes - 1) / kLanes * kLanes;
  p.hp = g.h + g.pt + g.pb;
  p.wp = std::max(g.w + g.pl + g.pr, wo_round + g.kw - 1);
  p.data.assign(size_t(g.c * p.hp * p.wp), 0.0f);
  for (int64_t c = 0; c < g.c; ++c)
    for (int64_t i = 0; i < g.h; ++i)
      std::memcpy(p.data.data() + (c * p.hp + i + g.pt) * p.wp + g.pl, x + (c * g.h + i) * g.w,
                  size_t(g.w) * sizeof(float));
}

// Stores the first n lanes of v at p (n < kLanes only at a row's end). A
// full store is a fixed-size copy: the accumulators stay in registers.
inline __attribute__((always_inline)) void store(float *p, const Vec &v, int64_t n) {
  if (n == kLanes) {
    std::memcpy(p, &v, sizeof(Vec));
  } else {
    float tail[kLanes];
    std::memcpy(tail, &v, sizeof(Vec));
    std::memcpy(p, tail, size_t(n) * sizeof(float));
  }
}

// Loads n lanes from p, zeros after them.
inline __attribute__((always_inline)) void load_n(Vec &v, const float *p, int64_t n) {
  if (n == kLanes) {
    DXRT_LOAD(v, p);
  } else {
    float tail[kLanes] = {};
    std::memcpy(tail, p, size_t(n) * sizeof(float));
    DXRT_LOAD(v, tail);
  }
}

// Filters [f0, f0 + FB) of one image: FB accumulators per output vector, one
// input load per tap shared by them.
template <int FB>
inline __attribute__((always_inline)) void forward_filters(const ConvGeometry &g, const Padded &p, const float *w,
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
      const int64_t n = std::min<int64_t>(kLanes, g.wo - wo);
      for (int j = 0; j < FB; ++j) store(y + ((f0 + j) * g.ho + ho) * g.wo + wo, acc[j], n);
    }
}

inline __attribute__((always_inline)) void forward_impl(const ConvGeometry &g, const float *x, const float *w,
                                                        float *y) {
  Padded &p = padded_buffer();
  for (int64_t n = 0; n < g.n; ++n) {
    pad_image(g, x + n * g.c * g.h * g.w, p);
    float *yn = y + n * g.f * g.ho * g.wo;
    int64_t f = 0;
    for (; f + 8 <= g.f; f += 8) forward_filters<8>(g, p, w, yn, f);
    for (; f < g.f; ++f) forward_filters<1>(g, p, w, yn, f);
  }
}

// Per-lane partial sums of dw[f0 .. f0 + FB)[tap] over one image, added to
// part[f * taps + tap] (kLanes floats each): for one tap at a time, FB
// accumulators over the whole output plane. dy is read once per tap, from
// cache (one image's FB planes).
template <int FB>
inline __attribute__((always_inline)) void grad_weight_filters(const ConvGeometry &g, const Padded &p,
                                                               const float *dy, int64_t f0, float *part) {
  const int64_t taps = g.c * g.kh * g.kw, plane = g.ho * g.wo;
  int64_t t = 0;
  for (int64_t c = 0; c < g.c; ++c)
    for (int64_t kh = 0; kh < g.kh; ++kh)
      for (int64_t kw = 0; kw < g.kw; ++kw, ++t) {
        Vec acc[FB];
        for (int j = 0; j < FB; ++j) DXRT_LOAD(acc[j], part + ((f0 + j) * taps + t) * kLanes);
        for (int64_t ho = 0; ho < g.ho; ++ho) {
          const float *row = p.plane(c) + (ho + kh) * p.wp + kw;
          const float *d0 = dy + f0 * plane + ho * g.wo;
          // Whole vectors, then the row's tail (lanes past it meet zeros of d).
          int64_t wo = 0;
          for (; wo + kLanes <= g.wo; wo += kLanes) {
            Vec xv;
            DXRT_LOAD(xv, row + wo);
            for (int j = 0; j < FB; ++j) {
              Vec d;
              DXRT_LOAD(d, d0 + j * plane + wo);
              acc[j] += d * xv;
            }
          }
          if (wo < g.wo) {
            Vec xv;
            DXRT_LOAD(xv, row + wo);
            for (int j = 0; j < FB; ++j) {
              Vec d;
              load_n(d, d0 + j * plane + wo, g.wo - wo);
              acc[j] += d * xv;
            }
          }
        }
        for (int j = 0; j < FB; ++j) std::memcpy(part + ((f0 + j) * taps + t) * kLanes, &acc[j], sizeof(Vec));
      }
}

template <int FB>
inline __attribute__((always_inline)) void grad_weight_impl(const ConvGeometry &g, const float *x, float *dw,
                                                            const float *dy) {
  const int64_t taps = g.c * g.kh * g.kw;
  // Floats, not Vecs: std::vector does not keep a vector type's 64-byte
  // alignment (GCC drops the attribute in template arguments).
  std::vector<float> part(size_t(g.f * taps * kLanes), 0.0f);
  Padded &p = padded_buffer();
  for (int64_t n = 0; n < g.n; ++n) {
    pad_image(g, x + n * g.c * g.h * g.w, p);
    const float *dyn = dy + n * g.f * g.ho * g.wo;
    int64_t f = 0;
    for (; f + FB <= g.f; f += FB) grad_weight_filters<FB>(g, p, dyn, f, part.data());
    for (; f < g.f; ++f) grad_weight_filters<1>(g, p, dyn, f, part.data());
  }
  // The lanes in a fixed order: the same sums every run.
  for (int64_t i = 0; i < g.f * taps; ++i) {
    float s = 0;
    for (int l = 0; l < kLanes; ++l) s += part[size_t(i * kLanes + l)];
    dw[i] = s;
  }
}

// fb: filters per weight-gradient pass, as the ISA's registers hold their
// accumulators (a Vec is one zmm, two ymm or four xmm registers).
#define DXRT_DIRECT_VARIANT(suffix, attr, fb)                                                                        \
  attr void forward_##suffix(const ConvGeometry &g, const float *x, const float *w, float *y) {                      \
    forward_impl(g, x, w, y);                                                                                         \
  }                                                                                                                   \
  attr void grad_weight_##suffix(const ConvGeometry &g, const float *x, float *dw, const float *dy) {               \
    grad_weight_impl<fb>(g, x, dw, dy);                                                                              \
  }

DXRT_DIRECT_VARIANT(avx512, __attribute__((target("avx512f"))), 8)
DXRT_DIRECT_VARIANT(avx2, __attribute__((target("avx2,fma"))), 4)
DXRT_DIRECT_VARIANT(baseline, , 2)
#undef DXRT_DIRECT_VARIANT

struct Variant {
  void (*forward)(const ConvGeometry &, const float *, const float *, float *);
  void (*grad_weight)(const ConvGeometry &, const float *, float *, const float *);
};

const Variant &variant() {
  static const Variant v = [] {
    if (__builtin_cpu_supports("avx512f")) return Variant{forward_avx512, grad_weight_avx512};
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Variant{forward_avx2, grad_weight_avx2};
    return Variant{forward_baseline, grad_weight_baseline};
  }();
  return v;
}

#undef DXRT_LOAD

} // namespace

bool conv2d_direct_applies(ConvDir dir, const ConvGeometry &g) {
  return dir != ConvDir::kGradInput && g.groups == 1 && g.sh == 1 && g.sw == 1 && g.dh == 1 && g.dw == 1 &&
         g.c * g.kh * g.kw <= kDirectMaxTaps && g.n > 0 && g.c > 0 && g.f > 0 && g.ho > 0 && g.wo > 0;
}

void conv2d_direct(ConvDir dir, const ConvGeometry &g, float *x, float *w, float *y) {
  if (dir == ConvDir::kForward) variant().forward(g, x, w, y);
  else variant().grad_weight(g, x, w, y);
}

} // namespace dxrt
