#include "lowering/PackBuffers.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <utility>

namespace dx {
namespace {

bool overlapInTime(const PackItem &a, const PackItem &b) { return !(a.last < b.first || b.last < a.first); }

// One greedy pass in the order `order`: each buffer at the lowest offset that
// fits among the placed buffers live with it (bestFit: in the smallest gap
// that fits, else above them all). Returns the arena's size.
int64_t place(std::vector<PackItem> &items, const std::vector<size_t> &order, bool bestFit) {
  std::vector<size_t> placed;
  placed.reserve(order.size());
  int64_t total = 0;
  std::vector<std::pair<int64_t, int64_t>> taken;
  for (size_t i : order) {
    PackItem &b = items[i];
    taken.clear();
    for (size_t j : placed)
      if (overlapInTime(items[j], b)) taken.push_back({items[j].offset, items[j].offset + items[j].bytes});
    std::sort(taken.begin(), taken.end());
    int64_t off = 0, best = -1, bestGap = std::numeric_limits<int64_t>::max();
    for (auto [lo, hi] : taken) {
      if (off + b.bytes <= lo) {
        if (!bestFit) break;
        if (lo - off < bestGap) bestGap = lo - off, best = off;
      }
      off = std::max(off, hi);
    }
    // First fit: `off` is the first gap that fits, or the top of the live
    // buffers; best fit: the tightest gap, else that top.
    b.offset = bestFit && best >= 0 ? best : off;
    total = std::max(total, b.offset + b.bytes);
    placed.push_back(i);
  }
  return total;
}

} // namespace

int64_t peakLiveBytes(const std::vector<PackItem> &items) {
  std::map<unsigned, int64_t> delta; // bytes starting minus bytes ended, per op
  for (const PackItem &b : items) {
    delta[b.first] += b.bytes;
    delta[b.last + 1] -= b.bytes;
  }
  int64_t live = 0, peak = 0;
  for (auto [at, d] : delta) peak = std::max(peak, live += d);
  return peak;
}

int64_t packBuffers(std::vector<PackItem> &items) {
  if (items.empty()) return 0;
  const int64_t bound = peakLiveBytes(items);
  std::vector<int64_t> bestOffsets;
  int64_t best = std::numeric_limits<int64_t>::max();
  auto tryOrder = [&](const std::vector<size_t> &order, bool bestFit) {
    const int64_t total = place(items, order, bestFit);
    if (total < best) {
      best = total;
      bestOffsets.clear();
      for (const PackItem &b : items) bestOffsets.push_back(b.offset);
    }
  };
  auto lifetime = [&](size_t i) { return int64_t(items[i].last - items[i].first) + 1; };
  // Each order sorts by its key, descending, then by size, then by position.
  const std::vector<std::function<int64_t(size_t)>> keys = {
      [&](size_t i) { return items[i].bytes; },
      [&](size_t i) { return lifetime(i); },
      [&](size_t i) { return items[i].bytes * lifetime(i); },
      [&](size_t i) { return -int64_t(items[i].first); },
  };
  std::vector<size_t> order(items.size());
  for (const auto &key : keys)
    for (bool bestFit : {false, true}) {
      if (best == bound) break;
      std::iota(order.begin(), order.end(), size_t(0));
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        const int64_t ka = key(a), kb = key(b);
        return ka != kb ? ka > kb : items[a].bytes > items[b].bytes;
      });
      tryOrder(order, bestFit);
    }
  // Then largest first with the ties among equal sizes, and a few neighbours,
  // shuffled: which of equal buffers goes low decides what fits beside it.
  // A fixed seed keeps the plan the same from one compile to the next; the
  // number of tries shrinks with the square of the buffers (each is O(n^2)).
  std::mt19937 rng(1);
  const size_t n = items.size(), tries = std::clamp<size_t>(size_t(4e7) / (n * n + 1), 8, 256);
  for (size_t t = 0; t < tries && best > bound; ++t) {
    std::vector<std::pair<double, size_t>> jittered;
    std::uniform_real_distribution<double> jitter(1.0, 1.0 + 0.05 * double(t % 4));
    for (size_t i = 0; i < n; ++i) jittered.push_back({-double(items[i].bytes) * jitter(rng) - jitter(rng) * 1e-3, i});
    std::sort(jittered.begin(), jittered.end());
    for (size_t i = 0; i < n; ++i) order[i] = jittered[i].second;
    tryOrder(order, t % 2 == 1);
  }
  for (size_t i = 0; i < items.size(); ++i) items[i].offset = bestOffsets[i];
  return best;
}

} // namespace dx
