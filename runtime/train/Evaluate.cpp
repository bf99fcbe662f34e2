#include "train/Evaluate.h"

#include "data/Order.h"
#include "data/Prefetch.h"

#include <algorithm>

namespace dxrt {

bool has_accuracy(const Metadata &meta, const Split &split) {
  const int64_t classes = meta.outputs[0].floats;
  const int64_t declared = meta.dataset ? meta.dataset->classes : 0;
  return split.has_labels && classes >= 2 && (declared == 0 || declared == classes);
}

EvalResult evaluate(const Metadata &meta, Arenas &a, Backend &backend, const Split &split, int64_t eval_batch, World &world,
                    int data_threads) {
  // Identity order, this rank's contiguous shard.
  const int64_t lo = split.n * world.rank() / world.size(), hi = split.n * (world.rank() + 1) / world.size();
  const bool accuracy = has_accuracy(meta, split);
  const int64_t classes = meta.outputs[0].floats;
  double sums[3] = {0, 0, 0}; // loss * samples, correct, samples
  // Images: each batch decoded in parallel (not ahead: evaluation is short).
  std::optional<Prefetcher> decode;
  if (split.decoded()) decode.emplace(split, data_threads, a.x.size());
  for (int64_t b = lo; b < hi; b += eval_batch) {
    const int64_t e = std::min(b + eval_batch, hi), n = e - b;
    if (decode) decode->take(BatchRequest{nullptr, b, e, std::nullopt}, a.x, a.labels.data());
    else gather_range(split, b, e, a.x.data(), a.labels.data());
    float loss = backend.eval_step(a, n);
    sums[0] += double(loss) * double(n);
    sums[2] += double(n);
    if (!accuracy) continue;
    for (int64_t i = 0; i < n; ++i) {
      const float *row = a.outputs.data() + i * classes;
      int64_t pred = std::max_element(row, row + classes) - row;
      sums[1] += pred == a.labels[size_t(i)] ? 1.0 : 0.0;
    }
  }
  world.allreduce_sum(sums, 3);
  EvalResult r;
  r.samples = int64_t(sums[2]);
  if (r.samples > 0) {
    r.loss = sums[0] / sums[2];
    if (accuracy) r.accuracy = sums[1] / sums[2];
  }
  return r;
}

} // namespace dxrt
