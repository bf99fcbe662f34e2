// Gradient all-reduce between GPUs with NCCL. MPI only bootstraps it: rank 0
// makes the NCCL unique id and World broadcasts it; then every rank joins the
// NCCL communicator of World's size. All operations go on the given stream
// (the library's, normally), so they are ordered with the step's kernels and
// the host does not wait.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

struct CUstream_st;
struct ncclComm;

namespace dxrt {
class World;
}

namespace dxrt::cuda {

class NcclComm {
public:
  // Collective: every rank of `world` must construct it, after selecting its
  // device. Throws dxrt::Error naming the rank on failure. (NcclWorld.cpp,
  // apart so that code using the other constructor does not link MPI.)
  NcclComm(World &world, CUstream_st *stream);
  // The same with the bootstrap given as a function that broadcasts `bytes`
  // bytes from rank 0 to every rank (for tests: a world of one needs none).
  using Broadcast = std::function<void(void *data, size_t bytes)>;
  NcclComm(int rank, int size, const Broadcast &broadcast, CUstream_st *stream);
  NcclComm(const NcclComm &) = delete;
  NcclComm &operator=(const NcclComm &) = delete;
  // Finalizes (waits for queued collectives) and destroys the communicator.
  ~NcclComm();

  int rank() const { return rank_; }
  int size() const { return size_; }

  // Sums the n floats at `device` over all ranks, in place, queued on the
  // stream in buckets of `bucket` floats (large buckets keep the links busy;
  // the last one may be shorter). Collective: every rank passes the same n.
  void allreduce_sum(float *device, int64_t n, int64_t bucket = kDefaultBucket);

  static constexpr int64_t kDefaultBucket = int64_t(64) << 20 >> 2; // 64 MiB of floats

private:
  ncclComm *comm_ = nullptr;
  CUstream_st *stream_;
  int rank_ = 0, size_ = 1;
};

} // namespace dxrt::cuda
