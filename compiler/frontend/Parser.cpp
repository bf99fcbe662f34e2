#include "frontend/Parser.h"

#include "DeepExLexer.h"
#include "DeepExParser.h"
#include "antlr4-runtime.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace dx {
namespace {

using P = DeepExParser;

// Deeper nesting than this is certainly not a real model, and unbounded
// nesting would exhaust the stack of the recursive-descent parser.
constexpr int kMaxNesting = 256;

SourceRange rangeOf(int file, const antlr4::Token *t) {
  if (!t) return {};
  if (t->getType() == antlr4::Token::EOF) {
    uint32_t at = static_cast<uint32_t>(t->getStartIndex());
    return {file, at, at};
  }
  return {file, static_cast<uint32_t>(t->getStartIndex()),
          static_cast<uint32_t>(t->getStopIndex() + 1)};
}

std::string tokenName(const antlr4::dfa::Vocabulary &vocab, size_t type) {
  switch (type) {
  case antlr4::Token::EOF: return "end of file";
  case DeepExLexer::IDENT: return "identifier";
  case DeepExLexer::INT: return "integer";
  case DeepExLexer::FLOAT: return "number";
  case DeepExLexer::STRING: return "string";
  default: return vocab.getLiteralName(type);
  }
}

std::string describeToken(const antlr4::Token *t) {
  if (!t || t->getType() == antlr4::Token::EOF) return "end of file";
  return "'" + t->getText() + "'";
}

// Renders an expected-token set for a message; an expression's many possible
// first tokens are collapsed to "expression".
std::string describeExpected(const antlr4::misc::IntervalSet &set, const antlr4::dfa::Vocabulary &vocab) {
  std::vector<size_t> types;
  for (ssize_t t : set.toList()) types.push_back(static_cast<size_t>(t));
  int exprStarts = 0;
  for (size_t t : types)
    if (t == DeepExLexer::INT || t == DeepExLexer::FLOAT || t == DeepExLexer::STRING ||
        t == DeepExLexer::LPAREN || t == DeepExLexer::LBRACK || t == DeepExLexer::TRUE ||
        t == DeepExLexer::MINUS)
      ++exprStarts;
  std::vector<std::string> names;
  if (exprStarts >= 4) {
    names.push_back("expression");
    for (size_t t : types)
      if (t == DeepExLexer::RPAREN || t == DeepExLexer::RBRACE || t == DeepExLexer::RBRACK ||
          t == DeepExLexer::COMMA)
        names.push_back(tokenName(vocab, t));
  } else {
    for (size_t t : types) names.push_back(tokenName(vocab, t));
  }
  if (names.empty()) return "";
  if (names.size() > 6) return "";
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) out += i + 1 == names.size() ? " or " : ", ";
    out += names[i];
  }
  return out;
}

class LexerErrors : public antlr4::BaseErrorListener {
public:
  LexerErrors(int file, DiagnosticEngine &d) : file_(file), diags_(d) {}
  void syntaxError(antlr4::Recognizer *, antlr4::Token *, size_t, size_t, const std::string &msg,
                   std::exception_ptr) override {
    // Only reached for input no lexer rule matches (e.g. an unterminated
    // block comment); single stray characters become UNKNOWN tokens.
    diags_.error({file_, 0, 0}, "lexical error: " + msg);
  }
private:
  int file_;
  DiagnosticEngine &diags_;
};

class ParserErrors : public antlr4::BaseErrorListener {
public:
  ParserErrors(int file, DiagnosticEngine &d) : file_(file), diags_(d) {}
  void syntaxError(antlr4::Recognizer *rec, antlr4::Token *tok, size_t, size_t,
                   const std::string &msg, std::exception_ptr ep) override {
    auto *parser = static_cast<antlr4::Parser *>(rec);
    const auto &vocab = parser->getVocabulary();
    SourceRange r = rangeOf(file_, tok);
    if (tok && tok->getType() == DeepExLexer::UNKNOWN) {
      // One message per stray character, not one per recovery attempt.
      if (r.begin == lastUnknown_) return;
      lastUnknown_ = r.begin;
      diags_.error(r, "unexpected character " + describeToken(tok));
      return;
    }
    std::string expected;
    try {
      expected = describeExpected(parser->getExpectedTokens(), vocab);
    } catch (...) {
    }
    std::string found = describeToken(tok);
    std::string text;
    if (msg.rfind("missing ", 0) == 0) {
      text = "expected " + (expected.empty() ? msg.substr(8, msg.find(" at ") - 8) : expected) +
             " before " + found;
    } else if (msg.rfind("extraneous input", 0) == 0) {
      text = "unexpected " + found;
      if (!expected.empty()) text += "; expected " + expected;
    } else if (ep) {
      text = expected.empty() ? "unexpected " + found : "expected " + expected + ", found " + found;
      if (tok && tok->getType() == DeepExLexer::EOF) text = "unexpected end of file" +
          (expected.empty() ? std::string() : "; expected " + expected);
    } else {
      text = msg;
    }
    diags_.error(r, text);
  }
private:
  int file_;
  DiagnosticEngine &diags_;
  uint32_t lastUnknown_ = UINT32_MAX;
};

// Walks the ANTLR parse tree (free of syntax errors) and builds the AST.
class Builder {
public:
  Builder(int file, DiagnosticEngine &d) : file_(file), diags_(d) {}

  std::unique_ptr<ast::File> build(P::FileContext *ctx) {
    auto f = std::make_unique<ast::File>();
    f->fileId = file_;
    for (auto *child : ctx->children) {
      if (auto *u = dynamic_cast<P::UseDeclContext *>(child)) f->uses.push_back(use(u));
      if (auto *d = dynamic_cast<P::DeclContext *>(child)) decl(d, *f);
    }
    return f;
  }

private:
  SourceRange range(antlr4::ParserRuleContext *ctx) {
    SourceRange a = rangeOf(file_, ctx->getStart());
    SourceRange b = rangeOf(file_, ctx->getStop());
    if (!ctx->getStop() || ctx->getStop()->getStopIndex() < ctx->getStart()->getStartIndex()) return a;
    return SourceRange::merge(a, b);
  }
  SourceRange range(antlr4::tree::TerminalNode *t) { return rangeOf(file_, t->getSymbol()); }
  ast::Ident ident(antlr4::Token *t) { return {t->getText(), rangeOf(file_, t)}; }
  ast::Ident ident(antlr4::tree::TerminalNode *t) { return ident(t->getSymbol()); }

  ast::Use use(P::UseDeclContext *ctx) {
    ast::Use u;
    u.range = range(ctx);
    if (ctx->STRING()) u.file = unquote(ctx->STRING());
    else
      for (auto *id : ctx->qualifiedName()->IDENT()) u.path.push_back(ident(id));
    return u;
  }

  void decl(P::DeclContext *ctx, ast::File &f) {
    if (auto *b = ctx->blockDecl())
      f.funcs.push_back(func(false, b->name, b->paramList(), b->outputs(), b->body(), range(b)));
    else if (auto *m = ctx->modelDecl())
      f.funcs.push_back(func(true, m->name, m->paramList(), m->outputs(), m->body(), range(m)));
    else if (auto *d = ctx->datasetDecl())
      f.datasets.push_back(settings(ast::SettingsDecl::Kind::Dataset, d->name, d->setting(), range(d)));
    else if (auto *t = ctx->trainDecl())
      f.trains.push_back(settings(ast::SettingsDecl::Kind::Train, t->name, t->setting(), range(t)));
  }

  std::unique_ptr<ast::FuncDecl> func(bool isModel, antlr4::Token *name, P::ParamListContext *params,
                                      P::OutputsContext *outs, P::BodyContext *body, SourceRange r) {
    auto fn = std::make_unique<ast::FuncDecl>();
    fn->isModel = isModel;
    fn->name = ident(name);
    fn->range = r;
    if (params)
      for (auto *p : params->param()) fn->params.push_back(param(p));
    if (outs) {
      fn->hasOutputs = true;
      for (auto *o : outs->outputDecl()) {
        ast::OutputDecl od;
        if (o->name) od.name = ident(o->name);
        od.type = tensorType(o->tensorType());
        od.range = range(o);
        fn->outputs.push_back(std::move(od));
      }
    }
    for (auto *s : body->stmt()) fn->body.push_back(stmt(s));
    fn->bodyEnd = range(body->RBRACE());
    return fn;
  }

  ast::Param param(P::ParamContext *ctx) {
    ast::Param p;
    p.name = ident(ctx->name);
    p.range = range(ctx);
    if (auto *t = ctx->typeExpr()) {
      ast::TypeExpr te;
      te.range = range(t);
      if (t->tensorType()) te.tensor = tensorType(t->tensorType());
      else te.scalar = ident(t->scalar);
      p.type = std::move(te);
    }
    if (ctx->expr()) p.defaultValue = expr(ctx->expr());
    return p;
  }

  ast::TensorTypeExpr tensorType(P::TensorTypeContext *ctx) {
    ast::TensorTypeExpr t;
    t.elem = ident(ctx->elem);
    t.range = range(ctx);
    for (auto *d : ctx->dim()) {
      ast::Dim dim;
      dim.range = range(d);
      if (d->INT()) dim.size = intValue(d->INT()->getSymbol());
      else dim.symbol = d->IDENT()->getText();
      t.dims.push_back(std::move(dim));
    }
    return t;
  }

  ast::Stmt stmt(P::StmtContext *ctx) {
    ast::Stmt s;
    s.range = range(ctx);
    if (auto *a = dynamic_cast<P::AssignStmtContext *>(ctx)) {
      s.kind = ast::Stmt::Kind::Assign;
      for (auto *id : a->IDENT()) s.targets.push_back(ident(id));
      s.values.push_back(expr(a->expr()));
    } else {
      auto *r = static_cast<P::ReturnStmtContext *>(ctx);
      s.kind = ast::Stmt::Kind::Return;
      for (auto *e : r->expr()) s.values.push_back(expr(e));
    }
    return s;
  }

  std::unique_ptr<ast::SettingsDecl> settings(ast::SettingsDecl::Kind kind, antlr4::Token *name,
                                              const std::vector<P::SettingContext *> &items, SourceRange r) {
    auto d = std::make_unique<ast::SettingsDecl>();
    d->kind = kind;
    if (name) d->name = ident(name);
    d->range = r;
    for (auto *s : items) {
      ast::Setting st;
      st.key = ident(s->settingKey()->getStart());
      st.range = range(s);
      for (auto *ph : s->settingValue()->phrase()) {
        std::vector<ast::ExprPtr> terms;
        for (auto *e : ph->expr()) terms.push_back(expr(e));
        st.phrases.push_back(std::move(terms));
      }
      d->settings.push_back(std::move(st));
    }
    return d;
  }

  ast::ExprPtr make(ast::ExprKind k, antlr4::ParserRuleContext *ctx) {
    return std::make_unique<ast::Expr>(k, range(ctx));
  }

  ast::ExprPtr expr(P::ExprContext *ctx) {
    if (auto *p = dynamic_cast<P::PrimaryExprContext *>(ctx)) return primary(p->primary());
    if (auto *u = dynamic_cast<P::UnaryExprContext *>(ctx)) {
      auto e = make(ast::ExprKind::Unary, ctx);
      e->unaryOp = u->op->getText()[0];
      e->lhs = expr(u->expr());
      return e;
    }
    if (auto *pipe = dynamic_cast<P::PipeExprContext *>(ctx)) {
      auto e = make(ast::ExprKind::Pipe, ctx);
      e->lhs = expr(pipe->expr());
      e->stage = std::make_unique<ast::Stage>(stage(pipe->stage()));
      return e;
    }
    antlr4::Token *op = nullptr;
    std::vector<P::ExprContext *> ops;
    if (auto *m = dynamic_cast<P::MulExprContext *>(ctx)) op = m->op, ops = m->expr();
    else if (auto *a = dynamic_cast<P::AddExprContext *>(ctx)) op = a->op, ops = a->expr();
    else if (auto *c = dynamic_cast<P::CmpExprContext *>(ctx)) op = c->op, ops = c->expr();
    auto e = make(ast::ExprKind::Binary, ctx);
    static const std::pair<const char *, ast::BinOp> table[] = {
        {"+", ast::BinOp::Add}, {"-", ast::BinOp::Sub}, {"*", ast::BinOp::Mul}, {"/", ast::BinOp::Div},
        {"<", ast::BinOp::Lt},  {"<=", ast::BinOp::Le}, {">", ast::BinOp::Gt},  {">=", ast::BinOp::Ge},
        {"==", ast::BinOp::Eq}, {"!=", ast::BinOp::Ne}};
    for (auto &[s, b] : table)
      if (op->getText() == s) e->binOp = b;
    e->lhs = expr(ops[0]);
    e->rhs = expr(ops[1]);
    return e;
  }

  ast::Stage stage(P::StageContext *ctx) {
    ast::Stage s;
    s.range = range(ctx);
    if (auto *c = dynamic_cast<P::CallStageContext *>(ctx)) {
      s.kind = ast::Stage::Kind::Call;
      s.callee = ident(c->callee);
      if (c->argList()) s.args = args(c->argList());
    } else {
      auto *r = static_cast<P::RepeatStageContext *>(ctx);
      s.kind = ast::Stage::Kind::Repeat;
      s.count = expr(r->count);
      for (auto *st : r->stage()) s.body.push_back(stage(st));
    }
    return s;
  }

  std::vector<ast::Arg> args(P::ArgListContext *ctx) {
    std::vector<ast::Arg> out;
    for (auto *a : ctx->arg()) {
      ast::Arg arg;
      arg.range = range(a);
      if (a->name) arg.name = ident(a->name);
      arg.value = expr(a->expr());
      out.push_back(std::move(arg));
    }
    return out;
  }

  ast::ExprPtr primary(P::PrimaryContext *ctx) {
    if (auto *i = dynamic_cast<P::IntLitContext *>(ctx)) {
      auto e = make(ast::ExprKind::Int, ctx);
      e->intValue = intValue(i->INT()->getSymbol());
      return e;
    }
    if (auto *f = dynamic_cast<P::FloatLitContext *>(ctx)) {
      auto e = make(ast::ExprKind::Float, ctx);
      std::string text = stripUnderscores(f->FLOAT()->getText());
      errno = 0;
      e->floatValue = std::strtod(text.c_str(), nullptr);
      if (errno == ERANGE && std::isinf(e->floatValue))
        diags_.error(e->range, "number literal is out of range");
      return e;
    }
    if (auto *s = dynamic_cast<P::StringLitContext *>(ctx)) {
      auto e = make(ast::ExprKind::String, ctx);
      e->text = unquote(s->STRING());
      return e;
    }
    if (auto *b = dynamic_cast<P::BoolLitContext *>(ctx)) {
      auto e = make(ast::ExprKind::Bool, ctx);
      e->boolValue = b->TRUE() != nullptr;
      return e;
    }
    if (auto *c = dynamic_cast<P::CallExprContext *>(ctx)) {
      auto e = make(ast::ExprKind::Call, ctx);
      e->callee = ident(c->callee);
      if (c->argList()) e->args = args(c->argList());
      return e;
    }
    if (auto *n = dynamic_cast<P::NameExprContext *>(ctx)) {
      auto e = make(ast::ExprKind::Name, ctx);
      e->text = n->IDENT()->getText();
      return e;
    }
    if (auto *p = dynamic_cast<P::ParenExprContext *>(ctx)) {
      auto inner = expr(p->expr());
      inner->range = range(ctx); // keep the parentheses in the range
      return inner;
    }
    auto *l = static_cast<P::ListExprContext *>(ctx);
    auto e = make(ast::ExprKind::List, ctx);
    for (auto *x : l->expr()) e->elems.push_back(expr(x));
    return e;
  }

  static std::string stripUnderscores(std::string s) {
    std::string out;
    for (char c : s)
      if (c != '_') out += c;
    return out;
  }

  int64_t intValue(antlr4::Token *t) {
    std::string digits = stripUnderscores(t->getText());
    errno = 0;
    char *end = nullptr;
    long long v = std::strtoll(digits.c_str(), &end, 10);
    if (errno == ERANGE) {
      diags_.error(rangeOf(file_, t), "integer literal '" + t->getText() + "' does not fit in 64 bits");
      return 0;
    }
    return v;
  }

  std::string unquote(antlr4::tree::TerminalNode *t) {
    std::string raw = t->getText();
    std::string out;
    for (size_t i = 1; i + 1 < raw.size(); ++i) {
      if (raw[i] != '\\') {
        out += raw[i];
        continue;
      }
      char c = raw[++i];
      switch (c) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      default: {
        SourceRange r = range(t);
        r.begin += static_cast<uint32_t>(i - 1);
        r.end = r.begin + 2;
        diags_.error(r, std::string("unknown escape sequence '\\") + c + "' in string");
      }
      }
    }
    return out;
  }

  int file_;
  DiagnosticEngine &diags_;
};

} // namespace

std::unique_ptr<ast::File> parseFile(int fileId, DiagnosticEngine &diags) {
  const SourceManager &sm = diags.sources();
  unsigned before = diags.errorCount();
  antlr4::ANTLRInputStream input(sm.contents(fileId));
  DeepExLexer lexer(&input);
  LexerErrors lexErrors(fileId, diags);
  lexer.removeErrorListeners();
  lexer.addErrorListener(&lexErrors);
  antlr4::CommonTokenStream tokens(&lexer);
  tokens.fill();

  // Refuse pathological bracket nesting before the recursive parser sees it.
  // (Long operator chains are handled by running the front end on a large
  // stack; see driver/FrontEnd.cpp.)
  int depth = 0;
  for (antlr4::Token *t : tokens.getTokens()) {
    size_t ty = t->getType();
    if (ty == DeepExLexer::LPAREN || ty == DeepExLexer::LBRACK || ty == DeepExLexer::LBRACE) {
      if (++depth > kMaxNesting) {
        diags.error(rangeOf(fileId, t), "brackets nested too deeply (more than " +
                                            std::to_string(kMaxNesting) + " levels)");
        return nullptr;
      }
    } else if (ty == DeepExLexer::RPAREN || ty == DeepExLexer::RBRACK || ty == DeepExLexer::RBRACE) {
      if (depth > 0) --depth;
    }
  }

  DeepExParser parser(&tokens);
  ParserErrors parseErrors(fileId, diags);
  parser.removeErrorListeners();
  parser.addErrorListener(&parseErrors);
  DeepExParser::FileContext *tree = nullptr;
  try {
    tree = parser.file();
  } catch (const std::exception &e) {
    diags.error({fileId, 0, 0}, std::string("parser failed: ") + e.what());
    return nullptr;
  }
  if (diags.errorCount() != before) return nullptr;
  try {
    auto file = Builder(fileId, diags).build(tree);
    file->path = sm.path(fileId);
    if (diags.errorCount() != before) return nullptr;
    return file;
  } catch (const std::exception &e) {
    diags.error({fileId, 0, 0}, std::string("internal error while building the AST: ") + e.what());
    return nullptr;
  }
}

} // namespace dx
