// `dx-analyze atoms`: atomic columns found in a model's per-pixel class maps
// (exported logits [N, C, H, W], argmax over C, or class maps [N, H, W]),
// scored against the true columns dx-datagen stem --masks writes
// ({train,test}_columns.csv): precision, recall, F1 and the mean position
// error per species, as a table or as JSON.
#include "Arrays.h"
#include "Atoms.h"
#include "Commands.h"
#include "util/Format.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>

namespace dxan {
namespace {

struct Options {
  std::string logits, columns, found_csv;
  double pixel_size = 0.25, tolerance = 0.5;
  int64_t min_pixels = 3;
  bool json = false;
};

constexpr const char *kHeader = "image,x_px,y_px,x_A,y_A,species,z";

// The true columns of one split; checks the header, every field, the
// pixel size (x_A = (x_px + 0.5) * pixel size) and the image indices.
std::vector<AtomColumn> read_columns(const std::string &path, double pixel_size, int64_t images, int h, int w) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  std::string line;
  if (!std::getline(in, line) || (line != kHeader && line != std::string(kHeader) + "\r"))
    throw std::runtime_error(path + ": expected the header '" + kHeader +
                             "' (dx-datagen stem --masks writes {train,test}_columns.csv)");
  std::vector<AtomColumn> out;
  for (int64_t row = 2; std::getline(in, line); ++row) {
    if (line.empty() || line == "\r") continue;
    std::istringstream ss(line);
    std::string f[7];
    int k = 0;
    while (k < 7 && std::getline(ss, f[k], ',')) ++k;
    const std::string where = path + ":" + std::to_string(row) + ": ";
    if (k != 7) throw std::runtime_error(where + "expected 7 fields (" + kHeader + "), got '" + line + "'");
    AtomColumn c;
    double xa = 0, ya = 0;
    try {
      size_t used = 0;
      c.image = std::stoll(f[0], &used);
      c.x = std::stod(f[1]);
      c.y = std::stod(f[2]);
      xa = std::stod(f[3]);
      ya = std::stod(f[4]);
      c.species = std::stoi(f[5]);
    } catch (const std::exception &) {
      throw std::runtime_error(where + "not a number in '" + line + "'");
    }
    if (c.image < 0 || c.image >= images)
      throw std::runtime_error(where + "image " + std::to_string(c.image) + " is not among the " +
                               std::to_string(images) + " predicted maps (the same split?)");
    if (c.species < 1) throw std::runtime_error(where + "species must be >= 1, got " + std::to_string(c.species));
    if (std::abs(xa - (c.x + 0.5) * pixel_size) > 2e-3 || std::abs(ya - (c.y + 0.5) * pixel_size) > 2e-3)
      throw std::runtime_error(where + "x_A, y_A do not match x_px, y_px at --pixel-size " +
                               dx::shortest(pixel_size) + " Å (x_A = (x_px + 0.5) * pixel size)");
    c.inside = c.x >= -0.5 && c.y >= -0.5 && c.x < w - 0.5 && c.y < h - 0.5;
    out.push_back(c);
  }
  return out;
}

std::string rate(double v) { return std::isnan(v) ? "n/a" : dx::fixed(v, 4); }
nlohmann::json rate_json(double v) { return std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v); }

nlohmann::json counts_json(const AtomCounts &c) {
  return {{"true", c.truth},          {"found", c.found},        {"tp", c.tp},
          {"fp", c.fp},               {"fn", c.fn},              {"precision", rate_json(c.precision())},
          {"recall", rate_json(c.recall())}, {"f1", rate_json(c.f1())}, {"mean_error_A", rate_json(c.mean_error())}};
}

void write_found(const std::string &path, const std::vector<AtomColumn> &found, const std::vector<int> &match,
                 double pixel_size) {
  FILE *f = std::fopen(path.c_str(), "w");
  if (!f) throw std::runtime_error(path + ": cannot write");
  std::fprintf(f, "image,x_px,y_px,x_A,y_A,species,pixels,matched\n");
  for (size_t k = 0; k < found.size(); ++k) {
    const AtomColumn &c = found[k];
    std::fprintf(f, "%lld,%.4f,%.4f,%.4f,%.4f,%d,%lld,%d\n", (long long)c.image, c.x, c.y, (c.x + 0.5) * pixel_size,
                 (c.y + 0.5) * pixel_size, c.species, (long long)c.pixels, match[k] >= 0 ? 1 : 0);
  }
  if (std::fclose(f) != 0) throw std::runtime_error(path + ": cannot write");
}

void run(const Options &o) {
  if (!(o.pixel_size > 0)) throw std::runtime_error("--pixel-size must be > 0, not " + dx::shortest(o.pixel_size));
  if (!(o.tolerance > 0)) throw std::runtime_error("--tolerance must be > 0, not " + dx::shortest(o.tolerance));
  const Array pred = load_array(o.logits);
  require_finite(pred);
  const auto &s = pred.shape;
  if (s.size() != 4 && s.size() != 3)
    throw std::runtime_error(o.logits + ": expected logits [N, C, H, W] or class maps [N, H, W], got " +
                             shape_string(s));
  const bool logits = s.size() == 4;
  const int64_t images = s[0];
  const int h = int(s[s.size() - 2]), w = int(s.back());
  int classes = logits ? int(s[1]) : 0;
  if (logits && classes < 2)
    throw std::runtime_error(o.logits + ": logits need at least 2 classes (background and a species), got " +
                             shape_string(s));
  std::vector<int32_t> labels;
  if (logits) {
    labels = argmax_classes(pred.values.data(), images, classes, h, w);
  } else {
    labels.resize(pred.values.size());
    for (size_t k = 0; k < labels.size(); ++k) {
      const float v = pred.values[k];
      if (v < 0 || v != std::floor(v))
        throw std::runtime_error(o.logits + ": class maps must hold non-negative integers, found " +
                                 dx::shortest(v) + " at " + index_string(s, k));
      labels[k] = int32_t(v);
      classes = std::max(classes, int(v) + 1);
    }
  }
  const std::vector<AtomColumn> truth = read_columns(o.columns, o.pixel_size, images, h, w);
  for (const AtomColumn &c : truth) {
    if (logits && c.species >= classes)
      throw std::runtime_error(o.columns + ": species " + std::to_string(c.species) + " has no class in " +
                               o.logits + " (" + std::to_string(classes) + " classes: 0 background, 1.." +
                               std::to_string(classes - 1) + ")");
    classes = std::max(classes, c.species + 1);
  }
  const int species = classes - 1;
  const std::vector<AtomColumn> found = find_columns(labels.data(), images, h, w, o.min_pixels);
  const AtomMatchResult r = match_columns(found, truth, species, o.pixel_size, o.tolerance);
  if (!o.found_csv.empty()) write_found(o.found_csv, found, r.found_match, o.pixel_size);

  if (o.json) {
    nlohmann::json per = nlohmann::json::array();
    for (int k = 0; k < species; ++k) {
      nlohmann::json c = counts_json(r.per_species[size_t(k)]);
      c["species"] = k + 1;
      per.push_back(c);
    }
    const nlohmann::json j = {{"predictions", o.logits},
                              {"columns", o.columns},
                              {"images", images},
                              {"height", h},
                              {"width", w},
                              {"classes", classes},
                              {"input", logits ? "logits" : "class maps"},
                              {"pixel_size_A", o.pixel_size},
                              {"tolerance_A", o.tolerance},
                              {"min_pixels", o.min_pixels},
                              {"species", per},
                              {"all", counts_json(r.all)},
                              {"any_species", counts_json(r.any_species)}};
    std::printf("%s\n", j.dump(2).c_str());
    return;
  }
  std::printf("atoms: %s images %dx%d, %d classes (%s); a column: a 4-connected foreground component of >= %lld "
              "pixels, its centroid and majority class; matched within %s Å (%s Å per pixel)\n",
              dx::withThousands(images).c_str(), h, w, classes, logits ? "argmax of the logits" : "class maps",
              (long long)o.min_pixels, dx::shortest(o.tolerance).c_str(), dx::shortest(o.pixel_size).c_str());
  std::printf("%-11s %9s %9s %9s %9s %9s %10s %8s %8s %12s\n", "species", "true", "found", "TP", "FP", "FN",
              "precision", "recall", "F1", "mean err Å");
  auto row = [](const std::string &label, const AtomCounts &c) {
    std::printf("%-11s %9s %9s %9s %9s %9s %10s %8s %8s %12s\n", label.c_str(), dx::withThousands(c.truth).c_str(),
                dx::withThousands(c.found).c_str(), dx::withThousands(c.tp).c_str(), dx::withThousands(c.fp).c_str(),
                dx::withThousands(c.fn).c_str(), rate(c.precision()).c_str(), rate(c.recall()).c_str(),
                rate(c.f1()).c_str(), rate(c.mean_error()).c_str());
  };
  for (int k = 0; k < species; ++k) row(std::to_string(k + 1), r.per_species[size_t(k)]);
  row("all", r.all);
  row("any", r.any_species);
  std::printf("precision TP/(TP+FP), recall TP/(TP+FN); 'all' needs the species to match, 'any' ignores it; true "
              "columns centred outside the field are optional (neither TP nor FN)\n");
}

} // namespace

void add_atoms_command(CLI::App &app, int &) {
  auto o = std::make_shared<Options>();
  CLI::App *cmd = app.add_subcommand(
      "atoms", "Atomic columns found in per-pixel class maps (connected components, centroid, majority species) "
               "and their precision and recall against the true columns of dx-datagen stem --masks, per species");
  cmd->add_option("--logits", o->logits,
                  "predicted maps: exported logits [N, C, H, W] (argmax over C; e.g. export/test_logits.npy or "
                  "predictions/predict_logits.npy) or class maps [N, H, W]")
      ->type_name("FILE")
      ->required();
  cmd->add_option("--columns", o->columns, "true columns of the same images, e.g. data/stem-atoms/test_columns.csv")
      ->type_name("FILE")
      ->required();
  cmd->add_option("--pixel-size", o->pixel_size, "Å per pixel (dx-datagen stem --pixel-size)")->capture_default_str();
  cmd->add_option("--tolerance", o->tolerance, "a found column matches a true one of its species within this, Å")
      ->capture_default_str();
  cmd->add_option("--min-pixels", o->min_pixels, "smaller components are noise, not columns")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--found", o->found_csv,
                  "write the found columns as CSV (image,x_px,y_px,x_A,y_A,species,pixels,matched)")
      ->type_name("FILE");
  cmd->add_flag("--json", o->json, "print one JSON object instead of the table");
  cmd->callback([o] { run(*o); });
}

} // namespace dxan
