#include "lowering/VectorizeCpu.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

#include <functional>
#include <optional>

namespace dx {
namespace {

using mlir::OpFoldResult;
using mlir::Value;
namespace linalg = mlir::linalg;
namespace scf = mlir::scf;
namespace vector = mlir::vector;
namespace memref = mlir::memref;

// Marks the loops over a reduction dim that this pass makes; accumulators
// are hoisted out of them, then the mark is dropped.
constexpr llvm::StringLiteral kReductionLoop = "dx.reduction_loop";
// Marks every loop this pass makes; invariant reads are hoisted out of them.
constexpr llvm::StringLiteral kTileLoop = "dx.tile_loop";
// Marks the scf.if whose then-branch is an elementwise op's copy for large
// outputs; its vector stores become streaming stores (step 7).
constexpr llvm::StringLiteral kStreaming = "dx.streaming";
// Outputs this large (twice a core's L2 here) are not read back from cache
// by the next op anyway: writing them around the cache saves the read for
// ownership of each line and the eviction of what the cache holds.
constexpr int64_t kStreamingBytes = 4 << 20;

// ---- 0. unit dims read at a constant index ----

// A keepdim statistic ([N, 1, H, W]: a softmax over channels, a sum over
// axis 1 with keepdim) is written and read through maps with a constant 0,
// (n, c, h, w) -> (n, 0, h, w). The steps below want projected
// permutations (without them the op keeps scalar loops): such an operand is
// read through a memref.collapse_shape that folds each unit dim indexed by
// 0 into a neighbouring dim, and its map drops the 0. Returns the new op,
// or g unchanged.
linalg::GenericOp dropConstantUnitDims(mlir::RewriterBase &rw, linalg::GenericOp g) {
  llvm::SmallVector<Value> operands;
  llvm::SmallVector<mlir::AffineMap> maps;
  bool changed = false;
  rw.setInsertionPoint(g);
  for (mlir::OpOperand &o : g->getOpOperands()) {
    mlir::AffineMap m = g.getMatchingIndexingMap(&o);
    auto t = mlir::cast<mlir::MemRefType>(o.get().getType());
    llvm::SmallVector<int64_t> drop;
    for (unsigned r = 0; r < m.getNumResults(); ++r) {
      auto c = mlir::dyn_cast<mlir::AffineConstantExpr>(m.getResult(r));
      if (c && c.getValue() == 0 && t.getDimSize(r) == 1) drop.push_back(r);
    }
    // All dims dropped (a [1] read at 0) would be a rank-0 memref: left as is.
    if (drop.empty() || drop.size() == m.getNumResults()) {
      operands.push_back(o.get());
      maps.push_back(m);
      continue;
    }
    // Each dropped dim joins the next kept dim's group; trailing ones the last.
    llvm::SmallVector<mlir::ReassociationIndices> groups;
    mlir::ReassociationIndices pending;
    for (int64_t r = 0; r < (int64_t)m.getNumResults(); ++r) {
      pending.push_back(r);
      if (!llvm::is_contained(drop, r)) {
        groups.push_back(pending);
        pending.clear();
      }
    }
    groups.back().append(pending.begin(), pending.end());
    if (!memref::CollapseShapeOp::isGuaranteedCollapsible(t, groups)) {
      operands.push_back(o.get());
      maps.push_back(m);
      continue;
    }
    operands.push_back(rw.create<memref::CollapseShapeOp>(g.getLoc(), o.get(), groups));
    llvm::SmallBitVector dropped(m.getNumResults());
    for (int64_t r : drop) dropped.set(r);
    maps.push_back(m.dropResults(dropped));
    changed = true;
  }
  if (!changed) return g;
  const unsigned nIn = g.getNumDpsInputs();
  auto ins = llvm::ArrayRef<Value>(operands).take_front(nIn), outs = llvm::ArrayRef<Value>(operands).drop_front(nIn);
  auto ng = rw.create<linalg::GenericOp>(g.getLoc(), mlir::TypeRange{}, ins, outs, maps, g.getIteratorTypesArray());
  ng.getRegion().takeBody(g.getRegion());
  for (mlir::NamedAttribute a : g->getDiscardableAttrs()) ng->setAttr(a.getName(), a.getValue());
  rw.eraseOp(g);
  return ng;
}

// ---- 1. collapsing contiguous dims ----

// Runs of consecutive iteration dims with one iterator type that every
// indexing map keeps together (all of the run, in order, or none of it).
llvm::SmallVector<mlir::ReassociationIndices> collapsibleDims(linalg::GenericOp g) {
  auto maps = g.getIndexingMapsArray();
  auto iters = g.getIteratorTypesArray();
  llvm::SmallVector<mlir::ReassociationIndices> groups;
  mlir::ReassociationIndices run = {0};
  for (int64_t d = 1; d < (int64_t)g.getNumLoops(); ++d) {
    mlir::ReassociationIndices longer = run;
    longer.push_back(d);
    if (iters[d] == iters[run.back()] && linalg::areDimSequencesPreserved(maps, {longer})) {
      run = longer;
      continue;
    }
    groups.push_back(run);
    run = {d};
  }
  groups.push_back(run);
  return groups;
}

// Whether every operand's memref can be collapsed along `groups` (its
// strides contiguous across each collapsed run of its dims).
bool operandsCollapsible(linalg::GenericOp g, llvm::ArrayRef<mlir::ReassociationIndices> groups) {
  llvm::SmallVector<unsigned> groupOf(g.getNumLoops());
  for (unsigned i = 0; i < groups.size(); ++i)
    for (int64_t d : groups[i]) groupOf[d] = i;
  for (mlir::OpOperand &o : g->getOpOperands()) {
    mlir::AffineMap m = g.getMatchingIndexingMap(&o);
    if (!m.isProjectedPermutation(/*allowZeroInResults=*/false)) return false;
    llvm::SmallVector<mlir::ReassociationIndices> reassoc;
    for (unsigned pos = 0; pos < m.getNumResults();) {
      const auto &run = groups[groupOf[m.getDimPosition(pos)]];
      mlir::ReassociationIndices r;
      for (unsigned k = 0; k < run.size(); ++k) r.push_back(pos + k);
      reassoc.push_back(r);
      pos += run.size();
    }
    auto t = mlir::cast<mlir::MemRefType>(o.get().getType());
    if (!memref::CollapseShapeOp::isGuaranteedCollapsible(t, reassoc)) return false;
  }
  return true;
}

linalg::GenericOp collapse(mlir::RewriterBase &rw, linalg::GenericOp g) {
  // Dims read through an expression (a max pooling's gradient reads dy at
  // h floordiv 2) stay apart.
  if (!llvm::all_of(g.getIndexingMapsArray(), [](mlir::AffineMap m) { return m.isProjectedPermutation(); })) return g;
  auto groups = collapsibleDims(g);
  if (groups.size() == g.getNumLoops() || !operandsCollapsible(g, groups)) return g;
  rw.setInsertionPoint(g);
  auto collapsed = linalg::collapseOpIterationDims(g, groups, rw);
  if (mlir::failed(collapsed)) return g;
  rw.eraseOp(g);
  return mlir::cast<linalg::GenericOp>(collapsed->collapsedOp.getOperation());
}

// ---- 2. tiling for vectors ----

// The innermost dim can be the vector dim when every operand that it
// indexes has it as its last, unit-stride dim (others broadcast along it).
// The other dims may be read through expressions (h floordiv 2: every tile
// is one element along them, see tileMaps).
bool innermostIsContiguous(linalg::GenericOp g) {
  unsigned v = g.getNumLoops() - 1;
  for (mlir::OpOperand &o : g->getOpOperands()) {
    auto t = mlir::cast<mlir::MemRefType>(o.get().getType());
    if (!t.getElementType().isIntOrFloat() || t.getElementType().getIntOrFloatBitWidth() > 64) return false;
    mlir::AffineMap m = g.getMatchingIndexingMap(&o);
    llvm::SmallVector<unsigned> dims;
    for (mlir::AffineExpr r : m.getResults()) {
      if (auto d = mlir::dyn_cast<mlir::AffineDimExpr>(r)) {
        if (llvm::is_contained(dims, d.getPosition())) return false;
        dims.push_back(d.getPosition());
      } else if (mlir::isa<mlir::AffineConstantExpr>(r) || r.isFunctionOfDim(v)) {
        return false;
      }
    }
    auto pos = m.getResultPosition(mlir::getAffineDimExpr(v, g.getContext()));
    if (!pos) continue;
    if (*pos != m.getNumResults() - 1) return false;
    llvm::SmallVector<int64_t> strides;
    int64_t offset;
    if (mlir::failed(mlir::getStridesAndOffset(t, strides, offset)) || strides.back() != 1) return false;
  }
  return true;
}

// In a tile every dim but the vector dim is one element, and the operands
// are already sliced at the tile's place (makeTiledShapes evaluates each
// map there): a result that is an expression of those dims (h floordiv 2)
// reads element 0 of its slice. The maps become projected permutations
// with zeros, as linalg::vectorize takes them.
void tileMaps(linalg::GenericOp t) {
  llvm::SmallVector<mlir::AffineMap> maps;
  bool changed = false;
  for (mlir::AffineMap m : t.getIndexingMapsArray()) {
    llvm::SmallVector<mlir::AffineExpr> results;
    for (mlir::AffineExpr r : m.getResults()) {
      const bool plain = mlir::isa<mlir::AffineDimExpr, mlir::AffineConstantExpr>(r);
      results.push_back(plain ? r : mlir::getAffineConstantExpr(0, t.getContext()));
      changed |= !plain;
    }
    maps.push_back(mlir::AffineMap::get(m.getNumDims(), m.getNumSymbols(), results, t.getContext()));
  }
  if (changed) t.setIndexingMapsAttr(mlir::Builder(t.getContext()).getAffineMapArrayAttr(maps));
}

struct Tiler {
  mlir::RewriterBase &rw;
  linalg::GenericOp g;
  mlir::Location loc;
  unsigned vdim;
  int64_t tile;                         // the vector dim's tile (elements)
  llvm::SmallVector<unsigned> order;    // loop dims, outermost first
  llvm::SmallVector<Value> sizes;       // extent of each dim
  llvm::SmallVector<OpFoldResult> ivs;  // offset of each dim in the current tile
  llvm::SmallVectorImpl<mlir::Operation *> &fullTiles;
  // The vector dim's static extent when the remainder is one full tile that
  // ends at the extent (overlapping the last full tile; see overlappable()).
  std::optional<int64_t> overlapTail;

  mlir::scf::ForOp loop(Value lb, Value ub, int64_t step, unsigned dim) {
    Value s = rw.create<mlir::arith::ConstantIndexOp>(loc, step);
    auto f = rw.create<scf::ForOp>(loc, lb, ub, s);
    f->setAttr(kTileLoop, rw.getUnitAttr());
    if (g.getIteratorTypesArray()[dim] == mlir::utils::IteratorType::reduction)
      f->setAttr(kReductionLoop, rw.getUnitAttr());
    return f;
  }

  void emitTile(int64_t vtile) {
    llvm::SmallVector<OpFoldResult> tileSizes(g.getNumLoops(), rw.getIndexAttr(1));
    tileSizes[vdim] = rw.getIndexAttr(vtile);
    llvm::SmallVector<OpFoldResult> bounds(sizes.begin(), sizes.end());
    auto operands = linalg::makeTiledShapes(rw, loc, g, g->getOperands(), ivs, tileSizes, bounds,
                                            /*omitPartialTileCheck=*/true);
    mlir::Operation *t = mlir::clone(rw, g, mlir::TypeRange{}, operands);
    linalg::offsetIndices(rw, mlir::cast<linalg::LinalgOp>(t), ivs);
    tileMaps(mlir::cast<linalg::GenericOp>(t));
    if (vtile > 1) fullTiles.push_back(t);
  }

  void nest(unsigned level, int64_t vtile) {
    if (level == order.size()) return emitTile(vtile);
    unsigned d = order[level];
    mlir::OpBuilder::InsertionGuard guard(rw);
    Value zero = rw.create<mlir::arith::ConstantIndexOp>(loc, 0);
    if (d != vdim) {
      auto f = loop(zero, sizes[d], 1, d);
      rw.setInsertionPoint(f.getBody()->getTerminator());
      ivs[d] = f.getInductionVar();
      return nest(level + 1, vtile);
    }
    // The vector dim: full tiles, then the remainder one element at a time.
    Value t = rw.create<mlir::arith::ConstantIndexOp>(loc, tile);
    Value full = rw.create<mlir::arith::MulIOp>(loc, rw.create<mlir::arith::DivUIOp>(loc, sizes[d], t), t);
    auto main = loop(zero, full, tile, d);
    rw.setInsertionPoint(main.getBody()->getTerminator());
    ivs[d] = main.getInductionVar();
    nest(level + 1, tile);
    rw.setInsertionPointAfter(main);
    if (overlapTail) {
      ivs[d] = rw.getIndexAttr(*overlapTail - tile);
      return nest(level + 1, tile);
    }
    auto rest = loop(full, sizes[d], 1, d);
    rw.setInsertionPoint(rest.getBody()->getTerminator());
    ivs[d] = rest.getInductionVar();
    nest(level + 1, 1);
  }
};

Value bufferOf(Value v); // step 4

// An elementwise op writing only planned workspace views (64-byte aligned
// by the memory plan) in its own iteration order.
bool streamable(linalg::GenericOp g) {
  if (g.getNumReductionLoops() != 0) return false;
  for (mlir::OpOperand &o : g.getDpsInitsMutable())
    if (!g.getMatchingIndexingMap(&o).isIdentity() || !bufferOf(o.get()).getDefiningOp<memref::ViewOp>()) return false;
  return true;
}

// Whether the remainder of the vector dim can be one full tile that ends at
// the extent, overlapping the last full one (a row of 196 = 14x14 floats:
// 12 tiles of 16, then the tile at 180 instead of 4 scalar iterations with
// their own loop, loads and broadcasts, a quarter of the row's time): the
// elements computed twice get the same value twice. That holds when the op
// only writes its outputs (elementwise: no reduction, no output read back)
// and no output is the buffer of an input (in place, the second time would
// read what the first wrote). Distinct buffers do not overlap: the memory
// plan gives buffers live at the same op disjoint places in the workspace,
// and the step functions' arguments are separate arenas (docs/abi.md; the
// optimizer update, which writes the parameters it reads, is in place).
bool overlappable(linalg::GenericOp g) {
  if (g.getNumReductionLoops() != 0) return false;
  for (mlir::OpOperand &o : g.getDpsInitsMutable())
    if (g.payloadUsesValueFromOperand(&o)) return false;
  for (Value init : g.getDpsInits())
    for (Value in : g.getDpsInputs())
      if (mlir::isa<mlir::MemRefType>(in.getType()) && bufferOf(in) == bufferOf(init)) return false;
  return true;
}

// Replaces `g` by loops over tiles of `tile` elements along its innermost
// dim (collected in fullTiles) and single elements (the remainder); with
// `streaming`, twice under an scf.if on the output's size (step 7).
void tileForVectors(mlir::RewriterBase &rw, linalg::GenericOp g, int64_t lanes, bool streaming,
                    llvm::SmallVectorImpl<mlir::Operation *> &fullTiles) {
  if (g.getNumLoops() == 0 || g.getNumDpsInits() == 0) return;
  for (Value v : g->getOperands())
    if (!mlir::isa<mlir::MemRefType>(v.getType())) return;
  g = dropConstantUnitDims(rw, g);
  g = collapse(rw, g);
  if (!innermostIsContiguous(g)) return;
  unsigned n = g.getNumLoops(), v = n - 1;
  int64_t extent = g.getStaticLoopRanges()[v];
  // Two registers per tile (two independent chains); a short static dim is one tile.
  int64_t tile = 2 * lanes;
  if (!mlir::ShapedType::isDynamic(extent)) {
    if (extent < 4) return;
    if (extent <= tile) tile = extent;
  }
  auto iters = g.getIteratorTypesArray();
  auto isPar = [&](unsigned d) { return iters[d] == mlir::utils::IteratorType::parallel; };
  // Parallel dims outermost, reductions inside them; the vector dim is
  // innermost, or (when parallel) right outside the reductions, so that
  // its output tile stays in registers across them. Except when the vector
  // dim is reduced and a reduction dim comes before a parallel one (a batch
  // norm's sums over N and H*W of [N, C, H*W]): then the loops keep the
  // operands' own order, N, C, H*W, and read them front to back. Channel
  // first would read N runs of H*W floats per channel, each a new stream for
  // the prefetcher (784 bytes at 14x14): measured on one core (EPYC, 32 MiB
  // L3), the Fashion CNN's generated code took 2.9 instead of 4.3 ms per
  // step, the microscopy CNN's 10.7 instead of 15.7. The channel's sum is then
  // read and written once per row of H*W (in L1) instead of kept in a
  // register across N.
  // The same holds for a blocked layout's sums, [N, C/16, H*W, 16] over N and
  // H*W with the vector dim (16 channels) parallel: block first would read a
  // run of H*W*16 floats of each sample, skip the other blocks', and come back
  // for them later. Kept in order, the tile's sums stay in registers across
  // the loop over H*W right outside the vector dim. Measured on one core (the
  // AVX-512 EPYC, a [64, 2, 784, 16] batch norm's two backward sums, from
  // DRAM): 0.20-0.28 instead of 0.32-0.59 ms.
  llvm::SmallVector<unsigned> order;
  bool reductionBeforeParallel = false;
  for (unsigned d = 0; d < v; ++d)
    for (unsigned e = d + 1; e < v && !isPar(d); ++e) reductionBeforeParallel |= isPar(e);
  const bool reductionRun = !isPar(v) || (v > 0 && !isPar(v - 1));
  if (reductionRun && reductionBeforeParallel) {
    for (unsigned d = 0; d <= v; ++d) order.push_back(d);
  } else {
    for (unsigned d = 0; d < v; ++d)
      if (isPar(d)) order.push_back(d);
    if (isPar(v)) order.push_back(v);
    for (unsigned d = 0; d < v; ++d)
      if (!isPar(d)) order.push_back(d);
    if (!isPar(v)) order.push_back(v);
  }

  mlir::Location loc = g.getLoc();
  rw.setInsertionPoint(g);
  llvm::SmallVector<Value> sizes;
  for (mlir::Range r : mlir::cast<linalg::LinalgOp>(g.getOperation()).createLoopRanges(rw, loc))
    sizes.push_back(mlir::getValueOrCreateConstantIndexOp(rw, loc, r.size));
  Tiler tiler{rw, g, loc, v, tile, order, sizes, llvm::SmallVector<OpFoldResult>(n, rw.getIndexAttr(0)), fullTiles,
              std::nullopt};
  if (!mlir::ShapedType::isDynamic(extent) && extent > tile && extent % tile != 0 && overlappable(g))
    tiler.overlapTail = extent;
  if (streaming && streamable(g)) {
    // Two copies: streaming stores when the output is large (known only
    // at run time: the batch), plain ones otherwise. The size is the whole
    // buffer's: a tile of it (a channel, in dx-fuse-reduction-loops' loop)
    // is written among the others.
    Value bytes = rw.create<mlir::arith::ConstantIndexOp>(loc, 0);
    for (Value init : g.getDpsInits()) {
      Value buffer = bufferOf(init);
      auto t = mlir::cast<mlir::MemRefType>(buffer.getType());
      Value b = rw.create<mlir::arith::ConstantIndexOp>(loc, t.getElementTypeBitWidth() / 8);
      for (int64_t d = 0; d < t.getRank(); ++d)
        b = rw.create<mlir::arith::MulIOp>(loc, b, rw.create<memref::DimOp>(loc, buffer, d));
      bytes = rw.create<mlir::arith::AddIOp>(loc, bytes, b);
    }
    Value limit = rw.create<mlir::arith::ConstantIndexOp>(loc, kStreamingBytes);
    Value large = rw.create<mlir::arith::CmpIOp>(loc, mlir::arith::CmpIPredicate::uge, bytes, limit);
    auto branch = rw.create<scf::IfOp>(loc, large, /*withElseRegion=*/true);
    branch->setAttr(kStreaming, rw.getUnitAttr());
    rw.setInsertionPoint(branch.thenBlock()->getTerminator());
    tiler.nest(0, tile);
    rw.setInsertionPoint(branch.elseBlock()->getTerminator());
    tiler.nest(0, tile);
  } else {
    tiler.nest(0, tile);
  }
  rw.eraseOp(g);
}

// ---- 4. accumulators in registers ----

// The buffer a memref value views: through reshapes, subviews and casts,
// up to a memory-plan view, an allocation or an argument.
Value bufferOf(Value v) {
  while (mlir::Operation *def = v.getDefiningOp()) {
    if (mlir::isa<memref::CollapseShapeOp, memref::ExpandShapeOp, memref::SubViewOp, memref::CastOp,
                  memref::ReinterpretCastOp>(def))
      v = def->getOperand(0);
    else
      break;
  }
  return v;
}

bool definedOutside(scf::ForOp loop, mlir::ValueRange vs) {
  return llvm::all_of(vs, [&](Value v) { return loop.isDefinedOutsideOfLoop(v); });
}

// One accumulator of `loop` moved to its iteration arguments: a transfer
// read and a later transfer write of the same vector at the same
// loop-invariant place, with no other access to that buffer in the loop.
mlir::FailureOr<scf::ForOp> hoistAccumulator(mlir::RewriterBase &rw, scf::ForOp loop) {
  mlir::Block *body = loop.getBody();
  for (mlir::Operation &op : body->without_terminator()) {
    auto read = mlir::dyn_cast<vector::TransferReadOp>(&op);
    if (!read || read.getMask() || !definedOutside(loop, read->getOperands())) continue;
    Value buffer = bufferOf(read.getSource());
    vector::TransferWriteOp write;
    bool other = false;
    loop.getBody()->walk([&](mlir::Operation *user) {
      if (user == read.getOperation()) return;
      for (Value operand : user->getOperands()) {
        if (!mlir::isa<mlir::MemRefType>(operand.getType()) || bufferOf(operand) != buffer) continue;
        auto w = mlir::dyn_cast<vector::TransferWriteOp>(user);
        if (w && !write && w->getBlock() == body && w.getSource() == read.getSource() &&
            w.getIndices() == read.getIndices() && w.getVectorType() == read.getVectorType() &&
            w.getPermutationMap() == read.getPermutationMap() && !w.getMask() && read->isBeforeInBlock(w))
          write = w;
        else
          other = true;
        return;
      }
    });
    if (other || !write) continue;
    rw.moveOpBefore(read, loop);
    rw.moveOpAfter(write, loop);
    auto yield = [&](mlir::OpBuilder &, mlir::Location, llvm::ArrayRef<mlir::BlockArgument>) {
      return llvm::SmallVector<Value>{write.getVector()};
    };
    auto replaced = mlir::cast<mlir::LoopLikeOpInterface>(loop.getOperation())
                        .replaceWithAdditionalYields(rw, read.getResult(), /*replaceInitOperandUsesInLoop=*/true, yield);
    if (mlir::failed(replaced)) return mlir::failure();
    auto newLoop = mlir::cast<scf::ForOp>(replaced->getOperation());
    rw.modifyOpInPlace(write, [&] { write.getVectorMutable().assign(newLoop.getResults().back()); });
    return newLoop;
  }
  return mlir::failure();
}

// The loops that carry `mark`, inner ones first (a post-order walk), so that
// what leaves an inner loop can leave the loop around it next.
llvm::SmallVector<scf::ForOp> markedLoops(mlir::ModuleOp module, llvm::StringRef mark) {
  llvm::SmallVector<scf::ForOp> loops;
  module.walk([&](scf::ForOp f) {
    if (f->hasAttr(mark)) loops.push_back(f);
  });
  return loops;
}

void hoistAccumulators(mlir::RewriterBase &rw, mlir::ModuleOp module) {
  for (scf::ForOp f : markedLoops(module, kReductionLoop)) {
    mlir::moveLoopInvariantCode(mlir::cast<mlir::LoopLikeOpInterface>(f.getOperation()));
    for (;;) {
      auto next = hoistAccumulator(rw, f);
      if (mlir::failed(next)) break;
      f = *next;
    }
    f->removeAttr(kReductionLoop);
  }
}

// ---- 4b. reductions along the vector dim: a vector of partial results ----

// When the vector dim is itself reduced (a batch-norm's sum over H*W, a
// norm over a row), each tile ends in a vector.multi_reduction into the
// loop's carried result: a horizontal reduction per tile and a serial chain
// through one scalar, several times slower than the loads. Instead the loop
// carries the tile-shaped partial results (from the kind's neutral element),
// combines each tile into them lane by lane, and reduces them once, after the
// loop, into what the loop carried before. Applied inner loops first, an
// outer loop over N that carried the channel's sum then carries the inner
// loop's partial vector in turn. Only the order of the combination changes,
// which a multi_reduction leaves open anyway.
mlir::FailureOr<scf::ForOp> widenCarriedReduction(mlir::RewriterBase &rw, scf::ForOp loop) {
  auto yield = mlir::cast<scf::YieldOp>(loop.getBody()->getTerminator());
  for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i) {
    mlir::BlockArgument acc = loop.getRegionIterArgs()[i];
    if (!acc.hasOneUse()) continue;
    auto red = mlir::dyn_cast<vector::MultiDimReductionOp>(*acc.getUsers().begin());
    if (!red || red.getAcc() != acc || red->getBlock() != loop.getBody() || !red->hasOneUse() ||
        *red->getUsers().begin() != yield.getOperation() || yield.getOperand(i) != red.getResult())
      continue;
    // Tiles are one element wide in every dim but the vector dim, so a
    // reduction that keeps dims keeps one element: it is a 1-D reduction of
    // the tile's elements into a scalar.
    auto srcType = mlir::cast<mlir::VectorType>(red.getSource().getType());
    auto elem = mlir::dyn_cast<mlir::FloatType>(srcType.getElementType());
    auto resType = mlir::dyn_cast<mlir::VectorType>(red.getResult().getType());
    if (!elem || srcType.isScalable() || (resType && resType.getNumElements() != 1)) continue;
    auto identity = floatNeutralElement(red.getKind(), elem.getFloatSemantics());
    if (!identity) continue;

    const mlir::Location loc = red.getLoc();
    const vector::CombiningKind kind = red.getKind();
    const Value scalarInit = loop.getInitArgs()[i];
    auto flatType = mlir::VectorType::get({srcType.getNumElements()}, elem);
    rw.setInsertionPoint(red);
    Value tile = rw.create<vector::ShapeCastOp>(loc, flatType, red.getSource());
    rw.setInsertionPoint(loop);
    Value init = rw.create<mlir::arith::ConstantOp>(loc, flatType, mlir::DenseElementsAttr::get(flatType, *identity));
    auto yieldTile = [&](mlir::OpBuilder &, mlir::Location, llvm::ArrayRef<mlir::BlockArgument>) {
      return llvm::SmallVector<Value>{tile};
    };
    auto replaced = mlir::cast<mlir::LoopLikeOpInterface>(loop.getOperation())
                        .replaceWithAdditionalYields(rw, init, /*replaceInitOperandUsesInLoop=*/false, yieldTile);
    if (mlir::failed(replaced)) return mlir::failure();
    auto wide = mlir::cast<scf::ForOp>(replaced->getOperation());
    auto wideYield = mlir::cast<scf::YieldOp>(wide.getBody()->getTerminator());
    // In the loop: partials <- partials (kind) tile; the old carried value
    // passes through unchanged (canonicalize drops it).
    rw.setInsertionPoint(wideYield);
    Value combined = vector::makeArithReduction(rw, loc, kind, tile, wide.getRegionIterArgs().back());
    rw.modifyOpInPlace(wideYield, [&] {
      wideYield->setOperand(wideYield.getNumOperands() - 1, combined);
      wideYield->setOperand(i, wide.getRegionIterArgs()[i]);
    });
    rw.eraseOp(red);
    // After it: the partials reduce into the loop's initial value.
    rw.setInsertionPointAfter(wide);
    Value start = scalarInit;
    if (resType) start = rw.create<vector::ExtractOp>(loc, scalarInit, llvm::SmallVector<int64_t>(resType.getRank(), 0));
    Value total = rw.create<vector::ReductionOp>(loc, kind, wide.getResults().back(), start);
    if (resType) total = rw.create<vector::BroadcastOp>(loc, resType, total);
    rw.replaceAllUsesWith(wide.getResult(i), total);
    return wide;
  }
  return mlir::failure();
}

void widenCarriedReductions(mlir::RewriterBase &rw, mlir::ModuleOp module) {
  llvm::SmallVector<scf::ForOp> loops;
  module.walk([&](scf::ForOp f) { loops.push_back(f); }); // post-order: inner loops first
  for (scf::ForOp f : loops)
    for (;;) {
      auto next = widenCarriedReduction(rw, f);
      if (mlir::failed(next)) break;
      f = *next;
    }
}

// ---- 6. loop-invariant reads ----

// The buffers that ops in `loop` write (bufferOf each), or nullopt when an
// op there may write anything (a call).
std::optional<llvm::DenseSet<Value>> writtenIn(scf::ForOp loop) {
  llvm::DenseSet<Value> written;
  bool unknown = false;
  loop.getBody()->walk([&](mlir::Operation *op) {
    if (auto s = mlir::dyn_cast<vector::StoreOp>(op)) written.insert(bufferOf(s.getBase()));
    else if (auto w = mlir::dyn_cast<vector::TransferWriteOp>(op)) written.insert(bufferOf(w.getSource()));
    else if (auto st = mlir::dyn_cast<memref::StoreOp>(op)) written.insert(bufferOf(st.getMemRef()));
    else if (auto c = mlir::dyn_cast<memref::CopyOp>(op)) written.insert(bufferOf(c.getTarget()));
    else if (auto l = mlir::dyn_cast<linalg::LinalgOp>(op)) {
      for (Value init : l.getDpsInits()) written.insert(bufferOf(init));
    } else if (mlir::isa<mlir::CallOpInterface>(op)) {
      unknown = true;
    }
  });
  if (unknown) return std::nullopt;
  return written;
}

// Reads of a broadcast operand (a bias, a channel's mean or scale) do not
// depend on the loop they are in: they move out of it, and with them what
// is computed from them alone (the 1/sqrt(var + eps) of a batch-norm).
// LLVM cannot do this itself: every buffer is a view of one workspace, so
// the loop's stores might alias the loads. The memory plan says they do not
// (distinct live buffers never overlap), so only a store to the same buffer
// keeps a read in its loop.
void hoistInvariantReads(mlir::RewriterBase &rw, mlir::ModuleOp module) {
  for (scf::ForOp f : markedLoops(module, kTileLoop)) {
    mlir::moveLoopInvariantCode(mlir::cast<mlir::LoopLikeOpInterface>(f.getOperation()));
    auto written = writtenIn(f);
    if (!written) continue;
    llvm::SmallVector<mlir::Operation *> reads;
    for (mlir::Operation &op : f.getBody()->without_terminator()) {
      Value base;
      if (auto l = mlir::dyn_cast<vector::LoadOp>(&op)) base = l.getBase();
      else if (auto l = mlir::dyn_cast<memref::LoadOp>(&op)) base = l.getMemRef();
      else if (auto r = mlir::dyn_cast<vector::TransferReadOp>(&op); r && !r.getMask()) base = r.getSource();
      if (base && definedOutside(f, op.getOperands()) && !written->contains(bufferOf(base))) reads.push_back(&op);
    }
    for (mlir::Operation *r : reads) rw.moveOpBefore(r, f);
    if (!reads.empty()) mlir::moveLoopInvariantCode(mlir::cast<mlir::LoopLikeOpInterface>(f.getOperation()));
  }
  module.walk([](scf::ForOp f) { f->removeAttr(kTileLoop); });
}

// ---- 7. streaming stores ----

// The vector stores of each large-output copy (step 2) become non-temporal
// (MOVNTPS: around the cache, no read for ownership), and an sfence after
// them orders them before what reads the output, which may be another
// thread (a oneDNN primitive). LLVM keeps a non-temporal store only where
// it proves the address aligned to the vector (emitHostCode drops the rest:
// an unaligned one would be split into scalar stores).
void markStreamingStores(mlir::RewriterBase &rw, mlir::ModuleOp module) {
  // dxrt_workspace returns 64-byte aligned memory and the memory plan keeps
  // every view at a multiple of 64 bytes: said to LLVM, it proves the
  // vector stores into the views aligned.
  module.walk([&](mlir::func::CallOp call) {
    if (call.getCallee() != "dxrt_workspace" || call->getNumResults() != 1) return;
    rw.setInsertionPointAfter(call);
    rw.create<memref::AssumeAlignmentOp>(call.getLoc(), call->getResult(0), 64);
  });
  llvm::SmallVector<scf::IfOp> branches;
  module.walk([&](scf::IfOp i) {
    if (i->hasAttr(kStreaming)) branches.push_back(i);
  });
  if (branches.empty()) return;
  constexpr llvm::StringLiteral kFence = "llvm.x86.sse.sfence";
  if (!module.lookupSymbol(kFence)) {
    mlir::OpBuilder b(module.getBodyRegion());
    auto fence = b.create<mlir::func::FuncOp>(module.getLoc(), kFence, b.getFunctionType({}, {}));
    fence.setPrivate();
  }
  for (scf::IfOp i : branches) {
    i->removeAttr(kStreaming);
    bool any = false;
    i.getThenRegion().walk([&](vector::StoreOp st) {
      rw.modifyOpInPlace(st, [&] { st.setNontemporal(true); });
      any = true;
    });
    if (!any) continue;
    rw.setInsertionPoint(i.thenBlock()->getTerminator());
    rw.create<mlir::func::CallOp>(i.getLoc(), kFence, mlir::TypeRange{});
  }
}

// ---- the pass ----

void addCanonicalizations(mlir::MLIRContext *ctx, mlir::RewritePatternSet &p) {
  for (mlir::Dialect *d : ctx->getLoadedDialects()) d->getCanonicalizationPatterns(p);
  for (mlir::RegisteredOperationName op : ctx->getRegisteredOperations()) op.getCanonicalizationPatterns(p, ctx);
}

struct VectorizeCpuPass : mlir::PassWrapper<VectorizeCpuPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(VectorizeCpuPass)
  VectorizeCpuPass() = default;
  VectorizeCpuPass(const VectorizeCpuPass &other) : PassWrapper(other) {}
  VectorizeCpuPass(int64_t bits, bool streaming) {
    vectorBits = bits;
    streamingStores = streaming;
  }

  llvm::StringRef getArgument() const override { return "dx-vectorize-cpu"; }
  llvm::StringRef getDescription() const override {
    return "Tile and vectorize linalg.generic ops on memrefs for the CPU, accumulators in registers, "
           "polynomial math";
  }
  void getDependentDialects(mlir::DialectRegistry &r) const override {
    r.insert<vector::VectorDialect, scf::SCFDialect, memref::MemRefDialect, mlir::affine::AffineDialect,
             mlir::arith::ArithDialect, mlir::math::MathDialect>();
  }
  Option<int64_t> vectorBits{*this, "vector-bits", llvm::cl::desc("bits of a vector register (256: AVX2, 512: AVX-512)"),
                             llvm::cl::init(256)};
  Option<bool> streamingStores{*this, "streaming-stores",
                               llvm::cl::desc("non-temporal stores for large elementwise outputs (x86)"),
                               llvm::cl::init(false)};

  void runOnOperation() override {
    mlir::ModuleOp module = getOperation();
    mlir::MLIRContext *ctx = &getContext();
    mlir::IRRewriter rw(ctx);
    const int64_t lanes = std::max<int64_t>(1, vectorBits / 32);

    llvm::SmallVector<linalg::GenericOp> generics;
    module.walk([&](linalg::GenericOp g) {
      if (g.hasPureBufferSemantics()) generics.push_back(g);
    });
    llvm::SmallVector<mlir::Operation *> fullTiles;
    for (linalg::GenericOp g : generics) tileForVectors(rw, g, lanes, streamingStores, fullTiles);

    // 3. Full tiles have static shapes: plain (unmasked) vectors.
    for (mlir::Operation *t : fullTiles) {
      if (mlir::failed(linalg::vectorizeOpPrecondition(t))) continue;
      rw.setInsertionPoint(t);
      (void)linalg::vectorize(rw, t);
    }
    {
      mlir::RewritePatternSet p(ctx);
      vector::populateCastAwayVectorLeadingOneDimPatterns(p);
      addCanonicalizations(ctx, p);
      // Not converging within the driver's rounds leaves valid IR: no failure.
      (void)mlir::applyPatternsAndFoldGreedily(module, std::move(p));
    }
    // 4.
    hoistAccumulators(rw, module);
    // 4b.
    widenCarriedReductions(rw, module);
    // Vector ops down to loads, stores, broadcasts and 1-D reductions; 5.
    {
      mlir::RewritePatternSet p(ctx);
      vector::populateVectorTransferPermutationMapLoweringPatterns(p);
      vector::populateVectorTransferLoweringPatterns(p, /*maxTransferRank=*/1);
      vector::populateVectorMultiReductionLoweringPatterns(p, vector::VectorMultiReductionLowering::InnerReduction);
      vector::populateVectorBroadcastLoweringPatterns(p);
      vector::populateCastAwayVectorLeadingOneDimPatterns(p);
      mlir::populateMathPolynomialApproximationPatterns(p);
      addCanonicalizations(ctx, p);
      (void)mlir::applyPatternsAndFoldGreedily(module, std::move(p));
    }
    // 6.
    hoistInvariantReads(rw, module);
    // 7.
    if (streamingStores) markStreamingStores(rw, module);
  }
};

} // namespace

std::unique_ptr<mlir::Pass> createVectorizeCpuPass(int64_t vectorBits, bool streamingStores) {
  return std::make_unique<VectorizeCpuPass>(vectorBits, streamingStores);
}
void registerVectorizeCpuPass() { mlir::PassRegistration<VectorizeCpuPass>(); }

std::optional<llvm::APFloat> floatNeutralElement(vector::CombiningKind kind, const llvm::fltSemantics &sem) {
  switch (kind) {
  case vector::CombiningKind::ADD: return llvm::APFloat::getZero(sem, /*Negative=*/true);
  case vector::CombiningKind::MUL: return llvm::APFloat::getOne(sem);
  case vector::CombiningKind::MAXIMUMF: return llvm::APFloat::getInf(sem, /*Negative=*/true);
  case vector::CombiningKind::MINIMUMF: return llvm::APFloat::getInf(sem, /*Negative=*/false);
  default: return std::nullopt;
  }
}

} // namespace dx
