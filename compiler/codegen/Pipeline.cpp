#include "codegen/Pipeline.h"

#include "codegen/Fatbin.h"
#include "codegen/StreamPrefetch.h"
#include "dialect/DxDialect.h"
#include "lowering/Bf16ProductInputs.h"
#include "lowering/BuildABI.h"
#include "lowering/CudaKernelNames.h"
#include "lowering/EmulateGpuOrder.h"
#include "lowering/ExpandWindowDims.h"
#include "lowering/FuseCheapProducers.h"
#include "lowering/FusePoolInput.h"
#include "lowering/FuseReductionLoops.h"
#include "lowering/GradsReady.h"
#include "lowering/InterleaveAccumulators.h"
#include "lowering/LowerDx.h"
#include "lowering/MergeGpuModules.h"
#include "lowering/PlanMemory.h"
#include "lowering/PrepareGpu.h"
#include "lowering/ProfilePoints.h"
#include "lowering/PropagateLayouts.h"
#include "lowering/SimplifyCompares.h"
#include "lowering/SplitReductions.h"
#include "lowering/StripFastMath.h"
#include "lowering/VectorizeCpu.h"
#include "transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

#include <cstdlib>
#include <mutex>

namespace dx {

void registerCodegenDialects(mlir::DialectRegistry &registry) {
  registry.insert<ir::DxDialect>();
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
}

static void registerCudaPipelines();

void registerPipelinePasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    mlir::registerAllPasses();
    registerDxPasses();
    registerPoolBeforeReluPass();
    registerLowerDxPass();
    registerBuildABIPass();
    registerPlanMemoryPass();
    registerCudaKernelNamesPass();
    registerPrepareGpuPass();
    registerMergeGpuModulesPass();
    registerSplitReductionsPass();
    registerEmulateGpuOrderPass();
    registerStripFastMathPass();
    registerVectorizeCpuPass();
    registerInterleaveAccumulatorsPass();
    registerProfilePointsPass();
    registerFuseCheapProducersPass();
    registerFusePoolInputPass();
    registerExpandWindowDimsPass();
    registerSimplifyComparesPass();
    registerGradsReadyPass();
    registerBf16ProductInputsPass();
    registerFuseReductionLoopsPass();
    registerPropagateLayoutsPass();
    registerCudaPipelines();
  });
}

static mlir::LogicalResult runPasses(mlir::ModuleOp module, const std::string &pipeline) {
  mlir::PassManager pm(module.getContext());
  if (mlir::failed(mlir::parsePassPipeline(pipeline, pm, llvm::errs()))) return mlir::failure();
  return pm.run(module);
}

// After bufferization, for both targets: deallocations, then the static
// memory plan (the step's buffers in one workspace).
#define DX_PLAN_MEMORY "buffer-deallocation-pipeline, convert-bufferization-to-memref, canonicalize, dx-plan-memory"

// From planned memrefs (and the vector code of dx-vectorize-cpu) to the
// LLVM dialect on the CPU. expand-strided-metadata makes affine.apply ops
// (the sizes of reshaped dynamic memrefs, e.g. a dense layer over [B, T, K]),
// so lower-affine runs again after it. Math goes to LLVM intrinsics first
// (sqrt, fabs, fma: instructions), to libm only for what has none (tanh, erf
// on f64; on f32 dx-vectorize-cpu left polynomials instead).
#define DX_LOOPS_TO_LLVM                                                                                               \
  "convert-vector-to-scf, convert-linalg-to-loops, lower-affine, "                                                     \
  "convert-scf-to-cf, expand-strided-metadata, lower-affine, convert-math-to-llvm, convert-math-to-libm, "             \
  "convert-vector-to-llvm{reassociate-fp-reductions=1}, "                                                              \
  "finalize-memref-to-llvm, convert-arith-to-llvm, convert-index-to-llvm, convert-func-to-llvm, "                      \
  "convert-cf-to-llvm, reconcile-unrealized-casts"

// The CPU's: the memory plan, the --profile hooks (ProfilePoints.h), vector
// code at the CPU's register width (VectorizeCpu.h) with several partial
// accumulators per reduction (InterleaveAccumulators.h), loops, LLVM. Builds
// that must sum in program order (--strict-fp, --emulate-gpu) keep scalar
// loops and libm.
static std::string cpuToLLVM(int64_t vectorBits, bool vectorize, bool interleave) {
  std::string p = DX_PLAN_MEMORY ", dx-profile-points, ";
  // Streaming stores are x86's (MOVNTPS and SFENCE).
  const bool x86 = llvm::Triple(llvm::sys::getDefaultTargetTriple()).isX86();
  if (vectorize)
    p += "dx-vectorize-cpu{vector-bits=" + std::to_string(vectorBits) + " streaming-stores=" + (x86 ? "1" : "0") +
         "}, canonicalize, cse, " +
         (interleave ? "dx-interleave-accumulators{vector-bits=" + std::to_string(vectorBits) + "}, canonicalize, cse, "
                     : std::string());
  return p + DX_LOOPS_TO_LLVM;
}

// The CPU that --cpu names, with the host's features for "native".
struct HostCpu {
  std::string cpu, features;
};
static HostCpu hostCpu(const CodegenOptions &opts) {
  HostCpu h{opts.cpu == "native" ? llvm::sys::getHostCPUName().str() : opts.cpu, ""};
  if (opts.cpu == "native")
    for (auto &f : llvm::sys::getHostCPUFeatures())
      h.features += (h.features.empty() ? "" : ",") + std::string(f.second ? "+" : "-") + f.first().str();
  return h;
}

// The width of the CPU's vector registers: 512 bits with AVX-512, 256 with
// AVX (x86-64-v3, the default), else 128. An unknown CPU is reported by
// emitHostCode; here it counts as the default.
static int64_t vectorBits(const CodegenOptions &opts) {
  llvm::InitializeNativeTarget();
  HostCpu h = hostCpu(opts);
  std::string triple = llvm::sys::getDefaultTargetTriple(), err;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, err);
  if (!target) return 256;
  std::unique_ptr<llvm::MCSubtargetInfo> sti(target->createMCSubtargetInfo(triple, h.cpu, h.features));
  if (!sti || !sti->isCPUStringValid(h.cpu)) return 256;
  if (sti->checkFeatures("+avx512f")) return 512;
  if (sti->checkFeatures("+avx")) return 256;
  return 128;
}

// The channel block of 2-D convolution activations (CodegenOptions::
// channelBlock): as given, or for auto the block oneDNN's convolutions
// compute in on the machine the program will run on: 16 (its AVX-512
// kernels) where --cpu has AVX-512, else, as --cpu names no such machine
// (the default x86-64-v3 runs anywhere), where the machine running dxc has
// it (programs mostly run where they are compiled, or on its twins), else 8
// (its AVX2 kernels). Either block is correct on any machine; the other one
// costs a reorder inside each convolution call (docs/codegen.md, section 4).
static int64_t channelBlock(const CodegenOptions &opts) {
  if (opts.channelBlock >= 0) return opts.channelBlock;
  if (vectorBits(opts) == 512) return 16;
  return llvm::sys::getHostCPUFeatures().lookup("avx512f") ? 16 : 8;
}

// dx-vectorize-cpu's non-temporal stores stay only where LLVM (its
// alignment inference, from the workspace's assumed 64-byte alignment and
// the index arithmetic) proved the address aligned to the register the
// store becomes: an unaligned MOVNTPS faults, so X86 would split it into
// scalar MOVNTI stores instead, slower than a plain store.
// --emit=llvm prints the module after this.
static void keepAlignedStreamingStores(llvm::Module &m, uint64_t registerBytes) {
  for (llvm::Function &f : m)
    for (llvm::BasicBlock &bb : f)
      for (llvm::Instruction &i : bb) {
        auto *st = llvm::dyn_cast<llvm::StoreInst>(&i);
        if (!st || !st->getMetadata(llvm::LLVMContext::MD_nontemporal)) continue;
        // Whole registers only: a 5-float row tail would be split into
        // pieces, some of them scalar.
        uint64_t bytes = m.getDataLayout().getTypeStoreSize(st->getValueOperand()->getType());
        bool whole = st->getValueOperand()->getType()->isVectorTy() && bytes >= 16 && llvm::isPowerOf2_64(bytes);
        if (!whole || st->getAlign().value() < std::min(bytes, registerBytes))
          st->setMetadata(llvm::LLVMContext::MD_nontemporal, nullptr);
      }
}

// LLVM: translate, optimise at O3 for the chosen CPU, emit. For CUDA the
// module is the host code with the kernels embedded as gpu.binary.
static mlir::LogicalResult emitHostCode(mlir::ModuleOp module, const CodegenOptions &opts, std::string *llvmIR) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::LLVMContext llctx;
  auto llmod = mlir::translateModuleToLLVMIR(module, llctx, "dx_model");
  if (!llmod) return module.emitError("translation to LLVM IR failed");
  std::string triple = llvm::sys::getDefaultTargetTriple(), err;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, err);
  if (!target) return module.emitError("no LLVM target for ") << triple << ": " << err;
  auto [cpu, features] = hostCpu(opts);
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
      // The width dx-vectorize-cpu wrote its vectors for (LLVM would split
      // 512-bit vectors in two at its default preference of 256).
      f.addFnAttr("prefer-vector-width", std::to_string(vectorBits(opts)));
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
  keepAlignedStreamingStores(*llmod, vectorBits(opts) / 8);
  // The CPU code's streams (the CUDA host code has none to speak of).
  if (opts.target == Target::Cpu) insertStreamPrefetches(*llmod, tm.get(), opts.prefetchBytes);

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

// One bufferization for both targets: the CPU path's, up to the static memory plan.
static const char *kBufferize =
    "one-shot-bufferize{bufferize-function-boundaries=1 function-boundary-type-conversion=identity-layout-map}, "
    "canonicalize, cse";

// CUDA, from bufferized memrefs to outlined kernels. The memory plan stays
// (its workspace becomes the device arena's, dxrt_cuda_workspace); library
// calls go to their device twins; dx-prepare-gpu makes every memory-touching
// op a 1-D scf.parallel; tiling by 256 gives one block of 256 threads per
// 256 elements (no-min-max-bounds: a constant block size and an scf.if guard,
// which convert-parallel-loops-to-gpu needs); then blocks/threads mapping,
// gpu.launch, constants and index arithmetic sunk into the launch bodies
// (otherwise outlining passes every constant as a kernel argument and the
// kernels divide by runtime values), outlining (one gpu.module per kernel),
// and all kernels merged into one gpu.module, @dx_kernels (one ptxas run per
// architecture, one module load at run time). No canonicalize between
// dx-prepare-gpu and the mapping: it would fold the one-thread loops back
// onto the host.
#define DX_GPU_TILING "scf-parallel-loop-tiling{parallel-loop-tile-sizes=256 no-min-max-bounds=1}"
static const char *kGpuKernels =
    DX_PLAN_MEMORY ", dx-cuda-kernel-names, dx-prepare-gpu, "
    "func.func(" DX_GPU_TILING ", gpu-map-parallel-loops, "
    "convert-parallel-loops-to-gpu), lower-affine, canonicalize, cse, gpu-launch-sink-index-computations, "
    "gpu-kernel-outlining, dx-merge-gpu-modules";

// dxc --emulate-gpu=ORDER (a test, EmulateGpuOrder.h): the CUDA pipeline's
// parallel loops, as tiled for the GPU, run on the CPU in ORDER; library
// calls and the workspace stay the CPU's.
static std::string emulateGpuPipeline(const std::string &order) {
  return DX_PLAN_MEMORY ", dx-prepare-gpu, func.func(" DX_GPU_TILING "), dx-emulate-gpu-order{order=" + order +
         "}, " DX_LOOPS_TO_LLVM;
}

std::string cudaKernelPipeline(const std::vector<std::string> &gpuArchs) {
  std::string p = std::string(kGpuKernels) + ", ";
  // One target per architecture: gpu-module-to-binary makes an object for each.
  for (const std::string &arch : gpuArchs) p += "nvvm-attach-target{chip=" + arch + " O=3}, ";
  // The kernels to NVVM (math through libdevice), then the PTX of every
  // target; buildFatbins (Fatbin.cpp) makes the one fatbin of all of them.
  p += "convert-scf-to-cf, expand-strided-metadata, lower-affine, "
       "gpu.module(convert-gpu-to-nvvm, canonicalize, cse, reconcile-unrealized-casts), "
       "gpu-module-to-binary{format=isa}";
  return p;
}

// The host side of CUDA: like the CPU's cpuToLLVM, plus gpu-to-llvm for the
// launches (mgpu* calls) and the embedded binaries.
static const char *kCudaHostToLLVM =
    "convert-math-to-libm, convert-math-to-llvm, finalize-memref-to-llvm, convert-arith-to-llvm, "
    "convert-index-to-llvm, convert-func-to-llvm, convert-cf-to-llvm, gpu-to-llvm, reconcile-unrealized-casts";

static void registerCudaPipelines() {
  mlir::PassPipelineRegistration<>(
      "dx-gpu-kernels", "DeepEx CUDA: linalg on tensors to gpu.launch_func and outlined gpu.func kernels",
      [](mlir::OpPassManager &pm) {
        if (mlir::failed(mlir::parsePassPipeline(std::string("dx-split-reductions, ") + kBufferize + ", " + kGpuKernels,
                                                 pm, llvm::errs())))
          llvm::report_fatal_error("dx-gpu-kernels: bad pipeline");
      });
}

// Each --gpu-arch must be an architecture LLVM's NVPTX back end knows:
// otherwise it only warns ("not a recognized processor") and writes PTX
// for a default one.
static mlir::LogicalResult checkGpuArchs(mlir::ModuleOp module, const std::vector<std::string> &archs) {
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTarget();
  LLVMInitializeNVPTXTargetMC();
  std::string err;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget("nvptx64-nvidia-cuda", err);
  if (!target) return module.emitError("this dxc's LLVM has no NVPTX back end: ") << err;
  std::unique_ptr<llvm::MCSubtargetInfo> sti(target->createMCSubtargetInfo("nvptx64-nvidia-cuda", "", ""));
  for (const std::string &arch : archs)
    if (!sti || !sti->isCPUStringValid(arch))
      return module.emitError("'") << arch << "' is not a GPU architecture that this dxc's LLVM "
                                   << LLVM_VERSION_MAJOR << " NVPTX back end knows";
  return mlir::success();
}

// The PTX of every kernel module and architecture, each after a comment
// line naming them (PTX comments are //, so ptxas accepts the whole text).
static std::string collectPtx(mlir::ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.walk([&](mlir::gpu::BinaryOp bin) {
    for (mlir::Attribute a : bin.getObjectsAttr()) {
      auto obj = mlir::cast<mlir::gpu::ObjectAttr>(a);
      std::string chip = "?";
      if (auto t = mlir::dyn_cast<mlir::NVVM::NVVMTargetAttr>(obj.getTarget())) chip = t.getChip().str();
      // The object string ends in a NUL (for the JIT loader).
      llvm::StringRef ptx = obj.getObject().getValue();
      while (ptx.ends_with(llvm::StringRef("\0", 1))) ptx = ptx.drop_back();
      os << "// ---- kernel module @" << bin.getName() << " for " << chip << "\n" << ptx;
      if (!ptx.ends_with("\n")) os << "\n";
    }
  });
  return text;
}

// dx-split-reductions (lowering/SplitReductions.cpp), on linalg on tensors
// right before bufferization: always for CUDA; for the CPU only with
// dxc --split-reductions (tests: same losses either way).
static std::string splitReductions(const CodegenOptions &opts) {
  if (opts.splitReductions > 0)
    return "dx-split-reductions{min-extent=" + std::to_string(opts.splitReductions) + "}, ";
  return "dx-split-reductions, ";
}

static mlir::LogicalResult runCudaPipeline(mlir::ModuleOp module, const CodegenOptions &opts, std::string *text) {
  // libdevice (expf, logf, ...) and ptxas/fatbinary are found through
  // CUDA_HOME; without it the math functions stay unresolved.
  setenv("CUDA_HOME", "/usr/local/cuda", /*overwrite=*/0);
  if (mlir::failed(checkGpuArchs(module, opts.gpuArchs))) return mlir::failure();
  // dx-bf16-product-inputs as on the CPU: the kernels that write a product's
  // saved input write it in bf16, and cuBLAS/cuDNN read it as it is.
  const std::string bf16Inputs = opts.bf16ProductInputs ? "dx-bf16-product-inputs, canonicalize, cse, " : "";
  if (mlir::failed(runPasses(module, splitReductions(opts) + bf16Inputs + kBufferize + ", " +
                                         cudaKernelPipeline(opts.gpuArchs))))
    return mlir::failure();
  if (opts.stopAfter == Stage::Ptx) {
    *text = collectPtx(module);
    return mlir::success();
  }
  // One fatbin: a cubin per architecture plus PTX (Fatbin.cpp).
  if (mlir::failed(buildFatbins(module))) return mlir::failure();
  if (mlir::failed(runPasses(module, kCudaHostToLLVM))) return mlir::failure();
  return emitHostCode(module, opts, text);
}

int64_t plannedChannelBlock(const CodegenOptions &opts) {
  // Channel-blocked activations: the CPU's vector builds (not the sums in
  // program order of --strict-fp and --emulate-gpu).
  const bool vectorBuild = opts.target == Target::Cpu && opts.emulateGpu.empty() && !opts.strictFp &&
                           opts.splitReductions < 0;
  return vectorBuild ? channelBlock(opts) : 0;
}

mlir::LogicalResult runPipeline(mlir::ModuleOp module, const CodegenOptions &opts, std::string *llvmIR) {
  registerPipelinePasses();
  // dx -> dx with gradients -> exported ABI.
  if (opts.stopAfter == Stage::Dx) return mlir::success();
  // The generated pooling's backward pass is cheapest with the relu mask on
  // the pooled tensor (Passes.h).
  const std::string poolFirst = opts.generatedPooling && plannedChannelBlock(opts) != 0 ? "dx-pool-before-relu, " : "";
  if (mlir::failed(runPasses(module, poolFirst + "dx-autodiff, canonicalize, cse"))) return mlir::failure();
  if (opts.stopAfter == Stage::DxGrad) return mlir::success();
  // Exports, inlining, lowering to linalg on tensors, elementwise fusion.
  // dx-to-linalg runs before inlining: random ops read the training mode and the
  // rng key (seed, step, rank) from the function they are in, M_train_step.
  const int64_t block = plannedChannelBlock(opts);
  const bool blocked = block != 0;
  const std::string layouts = blocked ? "dx-propagate-layouts, canonicalize, cse, " : "";
  // dx-fuse-pool-input: the CPU's pooling kernels apply a batch norm and relu
  // that only they read (the CUDA kernels, and the emulation of their order,
  // read the map's result).
  const std::string poolInput = blocked && opts.fusePoolInput && opts.target == Target::Cpu && opts.emulateGpu.empty()
                                    ? ", dx-fuse-pool-input, canonicalize, cse"
                                    : "";
  if (mlir::failed(runPasses(
          module, "dx-build-abi, dx-to-linalg{channel-block=" + std::to_string(block) + " generated-pooling=" +
                      (opts.generatedPooling ? "1" : "0") + "}, inline, symbol-dce, canonicalize, cse, " + layouts +
                      "linalg-fuse-elementwise-ops, canonicalize, cse, dx-fuse-cheap-producers, "
                      "dx-simplify-compares, canonicalize, cse" +
                      (blocked ? ", dx-drop-unit-block-dims, dx-expand-window-dims, canonicalize, cse" : "") +
                      poolInput)))
    return mlir::failure();
  if (opts.stopAfter == Stage::Linalg) return mlir::success();
  if (opts.target == Target::Cuda) return runCudaPipeline(module, opts, llvmIR);
  // The GPU emulation splits reductions as the CUDA target does.
  const bool split = opts.splitReductions >= 0 || !opts.emulateGpu.empty();
  const bool strict = opts.strictFp || !opts.emulateGpu.empty();
  std::string toLLVM = opts.emulateGpu.empty()
                           ? cpuToLLVM(vectorBits(opts), /*vectorize=*/!strict, !opts.singleAccumulators)
                           : emulateGpuPipeline(opts.emulateGpu);
  // dx-fuse-reduction-loops (vector builds, on request): a normalisation's
  // second pass reads its tensor from cache. dx-grads-ready: the runtime
  // all-reduces gradients during the backward pass.
  const bool fuseReductions = opts.emulateGpu.empty() && !strict && !split && opts.fuseReductionLoops;
  // dx-bf16-product-inputs: bf16 precision keeps the products' saved inputs
  // in bf16 (the CUDA target too, so also under the GPU emulation).
  const bool bf16Inputs = opts.bf16ProductInputs;
  if (mlir::failed(runPasses(module, (split ? splitReductions(opts) : "") + (strict ? "dx-strip-fast-math, " : "") +
                                         (fuseReductions ? "dx-fuse-reduction-loops, canonicalize, cse, " : "") +
                                         (bf16Inputs ? "dx-bf16-product-inputs, canonicalize, cse, " : "") +
                                         "dx-grads-ready, " + kBufferize + ", " + toLLVM)))
    return mlir::failure();

  return emitHostCode(module, opts, llvmIR);
}

} // namespace dx
