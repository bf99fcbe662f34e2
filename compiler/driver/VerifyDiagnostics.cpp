#include "driver/VerifyDiagnostics.h"

#include <ostream>
#include <regex>

namespace dx {
namespace {

struct Expectation {
  Severity severity;
  int file;
  unsigned line;
  unsigned col;        // 0 = any
  std::string text;
  SourceRange where;   // the comment, for messages
  bool matched = false;
};

const char *name(Severity s) {
  return s == Severity::Error ? "error" : s == Severity::Warning ? "warning" : "note";
}

} // namespace

bool verifyDiagnostics(const DiagnosticEngine &diags, std::ostream &os) {
  const SourceManager &sm = diags.sources();
  std::vector<Expectation> expected;
  std::vector<bool> fileExpectsNotes(sm.size(), false);
  static const std::regex re(R"(expected-(error|warning|note)(@([+-]?[0-9]+))?(:([0-9]+))?\s*\{\{(.*?)\}\})");
  bool ok = true;
  for (int f = 0; f < sm.size(); ++f) {
    const std::string &text = sm.contents(f);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it) {
      const std::smatch &m = *it;
      Expectation e;
      std::string kind = m[1];
      e.severity = kind == "error" ? Severity::Error : kind == "warning" ? Severity::Warning : Severity::Note;
      e.file = f;
      uint32_t at = static_cast<uint32_t>(m.position(0));
      e.where = {f, at, at + static_cast<uint32_t>(m.length(0))};
      long line = static_cast<long>(sm.lineCol(f, at).line);
      if (m[3].matched) {
        std::string off = m[3];
        line = off[0] == '+' || off[0] == '-' ? line + std::stol(off) : std::stol(off);
      }
      if (line < 1) {
        os << sm.describe(e.where) << ": error: expectation points before the start of the file\n";
        ok = false;
        continue;
      }
      e.line = static_cast<unsigned>(line);
      e.col = m[5].matched ? static_cast<unsigned>(std::stoul(m[5].str())) : 0;
      e.text = m[6];
      if (e.severity == Severity::Note) fileExpectsNotes[f] = true;
      expected.push_back(e);
    }
  }

  auto match = [&](Severity s, const SourceRange &r, const std::string &msg) {
    if (!r.valid()) return false;
    LineCol lc = sm.lineCol(r.file, r.begin);
    for (Expectation &e : expected) {
      if (e.matched || e.severity != s || e.file != r.file || e.line != lc.line) continue;
      if (e.col && e.col != lc.col) continue;
      if (msg.find(e.text) == std::string::npos) continue;
      e.matched = true;
      return true;
    }
    return false;
  };
  auto unexpected = [&](Severity s, const SourceRange &r, const std::string &msg) {
    os << (r.valid() ? sm.describe(r) : std::string("dxc")) << ": error: unexpected " << name(s) << ": " << msg
       << "\n";
    ok = false;
  };
  for (const Diagnostic &d : diags.all()) {
    if (!match(d.severity, d.range, d.message)) unexpected(d.severity, d.range, d.message);
    for (const Note &n : d.notes) {
      if (!n.range.valid() || !fileExpectsNotes[n.range.file]) continue;
      if (!match(Severity::Note, n.range, n.message)) unexpected(Severity::Note, n.range, n.message);
    }
  }
  for (const Expectation &e : expected) {
    if (e.matched) continue;
    os << sm.describe(e.where) << ": error: expected " << name(e.severity) << " at line " << e.line
       << (e.col ? ", column " + std::to_string(e.col) : std::string()) << " was not produced: {{" << e.text
       << "}}\n";
    ok = false;
  }
  return ok;
}

} // namespace dx
