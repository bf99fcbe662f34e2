#include "sema/OpRegistry.h"

#include <algorithm>
#include <cmath>

namespace dx {

const char *spelling(OpCategory c) {
  switch (c) {
  case OpCategory::Layer: return "layer";
  case OpCategory::Activation: return "activation";
  case OpCategory::Elementwise: return "elementwise";
  case OpCategory::Math: return "math";
  case OpCategory::Shape: return "shape";
  case OpCategory::Pooling: return "pooling";
  case OpCategory::Normalization: return "normalization";
  case OpCategory::Reduction: return "reduction";
  case OpCategory::Loss: return "loss";
  case OpCategory::Random: return "random";
  case OpCategory::Internal: return "internal";
  }
  return "?";
}

int OpInfo::attrIndex(const std::string &n) const {
  for (size_t i = 0; i < attrs.size(); ++i)
    if (attrs[i].name == n) return static_cast<int>(i);
  return -1;
}

std::vector<std::string> OpInfo::attrNames() const {
  std::vector<std::string> out;
  for (const AttrSpec &a : attrs) out.push_back(a.name);
  return out;
}

const Value &ShapeContext::attr(const std::string &name) const { return attrs.at(op.attrIndex(name)); }
int64_t ShapeContext::intAttr(const std::string &name) const { return attr(name).i; }
double ShapeContext::floatAttr(const std::string &name) const { return attr(name).number(); }
std::vector<double> ShapeContext::floatsAttr(const std::string &name) const {
  std::vector<double> out;
  for (const Value &x : attr(name).list) out.push_back(x.number());
  return out;
}
bool ShapeContext::boolAttr(const std::string &name) const { return attr(name).b; }
std::string ShapeContext::enumAttr(const std::string &name) const { return attr(name).s; }
void ShapeContext::setAttr(const std::string &name, Value v) { attrs.at(op.attrIndex(name)) = std::move(v); }

std::pair<int64_t, int64_t> ShapeContext::pairAttr(const std::string &name) const {
  const Value &v = attr(name);
  if (v.kind == Value::Kind::List) return {v.list[0].i, v.list[1].i};
  return {v.i, v.i};
}

bool ShapeContext::expectRank(int input, int rank, const char *layout) {
  if (in[input].rank() == rank) return true;
  errorInput(input, op.name + " expects a " + std::to_string(rank) + "-D input " + layout + ", got " +
                        in[input].str());
  return false;
}

bool ShapeContext::expectMinRank(int input, int rank) {
  if (in[input].rank() >= rank) return true;
  errorInput(input, op.name + " expects an input of rank " + std::to_string(rank) + " or more, got " +
                        in[input].str());
  return false;
}

bool ShapeContext::expectFloat(int input) {
  if (isFloat(in[input].elem)) return true;
  errorInput(input, op.name + " expects a floating-point tensor, got " + in[input].str());
  return false;
}

void ShapeContext::addParam(const std::string &name, std::vector<int64_t> shape, const std::string &init,
                            int64_t fanIn, bool learnable) {
  ParamTensor p;
  p.name = name;
  p.type.elem = ElemType::F32;
  for (int64_t d : shape) p.type.dims.push_back(Dim::of(d));
  p.init = init;
  p.fanIn = fanIn;
  p.learnable = learnable;
  params.push_back(std::move(p));
}

bool broadcastShapes(const TensorType &a, const TensorType &b, TensorType &out) {
  out.elem = a.elem;
  int r = std::max(a.rank(), b.rank());
  out.dims.assign(r, Dim::of(1));
  for (int k = 0; k < r; ++k) {
    int ia = a.rank() - r + k, ib = b.rank() - r + k;
    Dim da = ia >= 0 ? a.dims[ia] : Dim::of(1);
    Dim db = ib >= 0 ? b.dims[ib] : Dim::of(1);
    if (da == db) out.dims[k] = da;
    else if (da.isStatic() && da.size == 1) out.dims[k] = db;
    else if (db.isStatic() && db.size == 1) out.dims[k] = da;
    else return false;
  }
  return true;
}

namespace {

Value I(int64_t v) { return Value::ofInt(v); }
Value F(double v) { return Value::ofFloat(v); }
Value B(bool v) { return Value::ofBool(v); }
Value S(const char *v) { return Value::ofSymbol(v); }
Value required() { return Value::error(); }

AttrSpec attr(std::string name, AttrKind k, Value def, std::string doc, std::vector<std::string> choices = {}) {
  return AttrSpec{std::move(name), k, std::move(def), std::move(choices), std::move(doc)};
}

// Output size of a convolution or pooling window along one axis.
int64_t windowOut(int64_t in, int64_t k, int64_t s, int64_t padTotal, int64_t d) {
  int64_t eff = d * (k - 1) + 1;
  int64_t span = in + padTotal - eff;
  if (span < 0) return 0;
  return span / s + 1;
}

// Resolves a Padding attribute to explicit [top, bottom, left, right].
// `same` follows TensorFlow/Keras: output = ceil(in / stride), extra padding
// at the bottom/right, so it also works with stride > 1.
std::vector<int64_t> resolvePadding(const Value &pad, int64_t h, int64_t w, std::pair<int64_t, int64_t> k,
                                    std::pair<int64_t, int64_t> s, std::pair<int64_t, int64_t> d) {
  if (pad.kind == Value::Kind::Symbol) {
    if (pad.s == "valid") return {0, 0, 0, 0};
    auto same = [](int64_t in, int64_t kk, int64_t ss, int64_t dd) {
      int64_t out = (in + ss - 1) / ss;
      int64_t total = std::max<int64_t>(0, (out - 1) * ss + dd * (kk - 1) + 1 - in);
      return std::pair<int64_t, int64_t>{total / 2, total - total / 2};
    };
    auto [t, b] = same(h, k.first, s.first, d.first);
    auto [l, r] = same(w, k.second, s.second, d.second);
    return {t, b, l, r};
  }
  if (pad.kind == Value::Kind::List && pad.list.size() == 4)
    return {pad.list[0].i, pad.list[1].i, pad.list[2].i, pad.list[3].i};
  if (pad.kind == Value::Kind::List) return {pad.list[0].i, pad.list[0].i, pad.list[1].i, pad.list[1].i};
  return {pad.i, pad.i, pad.i, pad.i};
}

Value padValue(const std::vector<int64_t> &p) {
  Value v;
  v.kind = Value::Kind::List;
  for (int64_t x : p) v.list.push_back(Value::ofInt(x));
  return v;
}

bool positive(ShapeContext &c, const std::string &name) {
  const Value &v = c.attr(name);
  bool ok = v.kind == Value::Kind::List ? std::all_of(v.list.begin(), v.list.end(), [](const Value &x) { return x.i > 0; })
                                        : v.i > 0;
  if (!ok) c.errorAttr(name, c.op.name + ": '" + name + "' must be positive, got " + v.str());
  return ok;
}

bool spatialStatic(ShapeContext &c, int input) {
  const TensorType &t = c.in[input];
  for (int k = 1; k < t.rank(); ++k) {
    if (!t.dims[k].isStatic()) {
      c.errorInput(input, c.op.name + " needs static channel and spatial sizes, but dim " + std::to_string(k) +
                              " of " + t.str() + " is symbolic");
      return false;
    }
    if (t.dims[k].size > kMaxSpatialSize) { // keeps the window arithmetic below within int64
      c.errorInput(input, c.op.name + ": dim " + std::to_string(k) + " of " + t.str() + " is larger than " +
                              std::to_string(kMaxSpatialSize) + ", the largest supported");
      return false;
    }
  }
  return true;
}

// Elements of one sample: dim 0 is the batch, whether symbolic (B) or static.
double elementsPerSample(const TensorType &t) {
  double n = 1;
  for (int k = 1; k < t.rank(); ++k)
    if (t.dims[k].isStatic()) n *= static_cast<double>(t.dims[k].size);
  return n;
}

void unaryFloat(ShapeContext &c, double flopsPerElement) {
  if (!c.expectFloat(0)) return;
  c.out = {c.in[0]};
  c.flops = flopsPerElement * elementsPerSample(c.in[0]);
}

// Resolves the axes of a reduction or softmax against a rank.
bool normalizeAxis(ShapeContext &c, const std::string &name, int64_t axis, int rank, int64_t &out) {
  if (axis < -rank || axis >= rank) {
    c.errorAttr(name, c.op.name + ": axis " + std::to_string(axis) + " is out of range for a rank-" +
                          std::to_string(rank) + " tensor");
    return false;
  }
  out = axis < 0 ? axis + rank : axis;
  return true;
}

void conv2d(ShapeContext &c) {
  if (!c.expectRank(0, 4, "[N, C, H, W]") || !c.expectFloat(0) || !spatialStatic(c, 0)) return;
  if (!positive(c, "filters") || !positive(c, "kernel") || !positive(c, "stride") ||
      !positive(c, "dilation") || !positive(c, "groups"))
    return;
  const TensorType &x = c.in[0];
  int64_t C = x.dims[1].size, H = x.dims[2].size, W = x.dims[3].size;
  int64_t F = c.intAttr("filters"), G = c.intAttr("groups");
  if (C % G != 0 || F % G != 0) {
    c.errorAttr("groups", "conv2d: groups (" + std::to_string(G) + ") must divide both the input channels (" +
                              std::to_string(C) + ") and the filters (" + std::to_string(F) + ")");
    return;
  }
  auto k = c.pairAttr("kernel"), s = c.pairAttr("stride"), d = c.pairAttr("dilation");
  auto pad = resolvePadding(c.attr("pad"), H, W, k, s, d);
  for (int64_t p : pad)
    if (p < 0) return c.errorAttr("pad", "conv2d: padding must not be negative");
  int64_t Ho = windowOut(H, k.first, s.first, pad[0] + pad[1], d.first);
  int64_t Wo = windowOut(W, k.second, s.second, pad[2] + pad[3], d.second);
  if (Ho <= 0 || Wo <= 0)
    return c.errorInput(0, "conv2d: a " + std::to_string(k.first) + "x" + std::to_string(k.second) +
                               " kernel does not fit the " + std::to_string(H) + "x" + std::to_string(W) +
                               " input " + x.str() + " (output would be empty)");
  c.setAttr("pad", padValue(pad));
  // Sizes are at most 2^30 here (see kMaxSize in Elaborator.cpp); three of them need a check.
  int64_t fanIn;
  if (mulOverflows(C / G, k.first * k.second, fanIn)) return c.errorAttr("kernel", "conv2d: the kernel is too large");
  c.out = {TensorType{x.elem, {x.dims[0], Dim::of(F), Dim::of(Ho), Dim::of(Wo)}}};
  c.addParam("weight", {F, C / G, k.first, k.second}, "uniform_fan_in", fanIn);
  if (c.boolAttr("bias")) c.addParam("bias", {F}, "uniform_fan_in", fanIn);
  c.flops = 2.0 * fanIn * F * Ho * Wo + (c.boolAttr("bias") ? 1.0 * F * Ho * Wo : 0);
}

void convTranspose2d(ShapeContext &c) {
  if (!c.expectRank(0, 4, "[N, C, H, W]") || !c.expectFloat(0) || !spatialStatic(c, 0)) return;
  if (!positive(c, "filters") || !positive(c, "kernel") || !positive(c, "stride") ||
      !positive(c, "dilation") || !positive(c, "groups"))
    return;
  const TensorType &x = c.in[0];
  int64_t C = x.dims[1].size, H = x.dims[2].size, W = x.dims[3].size;
  int64_t F = c.intAttr("filters"), G = c.intAttr("groups");
  if (C % G != 0 || F % G != 0)
    return c.errorAttr("groups", "conv_transpose2d: groups must divide both the input channels and the filters");
  auto k = c.pairAttr("kernel"), s = c.pairAttr("stride"), d = c.pairAttr("dilation");
  auto op = c.pairAttr("output_padding");
  std::vector<int64_t> pad;
  const Value &p = c.attr("pad");
  if (p.kind == Value::Kind::Symbol && p.s == "same") {
    // Output = input * stride (Keras): crop the surplus, extra at the bottom/right.
    auto crop = [&](int64_t kk, int64_t ss, int64_t dd, int64_t opad) {
      int64_t total = dd * (kk - 1) + 1 + opad - ss;
      return std::pair<int64_t, int64_t>{total / 2, total - total / 2};
    };
    auto [t, b] = crop(k.first, s.first, d.first, op.first);
    auto [l, r] = crop(k.second, s.second, d.second, op.second);
    if (t < 0 || b < 0 || l < 0 || r < 0)
      return c.errorAttr("pad", "conv_transpose2d: 'same' padding needs kernel >= stride; use output_padding");
    pad = {t, b, l, r};
  } else {
    pad = resolvePadding(p, H, W, k, s, d);
  }
  if ((op.first >= s.first && op.first >= d.first) || (op.second >= s.second && op.second >= d.second))
    return c.errorAttr("output_padding", "conv_transpose2d: output_padding must be smaller than stride or dilation");
  int64_t Ho = (H - 1) * s.first - pad[0] - pad[1] + d.first * (k.first - 1) + op.first + 1;
  int64_t Wo = (W - 1) * s.second - pad[2] - pad[3] + d.second * (k.second - 1) + op.second + 1;
  if (Ho <= 0 || Wo <= 0) return c.errorInput(0, "conv_transpose2d: output would be empty for input " + x.str());
  c.setAttr("pad", padValue(pad));
  int64_t fanIn; // PyTorch computes fan-in from weight dim 1
  if (mulOverflows(F / G, k.first * k.second, fanIn))
    return c.errorAttr("kernel", "conv_transpose2d: the kernel is too large");
  c.out = {TensorType{x.elem, {x.dims[0], Dim::of(F), Dim::of(Ho), Dim::of(Wo)}}};
  c.addParam("weight", {C, F / G, k.first, k.second}, "uniform_fan_in", fanIn);
  if (c.boolAttr("bias")) c.addParam("bias", {F}, "uniform_fan_in", fanIn);
  c.flops = 2.0 * (C / G) * k.first * k.second * F * H * W + (c.boolAttr("bias") ? 1.0 * F * Ho * Wo : 0);
}

void dense(ShapeContext &c) {
  if (!c.expectMinRank(0, 2) || !c.expectFloat(0) || !positive(c, "units")) return;
  const TensorType &x = c.in[0];
  const Dim &last = x.dims.back();
  if (!last.isStatic())
    return c.errorInput(0, "dense needs a static last dimension, but " + x.str() + " ends in '" + last.symbol + "'");
  int64_t in = last.size, units = c.intAttr("units");
  TensorType out = x;
  out.dims.back() = Dim::of(units);
  c.out = {out};
  c.addParam("weight", {units, in}, "uniform_fan_in", in);
  if (c.boolAttr("bias")) c.addParam("bias", {units}, "uniform_fan_in", in);
  double rows = elementsPerSample(x) / static_cast<double>(std::max<int64_t>(in, 1));
  c.flops = rows * (2.0 * in * units + (c.boolAttr("bias") ? units : 0));
}

void pool2d(ShapeContext &c, bool isMax) {
  if (!c.expectRank(0, 4, "[N, C, H, W]") || !c.expectFloat(0) || !spatialStatic(c, 0)) return;
  if (!positive(c, "kernel")) return;
  const TensorType &x = c.in[0];
  auto k = c.pairAttr("kernel");
  if (c.attr("stride").kind == Value::Kind::None) c.setAttr("stride", c.attr("kernel"));
  if (!positive(c, "stride")) return;
  auto s = c.pairAttr("stride");
  int64_t H = x.dims[2].size, W = x.dims[3].size;
  auto pad = resolvePadding(c.attr("pad"), H, W, k, s, {1, 1});
  if (std::max(pad[0], pad[1]) * 2 > k.first || std::max(pad[2], pad[3]) * 2 > k.second)
    return c.errorAttr("pad", c.op.name + ": padding must be at most half the kernel size");
  int64_t Ho = windowOut(H, k.first, s.first, pad[0] + pad[1], 1);
  int64_t Wo = windowOut(W, k.second, s.second, pad[2] + pad[3], 1);
  if (Ho <= 0 || Wo <= 0)
    return c.errorInput(0, c.op.name + ": a " + std::to_string(k.first) + "x" + std::to_string(k.second) +
                               " window does not fit the input " + x.str());
  c.setAttr("pad", padValue(pad));
  c.out = {TensorType{x.elem, {x.dims[0], x.dims[1], Dim::of(Ho), Dim::of(Wo)}}};
  c.flops = (isMax ? 1.0 : 1.0) * x.dims[1].size * Ho * Wo * k.first * k.second;
}

void batchnorm(ShapeContext &c) {
  if (!c.expectMinRank(0, 2) || !c.expectFloat(0)) return;
  const TensorType &x = c.in[0];
  if (!x.dims[1].isStatic()) return c.errorInput(0, "batchnorm needs a static channel dimension (dim 1)");
  int64_t C = x.dims[1].size;
  double m = c.floatAttr("momentum");
  if (m < 0 || m > 1) return c.errorAttr("momentum", "batchnorm: momentum must be in [0, 1]");
  if (c.floatAttr("eps") <= 0) return c.errorAttr("eps", "batchnorm: eps must be positive");
  c.out = {x};
  if (c.boolAttr("affine")) {
    c.addParam("weight", {C}, "ones", 0);
    c.addParam("bias", {C}, "zeros", 0);
  }
  c.addParam("running_mean", {C}, "zeros", 0, false);
  c.addParam("running_var", {C}, "ones", 0, false);
  c.flops = 4.0 * elementsPerSample(x);
}

void layernorm(ShapeContext &c) {
  if (!c.expectMinRank(0, 2) || !c.expectFloat(0)) return;
  const TensorType &x = c.in[0];
  int64_t n = c.intAttr("dims");
  if (n < 1 || n >= x.rank())
    return c.errorAttr("dims", "layernorm: dims must be between 1 and " + std::to_string(x.rank() - 1) +
                                   " for input " + x.str());
  std::vector<int64_t> shape;
  for (int k = x.rank() - static_cast<int>(n); k < x.rank(); ++k) {
    if (!x.dims[k].isStatic()) return c.errorInput(0, "layernorm needs static normalized dimensions");
    shape.push_back(x.dims[k].size);
  }
  c.out = {x};
  if (c.boolAttr("affine")) {
    c.addParam("weight", shape, "ones", 0);
    c.addParam("bias", shape, "zeros", 0);
  }
  c.flops = 5.0 * elementsPerSample(x);
}

void softmaxLike(ShapeContext &c) {
  if (!c.expectMinRank(0, 1) || !c.expectFloat(0)) return;
  int64_t axis;
  if (!normalizeAxis(c, "axis", c.intAttr("axis"), c.in[0].rank(), axis)) return;
  c.setAttr("axis", Value::ofInt(axis));
  c.out = {c.in[0]};
  c.flops = 5.0 * elementsPerSample(c.in[0]);
}

void flatten(ShapeContext &c) {
  const TensorType &x = c.in[0];
  int64_t start;
  if (!normalizeAxis(c, "start", c.intAttr("start"), x.rank(), start)) return;
  c.setAttr("start", Value::ofInt(start));
  TensorType out{x.elem, {}};
  for (int k = 0; k < start; ++k) out.dims.push_back(x.dims[k]);
  int64_t n = 1;
  for (int k = static_cast<int>(start); k < x.rank(); ++k) {
    if (!x.dims[k].isStatic())
      return c.errorInput(0, "flatten cannot merge the symbolic dim '" + x.dims[k].symbol + "' of " + x.str());
    if (mulOverflows(n, x.dims[k].size, n)) return c.errorInput(0, "flatten: size overflows");
  }
  out.dims.push_back(Dim::of(n));
  c.out = {out};
}

void reshape(ShapeContext &c) {
  const TensorType &x = c.in[0];
  if (x.rank() < 1) return c.errorInput(0, "reshape expects a tensor with a batch dimension");
  for (int k = 1; k < x.rank(); ++k)
    if (!x.dims[k].isStatic()) return c.errorInput(0, "reshape needs static non-batch dims, got " + x.str());
  // A single integer is a one-dim shape: reshape(x, 128) == reshape(x, [128]).
  Value shape = c.attr("shape");
  if (shape.kind == Value::Kind::Int) {
    Value one = shape;
    shape.kind = Value::Kind::List;
    shape.list = {one};
    c.setAttr("shape", shape);
  }
  int64_t have = 1;
  for (int k = 1; k < x.rank(); ++k)
    if (mulOverflows(have, x.dims[k].size, have)) return c.errorInput(0, "reshape: " + x.str() + " is too large");
  int64_t known = 1;
  int infer = -1;
  TensorType out{x.elem, {x.dims[0]}};
  for (size_t k = 0; k < shape.list.size(); ++k) {
    int64_t d = shape.list[k].i;
    if (d == -1) {
      if (infer >= 0) return c.errorAttr("shape", "reshape: at most one dimension may be -1");
      infer = static_cast<int>(k);
      out.dims.push_back(Dim::of(-1));
      continue;
    }
    if (d <= 0) return c.errorAttr("shape", "reshape: dimensions must be positive or -1, got " + std::to_string(d));
    if (mulOverflows(known, d, known)) return c.errorAttr("shape", "reshape: size overflows");
    out.dims.push_back(Dim::of(d));
  }
  if (infer >= 0) {
    if (have % known != 0)
      return c.errorAttr("shape", "reshape: cannot reshape " + x.str() + " (" + std::to_string(have) +
                                      " elements per sample) to " + shape.str());
    out.dims[infer + 1] = Dim::of(have / known);
  } else if (known != have) {
    return c.errorAttr("shape", "reshape: cannot reshape " + x.str() + " (" + std::to_string(have) +
                                    " elements per sample) to " + shape.str() + " (" + std::to_string(known) +
                                    ")");
  }
  c.out = {out};
}

void concat(ShapeContext &c) {
  if (c.in.size() < 2) return c.error("concat needs at least two tensors");
  const TensorType &first = c.in[0];
  int64_t axis;
  if (!normalizeAxis(c, "axis", c.intAttr("axis"), first.rank(), axis)) return;
  c.setAttr("axis", Value::ofInt(axis));
  TensorType out = first;
  if (!first.dims[axis].isStatic()) return c.errorAttr("axis", "concat: cannot concatenate along a symbolic dim");
  for (size_t i = 1; i < c.in.size(); ++i) {
    const TensorType &t = c.in[i];
    bool ok = t.rank() == first.rank() && t.elem == first.elem;
    for (int k = 0; ok && k < t.rank(); ++k)
      if (k != axis && t.dims[k] != first.dims[k]) ok = false;
    if (!ok || !t.dims[axis].isStatic())
      return c.errorInput(static_cast<int>(i), "concat along axis " + std::to_string(axis) + ": " + t.str() +
                                                   " does not match " + first.str());
    if (__builtin_add_overflow(out.dims[axis].size, t.dims[axis].size, &out.dims[axis].size))
      return c.errorInput(static_cast<int>(i), "concat: size overflows");
  }
  c.out = {out};
}

void binary(ShapeContext &c) {
  TensorType out;
  if (c.in[0].elem != c.in[1].elem)
    return c.errorInput(1, c.op.name + ": element types differ: " + c.in[0].str() + " and " + c.in[1].str());
  if (!broadcastShapes(c.in[0], c.in[1], out))
    return c.errorInput(1, c.op.name + ": shapes " + c.in[0].shapeStr() + " and " + c.in[1].shapeStr() +
                               " cannot be broadcast together");
  c.out = {out};
  c.flops = elementsPerSample(out);
}

void reduce(ShapeContext &c) {
  const TensorType &x = c.in[0];
  const Value &axes = c.attr("axis");
  std::vector<bool> reduced(x.rank(), axes.kind == Value::Kind::None);
  if (axes.kind != Value::Kind::None) {
    std::vector<Value> list = axes.kind == Value::Kind::List ? axes.list : std::vector<Value>{axes};
    Value resolved;
    resolved.kind = Value::Kind::List;
    for (const Value &a : list) {
      int64_t ax;
      if (!normalizeAxis(c, "axis", a.i, x.rank(), ax)) return;
      if (reduced[ax]) return c.errorAttr("axis", c.op.name + ": axis " + std::to_string(ax) + " is listed twice");
      reduced[ax] = true;
      resolved.list.push_back(Value::ofInt(ax));
    }
    c.setAttr("axis", resolved);
  }
  TensorType out{x.elem, {}};
  for (int k = 0; k < x.rank(); ++k) {
    if (!reduced[k]) out.dims.push_back(x.dims[k]);
    else if (c.boolAttr("keepdim")) out.dims.push_back(Dim::of(1));
  }
  c.out = {out};
  c.flops = elementsPerSample(x);
}

const std::vector<std::string> kReductions = {"mean", "sum", "batch_mean"};

// A loss over two same-shaped float tensors (prediction, target).
void pairwiseLoss(ShapeContext &c) {
  if (!c.expectFloat(0) || !c.expectFloat(1)) return;
  if (c.in[0].dims != c.in[1].dims)
    return c.errorInput(1, c.op.name + ": target " + c.in[1].str() + " must have the shape of the prediction " +
                               c.in[0].str());
  c.out = {TensorType{ElemType::F32, {}}};
  c.flops = 4.0 * elementsPerSample(c.in[0]);
}

// Logits [N, C, ...] (class scores per sample, or per pixel/voxel) against
// integer labels [N, ...], as torch.nn.CrossEntropyLoss.
void softmaxCrossEntropy(ShapeContext &c) {
  const TensorType &logits = c.in[0], &labels = c.in[1];
  if (!c.expectFloat(0)) return;
  if (logits.rank() < 2)
    return c.errorInput(0, "softmax_cross_entropy expects logits [N, classes] or [N, classes, ...], got " + logits.str());
  if (labels.elem != ElemType::I64 && labels.elem != ElemType::I32)
    return c.errorInput(1, "softmax_cross_entropy expects integer class labels, got " + labels.str());
  std::string want = "[" + logits.dims[0].str();
  for (int k = 2; k < logits.rank(); ++k) want += ", " + logits.dims[k].str();
  want += "]";
  bool match = labels.rank() == logits.rank() - 1 && labels.dims[0] == logits.dims[0];
  for (int k = 2; match && k < logits.rank(); ++k) match = labels.dims[k - 1] == logits.dims[k];
  if (!match)
    return c.errorInput(1, "softmax_cross_entropy: labels " + labels.str() + " must be " + want +
                               " to match logits " + logits.str());
  const std::vector<double> w = c.floatsAttr("weights");
  if (!w.empty()) {
    if (!logits.dims[1].isStatic() || logits.dims[1].size != static_cast<int64_t>(w.size()))
      return c.errorAttr("weights", "softmax_cross_entropy: " + std::to_string(w.size()) + " class weights for logits " +
                                        logits.str() + " (one per class, dim 1)");
    for (double x : w)
      if (!(x > 0)) return c.errorAttr("weights", "softmax_cross_entropy: class weights must be > 0");
  }
  c.out = {TensorType{ElemType::F32, {}}};
  c.flops = 5.0 * elementsPerSample(logits);
}

void klNormal(ShapeContext &c) {
  if (!c.expectFloat(0) || !c.expectFloat(1)) return;
  if (c.in[0].dims != c.in[1].dims)
    return c.errorInput(1, "kl_normal: logvar " + c.in[1].str() + " must have the shape of mu " + c.in[0].str());
  c.out = {TensorType{ElemType::F32, {}}};
  c.flops = 5.0 * elementsPerSample(c.in[0]);
}

std::vector<OpInfo> build() {
  std::vector<OpInfo> r;
  auto add = [&](OpInfo op) { r.push_back(std::move(op)); };
  const auto pair = AttrKind::Pair;

  add({"dense", OpCategory::Layer, "Fully connected layer y = x W^T + b over the last dimension (torch.nn.Linear).",
       {"x"}, false,
       {attr("units", AttrKind::Int, required(), "number of output features"),
        attr("bias", AttrKind::Bool, B(true), "add a learnable bias")},
       dense, "h = dense(x, 128)"});
  add({"conv2d", OpCategory::Layer, "2-D convolution over NCHW input (torch.nn.Conv2d).", {"x"}, false,
       {attr("filters", AttrKind::Int, required(), "number of output channels"),
        attr("kernel", pair, required(), "kernel size: k or [kh, kw]"),
        attr("stride", pair, I(1), "stride: s or [sh, sw]"),
        attr("pad", AttrKind::Padding, I(0), "padding: p, [ph, pw], same (output = ceil(input/stride)) or valid"),
        attr("dilation", pair, I(1), "dilation: d or [dh, dw]"),
        attr("groups", AttrKind::Int, I(1), "number of channel groups (depthwise: groups = channels)"),
        attr("bias", AttrKind::Bool, B(true), "add a learnable bias")},
       conv2d, "h = conv2d(x, 64, kernel: 3, stride: 2, pad: same)"});
  add({"conv_transpose2d", OpCategory::Layer, "Transposed 2-D convolution (torch.nn.ConvTranspose2d).", {"x"}, false,
       {attr("filters", AttrKind::Int, required(), "number of output channels"),
        attr("kernel", pair, required(), "kernel size"), attr("stride", pair, I(1), "stride"),
        attr("pad", AttrKind::Padding, I(0), "padding, or same (output = input * stride)"),
        attr("output_padding", pair, I(0), "extra rows/columns added to one side of the output"),
        attr("dilation", pair, I(1), "dilation"), attr("groups", AttrKind::Int, I(1), "channel groups"),
        attr("bias", AttrKind::Bool, B(true), "add a learnable bias")},
       convTranspose2d, "h = conv_transpose2d(z, 64, kernel: 3, stride: 2, pad: same)"});
  add({"upsample", OpCategory::Shape, "Upsamples NCHW input by an integer factor.", {"x"}, false,
       {attr("scale", pair, I(2), "factor: s or [sh, sw]"),
        attr("mode", AttrKind::Enum, S("nearest"), "interpolation", {"nearest", "bilinear"})},
       [](ShapeContext &c) {
         if (!c.expectRank(0, 4, "[N, C, H, W]") || !c.expectFloat(0) || !spatialStatic(c, 0) || !positive(c, "scale"))
           return;
         auto s = c.pairAttr("scale");
         const TensorType &x = c.in[0];
         c.out = {TensorType{x.elem, {x.dims[0], x.dims[1], Dim::of(x.dims[2].size * s.first),
                                      Dim::of(x.dims[3].size * s.second)}}};
         c.flops = (c.enumAttr("mode") == "bilinear" ? 4.0 : 0.0) * elementsPerSample(c.out[0]);
       },
       "h = upsample(h, scale: 2)"});
  add({"maxpool", OpCategory::Pooling, "2-D max pooling (torch.nn.MaxPool2d).", {"x"}, false,
       {attr("kernel", pair, required(), "window size"),
        attr("stride", AttrKind::OptInt, Value::none(), "stride; defaults to the window size"),
        attr("pad", AttrKind::Padding, I(0), "padding (implicit -inf), or same")},
       [](ShapeContext &c) { pool2d(c, true); }, "h = maxpool(h, 2)"});
  add({"avgpool", OpCategory::Pooling, "2-D average pooling (torch.nn.AvgPool2d, padding counted).", {"x"}, false,
       {attr("kernel", pair, required(), "window size"),
        attr("stride", AttrKind::OptInt, Value::none(), "stride; defaults to the window size"),
        attr("pad", AttrKind::Padding, I(0), "zero padding, or same")},
       [](ShapeContext &c) { pool2d(c, false); }, "h = avgpool(h, 2)"});
  add({"global_avgpool", OpCategory::Pooling, "Averages each channel over H and W: [N, C, H, W] -> [N, C].",
       {"x"}, false, {},
       [](ShapeContext &c) {
         if (!c.expectRank(0, 4, "[N, C, H, W]") || !c.expectFloat(0)) return;
         c.out = {TensorType{c.in[0].elem, {c.in[0].dims[0], c.in[0].dims[1]}}};
         c.flops = elementsPerSample(c.in[0]);
       },
       "h = global_avgpool(h)"});
  add({"batchnorm", OpCategory::Normalization,
       "Batch normalization over dim 1 (torch.nn.BatchNorm1d/2d): batch statistics in training, running "
       "statistics in evaluation.",
       {"x"}, false,
       {attr("momentum", AttrKind::Float, F(0.1), "running-statistics update factor"),
        attr("eps", AttrKind::Float, F(1e-5), "added to the variance"),
        attr("affine", AttrKind::Bool, B(true), "learnable scale and shift")},
       batchnorm, "h = conv2d(x, 64, kernel: 3) |> batchnorm |> relu"});
  add({"layernorm", OpCategory::Normalization, "Layer normalization over the last `dims` dimensions.", {"x"}, false,
       {attr("dims", AttrKind::Int, I(1), "how many trailing dims to normalize"),
        attr("eps", AttrKind::Float, F(1e-5), "added to the variance"),
        attr("affine", AttrKind::Bool, B(true), "learnable scale and shift")},
       layernorm, "h = layernorm(h)"});
  add({"dropout", OpCategory::Random, "Zeroes elements with probability p in training and scales the rest by 1/(1-p).",
       {"x"}, false, {attr("p", AttrKind::Float, F(0.5), "drop probability")},
       [](ShapeContext &c) {
         double p = c.floatAttr("p");
         if (p < 0 || p >= 1) return c.errorAttr("p", "dropout: p must be in [0, 1), got " + c.attr("p").str());
         unaryFloat(c, 1);
       },
       "h = dropout(h, 0.25)"});
  add({"relu", OpCategory::Activation, "max(x, 0).", {"x"}, false, {}, [](ShapeContext &c) { unaryFloat(c, 1); },
       "h = relu(h)"});
  add({"leaky_relu", OpCategory::Activation, "x if x > 0 else slope * x.", {"x"}, false,
       {attr("slope", AttrKind::Float, F(0.01), "negative slope")}, [](ShapeContext &c) { unaryFloat(c, 2); },
       "h = leaky_relu(h, slope: 0.2)"});
  add({"elu", OpCategory::Activation, "x if x > 0 else alpha * (exp(x) - 1).", {"x"}, false,
       {attr("alpha", AttrKind::Float, F(1.0), "scale of the negative part")},
       [](ShapeContext &c) { unaryFloat(c, 3); }, "h = elu(h)"});
  add({"gelu", OpCategory::Activation, "Gaussian error linear unit, exact (erf) or tanh approximation.", {"x"}, false,
       {attr("approximate", AttrKind::Enum, S("none"), "none (erf) or tanh", {"none", "tanh"})},
       [](ShapeContext &c) { unaryFloat(c, 8); }, "h = gelu(h)"});
  add({"tanh", OpCategory::Activation, "Hyperbolic tangent.", {"x"}, false, {},
       [](ShapeContext &c) { unaryFloat(c, 4); }, "h = tanh(h)"});
  add({"sigmoid", OpCategory::Activation, "1 / (1 + exp(-x)).", {"x"}, false, {},
       [](ShapeContext &c) { unaryFloat(c, 4); }, "p = sigmoid(logits)"});
  add({"softmax", OpCategory::Activation, "Softmax along an axis.", {"x"}, false,
       {attr("axis", AttrKind::Int, I(-1), "the axis that sums to one")}, softmaxLike, "p = softmax(logits)"});
  add({"log_softmax", OpCategory::Activation, "Log of softmax along an axis, computed stably.", {"x"}, false,
       {attr("axis", AttrKind::Int, I(-1), "the axis")}, softmaxLike, "lp = log_softmax(logits)"});
  add({"flatten", OpCategory::Shape, "Merges dims start.. into one: [N, C, H, W] -> [N, C*H*W].", {"x"}, false,
       {attr("start", AttrKind::Int, I(1), "first dim to merge")}, flatten, "h = flatten(h)"});
  add({"reshape", OpCategory::Shape,
       "Reshapes each sample; the batch dim is kept, so `shape` lists the per-sample dims (one may be -1).",
       {"x"}, false, {attr("shape", AttrKind::Axes, required(), "per-sample shape, e.g. [64, 7, 7]")}, reshape,
       "h = reshape(h, [64, 7, 7])"});
  add({"concat", OpCategory::Shape, "Concatenates tensors along an axis (default: channels).", {"xs"}, true,
       {attr("axis", AttrKind::Int, I(1), "the axis to join along")}, concat, "h = concat(a, b, axis: 1)"});
  for (auto [name, sym, summary] : {std::tuple{"add", "+", "a + b"}, std::tuple{"sub", "-", "a - b"},
                                    std::tuple{"mul", "*", "a * b"}, std::tuple{"div", "/", "a / b"}}) {
    add({name, OpCategory::Elementwise,
         std::string("Elementwise ") + summary + " with NumPy broadcasting; also written `a " + sym + " b`.",
         {"a", "b"}, false, {}, binary, std::string("h = ") + name + "(h, shortcut)"});
  }
  add({"neg", OpCategory::Math, "-x; also written `-x`.", {"x"}, false, {}, [](ShapeContext &c) { unaryFloat(c, 1); },
       "y = neg(x)"});
  add({"exp", OpCategory::Math, "e^x.", {"x"}, false, {}, [](ShapeContext &c) { unaryFloat(c, 1); },
       "std = exp(0.5 * logvar)"});
  add({"log", OpCategory::Math, "Natural logarithm.", {"x"}, false, {}, [](ShapeContext &c) { unaryFloat(c, 1); },
       "y = log(p)"});
  add({"log1p", OpCategory::Math, "log(1 + x), accurate near x = 0 (torch.log1p).", {"x"}, false, {},
       [](ShapeContext &c) { unaryFloat(c, 1); }, "y = log1p(counts)"});
  add({"abs", OpCategory::Math, "|x|; its gradient is sign(x), 0 at 0 (torch.abs).", {"x"}, false, {},
       [](ShapeContext &c) { unaryFloat(c, 1); }, "y = abs(residual)"});
  add({"sign", OpCategory::Math, "-1, 0 or 1 by the sign of x; no gradient flows through it (torch.sign).", {"x"},
       false, {}, [](ShapeContext &c) { unaryFloat(c, 1); }, "s = sign(x)"});
  add({"sqrt", OpCategory::Math, "Square root.", {"x"}, false, {}, [](ShapeContext &c) { unaryFloat(c, 1); },
       "y = sqrt(v)"});
  add({"square", OpCategory::Math, "x * x.", {"x"}, false, {}, [](ShapeContext &c) { unaryFloat(c, 1); },
       "y = square(mu)"});
  add({"sum", OpCategory::Reduction, "Sum over `axis` (default: all dims).", {"x"}, false,
       {attr("axis", AttrKind::Axes, Value::none(), "dim or list of dims; none = all"),
        attr("keepdim", AttrKind::Bool, B(false), "keep reduced dims with size 1")},
       reduce, "s = sum(x, axis: [1, 2, 3])"});
  add({"mean", OpCategory::Reduction, "Mean over `axis` (default: all dims).", {"x"}, false,
       {attr("axis", AttrKind::Axes, Value::none(), "dim or list of dims; none = all"),
        attr("keepdim", AttrKind::Bool, B(false), "keep reduced dims with size 1")},
       reduce, "m = mean(x)"});
  add({"randn_like", OpCategory::Random,
       "Standard-normal samples shaped like x, from a counter-based generator keyed by seed, step and rank.",
       {"x"}, false, {}, [](ShapeContext &c) { unaryFloat(c, 0); }, "z = mu + exp(0.5 * logvar) * randn_like(mu)"});
  add({"softmax_cross_entropy", OpCategory::Loss,
       "Mean cross-entropy of softmax(logits) against integer class labels (torch.nn.CrossEntropyLoss); classes "
       "along dim 1, per sample or per pixel.",
       {"logits", "labels"}, false,
       {attr("weights", AttrKind::Floats, Value::none(),
             "one weight > 0 per class: the loss is sum(w[label] * l) / sum(w[label]) (CrossEntropyLoss(weight=...))")},
       softmaxCrossEntropy, "loss: softmax_cross_entropy(logits, labels, weights: [1.0, 20.0])"});
  add({"bce_with_logits", OpCategory::Loss,
       "Binary cross-entropy of sigmoid(logits) against targets in [0, 1], computed stably.",
       {"logits", "target"}, false,
       {attr("reduction", AttrKind::Enum, S("mean"),
             "mean (over all elements), sum, or batch_mean (sum per sample, mean over the batch)", kReductions)},
       pairwiseLoss, "loss: bce_with_logits(recon, x, reduction: batch_mean)"});
  add({"binary_cross_entropy", OpCategory::Loss, "Binary cross-entropy of probabilities against targets in [0, 1].",
       {"p", "target"}, false,
       {attr("reduction", AttrKind::Enum, S("mean"), "mean, sum or batch_mean", kReductions)}, pairwiseLoss,
       "loss: binary_cross_entropy(sigmoid(y), x)"});
  add({"mse", OpCategory::Loss, "Mean squared error.", {"prediction", "target"}, false,
       {attr("reduction", AttrKind::Enum, S("mean"), "mean, sum or batch_mean", kReductions)}, pairwiseLoss,
       "loss: mse(y, x)"});
  for (const char *name : {"mae", "l1"})
    add({name, OpCategory::Loss, "Mean absolute error |prediction - target| (torch.nn.L1Loss).",
         {"prediction", "target"}, false,
         {attr("reduction", AttrKind::Enum, S("mean"), "mean, sum or batch_mean", kReductions)}, pairwiseLoss,
         std::string("loss: ") + name + "(y, targets)"});
  add({"huber", OpCategory::Loss,
       "Huber loss: 0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta), d = prediction - target "
       "(torch.nn.HuberLoss).",
       {"prediction", "target"}, false,
       {attr("delta", AttrKind::Float, F(1.0), "where the loss turns from quadratic to linear (> 0)"),
        attr("reduction", AttrKind::Enum, S("mean"), "mean, sum or batch_mean", kReductions)},
       [](ShapeContext &c) {
         pairwiseLoss(c);
         if (!c.out.empty() && !(c.floatAttr("delta") > 0)) c.errorAttr("delta", "huber: 'delta' must be > 0");
       },
       "loss: huber(y, targets, delta: 0.5)"});
  add({"kl_normal", OpCategory::Loss,
       "KL divergence of N(mu, exp(logvar)) from N(0, 1): -0.5 * sum(1 + logvar - mu^2 - exp(logvar)).",
       {"mu", "logvar"}, false,
       {attr("reduction", AttrKind::Enum, S("batch_mean"), "batch_mean (sum per sample, mean over batch), sum or mean",
             kReductions)},
       klNormal, "loss: bce_with_logits(recon, x, reduction: batch_mean) + kl_normal(mu, logvar)"});
  add({"constant", OpCategory::Internal, "A scalar constant, made from a number in a tensor expression.", {}, false,
       {attr("value", AttrKind::Float, F(0), "the value")},
       [](ShapeContext &c) { c.out = {TensorType{ElemType::F32, {}}}; }, ""});
  return r;
}

} // namespace

const std::vector<OpInfo> &opRegistry() {
  static const std::vector<OpInfo> registry = build();
  return registry;
}

const OpInfo *lookupOp(const std::string &name) {
  // Internal operators (constant) are made by sema, never called by name.
  for (const OpInfo &op : opRegistry())
    if (op.name == name && op.category != OpCategory::Internal) return &op;
  return nullptr;
}

std::vector<std::string> opNames() {
  std::vector<std::string> out;
  for (const OpInfo &op : opRegistry())
    if (op.category != OpCategory::Internal) out.push_back(op.name);
  return out;
}

} // namespace dx
