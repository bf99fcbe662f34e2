// Reverse-mode gradient rules, one per dx op, all in GradientRules.cpp.
#pragma once

#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"

namespace dx {

// Emits ops computing the adjoints of `op`'s operands from the adjoints of
// its results (null where a result has none). Fills `dOperands` (one entry
// per operand, null where no gradient flows). Fails, with an error at the
// op's .dx location, if the op has no rule.
mlir::LogicalResult buildGradient(mlir::OpBuilder &b, mlir::Operation *op, llvm::ArrayRef<mlir::Value> dResults,
                                  llvm::SmallVectorImpl<mlir::Value> &dOperands);

// True if the op has a gradient rule (or needs none).
bool hasGradientRule(llvm::StringRef opName);

// Creates a registry-defined dx op (e.g. "dx.sum") from inputs, params and attributes.
mlir::Value createRegistryOp(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef name, mlir::ValueRange inputs,
                             mlir::ValueRange params, llvm::ArrayRef<mlir::NamedAttribute> attrs, mlir::Type result);

// The tensor inputs and the parameter operands of a registry-defined dx op.
mlir::OperandRange registryInputs(mlir::Operation *op);
mlir::OperandRange registryParams(mlir::Operation *op);

} // namespace dx
