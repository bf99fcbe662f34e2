// Dense (fully connected) layer: x [M, K], w [N, K] (PyTorch's layout),
// y [M, N]. Three GEMMs; the bias is generated code's business.
#include "dxrt/kernels.h"
#include "kernels/Bf16Input.h"
#include "kernels/Blas.h"
#include "kernels/Descriptor.h"
#include "kernels/Precision.h"
#include "kernels/Shapes.h"

using namespace dxrt;

extern "C" void _mlir_ciface_dxrt_dense_forward(dxrt_memref2 *xd, dxrt_memref2 *wd, dxrt_memref2 *yd) {
  const char *k = "dxrt_dense_forward";
  Mat x = view(xd, k, "x"), w = view(wd, k, "w"), y = view(yd, k, "y");
  check_dense_forward(k, x, w, y);
  // y = x w^T
  sgemm(false, true, x.rows, w.rows, x.cols, 1.0f, x.p, x.cols, w.p, w.cols, 0.0f, y.p, y.cols);
}

extern "C" void _mlir_ciface_dxrt_dense_grad_input(dxrt_memref2 *dyd, dxrt_memref2 *wd, dxrt_memref2 *dxd) {
  const char *k = "dxrt_dense_grad_input";
  Mat dy = view(dyd, k, "dy"), w = view(wd, k, "w"), dx = view(dxd, k, "dx");
  check_dense_grad_input(k, dy, w, dx);
  // dx = dy w
  sgemm(false, false, dy.rows, w.cols, dy.cols, 1.0f, dy.p, dy.cols, w.p, w.cols, 0.0f, dx.p, dx.cols);
}

extern "C" void _mlir_ciface_dxrt_dense_grad_weight(dxrt_memref2 *dyd, dxrt_memref2 *xd, dxrt_memref2 *dwd) {
  const char *k = "dxrt_dense_grad_weight";
  Mat dy = view(dyd, k, "dy"), x = view(xd, k, "x"), dw = view(dwd, k, "dw");
  check_dense_grad_weight(k, dy, x, dw);
  // dw = dy^T x
  sgemm(true, false, dy.cols, x.cols, dy.rows, 1.0f, dy.p, dy.cols, x.p, x.cols, 0.0f, dw.p, dw.cols);
}

// x and/or dy in bf16 (Bf16Input.h): in bf16 precision the product reads
// them as they are; otherwise (or for an empty product) they are widened and
// the kernels above run.

namespace {

using Operand2 = ProductOperand<dxrt_memref2>;

const uint16_t *bits(const Operand2 &o, const Mat &m) {
  return o.bf16 ? reinterpret_cast<const uint16_t *>(m.p) : nullptr;
}

void grad_input_bf16(const char *k, const Operand2 &dyo, dxrt_memref2 *wd, dxrt_memref2 *dxd) {
  Mat dy = view(&dyo.d, k, "dy"), w = view(wd, k, "w"), dx = view(dxd, k, "dx");
  check_dense_grad_input(k, dy, w, dx);
  if (matmul_precision() == Precision::kBf16 && dy.rows > 0 && w.cols > 0 && dy.cols > 0) {
    gemm_bf16(false, false, dy.rows, w.cols, dy.cols, 1.0f, nullptr, dy.cols, w.p, w.cols, 0.0f, dx.p, dx.cols,
              bits(dyo, dy), nullptr);
    return;
  }
  dxrt_memref2 dyw = dyo.fp32(kSlotWideDy);
  _mlir_ciface_dxrt_dense_grad_input(&dyw, wd, dxd);
}

void grad_weight_bf16(const char *k, const Operand2 &dyo, const Operand2 &xo, dxrt_memref2 *dwd) {
  Mat dy = view(&dyo.d, k, "dy"), x = view(&xo.d, k, "x"), dw = view(dwd, k, "dw");
  check_dense_grad_weight(k, dy, x, dw);
  if (matmul_precision() == Precision::kBf16 && dy.cols > 0 && x.cols > 0 && dy.rows > 0) {
    gemm_bf16(true, false, dy.cols, x.cols, dy.rows, 1.0f, dyo.bf16 ? nullptr : dy.p, dy.cols, xo.bf16 ? nullptr : x.p,
              x.cols, 0.0f, dw.p, dw.cols, bits(dyo, dy), bits(xo, x));
    return;
  }
  dxrt_memref2 dyw = dyo.fp32(kSlotWideDy), xw = xo.fp32(kSlotWideX);
  _mlir_ciface_dxrt_dense_grad_weight(&dyw, &xw, dwd);
}

} // namespace

extern "C" void _mlir_ciface_dxrt_dense_forward_bf16x(dxrt_memref2_bf16 *xd, dxrt_memref2 *wd, dxrt_memref2 *yd) {
  const char *k = "dxrt_dense_forward_bf16x";
  dxrt_memref2 xa = bf16_alias<dxrt_memref2>(xd, k, "x");
  Mat x = view(&xa, k, "x"), w = view(wd, k, "w"), y = view(yd, k, "y");
  check_dense_forward(k, x, w, y);
  if (matmul_precision() == Precision::kBf16 && x.rows > 0 && w.rows > 0 && x.cols > 0) {
    gemm_bf16(false, true, x.rows, w.rows, x.cols, 1.0f, nullptr, x.cols, w.p, w.cols, 0.0f, y.p, y.cols,
              reinterpret_cast<const uint16_t *>(x.p), nullptr);
    return;
  }
  dxrt_memref2 wide = bf16_widened(xa);
  _mlir_ciface_dxrt_dense_forward(&wide, wd, yd);
}

extern "C" void _mlir_ciface_dxrt_dense_grad_input_bf16dy(dxrt_memref2_bf16 *dyd, dxrt_memref2 *wd, dxrt_memref2 *dxd) {
  const char *k = "dxrt_dense_grad_input_bf16dy";
  grad_input_bf16(k, bf16_operand<dxrt_memref2>(dyd, k, "dy"), wd, dxd);
}

extern "C" void _mlir_ciface_dxrt_dense_grad_weight_bf16x(dxrt_memref2 *dyd, dxrt_memref2_bf16 *xd,
                                                          dxrt_memref2 *dwd) {
  const char *k = "dxrt_dense_grad_weight_bf16x";
  grad_weight_bf16(k, fp32_operand(dyd, k, "dy"), bf16_operand<dxrt_memref2>(xd, k, "x"), dwd);
}

extern "C" void _mlir_ciface_dxrt_dense_grad_weight_bf16dy(dxrt_memref2_bf16 *dyd, dxrt_memref2 *xd,
                                                           dxrt_memref2 *dwd) {
  const char *k = "dxrt_dense_grad_weight_bf16dy";
  grad_weight_bf16(k, bf16_operand<dxrt_memref2>(dyd, k, "dy"), fp32_operand(xd, k, "x"), dwd);
}

extern "C" void _mlir_ciface_dxrt_dense_grad_weight_bf16xdy(dxrt_memref2_bf16 *dyd, dxrt_memref2_bf16 *xd,
                                                            dxrt_memref2 *dwd) {
  const char *k = "dxrt_dense_grad_weight_bf16xdy";
  grad_weight_bf16(k, bf16_operand<dxrt_memref2>(dyd, k, "dy"), bf16_operand<dxrt_memref2>(xd, k, "x"), dwd);
}
