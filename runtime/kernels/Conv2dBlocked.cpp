// The dxrt_conv2d_*_blocked kernels: the 2-D convolutions of Conv2d.cpp with
// each activation (x, y, dx, dy) channel-blocked or NCHW (BlockedLayout.h:
// 5-D, the last size 16, 8 or 1) and their weights in OIHW. oneDNN runs them
// without reordering the blocked activations where it computes in their
// block. Where it has no fast implementation (or DXRT_CONV=im2col), those
// are copied to NCHW in workspace slots and the NCHW dispatch runs: the same
// values, by the same kernels, as the NCHW entry points. Also the layout
// conversions that generated code calls where a blocked tensor meets an
// operation that reads NCHW.
#include "dxrt/kernels.h"
#include "kernels/Conv2d.h"
#include "kernels/BlockedLayout.h"
#include "kernels/Bf16Input.h"
#include "kernels/Onednn.h"
#include "kernels/Workspace.h"

#include <string>

namespace dxrt {

Activation activation_view(const dxrt_memref5 *m, const char *kernel, const char *arg) {
  Tensor5 t = view(m, kernel, arg);
  DXRT_KERNEL_CHECK(is_channel_block(t.w) || t.w == 1, kernel,
                    str("argument '", arg, "' is neither nChw16c, nChw8c nor NCHW: its last size is ", t.w,
                        ", not 16, 8 or 1"));
  return {{t.p, t.n, t.c * t.w, t.d, t.h}, t.w};
}

namespace {

// The conversions run as oneDNN reorders (its JIT kernels, about twice as
// fast as the loops below on AVX-512), one primitive per shape and
// direction cached per thread; the loops where oneDNN refuses.
struct ReorderKey {
  int64_t n, c, hw, block, to_blocked;
  bool operator==(const ReorderKey &o) const {
    return n == o.n && c == o.c && hw == o.hw && block == o.block && to_blocked == o.to_blocked;
  }
};
struct ReorderEntry {
  ReorderKey key{};
  bool used = false, ok = false;
  uint64_t last_use = 0;
  dnnl::primitive p;
  dnnl::memory from, to, scratchpad;
  size_t scratchpad_bytes = 0;
};
struct ReorderCache {
  ReorderEntry entries[64];
  uint64_t clock = 0;
};

bool reorder(const float *src, float *dst, int64_t n, int64_t c, int64_t hw, int64_t block, bool to_blocked) {
  thread_local ReorderCache *cache = new ReorderCache; // never freed, as the engine (Onednn.cpp)
  const ReorderKey key{n, c, hw, block, to_blocked};
  bool hit = false;
  ReorderEntry &e = onednn_cache_slot(cache->entries, cache->clock, key, hit);
  if (!hit) {
    e = ReorderEntry();
    e.key = key, e.used = true, e.last_use = cache->clock;
    try {
      using tag = dnnl::memory::format_tag;
      const Onednn &o = onednn();
      const dnnl::memory::desc plain({n, c, hw, 1}, dnnl::memory::data_type::f32, tag::nchw),
          blocked({n, c, hw, 1}, dnnl::memory::data_type::f32, block == 8 ? tag::nChw8c : tag::nChw16c);
      const dnnl::memory::desc &from = to_blocked ? plain : blocked, &to = to_blocked ? blocked : plain;
      dnnl::reorder::primitive_desc pd(o.engine, from, o.engine, to, onednn_user_scratchpad());
      e.p = dnnl::reorder(pd);
      e.scratchpad_bytes = onednn_scratchpad(pd, &e.scratchpad);
      e.from = dnnl::memory(from, o.engine, nullptr);
      e.to = dnnl::memory(to, o.engine, nullptr);
      e.ok = true;
    } catch (const dnnl::error &) {
    }
  }
  if (!e.ok) return false;
  const char *k = to_blocked ? "dxrt_nchw_to_blocked" : "dxrt_blocked_to_nchw";
  onednn_set_data(k, e.from, const_cast<float *>(src));
  onednn_set_data(k, e.to, dst);
  const dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, e.from.get()}, {DNNL_ARG_TO, e.to.get()}};
  onednn_execute(k, e.p, 2, args, e.scratchpad, e.scratchpad_bytes);
  return true;
}

} // namespace

void nchw_to_blocked(const float *src, float *dst, int64_t n, int64_t c, int64_t hw, int64_t block) {
  if (n * c * hw > 0 && reorder(src, dst, n, c, hw, block, true)) return;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t cb = 0; cb < c / block; ++cb) {
      const float *s = src + (i * c + cb * block) * hw;
      float *d = dst + (i * c + cb * block) * hw;
      for (int64_t p = 0; p < hw; ++p)
        for (int64_t k = 0; k < block; ++k) d[p * block + k] = s[k * hw + p];
    }
}

void blocked_to_nchw(const float *src, float *dst, int64_t n, int64_t c, int64_t hw, int64_t block) {
  if (n * c * hw > 0 && reorder(src, dst, n, c, hw, block, false)) return;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t cb = 0; cb < c / block; ++cb) {
      const float *s = src + (i * c + cb * block) * hw;
      float *d = dst + (i * c + cb * block) * hw;
      for (int64_t k = 0; k < block; ++k)
        for (int64_t p = 0; p < hw; ++p) d[k * hw + p] = s[p * block + k];
    }
}

} // namespace dxrt

using namespace dxrt;

namespace {

enum Side { kXSide, kYSide };

// The side's activation in NCHW: itself, or a copy in the side's workspace
// slot (`copy`: of the blocked data; else only the buffer, for an output).
float *nchw(const ConvGeometry &g, int blocked, Side side, float *data, bool copy) {
  if (!(blocked & (side == kXSide ? kXSideBlocked : kYSideBlocked))) return data;
  const int64_t c = side == kXSide ? g.c : g.f, hw = side == kXSide ? g.h * g.w : g.ho * g.wo;
  float *plain = workspace(size_t(g.n * c * hw), side == kXSide ? kSlotNchwX : kSlotNchwY);
  if (copy) blocked_to_nchw(data, plain, g.n, c, hw, channel_block(blocked));
  return plain;
}
// An output computed into `plain` (nchw's buffer) written back in the side's
// layout: blocked, since nchw returned a buffer of its own.
void store(const ConvGeometry &g, int blocked, Side side, const float *plain, float *data) {
  if (plain == data) return;
  const int64_t c = side == kXSide ? g.c : g.f, hw = side == kXSide ? g.h * g.w : g.ho * g.wo;
  nchw_to_blocked(plain, data, g.n, c, hw, channel_block(blocked));
}

// One direction (x side, w side, y side as in Conv2d.h) with the sides
// `blocked` names channel-blocked: oneDNN directly, else through NCHW copies.
void run(ConvDir dir, const ConvGeometry &g, int blocked, float *x, float *w, float *y) {
  if (blocked == 0) return conv2d_run(dir, g, x, w, y);
  if (conv2d_onednn_applies(g) && conv2d_onednn(dir, g, x, w, y, blocked)) return;
  switch (dir) {
  case ConvDir::kForward: {
    float *yp = nchw(g, blocked, kYSide, y, false);
    conv2d_run(dir, g, nchw(g, blocked, kXSide, x, true), w, yp);
    store(g, blocked, kYSide, yp, y);
    return;
  }
  case ConvDir::kGradInput: {
    float *xp = nchw(g, blocked, kXSide, x, false);
    conv2d_run(dir, g, xp, w, nchw(g, blocked, kYSide, y, true));
    store(g, blocked, kXSide, xp, x);
    return;
  }
  case ConvDir::kGradWeight:
    conv2d_run(dir, g, nchw(g, blocked, kXSide, x, true), w, nchw(g, blocked, kYSide, y, true));
    return;
  }
}

// BlockedSides of an x-side and a y-side activation. Both blocked sides have
// one block: a program is planned in one (dx-to-linalg's channel-block).
int sides(const char *k, const Activation &x, const Activation &y) {
  DXRT_KERNEL_CHECK(!x.blocked() || !y.blocked() || x.block == y.block, k,
                    str("the x side is in blocks of ", x.block, " channels but the y side in blocks of ", y.block));
  const int64_t block = x.blocked() ? x.block : y.block;
  return (x.blocked() ? kXSideBlocked : 0) | (y.blocked() ? kYSideBlocked : 0) | (block == 8 ? kBlock8 : 0);
}

ConvGeometry geometry(const char *k, const Tensor4 &x, const dxrt_memref4 *wd, const Tensor4 &y, int64_t sh,
                      int64_t sw, int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t dh, int64_t dw,
                      int64_t groups) {
  return conv_geometry(k, x, view(wd, k, "w"), y, sh, sw, pt, pb, pl, pr, dh, dw, groups);
}

} // namespace

extern "C" void _mlir_ciface_dxrt_conv2d_forward_blocked(dxrt_memref5 *xd, dxrt_memref4 *wd, dxrt_memref5 *yd,
                                                         int64_t sh, int64_t sw, int64_t pt, int64_t pb, int64_t pl,
                                                         int64_t pr, int64_t dh, int64_t dw, int64_t groups) {
  const char *k = "dxrt_conv2d_forward_blocked";
  Activation x = activation_view(xd, k, "x"), y = activation_view(yd, k, "y");
  ConvGeometry g = geometry(k, x.t, wd, y.t, sh, sw, pt, pb, pl, pr, dh, dw, groups);
  run(ConvDir::kForward, g, sides(k, x, y), x.t.p, view(wd, k, "w").p, y.t.p);
}

extern "C" void _mlir_ciface_dxrt_conv2d_grad_input_blocked(dxrt_memref5 *dyd, dxrt_memref4 *wd, dxrt_memref5 *dxd,
                                                            int64_t sh, int64_t sw, int64_t pt, int64_t pb,
                                                            int64_t pl, int64_t pr, int64_t dh, int64_t dw,
                                                            int64_t groups) {
  const char *k = "dxrt_conv2d_grad_input_blocked";
  Activation dy = activation_view(dyd, k, "dy"), dx = activation_view(dxd, k, "dx");
  ConvGeometry g = geometry(k, dx.t, wd, dy.t, sh, sw, pt, pb, pl, pr, dh, dw, groups);
  run(ConvDir::kGradInput, g, sides(k, dx, dy), dx.t.p, view(wd, k, "w").p, dy.t.p);
}

extern "C" void _mlir_ciface_dxrt_conv2d_grad_weight_blocked(dxrt_memref5 *dyd, dxrt_memref5 *xd, dxrt_memref4 *dwd,
                                                             int64_t sh, int64_t sw, int64_t pt, int64_t pb,
                                                             int64_t pl, int64_t pr, int64_t dh, int64_t ddw,
                                                             int64_t groups) {
  const char *k = "dxrt_conv2d_grad_weight_blocked";
  Activation dy = activation_view(dyd, k, "dy"), x = activation_view(xd, k, "x");
  ConvGeometry g = geometry(k, x.t, dwd, dy.t, sh, sw, pt, pb, pl, pr, dh, ddw, groups);
  run(ConvDir::kGradWeight, g, sides(k, x, dy), x.t.p, view(dwd, k, "dw").p, dy.t.p);
}

extern "C" void _mlir_ciface_dxrt_conv2d_backward_blocked(dxrt_memref5 *dyd, dxrt_memref5 *xd, dxrt_memref4 *wd,
                                                          dxrt_memref5 *dxd, dxrt_memref4 *dwd, int64_t sh,
                                                          int64_t sw, int64_t pt, int64_t pb, int64_t pl, int64_t pr,
                                                          int64_t dh, int64_t ddw, int64_t groups) {
  const char *k = "dxrt_conv2d_backward_blocked";
  Activation dy = activation_view(dyd, k, "dy"), x = activation_view(xd, k, "x"), dx = activation_view(dxd, k, "dx");
  Tensor4 w = view(wd, k, "w"), dw = view(dwd, k, "dw");
  ConvGeometry g = geometry(k, x.t, wd, dy.t, sh, sw, pt, pb, pl, pr, dh, ddw, groups);
  DXRT_KERNEL_CHECK(same_shape(dx.t, x.t), k, str("dx is ", shape(dx.t), " but x is ", shape(x.t)));
  DXRT_KERNEL_CHECK(same_shape(dw, w), k, str("dw is ", shape(dw), " but w is ", shape(w)));
  // dx and x may be in different layouts: each direction takes its own.
  const int in = sides(k, dx, dy), wt = sides(k, x, dy);
  if (in == 0 && wt == 0) return conv2d_backward_run(g, x.t.p, w.p, dy.t.p, dx.t.p, dw.p);
  if (in == wt && conv2d_onednn_applies(g) && conv2d_backward_onednn(g, x.t.p, w.p, dy.t.p, dx.t.p, dw.p, in)) return;
  run(ConvDir::kGradInput, g, in, dx.t.p, w.p, dy.t.p);
  run(ConvDir::kGradWeight, g, wt, x.t.p, dw.p, dy.t.p);
}

extern "C" void _mlir_ciface_dxrt_conv2d_forward_grad_weight_blocked(dxrt_memref5 *xd, dxrt_memref4 *wd,
                                                                     dxrt_memref5 *dyd, dxrt_memref5 *yd,
                                                                     dxrt_memref4 *dwd, int64_t sh, int64_t sw,
                                                                     int64_t pt, int64_t pb, int64_t pl, int64_t pr,
                                                                     int64_t dh, int64_t ddw, int64_t groups) {
  const char *k = "dxrt_conv2d_forward_grad_weight_blocked";
  Activation x = activation_view(xd, k, "x"), dy = activation_view(dyd, k, "dy"), y = activation_view(yd, k, "y");
  Tensor4 w = view(wd, k, "w"), dw = view(dwd, k, "dw");
  ConvGeometry g = geometry(k, x.t, wd, y.t, sh, sw, pt, pb, pl, pr, dh, ddw, groups);
  DXRT_KERNEL_CHECK(same_shape(dy.t, y.t), k, str("dy is ", shape(dy.t), " but y is ", shape(y.t)));
  DXRT_KERNEL_CHECK(same_shape(dw, w), k, str("dw is ", shape(dw), " but w is ", shape(w)));
  // dy and y may be in different layouts: each direction takes its own.
  const int fw = sides(k, x, y), wt = sides(k, x, dy);
  if (fw == 0 && wt == 0) return conv2d_forward_grad_weight_run(g, x.t.p, w.p, dy.t.p, y.t.p, dw.p);
  if (fw == wt && conv2d_onednn_applies(g) && conv2d_forward_grad_weight_onednn(g, x.t.p, w.p, dy.t.p, y.t.p, dw.p, fw))
    return;
  run(ConvDir::kForward, g, fw, x.t.p, w.p, y.t.p);
  run(ConvDir::kGradWeight, g, wt, x.t.p, dw.p, dy.t.p);
}

// ---- x and/or dy in bf16 (Bf16Input.h): oneDNN reads them as they are, in
// bf16 precision; where it does not run the directions, they are widened
// and the kernels above run ----

namespace {

using Operand5 = ProductOperand<dxrt_memref5>;

ConvGeometry geometry(const char *k, const Tensor4 &x, const dxrt_memref4 *wd, const Tensor4 &y, const ConvArgs &a) {
  return conv_geometry(k, x, view(wd, k, "w"), y, a);
}

void forward_bf16(const char *k, const Operand5 &xo, dxrt_memref4 *wd, dxrt_memref5 *yd, const ConvArgs &a) {
  Activation x = activation_view(&xo.d, k, "x"), y = activation_view(yd, k, "y");
  ConvGeometry g = geometry(k, x.t, wd, y.t, a);
  const int blocked = sides(k, x, y);
  if (conv2d_onednn_reads_bf16(ConvDir::kForward, g, blocked) &&
      conv2d_onednn(ConvDir::kForward, g, x.t.p, view(wd, k, "w").p, y.t.p, blocked | kXSideBf16))
    return;
  dxrt_memref5 xw = xo.fp32(kSlotWideX);
  _mlir_ciface_dxrt_conv2d_forward_blocked(&xw, wd, yd, a.sh, a.sw, a.pt, a.pb, a.pl, a.pr, a.dh, a.dw, a.groups);
}

void grad_input_bf16(const char *k, const Operand5 &dyo, dxrt_memref4 *wd, dxrt_memref5 *dxd, const ConvArgs &a) {
  Activation dy = activation_view(&dyo.d, k, "dy"), dx = activation_view(dxd, k, "dx");
  ConvGeometry g = geometry(k, dx.t, wd, dy.t, a);
  const int blocked = sides(k, dx, dy);
  if (conv2d_onednn_reads_bf16(ConvDir::kGradInput, g, blocked) &&
      conv2d_onednn(ConvDir::kGradInput, g, dx.t.p, view(wd, k, "w").p, dy.t.p, blocked | kYSideBf16))
    return;
  dxrt_memref5 dyw = dyo.fp32(kSlotWideDy);
  _mlir_ciface_dxrt_conv2d_grad_input_blocked(&dyw, wd, dxd, a.sh, a.sw, a.pt, a.pb, a.pl, a.pr, a.dh, a.dw, a.groups);
}

void grad_weight_bf16(const char *k, const Operand5 &dyo, const Operand5 &xo, dxrt_memref4 *dwd, const ConvArgs &a) {
  Activation dy = activation_view(&dyo.d, k, "dy"), x = activation_view(&xo.d, k, "x");
  ConvGeometry g = geometry(k, x.t, dwd, dy.t, a);
  const int blocked = sides(k, x, dy);
  if (conv2d_onednn_reads_bf16(ConvDir::kGradWeight, g, blocked) &&
      conv2d_onednn(ConvDir::kGradWeight, g, x.t.p, view(dwd, k, "dw").p, dy.t.p, blocked | bf16_sides(xo, dyo)))
    return;
  dxrt_memref5 dyw = dyo.fp32(kSlotWideDy), xw = xo.fp32(kSlotWideX);
  _mlir_ciface_dxrt_conv2d_grad_weight_blocked(&dyw, &xw, dwd, a.sh, a.sw, a.pt, a.pb, a.pl, a.pr, a.dh, a.dw,
                                               a.groups);
}

void backward_bf16(const char *k, const Operand5 &dyo, const Operand5 &xo, dxrt_memref4 *wd, dxrt_memref5 *dxd,
                   dxrt_memref4 *dwd, const ConvArgs &a) {
  Activation dy = activation_view(&dyo.d, k, "dy"), x = activation_view(&xo.d, k, "x"),
             dx = activation_view(dxd, k, "dx");
  Tensor4 w = view(wd, k, "w"), dw = view(dwd, k, "dw");
  ConvGeometry g = geometry(k, x.t, wd, dy.t, a);
  DXRT_KERNEL_CHECK(same_shape(dx.t, x.t), k, str("dx is ", shape(dx.t), " but x is ", shape(x.t)));
  DXRT_KERNEL_CHECK(same_shape(dw, w), k, str("dw is ", shape(dw), " but w is ", shape(w)));
  // As the fp32 kernel: one oneDNN call for both where dx and x share a
  // layout, else one each (the input gradient reads only dy in bf16).
  const int in = sides(k, dx, dy), wt = sides(k, x, dy), bf = bf16_sides(xo, dyo);
  if (conv2d_onednn_reads_bf16(ConvDir::kGradWeight, g, wt)) {
    if (in == wt && conv2d_backward_onednn(g, x.t.p, w.p, dy.t.p, dx.t.p, dw.p, in | bf)) return;
    if (in != wt && (!dyo.bf16 || conv2d_onednn_reads_bf16(ConvDir::kGradInput, g, in)) &&
        conv2d_onednn(ConvDir::kGradWeight, g, x.t.p, dw.p, dy.t.p, wt | bf)) {
      // A dy in bf16 has no fp32 path here: oneDNN, or the widened retry below.
      if (!dyo.bf16) return run(ConvDir::kGradInput, g, in, dx.t.p, w.p, dy.t.p);
      if (conv2d_onednn(ConvDir::kGradInput, g, dx.t.p, w.p, dy.t.p, in | kYSideBf16)) return;
    }
  }
  dxrt_memref5 dyw = dyo.fp32(kSlotWideDy), xw = xo.fp32(kSlotWideX);
  _mlir_ciface_dxrt_conv2d_backward_blocked(&dyw, &xw, wd, dxd, dwd, a.sh, a.sw, a.pt, a.pb, a.pl, a.pr, a.dh, a.dw,
                                            a.groups);
}

void forward_grad_weight_bf16(const char *k, const Operand5 &xo, dxrt_memref4 *wd, const Operand5 &dyo,
                              dxrt_memref5 *yd, dxrt_memref4 *dwd, const ConvArgs &a) {
  Activation x = activation_view(&xo.d, k, "x"), dy = activation_view(&dyo.d, k, "dy"), y = activation_view(yd, k, "y");
  Tensor4 w = view(wd, k, "w"), dw = view(dwd, k, "dw");
  ConvGeometry g = geometry(k, x.t, wd, y.t, a);
  DXRT_KERNEL_CHECK(same_shape(dy.t, y.t), k, str("dy is ", shape(dy.t), " but y is ", shape(y.t)));
  DXRT_KERNEL_CHECK(same_shape(dw, w), k, str("dw is ", shape(dw), " but w is ", shape(w)));
  const int fw = sides(k, x, y), wt = sides(k, x, dy);
  if (fw == wt && conv2d_onednn_reads_bf16(ConvDir::kForward, g, fw) &&
      conv2d_onednn_reads_bf16(ConvDir::kGradWeight, g, wt) &&
      conv2d_forward_grad_weight_onednn(g, x.t.p, w.p, dy.t.p, y.t.p, dw.p, fw | bf16_sides(xo, dyo)))
    return;
  dxrt_memref5 xw = xo.fp32(kSlotWideX), dyw = dyo.fp32(kSlotWideDy);
  _mlir_ciface_dxrt_conv2d_forward_grad_weight_blocked(&xw, wd, &dyw, yd, dwd, a.sh, a.sw, a.pt, a.pb, a.pl, a.pr, a.dh,
                                                       a.dw, a.groups);
}

Operand5 f32(dxrt_memref5 *m, const char *k, const char *arg) { return fp32_operand(m, k, arg); }
Operand5 bf16(dxrt_memref5_bf16 *m, const char *k, const char *arg) { return bf16_operand<dxrt_memref5>(m, k, arg); }

} // namespace

extern "C" void _mlir_ciface_dxrt_conv2d_forward_blocked_bf16x(dxrt_memref5_bf16 *xd, dxrt_memref4 *wd,
                                                               dxrt_memref5 *yd, DXRT_CONV_ARGS) {
  const char *k = "dxrt_conv2d_forward_blocked_bf16x";
  forward_bf16(k, bf16(xd, k, "x"), wd, yd, DXRT_CONV_ARG_VALUES);
}

extern "C" void _mlir_ciface_dxrt_conv2d_grad_input_blocked_bf16dy(dxrt_memref5_bf16 *dyd, dxrt_memref4 *wd,
                                                                   dxrt_memref5 *dxd, DXRT_CONV_ARGS) {
  const char *k = "dxrt_conv2d_grad_input_blocked_bf16dy";
  grad_input_bf16(k, bf16(dyd, k, "dy"), wd, dxd, DXRT_CONV_ARG_VALUES);
}

extern "C" void _mlir_ciface_dxrt_conv2d_grad_weight_blocked_bf16x(dxrt_memref5 *dyd, dxrt_memref5_bf16 *xd,
                                                                   dxrt_memref4 *dwd, DXRT_CONV_ARGS) {
  const char *k = "dxrt_conv2d_grad_weight_blocked_bf16x";
  grad_weight_bf16(k, f32(dyd, k, "dy"), bf16(xd, k, "x"), dwd, DXRT_CONV_ARG_VALUES);
}

extern "C" void _mlir_ciface_dxrt_conv2d_grad_weight_blocked_bf16dy(dxrt_memref5_bf16 *dyd, dxrt_memref5 *xd,
                                                                    dxrt_memref4 *dwd, DXRT_CONV_ARGS) {
  const char *k = "dxrt_conv2d_grad_weight_blocked_bf16dy";
  grad_weight_bf16(k, bf16(dyd, k, "dy"), f32(xd, k, "x"), dwd, DXRT_CONV_ARG_VALUES);
}

extern "C" void _mlir_ciface_dxrt_conv2d_grad_weight_blocked_bf16xdy(dxrt_memref5_bf16 *dyd, dxrt_memref5_bf16 *xd,
                                                                     dxrt_memref4 *dwd, DXRT_CONV_ARGS) {
  const char *k = "dxrt_conv2d_grad_weight_blocked_bf16xdy";
  grad_weight_bf16(k, bf16(dyd, k, "dy"), bf16(xd, k, "x"), dwd, DXRT_CONV_ARG_VALUES);
}

extern "C" void _mlir_ciface_dxrt_conv2d_backward_blocked_bf16x(dxrt_memref5 *dyd, dxrt_memref5_bf16 *xd,
                                                                dxrt_memref4 *wd, dxrt_memref5 *dxd, dxrt_memref4 *dwd,
                                                                DXRT_CONV_ARGS) {
  const char *k = "dxrt_conv2d_backward_blocked_bf16x";
  backward_bf16(k, f32(dyd, k, "dy"), bf16(xd, k, "x"), wd, dxd, dwd, DXRT_CONV_ARG_VALUES);
}

extern "C" void _mlir_ciface_dxrt_conv2d_backward_blocked_bf16dy(dxrt_memref5_bf16 *dyd, dxrt_memref5 *xd,
                                                                 dxrt_memref4 *wd, dxrt_memref5 *dxd, dxrt_memref4 *dwd,
                                                                 DXRT_CONV_ARGS) {
  const char *k = "dxrt_conv2d_backward_blocked_bf16dy";
  backward_bf16(k, bf16(dyd, k, "dy"), f32(xd, k, "x"), wd, dxd, dwd, DXRT_CONV_ARG_VALUES);
}

extern "C" void _mlir_ciface_dxrt_conv2d_backward_blocked_bf16xdy(dxrt_memref5_bf16 *dyd, dxrt_memref5_bf16 *xd,
                                                                  dxrt_memref4 *wd, dxrt_memref5 *dxd,
                                                                  dxrt_memref4 *dwd, DXRT_CONV_ARGS) {
  const char *k = "dxrt_conv2d_backward_blocked_bf16xdy";
  backward_bf16(k, bf16(dyd, k, "dy"), bf16(xd, k, "x"), wd, dxd, dwd, DXRT_CONV_ARG_VALUES);
}

extern "C" void _mlir_ciface_dxrt_conv2d_forward_grad_weight_blocked_bf16x(dxrt_memref5_bf16 *xd, dxrt_memref4 *wd,
                                                                           dxrt_memref5 *dyd, dxrt_memref5 *yd,
                                                                           dxrt_memref4 *dwd, DXRT_CONV_ARGS) {
  const char *k = "dxrt_conv2d_forward_grad_weight_blocked_bf16x";
  forward_grad_weight_bf16(k, bf16(xd, k, "x"), wd, f32(dyd, k, "dy"), yd, dwd, DXRT_CONV_ARG_VALUES);
}

extern "C" void _mlir_ciface_dxrt_conv2d_forward_grad_weight_blocked_bf16dy(dxrt_memref5 *xd, dxrt_memref4 *wd,
                                                                            dxrt_memref5_bf16 *dyd, dxrt_memref5 *yd,
                                                                            dxrt_memref4 *dwd, DXRT_CONV_ARGS) {
  const char *k = "dxrt_conv2d_forward_grad_weight_blocked_bf16dy";
  forward_grad_weight_bf16(k, f32(xd, k, "x"), wd, bf16(dyd, k, "dy"), yd, dwd, DXRT_CONV_ARG_VALUES);
}

extern "C" void _mlir_ciface_dxrt_conv2d_forward_grad_weight_blocked_bf16xdy(dxrt_memref5_bf16 *xd, dxrt_memref4 *wd,
                                                                             dxrt_memref5_bf16 *dyd, dxrt_memref5 *yd,
                                                                             dxrt_memref4 *dwd, DXRT_CONV_ARGS) {
  const char *k = "dxrt_conv2d_forward_grad_weight_blocked_bf16xdy";
  forward_grad_weight_bf16(k, bf16(xd, k, "x"), wd, bf16(dyd, k, "dy"), yd, dwd, DXRT_CONV_ARG_VALUES);
}


extern "C" void _mlir_ciface_dxrt_nchw_to_blocked(dxrt_memref4 *xd, dxrt_memref5 *yd) {
  const char *k = "dxrt_nchw_to_blocked";
  Tensor4 x = view(xd, k, "x");
  Activation y = activation_view(yd, k, "y");
  DXRT_KERNEL_CHECK(same_shape(x, y.t) && y.blocked(), k, str("y is ", shape(y.t), " but x is ", shape(x)));
  nchw_to_blocked(x.p, y.t.p, x.n, x.c, x.h * x.w, y.block);
}

extern "C" void _mlir_ciface_dxrt_blocked_to_nchw(dxrt_memref5 *xd, dxrt_memref4 *yd) {
  const char *k = "dxrt_blocked_to_nchw";
  Activation x = activation_view(xd, k, "x");
  Tensor4 y = view(yd, k, "y");
  DXRT_KERNEL_CHECK(same_shape(x.t, y) && x.blocked(), k, str("y is ", shape(y), " but x is ", shape(x.t)));
  blocked_to_nchw(x.t.p, y.p, x.t.n, x.t.c, x.t.h * x.t.w, x.block);
}
