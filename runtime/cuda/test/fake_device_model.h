// The fake device model of backend_test.cpp (fake_device_model.cu): what
// dxc --target=cuda would generate for a tiny network, written by hand so
// that CudaBackend.cpp can be tested on a GPU without the compiler.
//
//   c = x - buffers               (centred by a running mean, as batch norm)
//   z = W c + b                   W [3, 4], b [3]: the 15 parameters
//   loss = mean_i 0.5 |z_i - onehot(label_i)|^2
//   new_buffers = 0.9 buffers + 0.1 mean_i x_i
//   update: v = 0.9 v + g (state slot 0), s = g (slot 1), p -= lr v
//   eval outputs: z [batch, 3], then c [batch, 4] (output 1 after output 0)
//
// The loss is quadratic, so finite differences check the gradient formulas
// on the host. The formulas are compiled twice from this header: for the
// device kernels and for the tests' host twin. State slot 1 (s = g) is the
// tests' window on the gradients: update(lr = 0) + download_model reads them
// through the backend's own path.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define FAKE_HD __host__ __device__
#else
#define FAKE_HD
#endif

namespace fake {

constexpr int64_t kIn = 4, kClasses = 3;
constexpr int64_t kParams = kClasses * kIn + kClasses; // W row-major, then b
constexpr int64_t kBuffers = kIn;
constexpr int64_t kSlots = 2;
constexpr int64_t kOutFloats = kClasses + kIn; // logits, then the centred input

FAKE_HD inline float centred(const float *buf, const float *x, int64_t i, int64_t k) { return x[i * kIn + k] - buf[k]; }

FAKE_HD inline float logit(const float *p, const float *buf, const float *x, int64_t i, int64_t j) {
  float z = p[kClasses * kIn + j];
  for (int64_t k = 0; k < kIn; ++k) z += p[j * kIn + k] * centred(buf, x, i, k);
  return z;
}

// d loss / d z_ij (the 1/batch of the mean included).
FAKE_HD inline float dlogit(const float *p, const float *buf, const float *x, const int64_t *labels, int64_t batch,
                            int64_t i, int64_t j) {
  return (logit(p, buf, x, i, j) - (labels[i] == j ? 1.0f : 0.0f)) / float(batch);
}

FAKE_HD inline float loss(const float *p, const float *buf, const float *x, const int64_t *labels, int64_t batch) {
  float sum = 0;
  for (int64_t i = 0; i < batch; ++i)
    for (int64_t j = 0; j < kClasses; ++j) {
      const float d = logit(p, buf, x, i, j) - (labels[i] == j ? 1.0f : 0.0f);
      sum += 0.5f * d * d;
    }
  return batch ? sum / float(batch) : 0.0f;
}

// d loss / d p[t].
FAKE_HD inline float grad(const float *p, const float *buf, const float *x, const int64_t *labels, int64_t batch,
                          int64_t t) {
  float g = 0;
  if (t < kClasses * kIn) { // W[j, k]
    const int64_t j = t / kIn, k = t % kIn;
    for (int64_t i = 0; i < batch; ++i) g += dlogit(p, buf, x, labels, batch, i, j) * centred(buf, x, i, k);
  } else {
    for (int64_t i = 0; i < batch; ++i) g += dlogit(p, buf, x, labels, batch, i, t - kClasses * kIn);
  }
  return g;
}

FAKE_HD inline float new_buffer(const float *buf, const float *x, int64_t batch, int64_t k) {
  if (batch == 0) return buf[k];
  float mean = 0;
  for (int64_t i = 0; i < batch; ++i) mean += x[i * kIn + k];
  return 0.9f * buf[k] + 0.1f * (mean / float(batch));
}

// What the backend passed in the last call of each generated function
// (device pointers and sizes): the tests check the batch slots, the
// arguments and the arena slices the backend hands over.
struct Call {
  int64_t count = 0; // calls so far
  const void *params = nullptr, *buffers = nullptr, *grads = nullptr, *new_buffers = nullptr, *state = nullptr;
  const void *x = nullptr, *labels = nullptr, *outputs = nullptr;
  int64_t x_size = -1, labels_size = -1, outputs_size = -1, state_size = -1;
  int64_t batch = -1, seed = -1, step = -1, rank = -1;
  float lr = -1;
};
struct Calls {
  Call train, eval, update;
};
extern Calls calls;

} // namespace fake
