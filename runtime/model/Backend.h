// Where a model's steps run and where its arenas live.
//
// The host backend (models compiled for the CPU) calls the generated code on
// the host arenas of Arenas.h directly. A device backend (--target=cuda,
// libdxrt_cuda's CudaBackend.cpp) keeps the parameters, gradients, buffers,
// optimizer state, batch and outputs in device memory; the host arenas are
// then the loading dock: the data loader fills a.x and a.labels, evaluation
// reads a.outputs, and checkpoints read and write a.params, a.buffers and
// a.state, which download_model()/upload_model() bring up to date.
//
// The Trainer speaks only to this interface between a step and the update,
// so the training loop (accumulation, the ranks' synchronisation, signals,
// checkpoints) is one piece of code for both targets.
#pragma once

#include "model/Arenas.h"

#include <cstdint>
#include <memory>
#include <string>

namespace dxrt {

class ModelSync;
class World;

class Backend {
public:
  virtual ~Backend() = default;
  // One banner line naming the device ("" on the host).
  virtual std::string describe() const = 0;

  // The generated functions (dxrt/abi.h). The batch is a.x / a.labels
  // [0, batch); eval_step leaves every output in a.outputs.
  virtual float train_step(Arenas &a, int64_t batch, int64_t seed, int64_t step, int64_t rank) = 0;
  virtual float eval_step(Arenas &a, int64_t batch) = 0;
  virtual void update(Arenas &a, float lr, int64_t step) = 0;

  // The arena arithmetic of a step between train_step and update:
  //   skip_step:        a micro-batch without samples: zero gradients,
  //                     new buffers = buffers.
  //   accumulate:       sums += weight * (gradients, new buffers), the sums
  //                     starting from zero when `first`;
  //   take_accumulated: the sums become the gradients and new buffers.
  //   commit_buffers:   buffers = new buffers (after the update).
  virtual void skip_step(Arenas &a) = 0;
  virtual void accumulate(Arenas &a, bool first, float weight) = 0;
  virtual void take_accumulated(Arenas &a) = 0;
  virtual void commit_buffers(Arenas &a) = 0;

  // The ranks' synchronisation (ModelSync.h) on the backend's memory:
  // gradients scaled by `weight` and summed over the ranks, with the
  // kGradSide values of `side` summed (unscaled) along with them;
  // new buffers weighted and summed; parameters and buffers averaged.
  virtual void reduce_gradients(Arenas &a, ModelSync &sync, float weight, float *side) = 0;
  // Before a step whose gradients reduce_gradients will sum: a backend that
  // can start the sums during the step's backward pass (the host: buckets
  // as the generated code reports them final) arms that here. The results
  // are those without it, bit for bit.
  virtual void begin_reduce(Arenas &, ModelSync &, float /*weight*/) {}
  virtual void reduce_buffers(Arenas &a, ModelSync &sync, float weight) = 0;
  virtual void average_model(Arenas &a, ModelSync &sync) = 0;

  // Host arenas <-> the backend's copy of params, buffers and state: upload
  // after they are initialised or loaded from a checkpoint, download before
  // a checkpoint is written. No-ops on the host.
  virtual void upload_model(Arenas &a) = 0;
  virtual void download_model(Arenas &a) = 0;

  // For callers that hand in their own memory (the inference library):
  // whether p is memory of this backend's device (false on the host, and
  // for host memory the device can map), and a copy of n floats between
  // any two of host and device memory, complete when it returns.
  virtual bool device_pointer(const void *) const { return false; }
  virtual void copy_floats(float *dst, const float *src, int64_t n) = 0;
};

// The backend the model object was compiled for (its metadata's "target"):
// "cpu" runs on the host; "cuda" selects this rank's GPU (by local rank),
// makes the device arena for `arenas` and, with several ranks, the NCCL
// communicator. Throws dxrt::Error when the target needs a GPU and there is
// none (never falls back to the CPU), or libdxrt_cuda is not linked.
std::unique_ptr<Backend> make_backend(const Metadata &meta, Arenas &arenas, World &world, int64_t accumulate);

// The host backend on its own (tests, tools).
std::unique_ptr<Backend> make_host_backend();

// Defined by libdxrt_cuda when it is linked (a weak reference here, so that
// CPU executables do not need it).
std::unique_ptr<Backend> make_cuda_backend(const Metadata &meta, Arenas &arenas, World &world, int64_t accumulate)
    __attribute__((weak));

} // namespace dxrt
