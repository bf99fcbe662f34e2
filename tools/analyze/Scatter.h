// SVG scatter plots of a 2- or 3-dimensional latent space: one panel per pair
// of dimensions (z1-z2; z1-z2, z1-z3, z2-z3), points coloured by a per-frame
// value on the Colormap.h scale, with a colour bar. Plain SVG 1.1 that any
// browser or paper's figure pipeline reads; no fonts or scripts embedded.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dxan {

struct ScatterPlot {
  const std::vector<float> *latent = nullptr; // rows of `dims` values
  int dims = 0;                               // 2 or 3
  const std::vector<float> *color = nullptr;  // one value per row
  std::vector<int64_t> drawn;                 // the rows drawn, in drawing order
  std::string title, color_name;
};

// Number of panels for `dims` latent dimensions: every pair of them.
int panel_count(int dims);

// The whole SVG document. Axis and colour ranges cover every row, not only
// the drawn ones, so a subsample is drawn on the full data's scales.
std::string render_svg(const ScatterPlot &plot);

// Up to `limit` rows out of `rows`, evenly spaced (row floor(k * rows / limit)):
// deterministic, and it keeps the mix of a file ordered by trajectory or time.
std::vector<int64_t> subsample(int64_t rows, int64_t limit);

} // namespace dxan
