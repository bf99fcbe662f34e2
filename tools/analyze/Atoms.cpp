#include "Atoms.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

namespace dxan {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
double ratio(double a, double b) { return b > 0 ? a / b : kNaN; }
} // namespace

double AtomCounts::precision() const { return ratio(double(tp), double(tp + fp)); }
double AtomCounts::recall() const { return ratio(double(tp), double(tp + fn)); }
double AtomCounts::f1() const { return ratio(2.0 * double(tp), double(2 * tp + fp + fn)); }
double AtomCounts::mean_error() const { return ratio(error_sum, double(tp)); }
void AtomCounts::add(const AtomCounts &o) {
  truth += o.truth;
  found += o.found;
  tp += o.tp;
  fp += o.fp;
  fn += o.fn;
  error_sum += o.error_sum;
}

std::vector<int32_t> argmax_classes(const float *logits, int64_t images, int classes, int h, int w) {
  const size_t plane = size_t(h) * size_t(w);
  std::vector<int32_t> out(size_t(images) * plane, 0);
  for (int64_t n = 0; n < images; ++n) {
    const float *base = logits + size_t(n) * size_t(classes) * plane;
    for (size_t q = 0; q < plane; ++q) {
      int best = 0;
      for (int c = 1; c < classes; ++c)
        if (base[size_t(c) * plane + q] > base[size_t(best) * plane + q]) best = c;
      out[size_t(n) * plane + q] = best;
    }
  }
  return out;
}

std::vector<AtomColumn> find_columns(const int32_t *labels, int64_t images, int h, int w, int64_t min_pixels) {
  std::vector<AtomColumn> out;
  const size_t plane = size_t(h) * size_t(w);
  std::vector<char> seen(plane);
  std::vector<size_t> stack;
  for (int64_t n = 0; n < images; ++n) {
    const int32_t *m = labels + size_t(n) * plane;
    std::fill(seen.begin(), seen.end(), 0);
    for (size_t start = 0; start < plane; ++start) {
      if (m[start] <= 0 || seen[start]) continue;
      // Flood fill one component, in row-major order of its first pixel.
      std::map<int, int64_t> votes;
      double sx = 0, sy = 0;
      int64_t count = 0;
      stack.assign(1, start);
      seen[start] = 1;
      while (!stack.empty()) {
        const size_t q = stack.back();
        stack.pop_back();
        const int i = int(q / size_t(w)), j = int(q % size_t(w));
        ++votes[m[q]];
        sx += j;
        sy += i;
        ++count;
        const int di[4] = {-1, 1, 0, 0}, dj[4] = {0, 0, -1, 1};
        for (int k = 0; k < 4; ++k) {
          const int ii = i + di[k], jj = j + dj[k];
          if (ii < 0 || jj < 0 || ii >= h || jj >= w) continue;
          const size_t r = size_t(ii) * size_t(w) + size_t(jj);
          if (m[r] > 0 && !seen[r]) {
            seen[r] = 1;
            stack.push_back(r);
          }
        }
      }
      if (count < min_pixels) continue;
      int species = 0;
      int64_t most = 0;
      for (const auto &[label, v] : votes) // ascending labels: ties keep the lower
        if (v > most) most = v, species = label;
      out.push_back({n, sx / double(count), sy / double(count), species, count, true});
    }
  }
  return out;
}

namespace {

// Greedy one-to-one matching of one image's columns, nearest pairs first
// (columns are >= 1.5 Å apart and the tolerance is smaller, so this is the
// optimal assignment in practice). Returns, per found column, the index
// into `truth` of its match or -1; adds the TPs' distances to counts.
std::vector<int> match_image(const std::vector<const AtomColumn *> &found, const std::vector<const AtomColumn *> &truth,
                             double pixel_size, double tolerance) {
  std::vector<std::tuple<double, int, int>> pairs;
  for (size_t f = 0; f < found.size(); ++f)
    for (size_t t = 0; t < truth.size(); ++t) {
      const double d = std::hypot(found[f]->x - truth[t]->x, found[f]->y - truth[t]->y) * pixel_size;
      if (d <= tolerance) pairs.emplace_back(d, int(f), int(t));
    }
  std::sort(pairs.begin(), pairs.end());
  std::vector<int> fm(found.size(), -1), tm(truth.size(), -1);
  for (const auto &[d, f, t] : pairs)
    if (fm[size_t(f)] < 0 && tm[size_t(t)] < 0) fm[size_t(f)] = t, tm[size_t(t)] = f;
  return fm;
}

// Counts of one matching: found columns matched to a required true column
// are TPs, matched to an optional one nothing, unmatched FPs; required true
// columns left unmatched are FNs.
AtomCounts count(const std::vector<const AtomColumn *> &found, const std::vector<const AtomColumn *> &truth,
                 const std::vector<int> &fm, double pixel_size) {
  AtomCounts c;
  std::vector<char> matched(truth.size(), 0);
  for (size_t f = 0; f < found.size(); ++f) {
    if (fm[f] < 0) {
      ++c.found;
      ++c.fp;
      continue;
    }
    const AtomColumn *t = truth[size_t(fm[f])];
    matched[size_t(fm[f])] = 1;
    if (!t->inside) continue;
    ++c.found;
    ++c.tp;
    c.error_sum += std::hypot(found[f]->x - t->x, found[f]->y - t->y) * pixel_size;
  }
  for (size_t t = 0; t < truth.size(); ++t) {
    if (!truth[t]->inside) continue;
    ++c.truth;
    if (!matched[t]) ++c.fn;
  }
  return c;
}

} // namespace

AtomMatchResult match_columns(const std::vector<AtomColumn> &found, const std::vector<AtomColumn> &truth,
                              int species, double pixel_size, double tolerance) {
  AtomMatchResult r;
  r.per_species.resize(size_t(species));
  r.found_match.assign(found.size(), -1);
  // Group by image (and species): indices into found / truth.
  std::map<int64_t, std::vector<size_t>> fi, ti;
  for (size_t k = 0; k < found.size(); ++k) fi[found[k].image].push_back(k);
  for (size_t k = 0; k < truth.size(); ++k) ti[truth[k].image].push_back(k);
  std::vector<int64_t> images;
  for (const auto &[n, v] : fi) images.push_back(n);
  for (const auto &[n, v] : ti)
    if (!fi.count(n)) images.push_back(n);
  std::sort(images.begin(), images.end());
  for (int64_t n : images) {
    const std::vector<size_t> &fk = fi[n], &tk = ti[n];
    for (int s = 0; s <= species; ++s) { // s = 0: ignoring the species
      std::vector<const AtomColumn *> f, t;
      std::vector<size_t> fidx, tidx;
      for (size_t k : fk)
        if (s == 0 || found[k].species == s) f.push_back(&found[k]), fidx.push_back(k);
      for (size_t k : tk)
        if (s == 0 || truth[k].species == s) t.push_back(&truth[k]), tidx.push_back(k);
      const std::vector<int> fm = match_image(f, t, pixel_size, tolerance);
      const AtomCounts c = count(f, t, fm, pixel_size);
      if (s == 0) {
        r.any_species.add(c);
        continue;
      }
      r.per_species[size_t(s - 1)].add(c);
      for (size_t q = 0; q < f.size(); ++q)
        if (fm[q] >= 0) r.found_match[fidx[q]] = int(tidx[size_t(fm[q])]);
    }
  }
  for (const AtomCounts &c : r.per_species) r.all.add(c);
  return r;
}

} // namespace dxan
