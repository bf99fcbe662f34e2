// The device backend (model/Backend.h) of executables compiled with
// --target=cuda: the generated step runs on this rank's GPU, on device
// copies of every arena.
//
//   device arena   one cudaMalloc at start-up (DeviceArena.h): parameters,
//                  gradients (+ the kGradSide values that ride in their
//                  all-reduce), buffers, new buffers, optimizer state, the
//                  --accumulate sums, every output of an evaluation batch,
//                  and two batch slots; the step's activations are the
//                  generated code's workspace (dxrt_cuda_workspace). A step
//                  allocates nothing.
//   batches        the loader fills the host arena (a.x, a.labels); the
//                  batch is copied into a pinned buffer and uploaded on the
//                  copy stream into the slot the previous step is not
//                  reading (BatchStager).
//   arithmetic     zeroing, copies, scaling and the accumulation's axpy run
//                  on the library's stream (cudaMemsetAsync, cudaMemcpyAsync,
//                  cuBLAS), in order with the generated kernels.
//   ranks          NCCL sums gradients and buffers in place on the stream
//                  (NcclComm.h; MPI only broadcasts its id). The side values
//                  (the loss, the ranks' signal flags) go up with the
//                  gradients and come back: the host reads them, so this is
//                  the step's second synchronisation (the loss read-back is
//                  the first).
//
// Initialisation and checkpoints stay on the host: parameters are
// initialised there from the seed (so CPU and GPU runs start equal) and
// uploaded; a checkpoint downloads them first.
#include "comm/Watchdog.h"
#include "common/Check.h"
#include "common/Timer.h"
#include "cuda/Check.h"
#include "cuda/Context.h"
#include "cuda/Device.h"
#include "cuda/DeviceArena.h"
#include "cuda/NcclComm.h"
#include "cuda/Staging.h"
#include "dxrt/abi.h"
#include "kernels/Precision.h"
#include "model/Backend.h"
#include "model/Model.h"
#include "train/ModelSync.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <optional>

namespace dxrt::cuda {
namespace {

size_t aligned(size_t bytes) { return (bytes + DeviceArena::kAlign - 1) / DeviceArena::kAlign * DeviceArena::kAlign; }

class CudaBackend final : public Backend {
public:
  CudaBackend(Arenas &a, World &world, int64_t accumulate)
      // Under MPI the world's local rank picks the GPU; in a world of one (a
      // plain run, or the inference library inside a host program, which
      // never starts MPI) the launcher's variables do, as for current_device().
      : device_(select_device(world.uses_mpi() ? world.local_rank() : local_rank_from_env())), stream_(context().stream), np_(int64_t(a.params.size())),
        nb_(int64_t(a.buffers.size())), max_batch_(a.max_batch),
        in_floats_(max_batch_ ? int64_t(a.x.size()) / max_batch_ : 0),
        label_elems_(max_batch_ ? int64_t(a.labels.size()) / max_batch_ : 0),
        target_floats_(max_batch_ ? int64_t(a.targets.size()) / max_batch_ : 0) {
    // bf16 products run on the bf16 tensor cores of sm_80 (Ampere) and newer
    // (cuBLAS's bf16 GEMM, cuDNN's PSEUDO_BFLOAT16): an older GPU is refused
    // before anything is allocated, never run in fp32 instead.
    DXRT_CHECK(matmul_precision() != Precision::kBf16 || device_.major >= 8,
               str("the model was compiled with precision bf16, but ", device_.name, " is sm_", device_.major,
                   device_.minor, ", without bf16 tensor cores"),
               "recompile with `dxc compile --target=cuda --precision fp32`, or run on an sm_80 GPU or newer (A100, H100, ...)");
    // The batch slot: the samples, then (256-byte aligned) their labels and
    // their targets.
    labels_at_ = aligned(a.x.size() * sizeof(float));
    targets_at_ = aligned(labels_at_ + a.labels.size() * sizeof(int64_t));
    const size_t slot_bytes = targets_at_ + a.targets.size() * sizeof(float);
    const int params = arena_.reserve("parameters", a.params.size() * sizeof(float));
    const int grads = arena_.reserve("gradients", a.grads.size() * sizeof(float));
    const int buffers = arena_.reserve("buffers", a.buffers.size() * sizeof(float));
    const int new_buffers = arena_.reserve("new buffers", a.new_buffers.size() * sizeof(float));
    const int state = arena_.reserve("optimizer state", a.state.size() * sizeof(float));
    const bool accumulating = accumulate > 1;
    const int accum_grads = arena_.reserve("accumulated gradients", accumulating ? a.grads.size() * sizeof(float) : 0);
    const int accum_buffers =
        arena_.reserve("accumulated buffers", accumulating ? a.new_buffers.size() * sizeof(float) : 0);
    const int outputs = arena_.reserve("outputs", a.outputs.size() * sizeof(float));
    const int slot0 = arena_.reserve("batch slot 0", slot_bytes), slot1 = arena_.reserve("batch slot 1", slot_bytes);
    arena_.allocate();
    params_ = f32(params);
    grads_ = f32(grads);
    buffers_ = f32(buffers);
    new_buffers_ = f32(new_buffers);
    state_ = f32(state);
    // Zero-byte slices still have an address: without --accumulate the sums
    // are null, so that accumulate() refuses instead of writing over the next slice.
    accum_grads_ = accumulating ? f32(accum_grads) : nullptr;
    accum_buffers_ = accumulating ? f32(accum_buffers) : nullptr;
    outputs_ = f32(outputs);
    state_floats_ = int64_t(a.state.size());
    output_floats_ = max_batch_ ? int64_t(a.outputs.size()) / max_batch_ : 0;
    stager_.emplace(arena_, slot0, slot1, slot_bytes, stream_);
    // Collective: every rank gets here (make_backend runs on all of them).
    if (world.size() > 1) nccl_.emplace(world, stream_);
  }

  ~CudaBackend() override {
    // Queued work may still read the arena; no checks in a destructor.
    cudaStreamSynchronize(stream_);
  }

  std::string describe() const override {
    return str(cuda::describe(device_), "; device arena ", str_fixed(double(arena_.bytes()) / double(1 << 20), 1),
               " MiB", nccl_ ? str("; NCCL all-reduce over ", nccl_->size(), " ranks") : std::string());
  }

  float train_step(Arenas &a, int64_t batch, int64_t seed, int64_t step, int64_t rank) override {
    const int slot = upload_batch(a, batch);
    dx_memref_f32 params = memref(params_, np_), buffers = memref(buffers_, nb_), grads = memref(grads_, np_);
    dx_memref_f32 new_buffers = memref(new_buffers_, nb_), x = memref(batch_x_, batch * in_floats_);
    dx_memref_i64 labels = memref(batch_labels_, batch * label_elems_);
    dx_memref_f32 targets = memref(batch_targets_, batch * target_floats_);
    // Returns once the stream has run the step (the loss read-back).
    const float loss = _mlir_ciface_dx_train_step(&params, &buffers, &grads, &new_buffers, &x, &labels, &targets, batch,
                                                  seed, step, rank);
    stager_->release(slot);
    return loss;
  }

  float eval_step(Arenas &a, int64_t batch) override {
    const int slot = upload_batch(a, batch);
    dx_memref_f32 params = memref(params_, np_), buffers = memref(buffers_, nb_);
    dx_memref_f32 x = memref(batch_x_, batch * in_floats_), outputs = memref(outputs_, batch * output_floats_);
    dx_memref_i64 labels = memref(batch_labels_, batch * label_elems_);
    dx_memref_f32 targets = memref(batch_targets_, batch * target_floats_);
    const float loss = _mlir_ciface_dx_eval_step(&params, &buffers, &x, &labels, &targets, &outputs, batch);
    stager_->release(slot);
    // Every output (output k after outputs 0..k-1, docs/abi.md) to the host.
    download(a.outputs.data(), outputs_, batch * output_floats_);
    DXRT_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return loss;
  }

  void update(Arenas &, float lr, int64_t step) override {
    dx_memref_f32 params = memref(params_, np_), grads = memref(grads_, np_), state = memref(state_, state_floats_);
    _mlir_ciface_dx_update(&params, &grads, &state, lr, step);
  }

  void skip_step(Arenas &) override {
    if (np_) DXRT_CUDA_CHECK(cudaMemsetAsync(grads_, 0, size_t(np_) * sizeof(float), stream_));
    copy(new_buffers_, buffers_, nb_);
  }

  void accumulate(Arenas &, bool first, float weight) override {
    DXRT_CHECK(accum_grads_ && accum_buffers_, "--accumulate: the device arena has no room for the sums",
               "a runtime bug: the backend was made for --accumulate 1");
    // sums = 0 + weight * g, then sums += weight * g: the host's order.
    if (first) {
      if (np_) DXRT_CUDA_CHECK(cudaMemsetAsync(accum_grads_, 0, size_t(np_) * sizeof(float), stream_));
      if (nb_) DXRT_CUDA_CHECK(cudaMemsetAsync(accum_buffers_, 0, size_t(nb_) * sizeof(float), stream_));
    }
    axpy(weight, grads_, accum_grads_, np_);
    axpy(weight, new_buffers_, accum_buffers_, nb_);
  }

  void take_accumulated(Arenas &) override {
    std::swap(grads_, accum_grads_);
    std::swap(new_buffers_, accum_buffers_);
  }

  void commit_buffers(Arenas &) override { copy(buffers_, new_buffers_, nb_); }

  void reduce_gradients(Arenas &, ModelSync &sync, float weight, float *side) override {
    if (!nccl_) return; // a world of one, as ModelSync
    const double t0 = now_s();
    scale(grads_, np_, weight);
    DXRT_CUDA_CHECK(cudaMemcpyAsync(grads_ + np_, side, kGradSide * sizeof(float), cudaMemcpyHostToDevice, stream_));
    nccl_->allreduce_sum(grads_, np_ + kGradSide, bucket_floats(sync));
    DXRT_CUDA_CHECK(cudaMemcpyAsync(side, grads_ + np_, kGradSide * sizeof(float), cudaMemcpyDeviceToHost, stream_));
    // The host reads the side values now. A rank that hangs leaves NCCL
    // waiting here: the watchdog (--comm-timeout) ends the job.
    CommWait wait("ncclAllReduce (the gradients' all-reduce, waited for by cudaStreamSynchronize)");
    DXRT_CUDA_CHECK(cudaStreamSynchronize(stream_));
    sync.add_comm_time(now_s() - t0);
  }

  void reduce_buffers(Arenas &, ModelSync &sync, float weight) override {
    if (!nccl_ || nb_ == 0) return;
    const double t0 = now_s();
    scale(new_buffers_, nb_, weight);
    nccl_->allreduce_sum(new_buffers_, nb_, bucket_floats(sync));
    sync.add_comm_time(now_s() - t0); // queued, not waited for: the update follows on the same stream
  }

  void average_model(Arenas &, ModelSync &sync) override {
    if (!nccl_) return;
    const double t0 = now_s();
    const float inv = 1.0f / float(nccl_->size());
    scale(params_, np_, inv);
    nccl_->allreduce_sum(params_, np_, bucket_floats(sync));
    if (nb_) {
      scale(buffers_, nb_, inv);
      nccl_->allreduce_sum(buffers_, nb_, bucket_floats(sync));
    }
    sync.add_comm_time(now_s() - t0);
  }

  void upload_model(Arenas &a) override {
    upload(params_, a.params.data(), np_);
    upload(buffers_, a.buffers.data(), nb_);
    upload(state_, a.state.data(), state_floats_);
    DXRT_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  void download_model(Arenas &a) override {
    download(a.params.data(), params_, np_);
    download(a.buffers.data(), buffers_, nb_);
    download(a.state.data(), state_, state_floats_);
    DXRT_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  // Device memory (cudaMalloc) only: managed and mapped host memory is
  // readable from the host as it is.
  bool device_pointer(const void *p) const override {
    cudaPointerAttributes at{};
    if (cudaPointerGetAttributes(&at, p) != cudaSuccess) {
      cudaGetLastError(); // an unregistered host pointer: not an error to keep
      return false;
    }
    return at.type == cudaMemoryTypeDevice;
  }
  void copy_floats(float *dst, const float *src, int64_t n) override {
    if (n <= 0) return;
    // cudaMemcpyDefault: the direction from the pointers (unified addressing).
    DXRT_CUDA_CHECK(cudaMemcpyAsync(dst, src, size_t(n) * sizeof(float), cudaMemcpyDefault, stream_));
    DXRT_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

private:
  float *f32(int slice) const { return static_cast<float *>(arena_.at(slice)); }

  // The batch a.x / a.labels / a.targets [0, batch) into the next slot; the compute
  // stream waits for its copy. Returns the slot (release it after the step).
  int upload_batch(const Arenas &a, int64_t batch) {
    DXRT_CHECK(batch >= 0 && batch <= max_batch_,
               str("a batch of ", batch, " samples does not fit the device arena's ", max_batch_),
               "a runtime bug: batches are at most the larger of --batch and --eval-batch");
    const int slot = int(next_slot_++ & 1);
    char *h = static_cast<char *>(stager_->host(slot));
    std::memcpy(h, a.x.data(), size_t(batch * in_floats_) * sizeof(float));
    std::memcpy(h + labels_at_, a.labels.data(), size_t(batch * label_elems_) * sizeof(int64_t));
    if (target_floats_) std::memcpy(h + targets_at_, a.targets.data(), size_t(batch * target_floats_) * sizeof(float));
    stager_->upload(slot, target_floats_ ? targets_at_ + size_t(batch * target_floats_) * sizeof(float)
                                         : labels_at_ + size_t(batch * label_elems_) * sizeof(int64_t));
    char *d = static_cast<char *>(stager_->acquire(slot));
    batch_x_ = reinterpret_cast<float *>(d);
    batch_labels_ = reinterpret_cast<int64_t *>(d + labels_at_);
    batch_targets_ = reinterpret_cast<float *>(d + targets_at_);
    return slot;
  }

  void upload(float *device, const float *host, int64_t n) {
    if (n) DXRT_CUDA_CHECK(cudaMemcpyAsync(device, host, size_t(n) * sizeof(float), cudaMemcpyHostToDevice, stream_));
  }
  void download(float *host, const float *device, int64_t n) {
    if (n) DXRT_CUDA_CHECK(cudaMemcpyAsync(host, device, size_t(n) * sizeof(float), cudaMemcpyDeviceToHost, stream_));
  }
  void copy(float *dst, const float *src, int64_t n) {
    if (n) DXRT_CUDA_CHECK(cudaMemcpyAsync(dst, src, size_t(n) * sizeof(float), cudaMemcpyDeviceToDevice, stream_));
  }
  void scale(float *x, int64_t n, float alpha) {
    if (n == 0 || alpha == 1.0f) return;
    DXRT_CUBLAS_CHECK(cublasSscal_64(context().cublas, n, &alpha, x, 1));
  }
  void axpy(float alpha, const float *x, float *y, int64_t n) {
    if (n) DXRT_CUBLAS_CHECK(cublasSaxpy_64(context().cublas, n, &alpha, x, 1, y, 1));
  }
  // --bucket-bytes, as for MPI.
  static int64_t bucket_floats(const ModelSync &sync) { return std::max<int64_t>(sync.bucket_floats(), 1); }

  const Device &device_;
  CUstream_st *stream_;
  const int64_t np_, nb_, max_batch_, in_floats_, label_elems_, target_floats_;
  int64_t state_floats_ = 0, output_floats_ = 0;
  size_t labels_at_ = 0, targets_at_ = 0;
  DeviceArena arena_;
  std::optional<BatchStager> stager_;
  std::optional<NcclComm> nccl_;
  float *params_ = nullptr, *grads_ = nullptr, *buffers_ = nullptr, *new_buffers_ = nullptr, *state_ = nullptr;
  float *accum_grads_ = nullptr, *accum_buffers_ = nullptr, *outputs_ = nullptr;
  float *batch_x_ = nullptr;
  int64_t *batch_labels_ = nullptr;
  float *batch_targets_ = nullptr;
  uint64_t next_slot_ = 0;
};

} // namespace
} // namespace dxrt::cuda

namespace dxrt {

std::unique_ptr<Backend> make_cuda_backend(const Metadata &, Arenas &arenas, World &world, int64_t accumulate) {
  return std::make_unique<cuda::CudaBackend>(arenas, world, accumulate);
}

} // namespace dxrt

// dxc links --target=cuda executables with -Wl,-u,dxrt_cuda_backend_link:
// libdxrt only refers to make_cuda_backend weakly, and a weak reference does
// not pull an object out of a static archive.
extern "C" void dxrt_cuda_backend_link(void) {}
