#include "mlirgen/MLIRGen.h"

#include "dialect/DxDialect.h"
#include "dialect/RegistryBridge.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"

#include <map>

namespace dx {
namespace {

class Generator {
public:
  Generator(mlir::MLIRContext &ctx, const SourceManager &sm) : ctx_(ctx), sm_(sm), b_(&ctx) {}

  mlir::Location loc(const SourceRange &r) {
    if (!r.valid()) return b_.getUnknownLoc();
    LineCol lc = sm_.lineCol(r.file, r.begin);
    return mlir::FileLineColLoc::get(&ctx_, sm_.path(r.file), lc.line, lc.col);
  }

  // NameLoc(layer path, call site chain of block instantiations).
  mlir::Location nodeLoc(const GraphNode &n) {
    mlir::Location l = loc(n.range);
    for (const SourceRange &site : n.instantiatedFrom) l = mlir::CallSiteLoc::get(l, loc(site));
    return mlir::NameLoc::get(b_.getStringAttr(n.path), l);
  }

  // Emits func @name over the graph's nodes: the model only (returning its
  // outputs), model + loss (returning the loss), or, for evaluation, model +
  // loss returning the loss and every output (for accuracy and --export).
  enum class Kind { Forward, Loss, Eval };
  void emit(mlir::ModuleOp module, const CheckedModel &m, const std::string &name, Kind kind) {
    bool withLoss = kind != Kind::Forward;
    const Graph &g = m.graph;
    llvm::SmallVector<mlir::Type> argTypes;
    llvm::SmallVector<mlir::DictionaryAttr> argAttrs;
    std::map<int, int> valueArg;
    auto addArg = [&](mlir::Type t, mlir::DictionaryAttr attrs) {
      argTypes.push_back(t);
      argAttrs.push_back(attrs);
      return static_cast<int>(argTypes.size()) - 1;
    };
    for (size_t i = 0; i < g.inputs.size(); ++i)
      valueArg[g.inputs[i]] = addArg(ir::toMlirType(&ctx_, g.values[g.inputs[i]].type),
                                     b_.getDictionaryAttr({b_.getNamedAttr("dx.input", b_.getStringAttr(g.inputNames[i]))}));
    if (withLoss && g.labels >= 0)
      valueArg[g.labels] = addArg(ir::toMlirType(&ctx_, g.values[g.labels].type),
                                  b_.getDictionaryAttr({b_.getNamedAttr("dx.labels", b_.getUnitAttr())}));
    if (withLoss && g.targets >= 0)
      valueArg[g.targets] = addArg(ir::toMlirType(&ctx_, g.values[g.targets].type),
                                   b_.getDictionaryAttr({b_.getNamedAttr("dx.targets", b_.getUnitAttr())}));
    std::vector<std::pair<const GraphNode *, int>> paramArgs; // node, first arg
    for (const GraphNode &n : g.nodes) {
      if (n.inLoss && !withLoss) continue;
      int first = static_cast<int>(argTypes.size());
      for (const ParamTensor &p : n.params) {
        llvm::SmallVector<mlir::NamedAttribute> attrs = {b_.getNamedAttr("dx.param", b_.getStringAttr(p.name)),
                                                         b_.getNamedAttr("dx.init", b_.getStringAttr(p.init))};
        if (p.fanIn > 0) attrs.push_back(b_.getNamedAttr("dx.fan_in", b_.getI64IntegerAttr(p.fanIn)));
        if (!p.learnable) attrs.push_back(b_.getNamedAttr("dx.buffer", b_.getUnitAttr()));
        addArg(ir::toMlirType(&ctx_, p.type), b_.getDictionaryAttr(attrs));
      }
      paramArgs.push_back({&n, first});
    }
    llvm::SmallVector<mlir::Type> resultTypes;
    std::vector<int> results;
    if (kind == Kind::Loss) results = {g.loss};
    else if (kind == Kind::Eval) {
      results = {g.loss};
      results.insert(results.end(), g.outputs.begin(), g.outputs.end());
    }
    else results = g.outputs;
    for (int r : results) resultTypes.push_back(ir::toMlirType(&ctx_, g.values[r].type));

    b_.setInsertionPointToEnd(module.getBody());
    auto fn = b_.create<mlir::func::FuncOp>(loc(m.decl->range), name, b_.getFunctionType(argTypes, resultTypes));
    fn.setAllArgAttrs(argAttrs);
    mlir::Block *entry = fn.addEntryBlock();
    b_.setInsertionPointToStart(entry);
    std::map<int, mlir::Value> values;
    for (auto &[v, arg] : valueArg) values[v] = entry->getArgument(arg);

    for (auto &[node, firstParam] : paramArgs) {
      const GraphNode &n = *node;
      mlir::OperationState state(nodeLoc(n), "dx." + n.op->name);
      for (int in : n.inputs) state.addOperands(values.at(in));
      for (size_t k = 0; k < n.params.size(); ++k) state.addOperands(entry->getArgument(firstParam + k));
      state.addAttribute("operandSegmentSizes",
                         b_.getDenseI32ArrayAttr({static_cast<int32_t>(n.inputs.size()),
                                                  static_cast<int32_t>(n.params.size())}));
      for (size_t k = 0; k < n.op->attrs.size(); ++k)
        if (mlir::Attribute a = ir::toMlirAttr(&ctx_, n.op->attrs[k], n.attrs[k]))
          state.addAttribute(n.op->attrs[k].name, a);
      // Each random op draws from its own stream of the step's generator.
      if (n.op->category == OpCategory::Random)
        state.addAttribute("stream", b_.getI64IntegerAttr(static_cast<int64_t>(&n - g.nodes.data())));
      for (int out : n.outputs) state.addTypes(ir::toMlirType(&ctx_, g.values[out].type));
      mlir::Operation *op = b_.create(state);
      for (size_t k = 0; k < n.outputs.size(); ++k) values[n.outputs[k]] = op->getResult(k);
    }
    llvm::SmallVector<mlir::Value> ret;
    for (int r : results) ret.push_back(values.at(r));
    b_.create<mlir::func::ReturnOp>(loc(m.decl->bodyEnd), ret);
  }

private:
  mlir::MLIRContext &ctx_;
  const SourceManager &sm_;
  mlir::OpBuilder b_;
};

} // namespace

mlir::OwningOpRef<mlir::ModuleOp> mlirGen(mlir::MLIRContext &ctx, const Program &prog, const SourceManager &sm) {
  ctx.loadDialect<ir::DxDialect, mlir::func::FuncDialect>();
  Generator gen(ctx, sm);
  mlir::OpBuilder b(&ctx);
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::ModuleOp::create(b.getUnknownLoc());
  for (size_t i = 0; i < prog.models.size(); ++i) {
    const CheckedModel &m = prog.models[i];
    gen.emit(*module, m, m.decl->name.name, Generator::Kind::Forward);
    if (m.graph.loss >= 0) {
      gen.emit(*module, m, m.decl->name.name + "_loss", Generator::Kind::Loss);
      gen.emit(*module, m, m.decl->name.name + "_eval", Generator::Kind::Eval);
    }
  }
  if (mlir::failed(mlir::verify(*module))) return nullptr;
  return module;
}

} // namespace dx
