// Evaluation of a split with dx_eval_step: the mean loss and the metrics the
// first output's shape allows (docs/cli.md, "Metrics"):
//   class scores [B, C, ...labels] against labels: accuracy (per sample or
//     per pixel), per-class and mean IoU;
//   values [B, ...targets] against continuous targets: MAE, RMSE, R^2 per
//     output and their mean.
// Each rank evaluates a contiguous shard; the sums are reduced over the world.
#pragma once

#include "comm/World.h"
#include "data/Dataset.h"
#include "model/Arenas.h"
#include "model/Backend.h"
#include "train/Stats.h"

namespace dxrt {

// An image split's batches are decoded on data_threads threads (other
// splits ignore it).
EvalResult evaluate(const Metadata &meta, Arenas &arenas, Backend &backend, const Split &split, int64_t eval_batch, World &world,
                    int data_threads = 1);

} // namespace dxrt
