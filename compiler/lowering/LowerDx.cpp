// dx-to-linalg: lowers every dx op to linalg/tensor/arith/math on tensors,
// and the heavy ones (GEMM, convolution, pooling, random numbers) to calls
// into libdxrt. Elementwise chains become linalg.generic ops that the
// elementwise-fusion pass then merges into single loops.
#include "lowering/LowerDx.h"
#include "lowering/GeneratedMaxPool.h"
#include "lowering/LoweringUtils.h"

#include "dialect/DxDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dx {
namespace {

using namespace lower;
using mlir::Location;
using mlir::OpBuilder;
using mlir::Operation;
using mlir::Value;
namespace arith = mlir::arith;
namespace math = mlir::math;

using Lowering = std::function<mlir::LogicalResult(OpBuilder &, Operation *, llvm::SmallVectorImpl<Value> &)>;

// ---- attribute and operand access ----
int64_t intAttr(Operation *op, llvm::StringRef n) { return op->getAttrOfType<mlir::IntegerAttr>(n).getInt(); }
double floatAttr(Operation *op, llvm::StringRef n) { return op->getAttrOfType<mlir::FloatAttr>(n).getValueAsDouble(); }
bool boolAttr(Operation *op, llvm::StringRef n) { return op->getAttrOfType<mlir::BoolAttr>(n).getValue(); }
llvm::StringRef strAttr(Operation *op, llvm::StringRef n) { return op->getAttrOfType<mlir::StringAttr>(n).getValue(); }
llvm::ArrayRef<int64_t> arrAttr(Operation *op, llvm::StringRef n) {
  return op->getAttrOfType<mlir::DenseI64ArrayAttr>(n).asArrayRef();
}
unsigned numInputs(Operation *op) {
  auto seg = op->getAttrOfType<mlir::DenseI32ArrayAttr>("operandSegmentSizes");
  return seg ? seg[0] : op->getNumOperands();
}
Value param(Operation *op, unsigned i) { return op->getOperand(numInputs(op) + i); }
unsigned numParams(Operation *op) { return op->getNumOperands() - numInputs(op); }
mlir::RankedTensorType rtype(Operation *op, unsigned i = 0) { return ttype(op->getResult(i)); }

bool trainingMode(Operation *op) {
  auto fn = op->getParentOfType<mlir::func::FuncOp>();
  auto mode = fn->getAttrOfType<mlir::StringAttr>("dx.mode");
  return mode && mode.getValue() == "train";
}

// ---- scalar arithmetic inside linalg bodies ----
struct S {
  OpBuilder &b;
  Location l;
  Value c(double v) { return f32(b, l, v); }
  Value add(Value x, Value y) { return b.create<arith::AddFOp>(l, x, y); }
  Value sub(Value x, Value y) { return b.create<arith::SubFOp>(l, x, y); }
  Value mul(Value x, Value y) { return b.create<arith::MulFOp>(l, x, y); }
  Value div(Value x, Value y) { return b.create<arith::DivFOp>(l, x, y); }
  Value neg(Value x) { return b.create<arith::NegFOp>(l, x); }
  Value max(Value x, Value y) { return b.create<arith::MaximumFOp>(l, x, y); }
  Value exp(Value x) { return b.create<math::ExpOp>(l, x); }
  Value log(Value x) { return b.create<math::LogOp>(l, x); }
  Value log1p(Value x) { return b.create<math::Log1pOp>(l, x); }
  Value abs(Value x) { return b.create<math::AbsFOp>(l, x); }
  Value tanh(Value x) { return b.create<math::TanhOp>(l, x); }
  Value erf(Value x) { return b.create<math::ErfOp>(l, x); }
  // 1/sqrt: math.rsqrt has no LLVM lowering.
  Value rsqrt(Value x) { return div(c(1), b.create<math::SqrtOp>(l, x)); }
  Value gt0(Value x) { return b.create<arith::CmpFOp>(l, arith::CmpFPredicate::OGT, x, c(0)); }
  Value lt(Value x, Value y) { return b.create<arith::CmpFOp>(l, arith::CmpFPredicate::OLT, x, y); }
  // -1, 0 or 1 (0 at ±0, as torch.sign; NaN stays NaN through the caller's product).
  Value sign(Value x) { return select(gt0(x), c(1), select(lt(x, c(0)), c(-1), c(0))); }
  Value select(Value cond, Value x, Value y) { return b.create<arith::SelectOp>(l, cond, x, y); }
  Value sigmoid(Value x) { return div(c(1), add(c(1), exp(neg(x)))); }
};

Value ew(OpBuilder &b, Location loc, mlir::RankedTensorType t, mlir::ValueRange ins,
         const std::function<Value(S &, mlir::ValueRange)> &f, llvm::ArrayRef<mlir::AffineMap> maps = {}) {
  return elementwise(b, loc, t, ins, [&](OpBuilder &nb, Location nl, mlir::ValueRange a) {
    S s{nb, nl};
    return f(s, a);
  }, maps);
}

mlir::RankedTensorType withDims(mlir::RankedTensorType t, llvm::ArrayRef<int64_t> shape) {
  return mlir::RankedTensorType::get(shape, t.getElementType());
}
// t with size-1 dims at `axes` (keepdim reduction result).
mlir::RankedTensorType keepShape(mlir::RankedTensorType t, llvm::ArrayRef<int64_t> axes) {
  llvm::SmallVector<int64_t> s(t.getShape());
  for (int64_t a : axes) s[a] = 1;
  return withDims(t, s);
}
// t without `axes`.
mlir::RankedTensorType dropShape(mlir::RankedTensorType t, llvm::ArrayRef<int64_t> axes) {
  llvm::SmallVector<int64_t> s;
  for (int64_t k = 0; k < t.getRank(); ++k)
    if (!llvm::is_contained(axes, k)) s.push_back(t.getDimSize(k));
  return withDims(t, s);
}
mlir::RankedTensorType scalarType(OpBuilder &b) { return mlir::RankedTensorType::get({}, b.getF32Type()); }
llvm::SmallVector<int64_t> allDimsBut(int64_t rank, llvm::ArrayRef<int64_t> keep) {
  llvm::SmallVector<int64_t> out;
  for (int64_t k = 0; k < rank; ++k)
    if (!llvm::is_contained(keep, k)) out.push_back(k);
  return out;
}
llvm::SmallVector<int64_t> range(int64_t from, int64_t to) {
  llvm::SmallVector<int64_t> out;
  for (int64_t k = from; k < to; ++k) out.push_back(k);
  return out;
}

// Applies a loss reduction to per-element losses `l`: mean, sum or batch_mean.
Value reduceLoss(OpBuilder &b, Location loc, Value l, llvm::StringRef reduction) {
  Value total = reduceSum(b, loc, l, range(0, ttype(l).getRank()), scalarType(b));
  if (reduction == "sum") return total;
  Value n = reduction == "mean" ? countAsF32(b, loc, l, {}) : countAsF32(b, loc, l, {0});
  return ew(b, loc, scalarType(b), {total}, [&](S &s, mlir::ValueRange a) { return s.div(a[0], n); });
}

// The factor d(reduced loss)/d(element): dloss / count (or dloss for sum).
Value lossScale(OpBuilder &b, Location loc, Value like, Value dloss, llvm::StringRef reduction) {
  if (reduction == "sum") return dloss;
  Value n = reduction == "mean" ? countAsF32(b, loc, like, {}) : countAsF32(b, loc, like, {0});
  return ew(b, loc, scalarType(b), {dloss}, [&](S &s, mlir::ValueRange a) { return s.div(a[0], n); });
}

// softmax_cross_entropy's class weights (an optional `weights` attribute,
// one per class along dim 1 of logits type t): the weight of each row's label,
// w[label], shaped like the rows (t without dim 1); null without weights.
Value labelWeights(OpBuilder &b, Location loc, Operation *op, mlir::RankedTensorType t, Value labels) {
  auto w = op->getAttrOfType<mlir::DenseF64ArrayAttr>("weights");
  if (!w) return Value();
  llvm::SmallVector<float> ws(w.asArrayRef().begin(), w.asArrayRef().end());
  auto wType = mlir::RankedTensorType::get({static_cast<int64_t>(ws.size())}, b.getF32Type());
  Value table = b.create<arith::ConstantOp>(loc, mlir::DenseElementsAttr::get(wType, llvm::ArrayRef<float>(ws)));
  mlir::MLIRContext *ctx = b.getContext();
  const int64_t rank = t.getRank();
  auto row = selectMap(ctx, rank, allDimsBut(rank, {1}));
  // w[c] where c == label, 0 elsewhere, summed over c: w[label].
  Value picked = ew(b, loc, t, {labels, table}, [](S &s, mlir::ValueRange a) {
    Value c = s.b.create<arith::IndexCastOp>(s.l, s.b.getI64Type(), s.b.create<mlir::linalg::IndexOp>(s.l, 1));
    Value hit = s.b.create<arith::CmpIOp>(s.l, arith::CmpIPredicate::eq, c, a[0]);
    return s.select(hit, a[1], s.c(0));
  }, {row, selectMap(ctx, rank, {1})});
  return reduceSum(b, loc, picked, {1}, dropShape(t, {1}));
}

// Adds a per-channel bias [C] to an NCHW tensor (or [.., C] for dense).
Value addChannelBias(OpBuilder &b, Location loc, Value y, Value bias, int64_t channelDim) {
  auto t = ttype(y);
  mlir::MLIRContext *ctx = b.getContext();
  return ew(b, loc, t, {y, bias}, [](S &s, mlir::ValueRange a) { return s.add(a[0], a[1]); },
            {mlir::AffineMap::getMultiDimIdentityMap(t.getRank(), ctx), selectMap(ctx, t.getRank(), {channelDim})});
}

// Stride, padding, dilation and groups as i64 operands: (sh, sw, pt, pb, pl,
// pr, dh, dw, groups) for a 2-D convolution, with the depth values first in
// each group for a 3-D one (dxrt/kernels.h).
llvm::SmallVector<Value> convScalars(OpBuilder &b, Location loc, Operation *op) {
  llvm::SmallVector<Value> out;
  for (const char *name : {"stride", "pad", "dilation"})
    for (int64_t v : arrAttr(op, name)) out.push_back(i64(b, loc, v));
  out.push_back(i64(b, loc, intAttr(op, "groups")));
  return out;
}

llvm::SmallVector<Value> poolScalars(OpBuilder &b, Location loc, Operation *op, int64_t kind) {
  llvm::SmallVector<Value> out = {i64(b, loc, kind)};
  for (const char *name : {"kernel", "stride", "pad"})
    for (int64_t v : arrAttr(op, name)) out.push_back(i64(b, loc, v));
  return out;
}

// The library kernel of a 2-D (4-D operand) or 3-D (5-D operand) convolution
// or pooling op: dxrt_conv2d_forward or dxrt_conv3d_forward, dxrt_pool_grad
// or dxrt_pool3d_grad, ...
std::string convKernel(Value operand, llvm::StringRef what) {
  return (ttype(operand).getRank() == 5 ? "dxrt_conv3d_" : "dxrt_conv2d_") + what.str();
}

// The channel block planBlockedLayout chose for an op's activations: the
// value of its attribute `attr` (dx.blocked, dx.blocked_in0, ...), 16 or 8;
// 1 (NCHW) without one.
int64_t blockOf(Operation *op, llvm::StringRef attr = "dx.blocked") {
  auto a = op->getAttrOfType<mlir::IntegerAttr>(attr);
  return a ? a.getInt() : 1;
}

// What dx-to-linalg{channel-block=B} decided for each activation of a
// convolution (planBlockedLayout): the attribute dx.blocked_ROLE = B, ROLE =
// in0, in1 (its first two operands) or out (its result); its channel block,
// 1 for NCHW. -1 marks a weight.
constexpr int kWeight = -1;
int layoutOf(Operation *op, llvm::StringRef role) { return int(blockOf(op, ("dx.blocked_" + role).str())); }

// Calls the 2-D or 3-D convolution kernel `what` (convKernel) on `inputs`
// for `results`; `layout` says for each input, then each result, whether
// it is a weight (kWeight), an NCHW activation (1) or one to keep in blocks
// of 16 or 8 channels (the block). With any of the latter (2-D only), the
// call goes to the kernel's _blocked twin, with those activations packed
// (the others as [N, C, H, W, 1]) and its results unpacked:
// dx-propagate-layouts then moves the packs and unpacks through the
// elementwise code between convolutions until they meet and cancel.
llvm::SmallVector<Value> callConv(OpBuilder &b, Operation *op, llvm::StringRef what, mlir::ValueRange inputs,
                                  llvm::ArrayRef<mlir::RankedTensorType> results, llvm::ArrayRef<int> layout,
                                  mlir::ValueRange sizeSources) {
  Location loc = op->getLoc();
  const std::string kernel = convKernel(inputs[0], what);
  llvm::SmallVector<Value> scalars = convScalars(b, loc, op);
  if (llvm::none_of(layout, [](int l) { return l > 1; }) || ttype(inputs[0]).getRank() != 4)
    return callKernel(b, loc, kernel, inputs, results, scalars, sizeSources);
  llvm::SmallVector<Value> args;
  for (auto [i, v] : llvm::enumerate(inputs)) args.push_back(layout[i] == kWeight ? v : toKernelLayout(b, loc, v, layout[i]));
  llvm::SmallVector<mlir::RankedTensorType> outTypes;
  for (auto [i, t] : llvm::enumerate(results)) {
    const int l = layout[inputs.size() + i];
    outTypes.push_back(l == kWeight ? t : kernelLayoutType(t, l));
  }
  llvm::SmallVector<Value> out = callKernel(b, loc, kernel + "_blocked", args, outTypes, scalars, args);
  for (auto [i, t] : llvm::enumerate(results))
    if (const int l = layout[inputs.size() + i]; l != kWeight) out[i] = fromKernelLayout(b, loc, out[i], t, l);
  return out;
}

std::string poolKernel(Value operand, llvm::StringRef what) {
  return (ttype(operand).getRank() == 5 ? "dxrt_pool3d_" : "dxrt_pool_") + what.str();
}

// Calls the pooling kernel `what` (poolKernel) on `inputs` for `result`. A
// 2-D pooling that planBlockedLayout keeps channel-blocked (dx.blocked: all
// of its activations are) calls the kernel's _blocked twin on packed
// activations and unpacks its result, as callConv does;
// dx-propagate-layouts then cancels the packs against the convolutions'
// unpacks around it.
Value callPool(OpBuilder &b, Operation *op, llvm::StringRef what, mlir::ValueRange inputs,
               mlir::RankedTensorType result, llvm::ArrayRef<Value> scalars) {
  Location loc = op->getLoc();
  const std::string kernel = poolKernel(inputs[0], what);
  const int64_t block = blockOf(op);
  if (block == 1) return callKernel(b, loc, kernel, inputs, result, scalars, {inputs[0]});
  llvm::SmallVector<Value> args;
  for (Value v : inputs) args.push_back(toKernelLayout(b, loc, v, block));
  Value out = callKernel(b, loc, kernel + "_blocked", args, kernelLayoutType(result, block), scalars, {args[0]});
  return fromKernelLayout(b, loc, out, result, block);
}

// The tensors a batch norm's lowering computes on. In NCHW (any rank):
// activations as they are, per-channel tensors [C] read through
// (n, c, ...) -> (c), statistics over every dim but 1. For a 2-D batch norm
// that planBlockedLayout keeps in blocks of B channels (dx.blocked = B):
// activations packed, [N, C/B, H, W, B], per-channel tensors [C/B, B] (an
// expand_shape of [C]) read through (n, cb, h, w, c) -> (cb, c), statistics
// over N, H and W. The innermost dim is then B channels: dx-vectorize-cpu
// sums a vector of B channels over rows of H*W*B contiguous floats, each lane in the
// order n, h, w (in NCHW it keeps partial sums along H*W, so the two
// layouts round the statistics differently).
struct ChannelView {
  OpBuilder &b;
  Location loc;
  int64_t block;             // the channel block, 1 in NCHW
  bool blocked;
  int64_t rank;              // of the computation: 4 or 5 when blocked
  mlir::AffineMap channel;   // an activation's index -> its channel's
  llvm::SmallVector<int64_t> statDims;

  ChannelView(OpBuilder &b, Operation *op, Value x)
      : b(b), loc(op->getLoc()), block(blockOf(op)), blocked(block > 1),
        rank(ttype(x).getRank() + (blocked ? 1 : 0)),
        channel(blocked ? selectMap(b.getContext(), rank, {1, 4}) : selectMap(b.getContext(), rank, {1})),
        statDims(blocked ? llvm::SmallVector<int64_t>{0, 2, 3} : allDimsBut(rank, {1})) {}

  Value activation(Value v) { return blocked ? toKernelLayout(b, loc, v, block) : v; }
  Value activationBack(Value v, mlir::RankedTensorType t) { return blocked ? fromKernelLayout(b, loc, v, t, block) : v; }
  mlir::RankedTensorType perChannelType(mlir::RankedTensorType t) {
    return blocked ? withDims(t, {t.getDimSize(0) / block, block}) : t;
  }
  Value perChannel(Value v) {
    if (!v || !blocked) return v;
    return b.create<mlir::tensor::ExpandShapeOp>(loc, perChannelType(ttype(v)), v,
                                                 llvm::ArrayRef<mlir::ReassociationIndices>{{0, 1}});
  }
  Value perChannelBack(Value v, mlir::RankedTensorType t) {
    if (!blocked) return v;
    return b.create<mlir::tensor::CollapseShapeOp>(loc, t, v, llvm::ArrayRef<mlir::ReassociationIndices>{{0, 1}});
  }
};

// The rng key (seed, step, rank) argument of the enclosing training function.
mlir::FailureOr<llvm::SmallVector<Value>> rngKey(OpBuilder &b, Operation *op) {
  auto fn = op->getParentOfType<mlir::func::FuncOp>();
  for (unsigned i = 0; i < fn.getNumArguments(); ++i)
    if (fn.getArgAttr(i, "dx.rng")) {
      Value key = fn.getArgument(i);
      llvm::SmallVector<Value> out;
      for (int k = 0; k < 3; ++k) {
        Value idx = b.create<arith::ConstantIndexOp>(op->getLoc(), k);
        out.push_back(b.create<mlir::tensor::ExtractOp>(op->getLoc(), key, mlir::ValueRange{idx}));
      }
      return out;
    }
  return op->emitError("random op outside a training function (no dx.rng argument)");
}

// A tensor of the enclosing function whose dim 0 is the dynamic batch dim: a
// shape source for results whose operands do not carry the batch size.
Value batchCarrier(Operation *op) {
  auto fn = op->getParentOfType<mlir::func::FuncOp>();
  auto carries = [](Value v) {
    auto t = mlir::dyn_cast<mlir::RankedTensorType>(v.getType());
    return t && t.getRank() > 0 && t.isDynamicDim(0);
  };
  for (Value a : fn.getArguments())
    if (carries(a)) return a;
  for (Operation &o : fn.getBody().front()) { // values defined before op dominate it
    if (o.isAncestor(op)) break;
    for (Value r : o.getResults())
      if (carries(r)) return r;
  }
  return Value();
}

// Random numbers shaped like `like` from the op's stream.
mlir::FailureOr<Value> randomLike(OpBuilder &b, Operation *op, Value like, const char *kernel) {
  auto key = rngKey(b, op);
  if (mlir::failed(key)) return mlir::failure();
  Location loc = op->getLoc();
  auto t = ttype(like);
  Value n = b.create<arith::ConstantIndexOp>(loc, 1);
  for (int64_t k = 0; k < t.getRank(); ++k)
    n = b.create<arith::MulIOp>(loc, n, b.create<mlir::tensor::DimOp>(loc, like, k));
  auto flatType = mlir::RankedTensorType::get({mlir::ShapedType::kDynamic}, b.getF32Type());
  Value flatShape = b.create<mlir::tensor::EmptyOp>(loc, flatType, mlir::ValueRange{n});
  Value flat = callKernel(b, loc, kernel, {}, flatType,
                          {(*key)[0], (*key)[1], (*key)[2], i64(b, loc, intAttr(op, "stream"))}, {flatShape});
  if (t.getRank() == 0) return b.create<mlir::tensor::CollapseShapeOp>(loc, t, flat, llvm::ArrayRef<mlir::ReassociationIndices>{}).getResult();
  mlir::ReassociationIndices all = range(0, t.getRank());
  return b.create<mlir::tensor::ExpandShapeOp>(loc, t, flat, llvm::ArrayRef<mlir::ReassociationIndices>{all}).getResult();
}

// Mean and biased variance of x over `dims`, as tensors of `statType`.
std::pair<Value, Value> moments(OpBuilder &b, Location loc, Value x, llvm::ArrayRef<int64_t> dims,
                                mlir::RankedTensorType statType, llvm::ArrayRef<mlir::AffineMap> statMaps) {
  Value n = countAsF32(b, loc, x, dims);
  Value sum = reduceSum(b, loc, x, dims, statType);
  Value mean = ew(b, loc, statType, {sum}, [&](S &s, mlir::ValueRange a) { return s.div(a[0], n); });
  Value sq = ew(b, loc, ttype(x), {x, mean}, [](S &s, mlir::ValueRange a) {
    Value d = s.sub(a[0], a[1]);
    return s.mul(d, d);
  }, statMaps);
  Value ssum = reduceSum(b, loc, sq, dims, statType);
  Value var = ew(b, loc, statType, {ssum}, [&](S &s, mlir::ValueRange a) { return s.div(a[0], n); });
  return {mean, var};
}

// The iterators of a generic over a rank-R tensor that reduces `dims`.
llvm::SmallVector<mlir::utils::IteratorType> reductionIterators(unsigned R, llvm::ArrayRef<int64_t> dims) {
  llvm::SmallVector<mlir::utils::IteratorType> iters;
  for (unsigned k = 0; k < R; ++k)
    iters.push_back(llvm::is_contained(dims, int64_t(k)) ? mlir::utils::IteratorType::reduction
                                                         : mlir::utils::IteratorType::parallel);
  return iters;
}

// A batch norm's training statistics over `dims` (0 and the spatial dims) in
// one pass over x: the sums of d = x - k and of d * d, for a shift k per
// channel near its mean, give mean = k + E[d] and var = E[d^2] - E[d]^2
// (at least 0). The shift is the mean of the channel in the batch's first
// sample (a pass over 1/N of x), so |mean - k| is a fraction of the
// channel's spread and the subtraction loses no more than the two-pass
// formula does; moments() reads x twice, and a batch norm's forward pass is
// memory-bound.
std::pair<Value, Value> batchMoments(OpBuilder &b, Location loc, Value x, llvm::ArrayRef<int64_t> dims,
                                     mlir::RankedTensorType statType, mlir::AffineMap statMap) {
  mlir::MLIRContext *ctx = b.getContext();
  auto t = ttype(x);
  unsigned R = t.getRank();
  llvm::SmallVector<int64_t> firstShape(t.getShape());
  firstShape[0] = 1;
  auto firstType = mlir::RankedTensorType::get(firstShape, t.getElementType());
  llvm::SmallVector<mlir::OpFoldResult> offsets(R, b.getIndexAttr(0)), strides(R, b.getIndexAttr(1));
  llvm::SmallVector<mlir::OpFoldResult> sizes = mlir::tensor::getMixedSizes(b, loc, x);
  sizes[0] = b.getIndexAttr(1);
  Value first = b.create<mlir::tensor::ExtractSliceOp>(loc, firstType, x, offsets, sizes, strides);
  Value firstCount = countAsF32(b, loc, first, dims);
  Value shift = ew(b, loc, statType, {reduceSum(b, loc, first, dims, statType)},
                   [&](S &s, mlir::ValueRange a) { return s.div(a[0], firstCount); });

  auto iters = reductionIterators(R, dims);
  auto id = mlir::AffineMap::getMultiDimIdentityMap(R, ctx);
  Value acc0 = filledTensor(b, loc, statType, {x}, 0.0), acc1 = filledTensor(b, loc, statType, {x}, 0.0);
  auto sums = b.create<mlir::linalg::GenericOp>(
      loc, mlir::TypeRange{statType, statType}, mlir::ValueRange{x, shift}, mlir::ValueRange{acc0, acc1},
      llvm::ArrayRef<mlir::AffineMap>{id, statMap, statMap, statMap}, iters,
      [&](OpBuilder &nb, Location l, mlir::ValueRange a) {
        S s{nb, l};
        Value d = s.sub(a[0], a[1]);
        auto reassoc = arith::FastMathFlags::reassoc;
        Value s0 = nb.create<arith::AddFOp>(l, a[2], d, reassoc);
        Value s1 = nb.create<arith::AddFOp>(l, a[3], s.mul(d, d), reassoc);
        nb.create<mlir::linalg::YieldOp>(l, mlir::ValueRange{s0, s1});
      });
  Value n = countAsF32(b, loc, x, dims);
  Value mean = ew(b, loc, statType, {shift, sums.getResult(0)},
                  [&](S &s, mlir::ValueRange a) { return s.add(a[0], s.div(a[1], n)); });
  Value var = ew(b, loc, statType, {sums.getResult(0), sums.getResult(1)}, [&](S &s, mlir::ValueRange a) {
    Value m = s.div(a[0], n);
    return s.max(s.sub(s.div(a[1], n), s.mul(m, m)), s.c(0));
  });
  return {mean, var};
}

// Normalisation forward: y = (x - mean) * rsqrt(var + eps) * gamma + beta,
// stats read through statMap, gamma/beta through paramMap.
//
// When the parameters are per statistic (a batch norm: both per channel)
// or absent (also a layer norm without them: per row), the affine map folds
// into two coefficients per statistic, as PyTorch's CPU batch and layer norms
// do: y = x * scale + shift, scale = gamma * rsqrt(var + eps),
// shift = beta - mean * scale. Per element that is a multiply and an add,
// not four operations on four broadcast operands; the relu mask that a
// following relu's gradient recomputes from y inside the backward passes
// (dx-fuse-cheap-producers) costs as little, and is the forward's mask bit
// for bit: the same two operations on the same values.
Value normalize(OpBuilder &b, Location loc, Value x, Value mean, Value var, Value gamma, Value beta, double eps,
                mlir::AffineMap statMap, mlir::AffineMap paramMap) {
  auto t = ttype(x);
  mlir::MLIRContext *ctx = b.getContext();
  auto id = mlir::AffineMap::getMultiDimIdentityMap(t.getRank(), ctx);
  if (!gamma || paramMap == statMap) {
    auto st = ttype(mean);
    Value scale = gamma ? ew(b, loc, st, {var, gamma}, [&](S &s, mlir::ValueRange a) {
      return s.mul(s.rsqrt(s.add(a[0], s.c(eps))), a[1]);
    }) : ew(b, loc, st, {var}, [&](S &s, mlir::ValueRange a) { return s.rsqrt(s.add(a[0], s.c(eps))); });
    Value shift = gamma ? ew(b, loc, st, {mean, scale, beta}, [](S &s, mlir::ValueRange a) {
      return s.sub(a[2], s.mul(a[0], a[1]));
    }) : ew(b, loc, st, {mean, scale}, [](S &s, mlir::ValueRange a) { return s.neg(s.mul(a[0], a[1])); });
    return ew(b, loc, t, {x, scale, shift}, [](S &s, mlir::ValueRange a) { return s.add(s.mul(a[0], a[1]), a[2]); },
              {id, statMap, statMap});
  }
  llvm::SmallVector<Value> ins = {x, mean, var};
  llvm::SmallVector<mlir::AffineMap> maps = {id, statMap, statMap};
  if (gamma) {
    ins.append({gamma, beta});
    maps.append({paramMap, paramMap});
  }
  return ew(b, loc, t, ins, [&](S &s, mlir::ValueRange a) {
    Value y = s.mul(s.sub(a[0], a[1]), s.rsqrt(s.add(a[2], s.c(eps))));
    if (a.size() > 3) y = s.add(s.mul(y, a[3]), a[4]);
    return y;
  }, maps);
}

// sum(dy) and sum(dy * (x - mean)) over `dims`, in one linalg.generic with
// two outputs: one pass over dy and x. (The second times rsqrt(var + eps) is
// sum(dy * xhat): multiplied once per statistic, not per element.)
std::pair<Value, Value> sumsOfDyAndDyXc(OpBuilder &b, Location loc, Value dy, Value x, Value mean,
                                        llvm::ArrayRef<int64_t> dims, mlir::RankedTensorType statType,
                                        mlir::AffineMap statMap) {
  mlir::MLIRContext *ctx = b.getContext();
  unsigned R = ttype(x).getRank();
  auto iters = reductionIterators(R, dims);
  auto id = mlir::AffineMap::getMultiDimIdentityMap(R, ctx);
  Value acc0 = filledTensor(b, loc, statType, {x}, 0.0), acc1 = filledTensor(b, loc, statType, {x}, 0.0);
  auto generic = b.create<mlir::linalg::GenericOp>(
      loc, mlir::TypeRange{statType, statType}, mlir::ValueRange{dy, x, mean}, mlir::ValueRange{acc0, acc1},
      llvm::ArrayRef<mlir::AffineMap>{id, id, statMap, statMap, statMap}, iters,
      [&](OpBuilder &nb, Location l, mlir::ValueRange a) {
        S s{nb, l};
        auto reassoc = arith::FastMathFlags::reassoc;
        Value s0 = nb.create<arith::AddFOp>(l, a[3], a[0], reassoc);
        Value s1 = nb.create<arith::AddFOp>(l, a[4], s.mul(a[0], s.sub(a[1], a[2])), reassoc);
        nb.create<mlir::linalg::YieldOp>(l, mlir::ValueRange{s0, s1});
      });
  return {generic.getResult(0), generic.getResult(1)};
}

// A batch norm's gradient (statistics and parameters per channel) in two
// passes over dy and x. With g = dy * gamma and istd = rsqrt(var + eps),
//   dx = (g - sum(g)/m - xhat * sum(g * xhat)/m) * istd
//      = dy * k1 + (x - mean) * k2 + k3,
//   k1 = gamma * istd, k2 = -istd^2 * sum(g * xhat)/m, k3 = -istd * sum(g)/m,
// per channel (PyTorch's CPU kernel keeps x - mean the same way: no
// cancellation between x * k2 and mean * k2 when |mean| >> std). Five
// operations per element and six broadcast operands, not eight on six.
std::tuple<Value, Value, Value> batchNormGrad(OpBuilder &b, Location loc, Value dy, Value x, Value gamma, Value mean,
                                              Value var, double eps, llvm::ArrayRef<int64_t> dims,
                                              mlir::RankedTensorType statType, mlir::AffineMap statMap) {
  auto t = ttype(x);
  auto id = mlir::AffineMap::getMultiDimIdentityMap(t.getRank(), b.getContext());
  Value m = countAsF32(b, loc, x, dims);
  auto [sdy, sdyxc] = sumsOfDyAndDyXc(b, loc, dy, x, mean, dims, statType, statMap);
  Value istd = ew(b, loc, statType, {var}, [&](S &s, mlir::ValueRange a) { return s.rsqrt(s.add(a[0], s.c(eps))); });
  // dbeta = sum(dy), dgamma = sum(dy * xhat); sum(g) = gamma * dbeta, sum(g * xhat) = gamma * dgamma.
  Value dbeta = sdy;
  Value dgamma = ew(b, loc, statType, {sdyxc, istd}, [](S &s, mlir::ValueRange a) { return s.mul(a[0], a[1]); });
  llvm::SmallVector<Value> k = {istd, dgamma, dbeta};
  if (gamma) k.push_back(gamma);
  Value k1 = gamma ? ew(b, loc, statType, {istd, gamma}, [](S &s, mlir::ValueRange a) { return s.mul(a[0], a[1]); })
                   : istd;
  Value k2 = ew(b, loc, statType, k, [&](S &s, mlir::ValueRange a) {
    Value sumGX = a.size() > 3 ? s.mul(a[1], a[3]) : a[1];
    return s.neg(s.mul(s.mul(a[0], a[0]), s.div(sumGX, m)));
  });
  Value k3 = ew(b, loc, statType, k, [&](S &s, mlir::ValueRange a) {
    Value sumG = a.size() > 3 ? s.mul(a[2], a[3]) : a[2];
    return s.neg(s.mul(a[0], s.div(sumG, m)));
  });
  Value dx = ew(b, loc, t, {dy, x, mean, k1, k2, k3}, [](S &s, mlir::ValueRange a) {
    return s.add(s.add(s.mul(a[0], a[3]), s.mul(s.sub(a[1], a[2]), a[4])), a[5]);
  }, {id, id, statMap, statMap, statMap, statMap});
  return {dx, dgamma, dbeta};
}

// Gradient of a normalisation over `dims` (statistics recomputed from x).
std::tuple<Value, Value, Value> normGrad(OpBuilder &b, Location loc, Value dy, Value x, Value gamma, double eps,
                                         llvm::ArrayRef<int64_t> statDims, mlir::RankedTensorType statType,
                                         mlir::AffineMap statMap, llvm::ArrayRef<int64_t> paramDims,
                                         mlir::RankedTensorType paramType, mlir::AffineMap paramMap,
                                         bool batchStatistics) {
  auto t = ttype(x);
  mlir::MLIRContext *ctx = b.getContext();
  auto id = mlir::AffineMap::getMultiDimIdentityMap(t.getRank(), ctx);
  // The forward pass's statistics, computed the same way, so that CSE makes
  // them one computation.
  auto [mean, var] = batchStatistics ? batchMoments(b, loc, x, statDims, statType, statMap)
                                     : moments(b, loc, x, statDims, statType, {id, statMap});
  if (llvm::equal(paramDims, statDims))
    return batchNormGrad(b, loc, dy, x, gamma, mean, var, eps, statDims, statType, statMap);
  Value m = countAsF32(b, loc, x, statDims);
  Value xhat = ew(b, loc, t, {x, mean, var}, [&](S &s, mlir::ValueRange a) {
    return s.mul(s.sub(a[0], a[1]), s.rsqrt(s.add(a[2], s.c(eps))));
  }, {id, statMap, statMap});
  Value g = gamma ? ew(b, loc, t, {dy, gamma}, [](S &s, mlir::ValueRange a) { return s.mul(a[0], a[1]); }, {id, paramMap})
                  : dy;
  Value gx = ew(b, loc, t, {g, xhat}, [](S &s, mlir::ValueRange a) { return s.mul(a[0], a[1]); });
  Value sumG = reduceSum(b, loc, g, statDims, statType);
  Value sumGX = reduceSum(b, loc, gx, statDims, statType);
  // sum(g * xhat) / m is divided once per statistic, not per element: the
  // per-element product then needs no division in the loop (it was a vector
  // divide per register in a batch norm's dx pass, perf annotate).
  Value dx = ew(b, loc, t, {g, xhat, var, sumG, sumGX}, [&](S &s, mlir::ValueRange a) {
    Value inner = s.sub(s.sub(a[0], s.div(a[3], m)), s.mul(a[1], s.div(a[4], m)));
    return s.mul(inner, s.rsqrt(s.add(a[2], s.c(eps))));
  }, {id, id, statMap, statMap, statMap});
  Value dyx = ew(b, loc, t, {dy, xhat}, [](S &s, mlir::ValueRange a) { return s.mul(a[0], a[1]); });
  Value dgamma = reduceSum(b, loc, dyx, paramDims, paramType);
  Value dbeta = reduceSum(b, loc, dy, paramDims, paramType);
  return {dx, dgamma, dbeta};
}

// The dx ops that lower to one elementwise linalg.generic of their operands
// (filled with the table below).
llvm::StringSet<> &elementwiseOps() {
  static llvm::StringSet<> names;
  return names;
}

const llvm::StringMap<Lowering> &lowerings() {
  static const llvm::StringMap<Lowering> table = [] {
    llvm::StringMap<Lowering> r;
    auto unary = [&r](const char *name, std::function<Value(S &, Value, Operation *)> f) {
      elementwiseOps().insert(name);
      r[name] = [f](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) {
        out.push_back(ew(b, op->getLoc(), rtype(op), {op->getOperand(0)},
                         [&](S &s, mlir::ValueRange a) { return f(s, a[0], op); }));
        return mlir::success();
      };
    };
    auto binary = [&r](const char *name, std::function<Value(S &, Value, Value)> f) {
      elementwiseOps().insert(name);
      r[name] = [f](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) {
        out.push_back(ew(b, op->getLoc(), rtype(op), {op->getOperand(0), op->getOperand(1)},
                         [&](S &s, mlir::ValueRange a) { return f(s, a[0], a[1]); }));
        return mlir::success();
      };
    };

    // ---- elementwise ----
    r["dx.constant"] = [](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) {
      auto t = rtype(op);
      out.push_back(b.create<arith::ConstantOp>(
          op->getLoc(), mlir::DenseElementsAttr::get(t, b.getFloatAttr(t.getElementType(), floatAttr(op, "value")))));
      return mlir::success();
    };
    binary("dx.add", [](S &s, Value x, Value y) { return s.add(x, y); });
    binary("dx.sub", [](S &s, Value x, Value y) { return s.sub(x, y); });
    binary("dx.mul", [](S &s, Value x, Value y) { return s.mul(x, y); });
    binary("dx.div", [](S &s, Value x, Value y) { return s.div(x, y); });
    unary("dx.neg", [](S &s, Value x, Operation *) { return s.neg(x); });
    unary("dx.exp", [](S &s, Value x, Operation *) { return s.exp(x); });
    unary("dx.log", [](S &s, Value x, Operation *) { return s.log(x); });
    unary("dx.log1p", [](S &s, Value x, Operation *) { return s.log1p(x); });
    unary("dx.abs", [](S &s, Value x, Operation *) { return s.abs(x); });
    unary("dx.sign", [](S &s, Value x, Operation *) { return s.sign(x); });
    unary("dx.sqrt", [](S &s, Value x, Operation *) { return s.b.create<math::SqrtOp>(s.l, x).getResult(); });
    unary("dx.square", [](S &s, Value x, Operation *) { return s.mul(x, x); });
    unary("dx.relu", [](S &s, Value x, Operation *) { return s.max(x, s.c(0)); });
    unary("dx.leaky_relu", [](S &s, Value x, Operation *op) {
      return s.select(s.gt0(x), x, s.mul(x, s.c(floatAttr(op, "slope"))));
    });
    unary("dx.elu", [](S &s, Value x, Operation *op) {
      Value em1 = s.b.create<math::ExpM1Op>(s.l, x);
      return s.select(s.gt0(x), x, s.mul(em1, s.c(floatAttr(op, "alpha"))));
    });
    unary("dx.gelu", [](S &s, Value x, Operation *op) {
      if (strAttr(op, "approximate") == "tanh") {
        Value u = s.mul(s.c(0.7978845608028654), s.add(x, s.mul(s.c(0.044715), s.mul(x, s.mul(x, x)))));
        return s.mul(s.mul(s.c(0.5), x), s.add(s.c(1), s.tanh(u)));
      }
      return s.mul(s.mul(s.c(0.5), x), s.add(s.c(1), s.erf(s.mul(x, s.c(M_SQRT1_2)))));
    });
    unary("dx.tanh", [](S &s, Value x, Operation *) { return s.tanh(x); });
    unary("dx.sigmoid", [](S &s, Value x, Operation *) { return s.sigmoid(x); });

    elementwiseOps().insert("dx.unary_grad");
    r["dx.unary_grad"] = [](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) {
      std::string kind = strAttr(op, "kind").str();
      double alpha = floatAttr(op, "alpha");
      out.push_back(ew(b, op->getLoc(), rtype(op), {op->getOperand(0), op->getOperand(1)},
                       [&](S &s, mlir::ValueRange a) -> Value {
        Value dy = a[0], v = a[1];
        if (kind == "relu") return s.select(s.gt0(v), dy, s.c(0));
        if (kind == "leaky_relu") return s.select(s.gt0(v), dy, s.mul(dy, s.c(alpha)));
        if (kind == "elu") return s.select(s.gt0(v), dy, s.mul(dy, s.mul(s.c(alpha), s.exp(v))));
        if (kind == "tanh") return s.mul(dy, s.sub(s.c(1), s.mul(v, v)));
        if (kind == "sigmoid") return s.mul(dy, s.mul(v, s.sub(s.c(1), v)));
        if (kind == "gelu") {
          Value cdf = s.mul(s.c(0.5), s.add(s.c(1), s.erf(s.mul(v, s.c(M_SQRT1_2)))));
          Value pdf = s.mul(s.c(0.3989422804014327), s.exp(s.mul(s.c(-0.5), s.mul(v, v))));
          return s.mul(dy, s.add(cdf, s.mul(v, pdf)));
        }
        // gelu_tanh
        Value k = s.c(0.7978845608028654), c3 = s.c(0.044715);
        Value x2 = s.mul(v, v);
        Value t = s.tanh(s.mul(k, s.add(v, s.mul(c3, s.mul(x2, v)))));
        Value dt = s.mul(s.sub(s.c(1), s.mul(t, t)), s.mul(k, s.add(s.c(1), s.mul(s.c(3), s.mul(c3, x2)))));
        return s.mul(dy, s.add(s.mul(s.c(0.5), s.add(s.c(1), t)), s.mul(s.mul(s.c(0.5), v), dt)));
      }));
      return mlir::success();
    };

    // ---- softmax ----
    for (const char *name : {"dx.softmax", "dx.log_softmax"}) {
      bool log = std::string(name) == "dx.log_softmax";
      r[name] = [log](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) {
        Location loc = op->getLoc();
        Value x = op->getOperand(0);
        auto t = ttype(x);
        int64_t axis = intAttr(op, "axis");
        auto kt = keepShape(t, {axis});
        Value m = reduceMax(b, loc, x, {axis}, kt, true);
        Value e = ew(b, loc, t, {x, m}, [](S &s, mlir::ValueRange a) { return s.exp(s.sub(a[0], a[1])); });
        Value sum = reduceSum(b, loc, e, {axis}, kt, true);
        if (log)
          out.push_back(ew(b, loc, t, {x, m, sum},
                           [](S &s, mlir::ValueRange a) { return s.sub(s.sub(a[0], a[1]), s.log(a[2])); }));
        else
          out.push_back(ew(b, loc, t, {e, sum}, [](S &s, mlir::ValueRange a) { return s.div(a[0], a[1]); }));
        return mlir::success();
      };
    }
    r["dx.softmax_grad"] = [](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) {
      Location loc = op->getLoc();
      Value dy = op->getOperand(0), y = op->getOperand(1);
      auto t = ttype(y);
      int64_t axis = intAttr(op, "axis");
      auto kt = keepShape(t, {axis});
      if (boolAttr(op, "log")) {
        Value s = reduceSum(b, loc, dy, {axis}, kt, true);
        out.push_back(ew(b, loc, t, {dy, y, s},
                         [](S &s, mlir::ValueRange a) { return s.sub(a[0], s.mul(s.exp(a[1]), a[2])); }));
      } else {
        Value p = ew(b, loc, t, {dy, y}, [](S &s, mlir::ValueRange a) { return s.mul(a[0], a[1]); });
        Value sum = reduceSum(b, loc, p, {axis}, kt, true);
        out.push_back(ew(b, loc, t, {dy, y, sum},
                         [](S &s, mlir::ValueRange a) { return s.mul(a[1], s.sub(a[0], a[2])); }));
      }
      return mlir::success();
    };

    // ---- reductions and broadcasting ----
    for (const char *name : {"dx.sum", "dx.mean"}) {
      bool mean = std::string(name) == "dx.mean";
      r[name] = [mean](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) {
        Location loc = op->getLoc();
        Value x = op->getOperand(0);
        llvm::SmallVector<int64_t> axes;
        if (auto a = op->getAttrOfType<mlir::DenseI64ArrayAttr>("axis")) axes.assign(a.asArrayRef().begin(), a.asArrayRef().end());
        else axes = range(0, ttype(x).getRank());
        Value s = reduceSum(b, loc, x, axes, rtype(op), boolAttr(op, "keepdim"));
        if (mean) {
          Value n = countAsF32(b, loc, x, axes);
          s = ew(b, loc, rtype(op), {s}, [&](S &sc, mlir::ValueRange a) { return sc.div(a[0], n); });
        }
        out.push_back(s);
        return mlir::success();
      };
    }
    r["dx.broadcast_to"] = [](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) {
      Location loc = op->getLoc();
      Value x = op->getOperand(0);
      auto t = rtype(op);
      mlir::AffineMap map = broadcastMap(b.getContext(), ttype(x), t);
      llvm::SmallVector<int64_t> axes;
      if (auto a = op->getAttrOfType<mlir::DenseI64ArrayAttr>("axes")) {
        axes.assign(a.asArrayRef().begin(), a.asArrayRef().end());
        map = selectMap(b.getContext(), t.getRank(), allDimsBut(t.getRank(), axes));
      }
      // The batch size may not be in x (the gradient of a sum or mean over the
      // batch dim, e.g. a `mean(...)` loss): take it from the function.
      mlir::MLIRContext *ctx = b.getContext();
      llvm::SmallVector<Value> sources = {x};
      if (Value carrier = batchCarrier(op)) sources.push_back(carrier);
      Value init = emptyTensor(b, loc, t, sources);
      Value y = b.create<mlir::linalg::GenericOp>(
                     loc, mlir::TypeRange{t}, mlir::ValueRange{x}, mlir::ValueRange{init},
                     llvm::ArrayRef<mlir::AffineMap>{map, mlir::AffineMap::getMultiDimIdentityMap(t.getRank(), ctx)},
                     llvm::SmallVector<mlir::utils::IteratorType>(t.getRank(), mlir::utils::IteratorType::parallel),
                     [](OpBuilder &nb, Location nl, mlir::ValueRange a) { nb.create<mlir::linalg::YieldOp>(nl, a[0]); })
                    .getResult(0);
      if (op->hasAttr("mean")) {
        // Each element was spread over the broadcast dims: divide by their size.
        if (axes.empty())
          for (int64_t k = 0; k < t.getRank(); ++k) {
            int64_t j = k - (t.getRank() - ttype(x).getRank());
            if (j < 0 || (ttype(x).getDimSize(j) == 1 && t.getDimSize(k) != 1)) axes.push_back(k);
          }
        if (!axes.empty()) {
          Value cnt = countAsF32(b, loc, y, axes);
          y = ew(b, loc, t, {y}, [&](S &s, mlir::ValueRange a) { return s.div(a[0], cnt); });
        }
      }
      out.push_back(y);
      return mlir::success();
    };
    r["dx.reduce_to"] = [](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) {
      Location loc = op->getLoc();
      Value x = op->getOperand(0);
      auto xt = ttype(x), yt = rtype(op);
      int64_t R = xt.getRank(), r0 = yt.getRank(), lead = R - r0;
      mlir::MLIRContext *ctx = b.getContext();
      llvm::SmallVector<mlir::AffineExpr> outExprs;
      llvm::SmallVector<mlir::utils::IteratorType> iters;
      for (int64_t k = 0; k < R; ++k) {
        bool red = k < lead || (!yt.isDynamicDim(k - lead) && yt.getDimSize(k - lead) == 1 && xt.getDimSize(k) != 1);
        iters.push_back(red ? mlir::utils::IteratorType::reduction : mlir::utils::IteratorType::parallel);
        if (k >= lead) outExprs.push_back(red ? mlir::getAffineConstantExpr(0, ctx) : mlir::getAffineDimExpr(k, ctx));
      }
      Value acc = filledTensor(b, loc, yt, {x}, 0.0);
      auto g = b.create<mlir::linalg::GenericOp>(
          loc, mlir::TypeRange{yt}, mlir::ValueRange{x}, mlir::ValueRange{acc},
          llvm::ArrayRef<mlir::AffineMap>{mlir::AffineMap::getMultiDimIdentityMap(R, ctx), mlir::AffineMap::get(R, 0, outExprs, ctx)},
          iters, [](OpBuilder &nb, Location nl, mlir::ValueRange a) {
            nb.create<mlir::linalg::YieldOp>(nl, nb.create<arith::AddFOp>(nl, a[1], a[0]).getResult());
          });
      out.push_back(g.getResult(0));
      return mlir::success();
    };
    r["dx.zeros"] = [](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) {
      out.push_back(filledTensor(b, op->getLoc(), rtype(op), {op->getOperand(0)}, 0.0));
      return mlir::success();
    };

    // ---- shapes ----
    for (const char *name : {"dx.flatten", "dx.reshape"})
      r[name] = [](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) {
        out.push_back(reshapeTo(b, op->getLoc(), op->getOperand(0), rtype(op)));
        return mlir::success();
      };
    // A concat (or slice) along the channels that planBlockedLayout keeps
    // channel-blocked (dx.blocked = B) works on the packed tensors, [N, C/B, H, W, B],
    // along their channel-block dim: its operands packed, its result
    // unpacked, for dx-propagate-layouts to cancel against the neighbours.
    r["dx.concat"] = [](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) {
      Location loc = op->getLoc();
      int64_t axis = intAttr(op, "axis");
      const int64_t block = blockOf(op);
      const bool blocked = block > 1;
      llvm::SmallVector<Value> ins;
      for (Value in : op->getOperands()) ins.push_back(blocked ? toKernelLayout(b, loc, in, block) : in);
      Value acc = emptyTensor(b, loc, blocked ? kernelLayoutType(rtype(op), block) : rtype(op), ins);
      int64_t offset = 0;
      for (Value in : ins) {
        auto t = ttype(in);
        llvm::SmallVector<mlir::OpFoldResult> offs(t.getRank(), b.getIndexAttr(0)), strides(t.getRank(), b.getIndexAttr(1));
        offs[axis] = b.getIndexAttr(offset);
        acc = b.create<mlir::tensor::InsertSliceOp>(loc, in, acc, offs, mlir::tensor::getMixedSizes(b, loc, in), strides);
        offset += t.getDimSize(axis);
      }
      out.push_back(blocked ? fromKernelLayout(b, loc, acc, rtype(op), block) : acc);
      return mlir::success();
    };
    r["dx.slice"] = [](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) {
      Location loc = op->getLoc();
      const int64_t block = blockOf(op), axis = intAttr(op, "axis");
      const bool blocked = block > 1;
      Value x = blocked ? toKernelLayout(b, loc, op->getOperand(0), block) : op->getOperand(0);
      auto t = blocked ? kernelLayoutType(rtype(op), block) : rtype(op);
      llvm::SmallVector<mlir::OpFoldResult> offs(t.getRank(), b.getIndexAttr(0)), strides(t.getRank(), b.getIndexAttr(1));
      offs[axis] = b.getIndexAttr(intAttr(op, "offset") / block);
      llvm::SmallVector<mlir::OpFoldResult> sizes = mlir::tensor::getMixedSizes(b, loc, x);
      sizes[axis] = b.getIndexAttr(t.getDimSize(axis));
      Value slice = b.create<mlir::tensor::ExtractSliceOp>(loc, t, x, offs, sizes, strides);
      // A copy: the slice is a strided view of x, and the kernels (GEMM, conv)
      // that may consume it take contiguous arrays only.
      Value copy = b.create<mlir::linalg::CopyOp>(loc, slice, emptyTensor(b, loc, t, {slice})).getResult(0);
      out.push_back(blocked ? fromKernelLayout(b, loc, copy, rtype(op), block) : copy);
      return mlir::success();
    };

    // ---- library calls ----
    r["dx.dense"] = [](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) {
      Location loc = op->getLoc();
      Value x2 = collapseTo2D(b, loc, op->getOperand(0));
      Value w = param(op, 0);
      auto y2t = withDims(rtype(op), {ttype(x2).getDimSize(0), ttype(w).getDimSize(0)});
      Value y = callKernel(b, loc, "dxrt_dense_forward", {x2, w}, y2t, {}, {x2});
      y = rtype(op).getRank() == 2 ? y : b.create<mlir::tensor::ExpandShapeOp>(loc, rtype(op), y, llvm::ArrayRef<mlir::ReassociationIndices>{range(0, rtype(op).getRank() - 1), {rtype(op).getRank() - 1}}).getResult();
      if (numParams(op) > 1) y = addChannelBias(b, loc, y, param(op, 1), rtype(op).getRank() - 1);
      out.push_back(y);
      return mlir::success();
    };
    r["dx.dense_grad_input"] = [](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) {
      Location loc = op->getLoc();
      Value dy2 = collapseTo2D(b, loc, op->getOperand(0));
      Value w = op->getOperand(1);
      auto t = withDims(rtype(op), {ttype(dy2).getDimSize(0), ttype(w).getDimSize(1)});
      Value dx = callKernel(b, loc, "dxrt_dense_grad_input", {dy2, w}, t, {}, {dy2});
      out.push_back(rtype(op).getRank() == 2 ? dx : b.create<mlir::tensor::ExpandShapeOp>(loc, rtype(op), dx, llvm::ArrayRef<mlir::ReassociationIndices>{range(0, rtype(op).getRank() - 1), {rtype(op).getRank() - 1}}).getResult());
      return mlir::success();
    };
    r["dx.dense_grad_weight"] = [](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) {
      Location loc = op->getLoc();
      Value dy2 = collapseTo2D(b, loc, op->getOperand(0)), x2 = collapseTo2D(b, loc, op->getOperand(1));
      out.push_back(callKernel(b, loc, "dxrt_dense_grad_weight", {dy2, x2}, rtype(op), {}, {}));
      return mlir::success();
    };
    for (const char *name : {"dx.conv2d", "dx.conv3d"})
      r[name] = [](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) {
        Location loc = op->getLoc();
        Value x = op->getOperand(0);
        Value y = callConv(b, op, "forward", {x, param(op, 0)}, {rtype(op)},
                           {layoutOf(op, "in0"), kWeight, layoutOf(op, "out")}, {x})[0];
        if (numParams(op) > 1) y = addChannelBias(b, loc, y, param(op, 1), 1);
        out.push_back(y);
        return mlir::success();
      };
    for (const char *name : {"dx.conv_transpose2d", "dx.conv_transpose3d"})
      r[name] = [](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) {
        Location loc = op->getLoc();
        Value x = op->getOperand(0);
        Value y = callConv(b, op, "grad_input", {x, param(op, 0)}, {rtype(op)},
                           {layoutOf(op, "in0"), kWeight, layoutOf(op, "out")}, {x})[0];
        if (numParams(op) > 1) y = addChannelBias(b, loc, y, param(op, 1), 1);
        out.push_back(y);
        return mlir::success();
      };
    r["dx.conv2d_grad_input"] = [](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) {
      Value dy = op->getOperand(0);
      out.push_back(callConv(b, op, "grad_input", {dy, op->getOperand(1)}, {rtype(op)},
                             {layoutOf(op, "in0"), kWeight, layoutOf(op, "out")}, {dy})[0]);
      return mlir::success();
    };
    r["dx.conv2d_grad_weight"] = [](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) {
      Value dy = op->getOperand(0);
      out.push_back(callConv(b, op, "grad_weight", {dy, op->getOperand(1)}, {rtype(op)},
                             {layoutOf(op, "in0"), layoutOf(op, "in1"), kWeight}, {})[0]);
      return mlir::success();
    };
    for (const char *name : {"dx.maxpool", "dx.avgpool", "dx.maxpool3d", "dx.avgpool3d"}) {
      int64_t kind = llvm::StringRef(name).starts_with("dx.max") ? 0 : 1;
      r[name] = [kind](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) {
        Location loc = op->getLoc();
        out.push_back(callPool(b, op, "forward", {op->getOperand(0)}, rtype(op), poolScalars(b, loc, op, kind)));
        return mlir::success();
      };
    }
    r["dx.pool_grad"] = [](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) {
      Location loc = op->getLoc();
      int64_t kind = strAttr(op, "kind") == "max" ? 0 : 1;
      out.push_back(callPool(b, op, "grad", {op->getOperand(0), op->getOperand(1)}, rtype(op),
                             poolScalars(b, loc, op, kind)));
      return mlir::success();
    };
    r["dx.global_avgpool"] = [](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) {
      Location loc = op->getLoc();
      Value x = op->getOperand(0);
      auto spatial = range(2, ttype(x).getRank());
      Value s = reduceSum(b, loc, x, spatial, rtype(op));
      Value n = countAsF32(b, loc, x, spatial);
      out.push_back(ew(b, loc, rtype(op), {s}, [&](S &sc, mlir::ValueRange a) { return sc.div(a[0], n); }));
      return mlir::success();
    };
    r["dx.upsample"] = [](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) -> mlir::LogicalResult {
      auto s = arrAttr(op, "scale");
      if (strAttr(op, "mode") == "bilinear") { // four taps per output: a libdxrt kernel
        Location loc = op->getLoc();
        if (ttype(op->getOperand(0)).getRank() != 4) return op->emitError("bilinear upsampling takes 4-D input");
        out.push_back(callKernel(b, loc, "dxrt_upsample_bilinear_forward", {op->getOperand(0)}, rtype(op),
                                 {i64(b, loc, s[0]), i64(b, loc, s[1])}, {op->getOperand(0)}));
        return mlir::success();
      }
      if (strAttr(op, "mode") == "trilinear") { // eight taps per output: a libdxrt kernel
        Location loc = op->getLoc();
        if (ttype(op->getOperand(0)).getRank() != 5) return op->emitError("trilinear upsampling takes 5-D input");
        out.push_back(callKernel(b, loc, "dxrt_upsample_trilinear_forward", {op->getOperand(0)}, rtype(op),
                                 {i64(b, loc, s[0]), i64(b, loc, s[1]), i64(b, loc, s[2])}, {op->getOperand(0)}));
        return mlir::success();
      }
      if (strAttr(op, "mode") != "nearest")
        return op->emitError("upsample mode '") << strAttr(op, "mode") << "' is not supported by the CPU code generator yet";
      // Nearest: output (n, c, i, j, ...) reads input (n, c, i / s0, j / s1, ...).
      mlir::MLIRContext *ctx = b.getContext();
      unsigned rank = static_cast<unsigned>(rtype(op).getRank());
      llvm::SmallVector<mlir::AffineExpr> exprs = {mlir::getAffineDimExpr(0, ctx), mlir::getAffineDimExpr(1, ctx)};
      for (unsigned k = 2; k < rank; ++k) exprs.push_back(mlir::getAffineDimExpr(k, ctx).floorDiv(s[k - 2]));
      auto map = mlir::AffineMap::get(rank, 0, exprs, ctx);
      out.push_back(ew(b, op->getLoc(), rtype(op), {op->getOperand(0)}, [](S &, mlir::ValueRange a) { return a[0]; }, {map}));
      return mlir::success();
    };
    r["dx.upsample_grad"] = [](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) -> mlir::LogicalResult {
      if (strAttr(op, "mode") == "bilinear") {
        Location loc = op->getLoc();
        auto s = arrAttr(op, "scale");
        if (ttype(op->getOperand(0)).getRank() != 4) return op->emitError("bilinear upsampling takes 4-D input");
        out.push_back(callKernel(b, loc, "dxrt_upsample_bilinear_grad", {op->getOperand(0)}, rtype(op),
                                 {i64(b, loc, s[0]), i64(b, loc, s[1])}, {op->getOperand(0)}));
        return mlir::success();
      }
      if (strAttr(op, "mode") == "trilinear") {
        Location loc = op->getLoc();
        auto s = arrAttr(op, "scale");
        if (ttype(op->getOperand(0)).getRank() != 5) return op->emitError("trilinear upsampling takes 5-D input");
        out.push_back(callKernel(b, loc, "dxrt_upsample_trilinear_grad", {op->getOperand(0)}, rtype(op),
                                 {i64(b, loc, s[0]), i64(b, loc, s[1]), i64(b, loc, s[2])}, {op->getOperand(0)}));
        return mlir::success();
      }
      if (strAttr(op, "mode") != "nearest")
        return op->emitError("upsample mode '") << strAttr(op, "mode") << "' is not supported by the CPU code generator yet";
      // dy [N, C, H*sh, W*sw] -> [N, C, H, sh, W, sw] (and with a D, sd pair in
      // front for 5-D), summed over the scale dims.
      // (A generic indexing dy by (h*sh + i, w*sw + j) has no loop bounds for i, j.)
      Location loc = op->getLoc();
      auto s = arrAttr(op, "scale");
      Value dy = op->getOperand(0);
      auto t = ttype(dy);
      llvm::SmallVector<int64_t> shape = {t.getDimSize(0), t.getDimSize(1)};
      llvm::SmallVector<mlir::ReassociationIndices> groups = {{0}, {1}};
      llvm::SmallVector<int64_t> scaleDims;
      for (int64_t k = 2; k < t.getRank(); ++k) {
        int64_t at = static_cast<int64_t>(shape.size());
        shape.push_back(rtype(op).getDimSize(k));
        shape.push_back(s[k - 2]);
        groups.push_back({at, at + 1});
        scaleDims.push_back(at + 1);
      }
      Value blocks = b.create<mlir::tensor::ExpandShapeOp>(loc, withDims(t, shape), dy, groups);
      out.push_back(reduceSum(b, loc, blocks, scaleDims, rtype(op)));
      return mlir::success();
    };

    // ---- normalisation ----
    // A channel-blocked batch norm (dx.blocked) runs on the packed activations
    // (ChannelView); its result is unpacked, for dx-propagate-layouts to
    // cancel against the convolutions' packs around it.
    r["dx.batchnorm"] = [](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) {
      Value x = op->getOperand(0);
      bool affine = numParams(op) == 4;
      ChannelView v(b, op, x);
      Value y = normalize(b, op->getLoc(), v.activation(x), v.perChannel(param(op, affine ? 2 : 0)),
                          v.perChannel(param(op, affine ? 3 : 1)), affine ? v.perChannel(param(op, 0)) : Value(),
                          affine ? v.perChannel(param(op, 1)) : Value(), floatAttr(op, "eps"), v.channel, v.channel);
      out.push_back(v.activationBack(y, rtype(op)));
      return mlir::success();
    };
    r["dx.batchnorm_train"] = [](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) {
      auto bn = mlir::cast<ir::BatchnormTrainOp>(op);
      Location loc = op->getLoc();
      ChannelView v(b, op, bn.getX());
      Value x = v.activation(bn.getX());
      auto statType = ttype(bn.getMean());
      auto [mean, var] = batchMoments(b, loc, x, v.statDims, v.perChannelType(statType), v.channel);
      bool affine = !bn.getAffine().empty();
      Value y = normalize(b, loc, x, mean, var, affine ? v.perChannel(bn.getAffine()[0]) : Value(),
                          affine ? v.perChannel(bn.getAffine()[1]) : Value(), bn.getEps().convertToDouble(), v.channel,
                          v.channel);
      out.push_back(v.activationBack(y, rtype(op)));
      out.push_back(v.perChannelBack(mean, statType));
      out.push_back(v.perChannelBack(var, statType));
      return mlir::success();
    };
    r["dx.running_stats"] = [](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) {
      auto rs = mlir::cast<ir::RunningStatsOp>(op);
      Location loc = op->getLoc();
      double m = rs.getMomentum().convertToDouble();
      Value n = countAsF32(b, loc, rs.getX(), allDimsBut(ttype(rs.getX()).getRank(), {1}));
      auto ct = ttype(rs.getRunningMean());
      out.push_back(ew(b, loc, ct, {rs.getRunningMean(), rs.getMean()}, [&](S &s, mlir::ValueRange a) {
        return s.add(s.mul(s.c(1 - m), a[0]), s.mul(s.c(m), a[1]));
      }));
      out.push_back(ew(b, loc, ct, {rs.getRunningVar(), rs.getVar()}, [&](S &s, mlir::ValueRange a) {
        Value unbiased = s.div(s.mul(a[1], n), s.max(s.sub(n, s.c(1)), s.c(1)));
        return s.add(s.mul(s.c(1 - m), a[0]), s.mul(s.c(m), unbiased));
      }));
      return mlir::success();
    };
    r["dx.layernorm"] = [](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) {
      Location loc = op->getLoc();
      Value x = op->getOperand(0);
      auto t = ttype(x);
      int64_t k = intAttr(op, "dims"), R = t.getRank();
      auto statDims = range(R - k, R), lead = range(0, R - k);
      auto st = dropShape(t, statDims);
      auto sm = selectMap(b.getContext(), R, lead), pm = selectMap(b.getContext(), R, statDims);
      auto id = mlir::AffineMap::getMultiDimIdentityMap(R, b.getContext());
      auto [mean, var] = moments(b, loc, x, statDims, st, {id, sm});
      bool affine = numParams(op) == 2;
      out.push_back(normalize(b, loc, x, mean, var, affine ? param(op, 0) : Value(), affine ? param(op, 1) : Value(),
                              floatAttr(op, "eps"), sm, pm));
      return mlir::success();
    };
    r["dx.norm_grad"] = [](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) {
      auto ng = mlir::cast<ir::NormGradOp>(op);
      Location loc = op->getLoc();
      Value x = ng.getX();
      auto t = ttype(x);
      int64_t R = t.getRank();
      mlir::MLIRContext *ctx = b.getContext();
      double eps = ng.getEps().convertToDouble();
      if (ng.getKind() == "batchnorm") {
        ChannelView v(b, op, x);
        auto ct = ttype(ng.getDgamma()), vt = v.perChannelType(ct);
        auto [dx, dg, db] = normGrad(b, loc, v.activation(ng.getDy()), v.activation(x), v.perChannel(ng.getGamma()),
                                     eps, v.statDims, vt, v.channel, v.statDims, vt, v.channel,
                                     /*batchStatistics=*/true);
        out.append({v.activationBack(dx, t), v.perChannelBack(dg, ct), v.perChannelBack(db, ct)});
      } else {
        int64_t k = ng.getDims();
        auto statDims = range(R - k, R), lead = range(0, R - k);
        auto [dx, dg, db] = normGrad(b, loc, ng.getDy(), x, ng.getGamma(), eps, statDims, dropShape(t, statDims),
                                     selectMap(ctx, R, lead), lead, ttype(ng.getDgamma()), selectMap(ctx, R, statDims),
                                     /*batchStatistics=*/false);
        if (!ng.getGamma()) { // dgamma/dbeta have placeholder types; give zeros
          dg = filledTensor(b, loc, ttype(ng.getDgamma()), {}, 0.0);
          db = filledTensor(b, loc, ttype(ng.getDbeta()), {}, 0.0);
        }
        out.append({dx, dg, db});
      }
      return mlir::success();
    };

    // ---- random ----
    r["dx.dropout"] = [](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) {
      Value x = op->getOperand(0);
      double p = floatAttr(op, "p");
      if (!trainingMode(op) || p == 0) {
        out.push_back(x);
        return mlir::success();
      }
      auto u = randomLike(b, op, x, "dxrt_random_uniform");
      if (mlir::failed(u)) return mlir::failure();
      out.push_back(ew(b, op->getLoc(), rtype(op), {x, *u}, [&](S &s, mlir::ValueRange a) {
        Value keep = s.b.create<arith::CmpFOp>(s.l, arith::CmpFPredicate::OGE, a[1], s.c(p));
        return s.select(keep, s.mul(a[0], s.c(1.0 / (1.0 - p))), s.c(0));
      }));
      return mlir::success();
    };
    r["dx.randn_like"] = [](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) {
      Value x = op->getOperand(0);
      if (!trainingMode(op)) { // evaluation is deterministic: the noise takes its mean
        out.push_back(filledTensor(b, op->getLoc(), rtype(op), {x}, 0.0));
        return mlir::success();
      }
      auto n = randomLike(b, op, x, "dxrt_random_normal");
      if (mlir::failed(n)) return mlir::failure();
      out.push_back(*n);
      return mlir::success();
    };

    // ---- losses ----
    // Logits [N, C, ...]: the classes are dim 1, a "row" is every other
    // index (a sample, or a pixel of one), and the mean is over the rows.
    r["dx.softmax_cross_entropy"] = [](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) {
      Location loc = op->getLoc();
      Value x = op->getOperand(0), labels = op->getOperand(1);
      auto t = ttype(x);
      auto rowT = dropShape(t, {1});
      mlir::MLIRContext *ctx = b.getContext();
      const int64_t rank = t.getRank();
      auto id = mlir::AffineMap::getMultiDimIdentityMap(rank, ctx), row = selectMap(ctx, rank, allDimsBut(rank, {1}));
      Value m = reduceMax(b, loc, x, {1}, rowT);
      Value e = ew(b, loc, t, {x, m}, [](S &s, mlir::ValueRange a) { return s.exp(s.sub(a[0], a[1])); }, {id, row});
      Value sum = reduceSum(b, loc, e, {1}, rowT);
      // The logit of the true class: x[n, c] where c == labels[n].
      Value picked = ew(b, loc, t, {x, labels}, [](S &s, mlir::ValueRange a) {
        Value c = s.b.create<arith::IndexCastOp>(s.l, s.b.getI64Type(), s.b.create<mlir::linalg::IndexOp>(s.l, 1));
        Value hit = s.b.create<arith::CmpIOp>(s.l, arith::CmpIPredicate::eq, c, a[1]);
        return s.select(hit, a[0], s.c(0));
      }, {id, row});
      Value pickedRow = reduceSum(b, loc, picked, {1}, rowT);
      Value l = ew(b, loc, rowT, {m, sum, pickedRow},
                   [](S &s, mlir::ValueRange a) { return s.sub(s.add(a[0], s.log(a[1])), a[2]); });
      if (Value w = labelWeights(b, loc, op, t, labels)) {
        // sum(w[label] * l) / sum(w[label]), as CrossEntropyLoss(weight=w).
        Value wl = ew(b, loc, rowT, {w, l}, [](S &s, mlir::ValueRange a) { return s.mul(a[0], a[1]); });
        Value num = reduceLoss(b, loc, wl, "sum"), den = reduceLoss(b, loc, w, "sum");
        out.push_back(ew(b, loc, scalarType(b), {num, den}, [](S &s, mlir::ValueRange a) { return s.div(a[0], a[1]); }));
        return mlir::success();
      }
      out.push_back(reduceLoss(b, loc, l, "mean"));
      return mlir::success();
    };
    r["dx.softmax_cross_entropy_grad"] = [](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) {
      Location loc = op->getLoc();
      Value x = op->getOperand(0), labels = op->getOperand(1), dloss = op->getOperand(2);
      auto t = ttype(x);
      auto rowT = dropShape(t, {1});
      mlir::MLIRContext *ctx = b.getContext();
      const int64_t rank = t.getRank();
      auto id = mlir::AffineMap::getMultiDimIdentityMap(rank, ctx), row = selectMap(ctx, rank, allDimsBut(rank, {1}));
      auto scalar = mlir::AffineMap::get(rank, 0, {}, ctx);
      Value m = reduceMax(b, loc, x, {1}, rowT);
      Value e = ew(b, loc, t, {x, m}, [](S &s, mlir::ValueRange a) { return s.exp(s.sub(a[0], a[1])); }, {id, row});
      Value sum = reduceSum(b, loc, e, {1}, rowT);
      auto delta = [](S &s, mlir::ValueRange a) { // softmax - onehot(label)
        Value c = s.b.create<arith::IndexCastOp>(s.l, s.b.getI64Type(), s.b.create<mlir::linalg::IndexOp>(s.l, 1));
        Value hit = s.b.create<arith::CmpIOp>(s.l, arith::CmpIPredicate::eq, c, a[2]);
        Value p = s.div(a[0], a[1]); // before the select: ops in a fixed order
        return s.sub(p, s.select(hit, s.c(1), s.c(0)));
      };
      if (Value w = labelWeights(b, loc, op, t, labels)) {
        // d/dlogits of sum(w[label] * l) / sum(w[label]): w[label] * (p - onehot) * dloss / sum(w[label]).
        Value den = reduceLoss(b, loc, w, "sum");
        Value scale = ew(b, loc, scalarType(b), {dloss, den}, [](S &s, mlir::ValueRange a) { return s.div(a[0], a[1]); });
        out.push_back(ew(b, loc, t, {e, sum, labels, w, scale}, [&](S &s, mlir::ValueRange a) {
          return s.mul(s.mul(delta(s, a), a[3]), a[4]);
        }, {id, row, row, row, scalar}));
        return mlir::success();
      }
      Value scale = lossScale(b, loc, labels, dloss, "mean");
      out.push_back(ew(b, loc, t, {e, sum, labels, scale}, [&](S &s, mlir::ValueRange a) {
        return s.mul(delta(s, a), a[3]);
      }, {id, row, row, scalar}));
      return mlir::success();
    };
    for (const char *name : {"dx.bce_with_logits", "dx.binary_cross_entropy", "dx.mse", "dx.mae", "dx.l1", "dx.huber"}) {
      std::string kind = ir::pairwiseLossKind(name);
      r[name] = [kind](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) {
        Location loc = op->getLoc();
        Value p = op->getOperand(0), t = op->getOperand(1);
        double delta = kind == "huber" ? op->getAttrOfType<mlir::FloatAttr>("delta").getValueAsDouble() : 0;
        Value l = ew(b, loc, ttype(p), {p, t}, [&](S &s, mlir::ValueRange a) -> Value {
          Value z = a[0], y = a[1];
          if (kind == "mae") return s.abs(s.sub(z, y));
          if (kind == "huber") {
            Value d = s.sub(z, y), ad = s.abs(d);
            return s.select(s.lt(ad, s.c(delta)), s.mul(s.c(0.5), s.mul(d, d)),
                            s.mul(s.c(delta), s.sub(ad, s.c(0.5 * delta))));
          }
          if (kind == "bce_with_logits")
            return s.add(s.sub(s.max(z, s.c(0)), s.mul(z, y)), s.log1p(s.exp(s.neg(s.abs(z)))));
          if (kind == "binary_cross_entropy") {
            Value lp = s.max(s.log(z), s.c(-100)), lq = s.max(s.log(s.sub(s.c(1), z)), s.c(-100));
            return s.neg(s.add(s.mul(y, lp), s.mul(s.sub(s.c(1), y), lq)));
          }
          Value d = s.sub(z, y);
          return s.mul(d, d);
        });
        out.push_back(reduceLoss(b, loc, l, strAttr(op, "reduction")));
        return mlir::success();
      };
    }
    r["dx.pairwise_loss_grad"] = [](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) {
      auto g = mlir::cast<ir::PairwiseLossGradOp>(op);
      Location loc = op->getLoc();
      Value p = g.getPrediction(), t = g.getTarget();
      Value scale = lossScale(b, loc, p, g.getDloss(), g.getReduction());
      std::string kind = g.getKind().str();
      const double delta = g.getDelta() ? g.getDelta()->convertToDouble() : 1.0;
      auto pt = ttype(p);
      auto scalarMap = mlir::AffineMap::get(pt.getRank(), 0, {}, b.getContext());
      auto id = mlir::AffineMap::getMultiDimIdentityMap(pt.getRank(), b.getContext());
      llvm::SmallVector<mlir::AffineMap> maps = {id, id, scalarMap};
      // d loss / d prediction per element; d / d target is its negation.
      auto dPrediction = [&](S &s, Value z, Value y) -> Value {
        Value d = s.sub(z, y);
        if (kind == "mae") return s.sign(d);
        // d where |d| < delta, else delta * sign(d), as torch.nn.HuberLoss.
        return s.select(s.lt(s.abs(d), s.c(delta)), d, s.mul(s.c(delta), s.sign(d)));
      };
      if (kind == "mae" || kind == "huber") {
        out.push_back(ew(b, loc, pt, {p, t, scale},
                         [&](S &s, mlir::ValueRange a) { return s.mul(dPrediction(s, a[0], a[1]), a[2]); }, maps));
        out.push_back(ew(b, loc, pt, {p, t, scale},
                         [&](S &s, mlir::ValueRange a) { return s.neg(s.mul(dPrediction(s, a[0], a[1]), a[2])); }, maps));
        return mlir::success();
      }
      out.push_back(ew(b, loc, pt, {p, t, scale}, [&](S &s, mlir::ValueRange a) -> Value {
        if (kind == "bce_with_logits") return s.mul(s.sub(s.sigmoid(a[0]), a[1]), a[2]);
        if (kind == "binary_cross_entropy")
          return s.mul(s.div(s.sub(a[0], a[1]), s.max(s.mul(a[0], s.sub(s.c(1), a[0])), s.c(1e-12))), a[2]);
        return s.mul(s.mul(s.c(2), s.sub(a[0], a[1])), a[2]);
      }, maps));
      out.push_back(ew(b, loc, pt, {p, t, scale}, [&](S &s, mlir::ValueRange a) -> Value {
        if (kind == "bce_with_logits") return s.mul(s.neg(a[0]), a[2]);
        if (kind == "binary_cross_entropy")
          return s.mul(s.sub(s.max(s.log(s.sub(s.c(1), a[0])), s.c(-100)), s.max(s.log(a[0]), s.c(-100))), a[2]);
        return s.mul(s.mul(s.c(-2), s.sub(a[0], a[1])), a[2]);
      }, maps));
      return mlir::success();
    };
    r["dx.kl_normal"] = [](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) {
      Location loc = op->getLoc();
      Value mu = op->getOperand(0), lv = op->getOperand(1);
      Value l = ew(b, loc, ttype(mu), {mu, lv}, [](S &s, mlir::ValueRange a) {
        return s.mul(s.c(-0.5), s.sub(s.sub(s.add(s.c(1), a[1]), s.mul(a[0], a[0])), s.exp(a[1])));
      });
      out.push_back(reduceLoss(b, loc, l, strAttr(op, "reduction")));
      return mlir::success();
    };
    r["dx.kl_normal_grad"] = [](OpBuilder &b, Operation *op, llvm::SmallVectorImpl<Value> &out) {
      auto g = mlir::cast<ir::KlNormalGradOp>(op);
      Location loc = op->getLoc();
      Value mu = g.getMu(), lv = g.getLogvar();
      Value scale = lossScale(b, loc, mu, g.getDloss(), g.getReduction());
      auto t = ttype(mu);
      auto id = mlir::AffineMap::getMultiDimIdentityMap(t.getRank(), b.getContext());
      auto sc = mlir::AffineMap::get(t.getRank(), 0, {}, b.getContext());
      out.push_back(ew(b, loc, t, {mu, scale}, [](S &s, mlir::ValueRange a) { return s.mul(a[0], a[1]); }, {id, sc}));
      out.push_back(ew(b, loc, t, {lv, scale}, [](S &s, mlir::ValueRange a) {
        return s.mul(s.mul(s.c(0.5), s.sub(s.exp(a[0]), s.c(1))), a[1]);
      }, {id, sc}));
      return mlir::success();
    };
    return r;
  }();
  return table;
}

struct LowerDxPass : mlir::PassWrapper<LowerDxPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(LowerDxPass)
  llvm::StringRef getArgument() const override { return "dx-to-linalg"; }
  llvm::StringRef getDescription() const override {
    return "Lower dx ops to linalg/tensor/arith/math and calls into libdxrt";
  }
  void getDependentDialects(mlir::DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, math::MathDialect, mlir::linalg::LinalgDialect, mlir::tensor::TensorDialect,
                    mlir::memref::MemRefDialect, mlir::bufferization::BufferizationDialect, mlir::func::FuncDialect>();
  }
  // A convolution's input and weight gradients from the same dy become one
  // call, dxrt_conv2d_backward or dxrt_conv3d_backward (dx and dw), at the input gradient's place:
  // libdxrt then reorders dy into oneDNN's blocked layout once, not twice.
  // The weight gradient's x must be available there (it always is in a
  // training step: a forward activation), and the weight gradient must come
  // after the input gradient (as dx-autodiff orders them).
  void fuseConvBackward() {
    llvm::SmallVector<Operation *> inputGrads;
    getOperation().walk([&](Operation *op) {
      if (op->getName().getStringRef() == "dx.conv2d_grad_input") inputGrads.push_back(op);
    });
    for (Operation *in : inputGrads) {
      mlir::DominanceInfo dom(in->getParentOfType<mlir::func::FuncOp>());
      Operation *wt = nullptr;
      for (Operation *user : in->getOperand(0).getUsers())
        if (user->getName().getStringRef() == "dx.conv2d_grad_weight" && user->getBlock() == in->getBlock() &&
            in->isBeforeInBlock(user) && // dw, made at `in`, then comes before every use of it
            llvm::all_of(llvm::ArrayRef<llvm::StringRef>{"stride", "pad", "dilation", "groups"},
                         [&](llvm::StringRef a) { return user->getAttr(a) == in->getAttr(a); }) &&
            dom.properlyDominates(user->getOperand(1), in)) {
          wt = user;
          break;
        }
      if (!wt) continue;
      OpBuilder b(in);
      Value dy = in->getOperand(0), w = in->getOperand(1), x = wt->getOperand(1);
      auto grads = callConv(b, in, "backward", {dy, x, w}, {rtype(in), rtype(wt)},
                            {layoutOf(in, "in0"), layoutOf(wt, "in1"), kWeight, layoutOf(in, "out"), kWeight}, {x, dy});
      in->replaceAllUsesWith(mlir::ValueRange{grads[0]});
      wt->replaceAllUsesWith(mlir::ValueRange{grads[1]});
      in->erase();
      wt->erase();
    }
  }

  // A convolution and a weight gradient of the same geometry that read the
  // same x become one call, dxrt_conv2d_forward_grad_weight or
  // dxrt_conv3d_forward_grad_weight (y and dw), at the convolution's place:
  // libdxrt then reorders x into oneDNN's blocked layout once, not twice.
  // A transposed convolution's backward pass is such a pair (dx-autodiff
  // makes its input gradient a convolution of dy and its weight gradient one
  // that reads the same dy as x). The weight gradient's dy must be available
  // at the convolution (the transposed convolution's input, a forward
  // activation), and a convolution with a bias is left alone (its bias add
  // follows the call). A layer's own forward convolution and weight gradient
  // read the same x too, but their dy comes later: they stay two calls.
  void fuseConvForwardGradWeight() {
    llvm::SmallVector<Operation *> convs;
    getOperation().walk([&](Operation *op) {
      llvm::StringRef name = op->getName().getStringRef();
      if ((name == "dx.conv2d" || name == "dx.conv3d") && numParams(op) == 1) convs.push_back(op);
    });
    for (Operation *conv : convs) {
      mlir::DominanceInfo dom(conv->getParentOfType<mlir::func::FuncOp>());
      Value x = conv->getOperand(0), w = param(conv, 0);
      Operation *wt = nullptr;
      for (Operation *user : x.getUsers())
        if (user->getName().getStringRef() == "dx.conv2d_grad_weight" && user->getOperand(1) == x &&
            user->getBlock() == conv->getBlock() && conv->isBeforeInBlock(user) &&
            llvm::all_of(llvm::ArrayRef<llvm::StringRef>{"stride", "pad", "dilation", "groups"},
                         [&](llvm::StringRef a) { return user->getAttr(a) == conv->getAttr(a); }) &&
            user->getOperand(0).getType() == conv->getResult(0).getType() &&
            user->getResult(0).getType() == w.getType() && dom.properlyDominates(user->getOperand(0), conv)) {
          wt = user;
          break;
        }
      if (!wt) continue;
      OpBuilder b(conv);
      Value dy = wt->getOperand(0);
      auto results = callConv(b, conv, "forward_grad_weight", {x, w, dy}, {rtype(conv), rtype(wt)},
                              {layoutOf(conv, "in0"), kWeight, layoutOf(wt, "in0"), layoutOf(conv, "out"), kWeight},
                              {x});
      conv->replaceAllUsesWith(mlir::ValueRange{results[0]});
      wt->replaceAllUsesWith(mlir::ValueRange{results[1]});
      conv->erase();
      wt->erase();
    }
  }

  Option<int64_t> channelBlock{
      *this, "channel-block",
      llvm::cl::desc("Keep 2-D convolution activations in blocks of this many channels between convolutions and "
                     "call the kernels' _blocked twins on them: 16 (nChw16c), 8 (nChw8c), or 0 (NCHW; CPU; see "
                     "planBlockedLayout)"),
      llvm::cl::init(0)};
  Option<bool> generatedPooling{
      *this, "generated-pooling",
      llvm::cl::desc("With a channel block: generate 2-D max poolings whose windows tile the plane, and their "
                     "gradients, instead of calling libdxrt (GeneratedMaxPool.h)"),
      llvm::cl::init(false)};

  LowerDxPass() = default;
  LowerDxPass(const LowerDxPass &other) : PassWrapper(other) {}

  void runOnOperation() override {
    if (channelBlock != 0 && channelBlock != 8 && channelBlock != 16) {
      getOperation().emitError("dx-to-linalg: channel-block must be 16, 8 or 0, not ") << channelBlock.getValue();
      return signalPassFailure();
    }
    if (channelBlock != 0) planBlockedLayout();
    if (channelBlock != 0 && generatedPooling) generateMaxPools(getOperation());
    lowerAll();
  }

  // Which 2-D convolution activations to keep in blocks of B = channelBlock
  // channels (nChw16c, nChw8c): tensors joined by
  // same-shape elementwise ops (a bias-free relu, a relu gradient, an add of
  // two branches), by a 2-D pooling (its input and output, its gradient's
  // dy, x and dx: the _blocked pooling kernels take all of them in one
  // layout), by a 2-D batch norm (its x and y, its gradient's dy, x and dx)
  // or by a concat or slice along the channels in whole blocks of B form a
  // group, and a group is kept blocked when it connects at least two
  // convolution activations (it then saves libdxrt's reorders between them)
  // and nothing else reads or makes its tensors, or when what else does (a
  // reshape, a dropout, the function's arguments and results need NCHW:
  // each a conversion) moves less than half the floats per sample that its
  // convolution activations do (an evaluation step's conv -> relu -> pool ->
  // flatten has one). Only a channel count that is a
  // multiple of B can be blocked. Bias gradients (a sum per channel) read
  // either layout, a batch norm's running statistics only the shape. The
  // decision goes on the convolutions as dx.blocked_in0 / _in1 / _out = B
  // (layoutOf), and on the poolings, batch norms, concats and slices as
  // dx.blocked = B (callPool, ChannelView, their lowerings).
  void planBlockedLayout() {
    (void)lowerings(); // fills elementwiseOps()
    llvm::DenseMap<Value, Value> parent;
    std::function<Value(Value)> find = [&](Value v) -> Value {
      auto it = parent.find(v);
      if (it == parent.end() || it->second == v) return v;
      Value root = find(it->second);
      parent[v] = root;
      return root;
    };
    auto unite = [&](Value a, Value b) {
      Value ra = find(a), rb = find(b);
      if (ra != rb) parent[ra] = rb;
    };
    auto act = [](Value v) {
      auto t = mlir::dyn_cast<mlir::RankedTensorType>(v.getType());
      return t && t.getRank() == 4;
    };
    auto transparent = [&](Operation *op) {
      if (!elementwiseOps().contains(op->getName().getStringRef()) || op->getNumResults() != 1 ||
          !act(op->getResult(0)))
        return false;
      return llvm::all_of(op->getOperandTypes(), [&](mlir::Type t) { return t == op->getResult(0).getType(); });
    };
    // role -> value of a convolution's activations.
    auto roles = [&](Operation *op) {
      llvm::SmallVector<std::pair<llvm::StringRef, Value>> r;
      llvm::StringRef name = op->getName().getStringRef();
      if (name == "dx.conv2d" || name == "dx.conv_transpose2d" || name == "dx.conv2d_grad_input")
        r = {{"in0", op->getOperand(0)}, {"out", op->getResult(0)}};
      else if (name == "dx.conv2d_grad_weight")
        r = {{"in0", op->getOperand(0)}, {"in1", op->getOperand(1)}};
      llvm::erase_if(r, [&](auto &p) { return !act(p.second); });
      return r;
    };
    // A bias gradient: a sum of an activation to one value per channel,
    // which reads the blocked layout as it is.
    auto perChannelSum = [&](Operation *op) {
      llvm::StringRef name = op->getName().getStringRef();
      if ((name != "dx.sum" && name != "dx.reduce_to") || op->getNumOperands() != 1 || !act(op->getOperand(0)))
        return false;
      auto in = ttype(op->getOperand(0));
      auto out = mlir::dyn_cast<mlir::RankedTensorType>(op->getResult(0).getType());
      return out && out.hasStaticShape() && !in.isDynamicDim(1) && out.getNumElements() == in.getDimSize(1);
    };
    // The activations of an op whose lowering keeps them all in one layout:
    // a 2-D pooling or its gradient (the _blocked kernels), a concat or
    // slice along the channels in whole blocks of B (insert or extract
    // slices of the packed tensors), a 2-D batch norm, its training form or
    // its gradient (ChannelView: generics on the packed tensors). Empty for
    // any other op.
    auto blocks = [&](Value v) {
      auto t = ttype(v);
      return !t.isDynamicDim(1) && t.getDimSize(1) % channelBlock == 0;
    };
    auto sameLayout = [&](Operation *op) -> llvm::SmallVector<Value> {
      llvm::StringRef name = op->getName().getStringRef();
      llvm::SmallVector<Value> v;
      if (name == "dx.batchnorm" || name == "dx.batchnorm_train" ||
          (name == "dx.norm_grad" && mlir::cast<ir::NormGradOp>(op).getKind() == "batchnorm")) {
        for (Value o : op->getOperands())
          if (act(o)) v.push_back(o);
        if (act(op->getResult(0))) v.push_back(op->getResult(0));
        if (v.size() < 2) v.clear(); // a batch norm of [N, C] or [N, C, D, H, W]
        return v;
      }
      if (op->getNumResults() != 1 || !act(op->getResult(0)) ||
          !llvm::all_of(op->getOperands(), [&](Value o) { return act(o); }))
        return v;
      bool joins = name == "dx.maxpool" || name == "dx.avgpool" || name == "dx.pool_grad";
      if (name == "dx.concat")
        joins = intAttr(op, "axis") == 1 && llvm::all_of(op->getOperands(), blocks) && blocks(op->getResult(0));
      if (name == "dx.slice")
        joins = intAttr(op, "axis") == 1 && intAttr(op, "offset") % channelBlock == 0 && blocks(op->getOperand(0)) &&
                blocks(op->getResult(0));
      if (joins) {
        v.append(op->operand_begin(), op->operand_end());
        v.push_back(op->getResult(0));
      }
      return v;
    };
    // Ops that read an activation for its shape only: a batch norm's
    // running statistics (the count of elements per channel).
    auto shapeOnly = [](Operation *op) { return op->getName().getStringRef() == "dx.running_stats"; };
    getOperation().walk([&](Operation *op) {
      if (transparent(op))
        for (Value o : op->getOperands()) unite(o, op->getResult(0));
      llvm::SmallVector<Value> joined = sameLayout(op);
      for (Value v : joined) unite(v, joined.front());
    });
    // Per group: the convolution activations and their floats per sample
    // (what libdxrt reorders inside the calls when the group is NCHW), and
    // the floats per sample of the other uses (each a conversion when the
    // group is blocked; kUnknown where a size is dynamic).
    constexpr int64_t kUnknown = std::numeric_limits<int64_t>::max() / 4;
    auto perSample = [](Value v) {
      auto t = ttype(v);
      int64_t n = 1;
      for (int64_t d = 1; d < t.getRank(); ++d) {
        if (t.isDynamicDim(d)) return kUnknown;
        n *= t.getDimSize(d);
      }
      return n;
    };
    llvm::DenseMap<Value, int> convs;
    llvm::DenseMap<Value, int64_t> convFloats, otherFloats;
    auto count = [&](llvm::DenseMap<Value, int64_t> &floats, Value v) {
      int64_t &f = floats[find(v)];
      f = std::min(kUnknown, f + perSample(v));
    };
    getOperation().walk([&](Operation *op) {
      auto r = roles(op);
      if (!r.empty()) {
        for (auto &[role, v] : r) {
          ++convs[find(v)];
          count(convFloats, v);
        }
        return;
      }
      if (transparent(op) || perChannelSum(op) || shapeOnly(op) || !sameLayout(op).empty()) return;
      for (Value v : op->getOperands())
        if (act(v)) count(otherFloats, v);
      for (Value v : op->getResults())
        if (act(v)) count(otherFloats, v);
    });
    getOperation().walk([&](mlir::func::FuncOp fn) {
      for (Value a : fn.getArguments())
        if (act(a)) count(otherFloats, a);
    });
    // A group with other uses is still blocked when converting what they
    // read or make costs well under what it saves: a conv -> batch norm ->
    // relu -> 2x2 pool group flattened into a dense layer converts the
    // pooled tensor and its gradient (a quarter of the size each) instead of
    // libdxrt reordering the convolution's output and its gradient (twice)
    // inside the calls. A global pooling reads (and its gradient makes) the
    // whole activation, which costs what it saves: such a group stays NCHW.
    auto blocked = [&](Value v) {
      auto t = ttype(v);
      Value root = find(v);
      if (t.isDynamicDim(1) || t.getDimSize(1) <= 0 || t.getDimSize(1) % channelBlock != 0) return false;
      const int64_t others = otherFloats.lookup(root), saved = convFloats.lookup(root);
      if (others == 0) return convs.lookup(root) >= 2;
      return others < kUnknown && saved < kUnknown && 2 * others < saved;
    };
    mlir::Builder attrs(&getContext());
    getOperation().walk([&](Operation *op) {
      for (auto &[role, v] : roles(op))
        if (blocked(v)) op->setAttr(("dx.blocked_" + role).str(), attrs.getI64IntegerAttr(channelBlock));
      if (auto v = sameLayout(op); !v.empty() && blocked(v.front()))
        op->setAttr("dx.blocked", attrs.getI64IntegerAttr(channelBlock));
    });
  }

  void lowerAll() {
    fuseConvBackward();
    fuseConvForwardGradWeight();
    llvm::SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (op->getDialect() && op->getDialect()->getNamespace() == "dx") ops.push_back(op);
    });
    for (Operation *op : ops) {
      auto it = lowerings().find(op->getName().getStringRef());
      if (it == lowerings().end()) {
        op->emitError("no CPU lowering for '") << op->getName() << "'";
        return signalPassFailure();
      }
      OpBuilder b(op);
      llvm::SmallVector<Value> results;
      if (mlir::failed(it->second(b, op, results))) return signalPassFailure();
      op->replaceAllUsesWith(results);
      op->erase();
    }
  }
};

} // namespace

std::unique_ptr<mlir::Pass> createLowerDxPass() { return std::make_unique<LowerDxPass>(); }
void registerLowerDxPass() { mlir::PassRegistration<LowerDxPass>(); }

} // namespace dx
