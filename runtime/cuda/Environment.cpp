#include "cuda/Environment.h"
#include "common/Check.h"

#include <cudnn.h>

#include <cerrno>
#include <cstdlib>

namespace dxrt::cuda {

int64_t env_integer(const char *name, const char *value, int64_t lo, int64_t hi, int64_t fallback) {
  if (!value || !*value) return fallback;
  errno = 0;
  char *end = nullptr;
  long long v = std::strtoll(value, &end, 10);
  // strtoll also skips leading blanks and takes a '+': a value is digits alone.
  bool digits = (value[0] >= '0' && value[0] <= '9') || value[0] == '-';
  bool ok = digits && errno == 0 && end && *end == '\0' && v >= lo && v <= hi;
  DXRT_CHECK(ok, str(name, " is '", value, "'"),
             hi == lo + 1 ? str("set it to ", lo, " or ", hi, ", or leave it unset")
                          : str("set it to an integer from ", lo, " to ", hi, ", or leave it unset"));
  return v;
}

const Environment &environment() {
  static const Environment env = [] {
    Environment e;
    auto read = [](const char *name, int64_t lo, int64_t hi, int64_t fallback) {
      return env_integer(name, std::getenv(name), lo, hi, fallback);
    };
    e.tf32 = read("DXRT_CUDA_TF32", 0, 1, 0) == 1;
    e.sync = read("DXRT_CUDA_SYNC", 0, 1, 0) == 1;
    e.conv_log = int(read("DXRT_CUDA_CONV_LOG", 0, 2, 0));
    e.conv_workspace_mb = read("DXRT_CUDA_CONV_WORKSPACE_MB", 0, int64_t(1) << 30, 1024);
    e.conv_algo[0] = int(read("DXRT_CUDA_CONV_FWD_ALGO", 0, CUDNN_CONVOLUTION_FWD_ALGO_COUNT - 1, -1));
    e.conv_algo[1] = int(read("DXRT_CUDA_CONV_BWD_DATA_ALGO", 0, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT - 1, -1));
    e.conv_algo[2] = int(read("DXRT_CUDA_CONV_BWD_FILTER_ALGO", 0, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT - 1, -1));
    return e;
  }();
  return env;
}

} // namespace dxrt::cuda
