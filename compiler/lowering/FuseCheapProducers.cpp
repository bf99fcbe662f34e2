#include "lowering/FuseCheapProducers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace dx {
namespace {

namespace linalg = mlir::linalg;

constexpr int kMaxBodyOps = 4;

// Integer and index arithmetic on a few loop indices (a generated max
// pooling's gradient: the pixel's position in its window, compared with the
// winner's) costs a few vector instructions per tile, none per element read.
constexpr int kMaxIndexOps = 10;

// Whether an input is read through an expression of the loop indices (a
// generated max pooling's gradient reads dy at h floordiv 2).
bool readsThroughExpressions(linalg::GenericOp g) {
  return llvm::any_of(g.getDpsInputOperands(),
                      [&](mlir::OpOperand *in) { return !g.getMatchingIndexingMap(in).isProjectedPermutation(); });
}

// An all-parallel generic of one result whose body is a few arith ops on
// floats; one that reads through expressions of its loop indices may also
// compute a few integer ops on them.
bool isCheap(linalg::GenericOp g) {
  if (g.getNumResults() != 1 || g.getNumReductionLoops() != 0) return false;
  const bool indexMath = readsThroughExpressions(g);
  mlir::Dialect *arith = g->getContext()->getLoadedDialect<mlir::arith::ArithDialect>();
  int ops = 0, indexOps = 0;
  for (mlir::Operation &op : g.getBody()->without_terminator()) {
    if (mlir::isa<mlir::arith::ConstantOp>(op)) continue;
    const bool integer = op.getDialect() == arith && !mlir::isa<mlir::arith::CmpFOp>(op) &&
                         llvm::all_of(op.getResultTypes(), [](mlir::Type t) { return t.isIntOrIndex(); });
    if (indexMath && (integer || mlir::isa<linalg::IndexOp>(op))) {
      if (++indexOps > kMaxIndexOps) return false;
      continue;
    }
    if (op.getDialect() != arith) return false;
    if (mlir::isa<mlir::arith::DivFOp, mlir::arith::RemFOp>(op)) return false;
    if (++ops > kMaxBodyOps) return false;
  }
  return true;
}

// What the producer's inputs weigh, in tensors the size of its result: one
// each, except an input read through an expression of the loop indices,
// which weighs its elements (static dims; a dynamic one, the batch, counts
// as the result's) times its element size over the result's: a generated
// max pooling gradient's dy a quarter, its winners (bytes) a sixteenth.
double inputTensors(linalg::GenericOp producer) {
  auto result = mlir::cast<mlir::RankedTensorType>(producer->getResult(0).getType());
  auto staticElems = [](mlir::RankedTensorType t) {
    double n = 1;
    for (int64_t d : t.getShape()) n *= mlir::ShapedType::isDynamic(d) ? 1.0 : double(d);
    return n;
  };
  const double out = staticElems(result) * result.getElementTypeBitWidth();
  double sum = 0;
  for (mlir::OpOperand *in : producer.getDpsInputOperands()) {
    auto t = mlir::dyn_cast<mlir::RankedTensorType>(in->get().getType());
    const bool weighed = t && t.getElementType().isIntOrFloat() &&
                         !producer.getMatchingIndexingMap(in).isProjectedPermutation();
    sum += weighed ? staticElems(t) * t.getElementTypeBitWidth() / out : 1.0;
  }
  return sum;
}

// Whether to recompute `producer` in each of its users (see the header).
bool worthRecomputing(linalg::GenericOp producer) {
  mlir::Value result = producer->getResult(0);
  if (result.hasOneUse() || !isCheap(producer)) return false;
  int64_t users = 0;
  for (mlir::OpOperand &use : result.getUses()) {
    if (!mlir::isa<linalg::GenericOp>(use.getOwner()) || !linalg::areElementwiseOpsFusable(&use)) return false;
    ++users;
  }
  const double inputs = inputTensors(producer);
  return inputs * double(users) < inputs + 1 + double(users);
}

// Rule 2 (see the header): a producer of a few arith ops and square roots
// (a batch norm's normalisation and its relu: 8 ops, the square root on the
// channel's variance, which vectorization hoists out of the loop).
constexpr int kMaxRecomputedOps = 12;

bool isRecomputable(linalg::GenericOp g) {
  if (g.getNumResults() != 1 || g.getNumReductionLoops() != 0 || g.getNumDpsInits() != 1 ||
      !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity())
    return false;
  mlir::Dialect *arith = g->getContext()->getLoadedDialect<mlir::arith::ArithDialect>();
  int ops = 0;
  for (mlir::Operation &op : g.getBody()->without_terminator()) {
    if (op.getDialect() != arith && !mlir::isa<mlir::math::SqrtOp, mlir::math::RsqrtOp, mlir::math::AbsFOp>(op))
      return false;
    if (!mlir::isa<mlir::arith::ConstantOp>(op) && ++ops > kMaxRecomputedOps) return false;
  }
  return true;
}

// Whether the consumer of `use` already reads each of the producer's
// full-size inputs (those indexed by every loop; the others are broadcast
// vectors) at the place the fused op would read it: recomputing the
// producer there then reads nothing new and drops the read of its result.
bool consumerReadsProducerInputs(linalg::GenericOp producer, mlir::OpOperand &use) {
  auto consumer = mlir::dyn_cast<linalg::GenericOp>(use.getOwner());
  if (!consumer || !linalg::areElementwiseOpsFusable(&use)) return false;
  mlir::AffineMap toProducer = consumer.getMatchingIndexingMap(&use);
  for (mlir::OpOperand *in : producer.getDpsInputOperands()) {
    mlir::AffineMap m = producer.getMatchingIndexingMap(in);
    if (m.getNumResults() < producer.getNumLoops()) continue; // broadcast
    mlir::AffineMap fused = m.compose(toProducer);
    bool read = llvm::any_of(consumer.getDpsInputOperands(), [&](mlir::OpOperand *c) {
      return c->get() == in->get() && consumer.getMatchingIndexingMap(c) == fused;
    });
    if (!read) return false;
  }
  return true;
}

// Rule 3: a recomputable producer read only through strided,
// non-rank-reducing slices (a generated max pooling's window slices), with
// at most one full-size input (recomputing it on a slice then reads no more
// than the slice of its result would).
bool slicesOnly(linalg::GenericOp g) {
  if (!isRecomputable(g) || g->getResult(0).use_empty() || g.hasIndexSemantics() ||
      g.payloadUsesValueFromOperand(g.getDpsInitOperand(0)))
    return false;
  int64_t full = 0;
  for (mlir::OpOperand *in : g.getDpsInputOperands()) {
    if (!mlir::isa<mlir::RankedTensorType>(in->get().getType()) ||
        !g.getMatchingIndexingMap(in).isProjectedPermutation())
      return false;
    full += g.getMatchingIndexingMap(in).getNumResults() == g.getNumLoops();
  }
  if (full > 1) return false;
  return llvm::all_of(g->getResult(0).getUsers(), [&](mlir::Operation *user) {
    auto slice = mlir::dyn_cast<mlir::tensor::ExtractSliceOp>(user);
    return slice && slice.getSourceType().getRank() == slice.getResultType().getRank() &&
           llvm::any_of(slice.getMixedStrides(), [](mlir::OpFoldResult s) { return !mlir::isConstantIntValue(s, 1); });
  });
}

// The producer's op on `slice` of its iteration space (its output map is
// the identity): each input sliced along the dims it reads, the same body.
void recomputeOnSlice(mlir::OpBuilder &b, linalg::GenericOp producer, mlir::tensor::ExtractSliceOp slice) {
  b.setInsertionPoint(slice);
  mlir::Location loc = slice.getLoc();
  auto offsets = slice.getMixedOffsets(), sizes = slice.getMixedSizes(), strides = slice.getMixedStrides();
  llvm::SmallVector<mlir::Value> inputs;
  for (mlir::OpOperand *in : producer.getDpsInputOperands()) {
    mlir::AffineMap m = producer.getMatchingIndexingMap(in);
    auto type = mlir::cast<mlir::RankedTensorType>(in->get().getType());
    llvm::SmallVector<mlir::OpFoldResult> o, z, s;
    bool whole = true;
    for (unsigned r = 0; r < m.getNumResults(); ++r) {
      const unsigned d = m.getDimPosition(r);
      o.push_back(offsets[d]);
      z.push_back(sizes[d]);
      s.push_back(strides[d]);
      auto size = mlir::getConstantIntValue(sizes[d]);
      whole &= mlir::isConstantIntValue(offsets[d], 0) && mlir::isConstantIntValue(strides[d], 1) && size &&
               !type.isDynamicDim(r) && *size == type.getDimSize(r);
    }
    inputs.push_back(whole ? in->get() : b.create<mlir::tensor::ExtractSliceOp>(loc, in->get(), o, z, s).getResult());
  }
  mlir::Value init = b.create<mlir::tensor::EmptyOp>(loc, sizes, slice.getResultType().getElementType());
  auto op = b.create<linalg::GenericOp>(loc, mlir::TypeRange{slice.getResultType()}, inputs, mlir::ValueRange{init},
                                        producer.getIndexingMapsArray(), producer.getIteratorTypesArray());
  mlir::IRMapping mapping;
  producer.getRegion().cloneInto(&op.getRegion(), mapping);
  slice.replaceAllUsesWith(op.getResult(0));
  slice.erase();
}

struct FuseCheapProducersPass : mlir::PassWrapper<FuseCheapProducersPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FuseCheapProducersPass)
  llvm::StringRef getArgument() const override { return "dx-fuse-cheap-producers"; }
  llvm::StringRef getDescription() const override {
    return "Fuse cheap elementwise producers into all their users when that saves memory traffic";
  }
  // Fuses each producer result that has a single user into it. A producer
  // with several results whose other results are used stays, and the fused
  // op would recompute it from its inputs: a max pooling's winners (a byte
  // per pixel) would be recomputed in the backward pass from the pooling's
  // whole input. Such a result is read, not recomputed.
  void fuseSingleUseProducers() {
    mlir::RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns, [](mlir::OpOperand *fused) {
      mlir::Operation *producer = fused->get().getDefiningOp();
      return fused->get().hasOneUse() && (producer->getNumResults() == 1 || producer->hasOneUse());
    });
    mlir::GreedyRewriteConfig config;
    config.useTopDownTraversal = true;
    (void)mlir::applyPatternsAndFoldGreedily(getOperation(), std::move(patterns), config);
  }

  void runOnOperation() override {
    // A copy of the producer per user, then each fuses as a single-use one
    // (fusing a producer that has other users would keep its result as an
    // output of the fused op, written to memory all the same).
    llvm::SmallVector<linalg::GenericOp> producers;
    getOperation().walk([&](linalg::GenericOp g) {
      if (worthRecomputing(g)) producers.push_back(g);
    });
    mlir::OpBuilder b(&getContext());
    for (linalg::GenericOp producer : producers) {
      llvm::SmallVector<mlir::OpOperand *> uses;
      for (mlir::OpOperand &use : producer->getResult(0).getUses()) uses.push_back(&use);
      b.setInsertionPointAfter(producer);
      for (size_t i = 1; i < uses.size(); ++i) uses[i]->set(b.clone(*producer)->getResult(0));
    }
    fuseSingleUseProducers();
    // Rule 2, per use, on what rule 1's fusions made (a batch norm's backward
    // ops read the relu's output only once the relu gradient is fused in).
    llvm::SmallVector<std::pair<linalg::GenericOp, mlir::OpOperand *>> recomputed;
    getOperation().walk([&](linalg::GenericOp g) {
      if (!isRecomputable(g) || g->getResult(0).hasOneUse()) return;
      for (mlir::OpOperand &use : g->getResult(0).getUses())
        if (consumerReadsProducerInputs(g, use)) recomputed.push_back({g, &use});
    });
    for (auto [producer, use] : recomputed) {
      b.setInsertionPointAfter(producer);
      use->set(b.clone(*producer)->getResult(0));
    }
    if (!recomputed.empty()) fuseSingleUseProducers();
    // Rule 3: strided slices of a recomputable producer (a generated max
    // pooling reads one per window position) take the producer on slices
    // of its inputs when all its users are such slices, so its result is
    // never written.
    llvm::SmallVector<linalg::GenericOp> sliced;
    getOperation().walk([&](linalg::GenericOp g) {
      if (slicesOnly(g)) sliced.push_back(g);
    });
    for (linalg::GenericOp producer : sliced) {
      llvm::SmallVector<mlir::tensor::ExtractSliceOp> slices;
      for (mlir::Operation *user : producer->getResult(0).getUsers())
        slices.push_back(mlir::cast<mlir::tensor::ExtractSliceOp>(user));
      for (mlir::tensor::ExtractSliceOp slice : slices) recomputeOnSlice(b, producer, slice);
      producer->erase();
    }
    if (!sliced.empty()) fuseSingleUseProducers();
  }
};

} // namespace

std::unique_ptr<mlir::Pass> createFuseCheapProducersPass() { return std::make_unique<FuseCheapProducersPass>(); }
void registerFuseCheapProducersPass() { mlir::PassRegistration<FuseCheapProducersPass>(); }

} // namespace dx
