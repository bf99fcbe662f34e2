// The environment variables libdxrt_cuda reads (docs/cli.md, "Environment
// of the executable"), read once and checked: a value a variable
// does not take is a dxrt::Error naming the variable, its value and what it
// takes. select_device() reads them first, so a bad value ends the run at
// start (exit 1), before anything is allocated on the GPU.
#pragma once

#include <cstdint>

namespace dxrt::cuda {

struct Environment {
  bool tf32 = false;                 // DXRT_CUDA_TF32: 0 | 1 (TF32 tensor cores for float products)
  bool sync = false;                 // DXRT_CUDA_SYNC: 0 | 1 (wait after every kernel)
  int conv_log = 0;                  // DXRT_CUDA_CONV_LOG: 0 | 1 (each plan's algorithm) | 2 (and the search)
  int64_t conv_workspace_mb = 1024;  // DXRT_CUDA_CONV_WORKSPACE_MB: >= 0
  int conv_algo[3] = {-1, -1, -1};   // DXRT_CUDA_CONV_{FWD,BWD_DATA,BWD_FILTER}_ALGO: an algorithm number
                                     // of cuDNN's enum (0-7, 0-5, 0-6), preferred where acceptable; -1 unset
};

// The process's values, read and checked at the first call.
const Environment &environment();

// One variable: `value` (nullptr or empty: `fallback`) as an integer in
// [lo, hi], else a dxrt::Error naming `name`. For environment() and its test.
int64_t env_integer(const char *name, const char *value, int64_t lo, int64_t hi, int64_t fallback);

} // namespace dxrt::cuda
