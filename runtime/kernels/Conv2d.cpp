// 2-D convolution and its two gradients as im2col + GEMM, one image and one
// group at a time:
//   forward      y[n, g]  = w[g] (Fg x Cg*KH*KW)  *  col(x[n, g]) (Cg*KH*KW x HO*WO)
//   grad_input   dx[n, g] = col2im( w[g]^T * dy[n, g] )
//   grad_weight  dw[g]    = sum_n dy[n, g] * col(x[n, g])^T
#include "dxrt/kernels.h"
#include "kernels/Blas.h"
#include "kernels/Im2col.h"
#include "kernels/Workspace.h"

#include <algorithm>

using namespace dxrt;

extern "C" void _mlir_ciface_dxrt_conv2d_forward(dxrt_memref4 *xd, dxrt_memref4 *wd, dxrt_memref4 *yd, int64_t sh,
                                                 int64_t sw, int64_t pt, int64_t pb, int64_t pl, int64_t pr,
                                                 int64_t dh, int64_t dw, int64_t groups) {
  const char *k = "dxrt_conv2d_forward";
  Tensor4 x = view(xd, k, "x"), w = view(wd, k, "w"), y = view(yd, k, "y");
  ConvGeometry g = conv_geometry(k, x, w, y, sh, sw, pt, pb, pl, pr, dh, dw, groups);
  const int64_t rows = g.col_rows(), cols = g.col_cols();
  float *col = g.pointwise() ? nullptr : workspace(size_t(rows * cols));
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      const float *xg = x.p + (n * g.c + gi * g.cg) * g.h * g.w;
      const float *a = xg;
      if (col) {
        im2col(g, xg, col);
        a = col;
      }
      float *yg = y.p + (n * g.f + gi * g.fg) * cols;
      sgemm(false, false, g.fg, cols, rows, 1.0f, w.p + gi * g.fg * rows, rows, a, cols, 0.0f, yg, cols);
    }
}

extern "C" void _mlir_ciface_dxrt_conv2d_grad_input(dxrt_memref4 *dyd, dxrt_memref4 *wd, dxrt_memref4 *dxd,
                                                    int64_t sh, int64_t sw, int64_t pt, int64_t pb, int64_t pl,
                                                    int64_t pr, int64_t dh, int64_t dw, int64_t groups) {
  const char *k = "dxrt_conv2d_grad_input";
  Tensor4 dy = view(dyd, k, "dy"), w = view(wd, k, "w"), dx = view(dxd, k, "dx");
  ConvGeometry g = conv_geometry(k, dx, w, dy, sh, sw, pt, pb, pl, pr, dh, dw, groups);
  const int64_t rows = g.col_rows(), cols = g.col_cols();
  float *col = g.pointwise() ? nullptr : workspace(size_t(rows * cols));
  if (col) std::fill(dx.p, dx.p + dx.numel(), 0.0f);
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      float *dxg = dx.p + (n * g.c + gi * g.cg) * g.h * g.w;
      const float *dyg = dy.p + (n * g.f + gi * g.fg) * cols;
      // dcol = w[g]^T dy[n, g]; a pointwise convolution writes dx directly.
      sgemm(true, false, rows, cols, g.fg, 1.0f, w.p + gi * g.fg * rows, rows, dyg, cols, 0.0f, col ? col : dxg, cols);
      if (col) col2im(g, col, dxg);
    }
}

extern "C" void _mlir_ciface_dxrt_conv2d_grad_weight(dxrt_memref4 *dyd, dxrt_memref4 *xd, dxrt_memref4 *dwd,
                                                     int64_t sh, int64_t sw, int64_t pt, int64_t pb, int64_t pl,
                                                     int64_t pr, int64_t dh, int64_t ddw, int64_t groups) {
  const char *k = "dxrt_conv2d_grad_weight";
  Tensor4 dy = view(dyd, k, "dy"), x = view(xd, k, "x"), dw = view(dwd, k, "dw");
  ConvGeometry g = conv_geometry(k, x, dw, dy, sh, sw, pt, pb, pl, pr, dh, ddw, groups);
  const int64_t rows = g.col_rows(), cols = g.col_cols();
  float *col = g.pointwise() ? nullptr : workspace(size_t(rows * cols));
  if (g.n == 0) std::fill(dw.p, dw.p + dw.numel(), 0.0f);
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      const float *xg = x.p + (n * g.c + gi * g.cg) * g.h * g.w;
      const float *b = xg;
      if (col) {
        im2col(g, xg, col);
        b = col;
      }
      const float *dyg = dy.p + (n * g.f + gi * g.fg) * cols;
      // dw[g] (+)= dy[n, g] col^T; the first image overwrites.
      sgemm(false, true, g.fg, rows, cols, 1.0f, dyg, cols, b, cols, n == 0 ? 0.0f : 1.0f, dw.p + gi * g.fg * rows,
            rows);
    }
}
