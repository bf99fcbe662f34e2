// `dx-analyze latent`: how well a 2- or 3-dimensional latent space separates
// frames by a per-frame value (for the protein-folding VAE: the fraction of
// native contacts Q, folded Q > 0.7 vs unfolded Q < 0.3). Writes the points
// (CSV) and a scatter plot (SVG), then fits a linear classifier on the latent
// coordinates: if a logistic regression tells the two classes apart, the
// model has learnt the folding coordinate without ever seeing Q.
#include "Arrays.h"
#include "Commands.h"
#include "Logistic.h"
#include "Scatter.h"
#include "util/Format.h"
#include "util/Npy.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

namespace dxan {
namespace {

struct Options {
  std::string latent, color, color_name = "Q", svg, csv, title;
  std::string fit_latent, fit_color;
  double above = 0.7, below = 0.3;
  int64_t max_points = 5000;
  std::optional<double> min_accuracy;
};

// A latent array [N, D] with D = 2 or 3, and its colour values [N].
struct Points {
  Array latent, color;
  int dims() const { return int(latent.shape[1]); }
};

Points load_points(const std::string &latent_path, const std::string &color_path) {
  Points p{load_array(latent_path), load_array(color_path)};
  const auto &s = p.latent.shape;
  if (s.size() != 2 || (s[1] != 2 && s[1] != 3))
    throw std::runtime_error(latent_path + ": expected latent coordinates [N, 2] or [N, 3], got " +
                             shape_string(s));
  require_vector(p.color, "the colour values");
  if (p.color.rows() != p.latent.rows())
    throw std::runtime_error("frame count mismatch: " + latent_path + " is " + shape_string(s) + " but " +
                             color_path + " is " + shape_string(p.color.shape));
  if (p.latent.rows() == 0) throw std::runtime_error(latent_path + ": no frames");
  require_finite(p.latent);
  require_finite(p.color);
  return p;
}

void make_parent(const std::string &path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) dx::make_directories(parent.string());
}

void write_text(const std::string &path, const std::string &text) {
  make_parent(path);
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw std::runtime_error(path + ": cannot write");
}

// The shortest decimal that reads back as the same float32 (CSV stays small
// and lossless: 0.1f is "0.1", not 0.10000000149011612).
std::string float_text(float v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string csv_field(const std::string &s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

void write_csv(const std::string &path, const Points &p, const std::string &color_name) {
  std::string text;
  for (int d = 0; d < p.dims(); ++d) text += "z" + std::to_string(d + 1) + ",";
  text += csv_field(color_name) + "\n";
  for (int64_t i = 0; i < p.latent.rows(); ++i) {
    for (int d = 0; d < p.dims(); ++d) text += float_text(p.latent.values[i * p.dims() + d]) + ",";
    text += float_text(p.color.values[i]) + "\n";
  }
  write_text(path, text);
}

// The two classes of a colour array: 1 above --above, 0 below --below,
// -1 (ignored) in between.
struct Labels {
  std::vector<int> label;
  int64_t ones = 0, zeros = 0, ignored = 0;
};

Labels label(const Array &color, double above, double below) {
  Labels l;
  for (float v : color.values) {
    const int y = v > above ? 1 : v < below ? 0 : -1;
    l.label.push_back(y);
    ++(y == 1 ? l.ones : y == 0 ? l.zeros : l.ignored);
  }
  return l;
}

std::string counts(const Labels &l, const Options &o) {
  return dx::withThousands(l.ones) + " with " + o.color_name + " > " + dx::shortest(o.above) + " (class 1), " +
         dx::withThousands(l.zeros) + " with " + o.color_name + " < " + dx::shortest(o.below) + " (class 0), " +
         dx::withThousands(l.ignored) + " in between ignored";
}

LogisticModel fit(const Points &p, const Labels &l, const Options &o) {
  std::vector<float> x;
  std::vector<int> y;
  for (int64_t i = 0; i < p.latent.rows(); ++i) {
    if (l.label[i] < 0) continue;
    x.insert(x.end(), p.latent.values.begin() + i * p.dims(), p.latent.values.begin() + (i + 1) * p.dims());
    y.push_back(l.label[i]);
  }
  if (l.ones == 0 || l.zeros == 0)
    throw std::runtime_error(p.color.path + ": no frames with " + o.color_name + " " +
                             (l.ones == 0 ? "> " + dx::shortest(o.above) : "< " + dx::shortest(o.below)) +
                             ", so there is nothing to tell apart (see --above and --below)");
  return fit_logistic(x, y, p.dims());
}

// "1.234*z1 - 0.5*z2 + 0.25"
std::string linear_form(const std::vector<double> &w, double b) {
  std::string s;
  for (size_t d = 0; d < w.size(); ++d) {
    const std::string term = dx::significant(std::fabs(w[d]), 4) + "*z" + std::to_string(d + 1);
    s += d == 0 ? (w[d] < 0 ? "-" : "") + term : (w[d] < 0 ? " - " : " + ") + term;
  }
  return s + (b < 0 ? " - " : " + ") + dx::significant(std::fabs(b), 4);
}

std::string rate(double v) { return std::isnan(v) ? "n/a" : dx::fixed(v, 4); }

void write_svg(const Options &o, const Points &p) {
  ScatterPlot plot;
  plot.latent = &p.latent.values;
  plot.dims = p.dims();
  plot.color = &p.color.values;
  plot.drawn = subsample(p.latent.rows(), o.max_points);
  plot.color_name = o.color_name;
  plot.title = o.title.empty() ? "Latent space of " + std::filesystem::path(o.latent).filename().string() +
                                     ", coloured by " + o.color_name
                               : o.title;
  write_text(o.svg, render_svg(plot));
  const int panels = panel_count(p.dims());
  std::printf("wrote %s: %s of %s points in %d panel%s\n", o.svg.c_str(),
              dx::withThousands(int64_t(plot.drawn.size())).c_str(), dx::withThousands(p.latent.rows()).c_str(),
              panels, panels == 1 ? "" : "s");
}

// The classifier's results on the labelled frames of the evaluated set.
struct Evaluation {
  int64_t correct = 0, labelled = 0;
  double accuracy = 0;          // correct / labelled
  double recall1 = 0, recall0 = 0; // per class; NaN for a class with no frames
  double balanced = 0;          // their mean: not fooled by one class outnumbering the other
};

Evaluation evaluate(const LogisticModel &model, const Points &p, const Labels &l) {
  int64_t right1 = 0, right0 = 0;
  for (int64_t i = 0; i < p.latent.rows(); ++i) {
    if (l.label[i] < 0) continue;
    const bool predicted = model.logit(&p.latent.values[i * p.dims()]) > 0;
    if (l.label[i] == 1 && predicted) ++right1;
    if (l.label[i] == 0 && !predicted) ++right0;
  }
  Evaluation e;
  e.correct = right1 + right0;
  e.labelled = l.ones + l.zeros;
  e.accuracy = double(e.correct) / double(e.labelled);
  e.recall1 = l.ones ? double(right1) / double(l.ones) : NAN;
  e.recall0 = l.zeros ? double(right0) / double(l.zeros) : NAN;
  e.balanced = (e.recall1 + e.recall0) / 2;
  return e;
}

void run(const Options &o, int &status) {
  if (o.below > o.above)
    throw std::runtime_error("--below " + dx::shortest(o.below) + " is above --above " + dx::shortest(o.above));
  if (o.fit_latent.empty() != o.fit_color.empty())
    throw std::runtime_error("--fit-latent and --fit-color go together");
  const Points eval = load_points(o.latent, o.color);
  // The classifier: fit on the given set (normally the training split's
  // latents), evaluated on --latent (normally the test split's). Loaded and
  // fit before anything is printed or written, so bad inputs leave no files.
  std::optional<Points> fit_points;
  if (!o.fit_latent.empty()) {
    fit_points = load_points(o.fit_latent, o.fit_color);
    if (fit_points->dims() != eval.dims())
      throw std::runtime_error("dimension mismatch: " + o.fit_latent + " is " +
                               shape_string(fit_points->latent.shape) + " but " + o.latent + " is " +
                               shape_string(eval.latent.shape));
  }
  const Labels eval_labels = label(eval.color, o.above, o.below);
  if (eval_labels.ones + eval_labels.zeros == 0)
    throw std::runtime_error(o.color + ": no frame has " + o.color_name + " > " + dx::shortest(o.above) +
                             " or < " + dx::shortest(o.below) + ", so there is nothing to evaluate");
  const Points &fp = fit_points ? *fit_points : eval;
  const Labels fit_labels = fit_points ? label(fp.color, o.above, o.below) : eval_labels;
  const LogisticModel model = fit(fp, fit_labels, o);

  const auto [cmin, cmax] = std::minmax_element(eval.color.values.begin(), eval.color.values.end());
  std::printf("latent: %s frames of %s, %d dimensions; %s from %s to %s (%s)\n",
              dx::withThousands(eval.latent.rows()).c_str(), o.latent.c_str(), eval.dims(), o.color_name.c_str(),
              dx::significant(*cmin, 4).c_str(), dx::significant(*cmax, 4).c_str(), o.color.c_str());

  if (!o.csv.empty()) {
    write_csv(o.csv, eval, o.color_name);
    std::printf("wrote %s: %s rows\n", o.csv.c_str(), dx::withThousands(eval.latent.rows()).c_str());
  }
  if (!o.svg.empty()) write_svg(o, eval);

  std::printf("classifier: logistic regression on the standardised latent coordinates (Newton/IRLS, %d "
              "iteration%s%s)\n",
              model.iterations, model.iterations == 1 ? "" : "s", model.converged ? "" : ", NOT converged");
  if (fit_points)
    std::printf("  fit on %s: %s\n", o.fit_latent.c_str(), counts(fit_labels, o).c_str());
  else
    std::printf("  fit on %s itself (no --fit-latent given, so the accuracy is measured on the fit set)\n",
                o.latent.c_str());
  std::printf("  evaluated on %s: %s\n", o.latent.c_str(), counts(eval_labels, o).c_str());

  const Evaluation e = evaluate(model, eval, eval_labels);
  std::printf("  accuracy %s (%s of %s)  balanced accuracy %s (class 1 %s, class 0 %s)\n", rate(e.accuracy).c_str(),
              dx::withThousands(e.correct).c_str(), dx::withThousands(e.labelled).c_str(),
              rate(e.balanced).c_str(), rate(e.recall1).c_str(), rate(e.recall0).c_str());
  std::printf("  decision boundary: %s = 0, class 1 where positive\n",
              linear_form(model.raw_weights(), model.raw_bias()).c_str());
  std::printf("  on standardised coordinates: %s\n", linear_form(model.weights, model.bias).c_str());

  if (o.min_accuracy && e.accuracy < *o.min_accuracy) {
    std::fprintf(stderr, "dx-analyze: accuracy %s is below --min-accuracy %s\n", rate(e.accuracy).c_str(),
                 dx::shortest(*o.min_accuracy).c_str());
    status = 1;
  }
}

} // namespace

void add_latent_command(CLI::App &app, int &status) {
  auto o = std::make_shared<Options>();
  CLI::App *cmd = app.add_subcommand(
      "latent",
      "Scatter plots (SVG) and CSV of a 2- or 3-dimensional latent space coloured by a per-frame value, "
      "and the accuracy of a logistic regression on the latent coordinates telling value > --above "
      "(class 1) from value < --below (class 0)");
  cmd->add_option("--latent", o->latent, "latent coordinates [N, 2] or [N, 3], e.g. export/test_mu.npy")
      ->type_name("FILE")
      ->required();
  cmd->add_option("--color", o->color, "one value per frame [N], e.g. data/peptide/test_q.npy")
      ->type_name("FILE")->required();
  cmd->add_option("--color-name", o->color_name, "name of the value (CSV header, plot, messages)")
      ->capture_default_str();
  cmd->add_option("--svg", o->svg, "write the scatter plots (every pair of latent dimensions) to this SVG file")
      ->type_name("FILE");
  cmd->add_option("--csv", o->csv, "write z1,z2[,z3],<color-name> per frame to this CSV file")
      ->type_name("FILE");
  cmd->add_option("--title", o->title, "the plot's title (default: Latent space of FILE, coloured by NAME)");
  cmd->add_option("--max-points", o->max_points, "draw at most this many points (evenly spaced subsample)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--fit-latent", o->fit_latent,
                  "fit the classifier on these latent coordinates (e.g. export/train_mu.npy) instead of --latent")
      ->type_name("FILE");
  cmd->add_option("--fit-color", o->fit_color, "the values of the --fit-latent frames (e.g. data/peptide/train_q.npy)")
      ->type_name("FILE");
  cmd->add_option("--above", o->above, "class 1: value > this")->capture_default_str();
  cmd->add_option("--below", o->below, "class 0: value < this (frames in between are ignored)")
      ->capture_default_str();
  cmd->add_option("--min-accuracy", o->min_accuracy,
                  "exit with status 1 if the classifier's accuracy on --latent is below this");
  cmd->callback([o, &status] { run(*o, status); });
}

} // namespace dxan
