// libFuzzer harness for the weights loader (runtime/train/Weights.cpp):
// load_weights, which --init-from DIR and dx_model_open run on a weights
// directory (index.json and one NPY file per tensor, as --save-weights and
// tools/weights/dx_weights.py write it), for a fixture model of two
// parameters (dense_1.weight [2, 3], dense_1.bias [2]) and two buffers
// (bn.running_mean, bn.running_var [2]).
//
// The fixture's valid directory is written once, by save_weights. An input
// that starts with '{' replaces index.json; any other input replaces the NPY
// file of the first tensor, dense_1.weight.npy (so mutations reach both the
// index parser and the NPY reader behind it; the index may also name any
// other file of the directory, index.json included). The seeds
// (fuzz/corpus/weights/, made by make_seeds.py) are the fixture's index and
// NPY files.
#include "common/Check.h"
#include "model/Arenas.h"
#include "train/Weights.h"
#include "ReaderFuzz.h"


namespace {

constexpr const char *kMeta = R"({"format":2,"model":"fuzz",
  "input":{"name":"x","shape":[3],"floats":3},"outputs":[{"name":"logits","shape":[2],"floats":2}],
  "param_floats":8,"buffer_floats":4,"state_slots":1,
  "params":[{"name":"dense_1.weight","shape":[2,3],"offset":0,"size":6,"init":"uniform_fan_in","fan_in":3},
            {"name":"dense_1.bias","shape":[2],"offset":6,"size":2,"init":"uniform_fan_in","fan_in":3}],
  "buffers":[{"name":"bn.running_mean","shape":[2],"offset":0,"size":2,"init":"zeros"},
             {"name":"bn.running_var","shape":[2],"offset":2,"size":2,"init":"ones"}]})";

struct Fixture {
  dxrt::Metadata meta = dxrt::parse_metadata(kMeta);
  dxrt::Arenas arenas{meta, 1};
  std::string dir = (dxfuzz::scratch_dir() / "weights").string();
  std::string index = dir + "/index.json", first = dir + "/dense_1.weight.npy";
  std::string valid_index, valid_first;

  Fixture() {
    dxrt::init_arena(meta.params, arenas.params.data(), 4, 0);
    dxrt::init_arena(meta.buffers, arenas.buffers.data(), 4, dxrt::kBufferStreams);
    dxrt::save_weights(meta, arenas, dir);
    valid_index = dxfuzz::read_file(index);
    valid_first = dxfuzz::read_file(first);
  }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static Fixture f;
  const std::string input(reinterpret_cast<const char *>(data), size);
  const bool is_index = !input.empty() && input[0] == '{';
  const std::string &index = is_index ? input : f.valid_index, &first = is_index ? f.valid_first : input;
  dxfuzz::write_file(f.index, index.data(), index.size());
  dxfuzz::write_file(f.first, first.data(), first.size());
  dxfuzz::allow_errors<dxrt::Error>([&] { dxrt::load_weights(f.meta, f.arenas, f.dir, "--init-from"); });
  return 0;
}
