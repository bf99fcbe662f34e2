#include "driver/ModelTable.h"

#include "sema/OpRegistry.h"
#include "util/Format.h"

#include <cmath>
#include <cstdio>
#include <iomanip>
#include <ostream>

namespace dx {

void printModelTable(std::ostream &os, const CheckedModel &model, const SourceManager &sm, const TrainConfig *train) {
  const Graph &g = model.graph;
  const ast::FuncDecl &fn = *model.decl;
  os << "model " << fn.name.name << "  (" << sm.describe(fn.name.range) << ")\n";
  size_t pathWidth = 5;
  for (const GraphNode &n : g.nodes)
    if (!n.inLoss && n.op->category != OpCategory::Internal) pathWidth = std::max(pathWidth, n.path.size());
  pathWidth = std::min<size_t>(pathWidth, 48);
  size_t opWidth = 17; // wider for long names such as softmax_cross_entropy
  for (const GraphNode &n : g.nodes)
    if (!n.inLoss && n.op->category != OpCategory::Internal) opWidth = std::max(opWidth, n.op->name.size());
  auto row = [&](const std::string &idx, const std::string &layer, const std::string &op, const std::string &shape,
                 const std::string &params, const std::string &flops) {
    os << std::right << std::setw(5) << idx << "  " << std::left << std::setw(static_cast<int>(pathWidth)) << layer
       << "  " << std::setw(static_cast<int>(opWidth)) << op << "  " << std::setw(22) << shape << std::right << std::setw(12) << params
       << std::setw(16) << flops << "\n";
  };
  row("#", "layer", "op", "output", "params", "FLOPs");
  for (size_t i = 0; i < g.inputs.size(); ++i)
    row("in", g.inputNames[i], "input", g.values[g.inputs[i]].type.str(), "", "");
  int index = 0;
  for (const GraphNode &n : g.nodes) {
    if (n.inLoss || n.op->category == OpCategory::Internal) continue;
    int64_t params = 0;
    for (const ParamTensor &p : n.params)
      if (p.learnable) params += p.type.staticElements();
    std::string shape = n.outputs.empty() ? "" : g.values[n.outputs[0]].type.str();
    std::string layer = n.path.size() > pathWidth ? "..." + n.path.substr(n.path.size() - pathWidth + 3) : n.path;
    row(std::to_string(index++), layer, n.op->name, shape, params ? withThousands(params) : "",
        n.flops > 0 ? roundedWithThousands(n.flops) : "");
  }
  for (size_t i = 0; i < g.outputs.size(); ++i)
    row("out", g.outputNames[i], "output", g.values[g.outputs[i]].type.str(), "", "");
  int64_t params = g.parameterCount();
  double flops = g.forwardFlops();
  os << "total: " << withThousands(params) << " parameters (" << humanCount(static_cast<double>(params))
     << "), " << std::fixed << std::setprecision(2) << params * 4.0 / (1024.0 * 1024.0) << " MiB as f32; "
     << humanCount(flops) << (flops < 1000 ? " " : "") << "FLOPs forward per sample\n"; // "0 FLOPs", "8.71 MFLOPs"
  os.unsetf(std::ios::fixed);
  if (g.loss >= 0) {
    const GraphValue &loss = g.values[g.loss];
    os << "loss: " << sm.text(loss.def) << " -> " << loss.type.str() << "\n";
  }
  if (train)
    os << "precision: " << train->precision
       << (train->precision == "bf16" ? " (convolutions and dense layers on bf16 inputs, accumulated in fp32; "
                                        "weights, gradients and optimizer state fp32)"
                                      : "")
       << "\n";
}

} // namespace dx
