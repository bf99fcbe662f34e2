#include "lowering/ExpandWindowDims.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"

#include <optional>

namespace dx {
namespace {

using mlir::AffineExpr;
using mlir::AffineMap;
using mlir::OpBuilder;
using mlir::Value;
namespace arith = mlir::arith;
namespace linalg = mlir::linalg;
namespace tensor = mlir::tensor;

// One map result: loop dim `dim` itself (k == 0) or `dim floordiv k`.
struct DimRead {
  unsigned dim;
  int64_t k;
};

std::optional<DimRead> dimRead(AffineExpr e) {
  if (auto d = mlir::dyn_cast<mlir::AffineDimExpr>(e)) return DimRead{d.getPosition(), 0};
  if (e.getKind() != mlir::AffineExprKind::FloorDiv) return std::nullopt;
  auto bin = mlir::cast<mlir::AffineBinaryOpExpr>(e);
  auto d = mlir::dyn_cast<mlir::AffineDimExpr>(bin.getLHS());
  auto k = mlir::dyn_cast<mlir::AffineConstantExpr>(bin.getRHS());
  if (!d || !k || k.getValue() < 2) return std::nullopt;
  return DimRead{d.getPosition(), k.getValue()};
}

// The factor each loop dim of `g` splits by (0: not split), when splitting
// leaves only projected reads; nothing otherwise (see the header).
std::optional<llvm::SmallVector<int64_t>> splitFactors(linalg::GenericOp g) {
  const unsigned n = g.getNumLoops();
  if (n == 0 || !g.hasPureTensorSemantics()) return std::nullopt;
  llvm::SmallVector<int64_t> factor(n, 0);
  bool any = false;
  for (AffineMap map : g.getIndexingMapsArray())
    for (AffineExpr e : map.getResults()) {
      if (mlir::isa<mlir::AffineConstantExpr>(e)) continue;
      std::optional<DimRead> r = dimRead(e);
      if (!r) return std::nullopt;
      if (r->k == 0) continue;
      if (factor[r->dim] != 0 && factor[r->dim] != r->k) return std::nullopt;
      factor[r->dim] = r->k;
      any = true;
    }
  if (!any) return std::nullopt;
  const llvm::SmallVector<int64_t> ranges = g.getStaticLoopRanges();
  for (unsigned d = 0; d < n; ++d)
    if (factor[d] != 0 && (d == n - 1 || mlir::ShapedType::isDynamic(ranges[d]) || ranges[d] % factor[d] != 0))
      return std::nullopt;
  // Each split dim is read as itself somewhere (its inner dim's range comes
  // from that operand), and every operand dim read as a split dim is static.
  llvm::SmallVector<bool> readPlain(n, false);
  for (mlir::OpOperand &o : g->getOpOperands()) {
    AffineMap map = g.getMatchingIndexingMap(&o);
    auto t = mlir::dyn_cast<mlir::RankedTensorType>(o.get().getType());
    for (auto [p, e] : llvm::enumerate(map.getResults())) {
      std::optional<DimRead> r = dimRead(e);
      if (!r || r->k != 0 || factor[r->dim] == 0) continue;
      if (!t || t.isDynamicDim(p)) return std::nullopt;
      readPlain[r->dim] = true;
    }
  }
  for (unsigned d = 0; d < n; ++d)
    if (factor[d] != 0 && !readPlain[d]) return std::nullopt;
  return factor;
}

bool isConstantIndex(Value v, int64_t k) {
  llvm::APInt c;
  return mlir::matchPattern(v, mlir::m_ConstantInt(&c)) && c.getSExtValue() == k;
}

void expand(linalg::GenericOp g, llvm::ArrayRef<int64_t> factor) {
  OpBuilder b(g);
  mlir::Location loc = g.getLoc();
  mlir::MLIRContext *ctx = b.getContext();
  const unsigned n = g.getNumLoops();
  // Old dim d is new dim outer[d] and, when split, inner[d] = outer[d] + 1
  // (its position in the window): [N, C/B, OH, kh, OW, kw, B] for a blocked
  // pooling, which reads the input in its order. (Windows innermost,
  // [N, C/B, OH, OW, kh, kw, B], read the floordiv operand once instead of
  // kh times but were no faster: two input rows at once.)
  llvm::SmallVector<unsigned> outer(n), inner(n);
  llvm::SmallVector<mlir::utils::IteratorType> iters;
  const auto oldIters = g.getIteratorTypesArray();
  for (unsigned d = 0; d < n; ++d) {
    outer[d] = unsigned(iters.size());
    iters.push_back(oldIters[d]);
    if (factor[d] == 0) continue;
    inner[d] = unsigned(iters.size());
    iters.push_back(oldIters[d]);
  }
  const unsigned m = unsigned(iters.size());

  // Each operand and its map in the new space; `groups` how a result's
  // expanded dims collapse back.
  llvm::SmallVector<Value> operands;
  llvm::SmallVector<AffineMap> maps;
  llvm::SmallVector<llvm::SmallVector<mlir::ReassociationIndices>> groups;
  for (mlir::OpOperand &o : g->getOpOperands()) {
    AffineMap map = g.getMatchingIndexingMap(&o);
    auto t = mlir::dyn_cast<mlir::RankedTensorType>(o.get().getType());
    llvm::SmallVector<AffineExpr> results;
    llvm::SmallVector<mlir::ReassociationIndices> group;
    llvm::SmallVector<int64_t> shape;
    bool split = false;
    for (auto [p, e] : llvm::enumerate(map.getResults())) {
      std::optional<DimRead> r = dimRead(e);
      const int64_t at = int64_t(shape.size());
      if (r && r->k == 0 && factor[r->dim] != 0) {
        results.push_back(mlir::getAffineDimExpr(outer[r->dim], ctx));
        results.push_back(mlir::getAffineDimExpr(inner[r->dim], ctx));
        shape.append({t.getDimSize(p) / factor[r->dim], factor[r->dim]});
        group.push_back({at, at + 1});
        split = true;
      } else {
        // A floordiv read is the outer dim; a constant stays.
        results.push_back(r ? mlir::getAffineDimExpr(outer[r->dim], ctx) : e);
        if (t) shape.push_back(t.getDimSize(p));
        group.push_back({at});
      }
    }
    maps.push_back(AffineMap::get(m, 0, results, ctx));
    groups.push_back(group);
    operands.push_back(split ? b.create<tensor::ExpandShapeOp>(
                                    loc, mlir::RankedTensorType::get(shape, t.getElementType(), t.getEncoding()),
                                    o.get(), group)
                                    .getResult()
                              : o.get());
  }
  const unsigned numInputs = unsigned(g.getNumDpsInputs());
  llvm::SmallVector<Value> inputs(operands.begin(), operands.begin() + numInputs);
  llvm::SmallVector<Value> inits(operands.begin() + numInputs, operands.end());
  llvm::SmallVector<mlir::Type> resultTypes;
  for (Value v : inits) resultTypes.push_back(v.getType());
  auto expanded = b.create<linalg::GenericOp>(loc, resultTypes, inputs, inits, maps, iters);
  expanded->setDiscardableAttrs(g->getDiscardableAttrDictionary());
  expanded.getRegion().takeBody(g.getRegion());

  // linalg.index of a split dim: `mod k` is the inner index, `div k` the
  // outer one, anything else outer * k + inner.
  llvm::SmallVector<linalg::IndexOp> indices;
  expanded.getRegion().walk([&](linalg::IndexOp i) { indices.push_back(i); });
  for (linalg::IndexOp i : indices) {
    OpBuilder ib(i);
    const unsigned d = unsigned(i.getDim());
    Value outerIndex = ib.create<linalg::IndexOp>(i.getLoc(), outer[d]);
    if (factor[d] == 0) {
      i.replaceAllUsesWith(outerIndex);
      i.erase();
      continue;
    }
    Value innerIndex = ib.create<linalg::IndexOp>(i.getLoc(), inner[d]);
    for (mlir::OpOperand &use : llvm::make_early_inc_range(i->getUses())) {
      mlir::Operation *u = use.getOwner();
      if (use.getOperandNumber() != 0 || u->getNumOperands() != 2 || !isConstantIndex(u->getOperand(1), factor[d]))
        continue;
      if (mlir::isa<arith::RemUIOp, arith::RemSIOp>(u))
        u->getResult(0).replaceAllUsesWith(innerIndex);
      else if (mlir::isa<arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp>(u))
        u->getResult(0).replaceAllUsesWith(outerIndex);
    }
    if (!i->use_empty()) {
      Value k = ib.create<arith::ConstantIndexOp>(i.getLoc(), factor[d]);
      Value full = ib.create<arith::AddIOp>(i.getLoc(), ib.create<arith::MulIOp>(i.getLoc(), outerIndex, k), innerIndex);
      i.replaceAllUsesWith(full);
    }
    i.erase();
  }

  llvm::SmallVector<Value> results;
  for (auto [r, old] : llvm::zip(expanded->getResults(), g->getResults()))
    results.push_back(r.getType() == old.getType()
                          ? Value(r)
                          : b.create<tensor::CollapseShapeOp>(loc, old.getType(), r,
                                                              groups[numInputs + r.getResultNumber()])
                                .getResult());
  g->replaceAllUsesWith(results);
  g->erase();
}

struct ExpandWindowDimsPass : mlir::PassWrapper<ExpandWindowDimsPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ExpandWindowDimsPass)
  llvm::StringRef getArgument() const override { return "dx-expand-window-dims"; }
  llvm::StringRef getDescription() const override {
    return "Iterate a dim read through `floordiv k` as (d / k, d mod k), so every read is projected";
  }
  void getDependentDialects(mlir::DialectRegistry &registry) const override {
    registry.insert<tensor::TensorDialect, arith::ArithDialect, linalg::LinalgDialect>();
  }
  void runOnOperation() override {
    llvm::SmallVector<std::pair<linalg::GenericOp, llvm::SmallVector<int64_t>>> work;
    getOperation().walk([&](linalg::GenericOp g) {
      if (std::optional<llvm::SmallVector<int64_t>> f = splitFactors(g)) work.push_back({g, *f});
    });
    for (auto &[g, f] : work) expand(g, f);
  }
};

} // namespace

std::unique_ptr<mlir::Pass> createExpandWindowDimsPass() { return std::make_unique<ExpandWindowDimsPass>(); }
void registerExpandWindowDimsPass() { mlir::PassRegistration<ExpandWindowDimsPass>(); }

} // namespace dx
