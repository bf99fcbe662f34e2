#pragma once

#include "mlir/Pass/Pass.h"

#include <memory>

namespace dx {

// dx-propagate-layouts (CPU, after dx-to-linalg{channel-block=16|8} and
// inlining): dx-to-linalg wraps each 2-D convolution that can run in
// nChw16c or nChw8c in tensor.pack of its activations and tensor.unpack of
// its results. This
// pass moves those packs and unpacks through the elementwise and reduction
// linalg.generics between convolutions (MLIR's data-layout propagation:
// a relu, a bias add, a relu gradient and a bias gradient then run on
// [N, C/B, H, W, B] with their per-channel operands as [C/B, B]),
// until an unpack meets a pack of the same tiles and both fold away. The
// activations between two convolutions then stay in oneDNN's layout, and
// libdxrt reorders neither; an elementwise generic whose inputs are all
// unpacks (a residual add) is moved onto the packed tensors by a pattern of
// its own. What is left meets an operation that reads NCHW (a reshape to a
// dense layer, a dropout, the loss): each packed
// activation left becomes a call of dxrt_nchw_to_blocked or
// dxrt_blocked_to_nchw (as many as the reorders libdxrt made before, at
// most), and a per-channel vector a reshape.
std::unique_ptr<mlir::Pass> createPropagateLayoutsPass();
// Registers it and dx-drop-unit-block-dims (after elementwise fusion): a
// fused generic that fusion expanded to a fifth, unit loop around an NCHW
// kernel activation ([N, C, H, W, 1]) loses that loop again.
void registerPropagateLayoutsPass();

} // namespace dx
