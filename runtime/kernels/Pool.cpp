// Max and average pooling over NCHW, PyTorch's semantics in floor mode:
//  max: padding is -inf; a NaN in a window wins; the gradient goes to the
//       first maximal element of the window (row-major order).
//  avg: padding counts as zeros and the divisor is kh*kw (count_include_pad).
#include "dxrt/kernels.h"
#include "kernels/Descriptor.h"
#include "kernels/Im2col.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace dxrt;

namespace {

enum PoolKind : int64_t { kMax = 0, kAvg = 1 };

struct PoolGeometry {
  int64_t planes, h, w, ho, wo, kh, kw, sh, sw, pt, pl;
};

PoolGeometry pool_geometry(const char *k, const Tensor4 &x, const Tensor4 &y, int64_t kind, int64_t kh, int64_t kw,
                           int64_t sh, int64_t sw, int64_t pt, int64_t pb, int64_t pl, int64_t pr) {
  DXRT_KERNEL_CHECK(kind == kMax || kind == kAvg, k, str("kind = ", kind, " is neither 0 (max) nor 1 (average)"));
  DXRT_KERNEL_CHECK(kh >= 1 && kw >= 1, k, str("window ", kh, "x", kw, " must be positive"));
  DXRT_KERNEL_CHECK(sh >= 1 && sw >= 1, k, str("stride (", sh, ", ", sw, ") must be positive"));
  DXRT_KERNEL_CHECK(pt >= 0 && pb >= 0 && pl >= 0 && pr >= 0, k,
                    str("padding (", pt, ", ", pb, ", ", pl, ", ", pr, ") must not be negative"));
  int64_t ho = conv_out_size(x.h, pt, pb, kh, sh, 1), wo = conv_out_size(x.w, pl, pr, kw, sw, 1);
  DXRT_KERNEL_CHECK(y.n == x.n && y.c == x.c && y.h == ho && y.w == wo, k,
                    str("output is [", y.n, ", ", y.c, ", ", y.h, ", ", y.w, "], expected [", x.n, ", ", x.c, ", ",
                        ho, ", ", wo, "] for input [", x.n, ", ", x.c, ", ", x.h, ", ", x.w, "]"));
  return {x.n * x.c, x.h, x.w, ho, wo, kh, kw, sh, sw, pt, pl};
}

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

// The common 2x2, stride-2, unpadded window (LeNet-style CNNs): the first
// maximal element of four, with the same NaN rule as argmax_window.
inline bool is_2x2(const PoolGeometry &g) {
  // Every window inside the plane: no bottom/right padding ('same' on an odd size pads there).
  return g.kh == 2 && g.kw == 2 && g.sh == 2 && g.sw == 2 && g.pt == 0 && g.pl == 0 && 2 * g.ho <= g.h &&
         2 * g.wo <= g.w;
}
inline int64_t argmax_2x2(const float *plane, int64_t w, int64_t oh, int64_t ow) {
  int64_t i0 = 2 * oh * w + 2 * ow;
  const int64_t idx[4] = {i0, i0 + 1, i0 + w, i0 + w + 1};
  int64_t best = idx[0];
  float bestv = plane[best];
  for (int k = 1; k < 4; ++k) {
    float v = plane[idx[k]];
    if (!std::isnan(bestv) && (v > bestv || std::isnan(v))) {
      best = idx[k];
      bestv = v;
    }
  }
  return best;
}

} // namespace

extern "C" void _mlir_ciface_dxrt_pool_forward(dxrt_memref4 *xd, dxrt_memref4 *yd, int64_t kind, int64_t kh,
                                               int64_t kw, int64_t sh, int64_t sw, int64_t pt, int64_t pb, int64_t pl,
                                               int64_t pr) {
  const char *k = "dxrt_pool_forward";
  Tensor4 x = view(xd, k, "x"), y = view(yd, k, "y");
  PoolGeometry g = pool_geometry(k, x, y, kind, kh, kw, sh, sw, pt, pb, pl, pr);
  const float inv = 1.0f / float(kh * kw);
  for (int64_t p = 0; p < g.planes; ++p) {
    const float *plane = x.p + p * g.h * g.w;
    float *out = y.p + p * g.ho * g.wo;
    for (int64_t oh = 0; oh < g.ho; ++oh)
      for (int64_t ow = 0; ow < g.wo; ++ow) {
        if (kind == kMax) {
          int64_t i = is_2x2(g) ? argmax_2x2(plane, g.w, oh, ow) : argmax_window(g, plane, oh, ow);
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
          int64_t i = is_2x2(g) ? argmax_2x2(plane, g.w, oh, ow) : argmax_window(g, plane, oh, ow);
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
