// All of a training run's device memory in one cudaMalloc: parameters,
// gradients, buffers, optimizer state, the batch and the activations
// workspace, each a 256-byte aligned slice (cuBLAS/cuDNN's preferred
// alignment; also that of every cudaMalloc). The layout is planned first
// (reserve), then allocated once: a step never allocates, and an
// out-of-memory error comes at start-up, naming the total, not in step 300.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dxrt::cuda {

class DeviceArena {
public:
  static constexpr size_t kAlign = 256;

  DeviceArena() = default;
  DeviceArena(const DeviceArena &) = delete;
  DeviceArena &operator=(const DeviceArena &) = delete;
  ~DeviceArena();

  // Plans a slice of `bytes` bytes (zero is allowed) and returns its index.
  // Only before allocate().
  int reserve(std::string name, size_t bytes);
  // One cudaMalloc for every reserved slice, zero-filled. Throws dxrt::Error
  // naming the total and the largest slices when the device is too small.
  void allocate();

  bool allocated() const { return done_; }
  size_t bytes() const { return total_; }
  int slices() const { return int(slices_.size()); }
  // The device address of slice i (aligned), and its size.
  void *at(int i) const;
  size_t size(int i) const;
  const std::string &name(int i) const;

private:
  struct Slice {
    std::string name;
    size_t offset, bytes;
  };
  std::vector<Slice> slices_;
  size_t total_ = 0;
  char *base_ = nullptr;
  bool done_ = false;
};

} // namespace dxrt::cuda
