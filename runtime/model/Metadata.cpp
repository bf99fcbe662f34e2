#include "model/Metadata.h"

#include "common/Check.h"
#include "data/Array.h"
#include "util/JsonShown.h"

#include <algorithm>
#include <utility>

#include <nlohmann/json.hpp>

namespace dxrt {

using Json = nlohmann::ordered_json;

namespace {

const char *kHint = "the model object and libdxrt disagree about docs/abi.md; rebuild the model with this dxc";

// A value for a message (util/JsonShown.h).
std::string shown(const Json &v) { return dx::json_shown(v); }

// A JSON object with the path it was found at, for messages.
struct Node {
  const Json &j;
  std::string path;

  bool has(const char *key) const { return j.contains(key) && !j.at(key).is_null(); }
  Node at(const char *key) const {
    DXRT_CHECK(j.is_object() && j.contains(key), str("model metadata: '", path, key, "' is missing"), kHint);
    return {j.at(key), str(path, key)};
  }
  Node at(size_t i) const { return {j.at(i), str(path, "[", i, "]")}; }
  Node child(const char *key) const { return {at(key).j, str(path, key, ".")}; }
  [[noreturn]] void wrong(const char *what) const {
    DXRT_FAIL(str("model metadata: '", path, "' should be ", what, ", found ", shown(j)), kHint);
  }
  std::string s() const {
    if (!j.is_string()) wrong("a string");
    return j.get<std::string>();
  }
  double d() const {
    if (!j.is_number()) wrong("a number");
    return j.get<double>();
  }
  int64_t i() const {
    if (j.is_boolean()) return j.get<bool>();
    // Above 2^63 - 1 nlohmann holds it unsigned: it would wrap to a negative int64_t.
    if (!j.is_number_integer() || (j.is_number_unsigned() && j.get<uint64_t>() > uint64_t(INT64_MAX)))
      wrong("an integer (below 2^63)");
    return j.get<int64_t>();
  }
  bool b() const {
    if (j.is_boolean()) return j.get<bool>();
    if (j.is_number_integer()) return j.get<int64_t>() != 0;
    wrong("a boolean");
  }
  size_t size() const {
    if (!j.is_array()) wrong("a list");
    return j.size();
  }
  std::vector<int64_t> ints() const {
    std::vector<int64_t> v;
    for (size_t k = 0; k < size(); ++k) v.push_back(at(k).i());
    return v;
  }
  // A tensor's shape: dimensions >= 0 whose product (its elements) is at
  // most kMaxElements, so that no product of some of them overflows int64_t.
  std::vector<int64_t> shape() const {
    std::vector<int64_t> v = ints();
    DXRT_CHECK(shape_within_bounds(v),
               str("model metadata: '", path, "' is ", shape_str(v),
                   ", a negative dimension or more than 2^40 elements"),
               kHint);
    return v;
  }
  std::vector<std::string> strings() const {
    std::vector<std::string> v;
    for (size_t k = 0; k < size(); ++k) v.push_back(at(k).s());
    return v;
  }
  // A number or a list of numbers (mean, std).
  std::vector<double> numbers() const {
    if (j.is_number()) return {d()};
    std::vector<double> v;
    for (size_t k = 0; k < size(); ++k) v.push_back(at(k).d());
    return v;
  }
};

TensorSpec tensor(const Node &n) {
  TensorSpec t{n.at("name").s(), n.at("shape").shape(), 0};
  t.floats = n.has("floats") ? n.at("floats").i() : shape_numel(t.shape);
  DXRT_CHECK(t.floats == shape_numel(t.shape),
             str("model metadata: '", n.path, "' has shape ", shape_str(t.shape), " but floats = ", t.floats), kHint);
  return t;
}

std::vector<ArenaEntry> arena(const Node &list, int64_t floats, const char *arena_name) {
  std::vector<ArenaEntry> out;
  for (size_t k = 0; k < list.size(); ++k) {
    Node n{list.j.at(k), str(list.path, "[", k, "].")};
    ArenaEntry e{n.at("name").s(), n.at("shape").shape(), n.at("offset").i(), n.at("size").i(), n.at("init").s(),
                 n.has("fan_in") ? n.at("fan_in").i() : 0};
    DXRT_CHECK(e.size == shape_numel(e.shape),
               str("model metadata: ", arena_name, " '", e.name, "' has shape ", shape_str(e.shape), " but size ", e.size),
               kHint);
    // (size >= 0 and floats >= 0 here: offset + size could overflow.)
    DXRT_CHECK(e.offset >= 0 && e.offset <= floats - e.size,
               str("model metadata: ", arena_name, " '", e.name, "' at offset ", e.offset, " with size ", e.size,
                   " runs past the end of its arena (", floats, " floats)"),
               kHint);
    out.push_back(std::move(e));
  }
  return out;
}

TrainSpec train_spec(const Node &n) {
  TrainSpec t;
  if (n.has("batch_per_rank")) t.batch_per_rank = n.at("batch_per_rank").i();
  if (n.has("epochs")) t.epochs = n.at("epochs").i();
  if (n.has("seed")) t.seed = n.at("seed").i();
  if (n.has("sync")) t.sync = n.at("sync").s();
  if (n.has("average_every")) t.average_every = n.at("average_every").i();
  if (n.has("checkpoint_every")) t.checkpoint_every = n.at("checkpoint_every").i();
  if (n.has("lr_scaling")) t.lr_scaling = n.at("lr_scaling").s();
  if (n.has("precision")) t.precision = n.at("precision").s();
  DXRT_CHECK(t.precision == "fp32" || t.precision == "bf16",
             str("model metadata: unknown precision '", t.precision, "'"), kHint);
  if (n.has("target")) {
    Node g = n.child("target");
    t.target = TargetSpec{g.at("metric").s(), g.at("op").s(), g.at("value").d()};
    const TargetSpec &tg = *t.target;
    static const char *const kMetrics[] = {"accuracy", "iou", "loss", "val_loss", "mae", "rmse", "r2"};
    DXRT_CHECK(std::find(std::begin(kMetrics), std::end(kMetrics), tg.metric) != std::end(kMetrics),
               str("model metadata: unknown target metric '", tg.metric, "'"), kHint);
    DXRT_CHECK(tg.op == ">=" || tg.op == "<=", str("model metadata: unknown target comparison '", tg.op, "'"), kHint);
  }
  DXRT_CHECK(t.batch_per_rank >= 1 && t.epochs >= 1 && t.seed >= 0,
             str("model metadata: train has batch_per_rank ", t.batch_per_rank, ", epochs ", t.epochs, ", seed ", t.seed),
             kHint);
  return t;
}

DatasetSpec dataset_spec(const Node &n) {
  DatasetSpec d;
  d.name = n.has("name") ? n.at("name").s() : "data";
  d.format = n.at("format").s();
  d.train = n.at("train").strings();
  if (n.has("test")) d.test = n.at("test").strings();
  d.sample = n.at("sample").shape();
  if (n.has("classes")) d.classes = n.at("classes").i();
  if (n.has("scale")) d.scale = n.at("scale").d();
  if (n.has("transform")) d.transform = n.at("transform").s();
  DXRT_CHECK(d.transform == "none" || d.transform == "log1p",
             str("model metadata: unknown dataset transform '", d.transform, "'"), kHint);
  if (n.has("mean")) d.mean = n.at("mean").numbers();
  if (n.has("std")) d.std = n.at("std").numbers();
  if (n.has("label_column")) d.label_column = n.at("label_column").i();
  if (n.has("header")) d.header = n.at("header").b();
  if (n.has("augment")) d.augment = n.at("augment").strings();
  if (n.has("label_shape")) d.label_shape = n.at("label_shape").shape();
  if (n.has("targets")) d.targets = n.at("targets").b();
  if (n.has("target_shape")) d.target_shape = n.at("target_shape").shape();
  for (const auto *shape : {&d.label_shape, &d.target_shape})
    for (int64_t s : *shape)
      DXRT_CHECK(s >= 1, str("model metadata: dataset label or target shape ", shape_str(*shape), " has a dimension < 1"),
                 kHint);
  for (int64_t s : d.sample) DXRT_CHECK(s >= 1, str("model metadata: dataset sample ", shape_str(d.sample), " has a dimension < 1"), kHint);
  return d;
}

ScheduleSpec schedule_spec(const Node &n) {
  ScheduleSpec s;
  if (n.has("kind")) s.kind = n.at("kind").s();
  if (n.has("warmup_epochs")) s.warmup_epochs = n.at("warmup_epochs").d();
  if (n.has("gamma")) s.gamma = n.at("gamma").d();
  if (n.has("every")) s.every = n.at("every").i();
  if (n.has("milestones")) s.milestones = n.at("milestones").ints();
  if (n.has("min_lr")) s.min_lr = n.at("min_lr").d();
  validate(s);
  return s;
}

} // namespace

int64_t Metadata::score_classes() const {
  if (!dataset || !dataset->labelled()) return 0;
  const DatasetSpec &d = *dataset;
  const std::vector<int64_t> &out = outputs[0].shape;
  if (out.size() != 1 + d.label_shape.size() || !std::equal(d.label_shape.begin(), d.label_shape.end(), out.begin() + 1))
    return 0;
  const int64_t c = out[0];
  return c >= 2 && (d.classes == 0 || d.classes == c) ? c : 0;
}

bool Metadata::predicts_targets() const {
  return dataset && dataset->targets && outputs[0].shape == dataset->target_shape;
}

const char *Metadata::task() const {
  if (score_classes()) return dataset->label_shape.empty() ? "classification" : "segmentation";
  return predicts_targets() ? "regression" : "other";
}

Metadata parse_metadata(std::string_view text) {
  // Nested at most kMaxNesting deep (the metadata nests 4 deep): an
  // ordered_json object copies its members, recursively, when its vector of
  // them grows (pair<const string, json> has no noexcept move), so a value
  // nested 8,000 deep followed by more keys overflowed the stack in parse().
  static constexpr int kMaxNesting = 64;
  Json j = Json::parse(
      text.begin(), text.end(),
      [](int depth, Json::parse_event_t, Json &) {
        DXRT_CHECK(depth <= kMaxNesting, str("model metadata (dx_model_metadata) nests deeper than ", kMaxNesting),
                   kHint);
        return true;
      },
      /*allow_exceptions=*/false);
  DXRT_CHECK(!j.is_discarded() && j.is_object(), "model metadata (dx_model_metadata) is not a JSON object", kHint);
  Node root{j, ""};
  Metadata m;
  m.json = std::string(text);
  const int64_t format = root.at("format").i(); // compared before it is narrowed to an int
  DXRT_CHECK(format == 2, str("model metadata has format ", format, "; this libdxrt reads format 2"), kHint);
  m.format = int(format);
  m.model = root.at("model").s();
  m.source = root.has("source") ? root.at("source").s() : "";
  m.target = root.has("target") ? root.at("target").s() : "cpu";
  if (root.has("conv_layout")) {
    m.conv_layout = root.at("conv_layout").s();
    DXRT_CHECK(m.conv_layout == "nchw16c" || m.conv_layout == "nchw8c" || m.conv_layout == "nchw",
               str("model metadata: unknown conv_layout '", m.conv_layout, "'"), kHint);
  }
  m.input = tensor(root.child("input"));
  m.labels = root.has("labels") && root.at("labels").b();
  m.targets = root.has("targets") && root.at("targets").b();
  Node outs = root.at("outputs");
  for (size_t k = 0, floats = 0; k < outs.size(); ++k) {
    m.outputs.push_back(tensor({outs.j.at(k), str("outputs[", k, "].")}));
    // output_floats() sums them: each at most kMaxElements, and so their sum.
    floats += size_t(m.outputs.back().floats);
    DXRT_CHECK(floats <= size_t(kMaxElements), "model metadata: the outputs hold more than 2^40 floats", kHint);
  }
  DXRT_CHECK(!m.outputs.empty(), "model metadata: 'outputs' is empty", kHint);
  m.param_floats = root.at("param_floats").i();
  m.buffer_floats = root.has("buffer_floats") ? root.at("buffer_floats").i() : 0;
  m.state_slots = root.has("state_slots") ? root.at("state_slots").i() : 0;
  // Arenas holds param_floats * state_slots floats of optimizer state, and
  // the log counts param_floats * 4 bytes: all at most kMaxElements floats.
  DXRT_CHECK(m.param_floats >= 0 && m.buffer_floats >= 0 && m.state_slots >= 0 && m.param_floats <= kMaxElements &&
                 m.buffer_floats <= kMaxElements && (m.state_slots == 0 || m.param_floats <= kMaxElements / m.state_slots),
             str("model metadata: arena sizes negative or beyond 2^40 floats (param_floats ", m.param_floats,
                 ", buffer_floats ", m.buffer_floats, ", state_slots ", m.state_slots, ")"),
             kHint);
  m.params = arena({root.at("params").j, "params"}, m.param_floats, "parameter");
  if (root.has("buffers")) m.buffers = arena({root.at("buffers").j, "buffers"}, m.buffer_floats, "buffer");
  if (root.has("layers")) {
    Node layers = root.at("layers");
    for (size_t k = 0; k < layers.size(); ++k) {
      Node l{layers.j.at(k), str("layers[", k, "].")};
      m.layers.push_back({l.at("path").s(), l.at("op").s(), l.has("output") ? l.at("output").ints() : std::vector<int64_t>{},
                          l.has("params") ? l.at("params").i() : 0, l.has("flops") ? l.at("flops").d() : 0});
    }
  }
  if (root.has("workspace")) {
    Node ws = root.child("workspace");
    for (auto [name, slot] : {std::pair{"dx_train_step", &m.train_workspace}, std::pair{"dx_eval_step", &m.eval_workspace}})
      if (ws.has(name)) {
        Node f = ws.child(name);
        const int64_t fixed = f.at("fixed_bytes").i(), per = f.at("bytes_per_sample").i();
        DXRT_CHECK(fixed >= 0 && per >= 0 && fixed < (int64_t(1) << 50) && per < (int64_t(1) << 50),
                   str("model metadata: workspace.", name, " has sizes out of range"), kHint);
        *slot = Metadata::Workspace{fixed, per};
      }
  }
  if (root.has("flops_per_sample")) m.flops_per_sample = root.at("flops_per_sample").d();
  if (root.has("optimizer")) {
    Node o = root.child("optimizer");
    m.optimizer.kind = o.at("kind").s();
    for (auto &[key, value] : o.j.items()) {
      if (key == "kind") continue;
      Node v{value, str("optimizer.", key)};
      if (key == "lr") m.optimizer.lr = v.d();
      else if (value.is_number() || value.is_boolean()) m.optimizer.hyper.emplace_back(key, value.is_boolean() ? double(value.get<bool>()) : v.d());
    }
  }
  if (root.has("schedule")) m.schedule = schedule_spec(root.child("schedule"));
  if (root.has("train")) m.train = train_spec(root.child("train"));
  if (root.has("dataset")) m.dataset = dataset_spec(root.child("dataset"));
  return m;
}

} // namespace dxrt
