// A table of display strings and its renderings: aligned plain text for the
// terminal, Markdown, an HTML <table>, CSV.
#pragma once

#include <string>
#include <vector>

namespace dx::report {

struct TextTable {
  std::vector<std::string> header;
  std::vector<bool> numeric; // right-aligned columns
  std::vector<std::vector<std::string>> rows;

  void addColumn(std::string name, bool isNumeric) {
    header.push_back(std::move(name));
    numeric.push_back(isNumeric);
  }
};

// Columns separated by two spaces, numbers right-aligned, a rule under the header.
std::string renderText(const TextTable &t);
// A GitHub-flavoured Markdown table ('|' in cells escaped).
std::string renderMarkdown(const TextTable &t);
// <table class="...">, cells HTML-escaped.
std::string renderHtml(const TextTable &t, const std::string &cssClass);
// RFC 4180 CSV: a header line, then one line per row; cells with a comma,
// quote or newline are quoted.
std::string renderCsv(const TextTable &t);

std::string htmlEscape(const std::string &s);
// Display width of UTF-8 text (code points; all of ours are one column wide).
size_t displayWidth(const std::string &s);

} // namespace dx::report
