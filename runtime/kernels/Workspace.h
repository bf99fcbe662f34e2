// Scratch memory for kernels (im2col columns, oneDNN's blocked copies and
// scratchpads). It grows on first use and is then reused, so a training step
// allocates nothing after the first one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace dxrt {

// The buffers a kernel needs at the same time, one slot each. Kernels run one
// after another, so every kernel may use every slot.
enum WorkspaceSlot : int {
  kSlotColumns = 0,  // im2col columns
  kSlotSrc,          // oneDNN: x or dx in the primitive's layout
  kSlotWeights,      // oneDNN: w or dw in the primitive's layout
  kSlotDst,          // oneDNN: y or dy in the primitive's layout
  kSlotScratchpad,   // oneDNN: the primitive's scratchpad (scratchpad_mode::user)
  kSlotGemmA,        // bf16 precision: the rounded copy of a product's A (Matmul.cpp)
  kSlotGemmB,        // bf16 precision: the rounded copy of a product's B
  kSlotNchwX,        // _blocked kernels off oneDNN: x or dx in NCHW (Conv2dBlocked.cpp)
  kSlotNchwY,        // _blocked kernels off oneDNN: y or dy in NCHW
  kSlotWideX,        // bf16 twins off oneDNN: their bf16 x widened to fp32 (Bf16Input.h)
  kSlotWideDy,       // bf16 twins off oneDNN: their bf16 dy widened to fp32
  kWorkspaceSlots,
};

// A per-thread buffer of at least n floats, 64-byte aligned (AVX-512 rows,
// oneDNN's blocked layouts).
inline float *workspace(size_t n, int slot = kSlotColumns) {
  thread_local std::vector<float> buffers[kWorkspaceSlots];
  std::vector<float> &b = buffers[slot];
  const size_t slack = 64 / sizeof(float);
  if (b.size() < n + slack) b.resize(n + slack);
  uintptr_t p = reinterpret_cast<uintptr_t>(b.data());
  return reinterpret_cast<float *>((p + 63) & ~uintptr_t(63));
}

} // namespace dxrt
