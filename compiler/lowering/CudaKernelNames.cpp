#include "lowering/CudaKernelNames.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace dx {
namespace {

constexpr llvm::StringLiteral kHostPrefix = "dxrt_";
constexpr llvm::StringLiteral kDevicePrefix = "dxrt_cuda_";

struct CudaKernelNamesPass : mlir::PassWrapper<CudaKernelNamesPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CudaKernelNamesPass)
  llvm::StringRef getArgument() const override { return "dx-cuda-kernel-names"; }
  llvm::StringRef getDescription() const override {
    return "Call libdxrt_cuda's device kernels (dxrt_cuda_*) instead of libdxrt's CPU ones (dxrt_*)";
  }
  void runOnOperation() override {
    mlir::ModuleOp module = getOperation();
    mlir::SymbolTable symbols(module);
    // Only declarations: a definition named dxrt_* would be generated code,
    // which runs wherever its caller runs.
    llvm::SmallVector<mlir::func::FuncOp> decls;
    for (auto fn : module.getOps<mlir::func::FuncOp>())
      if (fn.isExternal() && fn.getName().starts_with(kHostPrefix) && !fn.getName().starts_with(kDevicePrefix))
        decls.push_back(fn);
    for (mlir::func::FuncOp fn : decls) {
      std::string device = (kDevicePrefix + fn.getName().drop_front(kHostPrefix.size())).str();
      if (auto existing = symbols.lookup<mlir::func::FuncOp>(device)) {
        // Already declared (e.g. the pass ran before): the signatures must
        // agree, or the calls would pass the wrong operands.
        if (existing.getFunctionType() != fn.getFunctionType()) {
          fn.emitError("the device twin @") << device << " of @" << fn.getName() << " has another signature";
          return signalPassFailure();
        }
        if (mlir::failed(mlir::SymbolTable::replaceAllSymbolUses(fn, existing.getSymNameAttr(), module)))
          return signalPassFailure();
        fn.erase();
        continue;
      }
      if (mlir::failed(symbols.rename(fn, mlir::StringAttr::get(&getContext(), device)))) return signalPassFailure();
    }
  }
};

} // namespace

std::unique_ptr<mlir::Pass> createCudaKernelNamesPass() { return std::make_unique<CudaKernelNamesPass>(); }
void registerCudaKernelNamesPass() { mlir::PassRegistration<CudaKernelNamesPass>(); }

} // namespace dx
