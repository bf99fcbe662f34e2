// dx-datagen stem: simulated HAADF-STEM images of 2-D crystals labelled by
// Bravais lattice or wallpaper group (docs/datagen-stem.md), written as NPY
// arrays plus a JSON sidecar, and optionally as an ImageNet-style folder of
// PNGs for image-folder readers.
#include "Commands.h"

#include "common/Hdf5.h"
#include "common/Npy.h"
#include "common/Parallel.h"
#include "common/Png.h"
#include "common/Progress.h"
#include "common/Sidecar.h"
#include "common/Validators.h"
#include "stem/Dataset.h"
#include "stem/Lattice.h"
#include "util/Format.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace dxgen {

namespace {

using namespace stem;

constexpr int64_t kUnset = INT64_MIN;

struct StemOptions {
  std::string output = "data/stem";
  std::string task = "bravais";
  // Unset: the task's default (a sentinel no user can type by accident).
  int64_t train = kUnset, test = kUnset;
  int size = 64;
  ImagingParams imaging;
  std::vector<int> elements = MotifOptions{}.elements;
  uint64_t seed = 1;
  int threads = 0;
  bool quiet = false;
  std::string folder;
  bool rgb = false, no_npy = false, hdf5 = false, masks = false;
};

// Every check names its option; the message says what is allowed and why.
StemConfig validate(StemOptions &o) {
  StemConfig cfg;
  require(o.task == "bravais" || o.task == "wallpaper", "--task",
          "must be 'bravais' (5 Bravais lattices) or 'wallpaper' (17 wallpaper groups), got '" + o.task + "'");
  cfg.task = o.task == "bravais" ? StemTask::Bravais : StemTask::Wallpaper;
  // Wallpaper: 1000 training and 200 test images per group by default.
  if (o.train == kUnset) o.train = cfg.task == StemTask::Bravais ? 10000 : 17000;
  if (o.test == kUnset) o.test = cfg.task == StemTask::Bravais ? 2000 : 3400;
  require(o.train >= 0, "--train", "must be >= 0, got " + text(o.train));
  require(o.test >= 0, "--test", "must be >= 0, got " + text(o.test));
  require(o.train + o.test >= 1, "--train", "--train and --test are both 0: nothing to generate");
  require(o.size == 64 || o.size == 128, "--size", "must be 64 or 128 (pixels, square), got " + text(o.size));
  const ImagingParams &p = o.imaging;
  require(p.dose > 0 && p.dose <= 1e7, "--dose",
          "must be in (0, 1e7] (mean detected electrons per pixel), got " + text(p.dose));
  require(p.read_noise >= 0 && p.read_noise <= 1e4, "--read-noise",
          "must be in [0, 1e4] (electrons, standard deviation), got " + text(p.read_noise));
  require(p.vacancy_rate >= 0 && p.vacancy_rate <= 0.5, "--vacancy-rate",
          "must be in [0, 0.5] (fraction of columns missing), got " + text(p.vacancy_rate));
  require(p.distortion >= 0 && p.distortion <= 1, "--distortion",
          "must be in [0, 1] (Å; larger would scramble the lattice), got " + text(p.distortion));
  require(p.probe_fwhm >= 0.3 && p.probe_fwhm <= 5, "--probe-fwhm", "must be in [0.3, 5] (Å), got " + text(p.probe_fwhm));
  require(p.pixel_size >= 0.05 && p.pixel_size <= 1, "--pixel-size",
          "must be in [0.05, 1] (Å per pixel), got " + text(p.pixel_size));
  require(p.pixel_size <= p.probe_fwhm, "--pixel-size",
          "must not exceed --probe-fwhm (" + text(p.probe_fwhm) + " Å): columns would fall between pixels");
  require(!o.elements.empty(), "--elements", "needs at least one atomic number");
  for (int z : o.elements) require(z >= 1 && z <= 92, "--elements", "atomic numbers must be in 1..92, got " + text(z));
  require(o.threads >= 0, "--threads", "must be >= 0 (0: all cores), got " + text(o.threads));
  require(!o.rgb || !o.folder.empty(), "--rgb", "applies to the PNGs of --folder; give --folder DIR");
  require(!o.no_npy || !o.folder.empty(), "--no-npy", "with no --folder there would be nothing to write");
  require(p.dopant_rate >= 0 && p.dopant_rate <= 0.5, "--dopant-rate",
          "must be in [0, 0.5] (fraction of columns substituted), got " + text(p.dopant_rate));
  require(p.dopant_z == 0 || (p.dopant_z >= 1 && p.dopant_z <= 92), "--dopant",
          "must be an atomic number in 1..92, got " + text(p.dopant_z));
  require(p.dopant_rate == 0 || p.dopant_z != 0, "--dopant-rate", "needs --dopant Z (the substituting element)");
  require(p.dopant_z == 0 || p.dopant_rate > 0, "--dopant", "has no effect without --dopant-rate > 0");
  require(!o.masks || !o.no_npy, "--masks", "writes NPY masks; not with --no-npy");
  cfg.train = o.train;
  cfg.test = o.test;
  cfg.imaging = o.imaging;
  cfg.imaging.size = o.size;
  cfg.motif.elements = o.elements;
  cfg.seed = o.seed;
  cfg.masks = o.masks;
  return cfg;
}

// The command that regenerates the dataset (threads and output aside).
std::string command_line(const StemOptions &o, const StemConfig &c) {
  const ImagingParams &p = c.imaging;
  return "dx-datagen stem --task " + o.task + " --train " + text(c.train) + " --test " + text(c.test) + " --size " +
         text(p.size) + " --dose " + text(p.dose) + " --read-noise " + text(p.read_noise) + " --vacancy-rate " +
         text(p.vacancy_rate) + " --distortion " + text(p.distortion) + " --probe-fwhm " + text(p.probe_fwhm) +
         " --pixel-size " + text(p.pixel_size) + " --elements " + join(o.elements) + " --seed " + text(c.seed) +
         (p.dopant_rate > 0 ? " --dopant " + text(p.dopant_z) + " --dopant-rate " + text(p.dopant_rate) : "") +
         (c.masks ? " --masks" : "");
}

nlohmann::json sidecar(const StemOptions &o, const StemConfig &c, const StemData &d) {
  using nlohmann::json;
  const int classes = num_classes(c.task);
  const ImagingParams &p = c.imaging;
  const MotifOptions &m = c.motif;
  json names = json::array(), train_counts = json::object(), test_counts = json::object();
  for (int k = 0; k < classes; ++k) {
    const std::string n = class_name(c.task, k);
    names.push_back(n);
    train_counts[n] = std::count(d.train_labels.begin(), d.train_labels.end(), k);
    test_counts[n] = std::count(d.test_labels.begin(), d.test_labels.end(), k);
  }
  const int64_t S = p.size;
  json doc = {
      {"generator", "dx-datagen stem"},
      {"version", "dx-datagen 0.1"},
      {"command", command_line(o, c)},
      {"task", o.task},
      {"num_classes", classes},
      {"class_names", names},
      {"seed", c.seed},
      {"counts", {{"train", c.train}, {"test", c.test}, {"train_per_class", train_counts}, {"test_per_class", test_counts}}},
      {"parameters",
       {{"size_px", p.size},
        {"pixel_size_A", p.pixel_size},
        {"field_of_view_A", p.size * p.pixel_size},
        {"probe_fwhm_A", p.probe_fwhm},
        {"dose_electrons_per_pixel", p.dose},
        {"read_noise_electrons", p.read_noise},
        {"vacancy_rate", p.vacancy_rate},
        {"distortion_A", p.distortion},
        {"background_fraction", p.background},
        {"z_exponent", p.z_exponent},
        {"elements", m.elements},
        {"max_column_contrast", m.max_contrast},
        {"area_per_atom_A2", {m.area_per_atom_min, m.area_per_atom_max}},
        {"min_separation_A", m.min_separation},
        {"symmetry_margin_A", m.symmetry_margin},
        {"max_atoms_per_primitive_cell", m.max_atoms_per_cell},
        {"lattice_margins",
         {{"rectangular_ratio", {LatticeMargins::rect_min, LatticeMargins::rect_max}},
          {"centred_rectangular_ratio",
           {{LatticeMargins::crect_low_min, LatticeMargins::crect_low_max},
            {LatticeMargins::crect_high_min, LatticeMargins::crect_high_max}}},
          {"oblique_gamma_deg", {LatticeMargins::oblique_gamma_min, LatticeMargins::oblique_gamma_max}},
          {"oblique_ratio", {LatticeMargins::oblique_ratio_min, LatticeMargins::oblique_ratio_max}},
          {"oblique_offset_max", LatticeMargins::oblique_offset_max}}}}},
      {"normalisation", "per image: (counts - mean) / std"},
  };
  if (!o.no_npy)
    doc["files"] = {
        {"train_images", {{"path", "train_images.npy"}, {"dtype", "float32"}, {"shape", {c.train, 1, S, S}}}},
        {"test_images", {{"path", "test_images.npy"}, {"dtype", "float32"}, {"shape", {c.test, 1, S, S}}}},
        {"train_labels", {{"path", "train_labels.npy"}, {"dtype", "int64"}, {"shape", {c.train}}}},
        {"test_labels", {{"path", "test_labels.npy"}, {"dtype", "int64"}, {"shape", {c.test}}}},
    };
  if (p.dopant_rate > 0) doc["parameters"]["dopant"] = {{"z", p.dopant_z}, {"rate", p.dopant_rate}};
  if (c.masks) {
    const std::vector<int> species = species_list(c);
    json sp = json::array();
    for (size_t k = 0; k < species.size(); ++k) sp.push_back({{"label", k + 1}, {"z", species[k]}});
    doc["masks"] = {
        {"classes", int(species.size()) + 1},
        {"background", 0},
        {"species", sp},
        {"radius_A", mask_radius(p)},
        {"radius_px", mask_radius(p) / p.pixel_size},
        {"rule", "a pixel takes the species of the nearest column whose probe intensity there is at least half its "
                 "peak (distance <= FWHM/2 from the pixel's probe position, scan distortion included); else 0"},
        {"columns", "image,x_px,y_px,x_A,y_A,species,z: every column covering at least one pixel; nominal "
                    "position, pixel (i, j) centred at x_px = j, y_px = i; x_A = (x_px + 0.5) * pixel_size_A"},
    };
    doc["files"]["train_masks"] = {{"path", "train_masks.npy"}, {"dtype", "int64"}, {"shape", {c.train, S, S}}};
    doc["files"]["test_masks"] = {{"path", "test_masks.npy"}, {"dtype", "int64"}, {"shape", {c.test, S, S}}};
    doc["files"]["train_columns"] = {{"path", "train_columns.csv"}, {"rows", d.train_columns.size()}};
    doc["files"]["test_columns"] = {{"path", "test_columns.csv"}, {"rows", d.test_columns.size()}};
  }
  if (!o.folder.empty())
    doc["folder"] = {{"path", o.folder},
                     {"layout", "train/<class>/<index>.png, val/<class>/<index>.png (index into the split)"},
                     {"channels", o.rgb ? 3 : 1},
                     {"pixels", "8-bit, per image min..max of the normalised image mapped to 0..255"}};
  return doc;
}

// 8-bit PNG of a normalised image: its own min..max onto 0..255 (the
// contrast a microscopist's viewer would show).
void write_image_png(const std::string &path, const float *z, int size, bool rgb) {
  const size_t n = size_t(size) * size_t(size);
  const auto [lo, hi] = std::minmax_element(z, z + n);
  const float range = *hi - *lo;
  const int ch = rgb ? 3 : 1;
  std::vector<uint8_t> px(n * size_t(ch));
  for (size_t q = 0; q < n; ++q) {
    const float v = range > 0 ? (z[q] - *lo) / range : 0.0f;
    const uint8_t b = uint8_t(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f));
    for (int k = 0; k < ch; ++k) px[q * size_t(ch) + size_t(k)] = b;
  }
  write_png(path, size, size, ch, px.data());
}

// The true columns of a split as CSV, one row per column, in image order.
void write_columns_csv(const std::string &path, const std::vector<ColumnRecord> &columns) {
  FILE *f = std::fopen(path.c_str(), "w");
  if (!f) throw std::runtime_error("cannot write " + path);
  std::fprintf(f, "image,x_px,y_px,x_A,y_A,species,z\n");
  for (const ColumnRecord &c : columns)
    std::fprintf(f, "%lld,%.4f,%.4f,%.4f,%.4f,%d,%d\n", (long long)c.image, c.x_px, c.y_px, c.x_A, c.y_A, c.species,
                 c.z);
  if (std::fclose(f) != 0) throw std::runtime_error("cannot write " + path);
}

void run(StemOptions &o) {
  const StemConfig cfg = validate(o);
  const auto start = std::chrono::steady_clock::now();
  const int classes = num_classes(cfg.task), threads = resolve_threads(o.threads);
  const int S = cfg.imaging.size;

  make_directories(o.output);
  ImageSink sink;
  if (!o.folder.empty()) {
    for (const char *split : {"train", "val"})
      for (int k = 0; k < classes; ++k) make_directories(o.folder + "/" + split + "/" + class_name(cfg.task, k));
    const int width[2] = {int(std::to_string(std::max<int64_t>(cfg.train - 1, 0)).size()),
                          int(std::to_string(std::max<int64_t>(cfg.test - 1, 0)).size())};
    sink = [&, width](int split, int64_t index, int64_t label, const float *pixels) {
      char name[32];
      std::snprintf(name, sizeof name, "%0*lld.png", width[split], (long long)index);
      write_image_png(o.folder + (split == 0 ? "/train/" : "/val/") + class_name(cfg.task, int(label)) + "/" + name,
                      pixels, S, o.rgb);
    };
  }

  Progress progress("stem: " + o.task + " images", cfg.train + cfg.test, o.quiet);
  const StemData data = generate_dataset(cfg, threads, &progress, sink);
  progress.finish();

  if (!o.no_npy) {
    write_npy(o.output + "/train_images.npy", {cfg.train, 1, S, S}, data.train_images.data());
    write_npy(o.output + "/test_images.npy", {cfg.test, 1, S, S}, data.test_images.data());
    write_npy(o.output + "/train_labels.npy", {cfg.train}, data.train_labels.data());
    write_npy(o.output + "/test_labels.npy", {cfg.test}, data.test_labels.data());
  }
  if (cfg.masks) {
    write_npy(o.output + "/train_masks.npy", {cfg.train, S, S}, data.train_masks.data());
    write_npy(o.output + "/test_masks.npy", {cfg.test, S, S}, data.test_masks.data());
    write_columns_csv(o.output + "/train_columns.csv", data.train_columns);
    write_columns_csv(o.output + "/test_columns.csv", data.test_columns);
  }
  if (o.hdf5) {
    // The same arrays in one file: format: hdf5, "stem.h5:/train/images".
    Hdf5Writer h5(o.output + "/stem.h5");
    h5.write("/train/images", {cfg.train, 1, S, S}, data.train_images.data());
    h5.write("/train/labels", {cfg.train}, data.train_labels.data());
    h5.write("/test/images", {cfg.test, 1, S, S}, data.test_images.data());
    h5.write("/test/labels", {cfg.test}, data.test_labels.data());
    if (cfg.masks) {
      h5.write("/train/masks", {cfg.train, S, S}, data.train_masks.data());
      h5.write("/test/masks", {cfg.test, S, S}, data.test_masks.data());
    }
    h5.close();
  }
  const nlohmann::json doc = sidecar(o, cfg, data);
  write_sidecar(o.output + "/stem.json", doc);
  if (!o.folder.empty()) write_sidecar(o.folder + "/stem.json", doc);

  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("dx-datagen stem: %s, %s train + %s test images %dx%d in %s s (%d threads)\n", o.task.c_str(),
              dx::withThousands(cfg.train).c_str(), dx::withThousands(cfg.test).c_str(), S, S,
              dx::fixed(seconds, 1).c_str(), threads);
  std::printf("  %-20s %8s %8s\n", "class", "train", "test");
  for (int k = 0; k < classes; ++k)
    std::printf("  %-20s %8s %8s\n", class_name(cfg.task, k).c_str(),
                doc["counts"]["train_per_class"][class_name(cfg.task, k)].dump().c_str(),
                doc["counts"]["test_per_class"][class_name(cfg.task, k)].dump().c_str());
  if (!o.no_npy) std::printf("  wrote %s/{train,test}_{images,labels}.npy and stem.json\n", o.output.c_str());
  if (cfg.masks)
    std::printf("  wrote %s/{train,test}_masks.npy (%zu classes, radius %s Å) and {train,test}_columns.csv "
                "(%zu + %zu columns)\n",
                o.output.c_str(), species_list(cfg).size() + 1, dx::fixed(mask_radius(cfg.imaging), 2).c_str(),
                data.train_columns.size(), data.test_columns.size());
  if (o.hdf5) std::printf("  wrote %s/stem.h5\n", o.output.c_str());
  else std::printf("  wrote %s/stem.json\n", o.output.c_str());
  if (!o.folder.empty())
    std::printf("  wrote %s/{train,val}/<class>/<index>.png (%s)\n", o.folder.c_str(), o.rgb ? "RGB" : "grey");
}

} // namespace

void add_stem_command(CLI::App &app) {
  auto o = std::make_shared<StemOptions>();
  auto *cmd = app.add_subcommand(
      "stem", "Simulated HAADF-STEM images of 2-D crystals labelled by Bravais lattice or wallpaper group "
              "(docs/datagen-stem.md)");
  cmd->add_option("-o,--output", o->output, "Output directory")->capture_default_str();
  cmd->add_option("--task", o->task, "bravais (5 lattices, labels 0..4) or wallpaper (17 groups, labels 0..16)")
      ->capture_default_str();
  cmd->add_option("--train", o->train, "Training images (default 10000 bravais, 17000 wallpaper)");
  cmd->add_option("--test", o->test, "Test images (default 2000 bravais, 3400 wallpaper)");
  cmd->add_option("--size", o->size, "Image side in pixels: 64 or 128")->capture_default_str();
  cmd->add_option("--dose", o->imaging.dose, "Mean detected electrons per pixel (Poisson shot noise)")
      ->capture_default_str();
  cmd->add_option("--read-noise", o->imaging.read_noise, "Gaussian detector read noise, electrons (std)")
      ->capture_default_str();
  cmd->add_option("--vacancy-rate", o->imaging.vacancy_rate, "Fraction of atomic columns missing")
      ->capture_default_str();
  cmd->add_option("--distortion", o->imaging.distortion,
                  "Scan distortion scale in Å (line jitter, stray-field sine, flyback, drift); 0 for none")
      ->capture_default_str();
  cmd->add_option("--probe-fwhm", o->imaging.probe_fwhm, "Probe FWHM in Å (Gaussian)")->capture_default_str();
  cmd->add_option("--pixel-size", o->imaging.pixel_size, "Pixel size in Å")->capture_default_str();
  cmd->add_option("--elements", o->elements, "Atomic numbers the motif atoms are drawn from")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "Random seed (the data depend only on it and the parameters)")
      ->capture_default_str();
  cmd->add_option("--threads", o->threads, "Worker threads (0: all cores; the output does not depend on it)")
      ->capture_default_str();
  cmd->add_flag("--quiet", o->quiet, "No progress output");
  cmd->add_option("--folder", o->folder,
                  "Also write an image folder DIR/train/<class>/<index>.png and DIR/val/<class>/<index>.png");
  cmd->add_flag("--rgb", o->rgb, "PNGs of --folder as RGB (grey replicated, for 3-channel networks)");
  cmd->add_flag("--no-npy", o->no_npy, "Write only the --folder tree (and stem.json), no NPY arrays");
  cmd->add_flag("--hdf5", o->hdf5,
                "Also write the arrays to OUTPUT/stem.h5 (/train/images, /train/labels, /test/images, /test/labels; "
                "chunked, gzip) for format: hdf5");
  cmd->add_flag("--masks", o->masks,
                "Also write per-pixel class maps {train,test}_masks.npy (int64 [N, S, S]: 0 background, 1.. the "
                "species of the column within FWHM/2) and the true columns {train,test}_columns.csv");
  cmd->add_option("--dopant", o->imaging.dopant_z, "Atomic number of substitutional dopants (with --dopant-rate)");
  cmd->add_option("--dopant-rate", o->imaging.dopant_rate,
                  "Fraction of columns whose element is replaced by --dopant (0: none)")
      ->capture_default_str();
  cmd->callback([o] { run(*o); });
}

} // namespace dxgen
