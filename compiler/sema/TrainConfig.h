// The checked contents of dataset and train blocks, with defaults filled in.
// The runtime receives these as the generated module's metadata.
#pragma once

#include "sema/Types.h"
#include "support/Source.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dx {

struct DatasetConfig {
  std::string name;
  std::string format;                  // idx, npy, csv, folder
  std::vector<std::string> trainFiles; // inputs [, labels]; folder: one directory
  std::vector<std::string> testFiles;
  std::vector<int64_t> sample;         // per-sample shape
  int64_t classes = 0;                 // 0 = unknown / not a classification set
  std::string transform = "none";      // none or log1p: applied to the stored values first,
  double scale = 1.0;                  // then x * scale, then
  std::vector<double> mean, std;       // (x - mean) / std, per channel or scalar
  bool hasLabels = false;              // integer class labels (a second file, label_column, or folders)
  std::vector<int64_t> labelShape;     // one sample's labels: [] = one class per sample, [H, W] per pixel
  bool hasTargets = false;             // continuous targets instead of labels (`targets:`)
  std::vector<int64_t> targetShape;    // one sample's targets, e.g. [2]
  int64_t labelColumn = -1;            // csv
  bool header = false;                 // csv
  // folder: the training split's random augmentations, in the order applied
  // (random_resized_crop, flip); empty = none (the evaluation transform).
  std::vector<std::string> augment;
  SourceRange range, sampleRange, labelsRange, targetsRange;
};

struct OptimizerConfig {
  std::string kind;                    // sgd, adam, adamw, rmsprop, lars
  std::map<std::string, double> hyper; // lr, momentum, ... with defaults filled in
};

struct ScheduleConfig {
  int64_t warmupEpochs = 0;
  std::string kind = "constant";       // constant, step, multistep, exponential, cosine
  std::map<std::string, double> hyper;
  std::vector<int64_t> milestones;
};

struct TrainConfig {
  std::string model, dataset;
  OptimizerConfig optimizer;
  ScheduleConfig schedule;
  int64_t batchPerRank = 32;
  int64_t epochs = 1;
  int64_t seed = 0;
  std::string sync = "allreduce";      // allreduce or average
  int64_t averageEvery = 0;
  std::string targetMetric;            // accuracy, loss, val_loss, mae, rmse, r2, iou; empty = none
  std::string targetOp;                // >= or <=
  double targetValue = 0;
  int64_t checkpointEvery = 0;         // epochs; 0 = only on signals
  std::string lrScaling = "none";      // none or linear
  // fp32, or bf16: GEMMs and convolutions read bf16 copies of their inputs
  // and accumulate in fp32; everything else (weights, gradients, optimizer
  // state, reductions, losses) stays fp32.
  std::string precision = "fp32";
  SourceRange range;
};

} // namespace dx
