#include "Contacts.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace dxan {
namespace {

double ratio(int64_t num, int64_t den) {
  return den ? double(num) / double(den) : std::numeric_limits<double>::quiet_NaN();
}

void add(ContactCounts &c, bool predicted, bool actual) {
  if (predicted) ++(actual ? c.tp : c.fp);
  else ++(actual ? c.fn : c.tn);
}

} // namespace

double ContactCounts::recall() const { return ratio(tp, tp + fn); }
double ContactCounts::precision() const { return ratio(tp, tp + fp); }
double ContactCounts::f1() const { return ratio(2 * tp, 2 * tp + fp + fn); }
double ContactCounts::accuracy() const { return ratio(tp + tn, entries()); }

ContactResult compare_contacts(const float *logits, const float *maps, int64_t frames, int side,
                               const ContactOptions &o) {
  // Thresholding the logit instead of sigmoid(logit) avoids the sigmoid's
  // rounding to exactly 0 or 1 for large |logit|, and is the same test:
  // sigmoid is increasing, so sigmoid(x) > t <=> x > log(t / (1 - t)).
  const double cut = std::log(o.threshold / (1.0 - o.threshold));
  ContactResult r;
  r.frames = frames;
  r.all_separation = std::max(1, o.min_separation);
  r.long_separation = std::max(kLongRangeSeparation, o.min_separation);
  const int64_t plane = int64_t(side) * side;
  for (int64_t f = 0; f < frames; ++f) {
    const float *lf = logits + f * plane, *mf = maps + f * plane;
    for (int i = 0; i < o.residues; ++i)
      for (int j = 0; j < o.residues; ++j) {
        const int sep = std::abs(i - j);
        if (sep < r.all_separation) continue;
        const bool predicted = double(lf[i * side + j]) > cut;
        const bool actual = mf[i * side + j] > 0.5f;
        add(r.all, predicted, actual);
        if (sep >= r.long_separation) add(r.long_range, predicted, actual);
      }
  }
  return r;
}

} // namespace dxan
