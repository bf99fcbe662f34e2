#include "lowering/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"

#include <atomic>

namespace dx::lower {

mlir::RankedTensorType ttype(Value v) { return mlir::cast<mlir::RankedTensorType>(v.getType()); }

llvm::SmallVector<Value> dynamicSizes(mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type,
                                      mlir::ValueRange sources) {
  llvm::SmallVector<Value> sizes;
  for (int64_t k = 0; k < type.getRank(); ++k) {
    if (!type.isDynamicDim(k)) continue;
    Value found;
    for (Value s : sources)
      if (auto st = mlir::dyn_cast<mlir::RankedTensorType>(s.getType()); st && st.getRank() > k && st.isDynamicDim(k)) {
        found = b.create<mlir::tensor::DimOp>(loc, s, k);
        break;
      }
    if (!found)
      for (Value s : sources)
        if (auto st = mlir::dyn_cast<mlir::RankedTensorType>(s.getType()); st && st.getRank() > 0 && st.isDynamicDim(0)) {
          found = b.create<mlir::tensor::DimOp>(loc, s, 0);
          break;
        }
    assert(found && "no operand carries the dynamic (batch) dim");
    sizes.push_back(found);
  }
  return sizes;
}

Value emptyTensor(mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type, mlir::ValueRange sources) {
  return b.create<mlir::tensor::EmptyOp>(loc, type, dynamicSizes(b, loc, type, sources));
}

Value f32(mlir::OpBuilder &b, mlir::Location loc, double v) {
  return b.create<mlir::arith::ConstantOp>(loc, b.getF32FloatAttr(static_cast<float>(v)));
}

void addStringGlobal(mlir::ModuleOp module, llvm::StringRef name, std::string text) {
  text.push_back('\0');
  mlir::OpBuilder b(module.getContext());
  b.setInsertionPointToEnd(module.getBody());
  auto type = mlir::LLVM::LLVMArrayType::get(b.getI8Type(), text.size());
  b.create<mlir::LLVM::GlobalOp>(module.getLoc(), type, /*isConstant=*/true, mlir::LLVM::Linkage::External, name,
                                 b.getStringAttr(text));
}

Value i64(mlir::OpBuilder &b, mlir::Location loc, int64_t v) {
  return b.create<mlir::arith::ConstantOp>(loc, b.getI64IntegerAttr(v));
}

Value filledTensor(mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType type, mlir::ValueRange sources,
                   double value) {
  Value empty = emptyTensor(b, loc, type, sources);
  Value c = b.create<mlir::arith::ConstantOp>(loc, b.getFloatAttr(type.getElementType(), value));
  return b.create<mlir::linalg::FillOp>(loc, c, empty).getResult(0);
}

Value countAsF32(mlir::OpBuilder &b, mlir::Location loc, Value v, llvm::ArrayRef<int64_t> dims) {
  auto t = ttype(v);
  llvm::SmallVector<int64_t> all;
  if (dims.empty())
    for (int64_t k = 0; k < t.getRank(); ++k) all.push_back(k);
  else
    all.assign(dims.begin(), dims.end());
  int64_t staticPart = 1;
  Value dynamicPart;
  for (int64_t k : all) {
    if (!t.isDynamicDim(k)) {
      staticPart *= t.getDimSize(k);
      continue;
    }
    Value d = b.create<mlir::arith::IndexCastOp>(loc, b.getI64Type(), b.create<mlir::tensor::DimOp>(loc, v, k));
    dynamicPart = dynamicPart ? b.create<mlir::arith::MulIOp>(loc, dynamicPart, d).getResult() : d;
  }
  Value n = f32(b, loc, static_cast<double>(staticPart));
  if (dynamicPart) n = b.create<mlir::arith::MulFOp>(loc, n, b.create<mlir::arith::SIToFPOp>(loc, b.getF32Type(), dynamicPart));
  return n;
}

mlir::AffineMap broadcastMap(mlir::MLIRContext *ctx, mlir::RankedTensorType operand, mlir::RankedTensorType result) {
  int64_t r = operand.getRank(), R = result.getRank();
  llvm::SmallVector<mlir::AffineExpr> exprs;
  for (int64_t k = 0; k < r; ++k) {
    int64_t j = R - r + k;
    if (!operand.isDynamicDim(k) && operand.getDimSize(k) == 1 && result.getDimSize(j) != 1)
      exprs.push_back(mlir::getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(mlir::getAffineDimExpr(j, ctx));
  }
  return mlir::AffineMap::get(R, 0, exprs, ctx);
}

mlir::AffineMap selectMap(mlir::MLIRContext *ctx, unsigned rank, llvm::ArrayRef<int64_t> dims) {
  llvm::SmallVector<mlir::AffineExpr> exprs;
  for (int64_t d : dims) exprs.push_back(mlir::getAffineDimExpr(d, ctx));
  return mlir::AffineMap::get(rank, 0, exprs, ctx);
}

Value elementwise(mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType resultType, mlir::ValueRange inputs,
                  const BodyFn &body, llvm::ArrayRef<mlir::AffineMap> maps) {
  mlir::MLIRContext *ctx = b.getContext();
  llvm::SmallVector<mlir::AffineMap> indexing;
  for (size_t i = 0; i < inputs.size(); ++i)
    indexing.push_back(maps.empty() ? broadcastMap(ctx, ttype(inputs[i]), resultType) : maps[i]);
  indexing.push_back(mlir::AffineMap::getMultiDimIdentityMap(resultType.getRank(), ctx));
  Value out = emptyTensor(b, loc, resultType, inputs);
  llvm::SmallVector<mlir::utils::IteratorType> iters(resultType.getRank(), mlir::utils::IteratorType::parallel);
  auto generic = b.create<mlir::linalg::GenericOp>(
      loc, mlir::TypeRange{resultType}, inputs, mlir::ValueRange{out}, indexing, iters,
      [&](mlir::OpBuilder &nb, mlir::Location nloc, mlir::ValueRange args) {
        nb.create<mlir::linalg::YieldOp>(nloc, body(nb, nloc, args.drop_back()));
      });
  return generic.getResult(0);
}

Value reduce(mlir::OpBuilder &b, mlir::Location loc, Value input, llvm::ArrayRef<int64_t> reduced,
             mlir::RankedTensorType resultType, double init,
             const std::function<Value(mlir::OpBuilder &, mlir::Location, Value, Value)> &combine, bool keepDims) {
  mlir::MLIRContext *ctx = b.getContext();
  auto in = ttype(input);
  unsigned R = in.getRank();
  llvm::SmallVector<mlir::AffineExpr> outExprs;
  llvm::SmallVector<mlir::utils::IteratorType> iters;
  for (unsigned k = 0; k < R; ++k) {
    bool red = llvm::is_contained(reduced, static_cast<int64_t>(k));
    iters.push_back(red ? mlir::utils::IteratorType::reduction : mlir::utils::IteratorType::parallel);
    if (!red) outExprs.push_back(mlir::getAffineDimExpr(k, ctx));
    else if (keepDims) outExprs.push_back(mlir::getAffineConstantExpr(0, ctx));
  }
  Value acc = filledTensor(b, loc, resultType, {input}, init);
  auto generic = b.create<mlir::linalg::GenericOp>(
      loc, mlir::TypeRange{resultType}, mlir::ValueRange{input}, mlir::ValueRange{acc},
      llvm::ArrayRef<mlir::AffineMap>{mlir::AffineMap::getMultiDimIdentityMap(R, ctx),
                                      mlir::AffineMap::get(R, 0, outExprs, ctx)},
      iters, [&](mlir::OpBuilder &nb, mlir::Location nloc, mlir::ValueRange args) {
        nb.create<mlir::linalg::YieldOp>(nloc, combine(nb, nloc, args[1], args[0]));
      });
  return generic.getResult(0);
}

Value reduceSum(mlir::OpBuilder &b, mlir::Location loc, Value input, llvm::ArrayRef<int64_t> reduced,
                mlir::RankedTensorType resultType, bool keepDims) {
  // Reassociation lets LLVM vectorize the sum (the order of additions, and so
  // the last bits, may differ from a sequential sum; runs stay reproducible).
  return reduce(b, loc, input, reduced, resultType, 0.0,
                [](mlir::OpBuilder &nb, mlir::Location l, Value acc, Value x) {
                  return nb.create<mlir::arith::AddFOp>(l, acc, x, mlir::arith::FastMathFlags::reassoc)
                      .getResult();
                },
                keepDims);
}

Value reduceMax(mlir::OpBuilder &b, mlir::Location loc, Value input, llvm::ArrayRef<int64_t> reduced,
                mlir::RankedTensorType resultType, bool keepDims) {
  return reduce(b, loc, input, reduced, resultType, -std::numeric_limits<double>::infinity(),
                [](mlir::OpBuilder &nb, mlir::Location l, Value acc, Value x) {
                  return nb.create<mlir::arith::MaximumFOp>(l, acc, x).getResult();
                },
                keepDims);
}

Value collapseTo2D(mlir::OpBuilder &b, mlir::Location loc, Value v) {
  auto t = ttype(v);
  if (t.getRank() == 2) return v;
  mlir::ReassociationIndices lead, last = {t.getRank() - 1};
  for (int64_t k = 0; k + 1 < t.getRank(); ++k) lead.push_back(k);
  return b.create<mlir::tensor::CollapseShapeOp>(loc, v, llvm::ArrayRef<mlir::ReassociationIndices>{lead, last});
}

Value reshapeTo(mlir::OpBuilder &b, mlir::Location loc, Value v, mlir::RankedTensorType type) {
  auto t = ttype(v);
  if (t == type) return v;
  // [B, a, b, ...] -> [B, a*b*...] -> [B, c, d, ...]
  if (t.getRank() > 2) {
    mlir::ReassociationIndices rest;
    for (int64_t k = 1; k < t.getRank(); ++k) rest.push_back(k);
    v = b.create<mlir::tensor::CollapseShapeOp>(loc, v, llvm::ArrayRef<mlir::ReassociationIndices>{{0}, rest});
  }
  if (type.getRank() > 2) {
    mlir::ReassociationIndices rest;
    for (int64_t k = 1; k < type.getRank(); ++k) rest.push_back(k);
    v = b.create<mlir::tensor::ExpandShapeOp>(loc, type, v, llvm::ArrayRef<mlir::ReassociationIndices>{{0}, rest});
  }
  return v;
}

mlir::MemRefType kernelMemRef(mlir::Type elem, int64_t rank) {
  llvm::SmallVector<int64_t> shape(rank, mlir::ShapedType::kDynamic), strides(rank, mlir::ShapedType::kDynamic);
  auto layout = mlir::StridedLayoutAttr::get(elem.getContext(), mlir::ShapedType::kDynamic, strides);
  return mlir::MemRefType::get(shape, elem, layout);
}

mlir::func::FuncOp kernelDeclaration(mlir::ModuleOp module, mlir::Location loc, llvm::StringRef name,
                                     mlir::ValueRange args) {
  if (auto fn = module.lookupSymbol<mlir::func::FuncOp>(name)) return fn;
  mlir::OpBuilder mb(module.getBodyRegion());
  auto fn = mb.create<mlir::func::FuncOp>(loc, name, mb.getFunctionType(mlir::TypeRange(args), {}));
  fn.setPrivate();
  fn->setAttr("llvm.emit_c_interface", mb.getUnitAttr());
  return fn;
}

Value kernelInput(mlir::OpBuilder &b, mlir::Location loc, Value tensor) {
  auto t = ttype(tensor);
  llvm::SmallVector<int64_t> strides(t.getRank(), mlir::ShapedType::kDynamic);
  auto viewType =
      mlir::MemRefType::get(t.getShape(), t.getElementType(),
                            mlir::StridedLayoutAttr::get(b.getContext(), mlir::ShapedType::kDynamic, strides));
  auto m = b.create<mlir::bufferization::ToMemrefOp>(loc, viewType, tensor, /*read_only=*/true);
  // to_memref is Pure: CSE would merge two kernels' to_memref of one tensor
  // and hand the later kernel a memref taken earlier. Bufferization only sees
  // the tensor read at the to_memref, so it may reuse the buffer in between
  // (a dense weight gradient then read its own dy as x). A unique attribute
  // keeps one to_memref per kernel call, right before it.
  static std::atomic<int64_t> nextArg{0};
  m->setAttr("dx.kernel_arg", b.getI64IntegerAttr(nextArg++));
  return b.create<mlir::memref::CastOp>(loc, kernelMemRef(b.getF32Type(), t.getRank()), m);
}

llvm::SmallVector<Value> callKernel(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef name,
                                    mlir::ValueRange inputs, llvm::ArrayRef<mlir::RankedTensorType> resultTypes,
                                    llvm::ArrayRef<Value> scalars, mlir::ValueRange sizeSources) {
  llvm::SmallVector<Value> args;
  for (Value in : inputs) args.push_back(kernelInput(b, loc, in));
  llvm::SmallVector<Value> allocs;
  for (mlir::RankedTensorType resultType : resultTypes) {
    auto allocType = mlir::MemRefType::get(resultType.getShape(), resultType.getElementType());
    Value alloc = b.create<mlir::memref::AllocOp>(loc, allocType, dynamicSizes(b, loc, resultType, sizeSources),
                                                  b.getI64IntegerAttr(64));
    allocs.push_back(alloc);
    args.push_back(b.create<mlir::memref::CastOp>(loc, kernelMemRef(b.getF32Type(), resultType.getRank()), alloc));
  }
  args.append(scalars.begin(), scalars.end());

  auto module = b.getInsertionBlock()->getParentOp()->getParentOfType<mlir::ModuleOp>();
  b.create<mlir::func::CallOp>(loc, kernelDeclaration(module, loc, name, args), args);
  llvm::SmallVector<Value> results;
  for (auto [alloc, resultType] : llvm::zip(allocs, resultTypes))
    results.push_back(
        b.create<mlir::bufferization::ToTensorOp>(loc, resultType, alloc, /*restrict=*/true, /*writable=*/true));
  return results;
}

Value callKernel(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef name, mlir::ValueRange inputs,
                 mlir::RankedTensorType resultType, llvm::ArrayRef<Value> scalars, mlir::ValueRange sizeSources) {
  return callKernel(b, loc, name, inputs, llvm::ArrayRef<mlir::RankedTensorType>{resultType}, scalars,
                    sizeSources)[0];
}

// [N, C, H, W] as a _blocked kernel's activation: [N, C/B, H, W, B] for a
// channel block B of 16 or 8 (nChw16c, nChw8c), or [N, C, H, W, 1] in NCHW
// (block 1).
mlir::RankedTensorType kernelLayoutType(mlir::RankedTensorType t, int64_t block) {
  return mlir::RankedTensorType::get(
      {t.getDimSize(0), t.getDimSize(1) / block, t.getDimSize(2), t.getDimSize(3), block}, t.getElementType());
}

// An NCHW activation as the _blocked kernels take it: packed in blocks of
// `block` channels, [N, C/B, H, W, B], or (block 1) reshaped to
// [N, C, H, W, 1].
Value toKernelLayout(mlir::OpBuilder &b, mlir::Location loc, Value v, int64_t block) {
  if (block == 1)
    return b.create<mlir::tensor::ExpandShapeOp>(loc, kernelLayoutType(ttype(v), 1), v,
                                                 llvm::ArrayRef<mlir::ReassociationIndices>{{0}, {1}, {2}, {3, 4}})
        .getResult();
  llvm::SmallVector<mlir::OpFoldResult> tiles = {b.getIndexAttr(block)};
  Value dest = mlir::tensor::PackOp::createDestinationTensor(b, loc, v, tiles, {1}, {});
  return b.create<mlir::tensor::PackOp>(loc, v, dest, llvm::ArrayRef<int64_t>{1}, tiles).getResult();
}
// The inverse: a kernel's result in that layout back to NCHW `type`.
Value fromKernelLayout(mlir::OpBuilder &b, mlir::Location loc, Value v, mlir::RankedTensorType type, int64_t block) {
  if (block == 1)
    return b.create<mlir::tensor::CollapseShapeOp>(loc, type, v,
                                                   llvm::ArrayRef<mlir::ReassociationIndices>{{0}, {1}, {2}, {3, 4}})
        .getResult();
  Value dest = emptyTensor(b, loc, type, {v});
  return b.create<mlir::tensor::UnPackOp>(loc, v, dest, llvm::ArrayRef<int64_t>{1},
                                          llvm::ArrayRef<mlir::OpFoldResult>{b.getIndexAttr(block)})
      .getResult();
}

} // namespace dx::lower
