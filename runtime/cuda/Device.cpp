#include "cuda/Device.h"
#include "cuda/Check.h"
#include "cuda/Environment.h"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>

namespace dxrt::cuda {

namespace {

std::mutex g_mutex;
std::optional<Device> g_device;

constexpr const char *kNoFallback = "this executable was compiled with --target=cuda and never falls back to the CPU";

Device pick(int local_rank) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    std::string why = e != cudaSuccess ? str("cudaGetDeviceCount: ", cudaGetErrorString(e), " (", cudaGetErrorName(e), ")")
                                       : std::string("cudaGetDeviceCount: no device");
    cudaGetLastError(); // clear the sticky status for whoever asks next
    throw Error(str("no CUDA device or driver is available: ", why, "; ", kNoFallback),
                "run it on a machine with an NVIDIA GPU and driver (check nvidia-smi and CUDA_VISIBLE_DEVICES), or "
                "compile the model for the CPU (dxc compile without --target=cuda)",
                __FILE__, __LINE__);
  }
  // One visible device: the launcher already chose it for this rank.
  int ordinal = count == 1 ? 0 : local_rank;
  DXRT_CHECK(ordinal >= 0 && ordinal < count,
             str("local rank ", local_rank, " has no GPU: this node has ", count, " visible GPUs"),
             str("start at most ", count, " ranks per node (mpirun --map-by ppr:", count,
                 ":node), or give each rank one GPU with CUDA_VISIBLE_DEVICES"));
  DXRT_CUDA_CHECK(cudaSetDevice(ordinal));
  // cudaSetDevice makes the primary context current; the driver entry points
  // (Driver.cpp) and cuDNN/NCCL then find it.
  DXRT_CUDA_CHECK(cudaFree(nullptr));
  cudaDeviceProp prop{};
  DXRT_CUDA_CHECK(cudaGetDeviceProperties(&prop, ordinal));
  Device d;
  d.ordinal = ordinal;
  d.visible = count;
  d.name = prop.name;
  d.major = prop.major;
  d.minor = prop.minor;
  d.memory = prop.totalGlobalMem;
  d.multiprocessors = prop.multiProcessorCount;
  DXRT_CHECK(d.major >= 7 && (d.major > 7 || d.minor >= 5),
             str(d.name, " is sm_", d.major, d.minor, ": CUDA 13 supports sm_75 and newer"),
             "use a newer GPU, or compile the model for the CPU");
  return d;
}

} // namespace

const Device &select_device(int local_rank) {
  environment(); // a bad DXRT_CUDA_* value ends the run here, before the GPU is touched
  std::lock_guard lock(g_mutex);
  if (!g_device) {
    g_device = pick(local_rank);
  } else {
    // Re-selecting is harmless on the same thread, but cudart's current
    // device is per thread: make it current here too.
    DXRT_CUDA_CHECK(cudaSetDevice(g_device->ordinal));
  }
  return *g_device;
}

int local_rank_from_env() {
  // Open MPI, MPICH/Intel MPI, MVAPICH, Slurm: each launcher's own variable.
  for (const char *name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "MV2_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"})
    if (const char *v = std::getenv(name); v && *v) return std::atoi(v);
  return 0;
}

const Device &current_device() {
  {
    std::lock_guard lock(g_mutex);
    if (g_device) return *g_device;
  }
  return select_device(local_rank_from_env());
}

std::string describe(const Device &d) {
  char mem[32];
  std::snprintf(mem, sizeof mem, "%.1f GiB", double(d.memory) / double(1u << 30));
  return str("GPU ", d.ordinal, " of ", d.visible, ": ", d.name, " (sm_", d.major, d.minor, ", ", mem, ", ",
             d.multiprocessors, " SMs)");
}

} // namespace dxrt::cuda
