#include "sema/Graph.h"

namespace dx {

int64_t Graph::parameterCount() const {
  int64_t n = 0;
  for (const GraphNode &node : nodes)
    for (const ParamTensor &p : node.params)
      if (p.learnable) n += p.type.staticElements();
  return n;
}

double Graph::forwardFlops() const {
  double f = 0;
  for (const GraphNode &node : nodes)
    if (!node.inLoss) f += node.flops;
  return f;
}

} // namespace dx
