// dx-opt: runs passes over dx (and upstream) IR, for lit tests.
#include "dialect/DxDialect.h"
#include "transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  dx::registerDxPasses();
  mlir::DialectRegistry registry;
  registry.insert<dx::ir::DxDialect, mlir::func::FuncDialect>();
  return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, "DeepEx optimizer driver\n", registry));
}
