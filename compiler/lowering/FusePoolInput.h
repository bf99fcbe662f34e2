#pragma once

#include "mlir/Pass/Pass.h"

#include <memory>

namespace dx {

// dx-fuse-pool-input (CPU target, after the elementwise fusion): a
// channel-blocked pooling call (dxrt_pool_forward_blocked, and the
// gradient's dxrt_pool_grad_blocked) whose input only poolings read and is
// made by a per-channel map of one activation x,
//
//   y = relu?(x * scale + shift)     scale, shift: per channel
//
// (a batch norm and its relu, a scale and bias, a bias and relu, a relu),
// reads x instead and applies the map itself: a call to the kernel's _pre
// twin with scale and shift as [C/B, B] tensors, computed by a small
// generic over the channels from the map's own body (the same ops, so the
// same values), and relu a flag. The map's full-size result is never
// written: the step moves one activation-sized write and its reads fewer,
// and the pooling reads x, which the batch norm's statistics have just
// read, instead of a tensor written with streaming stores.
//
// The map matches when its body yields maximumf(v, +0) (relu) or v, v being
// x * s + t, x * s, x + t or x (either operand order), with s and t
// computed only from per-channel inputs, read through (n, cb, h, w, c) ->
// (cb, c), constants and values from outside it, and no contract flag on
// the product or the sum. A missing s is 1 and a
// missing t is -0 (v + -0 = v for every v, -0 included), so the kernel's
// x * scale + shift is exactly the map's value (libdxrt rounds the product
// before the sum, as the map does). relu is arith.maximumf(v, +0): a NaN
// stays, -0 becomes +0.
std::unique_ptr<mlir::Pass> createFusePoolInputPass();
void registerFusePoolInputPass();

} // namespace dx
