// Random data of the right shape, for throughput runs (--synthetic): inputs
// N(0, 1) (already "normalised"), labels uniform over the classes, targets N(0, 1).
#include "data/Dataset.h"
#include "kernels/Philox.h"

namespace dxrt {

Split synthetic_split(const std::string &which, int64_t n, int64_t sample_floats, int64_t classes, uint64_t seed,
                      int64_t label_elems, int64_t target_floats) {
  Split s;
  s.name = which;
  s.source = "synthetic";
  s.n = n;
  s.sample_floats = sample_floats;
  s.x.resize(size_t(n * sample_floats));
  uint32_t split_id = which == "train" ? 0 : 1;
  fill_normal(RngKey{seed, split_id, kRuntimeRank, kStreamSyntheticX}, 0, n * sample_floats, s.x.data());
  if (target_floats > 0) {
    s.has_targets = true;
    s.target_floats = target_floats;
    s.t.resize(size_t(n * target_floats));
    fill_normal(RngKey{seed, split_id, kRuntimeRank, kStreamSyntheticY}, 0, n * target_floats, s.t.data());
  } else if (classes > 0) {
    s.has_labels = true;
    s.label_elems = label_elems;
    s.y.resize(size_t(n * label_elems));
    RngKey key{seed, split_id, kRuntimeRank, kStreamSyntheticY};
    for (int64_t i = 0; i < n * label_elems; ++i)
      s.y[size_t(i)] = int64_t(random_u64(key, uint64_t(i)) % uint64_t(classes));
  }
  return s;
}

} // namespace dxrt
