#pragma once

#include "mlir/Pass/Pass.h"

#include <memory>

namespace dx {

// dx-emulate-gpu-order{order=forward|reverse|odd-even}: a test of the CUDA
// lowering's parallelism on the CPU. It runs where the CUDA pipeline would
// map loops to the GPU (after dx-prepare-gpu and the tiling into blocks of
// threads) and makes every scf.parallel visit its iterations in another
// order: each induction variable goes through a bijection of its iteration
// space (forward: as written; reverse: the last first; odd-even: the odd
// iterations, then the even ones). The loops then run sequentially on the
// CPU (convert-scf-to-cf). dxc runs dx-strip-fast-math (StripFastMath.h)
// with it: with `reassoc`, LLVM might vectorize a thread's sum into partial
// sums in one order's build and not in another's.
//
// A GPU runs a kernel's threads in no particular order, so a correct kernel
// gives the same bits whatever the order; one whose iterations depend on each
// other (a race on the GPU) gives other numbers in another order. dxc's
// hidden --emulate-gpu=ORDER builds a CPU executable this way; the lit test
// emulate-gpu-*.test train the examples in each order and compare the
// results bit for bit, also with the CPU build's (--split-reductions
// --strict-fp: the same sums in the same order).
//
// The loss read-back that dx-prepare-gpu made a call of libdxrt_cuda
// (@dxrt_cuda_read_f32) becomes a plain load again.
std::unique_ptr<mlir::Pass> createEmulateGpuOrderPass();
void registerEmulateGpuOrderPass();

} // namespace dx
