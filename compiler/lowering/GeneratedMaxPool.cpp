#include "lowering/GeneratedMaxPool.h"
#include "lowering/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <optional>

namespace dx {
namespace {

using namespace lower;
using mlir::OpBuilder;
using mlir::Operation;
namespace arith = mlir::arith;
namespace tensor = mlir::tensor;

// The most elements a generated window compares (the winner is an i8; the
// forward op reads one slice per element).
constexpr int64_t kMaxWindow = 16;

struct Window {
  int64_t kh, kw, block;
};

// The window of a 2-D max pooling or max-pooling gradient `op` on the NCHW
// activation `x`, when it can be generated: planned in blocks of channels,
// windows that tile the plane.
std::optional<Window> tilingWindow(Operation *op, Value x) {
  auto attr = [&](const char *n) { return op->getAttrOfType<mlir::DenseI64ArrayAttr>(n); };
  auto blocked = op->getAttrOfType<mlir::IntegerAttr>("dx.blocked");
  auto kernel = attr("kernel"), stride = attr("stride"), pad = attr("pad");
  if (!blocked || blocked.getInt() <= 1 || !kernel || !stride || !pad || kernel.size() != 2 ||
      stride.asArrayRef() != kernel.asArrayRef() || llvm::any_of(pad.asArrayRef(), [](int64_t p) { return p != 0; }))
    return std::nullopt;
  auto t = ttype(x);
  const int64_t kh = kernel[0], kw = kernel[1], block = blocked.getInt();
  if (t.getRank() != 4 || !t.getElementType().isF32() || t.isDynamicDim(1) || t.isDynamicDim(2) ||
      t.isDynamicDim(3) || t.getDimSize(1) % block != 0 || kh < 1 || kw < 1 || kh * kw > kMaxWindow ||
      t.getDimSize(2) % kh != 0 || t.getDimSize(3) % kw != 0)
    return std::nullopt;
  return Window{kh, kw, block};
}

bool sameWindow(Operation *a, Operation *b) {
  for (const char *n : {"kernel", "stride", "pad", "dx.blocked"})
    if (a->getAttr(n) != b->getAttr(n)) return false;
  return true;
}

// The pooling at `pool`, on x packed in blocks: the window's maximum and,
// with `winner`, the winner's position, each [N, C/B, OH, OW, B].
llvm::SmallVector<Value> poolForward(OpBuilder &b, Operation *pool, const Window &w, bool winner) {
  mlir::Location loc = pool->getLoc();
  Value xb = toKernelLayout(b, loc, pool->getOperand(0), w.block);
  auto pooledType = kernelLayoutType(ttype(pool->getResult(0)), w.block);
  llvm::SmallVector<Value> inits = {emptyTensor(b, loc, pooledType, {xb})};
  llvm::SmallVector<mlir::Type> types = {pooledType};
  if (winner) {
    inits.push_back(emptyTensor(b, loc, pooledType.clone(b.getI8Type()), {xb}));
    types.push_back(inits.back().getType());
  }
  // Each slice has the pooled shape.
  const llvm::SmallVector<mlir::OpFoldResult> sizes = tensor::getMixedSizes(b, loc, inits[0]);
  llvm::SmallVector<mlir::OpFoldResult> strides = {b.getIndexAttr(1), b.getIndexAttr(1), b.getIndexAttr(w.kh),
                                                   b.getIndexAttr(w.kw), b.getIndexAttr(1)};
  llvm::SmallVector<Value> slices; // row-major window order
  for (int64_t i = 0; i < w.kh; ++i)
    for (int64_t j = 0; j < w.kw; ++j) {
      llvm::SmallVector<mlir::OpFoldResult> offsets = {b.getIndexAttr(0), b.getIndexAttr(0), b.getIndexAttr(i),
                                                       b.getIndexAttr(j), b.getIndexAttr(0)};
      slices.push_back(b.create<tensor::ExtractSliceOp>(loc, pooledType, xb, offsets, sizes, strides));
    }
  const unsigned rank = unsigned(pooledType.getRank());
  llvm::SmallVector<mlir::AffineMap> maps(slices.size() + inits.size(), b.getMultiDimIdentityMap(rank));
  llvm::SmallVector<mlir::utils::IteratorType> iters(rank, mlir::utils::IteratorType::parallel);
  const size_t n = slices.size();
  auto generic = b.create<mlir::linalg::GenericOp>(
      loc, types, slices, inits, maps, iters, [&](OpBuilder &nb, mlir::Location nloc, mlir::ValueRange args) {
        // libdxrt's rule: an element replaces the best so far when the best
        // is not NaN and the element is greater or NaN, so the result is the
        // first NaN if there is one, else the first maximum. Computed in two
        // stages whose every choice is one comparison of f32 values, with
        // the winner's position an f32 as well: the masks stay in the lanes
        // of the f32 vectors (an i8 winner chosen by combined i1 masks made
        // LLVM pack each mask to bytes and widen it again, three times the
        // instructions with AVX2). First the first maximum of the numbers
        // (`ogt` is false for NaN)...
        Value best = args[0];
        Value win = nb.create<arith::ConstantOp>(nloc, nb.getF32FloatAttr(0.0f));
        auto take = [&](Value cond, Value e, size_t t) {
          best = nb.create<arith::SelectOp>(nloc, cond, e, best);
          if (winner)
            win = nb.create<arith::SelectOp>(nloc, cond,
                                             nb.create<arith::ConstantOp>(nloc, nb.getF32FloatAttr(float(t))), win);
        };
        for (size_t t = 1; t < n; ++t)
          take(nb.create<arith::CmpFOp>(nloc, arith::CmpFPredicate::OGT, args[t], best), args[t], t);
        // ...then the first NaN over it, by taking every NaN from the last
        // element to the first.
        for (size_t t = n; t-- > 0;)
          take(nb.create<arith::CmpFOp>(nloc, arith::CmpFPredicate::UNO, args[t], args[t]), args[t], t);
        if (winner) win = nb.create<arith::FPToUIOp>(nloc, nb.getI8Type(), win);
        llvm::SmallVector<Value> yields = {best};
        if (winner) yields.push_back(win);
        nb.create<mlir::linalg::YieldOp>(nloc, yields);
      });
  return llvm::SmallVector<Value>(generic->getResults().begin(), generic->getResults().end());
}

// The gradient at `grad` from its dy and the forward pooling's winners:
// [N, C/B, H, W, B].
Value poolGradient(OpBuilder &b, Operation *grad, const Window &w, Value winners) {
  mlir::Location loc = grad->getLoc();
  mlir::MLIRContext *ctx = b.getContext();
  Value dyb = toKernelLayout(b, loc, grad->getOperand(0), w.block);
  auto inType = kernelLayoutType(ttype(grad->getResult(0)), w.block);
  auto d = [&](unsigned k) { return mlir::getAffineDimExpr(k, ctx); };
  auto pooled = mlir::AffineMap::get(5, 0, {d(0), d(1), d(2).floorDiv(w.kh), d(3).floorDiv(w.kw), d(4)}, ctx);
  llvm::SmallVector<mlir::AffineMap> maps = {pooled, pooled, b.getMultiDimIdentityMap(5)};
  llvm::SmallVector<mlir::utils::IteratorType> iters(5, mlir::utils::IteratorType::parallel);
  Value init = emptyTensor(b, loc, inType, {dyb});
  auto generic = b.create<mlir::linalg::GenericOp>(
      loc, mlir::TypeRange{inType}, mlir::ValueRange{dyb, winners}, mlir::ValueRange{init}, maps, iters,
      [&](OpBuilder &nb, mlir::Location nloc, mlir::ValueRange args) {
        auto position = [&](unsigned dim, int64_t k) {
          Value i = nb.create<mlir::linalg::IndexOp>(nloc, dim);
          return nb.create<arith::RemUIOp>(nloc, i, nb.create<arith::ConstantIndexOp>(nloc, k)).getResult();
        };
        Value row = nb.create<arith::MulIOp>(nloc, position(2, w.kh), nb.create<arith::ConstantIndexOp>(nloc, w.kw));
        Value pos = nb.create<arith::AddIOp>(nloc, row, position(3, w.kw));
        Value pos8 = nb.create<arith::IndexCastOp>(nloc, nb.getI8Type(), pos);
        Value won = nb.create<arith::CmpIOp>(nloc, arith::CmpIPredicate::eq, pos8, args[1]);
        Value zero = nb.create<arith::ConstantOp>(nloc, nb.getF32FloatAttr(0.0f));
        nb.create<mlir::linalg::YieldOp>(nloc, mlir::ValueRange{nb.create<arith::SelectOp>(nloc, won, args[0], zero)});
      });
  return generic.getResult(0);
}

} // namespace

void generateMaxPools(mlir::ModuleOp module) {
  llvm::SmallVector<std::pair<Operation *, Window>> pools;
  module.walk([&](Operation *op) {
    if (op->getName().getStringRef() != "dx.maxpool") return;
    if (std::optional<Window> w = tilingWindow(op, op->getOperand(0))) pools.push_back({op, *w});
  });
  for (auto [pool, w] : pools) {
    // The gradients of this pooling: they read its input, after it.
    llvm::SmallVector<Operation *> grads;
    for (Operation *user : pool->getOperand(0).getUsers())
      if (user->getName().getStringRef() == "dx.pool_grad" && user->getOperand(1) == pool->getOperand(0) &&
          user->getAttrOfType<mlir::StringAttr>("kind").getValue() == "max" && sameWindow(user, pool) &&
          user->getBlock() == pool->getBlock() && pool->isBeforeInBlock(user))
        grads.push_back(user);
    OpBuilder b(pool);
    auto forward = poolForward(b, pool, w, /*winner=*/!grads.empty());
    pool->replaceAllUsesWith(mlir::ValueRange{
        fromKernelLayout(b, pool->getLoc(), forward[0], ttype(pool->getResult(0)), w.block)});
    pool->erase();
    for (Operation *grad : grads) {
      b.setInsertionPoint(grad);
      Value g = poolGradient(b, grad, w, forward[1]);
      Value plain = fromKernelLayout(b, grad->getLoc(), g, ttype(grad->getResult(0)), w.block);
      grad->replaceAllUsesWith(mlir::ValueRange{plain});
      grad->erase();
    }
  }
}

} // namespace dx
