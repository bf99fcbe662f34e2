#include "lowering/PrepareGpu.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/DenseMap.h"

#include <cstdlib>
#include <optional>

namespace dx {
namespace {

using namespace mlir;

// Puts `op` in a one-iteration scf.parallel: one GPU thread runs it. For what
// has no parallel dimension (a loss summed over the batch into a scalar, a
// scalar division); correct, but one thread of the whole GPU.
scf::ParallelOp wrapInOneThread(RewriterBase &rw, Operation *op) {
  rw.setInsertionPoint(op);
  Location loc = op->getLoc();
  Value c0 = rw.create<arith::ConstantIndexOp>(loc, 0);
  Value c1 = rw.create<arith::ConstantIndexOp>(loc, 1);
  auto par = rw.create<scf::ParallelOp>(loc, ValueRange{c0}, ValueRange{c1}, ValueRange{c1});
  rw.moveOpBefore(op, par.getBody()->getTerminator());
  return par;
}

// Reorders a generic's loops so the parallel ones come first: then
// linalgOpToParallelLoops makes one scf.parallel over them with the
// reductions as scf.for inside (one thread per output element), instead of a
// host loop over a reduction dimension around a kernel per iteration.
LogicalResult parallelFirst(RewriterBase &rw, linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic) return success();
  auto iterators = generic.getIteratorTypesArray();
  SmallVector<unsigned> perm;
  for (unsigned i = 0; i < iterators.size(); ++i)
    if (iterators[i] == utils::IteratorType::parallel) perm.push_back(i);
  for (unsigned i = 0; i < iterators.size(); ++i)
    if (iterators[i] != utils::IteratorType::parallel) perm.push_back(i);
  bool identity = true;
  for (unsigned i = 0; i < perm.size(); ++i) identity &= perm[i] == i;
  if (identity) return success();
  rw.setInsertionPoint(generic);
  if (failed(linalg::interchangeGenericOp(rw, generic, perm)))
    return generic.emitError("cannot reorder the loops of this operation for the GPU");
  return success();
}

// The constant c of an index `iv + c` (or `c + iv`, or `iv` itself: 0).
std::optional<int64_t> offsetFromIv(Value index, Value iv) {
  if (index == iv) return 0;
  auto add = index.getDefiningOp<arith::AddIOp>();
  if (!add) return std::nullopt;
  Value other = add.getLhs() == iv ? add.getRhs() : add.getRhs() == iv ? add.getLhs() : Value();
  if (!other) return std::nullopt;
  if (auto c = other.getDefiningOp<arith::ConstantIndexOp>()) return c.value();
  return std::nullopt;
}

// True if the iterations of `loop` are independent: every memory access is
// to element [iv + c] of a memref, with a constant c, and nothing else has
// side effects (the optimizer update of dx_update: param[i] -= lr * grad[i];
// Adam's second moment is state[i + N], in the same buffer as the first,
// state[i]). A memref accessed at several offsets needs them at least the
// trip count apart, so that no two iterations touch the same element. The
// ABI's buffers (parameters, gradients, optimizer state) are distinct
// allocations.
bool isElementwiseLoop(scf::ForOp loop) {
  if (loop.getNumResults() != 0) return false;
  Value iv = loop.getInductionVar();
  llvm::DenseMap<Value, llvm::SmallVector<int64_t, 2>> offsets; // per memref, the distinct c
  auto access = [&](Value memref, ValueRange indices) {
    if (indices.size() != 1) return false;
    std::optional<int64_t> c = offsetFromIv(indices[0], iv);
    if (!c) return false;
    auto &cs = offsets[memref];
    if (!llvm::is_contained(cs, *c)) cs.push_back(*c);
    return true;
  };
  WalkResult r = loop.getBody()->walk([&](Operation *op) {
    if (auto load = dyn_cast<memref::LoadOp>(op))
      return access(load.getMemRef(), load.getIndices()) ? WalkResult::advance() : WalkResult::interrupt();
    if (auto store = dyn_cast<memref::StoreOp>(op))
      return access(store.getMemRef(), store.getIndices()) ? WalkResult::advance() : WalkResult::interrupt();
    // Ops with regions are judged by what they contain (visited separately).
    if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() || isMemoryEffectFree(op)) return WalkResult::advance();
    return WalkResult::interrupt();
  });
  if (r.wasInterrupted()) return false;
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()), ub = getConstantIntValue(loop.getUpperBound()),
                         step = getConstantIntValue(loop.getStep());
  for (auto &[memref, cs] : offsets) {
    if (cs.size() == 1) continue; // iteration i alone touches [i + c]
    if (!lb || !ub || !step || *step != 1) return false;
    const int64_t trips = *ub - *lb;
    for (size_t a = 0; a < cs.size(); ++a)
      for (size_t b = a + 1; b < cs.size(); ++b)
        if (std::abs(cs[a] - cs[b]) < trips) return false;
  }
  return true;
}

scf::ParallelOp forToParallel(RewriterBase &rw, scf::ForOp loop) {
  rw.setInsertionPoint(loop);
  auto par = rw.create<scf::ParallelOp>(loop.getLoc(), ValueRange{loop.getLowerBound()},
                                        ValueRange{loop.getUpperBound()}, ValueRange{loop.getStep()});
  rw.eraseOp(loop.getBody()->getTerminator());
  rw.inlineBlockBefore(loop.getBody(), par.getBody()->getTerminator(), par.getInductionVars());
  rw.eraseOp(loop);
  return par;
}

// @dxrt_cuda_read_f32(memref<f32, strided<[], offset: ?>>) -> f32: copies a
// device scalar (the loss) to the host after the stream's work (libdxrt_cuda).
func::FuncOp readF32Decl(ModuleOp module) {
  constexpr llvm::StringLiteral name = "dxrt_cuda_read_f32";
  if (auto fn = module.lookupSymbol<func::FuncOp>(name)) return fn;
  OpBuilder b(module.getBodyRegion());
  auto type = MemRefType::get({}, b.getF32Type(), StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic, {}));
  auto fn = b.create<func::FuncOp>(module.getLoc(), name, b.getFunctionType({type}, {b.getF32Type()}));
  fn.setPrivate();
  fn->setAttr("llvm.emit_c_interface", b.getUnitAttr());
  return fn;
}

LogicalResult prepareFunction(func::FuncOp fn, ModuleOp module) {
  if (fn.isExternal()) return success();
  if (!fn.getBody().hasOneBlock()) return fn.emitError("the GPU code generator expects a function of one block");
  IRRewriter rw(fn.getContext());
  Block &body = fn.getBody().front();
  auto topLevel = [&] {
    SmallVector<Operation *> ops;
    for (Operation &op : body) ops.push_back(&op);
    return ops;
  };

  // 1. Copies (bufferization's materialize_in_destination) become linalg.copy,
  //    so they turn into kernels like everything else.
  for (Operation *op : topLevel())
    if (auto copy = dyn_cast<memref::CopyOp>(op)) {
      rw.setInsertionPoint(copy);
      rw.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(), copy.getTarget());
    }

  // 2. Linalg ops to parallel loops: parallel dimensions first, and what has
  //    none runs in one thread.
  for (Operation *op : topLevel()) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp) continue;
    if (!linalgOp.hasPureBufferSemantics()) return op->emitError("the GPU code generator expects bufferized operations");
    if (failed(parallelFirst(rw, linalgOp))) return failure();
    if (linalgOp.getNumParallelLoops() == 0) wrapInOneThread(rw, op);
    rw.setInsertionPoint(op);
    if (failed(linalg::linalgOpToParallelLoops(rw, linalgOp)))
      return op->emitError("cannot turn this operation into loops for the GPU");
    rw.eraseOp(op);
  }

  // 3. Host loops (BuildABI's optimizer update): parallel when elementwise,
  //    else one thread. A loop whose results the host goes on with (LARS's
  //    per-layer norms, which set each layer's rate) would need them copied
  //    back: not supported yet.
  for (Operation *op : topLevel())
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      if (loop.getNumResults() != 0)
        return loop.emitError("the CUDA target cannot run this optimizer update on the GPU yet: it computes values "
                              "on the device that the host then uses (LARS's per-layer norms); use sgd, adam, adamw "
                              "or rmsprop, or --target=cpu");
      if (isElementwiseLoop(loop)) forToParallel(rw, loop);
      else wrapInOneThread(rw, op);
    }

  // 4. One dimension per kernel: the tiling then gives blocks of 256 threads
  //    over all elements, and neighbouring threads touch neighbouring
  //    elements (row-major, innermost dimension fastest).
  for (Operation *op : topLevel())
    if (auto par = dyn_cast<scf::ParallelOp>(op); par && par.getNumLoops() > 1) {
      std::vector<unsigned> all(par.getNumLoops());
      for (unsigned i = 0; i < all.size(); ++i) all[i] = i;
      rw.setInsertionPoint(par);
      mlir::collapseParallelLoops(rw, par, {all});
    }

  // 5. What is left on the host may not touch memory: a scalar the function
  //    returns (the loss) is copied back by libdxrt_cuda; anything else is an
  //    error at its .dx location.
  for (Operation *op : topLevel()) {
    if (isa<scf::ParallelOp, func::CallOp, func::ReturnOp>(op) || isMemoryEffectFree(op)) continue;
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      bool returned = llvm::all_of(load->getUsers(), [](Operation *u) { return isa<func::ReturnOp>(u); });
      if (returned && load.getMemRefType().getRank() == 0 && load.getType().isF32()) {
        func::FuncOp read = readF32Decl(module);
        rw.setInsertionPoint(load);
        Value src = load.getMemRef();
        Type want = read.getFunctionType().getInput(0);
        if (src.getType() != want) src = rw.create<memref::CastOp>(load.getLoc(), want, src);
        rw.replaceOpWithNewOp<func::CallOp>(load, read, ValueRange{src});
        continue;
      }
    }
    return op->emitError("the CUDA target cannot run this on the GPU yet: '")
           << op->getName() << "' would touch device memory on the host";
  }
  return success();
}

struct PrepareGpuPass : PassWrapper<PrepareGpuPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PrepareGpuPass)
  StringRef getArgument() const override { return "dx-prepare-gpu"; }
  StringRef getDescription() const override {
    return "Turn the step functions' memory work into 1-D scf.parallel loops for the GPU (CUDA target)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, func::FuncDialect, linalg::LinalgDialect, memref::MemRefDialect,
                    scf::SCFDialect>();
  }
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> fns(module.getOps<func::FuncOp>());
    for (func::FuncOp fn : fns)
      if (failed(prepareFunction(fn, module))) return signalPassFailure();
  }
};

} // namespace

std::unique_ptr<mlir::Pass> createPrepareGpuPass() { return std::make_unique<PrepareGpuPass>(); }
void registerPrepareGpuPass() { mlir::PassRegistration<PrepareGpuPass>(); }

} // namespace dx
