#pragma once

#include "mlir/Pass/Pass.h"

#include <memory>

namespace dx {

// The gpu.module every kernel ends up in.
inline constexpr const char *kMergedGpuModuleName = "dx_kernels";

// dx-merge-gpu-modules: for --target=cuda, right after gpu-kernel-outlining
// (which makes one gpu.module per kernel): moves every kernel into ONE
// gpu.module, @dx_kernels (after the host functions), so that the kernels are compiled by one ptxas run
// per architecture and loaded by one module load. Every gpu.launch_func
// becomes @dx_kernels::@KERNEL.
//
// Outlining names every kernel of a function FUNC_kernel (the modules, not
// the kernels, get unique names: FUNC_kernel, FUNC_kernel_0, ...), so a
// module's only kernel takes the module's name. Other symbols the outliner
// copied into the modules (the same declaration in several) are kept once
// when the copies are identical. A clash that remains (two different symbols
// of one name), modules with different targets, or a use of a module other
// than gpu.launch_func is an error. See docs/cuda.md.
std::unique_ptr<mlir::Pass> createMergeGpuModulesPass();
void registerMergeGpuModulesPass();

} // namespace dx
