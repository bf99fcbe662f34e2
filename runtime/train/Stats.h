// What one epoch and one evaluation produced, as the console and the metrics
// log report it.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace dxrt {

struct EvalResult {
  double loss = NAN;     // mean over the split's samples
  int64_t samples = 0;
  // Class scores against labels (the first output [B, C, ...labels]); NaN
  // when the model has none or the split no labels.
  double accuracy = NAN;          // top-1, per sample or per pixel
  double iou = NAN;               // mean over the classes present (in labels or predictions)
  std::vector<double> class_iou;  // per class; NaN for a class never present
  bool per_pixel = false;         // labels per pixel/voxel: IoU is the segmentation metric
  // Continuous targets (the first output [B, ...targets]); NaN without.
  double mae = NAN, rmse = NAN;   // over every target element
  double r2 = NAN;                // mean of the per-output R^2 (outputs with variance)
  std::vector<double> output_r2;  // R^2 per target element (NaN: no variance in the split)
};

struct EpochStats {
  int64_t epoch = 0, epochs = 0;
  int64_t steps = 0;            // steps in this epoch
  int64_t samples = 0;          // training samples in this epoch (all ranks)
  double train_loss = NAN;      // mean over the epoch's samples
  double lr = 0;                // at the epoch's last step
  double epoch_time_s = 0;      // training steps of this epoch (the slowest rank's)
  double comm_time_s = 0;       // of which with all-reduce under way
  double comm_wait_s = 0;       // of which waiting for all-reduce (not hidden by the backward pass)
  double overlap_window_s = 0;  // backward-pass time after the first bucket started (ModelSync::take_overlap_window)
  double train_time_s = 0;      // training steps so far
  double elapsed_s = 0;         // wall time since start
  double samples_per_s = 0;
  EvalResult val;
  bool has_val = false;
};

// The value of a `target:` metric (accuracy, iou, mae, rmse, r2, val_loss,
// loss) in an epoch's statistics; NaN when the epoch does not have it.
double metric_value(const EpochStats &s, const std::string &metric);

} // namespace dxrt
