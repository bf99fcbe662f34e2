#pragma once

#include "mlir/IR/BuiltinOps.h"

namespace dx {

// Part of dx-to-linalg{generated-pooling=1} (dxc's hidden --generated-pooling;
// off by default until the fused backward passes run at memory speed,
// docs/codegen.md section 4), before the other ops are lowered: a 2-D max pooling
// that the layout plan keeps channel-blocked (dx.blocked = B, 16 or 8) and
// whose windows tile the plane (stride = kernel, no padding, H and W
// multiples of the kernel, at most 16 elements) becomes generated code
// instead of a dxrt_pool_*_blocked call, and so does its gradient:
//
//  - forward: one elementwise linalg.generic over the pooled pixels that
//    reads the kh*kw strided slices of the packed input x[:, :, i::kh, j::kw, :]
//    (one per window position, each [N, C/B, OH, OW, B] with the channels
//    innermost) and yields the window's maximum by libdxrt's rule (row-major
//    order, the first maximal element wins, the first NaN stays) and, when a
//    gradient reads the same pooling, the winner's position in the window
//    (i8, 0 .. kh*kw-1);
//  - gradient: an elementwise generic over the input's pixels that reads dy
//    and the winner at (h / kh, w / kw) and yields dy where the pixel's
//    position in its window, (h % kh) * kw + w % kw, is the winner, else 0.
//
// Both are plain elementwise ops, so the code around them fuses with them:
// the batch norm + relu before a pooling is recomputed on the slices
// (dx-fuse-cheap-producers) instead of written and read again, and the
// gradient's routing fuses into the batch norm's backward passes, which then
// read dy at a quarter of the size instead of a full-size gradient that a
// library call wrote. The values are exactly those of the library kernels
// (runtime/kernels/PoolBlocked.cpp): the same comparisons in the same order,
// and each input pixel in exactly one window.
void generateMaxPools(mlir::ModuleOp module);

} // namespace dx
