// The report's arithmetic: runs grouped into series (never mixing models),
// and every column of a series' table. Definitions (docs/cli.md):
//
//   mean epoch time   = sum(epoch_time_s) / sum(steps) * steps_per_epoch
//                       (the mean of epoch_time_s when every epoch is whole)
//   samples/s         = sum(samples_per_s * epoch_time_s) / sum(epoch_time_s)
//                       (global_batch * sum(steps) / sum(epoch_time_s) if a rate is missing)
//   speed-up S(N)     = samples/s(N) / samples/s(N0), N0 = the series' smallest rank count;
//                       with several runs at one rank count, their mean samples/s
//   efficiency        = S(N) * N0 / N
//   learning speed-up = time_to_target(N0) / time_to_target(N)
//
// Speed-up is a ratio of throughputs, not of epoch times: an epoch's work
// is the same at every rank count only for a fixed dataset (strong
// scaling); when each rank brings its own samples (--synthetic: weak
// scaling) an epoch at N ranks trains N / N0 times the samples, and the
// ratio of epoch times would say nothing about parallel speed.
#pragma once

#include "report/Log.h"

#include <optional>
#include <string>
#include <vector>

namespace dx::report {

enum class Learning {
  NoGoal,              // the train block has no target
  Reached,             // learningSpeedup is set
  NotReached,          // this run never met the target
  BaselineNotReached,  // this run met it, the baseline did not: undefined
};

struct Row {
  const RunLog *run = nullptr;
  int64_t ranks = 0, perRankBatch = 0, globalBatch = 0;
  int64_t epochs = 0, steps = 0; // epochs and steps trained
  double epochTime = 0;          // mean epoch time (s)
  double stepTime = 0;           // mean step time (s)
  // Below, "waited" is comm_wait_s, or comm_time_s in logs without it.
  std::optional<double> computeStepTime; // mean step time less the all-reduce waited for, when the log has it
  std::optional<double> commFraction;    // sum(waited) / sum(epoch_time_s), when the log has comm_time_s
  const char *waitedField = "comm_time_s"; // "comm_wait_s" when every epoch has it
  // sum(overlap_window_s) / sum(steps): the backward pass's time per step in
  // which the all-reduce could hide, when every epoch has overlap_window_s.
  std::optional<double> overlapWindowStep;
  double samplesPerSec = 0;
  double trainTime = 0; // cumulative training time at the last epoch (s)
  // This run's samples/s over the baseline's (the mean of the runs at N0).
  double speedup = 0, efficiency = 0;
  size_t group = 0; // its rank count in Series::groups
  std::optional<int64_t> epochsToTarget;
  std::optional<double> timeToTarget;
  Learning learning = Learning::NoGoal;
  std::optional<double> learningSpeedup;
  std::optional<double> finalAccuracy, finalValLoss, finalTrainLoss;
  std::optional<double> finalIou, finalMae, finalRmse, finalR2;
  bool complete = false;     // has an end event
  bool duplicate = false;    // another run of the series has the same rank count
  std::string status() const; // "complete", "no end event", "non-finite loss", ... (+ ", resumed")
  std::string label() const;  // "2 ranks" (+ the log's name when duplicate)
};

// The runs of a series at one rank count. Speed-up belongs to a rank count,
// so repeated runs are averaged, and their spread is kept to show the noise.
struct RankGroup {
  int64_t ranks = 0;
  size_t first = 0, count = 0; // Series::rows[first, first + count)
  double samplesPerSec = 0;    // mean of the runs' samples/s
  double minSamplesPerSec = 0, maxSamplesPerSec = 0;
  double sdSamplesPerSec = 0;  // sample standard deviation (n - 1); 0 for one run
  double epochTime = 0;        // mean of the runs' epoch times
  double speedup = 0, efficiency = 0; // of the mean samples/s
};

// "120–128": the lowest and the highest samples/s of the group's runs.
std::string samplesRange(const RankGroup &g);

// How the training set changes with the ranks across a series.
enum class Scaling {
  Strong,  // the same samples at every rank count: a fixed dataset
  Weak,    // more samples with more ranks (each rank brings its own: --synthetic)
  Varying, // neither: the runs trained different data sets
};

struct Series {
  std::string model, device, dataset, source, sync, lrScaling;
  int64_t averageEvery = 0;
  std::optional<int64_t> params;
  bool synthetic = false;
  std::optional<Goal> goal;
  std::vector<Row> rows; // by rank count, then in the order the logs were given
  std::vector<RankGroup> groups; // one per rank count, in the rows' order
  int64_t baseRanks = 0; // N0
  Scaling scaling = Scaling::Strong;
  // The fewest and the most samples an epoch of a run trains: train_samples,
  // or steps_per_epoch * global_batch when a log lacks it (samplesFromSteps).
  int64_t minSamples = 0, maxSamples = 0;
  bool samplesFromSteps = false;
  std::string slug;      // for file names: "mlp", "mlp-average8", ...
  std::vector<std::string> notes;
  std::string title() const;       // "mlp (sync average every 8 steps)"
  std::string description() const; // "235,146 parameters · cpu · fashion_mnist · goal accuracy >= 0.88 · ..."
  // "fixed dataset: 60,000 train samples (strong scaling)",
  // "samples growing with ranks: 2,048 to 4,096 train samples (weak scaling)"
  std::string scalingDescription() const;
  const char *scalingName() const; // for the CSV: "strong", "weak", "varying"
  const RankGroup &groupOf(const Row &r) const { return groups[r.group]; }
  // The metric the quality plot and the "final" column show: the goal's,
  // else the first the logs have of iou, accuracy, mae, val_loss; else "loss".
  std::string plotMetric() const;
};

struct Analysis {
  std::vector<Series> series;
  std::vector<std::string> notes; // about logs left out
};

// Groups runs that share model, parameter count, device, dataset, synthetic
// data, goal, sync mode and learning-rate scaling; computes every column.
// Runs without any epoch are left out (with a note). `runs` must outlive
// the result.
Analysis analyze(const std::vector<RunLog> &runs);

// The value of `metric` (accuracy, iou, mae, rmse, r2, loss, val_loss) in one epoch.
std::optional<double> metricOf(const EpochRecord &e, const std::string &metric);
// For headings: "IoU", "MAE", "RMSE", "R²", "val loss", "accuracy", "loss".
std::string metricName(const std::string &m);

} // namespace dx::report
