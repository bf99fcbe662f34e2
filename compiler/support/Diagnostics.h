// Diagnostics: `file:line:col: error: message`, the source line, a caret and
// tildes under the exact range, then notes that point at related places.
// All diagnostics of a run are collected so that one run reports every error
// and `--verify-diagnostics` can compare them with expectations in the source.
#pragma once

#include "support/Source.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace dx {

enum class Severity { Error, Warning, Note };

struct Note {
  SourceRange range;
  std::string message;
};

struct Diagnostic {
  Severity severity = Severity::Error;
  SourceRange range;
  std::string message;
  std::vector<Note> notes;
};

class DiagnosticEngine {
public:
  explicit DiagnosticEngine(const SourceManager &sm) : sm_(sm) {}

  // Returns a reference so the caller can attach notes. A diagnostic equal to
  // an earlier one (same place and message) is dropped.
  Diagnostic &error(SourceRange r, std::string msg);
  Diagnostic &warning(SourceRange r, std::string msg);

  unsigned errorCount() const { return errors_; }
  bool hasErrors() const { return errors_ > 0; }
  const std::vector<Diagnostic> &all() const { return diags_; }

  // Renders every diagnostic collected so far, then an error count.
  void render(std::ostream &os, bool color) const;
  void renderOne(std::ostream &os, const Diagnostic &d, bool color) const;
  void renderNote(std::ostream &os, const Note &n, bool color) const;

  const SourceManager &sources() const { return sm_; }

private:
  Diagnostic &add(Severity s, SourceRange r, std::string msg);
  void renderLocated(std::ostream &os, Severity s, const SourceRange &r,
                     const std::string &msg, bool color) const;
  const SourceManager &sm_;
  std::vector<Diagnostic> diags_;
  Diagnostic discard_; // receives notes for a duplicate that was dropped
  unsigned errors_ = 0;
};

// Closest candidate by edit distance, for "did you mean 'x'?" hints; empty
// when nothing is close enough to be a plausible typo.
std::string closestMatch(const std::string &word, const std::vector<std::string> &candidates);
// " (did you mean 'x'?)" or "".
std::string didYouMean(const std::string &word, const std::vector<std::string> &candidates);

} // namespace dx
