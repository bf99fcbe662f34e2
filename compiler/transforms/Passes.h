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

} // namespace dx
