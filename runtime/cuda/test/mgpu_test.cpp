// The mgpu* shim, called as MLIR 19's gpu-to-llvm host code calls it, on a
// hand-written PTX kernel (add_one.ptx; ctest's dxrt_cuda_ptxas checks that
// ptxas takes it).
#include "AddOnePtx.h"
#include "GpuTestUtil.h"
#include "dxrt/cuda_kernels.h"

#include <cstdint>

extern "C" {
void *mgpuModuleLoad(void *data, uint64_t gpuBlobSize);
void *mgpuModuleLoadJIT(void *data, int optLevel);
void mgpuModuleUnload(void *module);
void *mgpuModuleGetFunction(void *module, const char *name);
void mgpuLaunchKernel(void *function, int64_t gridX, int64_t gridY, int64_t gridZ, int64_t blockX, int64_t blockY,
                      int64_t blockZ, int32_t smem, void *stream, void **params, void **extra, int64_t paramsCount);
void *mgpuStreamCreate();
void mgpuStreamSynchronize(void *stream);
void mgpuStreamDestroy(void *stream);
void *mgpuMemAlloc(uint64_t bytes, void *stream, bool isHostShared);
void mgpuMemFree(void *ptr, void *stream);
void mgpuMemcpy(void *dst, void *src, uint64_t bytes, void *stream);
void mgpuMemset32(void *dst, unsigned int value, uint64_t count, void *stream);
}

using namespace dxtest;

namespace {

void run_add_one(void *module, int64_t n) {
  std::vector<float> host = random_floats(size_t(n), 5);
  DeviceVec d(host);
  void *f = mgpuModuleGetFunction(module, "add_one");
  ASSERT_NE(f, nullptr);
  void *stream = mgpuStreamCreate();
  // As the lowering passes them: an array of pointers to each argument.
  float *p = d.p;
  int64_t count = n;
  void *params[] = {&p, &count};
  int64_t block = 128, grid = (n + block - 1) / block;
  mgpuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, stream, params, nullptr, 2);
  mgpuStreamSynchronize(stream);
  mgpuStreamDestroy(stream);
  std::vector<float> got = d.get();
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], host[i] + 1.0f) << i;
}

TEST(Mgpu, LoadsPtxAndLaunches) {
  void *m = mgpuModuleLoad(const_cast<char *>(kAddOnePtx), sizeof kAddOnePtx);
  ASSERT_NE(m, nullptr);
  run_add_one(m, 1000);
  // The same blob is loaded once: the lowering loads and unloads it around every launch.
  EXPECT_EQ(mgpuModuleLoad(const_cast<char *>(kAddOnePtx), sizeof kAddOnePtx), m);
  mgpuModuleUnload(m);
  run_add_one(m, 1);
}

TEST(Mgpu, LoadJitCompilesPtx) {
  static char copy[sizeof kAddOnePtx]; // another address: another module
  std::copy(kAddOnePtx, kAddOnePtx + sizeof kAddOnePtx, copy);
  void *m = mgpuModuleLoadJIT(copy, 2);
  ASSERT_NE(m, nullptr);
  run_add_one(m, 4097);
}

TEST(Mgpu, StreamIsTheLibrarys) {
  void *s = mgpuStreamCreate();
  EXPECT_EQ(s, dxrt_cuda_stream());
  mgpuStreamDestroy(s); // leaves it alone
  mgpuStreamSynchronize(dxrt_cuda_stream());
}

TEST(Mgpu, AllocCopySetFree) {
  void *stream = mgpuStreamCreate();
  const uint64_t n = 1000;
  auto *d = static_cast<float *>(mgpuMemAlloc(n * sizeof(float), stream, false));
  ASSERT_NE(d, nullptr);
  mgpuMemset32(d, 0x3F800000u /* 1.0f */, n, stream);
  std::vector<float> h(n, 0.0f);
  mgpuMemcpy(h.data(), d, n * sizeof(float), stream);
  mgpuStreamSynchronize(stream);
  for (float v : h) ASSERT_EQ(v, 1.0f);
  std::vector<float> src = random_floats(n, 9);
  mgpuMemcpy(d, src.data(), n * sizeof(float), stream);
  mgpuMemcpy(h.data(), d, n * sizeof(float), stream);
  mgpuStreamSynchronize(stream);
  EXPECT_EQ(h, src);
  mgpuMemFree(d, stream);
  mgpuStreamSynchronize(stream);
}

} // namespace
