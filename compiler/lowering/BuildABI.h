#pragma once

#include "mlir/Pass/Pass.h"

#include <memory>

namespace dx {

// dx-build-abi: wraps @M_train_step and @M_eval in the exported C-ABI
// functions dx_train_step and dx_eval_step (arenas as flat memrefs, see
// docs/abi.md), generates dx_update for the optimizer in the module's
// `dx.optimizer` attribute, and emits the metadata string dx_model_metadata
// from the module's `dx.metadata` JSON plus the parameter layout.
std::unique_ptr<mlir::Pass> createBuildABIPass();
void registerBuildABIPass();

} // namespace dx
