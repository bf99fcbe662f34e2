#include "dialect/DxDialect.h"

#include "dialect/DxDialect.cpp.inc"

#define GET_OP_CLASSES
#include "dialect/DxOps.cpp.inc"

namespace dx::ir {

void DxDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialect/DxOps.cpp.inc"
      >();
}

} // namespace dx::ir
