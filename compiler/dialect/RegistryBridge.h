// Conversions between sema's types and values and MLIR's types and
// attributes, shared by MLIRGen and the dx ops' verifiers.
#pragma once

#include "sema/OpRegistry.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

#include <optional>

namespace dx::ir {

// Symbolic dims become dynamic (?) dims.
mlir::RankedTensorType toMlirType(mlir::MLIRContext *ctx, const TensorType &t);
// Dynamic dims become the symbol "?"; nullopt for element types dx lacks.
std::optional<TensorType> fromMlirType(mlir::Type t);

// A registry attribute value (resolved by sema) as an MLIR attribute.
mlir::Attribute toMlirAttr(mlir::MLIRContext *ctx, const AttrSpec &spec, const Value &v);
// The reverse, for re-running shape rules; nullopt if the attribute is malformed.
std::optional<Value> fromMlirAttr(const AttrSpec &spec, mlir::Attribute a);

} // namespace dx::ir
