// Host-to-device batch copies that overlap the step: two pinned host buffers
// and two device buffers (slices of the DeviceArena), a copy stream, and
// events that order the copies with the compute stream.
//
// Per step, with slot = step % 2:
//   float *h = stager.host(slot);     // waits until the copy from h is done
//   ... fill h with the batch (the data loader) ...
//   stager.upload(slot);              // async copy on the copy stream
//   void *d = stager.acquire(slot);   // compute stream waits for the copy
//   ... the step reads d on the compute stream ...
//   stager.release(slot);             // marks when the step is done with d
// The next batch is uploaded into the other slot while this step runs; a copy
// into a slot waits (on the GPU) until the step that read it has finished.
#pragma once

#include <cstddef>

struct CUstream_st;
struct CUevent_st;

namespace dxrt::cuda {

class DeviceArena;

class BatchStager {
public:
  // `bytes` per batch; the device buffers are arena slices `slot0`, `slot1`
  // (each at least `bytes`), `compute` the stream the steps run on.
  BatchStager(DeviceArena &arena, int slot0, int slot1, size_t bytes, CUstream_st *compute);
  BatchStager(const BatchStager &) = delete;
  BatchStager &operator=(const BatchStager &) = delete;
  ~BatchStager();

  size_t bytes() const { return bytes_; }
  // The pinned host buffer of `slot`, once the last copy from it has finished.
  void *host(int slot);
  // Queues the copy of the host buffer into the device buffer of `slot`
  // (`bytes` of it, at most bytes()), after the last step that read it.
  void upload(int slot, size_t bytes);
  void upload(int slot) { upload(slot, bytes_); }
  // Makes the compute stream wait for the slot's copy; returns the device buffer.
  void *acquire(int slot);
  // Records that the compute stream has queued all its reads of the slot.
  void release(int slot);

private:
  size_t bytes_;
  CUstream_st *compute_, *copy_ = nullptr;
  void *host_[2] = {nullptr, nullptr};
  void *device_[2] = {nullptr, nullptr};
  CUevent_st *uploaded_[2] = {nullptr, nullptr}; // copy done
  CUevent_st *consumed_[2] = {nullptr, nullptr}; // step done reading
};

} // namespace dxrt::cuda
