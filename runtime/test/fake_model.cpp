// A model object written by hand, standing in for what dxc generates: softmax
// regression, logits = flatten(x) W^T + b, on 4x4 single-channel images of 3
// classes, trained with SGD + momentum. It implements dxrt/abi.h and calls the
// dense kernels through memref descriptors as generated code does; libdxrt
// supplies main(). One buffer (a running mean of the inputs) exercises the
// buffer arena.
//
// Test hooks (environment): DXRT_FAKE_NAN_AT_STEP=k makes step k's loss NaN.
#include "dxrt/abi.h"
#include "dxrt/kernels.h"

#include <cmath>
#include <cstdlib>
#include <vector>

extern "C" const char dx_model_metadata[] = R"({
  "format": 2,
  "model": "softmax_regression",
  "source": "runtime/test/fake_model.cpp",
  "target": "cpu",
  "input": {"name": "x", "shape": [1, 4, 4], "floats": 16},
  "labels": true,
  "outputs": [{"name": "logits", "shape": [3], "floats": 3}],
  "param_floats": 51,
  "buffer_floats": 1,
  "state_slots": 1,
  "params": [{"name": "dense_1.weight", "shape": [3, 16], "offset": 0, "size": 48, "init": "uniform_fan_in", "fan_in": 16},
             {"name": "dense_1.bias", "shape": [3], "offset": 48, "size": 3, "init": "uniform_fan_in", "fan_in": 16}],
  "buffers": [{"name": "stats.running_mean", "shape": [1], "offset": 0, "size": 1, "init": "zeros"}],
  "layers": [{"path": "flatten_1", "op": "flatten", "output": [16], "params": 0, "flops": 0},
             {"path": "dense_1", "op": "dense", "output": [3], "params": 51, "flops": 99}],
  "flops_per_sample": 99,
  "optimizer": {"kind": "sgd", "lr": 0.02, "momentum": 0.9, "dampening": 0, "nesterov": 0, "weight_decay": 0},
  "schedule": {"kind": "cosine", "warmup_epochs": 1, "min_lr": 0},
  "train": {"batch_per_rank": 16, "epochs": 4, "seed": 1, "sync": "allreduce", "average_every": 0,
            "target": {"metric": "accuracy", "op": ">=", "value": 0.85},
            "checkpoint_every": 0, "lr_scaling": "none"},
  "dataset": {"name": "blobs", "format": "idx",
              "train": ["train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte"],
              "test": ["t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte.gz"],
              "sample": [1, 4, 4], "classes": 3, "scale": 0.00392156862745098,
              "mean": [0.5], "std": [0.25], "label_column": -1, "header": false}
})";

namespace {

constexpr int64_t K = 16, N = 3;

dxrt_memref2 m2(float *p, int64_t r, int64_t c) { return {p, p, 0, {r, c}, {c, 1}}; }

// logits [B, 3] = x W^T + b
void forward(const float *params, float *x, int64_t B, float *logits) {
  dxrt_memref2 xd = m2(x, B, K), wd = m2(const_cast<float *>(params), N, K), yd = m2(logits, B, N);
  _mlir_ciface_dxrt_dense_forward(&xd, &wd, &yd);
  for (int64_t i = 0; i < B; ++i)
    for (int64_t j = 0; j < N; ++j) logits[i * N + j] += params[48 + j];
}

// Mean softmax cross-entropy; writes d loss / d logits when dlogits is set.
float cross_entropy(const float *logits, const int64_t *labels, int64_t B, float *dlogits) {
  double loss = 0;
  for (int64_t i = 0; i < B; ++i) {
    const float *z = logits + i * N;
    float m = std::max(z[0], std::max(z[1], z[2]));
    double sum = 0;
    for (int64_t j = 0; j < N; ++j) sum += std::exp(double(z[j] - m));
    loss += std::log(sum) - double(z[labels[i]] - m);
    if (dlogits)
      for (int64_t j = 0; j < N; ++j)
        dlogits[i * N + j] = float((std::exp(double(z[j] - m)) / sum - (j == labels[i] ? 1.0 : 0.0)) / double(B));
  }
  return float(loss / double(B));
}

} // namespace

extern "C" float _mlir_ciface_dx_train_step(dx_memref_f32 *params, dx_memref_f32 *buffers, dx_memref_f32 *grads,
                                            dx_memref_f32 *new_buffers, dx_memref_f32 *x, dx_memref_i64 *labels,
                                            dx_memref_f32 *, int64_t batch, int64_t, int64_t step, int64_t) {
  std::vector<float> logits(size_t(batch * N)), dlogits(size_t(batch * N));
  float *p = params->aligned + params->offset, *g = grads->aligned + grads->offset;
  float *xs = x->aligned + x->offset;
  forward(p, xs, batch, logits.data());
  float loss = cross_entropy(logits.data(), labels->aligned + labels->offset, batch, dlogits.data());
  dxrt_memref2 dyd = m2(dlogits.data(), batch, N), xd = m2(xs, batch, K), dwd = m2(g, N, K);
  _mlir_ciface_dxrt_dense_grad_weight(&dyd, &xd, &dwd);
  for (int64_t j = 0; j < N; ++j) {
    g[48 + j] = 0;
    for (int64_t i = 0; i < batch; ++i) g[48 + j] += dlogits[size_t(i * N + j)];
  }
  double mean = 0;
  for (int64_t i = 0; i < batch * K; ++i) mean += xs[i];
  new_buffers->aligned[new_buffers->offset] =
      float(0.9 * buffers->aligned[buffers->offset] + 0.1 * mean / double(batch * K));
  if (const char *nan_at = std::getenv("DXRT_FAKE_NAN_AT_STEP"); nan_at && std::atoll(nan_at) == step) return NAN;
  return loss;
}

extern "C" float _mlir_ciface_dx_eval_step(dx_memref_f32 *params, dx_memref_f32 *, dx_memref_f32 *x,
                                           dx_memref_i64 *labels, dx_memref_f32 *, dx_memref_f32 *outputs,
                                           int64_t batch) {
  float *logits = outputs->aligned + outputs->offset;
  forward(params->aligned + params->offset, x->aligned + x->offset, batch, logits);
  return cross_entropy(logits, labels->aligned + labels->offset, batch, nullptr);
}

// The schedule its metadata names: one warm-up epoch, then cosine to 0.
extern "C" double _mlir_ciface_dx_learning_rate(double base, int64_t step, int64_t steps_per_epoch, int64_t epochs) {
  const double S = double(steps_per_epoch > 1 ? steps_per_epoch : 1), t = double(step > 1 ? step - 1 : 0);
  if (t < S) return base * (t + 1) / S;
  const double total = double(epochs) * S - S;
  if (total <= 0) return base;
  return base * 0.5 * (1.0 + std::cos(3.141592653589793 * std::min((t - S) / total, 1.0)));
}

extern "C" void _mlir_ciface_dx_update(dx_memref_f32 *params, dx_memref_f32 *grads, dx_memref_f32 *state, float lr,
                                       int64_t) {
  float *p = params->aligned + params->offset, *g = grads->aligned + grads->offset, *v = state->aligned + state->offset;
  for (int64_t i = 0; i < params->size; ++i) {
    v[i] = 0.9f * v[i] + g[i];
    p[i] -= lr * v[i];
  }
}
