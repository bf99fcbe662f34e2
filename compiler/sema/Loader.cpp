// Loading a compilation: the main file, then every `use`, depth first, with
// import cycles reported along the chain that forms them.
#include "frontend/Parser.h"
#include "sema/OpRegistry.h"
#include "sema/Sema.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace dx {
namespace fs = std::filesystem;

namespace {

// Files larger than this are not DeepEx sources; refusing them keeps the
// parser's memory bounded.
constexpr std::uintmax_t kMaxSourceBytes = 8u << 20;

bool readFile(const std::string &path, std::string &out, std::string &why) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    why = "is a directory";
    return false;
  }
  if (fs::exists(path, ec) && !fs::is_regular_file(path, ec)) {
    why = "not a regular file"; // e.g. /dev/zero would never end
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    why = fs::exists(path, ec) ? "permission denied" : "no such file";
    return false;
  }
  auto size = fs::file_size(path, ec);
  if (!ec && size > kMaxSourceBytes) {
    why = "file is larger than 8 MiB";
    return false;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  if (out.find('\0') != std::string::npos) {
    why = "file contains NUL bytes (not a text file)";
    return false;
  }
  return true;
}

class Loader {
public:
  Loader(SourceManager &sm, DiagnosticEngine &d, const SemaOptions &o, Module &m)
      : sm_(sm), diags_(d), opts_(o), mod_(m) {}

  // Returns the loaded file, or nullptr.
  ast::File *load(const std::string &path, const ast::Use *from) {
    std::error_code ec;
    std::string canon = fs::weakly_canonical(path, ec).string();
    if (ec) canon = path;
    for (size_t i = 0; i < stack_.size(); ++i) {
      if (stack_[i].canon != canon) continue;
      auto &err = diags_.error(from->range, "import cycle: " + cycleText(i, path));
      for (size_t k = i + 1; k < stack_.size(); ++k)
        if (stack_[k].via) err.notes.push_back({stack_[k].via->range, "'" + stack_[k - 1].display + "' imports '" +
                                                                          stack_[k].display + "' here"});
      return nullptr;
    }
    if (auto it = loaded_.find(canon); it != loaded_.end()) return it->second;

    std::string contents, why;
    if (!from && opts_.mainContents) contents = *opts_.mainContents;
    else if (!readFile(path, contents, why)) {
      if (from)
        diags_.error(from->range, "cannot read imported file '" + path + "': " + why);
      else
        diags_.error({}, "cannot read '" + path + "': " + why);
      return nullptr;
    }
    int id = sm_.add(path, std::move(contents));
    auto file = parseFile(id, diags_);
    if (!file) {
      loaded_[canon] = nullptr;
      return nullptr;
    }
    ast::File *raw = file.get();
    mod_.files.push_back(std::move(file));
    loaded_[canon] = raw;
    stack_.push_back({canon, path, from});
    for (const ast::Use &u : raw->uses) {
      std::string target = resolve(u, path);
      if (!target.empty()) load(target, &u);
    }
    stack_.pop_back();
    declare(*raw);
    return raw;
  }

private:
  struct Entry {
    std::string canon, display;
    const ast::Use *via;
  };

  std::string cycleText(size_t from, const std::string &again) {
    std::string s;
    for (size_t i = from; i < stack_.size(); ++i) s += stack_[i].display + " -> ";
    return s + again;
  }

  // `use std.blocks` -> <stdlib>/blocks.dx; `use a.b` -> <dir>/a/b.dx;
  // `use "x.dx"` -> <dir>/x.dx, where <dir> holds the importing file.
  std::string resolve(const ast::Use &u, const std::string &importer) {
    fs::path dir = fs::path(importer).parent_path();
    if (u.file) {
      fs::path p(*u.file);
      return (p.is_absolute() ? p : dir / p).string();
    }
    fs::path rel;
    size_t first = 0;
    fs::path base = dir;
    if (u.path.size() > 1 && u.path[0].name == "std") {
      base = opts_.stdlibDir;
      first = 1;
    } else if (u.path.size() == 1 && u.path[0].name == "std") {
      diags_.error(u.range, "'use std' needs a module name, e.g. 'use std.blocks'");
      return "";
    }
    for (size_t i = first; i < u.path.size(); ++i) rel /= u.path[i].name;
    rel += ".dx";
    fs::path full = base / rel;
    std::error_code ec;
    if (first == 1 && !fs::exists(full, ec)) {
      std::vector<std::string> known;
      for (auto &e : fs::directory_iterator(opts_.stdlibDir, ec))
        if (e.path().extension() == ".dx") known.push_back(e.path().stem().string());
      diags_.error(u.range, "no standard library module '" + u.spelling() + "'" +
                                didYouMean(rel.stem().string(), known));
      return "";
    }
    return full.string();
  }

  void declare(const ast::File &f) {
    for (const auto &fn : f.funcs) {
      const char *what = fn->isModel ? "model" : "block";
      if (lookupOp(fn->name.name)) {
        diags_.error(fn->name.range, std::string(what) + " '" + fn->name.name +
                                         "' has the name of a built-in operator; choose another name");
        continue;
      }
      auto [it, inserted] = mod_.funcs.emplace(fn->name.name, fn.get());
      if (!inserted)
        diags_.error(fn->name.range, "redefinition of '" + fn->name.name + "'")
            .notes.push_back({it->second->name.range, "previous definition is here"});
    }
    for (const auto &d : f.datasets) {
      auto [it, inserted] = mod_.datasets.emplace(d->name.name, d.get());
      if (!inserted)
        diags_.error(d->name.range, "redefinition of dataset '" + d->name.name + "'")
            .notes.push_back({it->second->name.range, "previous definition is here"});
    }
  }

  SourceManager &sm_;
  DiagnosticEngine &diags_;
  const SemaOptions &opts_;
  Module &mod_;
  std::map<std::string, ast::File *> loaded_;
  std::vector<Entry> stack_;
};

} // namespace

bool loadInto(Module &mod, const std::string &path, SourceManager &sm, DiagnosticEngine &diags,
              const SemaOptions &opts) {
  Loader loader(sm, diags, opts, mod);
  mod.main = loader.load(path, nullptr);
  return mod.main != nullptr;
}

std::unique_ptr<Module> loadModule(const std::string &path, SourceManager &sm, DiagnosticEngine &diags,
                                   const SemaOptions &opts) {
  auto mod = std::make_unique<Module>();
  if (!loadInto(*mod, path, sm, diags, opts)) return nullptr;
  return mod;
}

} // namespace dx
