#pragma once

#include "mlir/Pass/Pass.h"

#include <memory>

namespace dx {

// dx-profile-points: the hooks of an executable's --profile (CPU pipeline,
// after dx-plan-memory). In dx_train_step, dx_eval_step and dx_update:
//  - `call @dxrt_prof_begin()` first;
//  - after every top-level op that does work (a library call, a linalg op,
//    a copy, a loop), `call @dxrt_prof_point(id, bytes)`: the time since the
//    previous point belongs to region `id`; `bytes` is what a generated op
//    must move at least: the size of every buffer it reads plus that of
//    every buffer it writes (from the ops' memory effects, computed from the
//    run's batch; 0 for a library call).
// A region is (function, layer, phase, kind): the layer is the .dx layer
// path of the op's location (NameLoc; "a + b" when fusion merged ops of
// several layers), the phase forward or backward (the reverse pass's
// locations are tagged, transforms/Passes.h) in dx_train_step, eval in
// dx_eval_step, update in dx_update; the kind the libdxrt call's name
// without "dxrt_" (conv2d_forward, pool_grad, ...) or "generated" for the
// compiler's own loops. Every generated op is a region of its own, with
// "op" its shape ("reduce Bx2x28x28x16 -> 2x16", "map Bx32x14x14"); the
// library calls of one kind share their layer's region. The regions, in
// order of first appearance, are the JSON array in the global
// dx_profile_regions (NUL-terminated):
//   [{"function": "train", "layer": "conv2d_1", "phase": "forward", "kind": "conv2d_forward"}, ...]
// libdxrt's hooks return at once unless the run has --profile.
std::unique_ptr<mlir::Pass> createProfilePointsPass();
void registerProfilePointsPass();

} // namespace dx
