// dx-opt: runs dx and upstream passes over MLIR files, for lit tests.
#include "codegen/Pipeline.h"
#include "lowering/BuildABI.h"
#include "lowering/CudaKernelNames.h"
#include "lowering/LowerDx.h"
#include "lowering/MergeGpuModules.h"
#include "lowering/PlanMemory.h"
#include "lowering/PrepareGpu.h"
#include "lowering/SplitReductions.h"
#include "transforms/Passes.h"

#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  dx::registerDxPasses();
  dx::registerLowerDxPass();
  dx::registerBuildABIPass();
  dx::registerPlanMemoryPass();
  dx::registerCudaKernelNamesPass();
  dx::registerPrepareGpuPass();
  dx::registerSplitReductionsPass();
  dx::registerMergeGpuModulesPass();
  dx::registerCudaPipelines();
  mlir::DialectRegistry registry;
  dx::registerCodegenDialects(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, "DeepEx optimizer driver\n", registry));
}
