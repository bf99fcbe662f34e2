#include "data/Order.h"

#include "kernels/Philox.h"

#include <cstring>
#include <numeric>
#include <algorithm>
#include <utility>

namespace dxrt {

std::vector<int64_t> epoch_order(int64_t n, uint64_t seed, int64_t epoch) {
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  // Fisher-Yates; the j-th swap draws random integer j of the stream.
  RngKey key{seed, uint32_t(epoch), kRuntimeRank, kStreamShuffle};
  for (int64_t i = n - 1; i > 0; --i) {
    uint64_t r = random_u64(key, uint64_t(n - 1 - i));
    int64_t j = int64_t((unsigned __int128)r * uint64_t(i + 1) >> 64); // uniform in [0, i]
    std::swap(order[size_t(i)], order[size_t(j)]);
  }
  return order;
}

int64_t BatchPlan::global_size(int64_t s) const {
  int64_t begin = s * global_batch();
  return std::min(global_batch(), n - begin);
}

void BatchPlan::shard(int64_t s, int64_t m, int64_t *lo, int64_t *hi) const {
  const int64_t begin = s * global_batch(), len = global_size(s), slices = world * accumulate, j = rank * accumulate + m;
  *lo = begin + len * j / slices;
  *hi = begin + len * (j + 1) / slices;
}

void gather(const Split &split, const std::vector<int64_t> &order, int64_t lo, int64_t hi, float *x, int64_t *y) {
  const size_t bytes = sizeof(float) * size_t(split.sample_floats);
  for (int64_t i = lo; i < hi; ++i) {
    int64_t src = order[size_t(i)];
    std::memcpy(x + (i - lo) * split.sample_floats, split.x.data() + src * split.sample_floats, bytes);
    if (y && split.has_labels) y[i - lo] = split.y[size_t(src)];
  }
}

void gather_range(const Split &split, int64_t lo, int64_t hi, float *x, int64_t *y) {
  std::memcpy(x, split.x.data() + lo * split.sample_floats, sizeof(float) * size_t((hi - lo) * split.sample_floats));
  if (y && split.has_labels) std::copy(split.y.begin() + lo, split.y.begin() + hi, y);
}

} // namespace dxrt
