// The code-generation pipeline after MLIRGen: autodiff, the exported ABI,
// lowering to linalg, fusion, bufferization, LLVM, and a native object.
#pragma once

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"

#include <string>
#include <vector>

namespace dx {

// The stages of --emit in pipeline order (ast is handled by the front end).
// Ptx exists only for Target::Cuda.
enum class Stage { Dx, DxGrad, Linalg, Ptx, LLVM, Obj };

enum class Target { Cpu, Cuda };

struct CodegenOptions {
  Stage stopAfter = Stage::Obj;
  Target target = Target::Cpu;
  std::string cpu = "x86-64-v3";   // or "native"; the host code's CPU
  std::vector<std::string> gpuArchs = {"sm_90"}; // Target::Cuda: one kernel image per arch
  std::string objectPath;          // where Stage::Obj writes the object
  // dx-split-reductions runs for Target::Cuda (and emulateGpu); N >= 0 also
  // runs it for the CPU (tests); N > 0 splits reductions of at least N
  // elements per output instead of the pass's default (64), on either target.
  int64_t splitReductions = -1;
  // Target::Cpu, a test: "forward", "reverse" or "odd-even" lowers through
  // the CUDA pipeline's parallel loops and runs their iterations in that
  // order (dx-emulate-gpu-order); "" is the plain CPU lowering.
  std::string emulateGpu;
  // Target::Cpu, a test: no fast-math flags (dx-strip-fast-math), so that
  // every sum runs in program order; always so with emulateGpu.
  bool strictFp = false;
  // Target::Cpu with vector code, for measurements: dx-fuse-reduction-loops
  // (FuseReductionLoops.h). Off by default: on the machines measured, two
  // streaming passes over a normalisation's tensor beat one pass per channel
  // tile (docs/codegen.md, section 5).
  bool fuseReductionLoops = false;
  // Target::Cpu with vector code, for measurements: one accumulator per
  // reduction, without dx-interleave-accumulators (InterleaveAccumulators.h).
  bool singleAccumulators = false;
  // Target::Cpu: software prefetches this many bytes (two 4 KiB pages)
  // ahead of each stream of the innermost loops (StreamPrefetch.h); 0: none
  // (the hidden dxc --prefetch-bytes, for measurements).
  int64_t prefetchBytes = 8192;
  // Target::Cpu with a channel block, on request (measurements, tests):
  // 2-D max poolings whose windows tile the plane, and their gradients, as
  // generated code instead of libdxrt calls (GeneratedMaxPool.h). Off by
  // default: the batch norm's backward passes it fuses into run slower than
  // the library kernels save (docs/codegen.md, section 4).
  bool generatedPooling = false;
  // Target::Cpu with a channel block: a pooling whose input is a per-channel
  // map (batch norm, relu) that only poolings read applies the map itself
  // (dx-fuse-pool-input, FusePoolInput.h). Off only for measurements and
  // tests (the hidden dxc --no-fuse-pool-input).
  bool fusePoolInput = true;
  // Target::Cpu in bf16 precision: activations that only matrix products
  // read and a weight gradient reads again are stored in bf16
  // (dx-bf16-product-inputs, Bf16ProductInputs.h). The driver sets it for a
  // bf16 program unless the hidden --fp32-product-inputs says otherwise.
  bool bf16ProductInputs = false;
  // Target::Cpu with vector code: 2-D convolutions with a multiple of B
  // channels keep their activations in blocks of B channels (nChw16c,
  // nChw8c), and the code between them works on that layout
  // (dx-to-linalg{channel-block=B}, dx-propagate-layouts; docs/codegen.md).
  // B = 16 or 8; 0: NCHW everywhere; -1 (dxc --conv-layout=auto): the block
  // oneDNN's convolutions compute in on the machine the program is for, 16
  // where --cpu or the machine running dxc has AVX-512, else 8.
  int64_t channelBlock = -1;
};

// The CUDA lowering after bufferization, up to gpu-module-to-binary{format=isa}
// (the one gpu.module's PTX for every arch; runPipeline then makes one fatbin
// of them for Stage::LLVM/Obj), as a pass pipeline string; dx-opt tests use its
// first part ("dx-gpu-kernels").
std::string cudaKernelPipeline(const std::vector<std::string> &gpuArchs);

// Registers every pass and pipeline runPipeline uses: upstream MLIR's, dx's
// and the pipeline dx-gpu-kernels (linalg on tensors to outlined gpu.func
// kernels, all in one gpu.module @dx_kernels, and gpu.launch_func: the CUDA
// path's first half, for dx-opt tests). Once; dx-opt calls it too.
void registerPipelinePasses();

// Every dialect and interface the pipeline uses (one heavy TU registers them).
void registerCodegenDialects(mlir::DialectRegistry &registry);

// Runs the passes from MLIRGen's output up to `stopAfter`. For Stage::LLVM
// the optimized LLVM IR (of the host code, for CUDA) is written to `llvmIR`,
// for Stage::Ptx the PTX of every kernel module and architecture; for
// Stage::Obj the object to opts.objectPath. Errors are reported through the context's diagnostics
// (with .dx locations) and as a failure.
mlir::LogicalResult runPipeline(mlir::ModuleOp module, const CodegenOptions &opts, std::string *llvmIR);

// The channel block runPipeline keeps 2-D convolution activations in
// (CodegenOptions::channelBlock with auto resolved): 16 or 8, or 0 for NCHW
// (CUDA, and the CPU builds whose sums run in program order: --strict-fp,
// --emulate-gpu, --split-reductions).
int64_t plannedChannelBlock(const CodegenOptions &opts);

} // namespace dx
