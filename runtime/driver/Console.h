// What the person running the job reads: the start banner, the table of
// layers, a progress bar per epoch (plain lines when stdout is not a
// terminal) and a summary line per epoch. Only rank 0 prints.
#pragma once

#include "data/Dataset.h"
#include "model/Metadata.h"
#include "train/Config.h"
#include "train/Stats.h"

#include <string>

namespace dxrt {

class Console {
public:
  // A progress bar needs stdout to be a terminal. Under mpirun it never is
  // one we can trust: Open MPI hands ranks a pseudo-terminal even when
  // mpirun's own output goes to a file, so `allow_bar` is false there.
  Console(bool enabled, bool allow_bar);
  bool tty() const { return tty_; }

  // The first line, printed before the data loads.
  void title(const Metadata &meta, const RunConfig &cfg, int blas_threads);
  // Model, data, batch, optimizer and run settings.
  void banner(const Metadata &meta, const RunConfig &cfg, const Split &train, const Split *test, double load_s, int64_t arena_bytes);
  void layer_table(const Metadata &meta);
  // Step `step` (from 1) of `steps` in the epoch; redrawn at most 10 times a
  // second on a terminal, otherwise a plain line at most every 10 seconds.
  void progress(const RunConfig &cfg, int64_t epoch, int64_t step, int64_t steps, double loss, double samples_per_s,
                double eta_s);
  void epoch_summary(const EpochStats &s);
  void line(const std::string &text); // a plain line (clears the bar first)
  void end_progress();                  // clears the bar, if one is shown

private:
  void clear_bar();
  bool enabled_, tty_;
  bool bar_shown_ = false;
  double last_draw_ = 0, last_line_ = 0;
};

} // namespace dxrt
