#include "kernels/Descriptor.h"

namespace dxrt {

template <int R>
static float *checked_base(float *aligned, int64_t offset, const int64_t (&sizes)[R], const int64_t (&strides)[R],
                           const char *kernel, const char *arg) {
  int64_t expected = 1, numel = 1;
  for (int d = R - 1; d >= 0; --d) {
    DXRT_KERNEL_CHECK(sizes[d] >= 0, kernel, str("argument '", arg, "' has a negative size ", sizes[d], " in dimension ", d));
    DXRT_KERNEL_CHECK(sizes[d] <= 1 || strides[d] == expected, kernel,
                      str("argument '", arg, "' is not contiguous: dimension ", d, " has stride ", strides[d],
                          ", expected ", expected));
    expected *= sizes[d];
    numel *= sizes[d];
  }
  DXRT_KERNEL_CHECK(offset >= 0, kernel, str("argument '", arg, "' has a negative offset ", offset));
  DXRT_KERNEL_CHECK(numel == 0 || aligned != nullptr, kernel, str("argument '", arg, "' has a null data pointer"));
  return aligned ? aligned + offset : nullptr;
}

Vec view(const dxrt_memref1 *m, const char *kernel, const char *arg) {
  DXRT_KERNEL_CHECK(m != nullptr, kernel, str("argument '", arg, "' is a null descriptor"));
  float *p = checked_base<1>(m->aligned, m->offset, m->sizes, m->strides, kernel, arg);
  return {p, m->sizes[0]};
}

Mat view(const dxrt_memref2 *m, const char *kernel, const char *arg) {
  DXRT_KERNEL_CHECK(m != nullptr, kernel, str("argument '", arg, "' is a null descriptor"));
  float *p = checked_base<2>(m->aligned, m->offset, m->sizes, m->strides, kernel, arg);
  return {p, m->sizes[0], m->sizes[1]};
}

Tensor4 view(const dxrt_memref4 *m, const char *kernel, const char *arg) {
  DXRT_KERNEL_CHECK(m != nullptr, kernel, str("argument '", arg, "' is a null descriptor"));
  float *p = checked_base<4>(m->aligned, m->offset, m->sizes, m->strides, kernel, arg);
  return {p, m->sizes[0], m->sizes[1], m->sizes[2], m->sizes[3]};
}

Tensor5 view(const dxrt_memref5 *m, const char *kernel, const char *arg) {
  DXRT_KERNEL_CHECK(m != nullptr, kernel, str("argument '", arg, "' is a null descriptor"));
  float *p = checked_base<5>(m->aligned, m->offset, m->sizes, m->strides, kernel, arg);
  return {p, m->sizes[0], m->sizes[1], m->sizes[2], m->sizes[3], m->sizes[4]};
}

} // namespace dxrt
