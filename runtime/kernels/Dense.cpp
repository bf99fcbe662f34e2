// Dense (fully connected) layer: x [M, K], w [N, K] (PyTorch's layout),
// y [M, N]. Three GEMMs; the bias is generated code's business.
#include "dxrt/kernels.h"
#include "kernels/Blas.h"
#include "kernels/Descriptor.h"

using namespace dxrt;

extern "C" void _mlir_ciface_dxrt_dense_forward(dxrt_memref2 *xd, dxrt_memref2 *wd, dxrt_memref2 *yd) {
  const char *k = "dxrt_dense_forward";
  Mat x = view(xd, k, "x"), w = view(wd, k, "w"), y = view(yd, k, "y");
  DXRT_KERNEL_CHECK(x.cols == w.cols, k, str("x is [", x.rows, ", ", x.cols, "] but w is [", w.rows, ", ", w.cols, "]"));
  DXRT_KERNEL_CHECK(y.rows == x.rows && y.cols == w.rows, k,
                    str("y is [", y.rows, ", ", y.cols, "], expected [", x.rows, ", ", w.rows, "]"));
  // y = x w^T
  sgemm(false, true, x.rows, w.rows, x.cols, 1.0f, x.p, x.cols, w.p, w.cols, 0.0f, y.p, y.cols);
}

extern "C" void _mlir_ciface_dxrt_dense_grad_input(dxrt_memref2 *dyd, dxrt_memref2 *wd, dxrt_memref2 *dxd) {
  const char *k = "dxrt_dense_grad_input";
  Mat dy = view(dyd, k, "dy"), w = view(wd, k, "w"), dx = view(dxd, k, "dx");
  DXRT_KERNEL_CHECK(dy.cols == w.rows, k, str("dy is [", dy.rows, ", ", dy.cols, "] but w is [", w.rows, ", ", w.cols, "]"));
  DXRT_KERNEL_CHECK(dx.rows == dy.rows && dx.cols == w.cols, k,
                    str("dx is [", dx.rows, ", ", dx.cols, "], expected [", dy.rows, ", ", w.cols, "]"));
  // dx = dy w
  sgemm(false, false, dy.rows, w.cols, dy.cols, 1.0f, dy.p, dy.cols, w.p, w.cols, 0.0f, dx.p, dx.cols);
}

extern "C" void _mlir_ciface_dxrt_dense_grad_weight(dxrt_memref2 *dyd, dxrt_memref2 *xd, dxrt_memref2 *dwd) {
  const char *k = "dxrt_dense_grad_weight";
  Mat dy = view(dyd, k, "dy"), x = view(xd, k, "x"), dw = view(dwd, k, "dw");
  DXRT_KERNEL_CHECK(dy.rows == x.rows, k, str("dy has ", dy.rows, " rows but x has ", x.rows));
  DXRT_KERNEL_CHECK(dw.rows == dy.cols && dw.cols == x.cols, k,
                    str("dw is [", dw.rows, ", ", dw.cols, "], expected [", dy.cols, ", ", x.cols, "]"));
  // dw = dy^T x
  sgemm(true, false, dy.cols, x.cols, dy.rows, 1.0f, dy.p, dy.cols, x.p, x.cols, 0.0f, dw.p, dw.cols);
}
