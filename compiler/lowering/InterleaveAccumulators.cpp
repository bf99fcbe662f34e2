#include "lowering/InterleaveAccumulators.h"
#include "lowering/VectorizeCpu.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

#include <optional>

namespace dx {
namespace {

namespace arith = mlir::arith;
namespace scf = mlir::scf;
namespace vector = mlir::vector;
using mlir::Value;

// At most this many partial accumulators per accumulator: four hide a
// floating add's latency at two loads per cycle.
constexpr int64_t kMaxPartials = 4;
// Vector registers of data read per add in flight that keep the loads busy:
// a loop that reads this much per iteration is bound by its loads already.
constexpr int64_t kLoadsInFlight = 8;

std::optional<vector::CombiningKind> combiningKind(mlir::Operation *op) {
  if (mlir::isa<arith::AddFOp>(op)) return vector::CombiningKind::ADD;
  if (mlir::isa<arith::MulFOp>(op)) return vector::CombiningKind::MUL;
  if (mlir::isa<arith::MaximumFOp>(op)) return vector::CombiningKind::MAXIMUMF;
  if (mlir::isa<arith::MinimumFOp>(op)) return vector::CombiningKind::MINIMUMF;
  // Not maxnumf/minnumf (which the lowering does not make): their neutral
  // element would be NaN, which -inf/+inf are not when every input is NaN.
  return std::nullopt;
}

// Registers of `vectorBits` that a value of type `t` takes (0: not a vector).
int64_t registers(mlir::Type t, int64_t vectorBits) {
  auto v = mlir::dyn_cast<mlir::VectorType>(t);
  if (!v || v.isScalable() || !v.getElementType().isIntOrFloat()) return 0;
  const int64_t bits = v.getNumElements() * v.getElementType().getIntOrFloatBitWidth();
  return (bits + vectorBits - 1) / vectorBits;
}

// The combining kind of each of `loop`'s iteration arguments, or nullopt
// unless every one is a float vector that one combine in the loop's body
// reads, and whose result only the yield reads, in the argument's place.
std::optional<llvm::SmallVector<vector::CombiningKind>> accumulatorKinds(scf::ForOp loop) {
  auto yield = mlir::cast<scf::YieldOp>(loop.getBody()->getTerminator());
  llvm::SmallVector<vector::CombiningKind> kinds;
  for (auto [i, acc] : llvm::enumerate(loop.getRegionIterArgs())) {
    auto type = mlir::dyn_cast<mlir::VectorType>(acc.getType());
    if (!type || type.isScalable() || !mlir::isa<mlir::FloatType>(type.getElementType()) || !acc.hasOneUse())
      return std::nullopt;
    mlir::Operation *combine = *acc.getUsers().begin();
    auto kind = combiningKind(combine);
    if (!kind || combine->getBlock() != loop.getBody() || !combine->getResult(0).hasOneUse() ||
        yield.getOperand(i) != combine->getResult(0))
      return std::nullopt;
    kinds.push_back(*kind);
  }
  if (kinds.empty()) return std::nullopt;
  return kinds;
}

// How many partials each accumulator of `loop` gets (see the header).
int64_t partialsFor(scf::ForOp loop, int64_t vectorBits) {
  int64_t accumulatorRegs = 0;
  for (Value acc : loop.getRegionIterArgs()) accumulatorRegs += registers(acc.getType(), vectorBits);
  // What the body loads, and the vectors it reads from outside the loop (a
  // channel's mean and scale, hoisted by dx-vectorize-cpu): registers the
  // partials must leave free. Constants are not counted: LLVM reads them
  // from memory operands when registers run out.
  int64_t loadRegs = 0, invariantRegs = 0;
  llvm::DenseSet<Value> invariants;
  loop.getBody()->walk([&](mlir::Operation *op) {
    if (mlir::isa<vector::LoadOp, vector::TransferReadOp, vector::MaskedLoadOp>(op))
      loadRegs += registers(op->getResult(0).getType(), vectorBits);
    for (Value v : op->getOperands())
      if (loop.isDefinedOutsideOfLoop(v) && !v.getDefiningOp<arith::ConstantOp>() && invariants.insert(v).second)
        invariantRegs += registers(v.getType(), vectorBits);
  });
  const int64_t fileRegs = vectorBits >= 512 ? 32 : 16;
  const int64_t k = std::min(kMaxPartials, (kLoadsInFlight + loadRegs - 1) / std::max<int64_t>(loadRegs, 1));
  const int64_t fit = (fileRegs - invariantRegs - loadRegs) / std::max<int64_t>(accumulatorRegs, 1);
  return std::min(k, fit);
}

// Runs `loop`'s body k times per iteration of a new loop before it, each
// copy combining into its own partials; `loop` keeps the remaining
// iterations, starting from the combined partials.
void interleave(mlir::RewriterBase &rw, scf::ForOp loop, llvm::ArrayRef<vector::CombiningKind> kinds, int64_t k,
                int64_t step) {
  const mlir::Location loc = loop.getLoc();
  const unsigned n = loop.getNumRegionIterArgs();
  rw.setInsertionPoint(loop);
  auto index = [&](int64_t v) -> Value { return rw.create<arith::ConstantIndexOp>(loc, v); };
  // The main loop's bound: lb + floor(max(ub - lb, 0) / (k * step)) * (k * step).
  Value lb = loop.getLowerBound(), chunk = index(k * step);
  Value span = rw.create<arith::MaxSIOp>(loc, rw.create<arith::SubIOp>(loc, loop.getUpperBound(), lb), index(0));
  Value mainUb = rw.create<arith::AddIOp>(
      loc, lb, rw.create<arith::MulIOp>(loc, rw.create<arith::DivUIOp>(loc, span, chunk), chunk));

  // Partial j of accumulator i is argument i * k + j: the first starts from
  // the loop's initial value, the others from the neutral element.
  llvm::SmallVector<Value> inits;
  for (auto [init, kind] : llvm::zip(loop.getInitArgs(), kinds)) {
    auto type = mlir::cast<mlir::VectorType>(init.getType());
    auto elem = mlir::cast<mlir::FloatType>(type.getElementType());
    Value neutral = rw.create<arith::ConstantOp>(
        loc, type, mlir::DenseElementsAttr::get(type, *floatNeutralElement(kind, elem.getFloatSemantics())));
    inits.push_back(init);
    for (int64_t j = 1; j < k; ++j) inits.push_back(neutral);
  }
  auto yield = mlir::cast<scf::YieldOp>(loop.getBody()->getTerminator());
  auto main = rw.create<scf::ForOp>(
      loc, lb, mainUb, chunk, inits, [&](mlir::OpBuilder &b, mlir::Location l, Value iv, mlir::ValueRange args) {
        llvm::SmallVector<Value> next(args.size());
        for (int64_t j = 0; j < k; ++j) {
          mlir::IRMapping map;
          Value at = iv;
          if (j > 0) at = b.create<arith::AddIOp>(l, iv, b.create<arith::ConstantIndexOp>(l, j * step));
          map.map(loop.getInductionVar(), at);
          for (unsigned i = 0; i < n; ++i) map.map(loop.getRegionIterArgs()[i], args[i * k + j]);
          for (mlir::Operation &op : loop.getBody()->without_terminator()) b.clone(op, map);
          for (unsigned i = 0; i < n; ++i) next[i * k + j] = map.lookup(yield.getOperand(i));
        }
        b.create<scf::YieldOp>(l, next);
      });

  // The partials combine pairwise (a tree: k - 1 combines, log2 k deep).
  rw.setInsertionPointAfter(main);
  llvm::SmallVector<Value> totals;
  for (unsigned i = 0; i < n; ++i) {
    llvm::SmallVector<Value> parts(main.getResults().slice(i * k, k));
    while (parts.size() > 1) {
      llvm::SmallVector<Value> halved;
      for (size_t p = 0; p + 1 < parts.size(); p += 2)
        halved.push_back(vector::makeArithReduction(rw, loc, kinds[i], parts[p], parts[p + 1]));
      if (parts.size() % 2) halved.push_back(parts.back());
      parts = std::move(halved);
    }
    totals.push_back(parts.front());
  }
  rw.modifyOpInPlace(loop, [&] {
    loop.getLowerBoundMutable().assign(mainUb);
    loop.getInitArgsMutable().assign(totals);
  });
}

struct InterleaveAccumulatorsPass : mlir::PassWrapper<InterleaveAccumulatorsPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(InterleaveAccumulatorsPass)
  InterleaveAccumulatorsPass() = default;
  InterleaveAccumulatorsPass(const InterleaveAccumulatorsPass &other) : PassWrapper(other) {}
  explicit InterleaveAccumulatorsPass(int64_t bits) { vectorBits = bits; }

  llvm::StringRef getArgument() const override { return "dx-interleave-accumulators"; }
  llvm::StringRef getDescription() const override {
    return "Several partial accumulators per vector accumulator of an innermost loop (hides the add's latency)";
  }
  void getDependentDialects(mlir::DialectRegistry &r) const override {
    r.insert<arith::ArithDialect, scf::SCFDialect, vector::VectorDialect>();
  }
  Option<int64_t> vectorBits{*this, "vector-bits", llvm::cl::desc("bits of a vector register (256: AVX2, 512: AVX-512)"),
                             llvm::cl::init(256)};

  void runOnOperation() override {
    struct Candidate {
      scf::ForOp loop;
      llvm::SmallVector<vector::CombiningKind> kinds;
      int64_t partials, step;
    };
    llvm::SmallVector<Candidate> candidates;
    getOperation().walk([&](scf::ForOp loop) {
      if (!loop.getInductionVar().getType().isIndex()) return;
      bool innermost = true;
      loop.getBody()->walk([&](mlir::LoopLikeOpInterface) { innermost = false; });
      llvm::APInt step;
      if (!innermost || !mlir::matchPattern(loop.getStep(), mlir::m_ConstantInt(&step)) || !step.isStrictlyPositive())
        return;
      auto kinds = accumulatorKinds(loop);
      if (!kinds) return;
      const int64_t k = partialsFor(loop, vectorBits);
      if (k >= 2) candidates.push_back({loop, std::move(*kinds), k, step.getSExtValue()});
    });
    mlir::IRRewriter rw(&getContext());
    for (Candidate &c : candidates) interleave(rw, c.loop, c.kinds, c.partials, c.step);
  }
};

} // namespace

std::unique_ptr<mlir::Pass> createInterleaveAccumulatorsPass(int64_t vectorBits) {
  return std::make_unique<InterleaveAccumulatorsPass>(vectorBits);
}
void registerInterleaveAccumulatorsPass() { mlir::PassRegistration<InterleaveAccumulatorsPass>(); }

} // namespace dx
