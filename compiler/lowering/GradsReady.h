#pragma once

#include "mlir/Pass/Pass.h"

#include <memory>

namespace dx {

// dx-grads-ready: lets the runtime all-reduce gradients while the backward
// pass computes the rest (CPU pipeline, on tensors, after inlining, before
// bufferization). dx-build-abi stores each parameter's gradient into the
// gradient arena at the end of dx_train_step, marked with its offset and
// size (dx.grad_offset, dx.grad_size). This pass
//  - moves each such store (and the view it stores into) to right after
//    the op that computes the gradient, so the gradient lands in the arena
//    as soon as it is final (bufferization then usually computes it there);
//  - after a store, when the gradients now in the arena cover a longer
//    suffix [first, end) of it than before, calls dxrt_grads_ready(first).
// Backward runs in reverse layer order and parameters lie in layer order,
// so the suffix grows layer by layer from the end; the runtime all-reduces
// a bucket once the suffix covers it (docs/abi.md, "Gradients ready").
//  - lets a library call that computes a gradient (a dense or convolution
//    weight gradient) write it into the arena's view, instead of a buffer
//    of the workspace that the store then copies.
// Only where stores go and one call per growth change: no arithmetic does.
std::unique_ptr<mlir::Pass> createGradsReadyPass();
void registerGradsReadyPass();

} // namespace dx
