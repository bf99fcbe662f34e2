// The elaborated network: every block instantiated, every operator applied to
// concrete tensor types. Sema produces it; --print-model and MLIRGen read it.
#pragma once

#include "sema/Types.h"
#include "sema/Value.h"
#include "support/Source.h"

#include <string>
#include <vector>

namespace dx {

struct OpInfo;

// A learnable parameter (or a non-learnable buffer such as a running mean).
struct ParamTensor {
  std::string name;     // full path, e.g. "stage1.bottleneck_2.conv2d_1.weight"
  TensorType type;
  std::string init;     // initialiser: kaiming_uniform, zeros, ones, ...
  int64_t fanIn = 0;    // for PyTorch-style default initialisation
  bool learnable = true;
};

struct GraphValue {
  TensorType type;
  int producer = -1;     // node index, or -1 for graph inputs
  SourceRange def;       // the expression that produced it
  std::string name;      // the name it was bound to, if any
};

struct GraphNode {
  const OpInfo *op = nullptr;
  std::vector<int> inputs;
  std::vector<Value> attrs;   // one per OpInfo::attrs entry, defaults filled in
  std::vector<int> outputs;
  std::vector<ParamTensor> params;
  double flops = 0;           // forward FLOPs per sample (1 MAC = 2 FLOPs)
  std::string path;           // unique layer name
  SourceRange range;          // the call in the source
  std::vector<SourceRange> instantiatedFrom; // block call sites, innermost first
  bool inLoss = false;        // part of the loss expression, not the model
};

struct Graph {
  std::vector<GraphValue> values;
  std::vector<GraphNode> nodes;
  std::vector<int> inputs;              // model inputs, in parameter order
  std::vector<std::string> inputNames;
  std::vector<int> outputs;             // model outputs
  std::vector<std::string> outputNames;
  int labels = -1;                      // the `labels` input of the loss, if any
  int targets = -1;                     // the `targets` input of the loss, if any
  int loss = -1;                        // the scalar loss value, if a train block exists

  int64_t parameterCount() const;
  double forwardFlops() const;          // model only, per sample
};

} // namespace dx
