#include "lowering/Bf16ProductInputs.h"

#include "lowering/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/MapVector.h"

namespace dx {
namespace {

using mlir::OpBuilder;
using mlir::Value;
namespace arith = mlir::arith;

// The library kernels that read an activation x as a product's input: which
// argument is x, and whether the kernel is (part of) a weight gradient,
// which reads x again in the backward pass (runtime/include/dxrt/kernels.h).
struct ProductKernel {
  llvm::StringLiteral name;
  unsigned xArg;
  bool backward;
};
constexpr ProductKernel kKernels[] = {
    {"dxrt_dense_forward", 0, false},
    {"dxrt_dense_grad_weight", 1, true},
    {"dxrt_conv2d_forward", 0, false},
    {"dxrt_conv2d_grad_weight", 1, true},
    {"dxrt_conv2d_backward", 1, true},
    {"dxrt_conv2d_forward_grad_weight", 0, true},
    {"dxrt_conv2d_forward_blocked", 0, false},
    {"dxrt_conv2d_grad_weight_blocked", 1, true},
    {"dxrt_conv2d_backward_blocked", 1, true},
    {"dxrt_conv2d_forward_grad_weight_blocked", 0, true},
};
constexpr llvm::StringLiteral kSuffix = "_bf16x";

const ProductKernel *productKernel(llvm::StringRef callee) {
  for (const ProductKernel &k : kKernels)
    if (k.name == callee) return &k;
  return nullptr;
}

// f rounded to bf16 as runtime/kernels/Bf16Round.h's round_bf16_bits does
// (VCVTNEPS2BF16): to nearest, ties to even; a NaN stays a quiet NaN; a
// denormal becomes a zero of its sign. Integer operations, so that every
// CPU vectorizes it the same way and the bits are the library's.
Value roundToBf16(OpBuilder &b, mlir::Location l, Value f) {
  auto c = [&](uint32_t v) -> Value { return b.create<arith::ConstantOp>(l, b.getI32IntegerAttr(int32_t(v))); };
  auto andi = [&](Value a, uint32_t m) -> Value { return b.create<arith::AndIOp>(l, a, c(m)); };
  Value u = b.create<arith::BitcastOp>(l, b.getI32Type(), f);
  Value hi = b.create<arith::ShRUIOp>(l, u, c(16));
  Value isNan = b.create<arith::CmpIOp>(l, arith::CmpIPredicate::ugt, andi(u, 0x7fffffffu), c(0x7f800000u));
  Value nanBits = b.create<arith::OrIOp>(l, hi, c(0x40u));
  Value isTiny = b.create<arith::CmpIOp>(l, arith::CmpIPredicate::eq, andi(u, 0x7f800000u), c(0));
  Value zeroBits = andi(hi, 0x8000u);
  Value biased = b.create<arith::AddIOp>(l, b.create<arith::AddIOp>(l, u, c(0x7fffu)), andi(hi, 1u));
  Value rounded = b.create<arith::ShRUIOp>(l, biased, c(16));
  Value bits = b.create<arith::SelectOp>(l, isNan, nanBits, b.create<arith::SelectOp>(l, isTiny, zeroBits, rounded));
  Value half = b.create<arith::TruncIOp>(l, b.getI16Type(), bits);
  return b.create<arith::BitcastOp>(l, b.getBF16Type(), half);
}

// One product call's x: the call, its operand, the memref.cast feeding it
// and the bufferization.to_memref under that (null when the cast reads an
// allocation directly).
struct Use {
  mlir::func::CallOp call;
  unsigned operand;
  mlir::memref::CastOp cast;
  mlir::bufferization::ToMemrefOp toMemref;
};

// Every product call's x, grouped by what holds it: the tensor a to_memref
// reads, or the allocation a cast reads (a library kernel's result that
// canonicalization handed on as a memref). Other readers of x are not in the
// group; tensorOnlyFeedsProducts and allocProducer look for them.
struct Group {
  llvm::SmallVector<Use> uses;
  bool backward = false;
};

// Whether tensor t is a value the step computes (so rounding it frees its
// fp32 buffer): a linalg op's, a (un)pack's or a library kernel's result,
// possibly reshaped. Not a function argument or a view of one (the batch).
bool computedInStep(Value t) {
  mlir::Operation *def = t.getDefiningOp();
  while (def && mlir::isa<mlir::tensor::CollapseShapeOp, mlir::tensor::ExpandShapeOp>(def))
    def = def->getOperand(0).getDefiningOp();
  if (!def) return false;
  if (mlir::isa<mlir::linalg::LinalgOp, mlir::tensor::PackOp, mlir::tensor::UnPackOp>(def)) return true;
  if (auto tt = mlir::dyn_cast<mlir::bufferization::ToTensorOp>(def))
    return tt.getMemref().getDefiningOp<mlir::memref::AllocOp>() != nullptr;
  return false;
}

mlir::linalg::GenericOp roundingGeneric(OpBuilder &b, mlir::Location loc, mlir::TypeRange results, Value in,
                                        Value out) {
  const int64_t rank = mlir::cast<mlir::ShapedType>(in.getType()).getRank();
  auto id = b.getMultiDimIdentityMap(rank);
  llvm::SmallVector<mlir::utils::IteratorType> iters(rank, mlir::utils::IteratorType::parallel);
  return b.create<mlir::linalg::GenericOp>(
      loc, results, mlir::ValueRange{in}, mlir::ValueRange{out}, llvm::ArrayRef<mlir::AffineMap>{id, id}, iters,
      [](OpBuilder &nb, mlir::Location nl, mlir::ValueRange args) {
        nb.create<mlir::linalg::YieldOp>(nl, roundToBf16(nb, nl, args[0]));
      });
}

// The generic that yields t (result r) rebuilt to yield it in bf16, the
// rounding at the end of its body; the other results stay. Null when the
// generic reads t's initial value (then the rounding is a loop of its own).
Value roundInProducer(mlir::linalg::GenericOp g, unsigned r) {
  mlir::OpOperand *init = g.getDpsInitOperand(r);
  if (g.payloadUsesValueFromOperand(init)) return {};
  OpBuilder b(g);
  mlir::Location loc = g.getLoc();
  auto type = mlir::cast<mlir::RankedTensorType>(g->getResult(r).getType());
  auto bf16Type = mlir::RankedTensorType::get(type.getShape(), b.getBF16Type(), type.getEncoding());
  llvm::SmallVector<Value> outs(g.getDpsInits());
  outs[r] = lower::emptyTensor(b, loc, bf16Type, {init->get()});
  llvm::SmallVector<mlir::Type> types(g->getResultTypes());
  types[r] = bf16Type;
  auto ng = b.create<mlir::linalg::GenericOp>(loc, types, g.getDpsInputs(), outs, g.getIndexingMapsArray(),
                                              g.getIteratorTypesArray());
  ng->setDiscardableAttrs(g->getDiscardableAttrDictionary());
  ng.getRegion().takeBody(g.getRegion());
  mlir::Block &body = ng.getRegion().front();
  body.getArgument(g.getNumDpsInputs() + r).setType(b.getBF16Type());
  mlir::Operation *yield = body.getTerminator();
  b.setInsertionPoint(yield);
  yield->setOperand(r, roundToBf16(b, yield->getLoc(), yield->getOperand(r)));
  for (unsigned i = 0; i < g->getNumResults(); ++i)
    if (i != r) g->getResult(i).replaceAllUsesWith(ng->getResult(i));
  return ng->getResult(r);
}

// The product call `use` redirected to its _bf16x twin with x = xb (a bf16
// tensor, or a bf16 memref).
void redirect(const Use &use, Value xb) {
  mlir::func::CallOp call = use.call;
  OpBuilder b(call);
  mlir::Location loc = call.getLoc();
  auto bf16 = b.getBF16Type();
  Value mem = xb;
  if (auto t = mlir::dyn_cast<mlir::RankedTensorType>(xb.getType())) {
    llvm::SmallVector<int64_t> strides(t.getRank(), mlir::ShapedType::kDynamic);
    auto viewType = mlir::MemRefType::get(
        t.getShape(), bf16, mlir::StridedLayoutAttr::get(b.getContext(), mlir::ShapedType::kDynamic, strides));
    auto m = b.create<mlir::bufferization::ToMemrefOp>(loc, viewType, xb, /*read_only=*/true);
    // One to_memref per call, as callKernel makes them (LoweringUtils.cpp).
    if (use.toMemref) m->setAttr("dx.kernel_arg", use.toMemref->getAttr("dx.kernel_arg"));
    mem = m;
  }
  const int64_t rank = mlir::cast<mlir::ShapedType>(xb.getType()).getRank();
  Value arg = b.create<mlir::memref::CastOp>(loc, lower::kernelMemRef(bf16, rank), mem);
  llvm::SmallVector<Value> args(call.getOperands());
  args[use.operand] = arg;
  const std::string name = (call.getCallee() + kSuffix).str();
  b.create<mlir::func::CallOp>(loc, lower::kernelDeclaration(call->getParentOfType<mlir::ModuleOp>(), loc, name, args),
                               args);
  call.erase();
  mlir::memref::CastOp cast = use.cast;
  if (cast->use_empty()) cast.erase();
  if (use.toMemref && use.toMemref->use_empty()) use.toMemref->erase();
}

// Whether `use` is the x operand of one of the group's calls.
bool isGroupOperand(const Group &g, mlir::OpOperand &use) {
  return llvm::any_of(g.uses,
                      [&](const Use &u) { return u.call == use.getOwner() && u.operand == use.getOperandNumber(); });
}

// x held as tensor t: every use of t is a to_memref of one of the group's
// calls or a tensor.dim. Not a relu's mask in the backward pass, although
// it only tests x's sign: reading a bf16 x, the mask's gradient can no
// longer be written in place over x, and a step's peak memory (in the
// backward pass) grew (the Fashion MLP's 161 -> 193 KiB, a ResNet-18's
// 93.3 -> 96.8 MiB).
bool tensorOnlyFeedsProducts(Value t, const Group &g) {
  for (mlir::Operation *user : t.getUsers()) {
    if (mlir::isa<mlir::tensor::DimOp>(user)) continue;
    auto tm = mlir::dyn_cast<mlir::bufferization::ToMemrefOp>(user);
    if (!tm || !llvm::any_of(g.uses, [&](const Use &u) { return u.toMemref == tm; })) return false;
    for (mlir::Operation *castUser : tm->getUsers()) {
      auto cast = mlir::dyn_cast<mlir::memref::CastOp>(castUser);
      if (!cast) return false;
      for (mlir::OpOperand &use : cast->getUses())
        if (!isGroupOperand(g, use)) return false;
    }
  }
  return true;
}

// What --remarks shows for each activation stored in bf16, at the .dx place
// of the op that produces it.
constexpr const char *kRemark = "activation stored in bf16: only convolutions and dense layers read it";

void roundTensor(Value t, Group &g) {
  mlir::emitRemark(t.getLoc(), kRemark);
  auto generic = t.getDefiningOp<mlir::linalg::GenericOp>();
  Value xb = generic ? roundInProducer(generic, mlir::cast<mlir::OpResult>(t).getResultNumber()) : Value();
  if (xb) {
    for (const Use &u : g.uses) redirect(u, xb);
    // What is left are sizes (tensor.dim), the same for the bf16 tensor.
    t.replaceAllUsesWith(xb);
    generic.erase();
    return;
  }
  OpBuilder b(t.getContext());
  b.setInsertionPointAfterValue(t);
  mlir::Location loc = t.getLoc();
  auto tt = mlir::cast<mlir::RankedTensorType>(t.getType());
  auto bf16Type = mlir::RankedTensorType::get(tt.getShape(), b.getBF16Type(), tt.getEncoding());
  Value empty = lower::emptyTensor(b, loc, bf16Type, {t});
  mlir::Operation *rounding = roundingGeneric(b, loc, bf16Type, t, empty);
  xb = rounding->getResult(0);
  for (const Use &u : g.uses) redirect(u, xb);
  // Sizes read after the rounding read the bf16 tensor: a tensor.dim of t
  // there would keep t's buffer alive.
  t.replaceUsesWithIf(xb, [&](mlir::OpOperand &o) {
    return mlir::isa<mlir::tensor::DimOp>(o.getOwner()) && o.getOwner()->getBlock() == rounding->getBlock() &&
           rounding->isBeforeInBlock(o.getOwner());
  });
}

// x held as allocation a, written by one library call before the group's
// calls (through a cast that call may share with them): every other use is
// one of the group's calls, or a to_tensor nothing reads.
mlir::func::CallOp allocProducer(mlir::memref::AllocOp a, const Group &g) {
  mlir::func::CallOp producer;
  for (mlir::Operation *user : a->getUsers()) {
    if (auto tt = mlir::dyn_cast<mlir::bufferization::ToTensorOp>(user)) {
      if (!tt->use_empty()) return {};
      continue;
    }
    auto cast = mlir::dyn_cast<mlir::memref::CastOp>(user);
    if (!cast) return {};
    for (mlir::OpOperand &use : cast->getUses()) {
      if (isGroupOperand(g, use)) continue;
      auto call = mlir::dyn_cast<mlir::func::CallOp>(use.getOwner());
      if (!call || (producer && producer != call)) return {};
      producer = call;
    }
  }
  if (!producer || producer->getBlock() != a->getBlock()) return {};
  for (const Use &u : g.uses)
    if (u.call->getBlock() != producer->getBlock() || !producer->isBeforeInBlock(u.call)) return {};
  return producer;
}

void roundAlloc(mlir::memref::AllocOp a, mlir::func::CallOp producer, Group &g) {
  mlir::emitRemark(producer.getLoc(), kRemark);
  OpBuilder b(producer);
  b.setInsertionPointAfter(producer);
  mlir::Location loc = producer.getLoc();
  auto bf16Type = mlir::MemRefType::get(a.getType().getShape(), b.getBF16Type());
  auto ab = b.create<mlir::memref::AllocOp>(loc, bf16Type, a.getDynamicSizes(), a.getAlignmentAttr());
  roundingGeneric(b, loc, mlir::TypeRange{}, a, ab);
  for (const Use &u : g.uses) redirect(u, ab);
}

struct Bf16ProductInputsPass : mlir::PassWrapper<Bf16ProductInputsPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(Bf16ProductInputsPass)
  llvm::StringRef getArgument() const override { return "dx-bf16-product-inputs"; }
  llvm::StringRef getDescription() const override {
    return "Store activations that only matrix products read, and a weight gradient reads again, in bf16";
  }
  void getDependentDialects(mlir::DialectRegistry &registry) const override {
    registry.insert<mlir::arith::ArithDialect, mlir::linalg::LinalgDialect, mlir::tensor::TensorDialect,
                    mlir::memref::MemRefDialect, mlir::bufferization::BufferizationDialect>();
  }

  void runOnOperation() override {
    getOperation().walk([&](mlir::func::FuncOp fn) {
      if (fn.isExternal()) return;
      llvm::MapVector<Value, Group> groups;
      fn.walk([&](mlir::func::CallOp call) {
        const ProductKernel *k = productKernel(call.getCallee());
        if (!k || call.getNumOperands() <= k->xArg) return;
        auto cast = call.getOperand(k->xArg).getDefiningOp<mlir::memref::CastOp>();
        if (!cast) return;
        Value src = cast.getSource();
        auto tm = src.getDefiningOp<mlir::bufferization::ToMemrefOp>();
        Value key = tm ? tm.getTensor() : src;
        Group &g = groups[key];
        g.uses.push_back({call, k->xArg, cast, tm});
        g.backward |= k->backward;
      });
      for (auto &[key, g] : groups) {
        auto type = mlir::cast<mlir::ShapedType>(key.getType());
        if (!g.backward || !type.getElementType().isF32()) continue;
        if (mlir::isa<mlir::RankedTensorType>(type)) {
          if (computedInStep(key) && tensorOnlyFeedsProducts(key, g)) roundTensor(key, g);
        } else if (auto a = key.getDefiningOp<mlir::memref::AllocOp>()) {
          if (mlir::func::CallOp producer = allocProducer(a, g)) roundAlloc(a, producer, g);
        }
      }
    });
  }
};

} // namespace

std::unique_ptr<mlir::Pass> createBf16ProductInputsPass() { return std::make_unique<Bf16ProductInputsPass>(); }
void registerBf16ProductInputsPass() { mlir::PassRegistration<Bf16ProductInputsPass>(); }

} // namespace dx
