#pragma once

#include "mlir/Pass/Pass.h"

#include <memory>

namespace dx {

// dx-prepare-gpu: for --target=cuda, after bufferization and the memory plan,
// turns everything in a step function that reads or writes memory into
// one-dimensional scf.parallel loops, which scf-parallel-loop-tiling,
// gpu-map-parallel-loops and convert-parallel-loops-to-gpu make into kernels:
// the memory is the GPU's, the host must not touch it. What it cannot move
// to the GPU is an error at the op's .dx location. See docs/cuda.md.
std::unique_ptr<mlir::Pass> createPrepareGpuPass();
void registerPrepareGpuPass();

} // namespace dx
