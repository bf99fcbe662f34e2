// Max and average pooling over NCHW, PyTorch's semantics in floor mode:
//  max: padding is -inf; a NaN in a window wins; the gradient goes to the
//       first maximal element of the window (row-major order).
//  avg: padding counts as zeros and the divisor is kh*kw (count_include_pad).
#include "dxrt/kernels.h"
#include "kernels/Descriptor.h"
#include "kernels/Shapes.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

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

// On activations, which of four values is the largest is a coin toss: the
// branches of argmax_window mispredict about half the time, and those two
// loops cost as much as the convolutions around them. The 2x2 loops below
// have no branch at all, so that the compiler vectorizes them (each is
// compiled for AVX-512, AVX2 and the baseline, chosen at load time by the
// CPU's features): `v > best ? v : best` is a max, NaNs are found by
// comparison, and the gradient's "first maximal element" comes from masks.
// Same values as the general loops (a zero gradient may keep its sign here).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define DXRT_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define DXRT_VECTOR_CLONES
#endif

inline float max_of(float best, float v) { return v > best ? v : best; }

// argmax_window's value for the window (a, b, c, d) in row-major order: the
// first NaN if there is one, else the maximum.
inline float window_max(float a, float b, float c, float d) {
  float m = max_of(max_of(max_of(a, b), c), d);
  float first_nan = a != a ? a : b != b ? b : c != c ? c : d;
  bool nan = (a != a) | (b != b) | (c != c) | (d != d);
  return nan ? first_nan : m;
}

DXRT_VECTOR_CLONES
void forward_2x2(const PoolGeometry &g, int64_t kind, const float *plane, float *out) {
  for (int64_t oh = 0; oh < g.ho; ++oh) {
    const float *__restrict r0 = plane + 2 * oh * g.w, *__restrict r1 = r0 + g.w;
    float *__restrict o = out + oh * g.wo;
    if (kind == kMax) {
      for (int64_t ow = 0; ow < g.wo; ++ow) o[ow] = window_max(r0[2 * ow], r0[2 * ow + 1], r1[2 * ow], r1[2 * ow + 1]);
    } else {
      // The general loop's order of summation.
      for (int64_t ow = 0; ow < g.wo; ++ow)
        o[ow] = (((r0[2 * ow] + r0[2 * ow + 1]) + r1[2 * ow]) + r1[2 * ow + 1]) * 0.25f;
    }
  }
}

// d where `keep` is all ones, +0 where it is 0.
inline float masked(float d, uint32_t keep) { return std::bit_cast<float>(std::bit_cast<uint32_t>(d) & keep); }

// Windows do not overlap, so each element of dx inside one is written once;
// those outside every window (the last row or column of an odd size) get 0.
DXRT_VECTOR_CLONES
void grad_2x2(const PoolGeometry &g, int64_t kind, const float *plane, const float *grad, float *out) {
  for (int64_t oh = 0; oh < g.ho; ++oh) {
    const float *__restrict r0 = plane + 2 * oh * g.w, *__restrict r1 = r0 + g.w;
    const float *__restrict d = grad + oh * g.wo;
    float *__restrict o0 = out + 2 * oh * g.w, *__restrict o1 = o0 + g.w;
    if (kind == kAvg) {
      for (int64_t ow = 0; ow < g.wo; ++ow) {
        float q = d[ow] * 0.25f;
        o0[2 * ow] = q;
        o0[2 * ow + 1] = q;
        o1[2 * ow] = q;
        o1[2 * ow + 1] = q;
      }
    } else {
      for (int64_t ow = 0; ow < g.wo; ++ow) {
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
    if (g.w > 2 * g.wo) {
      std::fill(o0 + 2 * g.wo, o0 + g.w, 0.0f);
      std::fill(o1 + 2 * g.wo, o1 + g.w, 0.0f);
    }
  }
  std::fill(out + 2 * g.ho * g.w, out + g.h * g.w, 0.0f);
}

} // namespace

extern "C" void _mlir_ciface_dxrt_pool_forward(dxrt_memref4 *xd, dxrt_memref4 *yd, int64_t kind, int64_t kh,
                                               int64_t kw, int64_t sh, int64_t sw, int64_t pt, int64_t pb, int64_t pl,
                                               int64_t pr) {
  const char *k = "dxrt_pool_forward";
  Tensor4 x = view(xd, k, "x"), y = view(yd, k, "y");
  PoolGeometry g = pool_geometry(k, x, y, kind, kh, kw, sh, sw, pt, pb, pl, pr);
  if (is_2x2(g)) {
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
