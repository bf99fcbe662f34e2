// Calls into the generated model object (dxrt/abi.h), with the arenas
// wrapped in the 1-D memref descriptors MLIR's C interface expects.
#pragma once

#include "dxrt/abi.h"
#include "model/Arenas.h"

#include <cstdint>

namespace dxrt {

// A 1-D descriptor of n contiguous elements at p, as the generated functions
// take them (host memory for the CPU target, device memory for CUDA).
inline dx_memref_f32 memref(float *p, int64_t n) { return {p, p, 0, n, 1}; }
inline dx_memref_i64 memref(int64_t *p, int64_t n) { return {p, p, 0, n, 1}; }

// The model object's metadata string.
const char *model_metadata();

float model_train_step(Arenas &a, int64_t batch, int64_t seed, int64_t step, int64_t rank);
float model_eval_step(Arenas &a, int64_t batch);
void model_update(Arenas &a, float lr, int64_t step);
// The generated learning-rate schedule (dx_learning_rate).
double model_learning_rate(double base, int64_t step, int64_t steps_per_epoch, int64_t epochs);

} // namespace dxrt
