#include "driver/EmitMLIR.h"

#include "mlirgen/MLIRGen.h"
#include "transforms/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/raw_ostream.h"

namespace dx {

int emitMLIR(const Program &prog, const SourceManager &sm, const std::string &stage, bool withLocations) {
  mlir::MLIRContext ctx;
  // Errors of later stages carry the .dx location of the op at fault.
  mlir::ScopedDiagnosticHandler handler(&ctx, [](mlir::Diagnostic &d) {
    llvm::errs() << d.getLocation() << ": "
                 << (d.getSeverity() == mlir::DiagnosticSeverity::Error ? "error: " : "note: ") << d.str() << "\n";
    return mlir::success();
  });
  auto module = mlirGen(ctx, prog, sm);
  if (!module) {
    llvm::errs() << "dxc: internal error: MLIRGen produced an invalid dx module\n";
    return 1;
  }
  if (stage == "dx-grad") {
    mlir::PassManager pm(&ctx);
    pm.addPass(createAutodiffPass());
    // Drop gradients nobody needs (e.g. of the input batch).
    pm.addPass(mlir::createCanonicalizerPass());
    pm.addPass(mlir::createCSEPass());
    if (mlir::failed(pm.run(*module))) return 1;
  }
  mlir::OpPrintingFlags flags;
  if (withLocations) flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  module->print(llvm::outs(), flags);
  llvm::outs() << "\n";
  llvm::outs().flush();
  return 0;
}

} // namespace dx
