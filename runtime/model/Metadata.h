// The model object's metadata (dx_model_metadata, docs/abi.md), parsed and
// checked once at start.
#pragma once

#include "data/Dataset.h"
#include "train/Schedule.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dxrt {

struct TensorSpec {
  std::string name;
  std::vector<int64_t> shape; // without the batch dimension
  int64_t floats = 0;
};

// One tensor in the parameter or buffer arena.
struct ArenaEntry {
  std::string name;
  std::vector<int64_t> shape;
  int64_t offset = 0, size = 0; // in floats
  std::string init;             // uniform_fan_in, zeros, ones
  int64_t fan_in = 0;
};

struct LayerSpec {
  std::string path, op;
  std::vector<int64_t> output;
  int64_t params = 0;
  double flops = 0;
};

struct OptimizerSpec {
  std::string kind;                                  // sgd, adam, adamw, rmsprop, lars
  double lr = 0;
  std::vector<std::pair<std::string, double>> hyper; // every number but lr, in metadata order
};

struct TargetSpec {
  std::string metric; // accuracy, iou, loss, val_loss, mae, rmse, r2
  std::string op;     // >= or <=
  double value = 0;
  bool met(double v) const { return op == ">=" ? v >= value : v <= value; }
};

struct TrainSpec {
  int64_t batch_per_rank = 32, epochs = 1, seed = 0;
  std::string sync = "allreduce";
  int64_t average_every = 0, checkpoint_every = 0;
  std::string lr_scaling = "none";
  std::string precision = "fp32"; // or bf16 (kernels/Precision.h); absent in fp32 models' metadata
  std::optional<TargetSpec> target;
};

struct Metadata {
  int format = 1;
  std::string model, source, target;
  // The layout a CPU build keeps 2-D convolution activations in between
  // convolutions (dxc --conv-layout): nchw16c, nchw8c or nchw; empty when
  // the metadata does not say (CUDA, older builds).
  std::string conv_layout;
  TensorSpec input;
  bool labels = false;  // the loss reads the batch's class labels
  bool targets = false; // the loss reads the batch's continuous targets
  std::vector<TensorSpec> outputs;
  // Floats of one sample's outputs, all of them (dx_eval_step writes them all).
  int64_t output_floats() const {
    int64_t n = 0;
    for (const TensorSpec &o : outputs) n += o.floats;
    return n;
  }
  int64_t param_floats = 0, buffer_floats = 0, state_slots = 0;
  std::vector<ArenaEntry> params, buffers;
  std::vector<LayerSpec> layers;
  // The memory plan of each step function (dx-plan-memory): its workspace
  // holds fixed_bytes + bytes_per_sample * batch (every activation,
  // gradient and temporary of a step). Absent in metadata without it.
  struct Workspace {
    int64_t fixed_bytes = 0, bytes_per_sample = 0;
    // In double: a batch from the command line times a size from the file.
    double bytes_at(int64_t batch) const { return double(fixed_bytes) + double(bytes_per_sample) * double(batch); }
  };
  std::optional<Workspace> train_workspace, eval_workspace;
  double flops_per_sample = 0;
  OptimizerSpec optimizer;
  ScheduleSpec schedule;
  std::optional<TrainSpec> train;
  std::optional<DatasetSpec> dataset;
  std::string json; // the text it came from, for logs and checkpoints

  // What evaluation can measure, from the first output's shape (docs/cli.md, "Metrics"):
  // C when it holds C >= 2 class scores per label ([B, C, ...label_shape],
  // C the dataset's classes when it declares them), else 0;
  int64_t score_classes() const;
  // The train block's precision: fp32 or bf16 (fp32 without a train block).
  const std::string &precision() const {
    static const std::string fp32 = "fp32";
    return train ? train->precision : fp32;
  }
  // whether it has the shape of the dataset's continuous targets;
  bool predicts_targets() const;
  // and so the task: classification, segmentation (labels per pixel or
  // voxel), regression, or other.
  const char *task() const;
};

// Parses and checks the metadata; throws dxrt::Error naming the bad field.
Metadata parse_metadata(std::string_view json);

} // namespace dxrt
