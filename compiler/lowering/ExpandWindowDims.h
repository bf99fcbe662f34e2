#pragma once

#include "mlir/Pass/Pass.h"

#include <memory>

namespace dx {

// dx-expand-window-dims: a linalg.generic on tensors that reads an operand
// through `d floordiv k` (a generated pooling's dy and winners at each input
// pixel, GeneratedMaxPool.h, and the ops they are fused into) iterates d as
// two dims (d / k, d mod k) of
// sizes D/k and k instead: operands read at d are expanded views
// (tensor.expand_shape, free), the `floordiv` read becomes a projected read
// of the outer dim, `linalg.index d` becomes outer * k + inner (its `mod k`
// and `div k` the inner and outer index), and the results are collapsed
// back. Every map is then a projected permutation, so dx-vectorize-cpu
// handles the op like any other: the window position is a loop index (the
// inner loop, k iterations, is unrolled) rather than a per-pixel remainder,
// and the floordiv operand is loaded once per window row.
//
// Applies only when it removes every non-projected read: each dim read
// through `floordiv` has a static size that k divides, one k, is not the
// innermost (vector) dim, and every other read of it is the dim itself.
std::unique_ptr<mlir::Pass> createExpandWindowDimsPass();
void registerExpandWindowDimsPass();

} // namespace dx
