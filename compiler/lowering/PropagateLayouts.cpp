#include "lowering/PropagateLayouts.h"
#include "lowering/LoweringUtils.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace dx {
namespace {

namespace tensor = mlir::tensor;
using mlir::Value;

// The channel blocks of libdxrt's _blocked kernels and layout conversions:
// 16 (nChw16c) and 8 (nChw8c).
bool isChannelBlock(int64_t b) { return b == 16 || b == 8; }

// An NCHW <-> nChw16c / nChw8c pack or unpack of a 4-D activation: channels
// (dim 1) in tiles of 16 or 8, no padding, no permutation of the outer dims.
template <typename PackLike> bool isChannelBlocking(PackLike op, mlir::RankedTensorType plain) {
  return plain.getRank() == 4 && op.getInnerDimsPos().size() == 1 && op.getInnerDimsPos()[0] == 1 &&
         op.getStaticInnerTiles().size() == 1 && isChannelBlock(op.getStaticInnerTiles()[0]) &&
         op.getOuterDimsPerm().empty();
}

// A pack or unpack that tiles only the plain tensor's last dim, in order:
// [.., C] <-> [.., C/B, B] is a reshape.
template <typename PackLike> bool innermost(PackLike op, mlir::RankedTensorType plain) {
  const int64_t last = plain.getRank() - 1;
  if (op.getInnerDimsPos().size() != 1 || op.getInnerDimsPos()[0] != last || !op.getOuterDimsPerm().empty() ||
      op.getStaticInnerTiles().size() != 1 || mlir::ShapedType::isDynamic(op.getStaticInnerTiles()[0]))
    return false;
  return !plain.isDynamicDim(last) && plain.getDimSize(last) % op.getStaticInnerTiles()[0] == 0;
}
// The reassociation of [d0, .., dk] with dk split in two.
llvm::SmallVector<mlir::ReassociationIndices> splitLast(mlir::RankedTensorType plain) {
  llvm::SmallVector<mlir::ReassociationIndices> r;
  for (int64_t k = 0; k + 1 < plain.getRank(); ++k) r.push_back({k});
  r.push_back({plain.getRank() - 1, plain.getRank()});
  return r;
}

// An elementwise generic all of whose inputs are channel-block unpacks (a
// residual add, the sum of two branches' gradients) becomes the same
// generic on the packed tensors followed by one unpack. MLIR's propagation
// moves an unpack through a generic only when the generic's other operands
// are not unpacks too, so without this such a join stayed NCHW and cost a
// conversion on each side.
struct PushUnpacksThroughElementwise : mlir::OpRewritePattern<mlir::linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  mlir::LogicalResult matchAndRewrite(mlir::linalg::GenericOp op, mlir::PatternRewriter &rewriter) const override {
    if (op.getNumDpsInits() != 1 || op.getNumDpsInputs() < 2 || op.getNumReductionLoops() != 0 ||
        !llvm::all_of(op.getIndexingMapsArray(), [](mlir::AffineMap m) { return m.isIdentity(); }))
      return mlir::failure();
    // The result is computed from the inputs alone (the init is not read).
    if (!op.getMatchingBlockArgument(op.getDpsInitOperand(0)).use_empty()) return mlir::failure();
    llvm::SmallVector<Value> packed;
    tensor::UnPackOp first;
    for (mlir::OpOperand *in : op.getDpsInputOperands()) {
      auto unpack = in->get().getDefiningOp<tensor::UnPackOp>();
      if (!unpack || !unpack->hasOneUse() || !isChannelBlocking(unpack, unpack.getDestType())) return mlir::failure();
      if (first && unpack.getSourceType() != first.getSourceType()) return mlir::failure();
      if (!first) first = unpack;
      packed.push_back(unpack.getSource());
    }
    auto packedType = first.getSourceType();
    auto plainType = mlir::cast<mlir::RankedTensorType>(op.getResult(0).getType());
    if (plainType.getElementType() != packedType.getElementType()) return mlir::failure();
    mlir::Location loc = op.getLoc();
    Value init = rewriter.create<tensor::EmptyOp>(loc, tensor::getMixedSizes(rewriter, loc, packed.front()),
                                                  packedType.getElementType());
    const unsigned rank = unsigned(packedType.getRank());
    llvm::SmallVector<mlir::AffineMap> maps(packed.size() + 1, rewriter.getMultiDimIdentityMap(rank));
    llvm::SmallVector<mlir::utils::IteratorType> iters(rank, mlir::utils::IteratorType::parallel);
    auto blocked = rewriter.create<mlir::linalg::GenericOp>(loc, init.getType(), packed, init, maps, iters);
    rewriter.inlineRegionBefore(op.getRegion(), blocked.getRegion(), blocked.getRegion().begin());
    Value dest = rewriter.create<tensor::EmptyOp>(loc, tensor::getMixedSizes(rewriter, loc, op.getDpsInits()[0]),
                                                  plainType.getElementType());
    rewriter.replaceOpWithNewOp<tensor::UnPackOp>(op, blocked.getResult(0), dest, first.getInnerDimsPos(),
                                                  first.getMixedTiles());
    return mlir::success();
  }
};

// A convolution operand in blocks of channels that nothing else reads or
// writes in that layout gains nothing: its pack (an input) or unpack (an output) is
// a conversion where libdxrt's reorder was, and it may cost more (a
// convolution oneDNN does not take, such as a first layer's weight
// gradient, for which libdxrt has a faster NCHW kernel). Such operands go
// back to NCHW ([N, C, H, W, 1]): the call keeps the blocked layout only
// where the code next to it computes in it.
void keepOnlyUsefulBlocks(mlir::ModuleOp module) {
  llvm::SmallVector<mlir::func::CallOp> calls;
  module.walk([&](mlir::func::CallOp call) {
    if (call.getCallee().starts_with("dxrt_conv2d_") && call.getCallee().ends_with("_blocked")) calls.push_back(call);
  });
  auto blocked = [](Value v) {
    auto t = mlir::dyn_cast<mlir::MemRefType>(v.getType());
    return t && t.getRank() == 5 && isChannelBlock(t.getDimSize(4));
  };
  auto nchwOf = [](mlir::ShapedType t) {
    return llvm::SmallVector<int64_t>{t.getDimSize(0), t.getDimSize(1) * t.getDimSize(4), t.getDimSize(2),
                                      t.getDimSize(3), 1};
  };
  const llvm::SmallVector<mlir::ReassociationIndices> lastUnit = {{0}, {1}, {2}, {3, 4}};
  for (mlir::func::CallOp call : calls) {
    mlir::OpBuilder b(call);
    for (mlir::OpOperand &arg : call->getOpOperands()) {
      auto cast = arg.get().getDefiningOp<mlir::memref::CastOp>();
      if (!cast || !blocked(cast.getSource())) continue;
      if (auto toMemref = cast.getSource().getDefiningOp<mlir::bufferization::ToMemrefOp>()) {
        auto pack = toMemref.getTensor().getDefiningOp<tensor::PackOp>();
        if (!pack) continue; // computed in the blocked layout: keep
        b.setInsertionPoint(toMemref);
        auto plainType = mlir::RankedTensorType::get(nchwOf(pack.getDestType()), pack.getDestType().getElementType());
        Value plain = b.create<tensor::ExpandShapeOp>(pack.getLoc(), plainType, pack.getSource(), lastUnit);
        auto memrefType = mlir::cast<mlir::MemRefType>(toMemref.getType());
        auto viewType = mlir::MemRefType::get(plainType.getShape(), plainType.getElementType(), memrefType.getLayout());
        auto m = b.create<mlir::bufferization::ToMemrefOp>(toMemref.getLoc(), viewType, plain, /*read_only=*/true);
        m->setAttrs(toMemref->getAttrs());
        arg.set(b.create<mlir::memref::CastOp>(cast.getLoc(), cast.getType(), m));
        if (cast->use_empty()) cast->erase();
        if (toMemref->use_empty()) toMemref->erase();
        continue;
      }
      auto alloc = cast.getSource().getDefiningOp<mlir::memref::AllocOp>();
      if (!alloc) continue;
      // The call's own output: a buffer only it writes (through this cast)
      // and only its to_tensor reads. A buffer another kernel wrote (a
      // blocked pooling's output, read here as an input) is not this call's
      // to move.
      auto onlyThisCall = [&](mlir::Operation *user) {
        if (mlir::isa<mlir::bufferization::ToTensorOp>(user)) return true;
        return user == cast.getOperation() &&
               llvm::all_of(cast->getUsers(), [&](mlir::Operation *u) { return u == call.getOperation(); });
      };
      if (!llvm::all_of(alloc->getUsers(), onlyThisCall)) continue;
      mlir::bufferization::ToTensorOp toTensor;
      for (mlir::Operation *user : alloc->getUsers())
        if (auto t = mlir::dyn_cast<mlir::bufferization::ToTensorOp>(user)) toTensor = t;
      if (!toTensor || toTensor->use_empty() ||
          !llvm::all_of(toTensor->getUsers(), [](mlir::Operation *u) { return mlir::isa<tensor::UnPackOp>(u); }))
        continue; // read in the blocked layout: keep
      b.setInsertionPoint(alloc);
      auto plainType = mlir::MemRefType::get(nchwOf(alloc.getType()), alloc.getType().getElementType());
      auto plainAlloc = b.create<mlir::memref::AllocOp>(alloc.getLoc(), plainType, alloc.getDynamicSizes(),
                                                        alloc.getAlignmentAttr());
      arg.set(b.create<mlir::memref::CastOp>(cast.getLoc(), cast.getType(), plainAlloc));
      b.setInsertionPoint(toTensor);
      auto tensorType = mlir::RankedTensorType::get(plainType.getShape(), plainType.getElementType());
      Value t = b.create<mlir::bufferization::ToTensorOp>(toTensor.getLoc(), tensorType, plainAlloc,
                                                          /*restrict=*/true, /*writable=*/true);
      for (mlir::Operation *u : llvm::make_early_inc_range(toTensor->getUsers())) {
        auto unpack = mlir::cast<tensor::UnPackOp>(u);
        b.setInsertionPoint(unpack);
        unpack.getResult().replaceAllUsesWith(
            b.create<tensor::CollapseShapeOp>(unpack.getLoc(), unpack.getDestType(), t, lastUnit).getResult());
        unpack->erase();
      }
      toTensor->erase();
      if (cast->use_empty()) cast->erase();
      if (alloc->use_empty()) alloc->erase();
    }
  }
}

struct PropagateLayoutsPass : mlir::PassWrapper<PropagateLayoutsPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PropagateLayoutsPass)
  llvm::StringRef getArgument() const override { return "dx-propagate-layouts"; }
  llvm::StringRef getDescription() const override {
    return "Move channel-block (nChw16c, nChw8c) packs and unpacks of convolution activations through linalg.generics until they cancel";
  }
  void getDependentDialects(mlir::DialectRegistry &registry) const override {
    registry.insert<mlir::linalg::LinalgDialect, tensor::TensorDialect, mlir::memref::MemRefDialect,
                    mlir::bufferization::BufferizationDialect, mlir::func::FuncDialect>();
  }

  void runOnOperation() override {
    mlir::ModuleOp module = getOperation();
    mlir::MLIRContext *ctx = &getContext();
    {
      mlir::RewritePatternSet patterns(ctx);
      // Only a pack or unpack that is its value's one use moves: a value
      // never ends up in both layouts (two copies, and a conversion more
      // than the reorder libdxrt made before). The unpack that stays then sits
      // right at the convolution, as libdxrt's reorder did.
      mlir::linalg::populateDataLayoutPropagationPatterns(patterns,
                                                          [](mlir::OpOperand *o) { return o->get().hasOneUse(); });
      patterns.add<PushUnpacksThroughElementwise>(ctx);
      tensor::PackOp::getCanonicalizationPatterns(patterns, ctx);
      tensor::UnPackOp::getCanonicalizationPatterns(patterns, ctx);
      tensor::EmptyOp::getCanonicalizationPatterns(patterns, ctx);
      if (mlir::failed(mlir::applyPatternsAndFoldGreedily(module, std::move(patterns)))) return signalPassFailure();
    }
    keepOnlyUsefulBlocks(module);
    module.walk([&](mlir::Operation *op) {
      if (mlir::isa<tensor::PackOp, tensor::UnPackOp>(op) && op->use_empty()) op->erase();
    });
    // What is left: a pack or unpack whose tiled dim is innermost (a
    // per-channel vector, a pooled [N, C]) is a reshape; an NCHW activation's
    // is libdxrt's conversion; anything else MLIR's generic lowering (pad,
    // reshape, transpose).
    llvm::SmallVector<mlir::Operation *> left;
    module.walk([&](mlir::Operation *op) {
      if (mlir::isa<tensor::PackOp, tensor::UnPackOp>(op)) left.push_back(op);
    });
    mlir::IRRewriter rewriter(ctx);
    for (mlir::Operation *op : left) {
      rewriter.setInsertionPoint(op);
      if (auto pack = mlir::dyn_cast<tensor::PackOp>(op)) {
        auto plain = mlir::cast<mlir::RankedTensorType>(pack.getSourceType());
        auto packed = mlir::cast<mlir::RankedTensorType>(pack.getDestType());
        if (innermost(pack, plain) && !pack.getPaddingValue()) {
          rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, packed, pack.getSource(), splitLast(plain));
        } else if (isChannelBlocking(pack, plain) && !pack.getPaddingValue()) {
          rewriter.replaceOp(op, lower::callKernel(rewriter, op->getLoc(), "dxrt_nchw_to_blocked", {pack.getSource()},
                                                   packed, {}, {pack.getSource()}));
        } else if (mlir::failed(mlir::linalg::lowerPack(rewriter, pack))) {
          op->emitError("dx-propagate-layouts: cannot lower ") << *op;
          return signalPassFailure();
        }
        continue;
      }
      auto unpack = mlir::cast<tensor::UnPackOp>(op);
      auto plain = mlir::cast<mlir::RankedTensorType>(unpack.getDestType());
      if (innermost(unpack, plain)) {
        rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(op, plain, unpack.getSource(), splitLast(plain));
      } else if (isChannelBlocking(unpack, plain)) {
        rewriter.replaceOp(op, lower::callKernel(rewriter, op->getLoc(), "dxrt_blocked_to_nchw", {unpack.getSource()},
                                                 plain, {}, {unpack.getSource()}));
      } else if (mlir::failed(mlir::linalg::lowerUnPack(rewriter, unpack))) {
        op->emitError("dx-propagate-layouts: cannot lower ") << *op;
        return signalPassFailure();
      }
    }
  }
};

// An NCHW activation passes through a _blocked kernel as [N, C, H, W, 1];
// elementwise fusion then folds its reshape into the generics next to the
// call by expanding them to five loops, the innermost of extent 1, which
// the vectorizer cannot use (scalar loops, 1.5-3x slower). This drops that
// loop again: a 5-loop linalg.generic whose last loop has static extent 1
// becomes a 4-loop one between reshapes, which fold into the call's
// operands.
struct DropUnitBlockDimsPass : mlir::PassWrapper<DropUnitBlockDimsPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DropUnitBlockDimsPass)
  llvm::StringRef getArgument() const override { return "dx-drop-unit-block-dims"; }
  llvm::StringRef getDescription() const override {
    return "Drop the innermost unit loop that [N, C, H, W, 1] kernel activations leave on fused linalg.generics";
  }
  void getDependentDialects(mlir::DialectRegistry &registry) const override {
    registry.insert<mlir::linalg::LinalgDialect, tensor::TensorDialect>();
  }
  void runOnOperation() override {
    mlir::linalg::ControlDropUnitDims options;
    options.controlFn = [](mlir::Operation *op) -> llvm::SmallVector<unsigned> {
      auto generic = mlir::dyn_cast<mlir::linalg::GenericOp>(op);
      if (!generic || generic.getNumLoops() != 5) return {};
      llvm::SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
      return ranges.back() == 1 ? llvm::SmallVector<unsigned>{4} : llvm::SmallVector<unsigned>{};
    };
    // Each such generic once, not MLIR's whole unit-dims pattern set under a
    // greedy driver: those patterns also rewrite slices and pads everywhere,
    // and with the reshape folding they fought each other without end.
    llvm::SmallVector<mlir::linalg::GenericOp> generics;
    getOperation().walk([&](mlir::linalg::GenericOp g) {
      if (!options.controlFn(g).empty()) generics.push_back(g);
    });
    mlir::IRRewriter rewriter(&getContext());
    for (mlir::linalg::GenericOp g : generics) {
      rewriter.setInsertionPoint(g);
      (void)mlir::linalg::dropUnitDims(rewriter, g, options); // a generic it cannot reduce stays as it is
    }
  }
};

} // namespace

std::unique_ptr<mlir::Pass> createPropagateLayoutsPass() { return std::make_unique<PropagateLayoutsPass>(); }
void registerPropagateLayoutsPass() {
  mlir::PassRegistration<PropagateLayoutsPass>();
  mlir::PassRegistration<DropUnitBlockDimsPass>();
}

} // namespace dx
