// Random data of the right shape, for throughput runs (--synthetic): inputs
// N(0, 1) (already "normalised"), labels uniform over the classes.
#include "data/Dataset.h"
#include "kernels/Philox.h"

namespace dxrt {

Split synthetic_split(const std::string &which, int64_t n, int64_t sample_floats, int64_t classes, uint64_t seed) {
  Split s;
  s.name = which;
  s.source = "synthetic";
  s.n = n;
  s.sample_floats = sample_floats;
  s.x.resize(size_t(n * sample_floats));
  uint32_t split_id = which == "train" ? 0 : 1;
  fill_normal(RngKey{seed, split_id, kRuntimeRank, kStreamSyntheticX}, 0, n * sample_floats, s.x.data());
  if (classes > 0) {
    s.has_labels = true;
    s.y.resize(size_t(n));
    RngKey key{seed, split_id, kRuntimeRank, kStreamSyntheticY};
    for (int64_t i = 0; i < n; ++i) s.y[size_t(i)] = int64_t(random_u64(key, uint64_t(i)) % uint64_t(classes));
  }
  return s;
}

} // namespace dxrt
