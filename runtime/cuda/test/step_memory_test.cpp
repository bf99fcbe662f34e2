// The step's device workspace and the loss read-back that code compiled with
// --target=cuda calls (runtime/cuda/StepMemory.cpp).
#include "GpuTestUtil.h"
#include "dxrt/cuda_kernels.h"

using namespace dxtest;

namespace {

TEST(StepMemory, WorkspaceGrowsOnlyWhenAStepNeedsMore) {
  dxrt_memref_i8 a{}, b{}, c{};
  _mlir_ciface_dxrt_cuda_workspace(&a, 1000);
  const int64_t grows1 = dxrt_cuda_workspace_grows();
  EXPECT_GE(grows1, 1);
  ASSERT_NE(a.aligned, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a.aligned) % 256, 0u);
  EXPECT_GE(a.sizes[0], 1000);
  EXPECT_EQ(a.strides[0], 1);
  _mlir_ciface_dxrt_cuda_workspace(&b, 600); // a smaller step: the same buffer
  EXPECT_EQ(b.aligned, a.aligned);
  EXPECT_EQ(dxrt_cuda_workspace_grows(), grows1);
  _mlir_ciface_dxrt_cuda_workspace(&c, a.sizes[0] + 1); // larger: grows once
  EXPECT_EQ(dxrt_cuda_workspace_grows(), grows1 + 1);
  EXPECT_EQ(dxrt_cuda_workspace_bytes(), c.sizes[0]);
  EXPECT_GE(c.sizes[0], a.sizes[0] + 1);
  // The device memory is usable for the whole size.
  DXRT_CUDA_CHECK(cudaMemset(c.aligned, 7, size_t(c.sizes[0])));
  std::vector<int8_t> back(size_t(c.sizes[0]));
  DXRT_CUDA_CHECK(cudaMemcpy(back.data(), c.aligned, back.size(), cudaMemcpyDeviceToHost));
  EXPECT_TRUE(std::all_of(back.begin(), back.end(), [](int8_t v) { return v == 7; }));
}

TEST(StepMemory, ReadF32ReturnsTheDeviceScalarAtItsOffset) {
  DeviceVec v(std::vector<float>{1.5f, -2.25f, 3.0f});
  dxrt_memref0_f32 s{v.p, v.p, 1};
  EXPECT_EQ(_mlir_ciface_dxrt_cuda_read_f32(&s), -2.25f);
  s.offset = 2;
  EXPECT_EQ(_mlir_ciface_dxrt_cuda_read_f32(&s), 3.0f);
}

} // namespace
