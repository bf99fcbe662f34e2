// A dataset as the runtime holds it: each split's labels (int64) and
// targets (f32) in memory, its samples either in memory as normalised f32
// (read splits) or as a read-only mapping of the file, converted and
// normalised as gather() copies them (mapped splits: uncompressed IDX and NPY
// under Access::Map; gzip, CSV and synthetic splits are always read), or read
// from an HDF5 dataset one sample at a time as gather() copies them (HDF5
// splits), or as a folder of image files decoded and augmented as gather()
// copies them (image splits).
#pragma once

#include "data/Array.h"
#include "data/Bytes.h"
#include "common/HugePages.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace dxrt {

// The metadata's "dataset" object (docs/abi.md).
struct DatasetSpec {
  std::string name, format;            // format: idx, npy, csv, hdf5, folder
  std::vector<std::string> train, test; // [inputs] or [inputs, labels or targets]; folder: [directory]
  std::vector<int64_t> sample;         // shape of one sample
  int64_t classes = 0;                 // 0 = not a classification set
  std::string transform = "none";      // none or log1p (of the stored value), then
  double scale = 1.0;                  // x * scale, then (x - mean) / std
  std::vector<double> mean, std;       // empty, one value, or one per channel (sample[0])
  int64_t label_column = -1;           // csv: the column holding the label, -1 = none
  bool header = false;                 // csv: skip the first line
  std::vector<std::string> augment;    // folder: random_resized_crop, flip (training split only)
  std::vector<int64_t> label_shape;    // one sample's class labels: [] = one, [H, W] = one per pixel
  bool targets = false;                // the second file holds continuous targets, not labels
  std::vector<int64_t> target_shape;   // one sample's targets

  int64_t sample_floats() const;
  int64_t label_elems() const;         // labels per sample
  int64_t target_floats() const;       // targets per sample (0 without targets)
  // Labels come from a second file, or (csv) from label_column; never with targets.
  bool labelled() const;
};

// log1p(x) when the dataset says `transform: log1p`, then x * scale, then
// (x - mean) / std, per channel: channel c of a sample is its elements
// [c * plane, (c + 1) * plane).
struct Normalization {
  bool log1p = false;
  float scale = 1;
  std::vector<float> mean, inv_std; // one per channel
  int64_t plane = 0;
};

// What an image split's random augmentations are drawn from: the run's seed
// and the epoch (with the sample's index, data/Augment.h).
struct AugmentKey {
  uint64_t seed = 0;
  int64_t epoch = 0;
  bool operator==(const AugmentKey &) const = default;
};

struct ImageSource; // data/ImageFolder.h
struct ArrayAugment; // data/Augment.h
class Hdf5Source;   // data/Hdf5.h

struct Split {
  std::string name;            // "train" or "test"
  std::string source;          // the inputs file, for messages
  int64_t n = 0;               // samples
  int64_t sample_floats = 0;
  SampleFloats x;              // read splits: n * sample_floats, normalised (huge pages: HugePages.h)
  // Mapped splits (x empty): the inputs file, where its samples start, how
  // they are stored and how they are normalised.
  std::shared_ptr<const MappedFile> file;
  const uint8_t *data = nullptr; // sample 0, inside *file
  Dtype dtype = Dtype::U8;
  bool big_endian = false;
  Normalization norm;
  // Image splits (x empty): the folder's files and how they become samples.
  std::shared_ptr<const ImageSource> images;
  // HDF5 splits (x empty): the inputs dataset, read a sample at a time, and
  // normalised as mapped splits are (norm).
  std::shared_ptr<const Hdf5Source> h5;
  // Array splits that the dataset augments (training only): the random
  // flips and axis permutations gather() applies to each sample.
  std::shared_ptr<const ArrayAugment> augment;
  std::vector<int64_t> y;      // n * label_elems labels when has_labels
  bool has_labels = false;
  int64_t label_elems = 1;     // labels per sample
  std::vector<float> t;        // n * target_floats targets when has_targets
  bool has_targets = false;
  int64_t target_floats = 0;
  bool mapped() const { return file != nullptr; }
  bool decoded() const { return images != nullptr; }
  bool hdf5() const { return h5 != nullptr; }
};

// Read: every split in memory. Map: uncompressed IDX and NPY inputs mapped
// (gzip-compressed files and CSV are read all the same).
enum class Access { Read, Map };

// Loads one split (`files` = the metadata's train or test list) and checks it
// against the spec: sample size, label count, label range. Relative paths are
// taken relative to data_dir when it is not empty. Throws dxrt::Error naming
// the file and what is wrong.
Split load_split(const DatasetSpec &spec, const std::vector<std::string> &files, const std::string &which,
                 const std::string &data_dir, Access access = Access::Read);

// The spec's normalisation for samples of sample_floats elements; throws
// unless mean and std list one value or one per channel (sample[0]), and std
// is positive.
Normalization normalization(const DatasetSpec &spec, int64_t sample_floats);

// A read split's x <- (x * scale - mean) / std, per channel when mean/std
// list one value per channel (sample[0]).
void normalize(Split &split, const DatasetSpec &spec);

// A split of n samples of N(0, 1) inputs and label_elems uniform labels in
// [0, classes) per sample (no labels when classes == 0), or target_floats
// N(0, 1) targets per sample when target_floats > 0; the same for a given
// seed on every rank.
Split synthetic_split(const std::string &which, int64_t n, int64_t sample_floats, int64_t classes, uint64_t seed,
                      int64_t label_elems = 1, int64_t target_floats = 0);

// The path a file name refers to: data_dir/name for a relative name when
// data_dir is set, else name.
std::string resolve_path(const std::string &name, const std::string &data_dir);

} // namespace dxrt
