// The _bf16x kernels' x (kernels.h: a product's input stored in bf16 by
// dxc's dx-bf16-product-inputs): an fp32 descriptor of the same sizes over
// the bf16 data, for the fp32 kernels' checks and geometry (its pointer is
// the bf16 data's, not to be read as floats), and x widened to fp32 for the
// paths that compute on floats. Widening is exact, and the fp32 kernels'
// rounding of a bf16 value is that value, so a _bf16x kernel that widens
// gives the bits of its fp32 twin on the rounded x.
#pragma once

#include "dxrt/kernels.h"
#include "common/Check.h"
#include "kernels/Bf16Round.h"
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

// alias (checked contiguous by the caller's view()) widened into the
// workspace slot kSlotWideX: a contiguous fp32 descriptor of the same sizes.
template <class D> D bf16_widened(const D &alias) {
  int64_t n = 1;
  for (int64_t s : alias.sizes) n *= s;
  float *wide = workspace(size_t(n), kSlotWideX);
  const uint16_t *src = reinterpret_cast<const uint16_t *>(alias.aligned);
  for (int64_t i = 0; i < n; ++i) wide[i] = bf16_bits_to_float(src[i]);
  D d = alias;
  d.allocated = d.aligned = wide;
  int64_t stride = 1;
  for (int i = int(sizeof d.sizes / sizeof d.sizes[0]) - 1; i >= 0; --i) d.strides[i] = stride, stride *= d.sizes[i];
  return d;
}

} // namespace dxrt
