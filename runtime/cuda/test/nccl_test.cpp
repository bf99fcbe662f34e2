// The NCCL communicator in a world of one: it starts, sums in place in
// buckets (a sum over one rank is the buffer itself), and ends cleanly.
#include "GpuTestUtil.h"
#include "cuda/Context.h"
#include "cuda/NcclComm.h"

using namespace dxtest;

namespace {

TEST(Nccl, OneRankAllReduceInBuckets) {
  auto *stream = static_cast<CUstream_st *>(dxrt_cuda_stream());
  for (int round = 0; round < 2; ++round) { // create, use and destroy twice
    dxrt::cuda::NcclComm comm(0, 1, nullptr, stream);
    EXPECT_EQ(comm.rank(), 0);
    EXPECT_EQ(comm.size(), 1);
    std::vector<float> h = random_floats(2500, 7 + unsigned(round));
    DeviceVec d(h);
    comm.allreduce_sum(d.p, int64_t(h.size()), 1000); // buckets of 1000, 1000, 500
    comm.allreduce_sum(d.p, int64_t(h.size()));
    comm.allreduce_sum(d.p, 0);
    EXPECT_EQ(d.get(), h);
  }
}

TEST(Nccl, BadRankIsAnError) { EXPECT_THROW(dxrt::cuda::NcclComm(1, 1, nullptr, nullptr), dxrt::Error); }

} // namespace
