// memrefCopy: the copy that MLIR's memref-to-LLVM lowering calls for a
// memref.copy between non-contiguous memrefs (e.g. into the slice of a
// concatenation). MLIR ships it in libmlir_c_runner_utils; libdxrt provides it
// so that executables need no MLIR library. Same ABI as MLIR's CRunnerUtils:
// unranked descriptors {rank, ranked descriptor*}, where a ranked descriptor
// is {allocated, aligned, offset, sizes[rank], strides[rank]}.
#include <cstdint>
#include <cstring>

namespace {

struct Unranked {
  int64_t rank;
  void *descriptor;
};

struct View {
  char *base;
  const int64_t *sizes, *strides;
};

View viewOf(const Unranked *m, int64_t elemSize) {
  auto *d = static_cast<char *>(m->descriptor);
  char *aligned;
  int64_t offset;
  std::memcpy(&aligned, d + sizeof(void *), sizeof(void *));
  std::memcpy(&offset, d + 2 * sizeof(void *), sizeof(int64_t));
  auto *sizes = reinterpret_cast<const int64_t *>(d + 2 * sizeof(void *) + sizeof(int64_t));
  return {aligned + offset * elemSize, sizes, sizes + m->rank};
}

} // namespace

extern "C" void memrefCopy(int64_t elemSize, Unranked *src, Unranked *dst) {
  int64_t rank = src->rank;
  View s = viewOf(src, elemSize), d = viewOf(dst, elemSize);
  for (int64_t k = 0; k < rank; ++k)
    if (s.sizes[k] == 0) return;
  if (rank == 0) {
    std::memcpy(d.base, s.base, elemSize);
    return;
  }
  // An odometer over all dims but the last; the last is a strided row.
  int64_t index[16] = {0};
  if (rank > 16) __builtin_trap();
  int64_t n = s.sizes[rank - 1], ss = s.strides[rank - 1] * elemSize, ds = d.strides[rank - 1] * elemSize;
  for (;;) {
    char *sp = s.base, *dp = d.base;
    for (int64_t k = 0; k + 1 < rank; ++k) {
      sp += index[k] * s.strides[k] * elemSize;
      dp += index[k] * d.strides[k] * elemSize;
    }
    if (ss == elemSize && ds == elemSize) std::memcpy(dp, sp, n * elemSize);
    else
      for (int64_t i = 0; i < n; ++i) std::memcpy(dp + i * ds, sp + i * ss, elemSize);
    int64_t k = rank - 2;
    for (; k >= 0; --k) {
      if (++index[k] < s.sizes[k]) break;
      index[k] = 0;
    }
    if (k < 0) return;
  }
}
