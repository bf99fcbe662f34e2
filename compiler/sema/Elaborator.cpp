#include "sema/Elaborator.h"

#include "sema/OpRegistry.h"

#include <cmath>

namespace dx {

namespace {
// Block instantiation deeper than this is a recursive block.
constexpr size_t kMaxDepth = 64;
// More operator applications than this is not a model this tool can train.
constexpr int64_t kMaxRepeat = 10'000;
// More operator applications, block instantiations and repeat iterations than
// this, over the whole compilation, is not a program this tool can train. The
// bound is shared by all models: blocks that call each other twice (or nested
// repeats of repeat(0)) would otherwise take exponential time, and a thousand
// models of a million operations each would exhaust memory.
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
constexpr size_t kMaxNodes = 1'000'000;
constexpr size_t kMaxSteps = 4'000'000;
#else
// Under the fuzzer's sanitizers each operation is ~15x slower; keep an input
// that reaches the bounds well under its 10 s timeout, also when a long
// campaign is niced beneath other work (at 50,000 such an input took 1.5 s
// on an idle core and timed out starved: fuzz/README.md).
constexpr size_t kMaxNodes = 20'000;
constexpr size_t kMaxSteps = 20'000;
#endif
// Window arguments (kernel, stride, dilation, pad, scale) are at most this, as
// are the spatial sizes they meet (see spatialStatic in OpRegistry.cpp), so the
// shape functions' window arithmetic stays far from int64 overflow. A
// parameter tensor has at most kMaxParamElements elements, so that the model's
// parameter count (a sum over up to kMaxNodes operators) fits too.
constexpr int64_t kMaxSize = kMaxSpatialSize;
constexpr int64_t kMaxParamElements = int64_t(1) << 40;

const OpInfo &constantOp() {
  for (const OpInfo &op : opRegistry())
    if (op.name == "constant") return op;
  __builtin_unreachable();
}

// A bare name given to a `symbol` parameter is the symbol itself (`pad: same`),
// unless it names a value in scope.
bool bareSymbol(const ast::Param &p, const ast::Expr &e, const std::map<std::string, Value> &vars) {
  return p.type && !p.type->tensor && p.type->scalar.name == "symbol" && e.kind == ast::ExprKind::Name &&
         !vars.count(e.text);
}

const char *opNameOf(ast::BinOp op) {
  switch (op) {
  case ast::BinOp::Add: return "add";
  case ast::BinOp::Sub: return "sub";
  case ast::BinOp::Mul: return "mul";
  case ast::BinOp::Div: return "div";
  default: return nullptr;
  }
}
} // namespace

std::optional<TensorType> toTensorType(const ast::TensorTypeExpr &t, DiagnosticEngine &diags) {
  auto elem = parseElemType(t.elem.name);
  if (!elem) {
    diags.error(t.elem.range, "unknown element type '" + t.elem.name + "'" + didYouMean(t.elem.name, elemTypeNames()));
    return std::nullopt;
  }
  TensorType out{*elem, {}};
  for (const ast::Dim &d : t.dims) {
    if (d.size) {
      if (*d.size <= 0) {
        diags.error(d.range, "dimension must be positive, got " + std::to_string(*d.size));
        return std::nullopt;
      }
      out.dims.push_back(Dim::of(*d.size));
    } else {
      out.dims.push_back(Dim::sym(d.symbol));
    }
  }
  return out;
}

Elaborator::Elaborator(const Module &mod, DiagnosticEngine &diags, Graph &graph)
    : mod_(mod), diags_(diags), g_(graph) {}

void Elaborator::noteInstantiation(Diagnostic &d) const {
  for (size_t i = frames_.size(); i-- > 1;)
    if (frames_[i].callSite.valid()) d.notes.push_back({frames_[i].callSite, "in the block instantiated here"});
}

int Elaborator::newValue(TensorType t, SourceRange def, int producer) {
  g_.values.push_back(GraphValue{std::move(t), producer, def, ""});
  return static_cast<int>(g_.values.size()) - 1;
}

std::string Elaborator::uniqueName(const std::string &base) {
  Frame &f = frames_.back();
  int n = ++f.counters[base];
  std::string leaf = base + "_" + std::to_string(n);
  return f.path.empty() ? leaf : f.path + "." + leaf;
}

std::vector<std::string> Elaborator::namesInScope() const {
  std::vector<std::string> out;
  if (!frames_.empty())
    for (auto &[k, v] : frames_.back().vars) out.push_back(k);
  return out;
}

Value Elaborator::lookup(const std::string &name, SourceRange r) {
  auto &vars = frames_.back().vars;
  if (auto it = vars.find(name); it != vars.end()) {
    Value v = it->second;
    v.range = r;
    return v;
  }
  std::vector<std::string> cands = namesInScope();
  std::string hint = didYouMean(name, cands);
  if (mod_.funcs.count(name) || lookupOp(name))
    hint = "; '" + name + "' is " + (lookupOp(name) ? "an operator" : "a block") + ": call it, e.g. '" + name +
           "(x)', or use it in a pipeline 'x |> " + name + "'";
  if (hint.empty() && inLoss_ && frames_.size() == 1 && !cands.empty()) {
    // In the loss, say what it can see: the model's input and outputs, the labels.
    hint = "; the loss can use ";
    for (size_t i = 0; i < cands.size(); ++i) hint += (i ? ", '" : "'") + cands[i] + "'";
  }
  auto &d = diags_.error(r, "use of undefined name '" + name + "'" + hint);
  noteInstantiation(d);
  return Value::error();
}

void Elaborator::elaborateModel(const ast::FuncDecl &model) {
  frames_.push_back(Frame{});
  Frame &top = frames_.back();
  for (const ast::Param &p : model.params) {
    if (p.type && p.type->tensor) {
      auto t = toTensorType(*p.type->tensor, diags_);
      if (!t) {
        top.vars[p.name.name] = Value::error();
        continue;
      }
      for (const Dim &d : t->dims)
        if (!d.isStatic()) top.dims[d.symbol] = d;
      int v = newValue(*t, p.range, -1);
      g_.values[v].name = p.name.name;
      g_.inputs.push_back(v);
      g_.inputNames.push_back(p.name.name);
      top.vars[p.name.name] = Value::ofTensor(v, p.range);
    } else if (p.defaultValue) {
      Value v = bareSymbol(p, *p.defaultValue, top.vars) ? Value::ofSymbol(p.defaultValue->text, p.defaultValue->range)
                                                         : expr(*p.defaultValue);
      if (!v.isError() && !checkParamType(p, v)) v = Value::error();
      top.vars[p.name.name] = v;
    } else {
      diags_.error(p.range, "model input '" + p.name.name +
                                "' needs a tensor type, e.g. '" + p.name.name + ": f32[B, 784]'");
      top.vars[p.name.name] = Value::error();
    }
  }
  std::vector<Value> results = runBody(model);
  frames_.pop_back();
  if (results.empty()) return;
  std::vector<std::string> names;
  for (size_t i = 0; i < results.size(); ++i) {
    std::string name = "output";
    if (i < model.outputs.size() && model.outputs[i].name) name = model.outputs[i].name->name;
    else if (results.size() > 1) name = "output" + std::to_string(i);
    if (results[i].isError()) continue;
    if (!results[i].isTensor()) {
      diags_.error(results[i].range, "model '" + model.name.name + "' must return tensors, not " +
                                         results[i].kindName());
      continue;
    }
    g_.outputs.push_back(results[i].tensor);
    g_.outputNames.push_back(name);
  }
}

Value Elaborator::elaborateIn(const ast::Expr &e, const std::map<std::string, Value> &scope, bool inLoss) {
  frames_.push_back(Frame{});
  frames_.back().vars = scope;
  frames_.back().path = inLoss ? "loss" : "";
  inLoss_ = inLoss;
  Value v = expr(e);
  inLoss_ = false;
  frames_.pop_back();
  return v;
}

Value Elaborator::constant(const ast::Expr &e) {
  frames_.push_back(Frame{});
  Value v = expr(e);
  frames_.pop_back();
  if (v.isTensor()) {
    diags_.error(e.range, "expected a constant here, not a tensor");
    return Value::error();
  }
  return v;
}

// Runs a block or model body in the current frame; returns its results.
std::vector<Value> Elaborator::runBody(const ast::FuncDecl &fn) {
  std::vector<Value> results;
  bool returned = false;
  for (const ast::Stmt &s : fn.body) {
    if (returned) {
      diags_.error(s.range, "statement after 'return' is never executed");
      break;
    }
    if (s.kind == ast::Stmt::Kind::Return) {
      returned = true;
      // `return blk(x)` passes on every value of a block with several outputs.
      if (s.values.size() == 1) results = exprMulti(*s.values[0]);
      else
        for (const auto &v : s.values) results.push_back(expr(*v));
      continue;
    }
    std::vector<Value> vals = exprMulti(*s.values[0]);
    if (vals.size() != s.targets.size()) {
      bool anyError = false;
      for (auto &v : vals) anyError |= v.isError();
      if (!anyError) {
        auto &d = diags_.error(s.values[0]->range, "this expression gives " + std::to_string(vals.size()) +
                                                       (vals.size() == 1 ? " value" : " values") + " but " +
                                                       std::to_string(s.targets.size()) +
                                                       (s.targets.size() == 1 ? " name is" : " names are") +
                                                       " assigned");
        noteInstantiation(d);
      }
      vals.resize(s.targets.size(), Value::error());
    }
    for (size_t i = 0; i < s.targets.size(); ++i) {
      if (vals[i].isTensor() && g_.values[vals[i].tensor].name.empty())
        g_.values[vals[i].tensor].name = s.targets[i].name;
      frames_.back().vars[s.targets[i].name] = vals[i];
    }
  }
  if (!returned) {
    auto &d = diags_.error(fn.bodyEnd, std::string(fn.isModel ? "model" : "block") + " '" + fn.name.name +
                                           "' ends without a 'return'");
    noteInstantiation(d);
    return {};
  }
  if (fn.hasOutputs && results.size() != fn.outputs.size()) {
    auto &d = diags_.error(fn.body.back().range, "'" + fn.name.name + "' declares " +
                                                     std::to_string(fn.outputs.size()) + " outputs but returns " +
                                                     std::to_string(results.size()));
    d.notes.push_back({fn.outputs.front().range, "outputs declared here"});
    return errors(fn.outputs.size());
  }
  if (fn.hasOutputs) {
    for (size_t i = 0; i < results.size(); ++i) {
      Value &r = results[i];
      if (r.isError()) continue;
      if (!r.isTensor()) {
        diags_.error(r.range, "output " + std::to_string(i + 1) + " of '" + fn.name.name + "' must be a tensor, not " +
                                  r.kindName());
        r = Value::error();
        continue;
      }
      std::string why;
      const TensorType &have = g_.values[r.tensor].type;
      if (!toTensorType(fn.outputs[i].type, diags_)) { // a wrong declared type, reported there
        r = Value::error();
        continue;
      }
      if (!matchTensorType(fn.outputs[i].type, have, frames_.back().dims, why)) {
        auto &d = diags_.error(r.range, "'" + fn.name.name + "' returns " + have.str() + " here, but its output " +
                                            std::to_string(i + 1) + " is declared as " +
                                            std::string(diags_.sources().text(fn.outputs[i].type.range)) +
                                            (why.empty() ? "" : " (" + why + ")"));
        d.notes.push_back({fn.outputs[i].range, "output declared here"});
        // Only when it was inferred elsewhere, e.g. `return h` after `h = dense(x, 8)`.
        if (g_.values[r.tensor].def.valid() && g_.values[r.tensor].def.begin != r.range.begin)
          d.notes.push_back({g_.values[r.tensor].def, "shape " + have.shapeStr() +
                                                          (g_.values[r.tensor].producer < 0 ? " is declared here"
                                                                                            : " was inferred here")});
        noteInstantiation(d);
        r = Value::error();
      }
    }
  }
  return results;
}

bool Elaborator::matchTensorType(const ast::TensorTypeExpr &want, const TensorType &have,
                                 std::map<std::string, Dim> &dims, std::string &why) {
  auto elem = parseElemType(want.elem.name);
  if (!elem) {
    diags_.error(want.elem.range, "unknown element type '" + want.elem.name + "'" +
                                      didYouMean(want.elem.name, elemTypeNames()));
    return false;
  }
  if (*elem != have.elem) {
    why = "element type differs";
    return false;
  }
  if (want.dims.size() != static_cast<size_t>(have.rank())) {
    why = "rank " + std::to_string(have.rank()) + " instead of " + std::to_string(want.dims.size());
    return false;
  }
  for (size_t k = 0; k < want.dims.size(); ++k) {
    const ast::Dim &w = want.dims[k];
    const Dim &h = have.dims[k];
    if (w.size) {
      if (!h.isStatic() || h.size != *w.size) {
        why = "dim " + std::to_string(k) + " is " + h.str() + ", not " + std::to_string(*w.size);
        return false;
      }
      continue;
    }
    auto [it, inserted] = dims.emplace(w.symbol, h);
    if (!inserted && it->second != h) {
      why = "'" + w.symbol + "' is " + it->second.str() + " elsewhere but " + h.str() + " here";
      return false;
    }
  }
  return true;
}

bool Elaborator::checkParamType(const ast::Param &p, Value &v) {
  if (!p.type || v.isError()) return true;
  const ast::TypeExpr &t = *p.type;
  if (t.tensor) {
    if (!v.isTensor()) {
      diags_.error(v.range, "parameter '" + p.name.name + "' expects a tensor, got " + v.kindName())
          .notes.push_back({p.range, "parameter declared here"});
      return false;
    }
    std::string why;
    const TensorType &have = g_.values[v.tensor].type;
    // A declared type that is itself wrong is reported there, once.
    if (!toTensorType(*t.tensor, diags_)) return false;
    if (!matchTensorType(*t.tensor, have, frames_.back().dims, why)) {
      auto &d = diags_.error(v.range, "parameter '" + p.name.name + "' expects " +
                                          std::string(diags_.sources().text(t.tensor->range)) + ", got " + have.str() +
                                          (why.empty() ? "" : " (" + why + ")"));
      d.notes.push_back({p.range, "parameter declared here"});
      return false;
    }
    return true;
  }
  const std::string &k = t.scalar.name;
  bool ok;
  if (k == "tensor") ok = v.isTensor();
  else if (k == "int") {
    if (v.kind == Value::Kind::Float && std::floor(v.f) == v.f && std::fabs(v.f) < 9e18) v = Value::ofInt(static_cast<int64_t>(v.f), v.range);
    ok = v.kind == Value::Kind::Int;
  } else if (k == "float") {
    if (v.kind == Value::Kind::Int) v = Value::ofFloat(static_cast<double>(v.i), v.range);
    ok = v.kind == Value::Kind::Float;
  } else if (k == "bool") ok = v.kind == Value::Kind::Bool;
  else if (k == "string") ok = v.kind == Value::Kind::String;
  else if (k == "symbol") ok = v.kind == Value::Kind::Symbol || v.kind == Value::Kind::String;
  else if (k == "list") ok = v.kind == Value::Kind::List;
  else {
    diags_.error(t.scalar.range, "unknown type '" + k + "'" +
                                     didYouMean(k, {"tensor", "int", "float", "bool", "string", "symbol", "list"}));
    return false;
  }
  if (!ok) {
    auto &d = diags_.error(v.range, "parameter '" + p.name.name + "' expects " +
                                        (k == "int" ? std::string("an integer") : "a " + k) + ", got " + v.kindName());
    d.notes.push_back({p.range, "parameter declared here"});
  }
  return ok;
}

Value Elaborator::single(std::vector<Value> vals, SourceRange r, const std::string &what) {
  if (vals.size() == 1) return vals[0];
  for (auto &v : vals)
    if (v.isError()) return Value::error();
  auto &d = diags_.error(r, what + " gives " + std::to_string(vals.size()) +
                                " values here, where one is expected; assign them with 'a, b = ...'");
  noteInstantiation(d);
  return Value::error();
}

Value Elaborator::expr(const ast::Expr &e) {
  switch (e.kind) {
  case ast::ExprKind::Call:
    return single(exprMulti(e), e.range, "'" + e.callee.name + "'");
  case ast::ExprKind::Pipe:
    return single(exprMulti(e), e.range, "this pipeline");
  default:
    return exprMulti(e).at(0);
  }
}

std::vector<Elaborator::Arg> Elaborator::evalArgs(const std::vector<ast::Arg> &args) {
  std::vector<Arg> out;
  for (const ast::Arg &a : args) {
    Arg arg;
    if (a.name) {
      arg.name = a.name->name;
      arg.nameRange = a.name->range;
    }
    arg.range = a.value->range;
    // An undefined bare name may be an enum value such as `same`; the callee decides.
    if (a.value->kind == ast::ExprKind::Name && !frames_.back().vars.count(a.value->text)) {
      arg.value = Value::ofSymbol(a.value->text, a.value->range);
      arg.value.unbound = true;
    } else {
      arg.value = expr(*a.value);
      arg.value.range = a.value->range;
    }
    out.push_back(std::move(arg));
  }
  return out;
}

std::vector<Value> Elaborator::exprMulti(const ast::Expr &e) {
  switch (e.kind) {
  case ast::ExprKind::Int: return {Value::ofInt(e.intValue, e.range)};
  case ast::ExprKind::Float: return {Value::ofFloat(e.floatValue, e.range)};
  case ast::ExprKind::String: return {Value::ofString(e.text, e.range)};
  case ast::ExprKind::Bool: return {Value::ofBool(e.boolValue, e.range)};
  case ast::ExprKind::Name: return {lookup(e.text, e.range)};
  case ast::ExprKind::List: {
    Value v;
    v.kind = Value::Kind::List;
    v.range = e.range;
    for (const auto &el : e.elems) {
      Value x = expr(*el);
      if (x.isError()) return {Value::error()};
      if (x.isTensor()) {
        diags_.error(el->range, "a list may hold constants only; to join tensors use concat(a, b)");
        return {Value::error()};
      }
      v.list.push_back(x);
    }
    return {v};
  }
  case ast::ExprKind::Unary: {
    Value v = expr(*e.lhs);
    if (e.unaryOp == '+') return {v};
    return {negate(v, e.range)};
  }
  case ast::ExprKind::Binary: {
    Value a = expr(*e.lhs);
    Value b = expr(*e.rhs);
    return {binary(e.binOp, a, b, e.range)};
  }
  case ast::ExprKind::Call:
    return call(e.callee, evalArgs(e.args), e.range);
  case ast::ExprKind::Pipe: {
    Value in = expr(*e.lhs);
    return applyStage(in, e.lhs->range, *e.stage);
  }
  }
  return {Value::error()};
}

std::vector<Value> Elaborator::applyStage(Value input, SourceRange inputRange, const ast::Stage &stage) {
  if (stage.kind == ast::Stage::Kind::Call) {
    std::vector<Arg> args = evalArgs(stage.args);
    Arg first;
    first.value = input;
    first.range = inputRange;
    args.insert(args.begin(), first);
    return call(stage.callee, std::move(args), stage.range);
  }
  Value count = expr(*stage.count);
  if (count.isError() || input.isError()) return {Value::error()};
  if (count.kind != Value::Kind::Int || count.i < 0 || count.i > kMaxRepeat) {
    diags_.error(stage.count->range, "repeat count must be an integer between 0 and " + std::to_string(kMaxRepeat) +
                                         ", got " + count.str());
    return {Value::error()};
  }
  Value v = input;
  for (int64_t i = 0; i < count.i && !v.isError() && step(stage.range); ++i)
    for (const ast::Stage &s : stage.body) v = single(applyStage(v, stage.range, s), s.range, "this stage");
  if (tooLarge_) return {Value::error()};
  return {v};
}

std::vector<Value> Elaborator::call(const ast::Ident &callee, std::vector<Arg> args, SourceRange range) {
  if (auto it = mod_.funcs.find(callee.name); it != mod_.funcs.end())
    return instantiate(*it->second, std::move(args), range);
  if (const OpInfo *op = lookupOp(callee.name)) return applyOp(*op, std::move(args), range);
  std::string msg;
  if (frames_.back().vars.count(callee.name))
    msg = "'" + callee.name + "' is a value, not an operator or block";
  else {
    std::vector<std::string> cands = opNames();
    for (auto &[k, v] : mod_.funcs) cands.push_back(k);
    msg = "unknown operator or block '" + callee.name + "'" + didYouMean(callee.name, cands);
  }
  auto &d = diags_.error(callee.range, msg);
  noteInstantiation(d);
  return {Value::error()};
}

bool Elaborator::step(SourceRange range) {
  if (tooLarge_) return false;
  if (++mod_.elaborationSteps <= kMaxSteps) return true;
  tooLarge_ = true;
  diags_.error(range, "the program takes more than " + std::to_string(kMaxSteps) +
                          " steps (operations, block instantiations, repeat iterations) to elaborate");
  return false;
}

std::vector<Value> Elaborator::instantiate(const ast::FuncDecl &fn, std::vector<Arg> args, SourceRange range) {
  size_t nres = fn.hasOutputs ? fn.outputs.size() : 1;
  if (!step(range)) return errors(nres);
  if (frames_.size() > kMaxDepth) {
    auto &d = diags_.error(range, "blocks nested more than " + std::to_string(kMaxDepth) +
                                      " deep; is '" + fn.name.name + "' recursive?");
    d.notes.push_back({fn.name.range, "'" + fn.name.name + "' is defined here"});
    return errors(nres);
  }
  // Bind arguments to parameters: positional first, then by name.
  std::vector<std::optional<Value>> bound(fn.params.size());
  bool bad = false;
  size_t pos = 0;
  for (Arg &a : args) {
    size_t idx;
    if (a.name.empty()) {
      if (pos >= fn.params.size()) {
        auto &d = diags_.error(a.range, "too many arguments to '" + fn.name.name + "': it takes " +
                                            std::to_string(fn.params.size()));
        d.notes.push_back({fn.name.range, "'" + fn.name.name + "' is defined here"});
        noteInstantiation(d);
        return errors(nres);
      }
      idx = pos++;
    } else {
      idx = fn.params.size();
      for (size_t k = 0; k < fn.params.size(); ++k)
        if (fn.params[k].name.name == a.name) idx = k;
      if (idx == fn.params.size()) {
        std::vector<std::string> names;
        for (auto &p : fn.params) names.push_back(p.name.name);
        auto &d = diags_.error(a.nameRange, "'" + fn.name.name + "' has no parameter '" + a.name + "'" +
                                                didYouMean(a.name, names));
        d.notes.push_back({fn.name.range, "'" + fn.name.name + "' is defined here"});
        noteInstantiation(d);
        bad = true;
        continue;
      }
      if (bound[idx]) {
        diags_.error(a.nameRange, "parameter '" + a.name + "' of '" + fn.name.name + "' is given twice");
        bad = true;
        continue;
      }
    }
    if (a.value.unbound) {
      const ast::TypeExpr *t = fn.params[idx].type ? &*fn.params[idx].type : nullptr;
      if (t && !t->tensor && t->scalar.name == "symbol") a.value.unbound = false; // e.g. `same`
      else a.value = lookup(a.value.s, a.range);
    }
    bound[idx] = a.value;
  }
  if (bad) return errors(nres);

  Frame frame;
  frame.callSite = range;
  frame.path = uniqueName(fn.name.name);
  frames_.push_back(std::move(frame));
  for (size_t k = 0; k < fn.params.size(); ++k) {
    const ast::Param &p = fn.params[k];
    Value v;
    if (bound[k]) v = *bound[k];
    else if (p.defaultValue && bareSymbol(p, *p.defaultValue, frames_.back().vars))
      v = Value::ofSymbol(p.defaultValue->text, p.defaultValue->range);
    else if (p.defaultValue) v = expr(*p.defaultValue);
    else {
      auto &d = diags_.error(range, "missing argument '" + p.name.name + "' in call to '" + fn.name.name + "'");
      d.notes.push_back({p.range, "parameter declared here"});
      bad = true;
      continue;
    }
    if (!checkParamType(p, v)) v = Value::error();
    if (v.isError()) bad = true;
    frames_.back().vars[p.name.name] = v;
  }
  std::vector<Value> results = bad ? errors(nres) : runBody(fn);
  frames_.pop_back();
  if (results.empty()) return errors(nres);
  return results;
}

bool Elaborator::coerceAttr(const OpInfo &op, const AttrSpec &spec, Value &v) {
  auto fail = [&](const std::string &expected) {
    std::string got = v.unbound ? "the undefined name '" + v.s + "'"
                      : v.kind == Value::Kind::Tensor || v.kind == Value::Kind::Symbol
                          ? v.kindName()
                          : v.kindName() + " (" + v.str() + ")";
    std::string hint = v.unbound ? didYouMean(v.s, namesInScope()) : "";
    auto &d = diags_.error(v.range, "argument '" + spec.name + "' of " + op.name + " must be " + expected + ", got " +
                                        got + hint);
    noteInstantiation(d);
    return false;
  };
  auto isInt = [](Value &x) {
    if (x.kind == Value::Kind::Float && std::floor(x.f) == x.f && std::fabs(x.f) < 9e18) {
      x = Value::ofInt(static_cast<int64_t>(x.f), x.range);
    }
    return x.kind == Value::Kind::Int;
  };
  auto intList = [&](Value &x, size_t minN, size_t maxN) {
    if (x.kind != Value::Kind::List || x.list.size() < minN || x.list.size() > maxN) return false;
    for (Value &e : x.list)
      if (!isInt(e)) return false;
    return true;
  };
  switch (spec.kind) {
  case AttrKind::Int:
    return isInt(v) || fail("an integer");
  case AttrKind::Float:
    if (v.kind == Value::Kind::Int) v = Value::ofFloat(static_cast<double>(v.i), v.range);
    return v.kind == Value::Kind::Float || fail("a number");
  case AttrKind::Bool:
    return v.kind == Value::Kind::Bool || fail("true or false");
  case AttrKind::Enum: {
    std::string choices;
    for (size_t i = 0; i < spec.choices.size(); ++i) choices += (i ? ", " : "") + spec.choices[i];
    if (v.kind == Value::Kind::Symbol || v.kind == Value::Kind::String) {
      for (const std::string &c : spec.choices)
        if (v.s == c) {
          v = Value::ofSymbol(c, v.range);
          return true;
        }
      auto &d = diags_.error(v.range, "'" + v.s + "' is not a valid " + spec.name + " for " + op.name +
                                          " (expected one of: " + choices + ")" + didYouMean(v.s, spec.choices));
      noteInstantiation(d);
      return false;
    }
    return fail("one of: " + choices);
  }
  case AttrKind::Pair:
  case AttrKind::OptInt: {
    // spatial: 2 (height, width), 3 (depth, height, width) or 0 (as the input).
    size_t lo = spec.spatial ? spec.spatial : 2, hi = spec.spatial ? spec.spatial : 3;
    std::string list = spec.spatial == 3   ? "[depth, height, width]"
                       : spec.spatial == 0 ? "a list with one value per spatial dim"
                                           : "[height, width]";
    if (spec.kind == AttrKind::OptInt && v.kind == Value::Kind::None) return true;
    return isInt(v) || intList(v, lo, hi) ||
           fail(spec.kind == AttrKind::OptInt ? "an integer or " + list
                                              : "an integer or " + std::string(spec.spatial == 0 ? "" : "a list ") + list);
  }
  case AttrKind::Padding: {
    size_t n = spec.spatial == 3 ? 3 : 2;
    std::string forms = n == 3 ? "an integer, [pd, ph, pw], [front, back, top, bottom, left, right], same or valid"
                               : "an integer, [ph, pw], same or valid";
    if (v.kind == Value::Kind::Symbol || v.kind == Value::Kind::String) {
      if (v.s == "same" || v.s == "valid") {
        v = Value::ofSymbol(v.s, v.range);
        return true;
      }
      auto &d = diags_.error(v.range, "'" + v.s + "' is not a valid padding for " + op.name + " (expected " + forms +
                                          ")" + didYouMean(v.s, {"same", "valid"}));
      noteInstantiation(d);
      return false;
    }
    return isInt(v) || intList(v, n, n) || intList(v, 2 * n, 2 * n) || fail(forms);
  }
  case AttrKind::Axes:
    return v.kind == Value::Kind::None || isInt(v) || intList(v, 0, 64) || fail("an integer or a list of integers");
  case AttrKind::Floats: {
    if (v.kind == Value::Kind::None) return true;
    bool good = v.kind == Value::Kind::List && !v.list.empty() && v.list.size() <= 65536;
    for (Value &x : v.list) {
      if (x.kind == Value::Kind::Int) x = Value::ofFloat(static_cast<double>(x.i), x.range);
      good = good && x.kind == Value::Kind::Float;
    }
    return good || fail("a list of numbers, or none");
  }
  }
  return false;
}

Value Elaborator::constantTensor(double v, SourceRange r) {
  const OpInfo &op = constantOp();
  GraphNode node;
  node.op = &op;
  node.attrs = {Value::ofFloat(v)};
  node.range = r;
  node.path = uniqueName("constant");
  node.inLoss = inLoss_;
  int out = newValue(TensorType{ElemType::F32, {}}, r, static_cast<int>(g_.nodes.size()));
  node.outputs = {out};
  g_.nodes.push_back(std::move(node));
  return Value::ofTensor(out, r);
}

std::vector<Value> Elaborator::applyOp(const OpInfo &op, std::vector<Arg> args, SourceRange range) {
  if (!step(range)) return {Value::error()};
  if (g_.nodes.size() >= kMaxNodes) {
    tooLarge_ = true;
    diags_.error(range, "the model has more than " + std::to_string(kMaxNodes) + " operations");
    return {Value::error()};
  }
  bool elementwise = op.category == OpCategory::Elementwise;
  std::vector<Arg> inputs;
  std::vector<std::optional<Arg>> attrs(op.attrs.size());
  size_t nextAttr = 0;
  bool bad = false;
  auto usage = [&]() {
    std::string s = op.name + "(";
    for (size_t i = 0; i < op.inputs.size(); ++i) s += (i ? ", " : "") + op.inputs[i] + (op.variadic ? "..." : "");
    for (const AttrSpec &a : op.attrs) s += ", " + a.name + (a.required() ? "" : ": " + a.defaultValue.str());
    return s + ")";
  };
  for (Arg &a : args) {
    if (a.name.empty()) {
      bool wantTensor = inputs.size() < op.inputs.size() || (op.variadic && nextAttr == 0);
      if (wantTensor && a.value.isNumber() && elementwise)
        a.value = constantTensor(a.value.number(), a.range);
      if (wantTensor && a.value.unbound && (nextAttr >= op.attrs.size() || inputs.size() < op.inputs.size()))
        a.value = lookup(a.value.s, a.range);
      // A required tensor slot takes whatever is there, so that `relu(3)`
      // says a tensor is expected rather than that there are too many arguments.
      if (inputs.size() < op.inputs.size() || (wantTensor && (a.value.isTensor() || a.value.isError()))) {
        inputs.push_back(a);
        continue;
      }
      if (nextAttr >= op.attrs.size()) {
        auto &d = diags_.error(a.range, "too many arguments to " + op.name + "; it is called as " + usage());
        noteInstantiation(d);
        bad = true;
        continue;
      }
      attrs[nextAttr++] = a;
      continue;
    }
    int idx = op.attrIndex(a.name);
    if (idx < 0) {
      // Tensor inputs may be named too: softmax_cross_entropy(logits: y, labels: t).
      bool isInput = false;
      for (const std::string &in : op.inputs) isInput |= in == a.name;
      if (isInput && !op.variadic) {
        if (a.value.unbound) a.value = lookup(a.value.s, a.range);
        inputs.push_back(a);
        continue;
      }
      std::vector<std::string> names = op.attrNames();
      for (const std::string &in : op.inputs) names.push_back(in);
      auto &d = diags_.error(a.nameRange, op.name + " has no argument '" + a.name + "'" + didYouMean(a.name, names));
      noteInstantiation(d);
      bad = true;
      continue;
    }
    if (attrs[idx]) {
      diags_.error(a.nameRange, "argument '" + a.name + "' of " + op.name + " is given twice");
      bad = true;
      continue;
    }
    attrs[idx] = a;
  }
  for (Arg &in : inputs) {
    if (in.value.isError()) bad = true;
    else if (!in.value.isTensor()) {
      auto &d = diags_.error(in.range, op.name + " expects a tensor here, got " + in.value.kindName());
      noteInstantiation(d);
      bad = true;
    }
  }
  if (!bad && (inputs.size() < op.inputs.size() || (op.variadic && inputs.size() < 2))) {
    std::string missing = inputs.size() < op.inputs.size() ? op.inputs[inputs.size()] : op.inputs.back();
    auto &d = diags_.error(range, op.name + (op.variadic ? " needs at least two tensor inputs"
                                                         : " needs a tensor input '" + missing + "'") +
                                      "; it is called as " + usage());
    noteInstantiation(d);
    bad = true;
  }
  if (!bad && !op.variadic && inputs.size() > op.inputs.size()) {
    auto &d = diags_.error(inputs[op.inputs.size()].range, "too many tensor inputs to " + op.name +
                                                               "; it is called as " + usage());
    noteInstantiation(d);
    bad = true;
  }
  std::vector<Value> attrValues(op.attrs.size());
  std::vector<SourceRange> attrRanges(op.attrs.size(), range);
  for (size_t k = 0; k < op.attrs.size(); ++k) {
    const AttrSpec &spec = op.attrs[k];
    if (!attrs[k]) {
      if (spec.required()) {
        if (!bad) {
          auto &d = diags_.error(range, op.name + " needs argument '" + spec.name + "' (" + spec.doc +
                                            "); it is called as " + usage());
          noteInstantiation(d);
        }
        bad = true;
        continue;
      }
      attrValues[k] = spec.defaultValue;
      continue;
    }
    Value v = attrs[k]->value;
    attrRanges[k] = attrs[k]->range;
    if (v.isError()) {
      bad = true;
      continue;
    }
    v.range = attrs[k]->range;
    if (!coerceAttr(op, spec, v)) bad = true;
    attrValues[k] = v;
  }
  if (bad) return {Value::error()};
  // A number in a tensor expression (`x * 2`) takes the floating-point type of the other operand.
  if (elementwise && inputs.size() == 2)
    for (int i = 0; i < 2; ++i) {
      GraphValue &k = g_.values[inputs[i].value.tensor];
      const TensorType &other = g_.values[inputs[1 - i].value.tensor].type;
      if (k.producer >= 0 && g_.nodes[k.producer].op->category == OpCategory::Internal && k.type.rank() == 0 &&
          isFloat(other.elem))
        k.type.elem = other.elem;
    }

  ShapeContext ctx{op, {}, attrValues, {}, {}, 0, {}, false};
  for (const Arg &in : inputs) ctx.in.push_back(g_.values[in.value.tensor].type);
  ctx.report = [&](int input, const std::string &attrName, const std::string &msg) {
    SourceRange r = range;
    if (input >= 0 && static_cast<size_t>(input) < inputs.size()) r = inputs[input].range;
    if (!attrName.empty()) r = attrRanges[op.attrIndex(attrName)];
    auto &d = diags_.error(r, msg);
    if (input >= 0 && static_cast<size_t>(input) < inputs.size()) {
      const GraphValue &gv = g_.values[inputs[input].value.tensor];
      if (gv.def.valid() && gv.def.begin != r.begin)
        d.notes.push_back({gv.def, "shape " + gv.type.shapeStr() +
                                       (gv.producer < 0 ? " is declared here" : " was inferred here")});
    }
    noteInstantiation(d);
  };
  for (size_t k = 0; k < attrValues.size(); ++k) {
    AttrKind kind = op.attrs[k].kind;
    if (kind != AttrKind::Pair && kind != AttrKind::OptInt && kind != AttrKind::Padding) continue;
    auto big = [](const Value &x) { return x.kind == Value::Kind::Int && (x.i > kMaxSize || x.i < -kMaxSize); };
    bool tooBig = big(attrValues[k]);
    for (const Value &x : attrValues[k].list) tooBig |= big(x);
    if (tooBig) {
      ctx.report(-1, op.attrs[k].name, "argument '" + op.attrs[k].name + "' of " + op.name + " is out of range (" +
                                           attrValues[k].str() + "); window sizes are at most " +
                                           std::to_string(kMaxSize));
      return {Value::error()};
    }
  }
  op.infer(ctx);
  if (ctx.failed || ctx.out.empty()) return {Value::error()};
  for (const ParamTensor &p : ctx.params) {
    int64_t n = 1;
    bool over = false;
    for (const Dim &d : p.type.dims) over |= mulOverflows(n, d.size, n);
    if (over || n > kMaxParamElements) {
      diags_.error(range, op.name + ": parameter '" + p.name + "' " + p.type.str() + " would have more than " +
                              std::to_string(kMaxParamElements) + " elements");
      return {Value::error()};
    }
  }
  for (const TensorType &t : ctx.out) {
    int64_t n = 1;
    for (const Dim &d : t.dims)
      if (d.isStatic() && mulOverflows(n, d.size, n)) {
        diags_.error(range, op.name + " produces a tensor too large to represent: " + t.str());
        return {Value::error()};
      }
  }

  GraphNode node;
  node.op = &op;
  for (const Arg &in : inputs) node.inputs.push_back(in.value.tensor);
  node.attrs = std::move(ctx.attrs);
  node.range = range;
  node.path = uniqueName(op.name);
  node.flops = ctx.flops;
  node.inLoss = inLoss_;
  for (size_t i = frames_.size(); i-- > 1;)
    if (frames_[i].callSite.valid()) node.instantiatedFrom.push_back(frames_[i].callSite);
  node.params = std::move(ctx.params);
  for (ParamTensor &p : node.params) p.name = node.path + "." + p.name;
  int nodeIndex = static_cast<int>(g_.nodes.size());
  std::vector<Value> results;
  for (const TensorType &t : ctx.out) {
    int v = newValue(t, range, nodeIndex);
    node.outputs.push_back(v);
    results.push_back(Value::ofTensor(v, range));
  }
  g_.nodes.push_back(std::move(node));
  return results;
}

Value Elaborator::negate(Value a, SourceRange r) {
  switch (a.kind) {
  case Value::Kind::Error: return a;
  case Value::Kind::Int:
    if (a.i == INT64_MIN) {
      diags_.error(r, "integer overflow in constant expression");
      return Value::error();
    }
    return Value::ofInt(-a.i, r);
  case Value::Kind::Float: return Value::ofFloat(-a.f, r);
  case Value::Kind::Tensor: {
    Arg x;
    x.value = a;
    x.range = a.range;
    return single(applyOp(*lookupOp("neg"), {x}, r), r, "neg");
  }
  default: break;
  }
  diags_.error(r, "cannot negate " + a.kindName());
  return Value::error();
}

Value Elaborator::binary(ast::BinOp op, Value a, Value b, SourceRange r) {
  if (a.isError() || b.isError()) return Value::error();
  const char *name = opNameOf(op);
  if (!name) {
    diags_.error(r, std::string("comparison '") + ast::spelling(op) + "' is only allowed in a train block's target");
    return Value::error();
  }
  if (a.isNumber() && b.isNumber()) {
    if (a.kind == Value::Kind::Int && b.kind == Value::Kind::Int && op != ast::BinOp::Div) {
      int64_t out;
      bool overflow = op == ast::BinOp::Add   ? __builtin_add_overflow(a.i, b.i, &out)
                      : op == ast::BinOp::Sub ? __builtin_sub_overflow(a.i, b.i, &out)
                                              : __builtin_mul_overflow(a.i, b.i, &out);
      if (overflow) {
        diags_.error(r, "integer overflow in constant expression");
        return Value::error();
      }
      return Value::ofInt(out, r);
    }
    double x = a.number(), y = b.number();
    if (op == ast::BinOp::Div && y == 0) {
      diags_.error(r, "division by zero in constant expression");
      return Value::error();
    }
    double out = op == ast::BinOp::Add ? x + y : op == ast::BinOp::Sub ? x - y : op == ast::BinOp::Mul ? x * y : x / y;
    if (!std::isfinite(out)) {
      diags_.error(r, "constant expression overflows");
      return Value::error();
    }
    return Value::ofFloat(out, r);
  }
  if ((a.isTensor() || a.isNumber()) && (b.isTensor() || b.isNumber())) {
    Arg x, y;
    x.value = a.isNumber() ? constantTensor(a.number(), a.range) : a;
    x.range = a.range;
    y.value = b.isNumber() ? constantTensor(b.number(), b.range) : b;
    y.range = b.range;
    return single(applyOp(*lookupOp(name), {x, y}, r), r, name);
  }
  auto &d = diags_.error(r, std::string("cannot apply '") + ast::spelling(op) + "' to " + a.kindName() + " and " +
                                b.kindName());
  noteInstantiation(d);
  return Value::error();
}

} // namespace dx
