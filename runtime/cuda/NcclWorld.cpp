// NcclComm over World: MPI broadcasts the NCCL unique id.
#include "comm/World.h"
#include "cuda/NcclComm.h"

namespace dxrt::cuda {

NcclComm::NcclComm(World &world, CUstream_st *stream)
    : NcclComm(world.rank(), world.size(), [&world](void *data, size_t bytes) { world.broadcast(data, int64_t(bytes), 0); },
               stream) {}

} // namespace dxrt::cuda
