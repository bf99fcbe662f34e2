#include "train/Evaluate.h"

#include "data/Order.h"
#include "data/Prefetch.h"

#include <algorithm>

namespace dxrt {

namespace {

// Sums over a split's samples, reduced over the ranks in one all-reduce.
struct Sums {
  // [0] loss * samples, [1] samples, [2] correct labels, [3] labels, then
  // per class: intersections, predictions, labels; then per target
  // element: |e|, e^2, y, y^2.
  std::vector<double> v;
  int64_t classes, targets;
  Sums(int64_t c, int64_t t) : v(size_t(4 + 3 * c + 4 * t)), classes(c), targets(t) {}
  double *cls(int k) { return v.data() + 4 + k * classes; }
  double *tgt(int k) { return v.data() + 4 + 3 * classes + k * targets; }
};

// Scores of sample i: C planes of `pixels` floats; labels of sample i: pixels.
void add_scores(Sums &s, const float *scores, const int64_t *labels, int64_t n, int64_t pixels) {
  const int64_t C = s.classes;
  double *inter = s.cls(0), *pred = s.cls(1), *lab = s.cls(2);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t p = 0; p < pixels; ++p) {
      const float *z = scores + i * C * pixels + p;
      int64_t best = 0;
      for (int64_t c = 1; c < C; ++c)
        if (z[c * pixels] > z[best * pixels]) best = c;
      const int64_t y = labels[i * pixels + p];
      s.v[2] += best == y ? 1.0 : 0.0;
      inter[best] += best == y ? 1.0 : 0.0;
      pred[best] += 1.0;
      if (y >= 0 && y < C) lab[y] += 1.0;
    }
  s.v[3] += double(n * pixels);
}

void add_targets(Sums &s, const float *out, const float *y, int64_t n) {
  const int64_t T = s.targets;
  double *ae = s.tgt(0), *se = s.tgt(1), *sy = s.tgt(2), *syy = s.tgt(3);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < T; ++j) {
      const double e = double(out[i * T + j]) - double(y[i * T + j]), t = double(y[i * T + j]);
      ae[j] += std::abs(e);
      se[j] += e * e;
      sy[j] += t;
      syy[j] += t * t;
    }
}

} // namespace

EvalResult evaluate(const Metadata &meta, Arenas &a, Backend &backend, const Split &split, int64_t eval_batch, World &world,
                    int data_threads) {
  // Identity order, this rank's contiguous shard.
  const int64_t lo = split.n * world.rank() / world.size(), hi = split.n * (world.rank() + 1) / world.size();
  const int64_t classes = split.has_labels ? meta.score_classes() : 0;
  const int64_t targets = split.has_targets && meta.predicts_targets() ? split.target_floats : 0;
  Sums sums(classes, targets);
  // Images: each batch decoded in parallel (not ahead: evaluation is short).
  std::optional<Prefetcher> decode;
  if (split.decoded()) decode.emplace(split, data_threads, a.x.size());
  for (int64_t b = lo; b < hi; b += eval_batch) {
    const int64_t e = std::min(b + eval_batch, hi), n = e - b;
    if (decode) decode->take(BatchRequest{nullptr, b, e, std::nullopt}, a.x, a.labels.data());
    else gather_range(split, b, e, a.x.data(), a.labels.data(), a.targets.data());
    float loss = backend.eval_step(a, n);
    sums.v[0] += double(loss) * double(n);
    sums.v[1] += double(n);
    if (classes) add_scores(sums, a.outputs.data(), a.labels.data(), n, split.label_elems);
    if (targets) add_targets(sums, a.outputs.data(), a.targets.data(), n);
  }
  world.allreduce_sum(sums.v.data(), int(sums.v.size()));
  EvalResult r;
  r.samples = int64_t(sums.v[1]);
  if (r.samples == 0) return r;
  r.loss = sums.v[0] / sums.v[1];
  if (classes) {
    r.accuracy = sums.v[2] / sums.v[3];
    r.per_pixel = split.label_elems > 1;
    double total = 0;
    int present = 0;
    for (int64_t c = 0; c < classes; ++c) {
      const double inter = sums.cls(0)[c], uni = sums.cls(1)[c] + sums.cls(2)[c] - inter;
      r.class_iou.push_back(uni > 0 ? inter / uni : NAN);
      if (uni > 0) total += inter / uni, ++present;
    }
    r.iou = present ? total / present : NAN;
  }
  if (targets) {
    const double n = sums.v[1], elems = n * double(targets);
    double ae = 0, se = 0, r2 = 0;
    int with_variance = 0;
    for (int64_t j = 0; j < targets; ++j) {
      ae += sums.tgt(0)[j];
      se += sums.tgt(1)[j];
      const double sst = sums.tgt(3)[j] - sums.tgt(2)[j] * sums.tgt(2)[j] / n;
      // R^2 = 1 - SSE / SST; undefined for a target that does not vary.
      const double rj = sst > 1e-12 * std::max(sums.tgt(3)[j], 1e-300) ? 1.0 - sums.tgt(1)[j] / sst : NAN;
      r.output_r2.push_back(rj);
      if (!std::isnan(rj)) r2 += rj, ++with_variance;
    }
    r.mae = ae / elems;
    r.rmse = std::sqrt(se / elems);
    r.r2 = with_variance ? r2 / with_variance : NAN;
  }
  return r;
}

double metric_value(const EpochStats &s, const std::string &metric) {
  if (metric == "loss") return s.train_loss;
  if (!s.has_val) return NAN;
  if (metric == "val_loss") return s.val.loss;
  if (metric == "accuracy") return s.val.accuracy;
  if (metric == "iou") return s.val.iou;
  if (metric == "mae") return s.val.mae;
  if (metric == "rmse") return s.val.rmse;
  if (metric == "r2") return s.val.r2;
  return NAN;
}

} // namespace dxrt
