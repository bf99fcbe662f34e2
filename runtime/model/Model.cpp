#include "model/Model.h"

namespace dxrt {

const char *model_metadata() { return dx_model_metadata; }

float model_train_step(Arenas &a, int64_t batch, int64_t seed, int64_t step, int64_t rank) {
  const int64_t in = int64_t(a.x.size()) / int64_t(a.labels.size());
  dx_memref_f32 params = memref(a.params.data(), int64_t(a.params.size()));
  dx_memref_f32 buffers = memref(a.buffers.data(), int64_t(a.buffers.size()));
  dx_memref_f32 grads = memref(a.grads.data(), int64_t(a.params.size()));
  dx_memref_f32 new_buffers = memref(a.new_buffers.data(), int64_t(a.new_buffers.size()));
  dx_memref_f32 x = memref(a.x.data(), batch * in);
  dx_memref_i64 labels = memref(a.labels.data(), batch);
  return _mlir_ciface_dx_train_step(&params, &buffers, &grads, &new_buffers, &x, &labels, batch, seed, step, rank);
}

float model_eval_step(Arenas &a, int64_t batch) {
  const int64_t in = int64_t(a.x.size()) / int64_t(a.labels.size());
  const int64_t out = int64_t(a.outputs.size()) / int64_t(a.labels.size());
  dx_memref_f32 params = memref(a.params.data(), int64_t(a.params.size()));
  dx_memref_f32 buffers = memref(a.buffers.data(), int64_t(a.buffers.size()));
  dx_memref_f32 x = memref(a.x.data(), batch * in);
  dx_memref_i64 labels = memref(a.labels.data(), batch);
  dx_memref_f32 outputs = memref(a.outputs.data(), batch * out);
  return _mlir_ciface_dx_eval_step(&params, &buffers, &x, &labels, &outputs, batch);
}

void model_update(Arenas &a, float lr, int64_t step) {
  dx_memref_f32 params = memref(a.params.data(), int64_t(a.params.size()));
  dx_memref_f32 grads = memref(a.grads.data(), int64_t(a.params.size()));
  dx_memref_f32 state = memref(a.state.data(), int64_t(a.state.size()));
  _mlir_ciface_dx_update(&params, &grads, &state, lr, step);
}

double model_learning_rate(double base, int64_t step, int64_t steps_per_epoch, int64_t epochs) {
  return _mlir_ciface_dx_learning_rate(base, step, steps_per_epoch, epochs);
}

} // namespace dxrt
