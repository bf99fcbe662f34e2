#include "lowering/StripFastMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"

namespace dx {
namespace {

struct StripFastMathPass : mlir::PassWrapper<StripFastMathPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(StripFastMathPass)
  llvm::StringRef getArgument() const override { return "dx-strip-fast-math"; }
  llvm::StringRef getDescription() const override {
    return "Drop every fast-math flag, so that floating-point sums run in program order (tests)";
  }
  void runOnOperation() override {
    auto none = mlir::arith::FastMathFlagsAttr::get(&getContext(), mlir::arith::FastMathFlags::none);
    getOperation().walk([&](mlir::arith::ArithFastMathInterface op) {
      op->setAttr(op.getFastMathAttrName(), none);
    });
  }
};

} // namespace

std::unique_ptr<mlir::Pass> createStripFastMathPass() { return std::make_unique<StripFastMathPass>(); }
void registerStripFastMathPass() { mlir::PassRegistration<StripFastMathPass>(); }

} // namespace dx
