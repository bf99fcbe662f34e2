// The dx dialect's passes.
#pragma once

#include "mlir/Pass/Pass.h"

#include <memory>

namespace dx {

// dx-autodiff: for every func @M_loss(x, [labels,] params...) -> loss, adds
// func @M_train_step with the same arguments returning the loss, the gradient
// of every learnable parameter (in argument order) and the updated
// batch-norm running statistics. Batchnorm takes its training form there.
std::unique_ptr<mlir::Pass> createAutodiffPass();

void registerDxPasses();

} // namespace dx
