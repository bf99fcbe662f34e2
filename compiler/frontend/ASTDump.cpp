#include "frontend/ASTDump.h"

#include <algorithm>
#include <cstdio>
#include <ostream>

namespace dx {
namespace {

// Re-escapes a string literal's value so the dump stays one line per node.
std::string quoted(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\t': out += "\\t"; break;
    default: out += c;
    }
  }
  return out + "\"";
}

class Dumper {
public:
  Dumper(std::ostream &os, const SourceManager &sm) : os_(os), sm_(sm) {}

  void file(const ast::File &f) {
    os_ << "File " << f.path << "\n";
    ++depth_;
    for (const ast::Use &u : f.uses) line("Use " + (u.file ? quoted(*u.file) : u.spelling()), u.range);
    // Declarations in source order.
    struct Item {
      uint32_t at;
      const ast::FuncDecl *fn;
      const ast::SettingsDecl *settings;
    };
    std::vector<Item> items;
    for (auto &fn : f.funcs) items.push_back({fn->range.begin, fn.get(), nullptr});
    for (auto &d : f.datasets) items.push_back({d->range.begin, nullptr, d.get()});
    for (auto &d : f.trains) items.push_back({d->range.begin, nullptr, d.get()});
    std::sort(items.begin(), items.end(), [](const Item &a, const Item &b) { return a.at < b.at; });
    for (const Item &it : items) {
      if (it.fn) func(*it.fn);
      else settings(*it.settings);
    }
    --depth_;
  }

private:
  std::string at(SourceRange r) {
    if (!r.valid()) return "";
    LineCol lc = sm_.lineCol(r.file, r.begin);
    return " @" + std::to_string(lc.line) + ":" + std::to_string(lc.col);
  }
  void line(const std::string &text, SourceRange r) {
    os_ << std::string(depth_ * 2, ' ') << text << at(r) << "\n";
  }
  std::string type(const ast::TensorTypeExpr &t) { return std::string(sm_.text(t.range)); }

  void func(const ast::FuncDecl &fn) {
    line(std::string(fn.isModel ? "Model " : "Block ") + fn.name.name, fn.range);
    ++depth_;
    for (const ast::Param &p : fn.params) {
      std::string t = p.type ? " : " + std::string(sm_.text(p.type->range)) : "";
      line("Param " + p.name.name + t, p.range);
      if (p.defaultValue) {
        ++depth_;
        line("Default", p.defaultValue->range);
        ++depth_;
        expr(*p.defaultValue);
        depth_ -= 2;
      }
    }
    for (const ast::OutputDecl &o : fn.outputs)
      line("Output " + (o.name ? o.name->name + " : " : std::string()) + type(o.type), o.range);
    for (const ast::Stmt &s : fn.body) {
      if (s.kind == ast::Stmt::Kind::Assign) {
        std::string targets;
        for (size_t i = 0; i < s.targets.size(); ++i) targets += (i ? ", " : "") + s.targets[i].name;
        line("Assign " + targets, s.range);
      } else {
        line("Return", s.range);
      }
      ++depth_;
      for (const auto &v : s.values) expr(*v);
      --depth_;
    }
    --depth_;
  }

  void settings(const ast::SettingsDecl &d) {
    bool ds = d.kind == ast::SettingsDecl::Kind::Dataset;
    line(std::string(ds ? "Dataset " : "Train") + (d.name.name.empty() ? "" : (ds ? "" : " ") + d.name.name), d.range);
    ++depth_;
    for (const ast::Setting &s : d.settings) {
      line("Setting " + s.key.name, s.range);
      ++depth_;
      for (size_t i = 0; i < s.phrases.size(); ++i) {
        if (s.phrases.size() > 1) line("Phrase " + std::to_string(i + 1), s.phrases[i].front()->range);
        if (s.phrases.size() > 1) ++depth_;
        for (const auto &t : s.phrases[i]) expr(*t);
        if (s.phrases.size() > 1) --depth_;
      }
      --depth_;
    }
    --depth_;
  }

  void args(const std::vector<ast::Arg> &as) {
    for (const ast::Arg &a : as) {
      if (a.name) {
        line("Arg " + a.name->name, a.range);
        ++depth_;
        expr(*a.value);
        --depth_;
      } else {
        expr(*a.value);
      }
    }
  }

  void stage(const ast::Stage &s) {
    if (s.kind == ast::Stage::Kind::Call) {
      line("Stage " + s.callee.name, s.range);
      ++depth_;
      args(s.args);
      --depth_;
      return;
    }
    line("Repeat", s.range);
    ++depth_;
    line("Count", s.count->range);
    ++depth_;
    expr(*s.count);
    --depth_;
    for (const ast::Stage &b : s.body) stage(b);
    --depth_;
  }

  void expr(const ast::Expr &e) {
    switch (e.kind) {
    case ast::ExprKind::Int: line("Int " + std::to_string(e.intValue), e.range); return;
    case ast::ExprKind::Float: {
      char buf[40];
      std::snprintf(buf, sizeof buf, "%g", e.floatValue);
      line(std::string("Float ") + buf, e.range);
      return;
    }
    case ast::ExprKind::String: line("String " + quoted(e.text), e.range); return;
    case ast::ExprKind::Bool: line(std::string("Bool ") + (e.boolValue ? "true" : "false"), e.range); return;
    case ast::ExprKind::Name: line("Name " + e.text, e.range); return;
    case ast::ExprKind::Call:
      line("Call " + e.callee.name, e.range);
      ++depth_;
      args(e.args);
      --depth_;
      return;
    case ast::ExprKind::Unary:
      line(std::string("Unary ") + e.unaryOp, e.range);
      ++depth_;
      expr(*e.lhs);
      --depth_;
      return;
    case ast::ExprKind::Binary:
      line(std::string("Binary ") + ast::spelling(e.binOp), e.range);
      ++depth_;
      expr(*e.lhs);
      expr(*e.rhs);
      --depth_;
      return;
    case ast::ExprKind::List:
      line("List", e.range);
      ++depth_;
      for (const auto &el : e.elems) expr(*el);
      --depth_;
      return;
    case ast::ExprKind::Pipe:
      line("Pipe", e.range);
      ++depth_;
      expr(*e.lhs);
      stage(*e.stage);
      --depth_;
      return;
    }
  }

  std::ostream &os_;
  const SourceManager &sm_;
  int depth_ = 0;
};

} // namespace

void dumpAST(std::ostream &os, const ast::File &file, const SourceManager &sm) { Dumper(os, sm).file(file); }

} // namespace dx
