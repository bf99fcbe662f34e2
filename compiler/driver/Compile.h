#pragma once

#include "sema/Sema.h"

#include <string>

namespace dx {

struct CompileRequest {
  std::string input;           // the .dx file, for default output names
  std::string emit;            // "", dx, dx-grad, linalg, ptx, llvm, obj
  std::string output;          // -o
  std::string target = "cpu";
  std::string cpu = "x86-64-v3";
  std::string gpuArch;         // --target=cuda: sm_NN[,sm_NN...]; empty: sm_90
  bool printLocations = false;
  bool remarks = false;        // show the optimizer's remarks
  long long splitReductions = -1; // hidden --split-reductions[=N]: CodegenOptions::splitReductions
  std::string emulateGpu;          // hidden --emulate-gpu=ORDER: CodegenOptions::emulateGpu
  bool strictFp = false;           // hidden --strict-fp: CodegenOptions::strictFp
  bool fuseReductionLoops = false; // hidden --fuse-reduction-loops: CodegenOptions::fuseReductionLoops
  bool singleAccumulators = false; // hidden --single-accumulators: CodegenOptions::singleAccumulators
  int64_t prefetchBytes = -1;      // hidden --prefetch-bytes: CodegenOptions::prefetchBytes; -1 its default
  bool generatedPooling = false;   // hidden --generated-pooling: CodegenOptions::generatedPooling
  bool fusePoolInput = true;       // hidden --no-fuse-pool-input: CodegenOptions::fusePoolInput
  bool fp32ProductInputs = false;  // hidden --fp32-product-inputs: no CodegenOptions::bf16ProductInputs
  int64_t channelBlock = -1;       // --conv-layout: CodegenOptions::channelBlock
};

// Everything after sema: MLIRGen, passes, object, link. Prints the requested
// stage (or writes the executable). Returns the exit code. Kept apart from
// dxc.cpp so only this file pays for MLIR's headers.
int compileProgram(const Program &prog, const SourceManager &sm, const CompileRequest &req);

} // namespace dx
