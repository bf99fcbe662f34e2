#include "lowering/FusePoolInput.h"

#include "lowering/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace dx {
namespace {

namespace linalg = mlir::linalg;
using mlir::Value;

// The channel-blocked pooling kernels and the operand that is the pooling's
// input x (LowerDx.cpp's callPool: inputs, then the result, then scalars).
struct PoolKernel {
  llvm::StringRef name;
  unsigned x;
};
constexpr PoolKernel kPoolKernels[] = {{"dxrt_pool_forward_blocked", 0}, {"dxrt_pool_grad_blocked", 1}};

// In a blocked activation's iteration space (n, cb, h, w, c) the dims of a
// channel: its block and its lane.
constexpr unsigned kBlockDim = 1, kLaneDim = 4, kRank = 5;

// Whether `map` reads a per-channel tensor: only the channel's dims.
bool readsChannels(mlir::AffineMap map) {
  if (!map.isProjectedPermutation()) return false;
  for (unsigned r = 0; r < map.getNumResults(); ++r)
    if (const unsigned d = map.getDimPosition(r); d != kBlockDim && d != kLaneDim) return false;
  return true;
}

// A per-channel map before a pooling (FusePoolInput.h).
struct PreOp {
  linalg::GenericOp producer;
  unsigned x;         // the operand number of the full-size input
  Value scale, shift; // values in (or around) the body; null: 1, -0
  bool relu = false;
};

// Whether `v`, seen from inside g's body, is the same for every element of
// a channel: a per-channel input, a constant or value from outside the
// body, or pure ops on those.
bool perChannel(linalg::GenericOp g, Value v, unsigned x) {
  if (auto arg = mlir::dyn_cast<mlir::BlockArgument>(v)) {
    if (arg.getOwner() != g.getBody()) return true;
    const unsigned i = arg.getArgNumber();
    return i != x && i < g.getNumDpsInputs() && readsChannels(g.getIndexingMapsArray()[i]);
  }
  mlir::Operation *op = v.getDefiningOp();
  if (op->getBlock() != g.getBody()) return !g->isAncestor(op);
  if (op->getNumRegions() != 0 || !mlir::isPure(op) || mlir::isa<linalg::IndexOp>(op)) return false;
  return llvm::all_of(op->getOperands(), [&](Value o) { return perChannel(g, o, x); });
}

// g as a per-channel map of one full-size input (see the header), or none.
std::optional<PreOp> matchPreOp(linalg::GenericOp g) {
  if (g.getNumResults() != 1 || g.getNumDpsInits() != 1 || g.getNumLoops() != kRank || g.getNumReductionLoops() != 0 ||
      g.hasIndexSemantics() || !g.getMatchingIndexingMap(g.getDpsInitOperand(0)).isIdentity() ||
      g.payloadUsesValueFromOperand(g.getDpsInitOperand(0)))
    return std::nullopt;
  auto type = mlir::cast<mlir::RankedTensorType>(g->getResult(0).getType());
  if (!type.getElementType().isF32() || type.isDynamicDim(kBlockDim) || type.isDynamicDim(kLaneDim))
    return std::nullopt;
  PreOp pre{g, 0, {}, {}, false};
  int full = 0;
  for (mlir::OpOperand *in : g.getDpsInputOperands()) {
    mlir::AffineMap m = g.getMatchingIndexingMap(in);
    if (m.isIdentity() && in->get().getType() == type)
      pre.x = in->getOperandNumber(), ++full;
    else if (!readsChannels(m))
      return std::nullopt;
  }
  if (full != 1) return std::nullopt;
  Value xArg = g.getBody()->getArgument(pre.x);
  Value v = g.getBody()->getTerminator()->getOperand(0);
  // relu: maximumf(v, +0), either order.
  if (auto max = v.getDefiningOp<mlir::arith::MaximumFOp>()) {
    for (int side = 0; side < 2 && !pre.relu; ++side)
      if (mlir::matchPattern(max->getOperand(1 - side), mlir::m_PosZeroFloat())) {
        v = max->getOperand(side);
        pre.relu = true;
      }
  }
  auto isX = [&](Value a) { return a == xArg; };
  // A contract flag would let LLVM fuse the map's product and sum into one
  // rounding, which the kernels do not.
  auto contracts = [](mlir::Operation *op) {
    auto fm = mlir::dyn_cast<mlir::arith::ArithFastMathInterface>(op);
    return fm && mlir::arith::bitEnumContainsAny(fm.getFastMathFlagsAttr().getValue(),
                                                 mlir::arith::FastMathFlags::contract);
  };
  // x * s (either order): s, or null where `a` is not that.
  auto scaleOf = [&](Value a) -> std::optional<Value> {
    if (isX(a)) return Value();
    auto mul = a.getDefiningOp<mlir::arith::MulFOp>();
    if (!mul || mul->getBlock() != g.getBody() || contracts(mul)) return std::nullopt;
    for (int side = 0; side < 2; ++side)
      if (isX(mul->getOperand(side)) && perChannel(g, mul->getOperand(1 - side), pre.x))
        return mul->getOperand(1 - side);
    return std::nullopt;
  };
  if (auto add = v.getDefiningOp<mlir::arith::AddFOp>(); add && add->getBlock() == g.getBody()) {
    if (contracts(add)) return std::nullopt;
    for (int side = 0; side < 2; ++side) {
      std::optional<Value> s = scaleOf(add->getOperand(side));
      if (s && perChannel(g, add->getOperand(1 - side), pre.x)) {
        pre.scale = *s;
        pre.shift = add->getOperand(1 - side);
        return pre;
      }
    }
    return std::nullopt;
  }
  std::optional<Value> s = scaleOf(v);
  if (!s || (!*s && !pre.relu)) return std::nullopt; // the identity is no map
  pre.scale = *s;
  return pre;
}

// A pooling call reading g's result as its input x.
struct PoolUse {
  mlir::func::CallOp call;
  unsigned x;
};

// The generic over the channels [C/B, B] that yields the map's scale and
// shift: the body ops they depend on, cloned, on the per-channel inputs.
linalg::GenericOp buildScaleShift(mlir::OpBuilder &b, const PreOp &pre) {
  linalg::GenericOp g = pre.producer;
  mlir::Location loc = g.getLoc();
  auto type = mlir::cast<mlir::RankedTensorType>(g->getResult(0).getType());
  auto channelType =
      mlir::RankedTensorType::get({type.getDimSize(kBlockDim), type.getDimSize(kLaneDim)}, type.getElementType());
  // The body ops scale and shift need, in body order.
  llvm::SmallPtrSet<mlir::Operation *, 16> needed;
  llvm::SmallVector<Value> work;
  for (Value v : {pre.scale, pre.shift})
    if (v) work.push_back(v);
  while (!work.empty()) {
    mlir::Operation *op = work.pop_back_val().getDefiningOp();
    if (!op || op->getBlock() != g.getBody() || !needed.insert(op).second) continue;
    work.append(op->operand_begin(), op->operand_end());
  }
  llvm::SmallVector<Value> inputs;
  llvm::SmallVector<mlir::AffineMap> maps;
  llvm::SmallVector<unsigned> inputArgs;
  mlir::MLIRContext *ctx = b.getContext();
  for (mlir::OpOperand *in : g.getDpsInputOperands()) {
    if (in->getOperandNumber() == pre.x) continue;
    mlir::AffineMap m = g.getMatchingIndexingMap(in);
    llvm::SmallVector<mlir::AffineExpr> results;
    for (unsigned r = 0; r < m.getNumResults(); ++r)
      results.push_back(mlir::getAffineDimExpr(m.getDimPosition(r) == kBlockDim ? 0 : 1, ctx));
    inputs.push_back(in->get());
    maps.push_back(mlir::AffineMap::get(2, 0, results, ctx));
    inputArgs.push_back(in->getOperandNumber());
  }
  Value empty = b.create<mlir::tensor::EmptyOp>(loc, channelType.getShape(), channelType.getElementType());
  maps.append(2, b.getMultiDimIdentityMap(2));
  llvm::SmallVector<mlir::utils::IteratorType> iterators(2, mlir::utils::IteratorType::parallel);
  return b.create<linalg::GenericOp>(
      loc, mlir::TypeRange{channelType, channelType}, inputs, mlir::ValueRange{empty, empty}, maps, iterators,
      [&](mlir::OpBuilder &nb, mlir::Location l, mlir::ValueRange args) {
        mlir::IRMapping mapping;
        for (auto [k, i] : llvm::enumerate(inputArgs)) mapping.map(g.getBody()->getArgument(i), args[k]);
        for (mlir::Operation &op : g.getBody()->without_terminator())
          if (needed.contains(&op)) nb.clone(op, mapping);
        auto constant = [&](float f) { return nb.create<mlir::arith::ConstantOp>(l, nb.getF32FloatAttr(f)); };
        Value scale = pre.scale ? mapping.lookupOrDefault(pre.scale) : constant(1.0f);
        Value shift = pre.shift ? mapping.lookupOrDefault(pre.shift) : constant(-0.0f);
        nb.create<linalg::YieldOp>(l, mlir::ValueRange{scale, shift});
      });
}

// The call on x, scale and shift instead: the _pre twin, with the relu flag
// after the scalars.
void callOnInput(mlir::OpBuilder &b, const PreOp &pre, linalg::GenericOp scaleShift, const PoolUse &use) {
  mlir::func::CallOp call = use.call;
  mlir::Location loc = call.getLoc();
  b.setInsertionPoint(call);
  llvm::SmallVector<Value> args(call.getOperands());
  auto cast = args[use.x].getDefiningOp<mlir::memref::CastOp>();
  auto toMemref = cast.getSource().getDefiningOp<mlir::bufferization::ToMemrefOp>();
  args[use.x] = lower::kernelInput(b, loc, pre.producer->getOperand(pre.x));
  args.insert(args.begin() + use.x + 1, {lower::kernelInput(b, loc, scaleShift->getResult(0)),
                                         lower::kernelInput(b, loc, scaleShift->getResult(1))});
  args.push_back(lower::i64(b, loc, pre.relu ? 1 : 0));
  auto module = call->getParentOfType<mlir::ModuleOp>();
  b.create<mlir::func::CallOp>(loc, lower::kernelDeclaration(module, loc, (call.getCallee() + "_pre").str(), args),
                               args);
  call->erase();
  cast->erase();
  toMemref->erase();
}

struct FusePoolInputPass : mlir::PassWrapper<FusePoolInputPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FusePoolInputPass)
  llvm::StringRef getArgument() const override { return "dx-fuse-pool-input"; }
  llvm::StringRef getDescription() const override {
    return "Apply a per-channel affine map and relu that only poolings read inside the pooling kernels";
  }
  void getDependentDialects(mlir::DialectRegistry &registry) const override {
    registry.insert<mlir::arith::ArithDialect, mlir::bufferization::BufferizationDialect, mlir::func::FuncDialect,
                    mlir::linalg::LinalgDialect, mlir::memref::MemRefDialect, mlir::tensor::TensorDialect>();
  }

  void runOnOperation() override {
    // Every pooling call that reads a generic's result as its x, by generic.
    llvm::MapVector<mlir::Operation *, llvm::SmallVector<PoolUse>> uses;
    getOperation().walk([&](mlir::func::CallOp call) {
      for (const PoolKernel &k : kPoolKernels) {
        if (call.getCallee() != k.name || call.getNumOperands() <= k.x) continue;
        auto cast = call.getOperand(k.x).getDefiningOp<mlir::memref::CastOp>();
        auto toMemref = cast ? cast.getSource().getDefiningOp<mlir::bufferization::ToMemrefOp>() : nullptr;
        auto g = toMemref ? toMemref.getTensor().getDefiningOp<linalg::GenericOp>() : nullptr;
        if (g && cast->hasOneUse() && toMemref->hasOneUse()) uses[g].push_back({call, k.x});
      }
    });
    mlir::OpBuilder b(&getContext());
    for (auto &[op, calls] : uses) {
      auto g = mlir::cast<linalg::GenericOp>(op);
      // Only poolings read the map's result: otherwise it is written anyway.
      if (!llvm::hasSingleElement(g->getResults()) ||
          size_t(std::distance(g->getResult(0).use_begin(), g->getResult(0).use_end())) != calls.size())
        continue;
      std::optional<PreOp> pre = matchPreOp(g);
      if (!pre) continue;
      b.setInsertionPointAfter(g);
      linalg::GenericOp scaleShift = buildScaleShift(b, *pre);
      for (const PoolUse &use : calls) callOnInput(b, *pre, scaleShift, use);
      g->erase();
    }
  }
};

} // namespace

std::unique_ptr<mlir::Pass> createFusePoolInputPass() { return std::make_unique<FusePoolInputPass>(); }
void registerFusePoolInputPass() { mlir::PassRegistration<FusePoolInputPass>(); }

} // namespace dx
