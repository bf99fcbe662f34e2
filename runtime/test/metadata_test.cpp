// Metadata parsing and parameter initialisation.
#include "common/Check.h"
#include "model/Arenas.h"
#include "model/Metadata.h"
#include "train/Checkpoint.h"
#include "train/Weights.h"

#include <gtest/gtest.h>
#include <cmath>
#include <filesystem>
#include <fstream>

using namespace dxrt;

namespace {

const char *kMeta = R"({
  "format": 2, "model": "mlp", "source": "mlp.dx", "target": "cpu",
  "input": {"name": "x", "shape": [1, 2, 2], "floats": 4}, "labels": true,
  "outputs": [{"name": "logits", "shape": [3], "floats": 3}],
  "param_floats": 15, "buffer_floats": 2, "state_slots": 2,
  "params": [{"name": "d.weight", "shape": [3, 4], "offset": 0, "size": 12, "init": "uniform_fan_in", "fan_in": 4},
             {"name": "d.bias", "shape": [3], "offset": 12, "size": 3, "init": "zeros"}],
  "buffers": [{"name": "bn.mean", "shape": [1], "offset": 0, "size": 1, "init": "zeros"},
              {"name": "bn.var", "shape": [1], "offset": 1, "size": 1, "init": "ones"}],
  "layers": [{"path": "d", "op": "dense", "output": [3], "params": 15, "flops": 24}],
  "flops_per_sample": 24,
  "optimizer": {"kind": "sgd", "lr": 0.05, "momentum": 0.9, "nesterov": 1},
  "schedule": {"kind": "multistep", "warmup_epochs": 1, "milestones": [3, 6], "gamma": 0.5},
  "train": {"batch_per_rank": 8, "epochs": 3, "seed": 4, "target": {"metric": "accuracy", "op": ">=", "value": 0.9}},
  "dataset": {"name": "d", "format": "idx", "train": ["a", "b"], "test": ["c", "d"], "sample": [1, 2, 2],
              "classes": 3, "scale": 0.5, "mean": 0.1, "std": [0.2], "label_column": -1, "header": false}
})";

TEST(Metadata, ParsesTheAbiExample) {
  Metadata m = parse_metadata(kMeta);
  EXPECT_EQ(m.model, "mlp");
  EXPECT_EQ(m.input.floats, 4);
  EXPECT_TRUE(m.labels);
  EXPECT_EQ(m.params.size(), 2u);
  EXPECT_EQ(m.params[0].fan_in, 4);
  EXPECT_EQ(m.optimizer.kind, "sgd");
  EXPECT_DOUBLE_EQ(m.optimizer.lr, 0.05);
  ASSERT_EQ(m.optimizer.hyper.size(), 2u);
  EXPECT_EQ(m.optimizer.hyper[0].first, "momentum");
  EXPECT_EQ(m.schedule.kind, "multistep");
  EXPECT_EQ(m.schedule.milestones, (std::vector<int64_t>{3, 6}));
  ASSERT_TRUE(m.train && m.train->target);
  EXPECT_EQ(m.train->batch_per_rank, 8);
  EXPECT_TRUE(m.train->target->met(0.95));
  ASSERT_TRUE(m.dataset);
  EXPECT_EQ(m.dataset->mean, (std::vector<double>{0.1}));
  EXPECT_EQ(m.dataset->std, (std::vector<double>{0.2}));
  EXPECT_TRUE(m.dataset->labelled());
}

void expect_error(const std::string &json, const std::string &part) {
  try {
    parse_metadata(json);
    ADD_FAILURE() << "no error for " << part;
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

std::string replace(std::string s, const std::string &a, const std::string &b) {
  size_t p = s.find(a);
  EXPECT_NE(p, std::string::npos) << a;
  return s.replace(p, a.size(), b);
}

// What evaluation measures follows from the first output and the dataset.
TEST(Metadata, TaskFromTheFirstOutputAndTheDataset) {
  Metadata m = parse_metadata(kMeta);
  EXPECT_EQ(m.score_classes(), 3);
  EXPECT_STREQ(m.task(), "classification");
  m.dataset->classes = 4; // scores for 3 classes, the dataset says 4: no accuracy
  EXPECT_EQ(m.score_classes(), 0);
  EXPECT_STREQ(m.task(), "other");
  m.dataset->classes = 3;
  m.dataset->label_shape = {2, 2};
  EXPECT_EQ(m.score_classes(), 0); // [3] is not [3, 2, 2]
  m.outputs[0].shape = {3, 2, 2};
  EXPECT_EQ(m.score_classes(), 3);
  EXPECT_STREQ(m.task(), "segmentation");
  m.dataset->label_shape = {};
  m.dataset->targets = true;
  m.dataset->target_shape = {3, 2, 2};
  EXPECT_FALSE(m.dataset->labelled());
  EXPECT_TRUE(m.predicts_targets());
  EXPECT_STREQ(m.task(), "regression");
  Metadata t = parse_metadata(replace(replace(kMeta, "\"labels\": true,", "\"labels\": false, \"targets\": true,"),
                                      "\"header\": false}", "\"header\": false, \"targets\": true, \"target_shape\": [3]}"));
  EXPECT_TRUE(t.targets);
  EXPECT_TRUE(t.predicts_targets());
  EXPECT_EQ(t.dataset->target_floats(), 3);
  expect_error(replace(kMeta, "\"header\": false}", "\"header\": false, \"label_shape\": [0]}"), "label or target shape");
  expect_error(replace(kMeta, "\"metric\": \"accuracy\"", "\"metric\": \"f1\""), "unknown target metric 'f1'");
}

TEST(Metadata, ErrorsNameTheField) {
  expect_error("not json", "not a JSON object");
  expect_error(replace(kMeta, "\"format\": 2", "\"format\": 1"), "format 1");
  expect_error(replace(kMeta, "\"param_floats\": 15", "\"param_floats\": 14"), "'d.bias' at offset 12 with size 3 runs past");
  expect_error(replace(kMeta, "\"size\": 12", "\"size\": 11"), "'d.weight' has shape [3, 4] but size 11");
  expect_error(replace(kMeta, "\"model\": \"mlp\",", ""), "'model' is missing");
  expect_error(replace(kMeta, "\"batch_per_rank\": 8", "\"batch_per_rank\": \"8\""), "'train.batch_per_rank' should be an integer");
  expect_error(replace(kMeta, "\"kind\": \"multistep\"", "\"kind\": \"saw\""), "unknown learning-rate schedule 'saw'");
  expect_error(replace(kMeta, "\"model\": \"mlp\",", "\"model\": \"mlp\", \"conv_layout\": \"nhwc\","),
               "unknown conv_layout 'nhwc'");
}

// A checkpoint belongs to a model, whichever target it was compiled for
// (same arenas): trained on a GPU, resumed or exported on the CPU.
TEST(Metadata, CheckpointIdentityIgnoresTheTarget) {
  const std::string cpu = R"({"model":"m","target":"cpu","train":{"target":{"metric":"accuracy"}},"param_floats":3})";
  std::string cuda = cpu, other = cpu;
  cuda.replace(cuda.find("\"cpu\""), 5, "\"cuda\"");
  other.replace(other.find("3}"), 1, "4");
  EXPECT_EQ(dxrt::metadata_hash(cpu), dxrt::metadata_hash(cuda));
  EXPECT_NE(dxrt::metadata_hash(cpu), dxrt::metadata_hash(other));
  // Nor the memory plan, which differs between the targets (and which
  // metadata before it did not have), wherever dxc's writer puts it.
  const std::string plan = R"("workspace":{"dx_eval_step":{"bytes_per_sample":2048,"fixed_bytes":64},)"
                           R"("dx_train_step":{"bytes_per_sample":2560,"fixed_bytes":1088}})";
  std::string last = cpu, first = cpu, middle = cpu;
  last.insert(last.size() - 1, "," + plan);
  first.insert(1, plan + ",");
  middle.insert(middle.find("\"param_floats\""), plan + ",");
  for (const std::string &with : {last, first, middle}) {
    EXPECT_NE(with, cpu);
    EXPECT_EQ(dxrt::metadata_hash(with), dxrt::metadata_hash(cpu)) << with;
  }
}

TEST(Metadata, ConvLayoutIsRead) {
  EXPECT_EQ(parse_metadata(kMeta).conv_layout, "");
  EXPECT_EQ(parse_metadata(replace(kMeta, "\"model\": \"mlp\",", "\"model\": \"mlp\", \"conv_layout\": \"nchw8c\","))
                .conv_layout,
            "nchw8c");
}

// Nor the layout of convolution activations (the weights are OIHW in
// every layout): an nchw8c build resumes an nchw16c or NCHW build's
// checkpoints, wherever the member stands, with the plan beside it or not.
TEST(Metadata, CheckpointIdentityIgnoresTheConvLayout) {
  const std::string cpu = R"({"model":"m","target":"cpu","param_floats":3})";
  const std::string plan = R"("workspace":{"dx_train_step":{"bytes_per_sample":2560,"fixed_bytes":1088}})";
  for (const char *layout : {"nchw16c", "nchw8c", "nchw"}) {
    const std::string member = std::string("\"conv_layout\":\"") + layout + "\"";
    std::string first = cpu, middle = cpu, last = cpu, both = cpu;
    first.insert(1, member + ",");
    middle.insert(middle.find("\"model\""), member + ",");
    last.insert(last.size() - 1, "," + member);
    both.insert(1, member + "," + plan + ",");
    for (const std::string &with : {first, middle, last, both}) {
      EXPECT_NE(with, cpu);
      EXPECT_EQ(dxrt::metadata_hash(with), dxrt::metadata_hash(cpu)) << with;
    }
  }
  std::string other = cpu;
  other.replace(other.find("3}"), 1, "4");
  other.insert(1, R"("conv_layout":"nchw8c",)");
  EXPECT_NE(dxrt::metadata_hash(other), dxrt::metadata_hash(cpu));
}

TEST(Init, UniformFanInZerosOnesDeterministic) {
  Metadata m = parse_metadata(kMeta);
  Arenas a(m, 8), b(m, 8);
  init_arena(m.params, a.params.data(), 4, 0);
  init_arena(m.params, b.params.data(), 4, 0);
  init_arena(m.buffers, a.buffers.data(), 4, kBufferStreams);
  EXPECT_EQ(a.params, b.params);
  for (int i = 0; i < 12; ++i) EXPECT_LE(std::fabs(a.params[size_t(i)]), 0.5f); // 1/sqrt(4)
  for (int i = 12; i < 15; ++i) EXPECT_EQ(a.params[size_t(i)], 0.0f);
  EXPECT_EQ(a.buffers[0], 0.0f);
  EXPECT_EQ(a.buffers[1], 1.0f);
  init_arena(m.params, b.params.data(), 5, 0);
  EXPECT_NE(a.params, b.params); // another seed
  EXPECT_EQ(a.state.size(), 30u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a.params.data()) % 64, 0u);
}

TEST(Init, UnknownInitIsAnError) {
  Metadata m = parse_metadata(replace(kMeta, "\"init\": \"zeros\"}", "\"init\": \"orthogonal\"}"));
  Arenas a(m, 1);
  EXPECT_THROW(init_arena(m.params, a.params.data(), 1, 0), Error);
}

// Metadata and weights index files that the fuzz harnesses (fuzz/MetadataFuzzer.cpp,
// fuzz/WeightsFuzzer.cpp) found crashing, overflowing or throwing the wrong
// exception: each is now a dxrt::Error that names what is wrong.
const std::string kMini = R"({"format": 2, "model": "m", "input": {"name": "x", "shape": [2]},
  "outputs": [{"name": "y", "shape": [1]}], "param_floats": 3, "state_slots": 1,
  "params": [{"name": "w", "shape": [1, 2], "offset": 0, "size": 2, "init": "zeros"},
             {"name": "b", "shape": [1], "offset": 2, "size": 1, "init": "ones"}]})";

TEST(MetadataLimits, SizesThatOverflowAreErrors) {
  parse_metadata(kMini);
  expect_error(replace(kMini, "\"shape\": [2]", "\"shape\": [4294967296, 4294967296, 4]"),
               "'input.shape' is [4294967296, 4294967296, 4], a negative dimension or more than 2^40 elements");
  expect_error(replace(kMini, "\"shape\": [1]}]", "\"shape\": [-1]}]"), "a negative dimension");
  expect_error(replace(kMini, "\"offset\": 2,", "\"offset\": 9223372036854775807,"), "runs past the end");
  expect_error(replace(kMini, "\"param_floats\": 3", "\"param_floats\": 4611686018427387904"), "beyond 2^40 floats");
  expect_error(replace(kMini, "\"state_slots\": 1", "\"state_slots\": 4611686018427387904"), "beyond 2^40 floats");
  expect_error(replace(kMini, "\"param_floats\": 3", "\"param_floats\": 18446744073709551615"),
               "'param_floats' should be an integer (below 2^63)");
  expect_error(replace(kMini, "\"format\": 2", "\"format\": 4294967298"), "format 4294967298");
}

TEST(MetadataLimits, DeepNestingIsAnError) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  expect_error(replace(kMini, "\"format\": 2", "\"format\": " + deep), "nests deeper than 64");
  expect_error(replace(kMini, "\"format\": 2", "\"format\": " + std::string(20, '[') + std::string(20, ']')),
               "should be an integer (below 2^63), found a list nested deeper than 16");
}

TEST(WeightsLimits, AMistypedOrDeepIndexIsAnError) {
  const Metadata m = parse_metadata(kMini);
  Arenas a(m, 1);
  const std::string dir = (std::filesystem::temp_directory_path() / "dx-weights-findings").string();
  save_weights(m, a, dir);
  auto expect_index_error = [&](const std::string &index, const std::string &part) {
    std::ofstream(dir + "/index.json") << index;
    try {
      load_weights(m, a, dir);
      ADD_FAILURE() << "no error for " << part;
    } catch (const Error &e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  expect_index_error(R"({"format": 1, "tensors": []})", "is not a DeepEx weights index");
  expect_index_error("{\"format\": \"deepex-weights\", \"tensors\": [" + std::string(100000, '[') +
                         std::string(100000, ']') + "]}",
                     "nests deeper than 64");
  expect_index_error("{\"format\": \"deepex-weights\", \"tensors\": [" + std::string(30, '[') + std::string(30, ']') + "]}",
                     "lacks its name, shape or file: a list nested deeper than 16");
  std::filesystem::remove_all(dir);
}

} // namespace
