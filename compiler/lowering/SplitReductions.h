#pragma once

#include "mlir/Pass/Pass.h"

#include <memory>

namespace dx {

// dx-split-reductions: for --target=cuda, on linalg on tensors (before
// bufferization). dx-prepare-gpu gives a reduction one GPU thread per output
// element, looping over the whole reduced extent (batch-norm statistics: 32
// threads summing B*28*28 values each). This pass splits a large reduction
// with few outputs in two linalg.generic ops:
//
//   stage 1 (all parallel, outputs x K threads): partial k of an output
//     combines the elements r = k, k + K, k + 2K, ... < R of the reduction
//     space linearised in loop order (R = product of the reduction extents,
//     dynamic ones too; neighbouring threads read neighbouring elements),
//     in an scf.for in the body starting from the combiner's neutral element;
//   stage 2: combines the K partials of each output into the original init.
//
// Only ops whose every output is `out = combiner(out, f(inputs))` with a
// combiner that has a neutral element (addf, maximumf, ...), whose parallel
// extents are static, and whose reduced extent is large (>= min-extent, 64,
// dynamic extents estimated as dynamic-extent, by default the train block's
// batch per rank) are split; stage 2 is split again when it still qualifies.
// The split depends on shapes only: results are reproducible; a floating-point
// sum is summed in another order. See docs/cuda.md.
std::unique_ptr<mlir::Pass> createSplitReductionsPass();
void registerSplitReductionsPass();

} // namespace dx
