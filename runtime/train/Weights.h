// A model's weights in and out of a run, as a directory a PyTorch user can
// read: one NPY file per tensor (float32, PyTorch's names and layouts, what
// --print-model shows) and index.json, which lists them:
//
//   {"format": "deepex-weights", "version": 1, "model": "mlp",
//    "tensors": [{"name": "dense_1.weight", "kind": "param", "shape": [256, 784],
//                 "dtype": "float32", "file": "dense_1.weight.npy"}, ...]}
//
// Parameters come first, in the arena's order (the model's order), then the
// buffers (batch-norm running statistics). tools/weights/dx_weights.py maps
// such a directory to and from a PyTorch state_dict. docs/inference.md.
#pragma once

#include "model/Arenas.h"
#include "model/Metadata.h"

#include <string>

namespace dxrt {

// The index as JSON text (also what --print-weights prints).
std::string weights_index(const Metadata &meta);

// Writes the parameters and buffers of `a` to dir (created if needed): each
// file written whole under a temporary name and renamed, index.json last.
// Throws dxrt::Error naming the file on failure.
void save_weights(const Metadata &meta, const Arenas &a, const std::string &dir);

// Reads every parameter and buffer of the model from dir into `a`. A missing
// index or file, a tensor the model does not have or lacks, a shape or
// dtype that differs, a non-finite value: a dxrt::Error naming the tensor and
// the file.
// `who` starts the messages ("--init-from", or the library's "dx_model_open").
void load_weights(const Metadata &meta, Arenas &a, const std::string &dir, const char *who = "--init-from");

} // namespace dxrt
