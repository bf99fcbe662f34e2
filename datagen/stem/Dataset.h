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
  bool masks = false; // also per-pixel class maps and the true column positions
};

// The species of the class masks: label k (1..S) is species_z[k - 1], the
// --elements in the order given (duplicates dropped), then the dopant if it
// is not among them. Label 0 is background.
std::vector<int> species_list(const StemConfig &cfg);

// A true column of an image: one that covers at least one pixel of its mask.
// Pixel coordinates have pixel (i, j)'s centre at x = j, y = i; Å are from
// the field's top-left corner (x_A = (x_px + 0.5) * pixel_size).
struct ColumnRecord {
  int64_t image;
  double x_px, y_px, x_A, y_A;
  int species, z;
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

// The image with its class mask (size*size, labels 0..S) and its true
// columns (image = index), the same image as generate_image gives.
struct Sample {
  std::vector<float> image;
  std::vector<int64_t> mask;
  std::vector<ColumnRecord> columns;
};
Sample generate_sample(const StemConfig &cfg, int split, int64_t index, int label);

// n labels, each class n/classes or n/classes + 1 times, in a random order
// drawn from the seed (the trainer need not shuffle to see every class early).
std::vector<int64_t> balanced_labels(int64_t n, int classes, uint64_t seed, int split);

struct StemData {
  std::vector<float> train_images, test_images; // [N, 1, S, S]
  std::vector<int64_t> train_labels, test_labels;
  // With cfg.masks: [N, S, S] class maps and the columns, in image order.
  std::vector<int64_t> train_masks, test_masks;
  std::vector<ColumnRecord> train_columns, test_columns;
};

// Called from worker threads for each finished image (e.g. to write a PNG).
using ImageSink = std::function<void(int split, int64_t index, int64_t label, const float *pixels)>;

StemData generate_dataset(const StemConfig &cfg, int threads, Progress *progress, const ImageSink &sink = {});

} // namespace dxgen::stem
