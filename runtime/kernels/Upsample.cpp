// Bilinear upsampling and its gradient (nearest is generated code). Each
// output row and column reads two input rows and columns with weights that
// depend only on the output index, so they are computed once per row/column.
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
