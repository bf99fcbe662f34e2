// Verifiers of the compiler-made ops in DxGradOps.td. The forward ops are
// verified against the operator registry instead (RegistryBridge.cpp).
#include "dialect/DxDialect.h"

namespace dx::ir {
namespace {

mlir::RankedTensorType type(mlir::Value v) { return mlir::cast<mlir::RankedTensorType>(v.getType()); }

// Two dims agree if equal or if either is dynamic.
bool dimsAgree(int64_t a, int64_t b) { return a == b || mlir::ShapedType::isDynamic(a) || mlir::ShapedType::isDynamic(b); }

bool shapesAgree(mlir::RankedTensorType a, mlir::RankedTensorType b) {
  if (a.getRank() != b.getRank() || a.getElementType() != b.getElementType()) return false;
  for (int64_t k = 0; k < a.getRank(); ++k)
    if (!dimsAgree(a.getDimSize(k), b.getDimSize(k))) return false;
  return true;
}

mlir::LogicalResult sameShape(mlir::Operation *op, mlir::Value a, mlir::Value b, const char *what) {
  if (shapesAgree(type(a), type(b))) return mlir::success();
  return op->emitOpError() << what << ": " << a.getType() << " and " << b.getType() << " must have the same shape";
}

mlir::LogicalResult isScalar(mlir::Operation *op, mlir::Value v, const char *what) {
  if (type(v).getRank() == 0) return mlir::success();
  return op->emitOpError() << what << " must be a scalar, got " << v.getType();
}

} // namespace

mlir::LogicalResult DenseGradInputOp::verify() {
  auto dy = type(getDy()), w = type(getWeight()), dx = type(getDx());
  if (dy.getRank() < 2 || w.getRank() != 2 || dx.getRank() != dy.getRank())
    return emitOpError("expects dy of rank >= 2, a 2-D weight and dx of dy's rank");
  if (!dimsAgree(dy.getShape().back(), w.getDimSize(0)) || !dimsAgree(dx.getShape().back(), w.getDimSize(1)))
    return emitOpError("weight ") << w << " does not connect dy " << dy << " to dx " << dx;
  return mlir::success();
}

mlir::LogicalResult DenseGradWeightOp::verify() {
  auto dy = type(getDy()), x = type(getX()), dw = type(getDw());
  if (dy.getRank() < 2 || x.getRank() != dy.getRank() || dw.getRank() != 2)
    return emitOpError("expects dy and x of equal rank >= 2 and a 2-D result");
  if (!dimsAgree(dw.getDimSize(0), dy.getShape().back()) || !dimsAgree(dw.getDimSize(1), x.getShape().back()))
    return emitOpError("result ") << dw << " must be [dy's last dim, x's last dim]";
  return mlir::success();
}

mlir::LogicalResult UnaryGradOp::verify() {
  static const char *kinds[] = {"relu", "leaky_relu", "elu", "gelu", "gelu_tanh", "tanh", "sigmoid"};
  bool known = false;
  for (const char *k : kinds) known |= getKind() == k;
  if (!known) return emitOpError("unknown activation '") << getKind() << "'";
  if (mlir::failed(sameShape(*this, getDy(), getSaved(), "dy and the saved tensor"))) return mlir::failure();
  return sameShape(*this, getDy(), getDx(), "dy and dx");
}

mlir::LogicalResult SoftmaxGradOp::verify() {
  int64_t axis = getAxisAttr().getInt(); // signed: the getter is unsigned
  if (axis < 0 || axis >= type(getY()).getRank()) return emitOpError("axis out of range");
  if (mlir::failed(sameShape(*this, getDy(), getY(), "dy and y"))) return mlir::failure();
  return sameShape(*this, getDy(), getDx(), "dy and dx");
}

mlir::LogicalResult SoftmaxCrossEntropyGradOp::verify() {
  auto logits = type(getLogits()), labels = type(getLabels());
  bool match = logits.getRank() >= 2 && labels.getRank() == logits.getRank() - 1 &&
               labels.getElementType().isSignlessInteger() && labels.getDimSize(0) == logits.getDimSize(0);
  for (int64_t k = 2; match && k < logits.getRank(); ++k) match = labels.getDimSize(k - 1) == logits.getDimSize(k);
  if (!match) return emitOpError("expects [N, C, ...] logits and [N, ...] integer labels");
  if (getWeights() && static_cast<int64_t>(getWeights()->size()) != logits.getDimSize(1))
    return emitOpError("expects one class weight per class (dim 1 of the logits)");
  if (mlir::failed(isScalar(*this, getDloss(), "dloss"))) return mlir::failure();
  return sameShape(*this, getLogits(), getDlogits(), "logits and dlogits");
}

mlir::LogicalResult PairwiseLossGradOp::verify() {
  if (!llvm::is_contained({"bce_with_logits", "binary_cross_entropy", "mse", "mae", "huber"}, getKind()))
    return emitOpError("unknown loss '") << getKind() << "'";
  if ((getKind() == "huber") != getDelta().has_value())
    return emitOpError(getKind() == "huber" ? "huber needs a delta" : "only huber takes a delta");
  if (getDelta() && !(getDelta()->convertToDouble() > 0)) return emitOpError("delta must be > 0");
  if (getReduction() != "mean" && getReduction() != "sum" && getReduction() != "batch_mean")
    return emitOpError("unknown reduction '") << getReduction() << "'";
  if (mlir::failed(isScalar(*this, getDloss(), "dloss"))) return mlir::failure();
  if (mlir::failed(sameShape(*this, getPrediction(), getTarget(), "prediction and target"))) return mlir::failure();
  if (mlir::failed(sameShape(*this, getPrediction(), getDprediction(), "prediction and its gradient")))
    return mlir::failure();
  return sameShape(*this, getTarget(), getDtarget(), "target and its gradient");
}

mlir::LogicalResult KlNormalGradOp::verify() {
  if (mlir::failed(isScalar(*this, getDloss(), "dloss"))) return mlir::failure();
  if (mlir::failed(sameShape(*this, getMu(), getLogvar(), "mu and logvar"))) return mlir::failure();
  if (mlir::failed(sameShape(*this, getMu(), getDmu(), "mu and dmu"))) return mlir::failure();
  return sameShape(*this, getLogvar(), getDlogvar(), "logvar and dlogvar");
}

// 2-D (rank 4, [N, C, H, W]) or 3-D (rank 5, [N, C, D, H, W]) convolution
// and pooling attributes: one stride/dilation/window value per spatial dim,
// two paddings.
static mlir::LogicalResult verifyConvAttrs(mlir::Operation *op, int64_t rank, llvm::ArrayRef<int64_t> stride,
                                           llvm::ArrayRef<int64_t> pad, llvm::ArrayRef<int64_t> dilation,
                                           int64_t groups) {
  size_t n = static_cast<size_t>(rank - 2);
  if (stride.size() != n || pad.size() != 2 * n || dilation.size() != n || groups < 1)
    return op->emitOpError("expects one stride and dilation per spatial dim, two paddings per spatial dim and "
                           "groups >= 1");
  return mlir::success();
}

static bool convRank(int64_t r) { return r == 4 || r == 5; }

mlir::LogicalResult Conv2dGradInputOp::verify() {
  int64_t r = type(getDy()).getRank();
  if (!convRank(r) || type(getWeight()).getRank() != r || type(getDx()).getRank() != r)
    return emitOpError("expects dy, weight and dx all 4-D or all 5-D");
  return verifyConvAttrs(*this, r, getStride(), getPad(), getDilation(), getGroups());
}

mlir::LogicalResult Conv2dGradWeightOp::verify() {
  int64_t r = type(getDy()).getRank();
  if (!convRank(r) || type(getX()).getRank() != r || type(getDw()).getRank() != r)
    return emitOpError("expects dy, x and dw all 4-D or all 5-D");
  return verifyConvAttrs(*this, r, getStride(), getPad(), getDilation(), getGroups());
}

mlir::LogicalResult PoolGradOp::verify() {
  if (getKind() != "max" && getKind() != "avg") return emitOpError("kind must be max or avg");
  int64_t r = type(getX()).getRank();
  size_t n = static_cast<size_t>(r - 2);
  if (!convRank(r) || getKernel().size() != n || getStride().size() != n || getPad().size() != 2 * n)
    return emitOpError("expects 4-D or 5-D x, one window and stride value per spatial dim and two paddings");
  return sameShape(*this, getX(), getDx(), "x and dx");
}

mlir::LogicalResult UpsampleGradOp::verify() {
  auto dy = type(getDy()), dx = type(getDx());
  int64_t r = dy.getRank();
  if (!convRank(r) || dx.getRank() != r || getScale().size() != static_cast<size_t>(r - 2))
    return emitOpError("expects 4-D or 5-D tensors and one scale per spatial dim");
  for (int64_t k = 0; k < r - 2; ++k)
    if (!dx.isDynamicDim(2 + k) && !dy.isDynamicDim(2 + k) && dx.getDimSize(2 + k) * getScale()[k] != dy.getDimSize(2 + k))
      return emitOpError("dy's spatial dims must be dx's times the scale");
  return mlir::success();
}

mlir::LogicalResult BatchnormTrainOp::verify() {
  auto x = type(getX());
  if (x.getRank() < 2) return emitOpError("expects x of rank >= 2");
  if (!getAffine().empty() && getAffine().size() != 2) return emitOpError("affine holds gamma and beta");
  int64_t c = x.getDimSize(1);
  for (mlir::Value v : {getMean(), getVar()})
    if (type(v).getRank() != 1 || !dimsAgree(type(v).getDimSize(0), c))
      return emitOpError("mean and var must be [C] with C = ") << c;
  return sameShape(*this, getX(), getY(), "x and y");
}

mlir::LogicalResult NormGradOp::verify() {
  if (getKind() != "batchnorm" && getKind() != "layernorm") return emitOpError("kind must be batchnorm or layernorm");
  if (mlir::failed(sameShape(*this, getDy(), getX(), "dy and x"))) return mlir::failure();
  return sameShape(*this, getX(), getDx(), "x and dx");
}

mlir::LogicalResult RunningStatsOp::verify() {
  if (mlir::failed(sameShape(*this, getRunningMean(), getMean(), "running and batch mean"))) return mlir::failure();
  return sameShape(*this, getRunningVar(), getVar(), "running and batch variance");
}

mlir::LogicalResult BroadcastToOp::verify() {
  auto x = type(getX()), y = type(getY());
  if (auto axes = getAxes()) {
    if (x.getRank() + static_cast<int64_t>(axes->size()) != y.getRank())
      return emitOpError("x's rank plus the number of axes must be the result's rank");
    return mlir::success();
  }
  if (x.getRank() > y.getRank()) return emitOpError("cannot broadcast to a lower rank");
  for (int64_t k = 0; k < x.getRank(); ++k) {
    int64_t a = x.getDimSize(k), b = y.getDimSize(y.getRank() - x.getRank() + k);
    if (a != 1 && !dimsAgree(a, b)) return emitOpError("cannot broadcast ") << x << " to " << y;
  }
  return mlir::success();
}

mlir::LogicalResult ReduceToOp::verify() {
  auto x = type(getX()), y = type(getY());
  if (y.getRank() > x.getRank()) return emitOpError("the result cannot have a higher rank than x");
  for (int64_t k = 0; k < y.getRank(); ++k) {
    int64_t a = y.getDimSize(k), b = x.getDimSize(x.getRank() - y.getRank() + k);
    if (a != 1 && !dimsAgree(a, b)) return emitOpError("cannot reduce ") << x << " to " << y;
  }
  return mlir::success();
}

mlir::LogicalResult SliceOp::verify() {
  auto x = type(getX()), y = type(getY());
  int64_t axis = getAxisAttr().getInt(), offset = getOffsetAttr().getInt(); // signed: the getters are unsigned
  if (x.getRank() != y.getRank() || axis < 0 || axis >= x.getRank())
    return emitOpError("expects equal ranks and a valid axis");
  if (!x.isDynamicDim(axis) && offset + y.getDimSize(axis) > x.getDimSize(axis))
    return emitOpError("slice runs past the end of x");
  return mlir::success();
}

mlir::LogicalResult ZerosLikeOp::verify() { return sameShape(*this, getLike(), getY(), "x and the result"); }

} // namespace dx::ir
