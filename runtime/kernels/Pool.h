// The 2x2, stride-2, unpadded pooling loops of Pool.cpp (and the 2x2x2 max
// gradient of Pool3d.cpp) have one implementation per instruction set; the
// kernels run the first one this CPU has. Tests run each by name to
// compare them.
#pragma once

#include "kernels/Shapes.h"

#include <cstdint>
#include <vector>

namespace dxrt {

// The implementations this CPU can run, the kernels' choice first: "avx512f"
// and "avx2" where the CPU has them, then "scalar".
std::vector<const char *> pool_2x2_paths();

// Implementation `path` over `planes` planes of [h, w] (h, w >= 2): x and dx
// are [planes, h, w], y and dy [planes, h/2, w/2]; kind is 0 (max) or 1
// (average). Returns false, having done nothing, for a path not in
// pool_2x2_paths().
bool pool_2x2_forward(const char *path, int64_t kind, int64_t planes, int64_t h, int64_t w, const float *x, float *y);
bool pool_2x2_grad(const char *path, int64_t kind, int64_t planes, int64_t h, int64_t w, const float *x,
                   const float *dy, float *dx);

// The same for the 3-D kernels' 2x2x2 max gradient (Pool3d.cpp): its
// paths, "avx512f" where the CPU has it, then "scalar" (the kernels run the
// first); and one path over `planes` volumes x, dx [planes, d, h, w]
// (d, h, w >= 2), dy [planes, d/2, h/2, w/2].
std::vector<const char *> pool3d_2x2x2_grad_paths();
bool pool3d_2x2x2_max_grad(const char *path, int64_t planes, int64_t d, int64_t h, int64_t w, const float *x,
                           const float *dy, float *dx);

// The channel-blocked pooling loops (PoolBlocked.cpp), implementation
// `path` ("avx512f" where the CPU has it and block is 16, "avx2" where it
// has it, or "scalar"; the kernels run the first of these that applies),
// over `blocks` = N*C/block planes of [h, w, block] (block 16 or 8): the
// forward (x -> y) or the gradient (x, dy -> dx), g the geometry of one
// plane. Returns false for a path or block it cannot run.
bool pool_blocked_run(const char *path, int64_t block, bool grad, int64_t kind, const PoolGeometry &g,
                      int64_t blocks, const float *x, const float *y_or_dy, float *y_or_dx);

// The same on relu?(x * scale + shift) instead of x (dxrt_pool_*_blocked_pre):
// scale and shift hold one float per channel, plane p's channels are block
// p % channel_blocks. The 2x2 vector loops apply the map as they load x;
// other windows (and the scalar path) make each plane's input in a buffer
// first.
bool pool_blocked_run_pre(const char *path, int64_t block, bool grad, int64_t kind, const PoolGeometry &g,
                          int64_t blocks, int64_t channel_blocks, const float *x, const float *scale,
                          const float *shift, bool relu, const float *y_or_dy, float *y_or_dx);

} // namespace dxrt
