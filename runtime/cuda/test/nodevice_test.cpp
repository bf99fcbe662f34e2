// Runs everywhere (registered with CTest): on a machine with no CUDA driver
// or device, selecting the device is a clear dxrt::Error, and a kernel that
// generated code calls ends the process with that message (non-zero, not a
// crash, never a silent CPU run). On a machine with a GPU there is nothing
// to check here and the test is skipped.
#include "common/Check.h"
#include "cuda/Device.h"
#include "cuda/Environment.h"
#include "dxrt/cuda_kernels.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

bool have_device() {
  int count = 0;
  bool ok = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  cudaGetLastError();
  return ok;
}

// The DXRT_CUDA_* variables take what docs/cli.md says, and nothing else.
TEST(Environment, ValuesAreChecked) {
  using dxrt::cuda::env_integer;
  EXPECT_EQ(env_integer("DXRT_CUDA_TF32", nullptr, 0, 1, 0), 0);
  EXPECT_EQ(env_integer("DXRT_CUDA_TF32", "", 0, 1, 0), 0);
  EXPECT_EQ(env_integer("DXRT_CUDA_TF32", "1", 0, 1, 0), 1);
  EXPECT_EQ(env_integer("DXRT_CUDA_CONV_FWD_ALGO", nullptr, 0, 7, -1), -1);
  EXPECT_EQ(env_integer("DXRT_CUDA_CONV_FWD_ALGO", "7", 0, 7, -1), 7);
  EXPECT_EQ(env_integer("DXRT_CUDA_CONV_WORKSPACE_MB", "0", 0, 1 << 30, 1024), 0);
  for (const char *bad : {"yes", "2", "-1", "1x", " 1", "0.5", "99999999999999999999"}) {
    try {
      env_integer("DXRT_CUDA_TF32", bad, 0, 1, 0);
      ADD_FAILURE() << "DXRT_CUDA_TF32=" << bad << " was taken";
    } catch (const dxrt::Error &e) {
      EXPECT_EQ(std::string(e.what()), std::string("DXRT_CUDA_TF32 is '") + bad + "'");
      EXPECT_EQ(e.hint(), "set it to 0 or 1, or leave it unset");
    }
  }
  try {
    env_integer("DXRT_CUDA_CONV_BWD_FILTER_ALGO", "7", 0, 6, -1);
    ADD_FAILURE() << "algorithm 7 of the filter gradient's 0-6 was taken";
  } catch (const dxrt::Error &e) {
    EXPECT_EQ(e.hint(), "set it to an integer from 0 to 6, or leave it unset");
  }
}

// A bad value ends the run when the device is selected, before the GPU is
// touched: the same on a machine with a GPU and without. (A process of its
// own: the values are read once per process.)
TEST(EnvironmentDeathTest, ABadValueEndsTheRunBeforeTheDevice) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("DXRT_CUDA_CONV_LOG", "yes", 1);
        try {
          dxrt::cuda::select_device(0);
        } catch (const dxrt::Error &e) {
          std::fprintf(stderr, "%s\n", dxrt::describe(e).c_str());
          std::_Exit(1);
        }
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(1), "DXRT_CUDA_CONV_LOG is 'yes'.*set it to an integer from 0 to 2");
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
