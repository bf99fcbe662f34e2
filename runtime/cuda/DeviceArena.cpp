#include "cuda/DeviceArena.h"
#include "cuda/Check.h"
#include "cuda/Device.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>

namespace dxrt::cuda {

namespace {

std::string gib(size_t bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f GiB", double(bytes) / double(size_t(1) << 30));
  return b;
}

} // namespace

DeviceArena::~DeviceArena() {
  // No check: a destructor must not throw, and at exit the driver may be gone.
  if (base_) cudaFree(base_);
}

int DeviceArena::reserve(std::string name, size_t bytes) {
  DXRT_CHECK(!done_, str("device arena: cannot reserve '", name, "' after the arena is allocated"),
             "a runtime bug: plan every slice before allocate()");
  size_t offset = (total_ + kAlign - 1) / kAlign * kAlign;
  slices_.push_back({std::move(name), offset, bytes});
  total_ = offset + bytes;
  return int(slices_.size()) - 1;
}

void DeviceArena::allocate() {
  DXRT_CHECK(!done_, "device arena: allocated twice", "a runtime bug: call allocate() once");
  done_ = true;
  if (total_ == 0) return;
  current_device();
  cudaError_t e = cudaMalloc(reinterpret_cast<void **>(&base_), total_);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    std::vector<const Slice *> big;
    for (const Slice &s : slices_) big.push_back(&s);
    std::sort(big.begin(), big.end(), [](const Slice *a, const Slice *b) { return a->bytes > b->bytes; });
    std::string largest;
    for (size_t i = 0; i < big.size() && i < 3; ++i)
      largest += str(i ? ", " : "", big[i]->name, " ", gib(big[i]->bytes));
    throw Error(str("the model needs ", gib(total_), " of GPU memory but only ", gib(free_b), " of ", gib(total_b),
                    " are free (largest: ", largest, ")"),
                "use a smaller --batch (activations grow with it), or a GPU with more memory", __FILE__, __LINE__);
  }
  DXRT_CUDA_CHECK(e);
  // Zero: gradients and optimizer state start at zero, and no slice holds
  // whatever the last process left in the memory.
  DXRT_CUDA_CHECK(cudaMemset(base_, 0, total_));
}

void *DeviceArena::at(int i) const {
  DXRT_CHECK(done_ && i >= 0 && i < int(slices_.size()), str("device arena: no allocated slice ", i),
             "a runtime bug: allocate() first, and use an index reserve() returned");
  return base_ ? base_ + slices_[size_t(i)].offset : nullptr;
}

size_t DeviceArena::size(int i) const { return slices_.at(size_t(i)).bytes; }

const std::string &DeviceArena::name(int i) const { return slices_.at(size_t(i)).name; }

} // namespace dxrt::cuda
