// The mgpu* functions that MLIR 19's gpu-to-llvm host code calls (Debian
// ships no libmlir_cuda_runtime). The signatures are those of the
// declarations mlir-opt-19 emits (checked with --gpu-lower-to-nvvm-pipeline
// and --gpu-to-llvm): sizes and grid dimensions are i64, the shared memory
// size i32, the stream and module opaque pointers.
//
// Differences from MLIR's own wrappers, for training loops:
//  - mgpuStreamCreate returns the library's stream (Context.h) and
//    mgpuStreamDestroy leaves it alone, so generated launches are ordered
//    with the cuBLAS/cuDNN kernels without extra synchronisation.
//  - A synchronous gpu.launch_func lowers to create / launch / synchronize /
//    destroy. mgpuStreamSynchronize on the library's stream does not wait:
//    everything the generated code does with device memory is queued on that
//    one stream, and the host reads results only through
//    dxrt_cuda_read_f32 and the backend, which synchronise. So a step's
//    kernels are queued back to back and the host waits once, for the loss.
//    DXRT_CUDA_SYNC=1 makes it wait after every kernel (a fault then names
//    the kernel that caused it; CUDA_LAUNCH_BLOCKING=1 has the same effect).
//  - The lowering loads the module before and unloads it after every launch
//    and looks the kernel up each time; here a module is loaded once per
//    embedded blob (its address is that of a constant global), a function
//    looked up once per (module, name), and both kept until the process ends.
// Failures abort with a message (Kernel.h): generated code cannot handle
// errors, and MLIR's wrappers only print and go on.
#include "cuda/Check.h"
#include "cuda/Context.h"
#include "cuda/Driver.h"
#include "cuda/Environment.h"
#include "cuda/Kernel.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <mutex>
#include <unordered_map>

using namespace dxrt;
using namespace dxrt::cuda;

namespace {

std::mutex g_mutex;
std::unordered_map<const void *, CUmodule> g_modules; // by blob address

struct FunctionKey {
  const void *module;
  const char *name; // a constant global of the generated code
  bool operator==(const FunctionKey &o) const { return module == o.module && name == o.name; }
};
struct FunctionKeyHash {
  size_t operator()(const FunctionKey &k) const {
    return std::hash<const void *>()(k.module) * 31 + std::hash<const void *>()(k.name);
  }
};
std::unordered_map<FunctionKey, CUfunction, FunctionKeyHash> g_functions;

bool sync_every_launch() { return environment().sync; }

CUmodule load(const void *data, int jit_opt_level) {
  std::lock_guard lock(g_mutex);
  auto it = g_modules.find(data);
  if (it != g_modules.end()) return it->second;
  const DriverApi &d = driver();
  CUmodule m = nullptr;
  if (jit_opt_level < 0) {
    // A cubin or fatbin (cubin-format=bin/fatbin), or PTX, which the driver JITs.
    DXRT_DRIVER_CHECK(d.ModuleLoadData(&m, data));
  } else {
    // PTX (cubin-format=isa): the driver compiles it at this optimisation level.
    // Its error log says which line of the PTX it rejects.
    char log[4096] = {0};
    CUjit_option opts[] = {CU_JIT_OPTIMIZATION_LEVEL, CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *vals[] = {reinterpret_cast<void *>(intptr_t(jit_opt_level)), log, reinterpret_cast<void *>(sizeof log)};
    CUresult r = d.ModuleLoadDataEx(&m, data, 3, opts, vals);
    DXRT_CHECK(r == CUDA_SUCCESS, str("cuModuleLoadDataEx failed: ", driver_error_text(r), log[0] ? "\n" : "", log),
               "the driver could not compile the embedded PTX: compile with --gpu-arch for this GPU or update the "
               "driver");
  }
  g_modules.emplace(data, m);
  return m;
}

} // namespace

extern "C" {

void *mgpuModuleLoad(void *data, uint64_t /*gpuBlobSize: the blob carries its own size*/) {
  CUmodule m = nullptr;
  guard("mgpuModuleLoad", [&] { m = load(data, -1); });
  return m;
}

void *mgpuModuleLoadJIT(void *data, int optLevel) {
  CUmodule m = nullptr;
  guard("mgpuModuleLoadJIT", [&] { m = load(data, optLevel < 0 ? 0 : optLevel); });
  return m;
}

// Modules stay loaded (see above); the driver frees them with the context.
void mgpuModuleUnload(void * /*module*/) {}

void *mgpuModuleGetFunction(void *module, const char *name) {
  CUfunction f = nullptr;
  guard("mgpuModuleGetFunction", [&] {
    std::lock_guard lock(g_mutex);
    auto [it, fresh] = g_functions.try_emplace(FunctionKey{module, name}, nullptr);
    if (fresh) {
      CUresult r = driver().ModuleGetFunction(&it->second, static_cast<CUmodule>(module), name);
      if (r != CUDA_SUCCESS) g_functions.erase(it);
      DXRT_CHECK(r == CUDA_SUCCESS, str("cuModuleGetFunction(", name, ") failed: ", driver_error_text(r)),
                 "the kernel image does not hold this kernel: a dxc bug, please report it");
    }
    f = it->second;
  });
  return f;
}

void mgpuLaunchKernel(void *function, int64_t gridX, int64_t gridY, int64_t gridZ, int64_t blockX, int64_t blockY,
                      int64_t blockZ, int32_t smem, void *stream, void **params, void **extra,
                      int64_t /*paramsCount: the driver reads the count from the kernel*/) {
  guard("mgpuLaunchKernel", [&] {
    DXRT_CHECK(gridX > 0 && gridY > 0 && gridZ > 0 && blockX > 0 && blockY > 0 && blockZ > 0 &&
                   gridX <= UINT32_MAX && gridY <= 65535 && gridZ <= 65535 && blockX * blockY * blockZ <= 1024,
               str("launch of grid (", gridX, ", ", gridY, ", ", gridZ, ") x block (", blockX, ", ", blockY, ", ",
                   blockZ, ") is outside CUDA's limits"),
               "a dxc bug in the GPU lowering: please report it");
    DXRT_DRIVER_CHECK(driver().LaunchKernel(static_cast<CUfunction>(function), unsigned(gridX), unsigned(gridY),
                                            unsigned(gridZ), unsigned(blockX), unsigned(blockY), unsigned(blockZ),
                                            unsigned(smem), static_cast<CUstream>(stream), params, extra));
  });
}

void *mgpuStreamCreate() { return dxrt_cuda_stream(); }

void mgpuStreamDestroy(void * /*stream*/) {}

void mgpuStreamSynchronize(void *stream) {
  if (stream == dxrt_cuda_stream() && !sync_every_launch()) return; // see the top of the file
  guard("mgpuStreamSynchronize", [&] { DXRT_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream))); });
}

// gpu.alloc / gpu.memcpy / gpu.memset / gpu.dealloc. The generated step is
// meant never to allocate (the arena holds everything, DeviceArena.h); these
// exist so that a module that does still runs, and allocate from the stream's
// pool (cudaMallocAsync), which reuses memory instead of calling the driver.
void *mgpuMemAlloc(uint64_t bytes, void *stream, bool isHostShared) {
  void *p = nullptr;
  guard("mgpuMemAlloc", [&] {
    if (bytes == 0) return;
    if (isHostShared) {
      DXRT_CUDA_CHECK(cudaMallocManaged(&p, bytes));
    } else {
      DXRT_CUDA_CHECK(cudaMallocAsync(&p, bytes, static_cast<cudaStream_t>(stream)));
    }
  });
  return p;
}

void mgpuMemFree(void *ptr, void *stream) {
  guard("mgpuMemFree", [&] {
    if (!ptr) return;
    cudaPointerAttributes attr{};
    DXRT_CUDA_CHECK(cudaPointerGetAttributes(&attr, ptr));
    if (attr.type == cudaMemoryTypeManaged) {
      DXRT_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)));
      DXRT_CUDA_CHECK(cudaFree(ptr));
    } else {
      DXRT_CUDA_CHECK(cudaFreeAsync(ptr, static_cast<cudaStream_t>(stream)));
    }
  });
}

void mgpuMemcpy(void *dst, void *src, uint64_t bytes, void *stream) {
  guard("mgpuMemcpy", [&] {
    DXRT_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, static_cast<cudaStream_t>(stream)));
  });
}

void mgpuMemset32(void *dst, unsigned int value, uint64_t count, void *stream) {
  guard("mgpuMemset32", [&] {
    DXRT_DRIVER_CHECK(driver().MemsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value, size_t(count),
                                              static_cast<CUstream>(stream)));
  });
}

} // extern "C"
