// The code-generation pipeline after MLIRGen: autodiff, the exported ABI,
// lowering to linalg, fusion, bufferization, LLVM, and a native object.
#pragma once

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"

#include <string>

namespace dx {

// The stages of --emit in pipeline order (ast is handled by the front end).
enum class Stage { Dx, DxGrad, Linalg, LLVM, Obj };

struct CodegenOptions {
  Stage stopAfter = Stage::Obj;
  std::string cpu = "x86-64-v3";   // or "native"
  std::string objectPath;          // where Stage::Obj writes the object
};

// Every dialect and interface the pipeline uses (one heavy TU registers them).
void registerCodegenDialects(mlir::DialectRegistry &registry);

// Runs the passes from MLIRGen's output up to `stopAfter`. For Stage::LLVM
// the optimized LLVM IR is written to `llvmIR`; for Stage::Obj the object to
// opts.objectPath. Errors are reported through the context's diagnostics
// (with .dx locations) and as a failure.
mlir::LogicalResult runPipeline(mlir::ModuleOp module, const CodegenOptions &opts, std::string *llvmIR);

} // namespace dx
