#pragma once

#include "mlir/Pass/Pass.h"

#include <memory>

namespace dx {

// dx-strip-fast-math: every arith/math op loses its fast-math flags (LowerDx
// gives reductions `reassoc`, so that LLVM may vectorize a sum into partial
// sums). Without them each sum runs in program order, whatever LLVM
// vectorizes: the builds of dxc's hidden --strict-fp and --emulate-gpu
// (EmulateGpuOrder.h) then compute the same bits whenever they sum in the
// same order.
std::unique_ptr<mlir::Pass> createStripFastMathPass();
void registerStripFastMathPass();

} // namespace dx
