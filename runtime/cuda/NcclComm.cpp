#include "cuda/NcclComm.h"
#include "cuda/Check.h"
#include "cuda/Device.h"

#include <nccl.h>

#include <algorithm>

namespace dxrt::cuda {

namespace {

// NCCL's own check with the rank in the message: one rank failing is the
// usual way a multi-GPU run breaks, and the others then hang or time out.
[[noreturn]] void fail(ncclResult_t r, ncclComm_t comm, const char *call, int rank, int size, int line) {
  const char *last = comm ? ncclGetLastError(comm) : nullptr;
  throw Error(str(call, " failed on rank ", rank, " of ", size, ": ", ncclGetErrorString(r),
                  last && *last ? str(" (", last, ")") : std::string()),
              "set NCCL_DEBUG=WARN (or INFO) to see NCCL's report; check that every rank has its own GPU and that "
              "all ranks reached this point",
              __FILE__, line);
}

} // namespace

NcclComm::NcclComm(int rank, int size, const Broadcast &broadcast, CUstream_st *stream)
    : stream_(stream), rank_(rank), size_(size) {
  DXRT_CHECK(size >= 1 && rank >= 0 && rank < size, str("NCCL: rank ", rank, " of ", size),
             "a runtime bug: the rank must lie in [0, size)");
  current_device();
  ncclUniqueId id{};
  if (rank == 0) {
    ncclResult_t r = ncclGetUniqueId(&id);
    if (r != ncclSuccess) fail(r, nullptr, "ncclGetUniqueId", rank_, size_, __LINE__);
  }
  if (broadcast) broadcast(&id, sizeof id);
  ncclResult_t r = ncclCommInitRank(&comm_, size_, id, rank_);
  if (r != ncclSuccess) {
    comm_ = nullptr;
    fail(r, nullptr, "ncclCommInitRank", rank_, size_, __LINE__);
  }
}

NcclComm::~NcclComm() {
  if (!comm_) return;
  // No throw from a destructor: a failure here can only be ignored. Finalize
  // first so that queued collectives complete before the resources go.
  ncclCommFinalize(comm_);
  ncclCommDestroy(comm_);
}

void NcclComm::allreduce_sum(float *device, int64_t n, int64_t bucket) {
  DXRT_CHECK(n >= 0 && bucket > 0, str("NCCL all-reduce of ", n, " floats in buckets of ", bucket),
             "a runtime bug: the count must not be negative and the bucket positive");
  // A world of one still calls NCCL (an in-place copy it skips): the same
  // path as many ranks, and what the one-rank test exercises.
  for (int64_t i = 0; i < n; i += bucket) {
    size_t count = size_t(std::min(bucket, n - i));
    ncclResult_t r = ncclAllReduce(device + i, device + i, count, ncclFloat, ncclSum, comm_, stream_);
    if (r != ncclSuccess) fail(r, comm_, "ncclAllReduce", rank_, size_, __LINE__);
  }
}

} // namespace dxrt::cuda
