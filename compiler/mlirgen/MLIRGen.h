// MLIRGen: the checked program -> a module of dx ops. Every op carries the
// location of the .dx call that made it (with the block instantiation chain
// as call sites), so errors in any later stage point at the .dx source.
#pragma once

#include "sema/Sema.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace dx {

// For each model: func @NAME(inputs..., params...) -> outputs (inference).
// For the trained model also func @NAME_loss(input, [labels,] params...) -> loss.
// Parameters carry {dx.param = "path"} (and dx.buffer for running statistics).
mlir::OwningOpRef<mlir::ModuleOp> mlirGen(mlir::MLIRContext &ctx, const Program &prog, const SourceManager &sm);

} // namespace dx
