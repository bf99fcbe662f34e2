#include "driver/Flags.h"

#include "common/Check.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>

namespace dxrt {

namespace {

size_t edit_distance(const std::string &a, const std::string &b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// " (did you mean '--epochs'?)" for the first argument that is no flag of app.
std::string suggestion(const CLI::App &app, int argc, char **argv) {
  std::vector<std::string> names;
  for (const CLI::Option *o : app.get_options())
    for (const std::string &n : o->get_lnames()) names.push_back("--" + n);
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) continue;
    arg = arg.substr(0, arg.find('='));
    if (std::find(names.begin(), names.end(), arg) != names.end()) continue;
    std::string best;
    size_t best_d = 3;
    for (const std::string &n : names)
      if (size_t d = edit_distance(arg, n); d < best_d) {
        best_d = d;
        best = n;
      }
    if (!best.empty()) return str(" (did you mean '", best, "'?)");
  }
  return "";
}

} // namespace

bool parse_flags(int argc, char **argv, const Metadata &meta, const World &world, RunConfig *cfg, int *exit_code) {
  const TrainSpec &t = *meta.train;
  const std::string prog = argc > 0 ? argv[0] : meta.model;
  CLI::App app(str("Trains the model '", meta.model, "'", meta.source.empty() ? "" : str(" compiled by dxc from ", meta.source),
                   ".\nDefaults come from the .dx file's train block; flags override them."),
               prog);
  app.get_formatter()->column_width(30);

  int64_t epochs = t.epochs, batch = t.batch_per_rank, seed = t.seed, max_steps = 0, eval_batch = 0, synth_n = 0;
  double lr = meta.optimizer.lr;
  std::string log, data_dir;
  bool synthetic = false, stop_at_target = false;
  app.add_option("--epochs", epochs, "Epochs to train")->default_str(std::to_string(t.epochs))->check(CLI::PositiveNumber)->type_name("N");
  app.add_option("--lr", lr, "Base learning rate of the schedule")->default_str(num(meta.optimizer.lr))->check(CLI::PositiveNumber)->type_name("X");
  app.add_option("--batch", batch, "Batch size per rank (the global batch is this times the ranks)")
      ->default_str(std::to_string(t.batch_per_rank))->check(CLI::PositiveNumber)->type_name("N");
  app.add_option("--seed", seed, "Seed of initialisation, data order and dropout")->default_str(std::to_string(t.seed))
      ->check(CLI::NonNegativeNumber)->type_name("N");
  app.add_option("--log", log, "Write the metrics log (JSON lines) to FILE")->type_name("FILE");
  app.add_option("--data-dir", data_dir, "Take the dataset's relative paths from DIR")->type_name("DIR");
  app.add_flag("--synthetic", synthetic, "Train on random data of the right shape (throughput runs)");
  app.add_option("--synthetic-samples", synth_n, "Training samples of a --synthetic run")
      ->default_str("32 global batches")->check(CLI::PositiveNumber)->type_name("N");
  app.add_option("--max-steps", max_steps, "Stop after N training steps in all")->check(CLI::PositiveNumber)->type_name("N");
  app.add_option("--eval-batch", eval_batch, "Batch size of evaluation")->default_str("--batch")->check(CLI::PositiveNumber)->type_name("N");
  app.add_flag("--stop-at-target", stop_at_target, "Stop once the train block's target is met");
  app.footer(str("Exit status: 0 done, 1 bad input (data, metadata), 2 bad flag, 3 the loss became NaN or Inf."));

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp &) {
    if (world.is_root()) std::printf("%s", app.help().c_str());
    *exit_code = kExitOk;
    return false;
  } catch (const CLI::ParseError &e) {
    if (world.is_root()) {
      std::string extra = dynamic_cast<const CLI::ExtrasError *>(&e) ? suggestion(app, argc, argv) : "";
      std::fprintf(stderr, "%s: error: %s%s\nRun '%s --help' for the flags.\n", prog.c_str(), e.what(), extra.c_str(),
                   prog.c_str());
    }
    *exit_code = kExitUsage;
    return false;
  }

  cfg->model = meta.model;
  cfg->epochs = epochs;
  cfg->per_rank_batch = batch;
  cfg->eval_batch = eval_batch ? eval_batch : batch;
  cfg->seed = seed;
  cfg->max_steps = max_steps;
  cfg->rank = world.rank();
  cfg->world = world.size();
  cfg->base_lr = lr * (t.lr_scaling == "linear" ? double(world.size()) : 1.0);
  cfg->schedule = meta.schedule;
  cfg->target = t.target;
  cfg->stop_at_target = stop_at_target;
  cfg->synthetic = synthetic;
  cfg->synthetic_samples = synth_n ? synth_n : 32 * cfg->global_batch();
  cfg->log_path = log;
  cfg->data_dir = data_dir;
  return true;
}

} // namespace dxrt
