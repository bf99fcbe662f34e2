// A model object written by hand, standing in for what dxc --target=cuda
// generates (fake_device_model.h has the network): the dx_* functions of
// dxrt/abi.h take descriptors of DEVICE memory (the backend's arena slices),
// queue their kernels on the library's stream, and the train/eval steps
// return the loss through the step workspace and dxrt_cuda_read_f32, the
// generated code's one synchronisation. The update returns without waiting.
#include "fake_device_model.h"

#include "dxrt/abi.h"
#include "dxrt/cuda_kernels.h"

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

extern "C" const char dx_model_metadata[] = R"({
  "format": 2,
  "model": "fake_device_model",
  "source": "runtime/cuda/test/fake_device_model.cu",
  "target": "cuda",
  "input": {"name": "x", "shape": [4], "floats": 4},
  "labels": true,
  "outputs": [{"name": "logits", "shape": [3], "floats": 3}, {"name": "centred", "shape": [4], "floats": 4}],
  "param_floats": 15,
  "buffer_floats": 4,
  "state_slots": 2,
  "params": [{"name": "dense.weight", "shape": [3, 4], "offset": 0, "size": 12, "init": "uniform_fan_in", "fan_in": 4},
             {"name": "dense.bias", "shape": [3], "offset": 12, "size": 3, "init": "uniform_fan_in", "fan_in": 4}],
  "buffers": [{"name": "centre.running_mean", "shape": [4], "offset": 0, "size": 4, "init": "zeros"}],
  "optimizer": {"kind": "sgd", "lr": 0.1, "momentum": 0.9, "dampening": 0, "nesterov": 0, "weight_decay": 0}
})";

namespace fake {
Calls calls;
}

namespace {

using namespace fake;

// Generated code aborts on a failed launch (the training run cannot go on).
void check_launch(const char *what) {
  const cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "fake_device_model: %s: %s\n", what, cudaGetErrorString(e));
  std::abort();
}

cudaStream_t stream() { return static_cast<cudaStream_t>(dxrt_cuda_stream()); }

float *at(dx_memref_f32 *m) { return m->aligned + m->offset; }
int64_t *at(dx_memref_i64 *m) { return m->aligned + m->offset; }

// The step's loss lives in the workspace, as a generated step's would.
float *loss_scalar() {
  dxrt_memref_i8 ws{};
  _mlir_ciface_dxrt_cuda_workspace(&ws, 256);
  return reinterpret_cast<float *>(ws.aligned);
}

float read_back(float *scalar) {
  dxrt_memref0_f32 s{scalar, scalar, 0};
  return _mlir_ciface_dxrt_cuda_read_f32(&s);
}

constexpr int kThreads = 64;

__global__ void train_kernel(const float *p, const float *buf, float *g, float *nb, const float *x,
                             const int64_t *labels, int64_t batch, float *loss_out) {
  for (int64_t t = threadIdx.x; t < kParams; t += blockDim.x) g[t] = grad(p, buf, x, labels, batch, t);
  for (int64_t k = threadIdx.x; k < kBuffers; k += blockDim.x) nb[k] = new_buffer(buf, x, batch, k);
  if (threadIdx.x == 0) *loss_out = loss(p, buf, x, labels, batch);
}

__global__ void eval_kernel(const float *p, const float *buf, const float *x, const int64_t *labels, int64_t batch,
                            float *out, float *loss_out) {
  const int64_t nz = batch * kClasses;
  for (int64_t t = threadIdx.x; t < batch * kOutFloats; t += blockDim.x)
    out[t] = t < nz ? logit(p, buf, x, t / kClasses, t % kClasses) : centred(buf, x, (t - nz) / kIn, (t - nz) % kIn);
  if (threadIdx.x == 0) *loss_out = loss(p, buf, x, labels, batch);
}

__global__ void update_kernel(float *p, const float *g, float *state, float lr, int64_t n) {
  for (int64_t t = threadIdx.x; t < n; t += blockDim.x) {
    const float v = 0.9f * state[t] + g[t];
    state[t] = v;
    state[n + t] = g[t];
    p[t] -= lr * v;
  }
}

} // namespace

extern "C" float _mlir_ciface_dx_train_step(dx_memref_f32 *params, dx_memref_f32 *buffers, dx_memref_f32 *grads,
                                            dx_memref_f32 *new_buffers, dx_memref_f32 *x, dx_memref_i64 *labels,
                                            dx_memref_f32 *, int64_t batch, int64_t seed, int64_t step, int64_t rank) {
  Call &c = calls.train;
  c = Call{c.count + 1};
  c.params = at(params), c.buffers = at(buffers), c.grads = at(grads), c.new_buffers = at(new_buffers);
  c.x = at(x), c.x_size = x->size, c.labels = at(labels), c.labels_size = labels->size;
  c.batch = batch, c.seed = seed, c.step = step, c.rank = rank;
  float *l = loss_scalar();
  train_kernel<<<1, kThreads, 0, stream()>>>(at(params), at(buffers), at(grads), at(new_buffers), at(x), at(labels),
                                             batch, l);
  check_launch("train_kernel");
  return read_back(l);
}

extern "C" float _mlir_ciface_dx_eval_step(dx_memref_f32 *params, dx_memref_f32 *buffers, dx_memref_f32 *x,
                                           dx_memref_i64 *labels, dx_memref_f32 *, dx_memref_f32 *outputs,
                                           int64_t batch) {
  Call &c = calls.eval;
  c = Call{c.count + 1};
  c.params = at(params), c.buffers = at(buffers), c.outputs = at(outputs), c.outputs_size = outputs->size;
  c.x = at(x), c.x_size = x->size, c.labels = at(labels), c.labels_size = labels->size, c.batch = batch;
  float *l = loss_scalar();
  eval_kernel<<<1, kThreads, 0, stream()>>>(at(params), at(buffers), at(x), at(labels), batch, at(outputs), l);
  check_launch("eval_kernel");
  return read_back(l);
}

// Not called by the backend (the Trainer asks the model for the rate); here
// so that the object has the whole ABI.
extern "C" double _mlir_ciface_dx_learning_rate(double base, int64_t, int64_t, int64_t) { return base; }

extern "C" void _mlir_ciface_dx_update(dx_memref_f32 *params, dx_memref_f32 *grads, dx_memref_f32 *state, float lr,
                                       int64_t step) {
  Call &c = calls.update;
  c = Call{c.count + 1};
  c.params = at(params), c.grads = at(grads), c.state = at(state), c.state_size = state->size;
  c.lr = lr, c.step = step;
  update_kernel<<<1, kThreads, 0, stream()>>>(at(params), at(grads), at(state), lr, params->size);
  check_launch("update_kernel");
}
