// --target=cuda: one fatbin per gpu.binary, with a cubin for every
// architecture and the PTX of the lowest one.
#pragma once

#include "mlir/IR/BuiltinOps.h"

namespace dx {

// After gpu-module-to-binary{format=isa}: every gpu.binary holds one PTX
// object per nvvm target (one per --gpu-arch). For each, runs
// `ptxas -arch=sm_XX -O3` on the PTX of every architecture and
// `fatbinary --create` over the cubins plus the PTX of the lowest
// architecture (which the driver compiles for GPUs newer than all of them),
// and replaces the objects by ONE object in format fatbin. gpu-to-llvm and
// the translation embed it and load it with mgpuModuleLoad(blob, size)
// (cuModuleLoadData picks the image for the GPU).
//
// The tools are $CUDA_HOME/bin/{ptxas,fatbinary}; temporary files are
// removed. A tool that is missing or fails (an architecture ptxas does not
// know, say) is an error naming the tool, the architecture and the tool's
// messages.
mlir::LogicalResult buildFatbins(mlir::ModuleOp module);

} // namespace dx
