// Evaluation of a split with dx_eval_step: the mean loss and, for
// classifiers, the accuracy (argmax of the first output vs the label). Each
// rank evaluates a contiguous shard; the sums are reduced over the world.
#pragma once

#include "comm/World.h"
#include "data/Dataset.h"
#include "model/Arenas.h"
#include "model/Backend.h"
#include "train/Stats.h"

namespace dxrt {

// True when the first output holds class scores the labels index.
bool has_accuracy(const Metadata &meta, const Split &split);

// An image split's batches are decoded on data_threads threads (other
// splits ignore it).
EvalResult evaluate(const Metadata &meta, Arenas &arenas, Backend &backend, const Split &split, int64_t eval_batch, World &world,
                    int data_threads = 1);

} // namespace dxrt
