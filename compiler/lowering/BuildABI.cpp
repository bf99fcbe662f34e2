#include "lowering/BuildABI.h"
#include "lowering/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cmath>

namespace dx {
namespace {

using mlir::Location;
using mlir::OpBuilder;
using mlir::Value;
namespace arith = mlir::arith;

struct Slot {
  std::string name;
  mlir::RankedTensorType type;
  int64_t offset = 0, size = 0;
  std::string init;
  int64_t fanIn = 0;
};

struct Layout {
  std::vector<Slot> params, buffers;
  int64_t paramFloats = 0, bufferFloats = 0;
  const Slot *find(const std::vector<Slot> &v, llvm::StringRef n) const {
    for (const Slot &s : v)
      if (s.name == n) return &s;
    return nullptr;
  }
};

Layout layoutOf(mlir::func::FuncOp fn) {
  Layout l;
  for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
    auto name = fn.getArgAttrOfType<mlir::StringAttr>(i, "dx.param");
    if (!name) continue;
    Slot s;
    s.name = name.str();
    s.type = mlir::cast<mlir::RankedTensorType>(fn.getArgument(i).getType());
    s.size = s.type.getNumElements();
    if (auto init = fn.getArgAttrOfType<mlir::StringAttr>(i, "dx.init")) s.init = init.str();
    if (auto fan = fn.getArgAttrOfType<mlir::IntegerAttr>(i, "dx.fan_in")) s.fanIn = fan.getInt();
    bool buffer = static_cast<bool>(fn.getArgAttr(i, "dx.buffer"));
    int64_t &total = buffer ? l.bufferFloats : l.paramFloats;
    // Keep each parameter 16-float (64-byte) aligned within the arena.
    total = (total + 15) / 16 * 16;
    s.offset = total;
    total += s.size;
    (buffer ? l.buffers : l.params).push_back(s);
  }
  return l;
}

llvm::SmallVector<int64_t> canonicalStrides(llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t k = static_cast<int64_t>(shape.size()) - 2; k >= 0; --k) strides[k] = strides[k + 1] * shape[k + 1];
  return strides;
}

// A view of `arena` at `offset` with the static shape of `t`.
Value arenaView(OpBuilder &b, Location loc, Value arena, int64_t offset, mlir::RankedTensorType t) {
  auto strides = canonicalStrides(t.getShape());
  auto layout = mlir::StridedLayoutAttr::get(b.getContext(), offset, strides);
  auto type = mlir::MemRefType::get(t.getShape(), t.getElementType(), layout);
  llvm::SmallVector<mlir::OpFoldResult> sizes, strideFold;
  for (int64_t d : t.getShape()) sizes.push_back(b.getIndexAttr(d));
  for (int64_t s : strides) strideFold.push_back(b.getIndexAttr(s));
  return b.create<mlir::memref::ReinterpretCastOp>(loc, type, arena, b.getIndexAttr(offset), sizes, strideFold);
}

// A view of a batch memref as `t`, whose dim 0 is the dynamic batch.
// A [batch, ...] view of a flat buffer, starting at element `offset` (null:
// at 0, with the identity layout).
Value batchView(OpBuilder &b, Location loc, Value flat, Value batch, mlir::RankedTensorType t, Value offset = {}) {
  llvm::SmallVector<int64_t> perSample(t.getShape().drop_front());
  int64_t sample = 1;
  for (int64_t d : perSample) sample *= d;
  llvm::SmallVector<mlir::OpFoldResult> sizes = {batch}, strides = {b.getIndexAttr(sample)};
  llvm::SmallVector<int64_t> staticStrides = {sample};
  auto inner = canonicalStrides(perSample);
  for (size_t k = 0; k < perSample.size(); ++k) {
    sizes.push_back(b.getIndexAttr(perSample[k]));
    strides.push_back(b.getIndexAttr(inner[k]));
    staticStrides.push_back(inner[k]);
  }
  if (!offset) {
    auto type = mlir::MemRefType::get(t.getShape(), t.getElementType());
    return b.create<mlir::memref::ReinterpretCastOp>(loc, type, flat, b.getIndexAttr(0), sizes, strides);
  }
  auto layout = mlir::StridedLayoutAttr::get(b.getContext(), mlir::ShapedType::kDynamic, staticStrides);
  auto type = mlir::MemRefType::get(t.getShape(), t.getElementType(), layout);
  return b.create<mlir::memref::ReinterpretCastOp>(loc, type, flat, mlir::OpFoldResult(offset), sizes, strides);
}

Value asTensor(OpBuilder &b, Location loc, Value memref, mlir::Type tensorType) {
  return b.create<mlir::bufferization::ToTensorOp>(loc, tensorType, memref, /*restrict=*/true, /*writable=*/false);
}

mlir::Operation *storeInto(OpBuilder &b, Location loc, Value tensor, Value view) {
  auto op = b.create<mlir::bufferization::MaterializeInDestinationOp>(loc, tensor, view);
  op.setRestrict(true);
  op.setWritable(true);
  return op;
}

mlir::MemRefType flat(mlir::Type elem) { return mlir::MemRefType::get({mlir::ShapedType::kDynamic}, elem); }

mlir::func::FuncOp newExport(OpBuilder &b, mlir::ModuleOp module, Location loc, llvm::StringRef name,
                             llvm::ArrayRef<mlir::Type> args, llvm::ArrayRef<mlir::Type> results) {
  b.setInsertionPointToEnd(module.getBody());
  auto fn = b.create<mlir::func::FuncOp>(loc, name, b.getFunctionType(args, results));
  fn->setAttr("llvm.emit_c_interface", b.getUnitAttr());
  b.setInsertionPointToStart(fn.addEntryBlock());
  return fn;
}

// Arguments of an inner function, built from the exported function's memrefs.
llvm::SmallVector<Value> innerArgs(OpBuilder &b, Location loc, mlir::func::FuncOp inner, const Layout &l, Value params,
                                   Value buffers, Value x, Value labels, Value targets, Value batch, Value rng) {
  llvm::SmallVector<Value> args;
  for (unsigned i = 0; i < inner.getNumArguments(); ++i) {
    auto t = mlir::cast<mlir::RankedTensorType>(inner.getArgument(i).getType());
    if (inner.getArgAttr(i, "dx.input")) args.push_back(asTensor(b, loc, batchView(b, loc, x, batch, t), t));
    else if (inner.getArgAttr(i, "dx.labels")) args.push_back(asTensor(b, loc, batchView(b, loc, labels, batch, t), t));
    else if (inner.getArgAttr(i, "dx.targets"))
      args.push_back(asTensor(b, loc, batchView(b, loc, targets, batch, t), t));
    else if (inner.getArgAttr(i, "dx.rng")) args.push_back(rng);
    else {
      auto name = inner.getArgAttrOfType<mlir::StringAttr>(i, "dx.param").getValue();
      bool buffer = static_cast<bool>(inner.getArgAttr(i, "dx.buffer"));
      const Slot *s = l.find(buffer ? l.buffers : l.params, name);
      args.push_back(asTensor(b, loc, arenaView(b, loc, buffer ? buffers : params, s->offset, t), t));
    }
  }
  return args;
}

void buildTrainStep(OpBuilder &b, mlir::ModuleOp module, mlir::func::FuncOp step, const Layout &l) {
  Location loc = step.getLoc();
  auto f32m = flat(b.getF32Type()), i64m = flat(b.getI64Type());
  auto i64 = b.getI64Type();
  auto fn = newExport(b, module, loc, "dx_train_step", {f32m, f32m, f32m, f32m, f32m, i64m, f32m, i64, i64, i64, i64},
                      {b.getF32Type()});
  auto a = fn.getArguments();
  Value batch = b.create<arith::IndexCastOp>(loc, b.getIndexType(), a[7]);
  Value rng = b.create<mlir::tensor::FromElementsOp>(loc, mlir::RankedTensorType::get({3}, i64),
                                                     mlir::ValueRange{a[8], a[9], a[10]});
  auto args = innerArgs(b, loc, step, l, a[0], a[1], a[4], a[5], a[6], batch, rng);
  auto call = b.create<mlir::func::CallOp>(loc, step, args);
  for (unsigned r = 1; r < step.getNumResults(); ++r) {
    auto t = mlir::cast<mlir::RankedTensorType>(call.getResult(r).getType());
    if (auto g = step.getResultAttrOfType<mlir::StringAttr>(r, "dx.grad")) {
      // Where in the gradient arena: dx-grads-ready (GradsReady.h) moves the
      // store up to the gradient's computation and tells the runtime.
      const Slot *slot = l.find(l.params, g.getValue());
      mlir::Operation *store = storeInto(b, loc, call.getResult(r), arenaView(b, loc, a[2], slot->offset, t));
      store->setAttr("dx.grad_offset", b.getI64IntegerAttr(slot->offset));
      store->setAttr("dx.grad_size", b.getI64IntegerAttr(slot->size));
    }
    else if (auto u = step.getResultAttrOfType<mlir::StringAttr>(r, "dx.buffer_update"))
      storeInto(b, loc, call.getResult(r), arenaView(b, loc, a[3], l.find(l.buffers, u.getValue())->offset, t));
  }
  Value loss = b.create<mlir::tensor::ExtractOp>(loc, call.getResult(0), mlir::ValueRange{});
  b.create<mlir::func::ReturnOp>(loc, loss);
}

void buildEvalStep(OpBuilder &b, mlir::ModuleOp module, mlir::func::FuncOp eval, const Layout &l) {
  Location loc = eval.getLoc();
  auto f32m = flat(b.getF32Type()), i64m = flat(b.getI64Type());
  auto fn = newExport(b, module, loc, "dx_eval_step", {f32m, f32m, f32m, i64m, f32m, f32m, b.getI64Type()},
                      {b.getF32Type()});
  auto a = fn.getArguments();
  Value batch = b.create<arith::IndexCastOp>(loc, b.getIndexType(), a[6]);
  auto args = innerArgs(b, loc, eval, l, a[0], a[1], a[2], a[3], a[4], batch, Value());
  auto call = b.create<mlir::func::CallOp>(loc, eval, args);
  // Output k fills [batch * before_k, batch * (before_k + floats_k)) of the
  // outputs buffer, before_k = the per-sample floats of outputs 0..k-1: the
  // first output stays at 0 with rows of its own size.
  int64_t before = 0;
  for (unsigned r = 1; r < call.getNumResults(); ++r) {
    auto outType = mlir::cast<mlir::RankedTensorType>(call.getResult(r).getType());
    Value offset;
    if (before > 0)
      offset = b.create<arith::MulIOp>(loc, batch, b.create<arith::ConstantIndexOp>(loc, before));
    storeInto(b, loc, call.getResult(r), batchView(b, loc, a[5], batch, outType, offset));
    int64_t perSample = 1;
    for (int64_t d : outType.getShape().drop_front()) perSample *= d;
    before += perSample;
  }
  Value loss = b.create<mlir::tensor::ExtractOp>(loc, call.getResult(0), mlir::ValueRange{});
  b.create<mlir::func::ReturnOp>(loc, loss);
}

int64_t stateSlots(const std::string &kind, const llvm::StringMap<double> &h) {
  if (kind == "sgd") return h.lookup("momentum") > 0 ? 1 : 0;
  if (kind == "adam" || kind == "adamw") return 2;
  if (kind == "rmsprop") return 1 + (h.lookup("momentum") > 0 ? 1 : 0) + (h.lookup("centered") != 0 ? 1 : 0);
  if (kind == "lars") return 1;
  return 0;
}

// dx_update(params, grads, state, lr, step): one loop over the arena (LARS:
// one loop per parameter, after computing its two norms), with PyTorch's
// update rules.
mlir::LogicalResult buildUpdate(OpBuilder &b, mlir::ModuleOp module, const Layout &l, const std::string &kind,
                                const llvm::StringMap<double> &h) {
  Location loc = module.getLoc();
  auto f32m = flat(b.getF32Type());
  auto fn = newExport(b, module, loc, "dx_update", {f32m, f32m, f32m, b.getF32Type(), b.getI64Type()}, {});
  auto a = fn.getArguments();
  Value P = a[0], G = a[1], St = a[2], lr = a[3];
  auto c = [&](double v) -> Value { return b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(static_cast<float>(v))); };
  Value firstStep = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, a[4],
                                            b.create<arith::ConstantOp>(loc, b.getI64IntegerAttr(1)));
  Value n = b.create<arith::ConstantIndexOp>(loc, l.paramFloats);
  Value zero = b.create<arith::ConstantIndexOp>(loc, 0), one = b.create<arith::ConstantIndexOp>(loc, 1);
  double wd = h.lookup("weight_decay");

  auto loop = [&](Value lo, Value hi, llvm::function_ref<void(OpBuilder &, Location, Value)> body) {
    b.create<mlir::scf::ForOp>(loc, lo, hi, one, mlir::ValueRange{},
                               [&](OpBuilder &nb, Location nl, Value i, mlir::ValueRange) {
                                 body(nb, nl, i);
                                 nb.create<mlir::scf::YieldOp>(nl);
                               });
  };
  struct E {
    OpBuilder &b;
    Location l;
    Value add(Value x, Value y) { return b.create<arith::AddFOp>(l, x, y); }
    Value sub(Value x, Value y) { return b.create<arith::SubFOp>(l, x, y); }
    Value mul(Value x, Value y) { return b.create<arith::MulFOp>(l, x, y); }
    Value div(Value x, Value y) { return b.create<arith::DivFOp>(l, x, y); }
    Value sqrt(Value x) { return b.create<mlir::math::SqrtOp>(l, x); }
    Value c(double v) { return b.create<arith::ConstantOp>(l, b.getF32FloatAttr(static_cast<float>(v))); }
    Value load(Value m, Value i) { return b.create<mlir::memref::LoadOp>(l, m, mlir::ValueRange{i}); }
    void store(Value v, Value m, Value i) { b.create<mlir::memref::StoreOp>(l, v, m, mlir::ValueRange{i}); }
    Value slot(Value i, int64_t k, int64_t n) {
      return b.create<arith::AddIOp>(l, i, b.create<arith::ConstantIndexOp>(l, k * n));
    }
  };
  int64_t N = l.paramFloats;

  if (kind == "sgd") {
    double m = h.lookup("momentum"), damp = h.lookup("dampening");
    bool nesterov = h.lookup("nesterov") != 0;
    loop(zero, n, [&](OpBuilder &nb, Location nl, Value i) {
      E e{nb, nl};
      Value p = e.load(P, i), g = e.load(G, i);
      if (wd != 0) g = e.add(g, e.mul(e.c(wd), p));
      if (m > 0) {
        Value bi = e.slot(i, 0, N);
        Value buf = e.add(e.mul(e.c(m), e.load(St, bi)), e.mul(e.c(1 - damp), g));
        buf = nb.create<arith::SelectOp>(nl, firstStep, g, buf); // PyTorch starts the buffer at the gradient
        e.store(buf, St, bi);
        g = nesterov ? e.add(g, e.mul(e.c(m), buf)) : buf;
      }
      e.store(e.sub(p, e.mul(lr, g)), P, i);
    });
  } else if (kind == "adam" || kind == "adamw") {
    double b1 = h.lookup("beta1"), b2 = h.lookup("beta2"), eps = h.lookup("eps");
    // The bias corrections in double, as PyTorch computes them (Python
    // floats), then lr / bc1 and sqrt(bc2) rounded to f32 once. In f32,
    // 1 - 0.999^t starts from f32(0.999) = 0.99900001287: 1.3e-5 short of
    // 1 - 0.999 at t = 1, every early update 6.4e-6 too small.
    auto d = [&](double v) -> Value { return b.create<arith::ConstantOp>(loc, b.getF64FloatAttr(v)); };
    Value stepD = b.create<arith::SIToFPOp>(loc, b.getF64Type(), a[4]);
    Value bc1 = b.create<arith::SubFOp>(loc, d(1), b.create<mlir::math::PowFOp>(loc, d(b1), stepD));
    Value bc2 = b.create<arith::SubFOp>(loc, d(1), b.create<mlir::math::PowFOp>(loc, d(b2), stepD));
    Value lrD = b.create<arith::ExtFOp>(loc, b.getF64Type(), lr);
    Value stepSize = b.create<arith::TruncFOp>(loc, b.getF32Type(), b.create<arith::DivFOp>(loc, lrD, bc1));
    Value bc2Sqrt = b.create<arith::TruncFOp>(loc, b.getF32Type(), b.create<mlir::math::SqrtOp>(loc, bc2));
    loop(zero, n, [&](OpBuilder &nb, Location nl, Value i) {
      E e{nb, nl};
      Value p = e.load(P, i), g = e.load(G, i);
      if (kind == "adamw") p = e.mul(p, e.sub(e.c(1), e.mul(lr, e.c(wd))));
      else if (wd != 0) g = e.add(g, e.mul(e.c(wd), p));
      Value mi = e.slot(i, 0, N), vi = e.slot(i, 1, N);
      Value m1 = e.add(e.mul(e.c(b1), e.load(St, mi)), e.mul(e.c(1 - b1), g));
      Value v1 = e.add(e.mul(e.c(b2), e.load(St, vi)), e.mul(e.c(1 - b2), e.mul(g, g)));
      e.store(m1, St, mi);
      e.store(v1, St, vi);
      Value denom = e.add(e.div(e.sqrt(v1), bc2Sqrt), e.c(eps));
      e.store(e.sub(p, e.mul(stepSize, e.div(m1, denom))), P, i);
    });
  } else if (kind == "rmsprop") {
    double rho = h.lookup("rho"), eps = h.lookup("eps"), m = h.lookup("momentum");
    bool centered = h.lookup("centered") != 0;
    loop(zero, n, [&](OpBuilder &nb, Location nl, Value i) {
      E e{nb, nl};
      Value p = e.load(P, i), g = e.load(G, i);
      if (wd != 0) g = e.add(g, e.mul(e.c(wd), p));
      Value si = e.slot(i, 0, N);
      Value sq = e.add(e.mul(e.c(rho), e.load(St, si)), e.mul(e.c(1 - rho), e.mul(g, g)));
      e.store(sq, St, si);
      Value avg = sq;
      int64_t next = 1;
      if (centered) {
        Value gi = e.slot(i, next++, N);
        Value ga = e.add(e.mul(e.c(rho), e.load(St, gi)), e.mul(e.c(1 - rho), g));
        e.store(ga, St, gi);
        avg = e.sub(sq, e.mul(ga, ga));
      }
      avg = e.add(e.sqrt(avg), e.c(eps));
      if (m > 0) {
        Value bi = e.slot(i, next, N);
        Value buf = e.add(e.mul(e.c(m), e.load(St, bi)), e.div(g, avg));
        e.store(buf, St, bi);
        e.store(e.sub(p, e.mul(lr, buf)), P, i);
      } else {
        e.store(e.sub(p, e.mul(lr, e.div(g, avg))), P, i);
      }
    });
  } else if (kind == "lars") {
    // Per parameter: local_lr = trust * |w| / (|g| + wd |w| + eps) (1 where a norm is zero);
    // v = m v + lr * local_lr * (g + wd w); w -= v.
    double m = h.lookup("momentum"), trust = h.lookup("trust"), eps = h.lookup("eps");
    for (const Slot &s : l.params) {
      Value lo = b.create<arith::ConstantIndexOp>(loc, s.offset), hi = b.create<arith::ConstantIndexOp>(loc, s.offset + s.size);
      auto norms = b.create<mlir::scf::ForOp>(loc, lo, hi, one, mlir::ValueRange{c(0), c(0)},
                                              [&](OpBuilder &nb, Location nl, Value i, mlir::ValueRange acc) {
                                                E e{nb, nl};
                                                Value p = e.load(P, i), g = e.load(G, i);
                                                nb.create<mlir::scf::YieldOp>(
                                                    nl, mlir::ValueRange{e.add(acc[0], e.mul(p, p)), e.add(acc[1], e.mul(g, g))});
                                              });
      E e{b, loc};
      Value pn = e.sqrt(norms.getResult(0)), gn = e.sqrt(norms.getResult(1));
      Value ratio = e.div(e.mul(c(trust), pn), e.add(e.add(gn, e.mul(c(wd), pn)), c(eps)));
      Value positive = b.create<arith::AndIOp>(loc, b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OGT, pn, c(0)),
                                               b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OGT, gn, c(0)));
      Value localLr = e.mul(lr, b.create<arith::SelectOp>(loc, positive, ratio, c(1)));
      loop(lo, hi, [&](OpBuilder &nb, Location nl, Value i) {
        E e{nb, nl};
        Value p = e.load(P, i), g = e.add(e.load(G, i), e.mul(e.c(wd), p));
        Value bi = e.slot(i, 0, N);
        Value v = e.add(e.mul(e.c(m), e.load(St, bi)), e.mul(localLr, g));
        e.store(v, St, bi);
        e.store(e.sub(p, v), P, i);
      });
    }
  } else {
    return module.emitError("unknown optimizer '") << kind << "'";
  }
  b.create<mlir::func::ReturnOp>(loc);
  (void)zero;
  return mlir::success();
}

void emitMetadata(OpBuilder &b, mlir::ModuleOp module, const Layout &l, int64_t slots) {
  llvm::json::Object meta;
  if (auto base = module->getAttrOfType<mlir::StringAttr>("dx.metadata"))
    if (auto parsed = llvm::json::parse(base.getValue()))
      if (auto *obj = parsed->getAsObject()) meta = std::move(*obj);
  auto slotsJson = [](const std::vector<Slot> &v) {
    llvm::json::Array arr;
    for (const Slot &s : v) {
      llvm::json::Array shape;
      for (int64_t d : s.type.getShape()) shape.push_back(d);
      llvm::json::Object o{{"name", s.name}, {"shape", std::move(shape)}, {"offset", s.offset}, {"size", s.size},
                           {"init", s.init}};
      if (s.fanIn) o["fan_in"] = s.fanIn;
      arr.push_back(std::move(o));
    }
    return arr;
  };
  meta["params"] = slotsJson(l.params);
  meta["buffers"] = slotsJson(l.buffers);
  meta["param_floats"] = l.paramFloats;
  meta["buffer_floats"] = l.bufferFloats;
  meta["state_slots"] = slots;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(meta));
  os.flush();
  lower::addStringGlobal(module, "dx_model_metadata", std::move(text));
}

// dx_learning_rate(base, step, steps_per_epoch, epochs) -> lr: the train
// block's schedule as a pure function of the step, in f64, with its
// constants folded in. Steps count from 1; epoch e (from 0) holds steps
// e*S+1 .. (e+1)*S. Warm-up ramps linearly over the first W*S steps:
// base * step / (W*S). After it (epochs counted over the whole run):
//   constant      base
//   step          base * gamma^floor(e / every)        (PyTorch StepLR)
//   multistep     base * gamma^#(milestones <= e)      (MultiStepLR)
//   exponential   base * gamma^e                       (ExponentialLR)
//   cosine        min_lr + (base - min_lr)(1 + cos(pi t/T))/2, per step, t the
//                 steps since warm-up, T those from then to the end of the run
void buildLearningRate(OpBuilder &b, mlir::ModuleOp module) {
  Location loc = module.getLoc();
  std::string kind = "constant";
  double warmupEpochs = 0, gamma = 0.1, every = 1, minLr = 0;
  llvm::ArrayRef<int64_t> milestones;
  if (auto d = module->getAttrOfType<mlir::DictionaryAttr>("dx.schedule")) {
    if (auto k = d.getAs<mlir::StringAttr>("kind")) kind = k.str();
    auto num = [&](llvm::StringRef n, double &v) {
      if (auto f = d.getAs<mlir::FloatAttr>(n)) v = f.getValueAsDouble();
    };
    num("warmup_epochs", warmupEpochs);
    num("gamma", gamma);
    num("every", every);
    num("min_lr", minLr);
    if (auto m = d.getAs<mlir::DenseI64ArrayAttr>("milestones")) milestones = m.asArrayRef();
  }
  mlir::Type f64 = b.getF64Type(), i64 = b.getI64Type();
  auto fn = newExport(b, module, loc, "dx_learning_rate", {f64, i64, i64, i64}, {f64});
  auto a = fn.getArguments();
  Value base = a[0];
  auto cf = [&](double v) -> Value { return b.create<arith::ConstantOp>(loc, b.getF64FloatAttr(v)); };
  auto ci = [&](int64_t v) -> Value { return b.create<arith::ConstantOp>(loc, b.getI64IntegerAttr(v)); };
  auto toF = [&](Value v) -> Value { return b.create<arith::SIToFPOp>(loc, f64, v); };
  auto mul = [&](Value x, Value y) -> Value { return b.create<arith::MulFOp>(loc, x, y); };
  auto pow = [&](Value x, Value y) -> Value { return b.create<mlir::math::PowFOp>(loc, x, y); };
  Value S = b.create<arith::MaxSIOp>(loc, a[2], ci(1));
  Value t = b.create<arith::SubIOp>(loc, b.create<arith::MaxSIOp>(loc, a[1], ci(1)), ci(1)); // 0-based step
  Value e = b.create<arith::DivSIOp>(loc, t, S);                                              // 0-based epoch
  Value tf = toF(t), warm = mul(cf(warmupEpochs), toF(S));
  Value lr = base;
  if (kind == "step") {
    Value k = b.create<arith::DivSIOp>(loc, e, ci(std::max<int64_t>(int64_t(every), 1)));
    lr = mul(base, pow(cf(gamma), toF(k)));
  } else if (kind == "multistep") {
    Value passed = cf(0);
    for (int64_t m : milestones) {
      Value reached = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sle, ci(m), e);
      passed = b.create<arith::AddFOp>(loc, passed, b.create<arith::SelectOp>(loc, reached, cf(1), cf(0)));
    }
    lr = mul(base, pow(cf(gamma), passed));
  } else if (kind == "exponential") {
    lr = mul(base, pow(cf(gamma), toF(e)));
  } else if (kind == "cosine") {
    Value total = b.create<arith::SubFOp>(loc, toF(b.create<arith::MulIOp>(loc, a[3], S)), warm);
    Value done = b.create<arith::SubFOp>(loc, tf, warm);
    Value progress = b.create<arith::MinimumFOp>(loc, b.create<arith::DivFOp>(loc, done, total), cf(1));
    Value cosine = b.create<mlir::math::CosOp>(loc, mul(cf(M_PI), progress));
    Value amplitude = mul(b.create<arith::SubFOp>(loc, base, cf(minLr)), cf(0.5));
    Value annealed = b.create<arith::AddFOp>(loc, cf(minLr), mul(amplitude, b.create<arith::AddFOp>(loc, cf(1), cosine)));
    Value noRoom = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OLE, total, cf(0));
    lr = b.create<arith::SelectOp>(loc, noRoom, base, annealed);
  }
  if (warmupEpochs > 0) {
    Value inWarmup = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OLT, tf, warm);
    Value ramp = b.create<arith::DivFOp>(loc, mul(base, b.create<arith::AddFOp>(loc, tf, cf(1))), warm);
    lr = b.create<arith::SelectOp>(loc, inWarmup, ramp, lr);
  }
  b.create<mlir::func::ReturnOp>(loc, lr);
}

struct BuildABIPass : mlir::PassWrapper<BuildABIPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(BuildABIPass)
  llvm::StringRef getArgument() const override { return "dx-build-abi"; }
  llvm::StringRef getDescription() const override {
    return "Export dx_train_step, dx_eval_step, dx_update, dx_learning_rate and dx_model_metadata (see docs/abi.md)";
  }
  void getDependentDialects(mlir::DialectRegistry &r) const override {
    r.insert<arith::ArithDialect, mlir::bufferization::BufferizationDialect, mlir::func::FuncDialect,
             mlir::LLVM::LLVMDialect, mlir::math::MathDialect, mlir::memref::MemRefDialect, mlir::scf::SCFDialect,
             mlir::tensor::TensorDialect>();
  }
  void runOnOperation() override {
    mlir::ModuleOp module = getOperation();
    mlir::func::FuncOp step, eval;
    for (auto fn : module.getOps<mlir::func::FuncOp>()) {
      if (fn.getName().ends_with("_train_step")) step = fn;
      if (fn.getName().ends_with("_eval")) eval = fn;
    }
    if (!step || !eval) {
      module.emitError("nothing to train: the file needs a train block (no @M_train_step / @M_eval)");
      return signalPassFailure();
    }
    Layout l = layoutOf(step);
    OpBuilder b(module.getContext());
    buildTrainStep(b, module, step, l);
    buildEvalStep(b, module, eval, l);
    std::string kind = "sgd";
    llvm::StringMap<double> hyper;
    if (auto opt = module->getAttrOfType<mlir::DictionaryAttr>("dx.optimizer"))
      for (auto attr : opt) {
        if (auto s = mlir::dyn_cast<mlir::StringAttr>(attr.getValue())) kind = s.str();
        else if (auto f = mlir::dyn_cast<mlir::FloatAttr>(attr.getValue())) hyper[attr.getName()] = f.getValueAsDouble();
      }
    if (mlir::failed(buildUpdate(b, module, l, kind, hyper))) return signalPassFailure();
    buildLearningRate(b, module);
    emitMetadata(b, module, l, stateSlots(kind, hyper));
    // The model functions are now internal: inlined into the exports, then dropped.
    for (auto fn : module.getOps<mlir::func::FuncOp>())
      if (!fn->hasAttr("llvm.emit_c_interface") && !fn.isDeclaration()) fn.setPrivate();
  }
};

} // namespace

std::unique_ptr<mlir::Pass> createBuildABIPass() { return std::make_unique<BuildABIPass>(); }
void registerBuildABIPass() { mlir::PassRegistration<BuildABIPass>(); }

} // namespace dx
