// The training loop: epochs of shuffled batches through the generated
// train step and optimizer update, evaluation after each epoch, the metrics
// log, the target and the stop rule.
#pragma once

#include "comm/World.h"
#include "data/Dataset.h"
#include "driver/Console.h"
#include "driver/MetricsLog.h"
#include "model/Arenas.h"
#include "model/Metadata.h"
#include "train/Config.h"

#include <optional>

namespace dxrt {

struct TrainData {
  Split train;
  std::optional<Split> test;
};

class Trainer {
public:
  Trainer(const Metadata &meta, const RunConfig &cfg, const TrainData &data, Arenas &arenas, World &world,
          Console &console, MetricsLog &log, double start_time);
  // Trains the configured epochs; returns the process exit code. Throws
  // dxrt::Error (exit_code kExitNonFinite) when the loss stops being finite.
  int run();

private:
  EpochStats train_epoch(int64_t epoch);
  void check_target(const EpochStats &s);
  [[noreturn]] void non_finite(float loss, int64_t epoch, int64_t step_in_epoch, int64_t steps);

  const Metadata &meta_;
  const RunConfig &cfg_;
  const TrainData &data_;
  Arenas &a_;
  World &world_;
  Console &console_;
  MetricsLog &log_;
  double start_;

  int64_t step_ = 0;              // global step, from 1 once training starts
  double train_time_ = 0;         // seconds spent in training steps
  double last_finite_loss_ = NAN;
  int64_t last_finite_step_ = 0;
  bool target_met_ = false;
  int64_t target_epoch_ = 0;
  double target_time_ = 0;
  bool stop_ = false;
};

} // namespace dxrt
