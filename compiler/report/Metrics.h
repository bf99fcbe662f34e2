// The report's arithmetic: runs grouped into series (never mixing models),
// and every column of a series' table. Definitions (DESIGN.md, docs/cli.md):
//
//   mean epoch time   = sum(epoch_time_s) / sum(steps) * steps_per_epoch
//                       (the mean of epoch_time_s when every epoch is whole)
//   samples/s         = sum(samples_per_s * epoch_time_s) / sum(epoch_time_s)
//                       (global_batch * sum(steps) / sum(epoch_time_s) if a rate is missing)
//   speed-up S(N)     = epoch_time(N0) / epoch_time(N), N0 = the series' smallest rank count
//   efficiency        = S(N) * N0 / N
//   learning speed-up = time_to_target(N0) / time_to_target(N)
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
  std::optional<double> computeStepTime; // mean step time less all-reduce, when the log has comm_time_s
  std::optional<double> commFraction;    // sum(comm_time_s) / sum(epoch_time_s), when the log has comm_time_s
  double samplesPerSec = 0;
  double trainTime = 0; // cumulative training time at the last epoch (s)
  double speedup = 0, efficiency = 0;
  std::optional<int64_t> epochsToTarget;
  std::optional<double> timeToTarget;
  Learning learning = Learning::NoGoal;
  std::optional<double> learningSpeedup;
  std::optional<double> finalAccuracy, finalValLoss, finalTrainLoss;
  bool complete = false;     // has an end event
  bool duplicate = false;    // another run of the series has the same rank count
  std::string status() const; // "complete", "no end event", "non-finite loss", ... (+ ", resumed")
  std::string label() const;  // "2 ranks" (+ the log's name when duplicate)
};

struct Series {
  std::string model, device, dataset, source, sync, lrScaling;
  int64_t averageEvery = 0, params = 0;
  bool synthetic = false;
  std::optional<Goal> goal;
  std::vector<Row> rows; // by rank count, then in the order the logs were given
  int64_t baseRanks = 0; // N0
  std::string slug;      // for file names: "mlp", "mlp-average8", ...
  std::vector<std::string> notes;
  std::string title() const;       // "mlp (sync average every 8 steps)"
  std::string description() const; // "235,146 parameters · cpu · fashion_mnist · goal accuracy >= 0.88 · ..."
  // The metric the accuracy plot shows: "accuracy", "loss" or "val_loss".
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

// The value of `metric` ("accuracy", "loss", "val_loss") in one epoch.
std::optional<double> metricOf(const EpochRecord &e, const std::string &metric);

} // namespace dx::report
