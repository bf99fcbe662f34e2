#pragma once

// The offline placement behind dx-plan-memory (PlanMemory.cpp), free of MLIR:
// buffers with a size and a live range give offsets in one arena such that
// buffers live at the same time never overlap, in as small an arena as the
// heuristics below find.
#include <cstdint>
#include <vector>

namespace dx {

struct PackItem {
  int64_t bytes = 0;            // a multiple of the alignment
  unsigned first = 0, last = 0; // live from op `first` to op `last`, both included
  int64_t offset = 0;           // the result
};

// Places `items` (sets each offset) and returns the arena's size. Greedy
// placement is a heuristic (the problem is NP-hard), and which greedy order
// wins depends on the program: the buffers are placed in several orders
// (largest first, longest-lived first, largest size x lifetime first,
// earliest first), each at the lowest offset that fits (first fit) and in
// the smallest gap that fits (best fit), and the smallest arena is kept. The
// first candidate is largest-first first-fit; the search stops early at the
// lower bound, the most bytes live at one time.
int64_t packBuffers(std::vector<PackItem> &items);

// The most bytes live at one time: no placement needs less.
int64_t peakLiveBytes(const std::vector<PackItem> &items);

} // namespace dx
