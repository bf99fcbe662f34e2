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

std::vector<int64_t> ShapeContext::spatialAttr(const std::string &name, int n) const {
  const Value &v = attr(name);
  std::vector<int64_t> out;
  if (v.kind == Value::Kind::List)
    for (const Value &x : v.list) out.push_back(x.i);
  else
    out.assign(n, v.i);
  return out;
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

// A Pair / OptInt / Padding attribute of a 3-D operator: one value per
// spatial dim (depth, height, width).
AttrSpec attr3(std::string name, AttrKind k, Value def, std::string doc) {
  AttrSpec a = attr(std::move(name), k, std::move(def), std::move(doc));
  a.spatial = 3;
  return a;
}

// Output size of a convolution or pooling window along one axis.
int64_t windowOut(int64_t in, int64_t k, int64_t s, int64_t padTotal, int64_t d) {
  int64_t eff = d * (k - 1) + 1;
  int64_t span = in + padTotal - eff;
  if (span < 0) return 0;
  return span / s + 1;
}

// Resolves a Padding attribute over n spatial dims to explicit [lo, hi] per
// dim ([top, bottom, left, right] in 2-D, [front, back, top, bottom, left,
// right] in 3-D). `same` follows TensorFlow/Keras: output = ceil(in / stride),
// the extra padding at the end of each dim, so it also works with stride > 1.
std::vector<int64_t> resolvePadding(const Value &pad, const std::vector<int64_t> &in, const std::vector<int64_t> &k,
                                    const std::vector<int64_t> &s, const std::vector<int64_t> &d) {
  size_t n = in.size();
  std::vector<int64_t> out;
  if (pad.kind == Value::Kind::Symbol) {
    for (size_t i = 0; i < n; ++i) {
      int64_t total = 0;
      if (pad.s != "valid") {
        int64_t o = (in[i] + s[i] - 1) / s[i];
        total = std::max<int64_t>(0, (o - 1) * s[i] + d[i] * (k[i] - 1) + 1 - in[i]);
      }
      out.push_back(total / 2);
      out.push_back(total - total / 2);
    }
    return out;
  }
  if (pad.kind == Value::Kind::List && pad.list.size() == 2 * n) {
    for (const Value &x : pad.list) out.push_back(x.i);
    return out;
  }
  for (size_t i = 0; i < n; ++i) {
    int64_t p = pad.kind == Value::Kind::List ? pad.list[i].i : pad.i;
    out.push_back(p);
    out.push_back(p);
  }
  return out;
}

// "3x3" or "3x3x3": a window or plane for messages.
std::string joinX(const std::vector<int64_t> &v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? "x" : "") + std::to_string(v[i]);
  return out;
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

// The spatial sizes of input `i` (dims 2..), checked static by spatialStatic.
std::vector<int64_t> spatialSizes(const TensorType &x) {
  std::vector<int64_t> out;
  for (int k = 2; k < x.rank(); ++k) out.push_back(x.dims[k].size);
  return out;
}

const char *layoutOf(int nsp) { return nsp == 3 ? "[N, C, D, H, W]" : "[N, C, H, W]"; }

// conv2d (nsp = 2) and conv3d (nsp = 3), as torch.nn.Conv2d / Conv3d.
void convNd(ShapeContext &c, int nsp) {
  if (!c.expectRank(0, nsp + 2, layoutOf(nsp)) || !c.expectFloat(0) || !spatialStatic(c, 0)) return;
  if (!positive(c, "filters") || !positive(c, "kernel") || !positive(c, "stride") ||
      !positive(c, "dilation") || !positive(c, "groups"))
    return;
  const std::string &name = c.op.name;
  const TensorType &x = c.in[0];
  int64_t C = x.dims[1].size;
  std::vector<int64_t> in = spatialSizes(x);
  int64_t F = c.intAttr("filters"), G = c.intAttr("groups");
  if (C % G != 0 || F % G != 0) {
    c.errorAttr("groups", name + ": groups (" + std::to_string(G) + ") must divide both the input channels (" +
                              std::to_string(C) + ") and the filters (" + std::to_string(F) + ")");
    return;
  }
  auto k = c.spatialAttr("kernel", nsp), s = c.spatialAttr("stride", nsp), d = c.spatialAttr("dilation", nsp);
  auto pad = resolvePadding(c.attr("pad"), in, k, s, d);
  for (int64_t p : pad)
    if (p < 0) return c.errorAttr("pad", name + ": padding must not be negative");
  std::vector<Dim> dims = {x.dims[0], Dim::of(F)};
  std::vector<int64_t> outSizes;
  int64_t taps = 1;
  bool tooLarge = false;
  for (int i = 0; i < nsp; ++i) {
    int64_t o = windowOut(in[i], k[i], s[i], pad[2 * i] + pad[2 * i + 1], d[i]);
    if (o <= 0)
      return c.errorInput(0, name + ": a " + joinX(k) + " kernel does not fit the " + joinX(in) + " input " +
                                 x.str() + " (output would be empty)");
    dims.push_back(Dim::of(o));
    tooLarge |= mulOverflows(taps, k[i], taps);
  }
  c.setAttr("pad", padValue(pad));
  // Sizes are at most 2^30 here (see kMaxSize in Elaborator.cpp); products of them need a check.
  int64_t fanIn;
  if (tooLarge || taps > kMaxSpatialSize || mulOverflows(C / G, taps, fanIn))
    return c.errorAttr("kernel", name + ": the kernel is too large");
  c.out = {TensorType{x.elem, dims}};
  std::vector<int64_t> wshape = {F, C / G};
  wshape.insert(wshape.end(), k.begin(), k.end());
  c.addParam("weight", wshape, "uniform_fan_in", fanIn);
  if (c.boolAttr("bias")) c.addParam("bias", {F}, "uniform_fan_in", fanIn);
  double outs = 1;
  for (size_t i = 2; i < dims.size(); ++i) outs *= static_cast<double>(dims[i].size);
  c.flops = 2.0 * fanIn * F * outs + (c.boolAttr("bias") ? 1.0 * F * outs : 0);
}

// conv_transpose2d / conv_transpose3d (torch.nn.ConvTranspose2d / 3d).
void convTransposeNd(ShapeContext &c, int nsp) {
  if (!c.expectRank(0, nsp + 2, layoutOf(nsp)) || !c.expectFloat(0) || !spatialStatic(c, 0)) return;
  if (!positive(c, "filters") || !positive(c, "kernel") || !positive(c, "stride") ||
      !positive(c, "dilation") || !positive(c, "groups"))
    return;
  const std::string &name = c.op.name;
  const TensorType &x = c.in[0];
  int64_t C = x.dims[1].size;
  std::vector<int64_t> in = spatialSizes(x);
  int64_t F = c.intAttr("filters"), G = c.intAttr("groups");
  if (C % G != 0 || F % G != 0)
    return c.errorAttr("groups", name + ": groups must divide both the input channels and the filters");
  auto k = c.spatialAttr("kernel", nsp), s = c.spatialAttr("stride", nsp), d = c.spatialAttr("dilation", nsp);
  auto op = c.spatialAttr("output_padding", nsp);
  std::vector<int64_t> pad;
  const Value &p = c.attr("pad");
  if (p.kind == Value::Kind::Symbol && p.s == "same") {
    // Output = input * stride (Keras): crop the surplus, extra at the end of each dim.
    for (int i = 0; i < nsp; ++i) {
      int64_t total = d[i] * (k[i] - 1) + 1 + op[i] - s[i];
      if (total < 0)
        return c.errorAttr("pad", name + ": 'same' padding needs kernel >= stride; use output_padding");
      pad.push_back(total / 2);
      pad.push_back(total - total / 2);
    }
  } else {
    pad = resolvePadding(p, in, k, s, d);
  }
  for (int i = 0; i < nsp; ++i)
    if (op[i] >= s[i] && op[i] >= d[i])
      return c.errorAttr("output_padding", name + ": output_padding must be smaller than stride or dilation");
  std::vector<Dim> dims = {x.dims[0], Dim::of(F)};
  int64_t taps = 1;
  bool tooLarge = false;
  double ins = 1, outs = 1;
  for (int i = 0; i < nsp; ++i) {
    int64_t o = (in[i] - 1) * s[i] - pad[2 * i] - pad[2 * i + 1] + d[i] * (k[i] - 1) + op[i] + 1;
    if (o <= 0) return c.errorInput(0, name + ": output would be empty for input " + x.str());
    dims.push_back(Dim::of(o));
    tooLarge |= mulOverflows(taps, k[i], taps);
    ins *= static_cast<double>(in[i]);
    outs *= static_cast<double>(o);
  }
  c.setAttr("pad", padValue(pad));
  int64_t fanIn; // PyTorch computes fan-in from weight dim 1
  if (tooLarge || taps > kMaxSpatialSize || mulOverflows(F / G, taps, fanIn))
    return c.errorAttr("kernel", name + ": the kernel is too large");
  c.out = {TensorType{x.elem, dims}};
  std::vector<int64_t> wshape = {C, F / G};
  wshape.insert(wshape.end(), k.begin(), k.end());
  c.addParam("weight", wshape, "uniform_fan_in", fanIn);
  if (c.boolAttr("bias")) c.addParam("bias", {F}, "uniform_fan_in", fanIn);
  c.flops = 2.0 * (C / G) * static_cast<double>(taps) * F * ins + (c.boolAttr("bias") ? 1.0 * F * outs : 0);
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

// maxpool / avgpool (nsp = 2) and maxpool3d / avgpool3d (nsp = 3).
void poolNd(ShapeContext &c, int nsp) {
  if (!c.expectRank(0, nsp + 2, layoutOf(nsp)) || !c.expectFloat(0) || !spatialStatic(c, 0)) return;
  if (!positive(c, "kernel")) return;
  const TensorType &x = c.in[0];
  auto k = c.spatialAttr("kernel", nsp);
  if (c.attr("stride").kind == Value::Kind::None) c.setAttr("stride", c.attr("kernel"));
  if (!positive(c, "stride")) return;
  auto s = c.spatialAttr("stride", nsp);
  std::vector<int64_t> in = spatialSizes(x);
  auto pad = resolvePadding(c.attr("pad"), in, k, s, std::vector<int64_t>(nsp, 1));
  for (int i = 0; i < nsp; ++i)
    if (std::max(pad[2 * i], pad[2 * i + 1]) * 2 > k[i])
      return c.errorAttr("pad", c.op.name + ": padding must be at most half the kernel size");
  std::vector<Dim> dims = {x.dims[0], x.dims[1]};
  double window = 1, outs = 1;
  for (int i = 0; i < nsp; ++i) {
    int64_t o = windowOut(in[i], k[i], s[i], pad[2 * i] + pad[2 * i + 1], 1);
    if (o <= 0)
      return c.errorInput(0, c.op.name + ": a " + joinX(k) + " window does not fit the input " + x.str());
    dims.push_back(Dim::of(o));
    window *= static_cast<double>(k[i]);
    outs *= static_cast<double>(o);
  }
  c.setAttr("pad", padValue(pad));
  c.out = {TensorType{x.elem, dims}};
  c.flops = static_cast<double>(x.dims[1].size) * outs * window;
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
       [](ShapeContext &c) { convNd(c, 2); }, "h = conv2d(x, 64, kernel: 3, stride: 2, pad: same)"});
  add({"conv3d", OpCategory::Layer, "3-D convolution over NCDHW input (torch.nn.Conv3d).", {"x"}, false,
       {attr("filters", AttrKind::Int, required(), "number of output channels"),
        attr3("kernel", pair, required(), "kernel size: k or [kd, kh, kw]"),
        attr3("stride", pair, I(1), "stride: s or [sd, sh, sw]"),
        attr3("pad", AttrKind::Padding, I(0),
              "padding: p, [pd, ph, pw], [front, back, top, bottom, left, right], same (output = "
              "ceil(input/stride)) or valid"),
        attr3("dilation", pair, I(1), "dilation: d or [dd, dh, dw]"),
        attr("groups", AttrKind::Int, I(1), "number of channel groups"),
        attr("bias", AttrKind::Bool, B(true), "add a learnable bias")},
       [](ShapeContext &c) { convNd(c, 3); }, "h = conv3d(x, 32, kernel: 3, pad: same)"});
  add({"conv_transpose2d", OpCategory::Layer, "Transposed 2-D convolution (torch.nn.ConvTranspose2d).", {"x"}, false,
       {attr("filters", AttrKind::Int, required(), "number of output channels"),
        attr("kernel", pair, required(), "kernel size"), attr("stride", pair, I(1), "stride"),
        attr("pad", AttrKind::Padding, I(0), "padding, or same (output = input * stride)"),
        attr("output_padding", pair, I(0), "extra rows/columns added to one side of the output"),
        attr("dilation", pair, I(1), "dilation"), attr("groups", AttrKind::Int, I(1), "channel groups"),
        attr("bias", AttrKind::Bool, B(true), "add a learnable bias")},
       [](ShapeContext &c) { convTransposeNd(c, 2); }, "h = conv_transpose2d(z, 64, kernel: 3, stride: 2, pad: same)"});
  add({"conv_transpose3d", OpCategory::Layer, "Transposed 3-D convolution (torch.nn.ConvTranspose3d).", {"x"}, false,
       {attr("filters", AttrKind::Int, required(), "number of output channels"),
        attr3("kernel", pair, required(), "kernel size: k or [kd, kh, kw]"),
        attr3("stride", pair, I(1), "stride"),
        attr3("pad", AttrKind::Padding, I(0), "padding, or same (output = input * stride)"),
        attr3("output_padding", pair, I(0), "extra planes/rows/columns added to one side of the output"),
        attr3("dilation", pair, I(1), "dilation"), attr("groups", AttrKind::Int, I(1), "channel groups"),
        attr("bias", AttrKind::Bool, B(true), "add a learnable bias")},
       [](ShapeContext &c) { convTransposeNd(c, 3); }, "h = conv_transpose3d(z, 32, kernel: 2, stride: 2)"});
  AttrSpec scale = attr("scale", pair, I(2), "factor: s, [sh, sw] on 4-D input, [sd, sh, sw] on 5-D input");
  scale.spatial = 0;
  add({"upsample", OpCategory::Shape, "Upsamples NCHW or NCDHW input by integer factors.", {"x"}, false,
       {scale, attr("mode", AttrKind::Enum, S("nearest"),
                    "interpolation (bilinear: 4-D input only; trilinear: 5-D input only)",
                    {"nearest", "bilinear", "trilinear"})},
       [](ShapeContext &c) {
         const TensorType &x = c.in[0];
         if (x.rank() != 4 && x.rank() != 5)
           return c.errorInput(0, "upsample expects a 4-D input [N, C, H, W] or a 5-D input [N, C, D, H, W], got " +
                                      x.str());
         if (!c.expectFloat(0) || !spatialStatic(c, 0) || !positive(c, "scale")) return;
         int nsp = x.rank() - 2;
         const Value &sv = c.attr("scale");
         if (sv.kind == Value::Kind::List && static_cast<int>(sv.list.size()) != nsp)
           return c.errorAttr("scale", "upsample: " + std::to_string(sv.list.size()) + " scale factors for the " +
                                           std::to_string(nsp) + " spatial dims of " + x.str());
         if (nsp == 3 && c.enumAttr("mode") == "bilinear")
           return c.errorAttr("mode", "upsample: bilinear interpolation takes 4-D input; use mode: trilinear or "
                                      "nearest on " + x.str());
         if (nsp == 2 && c.enumAttr("mode") == "trilinear")
           return c.errorAttr("mode", "upsample: trilinear interpolation takes 5-D input; use mode: bilinear or "
                                      "nearest on " + x.str());
         auto s = c.spatialAttr("scale", nsp);
         Value resolved;
         resolved.kind = Value::Kind::List;
         std::vector<Dim> dims = {x.dims[0], x.dims[1]};
         for (int i = 0; i < nsp; ++i) {
           int64_t o;
           if (mulOverflows(x.dims[2 + i].size, s[i], o) || o > kMaxSpatialSize)
             return c.errorAttr("scale", "upsample: the output of " + x.str() + " would be too large");
           dims.push_back(Dim::of(o));
           resolved.list.push_back(Value::ofInt(s[i]));
         }
         c.setAttr("scale", resolved);
         c.out = {TensorType{x.elem, dims}};
         // One FLOP per tap read: bilinear reads 4 inputs per output, trilinear 8.
         const std::string mode = c.enumAttr("mode");
         const double perOutput = mode == "bilinear" ? 4.0 : mode == "trilinear" ? 8.0 : 0.0;
         c.flops = perOutput * elementsPerSample(c.out[0]);
       },
       "h = upsample(h, scale: 2)"});
  add({"maxpool", OpCategory::Pooling, "2-D max pooling (torch.nn.MaxPool2d).", {"x"}, false,
       {attr("kernel", pair, required(), "window size"),
        attr("stride", AttrKind::OptInt, Value::none(), "stride; defaults to the window size"),
        attr("pad", AttrKind::Padding, I(0), "padding (implicit -inf), or same")},
       [](ShapeContext &c) { poolNd(c, 2); }, "h = maxpool(h, 2)"});
  add({"avgpool", OpCategory::Pooling, "2-D average pooling (torch.nn.AvgPool2d, padding counted).", {"x"}, false,
       {attr("kernel", pair, required(), "window size"),
        attr("stride", AttrKind::OptInt, Value::none(), "stride; defaults to the window size"),
        attr("pad", AttrKind::Padding, I(0), "zero padding, or same")},
       [](ShapeContext &c) { poolNd(c, 2); }, "h = avgpool(h, 2)"});
  add({"maxpool3d", OpCategory::Pooling, "3-D max pooling over NCDHW input (torch.nn.MaxPool3d).", {"x"}, false,
       {attr3("kernel", pair, required(), "window size: k or [kd, kh, kw]"),
        attr3("stride", AttrKind::OptInt, Value::none(), "stride; defaults to the window size"),
        attr3("pad", AttrKind::Padding, I(0), "padding (implicit -inf), or same")},
       [](ShapeContext &c) { poolNd(c, 3); }, "h = maxpool3d(h, 2)"});
  add({"avgpool3d", OpCategory::Pooling,
       "3-D average pooling over NCDHW input (torch.nn.AvgPool3d, padding counted).", {"x"}, false,
       {attr3("kernel", pair, required(), "window size: k or [kd, kh, kw]"),
        attr3("stride", AttrKind::OptInt, Value::none(), "stride; defaults to the window size"),
        attr3("pad", AttrKind::Padding, I(0), "zero padding, or same")},
       [](ShapeContext &c) { poolNd(c, 3); }, "h = avgpool3d(h, 2)"});
  add({"global_avgpool", OpCategory::Pooling,
       "Averages each channel over its spatial dims: [N, C, H, W] or [N, C, D, H, W] -> [N, C].", {"x"}, false, {},
       [](ShapeContext &c) {
         const TensorType &x = c.in[0];
         if (x.rank() != 4 && x.rank() != 5)
           return c.errorInput(0, "global_avgpool expects a 4-D input [N, C, H, W] or a 5-D input [N, C, D, H, W], "
                                  "got " + x.str());
         if (!c.expectFloat(0)) return;
         c.out = {TensorType{x.elem, {x.dims[0], x.dims[1]}}};
         c.flops = elementsPerSample(x);
       },
       "h = global_avgpool(h)"});
  add({"batchnorm", OpCategory::Normalization,
       "Batch normalization over dim 1 (torch.nn.BatchNorm1d/2d/3d): batch statistics in training, running "
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
