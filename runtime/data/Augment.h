// From a decoded image to one normalised CHW sample: which part of the image
// (a crop box, random or centred), resized to the sample's H x W, optionally
// mirrored, scaled and normalised per channel. The boxes follow torchvision:
//
//   training    RandomResizedCrop(scale=(0.08, 1), ratio=(3/4, 4/3)) and
//               RandomHorizontalFlip(p=0.5), as the dataset's `augment` lists
//   evaluation  Resize(round(S * 256 / 224)) of the shorter side, then
//               CenterCrop(H, W), S = max(H, W) (torchvision's eval transform
//               for square samples)
//
// Resizing is bilinear with PIL's antialiasing (the filter widens when
// shrinking), and the result is rounded to 8 bits before scaling, as
// PIL + ToTensor give it.
#pragma once

#include "data/Dataset.h"
#include "data/Image.h"
#include "kernels/Philox.h"

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace dxrt {

// A region of the source image, in (fractional) source pixels: output row i
// samples around source row top + (i + 0.5) * height / H, and only rows of
// [clip_top, clip_bottom) contribute (likewise for columns).
struct CropBox {
  double top = 0, left = 0, height = 0, width = 0;
  int64_t clip_top = 0, clip_left = 0, clip_bottom = 0, clip_right = 0;
};

// The draws of training sample `index` (AugmentKey, data/Dataset.h): stream
// kStreamAugment with step = epoch, elements [index * kAugmentDraws,
// (index + 1) * kAugmentDraws). Nothing else (threads, ranks, prefetching)
// changes them, so a resumed run draws what the uninterrupted one did.
constexpr uint64_t kAugmentDraws = 32;

// torchvision's RandomResizedCrop.get_params: up to 10 tries of a random
// area (8%-100%) and log-uniform aspect ratio (3/4-4/3) that fits; else the
// centre crop with the ratio clamped to that range.
CropBox random_resized_crop(int64_t height, int64_t width, const AugmentKey &key, int64_t index);
// Whether the sample is mirrored (p = 0.5), from the same draws.
bool random_flip(const AugmentKey &key, int64_t index);
// The evaluation crop: the image resized so its shorter side is
// round(max(H, W) * 256 / 224), then the centre H x W of that.
CropBox center_crop(int64_t height, int64_t width, int64_t out_h, int64_t out_w);

// Per-thread buffers of resample(), reused between samples.
struct ResampleScratch {
  std::vector<int64_t> first_x, first_y;
  std::vector<float> wx, wy, rows;
  int64_t taps_x = 0, taps_y = 0;
};

// Resamples box of img to out_c x out_h x out_w (CHW) floats, mirrored
// left-right when flip, each value round(v) * scale then (x - mean) / std per
// channel. A grey image fills every output channel; an RGB image into one
// channel is an error naming `name`.
void resample(const Image &img, const CropBox &box, bool flip, const Normalization &norm, int64_t out_c,
              int64_t out_h, int64_t out_w, const std::string &name, ResampleScratch &scratch, float *out);

// ---- Augmentation of array samples (npy, idx, hdf5) ----
//
// A sample [C, S1, ..., Sk] is augmented over its k spatial axes, the same
// for every channel: `flip` mirrors each axis with probability 1/2 on its
// own, `transpose` permutes the axes uniformly at random (all Si equal;
// dxc checks it). With both, every symmetry of the square (8) or cube (48).
// A second tensor that is a map of the sample (per-pixel labels [S1..Sk],
// per-voxel targets [K, S1..Sk]) moves with it; anything else (a class, a
// vector of targets) is left as it is.
struct ArrayAugment {
  bool flip = false, transpose = false;
  std::vector<int64_t> spatial;   // S1..Sk
  int64_t channels = 1;           // C
  int64_t label_maps = 0;         // labels: 1 when they are [S1..Sk], else 0 (left alone)
  int64_t target_maps = 0;        // targets: K when they are [K, S1..Sk] or (K = 1) [S1..Sk], else 0
};
// From the dataset's `augment` list and shapes; nullopt when it lists nothing.
// An unknown name, or a sample without spatial axes, is an error.
std::optional<ArrayAugment> array_augment(const DatasetSpec &spec);

// The most spatial axes an array sample may have to be augmented: each axis
// takes two of the sample's kAugmentDraws draws (its flip, its place).
constexpr size_t kMaxSpatialAxes = kAugmentDraws / 2;

// The transform of sample `index`: output axis a < axes reads input axis
// perm[a], mirrored when mirror[a]. Fixed arrays, zero past `axes`, so that
// drawing one on the training step's path allocates nothing (and two
// transforms compare equal exactly when they do the same).
struct SpatialTransform {
  size_t axes = 0;
  std::array<int, kMaxSpatialAxes> perm{};
  std::array<bool, kMaxSpatialAxes> mirror{};
  bool identity() const;
};
SpatialTransform spatial_transform(const ArrayAugment &a, const AugmentKey &key, int64_t index);

// Applies t to `maps` maps of shape `spatial` (t.axes long) at data, in
// place, through scratch (resized as needed: it allocates only when a map is
// larger than any before).
template <class T>
void transform_maps(const SpatialTransform &t, const std::vector<int64_t> &spatial, int64_t maps, T *data,
                    std::vector<T> &scratch);

} // namespace dxrt
