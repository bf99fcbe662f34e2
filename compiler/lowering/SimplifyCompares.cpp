#include "lowering/SimplifyCompares.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace dx {
namespace {

namespace arith = mlir::arith;

// Whether two values are the same bound: one SSA value, or two equal
// float constants.
bool sameBound(mlir::Value a, mlir::Value b) {
  if (a == b) return true;
  mlir::FloatAttr fa, fb;
  return mlir::matchPattern(a, mlir::m_Constant(&fa)) && mlir::matchPattern(b, mlir::m_Constant(&fb)) &&
         fa.getType() == fb.getType() && fa.getValue().bitwiseIsEqual(fb.getValue());
}

// The operand of `clamp` (a ClampOp, maximumf or minimumf) that is not `bound`.
template <typename ClampOp> mlir::Value otherOperand(mlir::Value v, mlir::Value bound) {
  auto clamp = v.getDefiningOp<ClampOp>();
  if (!clamp) return {};
  if (sameBound(clamp.getRhs(), bound)) return clamp.getLhs();
  if (sameBound(clamp.getLhs(), bound)) return clamp.getRhs();
  return {};
}

struct CompareWithClampBound : mlir::OpRewritePattern<arith::CmpFOp> {
  using OpRewritePattern::OpRewritePattern;

  mlir::LogicalResult matchAndRewrite(arith::CmpFOp cmp, mlir::PatternRewriter &rw) const override {
    mlir::Value lhs = cmp.getLhs(), rhs = cmp.getRhs();
    mlir::Value a;
    switch (cmp.getPredicate()) {
    case arith::CmpFPredicate::OGT: // max(a, c) > c, or c > min(a, c)
      if ((a = otherOperand<arith::MaximumFOp>(lhs, rhs)))
        return replace(rw, cmp, a, rhs);
      if ((a = otherOperand<arith::MinimumFOp>(rhs, lhs)))
        return replace(rw, cmp, lhs, a);
      return mlir::failure();
    case arith::CmpFPredicate::OLT: // min(a, c) < c, or c < max(a, c)
      if ((a = otherOperand<arith::MinimumFOp>(lhs, rhs)))
        return replace(rw, cmp, a, rhs);
      if ((a = otherOperand<arith::MaximumFOp>(rhs, lhs)))
        return replace(rw, cmp, lhs, a);
      return mlir::failure();
    default: return mlir::failure();
    }
  }

  static mlir::LogicalResult replace(mlir::PatternRewriter &rw, arith::CmpFOp cmp, mlir::Value lhs,
                                     mlir::Value rhs) {
    rw.modifyOpInPlace(cmp, [&] { cmp->setOperands({lhs, rhs}); });
    return mlir::success();
  }
};

struct SimplifyComparesPass : mlir::PassWrapper<SimplifyComparesPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SimplifyComparesPass)
  llvm::StringRef getArgument() const override { return "dx-simplify-compares"; }
  llvm::StringRef getDescription() const override {
    return "Compare a clamped value with its bound as the unclamped value (exact; drops a relu mask's maximumf)";
  }
  void runOnOperation() override {
    mlir::RewritePatternSet patterns(&getContext());
    patterns.add<CompareWithClampBound>(&getContext());
    if (mlir::failed(mlir::applyPatternsAndFoldGreedily(getOperation(), std::move(patterns)))) signalPassFailure();
  }
};

} // namespace

std::unique_ptr<mlir::Pass> createSimplifyComparesPass() { return std::make_unique<SimplifyComparesPass>(); }
void registerSimplifyComparesPass() { mlir::PassRegistration<SimplifyComparesPass>(); }

} // namespace dx
