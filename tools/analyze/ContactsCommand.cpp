// `dx-analyze contacts`: reads exported reconstruction logits and the true
// contact maps, checks that they describe the same frames, and prints the
// reconstruction quality of Contacts.h as a table or as JSON.
#include "Arrays.h"
#include "Commands.h"
#include "Contacts.h"
#include "util/Format.h"

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace dxan {
namespace {

struct Options {
  std::string logits, maps;
  ContactOptions contact;
  bool json = false;
};

// The side of the square maps, after checking both arrays agree.
int check_shapes(const Array &logits, const Array &maps, int residues) {
  if (logits.shape != maps.shape)
    throw std::runtime_error("shape mismatch: " + logits.path + " is " + shape_string(logits.shape) + " but " +
                             maps.path + " is " + shape_string(maps.shape));
  const auto &s = maps.shape;
  if (s.size() < 2 || s[s.size() - 1] != s[s.size() - 2] || s.back() == 0)
    throw std::runtime_error(maps.path + ": expected square maps [N, ..., S, S], got " + shape_string(s));
  const int side = int(s.back());
  if (residues > side)
    throw std::runtime_error("--residues " + std::to_string(residues) + " exceeds the maps' side " +
                             std::to_string(side) + " (" + maps.path + " is " + shape_string(s) + ")");
  return side;
}

void require_binary(const Array &maps) {
  for (size_t k = 0; k < maps.values.size(); ++k)
    if (maps.values[k] != 0.0f && maps.values[k] != 1.0f)
      throw std::runtime_error(maps.path + ": contact maps must hold 0 or 1, found " +
                               dx::shortest(maps.values[k]) + " at " + index_string(maps.shape, k));
}

std::string rate(double v) { return std::isnan(v) ? "n/a" : dx::fixed(v, 4); }

nlohmann::json rate_json(double v) { return std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v); }

nlohmann::json counts_json(const ContactCounts &c, int separation) {
  return {{"min_separation", separation},
          {"entries", c.entries()},
          {"true_contacts", c.true_contacts()},
          {"tp", c.tp},
          {"fp", c.fp},
          {"fn", c.fn},
          {"tn", c.tn},
          {"recall", rate_json(c.recall())},
          {"precision", rate_json(c.precision())},
          {"f1", rate_json(c.f1())},
          {"accuracy", rate_json(c.accuracy())}};
}

void print_text(const Options &o, const ContactResult &r, int side) {
  std::printf("contacts: %s frames; residues 1-%d of %dx%d maps; contact predicted where sigmoid(logit) > %s\n",
              dx::withThousands(r.frames).c_str(), o.contact.residues, side, side,
              dx::shortest(o.contact.threshold).c_str());
  std::printf("%-11s %12s %14s %12s %12s %12s %14s %10s %8s %9s\n", "pairs", "entries", "true contacts", "TP",
              "FP", "FN", "reconstructed", "precision", "F1", "accuracy");
  auto row = [&](int separation, const ContactCounts &c) {
    const std::string label = "|i-j| >= " + std::to_string(separation);
    std::printf("%-11s %12s %14s %12s %12s %12s %14s %10s %8s %9s\n", label.c_str(),
                dx::withThousands(c.entries()).c_str(), dx::withThousands(c.true_contacts()).c_str(),
                dx::withThousands(c.tp).c_str(), dx::withThousands(c.fp).c_str(), dx::withThousands(c.fn).c_str(),
                rate(c.recall()).c_str(), rate(c.precision()).c_str(), rate(c.f1()).c_str(),
                rate(c.accuracy()).c_str());
  };
  row(r.all_separation, r.all);
  row(r.long_separation, r.long_range);
  std::printf("reconstructed: fraction of true contacts predicted, TP/(TP+FN); precision TP/(TP+FP); "
              "F1 2TP/(2TP+FP+FN); accuracy (TP+TN)/entries; (i,j) and (j,i) are separate entries\n");
}

void run(const Options &o) {
  if (!(o.contact.threshold > 0.0 && o.contact.threshold < 1.0))
    throw std::runtime_error("--threshold must be strictly between 0 and 1, not " +
                             dx::shortest(o.contact.threshold));
  const Array logits = load_array(o.logits);
  const Array maps = load_array(o.maps);
  const int side = check_shapes(logits, maps, o.contact.residues);
  require_finite(logits);
  require_binary(maps);
  const int64_t frames = int64_t(maps.values.size()) / (int64_t(side) * side);
  const ContactResult r = compare_contacts(logits.values.data(), maps.values.data(), frames, side, o.contact);
  if (o.json) {
    const nlohmann::json j = {{"logits", o.logits},
                              {"maps", o.maps},
                              {"frames", r.frames},
                              {"residues", o.contact.residues},
                              {"side", side},
                              {"threshold", o.contact.threshold},
                              {"pairs", counts_json(r.all, r.all_separation)},
                              {"long_range", counts_json(r.long_range, r.long_separation)}};
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    print_text(o, r, side);
  }
}

} // namespace

void add_contacts_command(CLI::App &app, int &) {
  auto o = std::make_shared<Options>();
  CLI::App *cmd = app.add_subcommand(
      "contacts",
      "How well reconstructed contact maps match the true ones: fraction of contacts reconstructed "
      "(recall), precision, F1 and accuracy over the entries (i, j), i != j, of the first --residues "
      "rows/columns (contact predicted where sigmoid(logit) > --threshold), for all pairs and for "
      "long-range pairs |i-j| >= 4");
  cmd->add_option("--logits", o->logits, "reconstruction logits, e.g. export/test_recon.npy ([N, 1, S, S])")
      ->type_name("FILE")
      ->required();
  cmd->add_option("--maps", o->maps, "true 0/1 contact maps of the same frames and shape, e.g. "
                                     "data/peptide/test_maps.npy")
      ->type_name("FILE")
      ->required();
  cmd->add_option("--threshold", o->contact.threshold, "probability above which a contact is predicted")
      ->capture_default_str();
  cmd->add_option("--min-separation", o->contact.min_separation,
                  "count only pairs with |i-j| >= this (both lines)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--residues", o->contact.residues,
                  "rows/columns compared; the rest of the map is padding (21 residues in 22x22 maps)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--json", o->json, "print one JSON object instead of the table");
  cmd->callback([o] { run(*o); });
}

} // namespace dxan
