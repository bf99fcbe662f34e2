// libFuzzer harness for the images of `format: folder` datasets
// (runtime/data/Image.cpp, Augment.cpp): each input is the bytes of one
// image file, JPEG or PNG by its signature. It is decoded, then made into a
// sample as image_sample() makes one: the evaluation crop, and a random
// resized crop with a flip, resampled to 3 x 16 x 16 (and 1 x 16 x 16 for a
// grey image) and normalised.
#include "common/Check.h"
#include "data/Augment.h"
#include "data/Image.h"
#include "ReaderFuzz.h"

#include <algorithm>
#include <vector>

namespace {

constexpr int64_t kSide = 16;

// Resampling costs about 2 x height x width x channels multiply-adds of the
// crop's source pixels. The corpus grows towards large images (a few hundred
// bytes of PNG decode to megapixels), and with ASan that cost was most of
// each execution (115 instead of 860 exec/s; fuzz/README.md). The crop that
// center_crop or random_resized_crop computed from the whole image is cut
// to its top-left 64 x 64 source pixels: the same code paths (a 4x
// downscale per axis, clipping at the image's edges), at a bounded cost.
// Decoding still sees the whole image.
constexpr double kWindow = 64;
dxrt::CropBox windowed(dxrt::CropBox box) {
  box.height = std::min(box.height, kWindow);
  box.width = std::min(box.width, kWindow);
  return box;
}

dxrt::Normalization norm(int64_t channels) {
  dxrt::Normalization n;
  n.scale = 1.0f / 255;
  n.mean.assign(size_t(channels), 0.5f);
  n.inv_std.assign(size_t(channels), 4.0f);
  n.plane = kSide * kSide;
  return n;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static dxrt::Image image;            // reused, as ImageReader reuses its image
  static dxrt::ResampleScratch scratch; // and image_sample its scratch
  static std::vector<float> out(size_t(3 * kSide * kSide));
  dxfuzz::allow_errors<dxrt::Error>([&] {
    dxrt::decode_image(data, size, "input", image);
    for (int64_t c : {int64_t(3), image.channels == 1 ? int64_t(1) : int64_t(3)}) {
      const dxrt::Normalization n = norm(c);
      dxrt::resample(image, windowed(dxrt::center_crop(image.height, image.width, kSide, kSide)), false, n, c, kSide,
                     kSide, "input", scratch, out.data());
      const dxrt::AugmentKey key{uint64_t(size), 1};
      dxrt::resample(image, windowed(dxrt::random_resized_crop(image.height, image.width, key, 0)),
                     dxrt::random_flip(key, 0), n, c, kSide, kSide, "input", scratch, out.data());
    }
  });
  return 0;
}
