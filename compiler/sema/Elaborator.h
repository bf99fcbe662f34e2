// Elaboration: runs a model's body at compile time, instantiating blocks with
// their hyper-parameters, folding constants and applying operators' shape
// rules, and records every operator application in a Graph.
#pragma once

#include "sema/Graph.h"
#include "sema/OpRegistry.h"
#include "sema/Sema.h"
#include "sema/Value.h"

#include <map>
#include <string>
#include <vector>

namespace dx {

class Elaborator {
public:
  Elaborator(const Module &mod, DiagnosticEngine &diags, Graph &graph);

  // Elaborates `model` as the top level: its tensor parameters become graph
  // inputs, its results graph outputs.
  void elaborateModel(const ast::FuncDecl &model);

  // Elaborates one expression in a scope of named values (used for the loss).
  Value elaborateIn(const ast::Expr &e, const std::map<std::string, Value> &scope, bool inLoss);

  // Evaluates a constant expression (no tensors allowed), e.g. a setting.
  Value constant(const ast::Expr &e);

private:
  struct Arg {
    std::string name;          // empty = positional
    SourceRange nameRange;
    Value value;
    SourceRange range;
  };
  struct Frame {
    std::map<std::string, Value> vars;
    std::string path;
    std::map<std::string, int> counters;
    std::map<std::string, Dim> dims;  // symbolic dims bound by parameter types
    SourceRange callSite;
  };

  Value expr(const ast::Expr &e);
  std::vector<Value> exprMulti(const ast::Expr &e);
  Value single(std::vector<Value> vals, SourceRange r, const std::string &what);
  std::vector<Arg> evalArgs(const std::vector<ast::Arg> &args);
  std::vector<Value> call(const ast::Ident &callee, std::vector<Arg> args, SourceRange range);
  std::vector<Value> applyStage(Value input, SourceRange inputRange, const ast::Stage &stage);
  // Counts an operation, block instantiation or repeat iteration against the
  // compilation's bound; false (with an error, once) when it is exceeded.
  bool step(SourceRange range);
  std::vector<Value> instantiate(const ast::FuncDecl &fn, std::vector<Arg> args, SourceRange range);
  std::vector<Value> applyOp(const OpInfo &op, std::vector<Arg> args, SourceRange range);
  std::vector<Value> runBody(const ast::FuncDecl &fn);
  Value binary(ast::BinOp op, Value a, Value b, SourceRange r);
  Value negate(Value a, SourceRange r);
  Value lookup(const std::string &name, SourceRange r);
  bool coerceAttr(const OpInfo &op, const AttrSpec &spec, Value &v);
  bool checkParamType(const ast::Param &p, Value &v);
  bool matchTensorType(const ast::TensorTypeExpr &want, const TensorType &have, std::map<std::string, Dim> &dims,
                       std::string &why);
  int newValue(TensorType t, SourceRange def, int producer);
  Value constantTensor(double v, SourceRange r);
  std::string uniqueName(const std::string &base);
  std::vector<std::string> namesInScope() const;
  std::vector<Value> errors(size_t n) const { return std::vector<Value>(n, Value::error()); }
  void noteInstantiation(Diagnostic &d) const;

  const Module &mod_;
  DiagnosticEngine &diags_;
  Graph &g_;
  std::vector<Frame> frames_;
  bool inLoss_ = false;
  bool tooLarge_ = false;
};

// Converts a declared tensor type with symbols to a TensorType.
std::optional<TensorType> toTensorType(const ast::TensorTypeExpr &t, DiagnosticEngine &diags);

} // namespace dx
