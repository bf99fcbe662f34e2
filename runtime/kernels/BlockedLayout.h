// The channel-blocked layouts nChw16c and nChw8c: an NCHW tensor whose
// channels are cut into blocks of B = 16 or 8, each block stored innermost,
// [N, C/B, H, W, B] (oneDNN's nChw16c, nChw8c). oneDNN's convolutions
// compute in one of them (16 with AVX-512, 8 with AVX2), so generated code
// that keeps the activations between two convolutions in that layout (dxc's
// dx-propagate-layouts; docs/codegen.md) saves the reorders into and out of
// every convolution. Channels must be a multiple of B: no padding.
#pragma once

#include "kernels/Descriptor.h"

#include <cstdint>

namespace dxrt {

// The channel blocks the _blocked kernels take.
inline bool is_channel_block(int64_t b) { return b == 16 || b == 8; }

// An activation of the dxrt_*_blocked kernels: a contiguous memref
// [N, C/B, H, W, B] with B = 16 or 8 (blocked) or 1 (NCHW), as its NCHW
// shape over the same data; `block` is B.
struct Activation {
  Tensor4 t;
  int64_t block;
  bool blocked() const { return block != 1; }
};
Activation activation_view(const dxrt_memref5 *m, const char *kernel, const char *arg);

// dst = src in the other layout, both n x c x hw (c a multiple of block, 16 or 8).
void nchw_to_blocked(const float *src, float *dst, int64_t n, int64_t c, int64_t hw, int64_t block);
void blocked_to_nchw(const float *src, float *dst, int64_t n, int64_t c, int64_t hw, int64_t block);

} // namespace dxrt
