#include "dialect/DxDialect.h"

#include "mlir/Transforms/InliningUtils.h"

#include "dialect/DxDialect.cpp.inc"

#define GET_OP_CLASSES
#include "dialect/DxOps.cpp.inc"

namespace dx::ir {

namespace {
// dx ops are pure functions of their operands (random ops of their stream
// key), so they may be inlined anywhere: the exported ABI functions inline
// the model's train and eval functions.
struct DxInlinerInterface : mlir::DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(mlir::Operation *, mlir::Region *, bool, mlir::IRMapping &) const final { return true; }
  bool isLegalToInline(mlir::Region *, mlir::Region *, bool, mlir::IRMapping &) const final { return true; }
};
} // namespace

void DxDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialect/DxOps.cpp.inc"
      >();
  addInterfaces<DxInlinerInterface>();
}

} // namespace dx::ir
