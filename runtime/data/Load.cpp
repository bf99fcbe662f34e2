// From the dataset block to splits: read or map, check against the metadata,
// normalise (read splits now, mapped ones as gather() copies their samples).
#include "common/Check.h"
#include "data/Array.h"
#include "data/Csv.h"
#include "data/Dataset.h"
#include "data/ImageFolder.h"

#include <filesystem>

namespace dxrt {

int64_t DatasetSpec::sample_floats() const {
  int64_t n = 1;
  for (int64_t d : sample) n *= d;
  return n;
}

bool DatasetSpec::labelled() const {
  return train.size() >= 2 || (format == "csv" && label_column >= 0) || format == "folder";
}

std::string resolve_path(const std::string &name, const std::string &data_dir) {
  if (data_dir.empty() || std::filesystem::path(name).is_absolute()) return name;
  return (std::filesystem::path(data_dir) / name).string();
}

static std::vector<int64_t> tail(const std::vector<int64_t> &shape) { return {shape.begin() + 1, shape.end()}; }

// An IDX or NPY split: inputs [N, ...sample] and labels [N]. With Access::Map
// an uncompressed inputs file is mapped instead of read; labels are read.
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
    s.x = to_floats(in);
  }
  if (s.has_labels) {
    Array lab = read(paths[1]);
    DXRT_CHECK(lab.shape.size() == 1 || (lab.shape.size() == 2 && lab.shape[1] == 1),
               str(s.name, " labels '", paths[1], "' have shape ", shape_str(lab.shape), ": expected [N]"), "");
    DXRT_CHECK(lab.shape[0] == s.n,
               str(s.name, " labels '", paths[1], "' hold ", lab.shape[0], " labels for the ", s.n, " samples of '",
                   paths[0], "'"),
               "the inputs and labels files must come from the same split");
    s.y = to_labels(lab, spec.classes);
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
  s.x = std::move(t.x);
  if (spec.label_column >= 0) {
    s.y = std::move(t.y);
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
  std::vector<std::string> paths;
  for (const std::string &f : files) paths.push_back(resolve_path(f, data_dir));
  s.source = paths[0];
  // Images are decoded and normalised as gather() copies them.
  if (spec.format == "folder") return load_image_split(spec, paths[0], which);
  bool separate_labels = s.has_labels && !(spec.format == "csv" && spec.label_column >= 0);
  DXRT_CHECK(!separate_labels || paths.size() >= 2,
             str("the dataset is labelled but its ", which, " split lists no labels file (only '", files[0], "')"),
             str("give `", which, ": [\"inputs\", \"labels\"]` in the dataset block"));
  if (spec.format == "idx" || spec.format == "npy") s = load_arrays(spec, paths, std::move(s), access);
  else if (spec.format == "csv") s = load_csv(spec, paths, std::move(s));
  else DXRT_FAIL(str("unknown dataset format '", spec.format, "'"), "the formats are idx, npy, csv and folder");
  if (s.mapped()) s.norm = normalization(spec, s.sample_floats);
  else normalize(s, spec);
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
      convert(reinterpret_cast<const uint8_t *>(p), Dtype::F32, false, nm.plane, nm.scale, nm.mean[c], nm.inv_std[c], p);
    }
}

} // namespace dxrt
