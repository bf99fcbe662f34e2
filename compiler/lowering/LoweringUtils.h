// Building blocks for lowering dx ops to linalg, tensor, arith and math on
// tensors, and to calls into libdxrt's kernels.
#pragma once

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <functional>
#include <string>

namespace dx::lower {

using mlir::Value;
using BodyFn = std::function<Value(mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>;

mlir::RankedTensorType ttype(Value v);

// The sizes of `type`, taking dynamic ones (the batch) from `like` at the same
// position, or from the first operand among `sources` that has a dynamic dim 0.
llvm::SmallVector<Value> dynamicSizes(mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type,
                                      mlir::ValueRange sources);
Value emptyTensor(mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type, mlir::ValueRange sources);
Value filledTensor(mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type, mlir::ValueRange sources,
                   double value);

Value f32(mlir::OpBuilder &b, mlir::Location loc, double v);

// A constant, exported, NUL-terminated string `name` at the end of `module`
// (an LLVM global the runtime reads: dx_model_metadata, dx_profile_regions).
void addStringGlobal(mlir::ModuleOp module, llvm::StringRef name, std::string text);
// The number of elements of `v` along `dims` (all dims when empty) as f32.
Value countAsF32(mlir::OpBuilder &b, mlir::Location loc, Value v, llvm::ArrayRef<int64_t> dims);

// The map from a rank-`resultRank` iteration space to operand `v` under
// NumPy broadcasting against `result` (trailing alignment; size-1 dims pinned to 0).
mlir::AffineMap broadcastMap(mlir::MLIRContext *ctx, mlir::RankedTensorType operand, mlir::RankedTensorType result);
// The map selecting `dims` of a rank-`rank` iteration space (e.g. {1}: a per-channel vector).
mlir::AffineMap selectMap(mlir::MLIRContext *ctx, unsigned rank, llvm::ArrayRef<int64_t> dims);

// A parallel linalg.generic producing `resultType` from `inputs`, each read
// through its map (broadcast maps when `maps` is empty).
Value elementwise(mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType resultType, mlir::ValueRange inputs,
                  const BodyFn &body, llvm::ArrayRef<mlir::AffineMap> maps = {});

// Reduces `input` (through the identity map, or `inputMap` over a larger
// iteration space) over `reduced` iteration dims into `resultType`
// (whose dims are the kept iteration dims, in order, or size-1 placeholders
// when keepDims). `combine(acc, x)` folds; `init` starts each accumulator.
Value reduce(mlir::OpBuilder &b, mlir::Location loc, Value input, llvm::ArrayRef<int64_t> reduced,
             mlir::RankedTensorType resultType, double init,
             const std::function<Value(mlir::OpBuilder &, mlir::Location, Value, Value)> &combine,
             bool keepDims = false);
Value reduceSum(mlir::OpBuilder &b, mlir::Location loc, Value input, llvm::ArrayRef<int64_t> reduced,
                mlir::RankedTensorType resultType, bool keepDims = false);
Value reduceMax(mlir::OpBuilder &b, mlir::Location loc, Value input, llvm::ArrayRef<int64_t> reduced,
                mlir::RankedTensorType resultType, bool keepDims = false);

// Collapses all dims but the last into one: [d0, ..., dk] -> [d0*...*dk-1, dk].
Value collapseTo2D(mlir::OpBuilder &b, mlir::Location loc, Value v);
// Reshapes v (same element count, batch dim 0 kept) to `type`.
Value reshapeTo(mlir::OpBuilder &b, mlir::Location loc, Value v, mlir::RankedTensorType type);

// Calls a libdxrt kernel `name` that reads `inputs` and overwrites a fresh
// result of `resultType` (passed last among the memrefs), then `scalars`
// (i64). Declares the kernel in the module (C interface) on first use.
Value callKernel(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef name, mlir::ValueRange inputs,
                 mlir::RankedTensorType resultType, llvm::ArrayRef<Value> scalars, mlir::ValueRange sizeSources);
// The same with several results, passed in order after the inputs; the
// dynamic sizes of every result come from `sizeSources`.
llvm::SmallVector<Value> callKernel(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef name,
                                    mlir::ValueRange inputs, llvm::ArrayRef<mlir::RankedTensorType> resultTypes,
                                    llvm::ArrayRef<Value> scalars, mlir::ValueRange sizeSources);
// A tensor as a kernel's input: a read-only to_memref of its own (one per
// call, made right before it) cast to kernelMemRef.
Value kernelInput(mlir::OpBuilder &b, mlir::Location loc, Value tensor);
Value i64(mlir::OpBuilder &b, mlir::Location loc, int64_t v);
// The memref type of a kernel's rank-`rank` argument of element type `elem`:
// every size and stride dynamic (the C interface's descriptor).
mlir::MemRefType kernelMemRef(mlir::Type elem, int64_t rank);
// The module's declaration of kernel `name` (private, C interface), made
// with the types of `args` on first use.
mlir::func::FuncOp kernelDeclaration(mlir::ModuleOp module, mlir::Location loc, llvm::StringRef name,
                                     mlir::ValueRange args);

// [N, C, H, W] as a _blocked kernel's activation: [N, C/B, H, W, B] for a
// channel block B of 16 or 8 (nChw16c, nChw8c), or [N, C, H, W, 1] in NCHW
// (block 1).
mlir::RankedTensorType kernelLayoutType(mlir::RankedTensorType t, int64_t block);
// An NCHW activation in that layout (a tensor.pack, or for block 1 an
// expand_shape), and a result in it back to NCHW `type` (unpack, collapse).
Value toKernelLayout(mlir::OpBuilder &b, mlir::Location loc, Value v, int64_t block);
Value fromKernelLayout(mlir::OpBuilder &b, mlir::Location loc, Value v, mlir::RankedTensorType type, int64_t block);

} // namespace dx::lower
