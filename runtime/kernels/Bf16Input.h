// The bf16 twins' operands (kernels.h: a product's input x or dy stored in
// bf16 by dxc's dx-bf16-product-inputs): an fp32 descriptor of the same
// sizes over the bf16 data, for the fp32 kernels' checks and geometry (its
// pointer is the bf16 data's, not to be read as floats), and the operand
// widened to fp32 for the paths that compute on floats. Widening is exact,
// and the fp32 kernels' rounding of a bf16 value is that value, so a twin
// that widens gives the bits of its fp32 kernel on the rounded operands.
#pragma once

#include "common/Check.h"
#include "dxrt/kernels.h"
#include "kernels/Bf16Round.h"
#include "kernels/Conv2d.h"
#include "kernels/Workspace.h"

namespace dxrt {

// Descriptor D (dxrt_memref2/4/5) over B's data: sizes and strides as B's,
// aligned at B's first element (offset folded in).
template <class D, class B> D bf16_alias(const B *m, const char *kernel, const char *arg) {
  DXRT_KERNEL_CHECK(m != nullptr, kernel, str("argument '", arg, "' is a null descriptor"));
  DXRT_KERNEL_CHECK(m->offset >= 0, kernel, str("argument '", arg, "' has a negative offset ", m->offset));
  D d;
  d.allocated = reinterpret_cast<float *>(m->allocated);
  d.aligned = m->aligned ? reinterpret_cast<float *>(m->aligned + m->offset) : nullptr;
  d.offset = 0;
  for (size_t i = 0; i < sizeof m->sizes / sizeof m->sizes[0]; ++i) d.sizes[i] = m->sizes[i], d.strides[i] = m->strides[i];
  return d;
}

// alias (checked contiguous by the caller's view()) widened into workspace
// slot `slot` (kSlotWideX for x, kSlotWideDy for dy): a contiguous fp32
// descriptor of the same sizes.
template <class D> D bf16_widened(const D &alias, int slot = kSlotWideX) {
  int64_t n = 1;
  for (int64_t s : alias.sizes) n *= s;
  float *wide = workspace(size_t(n), slot);
  const uint16_t *src = reinterpret_cast<const uint16_t *>(alias.aligned);
  for (int64_t i = 0; i < n; ++i) wide[i] = bf16_bits_to_float(src[i]);
  D d = alias;
  d.allocated = d.aligned = wide;
  int64_t stride = 1;
  for (int i = int(sizeof d.sizes / sizeof d.sizes[0]) - 1; i >= 0; --i) d.strides[i] = stride, stride *= d.sizes[i];
  return d;
}

// A product operand of a bf16 twin as the fp32 descriptor D its checks and
// geometry read: the caller's fp32 descriptor, or (bf16) an alias of its
// bf16 data.
template <class D> struct ProductOperand {
  D d;
  bool bf16;
  // The operand as the fp32 kernels take it: widened into `slot` when bf16.
  D fp32(int slot) const { return bf16 ? bf16_widened(d, slot) : d; }
};
template <class D> ProductOperand<D> fp32_operand(const D *m, const char *kernel, const char *arg) {
  DXRT_KERNEL_CHECK(m != nullptr, kernel, str("argument '", arg, "' is a null descriptor"));
  return {*m, false};
}
template <class D, class B> ProductOperand<D> bf16_operand(const B *m, const char *kernel, const char *arg) {
  return {bf16_alias<D>(m, kernel, arg), true};
}

// Stride, padding, dilation and groups of a convolution twin's call, as the
// fp32 kernels take them, and the extern "C" parameter list and values that
// carry them (Conv2d.cpp, Conv2dBlocked.cpp).
struct ConvArgs {
  int64_t sh, sw, pt, pb, pl, pr, dh, dw, groups;
};
#define DXRT_CONV_ARGS                                                                                                 \
  int64_t sh, int64_t sw, int64_t pt, int64_t pb, int64_t pl, int64_t pr, int64_t dh, int64_t ddw, int64_t groups
#define DXRT_CONV_ARG_VALUES                                                                                           \
  { sh, sw, pt, pb, pl, pr, dh, ddw, groups }
inline ConvGeometry conv_geometry(const char *k, const Tensor4 &x, const Tensor4 &w, const Tensor4 &y,
                                  const ConvArgs &a) {
  return conv_geometry(k, x, w, y, a.sh, a.sw, a.pt, a.pb, a.pl, a.pr, a.dh, a.dw, a.groups);
}

// The BlockedSides bits (Conv2d.h) of a twin's bf16 x and dy.
template <class D> int bf16_sides(const ProductOperand<D> &x, const ProductOperand<D> &dy) {
  return (x.bf16 ? kXSideBf16 : 0) | (dy.bf16 ? kYSideBf16 : 0);
}

} // namespace dxrt
