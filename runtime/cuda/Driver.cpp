#include "cuda/Driver.h"
#include "cuda/Check.h"
#include "cuda/Device.h"

#include <cuda_runtime_api.h>

namespace dxrt::cuda {

namespace {

// The driver API version whose signatures DriverApi declares (CUDA 12.0 ABI;
// the driver keeps old versions of every entry point).
constexpr unsigned kDriverAbi = 12000;

template <typename F> void fetch(const char *symbol, F &fn) {
  void *p = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  DXRT_CUDA_CHECK(cudaGetDriverEntryPointByVersion(symbol, &p, kDriverAbi, cudaEnableDefault, &found));
  DXRT_CHECK(found == cudaDriverEntryPointSuccess && p != nullptr,
             str("the CUDA driver has no entry point ", symbol, " (version ", kDriverAbi, ")"),
             "update the NVIDIA driver: CUDA 13 needs a driver of the 580 series or newer");
  fn = reinterpret_cast<F>(p);
}

DriverApi load() {
  current_device(); // the primary context must exist before driver calls
  DriverApi d{};
  fetch("cuModuleLoadData", d.ModuleLoadData);
  fetch("cuModuleLoadDataEx", d.ModuleLoadDataEx);
  fetch("cuModuleUnload", d.ModuleUnload);
  fetch("cuModuleGetFunction", d.ModuleGetFunction);
  fetch("cuLaunchKernel", d.LaunchKernel);
  fetch("cuMemsetD32Async", d.MemsetD32Async);
  fetch("cuGetErrorName", d.GetErrorName);
  fetch("cuGetErrorString", d.GetErrorString);
  return d;
}

const DriverApi *g_driver = nullptr;

} // namespace

const DriverApi &driver() {
  // Function-local static: thread-safe, and a failed load throws and is retried.
  static const DriverApi api = load();
  g_driver = &api;
  return api;
}

std::string driver_error_text(int status) {
  const char *name = nullptr, *text = nullptr;
  if (g_driver) {
    g_driver->GetErrorName(CUresult(status), &name);
    g_driver->GetErrorString(CUresult(status), &text);
  }
  if (!name) return str("CUresult ", status);
  return str(name, ": ", text ? text : "");
}

} // namespace dxrt::cuda
