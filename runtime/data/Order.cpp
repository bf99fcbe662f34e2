#include "data/Order.h"

#include "data/Augment.h"
#include "data/Hdf5.h"
#include "data/ImageFolder.h"
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

// Sample i of the split into out: a copy of a read split's floats, a mapped
// split's stored elements converted and normalised, or an image split's file
// decoded (training transform when key is set).
static void copy_sample(const Split &s, int64_t i, float *out, const AugmentKey *key) {
  const int64_t f = s.sample_floats;
  if (s.decoded()) {
    image_sample(*s.images, i, key, out);
    return;
  }
  if (!s.mapped() && !s.hdf5()) {
    std::memcpy(out, s.x.data() + i * f, sizeof(float) * size_t(f));
    return;
  }
  const Normalization &nm = s.norm;
  const int64_t esize = int64_t(dtype_size(s.dtype));
  // An HDF5 sample is read into a per-thread buffer first, then converted as
  // a mapped one is (at element 0 of the buffer instead of i * f of the file).
  thread_local std::vector<uint8_t> row;
  const uint8_t *base = s.data;
  int64_t first = i * f;
  if (s.hdf5()) {
    row.resize(size_t(f * esize));
    s.h5->read_sample(i, row.data());
    base = row.data();
    first = 0;
  }
  for (size_t c = 0; c < nm.mean.size(); ++c) {
    const int64_t at = int64_t(c) * nm.plane;
    int64_t bad = convert(base + (first + at) * esize, s.dtype, s.big_endian, nm.plane, nm.scale, nm.mean[c],
                          nm.inv_std[c], out + at, nm.log1p);
    if (bad >= 0) fail_non_finite(s.source, i * f + at + bad);
  }
}

// Sample src's labels and targets to position i of the batch.
static void copy_second(const Split &s, int64_t src, int64_t i, int64_t *y, float *t) {
  if (y && s.has_labels)
    std::copy_n(s.y.begin() + src * s.label_elems, s.label_elems, y + i * s.label_elems);
  if (t && s.has_targets)
    std::copy_n(s.t.begin() + src * s.target_floats, s.target_floats, t + i * s.target_floats);
}

// Sample src's random flips and axis permutation (data/Augment.h), applied
// to its inputs and to labels or targets that are maps of them, at place i.
static void augment_sample(const Split &s, int64_t src, int64_t i, float *x, int64_t *y, float *t,
                           const AugmentKey &key) {
  const ArrayAugment &a = *s.augment;
  const SpatialTransform tr = spatial_transform(a, key, src);
  if (tr.identity()) return;
  thread_local std::vector<float> floats;
  thread_local std::vector<int64_t> labels;
  transform_maps(tr, a.spatial, a.channels, x + i * s.sample_floats, floats);
  if (y && s.has_labels && a.label_maps) transform_maps(tr, a.spatial, a.label_maps, y + i * s.label_elems, labels);
  if (t && s.has_targets && a.target_maps)
    transform_maps(tr, a.spatial, a.target_maps, t + i * s.target_floats, floats);
}

void gather(const Split &split, const std::vector<int64_t> &order, int64_t lo, int64_t hi, float *x, int64_t *y,
            float *t, const AugmentKey &key) {
  for (int64_t i = lo; i < hi; ++i) {
    int64_t src = order[size_t(i)];
    copy_sample(split, src, x + (i - lo) * split.sample_floats, &key);
    copy_second(split, src, i - lo, y, t);
    if (split.augment) augment_sample(split, src, i - lo, x, y, t, key);
  }
}

void gather_range(const Split &split, int64_t lo, int64_t hi, float *x, int64_t *y, float *t) {
  if (split.mapped() || split.decoded() || split.hdf5())
    for (int64_t i = lo; i < hi; ++i) copy_sample(split, i, x + (i - lo) * split.sample_floats, nullptr);
  else
    std::memcpy(x, split.x.data() + lo * split.sample_floats, sizeof(float) * size_t((hi - lo) * split.sample_floats));
  for (int64_t i = lo; i < hi; ++i) copy_second(split, i, i - lo, y, t);
}

} // namespace dxrt
