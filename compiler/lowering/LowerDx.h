#pragma once

#include "mlir/Pass/Pass.h"

#include <memory>

namespace dx {

// dx-to-linalg: every dx op to linalg/tensor/arith/math on tensors; GEMM,
// convolution, pooling and random numbers to calls into libdxrt.
std::unique_ptr<mlir::Pass> createLowerDxPass();
void registerLowerDxPass();

} // namespace dx
