// Checks dataset and train blocks: known settings with well-formed values,
// the model and dataset they name, the loss (a scalar), and that the
// dataset's samples fit the model's input.
#include "sema/TrainCheck.h"

#include "sema/Elaborator.h"
#include "sema/OpRegistry.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace dx {
namespace {

const double kRequired = std::numeric_limits<double>::quiet_NaN();

struct HyperSpec {
  const char *name;
  double def;        // kRequired = must be given
  bool isBool;
  double min, max;   // inclusive bounds; max may be infinity
  bool minOpen = false;
};

struct OptimizerSpec {
  const char *name;
  std::vector<HyperSpec> hyper;
};

const double inf = std::numeric_limits<double>::infinity();

// Defaults follow PyTorch's optimizers (RMSprop's `alpha` is called rho here, as in Keras).
const std::vector<OptimizerSpec> &optimizerSpecs() {
  static const std::vector<OptimizerSpec> specs = {
      {"sgd", {{"lr", kRequired, false, 0, inf, true}, {"momentum", 0, false, 0, 1}, {"dampening", 0, false, 0, 1},
               {"nesterov", 0, true, 0, 1}, {"weight_decay", 0, false, 0, inf}}},
      {"adam", {{"lr", 1e-3, false, 0, inf, true}, {"beta1", 0.9, false, 0, 1}, {"beta2", 0.999, false, 0, 1},
                {"eps", 1e-8, false, 0, inf, true}, {"weight_decay", 0, false, 0, inf}}},
      {"adamw", {{"lr", 1e-3, false, 0, inf, true}, {"beta1", 0.9, false, 0, 1}, {"beta2", 0.999, false, 0, 1},
                 {"eps", 1e-8, false, 0, inf, true}, {"weight_decay", 0.01, false, 0, inf}}},
      {"rmsprop", {{"lr", 1e-2, false, 0, inf, true}, {"rho", 0.99, false, 0, 1}, {"eps", 1e-8, false, 0, inf, true},
                   {"momentum", 0, false, 0, 1}, {"weight_decay", 0, false, 0, inf}, {"centered", 0, true, 0, 1}}},
      {"lars", {{"lr", kRequired, false, 0, inf, true}, {"momentum", 0.9, false, 0, 1},
                {"weight_decay", 0, false, 0, inf}, {"trust", 0.001, false, 0, inf, true},
                {"eps", 1e-9, false, 0, inf}}},
  };
  return specs;
}

const std::vector<OptimizerSpec> &scheduleSpecs() {
  static const std::vector<OptimizerSpec> specs = {
      {"constant", {}},
      {"step", {{"every", kRequired, false, 1, inf}, {"gamma", 0.1, false, 0, 1, true}}},
      {"multistep", {{"gamma", 0.1, false, 0, 1, true}}},
      {"exponential", {{"gamma", kRequired, false, 0, 1, true}}},
      {"cosine", {{"min_lr", 0, false, 0, inf}}},
      {"warmup", {{"epochs", kRequired, false, 1, inf}}},
  };
  return specs;
}

std::vector<std::string> namesOf(const std::vector<OptimizerSpec> &specs) {
  std::vector<std::string> out;
  for (auto &s : specs) out.push_back(s.name);
  return out;
}

class SettingsChecker {
public:
  SettingsChecker(Program &p, DiagnosticEngine &d) : prog_(p), diags_(d), elab_(p.module, d, scratch_) {}

  // A term as a constant value; a bare name becomes a symbol.
  Value term(const ast::Expr &e) {
    if (e.kind == ast::ExprKind::Name) return Value::ofSymbol(e.text, e.range);
    Value v = elab_.constant(e);
    v.range = e.range;
    return v;
  }

  // The value of a setting that takes a single term.
  const ast::Expr *one(const ast::Setting &s, const char *expected) {
    if (s.phrases.size() != 1 || s.phrases[0].size() != 1) {
      diags_.error(s.range, "'" + s.key.name + "' expects " + expected);
      return nullptr;
    }
    return s.phrases[0][0].get();
  }

  bool intSetting(const ast::Setting &s, int64_t min, int64_t &out) {
    const ast::Expr *e = one(s, "an integer");
    if (!e) return false;
    Value v = term(*e);
    if (v.isError()) return false;
    if (v.kind != Value::Kind::Int || v.i < min) {
      diags_.error(e->range, "'" + s.key.name + "' must be an integer >= " + std::to_string(min) + ", got " + v.str());
      return false;
    }
    out = v.i;
    return true;
  }

  bool numberSetting(const ast::Setting &s, double &out) {
    const ast::Expr *e = one(s, "a number");
    if (!e) return false;
    Value v = term(*e);
    if (v.isError()) return false;
    if (!v.isNumber()) {
      diags_.error(e->range, "'" + s.key.name + "' must be a number, got " + v.kindName());
      return false;
    }
    out = v.number();
    return true;
  }

  bool symbolSetting(const ast::Setting &s, const std::vector<std::string> &choices, std::string &out) {
    std::string list;
    for (size_t i = 0; i < choices.size(); ++i) list += (i ? ", " : "") + choices[i];
    const ast::Expr *e = one(s, ("one of: " + list).c_str());
    if (!e) return false;
    Value v = term(*e);
    if (v.kind == Value::Kind::Symbol)
      for (const std::string &c : choices)
        if (c == v.s) {
          out = c;
          return true;
        }
    diags_.error(e->range, "'" + s.key.name + "' must be one of: " + list +
                               (v.kind == Value::Kind::Symbol ? didYouMean(v.s, choices) : ""));
    return false;
  }

  // Rejects unknown and repeated keys; returns the settings by key.
  std::map<std::string, const ast::Setting *> keys(const ast::SettingsDecl &d, const std::vector<std::string> &known,
                                                   const char *what) {
    std::map<std::string, const ast::Setting *> out;
    suggested_.clear();
    for (const ast::Setting &s : d.settings) {
      bool ok = false;
      for (const std::string &k : known) ok |= k == s.key.name;
      if (!ok) {
        diags_.error(s.key.range, std::string("unknown setting '") + s.key.name + "' in " + what + " block" +
                                      didYouMean(s.key.name, known));
        suggested_.insert(closestMatch(s.key.name, known));
        continue;
      }
      auto [it, inserted] = out.emplace(s.key.name, &s);
      if (!inserted)
        diags_.error(s.key.range, "'" + s.key.name + "' is set twice")
            .notes.push_back({it->second->key.range, "first set here"});
    }
    return out;
  }

  std::optional<DatasetConfig> dataset(const ast::SettingsDecl &d) {
    DatasetConfig c;
    c.name = d.name.name;
    c.range = d.range;
    auto k = keys(d, {"format", "train", "test", "sample", "classes", "scale", "mean", "std", "label_column", "header",
                      "augment", "labels", "targets", "transform"},
                  "dataset");
    bool ok = true;
    if (!k.count("format")) {
      // Not again for a misspelt key that was already pointed at.
      if (!suggested_.count("format"))
        diags_.error(d.name.range, "dataset '" + d.name.name + "' needs 'format: idx', 'npy', 'csv', 'hdf5' or 'folder'");
      ok = false;
    } else
      ok &= symbolSetting(*k["format"], {"idx", "npy", "csv", "hdf5", "folder"}, c.format);
    const bool folder = c.format == "folder";
    for (const char *split : {"train", "test"}) {
      auto it = k.find(split);
      if (it == k.end()) {
        if (std::string(split) == "train") {
          if (!suggested_.count("train"))
            diags_.error(d.name.range, "dataset '" + d.name.name + "' needs 'train: [\"inputs\", \"labels\"]'");
          ok = false;
        }
        continue;
      }
      const ast::Expr *e = one(*it->second, "a list of file names");
      if (!e) { ok = false; continue; }
      Value v = term(*e);
      std::vector<std::string> &files = std::string(split) == "train" ? c.trainFiles : c.testFiles;
      bool good = v.kind == Value::Kind::List && !v.list.empty() && v.list.size() <= (folder ? 1 : 2);
      for (const Value &f : v.list) good &= f.kind == Value::Kind::String;
      if (!good) {
        // A folder's labels are its sub-folders: there is no labels file.
        diags_.error(e->range, std::string("'") + split +
                                   (folder ? "' of a folder dataset must list one directory (one sub-folder per class)"
                                           : "' must list one or two file names: inputs, then labels"));
        ok = false;
        continue;
      }
      for (const Value &f : v.list) files.push_back(f.s);
      // An HDF5 split names datasets: "FILE:/PATH" (FILE may be a glob).
      if (c.format == "hdf5")
        for (size_t i = 0; i < v.list.size(); ++i) {
          const std::string &f = v.list[i].s;
          const size_t colon = f.rfind(":/");
          if (colon == std::string::npos || colon == 0 || colon + 2 >= f.size()) {
            diags_.error(e->elems.size() > i ? e->elems[i]->range : e->range,
                         "an hdf5 dataset's files are \"FILE:/PATH\" (the dataset inside the file), e.g. "
                         "\"data.h5:/inputs\"");
            ok = false;
          }
        }
    }
    if (!c.testFiles.empty() && !c.trainFiles.empty() && c.testFiles.size() != c.trainFiles.size() &&
        c.format != "csv") {
      diags_.error(k["test"]->range, "'test' must list as many files as 'train' (" +
                                         std::to_string(c.trainFiles.size()) + ")");
      ok = false;
    }
    if (auto it = k.find("sample"); it != k.end()) {
      const ast::Expr *e = one(*it->second, "a per-sample shape such as [1, 28, 28]");
      Value v = e ? term(*e) : Value::error();
      bool good = v.kind == Value::Kind::List && !v.list.empty();
      for (const Value &x : v.list) good &= x.kind == Value::Kind::Int && x.i > 0;
      if (!good) {
        if (e) diags_.error(e->range, "'sample' must be a list of positive sizes such as [1, 28, 28]");
        ok = false;
      } else {
        for (const Value &x : v.list) c.sample.push_back(x.i);
        c.sampleRange = it->second->range;
      }
    } else {
      if (!suggested_.count("sample"))
        diags_.error(d.name.range, "dataset '" + d.name.name + "' needs 'sample: [...]', the shape of one input sample");
      ok = false;
    }
    if (auto it = k.find("classes"); it != k.end()) ok &= intSetting(*it->second, 2, c.classes);
    if (auto it = k.find("scale"); it != k.end()) ok &= numberSetting(*it->second, c.scale);
    if (auto it = k.find("transform"); it != k.end()) {
      ok &= symbolSetting(*it->second, {"none", "log1p"}, c.transform);
      if (folder) {
        diags_.error(it->second->key.range, "'transform' applies to stored numbers (idx, npy, csv, hdf5), not images");
        ok = false;
      }
    }
    for (const char *key : {"mean", "std"}) {
      auto it = k.find(key);
      if (it == k.end()) continue;
      const ast::Expr *e = one(*it->second, "a number or a list of numbers, one per channel");
      Value v = e ? term(*e) : Value::error();
      std::vector<double> &dst = std::string(key) == "mean" ? c.mean : c.std;
      std::vector<Value> vals = v.kind == Value::Kind::List ? v.list : std::vector<Value>{v};
      bool good = !vals.empty();
      for (const Value &x : vals) {
        good &= x.isNumber() && (std::string(key) == "mean" || x.number() > 0);
        dst.push_back(x.number());
      }
      if (!good) {
        if (e) diags_.error(e->range, std::string("'") + key + "' must be " +
                                          (std::string(key) == "std" ? "positive numbers" : "numbers"));
        ok = false;
      }
    }
    if (c.format == "csv") {
      if (auto it = k.find("label_column"); it != k.end()) ok &= intSetting(*it->second, 0, c.labelColumn);
      if (auto it = k.find("header"); it != k.end()) {
        const ast::Expr *e = one(*it->second, "true or false");
        Value v = e ? term(*e) : Value::error();
        if (v.kind != Value::Kind::Bool) {
          if (e) diags_.error(e->range, "'header' must be true or false");
          ok = false;
        }
        c.header = v.b;
      }
      c.hasLabels = c.labelColumn >= 0 || c.trainFiles.size() == 2;
      if (auto it = k.find("augment"); it != k.end())
        diags_.error(it->second->key.range, "'augment' applies to folder, npy, idx and hdf5 datasets, not csv");
    } else if (folder) {
      for (const char *key : {"label_column", "header"})
        if (auto it = k.find(key); it != k.end())
          diags_.error(it->second->key.range, std::string("'") + key + "' applies to csv datasets only");
      ok &= folderSample(c);
      c.augment = {"random_resized_crop", "flip"}; // torchvision's ImageNet training transform
      if (auto it = k.find("augment"); it != k.end())
        ok &= augmentSetting(*it->second, {"random_resized_crop", "flip"}, c.augment);
      c.hasLabels = true; // the class is the sub-folder
    } else {
      for (const char *key : {"label_column", "header"})
        if (auto it = k.find(key); it != k.end())
          diags_.error(it->second->key.range, std::string("'") + key + "' applies to csv datasets only");
      if (auto it = k.find("augment"); it != k.end()) ok &= arrayAugment(*it->second, c);
      c.hasLabels = c.trainFiles.size() == 2;
    }
    ok &= secondFile(k, c);
    if (!ok) return std::nullopt;
    return c;
  }

  // `labels: [H, W]` (the per-sample shape of integer class labels; default
  // [], one per sample) or `targets: [K]` (continuous targets of that
  // per-sample shape) say what a dataset's second file holds.
  bool secondFile(std::map<std::string, const ast::Setting *> &k, DatasetConfig &c) {
    auto shape = [&](const ast::Setting &s, std::vector<int64_t> &out, SourceRange &range) {
      const ast::Expr *e = one(s, "a per-sample shape such as [2] or [64, 64]");
      Value v = e ? term(*e) : Value::error();
      bool good = v.kind == Value::Kind::List;
      for (const Value &x : v.list) good &= x.kind == Value::Kind::Int && x.i > 0;
      if (!good) {
        if (e) diags_.error(e->range, "'" + s.key.name + "' must be a per-sample shape: a list of positive sizes such "
                                      "as [2] or [64, 64] ([] for one value per sample)");
        return false;
      }
      for (const Value &x : v.list) out.push_back(x.i);
      range = s.range;
      return true;
    };
    auto labels = k.find("labels"), targets = k.find("targets");
    if (labels != k.end() && targets != k.end()) {
      diags_.error(targets->second->key.range, "a dataset has either 'labels' (classes) or 'targets' (values), not both")
          .notes.push_back({labels->second->key.range, "'labels' is set here"});
      return false;
    }
    if (targets != k.end()) {
      if (!shape(*targets->second, c.targetShape, c.targetsRange)) return false;
      const char *why = c.format == "folder"      ? "a folder dataset's second tensor is its class sub-folders"
                        : c.labelColumn >= 0      ? "'label_column' makes the dataset's second tensor class labels"
                        : c.trainFiles.size() < 2 ? "'train' lists no second file to hold them"
                        : k.count("classes")      ? "'classes' describes class labels"
                                                  : nullptr;
      if (why) {
        diags_.error(targets->second->key.range, std::string("'targets' cannot be used here: ") + why);
        return false;
      }
      c.hasLabels = false;
      c.hasTargets = true;
      return true;
    }
    if (labels == k.end()) return true;
    if (!shape(*labels->second, c.labelShape, c.labelsRange)) return false;
    if (!c.hasLabels) {
      diags_.error(labels->second->key.range, "'labels' describes the labels file, but 'train' lists none");
      return false;
    }
    if (!c.labelShape.empty() && (c.format == "folder" || c.labelColumn >= 0)) {
      diags_.error(c.labelsRange, std::string(c.format == "folder" ? "a folder dataset" : "'label_column'") +
                                      " gives one label per sample: 'labels' must be []");
      return false;
    }
    return true;
  }

  // A folder dataset's images become [C, H, W] samples with 1 (grey) or 3
  // (RGB) channels.
  bool folderSample(const DatasetConfig &c) {
    if (c.sample.empty()) return true; // already reported
    if (c.sample.size() == 3 && (c.sample[0] == 1 || c.sample[0] == 3)) return true;
    diags_.error(c.sampleRange, "a folder dataset's 'sample' must be [3, H, W] (RGB) or [1, H, W] (grey)");
    return false;
  }

  // `augment: none` or a list of `kinds` (any subset, each once): for folders
  // random_resized_crop and flip, for arrays flip and transpose.
  bool augmentSetting(const ast::Setting &s, const std::vector<std::string> &kinds, std::vector<std::string> &out) {
    const std::string list = kinds[0] + ", " + kinds[1], expected = "none or a list such as [" + list + "]";
    const ast::Expr *e = one(s, expected.c_str());
    if (!e) return false;
    out.clear();
    if (e->kind == ast::ExprKind::Name && e->text == "none") return true;
    if (e->kind != ast::ExprKind::List) {
      diags_.error(e->range, "'augment' must be none or a list of: " + list);
      return false;
    }
    bool ok = true;
    for (const ast::ExprPtr &el : e->elems) {
      std::string name = el->kind == ast::ExprKind::Name ? el->text : "";
      bool known = false;
      for (const std::string &k : kinds) known |= k == name;
      if (!known) {
        diags_.error(el->range, "unknown augmentation '" + std::string(diags_.sources().text(el->range)) +
                                    "'; the augmentations are " + kinds[0] + " and " + kinds[1] +
                                    (name.empty() ? "" : didYouMean(name, kinds)));
        ok = false;
      } else if (std::find(out.begin(), out.end(), name) != out.end()) {
        diags_.error(el->range, "augmentation '" + name + "' is listed twice");
        ok = false;
      } else {
        out.push_back(name);
      }
    }
    return ok;
  }

  // `augment: [flip, transpose]` on an npy, idx or hdf5 dataset (default
  // none): random mirrors and permutations of the sample's spatial axes,
  // those after its channels; transpose needs them all of one length.
  bool arrayAugment(const ast::Setting &s, DatasetConfig &c) {
    if (!augmentSetting(s, {"flip", "transpose"}, c.augment)) return false;
    if (c.augment.empty() || c.sample.empty()) return true; // an empty sample is reported already
    auto shape = [](const std::vector<int64_t> &v) {
      TensorType t;
      for (int64_t d : v) t.dims.push_back(Dim::of(d));
      return t.shapeStr();
    };
    if (c.sample.size() < 2) {
      diags_.error(s.key.range, "'augment' flips and permutes a sample's spatial axes, but the sample " +
                                    shape(c.sample) + " has none; augmentation needs samples [C, S1, ...]");
      return false;
    }
    const bool transpose = std::find(c.augment.begin(), c.augment.end(), "transpose") != c.augment.end();
    if (transpose && std::any_of(c.sample.begin() + 2, c.sample.end(), [&](int64_t d) { return d != c.sample[1]; })) {
      diags_.error(s.key.range, "'transpose' permutes the sample's spatial axes, but those of " + shape(c.sample) +
                                    " differ in length; use [flip] alone");
      return false;
    }
    return true;
  }

  // Reads `name(k: v, ...)` against a spec table into `hyper`.
  bool callWithHyper(const ast::Expr &e, const std::vector<OptimizerSpec> &specs, const char *what,
                     std::string &kind, std::map<std::string, double> &hyper, const ast::Expr **listArg = nullptr) {
    std::string name = e.kind == ast::ExprKind::Call ? e.callee.name : e.kind == ast::ExprKind::Name ? e.text : "";
    SourceRange nameRange = e.kind == ast::ExprKind::Call ? e.callee.range : e.range;
    if (name.empty()) {
      diags_.error(e.range, std::string("expected ") + what + " such as " + specs[0].name + "(...)");
      return false;
    }
    const OptimizerSpec *spec = nullptr;
    for (auto &s : specs)
      if (name == s.name) spec = &s;
    if (!spec) {
      diags_.error(nameRange, std::string("unknown ") + what + " '" + name + "'" + didYouMean(name, namesOf(specs)));
      return false;
    }
    kind = name;
    bool ok = true;
    std::map<std::string, double> given;
    std::set<std::string> seen; // given, valid or not: a bad value is not also "missing"
    size_t positional = 0;
    for (const ast::Arg &a : e.args) {
      std::string key;
      if (a.name) key = a.name->name;
      else if (positional < spec->hyper.size()) key = spec->hyper[positional++].name;
      else {
        diags_.error(a.range, std::string("too many arguments to ") + what + " '" + name + "'");
        ok = false;
        continue;
      }
      if (listArg && key == "milestones") {
        *listArg = a.value.get();
        continue;
      }
      const HyperSpec *h = nullptr;
      for (auto &hs : spec->hyper)
        if (key == hs.name) h = &hs;
      if (!h) {
        std::vector<std::string> names;
        for (auto &hs : spec->hyper) names.push_back(hs.name);
        if (listArg) names.push_back("milestones");
        diags_.error(a.name ? a.name->range : a.range, "'" + name + "' has no argument '" + key + "'" +
                                                           didYouMean(key, names));
        ok = false;
        continue;
      }
      if (!seen.insert(key).second) {
        diags_.error(a.range, "argument '" + key + "' is given twice");
        ok = false;
        continue;
      }
      Value v = term(*a.value);
      if (v.isError()) { ok = false; continue; }
      double x;
      if (h->isBool) {
        if (v.kind != Value::Kind::Bool) {
          diags_.error(a.value->range, "'" + key + "' must be true or false");
          ok = false;
          continue;
        }
        x = v.b ? 1 : 0;
      } else {
        if (!v.isNumber()) {
          diags_.error(a.value->range, "'" + key + "' must be a number, got " + v.kindName());
          ok = false;
          continue;
        }
        x = v.number();
        bool inRange = (h->minOpen ? x > h->min : x >= h->min) && x <= h->max;
        // Momentum-like factors must stay below 1, so the range is half-open.
        bool belowOne =
            std::string(key) == "momentum" || std::string(key) == "rho" || std::string(key).rfind("beta", 0) == 0;
        if (belowOne) inRange = x >= 0 && x < 1;
        if (!inRange) {
          std::string range = std::string(h->minOpen ? "(" : "[") + Value::ofFloat(h->min).str() + ", " +
                              (h->max == inf ? "inf)" : Value::ofFloat(h->max).str() + (belowOne ? ")" : "]"));
          diags_.error(a.value->range, "'" + key + "' = " + v.str() + " is out of range " + range);
          ok = false;
          continue;
        }
      }
      given[key] = x;
    }
    for (auto &h : spec->hyper) {
      if (given.count(h.name)) hyper[h.name] = given[h.name];
      else if (std::isnan(h.def)) {
        if (!seen.count(h.name)) diags_.error(e.range, std::string(what) + " '" + name + "' needs '" + h.name + "'");
        ok = false;
      } else
        hyper[h.name] = h.def;
    }
    return ok;
  }

  bool schedule(const ast::Setting &s, ScheduleConfig &c) {
    if (s.phrases.size() > 2) {
      diags_.error(s.range, "'schedule' takes at most 'warmup(epochs: N) then <schedule>'");
      return false;
    }
    for (size_t i = 0; i < s.phrases.size(); ++i) {
      if (s.phrases[i].size() != 1) {
        diags_.error(s.phrases[i][1]->range, "unexpected term in 'schedule'");
        return false;
      }
      const ast::Expr &e = *s.phrases[i][0];
      std::string kind;
      std::map<std::string, double> hyper;
      const ast::Expr *milestones = nullptr;
      if (!callWithHyper(e, scheduleSpecs(), "schedule", kind, hyper, &milestones)) return false;
      bool last = i + 1 == s.phrases.size();
      if (kind == "warmup") {
        if (last) {
          diags_.error(e.range, "'warmup' must be followed by 'then <schedule>', e.g. 'warmup(epochs: 1) then cosine'");
          return false;
        }
        c.warmupEpochs = static_cast<int64_t>(hyper["epochs"]);
        continue;
      }
      if (!last) {
        diags_.error(e.range, "only 'warmup' can come before 'then'");
        return false;
      }
      c.kind = kind;
      c.hyper = hyper;
      if (kind == "multistep") {
        Value v = milestones ? term(*milestones) : Value::error();
        bool good = v.kind == Value::Kind::List && !v.list.empty();
        int64_t prev = 0;
        for (const Value &m : v.list) {
          good &= m.kind == Value::Kind::Int && m.i > prev;
          prev = m.i;
          c.milestones.push_back(m.i);
        }
        if (!good) {
          diags_.error(milestones ? milestones->range : e.range,
                       "'multistep' needs 'milestones: [e1, e2, ...]', increasing epoch numbers");
          return false;
        }
      } else if (milestones) {
        diags_.error(milestones->range, "'" + kind + "' has no argument 'milestones'");
        return false;
      }
    }
    return true;
  }

  bool isWord(const ast::Expr &e, const char *w) { return e.kind == ast::ExprKind::Name && e.text == w; }

  std::optional<TrainConfig> train(const ast::SettingsDecl &d) {
    TrainConfig c;
    c.range = d.range;
    auto k = keys(d, {"model", "data", "loss", "optimizer", "schedule", "batch", "epochs", "seed", "sync", "target",
                      "checkpoint", "lr_scaling", "precision"},
                  "train");
    bool ok = true;
    for (const char *req : {"model", "data", "loss", "optimizer"})
      if (!k.count(req)) {
        if (!suggested_.count(req))
          diags_.error(d.range.valid() ? SourceRange{d.range.file, d.range.begin, d.range.begin + 5} : d.range,
                       std::string("train block needs '") + req + ":'");
        ok = false;
      }
    if (auto it = k.find("model"); it != k.end()) {
      const ast::Expr *e = one(*it->second, "the name of a model");
      if (e && e->kind == ast::ExprKind::Name) {
        auto f = prog_.module.funcs.find(e->text);
        if (f == prog_.module.funcs.end() || !f->second->isModel) {
          std::vector<std::string> models;
          for (auto &[n, fn] : prog_.module.funcs)
            if (fn->isModel) models.push_back(n);
          diags_.error(e->range, (f == prog_.module.funcs.end() ? "unknown model '" : "'") + e->text +
                                     (f == prog_.module.funcs.end() ? "'" + didYouMean(e->text, models)
                                                                    : "' is a block, not a model"));
          ok = false;
        } else
          c.model = e->text;
      } else {
        if (e) diags_.error(e->range, "'model' expects the name of a model");
        ok = false;
      }
    }
    if (auto it = k.find("data"); it != k.end()) {
      const ast::Expr *e = one(*it->second, "the name of a dataset");
      if (e && e->kind == ast::ExprKind::Name && prog_.module.datasets.count(e->text)) c.dataset = e->text;
      else {
        std::vector<std::string> names;
        for (auto &[n, ds] : prog_.module.datasets) names.push_back(n);
        if (e)
          diags_.error(e->range, "unknown dataset '" + std::string(diags_.sources().text(e->range)) + "'" +
                                     (e->kind == ast::ExprKind::Name ? didYouMean(e->text, names) : ""));
        ok = false;
      }
    }
    if (auto it = k.find("optimizer"); it != k.end()) {
      const ast::Expr *e = one(*it->second, "an optimizer such as sgd(lr: 0.1)");
      ok &= e && callWithHyper(*e, optimizerSpecs(), "optimizer", c.optimizer.kind, c.optimizer.hyper);
      if (ok && c.optimizer.kind == "sgd" && c.optimizer.hyper["nesterov"] != 0 &&
          (c.optimizer.hyper["momentum"] <= 0 || c.optimizer.hyper["dampening"] != 0)) {
        diags_.error(e->range, "Nesterov momentum needs momentum > 0 and dampening 0");
        ok = false;
      }
    }
    if (auto it = k.find("schedule"); it != k.end()) ok &= schedule(*it->second, c.schedule);
    if (auto it = k.find("batch"); it != k.end()) {
      const auto &s = *it->second;
      const auto &t = s.phrases[0];
      bool shape = s.phrases.size() == 1 && (t.size() == 1 || (t.size() == 3 && isWord(*t[1], "per") &&
                                                               isWord(*t[2], "rank")));
      Value v = shape ? term(*t[0]) : Value::error();
      // The executable's --batch has the same bound: far beyond any real
      // batch, and far from overflowing the runtime's products of batches,
      // ranks and sample sizes.
      constexpr int64_t kMaxBatch = int64_t(1) << 30;
      if (!shape || v.kind != Value::Kind::Int || v.i <= 0) {
        diags_.error(s.range, "'batch' expects a positive per-rank batch size, e.g. 'batch: 64 per rank'");
        ok = false;
      } else if (v.i > kMaxBatch) {
        diags_.error(s.range, "'batch' is at most 1073741824 (2^30) per rank, not " + std::to_string(v.i));
        ok = false;
      } else
        c.batchPerRank = v.i;
    }
    if (auto it = k.find("epochs"); it != k.end()) ok &= intSetting(*it->second, 1, c.epochs);
    if (auto it = k.find("seed"); it != k.end()) ok &= intSetting(*it->second, 0, c.seed);
    if (auto it = k.find("sync"); it != k.end()) {
      const auto &s = *it->second;
      const auto &t = s.phrases[0];
      if (s.phrases.size() == 1 && t.size() == 1 && isWord(*t[0], "allreduce")) c.sync = "allreduce";
      else if (s.phrases.size() == 1 && (t.size() == 3 || t.size() == 4) && isWord(*t[0], "average") &&
               isWord(*t[1], "every") && (t.size() == 3 || isWord(*t[3], "steps") || isWord(*t[3], "step"))) {
        Value v = term(*t[2]);
        if (v.kind != Value::Kind::Int || v.i < 1) {
          diags_.error(t[2]->range, "'average every K steps' needs an integer K >= 1");
          ok = false;
        }
        c.sync = "average";
        c.averageEvery = v.i;
      } else {
        diags_.error(s.range, "'sync' expects 'allreduce' or 'average every K steps'");
        ok = false;
      }
    }
    if (auto it = k.find("target"); it != k.end()) {
      const ast::Expr *e = one(*it->second, "a condition such as 'accuracy >= 0.9'");
      bool good = e && e->kind == ast::ExprKind::Binary && e->lhs->kind == ast::ExprKind::Name &&
                  (e->binOp == ast::BinOp::Ge || e->binOp == ast::BinOp::Le);
      if (good) {
        static const std::vector<std::string> metrics = {"accuracy", "loss", "val_loss", "mae", "rmse", "r2", "iou"};
        const std::string &m = e->lhs->text;
        if (std::find(metrics.begin(), metrics.end(), m) == metrics.end()) {
          diags_.error(e->lhs->range, "unknown metric '" + m + "' (expected accuracy, iou, loss, val_loss, mae, rmse or r2)" +
                                          didYouMean(m, metrics));
          ok = false;
        } else {
          Value v = term(*e->rhs);
          if (!v.isNumber()) {
            diags_.error(e->rhs->range, "the target value must be a number");
            ok = false;
          }
          bool higherIsBetter = m == "accuracy" || m == "iou" || m == "r2";
          if (higherIsBetter != (e->binOp == ast::BinOp::Ge)) {
            diags_.error(e->range, "a target on '" + m + "' should use '" + (higherIsBetter ? ">=" : "<=") + "'");
            ok = false;
          }
          c.targetMetric = m;
          c.targetOp = ast::spelling(e->binOp);
          c.targetValue = v.number();
        }
      } else {
        if (e) diags_.error(e->range, "'target' expects a condition such as 'accuracy >= X', 'iou >= X', 'r2 >= X', "
                                      "'mae <= X', 'rmse <= X', 'loss <= X' or 'val_loss <= X'");
        ok = false;
      }
    }
    if (auto it = k.find("checkpoint"); it != k.end()) {
      const auto &s = *it->second;
      const auto &t = s.phrases[0];
      if (s.phrases.size() == 1 && t.size() == 1 && isWord(*t[0], "none")) c.checkpointEvery = 0;
      else if (s.phrases.size() == 1 && (t.size() == 2 || t.size() == 3) && isWord(*t[0], "every") &&
               (t.size() == 2 || isWord(*t[2], "epochs") || isWord(*t[2], "epoch"))) {
        Value v = term(*t[1]);
        if (v.kind != Value::Kind::Int || v.i < 1) {
          diags_.error(t[1]->range, "'checkpoint: every N epochs' needs an integer N >= 1");
          ok = false;
        } else
          c.checkpointEvery = v.i;
      } else {
        diags_.error(s.range, "'checkpoint' expects 'every N epochs' or 'none'");
        ok = false;
      }
    }
    if (auto it = k.find("lr_scaling"); it != k.end()) ok &= symbolSetting(*it->second, {"none", "linear"}, c.lrScaling);
    if (auto it = k.find("precision"); it != k.end()) ok &= symbolSetting(*it->second, {"fp32", "bf16"}, c.precision);
    if (!ok) return std::nullopt;
    return c;
  }

private:
  Program &prog_;
  DiagnosticEngine &diags_;
  std::set<std::string> suggested_; // known keys offered as "did you mean" by keys()
  Graph scratch_;
  Elaborator elab_;
};

} // namespace

void checkDatasetsAndTrain(Program &prog, DiagnosticEngine &diags) {
  SettingsChecker checker(prog, diags);
  std::map<std::string, DatasetConfig> datasets;
  for (auto &[name, decl] : prog.module.datasets)
    if (auto c = checker.dataset(*decl)) datasets[name] = *c;

  const ast::File &main = *prog.module.main;
  if (main.trains.size() > 1)
    diags.error(main.trains[1]->range, "a file may hold one train block")
        .notes.push_back({main.trains[0]->range, "the first train block is here"});
  if (main.trains.empty()) return;
  const ast::SettingsDecl &decl = *main.trains[0];
  prog.train = checker.train(decl);
  if (!prog.train) return;
  TrainConfig &tc = *prog.train;
  auto ds = datasets.find(tc.dataset);
  if (ds == datasets.end()) return; // its own errors were reported
  prog.dataset = ds->second;
  const DatasetConfig &data = ds->second;

  // The trained model is elaborated first, into prog.models[0].
  const ast::FuncDecl *fn = prog.module.funcs.at(tc.model);
  CheckedModel *cm = nullptr;
  for (auto &m : prog.models)
    if (m.decl == fn) cm = &m;
  if (!cm) {
    prog.models.insert(prog.models.begin(), CheckedModel{fn, {}});
    cm = &prog.models.front();
    Elaborator(prog.module, diags, cm->graph).elaborateModel(*fn);
  }
  Graph &g = cm->graph;
  if (g.outputs.empty()) return;

  // The dataset's samples must fit the model's first input.
  if (fn->params.empty() || g.inputs.empty()) {
    diags.error(fn->name.range, "model '" + fn->name.name + "' has no tensor input for dataset '" + data.name + "'");
    return;
  }
  const TensorType &in = g.values[g.inputs[0]].type;
  if (in.rank() == 0 || in.dims[0].isStatic()) {
    diags.error(fn->params[0].range, "the trained model's input must start with a symbolic batch dim, e.g. f32[B, ...]");
    return;
  }
  bool match = static_cast<size_t>(in.rank() - 1) == data.sample.size();
  for (size_t k = 0; match && k < data.sample.size(); ++k)
    match = in.dims[k + 1].isStatic() && in.dims[k + 1].size == data.sample[k];
  if (!match) {
    std::string sample = "[";
    for (size_t k = 0; k < data.sample.size(); ++k) sample += (k ? ", " : "") + std::to_string(data.sample[k]);
    sample += "]";
    auto &d = diags.error(fn->params[0].range, "dataset '" + data.name + "' gives samples of shape " + sample +
                                                   " but model '" + fn->name.name + "' takes " + in.str());
    d.notes.push_back({data.sampleRange, "sample shape declared here"});
    d.notes.push_back({decl.find("data")->range, "the dataset is used here"});
    return;
  }
  if (g.inputs.size() > 1) {
    diags.error(fn->params[1].range, "a trained model takes one tensor input (the dataset's sample)");
    return;
  }

  // The loss sees the model's input, its outputs by name, and the labels
  // (i64[B, ...labels]) or the targets (f32[B, ...targets]).
  std::map<std::string, Value> scope;
  scope[g.inputNames[0]] = Value::ofTensor(g.inputs[0], fn->params[0].range);
  for (size_t i = 0; i < g.outputs.size(); ++i)
    scope[g.outputNames[i]] = Value::ofTensor(g.outputs[i], g.values[g.outputs[i]].def);
  auto batched = [&](ElemType elem, const std::vector<int64_t> &perSample) {
    TensorType t{elem, {in.dims[0]}};
    for (int64_t d : perSample) t.dims.push_back(Dim::of(d));
    return t;
  };
  if (data.hasLabels) {
    g.values.push_back(GraphValue{batched(ElemType::I64, data.labelShape), -1, data.range, "labels"});
    g.labels = static_cast<int>(g.values.size()) - 1;
    scope["labels"] = Value::ofTensor(g.labels, data.range);
  }
  if (data.hasTargets) {
    g.values.push_back(GraphValue{batched(ElemType::F32, data.targetShape), -1, data.range, "targets"});
    g.targets = static_cast<int>(g.values.size()) - 1;
    scope["targets"] = Value::ofTensor(g.targets, data.range);
  }
  const ast::Setting *lossSetting = decl.find("loss");
  if (lossSetting->phrases.size() != 1 || lossSetting->phrases[0].size() != 1) {
    diags.error(lossSetting->range, "'loss' expects one expression");
    return;
  }
  const ast::Expr &lossExpr = *lossSetting->phrases[0][0];
  // Say why `labels` or `targets` is missing rather than just "undefined".
  std::function<const ast::Expr *(const ast::Expr &, const char *)> findName =
      [&](const ast::Expr &e, const char *name) -> const ast::Expr * {
    if (e.kind == ast::ExprKind::Name && e.text == name) return &e;
    for (const ast::Expr *c : {e.lhs.get(), e.rhs.get()})
      if (c)
        if (auto *r = findName(*c, name)) return r;
    for (const ast::Arg &a : e.args)
      if (auto *r = findName(*a.value, name)) return r;
    return nullptr;
  };
  if (!data.hasLabels)
    if (const ast::Expr *l = findName(lossExpr, "labels")) {
      if (data.hasTargets)
        diags.error(l->range, "the loss uses 'labels' but dataset '" + data.name +
                                  "' has continuous targets: call them 'targets'")
            .notes.push_back({data.targetsRange, "declared here"});
      else
        diags.error(l->range, "the loss uses 'labels' but dataset '" + data.name + "' has none")
            .notes.push_back({data.range, "add a labels file to 'train: [inputs, labels]' here"});
      return;
    }
  if (!data.hasTargets)
    if (const ast::Expr *t = findName(lossExpr, "targets")) {
      if (data.hasLabels)
        diags.error(t->range, "the loss uses 'targets' but dataset '" + data.name +
                                  "' has class labels: call them 'labels' (or declare 'targets: [...]' in the dataset)")
            .notes.push_back({data.range, "the dataset is declared here"});
      else
        diags.error(t->range, "the loss uses 'targets' but dataset '" + data.name + "' has none")
            .notes.push_back({data.range, "add a targets file to 'train: [inputs, targets]' and 'targets: [...]' here"});
      return;
    }
  Value loss = Elaborator(prog.module, diags, g).elaborateIn(lossExpr, scope, true);
  if (loss.isError()) return;
  if (!loss.isTensor() || g.values[loss.tensor].type.rank() != 0) {
    std::string got = loss.isTensor() ? g.values[loss.tensor].type.str() : loss.kindName();
    diags.error(lossExpr.range, "the loss must be a scalar, but this expression is " + got +
                                    "; reduce it with mean(...) or sum(...)");
    return;
  }
  g.loss = loss.tensor;

  // Which metrics evaluation computes follows from the first output's shape
  // (runtime/train/Evaluate.cpp): class scores [B, C, ...labels] for
  // accuracy and IoU, [B, ...targets] for mae, rmse and r2.
  const TensorType &out = g.values[g.outputs[0]].type;
  auto perSampleIs = [&](size_t skip, const std::vector<int64_t> &shape) {
    if (static_cast<size_t>(out.rank()) != 1 + skip + shape.size()) return false;
    for (size_t k = 0; k < shape.size(); ++k)
      if (!out.dims[1 + skip + k].isStatic() || out.dims[1 + skip + k].size != shape[k]) return false;
    return true;
  };
  const std::string &tm = tc.targetMetric;
  if ((tm == "accuracy" || tm == "iou") && (!data.hasLabels || !perSampleIs(1, data.labelShape)))
    diags.error(decl.find("target")->range,
                "'" + tm + "' needs a labelled dataset and a model whose first output is [B, classes" +
                    std::string(data.labelShape.empty() ? "" : ", ...labels") + "], got " + out.str());
  if ((tm == "mae" || tm == "rmse" || tm == "r2") && (!data.hasTargets || !perSampleIs(0, data.targetShape))) {
    std::string want = "[B";
    for (int64_t d : data.targetShape) want += ", " + std::to_string(d);
    diags.error(decl.find("target")->range,
                "'" + tm + "' needs a dataset with 'targets' and a model whose first output has their shape" +
                    (data.hasTargets ? " " + want + "]" : std::string("")) + ", got " + out.str());
  }
  if (data.classes > 0 && data.hasLabels) {
    if (static_cast<size_t>(out.rank()) == 2 + data.labelShape.size() && out.dims[1].isStatic() &&
        out.dims[1].size != data.classes) {
      auto &d = diags.error(g.values[g.outputs[0]].def, "model '" + fn->name.name + "' predicts " +
                                                            std::to_string(out.dims[1].size) + " classes but dataset '" +
                                                            data.name + "' has " + std::to_string(data.classes));
      d.notes.push_back({decl.find("data")->range, "the dataset is used here"});
    }
  }
}

} // namespace dx
