// The operator registry: the single place that knows each operator's tensor
// inputs, attributes with their defaults, result shapes, learnable parameters
// and FLOPs. Sema checks calls against it; --print-model, docs and (later)
// MLIRGen and autodiff read the same entries.
#pragma once

#include "sema/Graph.h"
#include "sema/Types.h"
#include "sema/Value.h"

#include <functional>
#include <string>
#include <vector>

namespace dx {

enum class AttrKind {
  Int,      // 3
  Float,    // 0.5 (an integer is accepted)
  Bool,     // true
  Enum,     // one of `choices`, written as a bare name: same, nearest
  Pair,     // 3 or [3, 5]: (height, width); with spatial = 3, 3 or [3, 3, 5]: (depth, height, width)
  Padding,  // 1, [1, 2], same or valid; resolved to [top, bottom, left, right]
            // (spatial = 3: 1, [pd, ph, pw], [6 values], same or valid; resolved to
            // [front, back, top, bottom, left, right])
  Axes,     // 1 or [1, 2]; negative counts from the end; none = all
  OptInt,   // an integer or none (e.g. a pool stride that defaults to the kernel)
  Floats,   // a list of numbers, or none (e.g. per-class loss weights)
};

struct AttrSpec {
  std::string name;
  AttrKind kind;
  Value defaultValue;         // Kind::Error means required
  std::vector<std::string> choices; // Enum
  std::string doc;
  // Pair, OptInt and Padding: how many spatial dims the value covers (2 for
  // the 2-D operators, 3 for the 3-D ones), or 0 for "as many as the input
  // has" (upsample on 4-D or 5-D input), which the shape rule resolves.
  int spatial = 2;
  bool required() const { return defaultValue.isError(); }
};

enum class OpCategory { Layer, Activation, Elementwise, Math, Shape, Pooling, Normalization,
                        Reduction, Loss, Random, Internal };
const char *spelling(OpCategory c);

struct OpInfo;

// What a shape rule sees and produces. Errors name the input or attribute at
// fault so sema can point at the exact argument in the source.
struct ShapeContext {
  const OpInfo &op;
  std::vector<TensorType> in;
  std::vector<Value> attrs;               // resolved, one per OpInfo::attrs
  std::vector<TensorType> out;
  std::vector<ParamTensor> params;        // names relative to the layer: weight, bias
  double flops = 0;                       // per sample

  // Reporter: (input index or -1, attribute name or "", message).
  std::function<void(int, const std::string &, const std::string &)> report;
  bool failed = false;

  const Value &attr(const std::string &name) const;
  int64_t intAttr(const std::string &name) const;
  double floatAttr(const std::string &name) const;
  std::vector<double> floatsAttr(const std::string &name) const; // empty for none
  bool boolAttr(const std::string &name) const;
  std::string enumAttr(const std::string &name) const;
  std::pair<int64_t, int64_t> pairAttr(const std::string &name) const;
  // A Pair / OptInt attribute as n values (an integer repeated n times).
  std::vector<int64_t> spatialAttr(const std::string &name, int n) const;
  void setAttr(const std::string &name, Value v);

  void error(const std::string &msg) { failed = true; report(-1, "", msg); }
  void errorInput(int i, const std::string &msg) { failed = true; report(i, "", msg); }
  void errorAttr(const std::string &name, const std::string &msg) { failed = true; report(-1, name, msg); }
  // Checks rank, and that element type is floating point; reports and returns false otherwise.
  bool expectRank(int input, int rank, const char *layout);
  bool expectMinRank(int input, int rank);
  bool expectFloat(int input);
  void addParam(const std::string &name, std::vector<int64_t> shape, const std::string &init,
                int64_t fanIn, bool learnable = true);
};

using ShapeFn = std::function<void(ShapeContext &)>;

struct OpInfo {
  std::string name;
  OpCategory category;
  std::string summary;
  std::vector<std::string> inputs;  // names of tensor inputs, e.g. {"x"}
  bool variadic = false;            // the last input repeats (concat)
  std::vector<AttrSpec> attrs;
  ShapeFn infer;
  std::string example;              // a short .dx usage, for docs and --help

  int attrIndex(const std::string &n) const;
  std::vector<std::string> attrNames() const;
};

// Largest channel or spatial size (and window argument) of conv, pool and
// upsample: their shape arithmetic multiplies two such sizes.
constexpr int64_t kMaxSpatialSize = int64_t(1) << 30;

const std::vector<OpInfo> &opRegistry();
const OpInfo *lookupOp(const std::string &name);
std::vector<std::string> opNames();

// Numpy-style broadcasting of two shapes; false if incompatible.
bool broadcastShapes(const TensorType &a, const TensorType &b, TensorType &out);

} // namespace dx
