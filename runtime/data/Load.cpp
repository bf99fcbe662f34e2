// From the dataset block to splits: read or map, check against the metadata,
// normalise (read splits now, mapped ones as gather() copies their samples).
#include "common/Check.h"
#include "data/Array.h"
#include "data/Augment.h"
#include "data/Csv.h"
#include "data/Dataset.h"
#include "data/Hdf5.h"
#include "data/ImageFolder.h"

#include <filesystem>

namespace dxrt {

int64_t DatasetSpec::sample_floats() const { return shape_numel(sample); }
int64_t DatasetSpec::label_elems() const { return shape_numel(label_shape); }
int64_t DatasetSpec::target_floats() const { return targets ? shape_numel(target_shape) : 0; }

bool DatasetSpec::labelled() const {
  return !targets && (train.size() >= 2 || (format == "csv" && label_column >= 0) || format == "folder");
}

std::string resolve_path(const std::string &name, const std::string &data_dir) {
  if (data_dir.empty() || std::filesystem::path(name).is_absolute()) return name;
  return (std::filesystem::path(data_dir) / name).string();
}

static std::vector<int64_t> tail(const std::vector<int64_t> &shape) { return {shape.begin() + 1, shape.end()}; }

// The second file's array [N, ...per-sample shape] (labels or targets) must
// match the inputs' N and the dataset block's per-sample shape; a trailing
// 1 is accepted for one value per sample ([N, 1]).
static void check_second(const Array &a, const Split &s, const std::string &path, const std::string &inputs,
                         const std::vector<int64_t> &per_sample, const char *what) {
  int64_t want = 1;
  for (int64_t d : per_sample) want *= d;
  const bool scalar_ok = per_sample.empty() && (a.shape.size() == 1 || (a.shape.size() == 2 && a.shape[1] == 1));
  const bool shape_ok = scalar_ok || (a.shape.size() == per_sample.size() + 1 && tail(a.shape) == per_sample);
  DXRT_CHECK(!a.shape.empty() && a.shape[0] == s.n,
             str(s.name, " ", what, " '", path, "' hold ", a.shape.empty() ? 0 : a.shape[0], " ", what, " for the ",
                 s.n, " samples of '", inputs, "'"),
             "the inputs file and the second file must come from the same split");
  DXRT_CHECK(shape_ok,
             str(s.name, " ", what, " '", path, "' have shape ", shape_str(a.shape), ": expected ", s.n,
                 " samples of shape ", shape_str(per_sample), " (", want, " per sample)"),
             str("declare the per-sample shape with `", what, ": [...]` in the dataset block"));
}

// An IDX or NPY split: inputs [N, ...sample] and labels [N, ...labels] or
// targets [N, ...targets]. With Access::Map an uncompressed inputs file is
// mapped instead of read; the second file is read.
static Split load_arrays(const DatasetSpec &spec, const std::vector<std::string> &paths, Split s, Access access) {
  const bool idx = spec.format == "idx";
  auto read = [&](const std::string &p) { return idx ? read_idx(p) : read_npy(p); };
  std::shared_ptr<const MappedFile> file = access == Access::Map ? map_file(paths[0]) : nullptr; // null: gzip
  Array in;
  ArrayLayout layout;
  if (file) {
    layout = idx ? parse_idx(file->data, file->size, paths[0]) : parse_npy(file->data, file->size, paths[0]);
  } else {
    in = read(paths[0]);
    layout.shape = in.shape;
  }
  const std::vector<int64_t> &shape = layout.shape;
  const int64_t want = spec.sample_floats();
  DXRT_CHECK(shape.size() >= 2 || (shape.size() == 1 && want == 1),
             str(s.name, " inputs '", paths[0], "' have shape ", shape_str(shape),
                 ": expected [N, ...sample] with sample ", shape_str(spec.sample)),
             "the first dimension counts the samples");
  s.n = shape[0];
  int64_t per = s.n ? layout.numel() / s.n : 0;
  std::vector<int64_t> sample = tail(shape);
  DXRT_CHECK(s.n > 0, str(s.name, " inputs '", paths[0], "' hold no samples (shape ", shape_str(shape), ")"), "");
  DXRT_CHECK(per == want,
             str(s.name, " inputs '", paths[0], "' hold samples of shape ", shape_str(sample), " (", per,
                 " elements), but the dataset block's sample is ", shape_str(spec.sample), " (", want, " elements)"),
             "fix `sample:` in the dataset block or the data file");
  if (file) {
    s.data = file->data + layout.offset;
    s.dtype = layout.dtype;
    s.big_endian = layout.big_endian;
    s.file = std::move(file);
  } else {
    s.x.resize(size_t(in.numel()));
    to_floats(in, s.x.data());
  }
  if (s.has_labels) {
    Array lab = read(paths[1]);
    check_second(lab, s, paths[1], paths[0], spec.label_shape, "labels");
    s.y = to_labels(lab, spec.classes);
  }
  if (s.has_targets) {
    Array t = read(paths[1]);
    check_second(t, s, paths[1], paths[0], spec.target_shape, "targets");
    s.t = to_floats(t);
  }
  return s;
}

// An HDF5 split: inputs FILE:/PATH [N, ...sample] read a sample at a time;
// labels or targets FILE:/PATH read whole. (files are already resolved
// against the data directory by parse_hdf5_ref, not by load_split.)
static Split load_hdf5(const DatasetSpec &spec, const std::vector<std::string> &files, const std::string &data_dir,
                       Split s) {
  auto in = std::make_shared<const Hdf5Source>(parse_hdf5_ref(files[0], data_dir));
  const std::vector<int64_t> &shape = in->shape();
  s.source = files[0];
  s.n = shape[0];
  DXRT_CHECK(s.n > 0, str(s.name, " inputs '", files[0], "' hold no samples (shape ", shape_str(shape), ")"), "");
  DXRT_CHECK(in->sample_elems() == spec.sample_floats(),
             str(s.name, " inputs '", files[0], "' hold samples of shape ", shape_str(tail(shape)), " (",
                 in->sample_elems(), " elements), but the dataset block's sample is ", shape_str(spec.sample), " (",
                 spec.sample_floats(), " elements)"),
             "fix `sample:` in the dataset block or the data file");
  s.dtype = in->dtype();
  s.h5 = std::move(in);
  if (s.has_labels || s.has_targets) {
    Array second = Hdf5Source(parse_hdf5_ref(files[1], data_dir)).read_all();
    if (s.has_labels) {
      check_second(second, s, files[1], files[0], spec.label_shape, "labels");
      s.y = to_labels(second, spec.classes);
    } else {
      check_second(second, s, files[1], files[0], spec.target_shape, "targets");
      s.t = to_floats(second);
    }
  }
  return s;
}

// A CSV split: features and, with label_column, labels in one file; or a
// second single-column file of labels.
static Split load_csv(const DatasetSpec &spec, const std::vector<std::string> &paths, Split s) {
  CsvTable t = read_csv(paths[0], spec.label_column, spec.header, spec.classes);
  const int64_t want = spec.sample_floats();
  DXRT_CHECK(t.features == want,
             str(s.name, " CSV file '", paths[0], "' has ", t.features, " feature columns",
                 spec.label_column >= 0 ? str(" (besides label column ", spec.label_column, ")") : std::string(""),
                 ", but the dataset block's sample ", shape_str(spec.sample), " has ", want, " elements"),
             "fix `sample:` or `label_column:` in the dataset block");
  s.n = t.rows;
  s.x.assign(t.x.begin(), t.x.end());
  if (spec.label_column >= 0) {
    s.y = std::move(t.y);
  } else if (s.has_targets) {
    // A second file of target rows, one column per target.
    CsvTable tt = read_csv(paths[1], -1, spec.header, 0);
    DXRT_CHECK(tt.features == s.target_floats,
               str(s.name, " targets file '", paths[1], "' has ", tt.features, " columns, but the dataset block's targets ",
                   shape_str(spec.target_shape), " have ", s.target_floats, " elements"),
               "fix `targets:` in the dataset block or the file");
    DXRT_CHECK(tt.rows == s.n, str(s.name, " targets file '", paths[1], "' holds ", tt.rows, " rows for the ", s.n,
                                   " rows of '", paths[0], "'"), "");
    s.t = std::move(tt.x);
  } else if (s.has_labels) {
    CsvTable lab = read_csv(paths[1], 0, spec.header, spec.classes);
    DXRT_CHECK(lab.features == 0, str(s.name, " label file '", paths[1], "' has more than one column"), "");
    DXRT_CHECK(lab.rows == s.n, str(s.name, " label file '", paths[1], "' holds ", lab.rows, " labels for the ", s.n,
                                    " rows of '", paths[0], "'"), "");
    s.y = std::move(lab.y);
  }
  return s;
}

Split load_split(const DatasetSpec &spec, const std::vector<std::string> &files, const std::string &which,
                 const std::string &data_dir, Access access) {
  DXRT_CHECK(!files.empty(), str("the dataset block lists no ", which, " files"), "");
  Split s;
  s.name = which;
  s.sample_floats = spec.sample_floats();
  s.has_labels = spec.labelled();
  s.label_elems = spec.label_elems();
  s.has_targets = spec.targets;
  s.target_floats = spec.target_floats();
  std::vector<std::string> paths;
  for (const std::string &f : files) paths.push_back(resolve_path(f, data_dir));
  s.source = paths[0];
  // Images are decoded and normalised as gather() copies them.
  if (spec.format == "folder") return load_image_split(spec, paths[0], which);
  bool separate_labels = s.has_labels && !(spec.format == "csv" && spec.label_column >= 0);
  DXRT_CHECK(!separate_labels || paths.size() >= 2,
             str("the dataset is labelled but its ", which, " split lists no labels file (only '", files[0], "')"),
             str("give `", which, ": [\"inputs\", \"labels\"]` in the dataset block"));
  DXRT_CHECK(!s.has_targets || paths.size() >= 2,
             str("the dataset has targets but its ", which, " split lists no targets file (only '", files[0], "')"),
             str("give `", which, ": [\"inputs\", \"targets\"]` in the dataset block"));
  if (spec.format == "hdf5") s = load_hdf5(spec, files, data_dir, std::move(s));
  else if (spec.format == "idx" || spec.format == "npy") s = load_arrays(spec, paths, std::move(s), access);
  else if (spec.format == "csv") s = load_csv(spec, paths, std::move(s));
  else DXRT_FAIL(str("unknown dataset format '", spec.format, "'"), "the formats are idx, npy, csv, hdf5 and folder");
  if (s.mapped() || s.hdf5()) s.norm = normalization(spec, s.sample_floats);
  else normalize(s, spec);
  if (which == "train")
    if (std::optional<ArrayAugment> a = array_augment(spec)) s.augment = std::make_shared<const ArrayAugment>(*a);
  return s;
}

Normalization normalization(const DatasetSpec &spec, int64_t sample_floats) {
  const int64_t channels = spec.sample.empty() ? 1 : spec.sample[0];
  auto per_channel = [&](const std::vector<double> &v, const char *what, double neutral) {
    DXRT_CHECK(v.size() <= 1 || int64_t(v.size()) == channels,
               str("the dataset's ", what, " lists ", v.size(), " values, but the sample ", shape_str(spec.sample),
                   " has ", channels, " channels"),
               "give one value, or one per channel (the sample's first dimension)");
    std::vector<double> out(size_t(channels), v.empty() ? neutral : v[0]);
    if (v.size() > 1) out = v;
    return out;
  };
  std::vector<double> mean = per_channel(spec.mean, "mean", 0.0), sd = per_channel(spec.std, "std", 1.0);
  for (double d : sd) DXRT_CHECK(d > 0, str("the dataset's std ", d, " is not positive"), "");
  Normalization nm;
  nm.log1p = spec.transform == "log1p";
  nm.scale = float(spec.scale);
  nm.plane = channels ? sample_floats / channels : 0;
  for (int64_t c = 0; c < channels; ++c) {
    nm.mean.push_back(float(mean[size_t(c)]));
    nm.inv_std.push_back(float(1.0 / sd[size_t(c)]));
  }
  return nm;
}

void normalize(Split &s, const DatasetSpec &spec) {
  const Normalization nm = normalization(spec, s.sample_floats);
  for (int64_t i = 0; i < s.n; ++i)
    for (size_t c = 0; c < nm.mean.size(); ++c) {
      float *p = s.x.data() + i * s.sample_floats + int64_t(c) * nm.plane;
      const int64_t bad = convert(reinterpret_cast<const uint8_t *>(p), Dtype::F32, false, nm.plane, nm.scale, nm.mean[c],
                                  nm.inv_std[c], p, nm.log1p);
      if (bad >= 0) fail_non_finite(s.source, i * s.sample_floats + int64_t(c) * nm.plane + bad);
    }
}

} // namespace dxrt
