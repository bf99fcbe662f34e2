#pragma once

#include "mlir/Pass/Pass.h"

#include <memory>

namespace dx {

// dx-plan-memory: after bufferization and buffer deallocation, gives every buffer of the exported
// step functions a place in one workspace, so a training step makes no heap
// allocation. Sizes are static or proportional to the batch (the one dynamic
// dim); buffers whose live ranges do not overlap share memory. The workspace
// comes from libdxrt (dxrt_workspace), which grows it only when a larger
// batch needs more. Buffers the plan cannot size stay heap allocations and
// are reported with a remark.
std::unique_ptr<mlir::Pass> createPlanMemoryPass();
void registerPlanMemoryPass();

} // namespace dx
