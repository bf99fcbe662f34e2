#include "lowering/FuseReductionLoops.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/SetVector.h"

namespace dx {
namespace {

namespace linalg = mlir::linalg;
namespace scf = mlir::scf;
using mlir::Operation;
using mlir::Value;

// The smallest static extent per tile that keeps the vector loop worth its
// setup: one AVX-512 register of f32.
constexpr int64_t kMinTileElements = 16;
// The contiguous run a tile should have in each row of the big tensors (a
// page, 4 KiB of f32): the hardware prefetcher follows runs within a page,
// not 256-byte pieces of many (a channel of [N, C, 8, 8] alone).
constexpr int64_t kMinRunElements = 1024;

// A linalg.generic on tensors whose results have fewer dims than `rank`: a
// statistic (a channel's sum, a row's mean), not an activation.
bool isSmallProducer(Operation *op, int64_t rank) {
  // A fill (a reduction's zeros) stays before the loop: the tiles start
  // from slices of it.
  auto g = mlir::dyn_cast<linalg::GenericOp>(op);
  if (!g || !g.hasPureTensorSemantics()) return false;
  // Scalar arithmetic on its operands only: not a gather-form reduction
  // (dx-split-reductions' partial sums read the input through
  // tensor.extract at linalg.index positions, in loops of their own).
  bool plain = true;
  g.getBody()->walk([&](Operation *inner) {
    if (inner->getNumRegions() || mlir::isa<linalg::IndexOp, mlir::tensor::ExtractOp>(inner)) plain = false;
  });
  if (!plain) return false;
  for (Value r : op->getResults()) {
    auto t = mlir::dyn_cast<mlir::RankedTensorType>(r.getType());
    if (!t || t.getRank() >= rank) return false;
  }
  return true;
}

bool isReduction(Operation *op) {
  auto g = mlir::dyn_cast<linalg::GenericOp>(op);
  return g && g.getNumReductionLoops() > 0;
}

// The op of `block` that is or contains `op`.
Operation *inBlock(Operation *op, mlir::Block *block) { return block->findAncestorOpInBlock(*op); }

struct Candidate {
  linalg::GenericOp consumer;
  llvm::SmallVector<int64_t> tileSizes;   // 1 on the tiled dims, 0 elsewhere
  llvm::SetVector<Operation *> fused;     // the producers fused into its loop
  Operation *after = nullptr;             // the loop goes after this op (null: block start)
};

// Whether `consumer` is a candidate (see the header), and what fuses.
std::optional<Candidate> analyse(linalg::GenericOp consumer) {
  if (!consumer.hasPureTensorSemantics() || consumer.getNumReductionLoops() != 0 || consumer.getNumLoops() < 2)
    return std::nullopt;
  mlir::Block *block = consumer->getBlock();
  if (!mlir::isa<mlir::FunctionOpInterface>(consumer->getParentOp())) return std::nullopt;
  const int64_t rank = consumer.getNumLoops();

  // The latest full-size input: fused producers come after it.
  Operation *lastBig = nullptr;
  for (mlir::OpOperand *in : consumer.getDpsInputOperands()) {
    if (consumer.getMatchingIndexingMap(in).getNumResults() != rank) continue;
    Operation *def = in->get().getDefiningOp();
    if (!def || def->getBlock() != block) continue;
    if (!lastBig || lastBig->isBeforeInBlock(def)) lastBig = def;
  }
  auto fusable = [&](Operation *def) {
    return def && def->getBlock() == block && (!lastBig || lastBig->isBeforeInBlock(def)) && isSmallProducer(def, rank);
  };

  Candidate c{consumer, llvm::SmallVector<int64_t>(rank, 0), {}, nullptr};
  bool reduction = false;
  for (mlir::OpOperand *in : consumer.getDpsInputOperands()) {
    mlir::AffineMap m = consumer.getMatchingIndexingMap(in);
    if (m.getNumResults() == 0 || m.getNumResults() >= (unsigned)rank || !m.isProjectedPermutation()) continue;
    // The small ops this operand comes from, and whether a reduction is among them.
    llvm::SetVector<Operation *> reached;
    llvm::SmallVector<Value> work = {in->get()};
    bool fromReduction = false;
    while (!work.empty()) {
      Operation *def = work.pop_back_val().getDefiningOp();
      if (!fusable(def) || !reached.insert(def)) continue;
      fromReduction |= isReduction(def);
      for (Value v : def->getOperands()) work.push_back(v);
    }
    if (!fromReduction) continue;
    reduction = true;
    c.fused.insert(reached.begin(), reached.end());
    for (unsigned r = 0; r < m.getNumResults(); ++r) c.tileSizes[m.getDimPosition(r)] = 1;
  }
  if (!reduction) return std::nullopt;

  // The innermost dim stays whole, with enough static elements per tile.
  if (c.tileSizes.back() != 0) return std::nullopt;
  int64_t perTile = 1;
  llvm::SmallVector<int64_t> ranges = consumer.getStaticLoopRanges();
  for (int64_t d = 0; d < rank; ++d)
    if (c.tileSizes[d] == 0 && !mlir::ShapedType::isDynamic(ranges[d])) perTile *= ranges[d];
  if (perTile < kMinTileElements) return std::nullopt;

  // Several channels (rows) per tile when one is short, so that the
  // consumer's tile reads and writes runs of kMinRunElements or more.
  int64_t last = rank - 1;
  while (c.tileSizes[last] == 0) --last;
  auto trailing = llvm::ArrayRef<int64_t>(ranges).drop_front(last + 1);
  bool staticRun = llvm::none_of(trailing, mlir::ShapedType::isDynamic) && !mlir::ShapedType::isDynamic(ranges[last]);
  int64_t run = staticRun ? mlir::ShapedType::getNumElements(trailing) : 0;
  if (staticRun && run < kMinRunElements) {
    int64_t want = (kMinRunElements + run - 1) / run, extent = ranges[last], t = want;
    while (t < extent && extent % t != 0) ++t;
    c.tileSizes[last] = std::min(t, extent);
  }
  // One tile of everything: nothing to gain.
  if (llvm::all_of(llvm::seq<int64_t>(0, rank), [&](int64_t d) {
        return c.tileSizes[d] == 0 || (!mlir::ShapedType::isDynamic(ranges[d]) && c.tileSizes[d] >= ranges[d]);
      }))
    return std::nullopt;

  // The loop's place: after every value it uses from outside.
  llvm::SmallVector<Operation *> members(c.fused.begin(), c.fused.end());
  members.push_back(consumer);
  llvm::SetVector<Value> used;
  for (Operation *op : members) {
    used.insert(op->getOperands().begin(), op->getOperands().end());
    mlir::getUsedValuesDefinedAbove(op->getRegions(), used);
  }
  for (Value v : used) {
    Operation *def = v.getDefiningOp();
    if (!def || c.fused.contains(def)) continue;
    def = inBlock(def, block);
    if (def && (!c.after || c.after->isBeforeInBlock(def))) c.after = def;
  }
  // Every other user of a fused producer must come after the loop, to use
  // the loop's result instead.
  for (Operation *op : c.fused)
    for (Operation *user : op->getUsers()) {
      Operation *u = inBlock(user, block);
      if (!u || u == consumer.getOperation() || c.fused.contains(u)) continue;
      if (c.after && (u == c.after || u->isBeforeInBlock(c.after))) return std::nullopt;
    }
  return c;
}

// The extract_slice operands of `op` that read a result of a producer in `fused`.
void slicesOfFused(Operation *op, const llvm::SetVector<Operation *> &fused,
                   llvm::SmallVectorImpl<mlir::tensor::ExtractSliceOp> &out) {
  for (Value v : op->getOperands())
    if (auto s = v.getDefiningOp<mlir::tensor::ExtractSliceOp>())
      if (Operation *def = s.getSource().getDefiningOp(); def && fused.contains(def)) out.push_back(s);
}

bool sameTile(mlir::tensor::ExtractSliceOp a, mlir::tensor::ExtractSliceOp b) {
  return a.getMixedOffsets() == b.getMixedOffsets() && a.getMixedSizes() == b.getMixedSizes() &&
         a.getMixedStrides() == b.getMixedStrides();
}

// Tiles the consumer, then fuses each producer in `c.fused` once: a second
// slice of a producer already in the loop (a reduction read by both the
// mean and the variance, a fill shared as two reductions' init) reads the
// tile computed there. (scf::tileConsumerAndFuseProducersUsingSCF fuses a
// producer once per slice, which computes a channel's sums several times.)
mlir::LogicalResult fuse(mlir::RewriterBase &rw, Candidate &c) {
  Operation *consumer = c.consumer.getOperation();
  if (c.after) rw.moveOpAfter(consumer, c.after);
  else rw.moveOpBefore(consumer, &consumer->getBlock()->front());

  scf::SCFTilingOptions tiling;
  tiling.setTileSizes(mlir::getAsIndexOpFoldResult(rw.getContext(), c.tileSizes));
  rw.setInsertionPoint(consumer);
  auto tiled = scf::tileUsingSCF(rw, mlir::cast<mlir::TilingInterface>(consumer), tiling);
  if (mlir::failed(tiled) || tiled->loops.empty()) return mlir::failure();
  rw.replaceOp(consumer, tiled->replacements);
  llvm::SmallVector<mlir::LoopLikeOpInterface> loops = tiled->loops;

  struct Fused {
    Operation *tiledOp;
    mlir::tensor::ExtractSliceOp slice;
    unsigned firstResult; // its results' position among the outer loop's
  };
  llvm::DenseMap<Operation *, Fused> done;
  llvm::SmallVector<mlir::tensor::ExtractSliceOp> work;
  for (Operation *t : tiled->tiledOps) slicesOfFused(t, c.fused, work);
  for (size_t i = 0; i < work.size(); ++i) {
    mlir::tensor::ExtractSliceOp slice = work[i];
    auto result = mlir::cast<mlir::OpResult>(slice.getSource());
    Operation *producer = result.getOwner();
    if (auto it = done.find(producer); it != done.end() && sameTile(it->second.slice, slice)) {
      rw.replaceAllUsesWith(slice.getResult(), it->second.tiledOp->getResult(result.getResultNumber()));
      continue;
    }
    if (done.count(producer)) return mlir::failure(); // another tile of it: not a per-tile statistic
    auto f = scf::tileAndFuseProducerOfSlice(rw, slice, loops);
    if (!f) return mlir::failure();
    Operation *tiledOp = f->tiledAndFusedProducer.getDefiningOp();
    unsigned first = loops.front()->getNumResults();
    if (mlir::failed(scf::yieldReplacementForFusedProducer(rw, slice, *f, loops))) return mlir::failure();
    done[producer] = {tiledOp, slice, first};
    for (Operation *t : f->tiledOps) slicesOfFused(t, c.fused, work);
  }

  // Fusion clones a producer right before the slice it is fused for, so a
  // producer that a second slice then reuses (sameTile) can sit after the op
  // reading that second slice: a batch norm's gradient fuses dgamma =
  // sum(dy * (x - mean)) * istd for the consumer, then the sums for the
  // consumer's own slice of sum(dy), after dgamma, which reads the other sum.
  // The loop bodies go in def-use order.
  for (mlir::LoopLikeOpInterface l : loops)
    for (mlir::Region *r : l.getLoopRegions())
      for (mlir::Block &b : *r)
        if (!mlir::sortTopologically(&b)) return mlir::failure();

  // What used a fused producer outside the loop uses the loop's result
  // (other producers go away with it); the loop's bounds, computed before
  // it, may be a fused result's size: that is its init's.
  Operation *loop = loops.front().getOperation();
  for (Operation *producer : c.fused)
    for (Operation *user : llvm::make_early_inc_range(producer->getUsers())) {
      auto dim = mlir::dyn_cast<mlir::tensor::DimOp>(user);
      if (!dim || dim->getBlock() != loop->getBlock() || !dim->isBeforeInBlock(loop)) continue;
      Value shaped = dim.getSource();
      while (Operation *def = shaped.getDefiningOp()) {
        auto dps = mlir::dyn_cast<mlir::DestinationStyleOpInterface>(def);
        if (!dps || !c.fused.contains(def)) break;
        shaped = dps.getDpsInitOperand(mlir::cast<mlir::OpResult>(shaped).getResultNumber())->get();
      }
      rw.modifyOpInPlace(dim, [&] { dim.getSourceMutable().assign(shaped); });
    }
  for (auto &[producer, f] : done)
    for (mlir::OpResult r : producer->getResults())
      rw.replaceUsesWithIf(r, loop->getResult(f.firstResult + r.getResultNumber()),
                           [&](mlir::OpOperand &use) {
                             Operation *u = inBlock(use.getOwner(), loop->getBlock());
                             return u && u != loop && !c.fused.contains(u) && loop->isBeforeInBlock(u);
                           });
  // The producers, then the slices they were read through (dead, in the loop).
  llvm::SmallVector<Operation *> producers(c.fused.begin(), c.fused.end());
  for (bool erased = true; erased;) {
    erased = false;
    for (Operation *&op : producers)
      if (op && op->use_empty()) {
        rw.eraseOp(op);
        op = nullptr;
        erased = true;
      }
  }
  llvm::SmallVector<Operation *> dead;
  loop->walk([&](Operation *op) {
    if (op != loop && mlir::isOpTriviallyDead(op)) dead.push_back(op);
  });
  for (Operation *op : llvm::reverse(dead))
    if (mlir::isOpTriviallyDead(op)) rw.eraseOp(op);
  return mlir::success();
}

struct FuseReductionLoopsPass : mlir::PassWrapper<FuseReductionLoopsPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FuseReductionLoopsPass)
  llvm::StringRef getArgument() const override { return "dx-fuse-reduction-loops"; }
  llvm::StringRef getDescription() const override {
    return "Fuse a normalisation's reduction into the loop of its elementwise consumer, along the dims the "
           "statistic keeps (a channel, a row), so the consumer reads the tensor from cache";
  }
  void getDependentDialects(mlir::DialectRegistry &r) const override {
    r.insert<scf::SCFDialect, mlir::tensor::TensorDialect, mlir::affine::AffineDialect>();
  }

  void runOnOperation() override {
    mlir::IRRewriter rw(&getContext());
    getOperation().walk([&](mlir::FunctionOpInterface f) { runOnFunction(rw, f); });
  }

  // In program order: a forward normalisation fuses before the backward
  // pass looks at what it produced. A candidate that cannot be tiled as
  // analysed (a fused producer that some op in the loop would need as a
  // second, different tile: a channel's sum also read whole by a sum over
  // the channels) leaves its consumer unfused: the function is restored from
  // a copy taken before the attempt. Results are the same either way; only
  // the loop order differs.
  void runOnFunction(mlir::RewriterBase &rw, mlir::FunctionOpInterface f) {
    if (f.isExternal()) return;
    const auto tried = mlir::StringAttr::get(&getContext(), "dx.reduction_fusion_tried");
    auto nextConsumer = [&]() -> linalg::GenericOp {
      for (Operation &op : f.getFunctionBody().getOps())
        if (auto g = mlir::dyn_cast<linalg::GenericOp>(op); g && !g->hasAttr(tried)) return g;
      return nullptr;
    };
    while (linalg::GenericOp g = nextConsumer()) {
      g->setAttr(tried, rw.getUnitAttr());
      auto c = analyse(g);
      if (!c) continue;
      Operation *saved = f->clone();
      if (mlir::succeeded(fuse(rw, *c))) {
        saved->erase();
        continue;
      }
      f.getFunctionBody().takeBody(mlir::cast<mlir::FunctionOpInterface>(saved).getFunctionBody());
      saved->erase();
    }
    f->walk([&](linalg::GenericOp g) { g->removeAttr(tried); });
  }
};

} // namespace

std::unique_ptr<mlir::Pass> createFuseReductionLoopsPass() { return std::make_unique<FuseReductionLoopsPass>(); }
void registerFuseReductionLoopsPass() { mlir::PassRegistration<FuseReductionLoopsPass>(); }

} // namespace dx
