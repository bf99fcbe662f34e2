#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

namespace dxrt {

constexpr std::size_t kHugePage = std::size_t(2) << 20;
// From this size on, HugePageAllocator and the step workspace use huge-page blocks.
constexpr std::size_t kHugePagesFrom = std::size_t(4) << 20;

// `bytes` rounded up to whole huge pages, 2 MiB-aligned and advised for
// transparent huge pages before its first touch (madvise(MADV_HUGEPAGE):
// what Linux's default THP setting, "madvise", asks for; where THP is off,
// the advice is ignored and the memory is ordinary). Null when out of
// memory; freeHugePageBlock(p, bytes) releases it.
//
// A mapping of its own, not malloc: after a program has freed large blocks
// (a dataset's decompression buffers), glibc raises its mmap threshold and
// serves the next large request from heap pages already touched, which
// stay 4 KiB pages whatever the advice says.
inline std::size_t wholeHugePages(std::size_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }

inline void *hugePageBlock(std::size_t bytes, std::size_t *rounded = nullptr) {
  const std::size_t size = wholeHugePages(bytes);
  if (size < bytes) return nullptr; // wrapped around
  // Map one huge page more and unmap what lies before the first 2 MiB
  // boundary and after the block.
  const std::size_t span = size + kHugePage;
  if (span < size) return nullptr;
  void *m = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return nullptr;
  const auto start = reinterpret_cast<std::uintptr_t>(m);
  const std::uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
  if (aligned > start) munmap(m, aligned - start);
  const std::size_t tail = start + span - (aligned + size);
  if (tail > 0) munmap(reinterpret_cast<void *>(aligned + size), tail);
  void *p = reinterpret_cast<void *>(aligned);
  madvise(p, size, MADV_HUGEPAGE); // advice: ignored where THP is off
  if (rounded) *rounded = size;
  return p;
}

// Releases a block of hugePageBlock(bytes) (bytes as asked, or as rounded).
inline void freeHugePageBlock(void *p, std::size_t bytes) {
  if (p) munmap(p, wholeHugePages(bytes));
}

// An allocator for large arrays read at random a piece at a time (a dataset
// held in memory, a batch gathered from samples all over it): from 4 MiB,
// the memory is 2 MiB-aligned and advised for transparent huge pages before
// its first touch (hugePageBlock). Each sample read then costs no page walk:
// gathering the 64 random Fashion-MNIST samples of a batch (3 KiB each from
// 188 MB) took 0.035 instead of 0.058 ms here, 4% of the MLP's step.
template <class T> struct HugePageAllocator {
  using value_type = T;

  HugePageAllocator() = default;
  template <class U> HugePageAllocator(const HugePageAllocator<U> &) {}

  T *allocate(std::size_t n) {
    if (n > std::size_t(-1) / sizeof(T)) throw std::bad_alloc();
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugePagesFrom) return static_cast<T *>(::operator new(bytes));
    void *p = hugePageBlock(bytes);
    if (!p) throw std::bad_alloc();
    return static_cast<T *>(p);
  }
  void deallocate(T *p, std::size_t n) {
    if (n * sizeof(T) < kHugePagesFrom) ::operator delete(p);
    else freeHugePageBlock(p, n * sizeof(T));
  }
  template <class U> bool operator==(const HugePageAllocator<U> &) const { return true; }
  template <class U> bool operator!=(const HugePageAllocator<U> &) const { return false; }
};

// The floats of a dataset held in memory.
using SampleFloats = std::vector<float, HugePageAllocator<float>>;

} // namespace dxrt
