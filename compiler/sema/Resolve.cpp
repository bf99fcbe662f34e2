#include "sema/Resolve.h"

#include "sema/Elaborator.h"
#include "sema/OpRegistry.h"

#include <algorithm>
#include <set>

namespace dx {
namespace {

class Resolver {
public:
  Resolver(const Module &mod, DiagnosticEngine &diags) : mod_(mod), diags_(diags) {}

  void func(const ast::FuncDecl &fn) {
    scope_.clear();
    // Declared types, also of blocks nothing instantiates.
    for (const ast::Param &p : fn.params) {
      if (p.type && p.type->tensor) toTensorType(*p.type->tensor, diags_);
      static const std::vector<std::string> scalars = {"tensor", "int", "float", "bool", "string", "symbol", "list"};
      if (p.type && !p.type->tensor && std::find(scalars.begin(), scalars.end(), p.type->scalar.name) == scalars.end())
        diags_.error(p.type->scalar.range,
                     "unknown type '" + p.type->scalar.name + "'" + didYouMean(p.type->scalar.name, scalars));
    }
    for (const ast::OutputDecl &o : fn.outputs) toTensorType(o.type, diags_);
    for (const ast::Param &p : fn.params) {
      // A bare name as the default of a `symbol` parameter is a symbol (`pad: symbol = same`).
      bool symbolDefault = p.type && !p.type->tensor && p.type->scalar.name == "symbol" && p.defaultValue &&
                           p.defaultValue->kind == ast::ExprKind::Name;
      if (p.defaultValue && !symbolDefault) expr(*p.defaultValue);
      scope_.insert(p.name.name);
    }
    for (const ast::Stmt &s : fn.body) {
      for (const auto &v : s.values) expr(*v);
      for (const ast::Ident &t : s.targets) scope_.insert(t.name);
    }
  }

private:
  void name(const std::string &n, SourceRange r) {
    if (scope_.count(n)) return;
    std::vector<std::string> cands(scope_.begin(), scope_.end());
    std::string hint = didYouMean(n, cands);
    if (mod_.funcs.count(n) || lookupOp(n))
      hint = "; '" + n + "' is " + (lookupOp(n) ? "an operator" : "a block") + ": call it, e.g. '" + n +
             "(x)', or use it in a pipeline 'x |> " + n + "'";
    diags_.error(r, "use of undefined name '" + n + "'" + hint);
  }

  void callee(const ast::Ident &c) {
    if (mod_.funcs.count(c.name) || lookupOp(c.name)) return;
    if (scope_.count(c.name)) {
      diags_.error(c.range, "'" + c.name + "' is a value, not an operator or block");
      return;
    }
    std::vector<std::string> cands = opNames();
    for (auto &[k, v] : mod_.funcs) cands.push_back(k);
    diags_.error(c.range, "unknown operator or block '" + c.name + "'" + didYouMean(c.name, cands));
  }

  // `first` is the position of as[0] among the callee's arguments: 1 in a
  // pipeline stage, whose input fills the first slot.
  void args(const ast::Ident &callee, const std::vector<ast::Arg> &as, size_t first) {
    for (size_t i = 0; i < as.size(); ++i) {
      const ast::Arg &a = as[i];
      if (a.value->kind != ast::ExprKind::Name || mustBeValue(callee, a, first + i)) expr(*a.value);
    }
  }

  // Whether a bare-name argument cannot be an enum value: it fills an
  // operator's tensor input or a block parameter that is not a `symbol`.
  bool mustBeValue(const ast::Ident &callee, const ast::Arg &a, size_t pos) {
    if (auto it = mod_.funcs.find(callee.name); it != mod_.funcs.end()) {
      const ast::FuncDecl &fn = *it->second;
      const ast::Param *p = nullptr;
      if (!a.name) p = pos < fn.params.size() ? &fn.params[pos] : nullptr;
      else
        for (const ast::Param &q : fn.params)
          if (q.name.name == a.name->name) p = &q;
      // No such parameter: elaboration reports the call.
      if (!p) return false;
      return !(p->type && !p->type->tensor && p->type->scalar.name == "symbol");
    }
    const OpInfo *op = lookupOp(callee.name);
    if (!op) return false;
    if (a.name) {
      for (const std::string &in : op->inputs)
        if (in == a.name->name) return true;
      return false;
    }
    return op->variadic ? op->attrs.empty() || pos < op->inputs.size() : pos < op->inputs.size();
  }

  void stage(const ast::Stage &s) {
    if (s.kind == ast::Stage::Kind::Call) {
      callee(s.callee);
      args(s.callee, s.args, 1);
      return;
    }
    expr(*s.count);
    for (const ast::Stage &b : s.body) stage(b);
  }

  void expr(const ast::Expr &e) {
    switch (e.kind) {
    case ast::ExprKind::Name: name(e.text, e.range); return;
    case ast::ExprKind::Call:
      callee(e.callee);
      args(e.callee, e.args, 0);
      return;
    case ast::ExprKind::Pipe:
      expr(*e.lhs);
      stage(*e.stage);
      return;
    case ast::ExprKind::List:
      for (const auto &el : e.elems) expr(*el);
      return;
    default:
      if (e.lhs) expr(*e.lhs);
      if (e.rhs) expr(*e.rhs);
      return;
    }
  }

  const Module &mod_;
  DiagnosticEngine &diags_;
  std::set<std::string> scope_;
};

} // namespace

void resolveNames(const Module &mod, DiagnosticEngine &diags) {
  Resolver r(mod, diags);
  for (const auto &file : mod.files)
    for (const auto &fn : file->funcs) r.func(*fn);
}

} // namespace dx
