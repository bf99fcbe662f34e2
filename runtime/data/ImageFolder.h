// ImageNet-style image folders (torchvision's ImageFolder): a directory with
// one sub-folder per class; the label of a file is the index of its
// sub-folder's name in sorted order. A class's files (*.jpg, *.jpeg, *.png,
// any case) are taken in name order; other files and nested folders are
// ignored.
#pragma once

#include "data/Augment.h"
#include "data/Dataset.h"

#include <string>
#include <vector>

namespace dxrt {

struct ImageFolder {
  std::string root;
  std::vector<std::string> classes; // sub-folder names, sorted; label = index
  std::vector<std::string> files;   // paths, class after class
  std::vector<int64_t> labels;      // one per file
};

// Lists dir. Throws dxrt::Error naming the directory when it is missing, has
// no class sub-folders, or a class sub-folder has no images.
ImageFolder list_image_folder(const std::string &dir);

// How an image split makes samples of [channels, height, width].
struct ImageTransform {
  int64_t channels = 3, height = 0, width = 0;
  Normalization norm;
  bool random_crop = false, flip = false; // drawn per sample; otherwise the evaluation crop
};

struct ImageSource {
  ImageFolder folder;
  ImageTransform transform;
};

// A split of the folder `dir`: the training split augments as spec.augment
// says, the test split uses the evaluation transform. Checks spec.classes
// against the folder's classes.
Split load_image_split(const DatasetSpec &spec, const std::string &dir, const std::string &which);

// Decodes sample i of the split into out (sample_floats floats). key != null:
// the training transform, its random draws keyed by (*key, i); null: the
// evaluation transform. Reuses per-thread buffers; thread-safe.
void image_sample(const ImageSource &src, int64_t i, const AugmentKey *key, float *out);

} // namespace dxrt
