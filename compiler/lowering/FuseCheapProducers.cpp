#include "lowering/FuseCheapProducers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace dx {
namespace {

namespace linalg = mlir::linalg;

constexpr int kMaxBodyOps = 4;

// An all-parallel generic of one result whose body is a few arith ops.
bool isCheap(linalg::GenericOp g) {
  if (g.getNumResults() != 1 || g.getNumReductionLoops() != 0) return false;
  int ops = 0;
  for (mlir::Operation &op : g.getBody()->without_terminator()) {
    if (op.getDialect() != g->getContext()->getLoadedDialect<mlir::arith::ArithDialect>()) return false;
    if (mlir::isa<mlir::arith::DivFOp, mlir::arith::RemFOp>(op)) return false;
    if (!mlir::isa<mlir::arith::ConstantOp>(op) && ++ops > kMaxBodyOps) return false;
  }
  return true;
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
  const int64_t inputs = producer.getNumDpsInputs();
  return inputs * users < inputs + 1 + users;
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

struct FuseCheapProducersPass : mlir::PassWrapper<FuseCheapProducersPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FuseCheapProducersPass)
  llvm::StringRef getArgument() const override { return "dx-fuse-cheap-producers"; }
  llvm::StringRef getDescription() const override {
    return "Fuse cheap elementwise producers into all their users when that saves memory traffic";
  }
  void fuseSingleUseProducers() {
    mlir::RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [](mlir::OpOperand *fused) { return fused->get().hasOneUse(); });
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
  }
};

} // namespace

std::unique_ptr<mlir::Pass> createFuseCheapProducersPass() { return std::make_unique<FuseCheapProducersPass>(); }
void registerFuseCheapProducersPass() { mlir::PassRegistration<FuseCheapProducersPass>(); }

} // namespace dx
