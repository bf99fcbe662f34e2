#include "report/TextTable.h"

#include <algorithm>

namespace dx::report {

size_t displayWidth(const std::string &s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string htmlEscape(const std::string &s) {
  std::string out;
  for (char c : s) switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    default: out += c;
    }
  return out;
}

std::string renderText(const TextTable &t) {
  std::vector<size_t> width(t.header.size());
  for (size_t c = 0; c < t.header.size(); ++c) {
    width[c] = displayWidth(t.header[c]);
    for (const auto &row : t.rows) width[c] = std::max(width[c], displayWidth(row[c]));
  }
  auto line = [&](const std::vector<std::string> &cells) {
    std::string out;
    for (size_t c = 0; c < cells.size(); ++c) {
      std::string pad(width[c] - displayWidth(cells[c]), ' ');
      if (c) out += "  ";
      out += t.numeric[c] ? pad + cells[c] : cells[c] + (c + 1 < cells.size() ? pad : "");
    }
    return out + "\n";
  };
  std::string out = line(t.header);
  size_t total = 0;
  for (size_t c = 0; c < width.size(); ++c) total += width[c] + (c ? 2 : 0);
  out += std::string(total, '-') + "\n";
  for (const auto &row : t.rows) out += line(row);
  return out;
}

std::string renderMarkdown(const TextTable &t) {
  auto cell = [](const std::string &s) {
    std::string out;
    for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
    return out;
  };
  std::string out = "|";
  for (const auto &h : t.header) out += " " + cell(h) + " |";
  out += "\n|";
  for (bool n : t.numeric) out += n ? "---:|" : "---|";
  out += "\n";
  for (const auto &row : t.rows) {
    out += "|";
    for (const auto &c : row) out += " " + cell(c) + " |";
    out += "\n";
  }
  return out;
}

std::string renderHtml(const TextTable &t, const std::string &cssClass) {
  std::string out = "<table class=\"" + htmlEscape(cssClass) + "\">\n<thead><tr>";
  for (const auto &h : t.header) out += "<th>" + htmlEscape(h) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (const auto &row : t.rows) {
    out += "<tr>";
    for (size_t c = 0; c < row.size(); ++c)
      out += std::string(t.numeric[c] ? "<td class=\"num\">" : "<td>") + htmlEscape(row[c]) + "</td>";
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table>\n";
}

std::string renderCsv(const TextTable &t) {
  auto cell = [](const std::string &s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
  };
  auto line = [&](const std::vector<std::string> &cells) {
    std::string out;
    for (size_t c = 0; c < cells.size(); ++c) out += (c ? "," : "") + cell(cells[c]);
    return out + "\n";
  };
  std::string out = line(t.header);
  for (const auto &row : t.rows) out += line(row);
  return out;
}

} // namespace dx::report
