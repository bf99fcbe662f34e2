#include "frontend/Parser.h"

#include "DeepExLexer.h"
#include "DeepExParser.h"
#include "antlr4-runtime.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>

namespace dx {
namespace {

using P = DeepExParser;

// The lexer sees each byte of the source as one character (code points
// 0-255), so token offsets are byte offsets like every SourceRange, text after
// a non-ASCII character keeps its columns, and invalid UTF-8 cannot make the
// input stream throw. Token text is the source's own bytes.
class ByteStream : public antlr4::ANTLRInputStream {
public:
  explicit ByteStream(const std::string &bytes) : bytes_(bytes) {
    _data.clear();
    _data.reserve(bytes.size());
    for (unsigned char c : bytes) _data.push_back(static_cast<char32_t>(c));
    p = 0;
  }
  std::string getText(const antlr4::misc::Interval &iv) override {
    if (iv.a < 0 || iv.b < iv.a || static_cast<size_t>(iv.a) >= bytes_.size()) return "";
    size_t b = std::min(static_cast<size_t>(iv.b), bytes_.size() - 1);
    return bytes_.substr(static_cast<size_t>(iv.a), b - static_cast<size_t>(iv.a) + 1);
  }

private:
  const std::string &bytes_;
};

// Syntax errors of one file, emitted in source order once lexing, the
// token pre-pass and the parser are done.
struct Pending {
  SourceRange range;
  std::string message;
};
using PendingList = std::vector<Pending>;

// Where a syntax error's follow-on errors end, by token index: the closing
// bracket of a '(' or '[', of the innermost '(' or '[' around a token, and
// the last token on a token's line. Filled by the token pre-pass.
struct Layout {
  std::vector<size_t> closeOf, enclosingClose, lineEnd;
  size_t get(const std::vector<size_t> &v, size_t i) const { return i < v.size() ? v[i] : SIZE_MAX; }
};

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

// "character '$'", "control character U+0001", "byte 0xFF (not valid UTF-8)".
std::string describeStray(const std::string &text) {
  unsigned char c = text.empty() ? 0 : static_cast<unsigned char>(text[0]);
  char buf[48];
  if (c < 0x20 || c == 0x7f) {
    std::snprintf(buf, sizeof buf, "control character U+%04X", c);
    return buf;
  }
  if (c >= 0x80 && text.size() == 1) {
    std::snprintf(buf, sizeof buf, "byte 0x%02X (the file is not valid UTF-8)", c);
    return buf;
  }
  return "character '" + text + "'";
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
  auto is = [&](std::vector<size_t> want) {
    std::sort(want.begin(), want.end());
    std::vector<size_t> have = types;
    std::sort(have.begin(), have.end());
    return have == want;
  };
  if (is({DeepExLexer::IDENT, DeepExLexer::RETURN, DeepExLexer::RBRACE}))
    return "a statement ('name = ...' or 'return ...') or '}'";
  if (is({antlr4::Token::EOF, DeepExLexer::USE, DeepExLexer::BLOCK, DeepExLexer::MODEL, DeepExLexer::DATASET,
          DeepExLexer::TRAIN}))
    return "a declaration ('use', 'block', 'model', 'dataset' or 'train')";
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
  LexerErrors(int file, PendingList &d) : file_(file), diags_(d) {}
  void syntaxError(antlr4::Recognizer *, antlr4::Token *, size_t, size_t, const std::string &msg,
                   std::exception_ptr) override {
    // Not reached in practice: the UNKNOWN rule matches any single
    // character, and unterminated strings and comments are found by the
    // token pre-pass. Kept as a safety net.
    diags_.push_back({{file_, 0, 0}, "lexical error: " + msg});
  }
private:
  int file_;
  PendingList &diags_;
};

class ParserErrors : public antlr4::BaseErrorListener {
public:
  ParserErrors(int file, PendingList &d, const Layout &layout) : file_(file), diags_(d), layout_(layout) {}
  void syntaxError(antlr4::Recognizer *rec, antlr4::Token *tok, size_t, size_t,
                   const std::string &msg, std::exception_ptr ep) override {
    auto *parser = static_cast<antlr4::Parser *>(rec);
    const auto &vocab = parser->getVocabulary();
    SourceRange r = rangeOf(file_, tok);
    if (tok && tok->getType() == antlr4::Token::EOF) {
      // Point just after the last token, on a line the reader can see.
      auto *ts = dynamic_cast<antlr4::BufferedTokenStream *>(parser->getTokenStream());
      for (size_t i = tok->getTokenIndex(); ts && i-- > 0;) {
        antlr4::Token *prev = ts->get(i);
        if (prev->getChannel() != antlr4::Token::DEFAULT_CHANNEL) continue;
        uint32_t at = static_cast<uint32_t>(prev->getStopIndex() + 1);
        r = {file_, at, at};
        break;
      }
    }
    std::string expected;
    try {
      expected = describeExpected(parser->getExpectedTokens(), vocab);
    } catch (...) {
    }
    // `h = relu x` or `h = f(x) g(x)`: the expression ended, so the parser
    // took the next name for the start of a statement `name = ...` and fails
    // after it. The mistake is at that name.
    antlr4::Token *stray = nullptr, *before = nullptr;
    if (expected == "'=' or ','") {
      antlr4::TokenStream *ts = parser->getTokenStream();
      antlr4::Token *name = ts->LT(-1), *prev = ts->LT(-2);
      if (name && prev && name->getType() == DeepExLexer::IDENT && name->getLine() == prev->getLine() &&
          prev->getType() != DeepExLexer::LBRACE && prev->getType() != DeepExLexer::RBRACE &&
          prev->getType() != DeepExLexer::SEMI)
        stray = name, before = prev;
    }
    // The parser's recovery often reports the same mistake again a few tokens
    // later: within the same brackets, on the same line or a token or two
    // on. Keep the first report only.
    size_t index = stray ? stray->getTokenIndex() : tok ? tok->getTokenIndex() : 0;
    bool cascade = until_ != SIZE_MAX && index <= until_;
    size_t end = index + 3;
    for (size_t e : {layout_.get(layout_.enclosingClose, index), layout_.get(layout_.lineEnd, index),
                     layout_.get(layout_.closeOf, index)})
      if (e != SIZE_MAX) end = std::max(end, e);
    until_ = cascade ? std::max(until_, end) : end;
    if (cascade) return;
    // Stray characters were reported by the token pre-pass, once each.
    if (tok && tok->getType() == DeepExLexer::UNKNOWN) return;
    std::string found = describeToken(tok);
    std::string text;
    antlr4::Token *callee = parser->getTokenStream()->LT(-1);
    if (tok && tok->getType() == DeepExLexer::LPAREN && callee && callee->getType() == DeepExLexer::IDENT &&
        callee->getTokenIndex() + 1 == tok->getTokenIndex()) {
      // `x |> f(a b)`: the parser cannot take `(a b)` as f's arguments and
      // stumbles on the '('. Find the mistake inside the parentheses.
      if (auto inner = argumentError(parser, tok)) {
        diags_.push_back(*inner);
        return;
      }
    }
    if (msg.rfind("missing ", 0) == 0) {
      text = "expected " + (expected.empty() ? msg.substr(8, msg.find(" at ") - 8) : expected) +
             " before " + found;
    } else if (msg.rfind("extraneous input", 0) == 0) {
      text = "unexpected " + found;
      if (tok && isBinaryOperator(tok->getType())) {
        // `x +` then something that cannot start an expression: the parser
        // ends the expression before the operator and stumbles on it.
        antlr4::Token *next = parser->getTokenStream()->LT(2);
        text = "expected an expression after " + found + ", found " + describeToken(next);
      } else if (!expected.empty())
        text += "; expected " + expected;
    } else if (ep) {
      text = expected.empty() ? "unexpected " + found : "expected " + expected + ", found " + found;
      if (tok && tok->getType() == DeepExLexer::EOF) text = "unexpected end of file" +
          (expected.empty() ? std::string() : "; expected " + expected);
      // `x + }`: the operator was taken, and what follows cannot start an expression.
      antlr4::Token *op = parser->getTokenStream()->LT(-1);
      if (tok && op && isBinaryOperator(op->getType()) && op->getTokenIndex() + 1 == tok->getTokenIndex()) {
        r = rangeOf(file_, op);
        text = "expected an expression after " + describeToken(op) + ", found " + found;
      }
    } else {
      text = msg;
    }
    if (stray) {
      r = rangeOf(file_, stray);
      text = "unexpected " + describeToken(stray) + " after " + describeToken(before) +
             "; is an operator such as '+' or '|>' missing";
      if (before->getType() == DeepExLexer::IDENT)
        text += ", or the parentheses of a call: '" + before->getText() + "(" + stray->getText() + ")'";
      text += "?";
    }
    diags_.push_back({r, text});
  }
private:
  // Parses the argument list after `open` on its own; returns its first error.
  std::optional<Pending> argumentError(antlr4::Parser *parser, antlr4::Token *open) {
    auto *ts = dynamic_cast<antlr4::BufferedTokenStream *>(parser->getTokenStream());
    if (!ts || depth_ > 8) return std::nullopt;
    size_t save = ts->index();
    PendingList found;
    {
      DeepExParser sub(ts);
      ParserErrors listener(file_, found, layout_);
      listener.depth_ = depth_ + 1;
      sub.removeErrorListeners();
      sub.addErrorListener(&listener);
      ts->seek(open->getTokenIndex() + 1);
      if (ts->LA(1) != DeepExLexer::RPAREN) {
        try {
          sub.argList();
        } catch (...) {
        }
        if (found.empty() && ts->LA(1) != DeepExLexer::RPAREN)
          found.push_back({rangeOf(file_, ts->LT(1)),
                           "expected ',' or ')' after an argument, found " + describeToken(ts->LT(1))});
      }
    }
    ts->seek(save);
    if (found.empty()) return std::nullopt;
    return found.front();
  }

  static bool isBinaryOperator(size_t t) {
    return t == DeepExLexer::PLUS || t == DeepExLexer::MINUS || t == DeepExLexer::STAR || t == DeepExLexer::SLASH ||
           t == DeepExLexer::LT || t == DeepExLexer::LE || t == DeepExLexer::GT || t == DeepExLexer::GE ||
           t == DeepExLexer::EQ || t == DeepExLexer::NE;
  }
  int file_;
  PendingList &diags_;
  const Layout &layout_;
  size_t until_ = SIZE_MAX;
  int depth_ = 0;
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
        terms.push_back(expr(ph->expr()));
        for (auto *t : ph->phraseTerm()) terms.push_back(primary(t->primary()));
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

namespace {

bool isOpen(size_t ty) { return ty == DeepExLexer::LPAREN || ty == DeepExLexer::LBRACK || ty == DeepExLexer::LBRACE; }
bool isClose(size_t ty) { return ty == DeepExLexer::RPAREN || ty == DeepExLexer::RBRACK || ty == DeepExLexer::RBRACE; }
size_t closerOf(size_t open) {
  return open == DeepExLexer::LPAREN ? DeepExLexer::RPAREN
         : open == DeepExLexer::LBRACK ? DeepExLexer::RBRACK
                                        : DeepExLexer::RBRACE;
}
const char *spell(size_t ty) {
  switch (ty) {
  case DeepExLexer::LPAREN: return "(";
  case DeepExLexer::RPAREN: return ")";
  case DeepExLexer::LBRACK: return "[";
  case DeepExLexer::RBRACK: return "]";
  case DeepExLexer::LBRACE: return "{";
  default: return "}";
  }
}

void hide(antlr4::Token *t) {
  if (auto *w = dynamic_cast<antlr4::WritableToken *>(t)) w->setChannel(antlr4::Token::HIDDEN_CHANNEL);
}

// Fixes up the token stream before parsing and finds the errors a grammar
// reports badly: a multi-byte UTF-8 character becomes one token; stray
// characters are reported once each; an unterminated string, an unterminated
// /* comment and unbalanced brackets are reported here, at the quote, comment
// or bracket at fault, and the parse is skipped, since the parser would only
// add follow-on errors. Returns false when the parser must not run.
bool prepass(int file, const std::string &src, std::vector<antlr4::Token *> toks, PendingList &out,
             Layout &layout) {
  auto unit = [&](size_t i) { return static_cast<unsigned char>(src[toks[i]->getStartIndex()]); };
  std::vector<antlr4::Token *> live;
  std::vector<Pending> strays;
  bool unterminated = false;
  size_t strayEnd = SIZE_MAX;
  for (size_t i = 0; i < toks.size(); ++i) {
    antlr4::Token *t = toks[i];
    if (t->getChannel() != antlr4::Token::DEFAULT_CHANNEL) continue;
    size_t ty = t->getType();
    if (ty == DeepExLexer::UNKNOWN) {
      unsigned char c = unit(i);
      if (c == '"') {
        // STRING did not match, so the line has no closing quote.
        size_t eol = src.find('\n', t->getStartIndex());
        if (eol == std::string::npos) eol = src.size();
        while (eol > t->getStartIndex() + 1 && src[eol - 1] == '\r') --eol;
        out.push_back({{file, static_cast<uint32_t>(t->getStartIndex()), static_cast<uint32_t>(eol)},
                       "unterminated string: missing closing '\"' on this line"});
        unterminated = true;
        // The rest of the line belongs to the string.
        while (i + 1 < toks.size() && toks[i + 1]->getType() != antlr4::Token::EOF &&
               toks[i + 1]->getStartIndex() < eol)
          hide(toks[++i]);
        live.push_back(t);
        continue;
      }
      // Join the bytes of one UTF-8 character into one token.
      size_t n = c >= 0xF0 && c <= 0xF4 ? 3 : c >= 0xE0 ? 2 : c >= 0xC2 && c < 0xE0 ? 1 : 0;
      bool whole = n > 0 && i + n < toks.size();
      for (size_t k = 1; whole && k <= n; ++k)
        whole = toks[i + k]->getType() == DeepExLexer::UNKNOWN &&
                toks[i + k]->getStartIndex() == t->getStartIndex() + k && (unit(i + k) & 0xC0) == 0x80;
      if (whole) {
        if (auto *w = dynamic_cast<antlr4::CommonToken *>(t)) w->setStopIndex(t->getStartIndex() + n);
        for (size_t k = 1; k <= n; ++k) hide(toks[i + k]);
        i += n;
      }
      // A run of stray characters is one error.
      if (t->getStartIndex() != strayEnd)
        strays.push_back({rangeOf(file, t), "unexpected " + describeStray(t->getText())});
      strayEnd = t->getStopIndex() + 1;
      live.push_back(t);
      continue;
    }
    // '/' right before '*' can only be a comment that BLOCK_COMMENT did not
    // match: one without its '*/'. It swallows the rest of the file.
    if (ty == DeepExLexer::SLASH && i + 1 < toks.size() && toks[i + 1]->getType() == DeepExLexer::STAR &&
        toks[i + 1]->getStartIndex() == t->getStartIndex() + 1) {
      out.push_back({{file, static_cast<uint32_t>(t->getStartIndex()), static_cast<uint32_t>(t->getStartIndex() + 2)},
                     "unterminated comment: '/*' has no matching '*/'"});
      out.insert(out.end(), strays.begin(), strays.end());
      return false;
    }
    live.push_back(t);
  }

  // What follows an unterminated string (brackets it held, its words) would
  // only give follow-on errors.
  if (unterminated) {
    out.insert(out.end(), strays.begin(), strays.end());
    return false;
  }

  // Brackets: the grammar needs them balanced everywhere, and the parser's
  // recovery would report a missing one far from where it is.
  constexpr int kMaxNesting = 256;
  std::vector<antlr4::Token *> stack;
  bool bad = false;
  layout.closeOf.assign(toks.size(), SIZE_MAX);
  layout.enclosingClose.assign(toks.size(), SIZE_MAX);
  layout.lineEnd.assign(toks.size(), SIZE_MAX);
  for (size_t k = live.size(); k-- > 0;) {
    bool sameLine = k + 1 < live.size() && live[k + 1]->getLine() == live[k]->getLine() &&
                    live[k + 1]->getType() != antlr4::Token::EOF;
    layout.lineEnd[live[k]->getTokenIndex()] =
        sameLine ? layout.lineEnd[live[k + 1]->getTokenIndex()] : live[k]->getTokenIndex();
  }
  std::vector<size_t> inner; // positions in `stack` of the open '(' and '['
  for (antlr4::Token *t : live) {
    size_t ty = t->getType();
    // The opener for now; mapped to its closer below.
    if (!inner.empty()) layout.enclosingClose[t->getTokenIndex()] = stack[inner.back()]->getTokenIndex();
    if (isOpen(ty)) {
      stack.push_back(t);
      if (ty != DeepExLexer::LBRACE) inner.push_back(stack.size() - 1);
      if (stack.size() > kMaxNesting) {
        // Deeper nesting is certainly not a real model, and unbounded nesting
        // would exhaust the stack of the recursive-descent parser.
        out.push_back({rangeOf(file, t), "brackets nested too deeply (more than " + std::to_string(kMaxNesting) +
                                             " levels)"});
        out.insert(out.end(), strays.begin(), strays.end());
        return false;
      }
      continue;
    }
    if (!isClose(ty)) continue;
    if (!stack.empty() && closerOf(stack.back()->getType()) == ty) {
      layout.closeOf[stack.back()->getTokenIndex()] = t->getTokenIndex();
      if (!inner.empty() && inner.back() + 1 == stack.size()) inner.pop_back();
      stack.pop_back();
      continue;
    }
    bad = true;
    size_t match = stack.size();
    for (size_t k = stack.size(); k-- > 0;)
      if (closerOf(stack[k]->getType()) == ty) {
        match = k;
        break;
      }
    if (match == stack.size()) {
      // Closes nothing that is open: an extra bracket.
      out.push_back({rangeOf(file, t), std::string("unmatched '") + spell(ty) + "': no '" +
                                           spell(ty == DeepExLexer::RPAREN   ? DeepExLexer::LPAREN
                                                 : ty == DeepExLexer::RBRACK ? DeepExLexer::LBRACK
                                                                             : DeepExLexer::LBRACE) +
                                           "' is open here"});
      continue;
    }
    for (size_t k = match + 1; k < stack.size(); ++k)
      out.push_back({rangeOf(file, stack[k]), std::string("unclosed '") + spell(stack[k]->getType()) +
                                                  "': no matching '" + spell(closerOf(stack[k]->getType())) + "'"});
    stack.resize(match);
    while (!inner.empty() && inner.back() >= stack.size()) inner.pop_back();
  }
  for (antlr4::Token *t : stack)
    out.push_back({rangeOf(file, t), std::string("unclosed '") + spell(t->getType()) + "': no matching '" +
                                         spell(closerOf(t->getType())) + "'"});
  for (size_t &e : layout.enclosingClose)
    if (e != SIZE_MAX) e = layout.closeOf[e];
  out.insert(out.end(), strays.begin(), strays.end());
  return !bad && stack.empty();
}

} // namespace

std::unique_ptr<ast::File> parseFile(int fileId, DiagnosticEngine &diags) {
  const SourceManager &sm = diags.sources();
  unsigned before = diags.errorCount();
  PendingList pending;
  auto flush = [&]() {
    std::stable_sort(pending.begin(), pending.end(),
                     [](const Pending &a, const Pending &b) { return a.range.begin < b.range.begin; });
    for (const Pending &p : pending) diags.error(p.range, p.message);
    pending.clear();
  };
  ByteStream input(sm.contents(fileId));
  DeepExLexer lexer(&input);
  LexerErrors lexErrors(fileId, pending);
  lexer.removeErrorListeners();
  lexer.addErrorListener(&lexErrors);
  antlr4::CommonTokenStream tokens(&lexer);
  tokens.fill();

  Layout layout;
  if (!prepass(fileId, sm.contents(fileId), tokens.getTokens(), pending, layout)) {
    flush();
    return nullptr;
  }

  DeepExParser parser(&tokens);
  ParserErrors parseErrors(fileId, pending, layout);
  parser.removeErrorListeners();
  parser.addErrorListener(&parseErrors);
  DeepExParser::FileContext *tree = nullptr;
  try {
    tree = parser.file();
  } catch (const std::exception &e) {
    pending.push_back({{fileId, 0, 0}, std::string("parser failed: ") + e.what()});
    flush();
    return nullptr;
  }
  flush();
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
