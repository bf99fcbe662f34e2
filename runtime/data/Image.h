// JPEG (libjpeg-turbo) and PNG (libpng) files decoded to 8-bit pixels.
//
// An image is height x width x channels bytes, row-major, channels last
// (HWC): 1 channel for grey images, 3 (R, G, B) for everything else. Alpha
// is dropped and 16-bit samples are reduced to 8 bits, as PIL's
// convert("RGB") does; CMYK JPEGs are converted to RGB. The format is
// recognised by the file's signature, not its name (ImageNet has PNGs named
// .JPEG).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dxrt {

struct Image {
  int64_t height = 0, width = 0, channels = 0;
  std::vector<uint8_t> pixels; // height * width * channels
  const uint8_t *at(int64_t y, int64_t x) const { return pixels.data() + (y * width + x) * channels; }
};

// Decodes the bytes of a JPEG or PNG file into out, reusing its storage.
// `name` is the file, for messages. Throws dxrt::Error naming it for a
// corrupt, truncated or unsupported image; never exits or aborts.
void decode_image(const uint8_t *data, size_t size, const std::string &name, Image &out);

// Reads and decodes one file, reusing its buffers between calls (one reader
// per thread).
class ImageReader {
public:
  const Image &read(const std::string &path);

private:
  std::vector<uint8_t> bytes_;
  Image image_;
};

} // namespace dxrt
