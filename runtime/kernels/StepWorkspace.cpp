// The workspace of generated step functions: the compiler's memory plan puts
// every activation, gradient and temporary of a step at a fixed offset in it
// (offsets grow with the batch), so steps allocate nothing. It grows only
// when a step needs more than any step before (the first step, or a larger
// batch), and is never returned to the system while the program runs.
#include "dxrt/kernels.h"
#include "kernels/Descriptor.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {
void *g_base = nullptr;
int64_t g_capacity = 0;
int64_t g_grows = 0;
} // namespace

extern "C" void _mlir_ciface_dxrt_workspace(dxrt_memref_i8 *result, int64_t bytes) {
  if (bytes > g_capacity) {
    std::free(g_base);
    // 64-byte aligned, as the plan aligns every buffer to 64 bytes.
    int64_t size = (bytes + 63) / 64 * 64;
    g_base = std::aligned_alloc(64, static_cast<size_t>(size));
    if (!g_base) {
      std::fprintf(stderr, "dxrt: error: cannot allocate the %lld-byte workspace of a training step\n",
                   static_cast<long long>(bytes));
      std::exit(1);
    }
    g_capacity = size;
    ++g_grows;
  }
  dxrt::describe_bytes(result, g_base, g_capacity);
}

extern "C" int64_t dxrt_workspace_grows(void) { return g_grows; }
extern "C" int64_t dxrt_workspace_bytes(void) { return g_capacity; }
