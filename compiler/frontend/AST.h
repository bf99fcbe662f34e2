// The DeepEx abstract syntax tree. Every node keeps the SourceRange it was
// parsed from, so later stages (sema, MLIRGen) can point diagnostics at it.
#pragma once

#include "support/Source.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dx::ast {

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Ident {
  std::string name;
  SourceRange range;
};

struct Arg {
  std::optional<Ident> name; // named argument `name: value`
  ExprPtr value;
  SourceRange range;
};

// One stage of a pipeline `x |> stage`: a call whose first argument is the
// piped value, or `repeat(n) { stage |> stage ... }`.
struct Stage {
  enum class Kind { Call, Repeat } kind = Kind::Call;
  Ident callee;          // Call
  std::vector<Arg> args; // Call
  ExprPtr count;         // Repeat
  std::vector<Stage> body; // Repeat
  SourceRange range;
};

enum class ExprKind { Int, Float, String, Bool, Name, Call, Unary, Binary, List, Pipe };

enum class BinOp { Add, Sub, Mul, Div, Lt, Le, Gt, Ge, Eq, Ne };
const char *spelling(BinOp op);

struct Expr {
  ExprKind kind;
  SourceRange range;

  int64_t intValue = 0;       // Int
  double floatValue = 0;      // Float
  std::string text;           // String value, Name identifier
  bool boolValue = false;     // Bool
  Ident callee;               // Call
  std::vector<Arg> args;      // Call
  char unaryOp = '-';         // Unary: '-' or '+'
  BinOp binOp = BinOp::Add;   // Binary
  ExprPtr lhs, rhs;           // Unary (lhs), Binary, Pipe (lhs = input)
  std::vector<ExprPtr> elems; // List
  std::unique_ptr<Stage> stage; // Pipe

  explicit Expr(ExprKind k, SourceRange r) : kind(k), range(r) {}
};

struct Dim {
  std::optional<int64_t> size; // static size, or
  std::string symbol;          // a symbolic dim such as B
  SourceRange range;
};

struct TensorTypeExpr {
  Ident elem;                  // f32, i64, ...
  std::vector<Dim> dims;
  SourceRange range;
};

struct TypeExpr {
  std::optional<TensorTypeExpr> tensor; // f32[B, 784]
  Ident scalar;                         // int, float, bool, string, tensor
  SourceRange range;
};

struct Param {
  Ident name;
  std::optional<TypeExpr> type;
  ExprPtr defaultValue;
  SourceRange range;
};

struct OutputDecl {
  std::optional<Ident> name;
  TensorTypeExpr type;
  SourceRange range;
};

struct Stmt {
  enum class Kind { Assign, Return } kind;
  std::vector<Ident> targets;  // Assign
  std::vector<ExprPtr> values; // Assign: one value; Return: one per output
  SourceRange range;
};

// `block` and `model` share one shape: parameters, optional declared outputs,
// and a body. A model's tensor parameters are the network's inputs.
struct FuncDecl {
  bool isModel = false;
  Ident name;
  std::vector<Param> params;
  std::vector<OutputDecl> outputs;
  bool hasOutputs = false;
  std::vector<Stmt> body;
  SourceRange range;
  SourceRange bodyEnd; // the closing brace, for "missing return" errors
};

// `key: phrase then phrase`; a phrase is a list of terms such as `64 per rank`.
struct Setting {
  Ident key;
  std::vector<std::vector<ExprPtr>> phrases;
  SourceRange range;
};

struct SettingsDecl {
  enum class Kind { Dataset, Train } kind;
  Ident name;                  // optional for train blocks
  std::vector<Setting> settings;
  SourceRange range;
  const Setting *find(const std::string &key) const {
    for (const Setting &s : settings)
      if (s.key.name == key) return &s;
    return nullptr;
  }
};

struct Use {
  std::vector<Ident> path;     // use std.blocks
  std::optional<std::string> file; // use "other.dx"
  SourceRange range;
  std::string spelling() const;
};

struct File {
  int fileId = -1;
  std::string path;
  std::vector<Use> uses;
  std::vector<std::unique_ptr<FuncDecl>> funcs;
  std::vector<std::unique_ptr<SettingsDecl>> datasets;
  std::vector<std::unique_ptr<SettingsDecl>> trains;
};

} // namespace dx::ast
