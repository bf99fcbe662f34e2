#include "stem/Dataset.h"

#include "common/Parallel.h"
#include "stem/Wallpaper.h"

#include <algorithm>
#include <cmath>

namespace dxgen::stem {

int num_classes(StemTask task) { return task == StemTask::Bravais ? kLatticeSystems : kWallpaperGroups; }

std::string class_name(StemTask task, int label) {
  return task == StemTask::Bravais ? lattice_system_name(LatticeSystem(label)) : wallpaper_group(label).name;
}

Scene draw_scene(const StemConfig &cfg, int label, Rng &rng) {
  Scene s;
  s.crystal = cfg.task == StemTask::Bravais ? make_bravais_crystal(LatticeSystem(label), cfg.motif, rng)
                                            : make_wallpaper_crystal(label, cfg.motif, rng);
  s.view.theta = rng.uniform(0, 2 * M_PI);
  s.view.origin = s.crystal.cart({rng.uniform(), rng.uniform()});
  return s;
}

uint64_t image_stream(int split, int64_t index) { return (uint64_t(split) << 40) + uint64_t(index); }

std::vector<float> generate_image(const StemConfig &cfg, int split, int64_t index, int label) {
  Rng rng(cfg.seed, image_stream(split, index));
  const Scene s = draw_scene(cfg, label, rng);
  const ScanDistortion d = draw_scan_distortion(cfg.imaging, rng);
  const std::vector<double> signal = render_signal(s.crystal, s.view, cfg.imaging, d, rng);
  return normalise(detect(signal, cfg.imaging, rng));
}

std::vector<int> species_list(const StemConfig &cfg) {
  std::vector<int> z;
  for (int e : cfg.motif.elements)
    if (std::find(z.begin(), z.end(), e) == z.end()) z.push_back(e);
  if (cfg.imaging.dopant_rate > 0 && std::find(z.begin(), z.end(), cfg.imaging.dopant_z) == z.end())
    z.push_back(cfg.imaging.dopant_z);
  return z;
}

Sample generate_sample(const StemConfig &cfg, int split, int64_t index, int label) {
  // The same draws in the same order as generate_image: the mask and the
  // columns come from the render pass, which draws nothing extra for them.
  Rng rng(cfg.seed, image_stream(split, index));
  const Scene s = draw_scene(cfg, label, rng);
  const ScanDistortion d = draw_scan_distortion(cfg.imaging, rng);
  std::vector<Column> columns;
  const std::vector<double> signal = render_signal(s.crystal, s.view, cfg.imaging, d, rng, &columns);
  Sample out;
  out.image = normalise(detect(signal, cfg.imaging, rng));
  const std::vector<int> species = species_list(cfg);
  std::vector<int> pixels;
  out.mask = column_mask(columns, cfg.imaging, d, species, &pixels);
  const double ps = cfg.imaging.pixel_size;
  for (size_t c = 0; c < columns.size(); ++c) {
    if (pixels[c] == 0) continue;
    const Column &col = columns[c];
    const int sp = int(std::find(species.begin(), species.end(), col.z) - species.begin()) + 1;
    out.columns.push_back({index, col.r.x / ps - 0.5, col.r.y / ps - 0.5, col.r.x, col.r.y, sp, col.z});
  }
  return out;
}

std::vector<int64_t> balanced_labels(int64_t n, int classes, uint64_t seed, int split) {
  std::vector<int64_t> labels(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) labels[size_t(i)] = i % classes;
  // Fisher-Yates with a stream no image uses.
  Rng rng(seed, (uint64_t(2) << 40) + uint64_t(split));
  for (int64_t i = n - 1; i > 0; --i) std::swap(labels[size_t(i)], labels[size_t(rng.below(uint64_t(i + 1)))]);
  return labels;
}

StemData generate_dataset(const StemConfig &cfg, int threads, Progress *progress, const ImageSink &sink) {
  StemData data;
  const int classes = num_classes(cfg.task);
  const size_t pixels = size_t(cfg.imaging.size) * size_t(cfg.imaging.size);
  data.train_labels = balanced_labels(cfg.train, classes, cfg.seed, 0);
  data.test_labels = balanced_labels(cfg.test, classes, cfg.seed, 1);
  data.train_images.resize(size_t(cfg.train) * pixels);
  data.test_images.resize(size_t(cfg.test) * pixels);
  // Columns per image, joined in image order afterwards (any thread count).
  std::vector<std::vector<ColumnRecord>> columns[2];
  if (cfg.masks) {
    data.train_masks.resize(size_t(cfg.train) * pixels);
    data.test_masks.resize(size_t(cfg.test) * pixels);
    columns[0].resize(size_t(cfg.train));
    columns[1].resize(size_t(cfg.test));
  }
  parallel_for(cfg.train + cfg.test, threads, [&](int64_t task) {
    const int split = task < cfg.train ? 0 : 1;
    const int64_t index = split == 0 ? task : task - cfg.train;
    const int64_t label = (split == 0 ? data.train_labels : data.test_labels)[size_t(index)];
    std::vector<float> img;
    if (cfg.masks) {
      Sample s = generate_sample(cfg, split, index, int(label));
      img = std::move(s.image);
      std::copy(s.mask.begin(), s.mask.end(),
                (split == 0 ? data.train_masks : data.test_masks).data() + size_t(index) * pixels);
      columns[split][size_t(index)] = std::move(s.columns);
    } else {
      img = generate_image(cfg, split, index, int(label));
    }
    float *dst = (split == 0 ? data.train_images : data.test_images).data() + size_t(index) * pixels;
    std::copy(img.begin(), img.end(), dst);
    if (sink) sink(split, index, label, dst);
    if (progress) progress->add();
  });
  for (int split = 0; split < 2; ++split)
    for (const auto &v : columns[split])
      (split == 0 ? data.train_columns : data.test_columns).insert(
          (split == 0 ? data.train_columns : data.test_columns).end(), v.begin(), v.end());
  return data;
}

} // namespace dxgen::stem
