#pragma once

#include "mlir/Pass/Pass.h"

#include <memory>

namespace dx {

// dx-fuse-reduction-loops (CPU pipeline, on tensors, before bufferization):
// a normalisation is a reduction over most of a tensor (a batch norm's sums
// over N, H, W per channel; a layer norm's or softmax's over a row) and then
// an elementwise pass over the same tensor that reads the reduction's result
// broadcast. As two loop nests, the second pass reads the whole tensor again
// from memory. This pass tiles the elementwise consumer along the dims its
// broadcast operand keeps (the channel; the row) with tile size 1 and fuses
// the reduction, and the small ops between (mean, variance, the first
// sample's shift), into that loop: the consumer's tile then reads what the
// reduction just read, from cache (a channel of a [64, 32, 32, 32] batch is
// 256 KiB; a row is a few KiB).
//
// Only the order of the loops changes: each element is computed by the same
// arithmetic, each reduction over the same elements in the same order, so
// results are bit-identical. Every fused producer's full result is yielded
// by the loop (what used it before the loop uses that), so nothing is
// computed twice and every buffer stays at the function's top level for the
// memory plan.
//
// A consumer is a candidate when all its loops are parallel, one of its
// inputs is broadcast along some dims from a reduction (directly or through
// small ops), the tiled dims leave its innermost dim untiled and at least 16
// elements of static extent per tile (the vector loop keeps its width), and
// the fused ops are those after its latest full-size input (so a forward
// statistic is never pulled into the backward pass's loop).
std::unique_ptr<mlir::Pass> createFuseReductionLoopsPass();
void registerFuseReductionLoopsPass();

} // namespace dx
