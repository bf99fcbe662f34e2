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

#include <vector>

namespace {

constexpr int64_t kSide = 16;

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
      dxrt::resample(image, dxrt::center_crop(image.height, image.width, kSide, kSide), false, n, c, kSide, kSide,
                     "input", scratch, out.data());
      const dxrt::AugmentKey key{uint64_t(size), 1};
      dxrt::resample(image, dxrt::random_resized_crop(image.height, image.width, key, 0), dxrt::random_flip(key, 0), n,
                     c, kSide, kSide, "input", scratch, out.data());
    }
  });
  return 0;
}
