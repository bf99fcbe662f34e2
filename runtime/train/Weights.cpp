#include "train/Weights.h"

#include "common/Check.h"
#include "data/Array.h"
#include "util/Npy.h"
#include "util/JsonShown.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <utility>

namespace dxrt {

namespace {

using Json = nlohmann::ordered_json;

// The file of a tensor: its name, with anything but [A-Za-z0-9._-] made '_'
// (names are layer paths such as "stem.conv2d_1.weight").
std::string file_of(const std::string &name) {
  std::string f;
  for (char c : name) f += (std::isalnum((unsigned char)c) || c == '.' || c == '_' || c == '-') ? c : '_';
  return f + ".npy";
}

struct Tensor {
  const ArenaEntry *entry;
  const char *kind; // param or buffer
};

std::vector<Tensor> tensors(const Metadata &meta) {
  std::vector<Tensor> t;
  for (const ArenaEntry &e : meta.params) t.push_back({&e, "param"});
  for (const ArenaEntry &e : meta.buffers) t.push_back({&e, "buffer"});
  return t;
}

Json index_json(const Metadata &meta) {
  Json j;
  j["format"] = "deepex-weights";
  j["version"] = 1;
  j["model"] = meta.model;
  j["tensors"] = Json::array();
  for (const Tensor &t : tensors(meta))
    j["tensors"].push_back({{"name", t.entry->name}, {"kind", t.kind}, {"shape", t.entry->shape},
                            {"dtype", "float32"}, {"file", file_of(t.entry->name)}});
  return j;
}

// An index entry for a message (util/JsonShown.h).
std::string shown(const Json &v) { return dx::json_shown(v); }

const char *kLoadHint = "--init-from takes a directory written by --save-weights or by tools/weights/dx_weights.py "
                        "for this model (./model --print-weights lists the tensors it needs)";

} // namespace

std::string weights_index(const Metadata &meta) { return index_json(meta).dump(2) + "\n"; }

void save_weights(const Metadata &meta, const Arenas &a, const std::string &dir) {
  try {
    dx::make_directories(dir);
    for (const Tensor &t : tensors(meta)) {
      const Floats &arena = std::string(t.kind) == "param" ? a.params : a.buffers;
      dx::NpyWriter w(dir + "/" + file_of(t.entry->name), t.entry->shape, "<f4");
      w.append(arena.data() + t.entry->offset, t.entry->size);
      w.finish();
    }
    const std::string index = dir + "/index.json", tmp = index + ".tmp";
    {
      std::ofstream f(tmp);
      f << weights_index(meta);
      if (!f) throw std::runtime_error("cannot write " + tmp);
    }
    std::filesystem::rename(tmp, index);
  } catch (const Error &) {
    throw;
  } catch (const std::exception &e) {
    DXRT_FAIL(str("--save-weights: ", e.what()), "check that the directory is writable and the disk has room");
  }
}

void load_weights(const Metadata &meta, Arenas &a, const std::string &dir, const char *who) {
  const std::string index = dir + "/index.json";
  std::ifstream f(index);
  DXRT_CHECK(f.good(), str(who, ": '", index, "' does not exist or cannot be read"), kLoadHint);
  // Nested at most kMaxNesting deep (an index nests 4 deep): an ordered_json
  // object copies its members, recursively, when its vector of them grows
  // (pair<const string, json> has no noexcept move), so a value nested some
  // thousands deep followed by more keys would overflow the stack in parse().
  static constexpr int kMaxNesting = 64;
  Json j = Json::parse(
      f,
      [&](int depth, Json::parse_event_t, Json &) {
        DXRT_CHECK(depth <= kMaxNesting, str(who, ": '", index, "' nests deeper than ", kMaxNesting), kLoadHint);
        return true;
      },
      /*allow_exceptions=*/false);
  // (Not j.value("format", ""): it throws json::type_error when format is not a string.)
  DXRT_CHECK(!j.is_discarded() && j.is_object() && j.contains("format") && j["format"] == "deepex-weights" &&
                 j.contains("tensors") && j["tensors"].is_array(),
             str(who, ": '", index, "' is not a DeepEx weights index"), kLoadHint);
  // name -> (shape, file) as the index lists them.
  std::map<std::string, std::pair<std::vector<int64_t>, std::string>> listed;
  for (const Json &t : j["tensors"]) {
    DXRT_CHECK(t.is_object() && t.contains("name") && t["name"].is_string() && t.contains("shape") &&
                   t["shape"].is_array() && t.contains("file") && t["file"].is_string(),
               str(who, ": an entry of '", index, "' lacks its name, shape or file: ", shown(t)), kLoadHint);
    std::vector<int64_t> shape;
    for (const Json &d : t["shape"]) {
      DXRT_CHECK(d.is_number_integer(), str(who, ": tensor '", t["name"].get<std::string>(), "' in '", index,
                                            "' has a shape that is not a list of integers"), kLoadHint);
      shape.push_back(d.get<int64_t>());
    }
    const std::string file = t["file"].get<std::string>();
    DXRT_CHECK(file.find('/') == std::string::npos && file != ".." && !file.empty(),
               str(who, ": tensor '", t["name"].get<std::string>(), "' names the file '", file,
                   "', which is not inside the directory"), kLoadHint);
    listed[t["name"].get<std::string>()] = {shape, file};
  }
  std::set<std::string> used;
  for (const Tensor &t : tensors(meta)) {
    const ArenaEntry &e = *t.entry;
    auto it = listed.find(e.name);
    DXRT_CHECK(it != listed.end(), str(who, ": '", index, "' has no tensor '", e.name, "' (", t.kind, " ",
                                       shape_str(e.shape), ") of model '", meta.model, "'"), kLoadHint);
    DXRT_CHECK(it->second.first == e.shape,
               str(who, ": tensor '", e.name, "' is ", shape_str(it->second.first), " in '", index,
                   "', but model '", meta.model, "' has ", shape_str(e.shape)),
               "the weights belong to another model, or to another version of this one");
    const std::string path = dir + "/" + it->second.second;
    Array arr = read_npy(path);
    DXRT_CHECK(arr.shape == e.shape,
               str(who, ": '", path, "' holds ", shape_str(arr.shape), " but tensor '", e.name, "' is ",
                   shape_str(e.shape)), kLoadHint);
    std::vector<float> v = to_floats(arr); // any float or integer dtype; NaN/Inf refused, naming the file
    Floats &arena = std::string(t.kind) == "param" ? a.params : a.buffers;
    std::copy(v.begin(), v.end(), arena.begin() + e.offset);
    used.insert(e.name);
  }
  std::string extra;
  for (const auto &[name, _] : listed)
    if (!used.count(name)) extra += (extra.empty() ? "" : ", ") + name;
  DXRT_CHECK(extra.empty(), str(who, ": '", index, "' has tensors model '", meta.model, "' does not: ", extra),
             "the weights belong to another model, or to another version of this one");
}

} // namespace dxrt
