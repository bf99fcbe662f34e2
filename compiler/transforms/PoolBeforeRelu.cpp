// dx-pool-before-relu: a max pooling of a relu pools first and applies the
// relu to the pooled tensor (see Passes.h for why it is exact).
#include "transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"

namespace dx {
namespace {

// A max pooling whose windows tile the plane (stride = kernel, no padding),
// the poolings a CPU vector build generates.
bool tilingMaxPool(mlir::Operation *op) {
  if (op->getName().getStringRef() != "dx.maxpool") return false;
  auto attr = [&](const char *n) { return op->getAttrOfType<mlir::DenseI64ArrayAttr>(n); };
  auto kernel = attr("kernel"), stride = attr("stride"), pad = attr("pad");
  return kernel && stride && pad && kernel.asArrayRef() == stride.asArrayRef() &&
         llvm::all_of(pad.asArrayRef(), [](int64_t p) { return p == 0; });
}

struct PoolBeforeReluPass : mlir::PassWrapper<PoolBeforeReluPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PoolBeforeReluPass)
  llvm::StringRef getArgument() const override { return "dx-pool-before-relu"; }
  llvm::StringRef getDescription() const override {
    return "Max-pool before a relu that only the pooling reads (exact: values and gradients)";
  }
  void runOnOperation() override {
    llvm::SmallVector<mlir::Operation *> pools;
    getOperation().walk([&](mlir::Operation *op) {
      if (!tilingMaxPool(op)) return;
      mlir::Operation *relu = op->getOperand(0).getDefiningOp();
      if (relu && relu->getName().getStringRef() == "dx.relu" && relu->hasOneUse()) pools.push_back(op);
    });
    for (mlir::Operation *pool : pools) {
      mlir::Operation *relu = pool->getOperand(0).getDefiningOp();
      mlir::OpBuilder b(pool);
      mlir::Operation *pooled = b.clone(*pool);
      pooled->setOperand(0, relu->getOperand(0));
      mlir::Operation *activated = b.clone(*relu);
      activated->setOperand(0, pooled->getResult(0));
      activated->getResult(0).setType(pool->getResult(0).getType());
      pool->replaceAllUsesWith(activated);
      pool->erase();
      relu->erase();
    }
  }
};

} // namespace

std::unique_ptr<mlir::Pass> createPoolBeforeReluPass() { return std::make_unique<PoolBeforeReluPass>(); }
void registerPoolBeforeReluPass() { mlir::PassRegistration<PoolBeforeReluPass>(); }

} // namespace dx
