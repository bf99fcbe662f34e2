// The step workspace (StepWorkspace.cpp): 64-byte aligned, grown only when a
// step needs more, and, from 4 MiB, aligned to huge pages and backed
// by them where the kernel's transparent huge pages allow it.
#include "dxrt/kernels.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <malloc.h>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

namespace {

constexpr int64_t kHugePage = 2 << 20;

dxrt_memref_i8 workspace(int64_t bytes) {
  dxrt_memref_i8 m{};
  _mlir_ciface_dxrt_workspace(&m, bytes);
  return m;
}

// The kernel's transparent-huge-page mode: "always", "madvise", "never", or
// "" where the file is absent (not Linux, or a kernel without THP).
std::string thpMode() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (!std::getline(f, line)) return "";
  auto open = line.find('['), close = line.find(']');
  return open == std::string::npos || close == std::string::npos ? "" : line.substr(open + 1, close - open - 1);
}

// AnonHugePages (kB) of the mapping of /proc/self/smaps that contains p.
int64_t hugePagesKbAt(const void *p) {
  std::ifstream f("/proc/self/smaps");
  std::string line;
  const auto addr = reinterpret_cast<uintptr_t>(p);
  bool inside = false;
  while (std::getline(f, line)) {
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find(':') > line.find('-')) {
      inside = lo <= addr && addr < hi;
      continue;
    }
    long kb = 0;
    if (inside && std::sscanf(line.c_str(), "AnonHugePages: %ld kB", &kb) == 1) return kb;
  }
  return -1;
}

// Writes every page of p, a write the compiler cannot drop before a free.
void touch(void *p, size_t bytes) {
  std::memset(p, 2, bytes);
  asm volatile("" : : "r"(p) : "memory");
}

} // namespace

TEST(Workspace, SmallIsAlignedTo64BytesAndReused) {
  dxrt_memref_i8 a = workspace(1000);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a.aligned) % 64, 0u);
  EXPECT_GE(a.sizes[0], 1000);
  const int64_t grows = dxrt_workspace_grows();
  dxrt_memref_i8 b = workspace(500);
  EXPECT_EQ(a.aligned, b.aligned);
  EXPECT_EQ(dxrt_workspace_grows(), grows);
}

// Grows the workspace past its capacity to at least `extra` more bytes and
// checks the block: 2 MiB-aligned, whole huge pages, and backed by huge pages
// where the kernel's THP mode allows it.
void expectHugePageBlock(int64_t extra) {
  const int64_t bytes = dxrt_workspace_bytes() + extra;
  dxrt_memref_i8 w = workspace(bytes);
  ASSERT_NE(w.aligned, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(w.aligned) % kHugePage, 0u);
  EXPECT_EQ(w.sizes[0] % kHugePage, 0);
  EXPECT_GE(w.sizes[0], bytes);
  std::memset(w.aligned, 1, static_cast<size_t>(w.sizes[0])); // fault the pages in
  const std::string mode = thpMode();
  if (mode != "always" && mode != "madvise")
    GTEST_SKIP() << "transparent huge pages are '" << mode << "' here: only the alignment is checked";
  EXPECT_GT(hugePagesKbAt(w.aligned), 0) << "THP mode " << mode << ": the workspace got no huge page";
}

TEST(Workspace, LargeIsAlignedToHugePagesAndBackedByThemWhereAllowed) { expectHugePageBlock(3 * kHugePage + 100); }

// After a program frees a large block (a dataset's decompression buffer),
// glibc raises its mmap threshold to that block's size (up to 32 MiB) and
// serves later large mallocs from heap pages already touched, which stay
// 4 KiB pages: the workspace must not come from there. (The test sets the
// thresholds glibc would reach, as the libraries linked here may have set
// their own.)
TEST(Workspace, LargeGetsHugePagesAfterTheHeapServedLargeBlocks) {
  ASSERT_EQ(mallopt(M_MMAP_THRESHOLD, 32 << 20), 1);
  ASSERT_EQ(mallopt(M_TRIM_THRESHOLD, 64 << 20), 1);
  void *touched = std::malloc(28 << 20); // from the heap
  ASSERT_NE(touched, nullptr);
  touch(touched, 28 << 20);
  std::free(touched); // stays in the heap, its pages 4 KiB pages
  expectHugePageBlock(5 * kHugePage + 100);
  mallopt(M_MMAP_THRESHOLD, 128 << 10); // glibc's defaults
  mallopt(M_TRIM_THRESHOLD, 128 << 10);
}
