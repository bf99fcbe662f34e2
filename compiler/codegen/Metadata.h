#pragma once

#include "sema/Sema.h"

#include "mlir/IR/BuiltinOps.h"

namespace dx {

// Attaches what the runtime needs to know about the program to the module:
// `dx.metadata` (JSON: model, input, outputs, layers, train and dataset
// blocks; see docs/abi.md) and `dx.optimizer` (kind and hyper-parameters,
// read by dx-build-abi to generate the update). `convLayout`: the layout of
// 2-D convolution activations the CPU build keeps (nchw16c, nchw8c or
// nchw; empty for CUDA), stated as "conv_layout" for the runtime's banner.
void annotateModule(mlir::ModuleOp module, const Program &prog, const SourceManager &sm, const std::string &target,
                    const std::string &convLayout);

} // namespace dx
