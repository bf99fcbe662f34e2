// Which GPU this process uses. A rank uses the GPU of its node whose index
// is its local rank (World::local_rank()); where a launcher gives each rank
// one visible GPU (CUDA_VISIBLE_DEVICES), that one. An executable compiled
// with --target=cuda never falls back to the CPU: with no driver or device
// the selection throws dxrt::Error and the run exits non-zero.
#pragma once

#include <cstddef>
#include <string>

namespace dxrt::cuda {

struct Device {
  int ordinal = -1;       // index among the visible devices
  int visible = 0;        // how many devices this process sees
  std::string name;       // "NVIDIA H200"
  int major = 0, minor = 0;
  size_t memory = 0;      // bytes
  int multiprocessors = 0;
};

// Makes device `local_rank` (or the only visible one) current for this
// process and returns it. Throws dxrt::Error when there is no CUDA driver or
// device, or fewer devices than local ranks. The first selection holds for
// the whole process: later calls return it (and make it current on the
// calling thread, as cudart's current device is per thread).
const Device &select_device(int local_rank);

// The selected device. The driver selects it at start-up with
// World::local_rank() (MPI's own count of the ranks sharing the node); code
// that runs before, or without the driver (tests), selects it here by the
// launcher's local-rank variable (OMPI_COMM_WORLD_LOCAL_RANK, ...; else 0).
// This keeps libdxrt_cuda's kernels free of MPI.
const Device &current_device();
int local_rank_from_env();

// One line for the banner: "GPU 0 of 8: NVIDIA H200 (sm_90, 139.8 GiB, 132 SMs)".
std::string describe(const Device &d);

} // namespace dxrt::cuda
