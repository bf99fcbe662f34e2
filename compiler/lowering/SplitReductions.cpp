#include "lowering/SplitReductions.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

#include "llvm/Support/JSON.h"

#include <cmath>
#include <deque>

namespace dx {
namespace {

using namespace mlir;

// The heuristic (docs/cuda.md). A reduction is split when its reduced extent
// per output, R, is at least `minExtent` (dynamic extents count as
// `dynamicExtent`) and its outputs, O, are static. K, the partials per output,
// is the largest power of two not above
//   min(targetThreads / O, max(sqrt(R), R / kMinPerThread))
// and at least 2: stage 1 gets O*K <= targetThreads threads (64K: enough to
// keep an H200's memory busy, without threads that do almost nothing), each
// combining ~R/K elements, at least kMinPerThread once R is large, and K
// grows with R at least as sqrt(R), balancing the two stages' loops for
// moderate R. Stage 2 (O outputs, R = K) is split again when it qualifies.
//
// min-extent is 64: a GPU thread's loop over a reduction is latency-bound
// (each element is a global load feeding a dependent add: tens of
// nanoseconds even when ptxas unrolls the loads), so 64 elements already
// cost about what a kernel launch does, and a bias gradient or loss summed
// over a batch of 512 in one thread per output costs tens of microseconds
// (split with K = 8 at a train batch of 64: 64 + 8 long chains). Not yet
// measured on a GPU: test/gpu/run.sh times the MLP with 64 and with 1024.
constexpr int64_t kMinPerThread = 32;
constexpr int64_t kDefaultMinExtent = 64;

struct Heuristic {
  int64_t minExtent = kDefaultMinExtent;
  int64_t dynamicExtent = 64;
  int64_t targetThreads = 65536;
};

int64_t floorPow2(int64_t x) {
  if (x < 1) return 0;
  int64_t p = 1;
  while (p <= x / 2) p *= 2;
  return p;
}

int64_t saturatingMul(int64_t a, int64_t b) {
  constexpr int64_t kMax = int64_t(1) << 40;
  if (a == 0 || b == 0) return 0;
  return a > kMax / b ? kMax : a * b;
}

// An output's combiner: the one op that uses the output's block argument,
// `out = combiner(out, x)` (either operand order), whose result is yielded at
// the output's position and nothing else; x must not depend on any output.
struct Combiner {
  Operation *op;
  TypedAttr neutral;
  unsigned outOperand; // which operand of op is the output's block argument
};

std::optional<SmallVector<Combiner>> matchCombiners(linalg::GenericOp op) {
  Block *body = op.getBody();
  Operation *yield = body->getTerminator();
  SmallVector<Combiner> result;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    BlockArgument arg = op.getMatchingBlockArgument(&init);
    unsigned pos = result.size();
    if (!arg.hasOneUse()) return std::nullopt;
    OpOperand &use = *arg.getUses().begin();
    Operation *c = use.getOwner();
    if (c->getBlock() != body || c->getNumOperands() != 2 || c->getNumResults() != 1 || c->getNumRegions() != 0)
      return std::nullopt;
    Value r = c->getResult(0);
    if (!r.hasOneUse() || r.getUses().begin()->getOwner() != yield || r.getUses().begin()->getOperandNumber() != pos)
      return std::nullopt;
    std::optional<TypedAttr> neutral = arith::getNeutralElement(c);
    if (!neutral) return std::nullopt;
    result.push_back({c, *neutral, use.getOperandNumber()});
  }
  // The other operand of each combiner must not read any output: every
  // output argument has one use, its own combiner, so it suffices that no
  // combiner's result feeds another (results are only yielded, checked above).
  return result;
}

struct Plan {
  SmallVector<unsigned> par, red;  // loop dims, in loop order
  SmallVector<int64_t> ranges;     // static loop ranges (kDynamic if not)
  SmallVector<Combiner> combiners;
  int64_t k = 0;
  bool kInner = true; // the partials' dim is the fastest-varying thread index
};

bool usesAny(AffineMap map, ArrayRef<unsigned> dims) {
  return llvm::any_of(dims, [&](unsigned d) { return map.isFunctionOfDim(d); });
}

// The operand and result position whose indexing map result is exactly loop dim d.
std::optional<std::pair<OpOperand *, unsigned>> operandDim(linalg::GenericOp op, unsigned d) {
  for (OpOperand &opnd : op->getOpOperands()) {
    if (!isa<RankedTensorType>(opnd.get().getType())) continue;
    AffineMap m = op.getMatchingIndexingMap(&opnd);
    for (unsigned i = 0; i < m.getNumResults(); ++i)
      if (auto e = dyn_cast<AffineDimExpr>(m.getResult(i)); e && e.getPosition() == d) return std::make_pair(&opnd, i);
  }
  return std::nullopt;
}

std::optional<Plan> makePlan(linalg::GenericOp op, const Heuristic &h) {
  if (!op.hasPureTensorSemantics() || op.getNumReductionLoops() == 0 || op.getNumDpsInits() == 0) return std::nullopt;
  Plan p;
  p.ranges = op.getStaticLoopRanges();
  auto iterators = op.getIteratorTypesArray();
  for (unsigned d = 0; d < iterators.size(); ++d)
    (iterators[d] == utils::IteratorType::parallel ? p.par : p.red).push_back(d);

  // Outputs: static, indexed by exactly the parallel dims (any order).
  int64_t outputs = 1;
  for (unsigned d : p.par) {
    if (ShapedType::isDynamic(p.ranges[d])) return std::nullopt;
    outputs = saturatingMul(outputs, p.ranges[d]);
  }
  if (outputs == 0) return std::nullopt;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    AffineMap m = op.getMatchingIndexingMap(&init);
    if (!isa<RankedTensorType>(init.get().getType()) || !m.isProjectedPermutation() ||
        m.getNumResults() != p.par.size() || usesAny(m, p.red))
      return std::nullopt;
  }
  // Every reduction dim's extent must be readable from an operand's shape.
  int64_t reduced = 1;
  for (unsigned d : p.red) {
    if (!operandDim(op, d)) return std::nullopt;
    reduced = saturatingMul(reduced, ShapedType::isDynamic(p.ranges[d]) ? h.dynamicExtent : p.ranges[d]);
  }
  if (reduced < h.minExtent) return std::nullopt;
  // Inputs read in the body (those indexed by a reduction dim) are tensors.
  for (OpOperand *in : op.getDpsInputOperands())
    if (usesAny(op.getMatchingIndexingMap(in), p.red) && !isa<RankedTensorType>(in->get().getType()))
      return std::nullopt;
  auto combiners = matchCombiners(op);
  if (!combiners) return std::nullopt;
  p.combiners = std::move(*combiners);

  int64_t perThread = std::max<int64_t>(static_cast<int64_t>(std::sqrt(static_cast<double>(reduced))),
                                        reduced / kMinPerThread);
  p.k = floorPow2(std::min(h.targetThreads / outputs, perThread));
  if (p.k < 2) return std::nullopt;

  // Thread order: if the biggest input read in the body is contiguous along
  // a reduction dim (its last index is one), neighbouring partials k read
  // neighbouring elements: k innermost. Else (e.g. a bias gradient, [B, F]
  // summed over B) the parallel dims are the contiguous ones: k outermost.
  int64_t biggest = -1;
  for (OpOperand *in : op.getDpsInputOperands()) {
    AffineMap m = op.getMatchingIndexingMap(in);
    if (!usesAny(m, p.red) || m.getNumResults() == 0) continue;
    auto type = cast<RankedTensorType>(in->get().getType());
    int64_t elems = 1;
    for (int64_t s : type.getShape()) elems = saturatingMul(elems, ShapedType::isDynamic(s) ? h.dynamicExtent : s);
    if (elems <= biggest) continue;
    biggest = elems;
    auto last = dyn_cast<AffineDimExpr>(m.getResults().back());
    p.kInner = !last || !llvm::is_contained(p.par, last.getPosition());
  }
  return p;
}

// Splits `op` as planned; returns the combining op (stage 2).
linalg::GenericOp split(RewriterBase &rw, linalg::GenericOp op, const Plan &p) {
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  rw.setInsertionPoint(op);
  unsigned numOld = op.getNumLoops();
  unsigned numPar = p.par.size();

  // Stage 1's loops: the parallel dims in order and k, innermost or outermost.
  unsigned kPos = p.kInner ? numPar : 0;
  SmallVector<AffineExpr> oldToNew(numOld, getAffineConstantExpr(0, ctx));
  for (unsigned i = 0; i < numPar; ++i) oldToNew[p.par[i]] = getAffineDimExpr(p.kInner ? i : i + 1, ctx);
  auto remap = [&](AffineMap m, unsigned numNew) { return m.replaceDimsAndSymbols(oldToNew, {}, numNew, 0); };
  auto withK = [&](AffineMap m, unsigned kDim) {
    SmallVector<AffineExpr> r(m.getResults());
    r.insert(p.kInner ? r.end() : r.begin(), getAffineDimExpr(kDim, ctx));
    return AffineMap::get(m.getNumDims(), 0, r, ctx);
  };

  // The reduction extents and their product R, on the host.
  SmallVector<Value> extent(numOld);
  Value total;
  for (unsigned d : p.red) {
    Value e;
    if (!ShapedType::isDynamic(p.ranges[d])) {
      e = rw.create<arith::ConstantIndexOp>(loc, p.ranges[d]);
    } else {
      auto [opnd, i] = *operandDim(op, d);
      e = rw.create<tensor::DimOp>(loc, opnd->get(), i);
    }
    extent[d] = e;
    total = total ? rw.create<arith::MulIOp>(loc, total, e).getResult() : e;
  }
  Value step = rw.create<arith::ConstantIndexOp>(loc, p.k);

  // Stage 1: inputs not indexed by a reduction dim stay operands; the others
  // are read in the body. Outputs: the partials, [outputs..., K] or [K, outputs...].
  SmallVector<Value> ins;
  SmallVector<AffineMap> maps;
  SmallVector<OpOperand *> readInBody;
  for (OpOperand *in : op.getDpsInputOperands()) {
    AffineMap m = op.getMatchingIndexingMap(in);
    if (usesAny(m, p.red)) {
      readInBody.push_back(in);
      continue;
    }
    ins.push_back(in->get());
    maps.push_back(remap(m, numPar + 1));
  }
  SmallVector<Value> partials;
  SmallVector<Type> partialTypes;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    auto type = cast<RankedTensorType>(init.get().getType());
    SmallVector<int64_t> shape(type.getShape());
    shape.insert(p.kInner ? shape.end() : shape.begin(), p.k);
    auto ptype = RankedTensorType::get(shape, type.getElementType());
    partials.push_back(rw.create<tensor::EmptyOp>(loc, shape, type.getElementType()));
    partialTypes.push_back(ptype);
    maps.push_back(withK(remap(op.getMatchingIndexingMap(&init), numPar + 1), kPos));
  }
  SmallVector<utils::IteratorType> parallel(numPar + 1, utils::IteratorType::parallel);

  Block *oldBody = op.getBody();
  auto stage1 = rw.create<linalg::GenericOp>(
      loc, partialTypes, ins, partials, maps, parallel, [&](OpBuilder &b, Location l, ValueRange args) {
        // Loop indices (linalg.index must be directly in the body).
        SmallVector<Value> dimValue(numOld);
        for (unsigned i = 0; i < numPar; ++i)
          dimValue[p.par[i]] = b.create<linalg::IndexOp>(l, p.kInner ? i : i + 1);
        Value k = b.create<linalg::IndexOp>(l, kPos);
        SmallVector<Value> inits;
        for (const Combiner &c : p.combiners) inits.push_back(b.create<arith::ConstantOp>(l, c.neutral));
        IRMapping mapping;
        unsigned a = 0;
        for (OpOperand *in : op.getDpsInputOperands())
          if (!llvm::is_contained(readInBody, in)) mapping.map(op.getMatchingBlockArgument(in), args[a++]);
        auto loop = b.create<scf::ForOp>(
            l, k, total, step, inits, [&](OpBuilder &fb, Location fl, Value r, ValueRange acc) {
              // r, linearised in loop order (the last reduction dim fastest), to indices.
              Value rest = r;
              for (size_t i = p.red.size(); i-- > 0;) {
                unsigned d = p.red[i];
                if (i == 0) {
                  dimValue[d] = rest;
                } else {
                  dimValue[d] = fb.create<arith::RemUIOp>(fl, rest, extent[d]);
                  rest = fb.create<arith::DivUIOp>(fl, rest, extent[d]);
                }
              }
              for (OpOperand *in : readInBody) {
                BlockArgument arg = op.getMatchingBlockArgument(in);
                if (arg.use_empty()) continue;
                AffineMap m = op.getMatchingIndexingMap(in);
                SmallVector<Value> idx;
                for (AffineExpr e : m.getResults()) {
                  if (auto de = dyn_cast<AffineDimExpr>(e)) idx.push_back(dimValue[de.getPosition()]);
                  else if (auto ce = dyn_cast<AffineConstantExpr>(e))
                    idx.push_back(fb.create<arith::ConstantIndexOp>(fl, ce.getValue()));
                  else
                    idx.push_back(fb.create<affine::AffineApplyOp>(fl, AffineMap::get(numOld, 0, e, ctx), dimValue));
                }
                mapping.map(arg, fb.create<tensor::ExtractOp>(fl, in->get(), idx));
              }
              for (unsigned i = 0; i < p.combiners.size(); ++i)
                mapping.map(op.getMatchingBlockArgument(op.getDpsInitOperand(i)), acc[i]);
              for (Operation &o : oldBody->without_terminator()) {
                if (auto index = dyn_cast<linalg::IndexOp>(o)) {
                  mapping.map(index.getResult(), dimValue[index.getDim()]);
                  continue;
                }
                fb.clone(o, mapping);
              }
              SmallVector<Value> next;
              for (Value v : oldBody->getTerminator()->getOperands()) next.push_back(mapping.lookupOrDefault(v));
              fb.create<scf::YieldOp>(fl, next);
            });
        b.create<linalg::YieldOp>(l, loop.getResults());
      });

  // Stage 2: the parallel dims and k (a reduction), the partials into the
  // original inits with the original combiners.
  unsigned numNew2 = numPar + 1;
  for (unsigned i = 0; i < numPar; ++i) oldToNew[p.par[i]] = getAffineDimExpr(i, ctx);
  SmallVector<AffineMap> maps2;
  SmallVector<Value> inits;
  for (OpOperand &init : op.getDpsInitsMutable())
    maps2.push_back(withK(remap(op.getMatchingIndexingMap(&init), numNew2), numPar));
  for (OpOperand &init : op.getDpsInitsMutable()) {
    maps2.push_back(remap(op.getMatchingIndexingMap(&init), numNew2));
    inits.push_back(init.get());
  }
  SmallVector<utils::IteratorType> iters2(numPar, utils::IteratorType::parallel);
  iters2.push_back(utils::IteratorType::reduction);
  unsigned n = p.combiners.size();
  auto stage2 = rw.create<linalg::GenericOp>(
      loc, op.getResultTypes(), stage1.getResults(), inits, maps2, iters2,
      [&](OpBuilder &b, Location l, ValueRange args) {
        SmallVector<Value> results;
        for (unsigned i = 0; i < n; ++i) {
          const Combiner &c = p.combiners[i];
          IRMapping mapping;
          mapping.map(c.op->getOperand(c.outOperand), args[n + i]);
          mapping.map(c.op->getOperand(1 - c.outOperand), args[i]);
          results.push_back(b.clone(*c.op, mapping)->getResult(0));
        }
        b.create<linalg::YieldOp>(l, results);
      });
  rw.replaceOp(op, stage2.getResults());
  return stage2;
}

// The train block's batch per rank (dx.metadata), the usual dynamic extent.
int64_t batchPerRank(ModuleOp module) {
  auto text = module->getAttrOfType<StringAttr>("dx.metadata");
  if (!text) return 0;
  llvm::Expected<llvm::json::Value> v = llvm::json::parse(text.getValue());
  if (!v) {
    llvm::consumeError(v.takeError());
    return 0;
  }
  if (const llvm::json::Object *o = v->getAsObject())
    if (const llvm::json::Object *train = o->getObject("train"))
      if (std::optional<int64_t> b = train->getInteger("batch_per_rank")) return *b;
  return 0;
}

struct SplitReductionsPass : PassWrapper<SplitReductionsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SplitReductionsPass)
  SplitReductionsPass() = default;
  SplitReductionsPass(const SplitReductionsPass &other) : PassWrapper(other) {}

  Option<int64_t> minExtent{*this, "min-extent",
                            llvm::cl::desc("split reductions of at least this many elements per output"),
                            llvm::cl::init(kDefaultMinExtent)};
  Option<int64_t> dynamicExtent{
      *this, "dynamic-extent",
      llvm::cl::desc("the extent assumed for a dynamic dimension (0: the train block's batch per rank, else 64)"),
      llvm::cl::init(0)};
  Option<int64_t> targetThreads{*this, "target-threads",
                                llvm::cl::desc("at most this many stage-1 threads (outputs x partials)"),
                                llvm::cl::init(65536)};

  StringRef getArgument() const override { return "dx-split-reductions"; }
  StringRef getDescription() const override {
    return "Split large reductions with few outputs into partials over K strided chunks and their combination "
           "(CUDA target; linalg on tensors)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<affine::AffineDialect, arith::ArithDialect, linalg::LinalgDialect, scf::SCFDialect,
                    tensor::TensorDialect>();
  }
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Heuristic h;
    h.minExtent = std::max<int64_t>(minExtent, 2);
    h.dynamicExtent = dynamicExtent > 0 ? int64_t(dynamicExtent) : batchPerRank(module);
    if (h.dynamicExtent <= 0) h.dynamicExtent = 64;
    h.targetThreads = targetThreads;
    std::deque<linalg::GenericOp> work;
    module.walk([&](linalg::GenericOp op) { work.push_back(op); });
    IRRewriter rw(&getContext());
    while (!work.empty()) {
      linalg::GenericOp op = work.front();
      work.pop_front();
      if (std::optional<Plan> p = makePlan(op, h)) work.push_back(split(rw, op, *p));
    }
  }
};

} // namespace

std::unique_ptr<mlir::Pass> createSplitReductionsPass() { return std::make_unique<SplitReductionsPass>(); }
void registerSplitReductionsPass() { mlir::PassRegistration<SplitReductionsPass>(); }

} // namespace dx
