#include "codegen/Metadata.h"

#include "sema/OpRegistry.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/JSON.h"

namespace dx {
namespace {

llvm::json::Array perSample(const TensorType &t) {
  llvm::json::Array a;
  for (size_t k = 1; k < t.dims.size(); ++k) a.push_back(t.dims[k].size);
  return a;
}

llvm::json::Array numbers(const std::vector<double> &v) {
  llvm::json::Array a;
  for (double x : v) a.push_back(x);
  return a;
}

llvm::json::Array ints(const std::vector<int64_t> &v) {
  llvm::json::Array a;
  for (int64_t x : v) a.push_back(x);
  return a;
}

llvm::json::Array strings(const std::vector<std::string> &v) {
  llvm::json::Array a;
  for (const std::string &x : v) a.push_back(x);
  return a;
}

} // namespace

void annotateModule(mlir::ModuleOp module, const Program &prog, const SourceManager &sm, const std::string &target,
                    const std::string &convLayout) {
  mlir::Builder b(module.getContext());
  llvm::json::Object meta;
  meta["format"] = 2;
  meta["target"] = target;
  // Not part of a checkpoint's model hash (runtime metadata_hash): the
  // weights are OIHW in every layout.
  if (!convLayout.empty()) meta["conv_layout"] = convLayout;
  meta["source"] = sm.path(prog.module.main->fileId);
  if (!prog.models.empty() && prog.train) {
    const CheckedModel &m = prog.models.front();
    const Graph &g = m.graph;
    meta["model"] = m.decl->name.name;
    const TensorType &in = g.values[g.inputs[0]].type;
    meta["input"] = llvm::json::Object{{"name", g.inputNames[0]}, {"shape", perSample(in)},
                                       {"floats", in.staticElements()}};
    meta["labels"] = g.labels >= 0;
    meta["targets"] = g.targets >= 0;
    llvm::json::Array outs;
    for (size_t i = 0; i < g.outputs.size(); ++i) {
      const TensorType &t = g.values[g.outputs[i]].type;
      outs.push_back(llvm::json::Object{{"name", g.outputNames[i]}, {"shape", perSample(t)}, {"floats", t.staticElements()}});
    }
    meta["outputs"] = std::move(outs);
    llvm::json::Array layers;
    for (const GraphNode &n : g.nodes) {
      if (n.inLoss || n.op->category == OpCategory::Internal) continue;
      int64_t params = 0;
      for (const ParamTensor &p : n.params)
        if (p.learnable) params += p.type.staticElements();
      layers.push_back(llvm::json::Object{{"path", n.path}, {"op", n.op->name},
                                          {"output", perSample(g.values[n.outputs[0]].type)},
                                          {"params", params}, {"flops", n.flops}});
    }
    meta["layers"] = std::move(layers);
    meta["flops_per_sample"] = g.forwardFlops();

    const TrainConfig &tc = *prog.train;
    llvm::json::Object opt{{"kind", tc.optimizer.kind}};
    llvm::SmallVector<mlir::NamedAttribute> optAttrs = {b.getNamedAttr("kind", b.getStringAttr(tc.optimizer.kind))};
    for (auto &[k, v] : tc.optimizer.hyper) {
      opt[k] = v;
      optAttrs.push_back(b.getNamedAttr(k, b.getF64FloatAttr(v)));
    }
    meta["optimizer"] = std::move(opt);
    module->setAttr("dx.optimizer", b.getDictionaryAttr(optAttrs));
    llvm::json::Object sched{{"kind", tc.schedule.kind}, {"warmup_epochs", tc.schedule.warmupEpochs}};
    for (auto &[k, v] : tc.schedule.hyper) sched[k] = v;
    if (!tc.schedule.milestones.empty()) {
      llvm::json::Array ms;
      for (int64_t x : tc.schedule.milestones) ms.push_back(x);
      sched["milestones"] = std::move(ms);
    }
    meta["schedule"] = std::move(sched);
    // The same for dx-build-abi, which generates dx_learning_rate from it.
    llvm::SmallVector<mlir::NamedAttribute> schedAttrs = {
        b.getNamedAttr("kind", b.getStringAttr(tc.schedule.kind)),
        b.getNamedAttr("warmup_epochs", b.getF64FloatAttr(double(tc.schedule.warmupEpochs)))};
    for (auto &[k, v] : tc.schedule.hyper) schedAttrs.push_back(b.getNamedAttr(k, b.getF64FloatAttr(v)));
    if (!tc.schedule.milestones.empty())
      schedAttrs.push_back(b.getNamedAttr("milestones", b.getDenseI64ArrayAttr(tc.schedule.milestones)));
    module->setAttr("dx.schedule", b.getDictionaryAttr(schedAttrs));
    llvm::json::Object train{{"batch_per_rank", tc.batchPerRank}, {"epochs", tc.epochs}, {"seed", tc.seed},
                             {"sync", tc.sync}, {"average_every", tc.averageEvery},
                             {"checkpoint_every", tc.checkpointEvery}, {"lr_scaling", tc.lrScaling}};
    // Only bf16 is written: an fp32 model's metadata (and so the hash its
    // checkpoints carry) is what it was before precision existed.
    if (tc.precision != "fp32") train["precision"] = tc.precision;
    if (!tc.targetMetric.empty())
      train["target"] = llvm::json::Object{{"metric", tc.targetMetric}, {"op", tc.targetOp}, {"value", tc.targetValue}};
    meta["train"] = std::move(train);
  }
  if (prog.dataset) {
    const DatasetConfig &d = *prog.dataset;
    meta["dataset"] = llvm::json::Object{{"name", d.name},
                                         {"format", d.format},
                                         {"train", strings(d.trainFiles)},
                                         {"test", strings(d.testFiles)},
                                         {"sample", ints(d.sample)},
                                         {"classes", d.classes},
                                         {"transform", d.transform},
                                         {"scale", d.scale},
                                         {"mean", numbers(d.mean)},
                                         {"std", numbers(d.std)},
                                         {"label_column", d.labelColumn},
                                         {"header", d.header},
                                         {"labels", d.hasLabels},
                                         {"label_shape", ints(d.labelShape)},
                                         {"targets", d.hasTargets},
                                         {"target_shape", ints(d.targetShape)}};
    // Folder datasets always state their augmentation; array datasets only
    // when they augment (their metadata stays as it was otherwise).
    if (d.format == "folder" || !d.augment.empty()) (*meta.getObject("dataset"))["augment"] = strings(d.augment);
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(meta));
  os.flush();
  module->setAttr("dx.metadata", b.getStringAttr(text));
}

} // namespace dx
