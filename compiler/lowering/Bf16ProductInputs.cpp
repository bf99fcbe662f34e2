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

// The library kernels whose operands x and dy (named as the kernels name
// them) are inputs of matrix products, which round them to bf16 in bf16
// precision (runtime/include/dxrt/kernels.h): which argument is which (-1:
// none), and whether the call reads it in the backward pass although the
// forward pass computed it (x of a weight gradient; dy of
// _forward_grad_weight, a transposed convolution's input), so that the
// value is kept in between. _forward_grad_weight's x is the transposed
// convolution's output gradient: computed where it is read.
struct ProductKernel {
  llvm::StringLiteral name;
  int xArg, dyArg;
  bool xKept, dyKept;
  bool weightGradient; // the kernel is a weight gradient and nothing else
};
constexpr ProductKernel kKernels[] = {
    {"dxrt_dense_forward", 0, -1, false, false, false},
    {"dxrt_dense_grad_input", -1, 0, false, false, false},
    {"dxrt_dense_grad_weight", 1, 0, true, false, true},
    {"dxrt_conv2d_forward", 0, -1, false, false, false},
    {"dxrt_conv2d_grad_input", -1, 0, false, false, false},
    {"dxrt_conv2d_grad_weight", 1, 0, true, false, true},
    {"dxrt_conv2d_backward", 1, 0, true, false, false},
    {"dxrt_conv2d_forward_grad_weight", 0, 2, false, true, false},
    {"dxrt_conv2d_forward_blocked", 0, -1, false, false, false},
    {"dxrt_conv2d_grad_input_blocked", -1, 0, false, false, false},
    {"dxrt_conv2d_grad_weight_blocked", 1, 0, true, false, true},
    {"dxrt_conv2d_backward_blocked", 1, 0, true, false, false},
    {"dxrt_conv2d_forward_grad_weight_blocked", 0, 2, false, true, false},
};

const ProductKernel *productKernel(llvm::StringRef callee) {
  for (const ProductKernel &k : kKernels)
    if (k.name == callee) return &k;
  return nullptr;
}

// The twin of kernel k that takes the operands `bf16Args` in bf16.
std::string twinName(const ProductKernel &k, llvm::ArrayRef<unsigned> bf16Args) {
  const bool x = llvm::is_contained(bf16Args, unsigned(k.xArg)), dy = llvm::is_contained(bf16Args, unsigned(k.dyArg));
  return (k.name + (x && dy ? "_bf16xdy" : x ? "_bf16x" : "_bf16dy")).str();
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

// One product call's operand: the call, the operand, and the
// bufferization.to_memref under the memref.cast feeding it (null when the
// cast reads an allocation directly).
struct Use {
  mlir::func::CallOp call;
  unsigned operand;
  mlir::bufferization::ToMemrefOp toMemref;
};

// Every product call's operand, grouped by what holds it: the tensor a
// to_memref reads, or the allocation a cast reads (a library kernel's result
// that canonicalization handed on as a memref). Other readers of the value
// are not in the group; tensorOnlyFeedsProducts and allocProducer look for
// them.
struct Group {
  llvm::SmallVector<Use> uses;
  bool kept = false;               // some call reads it in the backward pass (xKept / dyKept)
  bool keptAsDy = false;           // ... as dy: a transposed convolution's input
  bool weightGradientsOnly = true; // every call is a weight gradient
};

// The calls to redirect to their twins: for each call, its operands that
// now read bf16 and the bf16 memrefs they read.
using Redirects = llvm::MapVector<mlir::Operation *, llvm::SmallVector<std::pair<unsigned, Value>>>;

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

// The bf16 memref the call of `use` reads in place of its fp32 operand: a
// to_memref of xb (a bf16 tensor), or xb itself (a bf16 allocation), cast
// to the kernel's argument type, just before the call.
Value bf16Argument(const Use &use, Value xb) {
  OpBuilder b(use.call);
  mlir::Location loc = use.call->getLoc();
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
  return b.create<mlir::memref::CastOp>(loc, lower::kernelMemRef(bf16, rank), mem);
}

// The call replaced by its twin reading the operands `args` in bf16; the
// fp32 operands' casts and to_memrefs go where nothing else reads them.
void redirect(mlir::func::CallOp call, llvm::ArrayRef<std::pair<unsigned, Value>> bf16Args) {
  const ProductKernel *k = productKernel(call.getCallee());
  llvm::SmallVector<Value> args(call.getOperands());
  llvm::SmallVector<unsigned> which;
  for (auto [i, v] : bf16Args) args[i] = v, which.push_back(i);
  OpBuilder b(call);
  const std::string name = twinName(*k, which);
  b.create<mlir::func::CallOp>(
      call.getLoc(), lower::kernelDeclaration(call->getParentOfType<mlir::ModuleOp>(), call.getLoc(), name, args),
      args);
  llvm::SmallVector<Value> old;
  for (auto [i, v] : bf16Args) old.push_back(call.getOperand(i));
  call.erase();
  for (Value v : old) {
    auto cast = v.getDefiningOp<mlir::memref::CastOp>();
    if (!cast || !cast->use_empty()) continue;
    auto tm = cast.getSource().getDefiningOp<mlir::bufferization::ToMemrefOp>();
    cast.erase();
    if (tm && tm->use_empty()) tm.erase();
  }
}

// Whether `use` is one of the group's operands.
bool isGroupOperand(const Group &g, mlir::OpOperand &use) {
  return llvm::any_of(g.uses,
                      [&](const Use &u) { return u.call == use.getOwner() && u.operand == use.getOperandNumber(); });
}

// The value held as tensor t: every use of t is a to_memref of one of the
// group's calls or a tensor.dim. Not a relu's mask in the backward pass,
// although it only tests x's sign: reading a bf16 x, the mask's gradient
// can no longer be written in place over x, and a step's peak memory (in
// the backward pass) grew (the Fashion MLP's 161 -> 193 KiB, a ResNet-18's
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

// The linalg.generic that computes t, directly or through reshapes that
// nothing else reads (a flatten, a unit block dimension), where it writes
// that result without reading its initial value: then it can yield bf16
// itself. The reshapes, t's first, go to `reshapes`; `rewritten` are
// generics already rebuilt (whose results have handed their uses on): t
// may no longer be theirs, and `stale` says so.
mlir::linalg::GenericOp fusableProducer(Value t, llvm::ArrayRef<mlir::Operation *> rewritten,
                                        llvm::SmallVectorImpl<mlir::Operation *> &reshapes, bool &stale) {
  stale = false;
  Value v = t;
  while (mlir::Operation *def = v.getDefiningOp()) {
    if (!mlir::isa<mlir::tensor::CollapseShapeOp, mlir::tensor::ExpandShapeOp>(def)) break;
    reshapes.push_back(def);
    v = def->getOperand(0);
    if (!v.hasOneUse()) return {};
  }
  auto g = v.getDefiningOp<mlir::linalg::GenericOp>();
  if (!g) return {};
  stale = llvm::is_contained(rewritten, g.getOperation());
  if (stale || g.payloadUsesValueFromOperand(g.getDpsInitOperand(mlir::cast<mlir::OpResult>(v).getResultNumber())))
    return {};
  return g;
}

// Whether t is a reshape (of a reshape ...) of a tensor that something else
// reads too.
bool reshapeOfSharedTensor(Value t) {
  for (mlir::Operation *def = t.getDefiningOp();
       def && mlir::isa<mlir::tensor::CollapseShapeOp, mlir::tensor::ExpandShapeOp>(def);
       def = def->getOperand(0).getDefiningOp())
    if (!def->getOperand(0).hasOneUse()) return true;
  return false;
}

// What --remarks shows for each value stored in bf16, at the .dx place of
// the op that produces it: one kept for the backward pass, or a gradient.
const char *remark(const Group &g) {
  return g.kept ? "activation stored in bf16: only convolutions and dense layers read it"
                : "gradient stored in bf16: only weight gradients read it";
}

// The value held as tensor t stored in bf16: its producer yields bf16
// (`generic`, through `reshapes`, both rebuilt on bf16: fusableProducer),
// or, without one, a rounding generic follows t. The group's calls are
// queued in `redirects`; what is left of t's uses are sizes (tensor.dim),
// which read the bf16 tensor where it exists. The ops that die once the
// calls are redirected go to `dead`.
void roundTensor(Value t, Group &g, mlir::linalg::GenericOp generic, llvm::ArrayRef<mlir::Operation *> reshapes,
                 Redirects &redirects, llvm::SmallVectorImpl<mlir::Operation *> &dead) {
  mlir::emitRemark(t.getLoc(), remark(g));
  Value xb;
  if (generic) {
    Value root = reshapes.empty() ? t : reshapes.back()->getOperand(0);
    xb = roundInProducer(generic, mlir::cast<mlir::OpResult>(root).getResultNumber());
    for (mlir::Operation *r : llvm::reverse(reshapes)) {
      OpBuilder b(r);
      mlir::Operation *c = b.clone(*r);
      c->setOperand(0, xb);
      auto type = mlir::cast<mlir::RankedTensorType>(r->getResult(0).getType());
      c->getResult(0).setType(mlir::RankedTensorType::get(type.getShape(), b.getBF16Type(), type.getEncoding()));
      xb = c->getResult(0);
    }
    t.replaceUsesWithIf(xb, [](mlir::OpOperand &o) { return mlir::isa<mlir::tensor::DimOp>(o.getOwner()); });
    dead.append(reshapes.begin(), reshapes.end());
    dead.push_back(generic);
  } else {
    OpBuilder b(t.getContext());
    b.setInsertionPointAfterValue(t);
    mlir::Location loc = t.getLoc();
    auto tt = mlir::cast<mlir::RankedTensorType>(t.getType());
    auto bf16Type = mlir::RankedTensorType::get(tt.getShape(), b.getBF16Type(), tt.getEncoding());
    Value empty = lower::emptyTensor(b, loc, bf16Type, {t});
    mlir::Operation *rounding = roundingGeneric(b, loc, bf16Type, t, empty);
    xb = rounding->getResult(0);
    // Sizes read after the rounding read the bf16 tensor: a tensor.dim of t
    // there would keep t's buffer alive.
    t.replaceUsesWithIf(xb, [&](mlir::OpOperand &o) {
      return mlir::isa<mlir::tensor::DimOp>(o.getOwner()) && o.getOwner()->getBlock() == rounding->getBlock() &&
             rounding->isBeforeInBlock(o.getOwner());
    });
  }
  for (const Use &u : g.uses) redirects[u.call].push_back({u.operand, bf16Argument(u, xb)});
}

// The value held as allocation a, written by one library call before the
// group's calls (through a cast that call may share with them): every other
// use is one of the group's calls, or a to_tensor nothing reads.
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

void roundAlloc(mlir::memref::AllocOp a, mlir::func::CallOp producer, Group &g, Redirects &redirects) {
  mlir::emitRemark(producer.getLoc(), remark(g));
  OpBuilder b(producer);
  b.setInsertionPointAfter(producer);
  mlir::Location loc = producer.getLoc();
  auto bf16Type = mlir::MemRefType::get(a.getType().getShape(), b.getBF16Type());
  auto ab = b.create<mlir::memref::AllocOp>(loc, bf16Type, a.getDynamicSizes(), a.getAlignmentAttr());
  roundingGeneric(b, loc, mlir::TypeRange{}, a, ab);
  for (const Use &u : g.uses) redirects[u.call].push_back({u.operand, bf16Argument(u, ab)});
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
        if (!k) return;
        for (auto [arg, kept] : {std::pair{k->xArg, k->xKept}, {k->dyArg, k->dyKept}}) {
          if (arg < 0 || call.getNumOperands() <= unsigned(arg)) continue;
          auto cast = call.getOperand(arg).getDefiningOp<mlir::memref::CastOp>();
          if (!cast) continue;
          Value src = cast.getSource();
          auto tm = src.getDefiningOp<mlir::bufferization::ToMemrefOp>();
          Group &g = groups[tm ? tm.getTensor() : src];
          g.uses.push_back({call, unsigned(arg), tm});
          g.kept |= kept;
          g.keptAsDy |= kept && arg == k->dyArg;
          g.weightGradientsOnly &= k->weightGradient;
        }
      });
      // Decide every group before changing anything: a call may read two
      // groups' values (x and dy), and is redirected once, below.
      Redirects redirects;
      llvm::SmallVector<mlir::Operation *> dead;
      for (auto &[key, g] : groups) {
        auto type = mlir::cast<mlir::ShapedType>(key.getType());
        if (!type.getElementType().isF32()) continue;
        // Where that was measured not to raise the step's peak memory. A
        // value kept from the forward pass to the backward pass holds half
        // the bytes; but a bf16 result cannot be written in place over the
        // fp32 tensor its producer reads last (an fp32 one can), so at the
        // producer it adds half its bytes to what is live. A transient value
        // (a gradient) only pays where that is not the peak: a dy that only
        // weight gradients read (a first layer's; the backward pass is
        // almost done), whose rounding copy oneDNN then makes no more. A
        // convolution's dy that its input gradient reads too raised the
        // peak of the microscopy CNN by 1.5 MiB and a ResNet-18's by 3.8, a
        // transposed convolution's input (kept, read as dy) that of atomfind
        // by 3.0 and the CVAE's by 1.0, for steps 1-2% faster.
        if (g.keptAsDy || (!g.kept && !g.weightGradientsOnly)) continue;
        if (mlir::isa<mlir::RankedTensorType>(type)) {
          llvm::SmallVector<mlir::Operation *> reshapes;
          bool stale = false;
          mlir::linalg::GenericOp producer = fusableProducer(key, dead, reshapes, stale);
          // A generic yielding two such values is rebuilt for the first
          // only (key, its other result, has handed its uses on).
          if (stale) continue;
          // A transient value only where its producer writes bf16 itself
          // (no fp32 write, no rounding copy in the library); any value
          // only where the fp32 tensor dies: not a reshape of a tensor
          // something else reads (a relu's output its mask reads too,
          // before a flatten), which would keep both.
          if (computedInStep(key) && tensorOnlyFeedsProducts(key, g) && (g.kept || producer) &&
              (producer || !reshapeOfSharedTensor(key)))
            roundTensor(key, g, producer, reshapes, redirects, dead);
        } else if (auto a = key.getDefiningOp<mlir::memref::AllocOp>()) {
          // A rounding loop after a library kernel costs what the library's
          // rounding costs: only for a value kept for the backward pass.
          if (mlir::func::CallOp producer = g.kept ? allocProducer(a, g) : mlir::func::CallOp())
            roundAlloc(a, producer, g, redirects);
        }
      }
      for (auto &[call, args] : redirects) redirect(mlir::cast<mlir::func::CallOp>(call), args);
      for (mlir::Operation *op : dead) {
        if (!op->use_empty()) {
          op->emitError("dx-bf16-product-inputs: internal error: a rewritten producer still has readers");
          return signalPassFailure();
        }
        op->erase();
      }
    });
  }
};

} // namespace

std::unique_ptr<mlir::Pass> createBf16ProductInputsPass() { return std::make_unique<Bf16ProductInputsPass>(); }
void registerBf16ProductInputsPass() { mlir::PassRegistration<Bf16ProductInputsPass>(); }

} // namespace dx
