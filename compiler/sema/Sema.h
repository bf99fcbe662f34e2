// Semantic analysis: loads imports, resolves names, elaborates each model into
// a shaped Graph and checks dataset and train blocks.
#pragma once

#include "frontend/AST.h"
#include "sema/Graph.h"
#include "sema/TrainConfig.h"
#include "support/Diagnostics.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dx {

// Every file of a compilation: the main file and everything it imports.
struct Module {
  std::vector<std::unique_ptr<ast::File>> files;
  ast::File *main = nullptr;
  std::map<std::string, const ast::FuncDecl *> funcs;       // blocks and models, one namespace
  std::map<std::string, const ast::SettingsDecl *> datasets;
  // Elaboration work so far, over every model and loss of the compilation
  // (see Elaborator::step); bounded so that a small file cannot run for hours.
  mutable size_t elaborationSteps = 0;
};

struct CheckedModel {
  const ast::FuncDecl *decl = nullptr;
  Graph graph;
};

struct Program {
  Module module;
  std::vector<CheckedModel> models;   // the main file's models; the trained one first
  std::optional<TrainConfig> train;
  std::optional<DatasetConfig> dataset;
};

struct SemaOptions {
  std::string stdlibDir;              // where `use std.x` looks for x.dx
  std::optional<std::string> mainContents; // use this text instead of reading the main file
};

// Reads and parses `path` and everything it imports, then checks it all.
// Diagnostics go to `diags`; the Program is returned even with errors so that
// tools can show what was understood, but must not be compiled then.
std::unique_ptr<Program> analyze(const std::string &path, SourceManager &sm, DiagnosticEngine &diags,
                                 const SemaOptions &opts);

// Loads `path` and its imports into `mod`; false if the main file failed.
bool loadInto(Module &mod, const std::string &path, SourceManager &sm, DiagnosticEngine &diags,
              const SemaOptions &opts);

// Parses a file (and its imports) without sema, for --emit=ast. Null on errors.
std::unique_ptr<Module> loadModule(const std::string &path, SourceManager &sm, DiagnosticEngine &diags,
                                   const SemaOptions &opts);

} // namespace dx
