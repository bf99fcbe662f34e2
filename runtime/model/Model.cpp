#include "model/Model.h"

namespace dxrt {

const char *model_metadata() { return dx_model_metadata; }

// The first `batch` samples' worth of a batch buffer sized for a.max_batch.
template <typename V> static auto batch_memref(V &v, const Arenas &a, int64_t batch) {
  const int64_t per = a.max_batch ? int64_t(v.size()) / a.max_batch : 0;
  return memref(v.data(), batch * per);
}

float model_train_step(Arenas &a, int64_t batch, int64_t seed, int64_t step, int64_t rank) {
  dx_memref_f32 params = memref(a.params.data(), int64_t(a.params.size()));
  dx_memref_f32 buffers = memref(a.buffers.data(), int64_t(a.buffers.size()));
  dx_memref_f32 grads = memref(a.grads.data(), int64_t(a.params.size()));
  dx_memref_f32 new_buffers = memref(a.new_buffers.data(), int64_t(a.new_buffers.size()));
  dx_memref_f32 x = batch_memref(a.x, a, batch), targets = batch_memref(a.targets, a, batch);
  dx_memref_i64 labels = batch_memref(a.labels, a, batch);
  return _mlir_ciface_dx_train_step(&params, &buffers, &grads, &new_buffers, &x, &labels, &targets, batch, seed, step,
                                    rank);
}

float model_eval_step(Arenas &a, int64_t batch) {
  dx_memref_f32 params = memref(a.params.data(), int64_t(a.params.size()));
  dx_memref_f32 buffers = memref(a.buffers.data(), int64_t(a.buffers.size()));
  dx_memref_f32 x = batch_memref(a.x, a, batch), targets = batch_memref(a.targets, a, batch);
  dx_memref_i64 labels = batch_memref(a.labels, a, batch);
  dx_memref_f32 outputs = batch_memref(a.outputs, a, batch);
  return _mlir_ciface_dx_eval_step(&params, &buffers, &x, &labels, &targets, &outputs, batch);
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
