#include "codegen/Pipeline.h"

#include "dialect/DxDialect.h"
#include "lowering/BuildABI.h"
#include "lowering/LowerDx.h"
#include "lowering/PlanMemory.h"
#include "transforms/Passes.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

#include <mutex>

namespace dx {

void registerCodegenDialects(mlir::DialectRegistry &registry) {
  registry.insert<ir::DxDialect>();
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
}

static void registerPassesOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    mlir::registerAllPasses();
    registerDxPasses();
    registerLowerDxPass();
    registerBuildABIPass();
    registerPlanMemoryPass();
  });
}

static mlir::LogicalResult runPasses(mlir::ModuleOp module, const std::string &pipeline) {
  mlir::PassManager pm(module.getContext());
  if (mlir::failed(mlir::parsePassPipeline(pipeline, pm, llvm::errs()))) return mlir::failure();
  return pm.run(module);
}

// After bufferization: everything to the LLVM dialect. expand-strided-metadata
// makes affine.apply ops (the sizes of reshaped dynamic memrefs, e.g. a dense
// layer over [B, T, K]), so lower-affine runs again after it.
static const char *kToLLVM =
    "buffer-deallocation-pipeline, convert-bufferization-to-memref, canonicalize, dx-plan-memory, "
    "convert-linalg-to-loops, lower-affine, "
    "convert-scf-to-cf, expand-strided-metadata, lower-affine, convert-math-to-libm, convert-math-to-llvm, "
    "finalize-memref-to-llvm, convert-arith-to-llvm, convert-index-to-llvm, convert-func-to-llvm, "
    "convert-cf-to-llvm, reconcile-unrealized-casts";

mlir::LogicalResult runPipeline(mlir::ModuleOp module, const CodegenOptions &opts, std::string *llvmIR) {
  registerPassesOnce();
  // dx -> dx with gradients -> exported ABI.
  if (opts.stopAfter == Stage::Dx) return mlir::success();
  if (mlir::failed(runPasses(module, "dx-autodiff, canonicalize, cse"))) return mlir::failure();
  if (opts.stopAfter == Stage::DxGrad) return mlir::success();
  // Exports, inlining, lowering to linalg on tensors, elementwise fusion.
  // dx-to-linalg runs before inlining: random ops read the training mode and the
  // rng key (seed, step, rank) from the function they are in, M_train_step.
  if (mlir::failed(runPasses(module, "dx-build-abi, dx-to-linalg, inline, symbol-dce, canonicalize, cse, "
                                     "linalg-fuse-elementwise-ops, canonicalize, cse")))
    return mlir::failure();
  if (opts.stopAfter == Stage::Linalg) return mlir::success();
  if (mlir::failed(runPasses(module, "one-shot-bufferize{bufferize-function-boundaries=1 "
                                     "function-boundary-type-conversion=identity-layout-map}, canonicalize, cse, " +
                                         std::string(kToLLVM))))
    return mlir::failure();

  // LLVM: translate, optimise at O3 for the chosen CPU, emit.
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::LLVMContext llctx;
  auto llmod = mlir::translateModuleToLLVMIR(module, llctx, "dx_model");
  if (!llmod) return module.emitError("translation to LLVM IR failed");
  std::string triple = llvm::sys::getDefaultTargetTriple(), err;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, err);
  if (!target) return module.emitError("no LLVM target for ") << triple << ": " << err;
  std::string cpu = opts.cpu == "native" ? llvm::sys::getHostCPUName().str() : opts.cpu;
  std::string features;
  if (opts.cpu == "native") {
    for (auto &f : llvm::sys::getHostCPUFeatures()) features += (features.empty() ? "" : ",") + std::string(f.second ? "+" : "-") + f.first().str();
  }
  llvm::TargetOptions to;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(triple, cpu, features, to, llvm::Reloc::PIC_,
                                                                      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!tm) return module.emitError("cannot create an LLVM target machine for CPU '") << cpu << "'";
  if (!tm->getMCSubtargetInfo()->isCPUStringValid(cpu))
    return module.emitError("unknown CPU '") << cpu << "' for " << triple
                                             << "; use an LLVM CPU name such as x86-64-v3, skylake-avx512, or native";
  llmod->setDataLayout(tm->createDataLayout());
  llmod->setTargetTriple(triple);
  for (llvm::Function &f : *llmod)
    if (!f.isDeclaration()) {
      f.addFnAttr("target-cpu", cpu);
      f.addFnAttr("prefer-vector-width", "256");
      if (!features.empty()) f.addFnAttr("target-features", features);
    }

  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(tm.get());
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(*llmod, mam);

  if (opts.stopAfter == Stage::LLVM) {
    llvm::raw_string_ostream os(*llvmIR);
    llmod->print(os, nullptr);
    return mlir::success();
  }
  std::error_code ec;
  llvm::raw_fd_ostream out(opts.objectPath, ec, llvm::sys::fs::OF_None);
  if (ec) return module.emitError("cannot write ") << opts.objectPath << ": " << ec.message();
  llvm::legacy::PassManager emit;
  if (tm->addPassesToEmitFile(emit, out, nullptr, llvm::CodeGenFileType::ObjectFile))
    return module.emitError("the target cannot emit object files");
  emit.run(*llmod);
  out.flush();
  return mlir::success();
}

} // namespace dx
