// The metrics log: JSON lines, written by rank 0, in the format of
// docs/cli.md's "Metrics log" section and docs/metrics-log.schema.json:
// start, epoch (and with --log-steps step), target and end events, an error
// event when a run stops on a non-finite loss, checkpoint, stop and resume
// events, and profile. A resumed run appends to the log it continues. Each
// line is flushed as it is written, so a killed job keeps its log.
#pragma once

#include "data/Dataset.h"
#include "model/Metadata.h"
#include "train/Config.h"
#include "train/Progress.h"
#include "train/Stats.h"

#include <cstdio>
#include <string>

namespace dxrt {

class MetricsLog {
public:
  // Opens `path` (creating its directory) when enabled and path is not empty;
  // throws dxrt::Error if it cannot.
  // With `append`, lines go after the existing ones (a resumed run).
  MetricsLog(const std::string &path, bool enabled, bool append = false);
  // True when the log was opened for appending and already holds lines.
  bool continues() const { return continues_; }
  ~MetricsLog();
  MetricsLog(const MetricsLog &) = delete;
  MetricsLog &operator=(const MetricsLog &) = delete;

  void start(const Metadata &meta, const RunConfig &cfg, const Split &train, const Split *test, int64_t steps_per_epoch,
             int blas_threads);
  void epoch(const EpochStats &s);
  // --log-steps: one training step's loss (the global batch's mean) and rate.
  void step(int64_t step, int64_t epoch, double loss, double lr);
  void target(const TargetSpec &t, double value, int64_t epoch, double train_time_s);
  void end(double train_time_s, double elapsed_s);
  void checkpoint(const std::string &why, const Progress &p, const std::string &path);
  void stop(const std::string &reason, const Progress &p, const std::string &checkpoint, double elapsed_s);
  void resume(const Progress &p, const std::string &from);
  void non_finite_loss(int64_t step, int64_t epoch, double loss, double last_finite_loss, int64_t last_finite_step,
                       double elapsed_s);
  // A line built elsewhere: one JSON object (the "profile" event, train/Profile.h).
  void event(const std::string &json_object) { write(json_object); }

private:
  void write(const std::string &line);
  std::FILE *f_ = nullptr;
  std::string path_;
  bool continues_ = false;
};

} // namespace dxrt
