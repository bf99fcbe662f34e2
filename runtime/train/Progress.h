// Where a run is: everything besides the arenas that a checkpoint must hold so
// that a resumed run continues exactly as the uninterrupted one would have.
// The random streams need no state of their own: dropout and randn_like are
// keyed by (seed, step, rank) and the data order by (seed, epoch), so the
// step and the position in the epoch are the RNG state.
#pragma once

#include <cmath>
#include <cstdint>

namespace dxrt {

struct Progress {
  int64_t epoch = 1;          // the epoch in progress, from 1
  int64_t step_in_epoch = 0;  // its steps already taken
  int64_t step = 0;           // steps taken in all
  double train_time_s = 0;    // seconds in training steps, all epochs so far
  double elapsed_s = 0;       // wall time of earlier runs of this training (resumes)
  // The epoch in progress, on this rank.
  double epoch_time_s = 0;
  double loss_sum = 0;        // sum of loss * samples
  double samples = 0;
  double comm_time_s = 0;     // of epoch_time_s, with all-reduce under way
  double comm_wait_s = 0;     // of comm_time_s, waited for after the steps' own work
  double overlap_window_s = 0; // from the first bucket started in the backward pass to its end, summed
  double lr = 0;              // of the last step
  // The last step whose (global) loss was finite.
  double last_finite_loss = NAN;
  int64_t last_finite_step = 0;
  // The train block's target.
  bool target_met = false;
  int64_t target_epoch = 0;
  double target_time_s = 0;
};

} // namespace dxrt
