#include "lowering/FuseCheapProducers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
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

struct FuseCheapProducersPass : mlir::PassWrapper<FuseCheapProducersPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FuseCheapProducersPass)
  llvm::StringRef getArgument() const override { return "dx-fuse-cheap-producers"; }
  llvm::StringRef getDescription() const override {
    return "Fuse cheap elementwise producers into all their users when that saves memory traffic";
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
    mlir::RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [](mlir::OpOperand *fused) { return fused->get().hasOneUse(); });
    mlir::GreedyRewriteConfig config;
    config.useTopDownTraversal = true;
    (void)mlir::applyPatternsAndFoldGreedily(getOperation(), std::move(patterns), config);
  }
};

} // namespace

std::unique_ptr<mlir::Pass> createFuseCheapProducersPass() { return std::make_unique<FuseCheapProducersPass>(); }
void registerFuseCheapProducersPass() { mlir::PassRegistration<FuseCheapProducersPass>(); }

} // namespace dx
