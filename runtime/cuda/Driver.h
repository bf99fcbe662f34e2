// The few CUDA driver API functions libdxrt_cuda needs (module loading and
// kernel launch for the mgpu* shim), fetched from the driver through cudart's
// cudaGetDriverEntryPointByVersion. libcuda is never linked: an executable
// linked to it does not even load on a machine without the driver, and the
// runtime must be able to start and say clearly that there is no GPU.
#pragma once

#include <cuda.h> // types only (CUmodule, CUresult, ...): nothing is linked from libcuda

#include <string>

namespace dxrt::cuda {

struct DriverApi {
  CUresult (*ModuleLoadData)(CUmodule *, const void *);
  CUresult (*ModuleLoadDataEx)(CUmodule *, const void *, unsigned, CUjit_option *, void **);
  CUresult (*ModuleUnload)(CUmodule);
  CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                           void **, void **);
  CUresult (*MemsetD32Async)(CUdeviceptr, unsigned, size_t, CUstream);
  CUresult (*GetErrorName)(CUresult, const char **);
  CUresult (*GetErrorString)(CUresult, const char **);
};

// The entry points, fetched once after the device is selected (the driver
// API then works on the primary context cudart made current). Throws
// dxrt::Error when there is no driver.
const DriverApi &driver();

// "CUDA_ERROR_X: text" where the driver can name the status, else its number.
std::string driver_error_text(int status);

} // namespace dxrt::cuda
