// Convolution geometry and the im2col / col2im transforms that turn a 2-D or
// 3-D convolution into GEMMs (Caffe's scheme, with dilation and asymmetric
// padding; for 3-D its vol2col). One geometry serves both: a 2-D
// convolution is the 3-D one with depth 1 (d = kd = od = 1, sd = dd = 1, no
// depth padding), so every path (im2col, oneDNN) has one implementation.
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
  // The depth axis, last and with a 2-D convolution's values as defaults,
  // so that the 2-D fields above keep their order (code that lists them
  // builds a 2-D geometry as before). spatial: 2 (NCHW, the oneDNN
  // primitives of 4-D tensors) or 3 (NCDHW).
  int64_t d = 1, kd = 1, od = 1; // input depth, kernel depth, output depth
  int64_t sd = 1;                // stride
  int64_t pf = 0, pk = 0;        // padding: front, back
  int64_t dd = 1;                // dilation
  int spatial = 2;
  int64_t in_plane() const { return d * h * w; }    // one channel of the input
  int64_t out_plane() const { return od * ho * wo; } // one channel of the output
  int64_t taps() const { return kd * kh * kw; }
  int64_t col_rows() const { return cg * taps(); }
  int64_t col_cols() const { return out_plane(); }
  // A 1x1(x1) convolution with stride 1 and no padding needs no im2col.
  bool pointwise() const {
    return kd == 1 && kh == 1 && kw == 1 && sd == 1 && sh == 1 && sw == 1 && pf == 0 && pk == 0 && pt == 0 &&
           pb == 0 && pl == 0 && pr == 0;
  }
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
// The same for x [N, C, D, H, W], w [F, C/groups, KD, KH, KW] and
// y [N, F, DO, HO, WO]: a geometry with spatial = 3.
ConvGeometry conv_geometry(const char *kernel, const Tensor5 &x, const Tensor5 &w, const Tensor5 &y, int64_t sd,
                           int64_t sh, int64_t sw, int64_t pf, int64_t pk, int64_t pt, int64_t pb, int64_t pl,
                           int64_t pr, int64_t dd, int64_t dh, int64_t dw, int64_t groups);

// col [cg*kd*kh*kw, od*ho*wo] <- the windows of one group of one image,
// x [cg, d, h, w] (d = 1 in 2-D).
void im2col(const ConvGeometry &g, const float *x, float *col);
// dx [cg, d, h, w] += the windows in col, scattered back (dx must be zeroed first).
void col2im(const ConvGeometry &g, const float *col, float *dx);

} // namespace dxrt
