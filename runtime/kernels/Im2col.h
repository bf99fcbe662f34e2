// Convolution geometry and the im2col / col2im transforms that turn a 2-D
// convolution into GEMMs (Caffe's scheme, with dilation and asymmetric
// padding).
#pragma once

#include "kernels/Descriptor.h"

#include <cstdint>

namespace dxrt {

struct ConvGeometry {
  int64_t n, c, h, w;       // input
  int64_t f, kh, kw;        // filters and kernel size
  int64_t ho, wo;           // output
  int64_t sh, sw;           // stride
  int64_t pt, pb, pl, pr;   // padding: top, bottom, left, right
  int64_t dh, dw;           // dilation
  int64_t groups, cg, fg;   // groups, input channels and filters per group
  int64_t col_rows() const { return cg * kh * kw; }
  int64_t col_cols() const { return ho * wo; }
  // A 1x1 convolution with stride 1 and no padding needs no im2col.
  bool pointwise() const { return kh == 1 && kw == 1 && sh == 1 && sw == 1 && pt == 0 && pb == 0 && pl == 0 && pr == 0; }
};

// Output size of a convolution or pooling window along one axis (floor mode);
// 0 when the padded input is smaller than the (dilated) window.
inline int64_t conv_out_size(int64_t in, int64_t pad_lo, int64_t pad_hi, int64_t k, int64_t stride, int64_t dil) {
  int64_t span = dil * (k - 1) + 1, padded = in + pad_lo + pad_hi;
  return padded < span ? 0 : (padded - span) / stride + 1;
}

// Checks x [N, C, H, W], w [F, C/groups, KH, KW] and y [N, F, HO, WO] against
// each other and the attributes; aborts naming `kernel` on a mismatch.
ConvGeometry conv_geometry(const char *kernel, const Tensor4 &x, const Tensor4 &w, const Tensor4 &y, int64_t sh,
                           int64_t sw, int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t dh, int64_t dw,
                           int64_t groups);

// col [cg*kh*kw, ho*wo] <- the windows of one group of one image, x [cg, h, w].
void im2col(const ConvGeometry &g, const float *x, float *col);
// dx [cg, h, w] += the windows in col, scattered back (dx must be zeroed first).
void col2im(const ConvGeometry &g, const float *col, float *dx);

} // namespace dxrt
