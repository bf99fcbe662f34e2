#include "driver/Flags.h"

#include "common/Check.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>

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

// --set key=value is another spelling of --key value (docs/cli.md): rewrite it
// before CLI11 sees it, so both spellings share one definition and one check.
// Settings compiled into the executable get a message saying so.
std::vector<std::string> expand_set(int argc, char **argv, const Metadata &meta) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i], kv;
    if (a == "--set" && i + 1 < argc) kv = argv[++i];
    else if (a.rfind("--set=", 0) == 0) kv = a.substr(6);
    else {
      args.push_back(a);
      continue;
    }
    size_t eq = kv.find('=');
    DXRT_CHECK(eq != std::string::npos && eq > 0, str("--set takes key=value, not '", kv, "'"), "e.g. --set epochs=3");
    std::string key = kv.substr(0, eq);
    std::replace(key.begin(), key.end(), '_', '-');
    for (const auto &[name, v] : meta.optimizer.hyper)
      DXRT_CHECK(name != kv.substr(0, eq),
                 str("--set ", kv.substr(0, eq), ": the optimizer's ", name, " is compiled into the executable"),
                 str("change it in ", meta.source.empty() ? "the .dx file" : meta.source, " and recompile; only --lr is a run-time setting"));
    args.push_back("--" + key);
    args.push_back(kv.substr(eq + 1));
  }
  return args;
}

// CLI11's number checks print their range as a 300-digit float; these say
// what is wrong in words.
CLI::Validator whole_number(int64_t min, int64_t max = INT64_MAX) {
  return CLI::Validator(
      [min, max](std::string &text) -> std::string {
        char *end = nullptr;
        errno = 0;
        long long v = std::strtoll(text.c_str(), &end, 10);
        if (text.empty() || *end != '\0' || errno == ERANGE) return str("'", text, "' is not a whole number");
        if (v < min) return str("must be at least ", min, ", not ", text);
        if (v > max) return str("must be at most ", max, ", not ", text);
        return "";
      },
      "", max == INT64_MAX ? str("whole number >= ", min) : str("whole number in [", min, ", ", max, "]"));
}

// The largest batch (and micro-batch count) a flag may give: far beyond any
// real batch, and small enough that the products of batches, ranks and
// sample sizes the runtime forms stay far from int64_t's range.
constexpr int64_t kMaxBatchFlag = int64_t(1) << 30;

CLI::Validator positive_real() {
  return CLI::Validator(
      [](std::string &text) -> std::string {
        char *end = nullptr;
        double v = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !std::isfinite(v)) return str("'", text, "' is not a number");
        if (v <= 0) return str("must be positive, not ", text);
        return "";
      },
      "", "positive number");
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
  std::string log, data_dir, export_dir, sync = t.sync == "average" ? str("average:", t.average_every) : t.sync;
  std::string lr_scaling = t.lr_scaling, checkpoint_dir = str("checkpoints/", meta.model), device = meta.target;
  int64_t checkpoint_every = t.checkpoint_every, keep = 2, stop_after = 0, accumulate = 1, data_threads = 2;
  double bucket_mb = 25, comm_timeout = 600;
  bool synthetic = false, stop_at_target = false, resume = false, resume_auto = false, print_schedule = false, profile = false,
       profile_kernels = false;
  bool print_weights = false, no_shuffle = false, log_steps = false;
  std::string save_weights, init_from, from, predict, predict_out = "predictions";
  app.add_option("--epochs", epochs, "Epochs to train")->default_str(std::to_string(t.epochs))->check(whole_number(1))->type_name("N");
  app.add_option("--lr", lr, "Base learning rate of the schedule")->default_str(num(meta.optimizer.lr))->check(positive_real())->type_name("X");
  app.add_option("--batch", batch, "Batch size per rank (the global batch is this times the ranks)")
      ->default_str(std::to_string(t.batch_per_rank))->check(whole_number(1, kMaxBatchFlag))->type_name("N");
  app.add_option("--accumulate", accumulate, "Gradient accumulation: M micro-batches of --batch per step and rank")
      ->default_str("1")->check(whole_number(1, kMaxBatchFlag))->type_name("M");
  app.add_option("--seed", seed, "Seed of initialisation, data order and dropout")->default_str(std::to_string(t.seed))
      ->check(whole_number(0))->type_name("N");
  app.add_option("--log", log, "Write the metrics log (JSON lines) to FILE")->type_name("FILE");
  app.add_option("--data-dir", data_dir, "Take the dataset's relative paths from DIR")->type_name("DIR");
  app.add_option("--data-threads", data_threads, "Threads that decode a folder dataset's images ahead of the step")
      ->default_str("2")->check(whole_number(1))->type_name("N");
  app.add_flag("--synthetic", synthetic, "Train on random data of the right shape (throughput runs)");
  app.add_option("--synthetic-samples", synth_n, "Training samples of a --synthetic run")
      ->default_str("32 global batches")->check(whole_number(1))->type_name("N");
  app.add_option("--max-steps", max_steps, "Stop after N training steps in all")->check(whole_number(1))->type_name("N");
  app.add_option("--eval-batch", eval_batch, "Batch size of evaluation")->default_str("--batch")->check(whole_number(1, kMaxBatchFlag))->type_name("N");
  app.add_flag("--stop-at-target", stop_at_target, "Stop once the train block's target is met");
  app.add_flag("--profile", profile, "After training, print the time per layer and phase of a step (CPU builds)");
  app.add_flag("--profile-kernels", profile_kernels,
               "With the --profile table, one row per generated kernel: its shape, time, bytes and GB/s (implies --profile)");
  app.add_option("--sync", sync, "allreduce (gradients every step) or average:K (average the models every K steps)")
      ->default_str(sync)->type_name("MODE");
  app.add_option("--lr-scaling", lr_scaling, "none, or linear: multiply the learning rate by the number of ranks")
      ->default_str(t.lr_scaling)->check(CLI::IsMember({"none", "linear"}))->type_name("RULE");
  app.add_option("--bucket-mb", bucket_mb, "Size of the all-reduce buckets in MiB")->default_str("25")
      ->check(CLI::Range(0.01, 4096.0))->type_name("X");
  std::string overlap = "on";
  app.add_option("--overlap", overlap, "on: all-reduce gradient buckets during the backward pass; off: after it")
      ->default_str("on")->check(CLI::IsMember({"on", "off"}))->type_name("on|off");
  app.add_option("--comm-timeout", comm_timeout,
                 "End the job when a rank waits longer than S seconds for the others (0: wait for ever)")
      ->default_str("600")->check(CLI::Range(0.0, 1e9))->type_name("S");
  app.add_option("--checkpoint-dir", checkpoint_dir, "Where checkpoints are written and resumed from")
      ->default_str(checkpoint_dir)->type_name("DIR");
  app.add_option("--checkpoint-every", checkpoint_every, "Write a checkpoint every N epochs (0: only on SIGUSR1/SIGTERM)")
      ->default_str(std::to_string(t.checkpoint_every))->check(whole_number(0))->type_name("N");
  app.add_option("--keep-checkpoints", keep, "Keep the newest N complete checkpoints")->default_str("2")
      ->check(whole_number(1))->type_name("N");
  app.add_flag("--print-schedule", print_schedule, "Print the learning rate of every step of the run, then exit");
  app.add_option("--save-weights", save_weights,
                 "After training, write every parameter and buffer to DIR: one NPY per tensor (PyTorch's names and "
                 "layouts) and index.json")
      ->type_name("DIR");
  app.add_option("--init-from", init_from,
                 "Start from the weights in DIR (as --save-weights writes them, or tools/weights/dx_weights.py from a "
                 "PyTorch state_dict) instead of the initialisation rules")
      ->type_name("DIR");
  app.add_option("--predict", predict,
                 "Instead of training: every output of the model for the inputs in FILE (NPY or IDX of [N, ...sample], "
                 "or FILE.h5:/PATH), normalised as the dataset block says, with the weights of --init-from or --from")
      ->type_name("FILE");
  app.add_option("--from", from,
                 "The weights --predict uses, from a checkpoint: DIR/step-NNNNNNNNN, or a --checkpoint-dir (its newest "
                 "complete checkpoint)")
      ->type_name("CHECKPOINT");
  app.add_option("--predict-out", predict_out, "Where --predict writes <output>.npy")->default_str("predictions")->type_name("DIR");
  app.add_flag("--print-weights", print_weights, "Print the weights index (every tensor's name, kind and shape) as JSON, then exit");
  app.add_flag("--no-shuffle", no_shuffle, "Visit the training samples in file order every epoch (reproducible outside DeepEx)");
  app.add_flag("--log-steps", log_steps, "Log a 'step' event (step, epoch, loss, lr) for every training step");
  std::string resume_arg;
  CLI::Option *resume_opt =
      app.add_option("--resume", resume_arg,
                     "Continue from the newest complete checkpoint in --checkpoint-dir (an error when there is none); "
                     "'--resume auto': start afresh when there is none, and skip a corrupt newest one for the one "
                     "before (a job script that is resubmitted or requeued unchanged)")
          ->expected(0, 1)
          ->type_name("[auto]");
  app.add_option("--stop-after-epoch", stop_after, "End the run after epoch N with a checkpoint (the schedule still spans --epochs)")
      ->check(whole_number(1))->type_name("N");
  app.add_option("--export", export_dir,
                 "After training, write every output of the model for every train and test sample to DIR/<split>_<output>.npy")
      ->type_name("DIR");
  app.add_option("--device", device,
                 str("Where to train: ", meta.target, " (the target this executable was compiled for; dxc compile --target "
                     "chooses it)"))
      ->default_str(meta.target)->type_name("DEV");
  app.add_option("--set", "key=value: the same as --key value (e.g. --set epochs=3)")->type_name("KEY=VALUE");
  app.footer(str("Signals: SIGUSR1 writes a checkpoint and goes on; SIGTERM writes one and stops.\n"
                  "Exit status: 0 done, 1 bad input (data, metadata, checkpoint), 2 bad flag, 3 the loss became NaN or Inf,\n"
                  "4 stopped by SIGTERM after writing a checkpoint (--resume continues; --resume auto also starts a first run)."));

  try {
    std::vector<std::string> args;
    try {
      args = expand_set(argc, argv, meta);
    } catch (const Error &e) {
      throw CLI::ValidationError("--set", e.what());
    }
    std::reverse(args.begin(), args.end()); // CLI11 takes them last to first
    app.parse(args);
    if (resume_opt->count() > 0) {
      if (resume_arg == "auto") resume = resume_auto = true;
      else if (resume_arg.empty()) resume = true;
      else
        throw CLI::ValidationError("--resume", str("takes no value or 'auto', not '", resume_arg,
                                                   "'; the checkpoints are those in --checkpoint-dir (give the "
                                                   "directory there: --checkpoint-dir ", resume_arg, " --resume)"));
    }
    // The target is compiled in: the flag only states it (and catches a
    // script that runs the wrong executable).
    if (device != meta.target)
      throw CLI::ValidationError("--device", str("this executable was compiled for ", meta.target == "cpu" ? "the CPU" : meta.target,
                                                 "; '", device, "' needs one compiled with dxc compile --target=",
                                                 device == "gpu" ? "cuda" : device));
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
  cfg->accumulate = accumulate;
  cfg->eval_batch = eval_batch ? eval_batch : batch;
  cfg->seed = seed;
  cfg->max_steps = max_steps;
  cfg->rank = world.rank();
  cfg->world = world.size();
  cfg->lr_scaling = lr_scaling;
  cfg->base_lr = lr * (lr_scaling == "linear" ? double(world.size()) : 1.0);
  cfg->schedule = meta.schedule;
  cfg->target = t.target;
  cfg->stop_at_target = stop_at_target;
  cfg->synthetic = synthetic;
  cfg->profile = profile || profile_kernels;
  cfg->profile_kernels = profile_kernels;
  cfg->synthetic_samples = synth_n ? synth_n : 32 * cfg->global_batch();
  cfg->log_path = log;
  cfg->data_dir = data_dir;
  cfg->bucket_bytes = int64_t(bucket_mb * 1048576.0);
  cfg->overlap = overlap == "on";
  cfg->data_threads = int(data_threads);
  cfg->checkpoint_dir = checkpoint_dir;
  cfg->checkpoint_every = checkpoint_every;
  cfg->comm_timeout_s = comm_timeout;
  cfg->keep_checkpoints = keep;
  cfg->stop_after_epoch = stop_after;
  cfg->resume = resume;
  cfg->resume_auto = resume_auto;
  cfg->print_schedule = print_schedule;
  cfg->export_dir = export_dir;
  cfg->save_weights = save_weights;
  cfg->init_from = init_from;
  cfg->from = from;
  cfg->print_weights = print_weights;
  cfg->predict = predict;
  cfg->predict_out = predict_out;
  cfg->shuffle = !no_shuffle;
  cfg->log_steps = log_steps;
  try {
    cfg->sync = parse_sync(sync);
  } catch (const Error &e) {
    if (world.is_root())
      std::fprintf(stderr, "%s: error: --sync: %s\n  hint: %s\n", prog.c_str(), e.what(), e.hint().c_str());
    *exit_code = kExitUsage;
    return false;
  }
  return true;
}

} // namespace dxrt
