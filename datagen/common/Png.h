// 8-bit PNG images (libpng), for generators that write image folders, e.g.
// an ImageNet-style train/<class>/<n>.png tree of STEM images.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dxgen {

// channels: 1 (grey) or 3 (RGB, interleaved); pixels row-major, height*width*channels.
void write_png(const std::string &path, int width, int height, int channels, const uint8_t *pixels);

} // namespace dxgen
