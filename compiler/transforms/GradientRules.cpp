// Gradient rules of every dx op. Each rule reads the op's operands, results
// and attributes and emits dx ops for the adjoints of its operands.
#include "transforms/GradientRules.h"

#include "dialect/DxDialect.h"

#include "llvm/ADT/StringMap.h"

#include <functional>

namespace dx {
namespace {

using mlir::Value;
using Rule = std::function<void(mlir::OpBuilder &, mlir::Operation *, llvm::ArrayRef<Value>,
                                llvm::SmallVectorImpl<Value> &)>;

mlir::RankedTensorType ttype(Value v) { return mlir::cast<mlir::RankedTensorType>(v.getType()); }

int64_t segmentSize(mlir::Operation *op, unsigned i) {
  auto seg = op->getAttrOfType<mlir::DenseI32ArrayAttr>("operandSegmentSizes");
  if (!seg) return i == 0 ? op->getNumOperands() : 0;
  return seg[i];
}

Value scalarConst(mlir::OpBuilder &b, mlir::Location loc, double v) {
  return createRegistryOp(b, loc, "dx.constant", {}, {}, {b.getNamedAttr("value", b.getF64FloatAttr(v))},
                          mlir::RankedTensorType::get({}, b.getF32Type()));
}

Value binary(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef name, Value x, Value y, mlir::Type result) {
  return createRegistryOp(b, loc, name, {x, y}, {}, {}, result);
}

Value unary(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef name, Value x) {
  return createRegistryOp(b, loc, name, {x}, {}, {}, x.getType());
}

// Sums `g` down to `target`'s type, undoing broadcasting.
Value reduceTo(mlir::OpBuilder &b, mlir::Location loc, Value g, Value target) {
  if (g.getType() == target.getType()) return g;
  return b.create<ir::ReduceToOp>(loc, target.getType(), g);
}

Value sumOver(mlir::OpBuilder &b, mlir::Location loc, Value x, llvm::ArrayRef<int64_t> axes, mlir::Type result) {
  return createRegistryOp(b, loc, "dx.sum", {x}, {},
                          {b.getNamedAttr("axis", b.getDenseI64ArrayAttr(axes)),
                           b.getNamedAttr("keepdim", b.getBoolAttr(false))},
                          result);
}

// A reshape back to `like`'s per-sample shape.
// Every dim but the channels (dim 1): where a convolution's bias gradient sums dy.
llvm::SmallVector<int64_t> allButChannels(Value x) {
  llvm::SmallVector<int64_t> axes = {0};
  for (int64_t k = 2; k < ttype(x).getRank(); ++k) axes.push_back(k);
  return axes;
}

Value reshapeLike(mlir::OpBuilder &b, mlir::Location loc, Value g, Value like) {
  auto t = ttype(like);
  return createRegistryOp(b, loc, "dx.reshape", {g}, {},
                          {b.getNamedAttr("shape", b.getDenseI64ArrayAttr(t.getShape().drop_front()))}, t);
}

llvm::ArrayRef<int64_t> arrayAttr(mlir::Operation *op, llvm::StringRef name) {
  return op->getAttrOfType<mlir::DenseI64ArrayAttr>(name).asArrayRef();
}

// Rules for pointwise activations that read the saved input (or output).
Rule activation(const char *kind, bool readsOutput, const char *alphaAttr = nullptr) {
  return [=](mlir::OpBuilder &b, mlir::Operation *op, llvm::ArrayRef<Value> d, llvm::SmallVectorImpl<Value> &out) {
    double alpha = 0;
    if (alphaAttr) alpha = op->getAttrOfType<mlir::FloatAttr>(alphaAttr).getValueAsDouble();
    std::string k = kind;
    if (k == "gelu" && op->getAttrOfType<mlir::StringAttr>("approximate").getValue() == "tanh") k = "gelu_tanh";
    Value saved = readsOutput ? op->getResult(0) : op->getOperand(0);
    out[0] = b.create<ir::UnaryGradOp>(op->getLoc(), op->getOperand(0).getType(), d[0], saved, b.getStringAttr(k),
                                       b.getF64FloatAttr(alpha));
  };
}

const llvm::StringMap<Rule> &rules() {
  static const llvm::StringMap<Rule> table = [] {
    llvm::StringMap<Rule> r;
    auto none = [](mlir::OpBuilder &, mlir::Operation *, llvm::ArrayRef<Value>, llvm::SmallVectorImpl<Value> &) {};

    r["dx.dense"] = [](mlir::OpBuilder &b, mlir::Operation *op, llvm::ArrayRef<Value> d, llvm::SmallVectorImpl<Value> &out) {
      auto loc = op->getLoc();
      Value x = op->getOperand(0), w = op->getOperand(1);
      out[0] = b.create<ir::DenseGradInputOp>(loc, x.getType(), d[0], w);
      out[1] = b.create<ir::DenseGradWeightOp>(loc, w.getType(), d[0], x);
      if (op->getNumOperands() > 2) {
        llvm::SmallVector<int64_t> axes;
        for (int64_t k = 0; k + 1 < ttype(d[0]).getRank(); ++k) axes.push_back(k);
        out[2] = sumOver(b, loc, d[0], axes, op->getOperand(2).getType());
      }
    };
    // conv2d and conv3d: the grad ops take 4-D or 5-D operands.
    for (const char *conv : {"dx.conv2d", "dx.conv3d"})
      r[conv] = [](mlir::OpBuilder &b, mlir::Operation *op, llvm::ArrayRef<Value> d, llvm::SmallVectorImpl<Value> &out) {
        auto loc = op->getLoc();
        Value x = op->getOperand(0), w = op->getOperand(1);
        auto stride = b.getDenseI64ArrayAttr(arrayAttr(op, "stride"));
        auto pad = b.getDenseI64ArrayAttr(arrayAttr(op, "pad"));
        auto dil = b.getDenseI64ArrayAttr(arrayAttr(op, "dilation"));
        auto groups = op->getAttrOfType<mlir::IntegerAttr>("groups");
        out[0] = b.create<ir::Conv2dGradInputOp>(loc, x.getType(), d[0], w, stride, pad, dil, groups);
        out[1] = b.create<ir::Conv2dGradWeightOp>(loc, w.getType(), d[0], x, stride, pad, dil, groups);
        if (op->getNumOperands() > 2) out[2] = sumOver(b, loc, d[0], allButChannels(d[0]), op->getOperand(2).getType());
      };
    // conv_transposeNd(x) is convNd's input gradient applied to x, so its own
    // gradients are a convolution and a convolution weight gradient with roles swapped.
    for (auto [transpose, conv] : {std::pair{"dx.conv_transpose2d", "dx.conv2d"}, std::pair{"dx.conv_transpose3d", "dx.conv3d"}})
      r[transpose] = [conv = std::string(conv)](mlir::OpBuilder &b, mlir::Operation *op, llvm::ArrayRef<Value> d,
                                                llvm::SmallVectorImpl<Value> &out) {
        auto loc = op->getLoc();
        Value x = op->getOperand(0), w = op->getOperand(1);
        auto wt = ttype(w);
        llvm::SmallVector<mlir::NamedAttribute> attrs = {
            b.getNamedAttr("filters", b.getI64IntegerAttr(wt.getDimSize(0))),
            b.getNamedAttr("kernel", b.getDenseI64ArrayAttr(arrayAttr(op, "kernel"))),
            b.getNamedAttr("stride", b.getDenseI64ArrayAttr(arrayAttr(op, "stride"))),
            b.getNamedAttr("pad", b.getDenseI64ArrayAttr(arrayAttr(op, "pad"))),
            b.getNamedAttr("dilation", b.getDenseI64ArrayAttr(arrayAttr(op, "dilation"))),
            b.getNamedAttr("groups", op->getAttr("groups")), b.getNamedAttr("bias", b.getBoolAttr(false))};
        out[0] = createRegistryOp(b, loc, conv, {d[0]}, {w}, attrs, x.getType());
        out[1] = b.create<ir::Conv2dGradWeightOp>(loc, w.getType(), x, d[0], b.getDenseI64ArrayAttr(arrayAttr(op, "stride")),
                                                  b.getDenseI64ArrayAttr(arrayAttr(op, "pad")),
                                                  b.getDenseI64ArrayAttr(arrayAttr(op, "dilation")),
                                                  op->getAttrOfType<mlir::IntegerAttr>("groups"));
        if (op->getNumOperands() > 2) out[2] = sumOver(b, loc, d[0], allButChannels(d[0]), op->getOperand(2).getType());
      };
    for (const char *pool : {"maxpool", "avgpool", "maxpool3d", "avgpool3d"}) {
      std::string kind = llvm::StringRef(pool).starts_with("max") ? "max" : "avg";
      r[std::string("dx.") + pool] = [kind](mlir::OpBuilder &b, mlir::Operation *op, llvm::ArrayRef<Value> d,
                                            llvm::SmallVectorImpl<Value> &out) {
        Value x = op->getOperand(0);
        out[0] = b.create<ir::PoolGradOp>(op->getLoc(), x.getType(), d[0], x, b.getStringAttr(kind),
                                          b.getDenseI64ArrayAttr(arrayAttr(op, "kernel")),
                                          b.getDenseI64ArrayAttr(arrayAttr(op, "stride")),
                                          b.getDenseI64ArrayAttr(arrayAttr(op, "pad")));
      };
    }
    r["dx.global_avgpool"] = [](mlir::OpBuilder &b, mlir::Operation *op, llvm::ArrayRef<Value> d,
                                llvm::SmallVectorImpl<Value> &out) {
      Value x = op->getOperand(0);
      llvm::SmallVector<int64_t> spatial;
      for (int64_t k = 2; k < ttype(x).getRank(); ++k) spatial.push_back(k);
      out[0] = b.create<ir::BroadcastToOp>(op->getLoc(), x.getType(), d[0], b.getDenseI64ArrayAttr(spatial),
                                           b.getUnitAttr());
    };
    r["dx.upsample"] = [](mlir::OpBuilder &b, mlir::Operation *op, llvm::ArrayRef<Value> d, llvm::SmallVectorImpl<Value> &out) {
      out[0] = b.create<ir::UpsampleGradOp>(op->getLoc(), op->getOperand(0).getType(), d[0],
                                            b.getDenseI64ArrayAttr(arrayAttr(op, "scale")),
                                            op->getAttrOfType<mlir::StringAttr>("mode"));
    };
    // Autodiff replaces dx.batchnorm by its training form before the sweep.
    r["dx.batchnorm_train"] = [](mlir::OpBuilder &b, mlir::Operation *op, llvm::ArrayRef<Value> d,
                                 llvm::SmallVectorImpl<Value> &out) {
      auto bn = mlir::cast<ir::BatchnormTrainOp>(op);
      if (!d[0]) return;
      Value x = bn.getX();
      auto c = ttype(bn.getMean());
      Value gamma = bn.getAffine().empty() ? Value() : bn.getAffine()[0];
      auto g = b.create<ir::NormGradOp>(op->getLoc(), mlir::TypeRange{x.getType(), c, c}, d[0], x, gamma,
                                        b.getStringAttr("batchnorm"), b.getI64IntegerAttr(1), bn.getEpsAttr());
      out[0] = g.getDx();
      if (gamma) {
        out[1] = g.getDgamma();
        out[2] = g.getDbeta();
      }
    };
    r["dx.layernorm"] = [](mlir::OpBuilder &b, mlir::Operation *op, llvm::ArrayRef<Value> d, llvm::SmallVectorImpl<Value> &out) {
      Value x = op->getOperand(0);
      bool affine = op->getNumOperands() > 1;
      Value gamma = affine ? op->getOperand(1) : Value();
      mlir::Type pt = affine ? gamma.getType() : mlir::Type(mlir::RankedTensorType::get({1}, b.getF32Type()));
      auto g = b.create<ir::NormGradOp>(op->getLoc(), mlir::TypeRange{x.getType(), pt, pt}, d[0], x, gamma,
                                        b.getStringAttr("layernorm"), op->getAttrOfType<mlir::IntegerAttr>("dims"),
                                        op->getAttrOfType<mlir::FloatAttr>("eps"));
      out[0] = g.getDx();
      if (affine) {
        out[1] = g.getDgamma();
        out[2] = g.getDbeta();
      }
    };
    // The mask is regenerated from the same random stream: dropout(dy).
    r["dx.dropout"] = [](mlir::OpBuilder &b, mlir::Operation *op, llvm::ArrayRef<Value> d, llvm::SmallVectorImpl<Value> &out) {
      mlir::Operation *clone = b.clone(*op);
      clone->setOperand(0, d[0]);
      out[0] = clone->getResult(0);
    };
    // From the output: relu(x) > 0 exactly when x > 0, and then the input
    // (a batch norm's output, say) has one use and fuses into the relu.
    r["dx.relu"] = activation("relu", true);
    r["dx.leaky_relu"] = activation("leaky_relu", false, "slope");
    r["dx.elu"] = activation("elu", false, "alpha");
    r["dx.gelu"] = activation("gelu", false);
    r["dx.tanh"] = activation("tanh", true);
    r["dx.sigmoid"] = activation("sigmoid", true);
    for (const char *sm : {"softmax", "log_softmax"}) {
      bool log = std::string(sm) == "log_softmax";
      r[std::string("dx.") + sm] = [log](mlir::OpBuilder &b, mlir::Operation *op, llvm::ArrayRef<Value> d,
                                         llvm::SmallVectorImpl<Value> &out) {
        out[0] = b.create<ir::SoftmaxGradOp>(op->getLoc(), op->getOperand(0).getType(), d[0], op->getResult(0),
                                             op->getAttrOfType<mlir::IntegerAttr>("axis"), b.getBoolAttr(log));
      };
    }
    for (const char *shape : {"flatten", "reshape"})
      r[std::string("dx.") + shape] = [](mlir::OpBuilder &b, mlir::Operation *op, llvm::ArrayRef<Value> d,
                                         llvm::SmallVectorImpl<Value> &out) {
        out[0] = reshapeLike(b, op->getLoc(), d[0], op->getOperand(0));
      };
    r["dx.concat"] = [](mlir::OpBuilder &b, mlir::Operation *op, llvm::ArrayRef<Value> d, llvm::SmallVectorImpl<Value> &out) {
      int64_t axis = op->getAttrOfType<mlir::IntegerAttr>("axis").getInt();
      int64_t offset = 0;
      for (unsigned i = 0; i < op->getNumOperands(); ++i) {
        Value x = op->getOperand(i);
        out[i] = b.create<ir::SliceOp>(op->getLoc(), x.getType(), d[0], b.getI64IntegerAttr(axis),
                                       b.getI64IntegerAttr(offset));
        offset += ttype(x).getDimSize(axis);
      }
    };
    r["dx.add"] = [](mlir::OpBuilder &b, mlir::Operation *op, llvm::ArrayRef<Value> d, llvm::SmallVectorImpl<Value> &out) {
      out[0] = reduceTo(b, op->getLoc(), d[0], op->getOperand(0));
      out[1] = reduceTo(b, op->getLoc(), d[0], op->getOperand(1));
    };
    r["dx.sub"] = [](mlir::OpBuilder &b, mlir::Operation *op, llvm::ArrayRef<Value> d, llvm::SmallVectorImpl<Value> &out) {
      out[0] = reduceTo(b, op->getLoc(), d[0], op->getOperand(0));
      out[1] = reduceTo(b, op->getLoc(), unary(b, op->getLoc(), "dx.neg", d[0]), op->getOperand(1));
    };
    r["dx.mul"] = [](mlir::OpBuilder &b, mlir::Operation *op, llvm::ArrayRef<Value> d, llvm::SmallVectorImpl<Value> &out) {
      auto loc = op->getLoc();
      Value x = op->getOperand(0), y = op->getOperand(1);
      out[0] = reduceTo(b, loc, binary(b, loc, "dx.mul", d[0], y, d[0].getType()), x);
      out[1] = reduceTo(b, loc, binary(b, loc, "dx.mul", d[0], x, d[0].getType()), y);
    };
    // d(x/y) = dy / y and -dy * (x/y) / y.
    r["dx.div"] = [](mlir::OpBuilder &b, mlir::Operation *op, llvm::ArrayRef<Value> d, llvm::SmallVectorImpl<Value> &out) {
      auto loc = op->getLoc();
      Value x = op->getOperand(0), y = op->getOperand(1), q = op->getResult(0);
      Value dx = binary(b, loc, "dx.div", d[0], y, d[0].getType());
      out[0] = reduceTo(b, loc, dx, x);
      Value t = binary(b, loc, "dx.mul", dx, q, d[0].getType());
      out[1] = reduceTo(b, loc, unary(b, loc, "dx.neg", t), y);
    };
    r["dx.neg"] = [](mlir::OpBuilder &b, mlir::Operation *op, llvm::ArrayRef<Value> d, llvm::SmallVectorImpl<Value> &out) {
      out[0] = unary(b, op->getLoc(), "dx.neg", d[0]);
    };
    r["dx.exp"] = [](mlir::OpBuilder &b, mlir::Operation *op, llvm::ArrayRef<Value> d, llvm::SmallVectorImpl<Value> &out) {
      out[0] = binary(b, op->getLoc(), "dx.mul", d[0], op->getResult(0), d[0].getType());
    };
    r["dx.log"] = [](mlir::OpBuilder &b, mlir::Operation *op, llvm::ArrayRef<Value> d, llvm::SmallVectorImpl<Value> &out) {
      out[0] = binary(b, op->getLoc(), "dx.div", d[0], op->getOperand(0), d[0].getType());
    };
    // d log1p(x) = dy / (1 + x); d |x| = dy * sign(x) (0 at 0, as torch.abs).
    r["dx.log1p"] = [](mlir::OpBuilder &b, mlir::Operation *op, llvm::ArrayRef<Value> d, llvm::SmallVectorImpl<Value> &out) {
      auto loc = op->getLoc();
      Value onePlus = binary(b, loc, "dx.add", op->getOperand(0), scalarConst(b, loc, 1.0), d[0].getType());
      out[0] = binary(b, loc, "dx.div", d[0], onePlus, d[0].getType());
    };
    r["dx.abs"] = [](mlir::OpBuilder &b, mlir::Operation *op, llvm::ArrayRef<Value> d, llvm::SmallVectorImpl<Value> &out) {
      auto loc = op->getLoc();
      out[0] = binary(b, loc, "dx.mul", d[0], unary(b, loc, "dx.sign", op->getOperand(0)), d[0].getType());
    };
    r["dx.sqrt"] = [](mlir::OpBuilder &b, mlir::Operation *op, llvm::ArrayRef<Value> d, llvm::SmallVectorImpl<Value> &out) {
      auto loc = op->getLoc();
      Value half = binary(b, loc, "dx.mul", d[0], scalarConst(b, loc, 0.5), d[0].getType());
      out[0] = binary(b, loc, "dx.div", half, op->getResult(0), d[0].getType());
    };
    r["dx.square"] = [](mlir::OpBuilder &b, mlir::Operation *op, llvm::ArrayRef<Value> d, llvm::SmallVectorImpl<Value> &out) {
      auto loc = op->getLoc();
      Value twice = binary(b, loc, "dx.mul", op->getOperand(0), scalarConst(b, loc, 2.0), d[0].getType());
      out[0] = binary(b, loc, "dx.mul", d[0], twice, d[0].getType());
    };
    for (const char *red : {"sum", "mean"}) {
      bool isMean = std::string(red) == "mean";
      r[std::string("dx.") + red] = [isMean](mlir::OpBuilder &b, mlir::Operation *op, llvm::ArrayRef<Value> d,
                                             llvm::SmallVectorImpl<Value> &out) {
        Value x = op->getOperand(0);
        int64_t rank = ttype(x).getRank();
        llvm::SmallVector<int64_t> axes;
        if (auto a = op->getAttrOfType<mlir::DenseI64ArrayAttr>("axis")) axes.assign(a.asArrayRef().begin(), a.asArrayRef().end());
        else
          for (int64_t k = 0; k < rank; ++k) axes.push_back(k);
        Value g = d[0];
        // keepdim results already have x's rank: plain broadcasting.
        bool keep = op->getAttrOfType<mlir::BoolAttr>("keepdim").getValue();
        out[0] = b.create<ir::BroadcastToOp>(op->getLoc(), x.getType(), g,
                                             keep ? mlir::DenseI64ArrayAttr() : b.getDenseI64ArrayAttr(axes),
                                             isMean ? b.getUnitAttr() : mlir::UnitAttr());
      };
    }
    r["dx.softmax_cross_entropy"] = [](mlir::OpBuilder &b, mlir::Operation *op, llvm::ArrayRef<Value> d,
                                       llvm::SmallVectorImpl<Value> &out) {
      out[0] = b.create<ir::SoftmaxCrossEntropyGradOp>(op->getLoc(), op->getOperand(0).getType(), op->getOperand(0),
                                                       op->getOperand(1), d[0],
                                                       op->getAttrOfType<mlir::DenseF64ArrayAttr>("weights"));
    };
    for (const char *loss : {"bce_with_logits", "binary_cross_entropy", "mse", "mae", "l1", "huber"})
      r[std::string("dx.") + loss] = [kind = ir::pairwiseLossKind(std::string("dx.") + loss)](
                                         mlir::OpBuilder &b, mlir::Operation *op, llvm::ArrayRef<Value> d,
                                         llvm::SmallVectorImpl<Value> &out) {
        Value p = op->getOperand(0), t = op->getOperand(1);
        auto g = b.create<ir::PairwiseLossGradOp>(op->getLoc(), mlir::TypeRange{p.getType(), t.getType()}, p, t, d[0],
                                                  b.getStringAttr(kind), op->getAttrOfType<mlir::StringAttr>("reduction"),
                                                  op->getAttrOfType<mlir::FloatAttr>("delta"));
        out[0] = g.getDprediction();
        out[1] = g.getDtarget();
      };
    r["dx.kl_normal"] = [](mlir::OpBuilder &b, mlir::Operation *op, llvm::ArrayRef<Value> d, llvm::SmallVectorImpl<Value> &out) {
      Value mu = op->getOperand(0), lv = op->getOperand(1);
      auto g = b.create<ir::KlNormalGradOp>(op->getLoc(), mlir::TypeRange{mu.getType(), lv.getType()}, mu, lv, d[0],
                                            op->getAttrOfType<mlir::StringAttr>("reduction"));
      out[0] = g.getDmu();
      out[1] = g.getDlogvar();
    };
    // No gradient flows into a sample's shape, a constant, or the statistics update.
    r["dx.randn_like"] = none;
    r["dx.sign"] = none;
    r["dx.constant"] = none;
    r["dx.running_stats"] = none;
    r["dx.zeros"] = none;
    return r;
  }();
  return table;
}

} // namespace

mlir::OperandRange registryInputs(mlir::Operation *op) {
  return op->getOperands().take_front(segmentSize(op, 0));
}

mlir::OperandRange registryParams(mlir::Operation *op) {
  return op->getOperands().drop_front(segmentSize(op, 0));
}

mlir::Value createRegistryOp(mlir::OpBuilder &b, mlir::Location loc, llvm::StringRef name, mlir::ValueRange inputs,
                             mlir::ValueRange params, llvm::ArrayRef<mlir::NamedAttribute> attrs, mlir::Type result) {
  mlir::OperationState state(loc, name);
  state.addOperands(inputs);
  state.addOperands(params);
  state.addAttribute("operandSegmentSizes", b.getDenseI32ArrayAttr({static_cast<int32_t>(inputs.size()),
                                                                    static_cast<int32_t>(params.size())}));
  state.addAttributes(attrs);
  state.addTypes(result);
  return b.create(state)->getResult(0);
}

bool hasGradientRule(llvm::StringRef opName) { return rules().count(opName) > 0; }

mlir::LogicalResult buildGradient(mlir::OpBuilder &b, mlir::Operation *op, llvm::ArrayRef<mlir::Value> dResults,
                                  llvm::SmallVectorImpl<mlir::Value> &dOperands) {
  dOperands.assign(op->getNumOperands(), mlir::Value());
  auto it = rules().find(op->getName().getStringRef());
  if (it == rules().end())
    return op->emitError("automatic differentiation: no gradient rule for '") << op->getName() << "'";
  // Rules that need the first result's adjoint may assume it exists.
  if (op->getNumResults() > 0 && !dResults[0] && op->getName().getStringRef() != "dx.batchnorm_train") return mlir::success();
  it->second(b, op, dResults, dOperands);
  return mlir::success();
}

} // namespace dx
