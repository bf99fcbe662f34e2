// Atom finding (docs/analyze.md, "atoms"): atomic columns found in per-pixel
// class maps, and their precision and recall against the true columns.
//
// A found column is a 4-connected component of foreground pixels (class > 0)
// with at least min_pixels pixels; its position is the centroid of the
// component's pixels and its species the component's most frequent class
// (ties: the lower label). Found and true columns of one image are matched
// one to one, nearest pairs first, within `tolerance` Å, per species (a
// found Si column does not match a true C one) and, separately, ignoring the
// species (localisation alone).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dxan {

struct AtomColumn {
  int64_t image = 0;
  double x = 0, y = 0; // pixels: pixel (i, j) is centred at x = j, y = i
  int species = 0;     // 1..classes-1
  int64_t pixels = 0;  // found columns: the component's size
  bool inside = true;  // true columns: centre inside the field (see AtomCounts)
};

// Found columns of `images` class maps of h x w labels each (C order).
std::vector<AtomColumn> find_columns(const int32_t *labels, int64_t images, int h, int w, int64_t min_pixels);

// argmax over the classes of logits [images, classes, h, w] (ties: the lower class).
std::vector<int32_t> argmax_classes(const float *logits, int64_t images, int classes, int h, int w);

// Counts of one species (or of all). A true column whose centre lies outside
// the field (a column at the edge, partly visible) is optional: finding it
// is neither a TP nor an FP, missing it is not an FN.
struct AtomCounts {
  int64_t truth = 0, found = 0, tp = 0, fp = 0, fn = 0;
  double error_sum = 0; // Å, over the TPs
  double precision() const; // TP / (TP + FP); NaN without found columns
  double recall() const;    // TP / (TP + FN); NaN without true columns
  double f1() const;
  double mean_error() const; // Å; NaN without TPs
  void add(const AtomCounts &o);
};

struct AtomMatchResult {
  std::vector<AtomCounts> per_species; // index s - 1 for species s
  AtomCounts all;                      // the sum over the species
  AtomCounts any_species;              // matched ignoring the species
  std::vector<int> found_match;        // per found column: index of its true column (species-matched), or -1
};

// found and truth: any order; species in 1..species; distances in Å are
// pixel distances times pixel_size.
AtomMatchResult match_columns(const std::vector<AtomColumn> &found, const std::vector<AtomColumn> &truth,
                              int species, double pixel_size, double tolerance);

} // namespace dxan
