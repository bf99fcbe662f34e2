// Direct forward convolution for few input channels (a network's first
// layer: one grayscale or three RGB channels), straight on NCHW. oneDNN
// computes such a layer in its blocked layout and reorders the large output
// back to NCHW; with C * KH * KW <= 27 the reorder costs more than the
// arithmetic (microscopy's first layer, [64, 1, 64, 64] -> 16 channels: 3.8
// ms through oneDNN, 2.1 ms here). Here the output is written once.
//
// Each image's input planes are copied with their zero padding into a small
// buffer first, so every tap is an unmasked vector load at a fixed offset:
//   y[f][ho][wo] = sum over c, kh, kw of w[f][c][kh][kw] * xp[c][ho + kh][wo + kw]
// The vectors run along wo (16 floats), 8 filters at a time. One source is
// compiled for AVX-512, AVX2 and the baseline and chosen at run time (GCC
// vector extensions). The weight gradient stays with oneDNN: a direct one
// (tried) re-reads dy once per tap and lost to oneDNN's reorder + GEMM.
#include "kernels/Conv2d.h"

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

// The first n < kLanes lanes of v to p (a row's tail): a masked store
// where the ISA has one, else lane by lane (a copy of variable size would
// be a call to memcpy, as slow as the rest of the row).
struct TailAvx512 {
  __attribute__((target("avx512f"))) static inline void store(float *p, const Vec &v, int64_t n) {
    _mm512_mask_storeu_ps(p, __mmask16((1u << n) - 1), __m512(v));
  }
};
struct TailLanes {
  static inline __attribute__((always_inline)) void store(float *p, const Vec &v, int64_t n) {
    for (int64_t l = 0; l < n; ++l) p[l] = v[l];
  }
};

// Filters [f0, f0 + FB) of one image: FB accumulators per output vector, one
// input load per tap shared by them.
template <int FB, class Tail>
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
      float *out = y + (f0 * g.ho + ho) * g.wo + wo;
      if (wo + kLanes <= g.wo)
        for (int j = 0; j < FB; ++j) std::memcpy(out + j * g.ho * g.wo, &acc[j], sizeof(Vec));
      else
        for (int j = 0; j < FB; ++j) Tail::store(out + j * g.ho * g.wo, acc[j], g.wo - wo);
    }
}

template <class Tail>
inline __attribute__((always_inline)) void forward_impl(const ConvGeometry &g, const float *x, const float *w,
                                                        float *y) {
  Padded &p = padded_buffer();
  for (int64_t n = 0; n < g.n; ++n) {
    pad_image(g, x + n * g.c * g.h * g.w, p);
    float *yn = y + n * g.f * g.ho * g.wo;
    int64_t f = 0;
    for (; f + 8 <= g.f; f += 8) forward_filters<8, Tail>(g, p, w, yn, f);
    for (; f < g.f; ++f) forward_filters<1, Tail>(g, p, w, yn, f);
  }
}

__attribute__((target("avx512f"))) void forward_avx512(const ConvGeometry &g, const float *x, const float *w, float *y) {
  forward_impl<TailAvx512>(g, x, w, y);
}
__attribute__((target("avx2,fma"))) void forward_avx2(const ConvGeometry &g, const float *x, const float *w, float *y) {
  forward_impl<TailLanes>(g, x, w, y);
}
void forward_baseline(const ConvGeometry &g, const float *x, const float *w, float *y) {
  forward_impl<TailLanes>(g, x, w, y);
}

using Forward = void (*)(const ConvGeometry &, const float *, const float *, float *);

Forward variant() {
  static const Forward f = __builtin_cpu_supports("avx512f")                                       ? forward_avx512
                           : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? forward_avx2
                                                                                             : forward_baseline;
  return f;
}


#undef DXRT_LOAD

} // namespace

bool conv2d_direct_applies(ConvDir dir, const ConvGeometry &g) {
  return dir == ConvDir::kForward && g.groups == 1 && g.sh == 1 && g.sw == 1 && g.dh == 1 && g.dw == 1 &&
         g.c * g.kh * g.kw <= kDirectMaxTaps && g.n > 0 && g.c > 0 && g.f > 0 && g.ho > 0 && g.wo > 0;
}

bool conv2d_direct_isa(const char *isa, const ConvGeometry &g, const float *x, const float *w, float *y) {
  const std::string name = isa;
  if (name == "avx512f" && __builtin_cpu_supports("avx512f")) forward_avx512(g, x, w, y);
  else if (name == "avx2" && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) forward_avx2(g, x, w, y);
  else if (name == "baseline") forward_baseline(g, x, w, y);
  else return false;
  return true;
}

void conv2d_direct(ConvDir dir, const ConvGeometry &g, float *x, float *w, float *y) {
  DXRT_KERNEL_CHECK(dir == ConvDir::kForward, "conv2d_direct", "only the forward direction is direct");
  variant()(g, x, w, y);
}

} // namespace dxrt
