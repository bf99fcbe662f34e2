#include "lowering/EmulateGpuOrder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"

namespace dx {
namespace {

using namespace mlir;

// The index of iteration j of n in the emulated order (a bijection of [0, n)).
Value permute(OpBuilder &b, Location loc, StringRef order, Value j, Value n) {
  if (order == "forward") return j;
  Value one = b.create<arith::ConstantIndexOp>(loc, 1);
  if (order == "reverse") return b.create<arith::SubIOp>(loc, b.create<arith::SubIOp>(loc, n, one), j);
  // odd-even: j < h visits 2j + 1 (the h odd indices), then j >= h visits
  // 2(j - h) (the n - h even ones), h = n / 2.
  Value two = b.create<arith::ConstantIndexOp>(loc, 2);
  Value h = b.create<arith::DivUIOp>(loc, n, two);
  Value odd = b.create<arith::AddIOp>(loc, b.create<arith::MulIOp>(loc, j, two), one);
  Value even = b.create<arith::MulIOp>(loc, b.create<arith::SubIOp>(loc, j, h), two);
  Value first = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, j, h);
  return b.create<arith::SelectOp>(loc, first, odd, even);
}

// Every induction variable iv of `par` becomes lb + perm((iv - lb) / step) * step.
LogicalResult reorder(scf::ParallelOp par, StringRef order) {
  if (par.getNumReductions() != 0)
    return par.emitError("dx-emulate-gpu-order expects parallel loops without reductions");
  OpBuilder b(par.getContext());
  b.setInsertionPointToStart(par.getBody());
  Location loc = par.getLoc();
  for (unsigned k = 0; k < par.getNumLoops(); ++k) {
    Value iv = par.getInductionVars()[k];
    Value lb = par.getLowerBound()[k], ub = par.getUpperBound()[k], step = par.getStep()[k];
    Value one = b.create<arith::ConstantIndexOp>(loc, 1);
    // n = ceil((ub - lb) / step); the loop body runs only when n > 0.
    Value span = b.create<arith::SubIOp>(loc, ub, lb);
    Value n = b.create<arith::DivUIOp>(loc, b.create<arith::SubIOp>(loc, b.create<arith::AddIOp>(loc, span, step), one),
                                       step);
    Value j = b.create<arith::DivUIOp>(loc, b.create<arith::SubIOp>(loc, iv, lb), step);
    Value p = permute(b, loc, order, j, n);
    Value moved = b.create<arith::AddIOp>(loc, lb, b.create<arith::MulIOp>(loc, p, step));
    // Every use of iv but the ones that compute `moved` (they come before it).
    iv.replaceUsesWithIf(moved, [&](OpOperand &use) {
      Operation *user = use.getOwner();
      return user->getBlock() != par.getBody() || moved.getDefiningOp()->isBeforeInBlock(user);
    });
  }
  return success();
}

struct EmulateGpuOrderPass : PassWrapper<EmulateGpuOrderPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(EmulateGpuOrderPass)
  EmulateGpuOrderPass() = default;
  EmulateGpuOrderPass(const EmulateGpuOrderPass &other) : PassWrapper(other) {}

  Option<std::string> order{*this, "order", llvm::cl::desc("forward | reverse | odd-even"),
                            llvm::cl::init("reverse")};

  StringRef getArgument() const override { return "dx-emulate-gpu-order"; }
  StringRef getDescription() const override {
    return "Run the GPU's parallel loops on the CPU in another order (a test of the CUDA lowering)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, memref::MemRefDialect>();
  }
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (order != "forward" && order != "reverse" && order != "odd-even") {
      module.emitError("dx-emulate-gpu-order: order must be forward, reverse or odd-even, not '")
          << order.getValue() << "'";
      return signalPassFailure();
    }
    WalkResult r = module.walk([&](scf::ParallelOp par) {
      return failed(reorder(par, order)) ? WalkResult::interrupt() : WalkResult::advance();
    });
    if (r.wasInterrupted()) return signalPassFailure();

    // The loss read-back of libdxrt_cuda: a load on the host again.
    constexpr llvm::StringLiteral readF32 = "dxrt_cuda_read_f32";
    IRRewriter rw(&getContext());
    module.walk([&](func::CallOp call) {
      if (call.getCallee() != readF32) return;
      rw.setInsertionPoint(call);
      rw.replaceOpWithNewOp<memref::LoadOp>(call, call.getOperand(0), ValueRange{});
    });
    if (auto decl = module.lookupSymbol<func::FuncOp>(readF32); decl && decl.symbolKnownUseEmpty(module)) decl.erase();
  }
};

} // namespace

std::unique_ptr<mlir::Pass> createEmulateGpuOrderPass() { return std::make_unique<EmulateGpuOrderPass>(); }
void registerEmulateGpuOrderPass() { mlir::PassRegistration<EmulateGpuOrderPass>(); }

} // namespace dx
