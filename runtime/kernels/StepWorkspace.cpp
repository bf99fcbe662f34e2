// The workspace of generated step functions: the compiler's memory plan puts
// every activation, gradient and temporary of a step at a fixed offset in it
// (offsets grow with the batch), so steps allocate nothing. It grows only
// when a step needs more than any step before (the first step, or a larger
// batch), and is never returned to the system while the program runs.
#include "dxrt/kernels.h"
#include "kernels/Descriptor.h"

#include "common/HugePages.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {
// One per thread: the trainer steps on one thread, and the inference library
// (dxrt/infer.h) may evaluate separate models on separate threads at once.
struct Workspace {
  void *base = nullptr;
  int64_t capacity = 0, grows = 0;
  void release() { // a block from kHugePagesFrom on is hugePageBlock's, else aligned_alloc's
    if (capacity >= static_cast<int64_t>(dxrt::kHugePagesFrom))
      dxrt::freeHugePageBlock(base, static_cast<std::size_t>(capacity));
    else std::free(base);
    base = nullptr;
  }
  ~Workspace() { release(); }
};
thread_local Workspace g_ws;
} // namespace

extern "C" void _mlir_ciface_dxrt_workspace(dxrt_memref_i8 *result, int64_t bytes) {
  Workspace &w = g_ws;
  if (bytes > w.capacity) {
    w.release();
    // 64-byte aligned, as the plan aligns every buffer to 64 bytes. From 4
    // MiB (a batch's activations) it is a block of transparent huge pages:
    // the step's loops stream through tens of megabytes, and with 4 KiB pages
    // every 4 KiB of each stream costs a TLB miss and a page walk. Measured
    // on one core (AVX-512 EPYC, THP "madvise"), the generated code of a
    // Fashion CNN step took 1.67-1.76 instead of 1.99-2.20 ms, the
    // microscopy CNN's 5.6-5.8 instead of 7.1-10.1 ms.
    std::size_t size = static_cast<std::size_t>((bytes + 63) / 64 * 64);
    w.base = size >= dxrt::kHugePagesFrom ? dxrt::hugePageBlock(size, &size) : std::aligned_alloc(64, size);
    if (!w.base) {
      std::fprintf(stderr, "dxrt: error: cannot allocate the %lld-byte workspace of a training step\n",
                   static_cast<long long>(bytes));
      std::exit(1);
    }
    w.capacity = static_cast<int64_t>(size);
    ++w.grows;
  }
  dxrt::describe_bytes(result, w.base, w.capacity);
}

extern "C" int64_t dxrt_workspace_grows(void) { return g_ws.grows; }
extern "C" int64_t dxrt_workspace_bytes(void) { return g_ws.capacity; }
