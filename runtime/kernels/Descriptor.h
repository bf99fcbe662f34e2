// Checked views of the memref descriptors that generated code passes to the
// kernels. Each check names the kernel and the argument; a failure aborts
// (see DXRT_KERNEL_CHECK).
#pragma once

#include "common/Check.h"
#include "dxrt/kernels.h"

#include <cstdint>
#include <string>

namespace dxrt {

// A contiguous vector.
struct Vec {
  float *p;
  int64_t n;
};

// A row-major matrix.
struct Mat {
  float *p;
  int64_t rows, cols;
};

// A contiguous NCHW tensor.
struct Tensor4 {
  float *p;
  int64_t n, c, h, w;
  int64_t numel() const { return n * c * h * w; }
};

// A contiguous NCDHW tensor (3-D convolution and pooling).
struct Tensor5 {
  float *p;
  int64_t n, c, d, h, w;
  int64_t numel() const { return n * c * d * h * w; }
};

// Whether two tensors have the same shape, and a shape as "[n, c, h, w]",
// for the kernels' checks of their operands against each other.
inline bool same_shape(const Tensor4 &a, const Tensor4 &b) {
  return a.n == b.n && a.c == b.c && a.h == b.h && a.w == b.w;
}
inline bool same_shape(const Tensor5 &a, const Tensor5 &b) {
  return a.n == b.n && a.c == b.c && a.d == b.d && a.h == b.h && a.w == b.w;
}
inline std::string shape(const Tensor4 &t) { return str("[", t.n, ", ", t.c, ", ", t.h, ", ", t.w, "]"); }
inline std::string shape(const Tensor5 &t) { return str("[", t.n, ", ", t.c, ", ", t.d, ", ", t.h, ", ", t.w, "]"); }

// Checks that the descriptor is non-null, has non-negative sizes and an offset,
// and the strides of a contiguous row-major array (a dimension of size 1 may
// carry any stride), then returns the view at aligned + offset.
Vec view(const dxrt_memref1 *m, const char *kernel, const char *arg);
Mat view(const dxrt_memref2 *m, const char *kernel, const char *arg);
Tensor4 view(const dxrt_memref4 *m, const char *kernel, const char *arg);
Tensor5 view(const dxrt_memref5 *m, const char *kernel, const char *arg);

// The descriptor the workspace functions return (dxrt_workspace and its
// device twin dxrt_cuda_workspace): `bytes` bytes at `base`, contiguous.
inline void describe_bytes(dxrt_memref_i8 *result, void *base, int64_t bytes) {
  result->allocated = static_cast<int8_t *>(base);
  result->aligned = static_cast<int8_t *>(base);
  result->offset = 0;
  result->sizes[0] = bytes;
  result->strides[0] = 1;
}

} // namespace dxrt
