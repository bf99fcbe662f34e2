// Everything a run needs to know, resolved once from the metadata's train
// block and the command line (flags win).
#pragma once

#include "model/Metadata.h"
#include "train/ModelSync.h"
#include "train/Schedule.h"

#include <cstdint>
#include <optional>
#include <string>

namespace dxrt {

struct RunConfig {
  std::string model;
  int64_t epochs = 1;
  int64_t per_rank_batch = 32, eval_batch = 32;
  int64_t accumulate = 1; // micro-batches of per_rank_batch per step and rank
  int64_t seed = 0;
  int64_t max_steps = 0;        // 0 = no limit
  double base_lr = 0;           // after --lr and lr_scaling
  ScheduleSpec schedule;
  std::optional<TargetSpec> target;
  bool stop_at_target = false;
  bool synthetic = false;
  int64_t synthetic_samples = 0; // training samples of a synthetic run
  std::string log_path, data_dir;
  SyncSpec sync;
  std::string lr_scaling = "none"; // none or linear (base_lr already scaled)
  int64_t bucket_bytes = 25 << 20;
  bool overlap = true; // all-reduce gradient buckets during the backward pass (--overlap)
  double comm_timeout_s = 600; // --comm-timeout: the longest wait for the other ranks (comm/Watchdog.h)
  int data_threads = 2;  // image decoding threads (folder datasets)
  // Checkpoints: every N epochs (0 = only on SIGUSR1/SIGTERM), the newest
  // `keep` kept; --resume continues from the newest; --stop-after-epoch
  // ends the run (with a checkpoint) after that epoch of the schedule.
  std::string checkpoint_dir;
  int64_t checkpoint_every = 0, keep_checkpoints = 2, stop_after_epoch = 0;
  bool resume = false;
  // --resume auto: where --checkpoint-dir holds no complete checkpoint the
  // run starts afresh (Run.cpp then clears `resume`), and a corrupt newest
  // checkpoint is skipped for the one before (Trainer::resume).
  bool resume_auto = false;
  bool print_schedule = false; // print the learning rate of every step, then exit
  bool profile = false;        // --profile: time per layer and phase (train/Profile.h)
  bool profile_kernels = false; // --profile-kernels: and per generated kernel
  std::string export_dir;      // --export: every output of every sample, after training
  std::string save_weights;    // --save-weights DIR: one NPY per tensor after training (train/Weights.h)
  std::string init_from;       // --init-from DIR: start from such a directory instead of the init rules
  bool print_weights = false;  // --print-weights: the weights index (names, shapes) as JSON, then exit
  std::string from;            // --from CHECKPOINT: the weights --predict uses, from a checkpoint
  std::string predict;         // --predict INPUTS: outputs for new inputs (with --init-from), no training
  std::string predict_out = "predictions"; // --predict-out DIR: where --predict writes
  bool shuffle = true;         // --no-shuffle: every epoch visits the samples in file order
  bool log_steps = false;      // --log-steps: a "step" event (loss, lr) per training step in the log
  int rank = 0, world = 1;
  int64_t global_batch() const { return per_rank_batch * accumulate * world; }
};

} // namespace dxrt
