// Runs everywhere (registered with CTest): on a machine with no CUDA driver
// or device, selecting the device is a clear dxrt::Error, and a kernel that
// generated code calls ends the process with that message (non-zero, not a
// crash, never a silent CPU run). On a machine with a GPU there is nothing
// to check here and the test is skipped.
#include "common/Check.h"
#include "cuda/Device.h"
#include "dxrt/cuda_kernels.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <csignal>
#include <string>

namespace {

bool have_device() {
  int count = 0;
  bool ok = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  cudaGetLastError();
  return ok;
}

TEST(NoDevice, SelectingTheDeviceIsAClearError) {
  if (have_device()) GTEST_SKIP() << "this machine has a CUDA device";
  try {
    dxrt::cuda::select_device(0);
    FAIL() << "select_device succeeded without a device";
  } catch (const dxrt::Error &e) {
    std::string what = e.what();
    EXPECT_NE(what.find("no CUDA device or driver is available: cudaGetDeviceCount: "), std::string::npos) << what;
    EXPECT_NE(what.find("never falls back to the CPU"), std::string::npos) << what;
    EXPECT_NE(e.hint().find("nvidia-smi"), std::string::npos) << e.hint();
    EXPECT_NE(e.file().find("Device.cpp"), std::string::npos);
    std::printf("the error, as the driver prints it:\n%s\n", dxrt::describe(e).c_str());
  }
  // Asking again gives the same answer (nothing half-initialised).
  EXPECT_THROW(dxrt::cuda::current_device(), dxrt::Error);
}

TEST(NoDevice, AKernelCallEndsTheProcessWithTheMessage) {
  if (have_device()) GTEST_SKIP() << "this machine has a CUDA device";
  float x[6] = {}, w[6] = {}, y[4] = {};
  dxrt_memref2 xd = {x, x, 0, {2, 3}, {3, 1}}, wd = {w, w, 0, {2, 3}, {3, 1}}, yd = {y, y, 0, {2, 2}, {2, 1}};
  EXPECT_DEATH(_mlir_ciface_dxrt_cuda_dense_forward(&xd, &wd, &yd),
               "dxrt_cuda_dense_forward: no CUDA device or driver is available");
}

// The 3-D kernels too: their shape checks pass, then the device is missing
// (the max-pooling gradient asks for scratch first).
TEST(NoDevice, A3dKernelCallEndsTheProcessWithTheMessage) {
  if (have_device()) GTEST_SKIP() << "this machine has a CUDA device";
  float x[2 * 4 * 4 * 4] = {}, w[3 * 2 * 27] = {}, y[3 * 8] = {}, dx[2 * 4 * 4 * 4] = {}, dy[2 * 8] = {};
  dxrt_memref5 xd = {x, x, 0, {1, 2, 4, 4, 4}, {128, 64, 16, 4, 1}},
               wd = {w, w, 0, {3, 2, 3, 3, 3}, {54, 27, 9, 3, 1}}, yd = {y, y, 0, {1, 3, 2, 2, 2}, {24, 8, 4, 2, 1}},
               dxd = {dx, dx, 0, {1, 2, 4, 4, 4}, {128, 64, 16, 4, 1}},
               dyd = {dy, dy, 0, {1, 2, 2, 2, 2}, {16, 8, 4, 2, 1}};
  EXPECT_DEATH(_mlir_ciface_dxrt_cuda_conv3d_forward(&xd, &wd, &yd, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1),
               "dxrt_cuda_conv3d_forward: no CUDA device or driver is available");
  EXPECT_DEATH(_mlir_ciface_dxrt_cuda_pool3d_grad(&dyd, &xd, &dxd, 0, 2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0),
               "dxrt_cuda_pool3d_grad: no CUDA device or driver is available");
}

} // namespace
