// Software prefetches for the streams of the CPU code's innermost loops.
//
// A loop that reads a tensor front to back is bound by memory when the
// tensor is not in cache (a batch norm's sums over a convolution's output,
// the optimizer's update over every parameter). The hardware prefetchers
// follow such a stream only within a 4 KiB page, so every page starts with
// misses; a prefetch of the line `distance` bytes ahead keeps the next pages'
// lines in flight. One prefetch per 64-byte line of each stream and
// iteration; values are unchanged (docs/codegen.md, section 8).
#pragma once

#include <cstdint>

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace dx {

// In every innermost loop of `m`'s functions, each stream (vector loads and
// plain vector stores whose pointers advance by the same constant step, 32
// to 1024 bytes per iteration, at constant distances from each other
// within one step) gets prefetches of the step's lines `distanceBytes`
// ahead of its lowest access, right before that access; a loop with a
// stream it only writes gets none (StreamPrefetch.cpp says why).
// distanceBytes = 0: none. Runs after the O3
// pipeline (which writes the loops' final shape: LLVM's own vectorized
// loops, unrolled copies). `tm` may be null (dx-llvm-opt's tests).
void insertStreamPrefetches(llvm::Module &m, llvm::TargetMachine *tm, uint64_t distanceBytes);

} // namespace dx
