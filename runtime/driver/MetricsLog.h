// The metrics log: JSON lines, written by rank 0, in the format of
// DESIGN.md's "Metrics log" section (start, epoch, target, end events; an
// error event when a run stops on a non-finite loss). Each line is flushed
// as it is written, so a killed job keeps its log.
#pragma once

#include "data/Dataset.h"
#include "model/Metadata.h"
#include "train/Config.h"
#include "train/Stats.h"

#include <cstdio>
#include <string>

namespace dxrt {

class MetricsLog {
public:
  // Opens `path` (creating its directory) when enabled and path is not empty;
  // throws dxrt::Error if it cannot.
  MetricsLog(const std::string &path, bool enabled);
  ~MetricsLog();
  MetricsLog(const MetricsLog &) = delete;
  MetricsLog &operator=(const MetricsLog &) = delete;

  void start(const Metadata &meta, const RunConfig &cfg, const Split &train, const Split *test, int64_t steps_per_epoch,
             int blas_threads);
  void epoch(const EpochStats &s);
  void target(const TargetSpec &t, double value, int64_t epoch, double train_time_s);
  void end(double train_time_s, double elapsed_s);
  void non_finite_loss(int64_t step, int64_t epoch, double loss, double last_finite_loss, int64_t last_finite_step,
                       double elapsed_s);

private:
  void write(const std::string &line);
  std::FILE *f_ = nullptr;
  std::string path_;
};

} // namespace dxrt
