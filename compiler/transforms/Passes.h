// The dx dialect's passes.
#pragma once

#include "mlir/Pass/Pass.h"

#include <memory>

namespace dx {

// dx-autodiff: for every func @M_loss(x, [labels,] params...) -> loss, adds
// func @M_train_step with the same arguments returning the loss, the gradient
// of every learnable parameter (in argument order) and the updated
// batch-norm running statistics. Batchnorm takes its training form there.
// The ops of the reverse pass have their locations wrapped in a FusedLoc
// whose metadata is kBackwardLocTag: they carry it to the generated code,
// where --profile (dx-profile-points) tells the backward pass by it.
std::unique_ptr<mlir::Pass> createAutodiffPass();
inline constexpr const char *kBackwardLocTag = "dx.backward";

void registerDxPasses();

// dx-pool-before-relu: max_pool(relu(x)) -> relu(max_pool(x)) for a relu
// that only the pooling reads and a pooling whose windows tile the plane.
// Exact, values and gradients: relu is monotonic, so the window's first
// maximum after the relu is its first maximum before it whenever that is
// positive (the same winner, relu' = 1); when it is not, both outputs are
// +0 and both gradients 0 (relu' = 0 at the winner either way); a NaN is the
// first NaN in both. The relu and its gradient mask then run on the pooled
// tensor, a quarter of the elements for 2x2 windows, and the batch norm's
// backward pass before a generated pooling no longer recomputes the mask.
std::unique_ptr<mlir::Pass> createPoolBeforeReluPass();
void registerPoolBeforeReluPass();

} // namespace dx
