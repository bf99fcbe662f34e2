#pragma once

#include "mlir/Pass/Pass.h"
#include "llvm/ADT/APFloat.h"

#include <cstdint>
#include <memory>
#include <optional>

namespace mlir::vector {
enum class CombiningKind : uint32_t;
} // namespace mlir::vector

namespace dx {

// dx-vectorize-cpu{vector-bits=N}: the CPU pipeline's vector code, on the
// planned memrefs (after dx-plan-memory), before the remaining linalg ops
// become scalar loops. For every linalg.generic:
//  0. read operands indexed by a constant 0 in a unit dim (keepdim
//     statistics, [N, 1, H, W] at (n, 0, h, w)) through a collapse_shape
//     without that dim, so their maps are projected permutations;
//  1. collapse runs of iteration dims that are contiguous in every operand
//     and have the same iterator type ([N, C, H, W] batch-norm statistics
//     become [N, C, H*W]; an elementwise op becomes 1-D);
//  2. loop over every dim but the innermost with step 1 (parallel dims
//     outside, reduction dims inside), the innermost in tiles of 2 vector
//     registers (or the whole dim when it is that short), the remainder of
//     a dim that the tile does not divide in a scalar loop;
//  3. vectorize each full tile (linalg::vectorize), drop its unit dims and
//     load and store 1-D vectors;
//  4. keep accumulators in registers: a reduction's output tile, read and
//     written at the same place in every iteration of a reduction loop, is
//     read before the loop, carried through it and written after it;
//  5. replace exp/log/tanh/erf/... on f32 by MLIR's polynomial
//     approximations, which vectorize (libm calls would scalarize);
//  6. move reads that do not depend on a loop (a broadcast bias, a
//     channel's mean) out of it, and what is computed from them alone;
//  7. with streaming-stores (x86): an elementwise op writing planned
//     buffers gets a second copy, run when its output is 4 MiB or more, whose
//     vector stores are non-temporal, followed by an sfence.
// Ops whose innermost dim is not contiguous in an operand, or that
// vectorize rejects (gathers, non-projected maps), keep scalar loops.
//
// Steps 4 and 6 rely on what bufferization and the memory plan guarantee:
// buffers live at the same time never overlap, so a store moves only data
// of its own buffer (an op's output overlaps none of its inputs, unless it
// is the same buffer, in place). LLVM cannot know it: every buffer is a
// view of one workspace.
std::unique_ptr<mlir::Pass> createVectorizeCpuPass(int64_t vectorBits = 256, bool streamingStores = false);
void registerVectorizeCpuPass();

// The float that leaves every value unchanged under `kind`, from which the
// CPU vector passes start partial results (this pass's lane-wise partials,
// dx-interleave-accumulators' extra accumulators): -0 for sums (-0 + x = x
// for every x; +0 would turn a sum of -0s into +0), 1, -inf for maximumf,
// +inf for minimumf. nullopt for the other kinds: maxnumf/minnumf's would be
// NaN (-inf would turn an all-NaN maxnum into -inf), and the lowering makes
// none.
std::optional<llvm::APFloat> floatNeutralElement(mlir::vector::CombiningKind kind, const llvm::fltSemantics &sem);

} // namespace dx
