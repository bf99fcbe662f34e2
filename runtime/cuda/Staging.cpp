#include "cuda/Staging.h"
#include "cuda/Check.h"
#include "cuda/DeviceArena.h"

#include <cuda_runtime_api.h>

namespace dxrt::cuda {

namespace {

void check_slot(int slot) {
  DXRT_CHECK(slot == 0 || slot == 1, str("batch stager: slot ", slot, " is neither 0 nor 1"),
             "a runtime bug: slots alternate with the step");
}

} // namespace

BatchStager::BatchStager(DeviceArena &arena, int slot0, int slot1, size_t bytes, CUstream_st *compute)
    : bytes_(bytes), compute_(compute) {
  DXRT_CHECK(arena.size(slot0) >= bytes && arena.size(slot1) >= bytes,
             str("batch stager: arena slices of ", arena.size(slot0), " and ", arena.size(slot1),
                 " bytes cannot hold a batch of ", bytes),
             "a runtime bug: reserve the batch slices with the batch's size");
  device_[0] = arena.at(slot0);
  device_[1] = arena.at(slot1);
  DXRT_CUDA_CHECK(cudaStreamCreateWithFlags(&copy_, cudaStreamNonBlocking));
  for (int s = 0; s < 2; ++s) {
    // Pinned memory: only pinned buffers copy asynchronously (and at full speed).
    DXRT_CUDA_CHECK(cudaHostAlloc(&host_[s], bytes ? bytes : 1, cudaHostAllocPortable));
    // Timing off: these events only order work, and untimed ones are cheaper.
    DXRT_CUDA_CHECK(cudaEventCreateWithFlags(&uploaded_[s], cudaEventDisableTiming));
    DXRT_CUDA_CHECK(cudaEventCreateWithFlags(&consumed_[s], cudaEventDisableTiming));
  }
}

BatchStager::~BatchStager() {
  // Best effort, no checks: a destructor must not throw.
  if (copy_) cudaStreamSynchronize(copy_);
  for (int s = 0; s < 2; ++s) {
    if (uploaded_[s]) cudaEventDestroy(uploaded_[s]);
    if (consumed_[s]) cudaEventDestroy(consumed_[s]);
    if (host_[s]) cudaFreeHost(host_[s]);
  }
  if (copy_) cudaStreamDestroy(copy_);
}

void *BatchStager::host(int slot) {
  check_slot(slot);
  // The copy engine may still be reading the buffer; a never-recorded event
  // counts as complete.
  DXRT_CUDA_CHECK(cudaEventSynchronize(uploaded_[slot]));
  return host_[slot];
}

void BatchStager::upload(int slot, size_t bytes) {
  check_slot(slot);
  DXRT_CHECK(bytes <= bytes_, str("batch stager: a batch of ", bytes, " bytes does not fit in ", bytes_),
             "a runtime bug: the batch grew after the arena was planned");
  // Do not overwrite the device buffer while a step may still read it.
  DXRT_CUDA_CHECK(cudaStreamWaitEvent(copy_, consumed_[slot], 0));
  if (bytes) DXRT_CUDA_CHECK(cudaMemcpyAsync(device_[slot], host_[slot], bytes, cudaMemcpyHostToDevice, copy_));
  DXRT_CUDA_CHECK(cudaEventRecord(uploaded_[slot], copy_));
}

void *BatchStager::acquire(int slot) {
  check_slot(slot);
  DXRT_CUDA_CHECK(cudaStreamWaitEvent(compute_, uploaded_[slot], 0));
  return device_[slot];
}

void BatchStager::release(int slot) {
  check_slot(slot);
  DXRT_CUDA_CHECK(cudaEventRecord(consumed_[slot], compute_));
}

} // namespace dxrt::cuda
