// The training loop: epochs of shuffled batches through the generated train
// step, the ranks' model synchronisation and the optimizer update;
// evaluation after each epoch; the metrics log, the target and the stop
// rule; checkpoints (every N epochs, on SIGUSR1/SIGTERM, at
// --stop-after-epoch) and resuming from them.
#pragma once

#include "comm/World.h"
#include "data/Dataset.h"
#include "data/Prefetch.h"
#include "driver/Console.h"
#include "driver/MetricsLog.h"
#include "model/Arenas.h"
#include "model/Backend.h"
#include "model/Metadata.h"
#include "train/Checkpoint.h"
#include "train/Config.h"
#include "train/ModelSync.h"
#include "train/Progress.h"
#include "train/Stats.h"

#include <memory>
#include <optional>

namespace dxrt {

struct TrainData {
  Split train;
  std::optional<Split> test;
};

class Trainer {
public:
  Trainer(const Metadata &meta, const RunConfig &cfg, const TrainData &data, Arenas &arenas, Backend &backend,
          World &world, Console &console, MetricsLog &log, double start_time);
  // Loads the newest complete checkpoint of --checkpoint-dir into the
  // arenas and continues from its progress. Throws dxrt::Error when there is
  // none or it does not belong to this run. Under --resume auto, a newest
  // checkpoint that some rank finds damaged (Checkpointer::damage) is
  // skipped, with a warning, for the one before; every one damaged is an error.
  void resume();
  // Trains to the end of the schedule (or the stop rule, a signal,
  // --stop-after-epoch); returns the process exit code. Throws dxrt::Error
  // (exit_code kExitNonFinite) when the loss stops being finite.
  int run();

private:
  enum class Stop { None, MaxSteps, Signal };
  Stop train_epoch(EpochStats &s);
  void step(int64_t epoch, int64_t k, int64_t steps, const std::vector<int64_t> &order, const struct BatchPlan &plan);
  // Samples [lo, hi) of the order: micro-batch m of step k.
  void load_batch(int64_t epoch, int64_t k, int64_t m, int64_t lo, int64_t hi, int64_t steps,
                  const std::vector<int64_t> &order, const struct BatchPlan &plan);
  EpochStats finish_epoch(int64_t epoch);
  void check_target(const EpochStats &s);
  std::string checkpoint(const char *why);
  double elapsed() const;
  [[noreturn]] void non_finite(float loss, bool collective, int64_t epoch, int64_t step_in_epoch, int64_t steps);

  const Metadata &meta_;
  const RunConfig &cfg_;
  const TrainData &data_;
  Arenas &a_;
  Backend &backend_;
  World &world_;
  Console &console_;
  MetricsLog &log_;
  double start_;
  ModelSync sync_;
  Checkpointer ckpt_;
  Progress p_;
  int64_t fault_step_ = -1; // DXRT_FAULT (tests)
  bool fault_hangs_ = false;
  std::unique_ptr<Prefetcher> prefetch_; // image training splits: the next batch decoded during this step
  bool stop_ = false; // the target was met and --stop-at-target
  // Signals: the SIGUSR1 count already answered by a checkpoint (the same on
  // every rank), and what all ranks agreed on after a step.
  int64_t usr1_handled_ = 0;
  bool checkpoint_now_ = false, stop_now_ = false;
};

} // namespace dxrt
