// The dxrt_conv2d_* and dxrt_conv3d_* kernels: check the descriptors, then
// run the direct kernel for few input channels (unless DXRT_CONV_DIRECT=0;
// 2-D only), else oneDNN's primitive for the geometry, or im2col + GEMM
// where oneDNN has none (or everywhere with DXRT_CONV=im2col). See Conv2d.h.
#include "dxrt/kernels.h"
#include "kernels/Conv2d.h"
#include "kernels/Bf16Input.h"
#include "kernels/Precision.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

namespace dxrt {

namespace {

// -1 until the first call reads DXRT_CONV. Atomic: the inference library may
// make its first convolution on several threads at once.
std::atomic<int> g_backend{-1};

ConvBackend backend_from_env() {
  const char *v = std::getenv("DXRT_CONV");
  if (!v || !*v || std::strcmp(v, "onednn") == 0) return ConvBackend::kOnednn;
  if (std::strcmp(v, "im2col") == 0) return ConvBackend::kIm2col;
  throw Error(str("DXRT_CONV=", v, " names no convolution backend"),
              "set DXRT_CONV to onednn (the default) or im2col, or unset it", __FILE__, __LINE__);
}

// -1 until the first call reads DXRT_CONV_DIRECT (0 turns the direct kernel off).
std::atomic<int> g_direct{-1};

bool direct_enabled() {
  int d = g_direct.load(std::memory_order_relaxed);
  if (d < 0) {
    const char *v = std::getenv("DXRT_CONV_DIRECT");
    d = !(v && std::strcmp(v, "0") == 0);
    g_direct.store(d, std::memory_order_relaxed);
  }
  return d != 0;
}

bool direct(ConvDir dir, const ConvGeometry &g) {
  return conv_backend() == ConvBackend::kOnednn && direct_enabled() && conv2d_direct_applies(dir, g);
}

} // namespace

void conv2d_run(ConvDir dir, const ConvGeometry &g, float *x, float *w, float *y) {
  if (direct(dir, g)) {
    conv2d_direct(dir, g, x, w, y);
    return;
  }
  if (conv2d_onednn_applies(g) && conv2d_onednn(dir, g, x, w, y)) return;
  conv2d_im2col(dir, g, x, w, y);
}

void conv2d_backward_run(const ConvGeometry &g, float *x, float *w, float *dy, float *dx, float *dw) {
  // Both gradients from one dy reordered once, unless the weight gradient
  // is direct (then each is what its own kernel gives).
  if (conv2d_onednn_applies(g) && !direct(ConvDir::kGradWeight, g) && conv2d_backward_onednn(g, x, w, dy, dx, dw))
    return;
  conv2d_run(ConvDir::kGradInput, g, dx, w, dy);
  conv2d_run(ConvDir::kGradWeight, g, x, dw, dy);
}

void conv2d_forward_grad_weight_run(const ConvGeometry &g, float *x, float *w, float *dy, float *y, float *dw) {
  // x reordered once, unless either direction is direct (then each is what
  // its own kernel gives).
  if (conv2d_onednn_applies(g) && !direct(ConvDir::kForward, g) && !direct(ConvDir::kGradWeight, g) &&
      conv2d_forward_grad_weight_onednn(g, x, w, dy, y, dw))
    return;
  conv2d_run(ConvDir::kForward, g, x, w, y);
  conv2d_run(ConvDir::kGradWeight, g, x, dw, dy);
}

bool conv2d_onednn_reads_bf16(ConvDir dir, const ConvGeometry &g, int blocked) {
  return matmul_precision() == Precision::kBf16 && conv2d_onednn_applies(g) && (blocked != 0 || !direct(dir, g));
}

bool conv2d_onednn_applies(const ConvGeometry &g) {
  // oneDNN rejects empty tensors; the GEMM path handles them (dw = 0 for an empty batch).
  bool empty = g.n == 0 || g.c == 0 || g.d == 0 || g.h == 0 || g.w == 0 || g.f == 0 || g.od == 0 || g.ho == 0 ||
               g.wo == 0;
  return !empty && conv_backend() == ConvBackend::kOnednn;
}

ConvBackend conv_backend() {
  int b = g_backend.load(std::memory_order_relaxed);
  if (b < 0) {
    b = int(backend_from_env());
    g_backend.store(b, std::memory_order_relaxed);
  }
  return ConvBackend(b);
}

void set_conv_backend(ConvBackend backend) { g_backend = int(backend); }

void set_conv_direct(bool on) { g_direct = int(on); }

} // namespace dxrt

using namespace dxrt;

extern "C" void _mlir_ciface_dxrt_conv2d_forward(dxrt_memref4 *xd, dxrt_memref4 *wd, dxrt_memref4 *yd, int64_t sh,
                                                 int64_t sw, int64_t pt, int64_t pb, int64_t pl, int64_t pr,
                                                 int64_t dh, int64_t dw, int64_t groups) {
  const char *k = "dxrt_conv2d_forward";
  Tensor4 x = view(xd, k, "x"), w = view(wd, k, "w"), y = view(yd, k, "y");
  ConvGeometry g = conv_geometry(k, x, w, y, sh, sw, pt, pb, pl, pr, dh, dw, groups);
  conv2d_run(ConvDir::kForward, g, x.p, w.p, y.p);
}

extern "C" void _mlir_ciface_dxrt_conv2d_grad_input(dxrt_memref4 *dyd, dxrt_memref4 *wd, dxrt_memref4 *dxd,
                                                    int64_t sh, int64_t sw, int64_t pt, int64_t pb, int64_t pl,
                                                    int64_t pr, int64_t dh, int64_t dw, int64_t groups) {
  const char *k = "dxrt_conv2d_grad_input";
  Tensor4 dy = view(dyd, k, "dy"), w = view(wd, k, "w"), dx = view(dxd, k, "dx");
  ConvGeometry g = conv_geometry(k, dx, w, dy, sh, sw, pt, pb, pl, pr, dh, dw, groups);
  conv2d_run(ConvDir::kGradInput, g, dx.p, w.p, dy.p);
}

extern "C" void _mlir_ciface_dxrt_conv2d_grad_weight(dxrt_memref4 *dyd, dxrt_memref4 *xd, dxrt_memref4 *dwd,
                                                     int64_t sh, int64_t sw, int64_t pt, int64_t pb, int64_t pl,
                                                     int64_t pr, int64_t dh, int64_t ddw, int64_t groups) {
  const char *k = "dxrt_conv2d_grad_weight";
  Tensor4 dy = view(dyd, k, "dy"), x = view(xd, k, "x"), dw = view(dwd, k, "dw");
  ConvGeometry g = conv_geometry(k, x, dw, dy, sh, sw, pt, pb, pl, pr, dh, ddw, groups);
  conv2d_run(ConvDir::kGradWeight, g, x.p, dw.p, dy.p);
}

extern "C" void _mlir_ciface_dxrt_conv2d_backward(dxrt_memref4 *dyd, dxrt_memref4 *xd, dxrt_memref4 *wd,
                                                  dxrt_memref4 *dxd, dxrt_memref4 *dwd, int64_t sh, int64_t sw,
                                                  int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t dh,
                                                  int64_t ddw, int64_t groups) {
  const char *k = "dxrt_conv2d_backward";
  Tensor4 dy = view(dyd, k, "dy"), x = view(xd, k, "x"), w = view(wd, k, "w"), dx = view(dxd, k, "dx"),
          dw = view(dwd, k, "dw");
  ConvGeometry g = conv_geometry(k, x, w, dy, sh, sw, pt, pb, pl, pr, dh, ddw, groups);
  DXRT_KERNEL_CHECK(same_shape(dx, x), k, str("dx is ", shape(dx), " but x is ", shape(x)));
  DXRT_KERNEL_CHECK(same_shape(dw, w), k, str("dw is ", shape(dw), " but w is ", shape(w)));
  conv2d_backward_run(g, x.p, w.p, dy.p, dx.p, dw.p);
}

extern "C" void _mlir_ciface_dxrt_conv2d_forward_grad_weight(dxrt_memref4 *xd, dxrt_memref4 *wd, dxrt_memref4 *dyd,
                                                             dxrt_memref4 *yd, dxrt_memref4 *dwd, int64_t sh,
                                                             int64_t sw, int64_t pt, int64_t pb, int64_t pl,
                                                             int64_t pr, int64_t dh, int64_t ddw, int64_t groups) {
  const char *k = "dxrt_conv2d_forward_grad_weight";
  Tensor4 x = view(xd, k, "x"), w = view(wd, k, "w"), dy = view(dyd, k, "dy"), y = view(yd, k, "y"),
          dw = view(dwd, k, "dw");
  ConvGeometry g = conv_geometry(k, x, w, y, sh, sw, pt, pb, pl, pr, dh, ddw, groups);
  DXRT_KERNEL_CHECK(same_shape(dy, y), k, str("dy is ", shape(dy), " but y is ", shape(y)));
  DXRT_KERNEL_CHECK(same_shape(dw, w), k, str("dw is ", shape(dw), " but w is ", shape(w)));
  conv2d_forward_grad_weight_run(g, x.p, w.p, dy.p, y.p, dw.p);
}

// ---- x and/or dy in bf16 (Bf16Input.h): oneDNN reads them as they are
// where it runs the directions in bf16 precision; elsewhere they are widened
// and the kernels above run ----

namespace {

using Operand4 = ProductOperand<dxrt_memref4>;

void forward_bf16(const char *k, const Operand4 &xo, dxrt_memref4 *wd, dxrt_memref4 *yd, const ConvArgs &a) {
  Tensor4 x = view(&xo.d, k, "x"), w = view(wd, k, "w"), y = view(yd, k, "y");
  ConvGeometry g = conv_geometry(k, x, w, y, a);
  if (conv2d_onednn_reads_bf16(ConvDir::kForward, g, 0) &&
      conv2d_onednn(ConvDir::kForward, g, x.p, w.p, y.p, kXSideBf16))
    return;
  dxrt_memref4 xw = xo.fp32(kSlotWideX);
  _mlir_ciface_dxrt_conv2d_forward(&xw, wd, yd, a.sh, a.sw, a.pt, a.pb, a.pl, a.pr, a.dh, a.dw, a.groups);
}

void grad_input_bf16(const char *k, const Operand4 &dyo, dxrt_memref4 *wd, dxrt_memref4 *dxd, const ConvArgs &a) {
  Tensor4 dy = view(&dyo.d, k, "dy"), w = view(wd, k, "w"), dx = view(dxd, k, "dx");
  ConvGeometry g = conv_geometry(k, dx, w, dy, a);
  if (conv2d_onednn_reads_bf16(ConvDir::kGradInput, g, 0) &&
      conv2d_onednn(ConvDir::kGradInput, g, dx.p, w.p, dy.p, kYSideBf16))
    return;
  dxrt_memref4 dyw = dyo.fp32(kSlotWideDy);
  _mlir_ciface_dxrt_conv2d_grad_input(&dyw, wd, dxd, a.sh, a.sw, a.pt, a.pb, a.pl, a.pr, a.dh, a.dw, a.groups);
}

void grad_weight_bf16(const char *k, const Operand4 &dyo, const Operand4 &xo, dxrt_memref4 *dwd, const ConvArgs &a) {
  Tensor4 dy = view(&dyo.d, k, "dy"), x = view(&xo.d, k, "x"), dw = view(dwd, k, "dw");
  ConvGeometry g = conv_geometry(k, x, dw, dy, a);
  if (conv2d_onednn_reads_bf16(ConvDir::kGradWeight, g, 0) &&
      conv2d_onednn(ConvDir::kGradWeight, g, x.p, dw.p, dy.p, bf16_sides(xo, dyo)))
    return;
  dxrt_memref4 dyw = dyo.fp32(kSlotWideDy), xw = xo.fp32(kSlotWideX);
  _mlir_ciface_dxrt_conv2d_grad_weight(&dyw, &xw, dwd, a.sh, a.sw, a.pt, a.pb, a.pl, a.pr, a.dh, a.dw, a.groups);
}

void backward_bf16(const char *k, const Operand4 &dyo, const Operand4 &xo, dxrt_memref4 *wd, dxrt_memref4 *dxd,
                   dxrt_memref4 *dwd, const ConvArgs &a) {
  Tensor4 dy = view(&dyo.d, k, "dy"), x = view(&xo.d, k, "x"), w = view(wd, k, "w"), dx = view(dxd, k, "dx"),
          dw = view(dwd, k, "dw");
  ConvGeometry g = conv_geometry(k, x, w, dy, a);
  DXRT_KERNEL_CHECK(same_shape(dx, x), k, str("dx is ", shape(dx), " but x is ", shape(x)));
  DXRT_KERNEL_CHECK(same_shape(dw, w), k, str("dw is ", shape(dw), " but w is ", shape(w)));
  // As conv2d_backward_run: one oneDNN call for both unless the weight
  // gradient is direct.
  if (conv2d_onednn_reads_bf16(ConvDir::kGradWeight, g, 0) &&
      conv2d_backward_onednn(g, x.p, w.p, dy.p, dx.p, dw.p, bf16_sides(xo, dyo)))
    return;
  dxrt_memref4 dyw = dyo.fp32(kSlotWideDy), xw = xo.fp32(kSlotWideX);
  _mlir_ciface_dxrt_conv2d_backward(&dyw, &xw, wd, dxd, dwd, a.sh, a.sw, a.pt, a.pb, a.pl, a.pr, a.dh, a.dw, a.groups);
}

void forward_grad_weight_bf16(const char *k, const Operand4 &xo, dxrt_memref4 *wd, const Operand4 &dyo,
                              dxrt_memref4 *yd, dxrt_memref4 *dwd, const ConvArgs &a) {
  Tensor4 x = view(&xo.d, k, "x"), w = view(wd, k, "w"), dy = view(&dyo.d, k, "dy"), y = view(yd, k, "y"),
          dw = view(dwd, k, "dw");
  ConvGeometry g = conv_geometry(k, x, w, y, a);
  DXRT_KERNEL_CHECK(same_shape(dy, y), k, str("dy is ", shape(dy), " but y is ", shape(y)));
  DXRT_KERNEL_CHECK(same_shape(dw, w), k, str("dw is ", shape(dw), " but w is ", shape(w)));
  if (conv2d_onednn_reads_bf16(ConvDir::kForward, g, 0) && conv2d_onednn_reads_bf16(ConvDir::kGradWeight, g, 0) &&
      conv2d_forward_grad_weight_onednn(g, x.p, w.p, dy.p, y.p, dw.p, bf16_sides(xo, dyo)))
    return;
  dxrt_memref4 xw = xo.fp32(kSlotWideX), dyw = dyo.fp32(kSlotWideDy);
  _mlir_ciface_dxrt_conv2d_forward_grad_weight(&xw, wd, &dyw, yd, dwd, a.sh, a.sw, a.pt, a.pb, a.pl, a.pr, a.dh, a.dw,
                                               a.groups);
}

Operand4 f32(dxrt_memref4 *m, const char *k, const char *arg) { return fp32_operand(m, k, arg); }
Operand4 bf16(dxrt_memref4_bf16 *m, const char *k, const char *arg) { return bf16_operand<dxrt_memref4>(m, k, arg); }

} // namespace

extern "C" void _mlir_ciface_dxrt_conv2d_forward_bf16x(dxrt_memref4_bf16 *xd, dxrt_memref4 *wd, dxrt_memref4 *yd,
                                                       DXRT_CONV_ARGS) {
  const char *k = "dxrt_conv2d_forward_bf16x";
  forward_bf16(k, bf16(xd, k, "x"), wd, yd, DXRT_CONV_ARG_VALUES);
}

extern "C" void _mlir_ciface_dxrt_conv2d_grad_input_bf16dy(dxrt_memref4_bf16 *dyd, dxrt_memref4 *wd, dxrt_memref4 *dxd,
                                                           DXRT_CONV_ARGS) {
  const char *k = "dxrt_conv2d_grad_input_bf16dy";
  grad_input_bf16(k, bf16(dyd, k, "dy"), wd, dxd, DXRT_CONV_ARG_VALUES);
}

extern "C" void _mlir_ciface_dxrt_conv2d_grad_weight_bf16x(dxrt_memref4 *dyd, dxrt_memref4_bf16 *xd, dxrt_memref4 *dwd,
                                                           DXRT_CONV_ARGS) {
  const char *k = "dxrt_conv2d_grad_weight_bf16x";
  grad_weight_bf16(k, f32(dyd, k, "dy"), bf16(xd, k, "x"), dwd, DXRT_CONV_ARG_VALUES);
}

extern "C" void _mlir_ciface_dxrt_conv2d_grad_weight_bf16dy(dxrt_memref4_bf16 *dyd, dxrt_memref4 *xd, dxrt_memref4 *dwd,
                                                            DXRT_CONV_ARGS) {
  const char *k = "dxrt_conv2d_grad_weight_bf16dy";
  grad_weight_bf16(k, bf16(dyd, k, "dy"), f32(xd, k, "x"), dwd, DXRT_CONV_ARG_VALUES);
}

extern "C" void _mlir_ciface_dxrt_conv2d_grad_weight_bf16xdy(dxrt_memref4_bf16 *dyd, dxrt_memref4_bf16 *xd,
                                                             dxrt_memref4 *dwd, DXRT_CONV_ARGS) {
  const char *k = "dxrt_conv2d_grad_weight_bf16xdy";
  grad_weight_bf16(k, bf16(dyd, k, "dy"), bf16(xd, k, "x"), dwd, DXRT_CONV_ARG_VALUES);
}

extern "C" void _mlir_ciface_dxrt_conv2d_backward_bf16x(dxrt_memref4 *dyd, dxrt_memref4_bf16 *xd, dxrt_memref4 *wd,
                                                        dxrt_memref4 *dxd, dxrt_memref4 *dwd, DXRT_CONV_ARGS) {
  const char *k = "dxrt_conv2d_backward_bf16x";
  backward_bf16(k, f32(dyd, k, "dy"), bf16(xd, k, "x"), wd, dxd, dwd, DXRT_CONV_ARG_VALUES);
}

extern "C" void _mlir_ciface_dxrt_conv2d_backward_bf16dy(dxrt_memref4_bf16 *dyd, dxrt_memref4 *xd, dxrt_memref4 *wd,
                                                         dxrt_memref4 *dxd, dxrt_memref4 *dwd, DXRT_CONV_ARGS) {
  const char *k = "dxrt_conv2d_backward_bf16dy";
  backward_bf16(k, bf16(dyd, k, "dy"), f32(xd, k, "x"), wd, dxd, dwd, DXRT_CONV_ARG_VALUES);
}

extern "C" void _mlir_ciface_dxrt_conv2d_backward_bf16xdy(dxrt_memref4_bf16 *dyd, dxrt_memref4_bf16 *xd,
                                                          dxrt_memref4 *wd, dxrt_memref4 *dxd, dxrt_memref4 *dwd,
                                                          DXRT_CONV_ARGS) {
  const char *k = "dxrt_conv2d_backward_bf16xdy";
  backward_bf16(k, bf16(dyd, k, "dy"), bf16(xd, k, "x"), wd, dxd, dwd, DXRT_CONV_ARG_VALUES);
}

extern "C" void _mlir_ciface_dxrt_conv2d_forward_grad_weight_bf16x(dxrt_memref4_bf16 *xd, dxrt_memref4 *wd,
                                                                   dxrt_memref4 *dyd, dxrt_memref4 *yd,
                                                                   dxrt_memref4 *dwd, DXRT_CONV_ARGS) {
  const char *k = "dxrt_conv2d_forward_grad_weight_bf16x";
  forward_grad_weight_bf16(k, bf16(xd, k, "x"), wd, f32(dyd, k, "dy"), yd, dwd, DXRT_CONV_ARG_VALUES);
}

extern "C" void _mlir_ciface_dxrt_conv2d_forward_grad_weight_bf16dy(dxrt_memref4 *xd, dxrt_memref4 *wd,
                                                                    dxrt_memref4_bf16 *dyd, dxrt_memref4 *yd,
                                                                    dxrt_memref4 *dwd, DXRT_CONV_ARGS) {
  const char *k = "dxrt_conv2d_forward_grad_weight_bf16dy";
  forward_grad_weight_bf16(k, f32(xd, k, "x"), wd, bf16(dyd, k, "dy"), yd, dwd, DXRT_CONV_ARG_VALUES);
}

extern "C" void _mlir_ciface_dxrt_conv2d_forward_grad_weight_bf16xdy(dxrt_memref4_bf16 *xd, dxrt_memref4 *wd,
                                                                     dxrt_memref4_bf16 *dyd, dxrt_memref4 *yd,
                                                                     dxrt_memref4 *dwd, DXRT_CONV_ARGS) {
  const char *k = "dxrt_conv2d_forward_grad_weight_bf16xdy";
  forward_grad_weight_bf16(k, bf16(xd, k, "x"), wd, bf16(dyd, k, "dy"), yd, dwd, DXRT_CONV_ARG_VALUES);
}


// ---- 3-D: the same dispatch on a geometry with a depth axis ----

extern "C" void _mlir_ciface_dxrt_conv3d_forward(dxrt_memref5 *xd, dxrt_memref5 *wd, dxrt_memref5 *yd, int64_t sd,
                                                 int64_t sh, int64_t sw, int64_t pf, int64_t pk, int64_t pt,
                                                 int64_t pb, int64_t pl, int64_t pr, int64_t dd, int64_t dh,
                                                 int64_t dw, int64_t groups) {
  const char *k = "dxrt_conv3d_forward";
  Tensor5 x = view(xd, k, "x"), w = view(wd, k, "w"), y = view(yd, k, "y");
  ConvGeometry g = conv_geometry(k, x, w, y, sd, sh, sw, pf, pk, pt, pb, pl, pr, dd, dh, dw, groups);
  conv2d_run(ConvDir::kForward, g, x.p, w.p, y.p);
}

extern "C" void _mlir_ciface_dxrt_conv3d_grad_input(dxrt_memref5 *dyd, dxrt_memref5 *wd, dxrt_memref5 *dxd,
                                                    int64_t sd, int64_t sh, int64_t sw, int64_t pf, int64_t pk,
                                                    int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t dd,
                                                    int64_t dh, int64_t dw, int64_t groups) {
  const char *k = "dxrt_conv3d_grad_input";
  Tensor5 dy = view(dyd, k, "dy"), w = view(wd, k, "w"), dx = view(dxd, k, "dx");
  ConvGeometry g = conv_geometry(k, dx, w, dy, sd, sh, sw, pf, pk, pt, pb, pl, pr, dd, dh, dw, groups);
  conv2d_run(ConvDir::kGradInput, g, dx.p, w.p, dy.p);
}

extern "C" void _mlir_ciface_dxrt_conv3d_grad_weight(dxrt_memref5 *dyd, dxrt_memref5 *xd, dxrt_memref5 *dwd,
                                                     int64_t sd, int64_t sh, int64_t sw, int64_t pf, int64_t pk,
                                                     int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t dd,
                                                     int64_t dh, int64_t ddw, int64_t groups) {
  const char *k = "dxrt_conv3d_grad_weight";
  Tensor5 dy = view(dyd, k, "dy"), x = view(xd, k, "x"), dw = view(dwd, k, "dw");
  ConvGeometry g = conv_geometry(k, x, dw, dy, sd, sh, sw, pf, pk, pt, pb, pl, pr, dd, dh, ddw, groups);
  conv2d_run(ConvDir::kGradWeight, g, x.p, dw.p, dy.p);
}

extern "C" void _mlir_ciface_dxrt_conv3d_backward(dxrt_memref5 *dyd, dxrt_memref5 *xd, dxrt_memref5 *wd,
                                                  dxrt_memref5 *dxd, dxrt_memref5 *dwd, int64_t sd, int64_t sh,
                                                  int64_t sw, int64_t pf, int64_t pk, int64_t pt, int64_t pb,
                                                  int64_t pl, int64_t pr, int64_t dd, int64_t dh, int64_t ddw,
                                                  int64_t groups) {
  const char *k = "dxrt_conv3d_backward";
  Tensor5 dy = view(dyd, k, "dy"), x = view(xd, k, "x"), w = view(wd, k, "w"), dx = view(dxd, k, "dx"),
          dw = view(dwd, k, "dw");
  ConvGeometry g = conv_geometry(k, x, w, dy, sd, sh, sw, pf, pk, pt, pb, pl, pr, dd, dh, ddw, groups);
  DXRT_KERNEL_CHECK(same_shape(dx, x), k, str("dx is ", shape(dx), " but x is ", shape(x)));
  DXRT_KERNEL_CHECK(same_shape(dw, w), k, str("dw is ", shape(dw), " but w is ", shape(w)));
  // As conv2d_backward (no direct kernel in 3-D): dy reordered once where
  // both primitives want the same layout.
  if (conv2d_onednn_applies(g) && conv2d_backward_onednn(g, x.p, w.p, dy.p, dx.p, dw.p)) return;
  conv2d_run(ConvDir::kGradInput, g, dx.p, w.p, dy.p);
  conv2d_run(ConvDir::kGradWeight, g, x.p, dw.p, dy.p);
}

extern "C" void _mlir_ciface_dxrt_conv3d_forward_grad_weight(dxrt_memref5 *xd, dxrt_memref5 *wd, dxrt_memref5 *dyd,
                                                             dxrt_memref5 *yd, dxrt_memref5 *dwd, int64_t sd,
                                                             int64_t sh, int64_t sw, int64_t pf, int64_t pk,
                                                             int64_t pt, int64_t pb, int64_t pl, int64_t pr,
                                                             int64_t dd, int64_t dh, int64_t ddw, int64_t groups) {
  const char *k = "dxrt_conv3d_forward_grad_weight";
  Tensor5 x = view(xd, k, "x"), w = view(wd, k, "w"), dy = view(dyd, k, "dy"), y = view(yd, k, "y"),
          dw = view(dwd, k, "dw");
  ConvGeometry g = conv_geometry(k, x, w, y, sd, sh, sw, pf, pk, pt, pb, pl, pr, dd, dh, ddw, groups);
  DXRT_KERNEL_CHECK(same_shape(dy, y), k, str("dy is ", shape(dy), " but y is ", shape(y)));
  DXRT_KERNEL_CHECK(same_shape(dw, w), k, str("dw is ", shape(dw), " but w is ", shape(w)));
  if (conv2d_onednn_applies(g) && conv2d_forward_grad_weight_onednn(g, x.p, w.p, dy.p, y.p, dw.p)) return;
  conv2d_run(ConvDir::kForward, g, x.p, w.p, y.p);
  conv2d_run(ConvDir::kGradWeight, g, x.p, dw.p, dy.p);
}
