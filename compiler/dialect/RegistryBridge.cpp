#include "dialect/RegistryBridge.h"

#include "dialect/DxDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"

namespace dx::ir {

static mlir::Type elemType(mlir::MLIRContext *ctx, ElemType e) {
  mlir::Builder b(ctx);
  switch (e) {
  case ElemType::F32: return b.getF32Type();
  case ElemType::F64: return b.getF64Type();
  case ElemType::F16: return b.getF16Type();
  case ElemType::BF16: return b.getBF16Type();
  case ElemType::I64: return b.getI64Type();
  case ElemType::I32: return b.getI32Type();
  case ElemType::Bool: return b.getI1Type();
  }
  return b.getF32Type();
}

mlir::RankedTensorType toMlirType(mlir::MLIRContext *ctx, const TensorType &t) {
  llvm::SmallVector<int64_t> shape;
  for (const Dim &d : t.dims) shape.push_back(d.isStatic() ? d.size : mlir::ShapedType::kDynamic);
  return mlir::RankedTensorType::get(shape, elemType(ctx, t.elem));
}

std::optional<TensorType> fromMlirType(mlir::Type type) {
  auto t = mlir::dyn_cast<mlir::RankedTensorType>(type);
  if (!t) return std::nullopt;
  TensorType out;
  mlir::Type e = t.getElementType();
  if (e.isF32()) out.elem = ElemType::F32;
  else if (e.isF64()) out.elem = ElemType::F64;
  else if (e.isF16()) out.elem = ElemType::F16;
  else if (e.isBF16()) out.elem = ElemType::BF16;
  else if (e.isInteger(64)) out.elem = ElemType::I64;
  else if (e.isInteger(32)) out.elem = ElemType::I32;
  else if (e.isInteger(1)) out.elem = ElemType::Bool;
  else return std::nullopt;
  for (int64_t d : t.getShape()) out.dims.push_back(mlir::ShapedType::isDynamic(d) ? Dim::sym("?") : Dim::of(d));
  return out;
}

static llvm::SmallVector<int64_t> ints(const Value &v, size_t n) {
  if (v.kind == Value::Kind::List) {
    llvm::SmallVector<int64_t> out;
    for (const Value &x : v.list) out.push_back(x.i);
    return out;
  }
  return llvm::SmallVector<int64_t>(n, v.i);
}

mlir::Attribute toMlirAttr(mlir::MLIRContext *ctx, const AttrSpec &spec, const Value &v) {
  mlir::Builder b(ctx);
  switch (spec.kind) {
  case AttrKind::Int: return b.getI64IntegerAttr(v.i);
  case AttrKind::Float: return b.getF64FloatAttr(v.number());
  case AttrKind::Bool: return b.getBoolAttr(v.b);
  case AttrKind::Enum: return b.getStringAttr(v.s);
  case AttrKind::Pair:
  case AttrKind::OptInt: return b.getDenseI64ArrayAttr(ints(v, spec.spatial ? spec.spatial : 2));
  case AttrKind::Padding: return b.getDenseI64ArrayAttr(ints(v, 2 * (spec.spatial == 3 ? 3 : 2)));
  case AttrKind::Axes:
    if (v.kind == Value::Kind::None) return nullptr;
    return b.getDenseI64ArrayAttr(ints(v, 1));
  case AttrKind::Floats: {
    if (v.kind == Value::Kind::None) return nullptr;
    llvm::SmallVector<double> xs;
    for (const Value &x : v.list) xs.push_back(x.number());
    return b.getDenseF64ArrayAttr(xs);
  }
  }
  return nullptr;
}

std::optional<Value> fromMlirAttr(const AttrSpec &spec, mlir::Attribute a) {
  if (!a) {
    if ((spec.kind == AttrKind::Axes || spec.kind == AttrKind::Floats) && !spec.required()) return Value::none();
    return std::nullopt;
  }
  switch (spec.kind) {
  case AttrKind::Int:
    if (auto i = mlir::dyn_cast<mlir::IntegerAttr>(a)) return Value::ofInt(i.getInt());
    return std::nullopt;
  case AttrKind::Float:
    if (auto f = mlir::dyn_cast<mlir::FloatAttr>(a)) return Value::ofFloat(f.getValueAsDouble());
    return std::nullopt;
  case AttrKind::Bool:
    if (auto bl = mlir::dyn_cast<mlir::BoolAttr>(a)) return Value::ofBool(bl.getValue());
    return std::nullopt;
  case AttrKind::Enum:
    if (auto s = mlir::dyn_cast<mlir::StringAttr>(a)) return Value::ofSymbol(s.str());
    return std::nullopt;
  case AttrKind::Pair:
  case AttrKind::OptInt:
  case AttrKind::Padding:
  case AttrKind::Axes: {
    auto arr = mlir::dyn_cast<mlir::DenseI64ArrayAttr>(a);
    if (!arr) return std::nullopt;
    // Pairs hold one value per spatial dim (2, 3, or either when spatial is
    // 0), paddings two.
    size_t n = static_cast<size_t>(arr.size());
    bool ok = spec.kind == AttrKind::Axes ||
              (spec.kind == AttrKind::Padding ? n == 2u * (spec.spatial == 3 ? 3 : 2)
               : spec.spatial == 0            ? n == 2 || n == 3
                                              : n == static_cast<size_t>(spec.spatial));
    if (!ok) return std::nullopt;
    Value v;
    v.kind = Value::Kind::List;
    for (int64_t x : arr.asArrayRef()) v.list.push_back(Value::ofInt(x));
    return v;
  }
  case AttrKind::Floats: {
    auto arr = mlir::dyn_cast<mlir::DenseF64ArrayAttr>(a);
    if (!arr) return std::nullopt;
    Value v;
    v.kind = Value::Kind::List;
    for (double x : arr.asArrayRef()) v.list.push_back(Value::ofFloat(x));
    return v;
  }
  }
  return std::nullopt;
}

mlir::LogicalResult verifyAgainstRegistry(mlir::Operation *op) {
  std::string name = op->getName().stripDialect().str();
  const OpInfo *info = nullptr;
  for (const OpInfo &o : opRegistry())
    if (o.name == name) info = &o;
  if (!info) return op->emitOpError("is not in the operator registry");

  // Operands: `inputs` then `params` (AttrSizedOperandSegments).
  auto segments = op->getAttrOfType<mlir::DenseI32ArrayAttr>("operandSegmentSizes");
  int32_t nInputs = op->getNumOperands();
  if (segments && segments.size() == 2) nInputs = segments[0];
  ShapeContext ctx{*info, {}, {}, {}, {}, 0, {}, false};
  for (int32_t i = 0; i < nInputs; ++i) {
    auto t = fromMlirType(op->getOperand(i).getType());
    if (!t) return op->emitOpError("input ") << i << " has an unsupported type";
    ctx.in.push_back(*t);
  }
  if (!info->variadic && ctx.in.size() != info->inputs.size())
    return op->emitOpError("expects ") << info->inputs.size() << " tensor inputs, got " << ctx.in.size();
  for (const AttrSpec &spec : info->attrs) {
    auto v = fromMlirAttr(spec, op->getAttr(spec.name));
    if (!v) return op->emitOpError("attribute '") << spec.name << "' is missing or malformed";
    ctx.attrs.push_back(*v);
  }
  std::string firstError;
  ctx.report = [&](int, const std::string &, const std::string &msg) {
    if (firstError.empty()) firstError = msg;
  };
  info->infer(ctx);
  if (ctx.failed) return op->emitOpError(firstError);

  auto sameShape = [](const TensorType &want, const TensorType &have) {
    if (want.elem != have.elem || want.rank() != have.rank()) return false;
    for (int k = 0; k < want.rank(); ++k) {
      // A dynamic dim matches any dim the rule derives from a dynamic input dim.
      if (!want.dims[k].isStatic() || !have.dims[k].isStatic()) {
        if (want.dims[k].isStatic() != have.dims[k].isStatic()) return false;
        continue;
      }
      if (want.dims[k].size != have.dims[k].size) return false;
    }
    return true;
  };
  if (ctx.out.size() != op->getNumResults())
    return op->emitOpError("has ") << op->getNumResults() << " results; the registry rule gives " << ctx.out.size();
  for (size_t i = 0; i < ctx.out.size(); ++i) {
    auto have = fromMlirType(op->getResult(i).getType());
    if (!have || !sameShape(ctx.out[i], *have))
      return op->emitOpError("result ") << i << " should be " << toMlirType(op->getContext(), ctx.out[i])
                                        << " by the shape rule, not " << op->getResult(i).getType();
  }
  size_t nParams = op->getNumOperands() - nInputs;
  if (nParams != ctx.params.size())
    return op->emitOpError("expects ") << ctx.params.size() << " parameter operands, got " << nParams;
  for (size_t i = 0; i < nParams; ++i) {
    auto have = fromMlirType(op->getOperand(nInputs + i).getType());
    if (!have || !sameShape(ctx.params[i].type, *have))
      return op->emitOpError("parameter '") << ctx.params[i].name << "' should be "
                                            << toMlirType(op->getContext(), ctx.params[i].type) << ", not "
                                            << op->getOperand(nInputs + i).getType();
  }
  return mlir::success();
}

} // namespace dx::ir
