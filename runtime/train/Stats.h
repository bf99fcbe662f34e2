// What one epoch and one evaluation produced, as the console and the metrics
// log report it.
#pragma once

#include <cmath>
#include <cstdint>

namespace dxrt {

struct EvalResult {
  double loss = NAN;     // mean over the split's samples
  double accuracy = NAN; // NaN when the model has no class scores or the split no labels
  int64_t samples = 0;
};

struct EpochStats {
  int64_t epoch = 0, epochs = 0;
  int64_t steps = 0;            // steps in this epoch
  int64_t samples = 0;          // training samples in this epoch (all ranks)
  double train_loss = NAN;      // mean over the epoch's samples
  double lr = 0;                // at the epoch's last step
  double epoch_time_s = 0;      // training steps of this epoch (the slowest rank's)
  double comm_time_s = 0;       // of which in all-reduce
  double train_time_s = 0;      // training steps so far
  double elapsed_s = 0;         // wall time since start
  double samples_per_s = 0;
  EvalResult val;
  bool has_val = false;
};

} // namespace dxrt
