// The nChw16c layout: an NCHW tensor whose channels are cut into blocks of
// 16, each block stored innermost, [N, C/16, H, W, 16] (oneDNN's nChw16c).
// oneDNN's AVX-512 convolutions compute in it, so generated code that keeps
// the activations between two convolutions in it (dxc's
// dx-propagate-layouts; docs/codegen.md) saves the reorders into and out of
// every convolution. Channels must be a multiple of 16: no padding.
#pragma once

#include "kernels/Descriptor.h"

#include <cstdint>

namespace dxrt {

constexpr int64_t kChannelBlock = 16;

// An activation of the dxrt_conv2d_*_nchw16c kernels: a contiguous memref
// [N, C/B, H, W, B] with B = 16 (nChw16c) or 1 (NCHW), as its NCHW shape
// over the same data; `blocked` says which.
struct Activation {
  Tensor4 t;
  bool blocked;
};
Activation activation_view(const dxrt_memref5 *m, const char *kernel, const char *arg);

// dst = src in the other layout, both n x c x hw (c a multiple of 16).
void nchw_to_nchw16c(const float *src, float *dst, int64_t n, int64_t c, int64_t hw);
void nchw16c_to_nchw(const float *src, float *dst, int64_t n, int64_t c, int64_t hw);

} // namespace dxrt
