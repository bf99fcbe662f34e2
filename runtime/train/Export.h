// --export DIR: every output of the model for every sample of a split, in
// inference mode and in sample order, as DIR/<split>_<output>.npy (float32,
// [samples, ...output shape]) — e.g. a VAE's latent means for plotting, or a
// classifier's logits. Rank 0 evaluates and writes (files streamed, written
// atomically); the other ranks wait for it.
#pragma once

#include "comm/World.h"
#include "data/Dataset.h"
#include "model/Arenas.h"
#include "model/Backend.h"

#include <string>
#include <vector>

namespace dxrt {

// Writes the split's files; returns their paths (on rank 0; empty elsewhere).
// Throws dxrt::Error naming a file that cannot be written.
std::vector<std::string> export_outputs(const Metadata &meta, Arenas &arenas, Backend &backend, const Split &split, int64_t eval_batch,
                                        const std::string &dir, World &world);

} // namespace dxrt
