// The host backend: the generated CPU code on the host arenas, and the
// target switch (make_backend).
#include "model/Backend.h"

#include "common/Check.h"
#include "model/Model.h"
#include "train/ModelSync.h"

#include <algorithm>
#include <cstring>

namespace dxrt {
namespace {

class HostBackend final : public Backend {
public:
  std::string describe() const override { return ""; }

  float train_step(Arenas &a, int64_t batch, int64_t seed, int64_t step, int64_t rank) override {
    return model_train_step(a, batch, seed, step, rank);
  }
  float eval_step(Arenas &a, int64_t batch) override { return model_eval_step(a, batch); }
  void update(Arenas &a, float lr, int64_t step) override { model_update(a, lr, step); }

  void skip_step(Arenas &a) override {
    std::fill(a.grads.begin(), a.grads.begin() + ptrdiff_t(a.params.size()), 0.0f);
    std::copy(a.buffers.begin(), a.buffers.end(), a.new_buffers.begin());
  }

  // weight * g, summed in micro-batch order: the order in which the ranks'
  // all-reduce would sum them, so -np 1 --accumulate 2 matches -np 2.
  void accumulate(Arenas &a, bool first, float weight) override {
    const size_t np = a.params.size(), nb = a.new_buffers.size();
    if (accum_grads_.size() != a.grads.size()) accum_grads_.assign(a.grads.size(), 0.0f);
    if (accum_buffers_.size() != nb) accum_buffers_.assign(nb, 0.0f);
    const float *g = a.grads.data(), *nbuf = a.new_buffers.data();
    float *ag = accum_grads_.data(), *ab = accum_buffers_.data();
    if (first) {
      for (size_t i = 0; i < np; ++i) ag[i] = weight * g[i];
      for (size_t i = 0; i < nb; ++i) ab[i] = weight * nbuf[i];
    } else {
      for (size_t i = 0; i < np; ++i) ag[i] += weight * g[i];
      for (size_t i = 0; i < nb; ++i) ab[i] += weight * nbuf[i];
    }
  }
  void take_accumulated(Arenas &a) override {
    std::swap(a.grads, accum_grads_);
    std::swap(a.new_buffers, accum_buffers_);
  }
  void commit_buffers(Arenas &a) override { std::copy(a.new_buffers.begin(), a.new_buffers.end(), a.buffers.begin()); }

  // The step's gradients reduced while its backward pass runs (ModelSync.h).
  void begin_reduce(Arenas &a, ModelSync &sync, float weight) override {
    sync.begin_gradients(a.grads.data(), int64_t(a.params.size()), weight, /*overlap=*/true);
  }
  void reduce_gradients(Arenas &a, ModelSync &sync, float weight, float *side) override {
    sync.reduce_gradients(a.grads.data(), int64_t(a.params.size()), weight, side, kGradSide);
  }
  void reduce_buffers(Arenas &a, ModelSync &sync, float weight) override {
    sync.weighted_sum(a.new_buffers.data(), int64_t(a.new_buffers.size()), weight);
  }
  void average_model(Arenas &a, ModelSync &sync) override {
    sync.average(a.params.data(), int64_t(a.params.size()));
    sync.average(a.buffers.data(), int64_t(a.buffers.size()));
  }

  void upload_model(Arenas &) override {}
  void download_model(Arenas &) override {}
  void copy_floats(float *dst, const float *src, int64_t n) override {
    if (n > 0) std::memcpy(dst, src, sizeof(float) * size_t(n));
  }

private:
  Floats accum_grads_, accum_buffers_; // --accumulate > 1: the step's weighted sums
};

} // namespace

std::unique_ptr<Backend> make_host_backend() { return std::make_unique<HostBackend>(); }

std::unique_ptr<Backend> make_backend(const Metadata &meta, Arenas &arenas, World &world, int64_t accumulate) {
  if (meta.target == "cpu") return make_host_backend();
  DXRT_CHECK(meta.target == "cuda", str("the model object was compiled for the unknown target '", meta.target, "'"),
             "rebuild it with dxc compile --target=cpu or --target=cuda");
  DXRT_CHECK(make_cuda_backend != nullptr,
             "the model object was compiled with --target=cuda, but the executable has no CUDA runtime (libdxrt_cuda)",
             "link it with dxc compile --target=cuda, from a dxc built where the CUDA toolkit is");
  return make_cuda_backend(meta, arenas, world, accumulate);
}

} // namespace dxrt
