#include "kernels/Im2col.h"

#include <cstring>

namespace dxrt {

ConvGeometry conv_geometry(const char *k, const Tensor4 &x, const Tensor4 &w, const Tensor4 &y, int64_t sh,
                           int64_t sw, int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t dh, int64_t dw,
                           int64_t groups) {
  DXRT_KERNEL_CHECK(sh >= 1 && sw >= 1, k, str("stride (", sh, ", ", sw, ") must be positive"));
  DXRT_KERNEL_CHECK(dh >= 1 && dw >= 1, k, str("dilation (", dh, ", ", dw, ") must be positive"));
  DXRT_KERNEL_CHECK(pt >= 0 && pb >= 0 && pl >= 0 && pr >= 0, k,
                    str("padding (", pt, ", ", pb, ", ", pl, ", ", pr, ") must not be negative"));
  DXRT_KERNEL_CHECK(groups >= 1, k, str("groups = ", groups, " must be positive"));
  DXRT_KERNEL_CHECK(x.c % groups == 0 && w.n % groups == 0, k,
                    str("groups = ", groups, " must divide the ", x.c, " input channels and the ", w.n, " filters"));
  DXRT_KERNEL_CHECK(w.c * groups == x.c, k,
                    str("w is [", w.n, ", ", w.c, ", ", w.h, ", ", w.w, "] but x has ", x.c, " channels in ", groups,
                        " group(s): expected ", x.c / groups, " input channels per filter"));
  DXRT_KERNEL_CHECK(w.h >= 1 && w.w >= 1, k, str("kernel size ", w.h, "x", w.w, " must be positive"));
  int64_t ho = conv_out_size(x.h, pt, pb, w.h, sh, dh), wo = conv_out_size(x.w, pl, pr, w.w, sw, dw);
  DXRT_KERNEL_CHECK(y.n == x.n && y.c == w.n && y.h == ho && y.w == wo, k,
                    str("output is [", y.n, ", ", y.c, ", ", y.h, ", ", y.w, "], expected [", x.n, ", ", w.n, ", ", ho,
                        ", ", wo, "] for input [", x.n, ", ", x.c, ", ", x.h, ", ", x.w, "]"));
  return ConvGeometry{x.n, x.c, x.h, x.w, w.n, w.h, w.w, ho, wo, sh, sw, pt, pb, pl, pr, dh, dw,
                      groups, x.c / groups, w.n / groups};
}

ConvGeometry conv_geometry(const char *k, const Tensor5 &x, const Tensor5 &w, const Tensor5 &y, int64_t sd,
                           int64_t sh, int64_t sw, int64_t pf, int64_t pk, int64_t pt, int64_t pb, int64_t pl,
                           int64_t pr, int64_t dd, int64_t dh, int64_t dw, int64_t groups) {
  DXRT_KERNEL_CHECK(sd >= 1 && sh >= 1 && sw >= 1, k, str("stride (", sd, ", ", sh, ", ", sw, ") must be positive"));
  DXRT_KERNEL_CHECK(dd >= 1 && dh >= 1 && dw >= 1, k,
                    str("dilation (", dd, ", ", dh, ", ", dw, ") must be positive"));
  DXRT_KERNEL_CHECK(pf >= 0 && pk >= 0 && pt >= 0 && pb >= 0 && pl >= 0 && pr >= 0, k,
                    str("padding (", pf, ", ", pk, ", ", pt, ", ", pb, ", ", pl, ", ", pr, ") must not be negative"));
  DXRT_KERNEL_CHECK(groups >= 1, k, str("groups = ", groups, " must be positive"));
  DXRT_KERNEL_CHECK(x.c % groups == 0 && w.n % groups == 0, k,
                    str("groups = ", groups, " must divide the ", x.c, " input channels and the ", w.n, " filters"));
  DXRT_KERNEL_CHECK(w.c * groups == x.c, k,
                    str("w is [", w.n, ", ", w.c, ", ", w.d, ", ", w.h, ", ", w.w, "] but x has ", x.c,
                        " channels in ", groups, " group(s): expected ", x.c / groups, " input channels per filter"));
  DXRT_KERNEL_CHECK(w.d >= 1 && w.h >= 1 && w.w >= 1, k,
                    str("kernel size ", w.d, "x", w.h, "x", w.w, " must be positive"));
  int64_t od = conv_out_size(x.d, pf, pk, w.d, sd, dd), ho = conv_out_size(x.h, pt, pb, w.h, sh, dh),
          wo = conv_out_size(x.w, pl, pr, w.w, sw, dw);
  DXRT_KERNEL_CHECK(y.n == x.n && y.c == w.n && y.d == od && y.h == ho && y.w == wo, k,
                    str("output is [", y.n, ", ", y.c, ", ", y.d, ", ", y.h, ", ", y.w, "], expected [", x.n, ", ",
                        w.n, ", ", od, ", ", ho, ", ", wo, "] for input [", x.n, ", ", x.c, ", ", x.d, ", ", x.h,
                        ", ", x.w, "]"));
  ConvGeometry g{x.n, x.c, x.h, x.w, w.n, w.h, w.w, ho, wo, sh, sw, pt, pb, pl, pr, dh, dw,
                 groups, x.c / groups, w.n / groups};
  g.d = x.d, g.kd = w.d, g.od = od, g.sd = sd, g.pf = pf, g.pk = pk, g.dd = dd, g.spatial = 3;
  return g;
}

// Both walk the kernel's taps (c, kd, kh, kw), each a row of col, and in it
// the output positions (od, ho, wo); a tap's depth or row outside the input
// is padding (zeros in col, nothing to scatter). In 2-D the depth loops run
// once, with id = 0.
void im2col(const ConvGeometry &g, const float *x, float *col) {
  const int64_t plane = g.h * g.w, slab = g.ho * g.wo;
  for (int64_t c = 0; c < g.cg; ++c)
    for (int64_t kz = 0; kz < g.kd; ++kz)
      for (int64_t ki = 0; ki < g.kh; ++ki)
        for (int64_t kj = 0; kj < g.kw; ++kj) {
          float *row = col + (((c * g.kd + kz) * g.kh + ki) * g.kw + kj) * g.od * slab;
          for (int64_t oz = 0; oz < g.od; ++oz) {
            float *outz = row + oz * slab;
            int64_t iz = oz * g.sd - g.pf + kz * g.dd;
            if (iz < 0 || iz >= g.d) {
              std::memset(outz, 0, sizeof(float) * size_t(slab));
              continue;
            }
            const float *xz = x + (c * g.d + iz) * plane;
            for (int64_t oh = 0; oh < g.ho; ++oh) {
              float *out = outz + oh * g.wo;
              int64_t ih = oh * g.sh - g.pt + ki * g.dh;
              if (ih < 0 || ih >= g.h) {
                std::memset(out, 0, sizeof(float) * size_t(g.wo));
                continue;
              }
              const float *in = xz + ih * g.w;
              for (int64_t ow = 0; ow < g.wo; ++ow) {
                int64_t iw = ow * g.sw - g.pl + kj * g.dw;
                out[ow] = (iw >= 0 && iw < g.w) ? in[iw] : 0.0f;
              }
            }
          }
        }
}

void col2im(const ConvGeometry &g, const float *col, float *dx) {
  const int64_t plane = g.h * g.w, slab = g.ho * g.wo;
  for (int64_t c = 0; c < g.cg; ++c)
    for (int64_t kz = 0; kz < g.kd; ++kz)
      for (int64_t ki = 0; ki < g.kh; ++ki)
        for (int64_t kj = 0; kj < g.kw; ++kj) {
          const float *row = col + (((c * g.kd + kz) * g.kh + ki) * g.kw + kj) * g.od * slab;
          for (int64_t oz = 0; oz < g.od; ++oz) {
            int64_t iz = oz * g.sd - g.pf + kz * g.dd;
            if (iz < 0 || iz >= g.d) continue;
            const float *inz = row + oz * slab;
            float *dxz = dx + (c * g.d + iz) * plane;
            for (int64_t oh = 0; oh < g.ho; ++oh) {
              int64_t ih = oh * g.sh - g.pt + ki * g.dh;
              if (ih < 0 || ih >= g.h) continue;
              const float *in = inz + oh * g.wo;
              float *out = dxz + ih * g.w;
              for (int64_t ow = 0; ow < g.wo; ++ow) {
                int64_t iw = ow * g.sw - g.pl + kj * g.dw;
                if (iw >= 0 && iw < g.w) out[iw] += in[ow];
              }
            }
          }
        }
}

} // namespace dxrt
