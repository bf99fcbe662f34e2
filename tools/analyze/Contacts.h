// How well reconstructed contact maps match the true ones: confusion counts
// over the entries (i, j), i != j, of each frame's map, and the rates derived
// from them (docs/analyze.md, "contacts").
#pragma once

#include <cstdint>

namespace dxan {

// Pairs this far apart in sequence or more are "long-range": contacts that
// are not between neighbours along the chain (|i-j| <= 3 holds the backbone's
// and a helix's i,i+3 contacts), the ones that define a fold.
constexpr int kLongRangeSeparation = 4;

struct ContactCounts {
  int64_t tp = 0, fp = 0, fn = 0, tn = 0;
  int64_t entries() const { return tp + fp + fn + tn; }
  int64_t true_contacts() const { return tp + fn; }
  // NaN where the denominator is 0 (no true or no predicted contacts).
  double recall() const;    // TP / (TP + FN): the fraction of contacts reconstructed
  double precision() const; // TP / (TP + FP)
  double f1() const;        // 2 TP / (2 TP + FP + FN)
  double accuracy() const;  // (TP + TN) / entries
};

struct ContactOptions {
  int residues = 21;        // rows/columns compared; the rest is padding
  double threshold = 0.5;   // contact predicted where sigmoid(logit) > threshold
  int min_separation = 0;   // only pairs with |i-j| >= this
};

struct ContactResult {
  int64_t frames = 0;
  int all_separation = 1;  // the |i-j| bound of `all` (at least 1: i != j)
  int long_separation = 4; // the |i-j| bound of `long_range`
  ContactCounts all, long_range;
};

// logits and maps: `frames` maps of side x side floats each, C order; maps
// hold 0 or 1. Requires 0 < threshold < 1 and residues <= side.
ContactResult compare_contacts(const float *logits, const float *maps, int64_t frames, int side,
                               const ContactOptions &options);

} // namespace dxan
