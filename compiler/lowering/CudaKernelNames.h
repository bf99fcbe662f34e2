#pragma once

#include "mlir/Pass/Pass.h"

#include <memory>

namespace dx {

// dx-cuda-kernel-names: for --target=cuda, every call into libdxrt
// (@dxrt_dense_forward, @dxrt_workspace, ...) goes to its device twin in
// libdxrt_cuda (@dxrt_cuda_dense_forward, @dxrt_cuda_workspace, ...): same
// operands and results, but the memrefs are device memory. Renames the
// private declarations and every call to them.
std::unique_ptr<mlir::Pass> createCudaKernelNamesPass();
void registerCudaKernelNamesPass();

} // namespace dx
