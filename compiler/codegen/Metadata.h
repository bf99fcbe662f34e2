#pragma once

#include "sema/Sema.h"

#include "mlir/IR/BuiltinOps.h"

namespace dx {

// Attaches what the runtime needs to know about the program to the module:
// `dx.metadata` (JSON: model, input, outputs, layers, train and dataset
// blocks; see docs/abi.md) and `dx.optimizer` (kind and hyper-parameters,
// read by dx-build-abi to generate the update).
void annotateModule(mlir::ModuleOp module, const Program &prog, const SourceManager &sm, const std::string &target);

} // namespace dx
