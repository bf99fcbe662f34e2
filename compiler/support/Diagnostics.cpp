#include "support/Diagnostics.h"

#include <algorithm>
#include <cstring>
#include <ostream>

namespace dx {

Diagnostic &DiagnosticEngine::add(Severity s, SourceRange r, std::string msg) {
  // The same error from a block instantiated many times is reported once.
  for (const Diagnostic &d : diags_)
    if (d.severity == s && d.range.file == r.file && d.range.begin == r.begin && d.message == msg) {
      discard_ = Diagnostic{};
      return discard_;
    }
  diags_.push_back(Diagnostic{s, r, std::move(msg), {}});
  if (s == Severity::Error) ++errors_;
  return diags_.back();
}

Diagnostic &DiagnosticEngine::error(SourceRange r, std::string msg) {
  return add(Severity::Error, r, std::move(msg));
}

Diagnostic &DiagnosticEngine::warning(SourceRange r, std::string msg) {
  return add(Severity::Warning, r, std::move(msg));
}

static const char *label(Severity s) {
  switch (s) {
  case Severity::Error: return "error";
  case Severity::Warning: return "warning";
  case Severity::Note: return "note";
  }
  return "error";
}

static const char *colorOf(Severity s) {
  switch (s) {
  case Severity::Error: return "\033[1;31m";
  case Severity::Warning: return "\033[1;35m";
  case Severity::Note: return "\033[1;36m";
  }
  return "";
}

void DiagnosticEngine::renderLocated(std::ostream &os, Severity s, const SourceRange &r,
                                     const std::string &msg, bool color) const {
  const char *bold = color ? "\033[1m" : "";
  const char *reset = color ? "\033[0m" : "";
  if (r.valid())
    os << bold << sm_.describe(r) << ": " << reset;
  else
    os << bold << "dxc: " << reset;
  os << (color ? colorOf(s) : "") << label(s) << ": " << reset << bold << msg << reset << "\n";
  if (!r.valid()) return;
  LineCol b = sm_.lineCol(r.file, r.begin);
  std::string_view line = sm_.lineText(r.file, b.line);
  // Keep tabs so the caret lines up with the source line; the continuation
  // bytes of a UTF-8 character take no column on the terminal.
  auto continuation = [&](size_t col) {
    return col - 1 < line.size() && (static_cast<unsigned char>(line[col - 1]) & 0xC0) == 0x80;
  };
  // A very long line (generated or minified input) is shown only around the
  // caret: printed whole, a 50 KB line with a thousand errors made 100 MB.
  constexpr size_t kMaxShown = 240;
  size_t from = 0, to = line.size(); // the bytes [from, to) of the line are shown
  if (line.size() > kMaxShown) {
    size_t at = std::min<size_t>(b.col - 1, line.size());
    from = at > kMaxShown / 3 ? at - kMaxShown / 3 : 0;
    to = std::min(line.size(), from + kMaxShown);
    while (from > 0 && continuation(from + 1)) --from; // whole UTF-8 characters
    while (to < line.size() && continuation(to + 1)) --to;
  }
  const char *more = "...";
  // Built as strings: an unbuffered std::cerr makes one write per '<<'.
  std::string text = "  ";
  if (from > 0) text += more;
  text.append(line.substr(from, to - from));
  if (to < line.size()) text += more;
  text += "\n  ";
  if (from > 0) text += std::string(std::strlen(more), ' ');
  for (size_t i = from + 1; i < b.col && i - 1 < to; ++i)
    if (!continuation(i)) text += line[i - 1] == '\t' ? '\t' : ' ';
  os << text << (color ? "\033[1;32m" : "") << '^';
  // Tildes to the end of the range, clipped to the first line.
  unsigned endCol = b.col;
  if (r.end > r.begin) {
    LineCol e = sm_.lineCol(r.file, r.end - 1);
    endCol = e.line == b.line ? e.col : static_cast<unsigned>(line.size());
  }
  std::string tildes;
  for (size_t c = b.col + 1; c <= endCol && (to == line.size() || c - 1 < to); ++c)
    if (!continuation(c)) tildes += '~';
  os << tildes << reset << "\n";
}

void DiagnosticEngine::renderNote(std::ostream &os, const Note &n, bool color) const {
  renderLocated(os, Severity::Note, n.range, n.message, color);
}

void DiagnosticEngine::renderOne(std::ostream &os, const Diagnostic &d, bool color) const {
  renderLocated(os, d.severity, d.range, d.message, color);
  for (const Note &n : d.notes) renderNote(os, n, color);
}

void DiagnosticEngine::render(std::ostream &os, bool color) const {
  unsigned errors = 0;
  for (const Diagnostic &d : diags_) {
    renderOne(os, d, color);
    if (d.severity == Severity::Error) ++errors;
  }
  if (errors > 0) os << errors << (errors == 1 ? " error" : " errors") << " generated.\n";
}

// Names longer than this get no "did you mean" (see closestMatch).
constexpr size_t kMaxSuggestLength = 64;

// Edit distance where swapping two adjacent characters counts as one edit
// (optimal string alignment), so `itn` is one typo away from `int`. Returns
// limit + 1 as soon as the distance must exceed `limit` (a row's minimum
// never decreases). Both strings are at most kMaxSuggestLength long: it runs
// for every name in scope on every undefined name, so it allocates nothing.
static size_t editDistance(const std::string &a, const std::string &b, size_t limit) {
  size_t rows[3][kMaxSuggestLength + 1];
  size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    size_t rowMin = cur[0];
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) cur[j] = std::min(cur[j], prev2[j - 2] + 1);
      rowMin = std::min(rowMin, cur[j]);
    }
    if (rowMin > limit) return limit + 1;
    size_t *oldest = prev2;
    prev2 = prev;
    prev = cur;
    cur = oldest;
  }
  return prev[b.size()];
}

std::string closestMatch(const std::string &word, const std::vector<std::string> &candidates) {
  std::string best;
  size_t bestDist = SIZE_MAX;
  // Allow roughly one edit per three characters, at least one.
  size_t limit = std::max<size_t>(1, (word.size() + 2) / 3);
  // The edit distance takes |word| * |candidate| steps: no suggestions for
  // names longer than any real one (two of 30,000 characters took seconds).
  if (word.size() > kMaxSuggestLength) return best;
  for (const std::string &c : candidates) {
    if (c == word || c.size() > kMaxSuggestLength) continue;
    // The distance is at least the difference in length.
    if ((c.size() > word.size() ? c.size() - word.size() : word.size() - c.size()) > limit) continue;
    size_t d = editDistance(word, c, limit);
    if (d <= limit && d < bestDist) {
      bestDist = d;
      best = c;
    }
  }
  return best;
}

std::string didYouMean(const std::string &word, const std::vector<std::string> &candidates) {
  std::string m = closestMatch(word, candidates);
  return m.empty() ? "" : "; did you mean '" + m + "'?";
}

} // namespace dx
