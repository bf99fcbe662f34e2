// The device arena (one allocation, aligned slices, zero-filled) and the
// double-buffered batch stager.
#include "GpuTestUtil.h"
#include "cuda/Context.h"
#include "cuda/Device.h"
#include "cuda/DeviceArena.h"
#include "cuda/Staging.h"

#include <cstring>

using namespace dxrt::cuda;

namespace {

TEST(DeviceArena, SlicesAreAlignedDisjointAndZero) {
  DeviceArena a;
  std::vector<size_t> sizes = {4, 1000, 0, 256, 257, size_t(3) << 20};
  std::vector<int> ids;
  for (size_t i = 0; i < sizes.size(); ++i) ids.push_back(a.reserve("slice" + std::to_string(i), sizes[i]));
  a.allocate();
  ASSERT_TRUE(a.allocated());
  for (size_t i = 0; i < ids.size(); ++i) {
    auto p = reinterpret_cast<uintptr_t>(a.at(ids[i]));
    EXPECT_EQ(p % DeviceArena::kAlign, 0u) << a.name(ids[i]);
    if (i + 1 < ids.size()) {
      EXPECT_LE(p + sizes[i], reinterpret_cast<uintptr_t>(a.at(ids[i + 1])));
    }
  }
  // Zero-filled, and each slice keeps what is written to it.
  for (size_t i = 0; i < ids.size(); ++i) {
    std::vector<unsigned char> h(sizes[i], 0xAB);
    if (h.empty()) continue;
    std::vector<unsigned char> z(sizes[i], 0xFF);
    DXRT_CUDA_CHECK(cudaMemcpy(z.data(), a.at(ids[i]), sizes[i], cudaMemcpyDeviceToHost));
    EXPECT_TRUE(std::all_of(z.begin(), z.end(), [](unsigned char c) { return c == 0; })) << a.name(ids[i]);
    DXRT_CUDA_CHECK(cudaMemset(a.at(ids[i]), int(i + 1), sizes[i]));
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    if (!sizes[i]) continue;
    std::vector<unsigned char> z(sizes[i]);
    DXRT_CUDA_CHECK(cudaMemcpy(z.data(), a.at(ids[i]), sizes[i], cudaMemcpyDeviceToHost));
    EXPECT_TRUE(std::all_of(z.begin(), z.end(), [&](unsigned char c) { return c == i + 1; })) << a.name(ids[i]);
  }
  EXPECT_THROW(a.reserve("late", 4), dxrt::Error);
}

TEST(DeviceArena, TooLargeIsAClearError) {
  DeviceArena a;
  a.reserve("activations", size_t(1) << 50); // 1 PiB
  try {
    a.allocate();
    FAIL() << "a 1 PiB arena was allocated";
  } catch (const dxrt::Error &e) {
    EXPECT_NE(std::string(e.what()).find("GPU memory"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("activations"), std::string::npos) << e.what();
  }
}

// Eight steps through two slots: each step copies its batch (the device slot)
// into its own output row on the compute stream; every row must hold the
// batch of its step, whatever the overlap.
TEST(BatchStager, DoubleBufferedUploadsReachTheirSteps) {
  const size_t floats = size_t(1) << 20, bytes = floats * sizeof(float);
  const int steps = 8;
  DeviceArena a;
  int s0 = a.reserve("batch0", bytes), s1 = a.reserve("batch1", bytes), out = a.reserve("out", bytes * steps);
  a.allocate();
  cudaStream_t compute = static_cast<cudaStream_t>(dxrt_cuda_stream());
  BatchStager st(a, s0, s1, bytes, compute);
  auto *rows = static_cast<char *>(a.at(out));
  for (int step = 0; step < steps; ++step) {
    int slot = step % 2;
    auto *h = static_cast<float *>(st.host(slot));
    std::fill(h, h + floats, float(step + 1));
    st.upload(slot);
    void *d = st.acquire(slot);
    DXRT_CUDA_CHECK(cudaMemcpyAsync(rows + size_t(step) * bytes, d, bytes, cudaMemcpyDeviceToDevice, compute));
    st.release(slot);
  }
  dxrt_cuda_synchronize();
  std::vector<float> back(floats * steps);
  DXRT_CUDA_CHECK(cudaMemcpy(back.data(), rows, bytes * steps, cudaMemcpyDeviceToHost));
  for (int step = 0; step < steps; ++step)
    for (size_t i = 0; i < floats; i += 4099) ASSERT_EQ(back[size_t(step) * floats + i], float(step + 1)) << step;
}

} // namespace

namespace {

TEST(Device, SelectsAndDescribes) {
  const Device &d = select_device(0);
  std::printf("%s\n", describe(d).c_str());
  EXPECT_GE(d.major * 10 + d.minor, 75);
  EXPECT_EQ(&current_device(), &d);
}

} // namespace
