// dx-opt: runs dx and upstream passes over MLIR files, for lit tests.
#include "codegen/Pipeline.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  dx::registerPipelinePasses();
  mlir::DialectRegistry registry;
  dx::registerCodegenDialects(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, "DeepEx optimizer driver\n", registry));
}
