// Helpers for the GPU tests: device buffers, random data, descriptors, and
// comparisons against libdxrt's CPU kernels.
#pragma once

#include "cuda/Check.h"
#include "test/TestUtil.h" // random_floats
#include "dxrt/kernels.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace dxtest {

// A device copy of a host vector, freed at the end of the test.
struct DeviceVec {
  float *p = nullptr;
  size_t n = 0;
  explicit DeviceVec(const std::vector<float> &host) : n(host.size()) {
    DXRT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void **>(&p), std::max<size_t>(n, 1) * sizeof(float)));
    if (n) DXRT_CUDA_CHECK(cudaMemcpy(p, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  }
  // n elements of a value nothing writes, so that unwritten outputs show.
  explicit DeviceVec(size_t count, float fill = 12345.0f) : DeviceVec(std::vector<float>(count, fill)) {}
  DeviceVec(const DeviceVec &) = delete;
  DeviceVec &operator=(const DeviceVec &) = delete;
  ~DeviceVec() { cudaFree(p); }
  std::vector<float> get() const {
    std::vector<float> h(n);
    DXRT_CUDA_CHECK(cudaDeviceSynchronize());
    if (n) DXRT_CUDA_CHECK(cudaMemcpy(h.data(), p, n * sizeof(float), cudaMemcpyDeviceToHost));
    return h;
  }
};

inline dxrt_memref2 m2(float *p, int64_t r, int64_t c) { return {p, p, 0, {r, c}, {c, 1}}; }
inline dxrt_memref4 m4(float *p, int64_t a, int64_t b, int64_t c, int64_t d) {
  return {p, p, 0, {a, b, c, d}, {b * c * d, c * d, d, 1}};
}
inline dxrt_memref5 m5(float *p, int64_t a, int64_t b, int64_t c, int64_t d, int64_t e) {
  return {p, p, 0, {a, b, c, d, e}, {b * c * d * e, c * d * e, d * e, e, 1}};
}

// Whether this machine has a CUDA device (and driver): the suites that skip
// without one (GTEST_SKIP) run cleanly on the build machine too.
inline bool have_device() {
  int count = 0;
  bool ok = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  cudaGetLastError();
  return ok;
}

// Float results of different summation orders: the largest difference
// relative to the reference's scale.
inline void expect_close(const std::vector<float> &gpu, const std::vector<float> &cpu, double rel = 1e-4) {
  ASSERT_EQ(gpu.size(), cpu.size());
  double scale = 1.0, worst = 0.0;
  size_t at = 0;
  for (float c : cpu) scale = std::max(scale, double(std::fabs(c)));
  for (size_t i = 0; i < cpu.size(); ++i) {
    double d = std::fabs(double(gpu[i]) - double(cpu[i]));
    if (!(d <= worst)) { // NaN too
      worst = d;
      at = i;
    }
  }
  EXPECT_LE(worst, rel * scale) << "at element " << at << ": gpu " << gpu[at] << ", cpu " << cpu[at];
}

// The same values (NaN matches NaN; +0 matches -0).
inline void expect_same(const std::vector<float> &gpu, const std::vector<float> &cpu) {
  ASSERT_EQ(gpu.size(), cpu.size());
  for (size_t i = 0; i < cpu.size(); ++i)
    if (!(gpu[i] == cpu[i] || (std::isnan(gpu[i]) && std::isnan(cpu[i])))) {
      ADD_FAILURE() << "element " << i << ": gpu " << gpu[i] << ", cpu " << cpu[i];
      return;
    }
}

} // namespace dxtest
