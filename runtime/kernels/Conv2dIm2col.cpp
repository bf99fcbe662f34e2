// 2-D and 3-D convolution and their two gradients as im2col (vol2col) +
// GEMM, one image and one group at a time (in 3-D, KH*KW below is
// KD*KH*KW and HO*WO is DO*HO*WO):
//   forward      y[n, g]  = w[g] (Fg x Cg*KH*KW)  *  col(x[n, g]) (Cg*KH*KW x HO*WO)
//   grad_input   dx[n, g] = col2im( w[g]^T * dy[n, g] )
//   grad_weight  dw[g]    = sum_n dy[n, g] * col(x[n, g])^T
// The fallback of the oneDNN path, and the whole path with DXRT_CONV=im2col.
#include "kernels/Blas.h"
#include "kernels/Conv2d.h"
#include "kernels/Workspace.h"

#include <algorithm>

namespace dxrt {

namespace {

void forward(const ConvGeometry &g, const float *x, const float *w, float *y) {
  const int64_t rows = g.col_rows(), cols = g.col_cols();
  float *col = g.pointwise() ? nullptr : workspace(size_t(rows * cols), kSlotColumns);
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      const float *xg = x + (n * g.c + gi * g.cg) * g.in_plane();
      const float *a = xg;
      if (col) {
        im2col(g, xg, col);
        a = col;
      }
      float *yg = y + (n * g.f + gi * g.fg) * cols;
      sgemm(false, false, g.fg, cols, rows, 1.0f, w + gi * g.fg * rows, rows, a, cols, 0.0f, yg, cols);
    }
}

void grad_input(const ConvGeometry &g, float *dx, const float *w, const float *dy) {
  const int64_t rows = g.col_rows(), cols = g.col_cols();
  float *col = g.pointwise() ? nullptr : workspace(size_t(rows * cols), kSlotColumns);
  if (col) std::fill(dx, dx + g.n * g.c * g.in_plane(), 0.0f);
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      float *dxg = dx + (n * g.c + gi * g.cg) * g.in_plane();
      const float *dyg = dy + (n * g.f + gi * g.fg) * cols;
      // dcol = w[g]^T dy[n, g]; a pointwise convolution writes dx directly.
      sgemm(true, false, rows, cols, g.fg, 1.0f, w + gi * g.fg * rows, rows, dyg, cols, 0.0f, col ? col : dxg, cols);
      if (col) col2im(g, col, dxg);
    }
}

void grad_weight(const ConvGeometry &g, const float *x, float *dw, const float *dy) {
  const int64_t rows = g.col_rows(), cols = g.col_cols();
  float *col = g.pointwise() ? nullptr : workspace(size_t(rows * cols), kSlotColumns);
  if (g.n == 0) std::fill(dw, dw + g.f * rows, 0.0f);
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t gi = 0; gi < g.groups; ++gi) {
      const float *xg = x + (n * g.c + gi * g.cg) * g.in_plane();
      const float *b = xg;
      if (col) {
        im2col(g, xg, col);
        b = col;
      }
      const float *dyg = dy + (n * g.f + gi * g.fg) * cols;
      // dw[g] (+)= dy[n, g] col^T; the first image overwrites.
      sgemm(false, true, g.fg, rows, cols, 1.0f, dyg, cols, b, cols, n == 0 ? 0.0f : 1.0f, dw + gi * g.fg * rows,
            rows);
    }
}

} // namespace

void conv2d_im2col(ConvDir dir, const ConvGeometry &g, float *x, float *w, float *y) {
  switch (dir) {
  case ConvDir::kForward: forward(g, x, w, y); break;
  case ConvDir::kGradInput: grad_input(g, x, w, y); break;
  case ConvDir::kGradWeight: grad_weight(g, x, w, y); break;
  }
}

} // namespace dxrt
