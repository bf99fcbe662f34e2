// The dx dialect's C++ entry point: include this to use dx ops.
#pragma once

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace dx::ir {

template <typename ConcreteType>
class DxRegistryOp : public mlir::OpTrait::TraitBase<ConcreteType, DxRegistryOp> {};

// Re-runs the registry's shape rule for `op` (a generated dx op) on its
// operand types and attributes, and checks its result and parameter types.
mlir::LogicalResult verifyAgainstRegistry(mlir::Operation *op);

// The `kind` of dx.pairwise_loss_grad for a pairwise loss op ("dx.mse" ->
// "mse"); l1 is mae under another name.
inline std::string pairwiseLossKind(llvm::StringRef opName) {
  llvm::StringRef kind = opName.drop_front(3);
  return kind == "l1" ? "mae" : kind.str();
}

} // namespace dx::ir

#include "dialect/DxDialect.h.inc"

#define GET_OP_CLASSES
#include "dialect/DxOps.h.inc"
