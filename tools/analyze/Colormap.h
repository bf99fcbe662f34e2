// A perceptual colormap for continuous values (the latent plots' Q): the
// anchors are viridis sampled at 11 points, interpolated linearly in sRGB.
// Viridis' lightness increases monotonically, so the order of values reads
// correctly in greyscale and for colour-blind readers, unlike a rainbow.
#pragma once

#include <string>
#include <vector>

namespace dxan {

struct Rgb {
  double r, g, b; // 0..255
};

// t in [0, 1] (clamped): 0 dark purple, 0.5 teal, 1 yellow.
Rgb colormap(double t);
// "#21918c"
std::string hex(const Rgb &c);

// The anchors as (offset, "#rrggbb"): an SVG linearGradient with these stops
// renders exactly colormap(t), since both interpolate linearly in sRGB.
std::vector<std::pair<double, std::string>> colormap_stops();

} // namespace dxan
