// dx-autodiff: reverse-mode automatic differentiation of each loss function.
#include "transforms/GradientRules.h"
#include "transforms/Passes.h"

#include "dialect/DxDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/PassRegistry.h"

namespace dx {
namespace {

bool isLearnable(mlir::func::FuncOp fn, unsigned arg) {
  return fn.getArgAttr(arg, "dx.param") && !fn.getArgAttr(arg, "dx.buffer");
}

// Replaces each dx.batchnorm (inference form) by batchnorm_train plus the
// running-statistics update; records the new statistics per buffer argument.
void toTrainingForm(mlir::Block &body, llvm::DenseMap<mlir::Value, mlir::Value> &bufferUpdates) {
  llvm::SmallVector<mlir::Operation *> bns;
  body.walk([&](mlir::Operation *op) {
    if (op->getName().getStringRef() == "dx.batchnorm") bns.push_back(op);
  });
  for (mlir::Operation *op : bns) {
    mlir::OpBuilder b(op);
    auto params = registryParams(op);
    bool affine = params.size() == 4;
    mlir::Value x = op->getOperand(0);
    mlir::Value rm = params[affine ? 2 : 0], rv = params[affine ? 3 : 1];
    auto c = rm.getType();
    llvm::SmallVector<mlir::Value> affineParams;
    if (affine) affineParams = {params[0], params[1]};
    auto train = b.create<ir::BatchnormTrainOp>(op->getLoc(), mlir::TypeRange{x.getType(), c, c}, x, affineParams,
                                                op->getAttrOfType<mlir::FloatAttr>("eps"));
    auto stats = b.create<ir::RunningStatsOp>(op->getLoc(), mlir::TypeRange{c, c}, rm, rv, train.getMean(),
                                              train.getVar(), x, op->getAttrOfType<mlir::FloatAttr>("momentum"));
    bufferUpdates[rm] = stats.getNewMean();
    bufferUpdates[rv] = stats.getNewVar();
    op->getResult(0).replaceAllUsesWith(train.getY());
    op->erase();
  }
}

mlir::LogicalResult differentiate(mlir::func::FuncOp loss) {
  mlir::ModuleOp module = loss->getParentOfType<mlir::ModuleOp>();
  std::string name = loss.getName().drop_back(std::string("_loss").size()).str() + "_train_step";
  if (module.lookupSymbol(name)) return loss.emitError("function @") << name << " already exists";
  if (loss.getNumResults() != 1 || mlir::cast<mlir::RankedTensorType>(loss.getResultTypes()[0]).getRank() != 0)
    return loss.emitError("a loss function must return one scalar");
  if (!loss.getBody().hasOneBlock()) return loss.emitError("a loss function must be a single block");

  mlir::OpBuilder b(loss);
  b.setInsertionPointAfter(loss);
  auto fn = b.create<mlir::func::FuncOp>(loss.getLoc(), name, loss.getFunctionType());
  if (auto attrs = loss.getAllArgAttrs()) fn.setAllArgAttrs(attrs);
  mlir::IRMapping map;
  loss.getBody().cloneInto(&fn.getBody(), map);
  mlir::Block &body = fn.getBody().front();

  llvm::DenseMap<mlir::Value, mlir::Value> bufferUpdates;
  toTrainingForm(body, bufferUpdates);

  auto ret = mlir::cast<mlir::func::ReturnOp>(body.getTerminator());
  mlir::Value lossValue = ret.getOperand(0);
  b.setInsertionPoint(ret);
  llvm::DenseMap<mlir::Value, mlir::Value> adjoint;
  adjoint[lossValue] = createRegistryOp(b, ret.getLoc(), "dx.constant", {}, {},
                                        {b.getNamedAttr("value", b.getF64FloatAttr(1.0))}, lossValue.getType());

  llvm::SmallVector<mlir::Operation *> ops;
  for (mlir::Operation &op : body.without_terminator()) ops.push_back(&op);
  for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
    mlir::Operation *op = *it;
    llvm::SmallVector<mlir::Value> dResults;
    bool any = false;
    for (mlir::Value r : op->getResults()) {
      dResults.push_back(adjoint.lookup(r));
      any |= static_cast<bool>(dResults.back());
    }
    if (!any) continue;
    llvm::SmallVector<mlir::Value> dOperands;
    if (mlir::failed(buildGradient(b, op, dResults, dOperands))) return mlir::failure();
    for (unsigned i = 0; i < op->getNumOperands(); ++i) {
      if (!dOperands[i]) continue;
      mlir::Value v = op->getOperand(i);
      if (mlir::Value prev = adjoint.lookup(v))
        adjoint[v] = createRegistryOp(b, op->getLoc(), "dx.add", {prev, dOperands[i]}, {}, {}, v.getType());
      else
        adjoint[v] = dOperands[i];
    }
  }

  // Results: the loss, each learnable parameter's gradient, each buffer's new value.
  llvm::SmallVector<mlir::Value> results = {lossValue};
  llvm::SmallVector<mlir::Attribute> resultAttrs = {b.getDictionaryAttr({b.getNamedAttr("dx.loss", b.getUnitAttr())})};
  for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
    if (!isLearnable(fn, i)) continue;
    mlir::Value arg = body.getArgument(i);
    mlir::Value g = adjoint.lookup(arg);
    if (!g) g = b.create<ir::ZerosLikeOp>(ret.getLoc(), arg.getType(), arg); // unused parameter
    results.push_back(g);
    resultAttrs.push_back(b.getDictionaryAttr({b.getNamedAttr("dx.grad", fn.getArgAttr(i, "dx.param"))}));
  }
  for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
    if (!fn.getArgAttr(i, "dx.buffer")) continue;
    mlir::Value arg = body.getArgument(i);
    mlir::Value updated = bufferUpdates.lookup(arg);
    results.push_back(updated ? updated : arg);
    resultAttrs.push_back(b.getDictionaryAttr({b.getNamedAttr("dx.buffer_update", fn.getArgAttr(i, "dx.param"))}));
  }
  // Every op from the seed on is the reverse pass: tag it (Passes.h).
  auto tag = mlir::StringAttr::get(b.getContext(), kBackwardLocTag);
  for (mlir::Operation *o = adjoint[lossValue].getDefiningOp(); o && o != ret.getOperation(); o = o->getNextNode())
    o->setLoc(mlir::FusedLoc::get(b.getContext(), {o->getLoc()}, tag));
  b.create<mlir::func::ReturnOp>(ret.getLoc(), results);
  ret.erase();
  llvm::SmallVector<mlir::Type> types;
  for (mlir::Value v : results) types.push_back(v.getType());
  fn.setFunctionType(b.getFunctionType(fn.getArgumentTypes(), types));
  fn.setAllResultAttrs(resultAttrs);
  // Training mode (dropout active, batch statistics) and the step's random key (seed, step, rank).
  fn->setAttr("dx.mode", b.getStringAttr("train"));
  fn.insertArgument(fn.getNumArguments(), mlir::RankedTensorType::get({3}, b.getI64Type()),
                    b.getDictionaryAttr({b.getNamedAttr("dx.rng", b.getUnitAttr())}), fn.getLoc());
  return mlir::success();
}

struct AutodiffPass : mlir::PassWrapper<AutodiffPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(AutodiffPass)
  llvm::StringRef getArgument() const override { return "dx-autodiff"; }
  llvm::StringRef getDescription() const override {
    return "Build @M_train_step (loss, parameter gradients, new running statistics) from each @M_loss";
  }
  void runOnOperation() override {
    llvm::SmallVector<mlir::func::FuncOp> losses;
    for (auto fn : getOperation().getOps<mlir::func::FuncOp>())
      if (fn.getName().ends_with("_loss")) losses.push_back(fn);
    for (auto fn : losses)
      if (mlir::failed(differentiate(fn))) return signalPassFailure();
  }
};

} // namespace

std::unique_ptr<mlir::Pass> createAutodiffPass() { return std::make_unique<AutodiffPass>(); }

void registerDxPasses() { mlir::PassRegistration<AutodiffPass>(); }

} // namespace dx
