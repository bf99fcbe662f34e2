// Bilinear and trilinear upsampling and their gradients (nearest is
// generated code). Each output plane, row and column reads two input planes,
// rows and columns with weights that depend only on the output index, so they
// are computed once per plane/row/column.
#include "dxrt/kernels.h"
#include "kernels/Descriptor.h"
#include "kernels/Shapes.h"

#include <algorithm>

using namespace dxrt;

namespace {

// Where output index o of `out` samples an input axis of `in` elements at
// scale s: the two neighbours and the weight of the second (PyTorch's
// area_pixel_compute_source_index with align_corners=False).
struct Tap {
  int64_t i0, i1;
  float w1;
};

Tap tap(int64_t o, int64_t in, int64_t s) {
  float src = std::max((float(o) + 0.5f) / float(s) - 0.5f, 0.0f);
  int64_t i0 = std::min(int64_t(src), in - 1);
  int64_t i1 = i0 < in - 1 ? i0 + 1 : i0;
  return {i0, i1, src - float(i0)};
}

} // namespace

extern "C" void _mlir_ciface_dxrt_upsample_bilinear_forward(dxrt_memref4 *xd, dxrt_memref4 *yd, int64_t sh,
                                                            int64_t sw) {
  const char *k = "dxrt_upsample_bilinear_forward";
  Tensor4 x = view(xd, k, "x"), y = view(yd, k, "y");
  check_upsample(k, x, y, sh, sw);
  for (int64_t p = 0; p < x.n * x.c; ++p) {
    const float *in = x.p + p * x.h * x.w;
    float *out = y.p + p * y.h * y.w;
    for (int64_t oh = 0; oh < y.h; ++oh) {
      const Tap r = tap(oh, x.h, sh);
      const float *row0 = in + r.i0 * x.w, *row1 = in + r.i1 * x.w;
      for (int64_t ow = 0; ow < y.w; ++ow) {
        const Tap c = tap(ow, x.w, sw);
        const float top = (1.0f - c.w1) * row0[c.i0] + c.w1 * row0[c.i1];
        const float bottom = (1.0f - c.w1) * row1[c.i0] + c.w1 * row1[c.i1];
        out[oh * y.w + ow] = (1.0f - r.w1) * top + r.w1 * bottom;
      }
    }
  }
}

extern "C" void _mlir_ciface_dxrt_upsample_bilinear_grad(dxrt_memref4 *dyd, dxrt_memref4 *dxd, int64_t sh,
                                                         int64_t sw) {
  const char *k = "dxrt_upsample_bilinear_grad";
  Tensor4 dy = view(dyd, k, "dy"), dx = view(dxd, k, "dx");
  check_upsample(k, dx, dy, sh, sw);
  std::fill(dx.p, dx.p + dx.numel(), 0.0f);
  for (int64_t p = 0; p < dx.n * dx.c; ++p) {
    const float *g = dy.p + p * dy.h * dy.w;
    float *out = dx.p + p * dx.h * dx.w;
    for (int64_t oh = 0; oh < dy.h; ++oh) {
      const Tap r = tap(oh, dx.h, sh);
      float *row0 = out + r.i0 * dx.w, *row1 = out + r.i1 * dx.w;
      for (int64_t ow = 0; ow < dy.w; ++ow) {
        const Tap c = tap(ow, dx.w, sw);
        const float v = g[oh * dy.w + ow], top = (1.0f - r.w1) * v, bottom = r.w1 * v;
        row0[c.i0] += (1.0f - c.w1) * top;
        row0[c.i1] += c.w1 * top;
        row1[c.i0] += (1.0f - c.w1) * bottom;
        row1[c.i1] += c.w1 * bottom;
      }
    }
  }
}

// Trilinear: the bilinear kernels with a depth axis in front. Per output, the
// two depth planes are each interpolated as bilinear does (columns, then
// rows), then blended by the depth weight; the gradient scatters in that
// tap order (plane, row, column), which the device twin's gather follows.
extern "C" void _mlir_ciface_dxrt_upsample_trilinear_forward(dxrt_memref5 *xd, dxrt_memref5 *yd, int64_t sd,
                                                             int64_t sh, int64_t sw) {
  const char *k = "dxrt_upsample_trilinear_forward";
  Tensor5 x = view(xd, k, "x"), y = view(yd, k, "y");
  check_upsample(k, x, y, sd, sh, sw);
  const int64_t xplane = x.h * x.w, yplane = y.h * y.w;
  for (int64_t p = 0; p < x.n * x.c; ++p) {
    const float *in = x.p + p * x.d * xplane;
    float *out = y.p + p * y.d * yplane;
    for (int64_t od = 0; od < y.d; ++od) {
      const Tap t = tap(od, x.d, sd);
      const float *plane0 = in + t.i0 * xplane, *plane1 = in + t.i1 * xplane;
      for (int64_t oh = 0; oh < y.h; ++oh) {
        const Tap r = tap(oh, x.h, sh);
        const float *row00 = plane0 + r.i0 * x.w, *row01 = plane0 + r.i1 * x.w;
        const float *row10 = plane1 + r.i0 * x.w, *row11 = plane1 + r.i1 * x.w;
        for (int64_t ow = 0; ow < y.w; ++ow) {
          const Tap c = tap(ow, x.w, sw);
          const float top0 = (1.0f - c.w1) * row00[c.i0] + c.w1 * row00[c.i1];
          const float bottom0 = (1.0f - c.w1) * row01[c.i0] + c.w1 * row01[c.i1];
          const float top1 = (1.0f - c.w1) * row10[c.i0] + c.w1 * row10[c.i1];
          const float bottom1 = (1.0f - c.w1) * row11[c.i0] + c.w1 * row11[c.i1];
          const float front = (1.0f - r.w1) * top0 + r.w1 * bottom0;
          const float back = (1.0f - r.w1) * top1 + r.w1 * bottom1;
          out[(od * y.h + oh) * y.w + ow] = (1.0f - t.w1) * front + t.w1 * back;
        }
      }
    }
  }
}

extern "C" void _mlir_ciface_dxrt_upsample_trilinear_grad(dxrt_memref5 *dyd, dxrt_memref5 *dxd, int64_t sd,
                                                          int64_t sh, int64_t sw) {
  const char *k = "dxrt_upsample_trilinear_grad";
  Tensor5 dy = view(dyd, k, "dy"), dx = view(dxd, k, "dx");
  check_upsample(k, dx, dy, sd, sh, sw);
  std::fill(dx.p, dx.p + dx.numel(), 0.0f);
  const int64_t xplane = dx.h * dx.w, yplane = dy.h * dy.w;
  for (int64_t p = 0; p < dx.n * dx.c; ++p) {
    const float *g = dy.p + p * dy.d * yplane;
    float *out = dx.p + p * dx.d * xplane;
    for (int64_t od = 0; od < dy.d; ++od) {
      const Tap t = tap(od, dx.d, sd);
      float *plane[2] = {out + t.i0 * xplane, out + t.i1 * xplane};
      for (int64_t oh = 0; oh < dy.h; ++oh) {
        const Tap r = tap(oh, dx.h, sh);
        for (int64_t ow = 0; ow < dy.w; ++ow) {
          const Tap c = tap(ow, dx.w, sw);
          const float v = g[(od * dy.h + oh) * dy.w + ow];
          const float depth[2] = {(1.0f - t.w1) * v, t.w1 * v};
          for (int a = 0; a < 2; ++a) {
            float *row0 = plane[a] + r.i0 * dx.w, *row1 = plane[a] + r.i1 * dx.w;
            const float top = (1.0f - r.w1) * depth[a], bottom = r.w1 * depth[a];
            row0[c.i0] += (1.0f - c.w1) * top;
            row0[c.i1] += c.w1 * top;
            row1[c.i0] += (1.0f - c.w1) * bottom;
            row1[c.i1] += c.w1 * bottom;
          }
        }
      }
    }
  }
}
