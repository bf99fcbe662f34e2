// Reading one metrics log (JSON lines written by rank 0 of a training run;
// the format is DESIGN.md's "Metrics log"). A log is checked as it is read:
// anything malformed is a LogError naming the file and the line.
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
  std::string metric; // accuracy | loss | val_loss
  std::string op;     // >= | <=
  double value = 0;
  std::string str() const; // "accuracy >= 0.88"
  bool operator==(const Goal &) const = default;
};

struct EpochRecord {
  int line = 0;
  int64_t epoch = 0;
  int64_t steps = 0;
  double trainTime = 0; // cumulative training time at the end of this epoch (s)
  double elapsed = 0;
  double epochTime = 0; // training time of this epoch (s)
  double samplesPerSec = 0;
  std::optional<double> trainLoss, valLoss, valAccuracy, lr;
  std::optional<double> commTime; // part of epochTime spent in gradient all-reduce (s)
};

struct TargetRecord {
  int line = 0;
  std::string metric;
  double value = 0;
  int64_t epoch = 0;
  double trainTime = 0;
};

// One run: its start event, its epochs (after resumes: the epochs that count)
// and how it ended.
struct RunLog {
  std::string path;
  // start
  std::string model, device, dataset, source, optimizer, schedule, time;
  int64_t ranks = 0, perRankBatch = 0, globalBatch = 0, params = 0, stepsPerEpoch = 0;
  int64_t trainSamples = 0, testSamples = 0, seed = 0, epochsPlanned = 0, maxSteps = 0;
  double lr = 0;
  bool synthetic = false;
  std::optional<Goal> goal;
  std::string sync;         // "allreduce", "average", or "" when the log does not say
  int64_t averageEvery = 0; // K of "average every K steps"
  std::optional<int64_t> gradBytes;
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
// such), a missing or mistyped field, and events out of order. Unknown events
// and fields are ignored, so newer runtimes can add them.
RunLog readLog(const std::string &path);

} // namespace dx::report
