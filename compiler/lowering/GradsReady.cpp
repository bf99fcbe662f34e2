#include "lowering/GradsReady.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"

#include <map>

namespace dx {
namespace {

constexpr llvm::StringLiteral kCallee = "dxrt_grads_ready";

struct GradStore {
  mlir::bufferization::MaterializeInDestinationOp op;
  int64_t offset, size;
};

// A library call's gradient (dx-to-linalg: a memref.alloc that the call
// writes through memref.casts, then bufferization.to_tensor) stored into the
// arena: the call writes the arena's view itself, and the store, which would
// be a copy of the whole gradient (the Fashion MLP's first weight gradient:
// 0.8 MB, 3% of its step), goes away. The view's operands are the function's
// arguments, so it can move up to the allocation.
void writeInPlace(mlir::bufferization::MaterializeInDestinationOp store) {
  auto tensor = store.getSource().getDefiningOp<mlir::bufferization::ToTensorOp>();
  if (!tensor || !tensor->hasOneUse()) return;
  auto alloc = tensor.getMemref().getDefiningOp<mlir::memref::AllocOp>();
  mlir::Operation *view = store.getDest().getDefiningOp();
  if (!alloc || !view || alloc->getBlock() != view->getBlock()) return;
  // The view moves above the allocation: its operands must be there already.
  for (mlir::Value v : view->getOperands()) {
    mlir::Operation *def = v.getDefiningOp();
    if (def ? def->getBlock() != alloc->getBlock() || !def->isBeforeInBlock(alloc)
            : mlir::cast<mlir::BlockArgument>(v).getOwner() != alloc->getBlock())
      return;
  }
  auto from = mlir::cast<mlir::MemRefType>(alloc.getType());
  auto to = mlir::dyn_cast<mlir::MemRefType>(store.getDest().getType());
  if (!to || from.getShape() != to.getShape() || from.getElementType() != to.getElementType()) return;
  llvm::SmallVector<mlir::memref::CastOp> casts;
  for (mlir::Operation *user : alloc->getUsers()) {
    if (user == tensor.getOperation()) continue;
    auto cast = mlir::dyn_cast<mlir::memref::CastOp>(user);
    if (!cast || !mlir::memref::CastOp::areCastCompatible(to, cast.getType()) ||
        !llvm::all_of(cast->getUsers(), [](mlir::Operation *u) { return mlir::isa<mlir::func::CallOp>(u); }))
      return;
    casts.push_back(cast);
  }
  view->moveBefore(alloc);
  for (mlir::memref::CastOp cast : casts) cast.getSourceMutable().assign(store.getDest());
  store->erase();
  tensor->erase();
  alloc->erase();
}

struct GradsReadyPass : mlir::PassWrapper<GradsReadyPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(GradsReadyPass)
  llvm::StringRef getArgument() const override { return "dx-grads-ready"; }
  llvm::StringRef getDescription() const override {
    return "Store each gradient into the gradient arena as soon as it is final and tell the runtime "
           "(dxrt_grads_ready) which suffix of the arena is final";
  }

  void runOnOperation() override {
    mlir::ModuleOp module = getOperation();
    auto fn = module.lookupSymbol<mlir::func::FuncOp>("dx_train_step");
    if (!fn || fn.isExternal() || !fn.getBody().hasOneBlock()) return;
    llvm::SmallVector<GradStore> stores;
    fn.walk([&](mlir::bufferization::MaterializeInDestinationOp m) {
      auto off = m->getAttrOfType<mlir::IntegerAttr>("dx.grad_offset");
      auto size = m->getAttrOfType<mlir::IntegerAttr>("dx.grad_size");
      if (off && size) stores.push_back({m, off.getInt(), size.getInt()});
    });
    if (stores.empty()) return;

    // 1. Each store (and its view of the arena) right after its gradient.
    mlir::Block &body = fn.getBody().front();
    for (GradStore &s : stores) {
      mlir::Value grad = s.op.getSource();
      mlir::Operation *view = s.op.getDest().getDefiningOp();
      if (!view || view->getBlock() != &body || !llvm::all_of(view->getOperands(), [&](mlir::Value v) {
            return mlir::isa<mlir::BlockArgument>(v) && mlir::cast<mlir::BlockArgument>(v).getOwner() == &body;
          }))
        continue; // a view built from values of the body: left where it is
      mlir::Operation *def = grad.getDefiningOp();
      if (def && def->getBlock() != &body) continue;
      if (def) view->moveAfter(def);
      else view->moveBefore(&body.front());
      s.op->moveAfter(view);
    }

    // 2. In program order: after each store, the suffix of the arena that
    // is complete; a call where it grew.
    std::map<int64_t, int64_t> sizeAt; // offset -> size, of every gradient
    int64_t end = 0;
    for (const GradStore &s : stores) {
      sizeAt[s.offset] = s.size;
      end = std::max(end, s.offset + s.size);
    }
    llvm::DenseMap<mlir::Operation *, const GradStore *> byOp;
    for (GradStore &s : stores) byOp[s.op.getOperation()] = &s;
    mlir::OpBuilder b(&getContext());
    b.setInsertionPointToStart(module.getBody());
    if (!module.lookupSymbol(kCallee)) {
      auto decl = b.create<mlir::func::FuncOp>(module.getLoc(), kCallee, b.getFunctionType({b.getI64Type()}, {}));
      decl.setPrivate();
    }
    std::map<int64_t, bool> done;
    int64_t first = end; // [first, end) is in the arena
    for (mlir::Operation &op : llvm::make_early_inc_range(body)) {
      auto it = byOp.find(&op);
      if (it == byOp.end()) continue;
      done[it->second->offset] = true;
      int64_t next = first;
      // Walk down from `first` while the gradient ending there is stored.
      for (auto g = sizeAt.lower_bound(first); g != sizeAt.begin();) {
        --g;
        if (g->first + g->second != next || !done.count(g->first)) break;
        next = g->first;
      }
      if (next == first) continue;
      first = next;
      b.setInsertionPointAfter(&op);
      mlir::Value at = b.create<mlir::arith::ConstantIntOp>(op.getLoc(), first, 64);
      b.create<mlir::func::CallOp>(op.getLoc(), kCallee, mlir::TypeRange{}, mlir::ValueRange{at});
    }

    // 3. Library calls write their gradients into the arena (after 2, which
    // placed the calls by the stores).
    for (GradStore &s : stores) writeInPlace(s.op);
  }
};

} // namespace

std::unique_ptr<mlir::Pass> createGradsReadyPass() { return std::make_unique<GradsReadyPass>(); }
void registerGradsReadyPass() { mlir::PassRegistration<GradsReadyPass>(); }

} // namespace dx
