// Reading one metrics log (JSON lines written by rank 0 of a training run;
// the format is docs/cli.md's "Metrics log", as a JSON Schema in
// docs/metrics-log.schema.json). A log is checked as it is read: anything
// malformed is an InputError naming the file and the line. Only the schema's
// required fields are required; every other field has a fallback (below),
// so logs of older and of other writers are read too.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace dx::report {

// An error in a log (or any other input file of the report): printed as
// FILE:LINE:COL: error: MESSAGE (LINE and COL left out when 0; "dxc" for
// FILE when the error is about no file).
class InputError : public std::runtime_error {
public:
  InputError(std::string file, int line, int column, const std::string &message)
      : std::runtime_error(message), file(std::move(file)), line(line), column(column) {}
  // "np2.jsonl:7: error: ..."
  std::string render() const;
  std::string file;
  int line;
  int column;
};

// The train block's target, e.g. accuracy >= 0.88.
struct Goal {
  std::string metric; // accuracy | iou | mae | rmse | r2 | loss | val_loss
  std::string op;     // >= | <=
  double value = 0;
  std::string str() const; // "accuracy >= 0.88"
  bool operator==(const Goal &) const = default;
};

// Whether `m` is a metric a goal may name: accuracy, iou, mae, rmse, r2, loss, val_loss.
bool isMetric(const std::string &m);

struct EpochRecord {
  int line = 0;
  int64_t epoch = 0;
  int64_t steps = 0;
  // Cumulative training time at the end of this epoch (s); without
  // train_time_s, the sum of the epoch times so far.
  double trainTime = 0;
  double elapsed = 0;
  double epochTime = 0; // training time of this epoch (s)
  double samplesPerSec = 0; // 0: not in the log (Metrics derives it from the batch)
  std::optional<double> trainLoss, valLoss, valAccuracy, lr;
  std::optional<double> valIou, valMae, valRmse, valR2; // segmentation and regression runs
  std::optional<double> commTime; // part of epochTime with gradient all-reduce under way (s)
  std::optional<double> commWait; // part of commTime the steps waited for (s): not hidden by the backward pass
  // The steps' backward-pass time after their first bucket's all-reduce
  // started (s, summed): the window the all-reduce could hide in (since 1.2.0).
  std::optional<double> overlapWindow;
};

struct TargetRecord {
  int line = 0;
  int64_t epoch = 0;
  double trainTime = 0; // without train_time_s: that of the epoch it names
};

// One run: its start event, its epochs (after resumes: the epochs that count)
// and how it ended.
struct RunLog {
  std::string path;
  // start
  std::string model, device, dataset, source, optimizer, schedule, time;
  int64_t ranks = 0;
  // One of the two batch fields is enough: global = per rank * ranks;
  // perRankBatch is 0 (unknown) when only a global batch that the ranks do
  // not divide is given.
  int64_t perRankBatch = 0, globalBatch = 0;
  std::optional<int64_t> params;
  // Without steps_per_epoch: the most steps of any epoch the log keeps
  // (stepsPerEpochDerived says so).
  int64_t stepsPerEpoch = 0;
  bool stepsPerEpochDerived = false;
  std::optional<int64_t> trainSamples; // the training split's size, when the log gives it
  int64_t testSamples = 0, seed = 0, epochsPlanned = 0, maxSteps = 0;
  double lr = 0;
  bool synthetic = false;
  std::optional<Goal> goal;
  std::string sync;         // "allreduce", "average", or "" when the log does not say
  int64_t averageEvery = 0; // K of "average every K steps"
  std::optional<int64_t> gradBytes;
  std::optional<int64_t> gradBuckets; // the buckets grad_bytes is all-reduced in (since 1.2.0)
  std::string lrScaling; // "none", "linear", or ""
  // what followed
  std::vector<EpochRecord> epochs;
  std::optional<TargetRecord> target;
  bool ended = false;
  double endTrainTime = 0;
  std::string error; // e.g. "non_finite_loss"
  int errorLine = 0;
  std::string stopReason; // a stop event ("signal", "stop_after_epoch") not followed by a resume
  int resumes = 0;
};

// Reads and checks the log at `path`. Throws InputError (file, line) for an
// unreadable file, a line that is not JSON (a cut-short last line is named as
// such), a missing required field or a mistyped one, and events out of order.
// Unknown events and fields are ignored, so newer runtimes can add them; a
// field that is null counts as absent.
RunLog readLog(const std::string &path);

} // namespace dx::report
