// A STEM dataset: balanced labels, one independently seeded image per
// (split, index), generated in parallel with the same bytes for any thread
// count. The command (StemCommand.cpp) adds options, files and the summary.
#pragma once

#include "common/Progress.h"
#include "stem/Crystal.h"
#include "stem/Render.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace dxgen::stem {

enum class StemTask { Bravais, Wallpaper };

struct StemConfig {
  StemTask task = StemTask::Bravais;
  int64_t train = 10000, test = 2000;
  ImagingParams imaging;
  MotifOptions motif;
  uint64_t seed = 1;
};

int num_classes(StemTask task);              // 5 or 17
std::string class_name(StemTask task, int label); // "centred-rectangular", "p31m"

// The crystal of one image and where it sits in the field (random
// orientation, random origin in the cell).
struct Scene {
  Crystal crystal;
  View view;
};
Scene draw_scene(const StemConfig &cfg, int label, Rng &rng);

// The Rng stream of image `index` of split 0 (train) or 1 (test).
uint64_t image_stream(int split, int64_t index);
// Normalised image (size*size floats) of the given split, index and label.
std::vector<float> generate_image(const StemConfig &cfg, int split, int64_t index, int label);

// n labels, each class n/classes or n/classes + 1 times, in a random order
// drawn from the seed (the trainer need not shuffle to see every class early).
std::vector<int64_t> balanced_labels(int64_t n, int classes, uint64_t seed, int split);

struct StemData {
  std::vector<float> train_images, test_images; // [N, 1, S, S]
  std::vector<int64_t> train_labels, test_labels;
};

// Called from worker threads for each finished image (e.g. to write a PNG).
using ImageSink = std::function<void(int split, int64_t index, int64_t label, const float *pixels)>;

StemData generate_dataset(const StemConfig &cfg, int threads, Progress *progress, const ImageSink &sink = {});

} // namespace dxgen::stem
